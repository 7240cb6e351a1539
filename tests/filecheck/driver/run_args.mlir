// `--run cpu` (and --check-equivalence) on dynamic extents: `--arg NAME=INT` gives an
// index argument (and, where the IR does not fix it, a buffer's size) on the command
// line (issue 18: the error asked for "sizes=... or a tilec.args attribute", which the
// CLI had no way to give).
// RUN: tilec %s --run cpu --arg n=15 | filecheck %s
// RUN: tilec %s -p default --check-equivalence --arg n=9 | filecheck %s --check-prefix=EQ
// RUN: not tilec %s --run cpu 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not tilec %s --run cpu --arg n 2>&1 | filecheck %s --check-prefix=BAD

// CHECK: // @copy on the CPU reference executor (seed 0): ok
// CHECK: %src: 120 x float32 (input)
// CHECK: %dst: 120 x float32 (output) {{.*}}every element written
// CHECK: %n = 15
// EQ: // @copy: equivalent after 'default'
// MISSING: run_args.mlir:[[# @LINE + 2]]:1: error: 'func.func': argument %n : index needs a value: give it with `--arg n=N` (tilec), args={'n': N} (Python) or an attribute tilec.args = {n = N : index} on @copy
// BAD: tilec: error: --arg n: expected NAME=INT, e.g. --arg n=1024
func.func @copy(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>, %n: index) {
  %a = layout.view %src(%n, %n) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,?):(?,1)>, gmem>
  %b = layout.view %dst(%n, %n) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(8,?):(?,1)>, gmem>, !layout.tensor<f32, #layout.cute<(8,?):(?,1)>, gmem>
  func.return
}
