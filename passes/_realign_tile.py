"""The realign strategy of a whole-tensor copy (`#layout.copy_strategy<realign>`), as the
`tile` pass writes it: a `layout.launch` over pointer tensors.

    ops = realign_launch(copy, facts, target, bits)   # replaces the copy

Copies whose rows (the last mode, contiguous in both views) start at addresses that
differ modulo 16 bytes cannot move 16-byte vectors on both sides at once: the tiled
kernel reads and writes such rows an element at a time. Here each thread writes a
destination chunk (`chunk_bytes`: 16 bytes, aligned; 8 bytes, one element, for short
rows of 8-byte elements, two chunks a thread) and reads the source in aligned vectors
of the chunk's size, realigning in registers (`layout.funnel_shift`). Both views'
pointers are aligned pointers moved by their misalignments (`CopyFacts.src_mis`,
`dst_mis`: `layout.addptr %base, %mis`); the kernel addresses memory from the aligned
pointers:

- flat chunk index f = pid * rows + i (consecutive lanes, consecutive chunks), row
  f / C and chunk c = f % C of it, C the chunks a row spans at most (`chunks_per_row`,
  computed on the host from the destination's misalignment and what its outer strides
  are multiples of); with 32-bit offsets the divisions by C and by the outer extents
  are multiply-shifts in 64 bits (`magic`, the pairs computed on the host,
  `_gather_tile.host_magic`), else divisions;
- the row's coordinates over the outer modes give its first element's offsets S (src)
  and D (dst) from the aligned pointers; chunk c starts at A = (floor(D / V) + c) * V
  (V = a chunk's elements; floors as arithmetic shifts, V being a power of two, so
  negative strides are walked as well);
- the V source elements of its V destination elements start at s = A - D + S: the
  thread loads the aligned vectors at sa = floor(s / V) * V and sa + V, each masked
  where it holds no element of the row, the second also where s = sa, and takes V
  elements from s - sa on (`layout.funnel_shift`);
- it stores them with a per-element mask (the row's head and tail chunks): whole
  chunks are one vector store, partial ones are stored element by element;
- before its loads, where the destination's rows do not continue each other, it asks
  L2 for its chunk if the chunk's 32-byte sector holds bytes outside the row
  (`sector_prefetch`, `layout.ptr_prefetch`): a sector written in part that is not in
  L2 is fetched from DRAM to merge the bytes not written, after the write; asked first,
  the fetch is a read among the kernel's loads (`SECTOR_PREFETCH`).

Every vector read lies inside the aligned span of a row's bytes, so inside the
allocation (allocations are at least 16-byte aligned). Offsets are `i<bits>`.

Rows of 1- and 2-byte integers read at a source step of 2 (`_copy_cost.realign_fits`'
`steps`, `REALIGN_STEPS`): 16-byte destination chunks (one a thread, `STEP2_THREADS` a block), the
chunk's V source elements `s = 2 (A - D) + S` on spanning a window of 2V elements, the
three aligned vectors at `sa = floor(s / V) * V`, `sa + V` and `sa + 2V` (the third where
the shift is 2 or more); the window's halves funnel-shifted by `s - sa` (two
`layout.funnel_shift`s sharing the middle vector), each shifted by 0 into V / 2 pairs of
twice the element size whose low halves (a truncation) are the half chunk's elements,
stored at A and A + V / 2 (a row's head and tail halves whole where its start is a
multiple of 8 bytes). The halves' tensors are of V / 2 elements a row
(`layout.convert_layout` of the row values, no data moving).

A compact destination may instead be written as one flat run (`realign_flat_launch`, the
`tile` pass's `realign_flat=1`; `flat_fits`): a thread's aligned chunk from its row's
window and the next row's, a select between them, no chunk written in parts. H200, the
strided set's 38 (a bf16 broadcast, rows of 2246 bytes): 0.38 of cudaMemcpy against the row
form's 0.64, arithmetic-bound (benchmarks/NOTES.md, perm40): off
(`_copy_cost.REALIGN_FLAT_BROADCAST`).
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, TensorType, UnitAttr
from xdsl.ir import Operation, SSAValue

from tilec.dialects import layout_compute as lc
from tilec.dialects.layout import ConvertLayoutOp, CopyOp, LaunchOp
from tilec.dialects.layout_funnel import FunnelShiftOp
from tilec.dialects.layout_attrs import PtrType
from tilec.dialects.layout_ptr import AddPtrOp, PtrLoadOp, PtrPrefetchOp, PtrStoreOp
from tilec.support.target import Target

from ._copy_cost import CopyFacts, Value, _static, flat_broadcast, flat_step2, value_bound
from ._gather_tile import (INDEX32_LIMIT, MAGIC64, Narrow, _Body, divmod32, fast_divisor, host_magic_i64,
                           magic_divmod64)

index = IndexType()

REALIGN_THREADS = 256
"""Threads per block of the realign strategy. H200, the strided set in turns (`tilec.copy_`,
5 rounds, s1146), 256 / 1024 against 512: 34 x1.017 / x0.949 (0.824 -> 0.838), 16 x1.009 /
x0.850 (0.845 -> 0.852), 04 x1.035 / x0.958, 22 x1.023 / x0.958; a second call, 512 against
256: 46 x0.995, 10 x0.976, 19 x0.972, 28 x0.973, 40 x0.972, canonical f32 columns 1:-1
x0.978, int8 columns 1: of 8192 x 8195 x1.038 in a range of 0.985-1.102 (the one reading
against); 128 ties 256 on 34 and 16 (benchmarks/NOTES.md).
Before (H100, the api/ kernel this strategy replaced, one call, 128 / 256 / 512 / 1024):
46 0.364 / 0.372 / 0.379 / 0.383, 16 0.782 / 0.793 / 0.803 / 0.805, 04 1.007 / 0.997 /
1.004 / 0.960, 28 1.005 / 1.009 / 1.010 / 0.977: 512."""
STEP2_THREADS = 256
"""Threads per block of rows read at a step of 2 (one 16-byte chunk a thread). H200, the
strided set's 37 (int8 34951 x 18858 at a pitch of 75438, every other byte), of
cudaMemcpy for 512 x 2 / 256 x 2 / 256 x 1 (threads x chunks): 0.509 / 0.528 / 0.562
(benchmarks/NOTES.md, slice40)."""
SHORT_ROW_BYTES = 64
"""Rows of 8-byte elements known to be at most this many bytes take 8-byte chunks
(`chunk_bytes`)."""


def source_step(facts: CopyFacts) -> int:
    """The source stride of the rows (1, or 2 for 1-byte rows read every other byte,
    `_copy_cost.realign_fits`)."""
    return _static(facts.modes[-1].src_stride) or 1


def chunk_bytes(facts: CopyFacts, target: Target, asked: int | None = None) -> int:
    """The destination chunk: 8 bytes (one element, two chunks a thread) for rows of
    8-byte elements known to be at most `SHORT_ROW_BYTES` (a warp's store then writes
    32 consecutive elements: rows of 40 bytes at a pitch of 80 store no half chunk),
    else the widest vector (rows read at a step of 2 too: the chunk's source elements
    span a 32-byte window, three aligned vectors). `asked` (the `tile` pass's
    `realign_bytes`): that for 8-byte elements read at a step of 1, 8 or the widest vector."""
    last = facts.modes[-1]
    e = facts.dst_bytes
    if asked is not None and e == 8 and source_step(facts) == 1:
        return min(asked, target.vector_bytes)
    if e == 8 and last.bound is not None and last.bound * e <= SHORT_ROW_BYTES:
        return 8
    return target.vector_bytes


def chunks_per_thread(chunk: int, target: Target) -> int:
    """A thread's chunks: 1, or as many as fill the widest vector's bytes."""
    return max(1, target.vector_bytes // chunk)


def _outer_granule(facts: CopyFacts, chunk: int) -> int:
    """g = gcd(chunk, the destination's outer strides in bytes): row starts are the
    destination's misalignment plus multiples of g."""
    g = chunk
    for m in facts.modes[:-1]:
        s = _static(m.dst_stride)
        g = math.gcd(g, (abs(s) if s is not None else m.dst_divisor) * facts.dst_bytes)
    return g


def chunks_per_row(n_last: int, e: int, dmis: int, g: int, chunk: int) -> int:
    """The most `chunk`-byte chunks a row of `n_last` elements of `e` bytes spans, its
    start `dmis` elements past an aligned address plus a multiple of `g` bytes: at most
    ((dmis * e) % g + chunk - g) bytes into a chunk."""
    worst = (dmis * e) % g + chunk - g
    return -(-(worst + n_last * e) // chunk)


def static_index_bits(facts: CopyFacts, target: Target, asked: int | None = None) -> int | None:
    """32 where every extent and stride is static, each misalignment static or bounded
    (`_copy_cost.value_bound`: a program that states it as `mis % (16 / itemsize)`),
    and every offset from the aligned pointers (two vectors to spare), every flat chunk
    index and a block past the end fit a signed 32-bit integer for every misalignment
    within its bound; 64 where one does not; None where something is dynamic or
    unbounded. `asked`: the chunk bytes asked (`chunk_bytes`)."""
    ns = [_static(m.extent) for m in facts.modes]
    ss = [_static(m.src_stride) for m in facts.modes]
    ds = [_static(m.dst_stride) for m in facts.modes]
    mis = [value_bound(x) if x is not None else None for x in (facts.src_mis, facts.dst_mis)]
    if None in ns or None in ss or None in ds or None in mis:
        return None
    chunk = chunk_bytes(facts, target, asked)
    v = chunk // facts.dst_bytes
    g = _outer_granule(facts, chunk)
    # a static dst misalignment as it is; a bounded one at its worst (`chunks_per_row`
    # reads it modulo g bytes, so no more than g elements need trying)
    dmis = _static(facts.dst_mis) if facts.dst_mis is not None else None
    tried = [dmis] if dmis is not None else range(min(mis[1], g) + 1)  # type: ignore[type-var]
    c = max(chunks_per_row(ns[-1], facts.dst_bytes, d, g, chunk) for d in tried)
    worst = math.prod(ns[:-1]) * c + 1024 * 8  # a block past the end: threads x chunks at most
    for view, m in ((ss, mis[0]), (ds, mis[1])):
        worst = max(worst, m + sum((n - 1) * abs(s) for n, s in zip(ns, view)) + 4 * v)
    return 32 if worst < INDEX32_LIMIT else 64


SECTOR_BYTES = 32
"""The DRAM sector: a write of part of one makes L2 fetch the rest before writing it
back (benchmarks/NOTES.md, sa39)."""
SECTOR_PREFETCH = 1
"""How the realign strategy asks L2 first for the chunks of the sectors a row covers in
part (`sector_prefetch`; the `tile` pass's `realign_prefetch=`): 0 not, 1 by
`prefetch.global.L2`, 2 that of the chunk a wave on (`prefetch_ahead`), 3 by bulk
prefetches of the chunk's 16 bytes (`layout.ptr_prefetch {bulk}`), 4 by bulk prefetches
of each row's first and last chunks only (`sector_prefetch`'s `ends`), 5 as 4 after the
source loads (`ENDS_LATE`), 6 the row's real partial sectors only, after the loads
(`EDGES`, `edges_prefetch`), 7 those by one ask a row (`EDGES_ROW`). H200, the strided
set's rows into a longer pitch, of cudaMemcpy without / with (1): 16 (int16 rows of 508
bytes at a pitch of 512) 0.667 / 0.824, 34 (int32 rows of 224 bytes at 236) 0.584 /
0.719, 46 (int64 rows of 40 bytes at 80) 0.422 / 0.550; the realign cases whose rows
are long (04, 10, 19, 22, 28, 40) within 0.5% (benchmarks/NOTES.md, sa39).
`prefetch.global.L2` brings the 128-byte line: Nsight on 34, 1541 MB read for the 1028 MB
of source and fills; by bulk prefetches of 16 bytes (3) 1217 MB, and 34 0.716 -> 0.787,
but 16 0.828 -> 0.801, 46 0.539 -> 0.400 (two 8-byte chunks a 16-byte block, a bulk
prefetch each), 04 0.929 -> 0.910, 10 0.968 -> 0.954; a wave ahead (2): 34 0.714, 16
0.773, 46 0.499 against 0.716, 0.828, 0.553 (benchmarks/NOTES.md, dst43). Each row's ends
by bulk prefetches (4), in turns: 34 0.717 -> 0.805 (0.786 by 3), but 16 0.830 -> 0.797,
46 0.530 -> 0.524, 04 0.935 -> 0.910, 10 0.975 -> 0.957, 22 0.971 -> 0.950: a bulk
prefetch costs 2-4% even where rows are long and asks are few (benchmarks/NOTES.md,
dst44). 1 stays but for rows known short (`prefetch_rule`: 5 or, for 8-byte elements, 6)."""
ENDS_LATE = 5
"""`realign_prefetch=5`: as 4 (the ends' bulk prefetches), asked after the source loads
(`realign_launch`'s `late`), which then issue where mode 1's do (ptxas schedules the line
prefetch after the loads; the bulk prefetch's loop over the lanes' addresses, R2UR and
UBLKPF, held them behind it)."""
EDGES = 6
"""`realign_prefetch=6`: a row's real partial sectors only, after the source loads (as
`ENDS_LATE`): bulk prefetches at the row's first element, unless its address is on a 32-byte
boundary, and at its last, unless one past it is (`edges_prefetch`, `layout.ptr_prefetch`'s
`edge`: the test of the real address at run time). Mode 4 asks each row's first and last
chunk whatever the address says, so a row starting or ending on a sector boundary asks for a
sector it writes whole (46: rows of 40 bytes at a pitch of 80, 16 bytes past a sector: one
in four asks; dst50)."""
EDGES_ELEMENT = 8
EDGES_ROW_BYTES = (40, 512)
"""Rows of `EDGES_ELEMENT`-byte elements whose bound (`Mode.bound`: a static extent, or copy_'s
power-of-two class of rows of at most 64 elements) spans EDGES_ROW_BYTES take `EDGES`
(`row_rule`; from 40 bytes: 46's rows, which a Program states exactly and copy_'s key by their
class, 64). H200, in turns (dst50), of the rule before: the strided set's 46 (int64 rows of
40 bytes at a pitch of 80, class 8: mode 1) x1.079 [1.073, 1.093] (0.490 -> 0.529 of
cudaMemcpy), padded int64 rows 8@9 (mode 1) x1.106, 24@25 and 60@63 (mode 5) x1.026 / x1.008;
16-byte chunks (`realign_bytes=16`) add nothing (46 x1.077). Rows of 2- and 4-byte elements
keep theirs: 34 (int32 224 B at 236, mode 5) x0.986 every round, int32 24@27 (mode 1) x0.994,
04 x0.993; 16 (int16 508 B at 512: every row's end on a sector boundary) x1.035."""
EDGES_ROW = 7
"""`realign_prefetch=7`: `EDGES`' sectors by one `layout.ptr_prefetch {bulk} row` a row (the
thread of its first chunk): a row's partial head and tail sectors, where adjacent, by one bulk
prefetch of 64 bytes (46's even rows: two asks a pair of rows where `EDGES` makes three)."""
ENDS_ROW_BYTES = (128, 512)
"""Rows whose length is known (`Mode.bound`: a static extent, or copy_'s power-of-two class
of rows of at most 64 elements, 256 for 2- and 4-byte ones) to be at most ENDS_ROW_BYTES[1]
bytes, the bound at least ENDS_ROW_BYTES[0], take `ENDS_LATE` (`prefetch_rule`). H200, in
turns, padded rows of ~256 MiB, of mode 1: int16 56@59 x1.014, 70@73 x1.009, 120@122 x1.024
(s1645), int32 24@27 x1.105, 56@59 x1.088, int64 24@25
x1.109, 60@63 x1.044, the strided set's 34 0.718 -> 0.824 (x1.148); shorter bounds lose
or gain (int32 8@9 x0.739, int8 24@27 x0.935, int16 24@27 x0.946, int16 8@9 x1.097, int64
8@9 x1.049: many rows, many serial asks a warp), as 46 (x0.998) does not; rows of unknown
length mixed (int16 120 x1.025, 254 x1.062 in a spread of 0.07, 16 x0.991, int8 500
x0.987, 04 x0.988): mode 1 (benchmarks/NOTES.md, ends44)."""


ENDS_PAIR_BYTES = (256, 1024)
"""Rows of `ENDS_PAIR_ELEMENTS`-byte elements whose bound (`Mode.bound`: a static extent, or
copy_'s class of rows, `copy_key.REALIGN_ROW_CLASS`) spans more than ENDS_PAIR_BYTES[0]
and at most ENDS_PAIR_BYTES[1] bytes take `ENDS_LATE` with 2 chunks a thread (`row_rule`).
H200, in turns, of mode 1 (copy_'s key before the classes of 128 and 256), this rule / mode 5
with 1 chunk: the strided set's 16 x1.016 / x0.991 (0.829 -> 0.842), int32 70@73 x1.075 /
x1.063, 120@123 x1.045 / x1.031, 130@133 x1.045 / x1.024, 200@203 x1.029 / x1.003, 250@252
x1.039 / x1.021, int16 254@256 x1.022 / x1.039 (benchmarks/NOTES.md, s1645); 1-byte (int8
500 x0.868) and 8-byte rows (int64 60@63 x1.023 against mode 5's x1.044) and rows of at most
256 bytes (int16 120@122 x0.994 against mode 5's x1.024, int16 70@73 x0.995 against x1.009,
the set's 34 x1.006 in a spread of 0.002) gain nothing by 2 chunks (ends44, s1645)."""
ENDS_PAIR_ELEMENTS = (2, 4)


def row_rule(bound: int | None, e: int) -> tuple[int, int | None]:
    """(`realign_prefetch`, `realign_chunks`; None: `chunks_per_thread`) by default for rows
    of `e`-byte elements known to hold at most `bound` elements (None: unknown):
    `EDGES` where `e` is `EDGES_ELEMENT` and the bound spans `EDGES_ROW_BYTES`, `ENDS_LATE` with
    2 chunks where `e` is one of `ENDS_PAIR_ELEMENTS` and the bound spans `ENDS_PAIR_BYTES`,
    `ENDS_LATE` where it spans `ENDS_ROW_BYTES`, else `SECTOR_PREFETCH`."""
    if bound is None:
        return SECTOR_PREFETCH, None
    b = bound * e
    if e == EDGES_ELEMENT and EDGES_ROW_BYTES[0] <= b <= EDGES_ROW_BYTES[1]:
        return EDGES, None
    if e in ENDS_PAIR_ELEMENTS and ENDS_PAIR_BYTES[0] < b <= ENDS_PAIR_BYTES[1]:
        return ENDS_LATE, 2
    if ENDS_ROW_BYTES[0] <= b <= ENDS_ROW_BYTES[1]:
        return ENDS_LATE, None
    return SECTOR_PREFETCH, None


def prefetch_rule(facts: CopyFacts) -> int:
    """The `tile` pass's default `realign_prefetch` for a copy: `row_rule`'s by its rows'
    bound and element size."""
    return row_rule(facts.modes[-1].bound, facts.dst_bytes)[0]


def chunks_rule(facts: CopyFacts) -> int | None:
    """The `tile` pass's default `realign_chunks` for a copy of the row form: `row_rule`'s
    by its rows' bound and element size (None: `chunks_per_thread`)."""
    return row_rule(facts.modes[-1].bound, facts.dst_bytes)[1]


REALIGN_DIV32 = True
"""Whether realign kernels of 32-bit offsets divide the flat chunk index by the chunks a
row and the outer extents as a 32-bit multiply-high and a shift (`_gather_tile.divmod32`,
gathers' `DIV32`) instead of a 64-bit product and shift; the `tile` pass's `div32=`.
H200, the strided set in turns, of cudaMemcpy without / with: 34 0.717 / 0.716, 16 0.830
/ 0.837, 46 0.530 / 0.530, 04 0.935 / 0.939, 10 0.975 / 0.975, 22 0.971 / 0.976 (the
rounds' spreads 0.001-0.003); static SASS of 34's kernel 144 -> 136 (benchmarks/NOTES.md,
dst44)."""


def sector_prefetch(b: _Body, facts: CopyFacts, n: list[SSAValue], doff: SSAValue, achunk: SSAValue,
                    row_ok: SSAValue, bulk: bool = False, ends: SSAValue | None = None) -> None:
    """`layout.ptr_prefetch` of each chunk (first destination element `achunk`, its row's
    first `doff`, `n[-1]` elements a row) whose 32-byte sector holds elements outside
    the row, where the destination's rows do not continue each other (the stride of
    the mode before the last is not the row's extent: a gap between rows), so that
    L2 holds the sector when the row's part of it is written. The rows' chunks
    outside the row (past its end) ask nothing. `bulk`: by bulk prefetches of the chunk's
    16-byte block (`layout.ptr_prefetch {bulk}`: the sector alone, not its 128-byte line).
    `ends` (each row's coordinate along the mode before the last): instead, each row's
    first chunk and its last chunk ask, whatever the 32-byte pseudo-sectors of the
    aligned pointer say: the sectors a row covers in part are those of its two ends,
    and the pointer's real sectors (its address mod 32, known only at run time) can lie
    16 bytes off the pseudo-sectors, so that a pseudo-sector's test asks up to two
    chunks a real sector and may miss one. The last chunk does not ask where the next
    row along that mode starts inside it (A <= D + stride < A + V: that row's first
    chunk asks for the same block). At most two asks a row; a row's end on a real sector
    boundary asks for a sector it writes whole."""
    e = facts.dst_bytes
    last = facts.rank - 1
    if ends is None:  # the pseudo-sector of the chunk: A rounded down to 32 bytes
        per = SECTOR_BYTES // e
        sh = b.splat(b.const(per.bit_length() - 1))
        sector = b.add(arith.ShLIOp(b.add(arith.ShRSIOp(achunk, sh)), sh))
    row_end = b.addi(doff, b.splat(n[last]))
    v = b.splat(b.const(b.v))
    inside = b.cmp("slt", achunk, row_end)
    past = b.addi(achunk, v)
    chunk_in = b.add(arith.AndIOp(inside, b.cmp("sgt", past, doff)))
    if ends is not None:  # the row's first chunk (A <= D) or its last (A + V >= D + n), unless shared
        nxt = b.addi(doff, b.splat(b.scalar(facts.modes[last - 1].dst_stride)))  # the next row's start
        alone = b.add(arith.OrIOp(b.cmp("sge", ends, b.splat(b.subi(n[last - 1], b.const(1)))),
                                  b.add(arith.OrIOp(b.cmp("slt", nxt, achunk), b.cmp("sge", nxt, past)))))
        tail = b.add(arith.AndIOp(b.cmp("sge", past, row_end), alone))
        part = b.add(arith.OrIOp(b.cmp("sle", achunk, doff), tail))
    else:
        part = b.add(arith.OrIOp(b.cmp("slt", sector, doff),
                                 b.cmp("sgt", b.addi(sector, b.splat(b.const(per))), row_end)))
    gap = b.add(arith.CmpiOp(b.scalar(facts.modes[last - 1].dst_stride), n[last], "ne"))
    mask = b.add(arith.AndIOp(b.add(arith.AndIOp(chunk_in, part)), row_ok))
    mask = b.add(arith.AndIOp(mask, b.splat(gap, mask.type)))
    elem = facts.dst_base.type.element_type  # type: ignore[union-attr]
    ptrs = b.add(AddPtrOp(b.splat(facts.dst_base, TensorType(PtrType(elem), [b.rows], b.r)), achunk))
    b.ops.append(PtrPrefetchOp(ptrs, mask, bulk))


def edges_prefetch(b: _Body, facts: CopyFacts, n: list[SSAValue], doff: SSAValue, chunk_i: SSAValue,
                   achunk: SSAValue, row_ok: SSAValue, merged: bool = False) -> None:
    """Bulk prefetches of the sectors a row covers in part, by the real address (`EDGES`),
    where the destination's rows do not continue each other: the thread of the row's first
    chunk (c = 0) asks for the block of the row's first element (D) unless D's address is a
    multiple of 32 bytes (`edge` 0), the thread of its last chunk (A < D + n <= A + V) for
    the block of its last element unless one past it is (`edge` = the element's bytes). A row
    inside one sector asks it twice where neither end is on a boundary; a row's tail and the
    next row's head in one sector ask it once each. Every pointer is one of the row's
    elements: inside the destination. `merged` (`EDGES_ROW`): one `layout.ptr_prefetch
    {bulk} row` a row by the thread of its first chunk, which asks the same sectors, two
    adjacent ones by one bulk prefetch of 64 bytes."""
    last = facts.rank - 1
    row_end = b.addi(doff, b.splat(n[last]))
    gap = b.splat(b.add(arith.CmpiOp(b.scalar(facts.modes[last - 1].dst_stride), n[last], "ne")), row_ok.type)
    ok = b.add(arith.AndIOp(row_ok, gap))
    head = b.add(arith.AndIOp(ok, b.cmp("eq", chunk_i, b.splat(b.const(0)))))
    tail = b.add(arith.AndIOp(b.add(arith.AndIOp(ok, b.cmp("slt", achunk, row_end))),
                              b.cmp("sge", b.addi(achunk, b.splat(b.const(b.v))), row_end)))
    elem = facts.dst_base.type.element_type  # type: ignore[union-attr]
    ptrs = b.splat(facts.dst_base, TensorType(PtrType(elem), [b.rows], b.r))
    if merged:
        b.ops.append(PtrPrefetchOp(b.add(AddPtrOp(ptrs, doff)), head, True, row=n[last]))
        return
    b.ops.append(PtrPrefetchOp(b.add(AddPtrOp(ptrs, doff)), head, True, 0))
    last_elem = b.subi(row_end, b.splat(b.const(1)))
    b.ops.append(PtrPrefetchOp(b.add(AddPtrOp(ptrs, last_elem)), tail, True, facts.dst_bytes))


class _HostOps:
    """A launch's host-side index ops in order (`ops`): `add` appends an op and gives its
    result, `const` an index constant, `val` a fact's value (a constant where static)."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def const(self, x: int) -> SSAValue:
        return self.add(arith.ConstantOp.from_int_and_width(x, index))

    def val(self, x: Value) -> SSAValue:
        return self.const(x) if isinstance(x, int) else x


def _host_row_chunks(facts: CopyFacts, chunk: int, h: _HostOps) -> SSAValue:
    """C, the `chunk`-byte chunks a row spans at most (`chunks_per_row`), as host ops
    appended to `h` (a constant where the last extent and the dst misalignment are static)."""
    e, last = facts.dst_bytes, facts.rank - 1
    g = _outer_granule(facts, chunk)
    n_last, dmis = _static(facts.modes[last].extent), _static(facts.dst_mis)  # type: ignore[arg-type]
    if n_last is not None and dmis is not None:
        return h.const(chunks_per_row(n_last, e, dmis, g, chunk))
    head = (h.const((dmis * e) % g) if dmis is not None
            else h.add(arith.AndIOp(h.add(arith.MuliOp(h.val(facts.dst_mis), h.const(e))), h.const(g - 1))))
    row_bytes = h.add(arith.MuliOp(h.val(facts.modes[last].extent), h.const(e)))
    span = h.add(arith.AddiOp(h.add(arith.AddiOp(head, row_bytes)), h.const(chunk - g)))
    return h.add(arith.CeilDivUIOp(span, h.const(chunk)))


def prefetch_ahead(target: Target, threads: int, rows: int) -> int:
    """The chunks a wave of realign blocks covers (`rows` chunks a block of `threads`):
    the multiprocessors (132 where the target does not say) times the blocks of
    `threads` one holds, times `rows`; `sector_prefetch` ahead by this many chunks asks
    L2 for a sector a wave before its row's part of it is written."""
    return (target.multiprocessors or 132) * max(1, target.threads_per_sm // threads) * rows


def realign_launch(copy: CopyOp, facts: CopyFacts, target: Target, bits: int,
                   threads: int = REALIGN_THREADS, chunks: int | None = None,
                   prefetch: bool = False, magic64: bool = MAGIC64, ahead: bool = False,
                   bulk: bool = False, ends: bool = False, div32: bool | None = None,
                   late: bool = False, edges: bool = False, chunk: int | None = None,
                   merged: bool = False) -> list[Operation]:
    """The host ops and the `layout.launch` of the realign strategy of `copy` (module
    doc), with `bits`-bit offsets and `threads` per block (a multiple of a warp) of
    `chunks` destination chunks a thread (None: `chunks_per_thread`); the caller puts
    them in the copy's place. `facts` must fit (`_copy_cost.realign_fits`). `prefetch`
    (rows read at a step of 1): first `layout.ptr_prefetch` of each chunk whose 32-byte
    sector the row covers in part, where the rows do not continue each other
    (`sector_prefetch`); `ahead` (with `prefetch`): the chunk a wave on's
    (`prefetch_ahead`) instead, a block of the first wave its own too; `bulk` (with
    `prefetch`): each sector by a bulk prefetch of 16 bytes, not its line; `ends` (with
    `prefetch`): a row's first and last chunks ask, not those of partial pseudo-sectors
    (`sector_prefetch`); `late` (with `prefetch`, not `ahead`): the prefetch after the source
    loads, not before (the loads issue first; the stores, which wait for the loads, still
    follow the ask). `magic64`: with 64-bit offsets, the chunk index's divisions
    by run-time values as multiplications too (`_gather_tile.magic_divmod64`). `div32`
    (None: `REALIGN_DIV32`): with 32-bit offsets, each division of the chunk index a
    32-bit multiply-high and a shift (`_gather_tile.divmod32`), not a 64-bit product.
    `edges` (with `prefetch`, `late`): a row's real partial sectors only (`edges_prefetch`),
    not `sector_prefetch`'s asks; with `merged` too, one ask a row (`EDGES_ROW`). `chunk`:
    the destination chunk's bytes (None:
    `chunk_bytes`'; 8 or 16 for 8-byte elements, the widest vector else)."""
    rank = facts.rank
    last = rank - 1
    e = facts.dst_bytes
    step = source_step(facts)
    chunk = chunk_bytes(facts, target, chunk)
    v = chunk // e
    shift_v = v.bit_length() - 1
    rows = threads * (chunks or chunks_per_thread(chunk, target))
    host_ops = _HostOps()
    host, hadd, hconst, hval = host_ops.ops, host_ops.add, host_ops.const, host_ops.val

    c_host = _host_row_chunks(facts, chunk, host_ops)
    nrows_host = hval(facts.modes[0].extent)
    for m in facts.modes[1:last]:
        nrows_host = hadd(arith.MuliOp(nrows_host, hval(m.extent)))
    total_host = hadd(arith.MuliOp(nrows_host, c_host))
    grid = hadd(arith.CeilDivUIOp(total_host, hconst(rows)))
    one = hconst(1)
    launch = LaunchOp([grid, one, one], threads)
    pid = launch.block_ids[0]

    fast = bits == 32
    div32 = REALIGN_DIV32 if div32 is None else div32
    magics = {}
    if fast:
        magics["c"] = host_magic_i64(c_host, host)
        for k in range(1, last):
            magics[k] = host_magic_i64(facts.modes[k].extent, host)
    elif magic64:  # run-time divisors only (a constant's division is the compiler's multiplication)
        if _static(c_host) is None:
            magics["c"] = fast_divisor(host, c_host)
        for k in range(1, last):
            if _static(facts.modes[k].extent) is None:
                magics[k] = fast_divisor(host, facts.modes[k].extent)  # type: ignore[arg-type]

    # the source's vectors: `v` elements (a step of 2: three, the chunk's 2v-element window)
    b = _Body(IntegerType(bits), rows, v, threads)
    R, T = b.R, b.T
    n = [b.scalar(m.extent) for m in facts.modes]
    chunks = b.add(arith.IndexCastOp(c_host, b.it))
    nrows = n[0]
    for k in range(1, last):
        nrows = b.muli(nrows, n[k])
    total = b.muli(nrows, chunks)
    start = b.muli(b.add(arith.IndexCastOp(pid, b.it)), b.const(rows))
    flat = b.addi(b.arange(rows, R), b.splat(start))
    row_ok = b.cmp("slt", flat, b.splat(total))
    i64 = IntegerType(64)
    R64 = TensorType(i64, [rows], b.r)

    def divmod_(x: SSAValue, d: SSAValue, which) -> tuple[SSAValue, SSAValue]:
        """(x // d, x % d) of a [rows] tensor x >= 0 by the splat divisor d: with 32-bit
        offsets as (x * m) >> s in 64 bits (`magic`, the host's pair), or with `div32` as
        umulhi(2 x, m) >> (s - 31) in 32 bits (`divmod32`), else divisions."""
        if not fast and which in magics:
            return magic_divmod64(b, x, d, magics[which])
        if not fast:
            return b.add(arith.DivSIOp(x, d)), b.add(arith.RemSIOp(x, d))
        if div32:
            q = divmod32(b, x, magics[which])
            return q, b.subi(x, b.muli(q, d))
        m, sh = (b.splat(v if v.type == i64 else b.add(arith.IndexCastOp(v, i64)), R64) for v in magics[which])
        q = b.add(lc.TruncIOp(b.add(arith.ShRSIOp(b.muli(b.add(lc.ExtSIOp(x, R64)), m), sh)), R))
        return q, b.subi(x, b.muli(q, d))

    def coords_of(flat: SSAValue) -> tuple[SSAValue, list[SSAValue]]:
        """(chunk c, the row's coordinates over the outer modes) of flat chunk ids."""
        row, chunk_i = divmod_(flat, b.splat(chunks), "c")
        coords: list[SSAValue] = [row] * last
        rest = row
        for k in range(last - 1, 0, -1):
            rest, coords[k] = divmod_(rest, b.splat(n[k]), k)
        coords[0] = rest
        return chunk_i, coords

    def row_offset(mis: Value, strides: list[Value], coords: list[SSAValue]) -> SSAValue:
        """Each chunk's row's first element's offset from the aligned pointer."""
        off = b.splat(b.scalar(mis))
        for k in range(last):
            s = _static(strides[k])
            if s == 0:
                continue
            off = b.addi(off, coords[k] if s == 1 else b.muli(coords[k], b.splat(b.scalar(strides[k]))))
        return off

    v_r, sh_r = b.splat(b.const(v)), b.splat(b.const(shift_v))
    dstrides = [m.dst_stride for m in facts.modes]

    def first_of(doff: SSAValue, chunk_i: SSAValue) -> SSAValue:
        """A = (floor(D / V) + c) * V: the chunk's first destination element."""
        return b.muli(b.addi(b.add(arith.ShRSIOp(doff, sh_r)), chunk_i), v_r)

    chunk_i, coords = coords_of(flat)
    soff = row_offset(facts.src_mis, [m.src_stride for m in facts.modes], coords)  # type: ignore[arg-type]
    doff = row_offset(facts.dst_mis, dstrides, coords)  # type: ignore[arg-type]
    achunk = first_of(doff, chunk_i)
    # s = step (A - D) + S; sa = floor(s / V) * V; the shift s - sa
    s_first = b.addi(b.muli(b.subi(achunk, doff), b.splat(b.const(step))) if step > 1 else b.subi(achunk, doff), soff)
    sa = b.muli(b.add(arith.ShRSIOp(s_first, sh_r)), v_r)
    shift = b.subi(s_first, sa)
    # one past the row's last source element
    send = b.addi(soff, b.splat(n[last]) if step == 1 else
                  b.splat(b.addi(b.muli(b.subi(n[last], b.const(1)), b.const(step)), b.const(1))))
    if prefetch and step == 1 and ahead:
        # the chunk a wave on (where it is one: flat < total - far), the first wave's own
        far = b.const(prefetch_ahead(target, threads, rows))
        first_wave = b.add(arith.AndIOp(row_ok, b.cmp("slt", flat, b.splat(far))))
        sector_prefetch(b, facts, n, doff, achunk, first_wave, bulk)
        on_ok = b.cmp("slt", flat, b.splat(b.subi(total, far)))
        on_chunk, on_coords = coords_of(b.addi(flat, b.splat(far)))
        on_doff = row_offset(facts.dst_mis, dstrides, on_coords)  # type: ignore[arg-type]
        sector_prefetch(b, facts, n, on_doff, first_of(on_doff, on_chunk), on_ok, bulk)
    elif prefetch and step == 1 and not late:
        sector_prefetch(b, facts, n, doff, achunk, row_ok, bulk, coords[last - 1] if ends else None)

    def both(x: SSAValue, y: SSAValue) -> SSAValue:
        return b.add(arith.AndIOp(x, y))

    # vector k at sa + k V, loaded where it holds an element of the row and the window
    # reaches it: the second where the shift is not 0 (a step of 1), the third where the
    # window's last element, s + 2 (V - 1), lies past sa + 2 V (a shift of 2 or more)
    bases = [sa] + [b.addi(sa, b.splat(b.const(k * v))) for k in range(1, 4 if step == 2 else 3)]
    oks = [both(both(b.cmp("sgt", bases[k + 1], soff), b.cmp("slt", bases[k], send)), row_ok)
           for k in range(len(bases) - 1)]
    oks[-1] = both(oks[-1], b.cmp("sgt", shift, b.splat(b.const(step - 1))))
    jj = b.full(b.arange(v, b.J), 0)
    st_elem = facts.src_base.type.element_type  # type: ignore[union-attr]
    dt_elem = facts.dst_base.type.element_type  # type: ignore[union-attr]
    sbase = b.splat(facts.src_base, TensorType(PtrType(st_elem), [rows, v], b.l))  # type: ignore[arg-type]
    vecs = [b.add(PtrLoadOp(b.add(AddPtrOp(sbase, b.addi(b.full(x, 1), jj))), None, b.full(ok, 1)))
            for x, ok in zip(bases, oks)]
    if prefetch and step == 1 and late and not ahead and edges:
        edges_prefetch(b, facts, n, doff, chunk_i, achunk, row_ok, merged)
    elif prefetch and step == 1 and late and not ahead:
        sector_prefetch(b, facts, n, doff, achunk, row_ok, bulk, coords[last - 1] if ends else None)
    outs = [b.add(FunnelShiftOp(vecs[k], vecs[k + 1], shift)) for k in range(len(vecs) - 1)]
    parts = [(outs[0], 0)]
    if step == 2:
        # each window half's V elements from the shift on, as V / 2 pairs (a funnel
        # shift by 0 to elements of twice the size), their low halves (a truncation) the
        # half's V / 2 destination elements; the chunk's tensors then of V / 2 elements
        # a row (the rows where they were), its two halves stored at A and A + V / 2
        b8 = _Body(b.it, rows, v // 2, threads)
        b8.ops, b8._consts = b.ops, b._consts
        pair = IntegerType(16 * e)
        zero = b8.splat(b.const(0))
        parts = []
        for k, out in enumerate(outs):
            pairs = b.add(FunnelShiftOp(out, out, zero, TensorType(pair, [rows, v // 2], b8.l)))
            parts.append((b.add(lc.TruncIOp(pairs, TensorType(st_elem, [rows, v // 2], b8.l))), k * (v // 2)))

        def moved(x: SSAValue) -> SSAValue:
            return b.add(ConvertLayoutOp(x, TensorType(x.type.element_type, [rows], b8.r)))  # type: ignore[attr-defined]

        doff, achunk, row_ok = moved(doff), moved(achunk), moved(row_ok)
        b = b8
        jj = b.full(b.arange(v // 2, b.J), 0)
    # the chunk's elements that lie in the row: D - A <= j < D + n - A (`magic64` with
    # 64-bit offsets: the bounds clamped to [0, V] and the tests in 32 bits, `Narrow`)
    narrow = Narrow(b, v) if magic64 and not fast else None
    first = b.subi(doff, achunk)
    end = b.subi(b.addi(doff, b.splat(n[last])), achunk)
    if narrow is not None:
        first, end = narrow.bound(first), narrow.bound(end)
    first, end = b.full(first, 1), b.full(end, 1)
    dbase = b.splat(facts.dst_base, TensorType(PtrType(dt_elem), [rows, b.v], b.l))  # type: ignore[arg-type]
    for out, at in parts:
        j = b.addi(jj, b.full(b.splat(b.const(at)), 1)) if at else jj
        jt = narrow.index(at) if narrow is not None else j
        st_mask = both(both(b.cmp("sge", jt, first), b.cmp("slt", jt, end)), b.full(row_ok, 1))
        b.ops.append(PtrStoreOp(out, b.add(AddPtrOp(dbase, b.addi(b.full(achunk, 1), j))), st_mask))
    launch.body.block.add_ops(b.ops)
    host.append(launch)
    return host


def _bits_picked(op: FunnelShiftOp, on: bool = True) -> FunnelShiftOp:
    """`op` with (`on`) its words picked by selects on the shift's bits (`layout.funnel_shift`'s
    `bits`): a run's funnel shifts over consecutive vectors share their selects."""
    if on:
        op.attributes["bits"] = UnitAttr()
    return op


def run_fits(facts: CopyFacts) -> bool:
    """Whether the run form (`realign_run_launch`) can take the copy: rows read at a step of 1."""
    return source_step(facts) == 1


def realign_run_launch(copy: CopyOp, facts: CopyFacts, target: Target, bits: int,
                       threads: int = REALIGN_THREADS, run: int = 4, lanes: int = 1,
                       elems: bool = False, prefetch: bool = False,
                       magic64: bool = MAGIC64, pick_bits: bool = True) -> list[Operation]:
    """The host ops and the `layout.launch` of the realign strategy's run form (the
    `tile` pass's `realign_run=K`, `realign_lanes=L`, `realign_elems=E`; `run_fits`):
    a row's chunks are taken in groups of K L (G = ceil(C / (K L)) groups a row, C as
    `realign_launch`'s), L consecutive threads a group, and a thread writes the group's
    chunks lane, lane + L, ..., lane + (K - 1) L (L = 1: K consecutive chunks). The row's
    coordinates, its first offsets S and D and the shift `s - sa` are computed once a
    thread (one division by G, one a mode), not once a chunk: chunk k starts at
    A + k L V and its source window at sa + k L V, the shift the same. The source as
    aligned vectors funnel-shifted (`realign_launch`'s): with L = 1 the K + 1 consecutive
    vectors of the run, chunk k from vectors k and k + 1; with L > 1 two a chunk. With
    `elems`, each chunk's V source elements loaded one by one at S + A_k - D + j, masked
    as the store (no funnel shift). Stores as `realign_launch`'s (a per-element mask at a
    row's two ends). `prefetch`: `sector_prefetch` of each chunk (mode 1). `pick_bits`: the
    funnel shifts' words picked by selects on the shift's bits (`_bits_picked`), else by
    chains. K and L powers of two; `threads` a multiple of L."""
    rank = facts.rank
    last = rank - 1
    e = facts.dst_bytes
    chunk = chunk_bytes(facts, target)
    v = chunk // e
    shift_v = v.bit_length() - 1
    host_ops = _HostOps()
    host, hadd, hconst, hval = host_ops.ops, host_ops.add, host_ops.const, host_ops.val
    c_host = _host_row_chunks(facts, chunk, host_ops)
    groups_host = hadd(arith.CeilDivUIOp(c_host, hconst(run * lanes)))
    nrows_host = hval(facts.modes[0].extent)
    for m in facts.modes[1:last]:
        nrows_host = hadd(arith.MuliOp(nrows_host, hval(m.extent)))
    ngroups_host = hadd(arith.MuliOp(nrows_host, groups_host))
    grid = hadd(arith.CeilDivUIOp(hadd(arith.MuliOp(ngroups_host, hconst(lanes))), hconst(threads)))
    one = hconst(1)
    launch = LaunchOp([grid, one, one], threads)
    pid = launch.block_ids[0]

    fast = bits == 32
    magics: dict = {}
    if fast:
        magics["g"] = host_magic_i64(groups_host, host)
        for k in range(1, last):
            magics[k] = host_magic_i64(facts.modes[k].extent, host)
    elif magic64:  # run-time divisors only
        if _static(groups_host) is None:
            magics["g"] = fast_divisor(host, groups_host)
        for k in range(1, last):
            if _static(facts.modes[k].extent) is None:
                magics[k] = fast_divisor(host, facts.modes[k].extent)  # type: ignore[arg-type]

    b = _Body(IntegerType(bits), threads, v, threads)
    n = [b.scalar(m.extent) for m in facts.modes]
    groups = b.add(arith.IndexCastOp(groups_host, b.it))
    nrows = n[0]
    for k in range(1, last):
        nrows = b.muli(nrows, n[k])
    ngroups = b.muli(nrows, groups)
    gt = b.addi(b.arange(threads, b.R), b.splat(b.muli(b.add(arith.IndexCastOp(pid, b.it)), b.const(threads))))
    if lanes > 1:
        lane = b.add(arith.AndIOp(gt, b.splat(b.const(lanes - 1))))
        gid = b.add(arith.ShRUIOp(gt, b.splat(b.const(lanes.bit_length() - 1))))
    else:
        lane, gid = None, gt
    ok = b.cmp("slt", gid, b.splat(ngroups))

    def both(x: SSAValue, y: SSAValue) -> SSAValue:
        return b.add(arith.AndIOp(x, y))

    grp, row = b.divmod(gid, groups, magics.get("g"))
    coords: list[SSAValue] = [row] * last
    rest = row
    for k in range(last - 1, 0, -1):
        coords[k], rest = b.divmod(rest, n[k], magics.get(k))
    coords[0] = rest

    def row_offset(mis: Value, strides: list[Value]) -> SSAValue:
        off = b.splat(b.scalar(mis))
        for k in range(last):
            s = _static(strides[k])
            if s == 0:
                continue
            off = b.addi(off, coords[k] if s == 1 else b.muli(coords[k], b.splat(b.scalar(strides[k]))))
        return off

    soff = row_offset(facts.src_mis, [m.src_stride for m in facts.modes])  # type: ignore[arg-type]
    doff = row_offset(facts.dst_mis, [m.dst_stride for m in facts.modes])  # type: ignore[arg-type]
    v_r, sh_r = b.splat(b.const(v)), b.splat(b.const(shift_v))
    c0 = b.muli(grp, b.splat(b.const(run * lanes)))
    if lane is not None:
        c0 = b.addi(c0, lane)
    a0 = b.muli(b.addi(b.add(arith.ShRSIOp(doff, sh_r)), c0), v_r)
    s0 = b.addi(b.subi(a0, doff), soff)
    sa0 = b.muli(b.add(arith.ShRSIOp(s0, sh_r)), v_r)
    shift = b.subi(s0, sa0)
    # a row's ends past which nothing is loaded or stored; a thread without a group
    # (not `ok`) gets ends at its first chunk and window, so every mask below is false
    # without an `ok` of its own
    send = b.select(ok, b.addi(soff, b.splat(n[last])), sa0)
    dend = b.select(ok, b.addi(doff, b.splat(n[last])), a0)
    step = lanes * v

    def at(x: SSAValue, k: int) -> SSAValue:
        return b.addi(x, b.splat(b.const(k * step))) if k else x

    jj = b.full(b.arange(v, b.J), 0)
    st_elem = facts.src_base.type.element_type  # type: ignore[union-attr]
    dt_elem = facts.dst_base.type.element_type  # type: ignore[union-attr]
    sbase = b.splat(facts.src_base, TensorType(PtrType(st_elem), [threads, v], b.l))  # type: ignore[arg-type]
    dbase = b.splat(facts.dst_base, TensorType(PtrType(dt_elem), [threads, v], b.l))  # type: ignore[arg-type]
    achunks = [at(a0, k) for k in range(run)]
    if prefetch:
        for a in achunks:
            sector_prefetch(b, facts, n, doff, a, ok)
    masks = []
    for k, a in enumerate(achunks):  # the chunk's elements in the row: D - A <= j < D + n - A
        below = b.cmp("slt", jj, b.full(b.subi(dend, a), 1))
        # D - A_k <= V - 1 - k L V < 0 for k >= 1 (A_0 > D - V): only chunk 0 tests the head
        masks.append(both(b.cmp("sge", jj, b.full(b.subi(doff, a), 1)), below) if k == 0 else below)

    def load(base: SSAValue, mask: SSAValue) -> SSAValue:
        return b.add(PtrLoadOp(b.add(AddPtrOp(sbase, b.addi(b.full(base, 1), jj))), None, mask))

    def vec_ok(base: SSAValue, head: bool) -> SSAValue:
        """The vector at `base` holds an element of the row (`head`: the test of its start;
        past the window's first vector, sa + V >= S - V + 2 + V > S holds)."""
        inside = b.cmp("slt", base, send)
        return both(b.cmp("sgt", b.addi(base, v_r), soff), inside) if head else inside

    shifted = b.cmp("sgt", shift, b.splat(b.const(0)))
    outs = []
    if elems:
        src_of = b.subi(soff, doff)  # S - D: a destination element's source offset, less A + j
        outs = [load(b.addi(a, src_of), m) for a, m in zip(achunks, masks)]
    elif lanes == 1:  # the run's K + 1 vectors, each loaded once
        bases = [at(sa0, k) for k in range(run + 1)]
        oks = [vec_ok(x, k == 0) for k, x in enumerate(bases)]
        oks[-1] = both(oks[-1], shifted)
        vecs = [load(x, b.full(o, 1)) for x, o in zip(bases, oks)]
        outs = [b.add(_bits_picked(FunnelShiftOp(vecs[k], vecs[k + 1], shift), pick_bits)) for k in range(run)]
    else:
        for k in range(run):
            lo, hi = at(sa0, k), b.addi(at(sa0, k), v_r)
            vlo = load(lo, b.full(vec_ok(lo, k == 0), 1))
            vhi = load(hi, b.full(both(vec_ok(hi, False), shifted), 1))
            outs.append(b.add(_bits_picked(FunnelShiftOp(vlo, vhi, shift), pick_bits)))
    for out, a, m in zip(outs, achunks, masks):
        b.ops.append(PtrStoreOp(out, b.add(AddPtrOp(dbase, b.addi(b.full(a, 1), jj))), m))
    launch.body.block.add_ops(b.ops)
    host.append(launch)
    return host


def flat_rule(facts: CopyFacts) -> bool:
    """The flat form by default: the broadcasts and the short rows read at a step of 2 the
    cost model gives the realign strategy for it (`_copy_cost.flat_broadcast`,
    `REALIGN_FLAT_BROADCAST`; `flat_step2`, `REALIGN_FLAT_STEP2`)."""
    return flat_broadcast(facts) or flat_step2(facts)


def flat_fits(facts: CopyFacts, target: Target) -> bool:
    """Whether the realign strategy can write the copy's destination as one flat run
    (`realign_flat_launch`): rows read at a step of 1 or 2, the destination compact over
    every mode (rows continue each other), and rows known to hold at least a chunk's
    elements (a chunk then crosses at most one row's end)."""
    if not facts.dst_compact or facts.rank < 2:
        return False
    last = facts.modes[-1]
    n_last = last.bound if last.exact else _static(last.extent)  # known exactly
    chunk = chunk_bytes(facts, target)
    return n_last is not None and n_last * facts.dst_bytes >= chunk and chunk == target.vector_bytes


def flat_chunks(facts: CopyFacts, target: Target, asked: int | None) -> int:
    """The consecutive chunks a thread of the flat form writes (`realign_flat_launch`):
    `asked` (the `tile` pass's `realign_chunks`; None: 1) where the rows are read at a step
    of 1 and hold at least that many chunks' elements (a thread's chunks then span at
    most two rows), else 1."""
    if not asked or asked <= 1 or source_step(facts) != 1:
        return 1
    last = facts.modes[-1]
    n_last = last.bound if last.exact else _static(last.extent)
    v = chunk_bytes(facts, target) // facts.dst_bytes
    return asked if n_last is not None and n_last >= asked * v else 1


def realign_flat_launch(copy: CopyOp, facts: CopyFacts, target: Target, bits: int,
                        threads: int = REALIGN_THREADS, magic64: bool = MAGIC64,
                        chunks: int = 1) -> list[Operation]:
    """The host ops and the `layout.launch` of the realign strategy over a compact
    destination (`flat_fits`): each thread writes one aligned 16-byte chunk of the
    destination's flat run, chunk k's first element A = k V - dmis (V a chunk's
    elements, dmis the destination's misalignment), whatever rows it spans. Its row
    r = A / n (n the last extent; A clamped at 0) and the next r + 1 give two source
    windows: elements j < b = (r + 1) n - A from S(r) + A - r n + j, the rest from
    S(r + 1) + j - b (S a row's first source offset), each window two aligned vectors
    funnel-shifted as the row form's (`realign_launch`), loads masked outside their row's
    aligned span (the second row's also where the chunk does not reach it), one select
    between the two; the store's mask is the flat run's ends only (every chunk inside
    it is whole: one vector store). No per-row head and tail chunks written in parts,
    and the rows' coordinates of one chunk computed once. With `chunks` K > 1
    (`flat_chunks`: a step of 1, rows of at least K chunks), a thread writes K
    consecutive chunks from A on: the same two rows (the next row's coordinates by a
    carry, no division), each window K + 1 aligned vectors, chunk i the funnel shift of
    vectors i and i + 1 of each, selected at b - i V."""
    rank = facts.rank
    last = rank - 1
    e = facts.dst_bytes
    step = source_step(facts)
    chunk = chunk_bytes(facts, target)
    v = chunk // e
    shift_v = v.bit_length() - 1
    rows = threads
    host_ops = _HostOps()
    host, hadd, hconst, hval = host_ops.ops, host_ops.add, host_ops.const, host_ops.val

    # the flat run's chunks: ceil((dmis + N) / V)
    total_host = hval(facts.modes[0].extent)
    for m in facts.modes[1:]:
        total_host = hadd(arith.MuliOp(total_host, hval(m.extent)))
    span = hadd(arith.AddiOp(total_host, hval(facts.dst_mis)))  # type: ignore[arg-type]
    nchunks_host = hadd(arith.CeilDivUIOp(span, hconst(v)))
    grid = hadd(arith.CeilDivUIOp(nchunks_host, hconst(rows * chunks)))
    one = hconst(1)
    launch = LaunchOp([grid, one, one], threads)
    pid = launch.block_ids[0]

    fast = bits == 32
    magics = {}
    if fast:
        for k in range(1, rank):
            magics[k] = host_magic_i64(facts.modes[k].extent, host)
    elif magic64:  # run-time divisors only
        for k in range(1, rank):
            m_k = facts.modes[k]
            if _static(m_k.extent) is None and not (m_k.exact and m_k.bound is not None):
                magics[k] = fast_divisor(host, facts.modes[k].extent)  # type: ignore[arg-type]

    b = _Body(IntegerType(bits), rows, v, threads)
    R, T = b.R, b.T
    # an extent known exactly (the rows' `flat_fits` asks for) as its constant
    n = [b.scalar(m.bound if m.exact and m.bound is not None else m.extent) for m in facts.modes]
    total = n[0]
    for k in range(1, rank):
        total = b.muli(total, n[k])
    nrows = n[0]
    for k in range(1, last):
        nrows = b.muli(nrows, n[k])
    dmis = b.scalar(facts.dst_mis)  # type: ignore[arg-type]
    nch = b.add(arith.IndexCastOp(nchunks_host, b.it))
    start = b.muli(b.add(arith.IndexCastOp(pid, b.it)), b.const(rows))
    kk = b.addi(b.arange(rows, R), b.splat(start))
    if chunks > 1:  # the thread's first chunk
        kk = b.muli(kk, b.splat(b.const(chunks)))
    k_ok = b.cmp("slt", kk, b.splat(nch))
    v_r, sh_r = b.splat(b.const(v)), b.splat(b.const(shift_v))
    zero = b.splat(b.const(0))
    a_first = b.subi(b.add(arith.ShLIOp(kk, sh_r)), b.splat(dmis))  # A = k V - dmis
    a_clamp = b.select(b.cmp("slt", a_first, zero), zero, a_first)
    i64 = IntegerType(64)
    R64 = TensorType(i64, [rows], b.r)

    def divmod_(x: SSAValue, k: int) -> tuple[SSAValue, SSAValue]:
        """(x // n_k, x % n_k) of a [rows] tensor x >= 0 (`realign_launch`'s)."""
        d = b.splat(n[k])
        if not fast and k in magics:
            return magic_divmod64(b, x, d, magics[k])
        if not fast:
            return b.add(arith.DivSIOp(x, d)), b.add(arith.RemSIOp(x, d))
        m, sh = (b.splat(y if y.type == i64 else b.add(arith.IndexCastOp(y, i64)), R64) for y in magics[k])
        q = b.add(lc.TruncIOp(b.add(arith.ShRSIOp(b.muli(b.add(lc.ExtSIOp(x, R64)), m), sh)), R))
        return q, b.subi(x, b.muli(q, d))

    row, _col = divmod_(a_clamp, last)
    # the outer modes a row's source offset needs: up to the outermost of nonzero stride
    outer = [k for k in range(last) if _static(facts.modes[k].src_stride) != 0]
    lowest = min(outer) if outer else last

    def src_start(coords: dict[int, SSAValue]) -> SSAValue:
        """S(r): the first element's offset from the source's aligned pointer of the row
        of coordinates `coords` (mode -> coordinate)."""
        off = b.splat(b.scalar(facts.src_mis))  # type: ignore[arg-type]
        for k, c in coords.items():
            s = _static(facts.modes[k].src_stride)
            if s == 0:
                continue
            off = b.addi(off, c if s == 1 else b.muli(c, b.splat(b.scalar(facts.modes[k].src_stride))))
        return off

    def row_coords(r: SSAValue) -> dict[int, SSAValue]:
        """Row r's coordinates over the modes `lowest`..`last - 1`."""
        out: dict[int, SSAValue] = {}
        rest = r
        for k in range(last - 1, lowest - 1, -1):
            if k == 0:
                out[k] = rest
            else:
                rest, out[k] = divmod_(rest, k)
        return out

    def next_coords(coords: dict[int, SSAValue]) -> dict[int, SSAValue]:
        """Row r + 1's coordinates from row r's: the innermost one plus 1, carried
        outwards where it reaches its extent (no divisions)."""
        out: dict[int, SSAValue] = {}
        carry = b.splat(b.const(1))
        zero_c = b.splat(b.const(0))
        for k in range(last - 1, lowest - 1, -1):
            inc = b.addi(coords[k], carry)
            if k == 0:  # the outermost mode: no wrap (past the end is masked)
                out[k] = inc
                break
            wrap = b.cmp("sge", inc, b.splat(n[k]))
            out[k] = b.select(wrap, zero_c, inc)
            carry = b.select(wrap, b.splat(b.const(1)), zero_c)
        return out

    nl = b.splat(n[last])
    c0 = row_coords(row)
    s0 = src_start(c0)
    row1 = b.addi(row, b.splat(b.const(1)))
    s1 = src_start(next_coords(c0) if step == 2 or chunks > 1 else row_coords(row1))
    row_end = b.muli(row1, nl)  # (r + 1) n: the flat index of the next row's first element
    bnd = b.subi(row_end, a_first)  # b: the chunk's elements in row r

    def both(x: SSAValue, y: SSAValue) -> SSAValue:
        return b.add(arith.AndIOp(x, y))

    crosses = both(b.cmp("slt", bnd, v_r if chunks == 1 else b.splat(b.const(chunks * v))),
                   b.cmp("slt", row1, b.splat(nrows)))
    st_elem = facts.src_base.type.element_type  # type: ignore[union-attr]
    dt_elem = facts.dst_base.type.element_type  # type: ignore[union-attr]
    jj = b.full(b.arange(v, b.J), 0)
    sbase = b.splat(facts.src_base, TensorType(PtrType(st_elem), [rows, v], b.l))  # type: ignore[arg-type]
    # a row's source span: from S on, (n - 1) step + 1 elements
    span = nl if step == 1 else b.splat(b.addi(b.muli(b.subi(n[last], b.const(1)), b.const(step)), b.const(1)))

    def shifted(bases: list[SSAValue], oks: list[SSAValue], shift: SSAValue) -> list[SSAValue]:
        """The aligned vectors at `bases` (each loaded where its `oks` holds), each adjacent
        pair funnel-shifted by `shift`: the window's `step` parts (`chunks` at a step of 1)."""
        vecs = [b.add(PtrLoadOp(b.add(AddPtrOp(sbase, b.addi(b.full(x, 1), jj))), None, b.full(ok, 1)))
                for x, ok in zip(bases, oks)]
        return [b.add(FunnelShiftOp(vecs[k], vecs[k + 1], shift)) for k in range(len(vecs) - 1)]

    def window(s_first: SSAValue, srow: SSAValue, ok: SSAValue) -> list[SSAValue]:
        """The step V source elements from `s_first` on as aligned vectors (masked
        outside the aligned span of the row starting at `srow`, and where `ok` is false)
        funnel-shifted: one V-element part at a step of 1, two (the window's halves, 2V
        elements) at a step of 2, the third vector where the shift is 2 or more."""
        sa = b.muli(b.add(arith.ShRSIOp(s_first, sh_r)), v_r)
        shift = b.subi(s_first, sa)
        send = b.addi(srow, span)
        parts = step + chunks - 1  # a step of 2, or K chunks at a step of 1
        bases = [sa] + [b.addi(sa, b.splat(b.const(k * v))) for k in range(1, parts + 2)]
        oks = [both(both(b.cmp("sgt", bases[k + 1], srow), b.cmp("slt", bases[k], send)), ok)
               for k in range(parts + 1)]
        oks[-1] = both(oks[-1], b.cmp("sgt", shift, b.splat(b.const(step - 1))))
        return shifted(bases, oks, shift)

    i32 = IntegerType(32)
    R32 = TensorType(i32, [rows], b.r)

    def c32(x: int) -> SSAValue:
        return b.splat(b.add(arith.ConstantOp(IntegerAttr(x, i32))), R32)

    def to32(x: SSAValue) -> SSAValue:
        return x if b.it == i32 else b.add(lc.TruncIOp(x, R32))

    def window_near(srow: SSAValue, rel: SSAValue, ok: SSAValue) -> list[SSAValue]:
        """`window` of a step of 2 from `srow` + `rel` (`rel` an i32 of at most a row's
        span): the offset arithmetic of the vectors' positions and masks in 32 bits
        relative to the aligned row start rb = floor(S / V) V, one add of rb (in the
        offsets' width) for the vectors' offsets."""
        rb = b.muli(b.add(arith.ShRSIOp(srow, sh_r)), v_r)
        rmis = to32(b.subi(srow, rb))
        first = b.addi(rmis, rel)
        sa = b.muli(b.add(arith.ShRSIOp(first, c32(shift_v))), c32(v))
        shift = b.subi(first, sa)
        send = b.addi(rmis, to32(span))
        oks = [both(both(b.cmp("sgt", b.addi(sa, c32((k + 1) * v)), rmis), b.cmp("slt", b.addi(sa, c32(k * v)), send)), ok)
               for k in range(step + 1)]
        oks[-1] = both(oks[-1], b.cmp("sgt", shift, c32(step - 1)))
        base = b.addi(rb, sa if b.it == i32 else b.add(lc.ExtSIOp(sa, R)))
        bases = [base] + [b.addi(base, b.splat(b.const(k * v))) for k in range(1, step + 1)]
        return shifted(bases, oks, shift)

    # row r's elements: from S(r) + step (A - r n) on; row r + 1's: from S(r + 1) - step b on
    col = b.subi(a_first, b.muli(row, nl))
    if step == 1:
        firsts = window(b.addi(s0, col), s0, k_ok)
        seconds = window(b.subi(s1, bnd), s1, both(crosses, k_ok))
    else:  # col < n, 0 < b <= n: small
        firsts = window_near(s0, b.muli(to32(col), c32(step)), k_ok)
        seconds = window_near(s1, b.subi(c32(0), b.muli(to32(bnd), c32(step))), both(crosses, k_ok))
    parts = [(b.select(b.cmp("slt", jj, b.full(bnd if i == 0 else b.subi(bnd, b.splat(b.const(i * v))), 1)),
                       firsts[i], seconds[i]), i * v) for i in range(chunks)] if step == 1 else []
    if step == 2:
        # each half's V elements as V / 2 pairs of twice the element size, their low
        # halves (a truncation) the chunk's V / 2 elements of that half (`realign_launch`),
        # chosen between the rows per element and stored at k V and k V + V / 2
        b8 = _Body(b.it, rows, v // 2, threads)
        b8.ops, b8._consts = b.ops, b._consts
        pair = IntegerType(16 * e)
        zero8 = b8.splat(b.const(0))

        def evens(x: SSAValue) -> SSAValue:
            pairs = b.add(FunnelShiftOp(x, x, zero8, TensorType(pair, [rows, v // 2], b8.l)))
            return b.add(lc.TruncIOp(pairs, TensorType(st_elem, [rows, v // 2], b8.l)))

        def moved(x: SSAValue) -> SSAValue:
            return b.add(ConvertLayoutOp(x, TensorType(x.type.element_type, [rows], b8.r)))  # type: ignore[attr-defined]

        bnd, a_first, kk, k_ok = moved(bnd), moved(a_first), moved(kk), moved(k_ok)
        j8 = b8.full(b8.arange(v // 2, b8.J), 0)
        # the elements' tests against a chunk's bounds in 32 bits (`Narrow`): each bound
        # clamped to [0, V] a chunk, then compared with the element's index
        nb = Narrow(b8, v)
        below = nb.bound(bnd)
        for h in range(2):
            j = nb.index(h * (v // 2))
            parts.append((b8.select(b8.cmp("slt", j, b8.full(below, 1)), evens(firsts[h]), evens(seconds[h])),
                          h * (v // 2)))
        b, jj = b8, j8
        # the flat run's elements: 0 <= A + j < N, i.e. -A <= j < N - A
        lo, hi = nb.bound(b.subi(b.splat(b.const(0)), a_first)), nb.bound(b.subi(b.splat(total), a_first))
        dbase = b.splat(facts.dst_base, TensorType(PtrType(dt_elem), [rows, b.v], b.l))  # type: ignore[arg-type]
        for out, at in parts:
            j, jw = nb.index(at), b.addi(jj, b.full(b.splat(b.const(at), b.J), 0)) if at else jj
            st_mask = both(both(b.cmp("sge", j, b.full(lo, 1)), b.cmp("slt", j, b.full(hi, 1))), b.full(k_ok, 1))
            d_offs = b.addi(b.full(b.muli(kk, b.splat(b.const(v))), 1), jw)  # k V + at: whole 8-byte stores
            b.ops.append(PtrStoreOp(out, b.add(AddPtrOp(dbase, d_offs)), st_mask))
        parts = []
    # the flat run's elements: 0 <= A + j < N
    dbase = b.splat(facts.dst_base, TensorType(PtrType(dt_elem), [rows, b.v], b.l))  # type: ignore[arg-type]
    for out, at in parts:
        j = b.addi(jj, b.full(b.splat(b.const(at), b.J), 0)) if at else jj
        flat = b.addi(b.full(a_first, 1), j)
        ok = k_ok if step == 2 or at == 0 else b.cmp("slt", b.addi(kk, b.splat(b.const(at // v))), b.splat(nch))
        st_mask = both(both(b.cmp("sge", flat, b.splat(b.const(0), b.T)), b.cmp("slt", flat, b.splat(total, b.T))),
                       b.full(ok, 1))
        d_offs = b.addi(b.full(b.muli(kk, v_r if step == 1 else b.splat(b.const(v))), 1), j)  # k V (+ V / 2)
        b.ops.append(PtrStoreOp(out, b.add(AddPtrOp(dbase, d_offs)), st_mask))
    launch.body.block.add_ops(b.ops)
    host.append(launch)
    return host
