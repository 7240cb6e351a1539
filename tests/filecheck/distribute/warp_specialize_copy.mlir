// A block-level layout.copy inside a warp_specialize region is refused by distribute
// (it would be spread over every thread of the block; only the region's threads run it).
// RUN: not tilec %s -p distribute 2>&1 | filecheck %s

// CHECK: warp_specialize_copy.mlir:[[# @LINE + 10]]:7: error: 'layout.copy': distribute: a block-level layout.copy inside a layout.warp_specialize region
!G = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @copy_in_region(%p: !layout.ptr<f32, align 16>) {
  %g = layout.view %p : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    layout.warp_specialize warpgroups(1, 1) {
      layout.copy %g, %s : !G, !S
    }, {
    }
  }
  func.return
}
