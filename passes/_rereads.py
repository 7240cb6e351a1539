"""Loops over a row's chunks that read again the tiles an earlier loop of the launch read
(a two-pass row kernel: the statistics, then the outputs), for `reread-order` and
`choose-warps`.

    for r in rereads(launch):      # Reread(first, second, row_bytes)
        ...

A loop `scf.for %j = lo to hi step s` of a launch's body (directly in it) reads a tile
pattern (view, coordinates with %j marked, tile sizes) where it loads a `layout.tile`
made in its body whose coordinates contain %j (or `last + lo - %j`, the same trips
backwards, as `reread-order` leaves them) and are otherwise defined outside it.
A later loop of the same body with the same bounds (the same constants, or the same
values) that reads a pattern an earlier one read re-reads it: between the two reads of
a chunk the block reads the rest of its row, so the second read finds the chunk in L2
only while every block's rows in flight fit there.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.dialects import arith, scf
from xdsl.ir import Block, BlockArgument, SSAValue

from tilec.dialects.layout import LaunchOp, LoadOp, TileOp
from tilec.dialects.layout_attrs import element_bytes

from ._analysis import constant_index

_J = object()
"""Marks the loop's induction variable in a tile pattern's coordinates."""


@dataclass(frozen=True)
class Reread:
    """`second` re-reads tiles that `first` (earlier in the launch's body) read;
    `row_bytes`: the bytes of those tiles over all trips (a row, for a loop over its chunks)."""

    first: scf.ForOp
    second: scf.ForOp
    row_bytes: int


def _bound(v: SSAValue):
    c = constant_index(v)
    return v if c is None else c


def _bounds(loop: scf.ForOp) -> tuple:
    return _bound(loop.lb), _bound(loop.ub), _bound(loop.step)


def _defined_in(v: SSAValue, block: Block) -> bool:
    if isinstance(v, BlockArgument):
        return v.block is block
    return v.owner.parent_block() is block


def is_trip(v: SSAValue, loop: scf.ForOp) -> bool:
    """Whether `v` is `loop`'s induction variable j, or `last + lo - j` (`reread-order`'s
    reversal: the same trips, backwards)."""
    j = loop.body.block.args[0]
    if v is j:
        return True
    op = v.owner
    if not (isinstance(op, arith.SubiOp) and op.rhs is j and (n := trips(loop))):
        return False
    lo, step = constant_index(loop.lb), constant_index(loop.step)
    return constant_index(op.lhs) == 2 * lo + (n - 1) * step


def _pattern_loads(loop: scf.ForOp) -> list[tuple[tuple, LoadOp]]:
    """The loads of `loop`'s body that read a tile pattern, each with its pattern."""
    body = loop.body.block
    out = []
    for o in body.ops:
        if not isinstance(o, LoadOp) or not isinstance(t := o.view.owner, TileOp) or t.parent_block() is not body:
            continue
        ivs = [is_trip(c, loop) for c in t.coords]
        if not any(ivs) or any(not iv and _defined_in(c, body) for c, iv in zip(t.coords, ivs)):
            continue
        out.append(((t.source, tuple(_J if iv else c for c, iv in zip(t.coords, ivs)), tuple(t.tile_sizes)), o))
    return out


def read_patterns(loop: scf.ForOp) -> dict[tuple, int]:
    """The tile patterns `loop` loads (see the module docstring), each with its bytes per trip."""
    out: dict[tuple, int] = {}
    for key, o in _pattern_loads(loop):
        t = o.view.owner
        out[key] = prod(t.tile_sizes) * element_bytes(t.source.type.element_type)
    return out


def reread_loads(r: Reread) -> tuple[list[LoadOp], list[LoadOp]]:
    """The loads of `r.first` and of `r.second` that read the patterns both loops read."""
    firsts, seconds = _pattern_loads(r.first), _pattern_loads(r.second)
    shared = {k for k, _ in firsts} & {k for k, _ in seconds}
    return [o for k, o in firsts if k in shared], [o for k, o in seconds if k in shared]


def trips(loop: scf.ForOp) -> int | None:
    """The trips of `loop` where its bounds are constants."""
    lo, hi, step = (constant_index(v) for v in (loop.lb, loop.ub, loop.step))
    if lo is None or hi is None or not step:
        return None
    return max(0, -(-(hi - lo) // step))


def rereads(launch: LaunchOp) -> list[Reread]:
    """The loops of `launch`'s body that re-read an earlier loop's tile patterns (the
    first such earlier loop each), in program order."""
    loops = [o for o in launch.body.block.ops if isinstance(o, scf.ForOp)]
    out = []
    for k, second in enumerate(loops):
        pats = read_patterns(second)
        for first in loops[:k]:
            if _bounds(first) != _bounds(second):
                continue
            shared = pats.keys() & read_patterns(first).keys()
            n = trips(second)
            if shared and n:
                out.append(Reread(first, second, n * sum(pats[p] for p in shared)))
                break
    return out
