// RUN: not tilec %s -p tile 2>&1 | filecheck %s
// CHECK: shape_mismatch.mlir:8:3: error: 'layout.copy': tile: the views of a copy must have the same shape, got (1024) and (32,32)
func.func @reshape(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<1024:1>, gmem>
  %b = layout.view %q : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
  // A reshaping copy has no tile common to both views.

  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<1024:1>, gmem>, !layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>
  func.return
}
