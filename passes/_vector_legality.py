"""Which vector widths an access may use: contiguity of the view's layout, the
alignment of the buffer it views, and the tiles it was cut from (shared by `distribute`,
which sizes each thread's run by it, and `vectorize`, which sets the width). Reads IR,
rewrites nothing."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

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


def register_run(ll) -> tuple[int, int]:
    """(d, k) for a linear layout (any `DistributedEncoding`'s linear form): the
    largest power of two k such that registers g .. g + k - 1 (g a multiple of k) hold
    k consecutive elements along dim d, the first at a coordinate multiple of k:
    register bases 0 .. log2(k) - 1 are 1, 2, 4, ... along d and nothing else, and
    every other basis (higher registers, lanes, warps, blocks) moves along d by a
    multiple of k. (0, 1) when register 1 is not the next element along any dim.
    This is the most a vector access of the layout's registers can move: blocked
    layouts give their sizePerThread along the first `order` dim, a slice its parent's
    run along the kept dim, an MMA accumulator its pairs of columns."""
    regs = ll.get_bases("register")
    if not regs or sum(1 for c in regs[0] if c) != 1 or max(regs[0]) != 1:
        return 0, 1
    d = next(i for i, c in enumerate(regs[0]) if c)
    bits = 0
    while bits < len(regs) and all(c == (1 << bits if i == d else 0) for i, c in enumerate(regs[bits])):
        bits += 1
    others = regs[bits:] + [bs for name in ("lane", "warp", "block") for bs in ll.get_bases(name)]
    k = 1 << bits
    while k > 1 and any(bs[d] % k for bs in others):
        k //= 2
    return d, k


def view_vector_ok(view: SSAValue, d: int, v: int, eb: int, lanes_masked: bool = False) -> bool:
    """Whether every access of v consecutive elements along mode d of `view`, starting
    at a coordinate multiple of v, is contiguous and aligned to v * eb bytes (see
    `vector_obstacle`)."""
    return vector_obstacle(view, d, v, eb, lanes_masked) is None


def vector_obstacle(view: SSAValue, d: int, v: int, eb: int, lanes_masked: bool = False) -> str | None:
    """None when every access of v consecutive elements along mode d of `view`,
    starting at a coordinate multiple of v, is contiguous and aligned to v * eb bytes
    (see the `vectorize` pass documentation); otherwise what stands in the way, in
    words. Views made by ops other than `layout.tile` are not analysed.

    A dynamic stride counts as a multiple of what its `layout.view` promises
    (`divisible`). A masked view needs its extent along d to be a static multiple of v
    (vectors never straddle its edge), unless `lanes_masked`: the access (a
    `layout.load` / `layout.store`) masks each lane by itself, so a tile inside the
    tensor moves whole vectors and only a tile across the edge falls back to
    per-element accesses."""
    if v == 1:
        return None
    t: TensorViewType = view.type
    if t.vec_layout is not None:
        return "the view is vectorized already"
    chain = _chain(view)
    if not chain:
        made = view.owner.name if isinstance(view.owner, Operation) else "a block argument"
        return f"the view is made by {made}, which vectorize does not analyse (only layout.tile of a view or alloc)"
    root = chain[-1]
    if isinstance(root, ViewOp):
        pt = root.source.type
        if not isinstance(pt, PtrType):
            return "the view reinterprets another view, whose alignment vectorize does not analyse"
        align = pt.alignment
    else:
        align = target_of(root).smem_align
    if align % (v * eb):
        return f"the buffer is aligned to {align} bytes, less than {v * eb}"
    # the view itself and every view it was tiled from
    layouts = [t] + [o.source.type for o in chain if isinstance(o, TileOp)]
    promised = _promised_strides(root) if isinstance(root, ViewOp) else None
    for lt in layouts:
        why = _layout_obstacle(lt, d, v, promised, lanes_masked and t.is_masked)
        if why is not None:
            return why
    for o in chain:
        if isinstance(o, TileOp) and o.tile_sizes[d] % v:
            return f"a tile extent along mode {d} ({o.tile_sizes[d]}) is not a multiple of {v}"
    if t.is_masked and not lanes_masked:
        root_t = root.result.type
        n = views.mode_sizes(root_t.cute_layout)[d]
        if n is DYN or n % v:
            return f"the masked tensor's extent along mode {d} is not a static multiple of {v}"
    return None


def mask_obstacle(view: SSAValue, d: int, v: int, divisibility=None) -> str | None:
    """None when the mask of the masked view `view` is the same over every run of v
    elements along mode d starting at a coordinate multiple of v (the vectors of a
    `layout.load`/`store` whose `vector` is v); otherwise why not, in words.

    A masked tile's mask is `origin + x < bound` per mode, the bound being the extent
    of the view its first masked tile was cut from (`views.MaskMap`). The origins are
    tile coordinates times tile extents, multiples of v wherever v is a legal vector
    (`vector_obstacle` asks every tile extent along d to be one), so the lanes of a
    vector agree exactly when v divides the bound: a static extent, or a dynamic one
    promised a multiple of v (`layout.view {divisible}`, or what `divisibility(value)`
    (AxisInfo) knows of the index operand). Only views `vector_obstacle` analyses
    (tiles of a view or alloc) are answered; others are refused."""
    chain = _chain(view)
    if not chain:
        return "the view is not a tile of a view or alloc"
    first = next((o for o in reversed(chain) if isinstance(o, TileOp) and o.result.type.is_masked), None)
    if first is None:
        return None  # nothing masked along the chain
    source = first.source.type
    n = views.mode_sizes(source.cute_layout)[d]
    if n is not DYN:
        return None if n % v == 0 else f"the masked extent along mode {d} ({n}) is not a multiple of {v}"
    root = chain[-1]
    if first.source is not root.result or not isinstance(root, ViewOp):
        return f"the masked extent along mode {d} is dynamic"
    k = _extent_divisor(root, d, divisibility)
    if k % v:
        return (f"the masked extent along mode {d} is dynamic and known a multiple of {k} only "
                f"(layout.view {{divisible}} or layout.multiple_of can promise more)")
    return None


def _extent_divisor(root: ViewOp, d: int, divisibility) -> int:
    """What the dynamic extent of mode d of the root view is known to be a multiple of:
    its `divisible` promise, or the AxisInfo divisibility of its index operand (1 for a
    mode of several leaves)."""
    lay = root.result.type.cute_layout
    mode = views.modes(lay)[d]
    if len(leaves(mode)) != 1:
        return 1
    # dynamic shape values come first, in the leaves' order
    i = sum(1 for k, m in enumerate(views.modes(lay)) if k < d for n, _ in leaves(m) if n is DYN)
    k = root.divisors()[i]
    if divisibility is not None:
        k = max(k, divisibility(root.dynamic[i]))
    return k


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
    """The ops from `view` to its root: tiles, then a `layout.view` or `layout.alloc`
    (through a `layout.peer_view`: a peer's copy of a buffer lies as the buffer does,
    its alignment the same)."""
    from tilec.dialects.layout_tma import PeerViewOp

    out = []
    v = view
    while True:
        op = v.owner
        if isinstance(op, TileOp):
            out.append(op)
            v = op.source
        elif isinstance(op, PeerViewOp):
            v = op.source
        elif isinstance(op, ViewOp | AllocOp):
            out.append(op)
            return out
        else:
            return []


def _layout_obstacle(
    t: TensorViewType, d: int, v: int, promised: list[int | None] | None = None,
    lanes_masked: bool = False,
) -> str | None:
    lay = shown = t.cute_layout
    if promised is not None:
        lay = _substitute(lay, promised)
    ms = views.modes(lay)
    if d >= len(ms):
        return f"the view has no mode {d}"
    run = mode_contiguity(ms[d])
    # mode d is one stride-1 leaf whose end is the tensor's edge (its extent static or
    # dynamic, a multiple of v or not), where per-lane masks stop a vector
    edge = lanes_masked and len(leaves(ms[d])) == 1 and leaves(ms[d])[0][1] == 1
    if not edge and (run is DYN or run == 0 or run % v):
        return f"mode {d} of {shown} has no stride-1 run that {v} divides"
    # every stride except the stride-1 run of mode d is a multiple of v
    for k, m in enumerate(ms):
        ls = leaves(cute.coalesce(m)) if k == d else leaves(m)
        if k == d:
            ls = ls[1:]
        for s, st in ls:
            if s == 1:
                continue
            if st is DYN or st % v:
                return f"a stride of {shown} ({'dynamic, promised nothing' if st is DYN else st}) is not a multiple of {v}"
    if isinstance(t.layout, ComposedLayoutAttr):
        c = t.layout.data
        unit = 1 << c.swizzle.base
        if (c.swizzle.bits and unit % v) or c.offset % v:  # a swizzle of 0 bits moves nothing
            return f"the swizzle moves units of {unit} elements (offset {c.offset}), which {v} elements would cross"
    return None
