"""Which vector widths an access may use: contiguity of the view's layout, the
alignment of the buffer it views, and the tiles it was cut from (shared by `distribute`,
which sizes each thread's run by it, and `vectorize`, which sets the width). Reads IR,
rewrites nothing."""

from __future__ import annotations

from xdsl.ir import SSAValue

from tilec.dialects import cute, views
from tilec.dialects.layout import AllocOp, TileOp, ViewOp
from tilec.dialects.layout_attrs import ComposedLayoutAttr, PtrType, TensorViewType
from tilec.support.target import target_of

from ._analysis import DYN, leaves, mode_contiguity


def widest(limit: int, cap: int, ok) -> int:
    """The largest power of two v <= min(limit, cap) with ok(v); 1 if none."""
    v = 1
    while v * 2 <= min(limit, cap):
        v *= 2
    while v > 1 and not ok(v):
        v //= 2
    return v


def view_vector_ok(view: SSAValue, d: int, v: int, eb: int, lanes_masked: bool = False) -> bool:
    """Whether every access of v consecutive elements along mode d of `view`, starting
    at a coordinate multiple of v, is contiguous and aligned to v * eb bytes (see the
    pass documentation). Views made by ops other than `layout.tile` are not analysed.

    A dynamic stride counts as a multiple of what its `layout.view` promises
    (`divisible`). A masked view needs its extent along d to be a static multiple of v
    (vectors never straddle its edge), unless `lanes_masked`: the access (a
    `layout.load` / `layout.store`) masks each lane by itself, so a tile inside the
    tensor moves whole vectors and only a tile across the edge falls back to
    per-element accesses."""
    if v == 1:
        return True
    t: TensorViewType = view.type
    if t.vec_layout is not None:
        return False
    chain = _chain(view)
    if not chain:
        return False
    root = chain[-1]
    if isinstance(root, ViewOp):
        pt = root.source.type
        align = pt.alignment if isinstance(pt, PtrType) else eb
    elif isinstance(root, AllocOp):
        align = target_of(root).smem_align
    else:
        return False
    if align % (v * eb):
        return False
    # the view itself and every view it was tiled from
    layouts = [t] + [o.source.type for o in chain if isinstance(o, TileOp)]
    promised = _promised_strides(root) if isinstance(root, ViewOp) else None
    for lt in layouts:
        if not _layout_ok(lt, d, v, promised, lanes_masked and t.is_masked):
            return False
    for o in chain:
        if isinstance(o, TileOp) and o.tile_sizes[d] % v:
            return False
    if t.is_masked and not lanes_masked:
        root_t = root.result.type
        n = views.mode_sizes(root_t.cute_layout)[d]
        if n is DYN or n % v:
            return False
    return True


PROMISE_UNIT = 2**40 + 1
"""An odd stand-in for the unknown factor of a dynamic stride promised to be a multiple
of k (`layout.view {divisible}`): the stride is analysed as k * PROMISE_UNIT, which is
a multiple of a power of two v exactly when k is, and long past any static extent."""


def _promised_strides(root: ViewOp) -> list[int | None] | None:
    """For each stride leaf of the root view's layout (`leaves` order): k * PROMISE_UNIT
    for a dynamic stride promised to be a multiple of k > 1, None otherwise; None when
    nothing is promised."""
    divs = root.divisors()
    if all(k == 1 for k in divs):
        return None
    lay = root.result.type.cute_layout
    pairs = leaves(lay)
    i = sum(1 for n, _ in pairs if n is DYN)  # shape values come first
    out: list[int | None] = []
    for _, st in pairs:
        if st is DYN:
            k = divs[i]
            i += 1
            out.append(k * PROMISE_UNIT if k > 1 else None)
        else:
            out.append(None)
    return out


def _substitute(layout: cute.Layout, promised: list[int | None]) -> cute.Layout:
    """`layout` with its dynamic strides replaced by their promised stand-ins, when it
    has as many leaves as the root (tiles keep the root's strides leaf by leaf)."""
    pairs = leaves(layout)
    if len(pairs) != len(promised):
        return layout
    it = iter(promised)

    def walk(stride):
        if isinstance(stride, tuple):
            return tuple(walk(x) for x in stride)
        p = next(it)
        return p if stride is DYN and p is not None else stride

    return cute.make_layout(layout.shape, walk(layout.stride))


def _chain(view: SSAValue):
    """The ops from `view` to its root: tiles, then a `layout.view` or `layout.alloc`."""
    out = []
    v = view
    while True:
        op = v.owner
        if isinstance(op, TileOp):
            out.append(op)
            v = op.source
        elif isinstance(op, ViewOp | AllocOp):
            out.append(op)
            return out
        else:
            return []


def _layout_ok(
    t: TensorViewType, d: int, v: int, promised: list[int | None] | None = None,
    lanes_masked: bool = False,
) -> bool:
    lay = t.cute_layout
    if promised is not None:
        lay = _substitute(lay, promised)
    ms = views.modes(lay)
    if d >= len(ms):
        return False
    run = mode_contiguity(ms[d])
    # a run as long as a dynamic extent: mode d is that one stride-1 leaf, whose end
    # is the tensor's edge, where per-lane masks stop a vector
    dyn_edge = run is DYN and lanes_masked and len(leaves(ms[d])) == 1
    if not dyn_edge and (run is DYN or run == 0 or run % v):
        return False
    # every stride except the stride-1 run of mode d is a multiple of v
    for k, m in enumerate(ms):
        ls = leaves(cute.coalesce(m)) if k == d else leaves(m)
        if k == d:
            ls = ls[1:]
        for s, st in ls:
            if s == 1:
                continue
            if st is DYN or st % v:
                return False
    if isinstance(t.layout, ComposedLayoutAttr):
        c = t.layout.data
        unit = 1 << c.swizzle.base
        if unit % v or c.offset % v:
            return False
    return True


