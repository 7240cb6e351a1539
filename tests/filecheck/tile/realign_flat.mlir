// RUN: tilec %s -p 'copy-strategy{realign=always},tile{realign_flat=1}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=32 realign_flat=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=32 realign_flat=1}' --check-equivalence --seed 3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{realign_flat=0}' | filecheck %s --check-prefix=ROWS
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=32 realign_flat=1 realign_chunks=4}' --check-equivalence --seed 5 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=32 realign_flat=1 realign_chunks=2}' --check-equivalence --seed 2 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{realign=always},tile{threads=32 realign_flat=1 realign_chunks=4}' | filecheck %s --check-prefix=K4
// The realign strategy's flat form (`tile{realign_flat=1}`, `_realign_tile.realign_flat_launch`)
// over a broadcast into a compact destination whose rows (37 bf16, 74 bytes) start at every
// residue: one aligned chunk of the destination's flat run a thread, its elements from its
// row's source window and the next row's (two funnel shifts and a select); the store's
// offsets a multiple of the chunk (one vector). Where the destination is not compact the
// row form stays. Results never change. With `realign_chunks=4` (rows of 37 >= 4 chunks of 8) a
// thread writes 4 consecutive chunks: each row's window 5 aligned vectors, 4 funnel shifts each.

// EQ: @bcast: equivalent after
// EQ: @rows: equivalent after

// CHECK-LABEL: func.func @bcast
// CHECK:         layout.funnel_shift
// CHECK:         layout.funnel_shift
// CHECK:         layout.select
// CHECK:         layout.ptr_store
// CHECK-LABEL: func.func @rows
// CHECK:         layout.funnel_shift
// CHECK-NOT:     layout.funnel_shift
// CHECK:         layout.ptr_store
// K4-LABEL: func.func @bcast
// K4:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(32)
// K4-COUNT-8: layout.funnel_shift
// K4-NOT:     layout.funnel_shift
// K4-COUNT-4: layout.ptr_store
// K4-LABEL: func.func @rows
// ROWS-LABEL: func.func @bcast
// ROWS:         layout.funnel_shift
// ROWS-NOT:     layout.funnel_shift
// ROWS:         layout.ptr_store
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
