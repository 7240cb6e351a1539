// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=265}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=265}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_issue=393}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_grain=32 tiles_issue=265}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_grain=32 tiles_issue=777}' --check-equivalence | filecheck %s --check-prefix=EQ
// `tile{tiles_issue=B}` bit 256 (`_box_tile.TILES_ISSUE`) on int8 box<tiles> transposes: phase 2's
// element-wise path (a destination chunk the row's ends cut) reads element t at the whole
// chunk's box address t (the kept run addresses plus the chunk's step), one `scf.if` an
// element, no element loop and no box address of its own. @rotated's steps (521 x 297 = 1 mod
// 8) rotate the chunk's loads: its kept address t holds element (t + 4 rot) mod 16 and the edge
// stores it there. Results never change (both, with bits 128 and 2, and at 32-byte grains).
// EQ: @transpose: equivalent after
// EQ: @rotated: equivalent after

// CHECK-LABEL: func.func @transpose
// CHECK:         layout.write %{{[0-9]+}}, %{{[0-9]+}}[%{{[0-9]+}}] {width = 16 : i64}
// CHECK-NEXT:  } else {
// CHECK-NEXT:    %[[A:[0-9]+]] = arith.addi %{{[0-9]+}}, %[[S:[0-9]+]] : index
// CHECK:         scf.if
// CHECK-NEXT:      %{{[0-9]+}} = layout.read %{{[0-9]+}}[%[[A]]]
// CHECK-NOT:     scf.for
// CHECK:         func.return
// CHECK-LABEL: func.func @rotated
// CHECK:         layout.write %{{[0-9]+}}, %{{[0-9]+}}[%{{[0-9]+}}] {width = 16 : i64}
// CHECK-NEXT:  } else {
// CHECK-NOT:     scf.for
// CHECK:         func.return
func.func @transpose(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(520,300):(1,520)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(520,300):(300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(520,300):(1,520)>, gmem>, !layout.tensor<i8, #layout.cute<(520,300):(300,1)>, gmem>
  func.return
}
func.func @rotated(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(521,297):(1,521)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(521,297):(297,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(521,297):(1,521)>, gmem>, !layout.tensor<i8, #layout.cute<(521,297):(297,1)>, gmem>
  func.return
}
