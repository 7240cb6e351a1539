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


def view_vector_ok(view: SSAValue, d: int, v: int, eb: int) -> bool:
    """Whether every access of v consecutive elements along mode d of `view`, starting
    at a coordinate multiple of v, is contiguous and aligned to v * eb bytes (see the
    pass documentation). Views made by ops other than `layout.tile` are not analysed."""
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
    for lt in layouts:
        if not _layout_ok(lt, d, v):
            return False
    for o in chain:
        if isinstance(o, TileOp) and o.tile_sizes[d] % v:
            return False
    if t.is_masked:
        root_t = root.result.type
        n = views.mode_sizes(root_t.cute_layout)[d]
        if n is DYN or n % v:
            return False
    return True


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


def _layout_ok(t: TensorViewType, d: int, v: int) -> bool:
    lay = t.cute_layout
    ms = views.modes(lay)
    if d >= len(ms):
        return False
    run = mode_contiguity(ms[d])
    if run is DYN or run == 0 or run % v:
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


