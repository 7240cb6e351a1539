"""The `stash-rereads` pass: loops that read a row's chunks twice take them from a shared-memory stash of the row, filled by 16-byte cp.async of its aligned window (or by the first loop), where the block's re-read row fits in shared memory."""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import gcd, prod

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.dialects import cute
from tilec.dialects.layout import (
    DYNAMIC,
    WILDCARD,
    AllocOp,
    AsyncWaitOp,
    BarrierOp,
    CopyAsyncOp,
    LaunchOp,
    LoadOp,
    SliceOp,
    StoreOp,
    TileOp,
    ViewOp,
)
from tilec.dialects.layout_access import CopyChunkAsyncOp, ReadOp, WriteOp
from tilec.dialects.layout_ptr import MultipleOfOp
from tilec.dialects.layout_attrs import CuteLayoutAttr, PtrType, TensorViewType, element_bytes
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc
from tilec.support.target import target_of

from ._analysis import constant_index
from ._pipeline_expand import CP_ASYNC_PENDING_MAX
from ._rereads import is_trip, rereads, trips


SCRATCH = 2048
"""Shared bytes left free beside the stashes for what the lowering allocates later (a
row reduction's partials across warps: one f32 per warp, a few reductions per launch)."""


@dataclass(frozen=True)
class StashRereadsPass(ModulePass):
    """Read a row's chunks from global memory once where a block reads them twice: the
    row is kept in a shared-memory stash, filled before the first loop over its chunks
    (the window fill) or by that loop (the loop fill), and the loops load the stash
    instead of global memory.

    A row kernel in two passes over chunks (softmax's running max and sum, then the
    outputs; a norm's statistics, then the outputs; examples/python/row_kernels.py above
    `ONLINE_ABOVE`) moves 2 reads + 1 write of its row through global memory, where the
    limit (a copy) is 1 read + 1 write; the second read finds the chunk in L2 only while
    every resident block's rows fit there (`reread-order`, `choose-warps{l2_rows}` try
    that).

    What it takes (`_rereads`): the second of two loops directly in a `layout.launch`'s
    body with the same constant bounds, from 0 by 1 (a tile index per trip), that load
    tiles of the same view at the same coordinates, the induction variable (or
    `reread-order`'s reversal of it) one of them. Each such load of the second loop is
    replaced where the first loop loads the same pattern with no `mask` operand and the
    same `other` (the same value, or constants equal) as it, and nothing in the launch
    stores to that view. Every pattern of the launch is stashed or none: their bytes
    plus the launch's other shared allocations plus `SCRATCH` (2 KiB for the lowering's
    reduction partials) must fit in `max_bytes` (default: the target's shared memory per
    block, 227 KiB on sm_90). Otherwise the program is unchanged.

    The window fill, where the launch's threads are known (after `choose-warps`) and each
    re-read view is a row-major `(M, N):(N, 1)` view of a 16-byte-aligned pointer, tiled
    `[1, chunk]` at (a block id whose grid extent is M, the trip): before anything else
    the block's threads copy its row into the stash by 16-byte `cp.async` chunks
    (`layout.copy_chunk_async`, all in flight at once) of the row's address-aligned
    window, from its first element rounded down to 16 bytes (a row of odd length starts
    anywhere; the bytes of the neighbouring rows in its first and last chunks are copied
    and never read), the elements past the buffer's last whole chunk one at a time (the
    last row's tail). Where the first loop runs from 0 by 1 over the trip itself and
    the window is the launch's only cp.async, the fill overlaps that loop (`_ahead`):
    it is issued in groups of one trip's chunks, each copied by the same count of
    16-byte chunks a thread (by gcd(chunks, threads) threads), as many groups before
    the loop as a wait may leave in flight (7 commit groups of a thread: 7 trips of
    50257 f16 over 16 warps, 3 of f32), one more
    at each trip, and each trip waits (`layout.async_wait`) for its own group and meets a
    barrier before reading (until the trip that waits for the whole window: the trips
    after it neither wait nor meet a barrier), so the block's reads of its row go on while it reduces the
    chunks already landed (`ahead=false`: the whole window, then one wait and a barrier,
    before the first loop). With a window fill, the global loads left in the second
    loop (a norm's weight and bias) are issued a trip ahead (`_load_ahead`: trip 0's
    before the loop, each trip loading the next trip's tile into a value the loop
    carries; `ahead=false` too leaves them). Both loops load the
    stash through a `(1, N)` view of the row at its misalignment in the window
    (`layout.slice` of a `(K, 1, N):(1, 0, 1)` re-view, K elements per 16 bytes), whose
    tiles are masked as the global ones were (`other` past the row). A row of a multiple
    of 16 bytes is the stash itself, `(1, N):(0, 1)`, loaded in vectors as wide as the
    global loads were. Rows whose misalignment is a multiple of 1 < g < K elements are
    not taken (the stash would be read one element at a time where global memory gave
    g). The stash is the row's window: 50257 f16, 100528 bytes (two blocks a
    multiprocessor); f32, 201040 (one). A row that does not fit (131072 f16, 256 KiB),
    where it is the launch's only stashed pattern and both loops take the trip as their
    induction variable itself, may have its first chunks stashed, as many as fit (with
    `partial`, not the default: 28 of 32 there, 224 KiB): each loop is split at that trip
    into a copy over the stashed trips, reading the stash, then the loop from there on,
    reading global memory and carrying on from the copy's results. Measured on an H200
    (M = 16384, N = 131072 f16) that loses: layer norm 0.36-0.38 of cudaMemcpy against
    0.65 reading twice (one block a multiprocessor, the unstashed chunks one at a time in
    flight), RMSNorm 0.67-0.72 against 0.66.
    `choose-warps{stash_rows}` gives such a launch the warps that fill the
    multiprocessor at those blocks (`window_stash_bytes` says what this pass will do).

    The loop fill, otherwise (an open launch: before `choose-warps`; or `window=false`):
    the first loop stores each chunk it loaded into the stash, and the second loop reads
    it back (in the layout the first loop loaded it in, unless later passes lay the two
    loads out differently: a `layout.barrier` before the second loop orders the stores
    before every read). The stash holds the tile extents with the induction variable's
    extent times the trips (row-major, `cosize` = trips x tile elements): the last
    partial chunk is stored whole, its elements past the row being the load's `other`,
    so the stash is never masked and the second loop's load from it gives exactly what
    its global load gave (`other` past the row too). Measured on an H200 (M = 16384,
    N = 50257) it is slower than two reads (softmax f16 0.47 against 0.52 of cudaMemcpy,
    layer norm f16 0.30 against 0.40): a stash of R bytes leaves floor(shared memory per
    SM / R) blocks resident per multiprocessor and each has one chunk in flight at a
    time, which caps the first loop below DRAM's rate.

    In the default pipeline after `choose-warps` (so the window fill, where it applies):
    `benchmarks/realistic_rows.py --variants no-stash,stash` times the default without
    it (two reads) and with the loop fill instead. Rows short enough to stay in L2 between the reads are
    one tile in registers, not loops (`ONLINE_ABOVE`), and are not touched.

    Options:
      max_bytes=B    the most shared memory (bytes) a launch's stashes and allocations
                     may take (default 0: the target's `smem_per_block`).
      window=false   the loop fill even where the window fill applies.
      partial=true   a window fill of a row's first chunks where the whole row does not fit.
      ahead=false    the whole window copied, then one wait, before the first loop, even
                     where the fill can overlap it (`_ahead`), and the second loop's
                     global loads left in their trip (`_load_ahead`).
    """

    name = "stash-rereads"

    max_bytes: int = 0
    window: bool = True
    partial: bool = False
    ahead: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_bytes < 0:
            raise TilecError(f"stash-rereads: max_bytes={self.max_bytes} must be at least 0")
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            limit = self.max_bytes or target_of(launch).smem_per_block
            pairs = rereads(launch)
            for r in pairs:
                plans = _plan(r.first, r.second, launch)
                used = _smem_bytes(launch)
                windows = (_windows(launch, plans, limit - used - SCRATCH, self.partial)
                           if self.window and not launch.is_open else None)
                if windows is not None:
                    # the fill in groups waited for trip by trip only where it is the
                    # launch's only cp.async (each thread's group count is then its own)
                    alone = len(pairs) == 1 and len(windows) == 1 and not _copies_async(launch)
                    for w in windows:
                        _fill_window(launch, w, _ahead(launch, w) if alone and self.ahead else None)
                    if windows and self.ahead:
                        for loop in [o for o in launch.body.block.ops if isinstance(o, scf.ForOp)]:
                            _load_ahead(loop, launch)
                elif plans and used + sum(p.nbytes for p in plans) + SCRATCH <= limit:
                    _stash(launch, r.first, r.second, plans)


def window_stash_bytes(launch: LaunchOp, max_bytes: int = 0, partial: bool = False) -> int:
    """The shared bytes of the window stashes `stash-rereads` (with its defaults, or
    `max_bytes` and `partial`) gives `launch` once its threads are known, before it does
    (0: none): what `choose-warps{stash_rows}` sizes the block's warps by."""
    limit = max_bytes or target_of(launch).smem_per_block
    used = _smem_bytes(launch)
    total = 0
    for r in rereads(launch):
        windows = _windows(launch, _plan(r.first, r.second, launch), limit - used - total - SCRATCH, partial)
        total += sum(w.nbytes for w in windows or [])
    return total


def _smem_bytes(launch: LaunchOp) -> int:
    return sum(_alloc_bytes(a) for a in launch.walk() if isinstance(a, AllocOp) and a.result.type.memory_space == "smem")


def _windows(launch: LaunchOp, plans: list[_Pair], room: int, partial: bool) -> list[_Window] | None:
    """Every pair of `plans` as a window fill whose stashes fit in `room` bytes (with
    `partial`, a lone pair whose row does not fit: its first trips that do), [] where
    they do not fit, or None (no pairs, or one that is not a window fill)."""
    windows = [_window(launch, p) for p in plans]
    if not windows or not all(windows):
        return None
    if sum(w.nbytes for w in windows) <= room:  # type: ignore[union-attr]
        return windows  # type: ignore[return-value]
    if partial and len(windows) == 1 and (w := _partial(windows[0], room)) is not None:  # type: ignore[arg-type]
        return [w]
    return []


@dataclass(frozen=True)
class _Pair:
    """A load of the second loop and the first loop's load of the same tile pattern;
    `dim`: the tile coordinate that is the trip."""

    first: LoadOp
    second: LoadOp
    dim: int
    nbytes: int


def _alloc_bytes(a: AllocOp) -> int:
    t = a.result.type
    return t.cute_layout.cosize() * t.vector_size * element_bytes(t.element_type)


def _same_other(a: SSAValue | None, b: SSAValue | None) -> bool:
    if a is None or b is None:
        return a is b
    if a is b:
        return True
    ca, cb = a.owner, b.owner
    return isinstance(ca, arith.ConstantOp) and isinstance(cb, arith.ConstantOp) and ca.value == cb.value


def _pattern(load: LoadOp, loop: scf.ForOp):
    t = load.view.owner
    if not isinstance(t, TileOp) or t.parent_block() is not loop.body.block:
        return None
    dims = [k for k, c in enumerate(t.coords) if is_trip(c, loop)]
    if len(dims) != 1:
        return None
    rest = tuple(c for k, c in enumerate(t.coords) if k != dims[0])
    return (t.source, dims[0], rest, tuple(t.tile_sizes)), dims[0]


def _plan(first: scf.ForOp, second: scf.ForOp, launch: LaunchOp) -> list[_Pair]:
    """The loads of `second` to take from a stash, each with `first`'s load of its
    pattern; [] where any load of a re-read view cannot be (then none is)."""
    n = trips(second)
    if not n or constant_index(second.lb) != 0 or constant_index(second.step) != 1:
        return []
    written = {o.view for o in launch.walk() if isinstance(o, StoreOp)}
    written |= {t.source for v in written if isinstance(t := v.owner, TileOp)}
    firsts = {}
    for o in first.body.block.ops:
        if isinstance(o, LoadOp) and (p := _pattern(o, first)) is not None:
            firsts.setdefault(p[0], o)
    pairs = []
    for o in second.body.block.ops:
        if not isinstance(o, LoadOp) or (p := _pattern(o, second)) is None or p[0] not in firsts:
            continue
        f = firsts[p[0]]
        src = p[0][0]
        if src.type.memory_space != "gmem":  # a stash already
            continue
        if (f.mask is not None or o.mask is not None or not _same_other(f.other, o.other)
                or src in written or f.result.type != o.result.type):
            return []
        elems = prod(p[0][3]) * n
        pairs.append(_Pair(f, o, p[1], elems * element_bytes(src.type.element_type)))
    return pairs


def _stash(launch: LaunchOp, first: scf.ForOp, second: scf.ForOp, pairs: list[_Pair]) -> None:
    body = launch.body.block
    n = trips(second)
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    copy_loc(first, zero)
    Rewriter.insert_op(zero, InsertPoint.at_start(body))
    for pair in pairs:
        tile: TileOp = pair.first.view.owner  # type: ignore[assignment]
        sizes = list(tile.tile_sizes)
        shape = tuple(s * n if k == pair.dim else s for k, s in enumerate(sizes))
        vt = TensorViewType(tile.source.type.element_type,
                            CuteLayoutAttr(cute.Layout(shape, cute.compact_row_major(shape))), "smem")
        alloc = AllocOp(vt)
        alloc.result.name_hint = "stash"
        copy_loc(first, alloc)
        Rewriter.insert_op(alloc, InsertPoint.after(zero))
        for load in (pair.first, pair.second):
            t: TileOp = load.view.owner  # type: ignore[assignment]
            coords = [t.coords[k] if k == pair.dim else zero.result for k in range(len(sizes))]
            st = TileOp(alloc.result, coords, sizes)
            copy_loc(load, st)
            if load is pair.first:
                store = StoreOp(load.result, st.result)
                copy_loc(load, store)
                Rewriter.insert_op([st, store], InsertPoint.after(load))
            else:
                _read_instead(load, st, None)
    bar = BarrierOp()
    copy_loc(second, bar)
    Rewriter.insert_op(bar, InsertPoint.before(second))


def _read_instead(load: LoadOp, st: TileOp, other: SSAValue | None) -> None:
    """`load` replaced by a load of the stash tile `st` (inserted before it, with `other`
    for its masked elements); `load`'s own tile erased where nothing else uses it."""
    t: TileOp = load.view.owner  # type: ignore[assignment]
    new = LoadOp(st.result, load.result.type, other)
    copy_loc(load, new)
    Rewriter.insert_op([st, new], InsertPoint.before(load))
    load.result.replace_all_uses_with(new.result)
    Rewriter.erase_op(load)
    if not t.result.uses:
        Rewriter.erase_op(t)


CHUNK_BYTES = 16
"""The bytes of one `cp.async` of a window fill (`layout.copy_chunk_async`)."""


@dataclass(frozen=True)
class _Window:
    """A pair whose re-read view is a row-major `(M, N):(N, 1)` view of a pointer and
    whose tiles are `[1, chunk]` at (a block id that runs over M, the trip): the block's
    row is filled into the stash whole, by 16-byte chunks of its address-aligned window.
    `k`: elements per 16 bytes; `aligned`: every row starts on a 16-byte boundary (N a
    multiple of k), else no row's misalignment is known (N odd)."""

    pair: _Pair
    view: ViewOp
    row: SSAValue
    n: int
    k: int
    aligned: bool
    nbytes: int
    trips: int | None = None
    """Where only the row's first chunks are stashed (`_partial`), how many."""


def _partial(w: _Window, room: int) -> _Window | None:
    """`w` with the most leading chunks of its row that fit in `room` bytes stashed (at
    least one, not all), where both loops take the trip as their induction variable
    itself (not `reread-order`'s reversal), or None."""
    pair = w.pair
    loops = [ld.parent_op() for ld in (pair.first, pair.second)]
    for ld, loop in zip((pair.first, pair.second), loops):
        if not isinstance(loop, scf.ForOp) or ld.view.owner.coords[1] is not loop.body.block.args[0]:
            return None
    chunk = pair.first.view.owner.tile_sizes[1]
    eb = element_bytes(pair.first.view.type.element_type)
    extra = 0 if w.aligned else w.k
    stashed = (room // eb - extra) // chunk
    while stashed >= 1 and stashed * chunk + extra > w.n:  # the window's chunks stay inside the row
        stashed -= 1
    n = trips(loops[1])
    if chunk % w.k or not n or not 1 <= stashed < n:
        return None
    return replace(w, trips=stashed, nbytes=(stashed * chunk + extra) * eb)


def _window(launch: LaunchOp, pair: _Pair) -> _Window | None:
    """`pair` as a window fill (`_Window`), or None where its facts do not say so."""
    tile: TileOp = pair.first.view.owner  # type: ignore[assignment]
    view = tile.source.owner
    if not isinstance(view, ViewOp) or not isinstance(view.source.type, PtrType):
        return None
    t: TensorViewType = tile.source.type
    lay = t.cute_layout
    if t.memory_space != "gmem" or t.is_masked or t.vec_layout is not None or len(lay.shape) != 2:
        return None
    (rows, n), (rs, cs) = lay.shape, lay.stride
    if pair.dim != 1 or not (isinstance(n, int) and rs == n and cs == 1) or tile.tile_sizes[0] != 1:
        return None
    # the tile's row is a block id that runs over exactly the view's rows: every block's
    # row lies inside the view, so the stash's tiles are masked as the global ones are
    row = tile.coords[0]
    ids = launch.block_ids
    if row not in ids:
        return None
    extent = (launch.grid_x, launch.grid_y, launch.grid_z)[ids.index(row)]
    if isinstance(rows, int):
        if constant_index(extent) != rows:
            return None
    elif not (len(view.dynamic) == 1 and view.dynamic[0] is extent):
        return None
    eb = element_bytes(t.element_type)
    if CHUNK_BYTES % eb or view.source.type.alignment % CHUNK_BYTES:
        return None
    k = CHUNK_BYTES // eb
    # rows whose misalignment is a multiple of some 1 < g < k would be read from the
    # stash one element at a time where global memory gave vectors of g: not taken
    g = gcd(n, k)
    if g not in (1, k):
        return None
    span = n if g == k else -(-(n + k - 1) // k) * k
    return _Window(pair, view, row, n, k, g == k, span * eb)


@dataclass(frozen=True)
class _Ahead:
    """How a window fill overlaps the first loop (`_ahead`): the window's chunks after
    its first `head` ones come in groups of `chunks` (one trip's elements, in 16-byte
    chunks), copied by the launch's first `issuers` threads (gcd(chunks, threads): the
    others copy none of them, and see them after the trip's barrier), `per_thread`
    each, the same for every issuer; `groups` whole
    groups lie in every row's window, the rest of it is copied after them; `depth`
    groups are in flight ahead of the trip that reads (`depth x per_thread` commit
    groups of each thread, at most `cuda.cp_async_wait`'s 7)."""

    loop: scf.ForOp
    head: int
    chunks: int
    issuers: int
    per_thread: int
    groups: int
    depth: int


def _ahead(launch: LaunchOp, w: _Window) -> _Ahead | None:
    """`w`'s fill overlapped with the first loop, where that loop runs from 0 by 1 with
    the trip as its tile coordinate itself; else None (the whole window, then one
    wait). A partial window's
    stashed trips are its groups (`_partial`: its window holds no chunk past them).

    Trip i reads the row's elements [i C, (i + 1) C) (C the tile's extent), which lie in
    the window's chunks below (i + 1) C / k plus one where rows are not aligned (the
    misalignment shifts them by less than a chunk): so the groups start after `head`
    chunks (1 there, 0 for aligned rows) and trip i needs the head and groups 0..i. A
    thread's copies are issued in window order, `per_thread` to a group, so once group
    i + depth is issued, waiting until `depth x per_thread` groups are pending lands
    every copy of groups up to i (the head's copies are older still); a thread that
    copies none waits for nothing, and sees the others' after the trip's barrier."""
    load = w.pair.first
    loop = load.parent_op()
    if (not isinstance(loop, scf.ForOp) or constant_index(loop.lb) != 0
            or constant_index(loop.step) != 1 or load.view.owner.coords[1] is not loop.body.block.args[0]):
        return None
    size = load.view.owner.tile_sizes[1]
    if size % w.k:
        return None
    chunks = size // w.k
    issuers = gcd(chunks, launch.num_threads)
    per_thread = chunks // issuers
    head = 0 if w.aligned else 1
    groups = (w.n // w.k - head) // chunks if w.trips is None else w.trips
    depth = CP_ASYNC_PENDING_MAX // per_thread
    if depth < 1 or groups < 1:
        return None
    return _Ahead(loop, head, chunks, issuers, per_thread, groups, depth)


def _copies_async(launch: LaunchOp) -> bool:
    """Whether `launch` already issues or waits for cp.async copies."""
    return any(isinstance(o, (CopyChunkAsyncOp, CopyAsyncOp, AsyncWaitOp)) for o in launch.walk())


def _fill_window(launch: LaunchOp, w: _Window, ahead: _Ahead | None = None) -> None:
    """The stash of `w`: before anything else of the launch, its threads copy the block's
    row into shared memory by 16-byte `cp.async` chunks of its address-aligned window
    (from the row's first element rounded down to 16 bytes), the row's elements past the
    buffer's last whole chunk one at a time (the last row's tail, where rows are not
    aligned); then both loops load the stash: an aligned row is the stash itself,
    `(1, N):(0, 1)`; another a `(1, N)` view at its misalignment in the window
    (`layout.slice` of a `(k, 1, N):(1, 0, 1)` re-view).

    Without `ahead`, the whole window is copied before the first loop, then one wait and
    a barrier. With `ahead` (`_Ahead`), the window is copied in groups of one trip's
    chunks, `ahead.depth` groups before the first loop and one more at each of its trips,
    each trip waiting (`layout.async_wait`, then a barrier) for the groups it reads only."""
    from ._box_tile import _Builder

    pair, k, n = w.pair, w.k, w.n
    elem = pair.first.view.type.element_type
    # before the launch: a flat view of the whole buffer (M x N elements)
    host_ops: list[Operation] = []

    def host(o: Operation) -> SSAValue:
        copy_loc(pair.first, o)
        host_ops.append(o)
        return o.results[0]

    rows = w.view.result.type.cute_layout.shape[0]
    if isinstance(rows, int):
        total: SSAValue | int = rows * n
        flat_t = TensorViewType(elem, cute.make_layout((rows * n,), (1,)), "gmem")
        flat = host(ViewOp(w.view.source, flat_t, []))
    else:
        total = host(arith.MuliOp(w.view.dynamic[0], host(arith.ConstantOp(IntegerAttr(n, IndexType())))))
        flat_t = TensorViewType(elem, cute.make_layout((cute.DYN,), (1,)), "gmem")
        flat = host(ViewOp(w.view.source, flat_t, [total]))
    Rewriter.insert_op(host_ops, InsertPoint.before(launch))

    scratch = Block()
    b = _Builder(scratch)
    c = b.c
    tid, threads = launch.thread_id, c(launch.num_threads)
    span = w.nbytes // element_bytes(elem)
    stash = b.add(AllocOp(TensorViewType(elem, cute.make_layout((1, span), (0, 1)), "smem")))
    stash.name_hint = "stash"
    zero = c(0)
    ck = c(k)
    start = b.muli(w.row, c(n))
    if w.trips is not None:
        # the row's first chunks only: every 16-byte chunk of their window lies inside the row
        if w.aligned:
            lo = b.add(MultipleOfOp(start, k))
        else:
            mis = b.remui(start, ck)
            lo = b.subi(start, mis)
        chunks = c(span // k)
    elif w.aligned:
        lo, chunks = b.add(MultipleOfOp(start, k)), c(n // k)
    else:
        cmk = c(-k)
        mis = b.remui(start, ck)
        lo = b.subi(start, mis)
        end = b.addi(start, c(n))
        lim = b.andi(b.val(total), cmk) if not isinstance(total, int) else c(total // k * k)
        hi = b.add(arith.MinSIOp(b.andi(b.addi(end, c(k - 1)), cmk), lim))
        chunks = b.divui(b.add(arith.MaxSIOp(b.subi(hi, lo), zero)), ck)
        # at most the window's chunks: a bound the index-width analysis sees (`hi - lo`
        # alone it bounds by the whole buffer), so the 32-bit kernel serves as many rows
        chunks = b.add(arith.MinSIOp(chunks, c(span // k)))

    def copy(into: _Builder, j: SSAValue) -> None:
        """The window's chunk `j` into the stash (one cp.async, one group)."""
        at = into.muli(j, into.c(k))
        into.add(CopyChunkAsyncOp(flat, [into.add(MultipleOfOp(into.addi(lo, at), k))], stash,
                                  [zero, into.add(MultipleOfOp(at, k))], k))

    def rest(into: _Builder) -> None:
        """The window's chunks past its whole groups, strided over the threads."""
        assert ahead is not None
        with into.loop(into.addi(into.c(ahead.head + ahead.groups * ahead.chunks), tid), chunks, threads) as j:
            copy(into, j)

    def group(into: _Builder, g: SSAValue) -> None:
        """Group `g`'s chunks: `per_thread` each of the first `issuers` threads."""
        assert ahead is not None

        def copies() -> None:
            base = into.addi(into.muli(g, into.c(ahead.chunks)), into.addi(tid, into.c(ahead.head)))
            for r in range(ahead.per_thread):
                copy(into, into.addi(base, into.c(r * ahead.issuers)) if r else base)

        if ahead.issuers == launch.num_threads:
            copies()
        else:
            with into.when(into.cmp("ult", tid, into.c(ahead.issuers))):
                copies()

    if ahead is None:
        with b.loop(tid, chunks, threads) as j:
            copy(b, j)
    else:
        if ahead.head:  # the window's first chunk, before the groups (the oldest copies)
            with b.loop(tid, c(ahead.head), threads) as j:
                copy(b, j)
        with b.loop(zero, c(min(ahead.depth, ahead.groups)), c(1)) as g:
            group(b, g)
        if ahead.groups <= ahead.depth and w.trips is None:
            rest(b)
    if not w.aligned and w.trips is None:
        # the row's elements past the buffer's last whole chunk (the last row's tail)
        with b.when(b.cmp("sgt", end, lim)):
            with b.loop(b.addi(b.add(arith.MaxSIOp(hi, start)), tid), end, threads) as e:
                x = b.add(ReadOp(flat, [e]))
                b.add(WriteOp(x, stash, [zero, b.subi(e, lo)]))
    if ahead is None:
        b.add(AsyncWaitOp(0))
        b.add(BarrierOp())
    row = stash
    held = n if w.trips is None else w.trips * pair.first.view.owner.tile_sizes[1]
    if not w.aligned:
        tiled = TensorViewType(elem, cute.make_layout((k, 1, held), (1, 0, 1)), "smem")
        wide = b.add(ViewOp(stash, tiled, []))
        row_t = TensorViewType(elem, cute.make_layout((1, held), (0, 1)), "smem")
        pattern = DenseArrayBase.from_list(i64, [DYNAMIC, WILDCARD, WILDCARD])
        row = b.add(SliceOp.create(operands=[wide, mis], properties={"pattern": pattern}, result_types=[row_t]))
    ops = _moved(scratch, pair.first)
    Rewriter.insert_op(ops, InsertPoint.at_start(launch.body.block))
    loads = [pair.first, pair.second]
    if w.trips is not None:
        split = arith.ConstantOp(IntegerAttr(w.trips, IndexType()))
        Rewriter.insert_op(split, InsertPoint.after(ops[-1]))
        loads = [_split_loop(ld, split.result) for ld in loads]
    if ahead is not None:
        # each trip of the first loop: the next group in flight, then a wait for the
        # trip's groups and a barrier; the trip whose next group would be past the
        # whole groups issues the rest of the window and waits for all of it, and the
        # trips after it find the whole stash landed (no wait, no barrier)
        trip = Block()
        tb = _Builder(trip)
        first_loop = loads[0].parent_op()
        assert isinstance(first_loop, scf.ForOp)
        i = first_loop.body.block.args[0]
        last = min(ahead.depth, ahead.groups)
        nxt = tb.addi(i, tb.c(last))
        if ahead.groups > ahead.depth:
            with tb.when(tb.cmp("ult", nxt, tb.c(ahead.groups))):
                group(tb, nxt)
                tb.add(AsyncWaitOp(ahead.depth * ahead.per_thread))
                tb.add(BarrierOp())
        with tb.when(tb.cmp("eq", nxt, tb.c(ahead.groups))):
            if w.trips is None and ahead.groups > ahead.depth:  # (else issued before the loop)
                rest(tb)
            tb.add(AsyncWaitOp(0))
            tb.add(BarrierOp())
        Rewriter.insert_op(_moved(trip, pair.first), InsertPoint.at_start(first_loop.body.block))
    for load in loads:
        t: TileOp = load.view.owner  # type: ignore[assignment]
        st = TileOp(row, [zero, t.coords[1]], list(t.tile_sizes))
        copy_loc(load, st)
        _read_instead(load, st, load.other)


def _load_ahead(loop: scf.ForOp, launch: LaunchOp) -> None:
    """The global loads left in `loop`, a loop of a launch with a window stash (a norm's
    weight and bias in the second loop; with `partial`, the row's unstashed chunks too),
    issued one trip ahead: the first trip's before the loop, and each trip loads trip
    i + 1's tile (the last trip's again at the last trip) into a value the loop carries
    to the next trip, first thing in the trip, so that its latency is spent on this
    trip's work. Taken: loads of a `layout.tile` of a global view made in the loop's
    body at the trip (the induction variable itself, once) and otherwise at values, an
    `other` and a `mask` defined outside the loop (or constants, copied before it), of
    views nothing in the launch stores to, in a loop of constant bounds, step 1 and at
    least 2 trips. Each load reads what it read before, so no result changes."""
    n, lb = trips(loop), constant_index(loop.lb)
    if not n or n < 2 or lb is None or constant_index(loop.step) != 1:
        return
    body = loop.body.block
    iv = body.args[0]
    written = {o.view for o in launch.walk() if isinstance(o, StoreOp)}
    written |= {t.source for v in written if isinstance(t := v.owner, TileOp)}

    def outside(v: SSAValue | None) -> bool:
        return v is None or not loop.is_ancestor(v.owner if isinstance(v.owner, Operation) else v.owner.parent_op())

    def constant(v: SSAValue | None) -> bool:
        return v is not None and isinstance(v.owner, arith.ConstantOp)

    loads = []
    for o in body.ops:
        t = o.view.owner if isinstance(o, LoadOp) else None
        if (not isinstance(t, TileOp) or t.parent_block() is not body or t.result.uses.get_length() != 1
                or t.source.type.memory_space != "gmem" or t.source in written
                or [c is iv for c in t.coords].count(True) != 1
                or not all(outside(c) for c in (t.source, *t.coords) if c is not iv)
                or not all(outside(v) or constant(v) for v in (o.other, o.mask))):
            continue
        loads.append(o)
    if not loads:
        return
    pre: list[Operation] = []
    first_trip = arith.ConstantOp(IntegerAttr(lb, IndexType()))
    pre.append(first_trip)
    inits = []
    for ld in loads:
        t: TileOp = ld.view.owner  # type: ignore[assignment]
        at: dict[SSAValue, SSAValue] = {iv: first_trip.result}
        for v in (ld.other, ld.mask):
            if v is not None and not outside(v):
                c = v.owner.clone()
                pre.append(c)
                at[v] = c.results[0]
        first_t = t.clone(value_mapper=at)
        at[t.result] = first_t.result
        first = ld.clone(value_mapper=at)
        pre += [first_t, first]
        inits.append(first.result)
    for o in pre:
        copy_loc(loop, o)
    Rewriter.insert_op(pre, InsertPoint.before(loop))
    from ._scf_slots import rebuild_for

    carried = len(loop.iter_args)
    loop = rebuild_for(loop, list(range(carried)), inits)
    body = loop.body.block
    iv = body.args[0]
    ahead: list[Operation] = [one := arith.ConstantOp(IntegerAttr(1, IndexType())),
                              last := arith.ConstantOp(IntegerAttr(lb + n - 1, IndexType())),
                              nxt := arith.AddiOp(iv, one.result),
                              at_next := arith.MinUIOp(nxt.result, last.result)]
    for o in ahead:
        copy_loc(loop, o)
    y = body.last_op
    assert isinstance(y, scf.YieldOp)
    outs = list(y.operands)
    for k, ld in enumerate(loads):
        t = ld.view.owner  # type: ignore[assignment]
        ld.result.replace_all_uses_with(body.args[1 + carried + k])
        for o in (t, ld):
            o.detach()
        t.operands = [at_next.result if v is iv else v for v in t.operands]
        for v in (ld.other, ld.mask):  # a constant of the body: copied before the load
            if v is not None and not outside(v):
                c = v.owner.clone()
                copy_loc(v.owner, c)
                ahead.append(c)
                ld.operands = [c.results[0] if u is v else u for u in ld.operands]
        ahead += [t, ld]
        outs[carried + k] = ld.result
    y.operands = outs
    Rewriter.insert_op(ahead, InsertPoint.at_start(body))


def _moved(block: Block, loc: Operation) -> list[Operation]:
    """`block`'s ops detached from it, each at `loc`'s location."""
    ops = list(block.ops)
    for o in ops:
        o.detach()
        for inner in o.walk():
            copy_loc(loc, inner)
    return ops


def _split_loop(load: LoadOp, split: SSAValue) -> LoadOp:
    """`load`'s loop as two: a copy over the trips below `split` (returned: its copy of
    `load`, to read the stash), then the loop itself from `split` on, carrying on from
    the copy's results."""
    loop: scf.ForOp = load.parent_op()  # type: ignore[assignment]
    at = list(loop.body.block.ops).index(load)
    head = loop.clone()
    head.operands = [loop.lb, split, loop.step, *loop.iter_args]
    Rewriter.insert_op(head, InsertPoint.before(loop))
    loop.operands = [split, loop.ub, loop.step, *head.results]
    return list(head.body.block.ops)[at]  # type: ignore[return-value]
