"""The `tile` pass: CTA tiling of whole-tensor copies."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import DenseArrayBase, IndexType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc
from tilec.dialects import cute, views
from tilec.dialects.errors import LayoutError
from tilec.dialects.layout import CopyOp, LaunchOp, TileOp, ViewOp, enclosing_launch
from tilec.dialects.layout_attrs import CuteLayoutAttr, PtrType, TensorViewType, element_bytes
from tilec.dialects.linear import next_pow2

from tilec.support.index_width import promise_index_bits, promised_index_bits
from tilec.support.target import target_of as module_target

from tilec.dialects.layout_ptr import AddPtrOp

from ._box_tile import (BOX_STAGES, BOX_THREADS, TILES_COLUMNS, TILES_DEPTH, TILES_FILL, TILES_GRAIN, TILES_MERGE_BANKS,
                        TILES_MIRROR_STAGE, tiles_mirror_misfit,
                        TILES_MERGE_DEPTH, TILES_MERGE_DEPTH_SMEM, TILES_MERGE_GRAIN,
                        TILES_MERGE_THREADS,
                        TILES_ROUNDS, TILES_ROW_STEP, TILES_THREADS, box_index_bits,
                        box_launch, box_smem_of, tiles_grain_of, tiles_lines_of, tiles_interleave_misfit, tiles_interleaved, tiles_phase2,
                        tiles_filled_threads, tiles_issue_of, tiles_rotated, TILES_SECTOR_PLAIN_BYTES)
from ._copy_cost import (BOX_SMEM, GATHER_RUNS_PER_THREAD, GATHER_THREADS, TILES_MERGE_BYTES, TILES_MIRROR, TILES_SHORT_BYTES,
                         TILES_SHORT_D_BYTES, box_flavour, copy_facts, _static, tiles_merge_bytes, tiles_merged,
                         tiles_merged_run,
                         tiles_mirror_mode, tiles_short_run,
                         tiles_run_bytes,
                         gather_vector, tiles_shape, SMALL_EXTENT,
                         realign_fits, run_broadcast, REALIGN_RUN_LANES)
from ._fill_tile import GATHER_FILL, fill_fits, fill_launch, fill_vector
from ._gather_tile import DIV32, MAGIC64, gather_launch, static_index_bits
from ._realign_tile import (REALIGN_THREADS, STEP2_THREADS, chunks_rule, flat_chunks, flat_fits, flat_rule,
                            prefetch_rule, realign_flat_launch, realign_launch, realign_run_launch,
                            run_fits, source_step)
from ._realign_tile import static_index_bits as realign_static_bits
from ._analysis import DYN, _min_stride, contiguous_mode, leaves, memory_order, pow2_floor
from ._vector_legality import _promised_strides

index = IndexType()

TILE_BYTES = 32 * 1024
"""Register budget of one block's tile when no data crosses threads (two views that
share their contiguous dimension): 32 KiB, 32 f32 values per thread at 256 threads."""
SMEM_TILE_BYTES = 16 * 1024
"""Shared-memory budget of one tile when the copy transposes (its conversion between
layouts goes through shared memory): 16 KiB, a 64x64 f32 tile."""
LINE_BYTES = 1024
"""Bytes of a tile along the contiguous dimension when both views share it: each row
of a tile is a run of 8 whole 128-byte lines."""
ONE_D_BYTES = 16 * 1024
"""Bytes per block of a 1-D copy: 4096 f32, 16 bytes per thread 4 times at 256 threads."""
MISALIGNED_SMEM_TILE_BYTES = 64 * 1024
"""Shared-memory budget of a transposing tile whose views do not allow 16-byte vectors
(rows that start off a 16-byte boundary, e.g. a row length of 16411 f32); dynamic
shared memory, two or three blocks a multiprocessor (`misaligned_tile_bytes`)."""


def misaligned_tile_bytes(eb: int) -> int:
    """The shared-memory budget of such a tile of `eb`-byte elements:
    `MISALIGNED_SMEM_TILE_BYTES` (64 KiB; 1- and 2-byte elements reach
    `MISALIGNED_TILE_ELEMENTS` first): two or three blocks a multiprocessor overlap one's
    loads with another's stores, where a 128 KiB tile left one block a multiprocessor,
    its loads and stores in turn. Measured on the H200 (8191 x 8209, benchmarks/NOTES.md):
    f64 64 x 128 at 256 threads 0.937 of cudaMemcpy against 0.911 for 64 x 256 at 512;
    f32 128 x 128 at 512 threads 0.893 and at 256 0.909 against 0.764 for 128 x 256 at
    512 (128 KiB, the H100's best at 16381 x 16411)."""
    return MISALIGNED_SMEM_TILE_BYTES
MISALIGNED_TILE_ELEMENTS = 32 * 1024
"""At most 64 elements per thread of such a tile at `MISALIGNED_THREADS` threads: a
256 x 128 f32 tile takes 128 registers; a larger one would spill."""


def misaligned_tile_fills(eb: int) -> bool:
    """Whether the misaligned transposing tile of `eb`-byte source elements reaches its
    byte budget (`misaligned_tile_bytes`) below `MISALIGNED_TILE_ELEMENTS`: 4- and
    8-byte elements (16384 and 8192 elements, two or more blocks a multiprocessor). 1-
    and 2-byte elements reach the element cap first (64 elements a thread, 128 registers
    at 512 threads: all of the register file), one block a multiprocessor whose tile is
    in flight in its load phase and nothing in its store phase; the short-mode tile
    (16 KiB, several blocks a multiprocessor overlapping their phases) moves more (H200:
    the strided set's bool -> int16 16998 x 28506 transpose, 512 x 64 at 512 threads
    0.39 of cudaMemcpy, 32 x 128 and 32 x 256 at 256 threads 0.61; the f16 8191 x 8209
    transpose tiled, 0.52 against 0.79)."""
    return misaligned_tile_bytes(eb) // eb < MISALIGNED_TILE_ELEMENTS
MISALIGNED_THREADS = 512
"""Threads per block of such a tile."""
LINE_BYTES_MISALIGNED = 512
"""Bytes of such a tile along the source's contiguous mode, so the destination's runs
get the rest of the budget (1 KiB of f32). Each run of a misaligned view starts and
ends in a sector it shares with a neighbouring tile, and every warp-wide access of a
misaligned run straddles two 128-byte lines; a written sector shared by two blocks
costs most. Long runs on both sides make those few (H100, 16381 x 16411 f32, ratio to
cudaMemcpy: 32x256 0.58, 64x64 0.73, 128x128 0.83-0.85, 256x32 0.90, 256x64 0.91,
256x128 at 512 threads 0.92; with the destination aligned, 16384 x 16411, every shape
tried stays at or below 0.93, the cost of the misaligned reads)."""
SOURCE_RUN_BYTES = 128
"""Bytes the source's runs of a misaligned transpose with a short contiguous mode are
lengthened to through the source modes that continue them (`source_run_modes`: each
static source stride the run so far, the modes before it known exactly and short),
before the destination's next modes take the rest of the budget (the mirror of their
growth), the budget then counting the elements the tile uses (`_used`: a short mode's
padding idles lanes, it moves no bytes); 0 none. The strided set's case 11 (int32 -> f64, the source contiguous over
5 x 5 x 648): the tile 1 x 1 x 2 x 8 x 8 x 32 reads runs of 20 bytes, each 32-byte
sector read by several blocks far apart in the grid. Measured on the H200 (sb39, one
run, ratio to cudaMemcpy): that tile 0.519, 8 x 1 x 2 x 8 x 1 x 32 (runs of 200 bytes,
counting the tile's padded elements) 0.740, 8 x 1 x 1 x 8 x 2 x 32 (runs of 100, the
destination's next mode: 64 bytes) 0.618, 8 x 1 x 1 x 8 x 1 x 32 0.595, 8 x 1 x 1 x 8 x 8 x
32 0.392; a second run: 8 x 1 x 2 x 8 x 1 x 32 0.752, at 512 threads 0.789, 8 x 1 x 2 x 8 x 2
x 32 (3100 of its 8192 elements used: this rule) 0.811."""
MAX_GRID_X = 2**31 - 1
"""CUDA's limit on grid x."""
MAX_GRID_YZ = 65535
"""CUDA's limit on grid y and z."""


@dataclass(frozen=True)
class TilePass(ModulePass):
    """Tile each whole-tensor `layout.copy` between global views into a `layout.launch` with one tile per block.

    Every `layout.copy` between two `gmem` views that is not inside a `layout.launch`
    becomes a `layout.launch` over a grid of blocks of `threads` threads; block b takes
    tile b of both views (`layout.tile`, masked where a tile extent does not divide its
    mode or the mode is dynamic) and copies it (a block-level `layout.copy`, which
    `distribute` splits between threads). A copy of strategy `gather` (chosen by
    `copy-strategy`, or written) becomes a launch over pointer tensors instead: each
    thread writes `runs` runs of up to 16 consecutive destination bytes and gathers
    their sources (passes/_gather_tile.py). A copy of strategy `realign` becomes a
    launch over pointer tensors that writes aligned destination chunks from aligned
    source vectors, realigned by `layout.funnel_shift` (passes/_realign_tile.py). A copy
    of strategy `box<flat|rows|cols>` becomes a launch whose threads stage a box of the
    source (its short contiguous mode whole) in shared memory with 16-byte accesses and
    write the destination in aligned 16-byte vectors gathered from it
    (passes/_box_tile.py); `box<tiles>` the same with a tile of both long contiguous
    modes a box, the destination's aligned chunks owned by the tile their start lies in
    (`_box_tile.tiles_launch`; a converting one converts each element it reads from the
    box before the destination's store; a destination contiguous mode known shorter
    than the box's tile is taken whole, the rest of the box to longer source runs,
    `_copy_cost.TILES_FIT_D`). Where the function promises no index width (`tilec.index_bits`)
    and a strategy's rule shows from the facts that every index value fits in 32 bits
    (every extent and stride static, each misalignment static or bounded: `mis % c` or
    `mis & c` of a constant, `_copy_cost.value_bound`; `_gather_tile.static_index_bits`,
    `_realign_tile.static_index_bits`, `_box_tile.box_index_bits`), its `layout.launch`
    promises 32-bit indices (`attributes {tilec.index_bits = 32 : i64}`), which
    `lower-to-gpu` gives the outlined kernel.

    Options:
      tile=a,b,...   tile extents, one per top-level mode of the views (each at most
                     the power of two at or above the mode's extent when that is
                     static, as the heuristic pads a short mode). Default: the copy's
                     `tile = array<i64: ...>` attribute, else the heuristic below.
      runs=R         a gather copy's runs per thread (a power of two; default 2).
      gather_bytes=B a gather copy's run of B destination bytes (a power of two, 16 or
                     32: 32 a whole sector a thread, two vector stores; 0, the default:
                     one widest vector, `_copy_cost.gather_vector`).
      gather_fill=N  N > 0: a gather copy of a source broadcast along its outermost
                     mode into a compact destination (`_fill_tile.fill_fits`) as a
                     periodic fill, about N threads a multiprocessor
                     (`_fill_tile.fill_launch`: each distinct 16-byte vector computed
                     once a thread, stored every `NT` vectors); default
                     `_fill_tile.GATHER_FILL`: 0, none.
      realign_chunks=C  a realign copy's destination chunks per thread (a power of two
                     up to 8; default `_realign_tile.chunks_rule`'s: 2 for rows of 2-
                     and 4-byte elements known to span 257-1024 bytes (`ENDS_PAIR_BYTES`),
                     else `chunks_per_thread`'s: 1 for 16-byte chunks, 2 for 8-byte
                     ones), chunks f, f + threads, ... of a block;
                     in the flat form (`realign_flat`) C consecutive chunks where the
                     rows hold C chunks' elements (`_realign_tile.flat_chunks`; default 1).
      realign_prefetch=P  1: a realign copy first asks L2 for each destination chunk
                     whose 32-byte sector its row covers in part (`layout.ptr_prefetch`,
                     `_realign_tile.sector_prefetch`); 2: that of the chunk a wave
                     on instead (`_realign_tile.prefetch_ahead`), the first wave its
                     own too; 3: as 1, each sector by a bulk prefetch of the chunk's
                     16 bytes (`layout.ptr_prefetch {bulk}`: the sector, not its
                     128-byte line); 4: as 3, only each row's first and last chunk
                     asking (two a row, whatever the aligned pointer's pseudo-sectors);
                     5: as 4, asked after the source loads (which then issue first);
                     6: as 5, only a row's real partial sectors (its first element
                     unless its address is on a 32-byte boundary, its last unless one
                     past it is: `_realign_tile.edges_prefetch`); 7: as 6, one ask a row
                     (`layout.ptr_prefetch {bulk} row`: adjacent sectors by one); 0 not.
                     Default `_realign_tile.prefetch_rule`'s: 6 for rows of 8-byte
                     elements known to span 40-512 bytes (`EDGES_ROW_BYTES`), 5 for other
                     rows known to span 128-512 bytes (`ENDS_ROW_BYTES`) and rows of 2-
                     and 4-byte elements known to span 257-1024 bytes, else
                     `SECTOR_PREFETCH` (1), as measured.
      realign_bytes=B  a realign copy's destination chunk for 8-byte elements read at a
                     step of 1: 8 or 16 bytes (default `_realign_tile.chunk_bytes`'s: 8
                     for rows known at most `SHORT_ROW_BYTES`, else 16); the row form only.
      realign_flat=F  1: a realign copy whose destination is compact writes it as one
                     flat run of aligned chunks, each from its row and the next
                     (`_realign_tile.realign_flat_launch`, where `flat_fits`); 0 row by
                     row. Default `_realign_tile.flat_rule` (off: measured slower).
      realign_run=K  K > 0 (a power of two up to 16): a realign copy of rows read at a
                     step of 1 writes K chunks of a row a thread, the row's coordinates
                     and shift computed once (`_realign_tile.realign_run_launch`), with
                     `realign_lanes=L` (default `_copy_cost.REALIGN_RUN_LANES`, 1: K
                     consecutive chunks, K + 1 source vectors) L threads interleaved on a group of K L chunks, and
                     `realign_elems=1` each chunk's source elements loaded one by one,
                     `realign_bits=0` the funnel shifts' words picked by chains of
                     selects, not on the shift's bits (default 1);
                     0 off. Default `_copy_cost.run_broadcast`'s: 2 (`REALIGN_RUN_BROADCAST`)
                     for misaligned broadcasts into a compact destination whose rows fill
                     a group, else 0. Prefetch modes other than 0 take mode 1, where
                     the destination is not compact.
      magic64=M      1: a gather or realign copy of 64-bit offsets divides its ids by
                     run-time extents as multiplications (`_gather_tile.magic_divmod64`);
                     0 by 64-bit divisions. Default `_gather_tile.MAGIC64`.
      narrow32=N     1: a gather copy of 32-bit offsets tests and places each element
                     of a run against the run's clamped bound and one of two per-run
                     bases (`_gather_tile`'s narrow form, as 64-bit ones with
                     `magic64`); 0 not. Default `_gather_tile.narrow32_rule`: runs of
                     8 elements (`NARROW32_RUN`), as measured.
      div32=D        1: a gather or realign copy of 32-bit offsets divides its ids by
                     run-time extents as a 32-bit multiply-high and a shift
                     (`_gather_tile.divmod32`); 0 as the high half of a 64-bit
                     product. Default `_gather_tile.DIV32` for gathers (on, as
                     measured), `_realign_tile.REALIGN_DIV32` for realign copies (on, as measured).
      narrow_count=C 1: a gather run of the narrow form tests each element against the
                     run's clamped share of the element count also where the count is
                     known a multiple of the run; 0 (default) the flat index there.
      inbounds=I     1: a gather copy loads its sources unmasked, each element's source
                     offset in bounds by construction (a run past the end read as the
                     last element, the last row's wrapped elements from the row itself),
                     the element mask on the stores only; 0 masked loads. Default
                     `_gather_tile.inbounds_rule` (by run length, `INBOUNDS_RUN`).
      threads=N      threads per block, 1..1024 (a gather copy's: a power of two, at
                     least 32, default 256; a realign copy's: the same, default
                     512, 256 for rows read at a step of 2; default: 512 for a misaligned
                     transpose's tile of 16384 elements or more, below; else 256;
                     a box copy's: a multiple of 32, default 256, a `box<tiles>`
                     copy's 512).
      box_smem=N     shared memory of a box copy's box in bytes (default 40960: the
                     `copy-strategy` pass's default, which chose the flavour; a
                     `box<tiles>` copy's `tiles_smem` of its element size: 65536 for
                     1- and 2-byte elements).
      box_stage=S    how a box copy's phase 1 moves whole 16-byte source chunks into
                     the box: `async` (cp.async, default) or `registers` (16-byte loads
                     and stores; passes/_box_tile.BOX_STAGES).
      box_lanes=N    how a `box<flat>` or `box<rows>` copy's phase 2 places a warp's
                     lanes: 0 on consecutive work items; N (a power of two up to 32)
                     on N consecutive chunks (`flat`) or chunk residues (`rows`) of
                     one destination run, `32 / N` runs a warp (fewer bank conflicts
                     in the box reads). Default `_box_tile.BOX_LANES`: 8 for `flat`,
                     0 for `rows`, as measured.
      box_grain=G    which destination bytes a `box<flat>` or `box<rows>` copy's block
                     writes (default 16: `_box_tile.BOX_GRAIN`, `ROWS_GRAIN`): 0
                     those of its own steps; 16 the 16-byte chunks
                     starting in its range (a flat box 15 steps longer, a rows box one):
                     only the destination's ends cut a chunk.
      box_depth=N    parts of a box's steps one block of a `box<flat|rows|span|cols>`
                     copy takes in turn (0 to 8, default per flavour:
                     `_box_tile.BOX_DEPTH`); past 1, through two boxes of
                     `box_smem` bytes (default `BOX_PART_SMEM`: 20480), the next
                     part's phase-1 copies in flight during this part's phase 2; 0,
                     persistent blocks (as many as the Target's multiprocessors
                     hold at once) taking every G-th part so, G the grid.
      box_ring=S     with `box_depth` past 1 (or 0): 0 two boxes, every copy
                     waited at once; S in 2..8 a ring of S boxes of `box_smem`
                     bytes, each waited on its own mbarrier
                     (`layout.cp_async_arrive`), one rolled loop: S - 1 parts in
                     flight while one is written (persistent blocks: the block's
                     every G-th part so, from one part to the next without a block's
                     end and start between them).
                     Default per flavour (`_box_tile.BOX_RING`): 2 for `flat`, as
                     measured (more boxes were slower).
      box_carry=C    how a `box<flat>` copy's phase 2 gives its work: 0 the work
                     items' loop (each chunk's unit divided out, its tests in full);
                     1 a warp's units taken directly, a chunk's tests folded into two;
                     2 each warp on one group of runs (the block's threads a multiple
                     of the groups), a run's values computed once, one test a chunk;
                     3 as 1, two units a trip, both chunks' box reads before either's
                     vector; 4 as 1, a run's chunks counted from its start rounded
                     down to 32 bytes (a warp's stores cover whole sectors), and for
                     `box<rows>` a warp on 32 consecutive chunks of one run so.
                     Default per flavour (`_box_tile.BOX_CARRY`): 4 for `flat`, 0
                     for `rows`, as measured.
      box_prefetch=N the L2 prefetch size (bytes: 64, 128, 256; 0 none) of the
                     `cp.async` of a `box<flat|rows|span|cols>` copy's phase 1
                     (`.L2::256B`: the L2 fetches the 256 bytes around each
                     chunk's sector from DRAM). Default per flavour
                     (`_box_tile.BOX_PREFETCH`): 128 for `rows`, else none.
      box_slot32=B   1: a `box<flat|span|rows>` copy's runs, and a `box<tiles>`
                     copy's over a merged destination mode (slots of whole 32
                     bytes, `_box_tile.tiles_slot32_pitch`), lie in its box at their
                     source addresses modulo 32 bytes (not 16), so that each source
                     sector phase 1's `cp.async` reads lands in one 32-byte block of
                     shared memory (rows: the pitch step and phase 2's run order
                     from `_box_banks.rows_orders32`, congruent mod 32 where that
                     costs few wavefronts); 2: as 1, and a merged `tiles` box's phase-2
                     chunk lanes that share a 32-byte bank group take rows 16
                     bytes apart in the slots (`_box_tile.tiles_slot32_turn`);
                     3: as 2 where the innermost merged mode is long
                     (`_box_tile.TILES_SLOT32_TURN_RUNS`), else as 1; 0 off. Default per flavour
                     (`_box_tile.BOX_SLOT32`): `span`, and `rows` whose strides' residues are known
                     (static, or promised: `_box_tile.rows_residues`) (a merged `tiles` box:
                     `_box_tile.TILES_SLOT32`, 3).
      box_l1=B       1: the 16-byte `cp.async` of a box copy's
                     phase 1 go through L1 (`.ca`: L2 asked for whole sectors)
                     instead of around it (`.cg`); 0 `.cg`. Default per flavour
                     (`_box_tile.BOX_L1`): `flat` and 1-byte `tiles` boxes (not
                     over a merged destination mode).
      box_blocks=N   blocks a multiprocessor a `box<flat|rows|span|cols>` launch
                     asks to hold (its `tilec.min_blocks`, 1 to 8: NVRTC's
                     `__launch_bounds__(threads, N)`; persistent blocks ask their
                     own); 0 none. Default per flavour (`_box_tile.BOX_BLOCKS`):
                     `rows` 5.
      box_fit=B      1: a `box<rows>` copy whose source step's residue mod 16 is
                     known at run time only takes the steps its box holds at the
                     least residue's pitch, the box grown to hold them at the
                     worst's (within the blocks a multiprocessor holds); 0 the
                     steps at the worst's. Default `_box_tile.ROWS_FIT`: 1.
      box_split=N    N >= 16: a `box<rows>` block's phase 1 in commit groups of
                     N steps (rounded up to a multiple of its warps; at most
                     `_box_tile.ROWS_SPLIT_GROUPS`), phase 2 writing a group's
                     chunks once it landed while the later ones land (one box a
                     block, staged by cp.async, `box_carry` 0); a box of at
                     most N steps one group, committed once; 0 one wait, a
                     group a copy. Default `_box_tile.ROWS_SPLIT`: 0.
      box_runs=A     A coprime to a `box<rows>` copy's destination runs n_W: phase
                     2's item (run q, residue j) writes run A q mod n_W, a warp's
                     two runs A bytes apart in every slot (its bank conflicts);
                     1 in order. Default `_box_tile.ROWS_RUN_STRIDE`: 1.
      box_turn=C     a `box<rows>` copy's phase-2 rounds of items (lanes on
                     consecutive items) turned by r C among the threads in round r:
                     a thread's items of unlike trips; -1 the turn of the fewest
                     trips a thread (`_box_tile.rows_turn_best`). Default
                     `_box_tile.ROWS_TURN`: 0.
      box_deal=D     1: a `box<rows>` copy's phase-2 items (lanes on consecutive
                     items, rounds not turned) of the most chunk trips first, every
                     run's, then the rest: a warp's rounds each of one length where
                     they can be (`_box_tile.rows_warp_trips`); 2 the same for the
                     fewest last runs whose short items fill the last round, the
                     runs before in order (`_box_tile.rows_deal`); plus 4 each
                     item's trips as constants (its loop unrolled); 0 in order.
                     Default `_box_tile.ROWS_DEAL`: 0.
      box_pitch=S    how a `box<rows>` copy places its slots: -1 each at a multiple of
                     16 bytes plus its run's residue; S in 0..7 at a pitch congruent to
                     the source step mod 16, 16 S bytes more than the least; default
                     the step with the fewest modelled bank conflicts
                     (`_box_tile.ROWS_PITCH_STEP`, passes/_box_banks.py).
      tiles_run=B    bytes of a `box<tiles>` copy's source runs, its tile along the
                     source's contiguous mode (default `tiles_run_bytes`'s: 128 for
                     1-byte elements copied as 1-byte ones, 256 for wider ones and
                     1-byte ones converted to wider); a
                     multiple of 16 at most 1024, a run of 16 / E - 1 rows past the
                     tile fitting the box.
      tiles_lanes=N  how a `box<tiles>` copy's phase 2 places a warp's lanes: N (a power
                     of two, 4..32; default `tiles_phase2`'s: 8 for 1-byte elements,
                     16 for wider and for 1-byte ones converted to wider) on N consecutive 16-byte
                     chunks of one destination row, the threads a multiple of N times
                     the grain's elements; 0 on consecutive destination rows.
      tiles_grain=B  bytes of the destination grains a `box<tiles>` block owns (16, 32,
                     64 or 128; default over a merged destination mode
                     `TILES_MERGE_GRAIN` (32), else `tiles_grain_of`'s: 32 for the
                     element sizes of `TILES_SECTOR_BYTES` and, not converted, of
                     `TILES_SECTOR_PLAIN_BYTES`, else 16): 32 writes whole sectors.
      tiles_stage=B  bytes of a `box<tiles>` copy's phase-1 chunks (4, 8 or 16; default
                     `tiles_phase2`'s: 8 for 2-byte source elements
                     (`TILES_STAGE8_BYTES`), else 16); with
                     tiles_lanes, each 16 / E slots move B bytes
                     (4 and 32 lanes: the lanes' box reads without bank conflicts).
      tiles_depth=N  consecutive tiles along the destination's contiguous mode one block
                     of a `box<tiles>` copy takes (1 to 8; default `TILES_MERGE_DEPTH` for
                     a box over a merged destination mode, else 1: `TILES_DEPTH`); past
                     1, through two boxes, the next tile's phase-1 copies in flight
                     during this tile's phase 2 (a merged box: two run tables too).
      tiles_blocks=N blocks a multiprocessor a `box<tiles>` launch asks to hold (its
                     `tilec.min_blocks`, 1 to 8; default 1024 / threads: 64 registers a
                     thread at 512 threads); 3 at 512 threads caps a thread at 40.
      tiles_interleave=I  whether a `box<tiles>` copy rewrites its slots, after phase 1,
                     so that one 32-bit word holds the elements of 4 / E destination
                     rows (1) or not (0); default `tiles_interleaved`'s: 1 for 1-byte
                     elements where it fits (`tiles_interleave_misfit`: 16-byte phase-1
                     chunks, lanes along a row, depth 1, runs a multiple of 64 bytes,
                     threads spread evenly over the run's row groups).
      tiles_row_step=S  how far apart the destination rows of a warp's phase-2 store
                     in a `box<tiles>` copy with lanes along a row are: 0 (the default:
                     `TILES_ROW_STEP`), the rule from the pitches' residues
                     (`tiles_row_step_of`: rows whose element loads fall in different
                     shared-memory banks; 1, 2 or 4 for 1-byte elements, 1 or 2 for
                     2-byte, 1 for 4-byte); 1, 2, 4 or 8 (the warps a multiple of it)
                     forced.
      tiles_rotate=R whether, with tiles_row_step=0, a `box<tiles>` copy whose rule
                     finds no row step (square odd int8 transposes; f16 where m = 1 -
                     P_s P_d is 0 mod 4, f32 where it is even: 8191 x 8209) rotates its
                     phase-2 loads by row lane (1) or not (0); default
                     `tiles_rotated`'s (`TILES_ROTATE_BYTES`: 1-byte elements).
      tiles_columns=C whether a `box<tiles>` copy's phase 1 gives each thread one
                     chunk column of the runs (1: no division a chunk) or a flat
                     loop over (run, chunk) pairs (0, default: `TILES_COLUMNS`).
      tiles_lines=L  bit 1: a `box<tiles>` copy's phase 1 gives each group of
                     128 / S threads (S the bytes of a phase-1 chunk) the chunks of
                     one 128-byte line of one run (one L2 request a group); bit 2: its
                     phase 2 (lanes along a row) counts a row's chunks from the start
                     of the lanes' span holding its first (a quarter warp's stores in
                     one line); 0 neither (default `tiles_lines_of`'s: phase 1 by
                     lines for 1-byte elements, `TILES_LINES_BYTES`).
      tiles_rounds=R whether a `box<tiles>` copy spreads its tiles along the
                     destination's contiguous mode over whole rounds of the blocks the
                     GPU holds at once (1: `_copy_cost.tiles_in_rounds`; each tile then
                     at most the box's steps, computed on the host where the extents
                     are run-time values) or takes the box's steps (0, default:
                     `TILES_ROUNDS`, measured no faster).
      tiles_merge=B  the largest source element (bytes) of a `box<tiles>` copy whose
                     destination is compact over the modes after the source's
                     contiguous mode that merges them into one destination mode
                     (`_copy_cost.tiles_merged`; default 1: `TILES_MERGE_BYTES`, at
                     least 4 for copies widening their elements at most twice,
                     `tiles_merge_bytes`; 0 none; `copy-strategy`'s `tiles_merge`
                     must agree).
      tiles_merge_banks=M  whether a `box<tiles>` copy over a merged destination mode
                     pads its run tables and, where tiles_row_step is 0, puts a warp's
                     phase-2 rows `tiles_merged_row_step` apart (1: its reads in
                     different shared-memory banks; default: `TILES_MERGE_BANKS`)
                     or not (0).
      tiles_fill=F   how a `box<tiles>` copy with lanes along a destination row fills
                     its phase-2 trips (bits; default `TILES_FILL`: 1): 1, the tile
                     along `D` whose trips along a row are fullest
                     (`_box_tile.tiles_filled_dt`) instead of the box's largest; 2,
                     where its rows are `W` whole and known, the threads whose row
                     groups fill the rows' trips best (`tiles_filled_threads`); 4,
                     bit 1 also where a block takes several tiles (`tiles_depth`).
      tiles_issue=B  bits, how a `box<tiles>` block issues its work
                     (default `_box_tile.tiles_issue_of`'s: `TILES_ISSUE`, 0, but for
                     the sizes of `TILES_ISSUE_BYTES`, and `TILES_ISSUE_CONSTANT`
                     more for 1-byte boxes of constant extents, `TILES_ISSUE_RUNTIME`
                     of run-time ones, `TILES_ISSUE_MERGED`'s over a merged
                     destination mode): 1, a thread's phase-1
                     copies in one commit group; 2, phase 2's chunk
                     loop of a destination run unrolled; 4, phase 1's line loop
                     over runs, a thread's slot of a run fixed; 8, that loop with a
                     quarter warp a run, a thread's chunk of each of its lines;
                     16, phase 2's element-wise edge path kept rolled; 32
                     (over 2), the chunk loop unrolled by 2; 64, phase 2's
                     thread values kept (not recomputed a chunk); 128, a run's box
                     addresses kept once a run; 256, the edge path's elements
                     read at the whole chunk's box addresses (no addresses of its own);
                     512, 64's values kept only where the loads are rotated (the
                     rotated one of the two phase-2 bodies a run-time test chooses).
      tiles_short=B  the largest source element (bytes) of a `box<tiles>` copy whose
                     source-contiguous mode is short, its runs that mode whole
                     (`_copy_cost.TILES_SHORT_BYTES`; default 2; 0 none; `copy-strategy`'s
                     `tiles_short` must agree).
      tiles_mirror=R the runs (bytes, a multiple of 16 up to 2048; 0 none) of a
                     `box<tiles>` copy over the source's contiguous mode and the mode
                     continuing its run as one mode (`_copy_cost.tiles_mirror_mode`;
                     each destination row's start from its step's digits), where it
                     fits (`_box_tile.tiles_mirror_misfit`: lanes along a row, one
                     tile a block, not merged, interleaved, spread over rounds nor
                     stored by lines), its phase 1 by `TILES_MIRROR_STAGE`-byte
                     chunks unless tiles_stage says; default the rule's:
                     `_copy_cost.TILES_MIRROR` (512) where the source-contiguous
                     mode is short (`tiles_short_run`), else none.
      tiles_short_d=B  the least wider element (bytes) of a `box<tiles>` copy whose
                     destination-contiguous mode is short and source-contiguous mode
                     long, its rows whole in a tile (`_copy_cost.TILES_SHORT_D_BYTES`;
                     default 0: none; `copy-strategy`'s `tiles_short_d` must agree).
      tile_bytes=B   the heuristic's budget of a tile whose views share their
                     contiguous mode (default 32768: `TILE_BYTES`); a power of two, at
                     least 1024.
      smem_tile_bytes=B  the heuristic's budget of a transposing tile whose views allow
                     16-byte vectors (default 16384: `SMEM_TILE_BYTES`); a power of
                     two, at least 1024.

    Preconditions: both views have the same number of top-level modes with the same
    extents (dynamic extents are taken from the `layout.view` index operands of either
    view); neither is vectorized or masked.

    Tile heuristic (E = element bytes). The heuristic reads facts only: which strides
    are 1 (the contiguous modes), each mode's extent where it is known (static, or the
    `at_most` bound a `layout.view` promises for a dynamic one), the alignment of both
    views (pointer and `divisible` strides) and the destination's memory order (static
    strides, smallest first; dynamic strides after them, a later mode before an earlier
    one). A `tilec.Program` of static views and `tilec.copy_`'s program of the same
    views with run-time values get the same tile. Tile extents are powers of two; a mode
    whose known extent fits in the tile wanted along it is taken whole (its extent's
    power-of-two ceiling: one tile, its edge once):
      * 1-D: 16 KiB per block (4096 f32, 8192 f16).
      * Both views contiguous along the same mode d (or neither contiguous): 1 KiB
        along d (256 f32), and the next-fastest mode of the destination gets the rest
        of a 32 KiB tile (32 rows of f32); a tile clamped by small extents grows
        along d again, up to the budget.
      * Contiguous along different modes (a transpose: the tile is converted between
        layouts through shared memory): a square s x s on the two contiguous modes,
        s the largest power of two with s*s*E <= 16 KiB (64x64 f32, 128x128 i8), a
        side clamped by a short mode letting the other grow within the budget.
        When either view cannot use 16-byte vectors (its pointer is not 16-byte
        aligned, or a stride other than its stride-1 run is not a multiple of 16
        bytes, as in a 16381 x 16411 f32 transpose), the tile is 512 bytes along the
        source's contiguous mode and the rest of a 128 KiB budget (64 KiB of 8-byte elements:
        `misaligned_tile_bytes`) of at most 32768
        elements along the destination's (256 x 128 f32 at 512 threads, 128 x 64
        f64 at 256): misaligned runs begin and end in sectors shared with the
        neighbouring tiles, and long runs on both sides make those few. Not where
        either contiguous mode is known short (at most 64: taken whole by any tile,
        its runs no longer in a larger one), nor for source elements of 1 or 2 bytes
        (32768 elements hold 32 or 64 KiB only, and the one block a multiprocessor
        too few bytes in flight: `misaligned_tile_fills`): a 16 KiB tile whose source runs are a
        warp's elements (the Target's warp size; a short source mode whole: every
        access is one element, a warp's load one run), the rest of the budget to the
        destination's contiguous mode and, while the mode before is taken whole, its
        next modes in memory order (the destination's runs continue there: short
        rows written as long runs; H200, the strided set: a permute into rows of 17
        i64 at 32 x 4 x 32 0.90 of cudaMemcpy, 0.64 at 128 x 1 x 32); what they leave
        lengthens the source's runs (a rank-2 transpose into rows of 5: 512 x 8).
      * Rank 3 and above: what the two modes chosen as above leave of their budget
        goes to the further modes in the destination's memory order (a permute of
        short extents becomes a batch of small tiles in one block); the rest tile 1.

    Grid mapping: the tiled modes (those with more than one tile) in the destination's
    memory order, fastest first: block x walks the destination's contiguous mode (so
    consecutive blocks write neighbouring memory), block y the next; further modes are
    linearised into block z (decomposed with arith.remui/divui). A mode whose static tile
    count exceeds CUDA's 65535 limit on y and z, or whose tile count is dynamic (it may
    exceed that limit at run time), is folded into x instead. Tile counts are
    ceil-divided, with `arith.ceildivui` for dynamic extents.
    """

    name = "tile"

    tile: tuple[int, ...] = ()
    threads: int | None = None
    runs: int = GATHER_RUNS_PER_THREAD
    gather_bytes: int = 0
    gather_fill: int = GATHER_FILL
    realign_chunks: int | None = None
    realign_prefetch: int | None = None
    realign_bytes: int | None = None
    realign_flat: int | None = None
    realign_run: int | None = None
    realign_lanes: int | None = None
    realign_elems: int = 0
    realign_bits: int = 1
    magic64: int | None = None
    narrow32: int | None = None
    div32: int | None = None
    narrow_count: int = 0
    inbounds: int | None = None
    box_smem: int | None = None
    box_stage: str = "async"
    box_lanes: int | None = None
    box_grain: int | None = None
    box_pitch: int | None = None
    box_depth: int | None = None
    box_ring: int | None = None
    box_carry: int | None = None
    box_prefetch: int | None = None
    box_slot32: int | None = None
    box_l1: int | None = None
    box_blocks: int | None = None
    box_fit: int | None = None
    box_split: int | None = None
    box_runs: int | None = None
    box_turn: int | None = None
    box_deal: int | None = None
    tiles_run: int | None = None
    tiles_lanes: int | None = None
    tiles_grain: int | None = None
    tiles_stage: int | None = None
    tiles_depth: int | None = None
    tiles_blocks: int | None = None
    tiles_interleave: int | None = None
    tiles_rounds: int = int(TILES_ROUNDS)
    tiles_row_step: int = TILES_ROW_STEP
    tiles_rotate: int | None = None
    tiles_columns: int = int(TILES_COLUMNS)
    tiles_lines: int | None = None
    tiles_merge: int = TILES_MERGE_BYTES
    tiles_merge_banks: int = int(TILES_MERGE_BANKS)
    tiles_fill: int = int(TILES_FILL)
    tiles_issue: int | None = None
    tiles_short: int = TILES_SHORT_BYTES
    tiles_mirror: int | None = None
    tiles_short_d: int = TILES_SHORT_D_BYTES
    tile_bytes: int = TILE_BYTES
    smem_tile_bytes: int = SMEM_TILE_BYTES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for name in ("tile_bytes", "smem_tile_bytes"):
            b = getattr(self, name)
            if b < 1024 or b & (b - 1):
                raise TilecError(f"tile: {name}={b} must be a power of two, at least 1024")
        if self.threads is not None and not 1 <= self.threads <= 1024:
            raise TilecError(f"tile: threads={self.threads} must be in [1, 1024]")
        if self.tiles_run is not None and (self.tiles_run < 16 or self.tiles_run % 16 or self.tiles_run > 1024):
            raise TilecError(f"tile: tiles_run={self.tiles_run} must be a multiple of 16 in [16, 1024]")
        if self.tiles_lanes is not None and self.tiles_lanes and (
                self.tiles_lanes & (self.tiles_lanes - 1) or not 4 <= self.tiles_lanes <= 32):
            raise TilecError(f"tile: tiles_lanes={self.tiles_lanes} must be 0 or a power of two in [4, 32]")
        if self.tiles_stage is not None and self.tiles_stage not in (4, 8, 16):
            raise TilecError(f"tile: tiles_stage={self.tiles_stage} must be 4, 8 or 16")
        if self.tiles_blocks is not None and not 1 <= self.tiles_blocks <= 8:
            raise TilecError(f"tile: tiles_blocks={self.tiles_blocks} must be in [1, 8]")
        if self.tiles_interleave not in (None, 0, 1):
            raise TilecError(f"tile: tiles_interleave={self.tiles_interleave} must be 0 or 1")
        if self.tiles_rounds not in (0, 1):
            raise TilecError(f"tile: tiles_rounds={self.tiles_rounds} must be 0 or 1")
        if self.tiles_row_step not in (0, 1, 2, 4, 8):
            raise TilecError(f"tile: tiles_row_step={self.tiles_row_step} must be 0, 1, 2, 4 or 8")
        if self.tiles_rotate not in (None, 0, 1):
            raise TilecError(f"tile: tiles_rotate={self.tiles_rotate} must be 0 or 1")
        if self.tiles_merge_banks not in (0, 1):
            raise TilecError(f"tile: tiles_merge_banks={self.tiles_merge_banks} must be 0 or 1")
        if self.tiles_fill not in range(8):
            raise TilecError(f"tile: tiles_fill={self.tiles_fill} must be in [0, 7]")
        if self.tiles_issue is not None and not 0 <= self.tiles_issue <= 1023:
            raise TilecError(f"tile: tiles_issue={self.tiles_issue} must be in [0, 1023]")
        if self.tiles_columns not in (0, 1):
            raise TilecError(f"tile: tiles_columns={self.tiles_columns} must be 0 or 1")
        if self.tiles_lines not in (None, 0, 1, 2, 3):
            raise TilecError(f"tile: tiles_lines={self.tiles_lines} must be 0, 1, 2 or 3")
        if self.tiles_mirror is not None and self.tiles_mirror and (self.tiles_mirror % 16 or not 16 <= self.tiles_mirror <= 2048):
            raise TilecError(f"tile: tiles_mirror={self.tiles_mirror} must be 0 or a multiple of 16 in [16, 2048]")
        for name in ("tiles_merge", "tiles_short", "tiles_short_d"):
            if not 0 <= getattr(self, name) <= 8:
                raise TilecError(f"tile: {name}={getattr(self, name)} must be in [0, 8]")
        if self.box_depth is not None and not 0 <= self.box_depth <= 8:
            raise TilecError(f"tile: box_depth={self.box_depth} must be in [0, 8]")
        if self.box_ring is not None and self.box_ring and not 2 <= self.box_ring <= 8:
            raise TilecError(f"tile: box_ring={self.box_ring} must be 0 or in [2, 8]")
        if self.box_carry not in (None, 0, 1, 2, 3, 4):
            raise TilecError(f"tile: box_carry={self.box_carry} must be in [0, 4]")
        if self.box_l1 not in (None, 0, 1):
            raise TilecError(f"tile: box_l1={self.box_l1} must be 0 or 1")
        if self.box_blocks is not None and not 0 <= self.box_blocks <= 8:
            raise TilecError(f"tile: box_blocks={self.box_blocks} must be in [0, 8]")
        if self.box_fit not in (None, 0, 1):
            raise TilecError(f"tile: box_fit={self.box_fit} must be 0 or 1")
        if self.box_slot32 not in (None, 0, 1, 2, 3):
            raise TilecError(f"tile: box_slot32={self.box_slot32} must be in [0, 3]")
        if self.box_split is not None and self.box_split and not 16 <= self.box_split <= 1024:
            raise TilecError(f"tile: box_split={self.box_split} must be 0 or in [16, 1024]")
        if self.box_runs is not None and not 0 <= self.box_runs <= 1024:
            raise TilecError(f"tile: box_runs={self.box_runs} must be in [0, 1024]")
        if self.box_turn is not None and not -1 <= self.box_turn <= 1024:
            raise TilecError(f"tile: box_turn={self.box_turn} must be in [-1, 1024]")
        if self.box_deal not in (None, 0, 1, 2, 5, 6):
            raise TilecError(f"tile: box_deal={self.box_deal} must be 0, 1, 2, 5 or 6")
        if self.box_prefetch not in (None, 0, 64, 128, 256):
            raise TilecError(f"tile: box_prefetch={self.box_prefetch} must be 0, 64, 128 or 256")
        if self.tiles_depth is not None and not 1 <= self.tiles_depth <= 8:
            raise TilecError(f"tile: tiles_depth={self.tiles_depth} must be in [1, 8]")
        if self.tiles_grain not in (None, 16, 32, 64, 128):
            raise TilecError(f"tile: tiles_grain={self.tiles_grain} must be 16, 32, 64 or 128")
        if self.box_lanes is not None and self.box_lanes and (
                self.box_lanes & (self.box_lanes - 1) or not 1 <= self.box_lanes <= 32):
            raise TilecError(f"tile: box_lanes={self.box_lanes} must be 0 or a power of two in [1, 32]")
        if self.box_pitch is not None and not -1 <= self.box_pitch < 8:
            raise TilecError(f"tile: box_pitch={self.box_pitch} must be in [-1, 7]")
        if self.box_grain not in (None, 0, 16):
            raise TilecError(f"tile: box_grain={self.box_grain} must be 0 or 16")
        if self.box_stage not in BOX_STAGES:
            raise TilecError(f"tile: box_stage={self.box_stage} must be one of {', '.join(BOX_STAGES)}")
        if any(t <= 0 for t in self.tile):
            raise TilecError(f"tile: tile extents must be positive, got {list(self.tile)}")
        copies = [
            o for o in op.walk()
            if isinstance(o, CopyOp) and enclosing_launch(o) is None
            and o.source.type.memory_space == "gmem" and o.dest.type.memory_space == "gmem"
        ]
        for c in copies:
            self._tile_copy(c)
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            _sink_moved_pointers(launch)

    # ------------------------------------------------------------------ one copy

    def _tile_copy(self, copy: CopyOp) -> None:
        if copy.strategy_name == "gather":
            self._gather(copy)
            return
        if copy.strategy_name == "realign":
            self._realign(copy)
            return
        if copy.strategy is not None and copy.strategy.kind == "box":
            self._box(copy)
            return
        for operand in (copy.source, copy.dest):
            pin_exact_extents(operand)
        st: TensorViewType = copy.source.type
        dt: TensorViewType = copy.dest.type
        for t, what in ((st, "source"), (dt, "destination")):
            if t.vec_layout is not None or t.is_masked:
                raise TilecError(f"tile: the {what} view {t} must be unvectorized and unmasked", op=copy)
            if not isinstance(t.layout, CuteLayoutAttr):
                raise TilecError(f"tile: the {what} view must have a plain (unswizzled) layout", op=copy)
        sl, dl = st.cute_layout, dt.cute_layout
        ss, ds = views.mode_sizes(sl), views.mode_sizes(dl)
        if len(ss) != len(ds) or any(
            a is not DYN and b is not DYN and a != b for a, b in zip(ss, ds)
        ):
            raise TilecError(
                f"tile: the views of a copy must have the same shape, got {_shape(ss)} and {_shape(ds)}",
                op=copy,
            )
        extents = tuple(b if a is DYN else a for a, b in zip(ss, ds))
        tile, threads = self._choose_tile(copy, sl, dl, extents, element_bytes(st.element_type))
        try:
            views.tile_layout(sl, tile)
            views.tile_layout(dl, tile)
        except LayoutError as e:
            raise TilecError(f"tile: cannot tile the copy by {list(tile)}: {e}", op=copy) from None

        new_ops: list[Operation] = []
        consts: dict[int, SSAValue] = {}

        def const(v: int) -> SSAValue:
            if v not in consts:
                c = arith.ConstantOp.from_int_and_width(v, index)
                new_ops.append(c)
                consts[v] = c.result
            return consts[v]

        # tile counts per mode: ints where static, SSA values where dynamic
        counts: list[int | SSAValue] = []
        for k, (n, t) in enumerate(zip(extents, tile)):
            if n is not DYN:
                counts.append(-(-n // t))
            else:
                size = _dynamic_extent(copy, k, new_ops)
                op = arith.CeilDivUIOp(size, const(t))
                new_ops.append(op)
                counts.append(op.result)
        tiled = [k for k, c in enumerate(counts) if not (isinstance(c, int) and c == 1)]
        order = [k for k in dst_memory_order(dl) if k in tiled]
        groups: list[list[int]] = [order[:1], order[1:2], order[2:]]
        for g in (1, 2):
            n = _static_product(counts, groups[g])
            # a dynamic tile count may pass 65535 at run time: x takes it
            if (n is None and groups[g]) or (n is not None and n > MAX_GRID_YZ):
                groups[0] += groups[g]
                groups[g] = []
        nx = _static_product(counts, groups[0])
        if nx is not None and nx > MAX_GRID_X:
            raise TilecError(
                f"tile: tiles {list(tile)} make {nx} blocks along x, more than CUDA's "
                f"{MAX_GRID_X}: use larger tiles",
                op=copy,
            )
        grid = [self._group_size(counts, g, new_ops, const) for g in groups]
        launch = LaunchOp(grid, threads)
        body: list[Operation] = []
        coords: list[SSAValue | None] = [None] * len(tile)
        for g, bid in zip(groups, launch.block_ids):
            rest = bid
            for i, k in enumerate(g):
                if i == len(g) - 1:
                    coords[k] = rest
                    break
                cnt = counts[k]
                if isinstance(cnt, int):
                    c = arith.ConstantOp.from_int_and_width(cnt, index)
                    body.append(c)
                    cnt = c.result
                rem, div = arith.RemUIOp(rest, cnt), arith.DivUIOp(rest, cnt)
                body += [rem, div]
                coords[k] = rem.result
                rest = div.result
        if any(c is None for c in coords):
            zero = arith.ConstantOp.from_int_and_width(0, index)
            body.append(zero)
            coords = [zero.result if c is None else c for c in coords]
        ta = TileOp(copy.source, coords, tile)
        tb = TileOp(copy.dest, coords, tile)
        inner = CopyOp(ta.result, tb.result, copy.convert, copy.strategy)
        body += [ta, tb, inner]
        launch.body.block.add_ops(body)
        new_ops.append(launch)
        copy_loc(copy, *new_ops)
        Rewriter.replace_op(copy, new_ops, [])

    def _gather(self, copy: CopyOp) -> None:
        """The gather strategy's launch in the copy's place (passes/_gather_tile.py),
        with 32-bit offsets where the function promises them or static extents and
        strides show they fit."""
        facts = copy_facts(copy)
        if facts is None or facts.rank < 1:
            raise TilecError(
                "tile: a copy of strategy gather is between two `layout.view`s of pointers "
                "whose modes are single leaves", op=copy)
        threads = self.threads or GATHER_THREADS
        if self.gather_bytes not in (0, 16, 32):
            raise TilecError(f"tile: gather_bytes={self.gather_bytes} must be 0, 16 or 32", op=copy)
        if threads < 32 or threads & (threads - 1) or self.runs < 1 or self.runs & (self.runs - 1):
            raise TilecError(f"tile: a gather copy takes threads and runs that are powers of two, threads at "
                             f"least 32; got threads={threads} runs={self.runs}", op=copy)
        tgt = module_target(copy)
        bits = _promised_bits(copy)
        promised = bits is not None
        if self.gather_fill > 0 and fill_fits(facts, tgt):
            if bits is None:
                bits = static_index_bits(facts, threads * fill_vector(facts, tgt)) or 64
            ops = fill_launch(copy, facts, tgt, bits, threads, self.gather_fill)
            if not promised:
                _promise_launch(ops, bits)
            _replace_copy(copy, ops)
            return
        if bits is None:
            bits = static_index_bits(facts, threads * self.runs * gather_vector(facts, tgt, self.gather_bytes)) or 64
        ops = gather_launch(copy, facts, tgt, bits, threads, self.runs, self._magic64(),
                            None if self.narrow32 is None else bool(self.narrow32),
                            DIV32 if self.div32 is None else bool(self.div32), bool(self.narrow_count),
                            None if self.inbounds is None else bool(self.inbounds), self.gather_bytes)
        if not promised:
            _promise_launch(ops, bits)
        _replace_copy(copy, ops)

    def _magic64(self) -> bool:
        """Whether 64-bit ids divide by run-time extents as multiplications (`magic64=`)."""
        return MAGIC64 if self.magic64 is None else bool(self.magic64)

    def _realign(self, copy: CopyOp) -> None:
        """The realign strategy's launch in the copy's place (passes/_realign_tile.py),
        with 32-bit offsets where the function promises them or static extents, strides
        and misalignments show they fit; the views and their moved pointers go."""
        facts = copy_facts(copy)
        if facts is None or not realign_fits(facts, (1, 2), rule=False):
            raise TilecError(
                "tile: a copy of strategy realign copies rows contiguous in both views (the last "
                "mode's strides 1) of one element type of at most 8 bytes, without conversion, two "
                "modes or more, between two `layout.view`s whose pointers are 16-byte aligned "
                "pointers moved by a scalar `layout.addptr` of an index (their misalignments)", op=copy)
        threads = self.threads or (STEP2_THREADS if source_step(facts) == 2 else REALIGN_THREADS)
        chunks = self.realign_chunks
        if threads < 32 or threads & (threads - 1):
            raise TilecError(f"tile: a realign copy takes threads that are a power of two, at least 32; "
                             f"got threads={threads}", op=copy)
        if chunks is not None and (chunks < 1 or chunks > 8 or chunks & (chunks - 1)):
            raise TilecError(f"tile: a realign copy takes realign_chunks a power of two up to 8; got {chunks}", op=copy)
        tgt = module_target(copy)
        bits = _promised_bits(copy)
        promised = bits is not None
        if bits is None:
            bits = realign_static_bits(facts, tgt, self.realign_bytes) or 64
        mode = prefetch_rule(facts) if self.realign_prefetch is None else self.realign_prefetch
        if mode not in (0, 1, 2, 3, 4, 5, 6, 7):
            raise TilecError(f"tile: realign_prefetch is 0-7; got {self.realign_prefetch}", op=copy)
        if self.realign_bytes not in (None, 8, 16):
            raise TilecError(f"tile: realign_bytes is 8 or 16; got {self.realign_bytes}", op=copy)
        flat = flat_rule(facts) if self.realign_flat is None else bool(self.realign_flat)
        run = run_broadcast(facts) if self.realign_run is None else self.realign_run
        lanes = REALIGN_RUN_LANES if self.realign_lanes is None else self.realign_lanes
        for name, x, top in (("realign_run", run, 16), ("realign_lanes", lanes, 32)):
            if x < 0 or x > top or (x and x & (x - 1)) or (name == "realign_lanes" and x < 1):
                raise TilecError(f"tile: {name} is a power of two up to {top}; got {x}", op=copy)
        if run and run_fits(facts):
            # a compact destination's rows continue each other: no sector is written in part
            ops = realign_run_launch(copy, facts, tgt, bits, threads, run, lanes, bool(self.realign_elems),
                                     mode != 0 and not facts.dst_compact, self._magic64(), bool(self.realign_bits))
        elif flat and flat_fits(facts, tgt):
            ops = realign_flat_launch(copy, facts, tgt, bits, threads, self._magic64(),
                                      flat_chunks(facts, tgt, chunks))
        else:
            rows_chunks = chunks_rule(facts) if chunks is None else chunks
            ops = realign_launch(copy, facts, tgt, bits, threads, rows_chunks, mode != 0, self._magic64(),
                                 ahead=mode == 2, bulk=mode in (3, 4, 5, 6, 7), ends=mode in (4, 5),
                                 div32=None if self.div32 is None else bool(self.div32), late=mode in (5, 6, 7),
                                 edges=mode in (6, 7), chunk=self.realign_bytes, merged=mode == 7)
        if not promised:
            _promise_launch(ops, bits)
        _replace_copy(copy, ops)

    def _box(self, copy: CopyOp) -> None:
        """The box strategy's launch in the copy's place (passes/_box_tile.py); the views
        and the aligned-down pointers' `layout.addptr`s go. Where the function promises
        no index width and the facts show 32 bits fit (`box_index_bits`: static reach,
        misalignments static or bounded), the launch promises it."""
        facts = copy_facts(copy)
        flavour = copy.strategy.flavour  # type: ignore[union-attr]
        # any element size the flavour fits (`copy-strategy`'s `tiles_bytes` is a choice)
        # the box: the option's, else the strategy's default (a `tiles` box: `tiles_smem`)
        smem = box_smem_of(flavour, facts.src_bytes if facts is not None else 1, self.box_smem, self.box_depth)
        # a short W's runs take it whole (`_copy_cost.TILES_SHORT_BYTES`)
        short_run = tiles_short_run(facts) if facts is not None and flavour == "tiles" else None
        # the grain: the option's, else the rule's (a merged box's `TILES_MERGE_GRAIN`) where
        # the box and the threads fit it
        merge = tiles_merge_bytes(facts, self.tiles_merge) if facts is not None else self.tiles_merge
        merged = facts is not None and flavour == "tiles" and tiles_merged(facts, merge) is not None
        # tiles a block: the option's, else a merged box's rule (`TILES_MERGE_DEPTH`, its boxes
        # `TILES_MERGE_DEPTH_SMEM` each where the box is not asked), else one
        depth = self.tiles_depth or (TILES_MERGE_DEPTH if merged else TILES_DEPTH)
        # runs over W and the mode continuing it (`tiles_mirror`; the rule's `TILES_MIRROR` where W
        # is short), where the box fits them (`tiles_mirror_misfit`)
        mirror = 0
        if facts is not None and flavour == "tiles" and tiles_mirror_mode(facts) is not None:
            lanes0 = tiles_phase2(facts.src_bytes, facts.dst_bytes if facts.converts else None)[0]
            misfit = tiles_mirror_misfit(
                lanes0 if self.tiles_lanes is None else self.tiles_lanes,
                bool(self.tiles_interleave) if self.tiles_interleave is not None else tiles_interleaved(facts.src_bytes),
                merged,
                depth, bool(self.tiles_rounds), tiles_lines_of(facts.src_bytes, self.tiles_lines, facts.dst_bytes))
            if self.tiles_mirror and misfit:
                raise TilecError(f"tile: tiles_mirror={self.tiles_mirror} does not fit {misfit}", op=copy)
            asked = self.tiles_mirror if self.tiles_mirror is not None else (TILES_MIRROR if short_run else 0)
            mirror = 0 if misfit else asked
        run = mirror or self.tiles_run or short_run or (
            tiles_run_bytes(facts.src_bytes, facts.dst_bytes) if facts is not None else tiles_run_bytes(1))
        if merged and self.tiles_depth is None and depth > 1 and not self.box_smem:
            smem = TILES_MERGE_DEPTH_SMEM
        tiles_grain = self.tiles_grain or (TILES_MERGE_GRAIN if merged else tiles_grain_of(
            facts.dst_bytes if facts is not None else 1, None, facts is not None and facts.converts))
        if facts is not None and self.tiles_grain is None and tiles_grain != TILES_GRAIN and (
                tiles_shape(facts.src_bytes, smem, run, tiles_grain, facts.dst_bytes) is None):
            tiles_grain = TILES_GRAIN
        if facts is None or box_flavour(facts, self.box_smem or BOX_SMEM, tiles_bytes=8,
                                                merge=self.tiles_merge, short=self.tiles_short,
                                                short_d=self.tiles_short_d) != flavour or (
                flavour == "tiles" and tiles_shape(facts.src_bytes, smem, run, tiles_grain,
                                                   facts.dst_bytes) is None):
            raise TilecError(
                f"tile: a copy of strategy {copy.strategy_name} is a transpose (converting only as box<tiles>) that "
                f"the box rule takes as {flavour} with a box of {smem} bytes (tiles_run={run}) "
                "(passes/_copy_cost.box_flavour), between two `layout.view`s of pointers", op=copy)
        threads = self.threads or (TILES_MERGE_THREADS if merged else TILES_THREADS if flavour == "tiles" else BOX_THREADS)
        if threads < 32 or threads % 32:
            raise TilecError(f"tile: a box copy takes threads that are a multiple of 32; got threads={threads}",
                             op=copy)
        grain = max(tiles_grain, 16) // facts.dst_bytes
        lanes, stage = tiles_phase2(facts.src_bytes, facts.dst_bytes if facts.converts else None)
        lanes = lanes if self.tiles_lanes is None else self.tiles_lanes
        stage = (TILES_MIRROR_STAGE if mirror else stage) if self.tiles_stage is None else self.tiles_stage
        if flavour == "tiles" and self.tiles_fill & 2 and not self.threads and lanes and depth == 1:
            # the rows' trips filled (`TILES_FILL` bit 2) where a block's rows are W whole, known
            mw = next(m for m in facts.modes if _static(m.src_stride) == 1)
            whole = (short_run and not mirror) or (merged and not self.tiles_run and mw.exact and mw.bound is not None
                                  and tiles_merged_run(facts.src_bytes, mw.bound) is not None)
            if whole and mw.exact and mw.bound is not None:
                threads = tiles_filled_threads(mw.bound, lanes, grain, threads)
        if flavour == "tiles" and facts.converts and not lanes:
            raise TilecError("tile: a converting box<tiles> copy takes its phase-2 lanes along a destination "
                             "row; got tiles_lanes=0", op=copy)
        if flavour == "tiles" and facts.converts and (lanes * (16 // facts.dst_bytes)) % (16 // facts.src_bytes):
            raise TilecError(f"tile: a converting box<tiles> copy of {facts.src_bytes}-byte into "
                             f"{facts.dst_bytes}-byte elements takes tiles_lanes a multiple of "
                             f"{facts.dst_bytes // facts.src_bytes} (its lanes' chunks a source chunk apart); "
                             f"got tiles_lanes={lanes}", op=copy)
        if flavour == "tiles" and lanes and (threads // lanes) % grain and self.tiles_grain is None:
            tiles_grain = TILES_GRAIN  # the rule's grain, where the threads do not fit it
            grain = tiles_grain // facts.dst_bytes
        if flavour == "tiles" and lanes and (threads // lanes) % grain:
            raise TilecError(f"tile: tiles_lanes={lanes} takes threads a multiple of {lanes} x "
                             f"{grain}; got threads={threads}", op=copy)
        if flavour == "tiles" and self.tiles_row_step > 1 and (not lanes or (threads // 32) % self.tiles_row_step):
            raise TilecError(f"tile: tiles_row_step={self.tiles_row_step} takes lanes along a row and warps a "
                             f"multiple of it; got tiles_lanes={lanes}, threads={threads}", op=copy)
        interleave = False
        if flavour == "tiles":
            misfit = ("a converting copy" if facts.converts
                      else tiles_interleave_misfit(facts.src_bytes, run, threads, lanes, stage, depth))
            if self.tiles_interleave and misfit:
                raise TilecError(f"tile: tiles_interleave=1 does not fit {misfit}", op=copy)
            interleave = (bool(self.tiles_interleave) if self.tiles_interleave is not None
                          else tiles_interleaved(facts.src_bytes) and misfit is None)
        # the runs asked, else (one tile a block, not interleaved, not spread over
        # rounds) the box's own (`tiles_shape`: a short D's fit)
        fixed = interleave or (depth > 1 and not merged and not short_run) or bool(self.tiles_rounds)
        # phase 1 by lines: the rule's only where the box takes its own runs (measured there)
        lines_bits = tiles_lines_of(facts.src_bytes, self.tiles_lines, facts.dst_bytes)
        if self.tiles_lines is None and (merged or short_run or self.tiles_run):
            lines_bits &= ~1
        ops = box_launch(copy, facts, flavour, smem, threads, self.box_stage, run if fixed else (self.tiles_run or short_run),
                         lanes, tiles_grain, stage, depth, self.tiles_blocks, interleave,
                         self.box_lanes, self.box_grain, self.box_pitch, bool(self.tiles_rounds), self.box_depth,
                         self.tiles_row_step, tiles_rotated(facts.src_bytes, self.tiles_rotate), self.box_ring,
                         merge, bool(self.tiles_columns), self.box_carry,
                         lines_bits, bool(self.tiles_merge_banks), self.tiles_fill, self.box_prefetch,
                         self.box_slot32,
                         None if self.box_l1 is None else bool(self.box_l1), mirror,
                         tiles_issue_of(facts.src_bytes, self.tiles_issue,
                                        plain=(not merged and not facts.converts
                                               and facts.src_bytes in TILES_SECTOR_PLAIN_BYTES),
                                        constant=all(isinstance(m.extent, int) for m in facts.modes),
                                        merged=merged), self.box_blocks,
                         None if self.box_fit is None else bool(self.box_fit), self.box_split, self.box_runs,
                         self.box_turn, self.box_deal)
        if _promised_bits(copy) is None:
            _promise_launch(ops, box_index_bits(facts, smem))
        _replace_copy(copy, ops)

    def _group_size(self, counts, group: list[int], new_ops: list[Operation], const) -> SSAValue:
        n = _static_product(counts, group)
        if n is not None:
            return const(n)
        return _product([const(counts[k]) if isinstance(counts[k], int) else counts[k] for k in group], new_ops)

    # ------------------------------------------------------------------ tile choice

    def _choose_tile(
        self, copy: CopyOp, sl: cute.Layout, dl: cute.Layout, extents: tuple, eb: int
    ) -> tuple[tuple[int, ...], int]:
        """(tile extents, threads per block)."""
        rank = len(extents)
        if self.tile:
            tile = tuple(self.tile)
            what = "option tile"
        elif isinstance(attr := copy.attributes.get("tile"), DenseArrayBase):
            tile = tuple(int(x) for x in attr.get_values())
            what = "the copy's tile attribute"
        else:
            aligned = all(_vector_aligned(v, eb) for v in (copy.source, copy.dest))
            known = known_extents(copy, extents)
            tile = heuristic_tile(sl, dl, known, eb, aligned, tile_bytes=self.tile_bytes,
                                  smem_tile_bytes=self.smem_tile_bytes, warp_size=module_target(copy).warp_size)
            # 512 threads for a misaligned transpose's tile when it gives each 32 elements,
            # and for a tile over a short source run (`_short_run_transpose`)
            big = math.prod(tile) >= 32 * MISALIGNED_THREADS
            wide = big and _misaligned_transpose(sl, dl, aligned, eb, known)
            threads = MISALIGNED_THREADS if wide or _short_run_transpose(sl, dl, aligned, known) else 256
            return tile, self.threads or threads
        if len(tile) != rank:
            raise TilecError(
                f"tile: {what} {list(tile)} has {len(tile)} extents but the views have {rank} modes",
                op=copy,
            )
        for t, n in zip(tile, extents):
            if t <= 0 or (n is not DYN and t > next_pow2(n)):
                raise TilecError(
                    f"tile: {what} {list(tile)} does not fit the views' shape {_shape(extents)}",
                    op=copy,
                )
        return tile, self.threads or 256


def _misaligned_transpose(sl: cute.Layout, dl: cute.Layout, aligned: bool, eb: int, extents: Sequence = ()) -> bool:
    """Whether the views are contiguous along different modes, one of them cannot use
    16-byte vectors, the tile of `eb`-byte source elements fills its byte budget
    (`misaligned_tile_fills`), and neither contiguous mode is known short (at most
    `SMALL_EXTENT`: a short one is taken whole by any tile, its runs no longer in a
    larger one) (the tile heuristic's misaligned-transpose case). `extents`: each
    mode's known extent or DYN (`known_extents`; none given: none known)."""
    cs, cd = contiguous_mode(sl), contiguous_mode(dl)
    if cs is None or cd is None or cs == cd or aligned or not misaligned_tile_fills(eb):
        return False
    return not any(k < len(extents) and extents[k] is not DYN and extents[k] <= SMALL_EXTENT for k in (cs, cd))


def _short_run_transpose(sl: cute.Layout, dl: cute.Layout, aligned: bool, extents: Sequence) -> bool:
    """Whether the views are contiguous along different modes, one of them cannot use
    16-byte vectors, and the source's contiguous mode is known short (at most
    `SMALL_EXTENT`: the heuristic takes it whole, padded to a power of two, and
    continues its runs, `SOURCE_RUN_BYTES`): such a tile runs at `MISALIGNED_THREADS`.
    H200, the strided set in turns (`tilec.copy_`, 5 rounds, s1146), 512 threads against
    256: 11 (int32 -> f64, runs of 5 continued, tile 8 x 1 x 2 x 8 x 2 x 32) x1.012
    [1.009, 1.013] and x1.011 in a second call, 05 (int64 -> uint8, runs of 37) x1.032
    [0.983, 1.086] and x1.023 (its A/A spread 2%); tiles over
    long source runs lose (06 x0.928, 41 x0.950: 256 threads)."""
    cs, cd = contiguous_mode(sl), contiguous_mode(dl)
    if cs is None or cd is None or cs == cd or aligned:
        return False
    return cs < len(extents) and extents[cs] is not DYN and extents[cs] <= SMALL_EXTENT


def heuristic_tile(
    sl: cute.Layout, dl: cute.Layout, extents: Sequence, eb: int, aligned: bool = True,
    tile_bytes: int = TILE_BYTES, smem_tile_bytes: int = SMEM_TILE_BYTES, warp_size: int = 32,
) -> tuple[int, ...]:
    """The tile `tile` picks when none is given (see the pass documentation); `extents`
    holds each mode's extent where it is known (static, or the `at_most` bound of a
    dynamic one: `known_extents`), else DYN; `aligned` says whether both views allow
    16-byte vectors (`_vector_aligned`); `tile_bytes` and `smem_tile_bytes`: the
    budgets (the pass's options); `warp_size`: the Target's."""
    rank = len(extents)
    cs, cd = contiguous_mode(sl), contiguous_mode(dl)
    tile = [1] * rank

    nested = {k for lay in (sl, dl) for k, m in enumerate(views.modes(lay)) if len(leaves(m)) > 1}

    def clamp(k: int, want: int) -> int:
        # a flat mode that fits in the tile is taken whole: one tile, its edge once; a
        # nested mode (CuTe's hierarchical (2,3)) cannot be tiled past its size
        n = extents[k]
        want = pow2_floor(max(want, 1))
        if n is DYN:
            return want
        return min(want, pow2_floor(n) if k in nested else next_pow2(n))

    dst_order = dst_memory_order(dl)
    if rank == 1:
        tile[0] = clamp(0, ONE_D_BYTES // eb)
        return tuple(tile)
    if _misaligned_transpose(sl, dl, aligned, eb, extents):
        budget = min(misaligned_tile_bytes(eb) // eb, MISALIGNED_TILE_ELEMENTS)
        tile[cs] = clamp(cs, LINE_BYTES_MISALIGNED // eb)
        tile[cd] = clamp(cd, budget // tile[cs])
        tile[cs] = clamp(cs, budget // tile[cd])
        primary = (cs, cd)
    elif cs is not None and cd is not None and cs != cd and not aligned:
        # a misaligned transpose with a short contiguous mode, or of elements too
        # narrow for the tile above to fill its budget (the case above takes the
        # rest): every access is one element, so a warp's load covers
        # `warp_size` elements of a source run; a run that long (a short one whole),
        # and the rest of the budget to the destination's runs, continued through its
        # next modes while the one before is taken whole, then to the source's run
        budget = smem_tile_bytes // eb
        tile[cs] = clamp(cs, SMALL_EXTENT if _known(extents, cs) <= SMALL_EXTENT else warp_size)
        tile[cd] = clamp(cd, budget // tile[cs])
        size = math.prod  # what the budget counts: the tile's elements
        if SOURCE_RUN_BYTES and tile[cs] >= _known(extents, cs):
            # the source's short run continued through the modes that continue it, short
            # ones whole, up to `SOURCE_RUN_BYTES` (`source_run_modes`); the budget then
            # counts the elements the tile uses, not the padding of its short modes
            continued = source_run_modes([_static_stride(m) for m in views.modes(sl)], extents, cs)
            if continued and continued[0] != cd:
                size = functools.partial(_used, extents=extents)
            run = extents[cs] * eb
            for k in continued:
                left = budget // size(tile)
                if run >= SOURCE_RUN_BYTES or k == cd or left < 2:
                    break
                short = _known(extents, k) <= SMALL_EXTENT
                tile[k] = clamp(k, min(left, next_pow2(extents[k]) if short else -(-SOURCE_RUN_BYTES // run)))
                run *= extents[k] if short and tile[k] >= extents[k] else tile[k]
        grown = [cd]
        for k in dst_order[1:]:
            if k == cs or tile[grown[-1]] < _known(extents, grown[-1]):
                break
            tile[k] = clamp(k, budget // size(tile))
            grown.append(k)
        # what the destination's runs leave (their next mode being the source's
        # contiguous one) lengthens the source's runs (continued ones: taken whole already)
        if size is math.prod:
            tile[cs] = clamp(cs, budget // (math.prod(tile) // tile[cs]))
        primary = (cs, *grown)
    elif cs is not None and cd is not None and cs != cd:
        budget = smem_tile_bytes // eb
        s = pow2_floor(int(budget**0.5))
        tile[cs], tile[cd] = clamp(cs, s), clamp(cd, s)
        # a side clamped by a small extent lets the other grow, within the budget
        for a, b in ((cs, cd), (cd, cs)):
            tile[a] = clamp(a, max(tile[a], budget // tile[b]))
        primary = (cs, cd)
    else:
        budget = tile_bytes // eb
        d = cd if cd is not None else (cs if cs is not None else dst_order[0])
        other = next(k for k in dst_order if k != d)
        tile[d] = clamp(d, LINE_BYTES // eb)
        tile[other] = clamp(other, budget // tile[d])
        tile[d] = clamp(d, budget // tile[other])
        primary = (d, other)
    # what the two modes leave of the budget goes to further modes, in the
    # destination's memory order (a permute of short extents: a batch of small tiles)
    for k in dst_order:
        left = budget // math.prod(tile)
        if left < 2:
            break
        if k not in primary:
            tile[k] = clamp(k, left)
    return tuple(tile)


def source_run_modes(strides: Sequence, extents: Sequence, cs: int) -> list[int]:
    """The source modes that continue the run of its contiguous mode `cs` (known and at
    most `SMALL_EXTENT`), in order: each one whose static stride is the run so far, the
    product of the extents before it, all known and short but the last (`SOURCE_RUN_BYTES`);
    [] where `cs` is not short. `strides`: the source's top-level strides (DYN where
    not static); `extents`: each mode's extent where known exactly, else DYN."""
    run = extents[cs]
    if run is DYN or run > SMALL_EXTENT:
        return []
    out: list[int] = []
    while True:
        k = next((m for m, x in enumerate(strides) if x is not DYN and x == run and m != cs and m not in out), None)
        if k is None:
            return out
        out.append(k)
        if extents[k] is DYN or extents[k] > SMALL_EXTENT:
            return out
        run *= extents[k]


def _used(tile: Sequence[int], extents: Sequence) -> int:
    """The elements a tile uses of the views: per mode its extent where that is known and
    shorter than the tile (padding idles lanes but moves no bytes), else the tile's."""
    return math.prod(min(t, n) if n is not DYN else t for t, n in zip(tile, extents))


def _known(extents: Sequence, k: int) -> float:
    """Mode `k`'s known extent (`known_extents`), infinity where none is known."""
    return math.inf if extents[k] is DYN else extents[k]


def _static_stride(mode: cute.Layout):
    """A top-level mode's stride where it is one static leaf, else DYN."""
    ls = leaves(mode)
    return ls[0][1] if len(ls) == 1 and ls[0][1] is not DYN else DYN


def dst_memory_order(dl: cute.Layout) -> list[int]:
    """The destination's modes, fastest first, its contiguous mode first: smallest
    stride first; dynamic strides after static ones, a later mode before an earlier
    one (a row-major order, which `tilec.copy_`'s merged modes keep: sorted by
    destination stride, the last mode fastest)."""
    order = memory_order(dl, contiguous_mode(dl))
    head = order[:1]
    ms = views.modes(dl)
    rest = sorted(order[1:], key=lambda k: (_min_stride(ms[k]), -k))
    return head + rest


def pin_exact_extents(view: SSAValue) -> None:
    """Where `view` is a `layout.view` of a pointer, used only by one op, that promises
    a dynamic extent exactly (`at_most = B` and `divisible` a multiple of B: the value
    is B), replace it by the view whose layout has B there, without that operand and its
    promises. `tilec.copy_` states the short extents of its key so
    (api/copy_program.py); a static extent is what a `tilec.Program` of the same views
    has, and what the tile counts, the grid and the masks are computed from: where such
    an extent stayed a run-time value the NHWC->NCHW f16 kernel tested it in every
    tile's mask and divided its block id by run-time tile counts (328 SASS instructions
    against the Program's 240)."""
    root = view.owner
    if not isinstance(root, ViewOp) or not isinstance(root.source.type, PtrType) or len(list(view.uses)) != 1:
        return
    t: TensorViewType = view.type
    if not isinstance(t.layout, CuteLayoutAttr):
        return
    lay = t.cute_layout
    shape = list(cute.flatten(lay.shape))
    bounds, divs, cong = root.bounds(), root.divisors(), root.congruences()
    keep: list[int] = []
    i = 0
    for k, n in enumerate(shape):
        if n is not DYN:
            continue
        b = bounds[i]
        if b and divs[i] % b == 0:
            shape[k] = b
        else:
            keep.append(i)
        i += 1
    if len(keep) == i:
        return
    keep += list(range(i, len(root.dynamic)))  # the strides' operands stay
    new_lay = cute.Layout(cute.unflatten(shape, lay.shape), lay.stride)
    new = ViewOp(root.source, TensorViewType(t.element_type, new_lay, "gmem"),
                 [root.dynamic[j] for j in keep],
                 divisible=[cong[j][0] for j in keep] if root.divisible is not None and keep else None,
                 at_most=[bounds[j] for j in keep] if root.at_most is not None and keep else None,
                 residue=[cong[j][1] for j in keep] if root.residue is not None and keep else None)
    new.result.name_hint = view.name_hint
    Rewriter.replace_op(root, new)


def known_extents(copy: CopyOp, extents: Sequence) -> tuple:
    """Per mode: its static extent, or the bound a `layout.view` of either view promises
    for a dynamic one (`at_most`, the product over the mode's leaves), else DYN."""
    out = list(extents)
    for k, n in enumerate(extents):
        if n is not DYN:
            continue
        for v in (copy.dest, copy.source):
            bound = _promised_bound(v, k)
            if bound is not None:
                out[k] = bound
                break
    return tuple(out)


def _promised_bound(view: SSAValue, k: int) -> int | None:
    root = view.owner
    if not isinstance(root, ViewOp) or root.result.type.cute_layout != view.type.cute_layout:
        return None
    bounds = root.bounds()
    ms = views.modes(view.type.cute_layout)
    i = sum(_count_dyn(m.shape) for m in ms[:k])
    n = 1
    for leaf in _leaves(ms[k].shape):
        if leaf is DYN:
            if not bounds[i]:
                return None
            n *= bounds[i]
            i += 1
        else:
            n *= leaf
    return n


def _static_product(counts, group: list[int]) -> int | None:
    n = 1
    for k in group:
        if not isinstance(counts[k], int):
            return None
        n *= counts[k]
    return n


def _product(values: list[SSAValue], new_ops: list[Operation]) -> SSAValue:
    """The product of one or more index values, as `arith.muli` ops appended to new_ops."""
    acc = values[0]
    for v in values[1:]:
        m = arith.MuliOp(acc, v)
        new_ops.append(m)
        acc = m.result
    return acc


def _shape(sizes) -> str:
    return "(" + ",".join(str(s) for s in sizes) + ")"


def _dynamic_extent(copy: CopyOp, k: int, new_ops: list[Operation]) -> SSAValue:
    """The run-time extent of mode k: static leaves times the `layout.view` index
    operands that bind its dynamic leaves (from whichever view has them)."""
    for v in (copy.dest, copy.source):
        view = v.owner if isinstance(v.owner, ViewOp) else None
        if view is None:
            continue
        lay = v.type.cute_layout
        ms = views.modes(lay)
        # dynamic values are bound in order of appearance: shape leaves, then strides
        before = sum(_count_dyn(m.shape) for m in ms[:k])
        static, dyn = 1, []
        i = before
        for s in _leaves(ms[k].shape):
            if s is DYN:
                dyn.append(view.dynamic[i])
                i += 1
            else:
                static *= s
        if static != 1 or not dyn:
            c = arith.ConstantOp.from_int_and_width(static, index)
            new_ops.append(c)
            dyn.insert(0, c.result)
        return _product(dyn, new_ops)
    raise TilecError(
        f"tile: mode {k} of the copy is dynamic but neither view is a `layout.view` "
        "whose index operands give its extent",
        op=copy,
    )


def _leaves(t) -> list:
    if isinstance(t, tuple):
        return [x for e in t for x in _leaves(e)]
    return [t]


def _count_dyn(t) -> int:
    return sum(1 for x in _leaves(t) if x is DYN)


def _vector_aligned(view: SSAValue, eb: int) -> bool:
    """Whether every run of `view` along its contiguous mode can start on a 16-byte
    boundary: the root pointer is 16-byte aligned and every stride other than the
    stride-1 run is a multiple of 16 bytes (a dynamic stride when its `layout.view`
    promises it: `divisible`)."""
    root = view.owner
    if not isinstance(root, ViewOp) or not isinstance(root.source.type, PtrType):
        return False
    if root.source.type.alignment % 16:
        return False
    promised = _promised_strides(root) or [None] * len(leaves(view.type.cute_layout))
    for (_, stride), p in zip(leaves(view.type.cute_layout), promised):
        if stride == 1:
            continue
        if stride is DYN:
            stride = p  # a promised multiple, or None
        if stride is None or (stride * eb) % 16:
            return False
    return True


def _promised_bits(copy: CopyOp) -> int | None:
    """The index width the function holding `copy` promises (`tilec.index_bits`), if any."""
    f = copy.parent_op()
    while f is not None and not isinstance(f, func.FuncOp):
        f = f.parent_op()
    return promised_index_bits(f) if f is not None else None


def _promise_launch(ops: list[Operation], bits: int | None) -> None:
    """Where a strategy's rule found 32-bit indices fit (`bits`; the function promising
    none), its `layout.launch` among `ops` promises them: the outlined kernel computes
    every index in 32 bits, as under the function's promise (support/index_width.py),
    whether the numbers that showed it are a Program's static views or `copy_`'s."""
    if bits != 32:
        return
    for op in ops:
        if isinstance(op, LaunchOp):
            promise_index_bits(op, 32)


def _sink_moved_pointers(launch: LaunchOp) -> None:
    """Pointers moved outside `launch` by `layout.addptr` (a pointer argument plus an
    index, as a view of a misaligned pointer has), and the views made of them, that
    ops inside it read are made again at the top of its body, as the verifier and the
    kernel's arguments ask (pointers are made inside the `layout.launch` that uses
    them, dialects/layout_ptr.py; a kernel takes the argument and the index); the
    outer ones go where nothing else reads them. So a strategy that reads its views
    as they are (gather, tiles, the tiled path) takes views of moved pointers as
    realign, which rebuilds them, does. Views of arguments themselves stay outside."""
    body = launch.body.block
    made: dict[SSAValue, SSAValue] = {}

    def moved(v: SSAValue) -> bool:
        owner = v.owner
        if not isinstance(owner, (AddPtrOp, ViewOp)) or launch.is_ancestor(owner):
            return False
        return isinstance(owner, AddPtrOp) or moved(owner.source)

    def inside(v: SSAValue) -> SSAValue:
        if not moved(v):
            return v
        if v not in made:
            owner = v.owner
            base = inside(owner.operands[0])
            clone = owner.clone()
            clone.operands[0] = base
            last = list(made.values())[-1].owner if made else None
            Rewriter.insert_op(clone, InsertPoint.after(last) if last else InsertPoint.at_start(body))
            made[v] = clone.results[0]
        return made[v]

    for op in list(launch.walk()):
        for i, v in enumerate(op.operands):
            if moved(v):
                op.operands[i] = inside(v)
    for v in reversed(list(made)):
        if not v.uses:
            Rewriter.erase_op(v.owner)


def _replace_copy(copy: CopyOp, new_ops: list[Operation]) -> None:
    """`copy` replaced by a strategy's `new_ops` (at its location); its views go where
    nothing else reads them, and so do the `layout.addptr`s they were made of (moved
    pointers: realign's aligned-down ones)."""
    copy_loc(copy, *new_ops)
    views = [v.owner for v in (copy.source, copy.dest)]
    Rewriter.replace_op(copy, new_ops, [])
    for v in views:
        if isinstance(v, ViewOp) and not v.result.uses:
            moved = v.source.owner
            Rewriter.erase_op(v)
            if isinstance(moved, AddPtrOp) and not moved.result.uses:
                Rewriter.erase_op(moved)
