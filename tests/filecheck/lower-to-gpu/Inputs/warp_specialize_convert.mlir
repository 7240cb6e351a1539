!V = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
func.func @convert_in_region(%p: !layout.ptr<f32, align 16>, %c1: index) {
  %v = layout.view %p : !layout.ptr<f32, align 16> -> !V
  layout.launch grid(%c1, %c1, %c1) threads(256) {  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(1, 1) {
      %x = layout.load %v : !V -> tensor<64x64xf32, #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
      %y = layout.convert_layout %x : tensor<64x64xf32, #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<64x64xf32, #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>>
      layout.store %y, %v : tensor<64x64xf32, #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>>, !V
    }, {
    }
  }
  func.return
}
