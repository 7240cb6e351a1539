// cuda.opaque: round trip of index and 32/64-bit integer operands, and the verifier's
// refusal of other widths.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>/dev/null | filecheck %s
// RUN: not tilec %s --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=ERR
// CHECK-LABEL: func.func @round_trip
// CHECK:         %{{.*}} = cuda.opaque %i : index
// CHECK:         %{{.*}} = cuda.opaque %x : i32
// CHECK:         %{{.*}} = cuda.opaque %y : i64
// ERR:         error: 'cuda.opaque' takes 32- or 64-bit integers or index, got i8
func.func @round_trip(%i: index, %x: i32, %y: i64) {
  %a = cuda.opaque %i : index
  %b = cuda.opaque %x : i32
  %c = cuda.opaque %y : i64
  func.return
}

// -----

func.func @narrow(%x: i8) {
  // expected-error @+1 {{'cuda.opaque' takes 32- or 64-bit integers or index, got i8}}
  %a = cuda.opaque %x : i8
  func.return
}
