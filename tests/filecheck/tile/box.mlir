// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ-DEFAULT
// RUN: not tilec %s -p 'copy-strategy,tile{threads=48}' 2>&1 | filecheck %s --check-prefix=THREADS
// RUN: tilec %s -p 'copy-strategy,tile{box_stage=registers}' | filecheck %s --check-prefix=REG
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_stage=registers}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// RUN: not tilec %s -p 'copy-strategy,tile{box_stage=sync}' 2>&1 | filecheck %s --check-prefix=STAGE
// RUN: tilec %s -p 'copy-strategy,tile{box_lanes=8 box_carry=0}' | filecheck %s --check-prefix=LANES
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_lanes=4}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_lanes=32}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: not tilec %s -p 'copy-strategy,tile{box_lanes=3}' 2>&1 | filecheck %s --check-prefix=LANES-ERR
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_grain=16}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: not tilec %s -p 'copy-strategy,tile{box_grain=8}' 2>&1 | filecheck %s --check-prefix=GRAIN-ERR
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=2}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=3}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=3 box_ring=0}' | filecheck %s --check-prefix=DEPTH
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=3 box_ring=0}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=0}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy,tile{box_depth=0}' | filecheck %s --check-prefix=PERSIST
// RUN: not tilec %s -p 'copy-strategy,tile{box_depth=9}' 2>&1 | filecheck %s --check-prefix=DEPTH-ERR
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=3 box_ring=3}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=4 box_ring=2}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=2 box_ring=4}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=3 box_ring=3}' | filecheck %s --check-prefix=RING
// RUN: not tilec %s -p 'copy-strategy,tile{box_ring=9}' 2>&1 | filecheck %s --check-prefix=RING-ERR
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=0 box_ring=2}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=96 box_carry=4 box_slot32=1 box_depth=0 box_ring=3}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=0 box_ring=3}' | filecheck %s --check-prefix=PRING
// RUN: not tilec %s -p 'copy-strategy,tile{box_depth=1 box_ring=3}' 2>&1 | filecheck %s --check-prefix=RING-DEPTH
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_carry=1}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_carry=1 box_depth=3 box_ring=3}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64}' | filecheck %s --check-prefix=CARRY
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_carry=1}' | filecheck %s --check-prefix=CARRY
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_carry=2}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=256 box_carry=2 box_depth=3 box_ring=3}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_carry=3}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=96 box_carry=3 box_depth=3 box_ring=3}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_carry=4}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=96 box_carry=4 box_depth=3 box_ring=3}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: not tilec %s -p 'copy-strategy,tile{box_carry=5}' 2>&1 | filecheck %s --check-prefix=CARRY-ERR
// RUN: tilec %s -p 'copy-strategy,tile{box_prefetch=256}' | filecheck %s --check-prefix=PREFETCH
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_prefetch=128}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: not tilec %s -p 'copy-strategy,tile{box_prefetch=32}' 2>&1 | filecheck %s --check-prefix=PREFETCH-ERR
// RUN: tilec %s -p 'copy-strategy,tile{box_slot32=1}' | filecheck %s --check-prefix=SLOT32
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_slot32=1}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_slot32=1 box_depth=3 box_ring=0}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=96 box_slot32=1 box_carry=4 box_depth=3 box_ring=3}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_slot32=1 box_depth=0}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_slot32=1 box_lanes=0 box_carry=0}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: not tilec %s -p 'copy-strategy,tile{box_slot32=4}' 2>&1 | filecheck %s --check-prefix=SLOT32-ERR
// RUN: tilec %s -p 'copy-strategy,tile{box_l1=1 box_prefetch=0}' | filecheck %s --check-prefix=L1
// RUN: tilec %s -p 'copy-strategy{box_smem=2048},tile{box_smem=2048 threads=64 box_l1=1 box_prefetch=128}' --check-equivalence | filecheck %s --check-prefix=EQ-SMALL
// RUN: not tilec %s -p 'copy-strategy,tile{box_l1=2}' 2>&1 | filecheck %s --check-prefix=L1-ERR
// The tile pass lowers a copy of strategy box<flat|rows|cols> (chosen by copy-strategy)
// to a launch that stages a box of the source in a shared allocation, 16-byte chunks
// into slots congruent to the source modulo 16, then writes each aligned 16-byte chunk
// of the destination as one vector gathered from the box. A small box (box_smem=1024)
// makes many blocks, runs cut at the blocks' edges and partial chunks; misaligned
// pointers (16-byte aligned pointers moved by their misalignments, as tilec.copy_
// states them) keep the vector accesses.

// EQ: @flat: equivalent after 'copy-strategy,tile'
// EQ: @flat_misaligned: equivalent after 'copy-strategy,tile'
// EQ: @flat_dynamic: equivalent after 'copy-strategy,tile'
// EQ: @rows: equivalent after 'copy-strategy,tile'
// EQ: @cols: equivalent after 'copy-strategy,tile'
// EQ: @flat_bounded_misaligned: equivalent after 'copy-strategy,tile'
// EQ-SMALL: @flat: equivalent after
// EQ-SMALL: @flat_misaligned: equivalent after
// EQ-SMALL: @flat_dynamic: equivalent after
// EQ-SMALL: @rows: equivalent after
// EQ-SMALL: @cols: equivalent after
// EQ-SMALL: @flat_bounded_misaligned: equivalent after
// EQ-DEFAULT: @flat: equivalent after 'default'
// EQ-DEFAULT: @flat_misaligned: equivalent after 'default'
// EQ-DEFAULT: @flat_dynamic: equivalent after 'default'
// EQ-DEFAULT: @rows: equivalent after 'default'
// EQ-DEFAULT: @cols: equivalent after 'default'
// EQ-DEFAULT: @flat_bounded_misaligned: equivalent after 'default'
// THREADS: box.mlir:{{[0-9]+}}:3: error: 'layout.copy': tile: a box copy takes threads that are a multiple of 32; got threads=48
// STAGE: tile: box_stage=sync must be one of async, registers
// LANES-ERR: tile: box_lanes=3 must be 0 or a power of two in [1, 32]
// GRAIN-ERR: tile: box_grain=8 must be 0 or 16

// box_lanes=8: phase 2's lanes in groups of 8 on one destination run's chunks, 4 runs
// a warp: lane l takes run (g / 46) 4 + l / 8 and chunk (g mod 46) 8 + l mod 8 of warp
// unit g (7 runs of 367 chunks: 2 x 46 units), the items past them skipped (box_carry=0:
// the work items' loop; the default for flat, 4, is checked under CARRY).
// box_depth=3 box_ring=0: a block takes 3 parts of a box's steps through two boxes (one
// allocation of 2 x 1024 bytes): part 0's phase 1, then per part one wait and one
// barrier, the next part's phase 1 (its cp.async in flight) and this part's phase 2.
// DEPTH-LABEL: func.func @flat(
// DEPTH:         layout.launch
// DEPTH:           layout.alloc : !layout.tensor<i8, #layout.cute<(2048):(1)>, smem>
// DEPTH:           layout.copy_chunk_async
// DEPTH-NOT:       layout.barrier
// DEPTH:           %[[DEPTH:.*]] = arith.constant 3 : index
// DEPTH:           scf.for %[[J:.*]] = %{{.*}} to %[[DEPTH]] step %{{.*}} {
// DEPTH-NEXT:        arith.muli %[[J]]
// DEPTH-NEXT:        arith.addi
// DEPTH-NEXT:        layout.async_wait {pending = 0 : i64}
// DEPTH-NEXT:        layout.barrier
// DEPTH:             scf.if
// DEPTH:               layout.copy_chunk_async
// DEPTH:             scf.if
// DEPTH-NOT:           layout.copy_chunk_async
// DEPTH:               layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// DEPTH-ERR: tile: box_depth=9 must be in [0, 8]

// box_ring=3: a block takes 3 parts through a ring of 3 boxes (one allocation of 3 x
// 1024 bytes), each with an mbarrier counting the block's 64 threads, in one rolled
// loop of 3 + 2 trips: trip t issues part t into box t mod 3 (each thread's cp.async,
// then its arrival once they land) and, from trip 2, waits on part t - 2's barrier
// (phase (t - 2) / 3 mod 2) and writes it; a barrier ends each trip. No
// cp.async.wait_group: two parts stay in flight while one is written.
// RING-LABEL: func.func @flat(
// RING:         layout.launch
// RING:           layout.alloc : !layout.tensor<i8, #layout.cute<(3072):(1)>, smem>
// RING-NEXT:      %[[BARS:.*]] = layout.mbarrier_array {count = 64 : i64, stages = 3 : i64}
// RING-NOT:       layout.async_wait
// RING:           %[[TRIPS:.*]] = arith.constant 5 : index
// RING:           scf.for %[[T:.*]] = %{{.*}} to %[[TRIPS]] step %{{.*}} {
// RING:             arith.cmpi ult, %[[T]], %{{.*}} : index
// RING:             scf.if
// RING:               %[[ST:.*]] = arith.remui %[[T]], %{{.*}} : index
// RING:                 layout.copy_chunk_async
// RING:               %[[B0:.*]] = layout.mbarrier_at %[[BARS]][%[[ST]]] : !layout.mbarriers<3>
// RING-NEXT:          layout.cp_async_arrive %[[B0]]
// RING:             arith.cmpi uge, %[[T]], %{{.*}} : index
// RING:             scf.if
// RING:               %[[J:.*]] = arith.subi %[[T]], %{{.*}} : index
// RING:               %[[ST2:.*]] = arith.remui %[[J]], %{{.*}} : index
// RING-NEXT:          %[[B:.*]] = layout.mbarrier_at %[[BARS]][%[[ST2]]] : !layout.mbarriers<3>
// RING:               %[[Q:.*]] = arith.divui %[[J]], %{{.*}} : index
// RING:               %[[PH:.*]] = arith.andi %[[Q]], %{{.*}} : index
// RING:               layout.mbarrier_wait %[[B]], %[[PH]]
// RING:                   layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// RING:             layout.barrier
// RING-NEXT:      } {tilec.unroll = 1 : i64}
// RING-NOT:       layout.async_wait
// RING-LABEL: func.func @flat_misaligned

// box_depth=0 box_ring=3: persistent blocks (G of them, at most the resident blocks)
// through a ring of 3 boxes: block bid's parts bid, bid + G, ... (ceil((parts - bid) / G)
// of them) in one rolled loop of that many trips + 2, as the ring above.
// PRING-LABEL: func.func @flat(
// PRING:         layout.launch
// PRING:           layout.alloc : !layout.tensor<i8, #layout.cute<(3072):(1)>, smem>
// PRING-NEXT:      %[[BARS:.*]] = layout.mbarrier_array {count = 64 : i64, stages = 3 : i64}
// PRING:           %[[G:.*]] = arith.minui %[[ALL:.*]], %{{.*}} : index
// PRING-NEXT:      %[[LEFT:.*]] = arith.subi %[[ALL]], %{{.*}} : index
// PRING-NEXT:      %[[N:.*]] = arith.ceildivui %[[LEFT]], %[[G]] : index
// PRING:           %[[TRIPS:.*]] = arith.addi %[[N]], %{{.*}} : index
// PRING:           scf.for %[[T:.*]] = %{{.*}} to %[[TRIPS]] step %{{.*}} {
// PRING:             arith.cmpi ult, %[[T]], %[[N]] : index
// PRING:               layout.copy_chunk_async
// PRING:               layout.cp_async_arrive
// PRING:               layout.mbarrier_wait
// PRING:                   layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// PRING:             layout.barrier
// PRING-NEXT:      } {tilec.unroll = 1 : i64}
// PRING-LABEL: func.func @flat_misaligned
// RING-ERR: tile: box_ring=9 must be 0 or in [2, 8]
// RING-DEPTH: tile: a ring of 3 boxes takes a block's steps in parts (box_depth 0 or >= 2, got 1)

// box_carry=1 and 4 (the default for flat): a flat phase 2's warps take their units
// directly (from the warp's index, a step of the block's warps), lane l run g / njg 4 +
// l / 8 (clamped), chunk (g mod njg) 8 + l mod 8; a chunk at p = 16 j - (ds mod 16) (4:
// mod 32, whole sectors a lane group) of its run is stored whole from the box where
// p < the block's steps (unsigned) and p <= n_K - k_origin - 16 (the row's end); the
// others through the general tests (the first block's first chunk, the row's last).
// CARRY-LABEL: func.func @flat(
// CARRY:         layout.launch
// CARRY:             layout.mbarrier_wait
// CARRY:             %[[C32:.*]] = arith.constant 32 : index
// CARRY-NEXT:        %[[W:.*]] = arith.divui %{{.*}}, %[[C32]] : index
// CARRY:             scf.for %[[G:.*]] = %[[W]] to %{{.*}} step %{{.*}} {
// CARRY:               arith.divui %[[G]]
// CARRY:               %[[INSIDE:.*]] = arith.cmpi ult
// CARRY:               %[[P:.*]] = arith.subi
// CARRY-NEXT:          %[[IN:.*]] = arith.cmpi ult, %[[P]], %{{.*}} : index
// CARRY-NEXT:          %[[END:.*]] = arith.cmpi sle, %[[P]], %{{.*}} : index
// CARRY-NEXT:          %[[FAST:.*]] = arith.andi %[[IN]], %[[END]] : i1
// CARRY-NEXT:          scf.if %[[INSIDE]] {
// CARRY-NEXT:            scf.if %[[FAST]] {
// CARRY:                   layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// CARRY:                 } else {
// CARRY:                   layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// CARRY:                       layout.write %{{.*}}, %{{.*}}[%{{.*}}] : i8
// CARRY-LABEL: func.func @flat_misaligned
// CARRY-ERR: tile: box_carry=5 must be in [0, 4]

// The L2 prefetch size of phase 1's cp.async (`box_prefetch`): every chunk's copy asks it.
// PREFETCH-LABEL: func.func @flat(
// PREFETCH:         layout.copy_chunk_async %{{.*}}, %{{.*}} {width = 16 : i64, prefetch = 256 : i64{{(, l1)?}}}
// PREFETCH-NOT:     layout.copy_chunk_async %{{.*}}, %{{.*}} {width = 16 : i64} :
// PREFETCH-LABEL: func.func @rows(
// PREFETCH:         layout.copy_chunk_async %{{.*}}, %{{.*}} {width = 16 : i64, prefetch = 256 : i64{{(, l1)?}}}
// PREFETCH-ERR: tile: box_prefetch=32 must be 0, 64, 128 or 256
// A flat box's run at its source address modulo 32 (box_slot32): phase 1's chunks from
// the run's start rounded down to 32 bytes, phase 2's box addresses from its residue mod 32.
// SLOT32-LABEL: func.func @flat(
// SLOT32:         arith.constant -32 : index
// SLOT32:         arith.constant 31 : index
// SLOT32-LABEL: func.func @flat_misaligned
// SLOT32:         arith.constant -32 : index
// SLOT32-ERR: tile: box_slot32=4 must be in [0, 3]
// L1-LABEL: func.func @flat(
// L1:         layout.copy_chunk_async %{{.*}}, %{{.*}} {width = 16 : i64, l1}
// L1-NOT:     layout.copy_chunk_async %{{.*}}, %{{.*}} {width = 16 : i64} :
// L1-LABEL: func.func @rows(
// L1:         layout.copy_chunk_async %{{.*}}, %{{.*}} {width = 16 : i64, l1}
// L1-LABEL: func.func @cols(
// L1:         layout.copy_chunk_async %{{.*}}, %{{.*}} {width = 16 : i64, l1}
// L1-ERR: tile: box_l1=2 must be 0 or 1

// box_depth=0: persistent blocks, at most the Target's multiprocessors (132 on sm_90)
// times the blocks each holds (two boxes of BOX_PART_SMEM, 40 KiB: 2), asked of the
// compiler (tilec.min_blocks); block b takes parts b, b + G, ... (G the grid) in turn;
// here one part, one block (the grid a constant where the counts are).
// PERSIST-LABEL: func.func @flat(
// PERSIST:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(256) attributes {tilec.min_blocks = 2 : i64
// PERSIST:           %[[SLOTS:.*]] = arith.constant 264 : index
// PERSIST:           arith.minui %{{.*}}, %[[SLOTS]] : index
// PERSIST:           layout.alloc : !layout.tensor<i8, #layout.cute<(81920):(1)>, smem>
// PERSIST:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// PERSIST:             layout.async_wait {pending = 0 : i64}
// PERSIST-NEXT:        layout.barrier

// LANES-LABEL: func.func @flat
// LANES:         %[[C31:.*]] = arith.constant 31 : index
// LANES-NEXT:    %[[LANE:.*]] = arith.andi %{{.*}}, %[[C31]] : index
// LANES:         %[[QLO:.*]] = arith.divui %[[LANE]], %{{.*}} : index
// LANES:         %[[JLO:.*]] = arith.remui %[[LANE]], %{{.*}} : index
// LANES:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// LANES:           %[[G:.*]] = arith.divui %[[I]], %{{.*}} : index
// LANES:           %[[QG:.*]] = arith.divui %[[G]], %{{.*}} : index
// LANES:           %[[Q0:.*]] = arith.muli %[[QG]], %{{.*}} : index
// LANES:           %[[Q:.*]] = arith.addi %[[Q0]], %[[QLO]] : index
// LANES:           %[[JG:.*]] = arith.remui %[[G]], %{{.*}} : index
// LANES:           %[[J0:.*]] = arith.muli %[[JG]], %{{.*}} : index
// LANES:           %[[J:.*]] = arith.addi %[[J0]], %[[JLO]] : index
// LANES:           %[[IN:.*]] = arith.cmpi ult, %[[Q]], %{{.*}} : index
// LANES:           scf.if
// LANES:             arith.minui %[[Q]], %{{.*}} : index
// LANES-LABEL: func.func @flat_misaligned

// Phase 1 stages whole source chunks with cp.async (box_stage=async, the default),
// each thread arriving on its box's mbarrier once they land (flat's ring of two boxes;
// the one-part flavours wait for them once before the barrier); box_stage=registers
// reads them into registers and writes them to the box.
// CUDA-LABEL: // kernel flat_kernels::flat_kernel: 32-bit indices
// CUDA-LABEL: flat_kernel(
// CUDA:         #pragma unroll 1
// CUDA:         tilec_cp_async16<true, 0>(
// CUDA:         tilec_cp_async_commit();
// CUDA:         tilec_cp_async_mbarrier_arrive(
// CUDA:         tilec_mbarrier_wait(
// CUDA-LABEL: // kernel rows_kernels::rows_kernel
// CUDA:         tilec_cp_async<16>(
// CUDA:         tilec_cp_async_wait<0>();
// CUDA-NEXT:    __syncthreads();
// REG-LABEL: func.func @flat
// REG-NOT:       layout.copy_chunk_async
// REG:           layout.read %{{.*}}[%{{.*}}] {width = 16 : i64} : !layout.tensor<i8, #layout.cute<(2100):(1)>, gmem> -> vector<16xi8>
// REG:           layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>, !layout.tensor<i8, #layout.cute<(81920):(1)>, smem>
// REG-NOT:       layout.async_wait
// REG:           layout.barrier

// A flat block takes two parts of 40 KiB boxes through a ring of two (box_depth=2 and
// box_ring=2 for flat by default: one allocation, a barrier each): one rolled loop of 3
// trips, each issuing a part's cp.async and its arrivals, then waiting on the part
// before and writing it.
// CHECK-LABEL: func.func @flat
// CHECK:         layout.view %{{.*}} : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(2100):(1)>, gmem>
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(256)
// CHECK:           layout.alloc : !layout.tensor<i8, #layout.cute<(81920):(1)>, smem>
// CHECK-NEXT:      layout.mbarrier_array {count = 256 : i64, stages = 2 : i64}
// CHECK:           scf.for
// CHECK-NOT:         layout.read %{{.*}}[%{{.*}}] {width = 16 : i64}
// CHECK:               layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 16 : i64, l1} : !layout.tensor<i8, #layout.cute<(2100):(1)>, gmem>, !layout.tensor<i8, #layout.cute<(81920):(1)>, smem>
// CHECK:             layout.cp_async_arrive
// CHECK:             layout.mbarrier_wait
// CHECK:               vector.insert
// CHECK:               layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>, !layout.tensor<i8, #layout.cute<(2100):(1)>, gmem>
// CHECK:             layout.barrier
// CHECK-NEXT:      } {tilec.unroll = 1 : i64}
// CHECK-NOT:     layout.copy
func.func @flat(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(7,300):(1,7)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(7,300):(300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(7,300):(1,7)>, gmem>, !layout.tensor<i8, #layout.cute<(7,300):(300,1)>, gmem>
  func.return
}

// Both pointers 16-byte aligned pointers moved by run-time misalignments: the box
// addresses memory from the aligned pointers (the addptrs go).
// CHECK-LABEL: func.func @flat_misaligned
// CHECK-NOT:     layout.addptr
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(256) {
func.func @flat_misaligned(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 13 : index, src = 2121 : index, dst = 2121 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<i8, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i8, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(7,300):(1,7)>, gmem>
  %b = layout.view %dp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(7,300):(300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(7,300):(1,7)>, gmem>, !layout.tensor<i8, #layout.cute<(7,300):(300,1)>, gmem>
  func.return
}

// D a run-time extent, the destination's rows padded (stride 307): flat.
// A run-time extent: the flat views' extents are run-time values too (static ones,
// as in @flat, give the kernel 32-bit indices where two boxes past the end fit).
// CHECK-LABEL: func.func @flat_dynamic
// CHECK:         layout.view %src(%{{.*}}) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>
// CHECK:         layout.launch
func.func @flat_dynamic(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %n: index, %ld: index) attributes {tilec.args = {n = 301 : index, ld = 307 : index}} {
  %a = layout.view %src(%n) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(19,?):(1,19)>, gmem>
  %b = layout.view %dst(%n, %ld) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(19,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(19,?):(1,19)>, gmem>, !layout.tensor<i8, #layout.cute<(19,?):(?,1)>, gmem>
  func.return
}

// W = 37, D = 17 whole by steps of K = 5 (source stride 700), a grid mode of 3: rows.
// CHECK-LABEL: func.func @rows
// CHECK:         layout.launch
// CHECK:           layout.alloc
func.func @rows(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(3,37,5,17):(3500,1,700,37)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(3,37,5,17):(3145,85,17,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(3,37,5,17):(3500,1,700,37)>, gmem>, !layout.tensor<i8, #layout.cute<(3,37,5,17):(3145,85,17,1)>, gmem>
  func.return
}

// W = 300 long, D = 5 short, the destination contiguous over D then W: cols.
// CHECK-LABEL: func.func @cols
// CHECK:         layout.launch
// CHECK:           layout.alloc
func.func @cols(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(300,5):(1,300)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(300,5):(5,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(300,5):(1,300)>, gmem>, !layout.tensor<i8, #layout.cute<(300,5):(5,1)>, gmem>
  func.return
}

// The pointers moved by misalignments the program states bounded (`mis % 16`, as
// tests/helpers/canonical_copies.py's Program of copy_'s views does), the views
// static: their reach at the largest misalignment fits, so the launch promises its
// kernel 32-bit indices (box_index_bits), as copy_'s program promises them; an
// unbounded misalignment (@flat_misaligned) promises nothing.
// CHECK-LABEL: func.func @flat_bounded_misaligned
// CHECK-NOT:     layout.addptr
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(256) attributes {tilec.index_bits = 32 : i64} {
// CHECK:           layout.alloc
// CHECK:           layout.copy_chunk_async
// CUDA-LABEL: // kernel flat_bounded_misaligned_kernels::flat_bounded_misaligned_kernel: 32-bit indices
func.func @flat_bounded_misaligned(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 13 : index, src = 2121 : index, dst = 2121 : index}} {
  %c16 = arith.constant 16 : index
  %sm = arith.remui %smis, %c16 : index
  %dm = arith.remui %dmis, %c16 : index
  %sp = layout.addptr %src, %sm : !layout.ptr<i8, align 16>, index
  %dp = layout.addptr %dst, %dm : !layout.ptr<i8, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(7,300):(1,7)>, gmem>
  %b = layout.view %dp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(7,300):(300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(7,300):(1,7)>, gmem>, !layout.tensor<i8, #layout.cute<(7,300):(300,1)>, gmem>
  func.return
}
