// Command-line mistakes that used to be ignored are errors (exit 1, one line): an --arg
// naming no argument, --check-each or --arg without what they modify, a pipeline given
// twice (as mlir-opt, which refuses a repeated --pass-pipeline); MLIR's
// --pass-pipeline='builtin.module(...)' spelling is the same as -p.
// RUN: not tilec %s --run cpu --arg nosuch=4 2>&1 | filecheck %s --check-prefix=ARG
// RUN: not tilec %s --check-each 2>&1 | filecheck %s --check-prefix=EACH
// RUN: not tilec %s --arg n=4 2>&1 | filecheck %s --check-prefix=ALONE
// RUN: not tilec %s --run cpu --check 2>&1 | filecheck %s --check-prefix=CHECK-GPU
// RUN: not tilec %s -p tile -p distribute 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not tilec %s --pass-pipeline='tile,distribute' 2>&1 | filecheck %s --check-prefix=SPELLING
// RUN: tilec %s --pass-pipeline='builtin.module(tile{tile=32,32},distribute)' > %t.mlir
// RUN: tilec %s -p 'tile{tile=32,32},distribute' | diff - %t.mlir
// RUN: tilec %s --pass-pipeline='builtin.module(default)' --check-equivalence | filecheck %s --check-prefix=EQUIV

// ARG: tilec: error: --arg nosuch=...: no function has an argument %nosuch (arguments: %a, %b)
// EACH: tilec: error: --check-each compares after every pass of --check-equivalence: add --check-equivalence
// ALONE: tilec: error: --arg gives the inputs of --run or --check-equivalence: add one of them
// CHECK-GPU: tilec: error: --check compares a --run gpu with the CPU reference executor: add --run gpu
// TWICE: tilec: error: the pipeline is given 2 times (-p 'tile', -p 'distribute'): give it once, its passes separated by commas, e.g. -p 'tile,distribute'
// SPELLING: tilec: error: --pass-pipeline 'tile,distribute': expected 'builtin.module(PASSES)'
// EQUIV: // @copy: equivalent after 'default'
!A = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
func.func @copy(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !A
  %B = layout.view %b : !layout.ptr<f32> -> !A
  layout.copy %A, %B : !A, !A
  func.return
}
