// cuda.div_approx_group: round trip of groups of two and four quotients (numerators,
// then divisors), and the verifier's refusal of other counts.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>/dev/null | filecheck %s
// RUN: not tilec %s --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=ERR
// CHECK-LABEL: func.func @round_trip
// CHECK:         %q, %q_1 = cuda.div_approx_group %x0, %x1, %d0, %d1 : f32, f32, f32, f32 -> f32, f32
// CHECK:         %r, %r_1, %r_2, %r_3 = cuda.div_approx_group %x0, %x1, %x2, %x3, %d0, %d1, %d2, %d3 : f32, f32, f32, f32, f32, f32, f32, f32 -> f32, f32, f32, f32
// ERR:         error: 'cuda.div_approx_group' takes G numerators then G divisors and gives G quotients, G in (2, 4); got 6 operands and 3 results
func.func @round_trip(%x0: f32, %x1: f32, %x2: f32, %x3: f32, %d0: f32, %d1: f32, %d2: f32, %d3: f32) {
  %q:2 = cuda.div_approx_group %x0, %x1, %d0, %d1 : f32, f32, f32, f32 -> f32, f32
  %r:4 = cuda.div_approx_group %x0, %x1, %x2, %x3, %d0, %d1, %d2, %d3 : f32, f32, f32, f32, f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @three(%x0: f32, %x1: f32, %x2: f32, %d0: f32, %d1: f32, %d2: f32) {
  // expected-error @+1 {{'cuda.div_approx_group' takes G numerators then G divisors and gives G quotients, G in (2, 4); got 6 operands and 3 results}}
  %q:3 = cuda.div_approx_group %x0, %x1, %x2, %d0, %d1, %d2 : f32, f32, f32, f32, f32, f32 -> f32, f32, f32
  func.return
}
