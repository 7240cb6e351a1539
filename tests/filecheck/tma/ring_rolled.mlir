// tma{stages=N rolled=true}: the ring of ring.mlir's persistent transpose in the
// rolled form (passes/_pipeline_rolled.py): the in- and out-buffers staged (a leading
// stage mode), one mbarrier array, the loop over the block's tiles keeping its step and
// carrying (stage, phase); each step waits for the stores of N-1 tiles ago, loads the
// tile N-1 ahead into the stage the step before used, waits on its own stage and
// stores its out-stage. Equivalent on the executor at 2 and 3 stages and lowered.
// RUN: tilec %s -p "tma{stages=3 rolled=true}" | filecheck %s
// RUN: tilec %s -p "tma{stages=2 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "tma{stages=3 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "expand-iterators,tile,order-grid,tma{stages=2 rolled=true},distribute,vectorize,vectorize-pointers,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize" --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: @persistent_transpose: equivalent after

// CHECK-LABEL: func.func @persistent_transpose
// CHECK:      %s = layout.alloc : !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o (3,32,32):(1024,32,1)>, smem>
// CHECK-NEXT: %s2 = layout.alloc : !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o (3,32,32):(1024,1,32)>, smem>
// CHECK-NEXT: %full = layout.mbarrier_array {count = 1 : i64, stages = 3 : i64}
// CHECK:      scf.for %t = %bx to %nt step %nb iter_args(%stage = %c0_p, %phase = %c0_p)
// CHECK:        %[[O:.*]] = layout.slice %s2[%stage, _, _]
// CHECK:        layout.tma_store_wait {pending = 2 : i64}
// CHECK:        scf.if
// CHECK:          layout.slice %s[%ahead, _, _]
// CHECK:          layout.tma_load
// CHECK:        layout.mbarrier_wait %{{.*}}, %phase
// CHECK:        layout.tma_store %[[O]], %tb
// CHECK:      } {tilec.unroll = 1 : i64}
// CHECK-NEXT: layout.tma_store_wait {pending = 0 : i64}

#L = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [0, 1]}>
!Gs = !layout.tensor<f32, #layout.cute<(64,96):(96,1)>, gmem>
!Gd = !layout.tensor<f32, #layout.cute<(64,96):(1,64)>, gmem>
!Ts = !layout.tensor<f32, #layout.cute<(32,32):(96,1)>, gmem>
!Td = !layout.tensor<f32, #layout.cute<(32,32):(1,64)>, gmem>
!S = !layout.tensor<f32, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 32, transposed = false, shape = [32, 32]>, smem>
!S2 = !layout.tensor<f32, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 32, transposed = true, shape = [32, 32]>, smem>
func.func @persistent_transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Gs
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Gd
  %nb = arith.constant 2 : index
  %gx = arith.constant 2 : index
  %nt = arith.constant 6 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%nb, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %s2 = layout.alloc : !S2
    scf.for %t = %bx to %nt step %nb {
      %i = arith.remui %t, %gx : index
      %j = arith.divui %t, %gx : index
      %ta = layout.tile %a[%i, %j] {tile = array<i64: 32, 32>} : !Gs -> !Ts
      %tb = layout.tile %b[%i, %j] {tile = array<i64: 32, 32>} : !Gd -> !Td
      layout.copy %ta, %s : !Ts, !S
      layout.barrier
      %v = layout.load %s : !S -> tensor<32x32xf32, #L>
      layout.store %v, %s2 : tensor<32x32xf32, #L>, !S2
      layout.barrier
      layout.copy %s2, %tb : !S2, !Td
      layout.barrier
    }
  }
  func.return
}
