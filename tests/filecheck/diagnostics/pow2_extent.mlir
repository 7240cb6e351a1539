// A distributed tensor whose extent is not a power of two is refused with the rule and
// what to write instead (a masked power-of-two tile), as Gluon's users know it.
// RUN: not tilec %s 2>&1 | filecheck %s

// CHECK: pow2_extent.mlir:[[# @LINE + 8]]:5: error: 'layout.load': the distributed tensor tensor<1000xf32, {{.*}}> has an extent that is not a power of two (1000): distributed tensors have power-of-two extents, as in Gluon; take a masked tile of the next power of two, e.g. 1024 for 1000, and mask the rest
#b = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
!V = !layout.tensor<f32, #layout.cute<(1000):(1)>, gmem>
func.func @f(%p: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !V
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !V -> tensor<1000xf32, #b>
  }
  func.return
}
