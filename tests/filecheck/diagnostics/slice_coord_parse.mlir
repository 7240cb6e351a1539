// A nested slice coordinate that is not closed (issue 18: nested coordinates gave
// "Expected integer literal" before they were supported): the parser names what it
// expected, at the token, exit 1.
// RUN: not tilec %s 2>&1 | filecheck %s

// CHECK: slice_coord_parse.mlir:[[# @LINE + 3]]:29: error: Expected ',' or ')' in a nested slice coordinate
!A = !layout.tensor<f32, #layout.cute<((3,2),(2,5,2)):((4,1),(2,13,100))>, gmem>
func.func @f(%t: !A) {
  %r = layout.slice %t[(_, 1] : !A -> !A
  func.return
}
