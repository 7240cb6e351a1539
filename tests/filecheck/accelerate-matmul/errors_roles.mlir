// A layout.dot inside a layout.warp_specialize region is a located error: its shared
// staging would wait at block-wide barriers that the other region never reaches.
// RUN: not tilec %s -p accelerate-matmul 2>&1 | filecheck %s
// CHECK: errors_roles.mlir:19:7: error: 'layout.dot': accelerate-matmul: a layout.dot inside a layout.warp_specialize region is not lowered (its shared staging waits at block-wide barriers, which the region's warps alone never reach): write the region's layout.mma

#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!GA = !layout.tensor<bf16, #layout.cute<(64,16):(16,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>
func.func @in_region(%pa: !layout.ptr<bf16>, %pb: !layout.ptr<bf16>) {
  %a = layout.view %pa : !layout.ptr<bf16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16> -> !GB
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(1, 1) {
      %va = layout.load %a : !GA -> tensor<64x16xbf16, #blk>
      %vb = layout.load %b : !GB -> tensor<16x64xbf16, #blk>
      %acc = arith.constant dense<0.0> : tensor<64x64xf32, #blk>
      %d = layout.dot %va, %vb, %acc : tensor<64x16xbf16, #blk>, tensor<16x64xbf16, #blk>, tensor<64x64xf32, #blk>
    }, {
    }
  }
  func.return
}
