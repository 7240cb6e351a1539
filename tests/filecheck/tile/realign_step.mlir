// RUN: tilec %s -p 'copy-strategy{realign=always},tile' | filecheck %s
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=64}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s --check-prefix=AUTO
// The realign strategy over integer rows read at a step of 2 (`realign=always`:
// `_copy_cost.REALIGN_STEPS`): 16-byte destination chunks, each from the 32-byte source
// window its elements span (three aligned 16-byte loads, two funnel shifts by the
// window's shift sharing the middle vector), each half shifted by 0 to pairs of twice the
// element size, their low halves (a truncation) stored as the chunk's two halves.
// Results never change.

// EQ: @step2: equivalent after
// EQ: @step2_i16: equivalent after

// CHECK-LABEL: func.func @step2
// CHECK:         layout.ptr_load %{{.*}} : tensor<{{[0-9]+}}x16x!layout.ptr<i8>
// CHECK:         layout.ptr_load %{{.*}} : tensor<{{[0-9]+}}x16x!layout.ptr<i8>
// CHECK:         layout.ptr_load %{{.*}} : tensor<{{[0-9]+}}x16x!layout.ptr<i8>
// CHECK:         layout.funnel_shift %{{.*}} : tensor<{{[0-9]+}}x16xi8
// CHECK:         layout.funnel_shift %{{.*}} : tensor<{{[0-9]+}}x16xi8
// CHECK:         layout.funnel_shift %{{.*}} -> tensor<{{[0-9]+}}x8xi16
// CHECK:         layout.trunci
// CHECK:         layout.funnel_shift %{{.*}} -> tensor<{{[0-9]+}}x8xi16
// CHECK:         layout.trunci
// CHECK:         layout.ptr_store
// CHECK:         layout.ptr_store
// AUTO-LABEL: func.func @step2
func.func @step2(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 5 : index, dmis = 3 : index, src = 1200 : index, dst = 512 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<i8, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i8, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(9,45):(117,2)>, gmem>
  %b = layout.view %dp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(9,45):(47,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(9,45):(117,2)>, gmem>, !layout.tensor<i8, #layout.cute<(9,45):(47,1)>, gmem>
  func.return
}

// CHECK-LABEL: func.func @step2_i16
// CHECK:         layout.ptr_load %{{.*}} : tensor<{{[0-9]+}}x8x!layout.ptr<i16>
// CHECK:         layout.funnel_shift %{{.*}} : tensor<{{[0-9]+}}x8xi16
// CHECK:         layout.funnel_shift %{{.*}} : tensor<{{[0-9]+}}x8xi16
// CHECK:         layout.funnel_shift %{{.*}} -> tensor<{{[0-9]+}}x4xi32
// CHECK:         layout.trunci %{{.*}} to tensor<{{[0-9]+}}x4xi16
// CHECK:         layout.ptr_store
// CHECK:         layout.ptr_store
// AUTO-LABEL: func.func @step2_i16
func.func @step2_i16(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<i16, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 5 : index, src = 1200 : index, dst = 512 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<i16, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i16, align 16>, index
  %a = layout.view %sp : !layout.ptr<i16> -> !layout.tensor<i16, #layout.cute<(7,31):(93,2)>, gmem>
  %b = layout.view %dp : !layout.ptr<i16> -> !layout.tensor<i16, #layout.cute<(7,31):(33,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i16, #layout.cute<(7,31):(93,2)>, gmem>, !layout.tensor<i16, #layout.cute<(7,31):(33,1)>, gmem>
  func.return
}

// Rows longer than 64 elements (`_copy_cost.STEP2_SHORT_ROW`): the rule's too.
// EQ: @step2_long: equivalent after
// CHECK-LABEL: func.func @step2_long
// CHECK:         layout.launch {{.*}} threads(256)
// CHECK:         layout.funnel_shift
// AUTO-LABEL: func.func @step2_long
// AUTO:         layout.launch {{.*}} threads(256)
// AUTO:         layout.funnel_shift
func.func @step2_long(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 11 : index, dmis = 0 : index, src = 1200 : index, dst = 512 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<i8, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i8, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(3,150):(301,2)>, gmem>
  %b = layout.view %dp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(3,150):(150,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(3,150):(301,2)>, gmem>, !layout.tensor<i8, #layout.cute<(3,150):(150,1)>, gmem>
  func.return
}
