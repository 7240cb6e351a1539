"""`layout.make_tensor_like`, `layout.make_fragment_like`: register storage (`rmem`,
one per thread) with the shape of a given view, laid out by CuTe's rules, so that a
copy into it and back keeps each element's coordinate:

    %r = layout.make_fragment_like %t : !layout.tensor<f32, #layout.cute<((2,2),4):((1,16),2)>, gmem>
           -> !layout.tensor<f32, #layout.cute<((2,2),4):((1,2),4)>, rmem>

- `make_tensor_like` (CuTe's `make_tensor_like`, `make_layout_like`): compact, its
  leaves' strides in the order of the view's strides (a stride-0 leaf, a broadcast, keeps
  stride 0 and takes no storage);
- `make_fragment_like` (CuTe's rule for MMA and copy fragments): mode 0 compact
  column-major (stride-0 leaves kept), the other modes compact in the order of their
  strides after it; a view of rank 1 is compact column-major.

Where a stride the order depends on is `?`, the order is column-major. The view must
have static extents (registers are sized at compile time) and scalar elements. The
result is an allocation: `lower-to-gpu` and the executor treat it as the
`layout.alloc` of its type."""

from __future__ import annotations

from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException

from . import cute
from .effects import Allocates
from .errors import LayoutError
from .layout_attrs import TensorViewType
from .layout_roles import enclosing_launch_op


def _ordered(shape, stride) -> tuple:
    """Compact strides for `shape`, leaves in the order of `stride` (column-major if a
    stride is `?`); a leaf of stride 0 or extent 1 gets stride 0."""
    sl, dl = cute.flatten(shape), cute.flatten(stride)
    kept = tuple(1 if d == 0 else s for s, d in zip(sl, dl))
    if any(d is cute.DYN for d in dl):
        order = tuple(range(len(sl)))
    else:
        order = tuple(dl)
    lay = cute.make_ordered_layout(kept, order) if len(sl) > 1 else cute.Layout._mk(kept[0], 1)
    out = cute.flatten(lay.stride)
    return tuple(0 if (s == 1 or d == 0) else o for s, d, o in zip(sl, dl, out))


def tensor_like(lay: cute.Layout) -> cute.Layout:
    """CuTe's `make_layout_like`: the view's shape, compact, in its stride order."""
    return cute.Layout._mk(lay.shape, cute.unflatten(_ordered(lay.shape, lay.stride), lay.shape))


def fragment_like(lay: cute.Layout) -> cute.Layout:
    """CuTe's `make_fragment_like`: mode 0 compact column-major (stride-0 leaves kept),
    the other modes after it in their stride order."""
    if lay.rank() == 1:
        return cute.Layout._mk(lay.shape, cute.compact_col_major(lay.shape))
    ms = lay.modes()
    s0, d0 = ms[0].shape, ms[0].stride
    l0 = cute.flatten(s0)
    z0 = cute.flatten(d0)
    kept0 = tuple(1 if d == 0 else s for s, d in zip(l0, z0))
    first = cute.flatten(cute.compact_col_major(kept0 if len(kept0) > 1 else kept0[0]))
    n0 = 1
    for k in kept0:
        n0 *= k
    rest_shape = tuple(m.shape for m in ms[1:])
    rest_stride = tuple(m.stride for m in ms[1:])
    rest = [x * n0 for x in _ordered(rest_shape, rest_stride)]
    flat = [0 if d == 0 else f for d, f in zip(z0, first)] + rest
    return cute.Layout._mk(lay.shape, cute.unflatten(tuple(flat), lay.shape))


class _LikeOp(IRDLOperation):
    source = operand_def(TensorViewType)
    result = result_def(TensorViewType)
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Allocates())

    @staticmethod
    def rule(lay: cute.Layout) -> cute.Layout:
        raise NotImplementedError

    @classmethod
    def source_error(cls, st: TensorViewType) -> str | None:
        """Why the op cannot make registers like a view of type `st` (None: it can)."""
        lay = st.cute_layout
        if any(s is cute.DYN for s in cute.flatten(lay.shape)):
            return (f"{cls.name} of a view with a dynamic extent ({lay}): registers are sized at "
                    "compile time; tile it first")
        if st.vec_layout is not None:
            return f"{cls.name} of a vectorized view: make it of the scalar view, then vectorize"
        return None

    @classmethod
    def result_type(cls, st: TensorViewType) -> TensorViewType:
        """The rmem view type the op makes for a view of type `st` (LayoutError when
        `source_error`)."""
        err = cls.source_error(st)
        if err is not None:
            raise LayoutError(err)
        return TensorViewType(st.element_type, cls.rule(st.cute_layout), "rmem")

    def __init__(self, source):
        super().__init__(operands=[source], result_types=[self.result_type(source.type)])

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        lay = st.cute_layout
        err = self.source_error(st)
        if err is not None:
            raise VerifyException(err)
        want = self.result_type(st)
        if rt != want:
            raise VerifyException(f"{self.name} of {lay} is {want}, not {rt}")
        if enclosing_launch_op(self) is None:
            raise VerifyException(f"{self.name} makes registers of a thread: it goes inside a layout.launch")


@irdl_op_definition
class MakeTensorLikeOp(_LikeOp):
    """CuTe's `make_tensor_like(t)`: registers of t's shape, compact in t's stride order
    (module docstring):

        %r = layout.make_tensor_like %t : !layout.tensor<f32, #layout.cute<(8,4):(3,48)>, gmem>
               -> !layout.tensor<f32, #layout.cute<(8,4):(1,8)>, rmem>"""

    name = "layout.make_tensor_like"
    rule = staticmethod(tensor_like)


@irdl_op_definition
class MakeFragmentLikeOp(_LikeOp):
    """CuTe's `make_fragment_like(t)`: registers of t's shape, mode 0 compact
    column-major, the other modes after it in t's stride order (module docstring):

        %r = layout.make_fragment_like %t : !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>
               -> !layout.tensor<f32, #layout.cute<(4,8):(1,4)>, rmem>"""

    name = "layout.make_fragment_like"
    rule = staticmethod(fragment_like)


LIKE_OPS = (MakeTensorLikeOp, MakeFragmentLikeOp)
"""Registered in the `layout` dialect (dialects/layout.py)."""
