// A view op whose result type is left out: when the algebra refuses the source and the
// properties, the parser says why, at the op, exit 1 (issue 18).
// RUN: not tilec %s 2>&1 | filecheck %s

// CHECK: inferred_view_type_algebra.mlir:[[# @LINE + 3]]:28: error: layout.vectorize: no result type follows from !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>: vector extent 3 does not divide the mode 64:64
func.func @bad_vector(%p: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  %v = layout.vectorize %a {vector = array<i64: 3, 4>} : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  func.return
}
