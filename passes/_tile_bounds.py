"""Static ranges of tile coordinates and thread ids, for the lowering of `layout.tile`
and `layout.distribute`.

A tile coordinate that is a block id of a `layout.launch` whose grid extent is a
constant (or a constant itself) has a known exclusive upper limit. The lowering uses it
to refuse an unmasked tile that an over-provisioned grid would take past its tensor
(the CPU executor refuses it too) and to drop the bound check of a masked tile's mode
that no block can leave.

A coordinate used under an `scf.if` guard is bounded by the guard too: `if c < K` (or
`c <= K`, `K > c`, both sides of an `arith.andi`, the negation in the `else` region)
around the op bounds `c` by K there, and `c * S + r < K` (as `global_idx < K` is for
the block id) by ceil(K / S) (seed 000's `if global_idx < shape` pattern), so a
guarded program that stays inside its tensor is never refused.

A row kernel's block id over a view of as many rows as its grid has (`grid(%m, ..)`,
a view of `%m` rows, tiles one row tall) never leaves the rows either (`covers_grid`):
its masked tile keeps only the column check."""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.ir import BlockArgument, Operation, SSAValue

from tilec.dialects import cute
from tilec.dialects.cute import DYN
from tilec.dialects.layout import LaunchOp, TileOp, ViewOp
from tilec.dialects.thread_ids import GlobalIdxOp

from ._analysis import constant_index


# exclusive bound K + adjust on v from `v PRED K` (v on the left) holding
_UPPER = {"ult": 0, "slt": 0, "ule": 1, "sle": 1}
# the same with v on the right (`K PRED v`)
_UPPER_RHS = {"ugt": 0, "sgt": 0, "uge": 1, "sge": 1}
# the negation of a predicate, for the `else` region
_NOT = {"ult": "uge", "slt": "sge", "ule": "ugt", "sle": "sgt",
        "uge": "ult", "sge": "slt", "ugt": "ule", "sgt": "sle", "eq": "ne", "ne": "eq"}


def _guard_bounds(cond: SSAValue, v: SSAValue, holds: bool) -> list[int]:
    """Exclusive upper bounds on `v` that `cond == holds` implies."""
    op = cond.owner
    if isinstance(op, arith.AndIOp) and holds or isinstance(op, arith.OrIOp) and not holds:
        return _guard_bounds(op.lhs, v, holds) + _guard_bounds(op.rhs, v, holds)
    if not isinstance(op, arith.CmpiOp):
        return []
    pred = list(arith.CMPI_COMPARISON_OPERATIONS)[op.predicate.value.data]
    if not holds:
        pred = _NOT[pred]
    for x, other, table in ((op.lhs, op.rhs, _UPPER), (op.rhs, op.lhs, _UPPER_RHS)):
        scale, k = _scale_of(x, v), constant_index(other)
        if scale is None or k is None:
            continue
        if pred in table:
            # v * scale + r < k + adjust (r >= 0): v < ceil((k + adjust) / scale)
            return [-(-(k + table[pred]) // scale)]
        if pred == "eq":
            return [k // scale + 1]
    return []


def _scale_of(x: SSAValue, v: SSAValue) -> int | None:
    """S where `x` is `v * S + r` with r >= 0 (index values are never negative where
    this is used): `v` itself, products by constants, sums, and Mojo's `global_idx`
    (block id * block extent + thread coordinate) of the block id `v`."""
    if x == v:
        return 1
    op = x.owner
    if isinstance(op, arith.MuliOp):
        for a, c in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            s, k = _scale_of(a, v), constant_index(c)
            if s is not None and k is not None and k > 0:
                return s * k
        return None
    if isinstance(op, arith.AddiOp):
        for a in (op.lhs, op.rhs):
            if (s := _scale_of(a, v)) is not None:
                return s
        return None
    if isinstance(op, GlobalIdxOp) and isinstance(v, BlockArgument):
        launch = op.launch()
        if isinstance(launch, LaunchOp) and v.owner is launch.body.block and v.index == op.axis:
            return launch.block_shape[op.axis]
    return None


def coord_limit(v: SSAValue, at: Operation | None = None) -> int | None:
    """An exclusive upper bound of the index value `v` known at compile time, if any:
    a constant c gives c + 1, block id x/y/z of a launch with a constant grid extent g
    gives g, the thread id of a launch of t threads gives t, `x % c` gives c and
    `x & c` gives c + 1 (index values are never negative where these are used). Where
    `v` is used by `at`, the `scf.if` guards around `at` bound it too (the smallest
    bound wins)."""
    lim = _value_limit(v)
    child, parent = at, at.parent_op() if at is not None else None
    while child is not None and parent is not None:
        if isinstance(parent, scf.IfOp):
            region = child.parent_region()
            holds = region is parent.true_region
            for k in _guard_bounds(parent.cond, v, holds):
                lim = k if lim is None else min(lim, k)
        child, parent = parent, parent.parent_op()
    return lim


def covers_grid(tile: TileOp, k: int) -> bool:
    """Whether coordinate `k` of `tile` never leaves mode k of its source: the coordinate
    is block id x, y or z of the enclosing `layout.launch`, the tile takes one element
    along mode k, and mode k of the source (a `layout.view`) is one run-time extent,
    bound to the same value as the launch's grid extent along that block id (a row
    kernel's `grid(%m, ..)` over a view of `%m` rows). The block ids along it are then
    exactly the mode's indices: a masked tile's bound check of that mode always holds."""
    c = tile.coords[k]
    if tile.tile_sizes[k] != 1 or not isinstance(c, BlockArgument) or c.index >= 3:
        return False
    launch = c.block.parent_op()
    view = tile.source.owner
    if not isinstance(launch, LaunchOp) or not isinstance(view, ViewOp) or tile.parent_op() is None:
        return False
    shape = view.result.type.cute_layout.shape
    shape = shape if isinstance(shape, tuple) else (shape,)
    if k >= len(shape) or shape[k] is not DYN:
        return False
    at = sum(1 for x in cute.flatten(shape[:k]) if x is DYN)  # the dynamic extents come first, in order
    return at < len(view.dynamic) and view.dynamic[at] == launch.operands[c.index]


def _value_limit(v: SSAValue) -> int | None:
    c = constant_index(v)
    if c is not None:
        return c + 1
    if isinstance(v, BlockArgument):
        launch = v.block.parent_op()
        if isinstance(launch, LaunchOp):
            return constant_index(launch.operands[v.index]) if v.index < 3 else launch.num_threads
        return None
    op = v.owner
    if isinstance(op, arith.RemUIOp | arith.RemSIOp):
        return constant_index(op.rhs)
    if isinstance(op, arith.AndIOp):
        m = constant_index(op.rhs)
        return None if m is None else m + 1
    return None
