// cuda.byte_perm: round trip (four bytes picked from two 32-bit words by a constant
// selector), and the verifier's refusal of a selector nibble past 7.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>/dev/null | filecheck %s
// RUN: not tilec %s --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=ERR
// CHECK-LABEL: func.func @round_trip
// CHECK:         %{{.*}} = cuda.byte_perm %x, %y, 21520 : i32
// CHECK:         %{{.*}} = cuda.byte_perm %y, %x, 0 : i32
// ERR:         error: 'cuda.byte_perm' selector must be four nibbles of at most 7 (0 to 0x7777), got 0x5418
func.func @round_trip(%x: i32, %y: i32) {
  %a = cuda.byte_perm %x, %y, 21520 : i32
  %b = cuda.byte_perm %y, %x, 0 : i32
  func.return
}

// -----

func.func @bad_selector(%x: i32, %y: i32) {
  // expected-error @+1 {{'cuda.byte_perm' selector must be four nibbles of at most 7 (0 to 0x7777), got 0x5418}}
  %a = cuda.byte_perm %x, %y, 21528 : i32
  func.return
}
