// A view op whose result type is left out must carry what inference needs, and the
// algebra must accept it: otherwise a located error, exit 1 (issue 18).
// RUN: not tilec %s 2>&1 | filecheck %s

// CHECK: inferred_view_type.mlir:[[# @LINE + 3]]:25: error: layout.divide needs tiler
func.func @no_tiler(%p: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  %z = layout.divide %a {kind = "zipped"} : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  func.return
}
