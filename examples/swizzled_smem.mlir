// A 256x256 float32 transpose through a swizzled shared-memory tile, with the
// shared-memory round trip written by hand (no `convert_layout` for the compiler to
// choose one). Each block of 4 warps takes a 32x32 tile: it loads it along its rows
// (#rows: 16-byte vectors, 8 threads per 128-byte row) and stores it so into shared
// memory; after a barrier it loads it down its columns (#cols: a warp takes 8 rows x 4
// columns, one element per thread) and stores it to dst, whose view is the transposed
// (column-major) one: dst[j][i] = src[i][j], each warp writing 4 runs of 8 floats.
//
// The shared tile is row-major 32x32 composed with CuTe's swizzle for 16-byte
// vectors of f32, Swizzle<3,2,3> (Swizzle<B,M,S> keeps runs of 2^M elements whole:
// M=2 is four f32; CuTe's Swizzle<3,4,3> is the same for sixteen 1-byte elements):
// bits 5..7 of the offset (the row mod 8) are XORed into bits 2..4 (which 16-byte
// vector of the row), so vectors stay whole and aligned and the row stores stay
// conflict-free. In the column load, element (i, j) sits in bank
// 4*((j/4) XOR (i mod 8)) + j mod 4: a warp's 8 rows x 4 columns hit 32 different
// banks. Without the swizzle they would share the 4 banks of their 4 columns (8-way
// bank conflicts; tests/unit/test_examples.py counts both).
//
//   tilec examples/swizzled_smem.mlir --run cpu
#rows = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!Gs = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!Gd = !layout.tensor<f32, #layout.cute<(256,256):(1,256)>, gmem>
!Ts = !layout.tensor<f32, #layout.cute<(32,32):(256,1)>, gmem>
!Td = !layout.tensor<f32, #layout.cute<(32,32):(1,256)>, gmem>
!S = !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o (32,32):(32,1)>, smem>
func.func @swizzled_transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Gs
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Gd
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c8, %c8, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 32>} : !Gs -> !Ts
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 32>} : !Gd -> !Td
    %s = layout.alloc : !S
    %v = layout.load %ta {vector = 4 : i64} : !Ts -> tensor<32x32xf32, #rows>
    layout.store %v, %s {vector = 4 : i64} : tensor<32x32xf32, #rows>, !S
    layout.barrier
    %w = layout.load %s : !S -> tensor<32x32xf32, #cols>
    layout.store %w, %tb : tensor<32x32xf32, #cols>, !Td
  }
  func.return
}
