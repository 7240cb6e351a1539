// Shared -> register loads and register -> shared stores of 16-bit elements become
// ldmatrix / stmatrix when the register layout, composed with the shared layout, gives
// each 8x8 matrix row 16 contiguous, 16-byte-aligned bytes (passes/_matrix_plan.py);
// the CUDA says which was chosen, or why not. Each function copies src to dst through
// shared memory, so the equivalence check compares bit for bit.
// RUN: tilec %s -p lower-to-gpu -t cuda | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @ldmatrix_a: equivalent after 'lower-to-gpu' (seed 0, buffers %src, %dst){{$}}
// EQ: @ldmatrix_b_trans: equivalent after
// EQ: @ldmatrix_b_x2: equivalent after
// EQ: @ldmatrix_blocked_x1: equivalent after
// EQ: @ldmatrix_swizzled: equivalent after
// EQ: @stmatrix_acc: equivalent after
// EQ: @misaligned_rows: equivalent after


#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
#rows = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!G = !layout.tensor<bf16, #layout.cute<(64,32):(32,1)>, gmem>

// Operand A, 64x32, 4 warps: each warp's 32 rows x 32 columns are 4 x 2 tiles of 16x16,
// each one ldmatrix.x4; rows 40 elements (80 bytes) apart, so the 8 rows of a matrix
// start in 8 different 16-byte bank groups.
// CHECK-LABEL: ldmatrix_a_kernel(
// CHECK: // layout.load 64x32xbf16 from smem: 4 ldmatrix.x4 per thread
// CHECK-COUNT-4: asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
// CHECK-NOT: ldmatrix.sync
// CHECK: }
func.func @ldmatrix_a(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %g = layout.view %src : !layout.ptr<bf16, align 16> -> !G
  %h = layout.view %dst : !layout.ptr<bf16, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<bf16, #layout.cute<(64,32):(40,1)>, smem>
    %v = layout.load %g {vector = 8 : i64} : !G -> tensor<64x32xbf16, #rows>
    layout.store %v, %s {vector = 8 : i64} : tensor<64x32xbf16, #rows>, !layout.tensor<bf16, #layout.cute<(64,32):(40,1)>, smem>
    layout.barrier
    %x = layout.load %s : !layout.tensor<bf16, #layout.cute<(64,32):(40,1)>, smem> -> tensor<64x32xbf16, #a>
    layout.store %x, %h : tensor<64x32xbf16, #a>, !G
  }
  func.return
}

// Operand B, 32x32 row-major (N contiguous): each lane's register pair runs down K,
// across rows: ldmatrix.trans. Rows 136 elements (272 bytes) apart.
// CHECK-LABEL: ldmatrix_b_trans_kernel(
// CHECK: // layout.load 32x32xbf16 from smem: 2 ldmatrix.x4.trans per thread
// CHECK-COUNT-2: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-NOT: ldmatrix.sync
// CHECK: }
func.func @ldmatrix_b_trans(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %g = layout.view %src : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(32,32):(32,1)>, gmem>
  %h = layout.view %dst : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(32,32):(32,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<bf16, #layout.cute<(32,32):(136,1)>, smem>
    %v = layout.load %g {vector = 8 : i64} : !layout.tensor<bf16, #layout.cute<(32,32):(32,1)>, gmem> -> tensor<32x32xbf16, #rows>
    layout.store %v, %s {vector = 8 : i64} : tensor<32x32xbf16, #rows>, !layout.tensor<bf16, #layout.cute<(32,32):(136,1)>, smem>
    layout.barrier
    %x = layout.load %s : !layout.tensor<bf16, #layout.cute<(32,32):(136,1)>, smem> -> tensor<32x32xbf16, #b>
    layout.store %x, %h : tensor<32x32xbf16, #b>, !layout.tensor<bf16, #layout.cute<(32,32):(32,1)>, gmem>
  }
  func.return
}

#mma1 = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>
#row1 = #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>

// One warp, B 16x8: two matrices per thread, one ldmatrix.x2.trans. (The blocked
// layout of pairs that fills the tile is two matrices too: stmatrix.x2.)
// CHECK-LABEL: ldmatrix_b_x2_kernel(
// CHECK: // layout.store 16x8xf16 to smem: 1 stmatrix.x2 per thread
// CHECK: stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};
// CHECK: // layout.load 16x8xf16 from smem: 1 ldmatrix.x2.trans per thread
// CHECK: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];
func.func @ldmatrix_b_x2(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %g = layout.view %src : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(16,8):(8,1)>, gmem>
  %h = layout.view %dst : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(16,8):(8,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<f16, #layout.cute<(16,8):(8,1)>, smem>
    %v = layout.load %g : !layout.tensor<f16, #layout.cute<(16,8):(8,1)>, gmem> -> tensor<16x8xf16, #row1>
    layout.store %v, %s : tensor<16x8xf16, #row1>, !layout.tensor<f16, #layout.cute<(16,8):(8,1)>, smem>
    layout.barrier
    %x = layout.load %s : !layout.tensor<f16, #layout.cute<(16,8):(8,1)>, smem> -> tensor<16x8xf16, #layout.dot_op<opIdx = 1, parent = #mma1, kWidth = 2>>
    layout.store %x, %h : tensor<16x8xf16, #layout.dot_op<opIdx = 1, parent = #mma1, kWidth = 2>>, !layout.tensor<f16, #layout.cute<(16,8):(8,1)>, gmem>
  }
  func.return
}

// Any layout whose bases fit: a blocked 8x8 of pairs is exactly one matrix (x1).
// CHECK-LABEL: ldmatrix_blocked_x1_kernel(
// CHECK: // layout.store 8x8xbf16 to smem: 1 stmatrix.x1 per thread
// CHECK: // layout.load 8x8xbf16 from smem: 1 ldmatrix.x1 per thread
// CHECK: ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];
func.func @ldmatrix_blocked_x1(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %g = layout.view %src : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(8,8):(8,1)>, gmem>
  %h = layout.view %dst : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(8,8):(8,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<bf16, #layout.cute<(8,8):(8,1)>, smem>
    %v = layout.load %g : !layout.tensor<bf16, #layout.cute<(8,8):(8,1)>, gmem> -> tensor<8x8xbf16, #row1>
    layout.store %v, %s : tensor<8x8xbf16, #row1>, !layout.tensor<bf16, #layout.cute<(8,8):(8,1)>, smem>
    layout.barrier
    %x = layout.load %s : !layout.tensor<bf16, #layout.cute<(8,8):(8,1)>, smem> -> tensor<8x8xbf16, #row1>
    layout.store %x, %h : tensor<8x8xbf16, #row1>, !layout.tensor<bf16, #layout.cute<(8,8):(8,1)>, gmem>
  }
  func.return
}

// A swizzled shared tile (Swizzle<2,3,3>: 16-byte chunk c of row r at c ^ (r/2)%4, as
// #layout.nvmma_shared<swizzle = 64> for 64-byte rows): rows stay whole, so ldmatrix.
// CHECK-LABEL: ldmatrix_swizzled_kernel(
// CHECK: // layout.load 64x32xbf16 from smem: 4 ldmatrix.x4 per thread
// CHECK-COUNT-4: ldmatrix.sync.aligned.m8n8.x4.shared.b16
func.func @ldmatrix_swizzled(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %g = layout.view %src : !layout.ptr<bf16, align 16> -> !G
  %h = layout.view %dst : !layout.ptr<bf16, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<2,3,3> o 0 o (64,32):(32,1)>, smem>
    %v = layout.load %g {vector = 8 : i64} : !G -> tensor<64x32xbf16, #rows>
    layout.store %v, %s {vector = 8 : i64} : tensor<64x32xbf16, #rows>, !layout.tensor<bf16, #layout.composed<swizzle<2,3,3> o 0 o (64,32):(32,1)>, smem>
    layout.barrier
    %x = layout.load %s : !layout.tensor<bf16, #layout.composed<swizzle<2,3,3> o 0 o (64,32):(32,1)>, smem> -> tensor<64x32xbf16, #a>
    layout.store %x, %h : tensor<64x32xbf16, #a>, !G
  }
  func.return
}

// The accumulator layout rounded to bf16 and stored to shared memory: stmatrix (sm_90,
// the default target); read back in rows.
// CHECK-LABEL: stmatrix_acc_kernel(
// CHECK: // layout.store 64x32xbf16 to smem: 2 stmatrix.x4 per thread
// CHECK-COUNT-2: asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
func.func @stmatrix_acc(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %g = layout.view %src : !layout.ptr<bf16, align 16> -> !G
  %h = layout.view %dst : !layout.ptr<bf16, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<bf16, #layout.cute<(64,32):(40,1)>, smem>
    %v = layout.load %g : !G -> tensor<64x32xbf16, #mma>
    layout.store %v, %s : tensor<64x32xbf16, #mma>, !layout.tensor<bf16, #layout.cute<(64,32):(40,1)>, smem>
    layout.barrier
    %x = layout.load %s {vector = 8 : i64} : !layout.tensor<bf16, #layout.cute<(64,32):(40,1)>, smem> -> tensor<64x32xbf16, #rows>
    layout.store %x, %h {vector = 8 : i64} : tensor<64x32xbf16, #rows>, !G
  }
  func.return
}

// Rows 36 elements (72 bytes) apart do not start on 16-byte boundaries: ld.shared, of
// the register pairs (4 bytes, aligned).
// CHECK-LABEL: misaligned_rows_kernel(
// CHECK: // layout.load 64x32xbf16 from smem: no ldmatrix (rows do not start on 16-byte boundaries); ld.shared of 2 elements
// CHECK: const bf16x2 {{.*}} = tilec_bitcast<bf16x2>(*reinterpret_cast<const i32x1*>(smem + {{.*}}));
// CHECK-NOT: ldmatrix.sync
// CHECK: }
func.func @misaligned_rows(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %g = layout.view %src : !layout.ptr<bf16, align 16> -> !G
  %h = layout.view %dst : !layout.ptr<bf16, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !layout.tensor<bf16, #layout.cute<(64,32):(36,1)>, smem>
    %v = layout.load %g : !G -> tensor<64x32xbf16, #rows>
    layout.store %v, %s : tensor<64x32xbf16, #rows>, !layout.tensor<bf16, #layout.cute<(64,32):(36,1)>, smem>
    layout.barrier
    %x = layout.load %s : !layout.tensor<bf16, #layout.cute<(64,32):(36,1)>, smem> -> tensor<64x32xbf16, #a>
    layout.store %x, %h : tensor<64x32xbf16, #a>, !G
  }
  func.return
}
