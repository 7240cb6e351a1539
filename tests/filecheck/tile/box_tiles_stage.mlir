// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile' | filecheck %s
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile{tiles_stage=8}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile{tiles_stage=16}' --check-equivalence | filecheck %s --check-prefix=EQ

// The rule's phase-1 chunks of a box<tiles> with 16 lanes along a destination row
// (`_box_tile.tiles_phase2`, `TILES_STAGE8_BYTES`): 16 bytes (`width` 16 / E elements) for
// 4- and 8-byte elements and 1-byte ones converted to wider, 8 bytes for 2-byte sources.
// EQ: @odd_f32: equivalent after
// EQ: @odd_f16: equivalent after
// EQ: @bool_to_int16: equivalent after
// EQ: @odd_f64: equivalent after

// CHECK-LABEL: func.func @odd_f32
// CHECK:         layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 4 : i64, l1}
func.func @odd_f32(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(97,131):(1,97)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(97,131):(131,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(97,131):(1,97)>, gmem>, !layout.tensor<f32, #layout.cute<(97,131):(131,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @odd_f16
// CHECK:         layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 4 : i64{{(, uncommitted)?}}}
func.func @odd_f16(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(97,150):(1,97)>, gmem>
  %b = layout.view %dst : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(97,150):(150,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(97,150):(1,97)>, gmem>, !layout.tensor<f16, #layout.cute<(97,150):(150,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @bool_to_int16
// CHECK:         layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 16 : i64, l1{{(, uncommitted)?}}}
func.func @bool_to_int16(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i16, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>
  %b = layout.view %dst : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(131,300):(300,1)>, gmem>
  layout.copy %a, %b {convert = "uint8->int16"} : !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>, !layout.tensor<i16, #layout.cute<(131,300):(300,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @odd_f64
// CHECK:         layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 2 : i64, l1}
func.func @odd_f64(%src: !layout.ptr<f64, align 16>, %dst: !layout.ptr<f64, align 16>) {
  %a = layout.view %src : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(67,75):(1,67)>, gmem>
  %b = layout.view %dst : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(67,75):(75,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f64, #layout.cute<(67,75):(1,67)>, gmem>, !layout.tensor<f64, #layout.cute<(67,75):(75,1)>, gmem>
  func.return
}
