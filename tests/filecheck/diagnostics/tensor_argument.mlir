// A function argument of a tensor type (issue 33): running it said "give it with
// `--arg A=N`", which cannot give a tensor; lowering it said "cannot pass ... to a
// kernel". Both now say to take a pointer and make the view inside.
// RUN: not tilec %s --run cpu 2>&1 | filecheck %s
// RUN: not tilec %s -p default 2>&1 | filecheck %s

// CHECK: tensor_argument.mlir:[[# @LINE + 1]]:1: error: 'func.func': argument %A : !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem> is a tensor, which a program cannot be given: take a pointer (`%A: !layout.ptr<T>`) and make the view inside the function (`layout.view %A : !layout.ptr<T> -> !layout.tensor<...>`); `--arg NAME=N` gives only integer arguments and buffer sizes
func.func @copy(%A: !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>, %b: !layout.ptr<f32>) {
  %B = layout.view %b : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
  layout.copy %A, %B : !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>, !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
  func.return
}
