// A whole-tensor copy lowered without `tile`: the error names the pass that puts it
// into a launch, and that `-p default` runs it.
// RUN: not tilec %s -p lower-to-gpu 2>&1 | filecheck %s

// CHECK: host_copy.mlir:[[# @LINE + 5]]:3: error: 'layout.copy' outside a layout.launch cannot be lowered to the GPU level: run `tile` first (`-p default` runs it), which puts whole-tensor copies into launches
!A = !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
func.func @copy(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !A
  %B = layout.view %b : !layout.ptr<f32> -> !A
  layout.copy %A, %B : !A, !A
  func.return
}
