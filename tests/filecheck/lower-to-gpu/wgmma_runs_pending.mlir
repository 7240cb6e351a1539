// lower-to-gpu of two runs of nine asynchronous layout.mma on one A, each run over column
// chunks of 16 of one K-major shared B (144 columns, `gemm_hopper_ws(one_wgmma=True)`'s
// chunks of 16 with block scales): each run one wgmma.m64n144k16 a K step and one group, so
// the first run's wait with `pending = 9` (the IR's nine ops of the second run in flight,
// above the hardware's 7) is `wgmma.wait_group 1`. Equivalent on the CPU reference executor.
// RUN: tilec %s -p default -t cuda | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @two_runs: equivalent after 'default' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance {{[0-9.e-]+}}

// CHECK-LABEL: // kernel two_runs_kernels::two_runs_kernel
// CHECK:       wgmma.mma_async.sync.aligned.m64n144k16.f32.bf16.bf16
// CHECK:       // layout.mma 64x16x64 (bf16): 4 wgmma.m64n144k16 per warpgroup (with the 8 layout.mma after it: their columns)
// CHECK:       wgmma.mma_async.sync.aligned.m64n144k16.f32.bf16.bf16
// CHECK:       // layout.mma 64x16x64 (bf16): 4 wgmma.m64n144k16 per warpgroup (with the 8 layout.mma after it: their columns)
// CHECK-NOT:   wgmma.mma_async
// CHECK:       asm volatile("wgmma.wait_group.sync.aligned 1;"
// CHECK-NOT:   wgmma.mma_async
// CHECK:       asm volatile("wgmma.wait_group.sync.aligned 0;"

#m16 = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 16, 16]>
!ACC = tensor<64x16xf32, #m16>
!GA = !layout.tensor<bf16, #layout.cute<(64,64):(64,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(64,144):(1,64)>, gmem>
!GB16 = !layout.tensor<bf16, #layout.cute<(64,16):(1,64)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,144):(144,1)>, gmem>
!GC16 = !layout.tensor<f32, #layout.cute<(64,16):(144,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!SBW = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,144):(1,64)>, smem>
!SB16 = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,16):(1,64)>, smem>
func.func @two_runs(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sbw = layout.alloc : !SBW
    layout.copy %a, %sa : !GA, !SA
    %i0 = arith.constant 0 : index
    %sb0 = layout.tile %sbw[%c0, %i0] {tile = array<i64: 64, 16>} : !SBW -> !SB16
    %gb0 = layout.tile %b[%c0, %i0] {tile = array<i64: 64, 16>} : !GB -> !GB16
    %gc0 = layout.tile %c[%c0, %i0] {tile = array<i64: 64, 16>} : !GC -> !GC16
    layout.copy %gb0, %sb0 : !GB16, !SB16
    %i1 = arith.constant 1 : index
    %sb1 = layout.tile %sbw[%c0, %i1] {tile = array<i64: 64, 16>} : !SBW -> !SB16
    %gb1 = layout.tile %b[%c0, %i1] {tile = array<i64: 64, 16>} : !GB -> !GB16
    %gc1 = layout.tile %c[%c0, %i1] {tile = array<i64: 64, 16>} : !GC -> !GC16
    layout.copy %gb1, %sb1 : !GB16, !SB16
    %i2 = arith.constant 2 : index
    %sb2 = layout.tile %sbw[%c0, %i2] {tile = array<i64: 64, 16>} : !SBW -> !SB16
    %gb2 = layout.tile %b[%c0, %i2] {tile = array<i64: 64, 16>} : !GB -> !GB16
    %gc2 = layout.tile %c[%c0, %i2] {tile = array<i64: 64, 16>} : !GC -> !GC16
    layout.copy %gb2, %sb2 : !GB16, !SB16
    %i3 = arith.constant 3 : index
    %sb3 = layout.tile %sbw[%c0, %i3] {tile = array<i64: 64, 16>} : !SBW -> !SB16
    %gb3 = layout.tile %b[%c0, %i3] {tile = array<i64: 64, 16>} : !GB -> !GB16
    %gc3 = layout.tile %c[%c0, %i3] {tile = array<i64: 64, 16>} : !GC -> !GC16
    layout.copy %gb3, %sb3 : !GB16, !SB16
    %i4 = arith.constant 4 : index
    %sb4 = layout.tile %sbw[%c0, %i4] {tile = array<i64: 64, 16>} : !SBW -> !SB16
    %gb4 = layout.tile %b[%c0, %i4] {tile = array<i64: 64, 16>} : !GB -> !GB16
    %gc4 = layout.tile %c[%c0, %i4] {tile = array<i64: 64, 16>} : !GC -> !GC16
    layout.copy %gb4, %sb4 : !GB16, !SB16
    %i5 = arith.constant 5 : index
    %sb5 = layout.tile %sbw[%c0, %i5] {tile = array<i64: 64, 16>} : !SBW -> !SB16
    %gb5 = layout.tile %b[%c0, %i5] {tile = array<i64: 64, 16>} : !GB -> !GB16
    %gc5 = layout.tile %c[%c0, %i5] {tile = array<i64: 64, 16>} : !GC -> !GC16
    layout.copy %gb5, %sb5 : !GB16, !SB16
    %i6 = arith.constant 6 : index
    %sb6 = layout.tile %sbw[%c0, %i6] {tile = array<i64: 64, 16>} : !SBW -> !SB16
    %gb6 = layout.tile %b[%c0, %i6] {tile = array<i64: 64, 16>} : !GB -> !GB16
    %gc6 = layout.tile %c[%c0, %i6] {tile = array<i64: 64, 16>} : !GC -> !GC16
    layout.copy %gb6, %sb6 : !GB16, !SB16
    %i7 = arith.constant 7 : index
    %sb7 = layout.tile %sbw[%c0, %i7] {tile = array<i64: 64, 16>} : !SBW -> !SB16
    %gb7 = layout.tile %b[%c0, %i7] {tile = array<i64: 64, 16>} : !GB -> !GB16
    %gc7 = layout.tile %c[%c0, %i7] {tile = array<i64: 64, 16>} : !GC -> !GC16
    layout.copy %gb7, %sb7 : !GB16, !SB16
    %i8 = arith.constant 8 : index
    %sb8 = layout.tile %sbw[%c0, %i8] {tile = array<i64: 64, 16>} : !SBW -> !SB16
    %gb8 = layout.tile %b[%c0, %i8] {tile = array<i64: 64, 16>} : !GB -> !GB16
    %gc8 = layout.tile %c[%c0, %i8] {tile = array<i64: 64, 16>} : !GC -> !GC16
    layout.copy %gb8, %sb8 : !GB16, !SB16
    layout.barrier
    %x0 = layout.load %gc0 : !GC16 -> !ACC
    %x1 = layout.load %gc1 : !GC16 -> !ACC
    %x2 = layout.load %gc2 : !GC16 -> !ACC
    %x3 = layout.load %gc3 : !GC16 -> !ACC
    %x4 = layout.load %gc4 : !GC16 -> !ACC
    %x5 = layout.load %gc5 : !GC16 -> !ACC
    %x6 = layout.load %gc6 : !GC16 -> !ACC
    %x7 = layout.load %gc7 : !GC16 -> !ACC
    %x8 = layout.load %gc8 : !GC16 -> !ACC
    %y0 = layout.mma %sa, %sb0, %x0 {async} : !SA, !SB16, !ACC
    %y1 = layout.mma %sa, %sb1, %x1 {async} : !SA, !SB16, !ACC
    %y2 = layout.mma %sa, %sb2, %x2 {async} : !SA, !SB16, !ACC
    %y3 = layout.mma %sa, %sb3, %x3 {async} : !SA, !SB16, !ACC
    %y4 = layout.mma %sa, %sb4, %x4 {async} : !SA, !SB16, !ACC
    %y5 = layout.mma %sa, %sb5, %x5 {async} : !SA, !SB16, !ACC
    %y6 = layout.mma %sa, %sb6, %x6 {async} : !SA, !SB16, !ACC
    %y7 = layout.mma %sa, %sb7, %x7 {async} : !SA, !SB16, !ACC
    %y8 = layout.mma %sa, %sb8, %x8 {async} : !SA, !SB16, !ACC
    %z0 = layout.mma %sa, %sb0, %x0 {async} : !SA, !SB16, !ACC
    %z1 = layout.mma %sa, %sb1, %x1 {async} : !SA, !SB16, !ACC
    %z2 = layout.mma %sa, %sb2, %x2 {async} : !SA, !SB16, !ACC
    %z3 = layout.mma %sa, %sb3, %x3 {async} : !SA, !SB16, !ACC
    %z4 = layout.mma %sa, %sb4, %x4 {async} : !SA, !SB16, !ACC
    %z5 = layout.mma %sa, %sb5, %x5 {async} : !SA, !SB16, !ACC
    %z6 = layout.mma %sa, %sb6, %x6 {async} : !SA, !SB16, !ACC
    %z7 = layout.mma %sa, %sb7, %x7 {async} : !SA, !SB16, !ACC
    %z8 = layout.mma %sa, %sb8, %x8 {async} : !SA, !SB16, !ACC
    %w:9 = layout.mma_wait %y0, %y1, %y2, %y3, %y4, %y5, %y6, %y7, %y8 {pending = 9 : i64} : !ACC, !ACC, !ACC, !ACC, !ACC, !ACC, !ACC, !ACC, !ACC
    %v:9 = layout.mma_wait %z0, %z1, %z2, %z3, %z4, %z5, %z6, %z7, %z8 {pending = 0 : i64} : !ACC, !ACC, !ACC, !ACC, !ACC, !ACC, !ACC, !ACC, !ACC
    %s0 = arith.addf %w#0, %v#0 : !ACC
    layout.store %s0, %gc0 : !ACC, !GC16
    %s1 = arith.addf %w#1, %v#1 : !ACC
    layout.store %s1, %gc1 : !ACC, !GC16
    %s2 = arith.addf %w#2, %v#2 : !ACC
    layout.store %s2, %gc2 : !ACC, !GC16
    %s3 = arith.addf %w#3, %v#3 : !ACC
    layout.store %s3, %gc3 : !ACC, !GC16
    %s4 = arith.addf %w#4, %v#4 : !ACC
    layout.store %s4, %gc4 : !ACC, !GC16
    %s5 = arith.addf %w#5, %v#5 : !ACC
    layout.store %s5, %gc5 : !ACC, !GC16
    %s6 = arith.addf %w#6, %v#6 : !ACC
    layout.store %s6, %gc6 : !ACC, !GC16
    %s7 = arith.addf %w#7, %v#7 : !ACC
    layout.store %s7, %gc7 : !ACC, !GC16
    %s8 = arith.addf %w#8, %v#8 : !ACC
    layout.store %s8, %gc8 : !ACC, !GC16
  }
  func.return
}
