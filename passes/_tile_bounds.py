"""Static ranges of tile coordinates and thread ids, for the lowering of `layout.tile`
and `layout.distribute`.

A tile coordinate that is a block id of a `layout.launch` whose grid extent is a
constant (or a constant itself) has a known exclusive upper limit. The lowering uses it
to refuse an unmasked tile that an over-provisioned grid would take past its tensor
(the CPU executor refuses it too) and to drop the bound check of a masked tile's mode
that no block can leave."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import BlockArgument, SSAValue

from tilec.dialects.layout import LaunchOp


def _constant(v: SSAValue) -> int | None:
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def coord_limit(v: SSAValue) -> int | None:
    """An exclusive upper bound of the index value `v` known at compile time, if any:
    a constant c gives c + 1, block id x/y/z of a launch with a constant grid extent g
    gives g, the thread id of a launch of t threads gives t, `x % c` gives c and
    `x & c` gives c + 1 (index values are never negative where these are used)."""
    c = _constant(v)
    if c is not None:
        return c + 1
    if isinstance(v, BlockArgument):
        launch = v.block.parent_op()
        if isinstance(launch, LaunchOp):
            return _constant(launch.operands[v.index]) if v.index < 3 else launch.num_threads
        return None
    op = v.owner
    if isinstance(op, arith.RemUIOp | arith.RemSIOp):
        return _constant(op.rhs)
    if isinstance(op, arith.AndIOp):
        m = _constant(op.rhs)
        return None if m is None else m + 1
    return None
