// cuda.ex2_fma: round trip (2^x in f32 on the FMA pipe, one operand, one result).
// RUN: tilec %s | filecheck %s
// CHECK-LABEL: func.func @round_trip
// CHECK:         %e = cuda.ex2_fma %x : f32
func.func @round_trip(%x: f32) {
  %e = cuda.ex2_fma %x : f32
  func.return
}
