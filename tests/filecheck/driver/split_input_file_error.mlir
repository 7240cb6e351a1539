// An error in a later chunk has its line in the whole file.
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s
// CHECK: split_input_file_error.mlir:[[# @LINE + 9]]:3: error: 'layout.view': element types disagree: pointer to f16, view of f32
func.func @ok(%p: !layout.ptr<f32>) {
  func.return
}

// -----


func.func @bad(%p: !layout.ptr<f16>) {
  %a = layout.view %p : !layout.ptr<f16> -> !layout.tensor<f32, #layout.cute<8:1>, gmem>
  func.return
}
