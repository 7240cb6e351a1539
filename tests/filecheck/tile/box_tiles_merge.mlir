// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{box_slot32=0 tiles_merge=1}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1 box_smem=4096},tile{tiles_merge=1 box_smem=4096 tiles_run=32 threads=128}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=0},tile{tiles_merge=0}' | filecheck %s --check-prefix=OFF
// RUN: not tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=0}' 2>&1 | filecheck %s --check-prefix=DIS
// RUN: not tilec %s -p 'copy-strategy{tiles_merge=9}' 2>&1 | filecheck %s --check-prefix=BAD
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1 box_smem=16384},tile{tiles_merge=1 box_smem=16384 tiles_grain=64}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1 box_smem=16384},tile{box_slot32=0 tiles_merge=1 box_smem=16384 tiles_grain=64 tiles_merge_banks=0 tiles_depth=1}' | filecheck %s --check-prefix=GRAIN
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=1 tiles_merge_banks=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=1 tiles_merge_banks=1 box_smem=16384 tiles_grain=64}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{box_slot32=0 tiles_merge=1 tiles_merge_banks=1 tiles_grain=16 tiles_depth=1}' | filecheck %s --check-prefix=BANKS
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1 box_smem=16384},tile{box_slot32=0 tiles_merge=1 box_smem=16384 tiles_depth=2}' | filecheck %s --check-prefix=DEPTH
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1 box_smem=16384},tile{tiles_merge=1 box_smem=16384 tiles_depth=2}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1 box_smem=4096},tile{tiles_merge=1 box_smem=4096 tiles_run=32 threads=128 tiles_depth=3}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=1}' | filecheck %s --check-prefix=EDGE
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=1 tiles_issue=9}' | filecheck %s --check-prefix=TABLE
// A box<tiles> over a merged destination mode (`_copy_cost.tiles_merged`): the
// destination compact over the modes after the source's contiguous mode W, those modes
// are one mode D' of the box; each block first fills two tables (each run's source start
// from its step's digits, its element 0's place in the box), phase 1 copies the runs
// from their table starts, phase 2 reads its chunks' box addresses from the table.
// Results never change. With 64-byte grains (16 steps of D' a tile in a 16 KiB box) the
// tables reach as far as phase 2 reads them, before its test of which chunks the tile
// writes (`_box_tile.tiles_merged_table`: V_d + G_e - 1 + V_d (Dt / V_d + G_e / V_d) =
// 16 + 63 + 16 x 5 = 159 entries; session 40's 128 were read past, the H200's illegal
// address at the strided set's 36 and 00).

// EQ: @short_d: equivalent after
// EQ: @shared_mode: equivalent after
// DIS: tile: a copy of strategy box<tiles>
// BAD: copy-strategy: tiles_merge=9 must be in [0, 8]

// The strided set's 36 in small: W = 150 steps, D = 7 (short), D' = 3 x 5 x 7.
// CHECK-LABEL: func.func @short_d
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// CHECK:           layout.alloc : !layout.tensor<i8, #layout.cute<({{[0-9]+}}):(1)>, smem>
// CHECK:           layout.alloc : !layout.tensor<i32, #layout.cute<({{[0-9]+}}):(1)>, smem>
// CHECK:           layout.alloc : !layout.tensor<i32, #layout.cute<({{[0-9]+}}):(1)>, smem>
// CHECK:           layout.barrier
// CHECK:             layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 16 : i64{{(, uncommitted)?}}}
// CHECK:           layout.barrier
// CHECK:             layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// CHECK-NOT:     layout.copy
// With `tiles_merge_banks=1` at 16-byte grains the tables take an entry more every 16 (527 entries, 559
// words: `_box_tile.tiles_merged_table_at`) and a warp's 4 rows are 4 apart (105 S = 0
// mod 16 at no S below 16: the cap, `tiles_merged_row_step`): the phase-2 threads' first
// rows from the warp and row lane.
// BANKS-LABEL: func.func @short_d
// BANKS:         layout.alloc : !layout.tensor<i32, #layout.cute<(559):(1)>, smem>
// BANKS-NEXT:    layout.alloc : !layout.tensor<i32, #layout.cute<(559):(1)>, smem>
// GRAIN-LABEL: func.func @short_d
// GRAIN:         layout.alloc : !layout.tensor<i32, #layout.cute<(159):(1)>, smem>
// GRAIN-NEXT:    layout.alloc : !layout.tensor<i32, #layout.cute<(159):(1)>, smem>
// With `tiles_depth=2` a block takes two tiles through two boxes, each with its run tables
// (268 entries each: twice 134): the first tile's tables, a barrier, its copies; then a
// tile a trip: wait, barrier, the next tile's tables, a barrier, its copies, this tile's
// phase 2.
// DEPTH-LABEL: func.func @short_d
// DEPTH:         layout.alloc : !layout.tensor<i8, #layout.cute<(28032):(1)>, smem>
// DEPTH:         layout.alloc : !layout.tensor<i32, #layout.cute<(268):(1)>, smem>
// DEPTH-NEXT:    layout.alloc : !layout.tensor<i32, #layout.cute<(268):(1)>, smem>
// DEPTH:         layout.barrier
// DEPTH:         scf.for
// DEPTH:           layout.barrier
// DEPTH:           scf.if
// DEPTH:             layout.barrier
// OFF-LABEL: func.func @short_d
// OFF:         layout.copy
// A merged 1-byte box's phase-2 edge path (a chunk its row's tile range cuts) reads each
// element at the whole chunk's kept box addresses (`tiles_issue` bit 256, by rule for merged
// 1-byte boxes: `_box_tile.TILES_ISSUE_MERGED`, p1b50), one shared load an element; with
// bits 9 only (the old rule) it reads the run table, then the box.
// EDGE-LABEL: func.func @short_d
// EDGE:         layout.async_wait
// EDGE:         vector.insert
// EDGE:         scf.if
// EDGE-NEXT:      layout.read %{{.*}}[%{{.*}}] : !layout.tensor<i8, #layout.cute<({{[0-9]+}}):(1)>, smem> -> i8
// EDGE-NEXT:      layout.write %{{.*}}, %{{.*}}[%{{.*}}] : i8
// TABLE-LABEL: func.func @short_d
// TABLE:         layout.async_wait
// TABLE:         vector.insert
// TABLE:         layout.read %{{.*}}[%{{.*}}] : !layout.tensor<i32, #layout.cute<({{[0-9]+}}):(1)>, smem> -> i32
// TABLE-NEXT:    arith.index_cast
// TABLE-NEXT:    arith.addi
// TABLE-NEXT:    layout.read %{{.*}}[%{{.*}}] : !layout.tensor<i8, #layout.cute<({{[0-9]+}}):(1)>, smem> -> i8
// TABLE-NEXT:    layout.write %{{.*}}, %{{.*}}[%{{.*}}] : i8
func.func @short_d(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(150,3,5,7):(1,1050,3150,150)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(150,3,5,7):(105,35,7,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(150,3,5,7):(1,1050,3150,150)>, gmem>, !layout.tensor<i8, #layout.cute<(150,3,5,7):(105,35,7,1)>, gmem>
  func.return
}

// The strided set's 00 in small: the source contiguous over W (70) and K (3), the
// destination over D (37) and K, D' = 6 x 3 x 37; pointers moved by misalignments.
// CHECK-LABEL: func.func @shared_mode
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// CHECK:             layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// CHECK-NOT:     layout.copy
func.func @shared_mode(%s0: !layout.ptr<i8, align 16>, %d0: !layout.ptr<i8, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 11 : index, dmis = 7 : index, s0 = 46640 : index, d0 = 46640 : index}} {
  %sp = layout.addptr %s0, %smis : !layout.ptr<i8, align 16>, index
  %dp = layout.addptr %d0, %dmis : !layout.ptr<i8, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(70,6,3,37):(1,210,70,1260)>, gmem>
  %b = layout.view %dp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(70,6,3,37):(666,111,37,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(70,6,3,37):(1,210,70,1260)>, gmem>, !layout.tensor<i8, #layout.cute<(70,6,3,37):(666,111,37,1)>, gmem>
  func.return
}
