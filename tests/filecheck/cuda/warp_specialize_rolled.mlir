// The cuda target on the rolled warp specialisation (`warp-specialize{rolled=true}`:
// the producer's loop carries its (stage, phase)): after the warpgroup-wide
// `setmaxnreg dec` (a warpgroup collective, so every warp of the producer runs it), only
// the producer's first warp enters the loop (`(tid & 127) < 32`; the other three leave
// the region at once instead of spinning in the "empty" waits beside it), waits on
// empty[stage] with all its lanes and issues the TMA loads from its first thread. The
// consumers run on all their warps. Equivalent on the reference executor after lowering.
// The input is warp-specialize/rolled.mlir's.
// RUN: tilec %s -p "warp-specialize{num_stages=3 rolled=true},default" -t cuda | filecheck %s
// RUN: tilec %s -p "warp-specialize{num_stages=3 rolled=true},default" --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: @gemm: equivalent after

// CHECK-LABEL: // kernel gemm_kernels::gemm_kernel: 32-bit indices, block (384, 1, 1)
// CHECK:       if (threadIdx.x < 256) {  // warpgroups 0..1
// CHECK-NEXT:    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
// CHECK-NOT:     < 32;
// CHECK:       } else {  // warpgroup 2
// CHECK-NEXT:    const int [[T:t_[0-9]+]] = tid - 256;
// CHECK-NEXT:    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
// CHECK-NEXT:    const int [[WG:t_[0-9]+]] = [[T]] & 127;
// CHECK-NEXT:    const bool [[W0:p_[0-9]+]] = [[WG]] < 32;
// CHECK-NEXT:    if ([[W0]]) {
// CHECK-NEXT:      int [[STAGE:r_[0-9]+]] = 0;
// CHECK-NEXT:      int [[PHASE:r_[0-9]+]] = 0;
// CHECK-NEXT:      #pragma unroll 1
// CHECK-NEXT:      for (int kt_1 = 0; kt_1 < 5; ++kt_1) {
// CHECK:             tilec_mbarrier_wait(
// CHECK:             const bool [[A:p_[0-9]+]] = [[WG]] == 0;
// CHECK-NEXT:        if ([[A]]) {
// CHECK-NEXT:          tilec_mbarrier_arrive_expect_tx({{.*}}, 32768u);
// CHECK:             const bool [[E:p_[0-9]+]] = [[T]] == 0;
// CHECK-NEXT:        if ([[E]]) {
// CHECK-NEXT:          asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK:             [[STAGE]] =
// CHECK:             [[PHASE]] =

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
