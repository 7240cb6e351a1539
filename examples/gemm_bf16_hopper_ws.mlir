// C = A @ B: 256x512 @ 512x256 bf16 -> bf16, f32 accumulation, on Hopper's wgmma, warp-specialised.
// The program of examples/python/gemm_bf16_hopper.py (gemm_hopper_ws); the docstring
// there explains it. The CPU reference executor runs it:
//   tilec examples/gemm_bf16_hopper_ws.mlir --run cpu
#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>
!GA = !layout.tensor<bf16, #layout.cute<(256,512):(512,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(512,256):(256,1)>, gmem>
!GC = !layout.tensor<bf16, #layout.cute<(256,256):(256,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(128,64):(512,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(64,128):(256,1)>, gmem>
!TC = !layout.tensor<bf16, #layout.cute<(128,128):(256,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,64):(64,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,2)):(64,(1,4096))>, smem>
!SC = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,(64,2)):(64,(1,8192))>, smem>
!ACC = tensor<128x128xf32, #mma>
func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<bf16, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %C = layout.view %pc : !layout.ptr<bf16, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cs = arith.constant 4 : index
  %nk = arith.constant 8 : index
  %last = arith.constant 7 : index
  %gm = arith.constant 2 : index
  %gn = arith.constant 1 : index
  %o3 = arith.constant 3 : index
  %o2 = arith.constant 2 : index
  %o1 = arith.constant 1 : index
  %ntiles = arith.constant 2 : index
  %nprog = arith.constant 2 : index
  layout.launch grid(%nprog, %c1, %c1) threads(384) {
  ^bb0(%pid: index, %b1: index, %bz: index, %tid: index):
    %sa0 = layout.alloc : !SA
    %sb0_0 = layout.alloc : !SB
    %sb0_1 = layout.alloc : !SB
    %sa1 = layout.alloc : !SA
    %sb1_0 = layout.alloc : !SB
    %sb1_1 = layout.alloc : !SB
    %sa2 = layout.alloc : !SA
    %sb2_0 = layout.alloc : !SB
    %sb2_1 = layout.alloc : !SB
    %sa3 = layout.alloc : !SA
    %sb3_0 = layout.alloc : !SB
    %sb3_1 = layout.alloc : !SB
    %full0 = layout.mbarrier_init {count = 1 : i64}
    %empty0 = layout.mbarrier_init {count = 2 : i64}
    %full1 = layout.mbarrier_init {count = 1 : i64}
    %empty1 = layout.mbarrier_init {count = 2 : i64}
    %full2 = layout.mbarrier_init {count = 1 : i64}
    %empty2 = layout.mbarrier_init {count = 2 : i64}
    %full3 = layout.mbarrier_init {count = 1 : i64}
    %empty3 = layout.mbarrier_init {count = 2 : i64}
    %sc = layout.alloc : !SC
    layout.warp_specialize warpgroups(2, 1) {
      // consumers: warpgroups 0 .. 1
      layout.setmaxnreg inc 232
      %zero = arith.constant dense<0.0> : !ACC
      scf.for %t = %pid to %ntiles step %nprog {
        %tsub = arith.subi %t, %pid : index
        %j = arith.divui %tsub, %nprog : index
        %base = arith.muli %j, %nk : index
        // grouped order: 2 block rows of C at a time
        %grw = arith.constant 2 : index
        %gg = arith.constant 2 : index
        %grpi = arith.divui %t, %grw : index
        %ingrp = arith.remui %t, %grw : index
        %grow0 = arith.muli %grpi, %gg : index
        %grow = arith.remui %ingrp, %gg : index
        %bx = arith.addi %grow0, %grow : index
        %by = arith.divui %ingrp, %gg : index
        %nch = arith.constant 2 : index
        %by_0 = arith.muli %by, %nch : index
        %ch1 = arith.constant 1 : index
        %by_1 = arith.addi %by_0, %ch1 : index
        %inflight:2 = scf.for %i = %c0 to %nk step %cs iter_args(%acc0_0 = %zero, %acc0_1 = %zero) -> (!ACC, !ACC) {
          %kall = arith.addi %base, %i : index
          %round = arith.divui %kall, %cs : index
          %phase = arith.remui %round, %c2 : index
          %later = arith.cmpi ne, %i, %c0 : index
          layout.mbarrier_wait %full0, %phase
          %d1_0 = layout.mma %sa0, %sb0_0, %acc0_0 {async} : !SA, !SB, !ACC
          %acc1_0 = layout.mma_wait %d1_0 {pending = 1 : i64} : !ACC
          %d1_1 = layout.mma %sa0, %sb0_1, %acc0_1 {async} : !SA, !SB, !ACC
          %acc1_1 = layout.mma_wait %d1_1 {pending = 1 : i64} : !ACC
          scf.if %later {
            layout.mbarrier_arrive %empty3
          }
          layout.mbarrier_wait %full1, %phase
          %d2_0 = layout.mma %sa1, %sb1_0, %acc1_0 {async} : !SA, !SB, !ACC
          %acc2_0 = layout.mma_wait %d2_0 {pending = 1 : i64} : !ACC
          %d2_1 = layout.mma %sa1, %sb1_1, %acc1_1 {async} : !SA, !SB, !ACC
          %acc2_1 = layout.mma_wait %d2_1 {pending = 1 : i64} : !ACC
          layout.mbarrier_arrive %empty0
          layout.mbarrier_wait %full2, %phase
          %d3_0 = layout.mma %sa2, %sb2_0, %acc2_0 {async} : !SA, !SB, !ACC
          %acc3_0 = layout.mma_wait %d3_0 {pending = 1 : i64} : !ACC
          %d3_1 = layout.mma %sa2, %sb2_1, %acc2_1 {async} : !SA, !SB, !ACC
          %acc3_1 = layout.mma_wait %d3_1 {pending = 1 : i64} : !ACC
          layout.mbarrier_arrive %empty1
          layout.mbarrier_wait %full3, %phase
          %d4_0 = layout.mma %sa3, %sb3_0, %acc3_0 {async} : !SA, !SB, !ACC
          %acc4_0 = layout.mma_wait %d4_0 {pending = 1 : i64} : !ACC
          %d4_1 = layout.mma %sa3, %sb3_1, %acc3_1 {async} : !SA, !SB, !ACC
          %acc4_1 = layout.mma_wait %d4_1 {pending = 1 : i64} : !ACC
          layout.mbarrier_arrive %empty2
          scf.yield %acc4_0, %acc4_1 : !ACC, !ACC
        }
        %acc:2 = layout.mma_wait %inflight#0, %inflight#1 {pending = 0 : i64} : !ACC, !ACC
        // the loop waited for all its wgmma: the tile's last stage is free
        layout.mbarrier_arrive %empty3
        %h_0 = arith.truncf %acc#0 : !ACC to tensor<128x128xbf16, #mma>
        %tc_0 = layout.tile %C[%bx, %by_0] {tile = array<i64: 128, 128>} : !GC -> !TC
        // the previous tile's TMA store has read %sc
        layout.tma_store_wait {pending = 0 : i64}
        layout.store %h_0, %sc : tensor<128x128xbf16, #mma>, !SC
        layout.tma_store %sc, %tc_0 : !SC, !TC
        %h_1 = arith.truncf %acc#1 : !ACC to tensor<128x128xbf16, #mma>
        %tc_1 = layout.tile %C[%bx, %by_1] {tile = array<i64: 128, 128>} : !GC -> !TC
        // chunk 0's TMA store has read %sc
        layout.tma_store_wait {pending = 0 : i64}
        layout.store %h_1, %sc : tensor<128x128xbf16, #mma>, !SC
        layout.tma_store %sc, %tc_1 : !SC, !TC
      }
      // the last TMA store has read %sc before the block exits
      layout.tma_store_wait {pending = 0 : i64}
    }, {
      // producer: warpgroup 2
      layout.setmaxnreg dec 40
      scf.for %t = %pid to %ntiles step %nprog {
        %tsub = arith.subi %t, %pid : index
        %j = arith.divui %tsub, %nprog : index
        %base = arith.muli %j, %nk : index
        // grouped order: 2 block rows of C at a time
        %grw = arith.constant 2 : index
        %gg = arith.constant 2 : index
        %grpi = arith.divui %t, %grw : index
        %ingrp = arith.remui %t, %grw : index
        %grow0 = arith.muli %grpi, %gg : index
        %grow = arith.remui %ingrp, %gg : index
        %bx = arith.addi %grow0, %grow : index
        %by = arith.divui %ingrp, %gg : index
        %nch = arith.constant 2 : index
        %by_0 = arith.muli %by, %nch : index
        %ch1 = arith.constant 1 : index
        %by_1 = arith.addi %by_0, %ch1 : index
        scf.for %i = %c0 to %nk step %cs {
          %kall = arith.addi %base, %i : index
          %round = arith.divui %kall, %cs : index
          %first = arith.cmpi eq, %round, %c0 : index
          %prev = arith.subi %round, %c1 : index
          %ephase = arith.remui %prev, %c2 : index
          %kt0 = arith.addi %i, %c0 : index
          scf.if %first {
          } else {
            layout.mbarrier_wait %empty0, %ephase
          }
          layout.mbarrier_arrive %full0 {tx = 49152 : i64}
          %ta0 = layout.tile %A[%bx, %kt0] {tile = array<i64: 128, 64>} : !GA -> !TA
          %tb0_0 = layout.tile %B[%kt0, %by_0] {tile = array<i64: 64, 128>} : !GB -> !TB
          %tb0_1 = layout.tile %B[%kt0, %by_1] {tile = array<i64: 64, 128>} : !GB -> !TB
          layout.tma_load %ta0, %sa0, %full0 : !TA, !SA
          layout.tma_load %tb0_0, %sb0_0, %full0 : !TB, !SB
          layout.tma_load %tb0_1, %sb0_1, %full0 : !TB, !SB
          %kt1 = arith.addi %i, %o1 : index
          scf.if %first {
          } else {
            layout.mbarrier_wait %empty1, %ephase
          }
          layout.mbarrier_arrive %full1 {tx = 49152 : i64}
          %ta1 = layout.tile %A[%bx, %kt1] {tile = array<i64: 128, 64>} : !GA -> !TA
          %tb1_0 = layout.tile %B[%kt1, %by_0] {tile = array<i64: 64, 128>} : !GB -> !TB
          %tb1_1 = layout.tile %B[%kt1, %by_1] {tile = array<i64: 64, 128>} : !GB -> !TB
          layout.tma_load %ta1, %sa1, %full1 : !TA, !SA
          layout.tma_load %tb1_0, %sb1_0, %full1 : !TB, !SB
          layout.tma_load %tb1_1, %sb1_1, %full1 : !TB, !SB
          %kt2 = arith.addi %i, %o2 : index
          scf.if %first {
          } else {
            layout.mbarrier_wait %empty2, %ephase
          }
          layout.mbarrier_arrive %full2 {tx = 49152 : i64}
          %ta2 = layout.tile %A[%bx, %kt2] {tile = array<i64: 128, 64>} : !GA -> !TA
          %tb2_0 = layout.tile %B[%kt2, %by_0] {tile = array<i64: 64, 128>} : !GB -> !TB
          %tb2_1 = layout.tile %B[%kt2, %by_1] {tile = array<i64: 64, 128>} : !GB -> !TB
          layout.tma_load %ta2, %sa2, %full2 : !TA, !SA
          layout.tma_load %tb2_0, %sb2_0, %full2 : !TB, !SB
          layout.tma_load %tb2_1, %sb2_1, %full2 : !TB, !SB
          %kt3 = arith.addi %i, %o3 : index
          scf.if %first {
          } else {
            layout.mbarrier_wait %empty3, %ephase
          }
          layout.mbarrier_arrive %full3 {tx = 49152 : i64}
          %ta3 = layout.tile %A[%bx, %kt3] {tile = array<i64: 128, 64>} : !GA -> !TA
          %tb3_0 = layout.tile %B[%kt3, %by_0] {tile = array<i64: 64, 128>} : !GB -> !TB
          %tb3_1 = layout.tile %B[%kt3, %by_1] {tile = array<i64: 64, 128>} : !GB -> !TB
          layout.tma_load %ta3, %sa3, %full3 : !TA, !SA
          layout.tma_load %tb3_0, %sb3_0, %full3 : !TB, !SB
          layout.tma_load %tb3_1, %sb3_1, %full3 : !TB, !SB
        }
      }
    }
  }
  func.return
}
