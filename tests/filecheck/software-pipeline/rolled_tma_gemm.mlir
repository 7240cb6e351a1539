// software-pipeline{rolled=true} on the plain Hopper GEMM loop (the input of
// tma_gemm.mlir): no clone per stage and no unrolled steps. Each buffer becomes one
// staged allocation with a leading stage mode (S x 4096 elements, 8 KiB a stage), the
// mbarrier one array of S barriers; a prologue loads the first S-1 tiles into stages
// 0 .. S-2; the loop keeps its step and carries the stage and the phase besides the
// accumulator: each step takes its stage of the buffers (`layout.slice %sa[%stage, _, _]`)
// and its barrier (`mbarrier_at`), waits on the phase, issues its mma {async} and waits
// with pending = 1, meets the block, loads the tile S-1 ahead into the stage read one
// step before (`stage == 0 ? S-1 : stage-1`), then advances the stage, flipping the
// phase where it wraps round; the loop says it stays rolled in the CUDA
// ({tilec.unroll = 1}: `#pragma unroll 1`). The reference executor's mbarrier, phase and race checks
// pass on every depth, through lowering too; NVRTC compiles the CUDA (a test in
// tests/unit/test_software_pipeline_rolled.py).
// RUN: tilec %s -p "software-pipeline{num_stages=3 rolled=true}" | filecheck %s
// RUN: tilec %s -p "software-pipeline{num_stages=2 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=3 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=4 rolled=true}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=3 rolled=true},default" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "software-pipeline{num_stages=3 rolled=true},default" -t cuda | filecheck %s --check-prefix=CUDA

// EQ: @gemm: equivalent after
// EQ: @short: equivalent after

// CHECK-LABEL: func.func @gemm
// CHECK:      %sa = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (3,64,64):(4096,64,1)>, smem>
// CHECK-NEXT: %sb = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (3,64,64):(4096,64,1)>, smem>
// CHECK:      %bar = layout.mbarrier_array {count = 1 : i64, stages = 3 : i64}
// CHECK-NOT:  layout.alloc
// CHECK-NOT:  layout.mbarrier_init
// CHECK:      %[[S0:.*]] = layout.slice %sa[%c0_p, _, _]
// CHECK:      %[[B0:.*]] = layout.mbarrier_at %bar[%c0_p]
// CHECK:      layout.mbarrier_arrive %[[B0]] {tx = 16384 : i64}
// CHECK-NEXT: layout.tma_load %{{.*}}, %[[S0]], %[[B0]]
// CHECK:      %[[B1:.*]] = layout.mbarrier_at %bar[%c1_p]
// CHECK:      layout.mbarrier_arrive %[[B1]]
// CHECK:      scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero, %stage = %c0_p, %phase = %c0_p)
// CHECK-NEXT:   %[[SA:.*]] = layout.slice %sa[%stage, _, _]
// CHECK-NEXT:   %[[SB:.*]] = layout.slice %sb[%stage, _, _]
// CHECK-NEXT:   %[[B:.*]] = layout.mbarrier_at %bar[%stage]
// CHECK:        %ahead = arith.select %{{.*}}, %c2_p, %{{.*}} : index
// CHECK-NEXT:   layout.mbarrier_wait %[[B]], %phase
// CHECK-NEXT:   %[[M:.*]] = layout.mma %[[SA]], %[[SB]], %acc0 {async}
// CHECK-NEXT:   %[[W:.*]] = layout.mma_wait %[[M]] {pending = 1 : i64}
// CHECK-NEXT:   layout.barrier
// CHECK:        scf.if
// CHECK-NEXT:     layout.slice %sa[%ahead, _, _]
// CHECK-NEXT:     layout.slice %sb[%ahead, _, _]
// CHECK-NEXT:     layout.mbarrier_at %bar[%ahead]
// CHECK:        %[[NEXT:.*]] = arith.addi %stage, %c1_p : index
// CHECK-NEXT:   %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %c3_p : index
// CHECK-NEXT:   %[[ST:.*]] = arith.select %[[WRAP]], %c0_p, %[[NEXT]] : index
// CHECK-NEXT:   %[[FL:.*]] = arith.xori %phase, %c1_p : index
// CHECK-NEXT:   %[[PH:.*]] = arith.select %[[WRAP]], %[[FL]], %phase : index
// CHECK-NEXT:   scf.yield %[[W]], %[[ST]], %[[PH]]
// CHECK-NEXT: } {tilec.unroll = 1 : i64}
// CHECK-NOT:    layout.mma %
// CHECK:      layout.mma_wait %{{.*}} {pending = 0 : i64}

// CHECK-LABEL: func.func @short
// CHECK:      layout.mbarrier_array {count = 1 : i64, stages = 3 : i64}
// CHECK:      scf.for

// CUDA:       __nv_bfloat16* const smem = reinterpret_cast<__nv_bfloat16*>(tilec_smem + 0);  // 12288 elements
// CUDA:       long long* const mbars = {{.*}};  // 3 elements
// CUDA:       #pragma unroll 1
// CUDA-NEXT:  for (int kt = 0; kt < 4; ++kt) {
// CUDA:         long long* const {{.*}} = mbars + {{.*}};
// the rolled loop's last iteration drains its wgmma (ptxas loses one in flight at the
// exit: compiler/cuda/wgmma_ops.py), the others leave one group in flight
// CUDA:         if (kt + 1 >= 4) {  // the last iteration: none in flight at the exit
// CUDA-NEXT:      asm volatile("wgmma.wait_group.sync.aligned 0;"
// CUDA:         } else {
// CUDA-NEXT:      asm volatile("wgmma.wait_group.sync.aligned 1;"
// CUDA-NOT:     wgmma.wait_group.sync.aligned 1;
// CUDA:       wgmma.wait_group.sync.aligned 0;

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!GA = !layout.tensor<bf16, #layout.cute<(128,256):(256,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(256,128):(128,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,64):(256,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>
!TC = !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
!S = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>
func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c2, %c2, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !S
    %zero = arith.constant dense<0.0> : !ACC
    %bar = layout.mbarrier_init {count = 1 : i64}
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {
      %ta = layout.tile %a[%bx, %kt] {tile = array<i64: 64, 64>} : !GA -> !TA
      %tb = layout.tile %b[%kt, %by] {tile = array<i64: 64, 64>} : !GB -> !TB
      layout.mbarrier_arrive %bar {tx = 16384 : i64}
      layout.tma_load %ta, %sa, %bar : !TA, !S
      layout.tma_load %tb, %sb, %bar : !TB, !S
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 : !S, !S, !ACC
      layout.barrier
      scf.yield %d : !ACC
    }
    %tc = layout.tile %c[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !TC
    layout.store %acc, %tc : !ACC, !TC
  }
  func.return
}
!GA2 = !layout.tensor<bf16, #layout.cute<(64,128):(128,1)>, gmem>
!GB2 = !layout.tensor<bf16, #layout.cute<(128,64):(64,1)>, gmem>
!GC2 = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!TA2 = !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>
!TB2 = !layout.tensor<bf16, #layout.cute<(64,64):(64,1)>, gmem>
func.func @short(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA2
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB2
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC2
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %c2 step %c1 iter_args(%acc0 = %zero) -> (!ACC) {
      %ta = layout.tile %a[%c0, %kt] {tile = array<i64: 64, 64>} : !GA2 -> !TA2
      %tb = layout.tile %b[%kt, %c0] {tile = array<i64: 64, 64>} : !GB2 -> !TB2
      layout.mbarrier_arrive %bar {tx = 16384 : i64}
      layout.tma_load %ta, %sa, %bar : !TA2, !S
      layout.tma_load %tb, %sb, %bar : !TB2, !S
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 {async} : !S, !S, !ACC
      %w = layout.mma_wait %d {pending = 0 : i64} : !ACC
      layout.barrier
      scf.yield %w : !ACC
    }
    layout.store %acc, %c : !ACC, !GC2
  }
  func.return
}
