// software-pipeline on the sm_80 GEMM loop: block-level copies of A's and B's k-th tiles
// into one shared buffer each, which `distribute` and `vectorize` make cp.async
// (`layout.copy_async`, each followed by `layout.async_wait {pending = 0}`), a barrier,
// the operands loaded from shared memory into the MMA operand layouts, a `layout.mma`
// (mma.sync) into the carried accumulator, a barrier. Pipelined: the buffers get one
// copy per stage, a prologue issues the copies of the first S-1 tiles, each unrolled
// step waits until its own tile's groups have landed (pending = (S-2) x 2 groups),
// meets the block, issues the copies of the tile S-1 ahead (past the end the last
// tile again, so that each step commits as many groups) into the stage read one step
// before, then computes; async_wait {pending = 0} after the loop. 4 K steps under 3
// stages: one whole round in the loop, unguarded, the 4th step peeled after it.
// The unrolled form is asked for (`rolled=false`): by default a cp.async loop is
// rolled (rolled_cp_async.mlir).
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=false}" | filecheck %s
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=2 rolled=false}" | filecheck %s --check-prefix=S2
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=2 rolled=false}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=false}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=4 rolled=false}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=4 rolled=false},vectorize-pointers,vectorize-element-loops,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "distribute,vectorize,software-pipeline{num_stages=3 rolled=false},vectorize-pointers,vectorize-element-loops,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize" -t cuda | filecheck %s --check-prefix=CUDA

// EQ: @gemm80: equivalent after

// CHECK-LABEL: func.func @gemm80
// CHECK:      %sa = layout.alloc
// CHECK-NEXT: %sb = layout.alloc
// CHECK-NEXT: %[[SA1:.*]] = layout.alloc
// CHECK-NEXT: %[[SB1:.*]] = layout.alloc
// CHECK-NEXT: %[[SA2:.*]] = layout.alloc
// CHECK-NEXT: %[[SB2:.*]] = layout.alloc
// CHECK:      %[[LAST:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK-COUNT-4: layout.copy_async
// CHECK-NOT:  layout.async_wait
// CHECK:      %rounds_end = arith.addi %c0, %{{.*}} : index
// CHECK-NEXT: %[[R:.*]] = scf.for %kt = %c0 to %rounds_end step %nstep iter_args(%acc0 = %zero) -> ({{.*}}) {
// CHECK-NEXT:   layout.async_wait {pending = 2 : i64}
// CHECK-NEXT:   layout.barrier
// CHECK:        arith.minui %{{.*}}, %[[LAST]] : index
// CHECK:        layout.vectorize %[[SA2]]
// CHECK:        layout.copy_async
// CHECK:        layout.vectorize %[[SB2]]
// CHECK:        layout.copy_async
// CHECK-NEXT:   %fa = layout.load %sa
// CHECK-NEXT:   %fb = layout.load %sb
// CHECK-NEXT:   %d = layout.mma %fa, %fb, %acc0
// CHECK-NOT:    scf.if
// CHECK:        layout.async_wait {pending = 2 : i64}
// CHECK-NEXT:   layout.barrier
// CHECK:        layout.vectorize %sa
// CHECK:        %fa_1 = layout.load %[[SA1]]
// CHECK:        scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: layout.async_wait {pending = 2 : i64}
// CHECK-NEXT: layout.barrier
// CHECK:      %fa_3 = layout.load %sa
// CHECK:      %acc = layout.mma %fa_3, %fb_3, %[[R]]
// CHECK-NEXT: layout.async_wait {pending = 0 : i64}
// CHECK-NEXT: %tc = layout.tile

// S2-LABEL: func.func @gemm80
// S2:      scf.for
// S2-NEXT:   layout.async_wait {pending = 0 : i64}
// S2-NEXT:   layout.barrier
// S2-NOT:    scf.if %{{.*}} -> (

// CUDA-LABEL: gemm80_kernel(
// CUDA:       tilec_cp_async_wait<2>();
// CUDA:       mma.sync.aligned.m16n8k16
// CUDA:       tilec_cp_async_wait<0>();

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
!GA = !layout.tensor<bf16, #layout.cute<(64,128):(128,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(128,64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,32):(128,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(32,64):(64,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.cute<(64,32):(32,1)>, smem>
!SB = !layout.tensor<bf16, #layout.cute<(32,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>
func.func @gemm80(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) attributes {tilec.target = "sm_80"} {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {
      %ta = layout.tile %A[%bx, %kt] {tile = array<i64: 64, 32>} : !GA -> !TA
      %tb = layout.tile %B[%kt, %by] {tile = array<i64: 32, 64>} : !GB -> !TB
      layout.copy %ta, %sa : !TA, !SA
      layout.copy %tb, %sb : !TB, !SB
      layout.barrier
      %fa = layout.load %sa : !SA -> tensor<64x32xbf16, #a>
      %fb = layout.load %sb : !SB -> tensor<32x64xbf16, #b>
      %d = layout.mma %fa, %fb, %acc0 : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b>, !ACC
      layout.barrier
      scf.yield %d : !ACC
    }
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !GC
    layout.store %acc, %tc : !ACC, !GC
  }
  func.return
}
