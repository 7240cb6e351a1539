"""The box strategy of a whole-tensor copy (`#layout.copy_strategy<box<flat|rows|cols>>`,
passes/_copy_cost.box_flavour), as the `tile` pass writes it: a `layout.launch` whose
threads copy a *box* of the source through shared memory, so that both global sides
move whole aligned 16-byte vectors.

    ops = box_launch(copy, facts, flavour, smem, threads)   # replaces the copy

The copies it takes move 1-byte elements whose source is contiguous along a short mode
`W` (taken whole, not padded) and whose destination's contiguous mode `D` (the last)
comes next in the source, or the reverse (`cols`). The tiled kernel pads the short mode
to a power of two and moves one byte per access; a box instead stages `T` steps of a
mode `K` (`K` = `D` for `flat`, the mode before `D` for `rows`, `W` for `cols`) whole:

- `flat` (`D` long): one source run of `n_W * T` bytes; the destination `n_W` runs of
  `T` bytes (byte `p` of run `w` is byte `w + n_W p` of the source run);
- `rows` (`D` of 16 to 64 elements, the destination contiguous over `D` and `K`): `T`
  source runs of `n_W n_D` bytes (stride `ss_K`); the destination `n_W` runs of
  `n_D T` bytes (byte `p` of run `w`: source run `p / n_D`, byte `w + n_W (p mod n_D)`);
- `cols` (`W` long, `D` short, the destination contiguous over `D` then `W`): `n_D`
  source runs of `T` bytes (stride `ss_D`); one destination run of `n_D T` bytes (byte
  `p`: source run `p mod n_D`, byte `p / n_D`);
- `span` (`W` = `D` the last mode, rows of `n` < 16 bytes, `K` the mode before at a
  static source pitch `P` < `n + 16`, the destination compact over `K` and `W`): one
  source run of `P (T - 1) + n` bytes, gaps included; one destination run of `n T`
  bytes (byte `p`: byte `P (p / n) + p mod n` of the source run).

Every other mode is a grid step. Phase 1 copies each source run into its shared slot
(slot `r` at `r * PB`, `PB` = `box_pitch` of the run), congruent to its address modulo
16 (the run's first byte at `r PB + (address mod 16)`; a `rows` box's run `r` at `s0 +
pitch r`, the pitch congruent to the source step mod 16 and chosen against bank
conflicts, `rows_slots`): a group of threads (the block;
a warp per run for `rows`) moves the aligned 16-byte chunks that cover the run and
lie inside the source view (the slot holds them whole: `box_pitch`), `UNROLL` a
thread per trip of its loop (no division per chunk), as `BOX_STAGES` says: by default
one `layout.copy_chunk_async` each (`cp.async`, no register round trip), else a
16-byte `layout.read`/`layout.write` each, the reads before the writes; a pass of its
own moves the bytes past the view's last whole chunk (up to 15, of the runs that reach
it) one at a time, in the blocks whose last run reaches it (a block-uniform test).
After a `layout.async_wait` (async) and a barrier, phase 2 gives
each thread one aligned 16-byte chunk of a destination run: its bytes are read from the
slots (`layout.read` of shared bytes), put into a 16-byte vector (`vector.insert`) and
stored with one `layout.write {width = 16}`; a chunk the run's ends cut stores byte by
byte. A `rows` thread takes the chunks of one (run, residue modulo `n_D`): chunk
`j + n_D` lies 16 slots on at the same offsets (the slots' residues mod 16 repeat every
16 steps of `K`), so its box addresses are its first chunk's plus `16 PB m`. The bytes of a `cols` chunk come from `n_D` slots in turn: a thread takes the
chunks of one residue modulo `P = n_D / gcd(n_D, 16)` (each `P` chunks on lie
`16 / gcd(n_D, 16)` bytes further in every slot), so their box addresses are computed
once per block and stepped by one add a byte. Addresses are taken from each view's pointer: where it is a 16-byte aligned
pointer moved by its misalignment (`CopyFacts.src_base`, `src_mis`: what
`tilec.copy_` states), from the aligned pointer, so the 16-byte accesses are vectors
(`layout.multiple_of` states their alignment to the lowering; where the views' reach
is static, so are the extents of the flat views the launch addresses, and the kernel's
indices 32-bit where they fit); else from the pointer
itself, aligned as its type says (an access not known aligned is one per byte).
Offsets are non-negative (`box_flavour` takes no negative stride)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
import math
from math import gcd

from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType, VectorType, i64
from xdsl.ir import Block, Operation, SSAValue

from tilec.dialects import cute
from tilec.dialects.cuda import UNROLL_ATTR, BytePermOp, OpaqueOp
from tilec.dialects.layout import AllocOp, AsyncWaitOp, BarrierOp, CopyOp, LaunchOp, ViewOp
from tilec.dialects.layout_access import CopyChunkAsyncOp, ReadOp, WriteOp
from tilec.dialects.layout_attrs import TensorViewType
from tilec.dialects.layout_ptr import MultipleOfOp
from tilec.dialects.layout_tma import CpAsyncArriveOp, MBarrierArrayOp, MBarrierAtOp, MBarrierWaitOp
from tilec.support.diagnostics import TilecError
from tilec.support.launch_bounds import set_min_blocks

from ._convert_ops import scalar_conversion_ops
from ._gather_tile import fast_divisor
from tilec.support.target import target_of

from ._box_banks import rows_most_step, rows_orders32, rows_pitch, rows_runs, rows_steps, rows_strides
from ._copy_cost import (BOX_SMEM, TILES_MERGE_BYTES, TILES_MIRROR, CopyFacts, Value, _static, box_pitch, span_rows,
                         stride_residue, tiles_in_rounds, tiles_merged, tiles_merged_run, tiles_mirror_mode,
                         tiles_shape, tiles_slots, value_bound)

index = IndexType()

BOX_THREADS = 256
"""Threads per block of the box strategy (`flat`, `rows`, `cols`)."""
TILES_THREADS = 512
"""Threads per block of a `tiles` box: measured on the H200 (8191 x 8209 int8, 40 KiB
boxes), 512 threads (4 blocks, 64 warps a SM) 1.40x of 256 (5 blocks, 40 warps): its
phase 2 is latency-bound."""
TILES_MERGE_THREADS = TILES_THREADS
"""Threads per block of a `tiles` box over a merged destination mode
(`_copy_cost.tiles_merged`)."""
CHUNK = 16
"""Bytes of one vector access (the widest)."""
TILES_LANES = 8
"""How a `tiles` box's phase 2 places the lanes of a warp (the `tile` option
`tiles_lanes`): 0, on consecutive destination rows (each warp store writes 16 bytes
into each of 32 rows); N (a power of two), N lanes on consecutive chunks of one
destination row (a warp store writes `16 N` contiguous bytes of each of `32 / N`
rows: whole 32-byte sectors but at the ends), the slots moved `TILES_STAGE` bytes
every `16 / E` so that the lanes' box reads (slots `16 / E` apart) spread over the
banks. Measured on the H200 (8191 x 8209 transposes, benchmarks/NOTES.md): 8 lanes
int8 0.75 of cudaMemcpy (0 lanes: 0.46, 4-way bank conflicts in Nsight Compute), f16
0.84, f32 0.85; 32 lanes with 4-byte phase-1 chunks (no bank conflict, four times the
`cp.async`) 0.57, 0.74, 0.51."""
TILES_GRAIN = 16
"""Bytes of the destination grains a `tiles` box's block owns (the `tile` option
`tiles_grain`): a block writes the grains that start in its tile's range of each
destination row (and the first tile the one holding the row's first element). 16: a
chunk, so a 32-byte sector at the range's ends is written half by each of two blocks;
32: whole sectors, the box holding `32 / E - 16 / E` more source runs. The default
by the destination's element size: `tiles_grain_of`."""
TILES_MERGE_GRAIN = 32
"""The grain of a `tiles` box over a merged destination mode (`TILES_GRAIN` otherwise): whole
sectors of its long destination rows, with `TILES_MERGE_BANKS`. H200, ratio to cudaMemcpy,
two calls (benchmarks/NOTES.md, perm41): the strided set's 36 (int8 rank 6) 0.548 / 0.547 at
16 bytes, 0.584 / 0.581 at 32, 0.720 / 0.717 at 32 with the bank layout; 00 0.599 / 0.596,
0.593 / 0.586, 0.747 / 0.743. (Session 40's illegal address at 64 bytes: run tables read
past their end, `tiles_merged_table`.)"""
TILES_SECTOR_BYTES: tuple[int, ...] = (2, 4, 8)
"""The destination element sizes whose `tiles` box owns whole 32-byte sectors by default
(`tiles_grain_of`: a grain of 32 bytes, else `TILES_GRAIN`), so that no sector is written
half by each of two blocks (`16 / E` more runs a box). Measured on the H200 (8191 x 8209
transposes, the Program path, benchmarks/NOTES.md, odd40): f32 0.937 -> 0.962 and 0.918
-> 0.939 of cudaMemcpy in two runs, f16 0.941 -> 0.960; int8 0.856 -> 0.795 (its box of
86 KiB holds 16 more runs, and phase 2 spills 20 bytes at 64 registers): 2- and 4-byte
elements. Nsight Compute (f32, grain 16): the L2 at 93% of its throughput, 1.09 times the
ideal write sectors. 8-byte elements (a box the rule takes only where asked,
`copy-strategy{tiles_bytes=8}`: `_copy_cost.TILES_BYTES`): f64 8191 x 8209 in turns, 16-byte
grains x0.983 of 32-byte ones (0.923 / 0.938 of cudaMemcpy, 10 rounds, odd44)."""


TILES_SECTOR_PLAIN_BYTES: tuple[int, ...] = (1,)
"""The destination element sizes whose `tiles` box owns whole 32-byte sectors by default
where it does not convert (`tiles_grain_of`), a Program's (constant extents) and
`tilec.copy_`'s (extents known at run time only) alike. H200, int8 odd transposes in graph
timing (benchmarks/NOTES.md): copy_ 8191 x 8209 0.906 -> 0.943 of cudaMemcpy (x1.039, i8p47);
the Program's kernel spilled 20 bytes at 64 registers there (x0.951) until its edge path read
the chunk's kept addresses (`TILES_ISSUE_CONSTANT`, b0048): with it x1.058 / x1.099 / x1.052
on 8191 x 8209 / 4099 x 12289 / 8191 x 8191 (5 of 5 rounds each)."""


TILES_SECTOR_CONVERTS = True
"""Whether a converting `tiles` box into elements of `TILES_SECTOR_BYTES` owns whole
sectors by default too (`tiles_grain_of`). H200, in turns against 16-byte grains (5 rounds,
benchmarks/NOTES.md, perm43): the strided set's 29 (f16 -> bf16, a short W) x1.022 (0.774
-> 0.791 of cudaMemcpy; Nsight Compute at 16: the L2 at 90% of its throughput, 1.08 times
the ideal write sectors), 23 (bool -> int16) x1.040 (0.813 -> 0.845)."""


def tiles_grain_of(dst_e: int, asked: int | None, converts: bool = False) -> int:
    """Bytes of the destination grains a `tiles` box's block owns: `asked` (the `tile`
    option `tiles_grain`), else 32 for the element sizes of `TILES_SECTOR_BYTES` (whole
    sectors) where the copy does not convert or `TILES_SECTOR_CONVERTS`, and for those of
    `TILES_SECTOR_PLAIN_BYTES` where it does not convert; `TILES_GRAIN` for the others (the
    `tile` pass also where the box or the threads do not fit 32)."""
    if asked:
        return asked
    if not converts and dst_e in TILES_SECTOR_PLAIN_BYTES:
        return 32
    return 32 if dst_e in TILES_SECTOR_BYTES and (not converts or TILES_SECTOR_CONVERTS) else TILES_GRAIN


TILES_STAGE = 16
"""Bytes of each `cp.async` (or register) chunk of a `tiles` box's phase 1 (the `tile`
option `tiles_stage`: 16, 8 or 4, at least an element). With the lanes along a row
(`TILES_LANES` > 0), slot `r` is moved `TILES_STAGE` bytes every `16 / E` slots: at 4
bytes, 32 lanes reading one element each from slots `16 / E` apart fall in 32 banks
(no conflict), at 16 in 8 (4-way); the price is 16 / TILES_STAGE `cp.async` a 16-byte
chunk."""
TILES_DEPTH = 1
"""Tiles along `D` one block of a `tiles` box takes in turn (the `tile` option
`tiles_depth`): 1, one tile, its phase 1 then its phase 2; N > 1, N consecutive tiles
through two boxes, tile j + 1's phase-1 copies in flight while tile j's phase 2 reads
the other box (twice the shared memory a block, the grid N times smaller along D; a box
over a merged destination mode with two run tables, the next tile's filled before its
copies). Measured slower on the int8 odd transposes (benchmarks/NOTES.md, odd38, odd40):
off."""

TILES_MERGE_DEPTH = 1
"""Tiles a block of a `tiles` box over a merged destination mode takes by default
(`TILES_DEPTH` for the others; the `tile` option `tiles_depth` overrides both), each box
`TILES_MERGE_DEPTH_SMEM` bytes where more than one and the box is not asked: the next
tile's tables and copies in flight during this tile's phase 2. Nsight Compute on the
H200 (benchmarks/NOTES.md, perm43): one tile a block, 23-31% of the warps' samples wait at
the barrier that ends phase 1 (36, 00). Timed in turns against one tile a block (5 rounds):
two tiles 36 x0.886, 00 x0.954, four x0.882 / x0.921 (29's short-W box at two tiles of 32
KiB x0.895): slower, 1."""
TILES_MERGE_DEPTH_SMEM = 46080
"""Bytes of each of the two boxes of a merged `tiles` box of several tiles a block
(`TILES_MERGE_DEPTH`): two blocks a multiprocessor."""

TILES_ROW_STEP = 0
"""How far apart the destination rows of one warp's phase-2 store are in a `tiles` box
with lanes along a row (the `tile` option `tiles_row_step`): S, a warp's `32 / lanes`
rows `S` apart (warp `w`, row lane `k`: row `(w / S) (32 / lanes) S + w mod S + S k`,
the block's first `threads / lanes` rows in another order); 0, `tiles_row_step_of`'s
rule from the pitches (bank-conflict-free where one is), the default. Measured on the
H200 (int8 8191 x 8209, Nsight Compute, one launch each, benchmarks/NOTES.md): rows 2
apart (the rule's) 44.2 us, 1.14 shared wavefronts a load, against 46.9 us and 2.15 at
consecutive rows (copy_'s kernel, about 2% slower than the Program's in every run)."""

TILES_MERGE_BANKS = True
"""Whether a `tiles` box over a merged destination mode (`tiles_launch`'s `merge`) lays out
phase 2's shared-memory reads by bank (the `tile` option `tiles_merge_banks`): its run
tables padded (`tiles_merged_table_at`: one entry more every `V_d`, so the `lanes` chunks
of a warp, `V_d` runs apart, read entries in different banks) and, where the row step is
not forced (`tiles_row_step` 0), a warp's rows `tiles_merged_row_step` apart (rows whose
chunk grids start at one residue read the same runs: one slot's bytes a chunk lane).
dev/experiments/merged_banks.py's model: 36 3.1 wavefronts a phase-2 load, 1.5 with both;
00 2.2, 1.0. Nsight Compute on the H200 (36, grain 16): 2.64 -> 1.58 shared wavefronts a
load; timings at `TILES_MERGE_GRAIN`."""

TILES_FILL = 1
"""How a `tiles` box with lanes along a destination row fills its phase-2 trips (the `tile`
option `tiles_fill`, bits; 1 by default). Bit 1: instead of the box's largest `Dt`, the `Dt` whose trips
along a row are fullest (`tiles_filled_dt`): phase 2 gives each thread the chunks `ci, ci +
lanes, ...` of its rows, `C = Dt / V_d + G_e / V_d` chunks a row at most, so `ceil(C /
lanes)` trips of which the last is `C mod lanes` lanes full (36's `Dt` 384 at 32-byte
grains: 26 chunks, 4 trips of 8 lanes, 81% of the lanes busy; 352: 24 chunks, 3 trips,
all). Bit 2: where the block's rows are `W` whole and known (a short `W`, a merged box's
`W`), the threads whose row groups (`threads / lanes`) fill the rows' trips best
(`tiles_filled_threads`: 29's 42 rows in groups of 32, two trips 66% busy; 24 groups, 384
threads, 88%). Bit 4: bit 1 also where a block takes several tiles (`tiles_depth`; its boxes
then as full as one tile's). H200 (benchmarks/NOTES.md, perm43), bit 1 in turns against the box's
largest `Dt` (5 rounds): 36 x1.021 (0.732 -> 0.748 of cudaMemcpy), 00 x1.018, 23 x1.012, 29
x1.001, int8 8191 x 8209 x1.013, f32 x1.001 (f16's unchanged); bit 2 (29 at 384 threads,
one run) 0.580 against 0.772: fewer threads hide less of phase 1's wait. Bit 1."""

TILES_FILL_LEAST = 0.75
"""The least share of the box's `Dt` `tiles_filled_dt` shrinks a tile to."""


def _fullest(cands: list[int], busy) -> int:
    """Of `cands` (the default first), the default unless another keeps its lanes more than
    2% busier (`busy`); then the first within 2% of the busiest."""
    best = max(busy(c) for c in cands)
    if best <= busy(cands[0]) * 1.02:
        return cands[0]
    return next(c for c in cands if busy(c) >= best / 1.02)


def tiles_filled_dt(dt: int, vd: int, vm: int, ge: int, lanes: int) -> int:
    """The steps of `D` of a `tiles` box's tile (`TILES_FILL`): of the multiples of `vm`
    from `dt` (the box's largest) down to `TILES_FILL_LEAST dt`, the one whose phase-2
    lanes are busiest, `Dt / (ceil(C / lanes) lanes V_d)` with `C = Dt / V_d + G_e / V_d`
    the chunks a row spans at most (`ge` a grain's elements, `vd` a destination chunk's);
    the largest of those within 2% of the best (`dt` where none is 2% better)."""
    def busy(d: int) -> float:
        c = d // vd + ge // vd
        return d / (-(-c // lanes) * lanes * vd)

    return _fullest(list(range(dt, max(vm, int(dt * TILES_FILL_LEAST)) - 1, -vm)), busy)


def tiles_filled_threads(rows: int, lanes: int, grain_e: int, threads: int) -> int:
    """The threads of a `tiles` box whose block takes `rows` destination rows (`TILES_FILL`
    bit 2): of `threads`, three quarters and half of it (a multiple of 32 whose row
    groups, `threads / lanes`, are a multiple of the grain's `grain_e` elements), the one
    whose groups fill `ceil(rows / groups)` trips best, `rows / (ceil(rows / groups)
    groups)`; the most threads within 2% of the best (`threads` where none is 2% better)."""
    def busy(t: int) -> float:
        g = t // lanes
        return rows / (-(-rows // g) * g)

    cands = [t for t in (threads, threads * 3 // 4, threads // 2)
             if t and t % 32 == 0 and t // lanes and (t // lanes) % grain_e == 0]
    if not cands or cands[0] != threads:
        return threads
    return _fullest(cands, busy)


TILES_ROTATE_BYTES: tuple[int, ...] = (1,)
"""The element sizes whose `tiles` box rotates its phase-2 loads by row lane by default
where its row rule finds no row step (`tiles_rotated`; the `tile` option `tiles_rotate`
asks it or not for any size): `tiles_row_step_of`'s m = 0 mod 8 for 1-byte elements
(every square odd int8 transpose: 4 wavefronts a load otherwise, 1 rotated, 8 selects a
chunk more), 0 mod 4 for 2-byte, even for 4-byte (f32 8191 x 8209: 2 -> 1). Measured on
the H200 (benchmarks/NOTES.md, odd39; the Program path, ratio to cudaMemcpy): int8 8191 x
8191 0.660 -> 0.809; f32 8191 x 8209 0.920 / 0.920 (Nsight: 1.81 -> 1.06 wavefronts a
load, 142.4 / 142.3 us): 1-byte elements only. `tilec.copy_`'s int8 kernel tests m at run
time (its phase 2 built twice)."""


def tiles_rotated(e: int, asked: int | None) -> bool:
    """Whether a `tiles` box of `e`-byte elements rotates its phase-2 loads where its row
    rule says so: `asked` (the `tile` option `tiles_rotate`), else `TILES_ROTATE_BYTES`."""
    return bool(asked) if asked is not None else e in TILES_ROTATE_BYTES


TILES_COLUMNS = False
"""Whether a `tiles` box's phase 1 gives each thread one chunk column of the runs (the
`tile` option `tiles_columns`: thread `tid` copies chunk `tid mod cpr` of runs `tid / cpr
+ k (threads / cpr)`, `cpr` chunks a run; the last `threads mod cpr` threads idle) instead
of a flat loop over (run, chunk) pairs, which divides each pair's index by `cpr` (SASS:
about 25 instructions a `cp.async`). Not yet measured on a GPU: off."""

TILES_LINES = 0
"""The default of `tiles_lines_of` for the element sizes outside `TILES_LINES_BYTES`.
Bit 1: whether a `tiles` box's phase 1 gives each group of `128 / S` consecutive threads (`S`
the bytes of a phase-1 chunk: 8 threads for 16-byte chunks, a quarter warp) the chunks
of one 128-byte line of one run (the `tile` option `tiles_lines`: thread `tid + k
threads` copies chunk `c` of line `l` of run `r`, `(r, l, c)` its index's digits, `l`
counted from the line holding the run's first element, chunks outside the run's cover
idle), so that each group's `cp.async` is one L2 request, instead of a flat loop over
(run, chunk) pairs whose groups straddle runs and lines. Nsight Compute on the H200
(int8 8191 x 8209, odd40): the flat loop makes 2.25 M L2 read requests for 67 MB (30
bytes a request, 4.3 times the aligned 8192 x 8192 transpose's) and 1.7 times the
sectors; the L2's tag lookups 73% busy, its throughput 84%. Bit 2: whether its phase 2
(lanes along a row) counts a row's chunks from the start of the `lanes` chunks' span
holding its first (lane `ci0` of trip j stores chunk `lanes j + ci0 - lag`, `lag` the
first chunk's place in its span; those before the row's first idle), so that a quarter
warp's 16-byte stores fill one 128-byte line (the flat order: 2.1 times the aligned
transpose's write requests). Measured on the H200 (8191 x 8209, the Program path,
benchmarks/NOTES.md, odd40): phase 1 by lines int8 0.854 -> 0.863, f32 0.918 -> 0.921;
phase 2 by lines int8 0.787 (its loop spills 36 bytes at 64 registers; Nsight: the L2's
read sectors no fewer, 2.17 M read requests against 2.25 M), f16 0.905 against 0.941, f32
with both 0.931."""

TILES_ISSUE = 0
"""How a `box<tiles>` block issues its work (the `tile` option `tiles_issue`, bits; 0 by
default but for the sizes of `TILES_ISSUE_BYTES`). Bit 1: a thread's phase-1 `cp.async` copies (async staging) in
one commit group, closed by phase 1's wait (`layout.copy_chunk_async {uncommitted}`,
`layout.async_wait {commit}`), not a group each. Bit 2: phase 2's loop over a thread's
chunks of a destination run with static trips, unrolled in the CUDA (`#pragma unroll`:
the chunk's addresses by constant offsets from the run's, no trip count kept). Bit 4:
phase 1's loop by lines (`tiles_lines`) over runs, each thread keeping its slot of a run
(`tid mod` the slots a run, where they divide the threads), not over (run, slot) pairs
divided a slot. Bit 8 (over bit 4): that loop with a quarter warp a run, each thread
its chunk of each of the run's lines (`nl` copies a thread a run, a group's copies one line
each, as the line loop's): no idle slots past the run's lines. Bit 16: phase 2's element-wise
path (a chunk the row's ends cut) kept rolled in the CUDA (`#pragma unroll 1`; unrolled
whole, 16 element bodies for 1-byte elements, it is most of the kernel's code). Bit 32 (over
bit 2): phase 2's chunk loop unrolled by 2, not whole. Bit 64: phase 2's first run and chunk
lane of the thread (lanes along a row) kept (`cuda.opaque`), so that ptxas does not recompute
them from the thread id in every chunk (it does at bit 16's 48 registers: 47 -> 73
instructions a chunk). Bit 128: phase 2's box addresses of a destination run (lanes along a
row, neither lines nor mirrored) kept once a run (`cuda.opaque`), a chunk's its run's plus
the chunk's step: with bit 2 a constant. NVRTC's 64-bit shared pointers still keep ptxas
from `LDS [R+UR+imm]` (an add a load); with those kept values 64-bit in the CUDA it folds
them (dev/experiments/held64_turns.py: the chunk 47 -> 32 instructions), and ties the rule
on the H200 (i8p47): off. Bit 256: phase 2's edge path on the whole chunk's kept box
addresses (`TILES_ISSUE_CONSTANT`). Bit 512: bit 64's values kept only in the body whose
loads are rotated, where phase 2 is built twice under a run-time test of the steps
(`tilec.copy_`'s 1-byte kernel; b0048: copy_ with 256 + 64 won where the loads rotate,
8191 x 8191 x1.033, with 256 alone where they do not, 4099 x 12289 x1.031)."""

TILES_ISSUE_BYTES: dict[int, int] = {1: 9, 2: 259}
"""`TILES_ISSUE`'s bits by the source element's bytes where they differ from it
(`tiles_issue_of`). Measured on the H200 (ibox45, `tilec.copy_` in turns against bits 0, 5
rounds): bit 1 (one commit group) faster on every copy, int8 8191 x 8209 x1.010, 8191 x 8191
x1.006, 4099 x 12289 x1.022, uint8 -> int16 x1.004, f16 x1.004, the strided set's 00 x1.007
and 36 x1.005; bit 2 (phase 2 unrolled) over it: f16 8191 x 8209 x1.010 and x1.014 (two
readings), but int8 odd transposes x0.91-0.94 and 00 / 36 / uint8 -> int16 within +-0.2%.
Bit 8 over bit 1 (i8o46, in turns against bit 1, 5 rounds): int8 8191 x 8209 x1.018, 8191 x
8191 x1.012 [1.004, 1.020], 4099 x 12289 x1.016 [1.012, 1.428], uint8 -> int16 x1.003, 00 and
36 x1.000 (their phase 1 not by lines: the same kernel); again against 9 (6 rounds): bit 1
alone x0.984-x0.997, and in graph timing int8 8191 x 8209 through copy_ 0.891 -> 0.901 of
cudaMemcpy (8 of 8 rounds), the Program 0.880 -> 0.894. Bit 16 (the edge path rolled: copy_'s
int8 kernel 1416 -> 896 SASS instructions, 64 -> 48 registers) x0.95 on the int8 odd
transposes: ptxas then recomputes the thread's phase-2 values in each chunk; with them kept
(bit 64) 9 + 16 + 64 still x0.967-x1.000, uint8 -> int16 x0.84. Bit 256 (the edge path on the
chunk's kept addresses) over 3 for 2-byte ones (b0048, graph timing, 7 rounds): f16 8191 x 8209
through copy_ 0.959 -> 0.969 (x1.010 [1.008, 1.012], 7 of 7), the Program 0.960 -> 0.973 (x1.015
[1.011, 1.016], 7 of 7); for 1-byte ones see `TILES_ISSUE_CONSTANT`. So 1-byte sources take bits
1 and 8, 2-byte ones bits 1, 2 and 256; 4- and 8-byte ones are not measured (`TILES_ISSUE`)."""


TILES_ISSUE_CONSTANT = 256
"""`TILES_ISSUE`'s bits added by default for a box of `TILES_SECTOR_PLAIN_BYTES` elements
that does not convert, is not over a merged destination mode, and whose extents are
constants (a Program's; `tiles_issue_of`): bit 256, phase 2's edge path reading the whole
chunk's kept box addresses. At 32-byte grains the Program's int8 kernel without it spilled 20
bytes at 64 registers (its 16 element bodies' own box addresses, their invariant parts hoisted
over the chunk loop; local ptxas 13.0), with it 56 registers, none (8191 x 8191's rotated
loads: 48). H200 (b0048, graph timing, 5 rounds, the Program against 16-byte grains and bits
9): int8 8191 x 8209 0.896 -> 0.948 (x1.058 [1.054, 1.059]), 4099 x 12289 0.868 -> 0.954
(x1.099), 8191 x 8191 0.846 -> 0.887 (x1.052); bit 256 alone at 16-byte grains x1.008.
`tilec.copy_`'s kernel (run-time extents, no spill at 32) takes it at x1.005 / x1.031 /
x0.988 (0 of 5 rounds): not by default; with bit 64 too x0.992 / x1.007 / x1.033."""


TILES_ISSUE_RUNTIME = 768
"""`TILES_ISSUE`'s bits added by default for a box of `TILES_SECTOR_PLAIN_BYTES` elements that
does not convert, is not over a merged destination mode, and whose extents are run-time values
(`tilec.copy_`'s; `tiles_issue_of`): bits 256 and 512, the edge path on the chunk's kept box
addresses, and bit 64's kept thread values in the body of rotated loads only (phase 2 is built
twice under the run-time test of the steps). H200 (flat49, graph timing, 6 rounds, copy_
against bits 9): int8 8191 x 8209 x1.005 [0.995, 1.007] (4 of 6; 256 alone x1.003), 4099 x
12289 **x1.035 [1.020, 1.042]** (6 of 6; 256 alone x1.032), 8191 x 8191 **x1.040 [1.035,
1.051]** (6 of 6; 256 alone x0.990): the rotated body takes b0048's 329 win, the plain one 265's."""


TILES_ISSUE_MERGED: dict[int, int] = {1: 256}
"""`TILES_ISSUE`'s bits added by default for a box over a merged destination mode
(`_copy_cost.tiles_merged`), by its source element's bytes (`tiles_issue_of`): 1-byte ones
bit 256, phase 2's edge path (a chunk a destination row's tile range cuts: about 2 of a
row's 23 chunks in the strided set's 36) on the whole chunk's kept box addresses, one
shared load an element where it read the run table and then the box (two). H200 (p1b50,
`tilec.copy_` in turns against bits 9): 36 x1.007 [1.000, 1.020], 00 x1.009 [0.993, 1.014]
(7 rounds); again x1.009 / x1.007 (15 noisy rounds, the A/A x0.999 / x1.002); bit 16 (the
edge path rolled) x1.004 / x1.005. 41's 4-byte merged box with bit 256 x0.975: not it."""


def tiles_issue_of(e: int, asked: int | None, plain: bool = False, constant: bool = False,
                   merged: bool = False) -> int:
    """The `TILES_ISSUE` bits of a `tiles` box of `e`-byte source elements: `asked` (the
    `tile` option `tiles_issue`), else `TILES_ISSUE_BYTES`'s for `e` (else `TILES_ISSUE`),
    where `plain` (the box's elements of `TILES_SECTOR_PLAIN_BYTES`, not converted, not over
    a merged mode) with `TILES_ISSUE_CONSTANT` where `constant` (its extents constants: a
    Program's), else `TILES_ISSUE_RUNTIME`; where `merged` (over a merged destination mode)
    with `TILES_ISSUE_MERGED`'s for `e`."""
    if asked is not None:
        return asked
    more = (TILES_ISSUE_CONSTANT if constant else TILES_ISSUE_RUNTIME) if plain else 0
    if merged:
        more |= TILES_ISSUE_MERGED.get(e, 0)
    return TILES_ISSUE_BYTES.get(e, TILES_ISSUE) | more


TILES_LINES_BYTES: tuple[int, ...] = (1,)
"""The element sizes whose `tiles` box copies phase 1 by 128-byte lines by default
(`tiles_lines_of`: `TILES_LINES` bit 1; where the box takes its own runs,
`_copy_cost.tiles_run_bytes`, not a short `W` whole nor a merged `D'` (the `tile` pass): the strided set's
cases 00 and 36, int8 `box<tiles>` of such runs, read 4-5% lower by lines in a run of
their own, not compared in one run): 1-byte elements (odd40, H200, the
Program path against `tiles_lines=0`: int8 8191 x 8209 +1.0% and +1.1% in two runs, 8191 x
8191 +0.9%, 8192 x 8209 +0.8%)."""


def tiles_lines_of(e: int, asked: int | None, dst_e: int | None = None) -> int:
    """`TILES_LINES`'s bits for a `tiles` box of `e`-byte elements copied into `dst_e`-byte
    ones (default `e`): `asked` (the `tile` option `tiles_lines`), else bit 1 for the sizes
    of `TILES_LINES_BYTES` copied as such (1-byte ones converted to wider take runs of
    `_copy_cost.TILES_RUN_WIDE_BYTES` without lines: measured so, s1146), else `TILES_LINES`."""
    if asked is not None:
        return asked
    return TILES_LINES | 1 if e in TILES_LINES_BYTES and (dst_e or e) == e else TILES_LINES

TILES_ROUNDS = False
"""Whether a `tiles` box spreads its tiles along `D` over whole rounds of the blocks the
GPU runs at once (the `tile` option `tiles_rounds`; `_copy_cost.tiles_in_rounds`): the
tile's `Dt` then a run-time value where the extents are (`tilec.copy_`), computed on the
host, at most the box's. Measured on the H200 (8191 x 8209 int8, 64 KiB boxes, the
Program path, benchmarks/NOTES.md): 1300 blocks of 416 steps in 5 rounds of 264 ran
0.783 of cudaMemcpy against 0.800 for 1235 blocks of 432 (4.68 rounds): the grid's last
round is not what bounds it. Off."""

TILES_INTERLEAVE_BYTES = 0
"""The largest element a `tiles` box interleaves by default (the `tile` option
`tiles_interleave`, `tiles_interleaved`): none. Measured on the H200 (8191 x 8209, the
Program path, benchmarks/NOTES.md): int8 0.779 of cudaMemcpy interleaved against 0.804
not, f16 0.84 against 0.93: the shared-memory wavefronts fall (int8: 4 a 128-bit access
in phase 1b, 2 a word read in phase 2, against 16 byte reads at 2 a chunk), but the
block's two more barriers and phase 1b's round trip cost more. Interleaved, a box slot holds the
`P = 4 / E` destination rows `q, q + V, ..., q + (P - 1) V` (`V = 16 / E`: rows that far
apart share the destination's 16-byte chunk grid whatever its row pitch) of each source
run element by element in one 32-bit word, so that phase 2 reads one word for `P` rows
where it read one element for one: int8's phase 2 was one `LDS.U8` an output byte, the
shared-memory pipe its bound (benchmarks/NOTES.md, copy44)."""


def tiles_interleaved(e: int) -> bool:
    """Whether a `tiles` box of `e`-byte elements interleaves its slots by default
    (`TILES_INTERLEAVE_BYTES`; where `tiles_interleave_misfit` finds it fits)."""
    return e <= TILES_INTERLEAVE_BYTES


def tiles_interleave_misfit(e: int, run: int, threads: int, lanes: int, stage: int, depth: int) -> str | None:
    """Why a `tiles` box of `e`-byte elements cannot interleave its slots (None: it can):
    2-byte elements or fewer (`P = 4 / e` rows a word, at least 2), 16-byte phase-1
    chunks (the slots' chunks are read back 16 bytes at a time), lanes along a row (a
    positive `lanes`), one tile a block, runs of whole 64-byte pieces (`P` chunks), and
    phase 2's threads spread evenly over its `G = run / 4` row groups (a group: `P` rows
    of one word column): `threads / G` threads each, a multiple of `lanes`, and `32 /
    lanes` groups a warp dividing `G`."""
    if e > 2:
        return f"elements of {e} bytes (at most 2: two or more rows a 32-bit word)"
    if stage != CHUNK:
        return f"tiles_stage={stage} (16-byte phase-1 chunks)"
    if not lanes:
        return "tiles_lanes=0 (lanes along a destination row)"
    if depth != 1:
        return f"tiles_depth={depth} (one tile a block)"
    if run % (4 * CHUNK):
        return f"tiles_run={run} (a multiple of 64 bytes)"
    groups = run // 4
    if threads % groups or (threads // groups) % lanes or groups % (32 // lanes):
        return (f"threads={threads} with tiles_lanes={lanes} ({groups} row groups, each taken by a multiple of "
                f"{lanes} threads, {32 // lanes} groups a warp)")
    return None



def tiles_row_step_of(e: int, lanes: int, stage: int, threads: int, src_step: int | None,
                      dst_step: int | None) -> tuple[int, bool]:
    """The rows apart of a warp's phase-2 lanes (`TILES_ROW_STEP` 0) in a `tiles` box of
    1-byte elements (not converting: `tiles_launch` takes 1 for those), 8 lanes along a row and 16-byte phase-1 chunks, where the source's
    step along `D` (`P_s`) and the destination's row pitch (`P_d`) are known: lane
    `(row k, chunk ci)` of load `t` reads byte `q_k` of slot `r = a(q_k) + 16 ci + t`
    (`a(q) = -(q P_d + c) mod 16`: row q's chunk grid), at `slot_base(r) + res(r) + q_k`
    (`res(r) = (r P_s + c') mod 16`); `slot_base` is a multiple of 16 whose 16-byte bank
    group takes 8 values over a row's 8 chunks, so the warp is conflict-free where its 4
    rows fall in 4 different banks of a group: `(res(r) + q) mod 16 = m q + C(t)` with
    `m = 1 - P_s P_d (mod 16)`, so rows `S` apart with `S m = 4 or 12 (mod 16)`: S = 1
    where `m = 4 (mod 8)`, 2 where `m = 2 (mod 4)`, 4 where m is odd (8191 x 8209: m = 2,
    S = 2, 1.0 wavefront a load against 2.0 at S = 1). Where `m = 0 (mod 8)` (every square
    odd transpose: 4.0 wavefronts a load at any S) no S is, but `P_s` is odd there, so row
    lane k reading element `(t + 4 k) mod 16` of its chunk at load t (its 4 words rotated
    by k, put back by selects before the store) moves its byte by `4 k P_s` (mod 16): a
    quarter of its own (S = 1). Returns (S, rotate); (0, False) where the steps are
    run-time values (the kernel computes both: `tiles_launch`); (1, False) elsewhere
    (other element sizes, lanes or chunks, or warps not a multiple of S).

    2- and 4-byte elements with 16 lanes along a row and 8-byte phase-1 chunks
    (`tiles_phase2`'s for 2-byte elements; its 16-byte chunks of 4-byte ones: consecutive
    rows, not rotated), or 8 lanes and 16-byte chunks: a warp's 2 (4) rows, each lane
    reading one element, row lane k's loads rotated by k 32-bit words (`4 k / E`
    elements) where rotated. f32: the 16 lanes of a row fall in the 16 even (or odd) banks
    (slots `4 PB + 8` bytes apart), and the second row moves its words by `m` (mod 2), so
    where m is even (`P_s P_d` odd: 8191 x 8209, m = 2) the rows share the banks (2.0
    wavefronts a load) at any S; rotated, one word more: 1.0 (8 lanes: 2.0 or 4.0, rotated
    1.0; dev/experiments/tiles_banks.py's model, every residue pair). f16: rotated where `m
    = 0 (mod 4)` (1.0; where m is odd rows 2 apart would read 1.0 against 1.5, measured no
    faster on the H200: f16 8192 x 8209 0.876 / 0.876, so S = 1 for both sizes). The
    rotation of 2- and 4-byte elements removes the conflicts but measured no faster (f32
    8191 x 8209: 1.81 -> 1.06 wavefronts a load, 142.4 / 142.3 us): `TILES_ROTATE_BYTES`."""
    wide = e in (2, 4) and (lanes, stage) in ((16, 8), (8, CHUNK))
    if not wide and (e != 1 or lanes != 8 or stage != CHUNK):
        return 1, False
    if src_step is None or dst_step is None:
        return 0, False  # at run time
    m = (1 - src_step * dst_step) % 16
    if wide:  # consecutive rows (f16's rows 2 apart where m is odd: measured no faster)
        return 1, (m % 2 if e == 4 else m % 4) == 0
    s = 1 if m % 8 == 4 else 2 if m % 4 == 2 else 4 if m % 2 else 1
    return (s if (threads // 32) % s == 0 else 1), m % 8 == 0


def tiles_smem(e: int) -> int:
    """Bytes of a `tiles` box of `e`-byte elements (the `tile` pass's where its
    `box_smem` is not given): 86 KiB for 1-byte elements, 64 KiB for 2-byte ones,
    `BOX_SMEM` (40 KiB) for wider. Measured on the H200 (8191 x 8209 transposes, the
    Program path, two blocks of 512 a multiprocessor, benchmarks/NOTES.md): int8 0.79 ->
    0.80 of cudaMemcpy from 40 to 64 KiB, 0.815 at 75 KiB, 0.792 at 99.6 KiB and 0.773
    at 111 KiB in one run; 86 KiB against 75 in two others 0.833 / 0.817 (odd36) and
    0.820 / 0.810 (odd37); f16 0.89 -> 0.93 from 40 to 64 KiB; f32 0.90 -> 0.68 (its 40 registers
    hold three blocks of 67 KiB boxes)."""
    return 86 * 1024 if e == 1 else 64 * 1024 if e == 2 else BOX_SMEM


def box_smem_of(flavour: str, e: int, asked: int | None, depth: int | None = None) -> int:
    """Bytes of the box of a `flavour` box copy of `e`-byte elements: `asked` (the `tile`
    pass's `box_smem`), else `tiles_smem(e)` for `tiles`, `BOX_SMEM` for the others in
    one part (`box_depth_of(flavour, depth)` 1) and `BOX_PART_SMEM` in parts (a block
    then holds two boxes); the one rule of the `tile` pass and of `tilec.copy_`'s plan
    (its index width)."""
    if asked:
        return asked
    if flavour == "tiles":
        return tiles_smem(e)
    return BOX_SMEM if box_depth_of(flavour, depth) == 1 else BOX_PART_SMEM


def box_depth_of(flavour: str, asked: int | None) -> int:
    """The parts a block of a `flavour` box copy takes (`BOX_DEPTH`): `asked` (the `tile`
    pass's `box_depth`), else the flavour's default."""
    return asked if asked is not None else BOX_DEPTH.get(flavour, 1)


TILES_STAGE8_BYTES: tuple[int, ...] = (2,)
"""The source element sizes whose `tiles` box with 16 lanes along a destination row
(`tiles_phase2`: elements of 2 bytes or more, and 1-byte ones converted to wider) moves
phase 1 by 8-byte chunks; the others by `TILES_STAGE` (16; the `tile` option `tiles_stage`
overrides both). A 16-byte chunk needs nothing 8 does not (its slot 16-byte aligned: the
slots move by the chunk's bytes every `16 / E_d`; its source the run's start rounded down
to 16 bytes, inside the sectors the run touches: the same DRAM and L2 sectors) and halves
phase 1's (run, chunk) pairs and `cp.async`, but moves the slots 16 bytes every `16 / E_d`,
so phase 2's 16 lanes of a row read in 8 groups of 4 banks where 8-byte moves spread them
over 16 (dev/experiments/tiles_banks.py, over the 256 residue pairs of the pitches mod
16: f32 1.0 -> 2.0 wavefronts a load for 192 pairs, 2.0 -> 4.0 for 32; f16 1.0-1.5 -> 2.0-3.0
for 144, 2.0 -> 2.0 for 48, 2.0 -> 4.0 for 64). H200 in turns (benchmarks/NOTES.md, stage44; 16 against 8,
7 rounds): f32 8191 x 8209 x1.010, 8192 x 8209 x1.004; bool -> int16 (strided 23) x1.013,
uint8 -> int16 8191 x 8209 x1.122; f16 -> bf16 (29) x1.014, f16 -> f32 8191 x 8209 x1.004,
f16 8191 x 8209 x1.005 but 8191 x 8200 (a 4-wavefront pair) **x0.959**; f64's box
(`tiles_bytes=8`) x1.009. 2-byte sources keep 8 bytes: their 4-way pairs, a quarter,
lose more than the others gain (copy_'s pitches are run-time values: the key does not
say the pair)."""


def tiles_phase2(e: int, dst_e: int | None = None) -> tuple[int, int]:
    """(lanes, stage): the `tiles` box's phase-2 lanes along a destination row and its
    phase-1 chunk bytes for `e`-byte source elements (`dst_e`-byte destination ones
    where it converts), as measured on the H200 (8191 x 8209 transposes,
    benchmarks/NOTES.md): 1 byte, 8 lanes and 16-byte chunks (`TILES_LANES`,
    `TILES_STAGE`: 0.77 of cudaMemcpy; 16 lanes with 8-byte chunks 0.66); wider, 16 lanes
    and 8-byte chunks (f16 0.85 -> 0.90, f32 0.85 -> 0.91 against 8 and 16); 1 byte into
    wider elements as wider ones, 16 lanes and 8-byte chunks (a destination chunk is
    `16 / dst_e` slots; the strided set's case 23, bool -> int16, sb39, two runs: 0.697 at
    8 lanes and 16-byte chunks, 0.763 / 0.766 at 16 lanes, 0.805 at 16 lanes and 8-byte
    chunks, 0.790 at 32 lanes). The wider boxes' chunks: 16 bytes, but 8 for the source
    element sizes of `TILES_STAGE8_BYTES` (2 bytes; stage44's turns, there)."""
    if e == 1 and not (dst_e is not None and dst_e > 1):
        return TILES_LANES, TILES_STAGE
    return 16, 8 if e in TILES_STAGE8_BYTES else TILES_STAGE


TILES_MIRROR_STAGE = 16
"""The phase-1 chunks (bytes) of a `tiles` box over `W'` (`_copy_cost.TILES_MIRROR`), where
the `tile` option `tiles_stage` does not say: its runs are 512 bytes, not a short `W`, and
16-byte chunks halve their (run, chunk) pairs. H200 in turns (benchmarks/NOTES.md, p2945):
29 with runs of 512 x1.094 of the tree at 16 bytes, x1.059 at 8."""


def tiles_mirror_misfit(lanes: int, interleave: bool, merged: bool, depth: int, rounds: bool,
                        lines: int) -> str | None:
    """Why a `tiles` box with `lanes` lanes along a row (0: none), interleaved or not,
    merged or not, `depth` tiles a block, spread over rounds or not and `lines`
    (`TILES_LINES`'s bits) cannot take `W'` (`tiles_launch`'s `mirror`); None where it can."""
    if not lanes:
        return "lanes across rows (tiles_lanes=0)"
    for bad, what in ((interleave, "interleaved slots"), (merged, "a merged destination mode"),
                      (depth > 1, f"{depth} tiles a block"), (rounds, "tiles spread over rounds"),
                      (bool(lines & 2), "phase 2 by lines")):
        if bad:
            return what
    return None


TILES_SM_THREADS = 1024
"""Threads a multiprocessor a `tiles` box with `TILES_LANES` > 0 is compiled to hold at
least (`tilec.min_blocks`: 2 blocks of 512 threads, 64 registers a thread): its phase
2 is latency-bound (`TILES_THREADS`), and its thread's 16 / E box addresses, kept across
its runs, took 88 registers otherwise (one block of 512 a multiprocessor)."""
UNROLL = 4
"""Whole source chunks a thread stages per trip of phase 1's main loop (loads in
flight per thread where they pass through registers)."""
BOX_LANES = {"flat": 8, "rows": 0}
"""How a `flat` or `rows` box's phase 2 places the lanes of a warp, per flavour (the
`tile` option `box_lanes`): 0, on consecutive work items (`flat`: the chunks of one
destination run, then the next run's; `rows`: the chunk residues mod `n_D` of one run,
then the next run's); N (a power of two up to 32), N lanes on N consecutive chunks
(`flat`) or chunk residues (`rows`) of one destination run and the warp's `32 / N`
groups on consecutive runs. A warp's box reads then fall `n_W` bytes and a residue
apart across the groups (runs `q` are bytes `q` of each step), not only `16 n_W` bytes
apart along one run (a multiple of 16 bytes: at most 8 distinct 4-byte bank groups,
4-way bank conflicts or more). Modelled (`dev/experiments/box_banks.py`, wavefronts a
load of 32 active lanes): box flat bool 19 x 38647519 3.83 with 0, 1.07 with 8 (8 random
flat shapes: 4.7 on average, 2.2 with 8); box rows int8 37 x 17 in 1691 steps 3.99 with
0, 3.1 to 3.3 with 1 to 4 (its runs' residues mod 16 differ run to run, and so do the
slots their chunks start in: the lanes of two runs conflict). Measured on the H200
(2026-11-30, the Program path, ratio to cudaMemcpy): flat 0.737 with 0, 0.780 with 8,
0.705 with 4; rows 0.623 with 0, 0.532 with 4, 0.469 with 2, 0.270 with 1 (its items
37 x 17: lanes idle where a warp's runs or residues pass them)."""


BOX_GRAIN = 16
"""Which destination bytes a `flat` box's block writes (the `tile` option `box_grain`):
0, the bytes of its own steps (its runs' first and last chunks cut by its range: stored
byte by byte by a few lanes while the warp's others wait, a sector split between two
blocks); 16 (default), the 16-byte chunks that start in its range of each destination
run (and the first block the chunk holding the run's first byte), so that only the
destination's own ends cut a chunk: the box holds 15 steps more, staged by phase 1
where the source has them (a box of at most 32 steps keeps 0). Measured on the H200
(box flat bool 19 x 38647519, the Program path, with `BOX_LANES`' 8): 0.773 of
cudaMemcpy with 0, 0.855 with 16 (0.867 at 512 threads, 0.868 with a 64 KiB box)."""
ROWS_GRAIN = 16
"""Which destination bytes a `rows` box's block writes (the `tile` option `box_grain`,
as `BOX_GRAIN` for `flat`): 0, the bytes of its own steps (each run's first and last
chunks cut by the block's range, stored byte by byte by a few lanes of a warp while
the others wait); 16 (default), the 16-byte chunks that start in its range (and the
first block the chunk holding the run's first byte), the box staging one step more
(`n_D` >= 16 bytes). Measured on the H200 (box rows int8 37 x 17 in 1691 steps, the
Program path, 2026-11-30): 0.727 of cudaMemcpy with 0, 0.899 with 16."""
BOX_DEPTH = {"flat": 2, "rows": 1, "span": 1, "cols": 1}
"""How many parts of a box's steps one block of a `flat`, `rows`, `span` or `cols` box
copy takes in turn (the `tile` option `box_depth`): 1, one box, its phase 1 (the loads),
a wait and a barrier, then its phase 2 (the stores), so that a block's loads are idle
while it stores; N > 1, N consecutive boxes' steps through two boxes (twice the shared
memory a block, the grid N times smaller along K), part j + 1's `cp.async` copies issued
before part j's phase 2 reads the other box; 0, persistent blocks (as many as the
Target's multiprocessors hold at once, `tilec.min_blocks` asked), block `b` taking parts
`b`, `b + G`, ... (G the grid) so. Per flavour, as measured on the H200 (2026-11-30,
the Program path, ratio to cudaMemcpy, benchmarks/NOTES.md): box flat bool 19 x
38647519 0.861 in one part of 40 KiB, **0.881 in 2 parts of 40 KiB** (2 blocks a
multiprocessor), 0.843 / 0.793 / 0.772 in 2 / 4 / 8 parts of 20 KiB, persistent 0.737 /
0.753 / 0.788 with parts of 16 / 20 / 32 KiB; box rows int8 37 x 17 in 1691 steps 0.887
in one part, 0.78 in 2 of 40 KiB, 0.71 to 0.81 in parts of 20 KiB, persistent 0.61 to
0.74; rows of 5 at a pitch of 7 (`span`) 0.768 in one part, 0.751 in 4 of 20 KiB, 0.707
persistent. The smaller the parts, the slower, whatever the overlap: flat 2, the others
1. Second run: flat 0.856 in one part, 0.875 in 2 (copy_ 0.875), 0.842 in 4, 0.869 in 2 at
512 threads, 0.863 in 2 of 48 KiB; rows 0.905 in one part, 0.802 in 2, 0.785 in 3."""
BOX_RING = {"flat": 2}
"""How a `flat`, `rows`, `span` or `cols` box copy whose block takes its steps in parts
(`BOX_DEPTH` past 1, staged by `cp.async`) waits for them, per flavour (the `tile`
option `box_ring`; asked with `box_depth` 0, persistent blocks take their parts `bid`,
`bid + G`, ... through the ring in the same rolled loop, no block's end and start
between two parts): 0, two boxes, every thread's `cp.async` copies waited at once
(`cp.async.wait_group 0`), the next part's phase 1 issued before this part's phase 2
(twice in the code: a prologue's and the loop's); S (2 to 8), a ring of S boxes, each
with an mbarrier that every thread arrives on once its copies into the box land
(`layout.cp_async_arrive`), in one rolled loop (phase 1 and phase 2 once in the code),
so that S - 1 parts are in flight while one is written. Measured on the H200
(2026-11-30, box flat bool 19 x 38647519, the Program path, ratio to cudaMemcpy,
benchmarks/NOTES.md): two boxes of 40 KiB in 2 parts 0.877, **a ring of 2 of 40 KiB
0.884** (the same schedule: 672 SASS instructions against 1440); a ring of 3 boxes of
32 KiB in 3 parts 0.864, of 24 KiB in 4 parts (3 blocks a multiprocessor) 0.824, of
14 KiB in 6 parts (5 blocks) 0.795, of 4 boxes of 16 KiB in 8 parts 0.809: more bytes in
flight is slower, not faster (Nsight: the shared-memory pipe's throttle and short
scoreboard stalls grow with the warps; DRAM reads are not what waits). Rows and span in
a ring of 3: 0.789 / 0.713 and 0.705 / 0.721 against 0.899 and 0.772 in one part."""
BOX_CARRY = {"flat": 4, "rows": 0}
"""How a `flat` box whose block owns whole chunks (`BOX_GRAIN`) with lanes on a run's
chunks (`BOX_LANES`) gives its phase 2 work (the `tile` option `box_carry`): 0, the
work items' loop over thread indices (`work_items`: the unit divided out of the index,
the items clamped, each chunk's ownership and row tests in full; box flat bool 19 x
38647519: ~67 SASS instructions a chunk); 1, the warp's units taken directly and a
chunk's tests folded into two (its offset `p` in the run below the block's steps,
unsigned; the row's end), the rest through the general tests (~54); 2, each warp on one
group of `32 / lanes` runs for the whole phase 2, the block's threads the multiple of
32 x the groups nearest to those asked (320 for 19 runs in groups of 4), a thread's run,
residue, box column and range of whole chunks computed once, one unsigned test a chunk
(~43: 16 `LDS.U8`, 12 `PRMT`, the store and 14 more); 3, as 1 with two units a trip,
both chunks' box reads before either's vector; 4, as 1 with a run's chunks counted from
its start rounded down to 32 bytes (one chunk more a run), so that a lane group's chunks
cover whole 32-byte sectors; for a `rows` box owning whole chunks (`ROWS_GRAIN`), 4 puts a
warp on 32 consecutive chunks of one run so counted (each chunk's box addresses computed,
not stepped). Measured on the H200 (2026-11-30, the Program path, ratio
to cudaMemcpy, benchmarks/NOTES.md): default 0.883 / 0.878 (two runs), 1 0.884, 2 0.861
(0.870 at 160 threads, 0.854 at 480), 3 0.857: fewer instructions or more box reads in
flight do not make phase 2 faster (the issue rate falls with the count; Nsight: the box
reads' latency and the data's arrival, and L2 at 89% of its throughput); **4 0.909**
against the default's 0.887 in the same run (the L2's write sectors 1.11x the DRAM's ->
1.04x, 392 -> 381 us): the default for `flat`. Box rows with 4: 0.895 against 0.892 (its
write sectors 1.18x -> 1.10x, its loads 2.12 -> 2.21 wavefronts): 0 for `rows`."""
BOX_PREFETCH: dict[str, int] = {"rows": 128}
"""The L2 prefetch size (bytes) of a `flat`, `rows`, `span` or `cols` box's phase-1
`cp.async` per flavour (the `tile` option `box_prefetch`; `.L2::128B`: the L2 fetches
the 128 bytes around a chunk's sector from DRAM at once). H200, the Program, ratio to
cudaMemcpy, the default over the variant paired by round (benchmarks/NOTES.md, box43):
box rows with 128 **0.905 against 0.886** (+2.2%, 9 of 10 rounds; box41's one run +2.0%;
call 2, the rule against `box_prefetch=0`: 0.908 against 0.889, +2.1%, 10 of 10),
box flat +0.9%, rows of 5 (`span`) +1.6% (each below what `BOX_L1` / `BOX_SLOT32` give
them): 128 for `rows`."""
BOX_SLOT32: frozenset[str] = frozenset({"span", "rows"})
"""The flavours of box whose runs lie at their source addresses modulo 32 bytes, not 16
(the `tile` option `box_slot32` forces it on or off for `flat`, `span` and `rows`), so
that each 32-byte source sector that phase 1's `cp.async.cg` chunks read lands in one
32-byte block of shared memory: a sector whose two 16-byte halves land in two blocks is
read from L2 twice (odd41's micro: a warp's 16-byte chunks at a 16-byte phase cost 32
sectors for 17). Box flat's L2 reads were 1.51x its DRAM reads (box41's Nsight), 1.04x with
it (box43: 384.8 -> 375.7 us). A flat box stages at most `smem - 32` bytes and a span box
`smem - 32` (`span_rows`), so the box holds the 16 bytes more; a rows box holds one run
fewer where it must. A rows box's runs are congruent mod 32 only where its pitch is to
the source step: with it, its step and phase 2's run stride come from
`_box_banks.rows_orders32` (the fewest wavefronts, split sectors counted as
`SPLIT_WAVEFRONTS` more; without, `rows_steps`' step and stride 1); its slots at
multiples of 16 (step -1) keep 16. H200 (box43, paired rounds): rows of 5 (`span`) **0.795
against 0.778** (+2.1%, 10 of 10; call 2, the rule against `box_slot32=0`: 0.791 against
0.773, +2.2%, 10 of 10), box flat +1.75% (below `BOX_L1`'s +2.6%). Box rows int8 37 x 17
(rows48, paired rounds): step 3, runs 3 apart, whole sectors (2.14 wavefronts) **x1.009
[1.007, 1.015]** through copy_ (0.906 -> 0.915, 12 of 12), x1.013 the Program (11 of 12),
the strided set's 42 x1.011 (12 of 12), against the mod-16 step 2 (2.05, every other
run's sectors split); the same step and stride at split sectors x0.996; step 1 (3.22)
x0.90 split or whole. Call 2, the rule against `box_slot32=0`: the Program (strides
static: step and stride constants) x1.012 (0.909 -> 0.920, 11 of 12), but copy_ (both
looked up at run time in two tables, 968 -> 1128 SASS instructions) x0.974 (0.907 ->
0.885, 0 of 12), 42 x0.970: `span` and `rows` where its strides' residues are known (static,
or stated by copy_'s key, `copy_key.ROWS_RESIDUES`: rows49, copy_ 0.907 -> 0.916, x1.010)."""
TILES_SLOT32 = 3
"""A `box<tiles>` over a merged destination mode's `slot32` where the `tile` option
`box_slot32` is not given (`tiles_launch`): 0 runs at their residues mod 16; 1 at their
residues mod 32 (p3646: 36 x1.016, 00 x0.990, its phase-2 loads 1.31 -> 1.84 wavefronts);
2 as 1 with phase 2's rows turned by bank group (`tiles_slot32_turn`; b0047: 00 x1.019, 36
x0.993); 3 turned where the lanes share residues (`TILES_SLOT32_TURN_RUNS`), else as 1.
3: H200 in turns against 0 (s3648, 11 rounds, every round faster): 36 x1.018 [1.010, 1.024],
00 x1.021 [1.007, 1.025], the A/A x1.002 [0.997, 1.008] / x1.003 [0.991, 1.008]; b0047's call
x1.015 / x1.016."""
BOX_L1: frozenset[str] = frozenset({"flat", "tiles"})
"""The flavours of box whose phase-1 16-byte `cp.async` go through L1 (`.ca`; the `tile`
option `box_l1` forces it on or off for every box) instead of around it (`.cg`): odd41's
micro (H200, Nsight) had a warp's 16-byte `.cg` chunks at a 16-byte phase to shared
memory ask L2 for 32 sectors where `.ca` asks 16 (whole sectors): the split sectors
`BOX_SLOT32` avoids by placement, without moving the slots. H200 (box43, the Program,
paired rounds): box flat **0.927 against 0.904** (+2.6%, 10 of 10), the int8 8191 x 8209
transpose (`tiles`) **0.887 against 0.871** (+2.0%, 10 of 10); box rows -9% and rows of 5
(`span`) -9%: their phase 2 reads the box at 2 wavefronts a load and L1's data path
(77% busy with `.ca`, stalls on the MIO queue) is what they share with it. Call 2 (the
rule against `box_l1=0`): flat +2.6%, int8 odd +1.8% (10 of 10 each); but the strided set's
36 (int8, a tiles box over a merged destination mode) -6.6% and 00 -0.5% (8 of 8), 23
(bool -> int16) even: a tiles box over a merged D' (`_copy_cost.tiles_merged`) stays `.cg`."""
BOX_BLOCKS: dict[str, int] = {"rows": 5}
"""The blocks a multiprocessor a `flat`, `rows`, `span` or `cols` box launch asks to hold,
per flavour (the `tile` option `box_blocks`; `tilec.min_blocks`, NVRTC's
`__launch_bounds__(threads, N)`). A scheduling hint as much as a bound: `tilec.copy_`'s
rows kernel for the canonical 37 x 17 copy takes 48 registers through NVRTC with or
without it, as the Program's does (nvcc's whole compile of the same source takes 60, the
number session 45 read), but with 5 ptxas issues 9 of a phase-2 chunk's 16 box loads
before the first `PRMT` where without it 5 (the Program's 10 either way). H200 (brow46,
paired rounds, copy_ / the Program): box rows copy_ **x1.013** (0.893 -> 0.906, 11 of
12), with `ROWS_FIT` **x1.017** (0.908, 12 of 12), the Program x1.001 (0.909 -> 0.910);
rows of 5 (`span`) x1.001, `cols` x0.999: `rows` 5. 6 blocks (40 registers, 8 bytes of
spills, a box of 36 KiB) x0.914. Call 2, the rule (with `ROWS_FIT`) against neither:
x1.012 (14 of 14; copy_ 0.908, the Program 0.904); rows boxes of 43008 bytes x1.002,
45056 x0.963, 47104 (4 blocks) x0.964: 40 KiB stays."""
BOX_PART_SMEM = BOX_SMEM
"""Bytes of each of the two boxes of a block taking its steps in parts (`BOX_DEPTH` not
1) where the `tile` pass's `box_smem` is not given: `BOX_SMEM` (40 KiB, two blocks a
multiprocessor), as measured (`BOX_DEPTH`: parts of 20 KiB, five blocks, were slower)."""
BOX_STAGES = ("async", "registers")
"""How phase 1 moves a source run's whole chunks into the box: `async`, one
`layout.copy_chunk_async` each (`cp.async`: global to shared memory without a
register, all waited for once before the barrier); `registers`, `UNROLL` 16-byte
`layout.read`s before their `layout.write`s."""


def box_rows(flavour: str, nw: int | None, nd: int | None, smem: int, spare: int = 0) -> tuple[int, int]:
    """(T, PB): the steps of `K` a box stages and the pitch of its shared slots, for a
    box of `smem` bytes (module doc); a `flat` box holding `spare` steps more (the
    chunks a block owns reach past its steps: `BOX_GRAIN`)."""
    if flavour == "flat":
        t = (smem - 32) // nw - spare  # type: ignore[operator]
        return t, box_pitch(nw * t)  # type: ignore[operator]
    if flavour == "rows":
        pb = box_pitch(nw * nd)  # type: ignore[operator]
        return smem // pb, pb
    t = smem // nd - 30  # type: ignore[operator]
    return t, box_pitch(t)


ROWS_PITCH_STEP: int | None = None
"""How a `rows` box places its slots (the `tile` option `box_pitch`): -1, each at a
multiple of 16 bytes plus its run's address mod 16 (every phase-2 load about 4
wavefronts for the canonical 37 x 17 copy); a step `i` in 0..7, slot `r` at `s0 +
pitch r`, the pitch congruent to the source step mod 16, `16 i` more than the least
(`_box_banks.rows_pitch`); None (default), the step with the fewest modelled
wavefronts for the copy's runs and the residues mod 16 of its source step `ss_K` and
destination run step `ds_W` (`_box_banks.rows_steps`), looked up in the kernel where
the facts leave them to run time (`tilec.copy_`'s strides)."""


ROWS_FIT = True
"""How a `rows` box whose source step's residue mod 16 is known at run time only
(`tilec.copy_`'s strides) sizes its steps (the `tile` option `box_fit`): False, the runs
its box holds at the worst residue's pitch (15 bytes a slot more than the least); True,
the runs it holds at the least residue's pitch, the box grown to hold as many at the
worst's (`rows_fit_least`), as a Program of known strides takes at its own residue
(the canonical 37 x 17 copy: 57 steps a block -> 58, the Program's; its box 40960 ->
41456 bytes). H200 (brow46, copy_, paired rounds): box rows x1.006 alone (11 of 12),
x1.017 with `BOX_BLOCKS`' 5 against neither (12 of 12; 0.893 -> 0.908, the Program
0.909). The Program at 57 steps ties its 58 (x0.999)."""


ROWS_SPLIT = 0
"""How a `rows` box's phase 1 is waited for (the `tile` option `box_split`): 0, one wait
for all its copies before phase 2; N >= 16, in commit groups of the runs of N steps each
(rounded up to a multiple of the block's warps, which take a run each: `rows_split_steps`),
at most `ROWS_SPLIT_GROUPS`: phase 2 writes the chunks lying in a group's steps once that
group has landed (`cp.async.wait_group` of the groups after it, a barrier), while the later
groups land. Applies to a `rows` box of one part (`box_depth` 1) staged by `cp.async`, its
phase 2 by runs and residues (`box_carry` 0); a box of at most N steps is one commit group
(its copies committed once, not a group each as with 0)."""

ROWS_TURN = 0
"""How a `rows` box's phase 2 (lanes on consecutive items, `box_lanes` 0) deals its rounds
of work items to the threads (the `tile` option `box_turn`): 0, thread t takes items t,
t + threads, ...; -1, the turn `rows_turn_best` finds; C, round r's items turned by `r C`
among its threads (item `r threads + (t + r C) mod M_r`, `M_r` the round's items), so
that a thread's items differ in their trips: the canonical 37 x 17 copy's 629 items
(residues j <= 10 four trips of a 16-byte chunk, the others three) give threads 0-116
three items, at most 12 trips with 0 (items j, j + 1, j + 2 mod 17), 11 with C = 5
(rows49's stamps: thread 0's phase 2 9933 clocks, the last thread's, two items, 7086).
A warp's round is as long as its longest lane, and a turn keeps a 4-trip lane in every
round of warps 0-3 (`rows_warp_trips`): H200 in turns (rows50, 9 rounds) C = 5 ties,
copy_ x1.002 [0.995, 1.070] beside an A/A's x1.001, the Program x0.994, strided 42 x0.998."""


def rows_turn_best(nq: int, per: int, threads: int, trips: int) -> int:
    """The turn C of a `rows` box's phase-2 rounds (`ROWS_TURN`) whose threads' most chunk
    trips are fewest (then the fewest threads at that most; then the least C): `nq x per`
    items, item j of a run `ceil((trips - j) / per)` trips, round r's items turned by
    `r C` among its threads; 0 where the items fit one round."""
    total = nq * per
    if total <= threads:
        return 0
    rounds = -(-total // threads)
    weight = [(trips + per - 1 - i % per) // per for i in range(total)]

    def cost(turn: int) -> tuple[int, int]:
        loads = [0] * threads
        for r in range(rounds):
            m = min(threads, total - r * threads)
            for t in range(m):
                loads[t] += weight[r * threads + (t + r * turn) % m]
        most = max(loads)
        return most, loads.count(most)

    return min(range(threads), key=lambda c: (*cost(c), c))


ROWS_DEAL = 0
"""How a `rows` box's phase 2 (lanes on consecutive items, `box_lanes` 0, rounds not
turned: `box_turn` 0) orders its work items (the `tile` option `box_deal`): 0, run by
run, residue j fastest; 1, the items of the most chunk trips first (residues `j < L` of
every run, run by run, then the rest so: `rows_deal`); 2, the same for the last `R` runs
only, the fewest whose short items fill the last, partial round (the runs before in
order), so that a warp's rounds are each of one length where they can be; plus 4, the
two lengths' trips as constants (NVRTC unrolls each item's loop). A warp takes
as long as its slowest lane, and lanes on consecutive items of a run mix both lengths:
the canonical 37 x 17 copy's 629 items (residues j <= 10 four trips of a 16-byte chunk,
the others three) cost warps 0-3 12 trips in order and with any turn (`rows_warp_trips`:
80 warp-trips a block for 2294 lanes' trips), 11 with either deal (1: 73 warp-trips; 2,
R = 20: 76). The bank model (`_box_banks`' `rows_addresses`, the rule's step 3 and runs 3
apart) gives a phase-2 load 2.13 wavefronts in order, 2.66 with 1 (2.55 at the best run
stride), 2.40 with 2: lanes on fewer residues of more runs. H200 in turns against the rule
(rows50, 9 rounds, every round slower): copy_ x0.843 (1) / x0.900 (5), the Program x0.876 /
x0.954 (2) / x0.883 / x0.949 (6): a warp's item pattern binds phase 2, not its balance."""


def rows_deal(nq: int, per: int, threads: int, trips: int, deal: int) -> tuple[int, int]:
    """(R, L) of a `rows` box's phase-2 items dealt as `deal` says (`ROWS_DEAL`): the last
    `R` of its `nq` runs give their items `j < L` (one chunk trip more than the rest: item
    j of a run of `trips` chunk trips over `per` residues takes `ceil((trips - j) / per)`)
    first, then the rest, after the other runs' items in order; (0, 0) where the items are
    alike, fit one round, or `deal` is 0."""
    total, long = nq * per, trips % per
    if not deal & 3 or not long or total <= threads:
        return 0, 0
    last = total - (-(-total // threads) - 1) * threads
    return (nq if deal & 3 == 1 else min(nq, -(-last // (per - long)))), long


def rows_warp_trips(nq: int, per: int, threads: int, trips: int, deal: int = 0, turn: int = 0) -> list[int]:
    """Chunk trips each warp of a `rows` box's phase 2 takes (a warp as long as its
    slowest lane each round) with its `nq x per` items dealt as `deal` (`ROWS_DEAL`) and
    `turn` (`ROWS_TURN`) say: the balance model of `box_deal` and `box_turn`."""
    total = nq * per
    runs, long = rows_deal(nq, per, threads, trips, deal)
    ahead = range(nq - runs)
    order = ([q * per + j for q in ahead for j in range(per)]
             + [q * per + j for q in range(nq - runs, nq) for j in range(long)]
             + [q * per + j for q in range(nq - runs, nq) for j in range(long, per)]) if runs else list(range(total))
    weight = [(trips + per - 1 - i % per) // per for i in order]
    warps = [0] * (threads // 32)
    for r in range(-(-total // threads)):
        m = min(threads, total - r * threads)
        got = [weight[r * threads + (t + r * turn) % m] for t in range(m)]
        for w in range(-(-m // 32)):
            warps[w] += max(got[32 * w:32 * w + 32])
    return warps


ROWS_SPLIT_GROUPS = 4

ROWS_RUN_STRIDE = 1
"""The order of a `rows` box's phase-2 work items over its `n_W` destination runs where
neither the `tile` option `box_runs` nor the slot table (`rows_slots`: with `BOX_SLOT32`,
`_box_banks.rows_orders32`'s) gives one: A (coprime to `n_W`), item `(q, j)` of the rows order (`q`
the run, `j` the chunk residue, `j` fastest: a warp on 32 consecutive items, one run's
`n_D` lanes and the next's) writes run `A q mod n_W`, so that a warp's two runs lie `A`
bytes apart in every slot, not 1: the bank conflicts of its loads are the two runs'
(`_box_banks`), its stores as many runs' sectors as with 1. The canonical 37 x 17 copy
(model, ds_W = 11 mod 16): 2.05 wavefronts a load at pitch step 2 with 1; with its slots
at their runs' residues mod 32 (`BOX_SLOT32`: odd steps, 674 or 706) 3.22 / 3.46 with 1,
2.66 (A = 34) / **2.14** (A = 3, step 3)."""
"""The most commit groups a `rows` box's phase 1 is split into (`ROWS_SPLIT`)."""


def rows_split_steps(asked: int, threads: int, steps: int) -> int:
    """The steps a commit group of a `rows` box of `steps` steps asked to wait for its
    phase 1 in groups of `asked` steps (`ROWS_SPLIT`): rounded up to a multiple of the
    block's warps and to at most `ROWS_SPLIT_GROUPS` groups; 0 where that is one group."""
    warps = threads // 32
    at = -(-max(asked, -(-steps // ROWS_SPLIT_GROUPS)) // warps) * warps
    return at if at < steps else 0


def rows_fit_least(run: int, smem: int, keep: int, most: int, tgt) -> tuple[int, int]:
    """(runs, bytes) of a `rows` box of `smem` bytes (`keep` of them not for slots) whose
    source step's residue is read at run time, at pitch step up to `most`: the runs a
    box holds at the least residue's pitch (`rows_runs`), its bytes grown so that it
    holds as many at the worst residue's; where the grown box would leave a multiprocessor
    fewer blocks (`tgt.resident_blocks`, shared memory alone) or pass a static
    allocation's 48 KiB, the runs at the worst residue's pitch in `smem` bytes."""
    worst = rows_pitch(run, 15, most)
    runs = rows_runs(run, smem - keep, rows_pitch(run, 0, most))
    need = keep + (runs - 1) * worst + (run + 30) // 16 * 16 + 15  # rows_runs(run, need - keep, worst) == runs
    grown = -(-max(smem, need) // CHUNK) * CHUNK
    if grown > 48 * 1024 or (tgt.smem_per_sm and tgt.resident_blocks(grown) < tgt.resident_blocks(smem)):
        return rows_runs(run, smem - keep, worst), smem
    return runs, grown


Table = tuple[tuple[int, ...], ...]


def rows_slots(facts: CopyFacts, asked: int | None, smem: int,
               slot32: bool = False) -> tuple[int | Table, int | Table]:
    """(slots, strides): the slot layout of a `rows` box copy with `facts`
    (`ROWS_PITCH_STEP`; `asked`, the `tile` option, where given) with a box of `smem`
    bytes: -1, the pitch step (up to `_box_banks.rows_most_step`'s), or where the step
    depends on strides known at run time only, the table of steps by their residues
    (`_box_banks.rows_steps`: `[ss_K mod 16][ds_W mod 16]`); with `slot32` (the first slot
    at its run's address mod 32), `_box_banks.rows_orders32`'s (`[ss_K mod 32][ds_W mod
    16]`) with its run strides (phase 2's, `ROWS_RUN_STRIDE`: the index of one of
    `rows_strides`, or its table), else stride 1."""
    if asked is None:
        asked = ROWS_PITCH_STEP
    if asked is not None:
        return asked, 1
    w, d, kmode = box_modes(facts, "rows")
    nw, nd = facts.modes[w].bound, facts.modes[d].bound
    most = rows_most_step(nw * nd, smem)
    table, strides = rows_orders32(nw, nd, most) if slot32 else (rows_steps(nw, nd, most), None)
    sk, dw = rows_residues(facts)
    if sk is None or dw is None:
        return table, (1 if strides is None else strides)
    at = sk % len(table), dw % 16
    return table[at[0]][at[1]], (1 if strides is None else rows_strides(nw)[strides[at[0]][at[1]]])  # type: ignore[arg-type]


ROWS_RESIDUE_MODS = (32, 16)
"""The moduli of a `rows` box's source step and destination run step by which its slot
tables are indexed (`_box_banks.rows_orders32`: `[ss_K mod 32][ds_W mod 16]`;
`rows_steps` the first mod 16): what a layout of constants needs of them (`rows_residues`)."""


def rows_residues(facts: CopyFacts) -> tuple[int | None, int | None]:
    """(source step mod 32, destination run step mod 16) of a `rows` box copy
    (`ROWS_RESIDUE_MODS`): from static strides, or run-time ones promised congruent
    (`layout.view`'s `residue`, as `tilec.copy_` states them, `copy_key.ROWS_RESIDUES`);
    None where unknown (the slot tables then looked up in the kernel)."""
    w, _, kmode = box_modes(facts, "rows")
    sm, dm = ROWS_RESIDUE_MODS
    return (stride_residue(facts.modes[kmode].src_stride, facts.modes[kmode].src_congruence, sm),
            stride_residue(facts.modes[w].dst_stride, facts.modes[w].dst_congruence, dm))


def _rows_step(k: "_Builder", table: tuple[tuple[int, ...], ...], sigma: SSAValue, rho: SSAValue) -> SSAValue:
    """Entry `[sigma][rho]` of a `rows` box's table of pitch steps (`rows_slots`), in
    the kernel: the 16 steps of each `rho` packed 3 bits each into one 48-bit constant,
    the one of `rho` selected, shifted by `3 sigma`, masked; a table of 32 rows (`sigma`
    mod 32) as two such halves, the one of `sigma`'s bit 4 selected."""
    def i64c(v: int) -> SSAValue:
        return k.add(arith.ConstantOp.from_int_and_width(v, i64))

    def word_of(half: tuple[tuple[int, ...], ...]) -> SSAValue:
        words = [sum(half[s][r] << (3 * s) for s in range(16)) for r in range(16)]
        word = i64c(words[15])
        for r in range(14, -1, -1):
            if words[r] != words[15]:
                word = k.add(arith.SelectOp(k.cmp("eq", rho64, i64c(r)), i64c(words[r]), word))
        return word

    rho64 = k.add(arith.IndexCastOp(rho, i64))
    sigma64 = k.add(arith.IndexCastOp(sigma, i64))
    word = word_of(table[:16])
    if len(table) == 32:
        word = k.add(arith.SelectOp(k.cmp("ult", sigma64, i64c(16)), word, word_of(table[16:])))
        sigma64 = k.add(arith.AndIOp(sigma64, i64c(15)))
    shift = k.add(arith.MuliOp(sigma64, i64c(3)))
    step = k.add(arith.AndIOp(k.add(arith.ShRUIOp(word, shift)), i64c(7)))
    return k.add(arith.IndexCastOp(step, index))


def box_modes(facts: CopyFacts, flavour: str) -> tuple[int, int, int]:
    """(W, D, K): the source's contiguous mode, the destination's and the staged one."""
    d = facts.rank - 1
    w = next(k for k, m in enumerate(facts.modes) if _static(m.src_stride) == 1)
    return w, d, {"flat": d, "rows": d - 1, "cols": w, "span": d - 1}[flavour]


class _Builder:
    """Ops appended to the block being built (`loop` and `when` nest); `c` an index
    constant."""

    def __init__(self, block: Block):
        self.block = block

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def c(self, v: int) -> SSAValue:
        return self.add(arith.ConstantOp.from_int_and_width(v, index))

    def val(self, v: Value) -> SSAValue:
        return self.c(v) if isinstance(v, int) else v

    def addi(self, a, b):
        return self.add(arith.AddiOp(a, b))

    def subi(self, a, b):
        return self.add(arith.SubiOp(a, b))

    def muli(self, a, b):
        return self.add(arith.MuliOp(a, b))

    def divui(self, a, b):
        return self.add(arith.DivUIOp(a, b))

    def remui(self, a, b):
        return self.add(arith.RemUIOp(a, b))

    def divmod(self, x: SSAValue, d: SSAValue, magic: SSAValue | None) -> tuple[SSAValue, SSAValue]:
        """(x mod d, x / d) of an index `x` below 2**31 by `d` (at least 1, below
        2**31): unsigned divisions, or where the host gave `d`'s magic multiplier
        (`_gather_tile.fast_divisor`, an i64), the quotient the high half of the 64-bit
        product `4 x * magic` and the remainder `x - q d` (no division in the kernel)."""
        if magic is None:
            return self.remui(x, d), self.divui(x, d)
        x4 = self.add(arith.ShLIOp(self.add(arith.IndexCastOp(x, i64)),
                                   self.add(arith.ConstantOp.from_int_and_width(2, i64))))
        q = self.add(arith.IndexCastOp(self.mulhi(x4, magic), index))
        return self.subi(x, self.muli(q, d)), q

    def mulhi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """The high half of the unsigned product of `a` and `b`."""
        op = arith.MulUIExtendedOp(a, b)
        self.block.add_op(op)
        return op.high

    def andi(self, a, b):
        return self.add(arith.AndIOp(a, b))

    def cmp(self, pred: str, a, b):
        return self.add(arith.CmpiOp(a, b, pred))

    def kept(self, x: SSAValue) -> SSAValue:
        """`x` as a value computed here and kept (`cuda.opaque`): a loop's invariant
        that NVVM would otherwise recompute from its operands on every trip (the
        `tiles` box's phase-2 addresses, benchmarks/NOTES.md)."""
        return self.add(OpaqueOp(x))

    def aligned(self, x: SSAValue, by: int = CHUNK) -> SSAValue:
        """`x`, stated a multiple of `by` (`layout.multiple_of`)."""
        return self.add(MultipleOfOp(x, by))

    def store_chunk(self, box: SSAValue, dst: SSAValue, vt: VectorType, cw: SSAValue, width: int,
                    box_addr: Callable[[SSAValue, SSAValue], SSAValue], q: SSAValue, ds: SSAValue,
                    lo: SSAValue, hi: SSAValue, cs: SSAValue, addrs: Callable[[], list[SSAValue]],
                    convert: str | None = None,
                    fix: Callable[[SSAValue], SSAValue] | None = None, rolled_edge: bool = False,
                    kept_edge: bool = False, held_at: Callable[[int], SSAValue] | None = None) -> None:
        """Destination chunk `cs` (`width` elements, `cw` that constant) of run `q`
        starting at `ds`, whose destination row lies between `lo` and `hi`: one `vt`
        vector of the box elements at `addrs()` where the row holds the chunk whole (put
        in order by `fix` where given: `addrs()` in another), else
        its elements inside the row one at a time (`box_addr(q, p)`: element p of run q
        in the box; with `rolled_edge` a loop the CUDA keeps rolled, `#pragma unroll 1`;
        with `kept_edge`, the element `held_at(t)` (t without `fix`) of the chunk at
        `addrs()[t]`, the whole chunk's addresses, `width` bodies: no address of its own to
        compute or keep; with `fix` and no `held_at`, the loop);
        each element converted as `convert` says where given (the box
        holds source elements, `vt` is of the destination's)."""
        full = self.andi(self.cmp("sge", cs, lo), self.cmp("sle", self.addi(cs, cw), hi))
        with self.when(full, otherwise=True) as to_else:
            vec = None
            for t, at in enumerate(addrs()):
                x = self.converted(self.add(ReadOp(box, [at])), convert)
                vec = (self.add(vector.BroadcastOp(x, vt)) if t == 0
                       else self.add(vector.InsertOp(x, vec, [t], vt)))
            if fix is not None:
                vec = fix(vec)
            self.add(WriteOp(vec, dst, [self.aligned(cs, width)], width=width))
            to_else()
            if kept_edge and (fix is None or held_at is not None):
                for t, at in enumerate(addrs()):
                    a = self.addi(cs, self.c(t) if fix is None else held_at(t))
                    with self.when(self.andi(self.cmp("sge", a, lo), self.cmp("slt", a, hi))):
                        self.add(WriteOp(self.converted(self.add(ReadOp(box, [at])), convert), dst, [a]))
            else:
                with self.loop(self.c(0), cw, self.c(1)) as b:
                    if rolled_edge:
                        b.block.parent_op().attributes[UNROLL_ATTR] = IntegerAttr(1, i64)
                    a = self.addi(cs, b)
                    with self.when(self.andi(self.cmp("sge", a, lo), self.cmp("slt", a, hi))):
                        x = self.converted(self.add(ReadOp(box, [box_addr(q, self.subi(a, ds))])), convert)
                        self.add(WriteOp(x, dst, [a]))

    def converted(self, x: SSAValue, convert: str | None) -> SSAValue:
        """`x` converted as `convert` ("SRC->DST", `_convert_ops.scalar_conversion_ops`)
        says, `x` itself where None."""
        if convert is None:
            return x
        ops, y = scalar_conversion_ops(x, convert)
        for op in ops:
            self.add(op)
        return y

    def if_value(self, cond: SSAValue, then: Callable[[], SSAValue], other: Callable[[], SSAValue]) -> SSAValue:
        """`then()` where `cond` holds, else `other()` (an `scf.if` with one result: only
        the branch taken reads memory)."""
        blocks = []
        saved = self.block
        for make in (then, other):
            self.block = Block()
            x = make()
            self.block.add_op(scf.YieldOp(x))
            blocks.append(self.block)
        self.block = saved
        return self.add(scf.IfOp(cond, [x.type], [blocks[0]], [blocks[1]]))

    @contextmanager
    def loop(self, lb: SSAValue, ub: SSAValue, step: SSAValue) -> Iterator[SSAValue]:
        body = Block(arg_types=[index])
        self.add(scf.ForOp(lb, ub, step, [], body))
        saved, self.block = self.block, body
        try:
            yield body.args[0]
        finally:
            body.add_op(scf.YieldOp())
            self.block = saved

    @contextmanager
    def when(self, cond: SSAValue, otherwise: bool = False) -> Iterator[Callable[[], None]]:
        then, other = Block(), Block() if otherwise else None
        self.add(scf.IfOp(cond, [], [then], [other] if other is not None else None))
        saved, self.block = self.block, then

        def to_else() -> None:
            self.block.add_op(scf.YieldOp())
            self.block = other  # type: ignore[assignment]

        try:
            yield to_else
        finally:
            self.block.add_op(scf.YieldOp())
            self.block = saved


INDEX32_LIMIT = 2**31


def _transpose_words(k: _Builder, ws: list[SSAValue]) -> list[SSAValue]:
    """The transpose of `P = len(ws)` 32-bit words of `P` elements each (4 bytes or 2
    halves): word `t` of the result holds element `t` of each word in turn, by
    `cuda.byte_perm` (4 x 4 bytes: 8, in two stages; 2 x 2 halves: 2)."""
    def perm(a, b, sel):
        return k.add(BytePermOp(a, b, sel))
    if len(ws) == 2:
        return [perm(ws[0], ws[1], 0x5410), perm(ws[0], ws[1], 0x7632)]
    assert len(ws) == 4
    lo01, hi01 = perm(ws[0], ws[1], 0x5140), perm(ws[0], ws[1], 0x7362)
    lo23, hi23 = perm(ws[2], ws[3], 0x5140), perm(ws[2], ws[3], 0x7362)
    return [perm(lo01, lo23, 0x5410), perm(lo01, lo23, 0x7632), perm(hi01, hi23, 0x5410), perm(hi01, hi23, 0x7632)]


def _words_vector(k: _Builder, ws: list[SSAValue]) -> SSAValue:
    """A `vector<N x i32>` of the N words `ws`."""
    vt = VectorType(ws[0].type, [len(ws)])
    vec = k.add(vector.BroadcastOp(ws[0], vt))
    for i, w in enumerate(ws[1:], 1):
        vec = k.add(vector.InsertOp(w, vec, [i], vt))
    return vec


def _zero(elem) -> Operation:
    """A constant 0 of element type `elem`."""
    if isinstance(elem, IntegerType):
        return arith.ConstantOp.from_int_and_width(0, elem)
    return arith.ConstantOp(FloatAttr(0.0, elem))


def _block_coords(host: _Builder, k: _Builder, bid: SSAValue,
                  counts: list[tuple[Value, SSAValue]]) -> list[SSAValue]:
    """The coordinates of block `bid` of a flat grid over `counts` (fastest first;
    each `(count as the host knows it, the same in the kernel)`): coordinate `i` is
    `bid / prod(counts[:i]) mod counts[i]`, the last the rest. A count that is not a
    compile-time constant is divided by through its magic multiplier, computed on the
    host (`_gather_tile.fast_divisor`; a block id is below 2**31): a run-time division
    costs a few dozen instructions, and NVRTC, given one, kept phase 2's box addresses
    out of registers (the int8 `tiles` transpose: 171 instructions a 16-byte chunk
    against 45 with constant counts, benchmarks/NOTES.md). A constant count the
    compiler divides by itself."""
    return _coords_of(host, k, counts)(bid)


def _coords_of(host: _Builder, k: _Builder,
               counts: list[tuple[Value, SSAValue]]) -> Callable[[SSAValue], list[SSAValue]]:
    """`_block_coords` of any index below 2**31 of the same grid: the host's magic
    multipliers computed once, here; each call divides in the kernel where it is made."""
    magics = []
    for hc, _ in counts[:-1]:
        magic = None
        if _static(hc) is None:
            ops: list[Operation] = []
            magic = fast_divisor(ops, host.val(hc))
            for op in ops:
                host.add(op)
        magics.append(magic)

    def coords_of(x: SSAValue) -> list[SSAValue]:
        coords, rest = [], x
        for (_, kc), magic in zip(counts[:-1], magics):
            r, rest = k.divmod(rest, kc, magic)
            coords.append(r)
        return [*coords, rest]
    return coords_of


def _flat_view(host: _Builder, ptr: SSAValue, reach: Value, elem, smem: int) -> SSAValue:
    """A 1-D view of `reach` elements at `ptr` (the storage the box addresses): of a
    static extent where `reach` is static and every offset the launch computes from
    it (up to two boxes past the end: `_box_tile`'s slots after a box's last run, a
    chunk past a run) fits 32 bits, so that the kernel's buffers are of a known size
    and its index arithmetic 32-bit (compiler/cuda/kernel_info.py); else dynamic."""
    if isinstance(reach, int) and reach + 2 * smem + 2 * CHUNK < INDEX32_LIMIT:
        t = TensorViewType(elem, cute.make_layout((reach,), (1,)), "gmem")
        return host.add(ViewOp(ptr, t, []))
    t = TensorViewType(elem, cute.make_layout((cute.DYN,), (1,)), "gmem")
    return host.add(ViewOp(ptr, t, [host.val(reach)]))


def _reach(host: _Builder, mis: Value, extents: list[Value], strides: list[Value]) -> Value:
    """1 + the misalignment + the last element's offset: the elements a view spans from
    its aligned pointer (an int where every term is static)."""
    terms = [(n, s) for n, s in zip(extents, strides) if _static(s) != 0]
    known = [_static(x) for x in (mis, *(v for t in terms for v in t))]
    if None not in known:
        m, *rest = known
        return 1 + m + sum((n - 1) * s for n, s in zip(rest[::2], rest[1::2]))  # type: ignore[operator]
    acc = host.val(mis)
    acc = host.addi(acc, host.c(1))
    for n, s in terms:
        acc = host.addi(acc, host.muli(host.subi(host.val(n), host.c(1)), host.val(s)))
    return acc


def _host_views(facts: CopyFacts, elem, smem: int, dst_elem=None):
    """The host block of a box launch and what both kernels' host parts start from:
    `(block, its builder, the modes' extents, the source's and destination's
    misalignments, the source's reach, the flat source and destination views)` (the
    views over the aligned-down bases where the facts have them, `_flat_view`; the
    destination's of `dst_elem` where given, a converting copy's)."""
    modes = facts.modes
    host_block = Block()
    host = _Builder(host_block)
    extents = [m.extent for m in modes]
    sptr, smis = (facts.src_base, facts.src_mis) if facts.src_base is not None else (facts.src_ptr, 0)
    dptr, dmis = (facts.dst_base, facts.dst_mis) if facts.dst_base is not None else (facts.dst_ptr, 0)
    sreach = _reach(host, smis, extents, [m.src_stride for m in modes])
    src = _flat_view(host, sptr, sreach, elem, smem)
    dst = _flat_view(host, dptr, _reach(host, dmis, extents, [m.dst_stride for m in modes]), dst_elem or elem, smem)
    return host_block, host, extents, smis, dmis, sreach, src, dst


def box_index_bits(facts: CopyFacts, smem: int) -> int | None:
    """The index width the box launch's facts show: 32 where every extent and stride is
    static, each misalignment static or bounded (`_copy_cost.value_bound`: a program
    that states it as `mis % 16`), and every offset the launch computes from an aligned
    pointer (the view's reach at the largest misalignment, two boxes and two chunks to
    spare: `_flat_view`) and the element count fit a signed 32-bit integer; 64 where one
    does not; None where something is dynamic or unbounded. The same rule whether the
    numbers come from a `tilec.Program`'s static views or from `tilec.copy_`'s
    (api/copy_plan.py `_box_plan`)."""
    ns = [_static(m.extent) for m in facts.modes]
    ss = [_static(m.src_stride) for m in facts.modes]
    ds = [_static(m.dst_stride) for m in facts.modes]
    mis = [value_bound(x) if x is not None else 0 for x in (facts.src_mis, facts.dst_mis)]
    if None in ns or None in ss or None in ds or None in mis:
        return None
    count = 1
    for n in ns:
        count *= n  # type: ignore[operator]
    worst = count
    for m, view in ((mis[0], ss), (mis[1], ds)):
        reach = 1 + m + sum((n - 1) * abs(s) for n, s in zip(ns, view))  # type: ignore[operator]
        worst = max(worst, reach + 2 * smem + 2 * CHUNK)
    return 32 if worst < INDEX32_LIMIT else 64


def box_launch(copy: CopyOp, facts: CopyFacts, flavour: str, smem: int,
               threads: int = BOX_THREADS, stage: str = "async", tiles_run: int | None = None,
               tiles_lanes: int = TILES_LANES, tiles_grain: int = TILES_GRAIN,
               tiles_stage: int = TILES_STAGE, tiles_depth: int = TILES_DEPTH,
               tiles_blocks: int | None = None, tiles_interleave: bool = False, lanes: int | None = None,
               grain: int | None = None, pitch_step: int | None = None,
               tiles_rounds: bool = TILES_ROUNDS, depth: int | None = None,
               tiles_row_step: int = TILES_ROW_STEP, tiles_rotate: bool = False,
               ring: int | None = None, tiles_merge: int = TILES_MERGE_BYTES,
               tiles_columns: bool = TILES_COLUMNS, carry: int | None = None,
               tiles_lines: int = TILES_LINES, tiles_merge_banks: bool = TILES_MERGE_BANKS,
               tiles_fill: int = TILES_FILL, prefetch: int | None = None, slot32: int | None = None,
               l1: bool | None = None, tiles_mirror: int = TILES_MIRROR,
               tiles_issue: int = TILES_ISSUE, min_blocks: int | None = None,
               fit_least: bool | None = None, split: int | None = None,
               run_stride: int | None = None, turn: int | None = None,
               deal: int | None = None) -> list[Operation]:
    """The host ops and the `layout.launch` of the box strategy of `copy` (module doc)
    with a box of `smem` bytes and `threads` per block, phase 1's whole chunks staged
    as `stage` says (`BOX_STAGES`), a `flat` or `rows` phase 2's lanes placed as `lanes`
    says (None: the flavour's `BOX_LANES`), a `flat` or `rows` block's destination chunks
    as `grain` says (None: `BOX_GRAIN` for `flat`, `ROWS_GRAIN` for `rows`), a `rows` box's slots as `pitch_step` says (`rows_slots`),
    a block's steps in `depth` parts of a box each (None: `box_depth_of`'s) through
    two boxes or a ring of `ring` (None: the flavour's `BOX_RING`), phase 1's `cp.async`
    with the L2 prefetch size `prefetch` (None: the flavour's `BOX_PREFETCH`; 0 none), a `flat`,
    `span` or `rows` box's runs at their source addresses modulo 32 where `slot32` says (None:
    `BOX_SLOT32`'s flavours; a merged `tiles` box's with 1 or 2, `tiles_launch`), phase 1's `cp.async` through L1 where `l1` says (None: `BOX_L1`'s), a `tiles`
    box's phase-2 rows as `tiles_row_step` and `tiles_rotate` say (`TILES_ROW_STEP`,
    `tiles_rotated`), a merged one's phase-2 reads by bank as `tiles_merge_banks` says
    (`TILES_MERGE_BANKS`), its runs over `W` and the mode continuing it as `tiles_mirror` says
    (`TILES_MIRROR`), a `tiles` box's issue as `tiles_issue` says (`TILES_ISSUE`), a `flat`,
    `rows`, `span` or `cols` launch asking its multiprocessors to hold `min_blocks` blocks
    (`tilec.min_blocks`, NVRTC's `__launch_bounds__(threads, N)`; None: the flavour's
    `BOX_BLOCKS`, 0 none; persistent blocks ask their own), a `rows` box of run-time
    source residue sized as `fit_least` says (None: `ROWS_FIT`), a `rows` box's phase 1
    waited for in groups of `split` steps (None: `ROWS_SPLIT`), a `rows` box's phase-2 work
    items on its destination runs `run_stride` apart (None: `ROWS_RUN_STRIDE`), a `rows` box's
    phase-2 rounds of items turned by `turn` (None: `ROWS_TURN`) or dealt longest first
    as `deal` says (None: `ROWS_DEAL`); the caller puts
    them in the copy's place. `facts` must fit (`_copy_cost.box_flavour`
    gives `flavour`)."""
    if flavour == "tiles":
        return tiles_launch(copy, facts, smem, threads, stage, tiles_run, tiles_lanes, tiles_grain, tiles_stage,
                            tiles_depth, tiles_blocks, tiles_interleave, tiles_rounds, tiles_row_step,
                            tiles_rotate, tiles_merge, tiles_columns, tiles_lines, tiles_merge_banks, tiles_fill,
                            l1, tiles_mirror, tiles_issue, TILES_SLOT32 if slot32 is None else int(slot32))
    stage_async = stage == "async"
    l2_prefetch = (BOX_PREFETCH.get(flavour) if prefetch is None else prefetch) or None
    # a flat, span or rows box's runs at their source addresses modulo 32 bytes (`BOX_SLOT32`)
    want32 = flavour in ("flat", "rows", "span") and (flavour in BOX_SLOT32 if slot32 is None else bool(slot32))
    if flavour == "rows" and slot32 is None and want32:
        # by rule only where the source step's and destination run step's residues are
        # known (static, or promised: the step and run stride constants): looked up at
        # run time the two tables cost more than the whole sectors gain (`BOX_SLOT32`)
        want32 = None not in rows_residues(facts)
    through_l1 = flavour in BOX_L1 if l1 is None else l1
    depth = box_depth_of(flavour, depth)
    if ring is None:  # the flavour's, where its blocks take parts staged by cp.async
        ring = BOX_RING.get(flavour, 0) if depth >= 2 and stage_async else 0
    if ring and (depth == 1 or not stage_async):
        raise TilecError(f"tile: a ring of {ring} boxes takes a block's steps in parts (box_depth 0 or >= 2, got "
                         f"{depth}) staged by cp.async (got {stage})")
    lanes = BOX_LANES.get(flavour, 0) if lanes is None else lanes
    carry = BOX_CARRY.get(flavour, 0) if carry is None else carry
    carry = int(carry)
    if carry == 2 and flavour == "flat" and lanes:
        # a warp's lanes on 32 / lanes runs of one group for the whole phase 2: the
        # block's warps a multiple of the groups where they fit (the nearest to `threads`)
        ngroups = -(-facts.modes[box_modes(facts, flavour)[0]].bound // (32 // lanes))  # type: ignore[operator]
        if 32 * ngroups <= 1024:
            threads = 32 * ngroups * max(1, min(1024 // (32 * ngroups), round(threads / (32 * ngroups))))
    w, d, kmode = box_modes(facts, flavour)
    modes = facts.modes
    nw = modes[w].bound if flavour != "cols" else None
    nd = modes[d].bound if flavour not in ("flat", "span") else None
    grain = (BOX_GRAIN if flavour == "flat" else ROWS_GRAIN) if grain is None else grain
    # a flat box owning whole chunks holds 15 steps more (where it has room for more);
    # a rows box one (n_D >= 16 bytes a step)
    spare = CHUNK - 1 if grain and flavour == "flat" and box_rows(flavour, nw, nd, smem)[0] > 2 * CHUNK else 0
    rows_spare = 1 if grain and flavour == "rows" else 0
    if flavour == "span":
        # one source span of `T` rows at the pitch `P` (module doc), gaps included
        span_pitch = _static(modes[kmode].src_stride)
        t_rows = span_rows(span_pitch, smem)  # type: ignore[arg-type]
        pb = box_pitch(span_pitch * t_rows)  # type: ignore[operator]
    else:
        t_rows, pb = box_rows(flavour, nw, nd, smem, spare)
    slots, strides = rows_slots(facts, pitch_step, smem, want32) if flavour == "rows" else (-1, 1)
    table = slots if isinstance(slots, tuple) else None
    step = 0 if table is not None else slots  # (a table's: >= 0)
    sigma = rows_residues(facts)[0] if step >= 0 and flavour == "rows" else None  # (mod 32: every table's row)
    if step >= 0:
        # slots at `s0 + pitch r` (`_box_banks`): the pitch's residue mod 16 the source
        # step's, known or read at run time; the box holds the slots of the largest
        # pitch the step (or the table, in the row of a known source step) allows
        most = step if table is None else max(max(row) for row in (
            table if sigma is None else [table[sigma % len(table)]]))  # type: ignore[index]
        worst = rows_pitch(nw * nd, 15 if sigma is None else sigma % 16, most)  # type: ignore[operator]
        fit = rows_runs(nw * nd, smem - (CHUNK if want32 else 0), worst)  # type: ignore[operator]
        if sigma is None and depth == 1 and (ROWS_FIT if fit_least is None else fit_least):
            # the source step's residue read at run time: the runs of the least
            # residue's pitch, the box grown to hold as many at the worst's
            fit, smem = rows_fit_least(nw * nd, smem, CHUNK if want32 else 0, most, target_of(copy))  # type: ignore[operator]
        if fit > rows_spare:
            t_rows = fit
        else:
            # a box of about two runs (`box_smem` forced small, or a forced step) holds
            # one slot at this pitch, no step of K a block: its slots at multiples of
            # 16 bytes (step -1), of which the rule's box holds two
            # (`_copy_cost.box_flavour`)
            step, table, sigma = -1, None, None
    t_rows -= rows_spare
    # phase 1 waited for in groups of `split` steps (`ROWS_SPLIT`; 0: one wait), `split_groups` of them
    # (`grouped`: the copies uncommitted, a group closed by a commit; else one group each)
    split = ROWS_SPLIT if split is None else split
    # phase 2's run stride: asked, else the slot table's (`rows_slots`: a stride or a table
    # of indices into `rows_strides`, looked up in the kernel), else `ROWS_RUN_STRIDE`
    turn = ROWS_TURN if turn is None else turn
    deal = ROWS_DEAL if deal is None else deal
    if turn < 0 and flavour == "rows" and not lanes:  # the best turn (`rows_turn_best`)
        turn = rows_turn_best(nw, nd, threads, (t_rows * nd + 2 * CHUNK - 2) // CHUNK)  # type: ignore[operator]
    stride_table = strides if isinstance(strides, tuple) and run_stride is None and table is not None else None
    if run_stride is None:
        run_stride = strides if isinstance(strides, int) and strides != 1 else ROWS_RUN_STRIDE
    run_stride = max(run_stride, 1)
    if flavour == "rows" and gcd(run_stride, nw) != 1:  # type: ignore[arg-type]
        raise TilecError(f"tile: box_runs={run_stride} must be coprime to the box's {nw} destination runs", op=copy)
    grouped = bool(split) and flavour == "rows" and depth == 1 and stage_async and carry != 4
    split = rows_split_steps(split, threads, t_rows) if grouped else 0
    split_groups = -(-t_rows // split) if split else 1
    # (`slot32`: a rows box's slots are congruent to their runs mod 32 where its pitch is
    # to the source step; those at multiples of 16, step -1, stay mod 16: no room)
    slot_mod = 2 * CHUNK if want32 and (flavour != "rows" or step >= 0) else CHUNK
    elem = copy.source.type.element_type
    host_block, host, extents, smis, dmis, sreach, src, dst = _host_views(facts, elem, smem)
    n_k = extents[kmode]
    # the block's coordinates: chunks of K fastest, then the other modes, dst-fastest first
    grid = [m for m in range(facts.rank - 1, -1, -1) if m not in (w, d, kmode)]
    sk = _static(n_k)
    per_block = t_rows * max(depth, 1)  # a block's steps of K (persistent: a part's)
    gk_host = -(-sk // per_block) if sk is not None else host.add(arith.CeilDivUIOp(n_k, host.c(per_block)))
    counts = [gk_host, *(extents[m] for m in grid)]
    blocks = host.val(counts[0])
    for x in counts[1:]:
        blocks = host.muli(blocks, host.val(x))
    part_elems = -(-smem // slot_mod) * slot_mod  # (each box at a multiple of 16 bytes, 32 with `slot32`)
    slots = 0
    if depth == 0:
        # persistent: at most the blocks the GPU holds at once, each taking the parts
        # `bid`, `bid + G`, ... (G the grid); the launch asks its multiprocessors to hold
        # that many (`tilec.min_blocks`: registers bounded so that they do)
        tgt = target_of(copy)
        per_sm = min(tgt.threads_per_sm // threads, tgt.resident_blocks((ring or 2) * part_elems)) if tgt.smem_per_sm else 0
        slots = tgt.multiprocessors * per_sm
        known = [_static(x) for x in counts]
        if slots and None not in known:
            blocks = host.c(min(math.prod(known), slots))  # type: ignore[arg-type]
        elif slots:
            blocks = host.add(arith.MinUIOp(blocks, host.c(slots)))
    one = host.c(1)
    launch = LaunchOp([blocks, one, one], threads)
    min_blocks = BOX_BLOCKS.get(flavour) if min_blocks is None else min_blocks
    if slots:
        set_min_blocks(launch, per_sm)
    elif min_blocks:
        set_min_blocks(launch, min_blocks)
    k = _Builder(launch.body.block)
    bid, tid = launch.block_ids[0], launch.thread_id
    c = k.c
    n = [k.val(x) for x in extents]
    tc = c(t_rows)
    tb = tc if depth <= 1 else c(per_block)  # a block's steps of K: `depth` parts of the box's
    gk = k.add(arith.CeilDivUIOp(n[kmode], tb))
    kcounts = [gk, *(n[m] for m in grid)]
    coords_of = _coords_of(host, k, list(zip(counts, kcounts)))

    def origin_of(x: SSAValue, steps: SSAValue) -> dict[int, SSAValue]:
        """The origin of grid unit `x` (a block, or a persistent block's part) in each
        mode: `steps` steps of K a unit."""
        coords = coords_of(x)
        return {kmode: k.muli(coords[0], steps), **dict(zip(grid, coords[1:]))}

    origin0 = origin_of(bid, tb) if depth else None
    # one box a part, two where a block takes its steps in parts (`depth`)
    nboxes = ring or 2
    boxes = None if depth == 1 else k.add(AllocOp(TensorViewType(elem, cute.make_layout((nboxes * part_elems,), (1,)),
                                                                 "smem")))

    def part(origin: dict[int, SSAValue], boff: SSAValue | None, phases: tuple[int, ...]) -> None:
        """The `phases` (1: the source into the box; 2: the box to the destination) of the
        part at `origin` (each mode's first step), its box `boff` bytes into the
        allocation (None: 0); with both, the wait and the barrier between them."""

        def boxed(x: SSAValue) -> SSAValue:
            return x if boff is None else k.addi(x, boff)

        def stride(view: str, m: int) -> SSAValue | None:
            s = modes[m].src_stride if view == "s" else modes[m].dst_stride
            return None if _static(s) == 0 else k.val(s)

        def orig(view: str, mis: Value) -> SSAValue:
            acc = k.val(mis)
            for m, o in origin.items():
                st = stride(view, m)
                if st is not None:
                    acc = k.addi(acc, k.muli(o, st))
            return acc

        sorig, dorig = orig("s", smis), orig("d", dmis)
        tk = k.add(arith.MinUIOp(tc, k.subi(n[kmode], origin[kmode])))
        k_origin = origin[kmode]  # (phase 1 names its slots' origins `origin`)
        box = boxes if boxes is not None else k.add(AllocOp(TensorViewType(elem, cute.make_layout((smem,), (1,)),
                                                                           "smem")))
        c16, cm16, cthreads = c(CHUNK), c(-CHUNK), c(threads)

        def stepped(base: SSAValue, i: SSAValue, s: SSAValue | None) -> SSAValue:
            return base if s is None else k.addi(base, k.muli(i, s))

        # the source runs: count, length and start (module doc)
        if flavour == "flat":
            # the steps staged: the block's own, and `spare` more where the source has them
            staged = tk if not spare else k.add(arith.MinUIOp(c(t_rows + spare), k.subi(n[kmode], k_origin)))
            runs, slen = c(1), k.muli(c(nw), staged)  # type: ignore[arg-type]
            run_start: Callable[[SSAValue], SSAValue] = lambda r: sorig  # noqa: E731
        elif flavour == "span":
            # from the first row's start to the last row's end
            runs, slen = c(1), k.addi(k.muli(c(span_pitch), k.subi(tk, c(1))), c(nw))  # type: ignore[arg-type]
            run_start = lambda r: sorig  # noqa: E731
        elif flavour == "rows":
            # the block's steps, and with `grain` one more where the source has it
            runs = tk if not rows_spare else k.add(arith.MinUIOp(c(t_rows + 1), k.subi(n[kmode], k_origin)))
            slen = c(nw * nd)  # type: ignore[operator]
            ssk = stride("s", kmode)
            run_start = lambda r: stepped(sorig, r, ssk)  # noqa: E731
        else:
            runs, slen = c(nd), tk  # type: ignore[arg-type]
            ssd = stride("s", d)
            run_start = lambda r: stepped(sorig, r, ssd)  # noqa: E731
        pbc = c(pb)
        s0 = k.andi(sorig, c(slot_mod - 1))
        # phase 2's run stride (`ROWS_RUN_STRIDE`): None where 1
        nonlocal_stride: list[SSAValue | None] = [None if run_stride == 1 else c(run_stride)]
        if step >= 0:
            ssk16 = c(sigma % 16) if sigma is not None else k.andi(k.val(modes[kmode].src_stride), c(15))
            pitch = c(rows_pitch(nw * nd, sigma % 16, step)) if sigma is not None else k.addi(c(pb + CHUNK * step), ssk16)  # type: ignore[operator]
            if table is not None:
                # the table's row by the source step mod 16, or mod 32 (`slot32`'s steps: `rows_steps32`)
                rows_of = len(table)
                ssk_row = ((c(sigma % rows_of) if sigma is not None
                            else k.andi(k.val(modes[kmode].src_stride), c(rows_of - 1))) if rows_of != 16 else ssk16)
                ds16 = k.andi(k.val(modes[w].dst_stride), c(15))
                pitch = k.addi(pitch, k.muli(c(CHUNK), _rows_step(k, table, ssk_row, ds16)))
                if stride_table is not None:
                    # phase 2's run stride: the table's index into `rows_strides`, packed 6 bits each
                    packed = sum(a << (6 * i) for i, a in enumerate(rows_strides(nw)))  # type: ignore[arg-type]
                    sh = k.add(arith.IndexCastOp(k.muli(_rows_step(k, stride_table, ssk_row, ds16), c(6)), i64))
                    word = k.add(arith.ShRUIOp(k.add(arith.ConstantOp.from_int_and_width(packed, i64)), sh))
                    nonlocal_stride[0] = k.andi(k.add(arith.IndexCastOp(word, index)), c(63))

        def slot_at(r: SSAValue) -> SSAValue:
            """Where byte 0 of source run `r` lies in a `rows` box."""
            if step >= 0:
                return boxed(k.addi(s0, k.muli(r, pitch)))
            return boxed(k.addi(k.muli(r, pbc), k.andi(run_start(r), c(15))))

        if 1 in phases:
            # phase 1: each source run's aligned chunks into its congruent slot (module doc):
            # groups of `group` threads take a run each; a group's threads take the run's
            # aligned chunks `UNROLL` at a time (`stage`: a cp.async each, or all reads before
            # the writes), then the rest one at a time: every chunk that covers a byte of the
            # run and lies inside the source view (its bytes around the run land in the slot's
            # spare room, unread); the bytes past the view's last whole chunk are a pass of
            # their own (16 lanes per run), while the cp.asyncs are in flight; one wait for
            # them all before the barrier
            group = threads if flavour != "rows" else 32
            cg = c(group)
            if group == threads:
                r_lb, lane, r_step = c(0), tid, c(1)
            else:
                r_lb, lane, r_step = k.divui(tid, cg), k.remui(tid, cg), c(threads // group)

            # a chunk of the source view lies wholly inside it below `lim` (its reach rounded
            # down to 16 bytes): such chunks are copied whole, bytes around the run included
            lim = k.andi(k.val(sreach), cm16)

            def run_ends(r: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
                """(start, end, the end of the run's whole chunks, the slot's origin): the
                aligned chunks from `start & -16` up to the third cover the run, and byte `a`
                of run `r` lies at `a - origin` in the box."""
                st = run_start(r)
                end = k.addi(st, slen)
                hi = k.add(arith.MinSIOp(k.andi(k.addi(end, c(CHUNK - 1)), cm16), lim))
                origin = (k.subi(st, slot_at(r)) if step >= 0
                          else k.subi(k.andi(st, c(-slot_mod)), boxed(k.muli(r, pbc))))
                return st, end, hi, origin

            def copy_runs(lb: SSAValue, ub: SSAValue) -> None:
                """Phase 1 of runs `lb`, `lb + r_step`, ... below `ub`."""
                with k.loop(lb, ub, r_step) as r:
                    copy_run(r)

            def copy_run(r: SSAValue) -> None:
                """Phase 1 of run `r`: its aligned chunks, `UNROLL` at a time, then the rest."""
                st, end, hi, origin = run_ends(r)
                lo = k.andi(st, cm16)
                nf = k.divui(k.add(arith.MaxSIOp(k.subi(hi, lo), c(0))), c16)
                per = UNROLL * group
                kmain = k.divui(nf, c(per))

                def chunk(j: SSAValue) -> tuple[SSAValue, SSAValue]:
                    g = k.addi(lo, k.muli(j, c16))
                    return g, k.subi(g, origin)

                def stage(chunks: list[tuple[SSAValue, SSAValue]]) -> None:
                    """The chunks (source index, slot index) into the box: cp.async each (a
                    group each, or uncommitted where the box is waited for in groups), or all
                    read into registers before their writes."""
                    if stage_async:
                        for g, slot in chunks:
                            k.add(CopyChunkAsyncOp(src, [k.aligned(g)], box, [k.aligned(slot)], CHUNK,
                                                   prefetch=l2_prefetch, l1=through_l1, uncommitted=grouped))
                        return
                    vals = [k.add(ReadOp(src, [k.aligned(g)], width=CHUNK)) for g, _ in chunks]
                    for v, (_, slot) in zip(vals, chunks):
                        k.add(WriteOp(v, box, [k.aligned(slot)], width=CHUNK))

                with k.loop(c(0), kmain, c(1)) as it:
                    first = k.addi(k.muli(it, c(per)), lane)
                    stage([chunk(k.addi(first, c(u * group))) for u in range(UNROLL)])
                with k.loop(k.addi(k.muli(kmain, c(per)), lane), nf, cg) as j:
                    stage([chunk(j)])

            if split:
                # `split_groups` commit groups, group g the runs of steps g split .. (g + 1) split
                # (a multiple of the warps: each warp's runs continue at `split g + r_lb`),
                # the last to the end; each commit but the last waits for nothing (only
                # the groups committed so far in flight)
                for g in range(split_groups - 1):
                    copy_runs(k.addi(r_lb, c(g * split)), k.add(arith.MinUIOp(runs, c((g + 1) * split))))
                    k.add(AsyncWaitOp(g + 1, commit=True))
                copy_runs(k.addi(r_lb, c((split_groups - 1) * split)), runs)
            else:
                copy_runs(r_lb, runs)
            # the bytes of a run past `lim` (at most 15: the view's last chunk), one at a time;
            # only a block whose last run ends past `lim` has any (run starts grow with `r`,
            # the strides being non-negative, and every run is `slen` long), so the others
            # skip the pass on one block-uniform test
            _, last_end, _, _ = run_ends(k.subi(runs, c(1)))
            with k.when(k.cmp("sgt", last_end, lim)):
                with k.loop(tid, k.muli(runs, c16), cthreads) as idx:
                    r, b = k.divui(idx, c16), k.remui(idx, c16)
                    st, end, hi, origin = run_ends(r)
                    a = k.addi(k.add(arith.MaxSIOp(hi, st)), b)
                    with k.when(k.cmp("slt", a, end)):
                        x = k.add(ReadOp(src, [a]))
                        k.add(WriteOp(x, box, [k.subi(a, origin)]))
        if 1 in phases and 2 in phases:
            if split:
                k.add(AsyncWaitOp(split_groups - 1, commit=True))  # the first group landed, the others in flight
            elif stage_async:
                k.add(AsyncWaitOp(0, commit=grouped))
            k.add(BarrierOp())
        if 2 not in phases:
            return

        # phase 2: aligned 16-byte chunks of the destination runs
        if flavour == "cols":
            druns, dlen = c(1), k.muli(c(nd), tk)  # type: ignore[arg-type]
        elif flavour == "span":
            druns, dlen = c(1), k.muli(c(nw), tk)  # type: ignore[arg-type]
        else:
            druns, dlen = c(nw), (tk if flavour == "flat" else k.muli(c(nd), tk))  # type: ignore[arg-type]
        dsw = stride("d", w)

        def box_addr(q: SSAValue, p: SSAValue) -> SSAValue:
            """Where byte `p` of destination run `q` lies in the box."""
            if flavour == "flat":
                return boxed(k.addi(k.addi(k.andi(sorig, c(slot_mod - 1)), q), k.muli(c(nw), p)))  # type: ignore[arg-type]
            if flavour == "span":
                # signed, as below
                row, col = k.add(arith.DivSIOp(p, c(nw))), k.add(arith.RemSIOp(p, c(nw)))  # type: ignore[arg-type]
                return boxed(k.addi(k.addi(s0, k.muli(row, c(span_pitch))), col))  # type: ignore[arg-type]
            # signed: a lane whose chunk lies outside the run computes a negative p it never uses
            kk, dd = k.add(arith.DivSIOp(p, c(nd))), k.add(arith.RemSIOp(p, c(nd)))  # type: ignore[arg-type]
            if flavour == "rows":
                return k.addi(slot_at(kk), k.addi(q, k.muli(c(nw), dd)))  # type: ignore[arg-type]
            r, i = dd, kk
            return boxed(k.addi(k.addi(k.muli(r, pbc), k.andi(run_start(r), c(15))), i))

        def chunk_addrs(q: SSAValue, p0: SSAValue) -> list[SSAValue]:
            """Where bytes `p0` .. `p0 + 15` of destination run `q` lie in the box (`flat`):
            stepped from the first, `n_W` apart."""
            a0 = box_addr(q, p0)
            return [a0, *(k.addi(a0, c(nw * t)) for t in range(1, CHUNK))]  # type: ignore[operator]

        # the chunks a destination run may touch, for a whole box (T steps of K; a chunk
        # of a shorter last box past its run's end stores nothing): a constant, so that
        # the loop index splits into run and chunk without a division at run time
        full_len = t_rows * {"flat": 1, "span": nw}.get(flavour, nd)  # type: ignore[operator]
        cd = c((full_len + 2 * CHUNK - 2) // CHUNK)
        vt = VectorType(elem, [CHUNK])

        def store_chunk(q: SSAValue, ds: SSAValue, de: SSAValue, cs: SSAValue,
                        addrs: Callable[[], list[SSAValue]]) -> None:
            """The destination chunk at `cs` of run `q` (`ds` .. `de`), if it starts inside
            the run (`_Builder.store_chunk`, the run its own bounds)."""
            with k.when(k.cmp("slt", cs, de)):
                k.store_chunk(box, dst, vt, c16, CHUNK, box_addr, q, ds, ds, de, cs, addrs)

        @contextmanager
        def work_items(nq: int, per: int) -> Iterator[tuple[SSAValue, SSAValue]]:
            """The body of phase 2's loop over the `nq x per` work items (destination run q,
            item j of the run) a thread takes: with `lanes` 0, items `tid`, `tid + threads`,
            ... of the row-major order; with N lanes, the warp's lane `l` takes item
            `(g / njg) (32 / N) + l / N`, `(g mod njg) N + l mod N` of each warp unit `g`
            (`njg` = ceil(per / N) units along the items), the items past `nq` runs skipped."""
            if not lanes and turn and flavour == "rows" and nq * per > threads:
                # round r's items (`r threads` on) turned by `r turn` among its threads
                # (`ROWS_TURN`): thread t takes item `r threads + (t + r turn) mod M_r`
                rounds, total = -(-nq * per // threads), nq * per
                last = total - (rounds - 1) * threads
                with k.loop(c(0), c(rounds), c(1)) as r:
                    r.block.parent_op().attributes[UNROLL_ATTR] = IntegerAttr(1, i64)  # type: ignore[union-attr]
                    m = k.add(arith.SelectOp(k.cmp("eq", r, c(rounds - 1)), c(last), cthreads))
                    off = c(0)
                    for rr in range(1, rounds):
                        off = k.add(arith.SelectOp(k.cmp("eq", r, c(rr)), c(rr * turn % (last if rr == rounds - 1
                                                                                      else threads)), off))
                    with k.when(k.cmp("ult", tid, m)):
                        loc = k.addi(tid, off)
                        loc = k.add(arith.SelectOp(k.cmp("uge", loc, m), k.subi(loc, m), loc))
                        idx = k.addi(k.muli(r, cthreads), loc)
                        yield k.divui(idx, c(per)), k.remui(idx, c(per))
                return
            if not lanes:
                with k.loop(tid, c(nq * per), cthreads) as idx:
                    q = k.divui(idx, c(per))
                    yield q, (k.remui(idx, c(per)) if flavour == "rows" else k.subi(idx, k.muli(q, cd)))
                return
            groups = 32 // lanes
            njg = -(-per // lanes)
            units = -(-nq // groups) * njg
            lane = k.andi(tid, c(31))
            q_lo, j_lo = k.divui(lane, c(lanes)), k.remui(lane, c(lanes))
            with k.loop(tid, c(units * 32), cthreads) as idx:
                g = k.divui(idx, c(32))
                q = k.addi(k.muli(k.divui(g, c(njg)), c(groups)), q_lo)
                j = k.addi(k.muli(k.remui(g, c(njg)), c(lanes)), j_lo)
                inside = k.cmp("ult", q, c(nq))
                if per % lanes:
                    inside = k.andi(inside, k.cmp("ult", j, c(per)))
                with k.when(inside):
                    # clamped (a no-op where inside): a skipped item's values stay those of
                    # an item (the reference executor computes them, and checks their width)
                    yield k.add(arith.MinUIOp(q, c(nq - 1))), (k.add(arith.MinUIOp(j, c(per - 1))) if per % lanes else j)

        def chunks_by_residue(n: int, step: int, byte_addr: Callable[[SSAValue], SSAValue]) -> None:
            """Phase 2 of a box whose destination run's byte p lies at a fixed offset per
            period of `n` bytes (`span`, `cols`): chunk j + P (P = n / gcd(n, 16): 16 P bytes
            are whole periods) lies `step` bytes on from chunk j. A thread takes the chunks
            of one residue r mod P, lanes on consecutive chunks: its first chunk's 16 byte
            addresses are computed once (`byte_addr(p)` of the run's byte p, given 16 periods
            on so that p is non-negative), each chunk after adds `step` m to them (no
            division, no wrap per byte)."""
            per = n // gcd(n, CHUNK)
            groups = threads // per
            ds = dorig
            de = k.addi(ds, dlen)
            base = k.andi(ds, cm16)
            with k.when(k.cmp("ult", tid, c(groups * per))):
                r, m0 = k.remui(tid, c(per)), k.divui(tid, c(per))
                # byte t of chunk r is byte 16 r - (ds mod 16) + t of the run (from -15)
                p0 = k.addi(k.muli(r, c16), k.subi(c(CHUNK * n), k.andi(ds, c(15))))
                first = [byte_addr(k.addi(p0, c(t))) for t in range(CHUNK)]
                trips = k.divui(k.subi(k.addi(cd, c(per - 1)), r), c(per))
                with k.loop(m0, trips, c(groups)) as m:
                    cs = k.addi(base, k.muli(k.addi(r, k.muli(m, c(per))), c16))
                    off = k.muli(m, c(step))
                    store_chunk(c(0), ds, de, cs, lambda: [k.addi(a, off) for a in first])

        if flavour == "rows" and carry == 4 and rows_spare:
            # rows, a warp on 32 consecutive chunks of one run (`BOX_CARRY` 4), the run's
            # chunks counted from its start rounded down to 32 bytes: each warp store covers
            # whole sectors. Chunk c of run q starts at p = 16 c - (ds mod 32) of the run;
            # its 16 addresses as below (two slots' bases and n_W t), computed a chunk
            per_run = (full_len + 2 * CHUNK + CHUNK - 2) // CHUNK
            upr = -(-per_run // 32)
            nwarps = threads // 32
            first_block = k.cmp("eq", k_origin, c(0))
            lane = k.andi(tid, c(31))
            slots16 = c(CHUNK * pb) if step < 0 else k.muli(c(CHUNK), pitch)
            with k.loop(k.divui(tid, c(32)), c(nw * upr), c(nwarps)) as g:  # type: ignore[operator]
                q = k.divui(g, c(upr))
                ci = k.addi(k.muli(k.subi(g, k.muli(q, c(upr))), c(32)), lane)
                with k.when(k.cmp("ult", ci, c(per_run))):
                    ds = stepped(dorig, q, dsw)
                    de = k.addi(ds, dlen)
                    pj = k.subi(k.muli(ci, c16), k.andi(ds, c(2 * CHUNK - 1)))
                    cs = k.addi(ds, pj)
                    row_lo = k.subi(ds, k.muli(k_origin, c(nd)))  # type: ignore[arg-type]
                    row_hi = k.addi(row_lo, k.muli(n[kmode], c(nd)))  # type: ignore[arg-type]
                    owned = k.andi(k.cmp("slt", cs, de),
                                   k.add(arith.OrIOp(k.cmp("sge", cs, ds),
                                                     k.andi(first_block, k.cmp("sgt", pj, c(-CHUNK))))))
                    with k.when(owned):
                        # 16 n_D on, so that the step and byte are non-negative
                        p0 = k.addi(pj, c(CHUNK * nd))  # type: ignore[operator]
                        kk, dd = k.divui(p0, c(nd)), k.remui(p0, c(nd))  # type: ignore[arg-type]
                        here = k.subi(k.addi(slot_at(kk), k.addi(q, k.muli(c(nw), dd))), slots16)  # type: ignore[arg-type]
                        on = k.subi(k.addi(slot_at(k.addi(kk, c(1))), k.addi(q, k.muli(c(nw), dd))),  # type: ignore[arg-type]
                                    k.addi(slots16, c(nw * nd)))  # type: ignore[operator]
                        left = k.subi(c(nd), dd)  # type: ignore[arg-type]
                        k.store_chunk(box, dst, vt, c16, CHUNK, box_addr, q, ds, row_lo, row_hi, cs,
                                      lambda: [k.addi(k.add(arith.SelectOp(k.cmp("ult", c(t), left), here, on)),
                                                      c(nw * t)) for t in range(CHUNK)])  # type: ignore[operator]
        elif flavour == "rows":
            # rows: byte p of run q lies at slot p / n_D, byte q + n_W (p mod n_D), the
            # slot's residue mod 16 added; chunk j + n_D (16 n_D bytes on: 16 slots on,
            # the same p mod n_D, and a residue 16 ss_K apart, the same mod 16) lies 16 PB
            # further. A thread takes the chunks of one (run q, residue j mod n_D): the
            # addresses of its first chunk's bytes are computed once (taken 16 n_D on, so
            # that a chunk starting before the run has non-negative slots), each chunk
            # after adds 16 PB m to them
            # with `split`, by the phase-1 groups: part h the chunks whose bytes lie in the
            # steps below (h + 1) split (a thread's trips m_h <= m < m_{h+1}), then the wait
            # for group h + 1; the last part the rest
            def rows_chunks(part: SSAValue | None) -> None:
                """Phase 2's chunks of every trip (`part` None), or those of part `part`."""
                trips = (full_len + 2 * CHUNK - 2) // CHUNK
                per = nd  # type: ignore[assignment]
                def item(q: SSAValue, j: SSAValue, trips_of: int | None = None) -> None:
                    """Item (run q, residue j)'s chunks (`trips_of`: their trips as a constant)."""
                    if nonlocal_stride[0] is not None:
                        q = k.remui(k.muli(q, nonlocal_stride[0]), c(nw))  # type: ignore[arg-type]  # (`ROWS_RUN_STRIDE`)
                    ds = stepped(dorig, q, dsw)
                    de = k.addi(ds, dlen)
                    base = k.andi(ds, cm16)
                    # byte t of chunk j is byte 16 j - (ds mod 16) + t of the run (from -15):
                    # step p0 / n_D, byte q + n_W (p0 mod n_D + t) of its slot while p0 mod n_D
                    # + t < n_D, then of the next step's slot (n_D >= 16: at most one step on),
                    # so the 16 addresses are two slots' bases plus n_W t
                    p0 = k.addi(k.muli(j, c16), k.subi(c(CHUNK * nd), k.andi(ds, c(15))))  # type: ignore[operator]
                    kk, dd = k.divui(p0, c(nd)), k.remui(p0, c(nd))  # type: ignore[arg-type]
                    kk1 = k.addi(kk, c(1))
                    # 16 slots on: 16 pitches (either layout: the slots' residues repeat every 16)
                    slots16 = c(CHUNK * pb) if step < 0 else k.muli(c(CHUNK), pitch)
                    here = k.subi(k.addi(slot_at(kk), k.addi(q, k.muli(c(nw), dd))), slots16)  # type: ignore[arg-type]
                    on = k.subi(k.addi(slot_at(kk1), k.addi(q, k.muli(c(nw), dd))),  # type: ignore[arg-type]
                                k.addi(slots16, c(nw * nd)))  # type: ignore[operator]
                    left = k.subi(c(nd), dd)  # type: ignore[arg-type]
                    first = [k.addi(k.add(arith.SelectOp(k.cmp("ult", c(t), left), here, on)), c(nw * t))  # type: ignore[operator]
                             for t in range(CHUNK)]
                    if rows_spare:
                        # whole chunks: those starting in [ds, de), and in the first block the one
                        # holding the run's first byte; each written within its destination row
                        # (`k_origin` steps before ds, n_K steps long), the bytes up to 15 past de
                        # from the step staged past the block's
                        row_lo = k.subi(ds, k.muli(k_origin, c(nd)))  # type: ignore[arg-type]
                        row_hi = k.addi(row_lo, k.muli(n[kmode], c(nd)))  # type: ignore[arg-type]
                        first_block = k.cmp("eq", k_origin, c(0))
                    lb = c(0)
                    ub = (c(trips_of) if trips_of is not None
                          else k.divui(k.subi(k.addi(c(trips), c(per - 1)), j), c(per)))
                    if part is not None:
                        # trip m's bytes p0 - 16 n_D + 16 n_D m .. + 15 lie in the steps below
                        # s = split h for m < ceil(((s + 16) n_D - 15 - p0) / (16 n_D)) (0 at
                        # h = 0, 16 n_D - 15 <= p0 < 32 n_D; positive beyond, split >= 16)
                        def trips_below(h: SSAValue) -> SSAValue:
                            x = k.subi(k.addi(k.muli(h, c(split * nd)), c(32 * nd - CHUNK)), p0)  # type: ignore[operator]
                            return k.add(arith.MinUIOp(k.divui(x, c(CHUNK * nd)), ub))  # type: ignore[operator]
                        lb = trips_below(part)
                        ub = k.add(arith.SelectOp(k.cmp("eq", part, c(split_groups - 1)), ub,
                                                  trips_below(k.addi(part, c(1)))))
                    with k.loop(lb, ub, c(1)) as m:
                        cs = k.addi(base, k.muli(k.addi(j, k.muli(m, c(per))), c16))
                        off = k.muli(m, slots16)
                        if not rows_spare:
                            store_chunk(q, ds, de, cs, lambda: [k.addi(a, off) for a in first])
                        else:
                            owned = k.andi(k.cmp("slt", cs, de), k.add(arith.OrIOp(k.cmp("sge", cs, ds), first_block)))
                            with k.when(owned):
                                k.store_chunk(box, dst, vt, c16, CHUNK, box_addr, q, ds, row_lo, row_hi, cs,
                                              lambda: [k.addi(a, off) for a in first])

                runs, long = rows_deal(nw, per, threads, trips, deal) if part is None and not lanes and not turn \
                    else (0, 0)  # type: ignore[arg-type]
                if runs:
                    # the last `runs` runs' items of the most trips first (`ROWS_DEAL`), the
                    # runs before in order: a loop each over its share of the items (thread t
                    # takes items t, t + threads, ... of that order), each item's trips
                    # computed as in order (a rolled loop), or with `deal` bit 4 constants
                    # (NVRTC unrolls them: three times the code)
                    def share(a: int, b: int) -> AbstractContextManager[SSAValue]:
                        """The loop over this thread's items of [a, b)."""
                        start = k.addi(tid, k.muli(cthreads, k.divui(k.subi(c(a + threads - 1), tid), cthreads)))
                        return k.loop(start if a else tid, c(b), cthreads)
                    ahead, first = (nw - runs) * per, nw - runs  # type: ignore[operator]
                    if ahead:
                        with share(0, ahead) as idx:
                            item(k.divui(idx, c(per)), k.remui(idx, c(per)))

                    def on(x: SSAValue, by: int) -> SSAValue:
                        return k.addi(x, c(by)) if by else x
                    with share(ahead, ahead + runs * long) as idx:
                        rest = on(idx, -ahead)
                        item(on(k.divui(rest, c(long)), first), k.remui(rest, c(long)),
                             trips // per + 1 if deal & 4 else None)
                    with share(ahead + runs * long, nw * per) as idx:  # type: ignore[operator]
                        rest = on(idx, -(ahead + runs * long))
                        item(on(k.divui(rest, c(per - long)), first), on(k.remui(rest, c(per - long)), long),
                             trips // per if deal & 4 else None)
                else:
                    with work_items(nw, per) as (q, j):  # type: ignore[arg-type]
                        item(q, j)

            if split:
                # the parts as trips of one rolled loop (phase 2's code once: two copies
                # spill under copy_'s 48 registers), part h's end waiting for group h + 1
                with k.loop(c(0), c(split_groups), c(1)) as part_:
                    rows_chunks(part_)
                    for h in range(split_groups - 1):
                        with k.when(k.cmp("eq", part_, c(h))):
                            k.add(AsyncWaitOp(split_groups - 2 - h))
                            k.add(BarrierOp())
                parts_loop = k.block.last_op
                assert isinstance(parts_loop, scf.ForOp)
                parts_loop.attributes[UNROLL_ATTR] = IntegerAttr(1, i64)
            else:
                rows_chunks(None)
        elif flavour == "span":
            # span: byte p of the destination run lies at s0 + P (p / n) + p mod n (n = n_W),
            # so chunk j + C (C = n / gcd(n, 16): 16 C bytes are R = 16 / gcd(n, 16) rows)
            # lies R P bytes on from chunk j; p is given 16 rows on, so 16 rows back
            def span_byte(pt: SSAValue) -> SSAValue:
                row, col = k.divui(pt, c(nw)), k.remui(pt, c(nw))  # type: ignore[arg-type]
                return boxed(k.addi(k.addi(s0, k.muli(row, c(span_pitch))), k.subi(col, c(CHUNK * span_pitch))))  # type: ignore[operator]
            chunks_by_residue(nw, CHUNK // gcd(nw, CHUNK) * span_pitch, span_byte)  # type: ignore[arg-type, operator]
        elif flavour == "flat" and spare and lanes and carry == 2 and threads % (32 * -(-nw // (32 // lanes))) == 0:  # type: ignore[operator]
            # flat, whole chunks, each warp on one group of 32 / lanes runs (`BOX_CARRY` 2):
            # with W warps and G groups (W a multiple of G: the launch's threads), warp w
            # takes group w mod G, its chunk units w / G, w / G + W / G, ...; a thread's run,
            # its start and residue, its box column and the range of its chunks owned
            # whole (0 <= p < min(the block's steps, n_K - k_origin - 15)) are computed
            # once a run, then one unsigned test a chunk; the rest through the general
            # tests (`_Builder.store_chunk`)
            per = (full_len + 2 * CHUNK - 2) // CHUNK
            groups, nwarps = 32 // lanes, threads // 32
            ngroups = -(-nw // groups)  # type: ignore[operator]
            first_block = k.cmp("eq", k_origin, c(0))
            lane = k.andi(tid, c(31))
            q_lo, j_lo = k.divui(lane, c(lanes)), k.remui(lane, c(lanes))
            warp = k.divui(tid, c(32))
            plim = k.add(arith.MaxSIOp(k.add(arith.MinSIOp(dlen, k.subi(n[kmode], k.addi(k_origin, c(CHUNK - 1))))),
                                      c(0)))
            per_group = nwarps // ngroups
            ga, sub = k.remui(warp, c(ngroups)), k.divui(warp, c(ngroups))
            q = k.addi(k.muli(ga, c(groups)), q_lo)
            with k.when(k.cmp("ult", q, c(nw))):  # type: ignore[arg-type]
                ds = stepped(dorig, q, dsw)
                r16 = k.andi(ds, c(15))
                s_q = k.addi(boxed(k.andi(sorig, c(slot_mod - 1))), q)
                row_lo = k.subi(ds, k_origin)
                row_hi = k.addi(row_lo, n[kmode])
                de = k.addi(ds, dlen)
                with k.loop(k.addi(k.muli(sub, c(lanes)), j_lo), c(per), c(per_group * lanes)) as j:
                    pj = k.subi(k.muli(j, c16), r16)
                    with k.when(k.cmp("ult", pj, plim), otherwise=True) as to_else:
                        a0 = k.addi(s_q, k.muli(c(nw), pj))  # type: ignore[arg-type]
                        vec = None
                        for t in range(CHUNK):
                            x = k.add(ReadOp(box, [a0 if t == 0 else k.addi(a0, c(nw * t))]))  # type: ignore[operator]
                            vec = (k.add(vector.BroadcastOp(x, vt)) if t == 0
                                   else k.add(vector.InsertOp(x, vec, [t], vt)))
                        k.add(WriteOp(vec, dst, [k.aligned(k.addi(ds, pj))], width=CHUNK))
                        to_else()
                        cs = k.addi(ds, pj)
                        owned = k.andi(k.cmp("slt", cs, de),
                                       k.add(arith.OrIOp(k.cmp("sge", cs, ds),
                                                         k.andi(first_block, k.cmp("eq", j, c(0))))))
                        with k.when(owned):
                            k.store_chunk(box, dst, vt, c16, CHUNK, box_addr, q, ds, row_lo, row_hi, cs,
                                          lambda: chunk_addrs(q, pj))
        elif flavour == "flat" and spare and lanes and carry:
            # flat, whole chunks, the interior's test folded (`BOX_CARRY`): warp unit g
            # (`nq` runs by `per` chunks, `work_items`' order) taken by the warp directly
            # (no division of a thread index), run q's chunk j at p = 16 j - (ds mod 16)
            # of the run; one unsigned test `p < dlen` (the chunk starts in the block's
            # steps) and one of the row's end (`k_origin + p + 16 <= n_K`) take the chunks
            # a block owns whole, one vector each from the box (`box_addr` + n_W t); the
            # rest (the first block's chunk 0, chunks past the block's steps, the row's
            # last) through the general test and `_Builder.store_chunk`. With 3, a thread
            # takes units g and g + W (W warps) a trip: where both are whole, the box
            # reads of both before either's vector (two chunks' loads in flight)
            # with 4, a run's chunks counted from its start rounded down to 32 bytes (one
            # chunk more a run), so that a group's `lanes` chunks cover whole sectors
            grid = 2 * CHUNK if carry == 4 else CHUNK
            per = (full_len + grid + CHUNK - 2) // CHUNK
            groups, nwarps = 32 // lanes, threads // 32
            njg = -(-per // lanes)
            units = -(-nw // groups) * njg  # type: ignore[operator]
            pairs = 2 if carry == 3 else 1
            first_block = k.cmp("eq", k_origin, c(0))
            lane = k.andi(tid, c(31))
            q_lo, j_lo = k.divui(lane, c(lanes)), k.remui(lane, c(lanes))
            k_end = k.subi(n[kmode], k.addi(k_origin, c16))
            s_q = boxed(k.andi(sorig, c(slot_mod - 1)))

            def unit(g: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue, SSAValue, SSAValue]:
                """(q, j, ds, p, the unit's item inside, its chunk whole) of warp unit g (its
                run clamped: a skipped item's values stay those of an item)."""
                ga = k.divui(g, c(njg))
                q = k.addi(k.muli(ga, c(groups)), q_lo)
                j = k.addi(k.muli(k.subi(g, k.muli(ga, c(njg))), c(lanes)), j_lo)
                inside = k.cmp("ult", q, c(nw))  # type: ignore[arg-type]
                if pairs > 1:
                    inside = k.andi(inside, k.cmp("ult", g, c(units)))
                q = k.add(arith.MinUIOp(q, c(nw - 1)))  # type: ignore[operator]
                ds = stepped(dorig, q, dsw)
                pj = k.subi(k.muli(j, c16), k.andi(ds, c(grid - 1)))
                fast = k.andi(k.cmp("ult", pj, dlen), k.cmp("sle", pj, k_end))
                return q, j, ds, pj, inside, fast

            def reads(q: SSAValue, pj: SSAValue) -> list[SSAValue]:
                a0 = k.addi(k.addi(s_q, q), k.muli(c(nw), pj))  # type: ignore[arg-type]
                return [k.add(ReadOp(box, [a0 if t == 0 else k.addi(a0, c(nw * t))]))  # type: ignore[operator]
                        for t in range(CHUNK)]

            def write(xs: list[SSAValue], ds: SSAValue, pj: SSAValue) -> None:
                vec = k.add(vector.BroadcastOp(xs[0], vt))
                for t, x in enumerate(xs[1:], 1):
                    vec = k.add(vector.InsertOp(x, vec, [t], vt))
                k.add(WriteOp(vec, dst, [k.aligned(k.addi(ds, pj))], width=CHUNK))

            def general(q: SSAValue, j: SSAValue, ds: SSAValue, pj: SSAValue) -> None:
                # owned: starting in the block's steps, or in the first block the chunk
                # holding the run's first byte (-16 < p <= 0)
                cs = k.addi(ds, pj)
                row_lo = k.subi(ds, k_origin)
                owned = k.andi(k.cmp("slt", cs, k.addi(ds, dlen)),
                               k.add(arith.OrIOp(k.cmp("sge", cs, ds),
                                                 k.andi(first_block, k.cmp("sgt", pj, c(-CHUNK))))))
                with k.when(owned):
                    k.store_chunk(box, dst, vt, c16, CHUNK, box_addr, q, ds, row_lo,
                                  k.addi(row_lo, n[kmode]), cs, lambda: chunk_addrs(q, pj))

            with k.loop(k.divui(tid, c(32)), c(units), c(nwarps * pairs)) as g:
                if pairs == 1:
                    q, j, ds, pj, inside, fast = unit(g)
                    with k.when(inside):
                        with k.when(fast, otherwise=True) as to_else:
                            write(reads(q, pj), ds, pj)
                            to_else()
                            general(q, j, ds, pj)
                else:
                    us = [unit(g if u == 0 else k.addi(g, c(u * nwarps))) for u in range(pairs)]
                    both = us[0][4]
                    for u in us:
                        both = k.andi(both, k.andi(u[4], u[5])) if u is not us[0] else k.andi(both, u[5])
                    with k.when(both, otherwise=True) as to_else:
                        xs = [reads(u[0], u[3]) for u in us]
                        for x, u in zip(xs, us):
                            write(x, u[2], u[3])
                        to_else()
                        for q, j, ds, pj, inside, _fast in us:
                            with k.when(inside):
                                general(q, j, ds, pj)
        elif flavour != "cols" and spare:
            # flat, whole chunks: the chunks starting in [ds, ds + tk), and in the first block
            # the chunk holding the run's first byte; each written within its run's ends
            # (the destination row: `origin` steps before ds, n_K long)
            first_block = k.cmp("eq", k_origin, c(0))
            with work_items(nw, (full_len + 2 * CHUNK - 2) // CHUNK) as (q, ci):  # type: ignore[arg-type]
                ds = stepped(dorig, q, dsw)
                cs = k.addi(k.andi(ds, cm16), k.muli(ci, c16))
                row_lo = k.subi(ds, k_origin)
                owned = k.andi(k.cmp("slt", cs, k.addi(ds, dlen)),
                               k.add(arith.OrIOp(k.cmp("sge", cs, ds), k.andi(first_block, k.cmp("eq", ci, c(0))))))
                with k.when(owned):
                    k.store_chunk(box, dst, vt, c16, CHUNK, box_addr, q, ds, row_lo, k.addi(row_lo, n[kmode]), cs,
                                  lambda: chunk_addrs(q, k.subi(cs, ds)))
        elif flavour != "cols":
            with work_items(nw, (full_len + 2 * CHUNK - 2) // CHUNK) as (q, ci):  # type: ignore[arg-type]
                ci16 = k.muli(ci, c16)
                ds = stepped(dorig, q, dsw)
                cs = k.addi(k.andi(ds, cm16), ci16)
                store_chunk(q, ds, k.addi(ds, dlen), cs, lambda: chunk_addrs(q, k.subi(cs, ds)))
        else:
            # cols: byte p of the run lies at slot(p mod n_D) + p / n_D, so chunk j + P
            # (P = n_D / gcd(n_D, 16): 16 P bytes are Q = 16 / gcd(n_D, 16) steps of W)
            # lies Q bytes on from chunk j; p is given 16 n_D on, so that p mod n_D and
            # p / n_D - 16 are its slot and step
            def cols_byte(pt: SSAValue) -> SSAValue:
                dd, tt = k.remui(pt, c(nd)), k.subi(k.divui(pt, c(nd)), c(CHUNK))  # type: ignore[arg-type]
                return boxed(k.addi(k.addi(k.muli(dd, pbc), k.andi(run_start(dd), c(15))), tt))
            chunks_by_residue(nd, CHUNK // gcd(nd, CHUNK), cols_byte)  # type: ignore[arg-type, operator]

    def at_k(kor: SSAValue) -> dict[int, SSAValue]:
        return {**origin0, kmode: kor}  # type: ignore[dict-item]

    def persistent_grid() -> tuple[SSAValue, SSAValue]:
        """(all parts of the copy, G the persistent grid: at most the blocks resident)."""
        total = kcounts[0]
        for x in kcounts[1:]:
            total = k.muli(total, x)
        return total, (k.add(arith.MinUIOp(total, c(slots))) if slots else total)

    if depth == 1:
        part(origin0, None, (1, 2))  # type: ignore[arg-type]
    elif depth == 0 and not ring:
        # persistent (`slots` above): parts bid, bid + G, ... of all `total`, in turn
        # through two boxes as below
        total, g = persistent_grid()
        part(origin_of(bid, tc), None, (1,))
        cbox = c(part_elems)
        trips = k.add(arith.CeilDivUIOp(k.subi(total, bid), g))
        with k.loop(c(0), trips, c(1)) as jt:
            at = k.addi(bid, k.muli(jt, g))
            if stage_async:
                k.add(AsyncWaitOp(0))
            k.add(BarrierOp())
            nxt = k.addi(at, g)
            with k.when(k.cmp("ult", nxt, total)):
                part(origin_of(nxt, tc), k.muli(k.andi(k.addi(jt, c(1)), c(1)), cbox), (1,))
            part(origin_of(at, tc), k.muli(k.andi(jt, c(1)), cbox), (2,))
    elif ring:
        # `depth` parts of the block's steps in turn through a ring of `ring` boxes, box
        # j mod ring with its own mbarrier: every thread arrives on it once its copies
        # of part j have landed (`cp_async_arrive`), so that parts j + 1 .. j + ring - 1
        # stay in flight while part j's phase 2 reads its box; the barrier after phase 2
        # frees the box that the next trip's phase 1 fills
        # (`depth` 0: persistent, the block's parts bid, bid + G, ... of all `total`, as
        # many as fall below it; else the block's `depth` parts of K from its origin)
        bars = k.add(MBarrierArrayOp(threads, ring))
        cbox = c(part_elems)
        if depth == 0:
            total, g = persistent_grid()
            nparts = k.add(arith.CeilDivUIOp(k.subi(total, bid), g))
        else:
            nparts = c(depth)

        def in_part(jp: SSAValue, st: SSAValue, phases: tuple[int, ...]) -> None:
            """The block's part `jp`'s `phases` in box `st` (where the part holds steps of K)."""
            if depth == 0:
                part(origin_of(k.addi(bid, k.muli(jp, g)), tc), k.muli(st, cbox), phases)
                return
            kor = k.addi(origin0[kmode], k.muli(jp, tc))  # type: ignore[index]
            with k.when(k.cmp("ult", kor, n[kmode])):
                part(at_k(kor), k.muli(st, cbox), phases)

        # one loop of nparts + ring - 1 trips, phase 1 and phase 2 once each in its body
        # (one copy of their code): trip t issues part t (and the block's arrivals on its
        # box's barrier) and reads part t - ring + 1; a barrier ends every trip (the
        # bytes past the view's last whole chunk are plain writes, which the mbarriers
        # do not order)
        with k.loop(c(0), k.addi(nparts, c(ring - 1)) if depth == 0 else c(depth + ring - 1), c(1)) as jt:
            with k.when(k.cmp("ult", jt, nparts)):
                st = k.remui(jt, c(ring))
                in_part(jt, st, (1,))
                k.add(CpAsyncArriveOp(k.add(MBarrierAtOp(bars, st))))
            with k.when(k.cmp("uge", jt, c(ring - 1))):
                jc = k.subi(jt, c(ring - 1))
                st = k.remui(jc, c(ring))
                k.add(MBarrierWaitOp(k.add(MBarrierAtOp(bars, st)), k.andi(k.divui(jc, c(ring)), c(1))))
                in_part(jc, st, (2,))
            k.add(BarrierOp())
        ring_loop = k.block.last_op
        assert isinstance(ring_loop, scf.ForOp)
        ring_loop.attributes[UNROLL_ATTR] = IntegerAttr(1, i64)  # rolled: the phases' code once
    else:
        # `depth` parts of the block's steps in turn, two boxes: part j + 1's phase 1 (its
        # copies in flight) while part j's phase 2 reads the other box; one wait and one
        # barrier a part (the barrier also ends the reads of the box the next phase 1
        # overwrites)
        part(origin0, None, (1,))  # type: ignore[arg-type]
        cbox = c(part_elems)
        with k.loop(c(0), c(depth), c(1)) as jt:
            kor = k.addi(origin0[kmode], k.muli(jt, tc))  # type: ignore[index]
            if stage_async:
                k.add(AsyncWaitOp(0))
            k.add(BarrierOp())
            nxt = k.addi(kor, tc)
            with k.when(k.andi(k.cmp("ult", k.addi(jt, c(1)), c(depth)), k.cmp("ult", nxt, n[kmode]))):
                part(at_k(nxt), k.muli(k.andi(k.addi(jt, c(1)), c(1)), cbox), (1,))
            with k.when(k.cmp("ult", kor, n[kmode])):
                part(at_k(kor), k.muli(k.andi(jt, c(1)), cbox), (2,))
    ops = list(host_block.ops)
    for op in ops:
        op.detach()
    return [*ops, launch]



def tiles_merged_table_at(i: int, vd: int, banks: bool) -> int:
    """Where entry `i` of a merged box's run tables lies (`TILES_MERGE_BANKS`): `i`, or with
    `banks` `i + i / V_d` (entries `V_d` apart, one a chunk lane of phase 2, `V_d + 1`
    words apart: different banks for up to 32 lanes where `V_d + 1` is odd)."""
    return i + i // vd if banks else i


def tiles_merged_row_cap(e: int, lanes: int, threads: int) -> int:
    """The largest row step `tiles_merged_row_step` takes: the largest power of two `C` with
    `C (32 / lanes) E <= 16` and the warps a multiple of it."""
    cap = 1
    while cap * 2 * (32 // lanes) * e <= 16 and (threads // 32) % (cap * 2) == 0:
        cap *= 2
    return cap


def tiles_merged_row_step(e: int, lanes: int, threads: int, grain_elems: int, dst_step: int | None) -> int:
    """How far apart a warp's `32 / lanes` destination rows are in phase 2 of a merged `tiles`
    box (`TILES_MERGE_BANKS`, row step not forced): the least `S` (a power of two) with
    `S P_d = 0 (mod G_e)` (`P_d` the destination's step along `W`, `G_e` a grain's
    elements), so that the warp's rows start their chunk grids at one residue and each
    chunk lane reads one run's slot for all of them (the rows' elements `S` apart in it),
    at most `C`: the largest power of two with `C rows E <= 16` (the rows' bytes within 16
    of the slot) and the warps a multiple of it. 36 (`P_d = 1095540`, 4 mod 16): 4; 00
    (759000, 8 mod 16): 2. 0 where `P_d` is a run-time value (the kernel selects among
    the powers of two up to `C`)."""
    cap = tiles_merged_row_cap(e, lanes, threads)
    if dst_step is None:
        return 0
    s = 1
    while s < cap and (s * dst_step) % grain_elems:
        s *= 2
    return s


def tiles_slot32_pitch(run_bytes: int) -> int:
    """Bytes of a merged `tiles` box's slot with `slot32` (`tiles_launch`): a run placed
    at its source address mod 32 (up to 31 bytes before it) and its 16-byte chunks' cover
    past its end, in whole 32 bytes (36's 181-byte runs: 224, against `box_pitch`'s 208)."""
    return -(-(run_bytes + 31) // 32) * 32  # (a cover of 16-byte chunks rounded to 32 is a round to 32)


TILES_SLOT32_TURN_RUNS = 8
"""`box_slot32=3` turns phase 2's rows (`tiles_slot32_turn`) where the innermost merged
mode holds at least this many times `V_d` runs (and `4 V_d` of its source steps are whole
32 bytes), so that at least half of the chunk lanes `4` apart (runs `4 V_d` apart) lie in
one row of it and share their residue mod 32. H200 (b0047, call 1): 00 (275 runs) x1.019
turned against the tree, x0.994 not; 36 (19) x0.993 turned, x1.018 not."""


def tiles_slot32_turn(e: int, lanes: int) -> int:
    """Rows by which phase 2 of a merged `tiles` box with `slot32` 2 turns each group of 4
    chunk lanes (`tiles_launch`): with runs at their residues mod 32 in slots of whole 32
    bytes, slots `V_d` apart (one chunk lane) are 32 bytes apart mod 128, so the `N / 4`
    lanes `4` apart share a 32-byte bank group, and where their runs share a residue
    (00's `4 V_d` runs apart do) they read the same words. Lanes `ci0` then start their
    rows `floor(ci0 / 4)` times `32 / (N / 4)` bytes of the slot later: 8 lanes of
    1-byte elements 16 rows, the warp's 4 rows `S = 4` apart (16 bytes) in the other half
    of the group. 0 (no turn) for 4 lanes or fewer."""
    if lanes <= 4:
        return 0
    return max(32 // (lanes // 4) // e, 1)


def tiles_merged_table(dt: int, ge: int, vd: int) -> int:
    """Entries of a merged box's run tables (`tiles_launch`'s `merge`): an entry per run
    from `-V_d` on, as far as phase 2 reads them. A thread of phase 2 reads, for each of
    its chunks `ci < C` (`C = Dt / V_d + G_e / V_d`, the chunks from the tile's first to
    the end of its grains), the `V_d` entries of runs `r0 + V_d ci .. + V_d - 1`, where
    `r0` (its first chunk's start less the run's) lies in `(-V_d, G_e - 1]`: the reads come
    before the test that the chunk is one the tile writes (once for every run the thread
    takes), so the table reaches run `G_e - 1 + V_d C - 1`, i.e. `V_d + G_e - 1 + V_d C`
    entries. (Session 40's `Dt + G_e + 3 V_d` fell `G_e - 2 V_d - 1` short for 64-byte
    grains of 1-byte elements: the H200's illegal address at the strided set's 36 and 00.)"""
    return vd + ge - 1 + vd * (dt // vd + ge // vd)


def tiles_launch(copy: CopyOp, facts: CopyFacts, smem: int, threads: int = TILES_THREADS,
                 stage: str = "async", run: int | None = None, lanes_along: int = TILES_LANES,
                 grain: int = TILES_GRAIN, chunk_stage: int = TILES_STAGE,
                 depth: int = TILES_DEPTH, blocks_per_sm: int | None = None,
                 interleave: bool = False, rounds: bool = TILES_ROUNDS,
                 row_step: int = TILES_ROW_STEP, rotate: bool = False,
                 merge: int = TILES_MERGE_BYTES, columns: bool = TILES_COLUMNS,
                 by_lines: int = TILES_LINES, merge_banks: bool = TILES_MERGE_BANKS,
                 fill: int = TILES_FILL, l1: bool | None = None, mirror: int = TILES_MIRROR,
                 issue: int = TILES_ISSUE, slot32: int = 0) -> list[Operation]:
    """The host ops and the `layout.launch` of the `tiles` box (`box<tiles>`:
    passes/_copy_cost.box_flavour), both the source's contiguous mode `W` and the
    destination's `D` long, elements of `E` bytes, `V = 16 / E` to a chunk. A block
    takes a tile of `Wt` steps of `W` (`run` bytes) by `Dt` of `D` (`_copy_cost.tiles_shape`;
    every other mode a grid step, the blocks along `D` fastest: consecutive blocks
    write consecutively):

    - phase 1 stages the `Dt + V - 1` source runs of the tile's `D` range and past it
      (`Wt` elements each, stride `ss_D`; fewer at the tensor's end) into congruent
      slots as the other flavours do: every aligned 16-byte chunk covering a run and
      inside the source view by one `layout.copy_chunk_async` (or a 16-byte read and
      write, `stage`), a flat loop over (run, chunk) pairs, the elements past the
      view's last whole chunk one at a time;
    - phase 2 writes, for each destination run of the tile (`W` step `q`, the lanes
      of a warp on consecutive `q`), the aligned chunks that *start* in the run's
      range (the tile's `D` range), and in a tile at `D`'s start also the chunk
      holding the row's first element: a chunk wholly inside its row `D` is one
      16-byte vector of `V` elements read from `V` consecutive slots; a chunk the row's
      ends cut, its elements inside the row one at a time. Every destination element
      is written once: by the tile whose range holds its chunk's start, or the row's
      first tile for the chunk before the row's start.

    A converting copy (`copy.convert`, `_copy_cost.TILES_CONVERT_BYTES`): the box holds
    source elements (`V = 16 / E` a source chunk: phase 1 and the slots' congruence as
    above); phase 2 writes destination chunks of `V_d = 16 / E_d` elements, each from
    `V_d` consecutive slots, every element converted as it is read
    (`_convert_ops.scalar_conversion_ops`), a 16-byte vector of the destination's
    elements stored; the tile's `Dt` a multiple of both chunks, its grains of `G / E_d`
    elements, the slots moved every `V_d` of them. Lanes along a row only (`lanes_along`
    > 0: a thread's chunks `N V_d` slots apart, at least 16, so a multiple of `V`, start
    at its first chunk's residues), not interleaved.

    With `grain` (`TILES_GRAIN`) G bytes past 16, "chunk" above reads "grain" for what
    a tile owns: it writes the chunks of the G-byte grains starting in its range, from
    `Dt + G / E - 1` source runs.

    Phase 1 moves chunks of `chunk_stage` bytes (`TILES_STAGE`; the slots keep their
    congruence modulo 16 bytes, the chunks start at the run's first element rounded down
    to `chunk_stage` bytes); through registers (`stage`), 16-byte reads, each stored as
    pieces of `chunk_stage` bytes.

    `blocks_per_sm`: the blocks a multiprocessor the launch asks to hold where the lanes
    run along a row (`tilec.min_blocks`; default `TILES_SM_THREADS / threads`).

    With `merge` (`_copy_cost.TILES_MERGE_BYTES`: the largest element merged), where
    the destination is compact over the modes after `W` (`_copy_cost.tiles_merged`; lanes
    along a row, one tile a block, not interleaved), those modes are one mode `D'` of the
    box (their extents' product; the grid's other modes those before `W`): `D'`'s steps
    are consecutive destination elements, but a run's source start is the sum of its
    step's digits over the merged modes times their source strides, so its residue mod
    `V` does not repeat along `D'`. A block first fills two shared tables, an entry per
    run from `-V_d` on (`phase0`: the run's source start, and its element 0's place in the
    box, slot plus residue; the elements past the source view's last whole chunk copied
    there by the runs that reach them); phase 1 reads each run's start from the table,
    phase 2 (the chunks outermost) each chunk's `V_d` box addresses once for every run it
    writes. With `merge_banks` (`TILES_MERGE_BANKS`) the tables are padded and a warp's
    rows `tiles_merged_row_step` apart (where `row_step` is 0; else `row_step`'s). Where `W` is known exactly, the runs take it whole up to 512 bytes
    (`_copy_cost.tiles_merged_run`) unless `run` is given or the box (a small `box_smem`)
    holds no chunk's rows of such runs (the default runs then).

    With `mirror` R > 0 (`_copy_cost.TILES_MIRROR`), where a mode `M` continues the
    source's run over `W` (`tiles_mirror_mode`; where `tiles_mirror_misfit` finds none, else
    a `ValueError`), `W` and `M` are one
    mode `W'` of the box (`n_W n_M` steps, source stride 1; `M` leaves the grid), its runs
    `R` bytes: phase 1 as above, but destination run `q` of a tile starting at `W'` step
    `o` starts at the digits of `o + q` (`(o + q) mod n_W` along `W`, `(o + q) / n_W`
    along `M`) times their destination strides, so its residue mod `V_d` does not repeat
    from run to run: phase 2 computes each run's `V_d` box addresses for its chunk.

    With `rounds` (`TILES_ROUNDS`), where the launch asks its blocks a multiprocessor
    (lanes along a row), one tile a block and the Target knows its multiprocessors: the
    tiles along `D` are `_copy_cost.tiles_in_rounds` of those of the box's `Dt` (the
    grid's blocks in whole rounds of `_copy_cost.tiles_slots`), each `Dt' = V ceil(n_D /
    (V K_D))` steps of `D` (at most `Dt`: the box is the same), the grid `ceil(n_D / Dt')`
    tiles along `D`; computed on the host where the extents are run-time values (the
    kernel takes `Dt'` and the count as arguments), folded where they are static.

    With `depth` (`TILES_DEPTH`) N > 1, a block takes N consecutive tiles along `D`
    through two boxes: phase 1 of the first, then per tile a wait for the copies and a
    barrier, the next tile's phase 1 into the other box (its copies in flight), this
    tile's phase 2; the grid has N times fewer steps along `D`. A merged box (`merge`)
    keeps a pair of run tables a box: the first tile's tables, a barrier, its copies; per
    tile the wait and the barrier, the next tile's tables (`phase0`), a barrier, its
    copies, this tile's phase 2.

    With `slot32` (the `tile` option `box_slot32`; off by default) a merged box's runs lie
    in their slots at their source addresses modulo 32 bytes, not 16 (slots a multiple of
    32 bytes, `tiles_slot32_pitch`, moved 32 bytes every `V_d` slots), so that each 32-byte
    source sector phase 1's `.cg` chunks read lands in one 32-byte block of shared memory
    (`BOX_SLOT32`: a sector split over two blocks is asked of L2 twice); phase 2 reads
    the box through the run tables, unchanged. The box grows by the wider slots (its `Dt`
    kept: 36's copy_ kernel 80079 -> 86622 bytes, still two blocks a multiprocessor).
    With `slot32` 2 (3: where `TILES_SLOT32_TURN_RUNS` says, a select in the kernel), also phase 2's rows turned for the banks (`tiles_slot32_turn`): slots
    `V_d` apart are 32 bytes apart mod 128, so chunk lanes `4` apart read the same banks
    (runs `4 V_d` apart often share their residue mod 32); lane `ci0`'s rows start
    `tiles_slot32_turn(E, N) floor(ci0 / 4)` rows later (mod the `threads / N` rows a trip),
    16 bytes further in the slots for 8 lanes. Other boxes ignore it.

    `lanes_along` (`TILES_LANES`): 0, the lanes of a warp on consecutive destination
    runs `q`, a thread's chunks of one run `G` apart; N > 0, N lanes on N consecutive
    chunks of one run (a warp's `32 / N` runs `row_step` apart, `TILES_ROW_STEP`; 0:
    `tiles_row_step_of`'s, computed in the kernel where the steps are run-time values;
    with `rotate`, `tiles_rotated`, the rule's rotated loads where it finds no step),
    a thread's runs `threads / N` apart (its slots the same for each:
    `threads / N` is a multiple of `G / E`, so every run it takes starts at one residue
    mod `G / E`), slot `r` moved by `chunk_stage floor(r / V + 1)` bytes (the N lanes'
    slots, `V` apart, `V PB` bytes: a multiple of 128, in one bank where unmoved; moved by
    16 bytes, in 8 groups of 4 banks; by 4, in 32 banks).

    With `interleave` (`tiles_interleave_misfit` says where it fits; `P = 4 / E`): after
    phase 1 each slot is rewritten in place, between two barriers, so that one 32-bit
    word holds the elements of `P` destination rows `q + V t` (t < P; rows `V` apart
    share the destination's chunk grid): a thread takes a piece of `P` chunks of a run
    (elements `P V p + j + V t`), reads the `P + 1` aligned chunks covering it (16-byte
    reads; a chunk past the run's cover is zeros, so phase 1 writes the view's last,
    partial chunk whole: its bytes past the view zeros), keeps chunk `t` or `t + 1` of
    each byte by a mask of the run's residue `res` (the bytes before `res` from the next
    chunk), transposes the `P x V` elements (word `b` = element `b` of each kept chunk)
    and after the barrier writes the piece's `V` words as `P` 16-byte chunks: element
    `j + V t` of the piece in word `(res + j) mod V`, element `t`. Phase 2 gives each
    thread one word column (`P` rows) and, per chunk, reads `V` words (one a run) and
    writes `P` rows' chunks; `threads / G` threads a group, `lanes` of a warp on
    consecutive chunks, `32 / lanes` groups a warp (conflict-free word reads: the
    lanes' slots `V` apart are moved 16 bytes each)."""
    stage_async = stage == "async"
    one_group = bool(issue & 1) and stage_async  # phase 1's copies one commit group a thread (`TILES_ISSUE`)
    store_lines = bool(by_lines & 2)
    d = facts.rank - 1
    w = next(k for k, m in enumerate(facts.modes) if _static(m.src_stride) == 1)
    e, ed = facts.src_bytes, facts.dst_bytes
    v = CHUNK // e  # a source chunk's elements (the slots' congruence)
    vd = CHUNK // ed  # a destination chunk's elements
    vm = max(v, vd)
    convert = copy.convert.data if copy.convert is not None else None
    if convert is not None and (not lanes_along or interleave):
        raise ValueError("a converting tiles box takes lanes along a destination row, not interleaved")
    ge = grain // ed  # a grain's elements
    sv = max(chunk_stage // e, 1)  # a phase-1 chunk's elements
    md = facts.modes[d]
    # `merge`: the destination's modes after W as one mode D' (`_copy_cost.tiles_merged`)
    group = tiles_merged(facts, merge) if lanes_along and not interleave else None
    # `mirror`: W and the mode continuing its source run as one mode W' (`tiles_mirror_mode`)
    mirrored = tiles_mirror_mode(facts) if mirror else None
    if mirrored is not None:
        misfit = tiles_mirror_misfit(lanes_along, interleave, group is not None, depth, rounds, by_lines)
        if misfit:
            raise ValueError(f"a tiles box over W' (mirror={mirror}) does not fit {misfit}")
        run = mirror
    if l1 is None:  # `BOX_L1`: a tiles box's 16-byte chunks through L1, but over a merged D'
        l1 = "tiles" in BOX_L1 and group is None
    l1 = l1 and sv * e == CHUNK
    modes = facts.modes
    elem = copy.source.type.element_type
    delem = copy.dest.type.element_type
    host_block, host, extents, smis, dmis, sreach, src, dst = _host_views(facts, elem, smem, delem)
    extents = list(extents)
    n_d = md.bound if md.exact else None
    if mirrored is not None:
        wm = mirrored[1]
        n_lo = modes[w].bound  # W, the lower digit of W' (known exactly)
        mm = modes[wm]
        n_hi = mm.bound if mm.exact and mm.bound is not None else _static(extents[wm])
        extents[w] = n_lo * n_hi if n_hi is not None else host.muli(host.c(n_lo), host.val(extents[wm]))
    if group is not None:
        known = [_static(extents[m]) for m in group]
        if None in known:
            nm: Value = host.val(extents[group[0]])
            for m in group[1:]:
                nm = host.muli(host.val(nm), host.val(extents[m]))
            n_d = None
        else:
            nm = math.prod(known)  # type: ignore[arg-type]
            n_d = nm
        group_extents = [extents[m] for m in group]
        extents[d] = nm
        mw = modes[w]
        if not run:  # W whole where it fits, and where a small box (`box_smem`) holds a chunk's rows of such runs
            whole = tiles_merged_run(e, mw.bound if mw.exact else None)
            run = whole if whole and tiles_shape(e, smem, whole, grain, ed, n_d) is not None else run
    wt, dt, pb = tiles_shape(e, smem, run, grain, ed, n_d)  # type: ignore[misc]
    s32 = bool(slot32) and group is not None and CHUNK % (chunk_stage if stage_async else CHUNK) == 0
    turn = tiles_slot32_turn(e, lanes_along) if s32 and slot32 in (2, 3) else 0  # phase 2's rows by bank group
    if s32:  # `slot32`: runs at their source residues mod 32 bytes in slots of whole 32 bytes
        pb = tiles_slot32_pitch(wt * e) // e
    if fill & 1 and lanes_along and (depth == 1 or fill & 4) and not rounds and not interleave and (n_d is None or n_d > dt):
        dt = tiles_filled_dt(dt, vd, vm, ge, lanes_along)  # phase 2's trips full (`TILES_FILL`)
    def tiles_of(x: Value, t: Value) -> Value:
        sx, st = _static(x), _static(t)
        if sx is not None and st is not None:
            return -(-sx // st)
        return host.add(arith.CeilDivUIOp(host.val(x), host.val(t)))

    swz = lanes_along > 0
    mv = (-(-sv * e // 32) * 32 // e if s32 else sv)  # slot_base's move every V_d slots
    cong = 32 // e if s32 else v  # the slots' congruence with their runs (elements)
    box_elems = (dt + ge - 1) * (pb + (-(-mv // vd) if swz else 0)) + (2 * cong if swz else 0)
    box_elems = -(-box_elems // cong) * cong if depth > 1 else box_elems
    # the block's coordinates: tiles of D fastest, then of W, then the other modes
    grid = [m for m in range(facts.rank - 1, -1, -1) if m not in (w, d, *(group or ()), *(mirrored or ()))]
    per_sm = blocks_per_sm or max(1, TILES_SM_THREADS // threads)
    dtv: Value = dt  # the steps of D a tile takes (`rounds`: spread over whole rounds)
    slots = tiles_slots(target_of(copy), threads, per_sm, box_elems * e) if rounds and swz and depth == 1 else 0
    tiles_w = tiles_of(extents[w], wt)
    if slots:
        groups = tiles_w
        for m in grid:
            groups = groups * _static(extents[m]) if isinstance(groups, int) and _static(extents[m]) is not None \
                else host.muli(host.val(groups), host.val(extents[m]))
        fewest = tiles_of(extents[d], dt)
        if isinstance(fewest, int) and isinstance(groups, int):
            spread = tiles_in_rounds(fewest, groups, slots)
            dtv = -(-(-(-_static(extents[d]) // spread)) // vm) * vm
        else:  # `tiles_in_rounds` on the host: R = ceil(F G / S), max(F, R S / G)
            g = host.add(arith.MaxUIOp(host.val(groups), host.c(1)))
            r = host.add(arith.CeilDivUIOp(host.muli(host.val(fewest), g), host.c(slots)))
            spread = host.add(arith.MaxUIOp(host.val(fewest), host.divui(host.muli(r, host.c(slots)), g)))
            per = host.add(arith.CeilDivUIOp(host.val(extents[d]), spread))
            dtv = host.muli(host.add(arith.CeilDivUIOp(per, host.c(vm))), host.c(vm))
    counts = [tiles_of(extents[d], dtv if depth == 1 else dt * depth), tiles_w, *(extents[m] for m in grid)]
    blocks = host.val(counts[0])
    for x in counts[1:]:
        blocks = host.muli(blocks, host.val(x))
    one = host.c(1)
    launch = LaunchOp([blocks, one, one], threads)
    if lanes_along:
        set_min_blocks(launch, per_sm)
    k = _Builder(launch.body.block)
    bid, tid = launch.block_ids[0], launch.thread_id
    c = k.c
    n = [k.val(x) for x in extents]
    cv, cmv, cv1 = c(v), c(-v), c(v - 1)
    cmm, cm1 = c(-cong), c(cong - 1)  # the slots' congruence (`slot32`: 32 bytes, else V)
    cvd, cmvd = (cv, cmv) if vd == v else (c(vd), c(-vd))
    dtk = k.val(dtv) if depth == 1 else c(dt * depth)  # the steps of D of a block
    kd = k.add(arith.CeilDivUIOp(n[d], dtk)) if isinstance(dtv, int) else counts[0]
    kw = k.add(arith.CeilDivUIOp(n[w], c(wt)))
    coords = _block_coords(host, k, bid, list(zip(counts, [kd, kw, *(n[m] for m in grid)])))
    od0, ow = k.muli(coords[0], dtk), k.muli(coords[1], c(wt))
    origin = {d: od0, w: ow, **dict(zip(grid, coords[2:]))}

    def orig(view: str, mis: Value) -> SSAValue:
        acc = k.val(mis)
        for m, o in origin.items():
            if view == "s" and group is not None and m == d:
                continue  # D' steps' source offsets: the run table (`phase0`)
            if view == "d" and mirrored is not None and m == w:
                continue  # W' steps' destination offsets: their digits (`phase2`'s `row`)
            s = modes[m].src_stride if view == "s" else modes[m].dst_stride
            if _static(s) != 0:
                acc = k.addi(acc, k.muli(o, k.val(s)))
        return acc

    ssd, dsw = k.val(modes[d].src_stride), k.val(modes[w].dst_stride)
    tw = k.add(arith.MinUIOp(c(wt), k.subi(n[w], ow)))
    # one box, or two in turn where the block takes `depth` tiles (a multiple of 16 bytes each)
    box = k.add(AllocOp(TensorViewType(elem, cute.make_layout((box_elems * (2 if depth > 1 else 1),), (1,)), "smem")))
    pbc = c(pb)
    lim = k.andi(k.val(sreach), c(-(sv if stage_async else v)))
    ch = sv if stage_async else v
    cpr = (wt + ch - 1) // ch + 1
    vt = VectorType(elem, [v])
    vtd = VectorType(delem, [vd])
    cpd = dt // vd + ge // vd  # chunks from `first` to `end`: (Dt + G - 1 + V - 1) / V at most
    if group is not None:
        # per run r of the tile (r from -V_d, at table entry r + V_d): its source start
        # and its element 0's place in the box (slot and residue)
        tab_n = tiles_merged_table(dt, ge, vd)
        tab_len = tiles_merged_table_at(tab_n - 1, vd, merge_banks) + 1
        wide = not (isinstance(sreach, int) and sreach + 2 * smem < INDEX32_LIMIT)
        st_t = i64 if wide else IntegerType(32)
        i32t = IntegerType(32)
        tabs = 2 if depth > 1 else 1  # a table of each box (two tiles in turn)
        stab = k.add(AllocOp(TensorViewType(st_t, cute.make_layout((tab_len * tabs,), (1,)), "smem")))
        atab = k.add(AllocOp(TensorViewType(i32t, cute.make_layout((tab_len * tabs,), (1,)), "smem")))
        cvd_tab = c(vd)
        coords_of = _coords_of(host, k, [(x, k.val(x)) for x in reversed(group_extents)])

        def tab_at(i: SSAValue) -> SSAValue:
            """Where entry `i` lies (`tiles_merged_table_at`)."""
            return k.addi(i, k.divui(i, cvd_tab)) if merge_banks else i

        def tab_read(tab: SSAValue, r: SSAValue, toff: SSAValue | None = None) -> SSAValue:
            at = tab_at(k.addi(r, cvd_tab))
            return k.add(arith.IndexCastOp(k.add(ReadOp(tab, [at if toff is None else k.addi(at, toff)])), index))

    class Tile:
        """The values of the block's tile starting at `od` along D whose box starts at
        element `boff` (None: 0) of the shared buffer, and a merged box's run tables at
        entry `toff` (None: 0) of theirs."""

        def __init__(self, od: SSAValue, boff: SSAValue | None, toff: SSAValue | None = None):
            origin[d] = od
            self.od, self.boff, self.toff = od, boff, toff
            self.sorig, self.dorig = orig("s", smis), orig("d", dmis)
            left_d = k.subi(n[d], od)
            tdk = k.val(dtv)
            self.td = k.add(arith.MinUIOp(tdk, left_d))
            more = c(dtv + ge - 1) if isinstance(dtv, int) else k.addi(tdk, c(ge - 1))
            self.runs = k.add(arith.MinUIOp(more, left_d))

        def slot_base(self, r: SSAValue) -> SSAValue:
            """Where slot `r` starts in the box: `r PB`, and where the lanes run along a
            destination row 16 bytes more every `V_d` slots (slots `V_d` apart, `V_d PB`
            bytes, a multiple of 128, would be in one bank; `V_d` the destination chunk's
            elements)."""
            at = k.muli(r, pbc)
            if swz:
                at = k.addi(at, k.muli(k.divui(k.addi(r, cvd), cvd), c(mv)))  # r >= 1 - V_d
            return at if self.boff is None else k.addi(at, self.boff)

        def run_start(self, r: SSAValue) -> SSAValue:
            if group is not None:
                return tab_read(stab, r, self.toff)
            return k.addi(self.sorig, k.muli(r, ssd))

        def box_addr(self, q: SSAValue, r: SSAValue) -> SSAValue:
            """Element `r - od` of destination run `q` (W step q): at slot `r` plus the
            run start's residue mod V."""
            if group is not None:
                return k.addi(tab_read(atab, r, self.toff), q)
            return k.addi(k.addi(self.slot_base(r), k.andi(self.run_start(r), cv1)), q)

    def phase0(t: Tile) -> None:
        """A merged D' (`group`): each run's source start (the sum of its step's digits
        over the merged modes times their source strides) and its element 0's place in
        the box into the tables, every entry (runs `-V_d ..`: those before the tile's
        start or past its runs are read by no store, their steps clamped); a run that
        reaches past `lim` (the view's last whole chunk) copies those elements into its
        slot one at a time."""
        with k.loop(tid, c(tab_n), c(threads)) as i:
            r = k.subi(i, cvd_tab)
            p = k.add(arith.MinSIOp(k.add(arith.MaxSIOp(k.addi(t.od, r), c(0))), k.subi(n[d], c(1))))
            st = t.sorig
            for m, x in zip(reversed(group), coords_of(p)):
                if _static(modes[m].src_stride) != 0:
                    st = k.addi(st, k.muli(x, k.val(modes[m].src_stride)))
            ti = tab_at(i) if t.toff is None else k.addi(tab_at(i), t.toff)
            k.add(WriteOp(k.add(arith.IndexCastOp(st, st_t)), stab, [ti]))
            at = k.addi(t.slot_base(r), k.andi(st, cm1))
            k.add(WriteOp(k.add(arith.IndexCastOp(at, i32t)), atab, [ti]))
            end = k.addi(st, tw)
            with k.when(k.andi(k.andi(k.cmp("sge", r, c(0)), k.cmp("slt", r, t.runs)), k.cmp("sgt", end, lim))):
                with k.loop(k.add(arith.MaxSIOp(lim, st)), end, c(1)) as a:
                    x = k.add(ReadOp(src, [a]))
                    k.add(WriteOp(x, box, [k.addi(k.subi(a, k.andi(st, cmm)), t.slot_base(r))]))

    @contextmanager
    def chunk_loop(ci0: SSAValue, cpd_: int, per_: int) -> Iterator[tuple[SSAValue, SSAValue | None]]:
        """(`ci`, the trip) for `ci` from `ci0` (< `per_`) below `cpd_` by `per_`: a loop of
        run-time trips (the trip None), or (`TILES_ISSUE` bit 2) one of `ceil(cpd_ / per_)`
        static trips unrolled whole in the CUDA (bit 32: by 2), `ci = ci0 + per_ trip`, the
        last trip's `ci` past `cpd_` skipped."""
        if not issue & 2:
            with k.loop(ci0, c(cpd_), c(per_)) as ci:
                yield ci, None
            return
        trips = -(-cpd_ // per_)
        with k.loop(c(0), c(trips), c(1)) as jj:
            jj.block.parent_op().attributes[UNROLL_ATTR] = IntegerAttr(min(trips, 2) if issue & 32 else trips, i64)
            ci = k.addi(ci0, k.muli(jj, c(per_)))
            if cpd_ % per_ == 0:
                yield ci, jj
            else:
                with k.when(k.cmp("slt", ci, c(cpd_))):
                    yield ci, jj

    def phase1_chunk(t: Tile, r: SSAValue, j: SSAValue) -> None:
        """Chunk `j` of run `r`'s cover into its slot where it lies inside the run's cover
        and the view (`phase1`)."""
        st = t.run_start(r)
        hi = k.add(arith.MinSIOp(k.andi(k.addi(k.addi(st, tw), c(ch - 1)), c(-ch)), lim))
        g0 = k.andi(st, c(-ch))
        g = k.addi(g0, k.muli(j, c(ch)))
        with k.when(k.cmp("slt", g, hi)):
            slot = k.addi(k.addi(t.slot_base(r), k.subi(g0, k.andi(st, cmm))), k.muli(j, c(ch)))
            if stage_async:
                k.add(CopyChunkAsyncOp(src, [k.aligned(g, sv)], box, [k.aligned(slot, sv)], sv, l1=l1,
                                       uncommitted=one_group))
            else:
                x = k.add(ReadOp(src, [k.aligned(g, v)], width=v))
                if sv == v:
                    k.add(WriteOp(x, box, [k.aligned(slot, v)], width=v))
                else:
                    pt = VectorType(elem, [sv])
                    for p0 in range(0, v, sv):
                        piece = None
                        for e_ in range(sv):
                            y = k.add(vector.ExtractOp(x, [p0 + e_], elem))
                            piece = (k.add(vector.BroadcastOp(y, pt)) if e_ == 0
                                     else k.add(vector.InsertOp(y, piece, [e_], pt)))
                        at = k.aligned(k.addi(slot, c(p0)), sv)
                        k.add(WriteOp(piece, box, [at], width=sv) if sv > 1 else WriteOp(y, box, [at]))

    def phase1(t: Tile) -> None:
        """The tile's source runs into its box (module doc): (run, chunk) pairs, `cpr`
        chunks a run at most (a run of Wt elements from any residue), the chunk's source
        inside the run's cover and the view (through registers, 16-byte reads stored as
        pieces of `sv` elements); then the elements past `lim` (the view's last whole
        chunk), one at a time, in the blocks whose last run ends past it (a block-uniform
        test)."""
        line = 128 // e  # a 128-byte line's elements
        per_line = line // ch  # threads a line: one L2 request
        if (by_lines & 1 and stage_async and per_line >= 1 and 32 % per_line == 0 and threads % per_line == 0):
            # thread `idx` copies chunk c of line l of run r (`tiles_lines`): lines
            # from the one holding the run's first element, `nl` a run at most
            nl = -(-(line + -(-wt // ch) * ch) // line)
            nlg = nl * per_line

            def line_slot(r: SSAValue, rest: SSAValue) -> None:
                st = t.run_start(r)
                g0 = k.andi(st, c(-ch))
                g = k.addi(k.andi(st, c(-line)), k.muli(rest, c(ch)))  # line rest / per_line, chunk rest mod per_line
                hi = k.add(arith.MinSIOp(k.andi(k.addi(k.addi(st, tw), c(ch - 1)), c(-ch)), lim))
                with k.when(k.andi(k.cmp("sge", g, g0), k.cmp("slt", g, hi))):
                    slot = k.addi(k.addi(t.slot_base(r), k.subi(g0, k.andi(st, cmm))), k.subi(g, g0))
                    k.add(CopyChunkAsyncOp(src, [k.aligned(g, sv)], box, [k.aligned(slot, sv)], sv, l1=l1,
                                           uncommitted=one_group))

            if issue & 8 and threads % per_line == 0:
                # thread `tid` keeps chunk `tid mod per_line` of each of the `nl` lines of runs
                # `tid / per_line + k threads / per_line`: a group's copies one line each, `nl` a run
                rest = k.remui(tid, c(per_line))
                with k.loop(k.divui(tid, c(per_line)), t.runs, c(threads // per_line)) as r:
                    for ln in range(nl):
                        line_slot(r, k.addi(rest, c(ln * per_line)))
            elif issue & 4 and threads % nlg == 0:
                # thread `tid` keeps slot `tid mod nlg` of runs `tid / nlg + k threads / nlg`
                rest = k.remui(tid, c(nlg))
                with k.loop(k.divui(tid, c(nlg)), t.runs, c(threads // nlg)) as r:
                    line_slot(r, rest)
            else:
                with k.loop(tid, k.muli(t.runs, c(nlg)), c(threads)) as idx:
                    r = k.divui(idx, c(nlg))
                    line_slot(r, k.subi(idx, k.muli(r, c(nlg))))
        elif columns and threads >= cpr:
            # thread `tid` keeps chunk column `tid mod cpr` of runs `tid / cpr + per k`
            # (`per = threads / cpr` runs a trip): no division a chunk
            per = threads // cpr
            with k.when(k.cmp("ult", tid, c(per * cpr))):
                j = k.remui(tid, c(cpr))
                with k.loop(k.divui(tid, c(cpr)), t.runs, c(per)) as r:
                    phase1_chunk(t, r, j)
        else:
            with k.loop(tid, k.muli(t.runs, c(cpr)), c(threads)) as idx:
                r = k.divui(idx, c(cpr))
                phase1_chunk(t, r, k.subi(idx, k.muli(r, c(cpr))))
        if group is not None:
            return  # the elements past `lim`: `phase0`
        last_end = k.addi(t.run_start(k.subi(t.runs, c(1))), tw)
        with k.when(k.cmp("sgt", last_end, lim)):
            with k.loop(tid, k.muli(t.runs, cv), c(threads)) as idx:
                r, b = k.divui(idx, cv), k.remui(idx, cv)
                st = t.run_start(r)
                end = k.addi(st, tw)
                if interleave:
                    # the chunk at `lim` whole, for phase 1b's 16-byte reads: the view's
                    # elements (the run's and around it), zeros past the view
                    a = k.addi(lim, b)
                    with k.when(k.cmp("sgt", end, lim)):
                        x = k.if_value(k.cmp("slt", a, k.val(sreach)), lambda: k.add(ReadOp(src, [a])),
                                       lambda: k.add(_zero(elem)))
                        k.add(WriteOp(x, box, [k.addi(k.subi(a, k.andi(st, cmv)), t.slot_base(r))]))
                else:
                    a = k.addi(k.add(arith.MaxSIOp(lim, st)), b)
                    with k.when(k.cmp("slt", a, end)):
                        x = k.add(ReadOp(src, [a]))
                        k.add(WriteOp(x, box, [k.addi(k.subi(a, k.andi(st, cmv)), t.slot_base(r))]))

    rows_a_word = 4 // e  # P: destination rows a 32-bit word of an interleaved slot
    pieces = wt // (rows_a_word * v) if interleave else 0  # pieces of P chunks a run

    def phase1b(t: Tile) -> None:
        """The tile's slots interleaved in place (`interleave`, function doc): each
        thread reads its pieces (at most `K` of them: run `r`, piece `p`; a thread past
        the runs reads the last run's again and writes nothing), a barrier, then writes
        them."""
        pp = rows_a_word
        i32 = IntegerType(32)
        wvt = VectorType(i32, [4])
        zero_chunk = k.add(vector.BroadcastOp(k.add(_zero(elem)), vt))
        trips = -(-((dt + ge - 1) * pieces) // threads)
        done = []
        for kk in range(trips):
            idx = k.addi(tid, c(kk * threads))
            r0 = k.divui(idx, c(pieces))
            p = k.remui(idx, c(pieces))
            r = k.add(arith.MinUIOp(r0, k.subi(t.runs, c(1))))
            st = t.run_start(r)
            g0 = k.addi(k.andi(st, cmv), k.muli(p, c(pp * v)))
            cover = k.andi(k.addi(k.addi(st, tw), cv1), cmv)  # the end of the run's chunks
            at = k.addi(t.slot_base(r), k.muli(p, c(pp * v)))
            words = []
            for g in range(pp + 1):
                pos = k.aligned(k.addi(at, c(g * v)), v)
                chunk = k.if_value(k.cmp("slt", k.addi(g0, c(g * v)), cover),
                                   lambda pos=pos: k.add(ReadOp(box, [pos], width=v)), lambda: zero_chunk)
                wv = k.add(vector.BitcastOp(chunk, wvt))
                words.append([k.add(vector.ExtractOp(wv, [i], i32)) for i in range(4)])
            # the bytes before the run's residue come from the next chunk: word i's mask
            # has its bytes 4 i + b < res E set
            res_b = k.muli(k.andi(st, cv1), c(e))
            all64 = k.add(arith.ConstantOp.from_int_and_width(0xFFFFFFFF, i64))
            masks = []
            for i in range(4):
                x = k.add(arith.MinSIOp(k.add(arith.MaxSIOp(k.subi(res_b, c(4 * i)), c(0))), c(4)))
                sh = k.add(arith.IndexCastOp(k.subi(c(32), k.muli(x, c(8))), i64))
                masks.append(k.add(arith.TruncIOp(k.add(arith.ShRUIOp(all64, sh)), i32)))
            ones = k.add(arith.ConstantOp.from_int_and_width(-1, i32))
            kept = [[k.add(arith.OrIOp(k.andi(words[tt + 1][i], masks[i]),
                                       k.andi(words[tt][i], k.add(arith.XOrIOp(masks[i], ones)))))
                     for i in range(4)] for tt in range(pp)]
            # word b of the piece: element b of each kept chunk (element b of chunk t is
            # element b mod P of its word b / P: a P x P transpose of those words)
            out_words = [w_ for i in range(4) for w_ in _transpose_words(k, [kept[tt][i] for tt in range(pp)])]
            outs = [k.add(vector.BitcastOp(_words_vector(k, out_words[4 * ch:4 * ch + 4]), vt)) for ch in range(pp)]
            done.append((k.cmp("ult", r0, t.runs), at, outs))
        k.add(BarrierOp())
        for ok, at, outs in done:
            with k.when(ok):
                for ch, vec in enumerate(outs):
                    k.add(WriteOp(vec, box, [k.aligned(k.addi(at, c(ch * v)), v)], width=v))
        k.add(BarrierOp())

    def phase2(t: Tile) -> None:
        """The tile's destination chunks from its box (module doc): element i of
        destination run q (W step q) is source run i - od, element q."""
        od, dorig, td = t.od, t.dorig, t.td

        def store_chunk(q: SSAValue, ds: SSAValue, rs: SSAValue, re: SSAValue, cs: SSAValue,
                        addrs: Callable[[], list[SSAValue]], fix=None, held_at=None) -> None:
            """Destination chunk `cs` of run `q` (starting at `ds`, the row between `rs`
            and `re`): `_Builder.store_chunk` with `v`-element chunks."""
            k.store_chunk(box, dst, vtd, cvd, vd, t.box_addr, q, ds, rs, re, cs, addrs, convert, fix,
                          rolled_edge=bool(issue & 16), kept_edge=bool(issue & 256), held_at=held_at)

        first_tile = k.cmp("eq", od, c(0))

        def row(q: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue, SSAValue]:
            """(ds, rs, re, first, end) of destination run `q`: where the tile's range
            starts, the row's start and end, the tile's first chunk, the end of the grains
            starting in the range."""
            if mirrored is None:
                ds = k.addi(dorig, k.muli(q, dsw))
            else:  # W' step ow + q: its digits along W (n_lo) and M
                x = k.addi(ow, q)
                hi = k.divui(x, c(n_lo))
                lo = k.subi(x, k.muli(hi, c(n_lo)))
                ds = k.addi(k.addi(dorig, k.muli(lo, dsw)), k.muli(hi, k.val(modes[mirrored[1]].dst_stride)))
            rs = k.subi(ds, od)
            re = k.addi(rs, n[d])
            first = k.add(arith.SelectOp(first_tile, k.andi(rs, cmvd), k.andi(k.addi(ds, c(ge - 1)), c(-ge))))
            end = k.addi(ds, td)
            if ge > vd:
                end = k.andi(k.addi(end, c(ge - 1)), c(-ge))
            return ds, rs, re, first, end

        if interleave:
            phase2_interleaved(t, row, first_tile)
        elif group is not None:
            # N lanes on consecutive chunks of one run, `qs` runs at a time (as below),
            # the chunks outermost: a chunk's V_d box addresses read from the run table
            # once, for every run the thread takes (they read the same slots)
            per = lanes_along
            qs = threads // per
            with k.when(k.cmp("ult", tid, c(qs * per))):
                q0 = turned_row(per)
                ci0 = k.remui(tid, c(per))
                ds0, _, _, first0, _ = row(q0)
                r00 = k.subi(first0, ds0)
                with k.loop(ci0, c(cpd), c(per)) as ci:
                    rb = k.addi(r00, k.muli(ci, cvd))
                    base = [tab_read(atab, k.addi(rb, c(e_)), t.toff) for e_ in range(vd)]
                    with k.loop(q0, tw, c(qs)) as q:
                        ds, rs, re, first, end = row(q)
                        cs = k.addi(first, k.muli(ci, cvd))
                        with k.when(k.cmp("slt", cs, end)):
                            store_chunk(q, ds, rs, re, cs, lambda: [k.addi(b, q) for b in base])
        elif lanes_along:
            # N lanes on consecutive chunks of one run, `qs` runs at a time; run q + qs's
            # chunk ci reads the same slots as run q's (qs ds_W is a multiple of V)
            per = lanes_along
            qs = threads // per
            with k.when(k.cmp("ult", tid, c(qs * per))):
                q0, rot, when_rot = phase2_row(per)
                q0 = k.kept(q0) if issue & 64 else q0  # (`TILES_ISSUE` bit 64: not recomputed a chunk)

                def keeps(rot: SSAValue | None) -> bool:
                    """Bit 64's values kept in the body of rotation `rot` (bit 512: the rotated body's)."""
                    return bool(issue & 64) or (bool(issue & 512) and rot is not None)

                def lanes_body(rot: SSAValue | None, q0: SSAValue) -> None:
                    ci0 = k.kept(k.remui(tid, c(per))) if keeps(rot) else k.remui(tid, c(per))
                    ds0, _, _, first0, _ = row(q0)
                    r00 = k.addi(k.subi(first0, ds0), k.muli(ci0, cvd))
                    if rot is None:  # (a mirrored box's runs compute their own)
                        base = [] if mirrored is not None else [
                            k.kept(t.box_addr(q0, k.addi(r00, c(e_)))) for e_ in range(vd)]
                        fix = held_at = None
                    else:
                        # load t reads element (t + rot 4 / E) mod V: word j of the loaded chunk
                        # is word (j + rot) mod 4 of the destination's; put back by a select a
                        # word for each bit of rot (row lanes: 4 for 1-byte elements, 2 wider)
                        def held_at(e_: int) -> SSAValue:
                            return k.andi(k.addi(c(e_), k.muli(rot, c(4 // e))), c(vd - 1))

                        base = [k.kept(t.box_addr(q0, k.addi(r00, held_at(e_)))) for e_ in range(vd)]
                        bits = [k.cmp("ne", k.andi(rot, c(b)), c(0)) for b in (1, 2) if b < 32 // per]

                        def fix(vec: SSAValue) -> SSAValue:
                            i32 = IntegerType(32)
                            wv = k.add(vector.BitcastOp(vec, VectorType(i32, [4])))
                            ws = [k.add(vector.ExtractOp(wv, [i], i32)) for i in range(4)]
                            for b, by in enumerate(bits):
                                ws = [k.add(arith.SelectOp(by, ws[(j - (1 << b)) % 4], ws[j])) for j in range(4)]
                            return k.add(vector.BitcastOp(_words_vector(k, ws), vtd))
                    with k.loop(q0, tw, c(qs)) as q:
                        ds, rs, re, first, end = row(q)
                        dq = k.subi(q, q0)
                        if mirrored is not None:
                            # each run at its own residue: its chunk's box addresses its own
                            r0 = k.addi(k.subi(first, ds), k.muli(ci0, cvd))
                            own = [k.kept(t.box_addr(q, k.addi(r0, c(e_)))) for e_ in range(vd)]
                            with k.loop(ci0, c(cpd), c(per)) as ci:
                                cs = k.addi(first, k.muli(ci, cvd))
                                with k.when(k.cmp("slt", cs, end)):
                                    step = k.muli(k.subi(ci, ci0), c(vd * pb + sv))
                                    store_chunk(q, ds, rs, re, cs, lambda: [k.addi(b, step) for b in own], fix, held_at)
                        elif store_lines:
                            # the row's chunks from the start of the `per` chunks' span
                            # holding its first (`tiles_lines`): lane `ci0` of trip j
                            # stores chunk `per j + ci0 - lag`, where it is one of the row's
                            lag = k.remui(k.divui(first, cvd), c(per))
                            with k.loop(ci0, c(cpd + per), c(per)) as cl:
                                ci = k.subi(cl, lag)
                                cs = k.addi(first, k.muli(ci, cvd))
                                with k.when(k.andi(k.cmp("sge", ci, c(0)), k.cmp("slt", cs, end))):
                                    step = k.addi(dq, k.muli(k.subi(ci, ci0), c(vd * pb + sv)))
                                    store_chunk(q, ds, rs, re, cs, lambda: [k.addi(b, step) for b in base], fix, held_at)
                        else:
                            # (`TILES_ISSUE` bit 128: the run's addresses kept once a run, a chunk's
                            # then theirs plus its constant step where bit 2 unrolls the loop)
                            held = [k.kept(k.addi(b, dq)) for b in base] if issue & 128 else None
                            with chunk_loop(ci0, cpd, per) as (ci, trip):
                                cs = k.addi(first, k.muli(ci, cvd))
                                with k.when(k.cmp("slt", cs, end)):
                                    # slot_base(r + V_d); run r + per V_d starts at run r's residue
                                    # mod V (per V_d ss_D, at least 16 elements, a multiple of V)
                                    if held is None:
                                        step = k.addi(dq, k.muli(k.subi(ci, ci0), c(vd * pb + sv)))
                                    else:
                                        dci = k.subi(ci, ci0) if trip is None else k.muli(trip, c(per))
                                        step = k.muli(dci, c(vd * pb + sv))
                                    store_chunk(q, ds, rs, re, cs, lambda: [k.addi(b, step) for b in held or base], fix,
                                                held_at)

                def kept_q0(rot: SSAValue | None) -> SSAValue:
                    return k.kept(q0) if keeps(rot) and not issue & 64 else q0

                if when_rot is None:
                    lanes_body(rot, kept_q0(rot))
                else:  # run-time steps: the rotated loads only in the blocks whose steps ask them
                    with k.when(when_rot, otherwise=True) as to_else:
                        lanes_body(rot, kept_q0(rot))
                        to_else()
                        lanes_body(None, q0)
        else:
            # the lanes: `P` consecutive `q` (a warp's lanes on consecutive destination runs),
            # `G` groups of them on chunks `G` apart; run `r + G V` starts at the residue mod V
            # of run `r` (G V ss_D is a multiple of V), so a thread's V box addresses are
            # computed once per `q` and stepped by one add a chunk
            lanes = min(threads, wt)
            groups = threads // lanes
            with k.when(k.cmp("ult", tid, c(groups * lanes))):
                ci0 = k.divui(tid, c(lanes))
                with k.loop(k.remui(tid, c(lanes)), tw, c(lanes)) as q:
                    ds, rs, re, first, end = row(q)
                    r00 = k.addi(k.subi(first, ds), k.muli(ci0, cv))
                    base = [k.kept(t.box_addr(q, k.addi(r00, c(e_)))) for e_ in range(v)]
                    with k.loop(ci0, c(cpd), c(groups)) as ci:
                        cs = k.addi(first, k.muli(ci, cv))
                        with k.when(k.cmp("slt", cs, end)):
                            step = k.muli(k.subi(ci, ci0), c(v * pb))
                            store_chunk(q, ds, rs, re, cs, lambda: [k.addi(b, step) for b in base])

    def spread_rows(s_: int, per: int) -> SSAValue:
        """Thread `tid`'s first run in phase 2 with `per` lanes along a run, a warp's
        `32 / per` runs `s_` apart (`TILES_ROW_STEP`)."""
        if s_ == 1:
            return k.divui(tid, c(per))
        rows = 32 // per
        wid, kq = k.divui(tid, c(32)), k.divui(k.remui(tid, c(32)), c(per))
        return k.addi(k.addi(k.muli(k.divui(wid, c(s_)), c(rows * s_)), k.remui(wid, c(s_))), k.muli(kq, c(s_)))

    def merged_row(per: int) -> SSAValue:
        """Thread `tid`'s first run in phase 2 of a merged box: runs `row_step` apart where
        it is forced, else `tiles_merged_row_step`'s with `merge_banks` (in the kernel where
        the destination's step along `W` is a run-time value: the least power of two `S`
        up to the cap with `S P_d = 0 (mod G_e)`), else consecutive."""
        if row_step or not merge_banks:
            return spread_rows(row_step or 1, per)
        s_ = tiles_merged_row_step(e, per, threads, ge, _static(modes[w].dst_stride))
        if s_:
            return spread_rows(s_, per)
        cap = tiles_merged_row_cap(e, per, threads)
        q = spread_rows(cap, per)
        s_ = cap // 2
        while s_ >= 1:
            fits = k.cmp("eq", k.andi(k.muli(dsw, c(s_)), c(ge - 1)), c(0))
            q = k.add(arith.SelectOp(fits, spread_rows(s_, per), q))
            s_ //= 2
        return q

    def turned_row(per: int) -> SSAValue:
        """`merged_row`'s run, turned by `tiles_slot32_turn` rows for each group of 4 chunk
        lanes (`slot32` 2), modulo the `threads / per` runs a trip (a permutation of them
        for each chunk lane)."""
        q = merged_row(per)
        if not turn:
            return q
        qs = threads // per
        turned = k.remui(k.addi(q, k.muli(k.divui(k.remui(tid, c(per)), c(4)), c(turn % qs))), c(qs))
        if slot32 == 2:
            return turned
        # 3: where lanes 4 apart (runs 4 V_d apart) mostly share their residue mod 32
        # (`TILES_SLOT32_TURN_RUNS`): the innermost merged mode at least that many runs
        # long and 4 V_d steps of its source stride a multiple of 32 bytes
        # (the innermost is `D`, its extent `group_extents[-1]`: `n[d]` is `D'`'s)
        long_ = k.cmp("uge", k.val(group_extents[-1]), c(TILES_SLOT32_TURN_RUNS * vd))
        whole = k.cmp("eq", k.andi(k.muli(k.val(modes[d].src_stride), c(4 * vd * e)), c(31)), c(0))
        return k.add(arith.SelectOp(k.andi(long_, whole), turned, q))

    def phase2_row(per: int) -> tuple[SSAValue, SSAValue | None, SSAValue | None]:
        """(first run, rotation, when) of thread `tid` in phase 2 with `per` lanes along a
        run: `tid / per` (`row_step` 1), else the warp's `32 / per` runs `S` apart
        (`TILES_ROW_STEP`), S `tiles_row_step_of`'s where `row_step` is 0: known, or
        from the steps' residues in the kernel (a select of the runs of S = 1, 2, 4);
        the rotation (None: none), the words by which the thread's chunk loads are
        rotated where the rule says so (its row lane), `when` None where that is known,
        else the kernel's test of the steps (m = 0 mod 8 for 1-byte elements, 0 mod 4 for
        2-byte, even for 4-byte): phase 2 is built twice, rotated and not, under it."""
        rows = 32 // per
        warps = threads // 32

        def lane_row() -> SSAValue:
            return k.divui(k.remui(tid, c(32)), c(per))

        def spread(s_: int) -> SSAValue:
            return spread_rows(s_, per)

        step, turn = row_step, False
        if step == 0 and mirrored is not None:
            return spread(1), None, None  # the runs' residues do not repeat: no step to find
        if step == 0:
            step, turn = (1, False) if convert is not None else tiles_row_step_of(
                e, per, chunk_stage, threads, _static(modes[d].src_stride), _static(modes[w].dst_stride))
        if step:
            return spread(step), (lane_row() if turn and rotate else None), None
        # run-time steps: m = 1 - P_s P_d (mod 16); 1-byte elements: S = 1 (m = 4 mod 8 or
        # 0 mod 8), 2 (m = 2 mod 4), 4 (m odd), the rotation where m = 0 (mod 8); 2- and
        # 4-byte: S = 1, rotated where m = 0 (mod 4), even; as `tiles_row_step_of`
        if e != 1 and not rotate:
            return spread(1), None, None
        m = k.andi(k.subi(c(1), k.muli(ssd, dsw)), c(15))
        q = q1 = spread(1)
        if e == 1:
            q2 = spread(2) if warps % 2 == 0 else q1
            q4 = spread(4) if warps % 4 == 0 else q1
            odd = k.cmp("ne", k.andi(m, c(1)), c(0))
            two = k.cmp("ne", k.andi(m, c(2)), c(0))
            q = k.add(arith.SelectOp(odd, q4, k.add(arith.SelectOp(two, q2, q1))))
        if not rotate:
            return q, None, None
        return q, lane_row(), k.cmp("eq", k.andi(m, c({1: 7, 2: 3, 4: 1}[e])), c(0))

    def phase2_interleaved(t: Tile, row, first_tile: SSAValue) -> None:
        """Phase 2 from interleaved slots (function doc): thread `(group, ci0)` takes word
        column `j` of piece `p` (rows `q_t = P V p + j + V t`, those inside the tile) and
        chunks `ci0, ci0 + L, ...` of them (`L = threads / G`); a warp holds `32 /
        lanes` consecutive columns by `lanes` consecutive chunks. The rows share their
        chunks' positions relative to their starts, so one test of row `q_0` says which
        chunks are whole; those read `V` words (one a run: word `(res(r) + j) mod V` of
        the piece, addresses computed once and stepped `V` slots a chunk) and write `P`
        vectors, the others each row's elements one at a time."""
        pp = rows_a_word
        groups = wt // pp
        per_group = threads // groups
        gw = 32 // lanes_along
        warps = per_group // lanes_along
        wid, lane = k.divui(tid, c(32)), k.remui(tid, c(32))
        group = k.addi(k.muli(k.divui(wid, c(warps)), c(gw)), k.divui(lane, c(lanes_along)))
        ci0 = k.addi(k.muli(k.remui(wid, c(warps)), c(lanes_along)), k.remui(lane, c(lanes_along)))
        p, j = k.divui(group, cv), k.remui(group, cv)
        q0 = k.addi(k.muli(p, c(pp * v)), j)
        i32 = IntegerType(32)

        def box_addr(q: SSAValue, r: SSAValue) -> SSAValue:
            """Element `r - od` of destination run `q` in the interleaved slot `r`."""
            qp, qj, qt = k.divui(q, c(pp * v)), k.remui(q, cv), k.remui(k.divui(q, cv), c(pp))
            col = k.andi(k.addi(k.andi(t.run_start(r), cv1), qj), cv1)
            return k.addi(k.addi(t.slot_base(r), k.muli(k.addi(k.muli(qp, cv), col), c(pp))), qt)

        with k.when(k.cmp("ult", q0, tw)):
            rows = [row(k.addi(q0, c(v * tt))) for tt in range(pp)]
            inside = [None] + [k.cmp("ult", k.addi(q0, c(v * tt)), tw) for tt in range(1, pp)]
            ds0, rs0, re0, first0, end0 = rows[0]
            r00 = k.addi(k.subi(first0, ds0), k.muli(ci0, cv))
            base = []
            for e_ in range(v):
                r = k.addi(r00, c(e_))
                col = k.andi(k.addi(k.andi(t.run_start(r), cv1), j), cv1)
                base.append(k.kept(k.addi(t.slot_base(r), k.muli(k.addi(k.muli(p, cv), col), c(pp)))))
            with k.loop(ci0, c(cpd), c(per_group)) as ci:
                cs0 = k.addi(first0, k.muli(ci, cv))
                with k.when(k.cmp("slt", cs0, end0)):
                    full = k.andi(k.cmp("sge", cs0, rs0), k.cmp("sle", k.addi(cs0, cv), re0))
                    with k.when(full, otherwise=True) as to_else:
                        step = k.muli(k.subi(ci, ci0), c(v * pb + sv))  # slot_base(r + V)
                        words = []
                        for b_ in base:
                            x = k.add(ReadOp(box, [k.aligned(k.addi(b_, step), pp)], width=pp))
                            x = k.add(vector.BitcastOp(x, VectorType(i32, [1])))
                            words.append(k.add(vector.ExtractOp(x, [0], i32)))
                        # row t's word m: element t of words P m .. P m + P - 1 (a transpose)
                        tr = [_transpose_words(k, words[pp * m:pp * m + pp]) for m in range(4)]
                        for tt in range(pp):
                            vec = k.add(vector.BitcastOp(_words_vector(k, [tr[m][tt] for m in range(4)]), vt))
                            at = k.aligned(k.addi(cs0, k.subi(rows[tt][0], ds0)), v)
                            if tt == 0:
                                k.add(WriteOp(vec, dst, [at], width=v))
                            else:
                                with k.when(inside[tt]):
                                    k.add(WriteOp(vec, dst, [at], width=v))
                        to_else()
                        for tt in range(pp):
                            ds, rs, re = rows[tt][:3]
                            q = k.addi(q0, c(v * tt))
                            cs = k.addi(cs0, k.subi(ds, ds0))

                            def elements(ds=ds, rs=rs, re=re, q=q, cs=cs) -> None:
                                with k.loop(c(0), cv, c(1)) as b:
                                    a = k.addi(cs, b)
                                    with k.when(k.andi(k.cmp("sge", a, rs), k.cmp("slt", a, re))):
                                        x = k.add(ReadOp(box, [box_addr(q, k.subi(a, ds))]))
                                        k.add(WriteOp(x, dst, [a]))
                            if tt == 0:
                                elements()
                            else:
                                with k.when(inside[tt]):
                                    elements()

    if depth == 1:
        t0 = Tile(od0, None)
        if group is not None:
            phase0(t0)
            k.add(BarrierOp())
        phase1(t0)
        if stage_async:
            k.add(AsyncWaitOp(0, commit=one_group))
        k.add(BarrierOp())
        if interleave:
            phase1b(t0)
        phase2(t0)
    else:
        # `depth` tiles along D in turn, two boxes: tile j + 1's phase 1 (its copies in
        # flight) while tile j's phase 2 reads the other box; one wait and one barrier a
        # tile (the barrier also ends the reads of the box the next phase 1 overwrites)
        # (a merged box: each box its own run tables, filled by `phase0` before its phase 1)
        ctab = c(tab_len) if group is not None else None

        def toff_of(j: SSAValue) -> SSAValue | None:
            return None if ctab is None else k.muli(k.andi(j, c(1)), ctab)

        t0 = Tile(od0, None)
        if group is not None:
            phase0(t0)
            k.add(BarrierOp())
        phase1(t0)
        cbox = c(box_elems)
        with k.loop(c(0), c(depth), c(1)) as jt:
            od = k.addi(od0, k.muli(jt, c(dt)))
            if stage_async:
                k.add(AsyncWaitOp(0, commit=one_group))
            k.add(BarrierOp())
            nxt = k.addi(od, c(dt))
            with k.when(k.andi(k.cmp("ult", k.addi(jt, c(1)), c(depth)), k.cmp("ult", nxt, n[d]))):
                j1 = k.addi(jt, c(1))
                tn = Tile(nxt, k.muli(k.andi(j1, c(1)), cbox), toff_of(j1))
                if group is not None:
                    phase0(tn)
                    k.add(BarrierOp())
                phase1(tn)
            with k.when(k.cmp("ult", od, n[d])):
                phase2(Tile(od, k.muli(k.andi(jt, c(1)), cbox), toff_of(jt)))
    ops = list(host_block.ops)
    for op in ops:
        op.detach()
    return [*ops, launch]
