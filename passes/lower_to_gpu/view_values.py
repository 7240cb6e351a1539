"""Run-time views of `lower-to-gpu`: a view is (memref, base offset, run-time layout,
optional mask) while a kernel is lowered; the helpers evaluate run-time layouts
(modes of (size, stride) leaves, each an int or an SSA value) into index arithmetic."""


from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.ir import Attribute, SSAValue

from tilec.dialects import cute, layout, views

from .._gpu_builder import IndexBuilder, IndexValue

VIEW_OPS = layout.VIEW_OPS

# ============================================================================ views

ModeLeaf = tuple
"""One (size, stride) leaf of a mode; each entry an int or a runtime index `IndexValue`."""
ValueLayout = list
"""A layout whose sizes and strides may be runtime values: one list of `ModeLeaf` per mode,
leaves in colexicographic order (the runtime counterpart of a `cute.Layout`)."""


def _map_mask(mask: views.MaskMap, f) -> views.MaskMap:
    """f applied to every mask of the chain (a view op transforms each the same way)."""
    return replace(f(mask), also=_map_mask(mask.also, f) if mask.also is not None else None)


@dataclass(frozen=True)
class View:
    """A view while a kernel is lowered: its storage `mem` (a memref), the `base`
    offset, its run-time `layout` (and `vec` layout of a vectorized view), its `mask`
    (None: every coordinate is inside the tensor), memory `space`, element type `elem`."""

    mem: SSAValue
    base: IndexValue
    layout: ValueLayout
    vec: ValueLayout | None
    mask: views.MaskMap | None
    space: str
    elem: Attribute
    align: int  # bytes the memref's start is aligned to
    swizzle: object = None  # Swizzle of a composed layout
    swz_off: IndexValue = 0
    """Offset added inside the swizzle (storage index base + swizzle(swz_off + inner)):
    the composed layout's offset plus what tile/vectorize/distribute added; static
    unless a sub-view's offset depends on the thread (`ViewOpsLowering._shift`)."""


def _value_layout(cl: cute.Layout, dyn: list | None = None, partial: bool = False) -> ValueLayout:
    """Run-time layout from a CuTe layout; DYN leaves take `dyn` values in order
    (shape leaves first, then stride leaves). With `partial`, DYN leaves left without a
    value stay DYN (for a caller that reads only the static modes)."""
    dyn = list(dyn or [])
    ms = views.modes(cl)
    flat = [views._flat(m) for m in ms]
    it = iter(dyn)

    def value(x):
        if x is not cute.DYN:
            return x
        return next(it, cute.DYN) if partial else next(it)

    shapes = [[value(s) for s, _ in f] for f in flat]
    strides = [[value(d) for _, d in f] for f in flat]
    return [list(zip(s, d)) for s, d in zip(shapes, strides)]


def _vec_text(v: View) -> str:
    """A view's vector layout as CuTe writes it, for messages."""
    if v.vec is None:
        return "scalars"
    shape = tuple(tuple(s for s, _ in m) if len(m) > 1 else m[0][0] for m in v.vec)
    stride = tuple(tuple(d for _, d in m) if len(m) > 1 else m[0][1] for m in v.vec)
    return f"vec {shape}:{stride}".replace(" ", "").replace("vec", "vec ")


def _is_static(value_layout: ValueLayout) -> bool:
    return all(isinstance(s, int) and isinstance(d, int) for m in value_layout for s, d in m)


def _uneven_bounds(b: IndexBuilder, layout: ValueLayout, parts: list[int] | tuple[int, ...]) -> list:
    """Per mode, its extent where `parts` (tile extents, thread counts) may not divide
    it (a mask must check it), else None."""
    out = []
    for m, t in zip(layout, parts):
        n = _mode_size(b, m)
        out.append(None if isinstance(n, int) and n % t == 0 else n)
    return out


def _mode_size(b: IndexBuilder, mode: list) -> IndexValue:
    n: IndexValue = 1
    for s, _ in mode:
        n = b.mul_(n, s)
    return n


def _eval_mode(b: IndexBuilder, mode: list, idx: IndexValue) -> IndexValue:
    """Offset of the 1-D index idx inside one mode (colexicographic over its leaves)."""
    return views.leaves_offset(mode, idx, b.arith)


def _eval_coords(b: IndexBuilder, value_layout: ValueLayout, coords: list) -> IndexValue:
    off: IndexValue = 0
    for m, c in zip(value_layout, coords):
        off = b.add_(off, _eval_mode(b, m, c))
    return off


def _mode_coords(b: IndexBuilder, value_layout: ValueLayout, idx: IndexValue) -> list:
    return views.split_index(len(value_layout), lambda k: _mode_size(b, value_layout[k]), idx, b.arith)


def _lane_coords(b: IndexBuilder, vec: ValueLayout, lane: IndexValue, order: tuple[int, ...] | None) -> list:
    """Per-mode coordinates of lane `lane` of a vector, the modes of `order` taken
    fastest first (None: colexicographic, mode 0 fastest)."""
    if order is None:
        return _mode_coords(b, vec, lane)
    cs = _mode_coords(b, [vec[k] for k in order], lane)
    out: list = [0] * len(vec)
    for k, c in zip(order, cs):
        out[k] = c
    return out


def _lane_order(s: View, d: View) -> tuple[int, ...] | None:
    """The order in which a copy takes the lanes of its vectors: the source vector's
    modes by increasing static stride, when both sides' vectors have the same mode
    sizes; None (colexicographic) otherwise."""
    if s.vec is None or d.vec is None or len(s.vec) != len(d.vec):
        return None
    sizes = [[x for x, _ in m] for m in s.vec]
    if sizes != [[x for x, _ in m] for m in d.vec] or len(s.vec) < 2:
        return None

    def key(k: int):
        ds = [dd for x, dd in s.vec[k] if x != 1]
        return min(ds) if ds and all(isinstance(dd, int) for dd in ds) else 1 << 62

    return tuple(sorted(range(len(s.vec)), key=key))


def _flat_linear(mode: list) -> bool:
    """Whether eval(a | b) == eval(a) + eval(b) for bit-disjoint a, b."""
    for s, _ in mode[:-1]:
        if not isinstance(s, int) or s & (s - 1):
            return False
    return True


