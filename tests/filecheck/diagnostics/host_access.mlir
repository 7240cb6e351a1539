// Element access outside a `layout.launch` (issue 33): it said "run tile/distribute
// first", although `-p default` runs them and they launch only whole-tensor copies.
// Now it says what is needed (a host-level copy without `tile`: host_copy.mlir).
// RUN: not tilec %s -p default 2>&1 | filecheck %s

// CHECK: host_access.mlir:[[# @LINE + 6]]:3: error: 'layout.write' outside a layout.launch cannot be lowered to the GPU level: the passes put only whole-tensor `layout.copy` ops into launches; write this op inside a `layout.launch` (every thread of it runs the op)
!A = !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
func.func @host(%a: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !A
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f32
  layout.write %x, %A[%c0, %c0] : f32, !A
  func.return
}
