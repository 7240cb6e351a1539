// The tma pass on a loop that asks for a software pipeline ({tilec.num_stages = 3}: the
// single-buffered wgmma GEMM loop with block-level copies of A's and B's tiles, as
// accelerate-matmul leaves a layout.dot's loop): its copies become TMA loads on an
// mbarrier of the loop's own (one arrive with both tiles' bytes, a wait on the step's
// parity), which software-pipeline (after vectorize in the default pipeline) stages.
// RUN: tilec %s -p tma | filecheck %s
// RUN: tilec %s -p tma --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default | filecheck %s --check-prefix=PIPE

// EQ: @gemm: equivalent after

// CHECK-LABEL: func.func @gemm
// CHECK:      %full = layout.mbarrier_init {count = 1 : i64}
// CHECK-NEXT: %acc = scf.for %kt
// CHECK:        layout.mbarrier_arrive %full {tx = 16384 : i64}
// CHECK-NEXT:   layout.tma_load %ta, %sa, %full
// CHECK-NEXT:   layout.tma_load %tb, %sb, %full
// CHECK:        %[[PH:.*]] = arith.remui
// CHECK-NEXT:   layout.mbarrier_wait %full, %[[PH]]
// CHECK:        layout.mma %sa, %sb, %acc0 :
// CHECK-NOT:  layout.copy

// PIPE-LABEL: func.func @gemm
// PIPE-COUNT-3: cuda.mbarrier_init
// PIPE:       cuda.wgmma_wait_group 1

func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(128,320):(320,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(320,128):(128,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %gm = arith.constant 2 : index
  %gn = arith.constant 2 : index
  %nk = arith.constant 5 : index
  layout.launch grid(%gm, %gn, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
    %sb = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>) {
      %ta = layout.tile %a[%bx, %kt] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(128,320):(320,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(320,1)>, gmem>
      %tb = layout.tile %b[%kt, %by] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(320,128):(128,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>
      layout.copy %ta, %sa : !layout.tensor<bf16, #layout.cute<(64,64):(320,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
      layout.copy %tb, %sb : !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
      layout.barrier
      %d = layout.mma %sa, %sb, %acc0 : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
      layout.barrier
      scf.yield %d : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
    } {tilec.num_stages = 3 : i64}
    %tc = layout.tile %c[%bx, %by] {tile = array<i64: 64, 64>} : !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
    layout.store %acc, %tc : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
  }
  func.return
}
