// RUN: tilec %s -p 'copy-strategy,tile{tiles_rotate=1}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{tiles_rotate=0}' | filecheck %s --check-prefix=PLAIN
// RUN: tilec %s -p 'copy-strategy,tile{tiles_rotate=1 tiles_stage=8}' | filecheck %s --check-prefix=ROT8
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s --check-prefix=DEFAULT
// RUN: tilec %s -p 'copy-strategy,tile{tiles_rotate=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=8192},tile{box_smem=8192 tiles_rotate=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_rotate=2}' 2>&1 | filecheck %s --check-prefix=OPT
// RUN: tilec %s -p 'copy-strategy,tile{tiles_rotate=1 tiles_lanes=8 tiles_stage=16}' | filecheck %s --check-prefix=LANES8
// RUN: tilec %s -p 'copy-strategy,tile{tiles_rotate=1 tiles_lanes=8 tiles_stage=16}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=8192},tile{box_smem=8192 tiles_columns=1 tiles_lines=0}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_columns=1 tiles_lines=0}' | filecheck %s --check-prefix=COLS
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_columns=2}' 2>&1 | filecheck %s --check-prefix=OPT2
// RUN: tilec %s -p 'copy-strategy{box_smem=8192},tile{box_smem=8192 tiles_lines=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_lines=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_lines=3}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=8192},tile{box_smem=8192 tiles_lines=2}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_lines=1 tiles_issue=1}' | filecheck %s --check-prefix=LINES
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_lines=4}' 2>&1 | filecheck %s --check-prefix=OPT3
// A box<tiles> copy's phase-2 rows by the pitches' rule (the default, tiles_row_step=0,
// passes/_box_tile.tiles_row_step_of): a square odd int8 transpose (131 x 131: m = 1 -
// 131 * 131 = 8 mod 16, no row step spreads the byte loads over the banks) keeps
// consecutive rows; with tiles_rotate=1 (the default for 1-byte elements,
// TILES_ROTATE_BYTES; tiles_rotate=0 not) it
// rotates row lane k's loads by 4 k elements (k = tid mod 32 / 8:
// slot r00 + (e + 4 k) mod 16 for element e), the loaded chunk's words put back by two
// selects each (by bit 0 and bit 1 of k) before the 16-byte store.

// EQ: @square_int8: equivalent after
// EQ: @odd_f32: equivalent after
// OPT: tiles_rotate=2 must be 0 or 1
// OPT2: tiles_columns=2 must be 0 or 1
// OPT3: tiles_lines=4 must be 0, 1, 2 or 3
// With tiles_lines=1 (off by default) phase 1's threads take the chunks of 128-byte lines
// of the runs, 8 threads a line (16-byte chunks; `tiles_issue=1`: the rule's bit 8, a quarter warp
// a run, is box_tiles_issue.mlir's): the square's runs of 512 bytes span 5
// lines at most, 40 threads a run; a chunk is copied where it lies in the run's cover.
// LINES-LABEL: func.func @square_int8
// LINES:         arith.constant 40 : index
// LINES:         scf.for
// LINES:           arith.constant -128 : index
// LINES:           arith.cmpi sge
// LINES:           arith.cmpi slt
// LINES:           layout.copy_chunk_async
// LINES:         layout.async_wait
// f32 (16-byte chunks, `TILES_STAGE8_BYTES`, 8 threads a line): its runs of 76 elements
// (304 bytes) span 4 lines at most, 32 threads a run.
// LINES-LABEL: func.func @odd_f32
// LINES:         arith.constant 32 : index
// LINES:           layout.copy_chunk_async
// With tiles_columns=1 (off by default; int8 copies by lines unless tiles_lines=0) phase 1's threads keep one chunk column
// (tid mod 31: the square's runs at 32-byte grains, `TILES_SECTOR_PLAIN_BYTES`, 31 chunks each) and
// step over the runs, 16 a trip (496 of the 512 threads).
// COLS-LABEL: func.func @square_int8
// COLS:         arith.cmpi ult, %{{.*}}, %{{.*}} : index
// COLS-NEXT:    scf.if
// COLS-NEXT:      arith.constant 31 : index
// COLS-NEXT:      %[[J:.*]] = arith.remui
// COLS-NEXT:      arith.constant 31 : index
// COLS-NEXT:      %[[R0:.*]] = arith.divui
// COLS-NEXT:      %[[PER:.*]] = arith.constant 16 : index
// COLS-NEXT:      scf.for %{{.*}} = %[[R0]] to %{{.*}} step %[[PER]] {
// COLS:             arith.muli %[[J]]
// COLS:             layout.copy_chunk_async
// COLS:         layout.async_wait
// DEFAULT-LABEL: func.func @square_int8
// DEFAULT-COUNT-8: arith.select
// DEFAULT:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// DEFAULT-LABEL: func.func @odd_f32
// DEFAULT-NOT:     vector.bitcast
// DEFAULT:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 4 : i64} : vector<4xf32>
// PLAIN-LABEL: func.func @square_int8
// PLAIN-NOT:     vector.bitcast
// PLAIN:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// CHECK-LABEL: func.func @square_int8
// CHECK:         layout.barrier
// CHECK:         %[[L:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %{{.*}} = arith.constant 8 : index
// CHECK-NEXT:    %[[K:.*]] = arith.divui %[[L]], %{{.*}} : index
// CHECK:         %[[K4:.*]] = arith.muli %[[K]], %{{.*}} : index
// CHECK-NEXT:    %{{.*}} = arith.addi %{{.*}}, %[[K4]] : index
// CHECK:         %[[B1:.*]] = arith.cmpi ne
// CHECK:         %[[B2:.*]] = arith.cmpi ne
// CHECK:         vector.bitcast %{{.*}} : vector<16xi8> to vector<4xi32>
// CHECK-COUNT-4: arith.select %[[B1]]
// CHECK-COUNT-4: arith.select %[[B2]]
// CHECK:         vector.bitcast %{{.*}} : vector<4xi32> to vector<16xi8>
// CHECK:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
func.func @square_int8(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(131,131):(1,131)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(131,131):(131,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(131,131):(1,131)>, gmem>, !layout.tensor<i8, #layout.cute<(131,131):(131,1)>, gmem>
  func.return
}

// f32 111 x 113 (m = 1 - 113 * 111 = 2 mod 16, even: with 16 lanes and 8-byte chunks
// the two rows of a warp share their banks at any row step; f32's rule chunks are 16 bytes,
// `TILES_STAGE8_BYTES`, so tiles_stage=8 asks them): with tiles_rotate=1 row
// lane k = tid mod 32 / 16 reads element (e + k) mod 4 of its chunk, the words put back
// by one select each (bit 0 of k); with 8 lanes and 16-byte chunks (4 rows a warp) by
// two. By default (f32: not rotated, measured no faster) and with tiles_rotate=0,
// consecutive rows and no select.
// PLAIN-LABEL: func.func @odd_f32
// PLAIN-NOT:     vector.bitcast
// PLAIN:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 4 : i64} : vector<4xf32>
// ROT8-LABEL: func.func @odd_f32
// ROT8:         layout.barrier
// ROT8:         %[[L:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// ROT8-NEXT:    %{{.*}} = arith.constant 16 : index
// ROT8-NEXT:    %[[K:.*]] = arith.divui %[[L]], %{{.*}} : index
// ROT8:         %[[B1:.*]] = arith.cmpi ne
// ROT8-NOT:     arith.cmpi ne
// ROT8:         vector.bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// ROT8-COUNT-4: arith.select %[[B1]]
// ROT8-NOT:     arith.select
// ROT8:         vector.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// ROT8:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 4 : i64} : vector<4xf32>
// LANES8-LABEL: func.func @odd_f32
// LANES8:         %[[B1:.*]] = arith.cmpi ne
// LANES8:         %[[B2:.*]] = arith.cmpi ne
// LANES8:         vector.bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// LANES8-COUNT-4: arith.select %[[B1]]
// LANES8-COUNT-4: arith.select %[[B2]]
// LANES8:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 4 : i64} : vector<4xf32>
func.func @odd_f32(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(111,113):(1,111)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(111,113):(113,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(111,113):(1,111)>, gmem>, !layout.tensor<f32, #layout.cute<(111,113):(113,1)>, gmem>
  func.return
}
