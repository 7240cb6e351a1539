// RUN: tilec %s -p 'copy-strategy{box_smem=47696},tile{box_slot32=0 box_smem=47696 tiles_fill=1 tiles_depth=1}' | filecheck %s --check-prefix=MERGED
// RUN: tilec %s -p 'copy-strategy{box_smem=47696},tile{box_smem=47696 tiles_fill=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=15120},tile{box_smem=15120 tiles_fill=1 tiles_mirror=0}' | filecheck %s --check-prefix=SHORT
// RUN: tilec %s -p 'copy-strategy{box_smem=15120},tile{box_smem=15120 tiles_fill=1 tiles_mirror=0}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=20592},tile{box_smem=20592 tiles_fill=1}' | filecheck %s --check-prefix=TRANS
// RUN: tilec %s -p 'copy-strategy{box_smem=20592},tile{box_smem=20592 tiles_fill=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=47696},tile{box_slot32=0 box_smem=47696 tiles_fill=0 tiles_depth=1}' | filecheck %s --check-prefix=OFF
// RUN: tilec %s -p 'copy-strategy{box_smem=15120},tile{box_smem=15120 tiles_fill=0 tiles_mirror=0}' | filecheck %s --check-prefix=OFF2
// RUN: tilec %s -p 'copy-strategy{box_smem=15120},tile{box_smem=15120 tiles_fill=3 tiles_grain=16 tiles_mirror=0}' | filecheck %s --check-prefix=ROWS
// RUN: tilec %s -p 'copy-strategy{box_smem=15120},tile{box_smem=15120 tiles_fill=3 tiles_mirror=0}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=47696},tile{box_slot32=0 box_smem=47696 tiles_fill=5 tiles_depth=2}' | filecheck %s --check-prefix=DEPTH
// RUN: tilec %s -p 'copy-strategy{box_smem=47696},tile{box_smem=47696 tiles_fill=5 tiles_depth=2}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_fill=8}' 2>&1 | filecheck %s --check-prefix=BAD
// `tile{tiles_fill=F}` (`_box_tile.TILES_FILL`): bit 1, a box<tiles> copy with lanes along
// a destination row takes the tile along D whose phase-2 trips are fullest
// (`_box_tile.tiles_filled_dt`; phase 2 gives each thread the chunks ci, ci + lanes, ...
// of its rows, C = Dt / V_d + G_e / V_d chunks a row at most); each box below is sized so
// that its largest Dt leaves the last trip nearly idle, and the rule shrinks the tile and
// with it the box (and a merged box's run tables). Bit 2, where a block's rows are W
// whole and known, the threads whose row groups (threads / lanes) fill the rows' trips
// best (`_box_tile.tiles_filled_threads`). Bit 4: bit 1 also where a block takes several
// tiles (`tiles_depth`), each of its two boxes the filled tile's. Results never change.

// EQ: @merged: equivalent after
// EQ: @short_w: equivalent after
// EQ: @transpose: equivalent after
// BAD: tile: tiles_fill=8 must be in [0, 7]

// The strided set's 36 in small: W = 150 whole (slots of 176 bytes), D' = 5 x 9 x 7 = 315
// merged, 32-byte grains: 271 slots, Dt 240 (17 chunks a row: 3 trips of 8 lanes) -> 224
// (16 chunks, 2 trips); the box 47999 -> 45167 bytes, the tables 338 -> 321 entries.
// MERGED-LABEL: func.func @merged
// MERGED:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// MERGED:           layout.alloc : !layout.tensor<i8, #layout.cute<(45167):(1)>, smem>
// MERGED:           layout.alloc : !layout.tensor<i32, #layout.cute<(321):(1)>, smem>
// MERGED-NEXT:      layout.alloc : !layout.tensor<i32, #layout.cute<(321):(1)>, smem>
// MERGED-NOT:     layout.copy %
// DEPTH-LABEL: func.func @merged
// DEPTH:         layout.alloc : !layout.tensor<i8, #layout.cute<(90336):(1)>, smem>
// DEPTH:         layout.alloc : !layout.tensor<i32, #layout.cute<(642):(1)>, smem>
// OFF-LABEL: func.func @merged
// OFF:           layout.alloc : !layout.tensor<i8, #layout.cute<(47999):(1)>, smem>
// OFF:           layout.alloc : !layout.tensor<i32, #layout.cute<(338):(1)>, smem>
func.func @merged(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(150,5,9,7):(1,1050,5250,150)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(150,5,9,7):(315,63,7,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(150,5,9,7):(1,1050,5250,150)>, gmem>, !layout.tensor<i8, #layout.cute<(150,5,9,7):(315,63,7,1)>, gmem>
  func.return
}

// The strided set's 29 in small: W = 42 f16 whole (slots of 112 bytes), a grid mode of 6,
// D = 150, converting to bf16: 135 slots, Dt 128 (17 chunks: 2 trips of 16 lanes) -> 120
// (16 chunks, 1 trip); the box 7711 -> 7255 elements.
// SHORT-LABEL: func.func @short_w
// SHORT:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// SHORT:           layout.alloc : !layout.tensor<f16, #layout.cute<(7255):(1)>, smem>
// SHORT:             layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 8 : i64} : vector<8xbf16>
// SHORT-NOT:     layout.copy %
// With bit 2, 42 rows in 24 groups of 16 lanes (2 trips, 88% busy) instead of 32 (66%).
// ROWS-LABEL: func.func @merged
// ROWS-LABEL: func.func @short_w
// ROWS:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(384)
// ROWS:           layout.alloc : !layout.tensor<f16, #layout.cute<(7255):(1)>, smem>
// OFF2-LABEL: func.func @short_w
// OFF2:           layout.alloc : !layout.tensor<f16, #layout.cute<(7711):(1)>, smem>
func.func @short_w(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %a = layout.view %src : !layout.ptr<f16, align 16> -> !layout.tensor<f16, #layout.cute<(42,6,150):(1,42,252)>, gmem>
  %b = layout.view %dst : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(42,6,150):(900,150,1)>, gmem>
  layout.copy %a, %b {convert = "float16->bfloat16"} : !layout.tensor<f16, #layout.cute<(42,6,150):(1,42,252)>, gmem>, !layout.tensor<bf16, #layout.cute<(42,6,150):(900,150,1)>, gmem>
  func.return
}

// An int8 transpose, 140 x 200: the box's largest tile along D (its 200 steps known) shrunk
// to whole trips of 8 lanes; the box 20767 -> 18447 bytes.
// TRANS-LABEL: func.func @transpose
// TRANS:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// TRANS:           layout.alloc : !layout.tensor<i8, #layout.cute<(18447):(1)>, smem>
// TRANS-NOT:     layout.copy %
func.func @transpose(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(140,200):(1,140)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(140,200):(200,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(140,200):(1,140)>, gmem>, !layout.tensor<i8, #layout.cute<(140,200):(200,1)>, gmem>
  func.return
}
