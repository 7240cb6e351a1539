"""The `reread-order` pass: a loop that reads again the chunks an earlier loop read runs backwards, so it reads the most recently read first (what L2 still holds)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.dialects import cute, views
from tilec.dialects import layout_compute as lc
from tilec.dialects.layout import (
    ArangeOp,
    BroadcastOp,
    ConvertLayoutOp,
    ExpandDimsOp,
    LaunchOp,
    LoadOp,
    PrefetchOp,
    ReduceOp,
    SplatOp,
    StoreOp,
    TileOp,
)
from tilec.support.locations import copy_loc
from tilec.support.target import target_of

from ._analysis import DYN, constant_index
from ._rereads import Reread, is_trip, reread_loads, rereads, trips
from .pack_rows import ELEMENTWISE_OPS

_PURE = (ArangeOp, BroadcastOp, ConvertLayoutOp, ExpandDimsOp, ReduceOp, SplatOp, TileOp, LoadOp, lc.ScanOp)
"""Ops of a reversible loop's body besides `arith.*`, `math.*`, ELEMENTWISE_OPS and its
tile stores: none writes memory."""


@dataclass(frozen=True)
class RereadOrderPass(ModulePass):
    """Run backwards a loop over a row's chunks that reads again the chunks an earlier loop of the launch read, where its trips are independent.

    A row kernel in two passes over chunks (softmax's running max and sum, then the
    outputs; a norm's statistics, then the outputs) reads each row twice. Rows longer
    than a block's share of L2 (its capacity over the blocks in flight) do not stay
    there whole between the two reads: read forwards, the second pass asks first for
    the chunk read longest ago, which LRU evicted first, and each miss evicts the next
    chunk it needs, so it misses every chunk. Read backwards (`scf.for %j` over the
    same trips, the body using `last + lo - %j` for `%j`), it reads first the chunks
    the first pass read last, which L2 still holds, up to the block's share.

    The loop is the second of two loops directly in a `layout.launch`'s body with the
    same constant bounds that load tiles of the same view at the same coordinates, one
    of them the induction variable (`_rereads`). It is reversed only where that
    leaves its results as they were: no loop-carried values; a body without regions
    of straight-line ops that write no memory but its `layout.store`s, each to a tile
    made in the body with the induction variable among its coordinates (so each trip
    writes its own tiles), of views that nothing in the launch loads (views are of
    distinct buffers: kernels take their pointers `__restrict__`).

    With `cache_hints`, the loads and stores of each such pair of loops (reversed or not)
    also carry L2 eviction priorities (`layout.load`'s `cache`), where the target's L2 is
    known and holds the re-read row (`Reread.row_bytes` at most `Target.l2_bytes`): the
    first loop's loads of the re-read tiles `evict_last` (L2 keeps them before other
    lines until the second read), the second loop's loads of them and its stores to
    global memory `evict_first` (read for the last time, or written and not read by the
    launch: they make room first). Where every resident block's row does not fit in L2
    the first reads then displace the outputs and the consumed chunks, not each other's
    still-unread chunks; read backwards, the second loop finds the most recent first.
    The hints change no value (the executor ignores them).

    With `prefetch`, where the target also has bulk copies (TMA, sm_90), the block asks
    L2 for each re-read row whole before the first loop (`layout.prefetch` of the tile
    that spans the row, where that tile's elements are consecutive; `evict_last` with
    `cache_hints`): all of the row's bytes are in flight at once, not one chunk's, so few
    blocks (`choose-warps{l2_rows}`, whose rows fit in L2) still keep DRAM busy, and both
    loops read the row from L2.

    Not in the default pipeline yet (unmeasured on a GPU): benchmarks/realistic_rows.py
    `--variants reread-order,reread-hints,reread-l2-prefetch` compares it with the default.

    Options:
      cache_hints    the L2 eviction priorities above (default false).
      prefetch       the L2 prefetch of each re-read row above (default false).
    """

    name = "reread-order"

    cache_hints: bool = False
    prefetch: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            tgt = target_of(launch)
            l2 = tgt.l2_bytes
            for r in rereads(launch):
                if self.cache_hints and l2 and r.row_bytes <= l2:
                    _hint(r)
                if self.prefetch and l2 and r.row_bytes <= l2 and tgt.has("tma"):
                    _prefetch(r, launch, "evict_last" if self.cache_hints else None)
                if _reversible(r.second, launch):
                    _reverse(r.second)


def _prefetch(r: Reread, launch: LaunchOp, cache: str | None) -> None:
    """A `layout.prefetch` before `r.first` of each row its loads read in chunks: the
    tile of the chunk's view at the same coordinates with the trip's extent the view's
    (a static extent; the tile's elements consecutive). A row prefetched already (an
    earlier run of the pass) is not prefetched again."""

    def key(t: TileOp) -> tuple:
        coords = tuple(c if (k := constant_index(c)) is None else k for c in t.coords)
        return t.source, coords, tuple(t.tile_sizes)

    done = {key(o.view.owner) for o in launch.body.block.ops
            if isinstance(o, PrefetchOp) and isinstance(o.view.owner, TileOp)}
    firsts, _ = reread_loads(r)
    zero = None
    for load in firsts:
        t: TileOp = load.view.owner  # type: ignore[assignment]
        dims = [k for k, c in enumerate(t.coords) if is_trip(c, r.first)]
        extent = views.mode_sizes(t.source.type.cute_layout)[dims[0]] if len(dims) == 1 else DYN
        if extent is DYN:
            continue
        sizes = [int(extent) if k == dims[0] else s for k, s in enumerate(t.tile_sizes)]
        if zero is None:
            zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        row = TileOp(t.source, [zero.result if k == dims[0] else c for k, c in enumerate(t.coords)], sizes)
        lay = row.result.type.cute_layout
        if key(row) in done or not (isinstance(lay, cute.Layout) and lay.is_static() and lay.cosize() == lay.size()):
            row.erase()
            continue
        pre = PrefetchOp(row.result, cache)
        new = [row, pre] if zero.parent is not None else [zero, row, pre]
        copy_loc(load, *new)
        Rewriter.insert_op(new, InsertPoint.before(r.first))
        done.add(key(row))
    if zero is not None and zero.parent is None:
        zero.erase()


def _hint(r: Reread) -> None:
    """The L2 eviction priorities of `cache_hints` on the loops of `r`."""
    firsts, seconds = reread_loads(r)
    stores = [o for o in r.second.body.block.ops if isinstance(o, StoreOp)]
    for o, hint in [*((f, "evict_last") for f in firsts), *((x, "evict_first") for x in (*seconds, *stores))]:
        if o.view.type.memory_space == "gmem":
            o.properties["cache"] = StringAttr(hint)


def _reversible(loop: scf.ForOp, launch: LaunchOp) -> bool:
    if loop.iter_args or trips(loop) is None:
        return False
    j = loop.body.block.args[0]
    if any(u.operation is not None and isinstance(u.operation, arith.SubiOp) and is_trip(u.operation.result, loop)
           for u in j.uses):
        return False  # reversed already (by an earlier run of this pass)
    loaded = {t.source for o in launch.walk() if isinstance(o, LoadOp) and isinstance(t := o.view.owner, TileOp)}
    loaded |= {o.view for o in launch.walk() if isinstance(o, LoadOp)}
    for o in loop.body.block.ops:
        if o.regions:
            return False
        if isinstance(o, StoreOp):
            t = o.view.owner
            if not (isinstance(t, TileOp) and t.parent_block() is loop.body.block and j in t.coords
                    and t.source not in loaded and o.view not in loaded):
                return False
        elif not (isinstance(o, (*_PURE, scf.YieldOp)) or o.name.startswith(("arith.", "math."))
                  or o.name in ELEMENTWISE_OPS):
            return False
    return True


def _reverse(loop: scf.ForOp) -> None:
    """`loop`'s body on `last + lo - j` instead of its induction variable `j`."""
    lo, step = constant_index(loop.lb), constant_index(loop.step)
    last = lo + (trips(loop) - 1) * step
    body = loop.body.block
    j = body.args[0]
    c = arith.ConstantOp(IntegerAttr(last + lo, IndexType()))
    r = arith.SubiOp(c.result, j)
    new: list[Operation] = [c, r]
    copy_loc(loop, *new)
    Rewriter.insert_op(new, InsertPoint.at_start(body))
    j.replace_uses_with_if(r.result, lambda u: u.operation is not r)
