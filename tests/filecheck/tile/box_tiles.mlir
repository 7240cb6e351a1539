// RUN: tilec %s -p 'copy-strategy{tiles_bytes=2},tile' | filecheck %s
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=2},tile' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048 tiles_bytes=2},tile{box_smem=2048 tiles_run=32 threads=64}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048 tiles_bytes=2},tile{box_smem=2048 tiles_run=32 threads=96 box_stage=registers}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile{tiles_lanes=8}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile{tiles_lanes=16 tiles_grain=32}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048 tiles_bytes=2},tile{box_smem=2048 tiles_run=32 threads=256 tiles_lanes=4 tiles_grain=32}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile{tiles_lanes=32 tiles_stage=4}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile{tiles_lanes=32 tiles_stage=4 box_stage=registers}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile{tiles_lanes=8 tiles_grain=32}' | filecheck %s --check-prefix=LANES
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile{tiles_lanes=32 tiles_stage=4}' | filecheck %s --check-prefix=STAGE
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_stage=2}' 2>&1 | filecheck %s --check-prefix=STAGEOPT
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_lanes=8 tiles_grain=128 threads=256}' 2>&1 | filecheck %s --check-prefix=LANESOPT
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_run=24}' 2>&1 | filecheck %s --check-prefix=OPT
// RUN: not tilec %s -p 'copy-strategy{box_smem=8192},tile{box_smem=8192 tiles_run=1024}' 2>&1 | filecheck %s --check-prefix=FIT
// RUN: tilec %s -p 'copy-strategy{box_smem=2048 tiles_bytes=8},tile{box_smem=2048 tiles_run=32 threads=64 tiles_depth=3}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048 tiles_bytes=8},tile{box_smem=2048 tiles_run=32 threads=128 box_stage=registers tiles_depth=2}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile{tiles_depth=2}' | filecheck %s --check-prefix=DEPTH
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile{tiles_blocks=3}' | filecheck %s --check-prefix=BLOCKS
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile{tiles_blocks=3}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_depth=9}' 2>&1 | filecheck %s --check-prefix=DEPTHOPT
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=2},tile{tiles_interleave=1 tiles_stage=16 tiles_lanes=8}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=8192 tiles_bytes=2},tile{box_smem=8192 tiles_run=64 threads=128 tiles_interleave=1 tiles_stage=16 tiles_lanes=8}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=2},tile{tiles_interleave=0}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=2},tile{tiles_interleave=1 tiles_stage=16 tiles_lanes=8}' | filecheck %s --check-prefix=INTER
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_interleave=1 tiles_lanes=0}' 2>&1 | filecheck %s --check-prefix=INTEROPT
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=2},tile{tiles_rounds=1}' | filecheck %s --check-prefix=ROUNDS
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=2},tile' | filecheck %s --check-prefix=ROUNDS0
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=2},tile{tiles_rounds=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048 tiles_bytes=2},tile{box_smem=2048 tiles_run=32 threads=128 tiles_rounds=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_rounds=2}' 2>&1 | filecheck %s --check-prefix=ROUNDSOPT
// The tile pass lowers a copy of strategy box<tiles> (both contiguous modes long; chosen
// by copy-strategy, tests/filecheck/copy-strategy/box_tiles.mlir, of 2-byte elements
// too with tiles_bytes=2; 512 threads) to a launch whose
// blocks stage a tile's source runs, and the 16 / E - 1 runs past it, by aligned
// 16-byte chunks into slots congruent to the source modulo 16 (cp.async), then write
// each destination row of the tile in aligned 16-byte vectors of 16 / E elements read
// from consecutive slots (8 lanes of a warp on consecutive chunks of one row, each slot
// 16 bytes further every 16 / E slots); a chunk cut by its row's ends is written
// element by element.
// A small box (box_smem=2048, tiles_run=32) makes many tiles along both modes, a thread
// count that is not a multiple of the tile's runs (96) leaves lanes idle.
// tiles_depth=N: a block takes N consecutive tiles along the destination's contiguous mode
// through two boxes (twice the allocation): the first tile's phase 1, then a loop of N
// trips, each waiting for its copies, one barrier, the next tile's phase 1 into the other
// box (when there is a next tile), this tile's phase 2 (when the tile exists); with a
// small box, groups of 3 tiles end in partial groups.

// EQ: @odd_int8: equivalent after
// EQ: @odd_i8_misaligned: equivalent after
// EQ: @grid_int16: equivalent after
// EQ: @odd_f32: equivalent after
// EQ: @odd_f64: equivalent after
// OPT: tiles_run=24 must be a multiple of 16 in [16, 1024]
// STAGEOPT: tiles_stage=2 must be 4, 8 or 16
// LANESOPT: tiles_lanes=8 takes threads a multiple of 8 x 128; got threads=256
// DEPTHOPT: tiles_depth=9 must be in [1, 8]
// tiles_blocks=N: the launch asks N blocks a multiprocessor (tilec.min_blocks; default 1024 / threads).
// BLOCKS-LABEL: func.func @odd_int8
// BLOCKS:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512) attributes {tilec.min_blocks = 3 : i64
// DEPTH-LABEL: func.func @odd_f32
// DEPTH:         layout.alloc : !layout.tensor<f32, #layout.cute<(20304):(1)>, smem>
// DEPTH:         layout.copy_chunk_async
// DEPTH:         scf.for
// DEPTH:           layout.async_wait {pending = 0 : i64{{(, commit)?}}}
// DEPTH-NEXT:      layout.barrier
// DEPTH:           scf.if
// DEPTH:             layout.copy_chunk_async
// DEPTH:           scf.if
// DEPTH:             cuda.opaque
// DEPTH:             layout.write %{{.*}} {width = 4 : i64} : vector<4xf32>
// FIT: error: 'layout.copy': tile: a copy of strategy box<tiles> is a transpose (converting only as box<tiles>) that the box rule takes as tiles with a box of 8192 bytes (tiles_run=1024)

// tiles_interleave=1 (an option, off by default): after phase 1 and a barrier, each
// thread reads the 16-byte chunks of its pieces of the slots, keeps each byte from chunk
// t or t + 1 (the run's residue) and transposes 4 x 4 bytes (cuda.byte_perm); after a
// second barrier it writes them back as 16-byte chunks (one 32-bit word: 4 destination
// rows 16 apart); after a third, phase 2 reads one word a run for 4 rows and transposes
// again. tiles_interleave=1 needs lanes along a row (and 16-byte phase-1 chunks, one tile
// a block, runs of whole 64-byte pieces, threads spread evenly over the row groups).
// INTEROPT: tiles_interleave=1 does not fit tiles_lanes=0 (lanes along a destination row)
// INTER-LABEL: func.func @odd_int8
// INTER:         layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 16 : i64{{(, l1)?(, uncommitted)?}}}
// INTER:         layout.async_wait {pending = 0 : i64{{(, commit)?}}}
// INTER-NEXT:    layout.barrier
// INTER:         layout.read %{{.*}}[%{{.*}}] {width = 16 : i64} : !layout.tensor<i8, #layout.cute<(88047):(1)>, smem> -> vector<16xi8>
// INTER:         cuda.byte_perm %{{.*}}, %{{.*}}, 20800 : i32
// INTER:         layout.barrier
// INTER:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>, !layout.tensor<i8, #layout.cute<(88047):(1)>, smem>
// INTER:         layout.barrier
// INTER:         cuda.opaque
// INTER:         layout.read %{{.*}}[%{{.*}}] {width = 4 : i64} : !layout.tensor<i8, #layout.cute<(88047):(1)>, smem> -> vector<4xi8>
// INTER:         cuda.byte_perm
// INTER:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>, !layout.tensor<i8, #layout.cute<(39300):(1)>, gmem>
// INTER-LABEL: func.func @odd_i8_misaligned
// INTER:         cuda.byte_perm

// tiles_rounds=1 (an option, off by default): the tiles along the destination's contiguous
// mode are spread over whole rounds of the blocks the GPU holds at once (sm_90: 132
// multiprocessors, 2 blocks of 512 each: 264). 131 x 300 int8: 2 tiles along W; the 86 KiB
// box's 592 steps of D would make 1 tile along D, one round of 2 blocks; spread, ceil(300 /
// 132) rounded up to a chunk (16 steps) a tile, 19 tiles. Run-time extents: the same on
// the host (R = ceil(F G / 264), K = max(F, R 264 / G), Dt = 16 ceil(ceil(n / K) / 16)),
// the kernel taking the tile's steps and the count as arguments (the box's own runs: no
// fit of a short D with rounds). tiles_rounds=0 (the default): D's 300 steps whole and
// runs of 256 bytes (`_copy_cost.TILES_FIT_D`), 1 x 1 blocks.
// ROUNDSOPT: tiles_rounds=2 must be 0 or 1
// ROUNDS-LABEL: func.func @odd_int8
// ROUNDS:         %[[KD:.*]] = arith.constant 19 : index
// ROUNDS-NEXT:    %[[KW:.*]] = arith.constant 2 : index
// ROUNDS-NEXT:    %[[G:.*]] = arith.muli %[[KD]], %[[KW]] : index
// ROUNDS:         layout.launch grid(%[[G]], %{{.*}}, %{{.*}}) threads(512)
// ROUNDS-LABEL: func.func @odd_i8_misaligned
// ROUNDS:         %[[F:.*]] = arith.ceildivui %n, %{{.*}} : index
// ROUNDS:         %[[S:.*]] = arith.constant 264 : index
// ROUNDS-NEXT:    %[[R:.*]] = arith.ceildivui %{{.*}}, %[[S]] : index
// ROUNDS:         %[[K:.*]] = arith.maxui %[[F]], %{{.*}} : index
// ROUNDS-NEXT:    %[[PER:.*]] = arith.ceildivui %n, %[[K]] : index
// ROUNDS:         %[[DT:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// ROUNDS-NEXT:    %[[CD:.*]] = arith.ceildivui %n, %[[DT]] : index
// ROUNDS:         layout.launch
// ROUNDS:           arith.muli %{{.*}}, %[[DT]] : index
// ROUNDS0-LABEL: func.func @odd_int8
// ROUNDS0:         %[[KD:.*]] = arith.constant 1 : index
// ROUNDS0-NEXT:    %[[KW:.*]] = arith.constant 1 : index
// ROUNDS0-NEXT:    %[[G:.*]] = arith.muli %[[KD]], %[[KW]] : index
// ROUNDS0:         layout.launch grid(%[[G]], %{{.*}}, %{{.*}}) threads(512)
// ROUNDS0-LABEL: func.func @odd_i8_misaligned
// ROUNDS0-NOT:     arith.constant 264 : index
// ROUNDS0:         layout.launch

// CUDA-LABEL: odd_int8_kernel(
// CUDA:         tilec_cp_async16<true, 0>(
// CUDA:         tilec_cp_async_wait<0>();
// CUDA-NEXT:    __syncthreads();
// CUDA:         reinterpret_cast<i8x16*>(

// D (300 steps, static) shorter than the 86 KiB box's tile (`_copy_cost.TILES_FIT_D`): the
// tile takes D whole and runs of 256 bytes (W's 131 in one tile), 86127 bytes with their
// shifts at 32-byte grains (1-byte elements not converted: `TILES_SECTOR_PLAIN_BYTES`).
// CHECK-LABEL: func.func @odd_int8
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// CHECK:           layout.alloc : !layout.tensor<i8, #layout.cute<(86127):(1)>, smem>
// CHECK:           scf.for
// CHECK:             layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 16 : i64, l1{{(, uncommitted)?}}}
// CHECK:           layout.async_wait {pending = 0 : i64{{(, commit)?}}}
// CHECK-NEXT:      layout.barrier
// CHECK:           scf.for
// CHECK:             vector.insert
// CHECK:             layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// CHECK-NOT:     layout.copy
// With phase 2's lanes along a row (tiles_lanes=8) and whole sectors (tiles_grain=32):
// 2 blocks a multiprocessor asked, the box (86 KiB for 1-byte elements: `tiles_smem`) 31 runs past a 304-run tile
// (D whole), the slots 16 bytes further every 16 slots.
// LANES-LABEL: func.func @odd_int8
// LANES:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512) attributes {tilec.min_blocks = 2 : i64
// LANES:           layout.alloc : !layout.tensor<i8, #layout.cute<(86127):(1)>, smem>
// LANES:           layout.barrier
// LANES:           layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// Phase 1 by 4-byte cp.async (tiles_stage=4), each slot 4 bytes further every 16.
// STAGE-LABEL: func.func @odd_int8
// STAGE:         layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 4 : i64{{(, uncommitted)?}}}
// STAGE:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
func.func @odd_int8(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(131,300):(300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>, !layout.tensor<i8, #layout.cute<(131,300):(300,1)>, gmem>
  func.return
}

// int8 from aligned pointers moved by run-time misalignments, run-time extents and
// strides: 16-byte vectors from the aligned pointers (the addptrs go).
// CHECK-LABEL: func.func @odd_i8_misaligned
// CHECK-NOT:     layout.addptr
// CHECK:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
func.func @odd_i8_misaligned(%s0: !layout.ptr<i8, align 16>, %d0: !layout.ptr<i8, align 16>, %smis: index, %dmis: index, %m: index, %n: index) attributes {tilec.args = {smis = 3 : index, dmis = 5 : index, m = 97 : index, n = 150 : index, s0 = 14600 : index, d0 = 14600 : index}} {
  %src = layout.addptr %s0, %smis : !layout.ptr<i8, align 16>, index
  %dst = layout.addptr %d0, %dmis : !layout.ptr<i8, align 16>, index
  %a = layout.view %src(%m, %n, %m) : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(?,?):(1,?)>, gmem>
  %b = layout.view %dst(%m, %n, %n) : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(?,?):(1,?)>, gmem>, !layout.tensor<i8, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}

// A grid mode (3 steps)// 2-byte elements (with tiles_bytes=2; the default pipeline's tiled kernel otherwise),
// a grid mode (3 steps) on both sides, the destination's rows padded (pitch 157).
// CHECK-LABEL: func.func @grid_int16
// CHECK:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 8 : i64} : vector<8xi16>
// LANES-LABEL: func.func @grid_int16
// (D's 150 steps whole: a 152-step tile, runs of 184 elements)
// LANES:           layout.alloc : !layout.tensor<i16, #layout.cute<(32247):(1)>, smem>
// LANES:           layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 8 : i64} : vector<8xi16>
func.func @grid_int16(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<i16, align 16>) {
  %a = layout.view %src : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(3,97,150):(14550,1,97)>, gmem>
  %b = layout.view %dst : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(3,97,150):(15229,157,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i16, #layout.cute<(3,97,150):(14550,1,97)>, gmem>, !layout.tensor<i16, #layout.cute<(3,97,150):(15229,157,1)>, gmem>
  func.return
}

// 4- and 8-byte elements (tiles_bytes=8): 4 and 2 to a chunk, the lanes along a row
// stepping runs by a multiple of 4 and 2.
// LANES-LABEL: func.func @odd_f32
// LANES:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 4 : i64} : vector<4xf32>
func.func @odd_f32(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(97,131):(1,97)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(97,131):(131,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(97,131):(1,97)>, gmem>, !layout.tensor<f32, #layout.cute<(97,131):(131,1)>, gmem>
  func.return
}

// LANES-LABEL: func.func @odd_f64
// LANES:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 2 : i64} : vector<2xf64>
func.func @odd_f64(%src: !layout.ptr<f64, align 16>, %dst: !layout.ptr<f64, align 16>) {
  %a = layout.view %src : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(67,75):(1,67)>, gmem>
  %b = layout.view %dst : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(67,75):(75,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f64, #layout.cute<(67,75):(1,67)>, gmem>, !layout.tensor<f64, #layout.cute<(67,75):(75,1)>, gmem>
  func.return
}

// tiles_row_step=S: a warp's 4 phase-2 rows (8 lanes a row) S apart, thread tid's first
// row (w / S) 4 S + w mod S + S k (w = tid / 32, k = tid mod 32 / 8); 0 (the default),
// the rule from the pitches' residues (`tiles_row_step_of`: m = 1 - P_s P_d mod 16); 1,
// consecutive rows (tid / 8). @odd_int8: P_s = 131, P_d = 300, m = 13 (odd): S = 4, rows 16 a group of 4
// warps. @odd_i8_misaligned: run-time steps, m computed in the kernel, the rows of S = 1,
// 2 and 4 selected by its bits; phase 2 twice, its loads rotated by the row lane where m
// = 0 mod 8 (box_tiles_rows.mlir) and not, under the kernel's test of m.
// RUN: tilec %s -p 'copy-strategy,tile{tiles_row_step=0 tiles_rotate=1}' | filecheck %s --check-prefix=ROWSTEP
// RUN: tilec %s -p 'copy-strategy,tile{tiles_row_step=1}' | filecheck %s --check-prefix=ROWSTEP1
// RUN: tilec %s -p 'copy-strategy,tile{tiles_row_step=0 tiles_rotate=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_row_step=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=8},tile{tiles_row_step=2}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=2048 tiles_bytes=2},tile{box_smem=2048 tiles_run=32 threads=256 tiles_row_step=8}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_row_step=3}' 2>&1 | filecheck %s --check-prefix=ROWSTEPOPT
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_row_step=2 tiles_lanes=0}' 2>&1 | filecheck %s --check-prefix=ROWSTEPLANES
// RUN: tilec %s -p 'copy-strategy{box_smem=2048 tiles_bytes=2},tile{box_smem=2048 tiles_run=32 threads=64 box_l1=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_bytes=2},tile{box_l1=1}' | filecheck %s --check-prefix=L1
// ROWSTEPOPT: tiles_row_step=3 must be 0, 1, 2, 4 or 8
// ROWSTEPLANES: tiles_row_step=2 takes lanes along a row and warps a multiple of it; got tiles_lanes=0, threads=512
// ROWSTEP1-LABEL: func.func @odd_int8
// ROWSTEP1:         layout.barrier
// ROWSTEP1:         %[[C8:.*]] = arith.constant 8 : index
// ROWSTEP1-NEXT:    %{{.*}} = arith.divui %{{.*}}, %[[C8]] : index
// ROWSTEP1-NEXT:    %{{.*}} = arith.constant 8 : index
// ROWSTEP1-NEXT:    %{{.*}} = arith.remui
// ROWSTEP-LABEL: func.func @odd_int8
// ROWSTEP:         layout.barrier
// ROWSTEP:         %[[W:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// ROWSTEP:         %[[K:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// ROWSTEP-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// ROWSTEP-NEXT:    %[[G:.*]] = arith.divui %[[W]], %[[C4]] : index
// ROWSTEP-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// ROWSTEP-NEXT:    %{{.*}} = arith.muli %[[G]], %[[C16]] : index
// ROWSTEP-LABEL: func.func @odd_i8_misaligned
// ROWSTEP:         layout.barrier
// ROWSTEP:         %[[P:.*]] = arith.muli %m, %n : index
// ROWSTEP-NEXT:    %[[M:.*]] = arith.subi %{{.*}}, %[[P]] : index
// ROWSTEP:         %[[R:.*]] = arith.andi %[[M]], %{{.*}} : index
// ROWSTEP:         %[[ODD:.*]] = arith.cmpi ne
// ROWSTEP:         %[[TWO:.*]] = arith.cmpi ne
// ROWSTEP-NEXT:    %[[Q2:.*]] = arith.select %[[TWO]], %{{.*}}, %{{.*}} : index
// ROWSTEP-NEXT:    %{{.*}} = arith.select %[[ODD]], %{{.*}}, %[[Q2]] : index
// ROWSTEP:         %[[M8:.*]] = arith.cmpi eq
// ROWSTEP-NEXT:    scf.if %[[M8]] {
// ROWSTEP:           vector.bitcast %{{.*}} : vector<16xi8> to vector<4xi32>
// ROWSTEP:         } else {
// ROWSTEP-NOT:       vector.bitcast
// ROWSTEP:           layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>

// A 1-byte tiles box's 16-byte phase-1 chunks through L1 (box_l1).
// L1: layout.copy_chunk_async %{{.*}}, %{{.*}} {width = 16 : i64, l1{{(, uncommitted)?}}}
