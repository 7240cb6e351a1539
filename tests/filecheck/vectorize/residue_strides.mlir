// A dynamic stride promised modulo 32 (`layout.view {divisible, residue}`) is a multiple
// of what its modulus and residue share (`ViewOp.divisors`): a source row step of 12 mod
// 32 keeps every f32 row on a 16-byte boundary (vectors of 4), 6 mod 32 on an 8-byte one
// (vectors of 2), an odd residue on none (one element at a time). The destination's
// stride is promised a multiple of 4 (`divisible` alone). A corpus entry of the fuzzer
// (tests/fuzz/harness.py), whose copy programs state such promises too
// (tests/fuzz/generate.py `_congruences`); a step of another residue breaks the promise in
// the executor.
// RUN: tilec %s -p 'tile,distribute,vectorize' | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// RUN: not tilec %s --run cpu --arg s=1040 2>&1 | filecheck %s --check-prefix=BROKEN

// EQ: @rows_residue_12: equivalent after 'default'
// EQ: @rows_residue_6: equivalent after 'default'
// EQ: @rows_residue_odd: equivalent after 'default'
// BROKEN: error: 'layout.view': index operand 2 is 1040, not 12 modulo 32 as its `divisible` and `residue` entries promise

// CHECK-LABEL: func.func @rows_residue_12
// CHECK:         layout.load %{{.*}} {tilec.vector_note = "vector 4, {{.*}}", vector = 4 : i64}
// CHECK:         layout.store %{{.*}} {tilec.vector_note = "vector 4, {{.*}}", vector = 4 : i64}
// CUDA-LABEL:  rows_residue_12_kernel(
// CUDA:          reinterpret_cast<const f32x4*>(src
func.func @rows_residue_12(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index, %n: index, %s: index, %t: index) attributes {tilec.args = {t = 1024 : index, m = 37 : index, n = 1021 : index, s = 1036 : index}} {
  %a = layout.view %src(%m, %n, %s) {divisible = array<i64: 1, 1, 32>, residue = array<i64: 0, 0, 12>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  %b = layout.view %dst(%m, %n, %t) {divisible = array<i64: 1, 1, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @rows_residue_6
// CHECK:         layout.load %{{.*}} {tilec.vector_note = "vector 2, {{.*}}", vector = 2 : i64}
// CHECK:         layout.store %{{.*}} {tilec.vector_note = "vector 2, {{.*}}", vector = 2 : i64}
// CUDA-LABEL:  rows_residue_6_kernel(
// CUDA-NOT:      f32x4
// CUDA:          reinterpret_cast<const f32x2*>(src
func.func @rows_residue_6(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index, %n: index, %s: index, %t: index) attributes {tilec.args = {t = 1024 : index, m = 37 : index, n = 1021 : index, s = 1030 : index}} {
  %a = layout.view %src(%m, %n, %s) {divisible = array<i64: 1, 1, 32>, residue = array<i64: 0, 0, 6>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  %b = layout.view %dst(%m, %n, %t) {divisible = array<i64: 1, 1, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @rows_residue_odd
// CHECK:         layout.load %{{.*}} {tilec.vector_note = "vector 1: {{.*}}"}
// CHECK:         layout.store %{{.*}} {tilec.vector_note = "vector 1: {{.*}}"}
// CUDA-LABEL:  rows_residue_odd_kernel(
// CUDA-NOT:      reinterpret_cast
// CUDA:          }
func.func @rows_residue_odd(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index, %n: index, %s: index, %t: index) attributes {tilec.args = {t = 1024 : index, m = 37 : index, n = 1021 : index, s = 1029 : index}} {
  %a = layout.view %src(%m, %n, %s) {divisible = array<i64: 1, 1, 32>, residue = array<i64: 0, 0, 5>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  %b = layout.view %dst(%m, %n, %t) {divisible = array<i64: 1, 1, 4>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}
