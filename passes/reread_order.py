"""The `reread-order` pass: a loop that reads again the chunks an earlier loop read runs backwards, so it reads the most recently read first (what L2 still holds)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilec.dialects import layout_compute as lc
from tilec.dialects.layout import (
    ArangeOp,
    BroadcastOp,
    ConvertLayoutOp,
    ExpandDimsOp,
    LaunchOp,
    LoadOp,
    ReduceOp,
    SplatOp,
    StoreOp,
    TileOp,
)
from tilec.support.locations import copy_loc

from ._analysis import constant_index
from ._rereads import is_trip, rereads, trips
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

    Not in the default pipeline yet (unmeasured on a GPU): benchmarks/realistic_rows.py
    `--variants reread-order` compares it with the default.
    """

    name = "reread-order"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            for r in rereads(launch):
                if _reversible(r.second, launch):
                    _reverse(r.second)


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
