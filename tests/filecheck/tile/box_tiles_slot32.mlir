// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=1 box_slot32=1}' | filecheck %s --check-prefix=S32
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=1 box_slot32=0}' | filecheck %s --check-prefix=OFF
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=1 box_slot32=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=1 box_slot32=1 tiles_grain=16}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1 box_smem=4096},tile{tiles_merge=1 box_smem=4096 tiles_run=32 threads=128 box_slot32=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1 box_smem=16384},tile{tiles_merge=1 box_smem=16384 tiles_depth=2 box_slot32=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=1 box_slot32=2}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=1 box_slot32=2}' | filecheck %s --check-prefix=TURN
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1},tile{tiles_merge=1 box_slot32=3}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_merge=1 box_smem=4096},tile{tiles_merge=1 box_smem=4096 tiles_run=32 threads=128 box_slot32=2}' --check-equivalence | filecheck %s --check-prefix=EQ
// `box_slot32=1` on a box<tiles> over a merged destination mode (`_box_tile.tiles_launch`'s
// `slot32`): each run lies in its slot at its source address mod 32 bytes, not 16, the
// slots whole 32 bytes (`tiles_slot32_pitch`: W = 150, 192 bytes against `box_pitch`'s 176)
// and moved 32 bytes every 16 slots, so a source sector's two 16-byte phase-1 chunks land
// in one 32-byte block of shared memory. Phase 2 reads through the run tables, unchanged.
// Results never change (at both grains, a small box of 128 threads, two tiles a block).
// `box_slot32=2`: the same box, phase 2's rows turned 16 for chunk lanes 4-7
// (`tiles_slot32_turn`: `(q + 16 (ci0 / 4)) mod 64`, 64 rows a trip at 512 threads);
// `box_slot32=3` only where the innermost merged mode is long (`TILES_SLOT32_TURN_RUNS`).
// The box: 495 slots (Dt + G_e - 1) of 192 + 2 bytes and 64 (87647 = 495 x 177 + 32 without).

// EQ: @short_d: equivalent after
// EQ: @shared_mode: equivalent after

// The strided set's 36 in small: W = 150 steps, D = 7 (short), D' = 3 x 5 x 7.
// S32-LABEL: func.func @short_d
// S32:         layout.alloc : !layout.tensor<i8, #layout.cute<(96094):(1)>, smem>
// S32:           layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 16 : i64{{(, uncommitted)?}}}
// S32:             layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// TURN-LABEL: func.func @short_d
// TURN:         layout.alloc : !layout.tensor<i8, #layout.cute<(96094):(1)>, smem>
// TURN:         %[[C64:.*]] = arith.constant 64 : index
// TURN-NEXT:    arith.remui %{{.*}}, %[[C64]] : index
// OFF-LABEL: func.func @short_d
// OFF:         layout.alloc : !layout.tensor<i8, #layout.cute<(87647):(1)>, smem>
func.func @short_d(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(150,3,5,7):(1,1050,3150,150)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(150,3,5,7):(105,35,7,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(150,3,5,7):(1,1050,3150,150)>, gmem>, !layout.tensor<i8, #layout.cute<(150,3,5,7):(105,35,7,1)>, gmem>
  func.return
}

// The strided set's 00 in small: the source contiguous over W (70) and K (3), pointers moved.
// S32-LABEL: func.func @shared_mode
// S32:         layout.alloc : !layout.tensor<i8, #layout.cute<({{[0-9]+}}):(1)>, smem>
func.func @shared_mode(%s0: !layout.ptr<i8, align 16>, %d0: !layout.ptr<i8, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 11 : index, dmis = 7 : index, s0 = 46640 : index, d0 = 46640 : index}} {
  %sp = layout.addptr %s0, %smis : !layout.ptr<i8, align 16>, index
  %dp = layout.addptr %d0, %dmis : !layout.ptr<i8, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(70,6,3,37):(1,210,70,1260)>, gmem>
  %b = layout.view %dp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(70,6,3,37):(666,111,37,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(70,6,3,37):(1,210,70,1260)>, gmem>, !layout.tensor<i8, #layout.cute<(70,6,3,37):(666,111,37,1)>, gmem>
  func.return
}
