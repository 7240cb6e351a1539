// A kernel whose shared memory is too large for a block, found only when the CUDA is
// emitted (a swizzle whose XOR reaches far above the tile: its footprint is 2^64
// bytes), is a located error at the layout.launch the kernel came from: the gpu.func
// had no location, and the error was "tilec: error: ..." (found by the fuzzer).
// RUN: not tilec %s -p default -t cuda 2>&1 | filecheck %s

// CHECK: smem_of_kernel_located.mlir:[[# @LINE + 13]]:3: error: 'gpu.func': the kernel needs 18446744073709551616 bytes of shared memory; a block may use at most 232448 (227 KiB on sm_90): use smaller tiles
#rows = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!Gs = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!Gd = !layout.tensor<f32, #layout.cute<(256,256):(1,256)>, gmem>
!Ts = !layout.tensor<f32, #layout.cute<(32,32):(256,1)>, gmem>
!Td = !layout.tensor<f32, #layout.cute<(32,32):(1,256)>, gmem>
!S = !layout.tensor<f32, #layout.composed<swizzle<30,2,30> o 0 o (32,32):(32,1)>, smem>
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
