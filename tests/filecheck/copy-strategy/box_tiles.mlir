// RUN: tilec %s -p copy-strategy | filecheck %s
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=2}' | filecheck %s --check-prefix=TWO
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8}' | filecheck %s --check-prefix=WIDE
// RUN: tilec %s -p 'copy-strategy{box=never}' | filecheck %s --check-prefix=NEVER
// RUN: tilec %s -p copy-strategy --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8}' --check-equivalence | filecheck %s --check-prefix=EQ
// The copy-strategy pass chooses box<tiles> for copies whose source-contiguous mode W
// and destination-contiguous mode D are both long, of 1- to 4-byte elements
// (tiles_bytes=N: up to N bytes) without conversion, where the tiled copy could not move
// 16-byte vectors on both sides (a row pitch or a pointer not a multiple of 16 bytes)
// and both pointers allow them once aligned down (aligned to 16, or an aligned pointer
// moved by its misalignment). Results never change.

// EQ: @odd_int8: equivalent after
// EQ: @odd_f16_misaligned: equivalent after
// EQ: @odd_f32: equivalent after
// EQ: @odd_f64: equivalent after
// EQ: @aligned_int8: equivalent after
// EQ: @unaligned_pointer: equivalent after
// EQ: @convert_uint8_int16: equivalent after
// EQ: @convert_f32_f64: equivalent after
// EQ: @convert_int8_f32: equivalent after

// A 300 x 131 int8 transpose: rows of 131 and 300 bytes.
// CHECK-LABEL: func.func @odd_int8
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<box<tiles>>}
// NEVER-LABEL: func.func @odd_int8
// NEVER-NOT:     strategy
func.func @odd_int8(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(131,300):(300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>, !layout.tensor<i8, #layout.cute<(131,300):(300,1)>, gmem>
  func.return
}

// f16, both pointers 16-byte aligned pointers moved by run-time misalignments (as
// tilec.copy_ states them), run-time strides.
// CHECK-LABEL: func.func @odd_f16_misaligned
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<box<tiles>>}
// TWO-LABEL: func.func @odd_f16_misaligned
// TWO:           layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<box<tiles>>}
// TWO-LABEL: func.func @odd_f32
// TWO-NOT:       strategy
func.func @odd_f16_misaligned(%s0: !layout.ptr<f16, align 16>, %d0: !layout.ptr<f16, align 16>, %smis: index, %dmis: index, %m: index, %n: index) attributes {tilec.args = {smis = 3 : index, dmis = 5 : index, m = 97 : index, n = 150 : index, s0 = 14600 : index, d0 = 14600 : index}} {
  %src = layout.addptr %s0, %smis : !layout.ptr<f16, align 16>, index
  %dst = layout.addptr %d0, %dmis : !layout.ptr<f16, align 16>, index
  %a = layout.view %src(%m, %n, %m) : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(?,?):(1,?)>, gmem>
  %b = layout.view %dst(%m, %n, %n) : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(?,?):(1,?)>, gmem>, !layout.tensor<f16, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}

// f32: box<tiles> with tiles_bytes=4 or more (the default).
// CHECK-LABEL: func.func @odd_f32
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<box<tiles>>}
// WIDE-LABEL: func.func @odd_f32
// WIDE:          layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<box<tiles>>}
func.func @odd_f32(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(77,131):(1,77)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(77,131):(131,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(77,131):(1,77)>, gmem>, !layout.tensor<f32, #layout.cute<(77,131):(131,1)>, gmem>
  func.return
}

// f64: the tiled copy's (element accesses) unless tiles_bytes=8.
// CHECK-LABEL: func.func @odd_f64
// CHECK-NOT:     strategy
// WIDE-LABEL: func.func @odd_f64
// WIDE:          layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<box<tiles>>}
func.func @odd_f64(%src: !layout.ptr<f64, align 16>, %dst: !layout.ptr<f64, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(77,131):(1,77)>, gmem>
  %b = layout.view %dst : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(77,131):(131,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f64, #layout.cute<(77,131):(1,77)>, gmem>, !layout.tensor<f64, #layout.cute<(77,131):(131,1)>, gmem>
  func.return
}

// Rows of 128 and 256 bytes, aligned: the tiled copy moves 16-byte vectors.
// CHECK-LABEL: func.func @aligned_int8
// CHECK-NOT:     strategy
func.func @aligned_int8(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(256,128):(1,256)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(256,128):(128,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(256,128):(1,256)>, gmem>, !layout.tensor<i8, #layout.cute<(256,128):(128,1)>, gmem>
  func.return
}

// A pointer of unknown alignment (not an aligned pointer moved by an offset): no
// 16-byte vectors whatever the box, so no box.
// CHECK-LABEL: func.func @unaligned_pointer
// CHECK-NOT:     strategy
func.func @unaligned_pointer(%src: !layout.ptr<i8>, %dst: !layout.ptr<i8, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(131,300):(300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>, !layout.tensor<i8, #layout.cute<(131,300):(300,1)>, gmem>
  func.return
}

// A converting transpose of 1-byte source elements (uint8 -> int16): box<tiles>, its
// phase 2 converting each element (`_copy_cost.TILES_CONVERT_BYTES`: sources of 1 or 2
// bytes).
// CHECK-LABEL: func.func @convert_uint8_int16
// CHECK:         layout.copy %{{.*}}, %{{.*}} {convert = "uint8->int16", strategy = #layout.copy_strategy<box<tiles>>}
// TWO-LABEL: func.func @convert_uint8_int16
// TWO:           layout.copy %{{.*}}, %{{.*}} {convert = "uint8->int16", strategy = #layout.copy_strategy<box<tiles>>}
// NEVER-LABEL: func.func @convert_uint8_int16
// NEVER-NOT:     strategy
func.func @convert_uint8_int16(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i16, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>
  %b = layout.view %dst : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(131,300):(300,1)>, gmem>
  layout.copy %a, %b {convert = "uint8->int16"} : !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>, !layout.tensor<i16, #layout.cute<(131,300):(300,1)>, gmem>
  func.return
}

// A converting transpose of 4-byte source elements (f32 -> f64): the tiled copy's (its
// misaligned tile fills its byte budget); tiles_bytes=8 asks every size the strategy
// takes (an A/B).
// CHECK-LABEL: func.func @convert_f32_f64
// CHECK-NOT:     strategy
// WIDE-LABEL: func.func @convert_f32_f64
// WIDE:          layout.copy %{{.*}}, %{{.*}} {convert = "float32->float64", strategy = #layout.copy_strategy<box<tiles>>}
func.func @convert_f32_f64(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f64, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(77,131):(1,77)>, gmem>
  %b = layout.view %dst : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(77,131):(131,1)>, gmem>
  layout.copy %a, %b {convert = "float32->float64"} : !layout.tensor<f32, #layout.cute<(77,131):(1,77)>, gmem>, !layout.tensor<f64, #layout.cute<(77,131):(131,1)>, gmem>
  func.return
}

// A converting transpose into elements more than twice as wide (int8 -> f32): the tiled
// copy's (`_copy_cost.TILES_CONVERT_WIDENING`).
// CHECK-LABEL: func.func @convert_int8_f32
// CHECK-NOT:     strategy
// WIDE-LABEL: func.func @convert_int8_f32
// WIDE:          layout.copy %{{.*}}, %{{.*}} {convert = "int8->float32", strategy = #layout.copy_strategy<box<tiles>>}
func.func @convert_int8_f32(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<f32, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(131,300):(300,1)>, gmem>
  layout.copy %a, %b {convert = "int8->float32"} : !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>, !layout.tensor<f32, #layout.cute<(131,300):(300,1)>, gmem>
  func.return
}
