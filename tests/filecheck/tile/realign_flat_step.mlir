// RUN: tilec %s -p 'copy-strategy{realign=always},tile{realign_flat=1}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=32 realign_flat=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=32 realign_flat=1 magic64=1}' --check-equivalence --seed 3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=64 realign_flat=0 magic64=1}' --check-equivalence --seed 5 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=64 realign_flat=0 magic64=1}' | filecheck %s --check-prefix=ROW64
// The realign strategy's flat form over rows read at a step of 2 (1- and 2-byte integers,
// short rows: the strided set's 07 is int8 rows of 56 at a pitch of 117, 43 int16 rows of
// 31): one aligned 16-byte chunk of the compact destination a thread, from its row's
// 32-byte source window and the next row's (three aligned loads and two funnel shifts
// each, the halves to pairs truncated to their low halves), the row chosen per element,
// the two 8-byte halves stored whole. The next row's coordinates come from the row's by
// a carry (no second division). `magic64=1`: 64-bit ids (run-time extents, no promise)
// divided as multiplications, and the row form's element tests in 32 bits (bounds clamped
// to the chunk, truncated): @rows_dyn (int16 rows read at a step of 1) and @pitch_dyn
// (int64 rows of 5 at a pitch of 10: 8-byte chunks). Results never change.

// EQ: @step2_flat: equivalent after
// EQ: @step2_flat_i16: equivalent after
// EQ: @step2_flat_dyn: equivalent after
// EQ: @rows_dyn: equivalent after
// EQ: @pitch_dyn: equivalent after

// CHECK-LABEL: func.func @step2_flat
// CHECK-COUNT-6: layout.ptr_load
// CHECK:         layout.select
// CHECK:         layout.select
// CHECK:         layout.ptr_store
// CHECK:         layout.ptr_store
// CHECK-LABEL: func.func @step2_flat_i16
// CHECK-COUNT-6: layout.ptr_load
// CHECK-LABEL: func.func @step2_flat_dyn
// CHECK-COUNT-6: layout.ptr_load
// ROW64-LABEL: func.func @rows_dyn
// ROW64:         arith.mului_extended
// ROW64:         arith.minsi
// ROW64:         layout.trunci
// ROW64:         layout.ptr_store
func.func @step2_flat(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 9 : index, dmis = 5 : index, src = 4000 : index, dst = 1200 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<i8, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i8, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(3,5,21):(1020,117,2)>, gmem>
  %b = layout.view %dp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(3,5,21):(105,21,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(3,5,21):(1020,117,2)>, gmem>, !layout.tensor<i8, #layout.cute<(3,5,21):(105,21,1)>, gmem>
  func.return
}
func.func @step2_flat_i16(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<i16, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 6 : index, src = 2000 : index, dst = 600 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<i16, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i16, align 16>, index
  %a = layout.view %sp : !layout.ptr<i16> -> !layout.tensor<i16, #layout.cute<(2,4,13):(600,93,2)>, gmem>
  %b = layout.view %dp : !layout.ptr<i16> -> !layout.tensor<i16, #layout.cute<(2,4,13):(52,13,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i16, #layout.cute<(2,4,13):(600,93,2)>, gmem>, !layout.tensor<i16, #layout.cute<(2,4,13):(52,13,1)>, gmem>
  func.return
}
func.func @step2_flat_dyn(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %n0: index, %n1: index, %n2: index, %ss0: index, %ss1: index, %smis: index, %dmis: index) attributes {tilec.args = {n0 = 3 : index, n1 = 7 : index, n2 = 19 : index, ss0 = 830 : index, ss1 = 117 : index, smis = 13 : index, dmis = 3 : index, src = 4000 : index, dst = 1200 : index}} {
  %0 = arith.muli %n1, %n2 : index
  %1 = layout.addptr %src, %smis : !layout.ptr<i8, align 16>, index
  %2 = layout.addptr %dst, %dmis : !layout.ptr<i8, align 16>, index
  %a = layout.view %1(%n0, %n1, %n2, %ss0, %ss1) {divisible = array<i64: 1, 1, 19, 1, 1>, at_most = array<i64: 0, 0, 19, 0, 0>} : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(?,?,?):(?,?,2)>, gmem>
  %b = layout.view %2(%n0, %n1, %n2, %0, %n2) {divisible = array<i64: 1, 1, 19, 1, 1>, at_most = array<i64: 0, 0, 19, 0, 0>} : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(?,?,?):(?,?,2)>, gmem>, !layout.tensor<i8, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  func.return
}
func.func @rows_dyn(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<i16, align 16>, %n0: index, %n1: index, %ss0: index, %ds0: index, %smis: index, %dmis: index) attributes {tilec.args = {n0 = 9 : index, n1 = 37 : index, ss0 = 41 : index, ds0 = 39 : index, smis = 3 : index, dmis = 5 : index, src = 512 : index, dst = 512 : index}} {
  %1 = layout.addptr %src, %smis : !layout.ptr<i16, align 16>, index
  %2 = layout.addptr %dst, %dmis : !layout.ptr<i16, align 16>, index
  %a = layout.view %1(%n0, %n1, %ss0) : !layout.ptr<i16> -> !layout.tensor<i16, #layout.cute<(?,?):(?,1)>, gmem>
  %b = layout.view %2(%n0, %n1, %ds0) : !layout.ptr<i16> -> !layout.tensor<i16, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i16, #layout.cute<(?,?):(?,1)>, gmem>, !layout.tensor<i16, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}
func.func @pitch_dyn(%src: !layout.ptr<i64, align 16>, %dst: !layout.ptr<i64, align 16>, %n0: index, %ds0: index, %smis: index, %dmis: index) attributes {tilec.args = {n0 = 37 : index, ds0 = 10 : index, smis = 0 : index, dmis = 1 : index, src = 200 : index, dst = 400 : index}} {
  %c5 = arith.constant 5 : index
  %1 = layout.addptr %src, %smis : !layout.ptr<i64, align 16>, index
  %2 = layout.addptr %dst, %dmis : !layout.ptr<i64, align 16>, index
  %a = layout.view %1(%n0, %c5) : !layout.ptr<i64> -> !layout.tensor<i64, #layout.cute<(?,5):(?,1)>, gmem>
  %b = layout.view %2(%n0, %ds0) : !layout.ptr<i64> -> !layout.tensor<i64, #layout.cute<(?,5):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i64, #layout.cute<(?,5):(?,1)>, gmem>, !layout.tensor<i64, #layout.cute<(?,5):(?,1)>, gmem>
  func.return
}
