// C = A @ B: 256x256 @ 256x256 bf16 -> bf16, f32 accumulation, on Hopper's wgmma.
// The program of examples/python/gemm_bf16_hopper.py (gemm_hopper); the docstring
// there explains it. The CPU reference executor runs it:
//   tilec examples/gemm_bf16_hopper.mlir --run cpu
#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
!GA = !layout.tensor<bf16, #layout.cute<(256,256):(256,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(256,256):(256,1)>, gmem>
!GC = !layout.tensor<bf16, #layout.cute<(256,256):(256,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(128,64):(256,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(64,256):(256,1)>, gmem>
!TC = !layout.tensor<bf16, #layout.cute<(128,256):(256,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,64):(64,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,4)):(64,(1,4096))>, smem>
!ACC = tensor<128x256xf32, #mma>
func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<bf16, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %C = layout.view %pc : !layout.ptr<bf16, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cs = arith.constant 4 : index
  %nk = arith.constant 4 : index
  %last = arith.constant 3 : index
  %gm = arith.constant 2 : index
  %gn = arith.constant 1 : index
  layout.launch grid(%gm, %gn, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa0 = layout.alloc : !SA
    %sb0 = layout.alloc : !SB
    %bar0 = layout.mbarrier_init {count = 1 : i64}
    %sa1 = layout.alloc : !SA
    %sb1 = layout.alloc : !SB
    %bar1 = layout.mbarrier_init {count = 1 : i64}
    %sa2 = layout.alloc : !SA
    %sb2 = layout.alloc : !SB
    %bar2 = layout.mbarrier_init {count = 1 : i64}
    %sa3 = layout.alloc : !SA
    %sb3 = layout.alloc : !SB
    %bar3 = layout.mbarrier_init {count = 1 : i64}
    // prologue: tiles 0 .. stages-2 into stages 0 .. stages-2
    %p0 = arith.constant 0 : index
    layout.mbarrier_arrive %bar0 {tx = 49152 : i64}
    %ta0_p0 = layout.tile %A[%bx, %p0] {tile = array<i64: 128, 64>} : !GA -> !TA
    %tb0_p0 = layout.tile %B[%p0, %by] {tile = array<i64: 64, 256>} : !GB -> !TB
    layout.tma_load %ta0_p0, %sa0, %bar0 : !TA, !SA
    layout.tma_load %tb0_p0, %sb0, %bar0 : !TB, !SB
    %p1 = arith.constant 1 : index
    layout.mbarrier_arrive %bar1 {tx = 49152 : i64}
    %ta1_p1 = layout.tile %A[%bx, %p1] {tile = array<i64: 128, 64>} : !GA -> !TA
    %tb1_p1 = layout.tile %B[%p1, %by] {tile = array<i64: 64, 256>} : !GB -> !TB
    layout.tma_load %ta1_p1, %sa1, %bar1 : !TA, !SA
    layout.tma_load %tb1_p1, %sb1, %bar1 : !TB, !SB
    %p2 = arith.constant 2 : index
    layout.mbarrier_arrive %bar2 {tx = 49152 : i64}
    %ta2_p2 = layout.tile %A[%bx, %p2] {tile = array<i64: 128, 64>} : !GA -> !TA
    %tb2_p2 = layout.tile %B[%p2, %by] {tile = array<i64: 64, 256>} : !GB -> !TB
    layout.tma_load %ta2_p2, %sa2, %bar2 : !TA, !SA
    layout.tma_load %tb2_p2, %sb2, %bar2 : !TB, !SB
    %zero = arith.constant dense<0.0> : !ACC
    %inflight = scf.for %i = %c0 to %nk step %cs iter_args(%acc0 = %zero) -> (!ACC) {
      %round = arith.divui %i, %cs : index
      %phase = arith.remui %round, %c2 : index
      // step i + 0: stage 0
      layout.mbarrier_wait %bar0, %phase
      %d1 = layout.mma %sa0, %sb0, %acc0 {async} : !SA, !SB, !ACC
      // the previous step's wgmma have read their stage; this step's run on
      %acc1 = layout.mma_wait %d1 {pending = 1 : i64} : !ACC
      layout.barrier
      %o0 = arith.constant 3 : index
      %far0 = arith.addi %i, %o0 : index
      %next0 = arith.minui %far0, %last : index
      layout.mbarrier_arrive %bar3 {tx = 49152 : i64}
      %ta3_next0 = layout.tile %A[%bx, %next0] {tile = array<i64: 128, 64>} : !GA -> !TA
      %tb3_next0 = layout.tile %B[%next0, %by] {tile = array<i64: 64, 256>} : !GB -> !TB
      layout.tma_load %ta3_next0, %sa3, %bar3 : !TA, !SA
      layout.tma_load %tb3_next0, %sb3, %bar3 : !TB, !SB
      // step i + 1: stage 1
      layout.mbarrier_wait %bar1, %phase
      %d2 = layout.mma %sa1, %sb1, %acc1 {async} : !SA, !SB, !ACC
      // the previous step's wgmma have read their stage; this step's run on
      %acc2 = layout.mma_wait %d2 {pending = 1 : i64} : !ACC
      layout.barrier
      %o1 = arith.constant 4 : index
      %far1 = arith.addi %i, %o1 : index
      %next1 = arith.minui %far1, %last : index
      layout.mbarrier_arrive %bar0 {tx = 49152 : i64}
      %ta0_next1 = layout.tile %A[%bx, %next1] {tile = array<i64: 128, 64>} : !GA -> !TA
      %tb0_next1 = layout.tile %B[%next1, %by] {tile = array<i64: 64, 256>} : !GB -> !TB
      layout.tma_load %ta0_next1, %sa0, %bar0 : !TA, !SA
      layout.tma_load %tb0_next1, %sb0, %bar0 : !TB, !SB
      // step i + 2: stage 2
      layout.mbarrier_wait %bar2, %phase
      %d3 = layout.mma %sa2, %sb2, %acc2 {async} : !SA, !SB, !ACC
      // the previous step's wgmma have read their stage; this step's run on
      %acc3 = layout.mma_wait %d3 {pending = 1 : i64} : !ACC
      layout.barrier
      %o2 = arith.constant 5 : index
      %far2 = arith.addi %i, %o2 : index
      %next2 = arith.minui %far2, %last : index
      layout.mbarrier_arrive %bar1 {tx = 49152 : i64}
      %ta1_next2 = layout.tile %A[%bx, %next2] {tile = array<i64: 128, 64>} : !GA -> !TA
      %tb1_next2 = layout.tile %B[%next2, %by] {tile = array<i64: 64, 256>} : !GB -> !TB
      layout.tma_load %ta1_next2, %sa1, %bar1 : !TA, !SA
      layout.tma_load %tb1_next2, %sb1, %bar1 : !TB, !SB
      // step i + 3: stage 3
      layout.mbarrier_wait %bar3, %phase
      %d4 = layout.mma %sa3, %sb3, %acc3 {async} : !SA, !SB, !ACC
      // the previous step's wgmma have read their stage; this step's run on
      %acc4 = layout.mma_wait %d4 {pending = 1 : i64} : !ACC
      layout.barrier
      %o3 = arith.constant 6 : index
      %far3 = arith.addi %i, %o3 : index
      %next3 = arith.minui %far3, %last : index
      layout.mbarrier_arrive %bar2 {tx = 49152 : i64}
      %ta2_next3 = layout.tile %A[%bx, %next3] {tile = array<i64: 128, 64>} : !GA -> !TA
      %tb2_next3 = layout.tile %B[%next3, %by] {tile = array<i64: 64, 256>} : !GB -> !TB
      layout.tma_load %ta2_next3, %sa2, %bar2 : !TA, !SA
      layout.tma_load %tb2_next3, %sb2, %bar2 : !TB, !SB
      scf.yield %acc4 : !ACC
    }
    %acc = layout.mma_wait %inflight {pending = 0 : i64} : !ACC
    // the loads past the end (the last tile again) land before the block exits
    %endphase = arith.constant 1 : index
    layout.mbarrier_wait %bar0, %endphase
    layout.mbarrier_wait %bar1, %endphase
    layout.mbarrier_wait %bar2, %endphase
    %h = arith.truncf %acc : !ACC to tensor<128x256xbf16, #mma>
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 128, 256>} : !GC -> !TC
    layout.store %h, %tc : tensor<128x256xbf16, #mma>, !TC
  }
  func.return
}
