// warp-specialize{rolled=true} on the plain loop (the input of plain_loop.mlir): the
// ring as staged buffers and two mbarrier arrays ("full", count 1; "empty", one arrival
// per consumer warpgroup); the consumers' loop and the producer's loop each keep the K
// step once and carry their (stage, phase): the producer waits on empty[stage] with
// the other parity from the second round on, then loads into its stage; the consumers
// wait on full[stage], compute, and hand the previous stage back. Equivalent on the
// reference executor (regions interleaved) at depths 2-4 and through lowering.
// RUN: tilec %s -p "warp-specialize{num_stages=3 rolled=true}" | filecheck %s
// RUN: tilec %s -p "warp-specialize{num_stages=2 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "warp-specialize{num_stages=4 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "warp-specialize{num_stages=3 rolled=true},default" --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: @gemm: equivalent after

// CHECK-LABEL: func.func @gemm
// CHECK:      layout.launch grid(%{{.*}}) threads(384)
// CHECK:      %sa = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (3,128,64):(8192,64,1)>, smem>
// CHECK:      %bar = layout.mbarrier_array {count = 1 : i64, stages = 3 : i64}
// CHECK-NEXT: %empty = layout.mbarrier_array {count = 2 : i64, stages = 3 : i64}
// CHECK:      layout.warp_specialize warpgroups(2, 1) {
// CHECK:        scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero, %stage = %c0_p, %phase = %c0_p)
// CHECK:          %[[F:.*]] = layout.mbarrier_at %bar[%stage]
// CHECK-NEXT:     layout.mbarrier_wait %[[F]], %phase
// CHECK:          scf.if
// CHECK-NEXT:       %[[E:.*]] = layout.mbarrier_at %empty[%{{.*}}]
// CHECK-NEXT:       layout.mbarrier_arrive %[[E]]
// CHECK:        } {tilec.unroll = 1 : i64}
// CHECK:        layout.mma_wait %{{.*}} {pending = 0 : i64}
// CHECK:      }, {
// CHECK:        layout.setmaxnreg dec 40
// CHECK:        scf.for %kt_1 = %c0 to %nk step %c1 iter_args(%stage_1 = %c0_p, %phase_1 = %c0_p)
// CHECK:          scf.if
// CHECK-NEXT:       %[[E2:.*]] = layout.mbarrier_at %empty[%stage_1]
// CHECK-NEXT:       %[[P:.*]] = arith.xori %phase_1, %c1_p
// CHECK-NEXT:       layout.mbarrier_wait %[[E2]], %[[P]]
// CHECK:          layout.mbarrier_arrive
// CHECK:          layout.tma_load
// CHECK:        } {tilec.unroll = 1 : i64}

func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(128,320):(320,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(320,128):(128,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %gm = arith.constant 1 : index
  %gn = arith.constant 1 : index
  %nk = arith.constant 5 : index
  layout.launch grid(%gm, %gn, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,64):(64,1)>, smem>
    %sb = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,2)):(64,(1,4096))>, smem>
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>>
    %bar = layout.mbarrier_init {count = 1 : i64}
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>>) {
      %ta = layout.tile %a[%bx, %kt] {tile = array<i64: 128, 64>} : !layout.tensor<bf16, #layout.cute<(128,320):(320,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(128,64):(320,1)>, gmem>
      %tb = layout.tile %b[%kt, %by] {tile = array<i64: 64, 128>} : !layout.tensor<bf16, #layout.cute<(320,128):(128,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,128):(128,1)>, gmem>
      layout.mbarrier_arrive %bar {tx = 32768 : i64}
      layout.tma_load %ta, %sa, %bar : !layout.tensor<bf16, #layout.cute<(128,64):(320,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,64):(64,1)>, smem>
      layout.tma_load %tb, %sb, %bar : !layout.tensor<bf16, #layout.cute<(64,128):(128,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,2)):(64,(1,4096))>, smem>
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,2)):(64,(1,4096))>, smem>, tensor<128x128xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>>
      layout.barrier
      scf.yield %d : tensor<128x128xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>>
    }
    %tc = layout.tile %c[%bx, %by] {tile = array<i64: 128, 128>} : !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
    layout.store %acc, %tc : tensor<128x128xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>>, !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
  }
  func.return
}
