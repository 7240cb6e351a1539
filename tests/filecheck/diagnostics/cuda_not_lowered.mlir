// `-t cuda` on IR that was never lowered fails at the first `layout` op and names the
// pipeline to add (it printed an empty file and exited 0).
// RUN: not tilec %s -t cuda 2>&1 | filecheck %s
// RUN: not tilec %s -p tile,distribute -t cuda 2>&1 | filecheck %s --check-prefix=PARTLY
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=LOWERED

// CHECK: cuda_not_lowered.mlir:[[# @LINE + 5]]:3: error: 'layout.view' is not lowered: `-t cuda` prints GPU-level IR, so run the passes first: add `-p default` (the whole pipeline), or end your pipeline with `lower-to-gpu`
// PARTLY: error: 'layout.view' is not lowered
// LOWERED: __global__
!A = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
func.func @copy(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !A
  %B = layout.view %b : !layout.ptr<f32> -> !A
  layout.copy %A, %B : !A, !A
  func.return
}
