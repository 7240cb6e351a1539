"""Layouts as Python objects: `tilec.Layout` (CuTe's shape:stride layouts, with their
algebra: `compose`, `complement`, divides, products), `tilec.Swizzle` and
`tilec.ComposedLayout` (CuTe's swizzled shared-memory layouts), `tilec.BlockedLayout`,
`tilec.SliceLayout`, `tilec.LinearLayout`, `tilec.NvidiaMmaLayout`,
`tilec.DotOperandLayout` (Gluon's distributed layouts), each printable (`repr` is the
constructor call, `str` the short form) and drawn by `tilec.show`:

    L = tilec.BlockedLayout([1, 4], [4, 8], [2, 1], [1, 0])
    print(tilec.show(L))                          # who holds each element of its 8x32 CTA tile
    print(tilec.show(tilec.SliceLayout(1, L), [8]))
    print(tilec.show(tilec.Layout((4, 8), (8, 1))))   # CuTe's print_layout

The same objects are what the builder and `@tilec.jit` kernels take where a layout is
asked for (compiler/builder_types.py's `encoding_attr`); `tilec.show` also draws the
layout of a traced distributed tensor or view."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tilec.dialects import cute, render
from tilec.dialects.distributed import BlockedLayout
from tilec.dialects.errors import LayoutError
from tilec.support.diagnostics import TilecError


def _unwrap(layout: Any) -> tuple[Any, Sequence[int] | None]:
    """The Python layout object behind a traced Value or an attribute (and the shape
    of a traced tensor), or the object itself."""
    from xdsl.dialects.builtin import TensorType
    from xdsl.ir import Attribute

    from tilec.dialects.layout_attrs import CuteLayoutAttr, TensorViewType, distributed_layout

    t = getattr(layout, "type", None)
    if isinstance(t, TensorViewType):
        return t.cute_layout, None
    if isinstance(t, TensorType):
        return distributed_layout(t.encoding), list(t.get_shape())
    if isinstance(layout, CuteLayoutAttr):
        return layout.data, None
    if isinstance(layout, Attribute):
        return distributed_layout(layout), None
    return layout, None


def show(layout: Any, shape: Sequence[int] | None = None) -> str:
    """A text picture of `layout`: for a CuTe layout (`tilec.Layout`, a view) CuTe's
    `print_layout` grid of offsets; for a distributed layout the thread and register
    holding each element of a tensor of `shape` (default: a blocked layout's CTA tile,
    a traced tensor's own shape), as the Gluon layouts tutorial draws them.

        print(tilec.show(tilec.BlockedLayout([1, 4], [4, 8], [2, 1], [1, 0])))
    """
    obj, own_shape = _unwrap(layout)
    shape = list(shape) if shape is not None else own_shape
    try:
        if isinstance(obj, cute.Layout):
            if obj.rank() == 1:  # one row, as CuTe draws a 1-D layout
                return str(obj) + render.render_cute_layout(cute.make_layout((1, obj.shape), (0, obj.stride)))[
                    len(str(cute.make_layout((1, obj.shape), (0, obj.stride)))):]
            return render.render_cute_layout(obj)
        if shape is None:
            if not isinstance(obj, BlockedLayout):
                raise TilecError(f"show({obj}) needs the tensor's shape: tilec.show(layout, [M, N])")
            shape = list(obj.shape_per_cta)
        return f"{obj} on {'x'.join(map(str, shape))}:\n" + render.render_distributed(obj, shape)
    except LayoutError as e:
        raise TilecError(str(e)) from None
