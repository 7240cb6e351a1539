// RUN: tilec %s -p 'copy-strategy{realign=always},tile' | filecheck %s
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=64}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s --check-prefix=AUTO
// The realign strategy over 1-byte rows read at a step of 2 (`realign=always`:
// `_copy_cost.REALIGN_STEPS`): 8-byte destination chunks, each from the 16-byte source
// window its bytes span (two aligned 16-byte loads, a funnel shift by the window's shift),
// a second funnel shift (by 0) to 16-bit pairs, their low bytes (a truncation) stored.
// Results never change.

// EQ: @step2: equivalent after

// CHECK-LABEL: func.func @step2
// CHECK:         layout.ptr_load %{{.*}} : tensor<{{[0-9]+}}x16x!layout.ptr<i8>
// CHECK:         layout.funnel_shift %{{.*}} : tensor<{{[0-9]+}}x16xi8
// CHECK:         layout.funnel_shift %{{.*}} -> tensor<{{[0-9]+}}x8xi16
// CHECK:         layout.trunci
// CHECK:         layout.ptr_store
// AUTO-LABEL: func.func @step2
// AUTO-NOT:      layout.funnel_shift
func.func @step2(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 5 : index, dmis = 3 : index, src = 1200 : index, dst = 512 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<i8, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i8, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(9,45):(117,2)>, gmem>
  %b = layout.view %dp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(9,45):(47,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(9,45):(117,2)>, gmem>, !layout.tensor<i8, #layout.cute<(9,45):(47,1)>, gmem>
  func.return
}
