// Inside a layout.warp_specialize region nothing may meet the whole block: an op whose
// lowering needs a block-wide barrier (a reduction across warps through shared memory)
// is a located error, and so is a pass that would put a layout.barrier there.
// RUN: not tilec %s --split-input-file -p lower-to-gpu 2>&1 | filecheck %s
// RUN: not tilec %S/Inputs/warp_specialize_convert.mlir -p default 2>&1 | filecheck %s --check-prefix=CONVERT

// CHECK: warp_specialize_errors.mlir:[[# @LINE + 14]]:7: error: 'layout.reduce' lowers through a barrier of the whole block (shared memory between warps), which a layout.warp_specialize region cannot have: only its threads reach it
// CONVERT: warp_specialize_convert.mlir:5:5: error: 'layout.warp_specialize': IR after pass 'lower-convert-layout' does not verify: 'layout.barrier' meets the whole block: it cannot be inside a layout.warp_specialize region
#a = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#sa = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!R = !layout.tensor<f32, #layout.cute<128:1>, gmem>
func.func @reduce_in_region(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !R
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.warp_specialize warpgroups(1, 1) {
      %v = layout.load %a : !G -> tensor<128x128xf32, #a>
      %s = layout.reduce %v {axis = 1 : i64, kind = "add"} : tensor<128x128xf32, #a> -> tensor<128xf32, #sa>
      layout.store %s, %b : tensor<128xf32, #sa>, !R
    }, {
    }
  }
  func.return
}
