// An iterator whose origin the pass cannot see (a function argument): located error, exit 1.
// RUN: not tilec %s -p expand-iterators 2>&1 | filecheck %s

// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: 'layout.iter_get': the iterator it does not come from layout.tiled_iterator or layout.buffer_iterator in this function
!T = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
func.func @from_argument(%it: !layout.iter<!T>) {
  %t = layout.iter_get %it : !layout.iter<!T>
  func.return
}
