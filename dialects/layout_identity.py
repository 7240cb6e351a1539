"""Identity (counting) tensors, the basis of CuTe's predication of partial tiles
(`make_identity_tensor(shape)`): a view whose element at a coordinate is that
coordinate, tiled, distributed and sliced by the same view ops as a view of memory,
and read for the coordinates to compare with the bounds.

    %cA = layout.make_identity_tensor : !layout.tensor<tuple<index, index>, #layout.cute<(1000,1003):(1,1000)>, coord>
    %cT = layout.tile %cA[%bx, %by] {tile = array<i64: 32, 32>} : !C -> !CT      // local_tile
    %cF = layout.distribute %cT, %tid {threads = #layout.cute<(8,4):(1,8)>} : !CT -> !CF
    %m, %n = layout.read_coord %cF[%i] : !CF -> index, index               // tCcC(i)
    %ok_m = arith.cmpi slt, %m, %M : index                                  // elem_less
    %ok_n = arith.cmpi slt, %n, %N : index
    %ok = arith.andi %ok_m, %ok_n : i1

The type is a `!layout.tensor` in the space `coord` (no memory) whose element type
is the coordinate, `tuple<index, ...>` with one index per mode of the shape; its layout
is the compact column-major layout of the shape (an element's offset is the
colexicographic index of its coordinate where that coordinate lies inside the shape),
so that every view op gives the result type it gives a view of memory of that
layout, masks included.

The coordinate of an element is computed as CuTe computes it, with a stride that is a
basis vector per mode (`(M,N):(1@0,1@1)`): for each mode k of the shape the
*component layout* `(M,N)` with stride 1 on mode k and 0 on the others goes through the
view ops from `make_identity_tensor` to the read (`views.tile_layout`,
`distribute_layout`, `slice_leaves`, `cute.composition` for `layout.partition`,
`divide`, `compose`: the algebra of views of memory) and component k of the
coordinate is its offset. Coordinates past the shape (the elements of a partial tile
past the tensor's edge) are exact, so that `coordinate < shape` is the predicate of
the element. The read's view must come from `make_identity_tensor` through those view
ops (`identity_chain` says why not otherwise), each giving the component layouts the
shape of its result type (the verifier checks it).

`make_identity_tensor` takes one index operand per `?` extent (the layout's `?`
strides follow from them) and has a flat shape. Memory ops refuse a coord view
(`effects.Accesses`); `lower-to-gpu` makes the coordinates index arithmetic."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IndexType, TupleType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from . import cute, views
from .errors import LayoutError
from .layout_access import coordinate_form, leaf_multipliers
from .layout_attrs import CuteLayoutAttr, TensorViewType
from .verifier import refusing_layout_errors

index = IndexType()


def identity_layout(shape: Sequence[Any]) -> cute.Layout:
    """The layout of `make_identity_tensor(shape)`: compact column-major (a stride after
    a `?` extent is `?`)."""
    strides, acc = [], 1
    for s in shape:
        strides.append(acc)
        acc = cute.DYN if (acc is cute.DYN or s is cute.DYN) else acc * s
    if len(shape) == 1:
        return cute.Layout._mk(shape[0], 1)
    return cute.make_layout(tuple(shape), tuple(strides))


def identity_type(shape: Sequence[Any]) -> TensorViewType:
    """`!layout.tensor<tuple<index, ...>, (shape):(col-major), coord>`."""
    return TensorViewType(TupleType([IndexType()] * len(shape)), CuteLayoutAttr(identity_layout(shape)), "coord")


def _shape_text(shape: Sequence[Any]) -> str:
    return "(" + ",".join("?" if s is cute.DYN else str(s) for s in shape) + ")"


def is_coord_view(t: Any) -> bool:
    return isinstance(t, TensorViewType) and t.memory_space == "coord"


@irdl_op_definition
class MakeIdentityTensorOp(IRDLOperation):
    """CuTe's `make_identity_tensor(shape)`: the view whose element at each coordinate
    of `shape` is that coordinate (module docstring); one index operand per `?` extent:

        %c = layout.make_identity_tensor(%m, %n) : !layout.tensor<tuple<index, index>, #layout.cute<(?,?):(1,?)>, coord>"""

    name = "layout.make_identity_tensor"
    extents = var_operand_def(index)
    result = result_def(TensorViewType)
    assembly_format = "(`(` $extents^ `)`)? attr-dict `:` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def __init__(self, shape: Sequence[int | None], extents: Sequence[SSAValue] = ()):
        """`shape`: the extents, None where an index operand of `extents` gives one."""
        shp = [cute.DYN if s is None else s for s in shape]
        super().__init__(operands=[list(extents)], result_types=[identity_type(shp)])

    @property
    def shape(self) -> tuple:
        lay = self.result.type.cute_layout
        return tuple(m.shape for m in views.modes(lay))

    def verify_(self) -> None:
        rt = self.result.type
        if not is_coord_view(rt):
            raise VerifyException(f"an identity tensor is a view in the space coord, not {rt.memory_space}")
        if rt.vec_layout is not None or rt.is_masked:
            raise VerifyException("an identity tensor is neither vectorized nor masked")
        shape = self.shape
        if any(isinstance(s, tuple) for s in shape):
            raise VerifyException(f"an identity tensor has a flat shape, one extent per mode, not {rt.cute_layout}")
        if any(isinstance(s, int) and s < 1 for s in shape):
            raise VerifyException(f"the extents of an identity tensor are positive, got {rt.cute_layout}")
        arity = len(rt.element_type.types)  # type: ignore[attr-defined]
        if arity != len(shape):
            raise VerifyException(f"an identity tensor of rank {len(shape)} has coordinates of {len(shape)} "
                                  f"indices, not {rt.element_type}")
        want = identity_layout(shape)
        if rt.cute_layout != want:
            raise VerifyException(f"the layout of an identity tensor of shape {_shape_text(shape)} is the compact "
                                  f"column-major {want}, not {rt.cute_layout}")
        ndyn = sum(s is cute.DYN for s in shape)
        if len(self.extents) != ndyn:
            raise VerifyException(f"shape {_shape_text(shape)} has {ndyn} dynamic extent(s) but {len(self.extents)} "
                                  "index operand(s) were given")


CHAIN_OPS = ("layout.tile", "layout.distribute", "layout.slice", "layout.partition", "layout.divide",
             "layout.compose")
"""The view ops an identity tensor's coordinates go through (by name: dialects/layout.py
defines them and registers this module)."""


def identity_chain(v: SSAValue) -> tuple[MakeIdentityTensorOp, list[Operation]]:
    """The `make_identity_tensor` a coord view comes from and the view ops between
    them (first to last); a LayoutError where it does not come from one through the
    view ops of CHAIN_OPS."""
    chain: list[Operation] = []
    while True:
        op = v.owner
        if isinstance(op, MakeIdentityTensorOp):
            return op, chain[::-1]
        if isinstance(op, Operation) and op.name in CHAIN_OPS:
            chain.append(op)
            v = op.source
            continue
        what = f"'{op.name}'" if isinstance(op, Operation) else "a block argument"
        raise LayoutError(
            f"the coordinates of a view made by {what} are not supported: read those of a view made from "
            "layout.make_identity_tensor by view ops (tile, distribute, slice, partition, divide, compose)")


def _mode_indices(t: TensorViewType, idx: Sequence[Any], ar: views.IndexArith) -> list:
    """One 1-D index per top-level mode of a view of type `t` from a coordinate in any
    of `layout.read`'s flat forms (dialects/layout_access.py)."""
    lay = t.cute_layout
    form = coordinate_form(lay, len(idx))
    if form == "modes":
        return list(idx)
    if form == "linear":
        ms = views.modes(lay)
        return views.split_index(len(ms), lambda k: ms[k].size(), idx[0], ar)
    out, k = [], 0
    for ws in leaf_multipliers(lay):
        acc: Any = 0
        for j, w in enumerate(ws):
            acc = ar.add(acc, ar.mul(idx[k + j], w))
        out.append(acc)
        k += len(ws)
    return out


def _check_composed(op: Any, lay: cute.Layout, got: cute.Layout, compose) -> None:
    """That `got`, what `compose` (the op's layout function) makes of the component
    layout `lay`, is `lay` applied to what it makes of a compact layout of `lay`'s
    shape (the linear index into `lay`'s shape): a composition is a sum over its modes,
    which a component layout (not linear across its modes) may break where a mode of
    the tiler runs across a mode of the shape at an offset. A LayoutError then."""
    if not (lay.is_static() and got.is_static()):
        raise LayoutError(f"the coordinates of {op.name} of an identity tensor of run-time extents are not "
                          "supported")
    linear = compose(cute.Layout._mk(lay.shape, cute.compact_col_major(lay.shape)))
    n = int(got.size())
    want = views.eval_layout(lay, views.offsets(linear))
    if n != int(linear.size()) or not np.array_equal(views.offsets(got), want):
        raise LayoutError(f"the coordinates of {op.name} are not supported here: its layout runs across a mode "
                          f"of the identity tensor's {lay.shape} at an offset (coordinates are not a sum over its "
                          "modes)")


def coordinates(root: MakeIdentityTensorOp, chain: Sequence[Operation], value, view_type: TensorViewType,
                idx: Sequence[Any], ar: views.IndexArith = views.NUMERIC, check: bool = False) -> list:
    """The coordinate (one value per mode of the identity tensor) of the element at
    `idx` of the view `chain` makes from `root` (module docstring): per mode k, the
    offset of the component layout of stride 1 on mode k through the chain. `value(v)`
    gives the run-time value of an index operand (a tile coordinate, a thread id, a
    slice index); the arithmetic is `ar`'s (NumPy's in the executor, IR in the
    lowering), as the view ops' own. `check` (the verifier) checks each composition
    (`_check_composed`)."""
    shape = root.shape
    rank = len(shape)
    comps = [cute.make_layout(tuple(shape), tuple(int(j == k) for j in range(rank))) if rank > 1
             else cute.Layout._mk(shape[0], 1) for k in range(rank)]
    offs: list[Any] = [0] * rank
    for vop in chain:
        op: Any = vop  # a layout.tile, layout.distribute or layout.slice (CHAIN_OPS)
        for k in range(rank):
            lay = comps[k]
            if op.name == "layout.tile":
                for m, c, t in zip(views.modes(lay), op.coords, op.tile_sizes):
                    offs[k] = ar.add(offs[k], views.leaves_offset(views._flat(m), ar.mul(value(c), t), ar))
                comps[k] = views.tile_layout(lay, op.tile_sizes)[0]
            elif op.name == "layout.distribute":
                tco = views.thread_coord(op.thread_layout, value(op.tid))
                for m, c in zip(views.modes(lay), tco):
                    offs[k] = ar.add(offs[k], views.leaves_offset(views._flat(m), c, ar))
                comps[k] = views.distribute_layout(lay, op.thread_layout)[0]
            elif op.name == "layout.slice":
                it = iter(op.coords)
                kept = []
                for leaf in op.leaves(lay):
                    if leaf.p == views.WILDCARD:
                        kept.append(leaf.sub)
                        continue
                    c = value(next(it)) if leaf.p == views.DYNAMIC else leaf.p
                    offs[k] = ar.add(offs[k], views.leaves_offset(views._flat(leaf.sub), c, ar))
                comps[k] = views.kept_modes(kept)
            else:
                if op.name == "layout.partition":  # composition(view, tv)(tid, _)
                    def compose(x, tv=op.tv.data):
                        return cute.composition(x, tv)
                elif op.name == "layout.divide":
                    def compose(x, o=op):
                        return type(o).divided(x, o.kind.data, o.tiler)
                else:  # layout.compose
                    def compose(x, o=op):
                        return type(o).composed(x, o.tiler)
                comp = compose(lay)
                if check:
                    _check_composed(op, lay, comp, compose)
                if op.name == "layout.partition":
                    offs[k] = ar.add(offs[k], views.leaves_offset(views._flat(comp[0]), value(op.tid), ar))
                    comp = comp[1]
                comps[k] = comp
            want = op.result.type.cute_layout
            if comps[k].shape != want.shape:
                raise LayoutError(f"the coordinates of {op.name}'s result {want} are not supported: its "
                                  f"coordinate layout groups the shape as {comps[k].shape}")
    per_mode = _mode_indices(view_type, idx, ar)
    out = []
    for k in range(rank):
        o = offs[k]
        for m, i in zip(views.modes(comps[k]), per_mode):
            o = ar.add(o, views.leaves_offset(views._flat(m), i, ar))
        out.append(o)
    return out


@irdl_op_definition
class ReadCoordOp(IRDLOperation):
    """The coordinate an element of an identity tensor's view holds (CuTe's `tCcC(i)`),
    one index per mode of the identity tensor, at a coordinate of `layout.read`'s flat
    forms (one index per mode, one for the whole view, one per leaf):

        %m, %n = layout.read_coord %cF[%i] : !layout.tensor<tuple<index, index>, #layout.cute<(4,8):(8,8000)>, coord> -> index, index

    Elements past the identity tensor's shape give their coordinates too (module
    docstring): `coordinate < shape` is CuTe's `elem_less` predicate."""

    name = "layout.read_coord"
    view = operand_def(TensorViewType)
    indices = var_operand_def(index)
    coords = var_result_def(index)
    assembly_format = "$view `[` $indices `]` attr-dict `:` type($view) `->` type($coords)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def __init__(self, view: SSAValue, indices: Sequence[SSAValue]):
        t = view.type
        n = len(t.element_type.types) if is_coord_view(t) else 0  # type: ignore[union-attr]
        super().__init__(operands=[view, list(indices)], result_types=[[IndexType()] * n])

    def verify_(self) -> None:
        t = self.view.type
        if not is_coord_view(t):
            raise VerifyException(f"layout.read_coord reads the coordinates of an identity tensor (a coord "
                                  f"view, layout.make_identity_tensor), not of {t}: read memory with layout.read")
        n = len(t.element_type.types)
        if len(self.coords) != n:
            raise VerifyException(f"an element of {t} is a coordinate of {n} indices, not {len(self.coords)}")
        ms = views.modes(t.cute_layout)
        if coordinate_form(t.cute_layout, len(self.indices)) == "linear" and len(ms) > 1 and any(
                m.size() is cute.DYN for m in ms[:-1]):
            raise VerifyException(f"one index for the whole of {t.cute_layout} needs static extents: give one "
                                  "index per mode")
        with refusing_layout_errors():
            root, chain = identity_chain(self.view)
            # the coordinate layouts, statically (the run-time values do not change them)
            coordinates(root, chain, lambda v: 0, t, [0] * len(self.indices), check=True)


IDENTITY_OPS = (MakeIdentityTensorOp, ReadCoordOp)
"""Registered in the `layout` dialect (dialects/layout.py)."""
