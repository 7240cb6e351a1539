// The cuda target on the warp-specialised GEMM's pingpong schedule: three regions of
// one warpgroup (consumer 0, consumer 1, producer); consumer 0 takes the block's tiles
// 0, 2, ... (t = bx, bx + 4, ...), consumer 1 the tiles 1, 3, ... (t = bx + 2, ...),
// the producer all of them (t = bx, bx + 2, ...) into the one ring. Each consumer's
// K loop waits for its turn on an mbarrier the other consumer arrives on after its
// own K loop (consumer 0's first tile does not wait), so the "full" waits of the two
// follow each other; each has its own C buffer and named barrier (1 and 2) for its
// TMA store. The program is `gemm_hopper_ws(192, 128, 256, bm=64, bn=64,
// bk=64, stages=2, persistent=2, group=2, tma_epilogue=True, pingpong=True)`
// (examples/python/gemm_bf16_hopper.py): 6 tiles on 2 blocks, 3 each (2 for consumer
// 0, 1 for consumer 1).
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=NOSYNC
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: // @gemm: equivalent after 'default'

// NOSYNC: if (threadIdx.x < 128)
// NOSYNC-NOT: __syncthreads

// CHECK-LABEL: // kernel gemm_kernels::gemm_kernel: 32-bit indices, block (384, 1, 1)
// CHECK:       long long* const [[TURN0:mbar_[0-9]+]] = reinterpret_cast<long long*>(tilec_smem + 51200);
// CHECK:       long long* const [[TURN1:mbar_[0-9]+]] = reinterpret_cast<long long*>(tilec_smem + 51216);
// CHECK:       if (threadIdx.x < 128) {  // warpgroup 0
// CHECK-NEXT:    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
// CHECK-NEXT:    for (int [[T:t[_0-9]*]] = bx; [[T]] < 6; [[T]] += 4) {
// CHECK:           if ({{p[_0-9]*}}) {
// CHECK:             tilec_mbarrier_wait(reinterpret_cast<unsigned long long*>([[TURN0]]),
// CHECK-NEXT:      }
// CHECK:           for (int i = 0; i < 4; i += 2) {
// CHECK:           wgmma.wait_group.sync.aligned 0;
// CHECK:           tilec_mbarrier_arrive_expect_tx(reinterpret_cast<unsigned long long*>([[TURN1]]), 0u);
// CHECK:           asm volatile("bar.sync 1, 128;" ::: "memory");
// CHECK:           // layout.store 64x64xbf16 to smem: 4 stmatrix.x4 per thread
// CHECK:           // TMA store (cp.async.bulk.tensor): box 64x64 (dims [1, 0] of the view), swizzle 128B, 8192 bytes
// CHECK:       } else if (threadIdx.x < 256) {  // warpgroup 1
// CHECK:         const int [[T1:t_[0-9]+]] = bx + 2;
// CHECK-NEXT:    for (int [[T2:t_[0-9]+]] = [[T1]]; [[T2]] < 6; [[T2]] += 4) {
// CHECK-NOT:       if (
// CHECK:           tilec_mbarrier_wait(reinterpret_cast<unsigned long long*>([[TURN1]]),
// CHECK:           for (int i_1 = 0; i_1 < 4; i_1 += 2) {
// CHECK:           wgmma.wait_group.sync.aligned 0;
// CHECK:           tilec_mbarrier_arrive_expect_tx(reinterpret_cast<unsigned long long*>([[TURN0]]), 0u);
// CHECK:           asm volatile("bar.sync 2, 128;" ::: "memory");
// CHECK:           // layout.store 64x64xbf16 to smem: 4 stmatrix.x4 per thread
// CHECK:           asm volatile("bar.sync 2, 128;" ::: "memory");
// CHECK:       } else {  // warpgroup 2
// CHECK:         asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
// CHECK:           for (int [[PT:t_[0-9]+]] = bx; [[PT]] < 6; [[PT]] += 2) {
// CHECK:             cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!GA = !layout.tensor<bf16, #layout.cute<(192,256):(256,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(256,128):(128,1)>, gmem>
!GC = !layout.tensor<bf16, #layout.cute<(192,128):(128,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,64):(256,1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>
!TC = !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!SC = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>
func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<bf16, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %C = layout.view %pc : !layout.ptr<bf16, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cs = arith.constant 2 : index
  %nk = arith.constant 4 : index
  %last = arith.constant 3 : index
  %gm = arith.constant 3 : index
  %gn = arith.constant 2 : index
  %o1 = arith.constant 1 : index
  %ntiles = arith.constant 6 : index
  %nprog = arith.constant 2 : index
  layout.launch grid(%nprog, %c1, %c1) threads(384) {
  ^bb0(%pid: index, %b1: index, %bz: index, %tid: index):
    %sa0 = layout.alloc : !SA
    %sb0 = layout.alloc : !SB
    %full0 = layout.mbarrier_init {count = 1 : i64}
    %empty0 = layout.mbarrier_init {count = 1 : i64}
    %sa1 = layout.alloc : !SA
    %sb1 = layout.alloc : !SB
    %full1 = layout.mbarrier_init {count = 1 : i64}
    %empty1 = layout.mbarrier_init {count = 1 : i64}
    %sc0 = layout.alloc : !SC
    %sc1 = layout.alloc : !SC
    %turn0 = layout.mbarrier_init {count = 1 : i64}
    %turn1 = layout.mbarrier_init {count = 1 : i64}
    layout.warp_specialize warpgroups(1, 1, 1) {
      // consumer 0: warpgroup 0, the block's tiles 0, 2, ... in its own accumulator
      layout.setmaxnreg inc 232
      %zero = arith.constant dense<0.0> : !ACC
      // this consumer's turns: the block's tiles 0, 2, ...
      %turn = arith.constant 0 : index
      %first_t = arith.addi %pid, %turn : index
      %step_t = arith.constant 4 : index
      scf.for %t = %first_t to %ntiles step %step_t {
        %tsub = arith.subi %t, %pid : index
        %j = arith.divui %tsub, %nprog : index
        %base = arith.muli %j, %nk : index
        // grouped order: 2 block rows of C at a time
        %grw = arith.constant 4 : index
        %gg = arith.constant 2 : index
        %grpi = arith.divui %t, %grw : index
        %ingrp = arith.remui %t, %grw : index
        %grow0 = arith.muli %grpi, %gg : index
        %grows = arith.constant 3 : index
        %gleft = arith.subi %grows, %grow0 : index
        %gsz = arith.minui %gleft, %gg : index
        %grow = arith.remui %ingrp, %gsz : index
        %bx = arith.addi %grow0, %grow : index
        %by = arith.divui %ingrp, %gsz : index
        %q = arith.divui %j, %c2 : index
        %myturn = arith.cmpi ne, %q, %c0 : index
        scf.if %myturn {
          %qprev = arith.subi %q, %c1 : index
          %tphase = arith.remui %qprev, %c2 : index
          layout.mbarrier_wait %turn0, %tphase
        }
        %inflight = scf.for %i = %c0 to %nk step %cs iter_args(%acc0 = %zero) -> (!ACC) {
          %kall = arith.addi %base, %i : index
          %round = arith.divui %kall, %cs : index
          %phase = arith.remui %round, %c2 : index
          %later = arith.cmpi ne, %i, %c0 : index
          layout.mbarrier_wait %full0, %phase
          %d1 = layout.mma %sa0, %sb0, %acc0 {async} : !SA, !SB, !ACC
          %acc1 = layout.mma_wait %d1 {pending = 1 : i64} : !ACC
          scf.if %later {
            layout.mbarrier_arrive %empty1
          }
          layout.mbarrier_wait %full1, %phase
          %d2 = layout.mma %sa1, %sb1, %acc1 {async} : !SA, !SB, !ACC
          %acc2 = layout.mma_wait %d2 {pending = 1 : i64} : !ACC
          layout.mbarrier_arrive %empty0
          scf.yield %acc2 : !ACC
        }
        %acc = layout.mma_wait %inflight {pending = 0 : i64} : !ACC
        // the loop waited for all its wgmma: the tile's last stage is free
        layout.mbarrier_arrive %empty1
        // the other consumer's turn: its K loop may start
        layout.mbarrier_arrive %turn1
        %h = arith.truncf %acc : !ACC to tensor<64x64xbf16, #mma>
        %tc = layout.tile %C[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !TC
        // the previous tile's TMA store has read %sc0
        layout.tma_store_wait {pending = 0 : i64}
        layout.store %h, %sc0 : tensor<64x64xbf16, #mma>, !SC
        layout.tma_store %sc0, %tc : !SC, !TC
      }
      // the last TMA store has read %sc0 before the block exits
      layout.tma_store_wait {pending = 0 : i64}
    }, {
      // consumer 1: warpgroup 1, the block's tiles 1, 3, ... in its own accumulator
      layout.setmaxnreg inc 232
      %zero = arith.constant dense<0.0> : !ACC
      // this consumer's turns: the block's tiles 1, 3, ...
      %turn = arith.constant 2 : index
      %first_t = arith.addi %pid, %turn : index
      %step_t = arith.constant 4 : index
      scf.for %t = %first_t to %ntiles step %step_t {
        %tsub = arith.subi %t, %pid : index
        %j = arith.divui %tsub, %nprog : index
        %base = arith.muli %j, %nk : index
        // grouped order: 2 block rows of C at a time
        %grw = arith.constant 4 : index
        %gg = arith.constant 2 : index
        %grpi = arith.divui %t, %grw : index
        %ingrp = arith.remui %t, %grw : index
        %grow0 = arith.muli %grpi, %gg : index
        %grows = arith.constant 3 : index
        %gleft = arith.subi %grows, %grow0 : index
        %gsz = arith.minui %gleft, %gg : index
        %grow = arith.remui %ingrp, %gsz : index
        %bx = arith.addi %grow0, %grow : index
        %by = arith.divui %ingrp, %gsz : index
        %q = arith.divui %j, %c2 : index
        %tphase = arith.remui %q, %c2 : index
        layout.mbarrier_wait %turn1, %tphase
        %inflight = scf.for %i = %c0 to %nk step %cs iter_args(%acc0 = %zero) -> (!ACC) {
          %kall = arith.addi %base, %i : index
          %round = arith.divui %kall, %cs : index
          %phase = arith.remui %round, %c2 : index
          %later = arith.cmpi ne, %i, %c0 : index
          layout.mbarrier_wait %full0, %phase
          %d1 = layout.mma %sa0, %sb0, %acc0 {async} : !SA, !SB, !ACC
          %acc1 = layout.mma_wait %d1 {pending = 1 : i64} : !ACC
          scf.if %later {
            layout.mbarrier_arrive %empty1
          }
          layout.mbarrier_wait %full1, %phase
          %d2 = layout.mma %sa1, %sb1, %acc1 {async} : !SA, !SB, !ACC
          %acc2 = layout.mma_wait %d2 {pending = 1 : i64} : !ACC
          layout.mbarrier_arrive %empty0
          scf.yield %acc2 : !ACC
        }
        %acc = layout.mma_wait %inflight {pending = 0 : i64} : !ACC
        // the loop waited for all its wgmma: the tile's last stage is free
        layout.mbarrier_arrive %empty1
        // the other consumer's turn: its K loop may start
        layout.mbarrier_arrive %turn0
        %h = arith.truncf %acc : !ACC to tensor<64x64xbf16, #mma>
        %tc = layout.tile %C[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !TC
        // the previous tile's TMA store has read %sc1
        layout.tma_store_wait {pending = 0 : i64}
        layout.store %h, %sc1 : tensor<64x64xbf16, #mma>, !SC
        layout.tma_store %sc1, %tc : !SC, !TC
      }
      // the last TMA store has read %sc1 before the block exits
      layout.tma_store_wait {pending = 0 : i64}
    }, {
      // producer: warpgroup 2
      layout.setmaxnreg dec 40
      scf.for %t = %pid to %ntiles step %nprog {
        %tsub = arith.subi %t, %pid : index
        %j = arith.divui %tsub, %nprog : index
        %base = arith.muli %j, %nk : index
        // grouped order: 2 block rows of C at a time
        %grw = arith.constant 4 : index
        %gg = arith.constant 2 : index
        %grpi = arith.divui %t, %grw : index
        %ingrp = arith.remui %t, %grw : index
        %grow0 = arith.muli %grpi, %gg : index
        %grows = arith.constant 3 : index
        %gleft = arith.subi %grows, %grow0 : index
        %gsz = arith.minui %gleft, %gg : index
        %grow = arith.remui %ingrp, %gsz : index
        %bx = arith.addi %grow0, %grow : index
        %by = arith.divui %ingrp, %gsz : index
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
          layout.mbarrier_arrive %full0 {tx = 16384 : i64}
          %ta0 = layout.tile %A[%bx, %kt0] {tile = array<i64: 64, 64>} : !GA -> !TA
          %tb0 = layout.tile %B[%kt0, %by] {tile = array<i64: 64, 64>} : !GB -> !TB
          layout.tma_load %ta0, %sa0, %full0 : !TA, !SA
          layout.tma_load %tb0, %sb0, %full0 : !TB, !SB
          %kt1 = arith.addi %i, %o1 : index
          scf.if %first {
          } else {
            layout.mbarrier_wait %empty1, %ephase
          }
          layout.mbarrier_arrive %full1 {tx = 16384 : i64}
          %ta1 = layout.tile %A[%bx, %kt1] {tile = array<i64: 64, 64>} : !GA -> !TA
          %tb1 = layout.tile %B[%kt1, %by] {tile = array<i64: 64, 64>} : !GB -> !TB
          layout.tma_load %ta1, %sa1, %full1 : !TA, !SA
          layout.tma_load %tb1, %sb1, %full1 : !TB, !SB
        }
      }
    }
  }
  func.return
}
