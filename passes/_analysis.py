"""Analyses of views shared by `tile`, `distribute` and `vectorize` (not a pass).

Everything here reads layouts and the chain of view ops that made a view; nothing
rewrites IR."""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from tilec.dialects import cute, views
from tilec.dialects.layout import (
    DERIVED_VIEW_OPS,
    DistributeOp,
    LaunchOp,
    PartitionOp,
)

DYN = cute.DYN
VIEW_OPS = DERIVED_VIEW_OPS
"""Ops that make a view of their `source` view (dialects/layout.py)."""


def leaves(layout: cute.Layout) -> list[tuple[object, object]]:
    """(extent, stride) of every leaf of a (possibly nested) layout, colexicographic."""
    return list(zip(_flat(layout.shape), _flat(layout.stride)))


def _flat(t) -> list:
    if isinstance(t, tuple):
        return [x for e in t for x in _flat(e)]
    return [t]


def is_pow2(n) -> bool:
    return isinstance(n, int) and n > 0 and n & (n - 1) == 0


def constant_index(v: SSAValue) -> int | None:
    """The integer `v` is when an `arith.constant` of an integer or index makes it, else None."""
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def pow2_floor(n: int) -> int:
    return 1 << (max(int(n), 1).bit_length() - 1)


def mode_contiguity(mode: cute.Layout):
    """How many leading elements of one mode are consecutive in memory (stride 1);
    0 when the mode does not start with a stride-1 run (DYN when dynamic)."""
    if mode.size() == 1:
        return 0
    c = cute.coalesce(mode)
    s, d = leaves(c)[0]
    return s if d == 1 else 0


def contiguous_mode(layout: cute.Layout) -> int | None:
    """The top-level mode along which consecutive coordinates are consecutive in memory
    (the one with the longest stride-1 run), or None."""
    best, best_n = None, 0
    for k, m in enumerate(views.modes(layout)):
        n = mode_contiguity(m)
        score = 1 << 40 if n is DYN else n
        if score > best_n:
            best, best_n = k, score
    return best


def _min_stride(mode: cute.Layout) -> float:
    ds = [d for s, d in leaves(mode) if s != 1]
    if not ds:
        return float("inf")
    return min(float("inf") if d is DYN else abs(d) for d in ds)


def memory_order(layout: cute.Layout, first: int | None = None) -> list[int]:
    """Top-level modes from fastest to slowest in memory (smallest stride first;
    dynamic strides count as slow); `first` (if given) goes first."""
    ms = views.modes(layout)
    order = sorted(range(len(ms)), key=lambda k: (_min_stride(ms[k]), k))
    if first is not None:
        order.remove(first)
        order.insert(0, first)
    return order


def depends_on_thread(v: SSAValue, memo: dict | None = None) -> bool:
    """Whether a value depends on the thread id of an enclosing `layout.launch`."""
    memo = {} if memo is None else memo
    if v in memo:
        return memo[v]
    memo[v] = False
    if isinstance(v, BlockArgument):
        op = v.block.parent_op()
        res = isinstance(op, LaunchOp) and v.index == 3
    elif isinstance(v, OpResult):
        op = v.op
        res = isinstance(op, DistributeOp | PartitionOp) or any(
            depends_on_thread(o, memo) for o in op.operands
        )
    else:  # pragma: no cover
        res = False
    memo[v] = res
    return res


def in_loop(op: Operation, launch: LaunchOp) -> bool:
    """Whether `op` is inside an `scf.for` or `scf.while` of `launch` (the shared
    buffers it is given are then reused from one iteration to the next)."""
    p = op.parent_op()
    while p is not None and p is not launch:
        if isinstance(p, scf.ForOp | scf.WhileOp):
            return True
        p = p.parent_op()
    return False
