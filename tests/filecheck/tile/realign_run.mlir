// RUN: tilec %s -p 'copy-strategy{realign=always},tile{realign_run=4 realign_lanes=1}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=32 realign_run=4 realign_lanes=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=32 realign_run=2 realign_lanes=4}' --check-equivalence --seed 3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=32 realign_run=8 realign_lanes=1 realign_elems=1}' --check-equivalence --seed 5 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=64 realign_run=1 realign_lanes=2 realign_elems=1}' --check-equivalence --seed 2 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=32 realign_run=16 realign_lanes=1 realign_prefetch=1}' --check-equivalence --seed 7 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{realign_run=2 realign_lanes=2}' | filecheck %s --check-prefix=L2
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{realign_run=4 realign_lanes=1 realign_elems=1}' | filecheck %s --check-prefix=EL
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{realign_run=4 realign_lanes=1 realign_bits=0}' | filecheck %s --check-prefix=CHAIN
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=32 realign_run=2}' --check-equivalence --seed 9 | filecheck %s --check-prefix=EQ
// The realign strategy's run form (`tile{realign_run=K}`, `_realign_tile.realign_run_launch`):
// a thread writes K chunks of one row (K consecutive at `realign_lanes=1`, or every L-th of a
// group of K L), the row's coordinates and shift computed once; with L = 1 its K + 1 source
// vectors each loaded once (K funnel shifts), with L > 1 two a chunk, with `realign_elems=1`
// each chunk's source elements loaded one by one (no funnel shift). The funnel shifts pick words
// by the shift's bits (`{bits}`: shared selects), by chains with `realign_bits=0`. Over a broadcast into a
// compact destination whose rows (37 bf16, 74 bytes) start at every residue, and rows into
// a longer pitch. Results never change.

// EQ: @bcast: equivalent after
// EQ: @rows: equivalent after

// CHECK-LABEL: func.func @bcast
// CHECK-COUNT-5: layout.ptr_load
// CHECK-COUNT-4: layout.funnel_shift {{.*}} {bits}
// CHECK-NOT:     layout.funnel_shift
// CHECK-COUNT-4: layout.ptr_store
// CHECK-LABEL: func.func @rows
// L2-LABEL: func.func @bcast
// L2-COUNT-2: layout.ptr_load
// L2:         layout.funnel_shift
// L2-COUNT-2: layout.ptr_load
// L2:         layout.funnel_shift
// L2-NOT:     layout.funnel_shift
// L2-LABEL: func.func @rows
// EL-LABEL: func.func @bcast
// EL-NOT:     layout.funnel_shift
// EL-COUNT-4: layout.ptr_store
// EL-LABEL: func.func @rows
// CHAIN-LABEL: func.func @bcast
// CHAIN-NOT: {bits}
// CHAIN:     layout.funnel_shift
// CHAIN-NOT: {bits}
// CHAIN-LABEL: func.func @rows
func.func @bcast(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 5 : index, src = 128 : index, dst = 1200 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<bf16, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<bf16, align 16>, index
  %a = layout.view %sp : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(2,3,5,37):(0,37,0,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<bf16> -> !layout.tensor<bf16, #layout.cute<(2,3,5,37):(555,185,37,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<bf16, #layout.cute<(2,3,5,37):(0,37,0,1)>, gmem>, !layout.tensor<bf16, #layout.cute<(2,3,5,37):(555,185,37,1)>, gmem>
  func.return
}
func.func @rows(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 6 : index, src = 240 : index, dst = 224 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<f16, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<f16, align 16>, index
  %a = layout.view %sp : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(7,30):(33,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(7,30):(31,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(7,30):(33,1)>, gmem>, !layout.tensor<f16, #layout.cute<(7,30):(31,1)>, gmem>
  func.return
}
