// layout.copy's strategy (#layout.copy_strategy<tma | async | simt | gather | realign | box<flat|rows|cols>>, CuTe's TiledCopy as
// a value): round trip, and the verifier's memory-space rules.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>/dev/null | filecheck %s
// RUN: not tilec %s --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @strategies
// CHECK: layout.copy %g, %s {strategy = #layout.copy_strategy<tma>} : !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>, !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
// CHECK: layout.copy %g, %s {strategy = #layout.copy_strategy<async>}
// CHECK: layout.copy %s, %g {strategy = #layout.copy_strategy<simt>}
// CHECK: layout.copy %s, %g {strategy = #layout.copy_strategy<tma>}
// CHECK: layout.copy %g, %h {strategy = #layout.copy_strategy<simt>, convert = "float32->float16"}
// CHECK: layout.copy %g, %h {strategy = #layout.copy_strategy<gather>, convert = "float32->float16"}
// CHECK: layout.copy %g, %g {strategy = #layout.copy_strategy<realign>} : !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>, !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
// CHECK: layout.copy %b, %c {strategy = #layout.copy_strategy<box<flat>>} : !layout.tensor<i8, #layout.cute<(7,300):(1,7)>, gmem>, !layout.tensor<i8, #layout.cute<(7,300):(300,1)>, gmem>
// CHECK: layout.copy %b, %c {strategy = #layout.copy_strategy<box<rows>>}
// CHECK: layout.copy %b, %c {strategy = #layout.copy_strategy<box<cols>>}
// ERR: error: 'layout.copy': copy strategy tma copies between global and shared memory, got gmem -> gmem
!G = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
!B = !layout.tensor<i8, #layout.cute<(7,300):(1,7)>, gmem>
!C = !layout.tensor<i8, #layout.cute<(7,300):(300,1)>, gmem>
func.func @strategies(%g: !G, %h: !H, %s: !S, %b: !B, %c: !C) {
  layout.copy %g, %s {strategy = #layout.copy_strategy<tma>} : !G, !S
  layout.copy %g, %s {strategy = #layout.copy_strategy<async>} : !G, !S
  layout.copy %s, %g {strategy = #layout.copy_strategy<simt>} : !S, !G
  layout.copy %s, %g {strategy = #layout.copy_strategy<tma>} : !S, !G
  layout.copy %g, %h {strategy = #layout.copy_strategy<simt>, convert = "float32->float16"} : !G, !H
  layout.copy %g, %h {strategy = #layout.copy_strategy<gather>, convert = "float32->float16"} : !G, !H
  layout.copy %g, %g {strategy = #layout.copy_strategy<realign>} : !G, !G
  layout.copy %b, %c {strategy = #layout.copy_strategy<box<flat>>} : !B, !C
  layout.copy %b, %c {strategy = #layout.copy_strategy<box<rows>>} : !B, !C
  layout.copy %b, %c {strategy = #layout.copy_strategy<box<cols>>} : !B, !C
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
func.func @tma_gmem_to_gmem(%a: !G, %b: !G) {
  // expected-error @+1 {{copy strategy tma copies between global and shared memory, got gmem -> gmem}}
  layout.copy %a, %b {strategy = #layout.copy_strategy<tma>} : !G, !G
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
func.func @async_shared_to_global(%s: !S, %g: !G) {
  // expected-error @+1 {{copy strategy async (cp.async) copies global to shared memory, got smem -> gmem}}
  layout.copy %s, %g {strategy = #layout.copy_strategy<async>} : !S, !G
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, smem>
func.func @tma_converting(%g: !G, %h: !H) {
  // expected-error @+1 {{copy strategy tma moves bytes as they are: a converting copy is simt or box<tiles>}}
  layout.copy %g, %h {strategy = #layout.copy_strategy<tma>, convert = "float32->float16"} : !G, !H
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
func.func @unknown(%g: !G, %s: !S) {
  // expected-error @+1 {{unknown copy strategy 'bulk': expected one of tma, async, simt, gather, realign, box}}
  layout.copy %g, %s {strategy = #layout.copy_strategy<bulk>} : !G, !S
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
func.func @gather_to_shared(%g: !G, %s: !S) {
  // expected-error @+1 {{copy strategy gather is a whole-tensor copy between global views, outside any launch}}
  layout.copy %g, %s {strategy = #layout.copy_strategy<gather>} : !G, !S
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
func.func @gather_in_a_launch(%a: !G, %b: !G) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %t: index):
    // expected-error @+1 {{copy strategy gather is a whole-tensor copy between global views, outside any launch}}
    layout.copy %a, %b {strategy = #layout.copy_strategy<gather>} : !G, !G
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
func.func @realign_to_shared(%g: !G, %s: !S) {
  // expected-error @+1 {{copy strategy realign is a whole-tensor copy between global views, outside any launch}}
  layout.copy %g, %s {strategy = #layout.copy_strategy<realign>} : !G, !S
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
func.func @realign_in_a_launch(%a: !G, %b: !G) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %t: index):
    // expected-error @+1 {{copy strategy realign is a whole-tensor copy between global views, outside any launch}}
    layout.copy %a, %b {strategy = #layout.copy_strategy<realign>} : !G, !G
  }
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(16,16):(16,1)>, gmem>
func.func @realign_converting(%g: !G, %h: !H) {
  // expected-error @+1 {{copy strategy realign moves bytes as they are: a converting copy is simt or box<tiles>}}
  layout.copy %g, %h {strategy = #layout.copy_strategy<realign>, convert = "float32->float16"} : !G, !H
  func.return
}

// -----

!G = !layout.tensor<i8, #layout.cute<(16,16):(16,1)>, gmem>
func.func @box_unknown_flavour(%a: !G, %b: !G) {
  // expected-error @+1 {{unknown box flavour 'diagonal': expected one of flat, rows, cols}}
  layout.copy %a, %b {strategy = #layout.copy_strategy<box<diagonal>>} : !G, !G
  func.return
}

// -----

!G = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
func.func @box_four_bytes(%a: !G, %b: !G) {
  // expected-error @+1 {{copy strategy box copies 1-byte elements}}
  layout.copy %a, %b {strategy = #layout.copy_strategy<box<flat>>} : !G, !G
  func.return
}

// -----

!G = !layout.tensor<i8, #layout.cute<(16,16):(16,1)>, gmem>
!S = !layout.tensor<i8, #layout.cute<(16,16):(16,1)>, smem>
func.func @box_to_shared(%g: !G, %s: !S) {
  // expected-error @+1 {{copy strategy box is a whole-tensor copy between global views, outside any launch}}
  layout.copy %g, %s {strategy = #layout.copy_strategy<box<cols>>} : !G, !S
  func.return
}
