// The cuda target on the warp-specialised GEMM whose column chunks' wgmma of a K step
// are one (`gemm_hopper_ws(..., chunk=64, one_wgmma=True)`): a 64 x 192 tile as three
// 64 x 64 chunks, each its own accumulator and `layout.mma {async}`, issued one after
// the other on the same A, their B buffers the column tiles of the stage's one 64 x 192
// buffer (`(64,(64,3)):(64,(1,4096))` under the 128-byte swizzle), then one
// `layout.mma_wait {pending = 3}`. `lower-to-gpu` issues the three as one
// `wgmma.m64n192k16` per K step (the B descriptor over the three tiles: LBO 8192), one
// group (the second and third ops commit none), so the wait's 3 groups of the IR are
// the hardware's 1 (`wgmma.wait_group 1`: the previous step's retired). The program is `gemm_hopper_ws(128, 384, 128, bm=64, bn=192, bk=64,
// stages=2, persistent=3, group=1, tma_epilogue=True, chunk=64, one_wgmma=True)`:
// 4 tiles on 3 blocks.
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: // @gemm: equivalent after 'default'

// CHECK-LABEL: // kernel gemm_kernels::gemm_kernel: 32-bit indices, block (256, 1, 1)
// CHECK:       if (threadIdx.x < 128) {  // warpgroup 0
// CHECK-NOT:     wgmma.mma_async.sync.aligned.m64n64k16
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16
// CHECK-NEXT:      : "+f"
// CHECK-NEXT:      : "l"(tilec_wgmma_desc_add(tilec_wgmma_desc(smem + 0, 0u, 1024u, 1u), 96u)), "l"(tilec_wgmma_desc_add(tilec_wgmma_desc(smem_1 + 0, 8192u, 1024u, 1u), 6144u))
// CHECK:         wgmma.commit_group.sync.aligned;
// CHECK-NEXT:    // layout.mma 64x64x64 (bf16): 4 wgmma.m64n192k16 per warpgroup (with the 2 layout.mma after it: their columns), A from smem; A K-major, swizzle 128B, LBO 0, SBO 1024; B MN-major, swizzle 128B, LBO 8192, SBO 1024; async: in flight until a layout.mma_wait
// CHECK-NEXT:    // layout.mma: issued in the wgmma of the layout.mma before it
// CHECK-NEXT:    // layout.mma: issued in the wgmma of the layout.mma before it
// CHECK:         wgmma.wait_group.sync.aligned 1;
// CHECK-NOT:     wgmma.mma_async.sync.aligned.m64n64k16
// CHECK:       } else {  // warpgroup 1

builtin.module {
  func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<bf16, align 16>) {
    %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(128,128):(128,1)>, gmem>
    %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(128,384):(384,1)>, gmem>
    %C = layout.view %pc : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(128,384):(384,1)>, gmem>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %cs = arith.constant 2 : index
    %nk = arith.constant 2 : index
    %last = arith.constant 1 : index
    %gm = arith.constant 2 : index
    %gn = arith.constant 2 : index
    %o1 = arith.constant 1 : index
    %ntiles = arith.constant 4 : index
    %nprog = arith.constant 3 : index
    layout.launch grid(%nprog, %c1, %c1) threads(256) {
    ^bb0(%pid: index, %b1: index, %bz: index, %tid: index):
      %sa0 = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
      %sbw0 = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,3)):(64,(1,4096))>, smem>
      %ch0 = arith.constant 0 : index
      %sb0 = layout.tile %sbw0[%c0, %ch0] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,3)):(64,(1,4096))>, smem> -> !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
      %ch1 = arith.constant 1 : index
      %sb0_1 = layout.tile %sbw0[%c0, %ch1] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,3)):(64,(1,4096))>, smem> -> !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
      %ch2 = arith.constant 2 : index
      %sb0_2 = layout.tile %sbw0[%c0, %ch2] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,3)):(64,(1,4096))>, smem> -> !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
      %sa1 = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
      %sbw1 = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,3)):(64,(1,4096))>, smem>
      %ch0_1 = arith.constant 0 : index
      %sb1 = layout.tile %sbw1[%c0, %ch0_1] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,3)):(64,(1,4096))>, smem> -> !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
      %ch1_1 = arith.constant 1 : index
      %sb1_1 = layout.tile %sbw1[%c0, %ch1_1] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,3)):(64,(1,4096))>, smem> -> !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
      %ch2_1 = arith.constant 2 : index
      %sb1_2 = layout.tile %sbw1[%c0, %ch2_1] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,3)):(64,(1,4096))>, smem> -> !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
      %full0 = layout.mbarrier_init {count = 1 : i64}
      %empty0 = layout.mbarrier_init {count = 1 : i64}
      %full1 = layout.mbarrier_init {count = 1 : i64}
      %empty1 = layout.mbarrier_init {count = 1 : i64}
      %sc = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
      layout.warp_specialize warpgroups(1, 1) {
        layout.setmaxnreg inc 232
        %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
        scf.for %t = %pid to %ntiles step %nprog {
          %tsub = arith.subi %t, %pid : index
          %j = arith.divui %tsub, %nprog : index
          %base = arith.muli %j, %nk : index
          %bx = arith.divui %t, %gn : index
          %by = arith.remui %t, %gn : index
          %nch = arith.constant 3 : index
          %by_1 = arith.muli %by, %nch : index
          %ch1_2 = arith.constant 1 : index
          %by_2 = arith.addi %by_1, %ch1_2 : index
          %ch2_2 = arith.constant 2 : index
          %by_3 = arith.addi %by_1, %ch2_2 : index
          %inflight, %inflight_1, %inflight_2 = scf.for %i = %c0 to %nk step %cs iter_args(%acc0 = %zero, %acc0_1 = %zero, %acc0_2 = %zero) -> (tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>) {
            %kall = arith.addi %base, %i : index
            %round = arith.divui %kall, %cs : index
            %phase = arith.remui %round, %c2 : index
            %later = arith.cmpi ne, %i, %c0 : index
            layout.mbarrier_wait %full0, %phase
            %d1 = layout.mma %sa0, %sb0, %acc0 {async} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
            %d1_1 = layout.mma %sa0, %sb0_1, %acc0_1 {async} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
            %d1_2 = layout.mma %sa0, %sb0_2, %acc0_2 {async} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
            %acc1, %acc1_1, %acc1_2 = layout.mma_wait %d1, %d1_1, %d1_2 {pending = 3 : i64} : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
            scf.if %later {
              layout.mbarrier_arrive %empty1
            }
            layout.mbarrier_wait %full1, %phase
            %d2 = layout.mma %sa1, %sb1, %acc1 {async} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
            %d2_1 = layout.mma %sa1, %sb1_1, %acc1_1 {async} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
            %d2_2 = layout.mma %sa1, %sb1_2, %acc1_2 {async} : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
            %acc2, %acc2_1, %acc2_2 = layout.mma_wait %d2, %d2_1, %d2_2 {pending = 3 : i64} : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
            layout.mbarrier_arrive %empty0
            scf.yield %acc2, %acc2_1, %acc2_2 : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
          }
          %acc, %acc_1, %acc_2 = layout.mma_wait %inflight, %inflight_1, %inflight_2 {pending = 0 : i64} : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
          layout.mbarrier_arrive %empty1
          %h = arith.truncf %acc : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>> to tensor<64x64xbf16, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
          %tc = layout.tile %C[%bx, %by_1] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(128,384):(384,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>
          layout.tma_store_wait {pending = 0 : i64}
          layout.store %h, %sc : tensor<64x64xbf16, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
          layout.tma_store %sc, %tc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>
          %h_1 = arith.truncf %acc_1 : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>> to tensor<64x64xbf16, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
          %tc_1 = layout.tile %C[%bx, %by_2] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(128,384):(384,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>
          layout.tma_store_wait {pending = 0 : i64}
          layout.store %h_1, %sc : tensor<64x64xbf16, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
          layout.tma_store %sc, %tc_1 : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>
          %h_2 = arith.truncf %acc_2 : tensor<64x64xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>> to tensor<64x64xbf16, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>
          %tc_2 = layout.tile %C[%bx, %by_3] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(128,384):(384,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>
          layout.tma_store_wait {pending = 0 : i64}
          layout.store %h_2, %sc : tensor<64x64xbf16, #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
          layout.tma_store %sc, %tc_2 : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>
        }
        layout.tma_store_wait {pending = 0 : i64}
      }, {
        layout.setmaxnreg dec 40
        scf.for %t_1 = %pid to %ntiles step %nprog {
          %tsub_1 = arith.subi %t_1, %pid : index
          %j_1 = arith.divui %tsub_1, %nprog : index
          %base_1 = arith.muli %j_1, %nk : index
          %bx_1 = arith.divui %t_1, %gn : index
          %by_4 = arith.remui %t_1, %gn : index
          %nch_1 = arith.constant 3 : index
          %by_5 = arith.muli %by_4, %nch_1 : index
          %ch1_3 = arith.constant 1 : index
          %by_6 = arith.addi %by_5, %ch1_3 : index
          %ch2_3 = arith.constant 2 : index
          %by_7 = arith.addi %by_5, %ch2_3 : index
          scf.for %i_1 = %c0 to %nk step %cs {
            %kall_1 = arith.addi %base_1, %i_1 : index
            %round_1 = arith.divui %kall_1, %cs : index
            %first = arith.cmpi eq, %round_1, %c0 : index
            %prev = arith.subi %round_1, %c1 : index
            %ephase = arith.remui %prev, %c2 : index
            %kt0 = arith.addi %i_1, %c0 : index
            scf.if %first {
            } else {
              layout.mbarrier_wait %empty0, %ephase
            }
            layout.mbarrier_arrive %full0 {tx = 32768 : i64}
            %ta0 = layout.tile %A[%bx_1, %kt0] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(128,128):(128,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>
            %tb0 = layout.tile %B[%kt0, %by_5] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(128,384):(384,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>
            %tb0_1 = layout.tile %B[%kt0, %by_6] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(128,384):(384,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>
            %tb0_2 = layout.tile %B[%kt0, %by_7] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(128,384):(384,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>
            layout.tma_load %ta0, %sa0, %full0 : !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
            layout.tma_load %tb0, %sb0, %full0 : !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
            layout.tma_load %tb0_1, %sb0_1, %full0 : !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
            layout.tma_load %tb0_2, %sb0_2, %full0 : !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
            %kt1 = arith.addi %i_1, %o1 : index
            scf.if %first {
            } else {
              layout.mbarrier_wait %empty1, %ephase
            }
            layout.mbarrier_arrive %full1 {tx = 32768 : i64}
            %ta1 = layout.tile %A[%bx_1, %kt1] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(128,128):(128,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>
            %tb1 = layout.tile %B[%kt1, %by_5] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(128,384):(384,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>
            %tb1_1 = layout.tile %B[%kt1, %by_6] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(128,384):(384,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>
            %tb1_2 = layout.tile %B[%kt1, %by_7] {tile = array<i64: 64, 64>} : !layout.tensor<bf16, #layout.cute<(128,384):(384,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>
            layout.tma_load %ta1, %sa1, %full1 : !layout.tensor<bf16, #layout.cute<(64,64):(128,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
            layout.tma_load %tb1, %sb1, %full1 : !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
            layout.tma_load %tb1_1, %sb1_1, %full1 : !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
            layout.tma_load %tb1_2, %sb1_2, %full1 : !layout.tensor<bf16, #layout.cute<(64,64):(384,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
          }
        }
      }
    }
    func.return
  }
}
