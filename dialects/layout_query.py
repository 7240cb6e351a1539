"""`layout.rank`, `layout.depth`, `layout.size`, `layout.cosize`: questions about a
view's layout, answered as an `index` (CuTe's `rank(t)`, `depth(t)`, `size(t)`,
`cosize(t)`, and with `mode = I` their per-mode forms `rank<I>(t)`, `size<I>(t)`, ...).

    %n = layout.size %t : !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>
    %m = layout.size %t {mode = 1} : !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>

The layout asked about is the view's layout over its elements (a vectorized view's
elements are its vectors; a swizzled view's inner layout; a masked tile's tile shape):

- rank: the number of top-level modes (1 for an integral layout);
- depth: the nesting depth of the shape (0 for an integer, 1 for a flat tuple);
- size: the number of coordinates, the product of the shape;
- cosize: CuTe's codomain size `1 + sum((s-1)*|d|)` over the leaves.

Rank and depth are always known at compile time; size and cosize are when the layout
(of the mode) has no `?`. `canonicalize` folds a static query to an `arith.constant`;
otherwise the executor and `lower-to-gpu` compute it from the view's run-time layout.
The verifier checks `0 <= mode < rank`."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, i64
from xdsl.ir import Operation
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    opt_prop_def,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait, Pure
from xdsl.utils.exceptions import VerifyException

from . import cute
from .layout_attrs import TensorViewType


def answer(kind: str, lay: cute.Layout) -> int | object:
    """The answer of query `kind` for layout `lay`: an int, or `cute.DYN` when it
    depends on a `?` of the layout."""
    if kind == "rank":
        return lay.rank()
    if kind == "depth":
        return lay.depth()
    if kind == "size":
        return lay.size()
    leaves = list(zip(cute.flatten(lay.shape), cute.flatten(lay.stride)))
    if any(x is cute.DYN for leaf in leaves for x in leaf):
        return cute.DYN
    return lay.cosize()


def queried(lay: cute.Layout, mode: int | None) -> cute.Layout:
    """The layout a query with `mode` asks about: the whole layout, or its mode."""
    return lay if mode is None else lay.modes()[mode]


class _FoldStatic(RewritePattern):
    """A query whose answer is static becomes an `arith.constant`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        from xdsl.dialects import arith

        assert isinstance(op, QueryOp)
        v = op.static_value()
        if v is not None:
            rewriter.replace(op, arith.ConstantOp(IntegerAttr(v, IndexType())))


class _QueryCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        return (_FoldStatic(),)


class QueryOp(IRDLOperation):
    """A question about a view's layout (module docstring); `KIND` names it."""

    KIND: ClassVar[str] = ""
    source = operand_def(TensorViewType)
    mode = opt_prop_def(IntegerAttr)
    result = result_def(IndexType())
    assembly_format = "$source attr-dict `:` type($source)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure(), _QueryCanonicalization())

    def __init__(self, source, mode: int | None = None):
        props = {} if mode is None else {"mode": IntegerAttr(mode, i64)}
        super().__init__(operands=[source], result_types=[IndexType()], properties=props)

    @property
    def mode_index(self) -> int | None:
        return None if self.mode is None else self.mode.value.data

    def layout(self) -> cute.Layout:
        """The layout asked about (the view's, or its mode `mode`)."""
        return queried(self.source.type.cute_layout, self.mode_index)

    def static_value(self) -> int | None:
        """The answer when the type decides it, else None."""
        v = answer(self.KIND, self.layout())
        return None if v is cute.DYN else int(v)

    def verify_(self) -> None:
        lay = self.source.type.cute_layout
        m = self.mode_index
        if m is not None and not 0 <= m < lay.rank():
            raise VerifyException(f"{self.name}: mode {m} out of range for {lay} of rank {lay.rank()}")


@irdl_op_definition
class RankOp(QueryOp):
    """The number of top-level modes of a view's layout (CuTe's `rank(t)`, `rank<I>(t)`):

        %r = layout.rank %t : !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>"""

    name = "layout.rank"
    KIND: ClassVar[str] = "rank"


@irdl_op_definition
class DepthOp(QueryOp):
    """The nesting depth of a view's shape (CuTe's `depth(t)`, `depth<I>(t)`):

        %d = layout.depth %t : !layout.tensor<f32, #layout.cute<((2,2),8):((1,2),4)>, gmem>"""

    name = "layout.depth"
    KIND: ClassVar[str] = "depth"


@irdl_op_definition
class SizeOp(QueryOp):
    """The number of elements of a view (CuTe's `size(t)`, `size<I>(t)`), at run time
    when an extent is `?`:

        %n = layout.size %t {mode = 0} : !layout.tensor<f32, #layout.cute<(?,8):(8,1)>, gmem>"""

    name = "layout.size"
    KIND: ClassVar[str] = "size"


@irdl_op_definition
class CosizeOp(QueryOp):
    """The codomain size of a view's layout, `1 + sum((s-1)*|d|)` (CuTe's `cosize(t)`):
    the storage the view reaches from its base.

        %c = layout.cosize %t : !layout.tensor<f32, #layout.cute<(4,8):(1,5)>, smem>"""

    name = "layout.cosize"
    KIND: ClassVar[str] = "cosize"


QUERY_OPS = (RankOp, DepthOp, SizeOp, CosizeOp)
"""Registered in the `layout` dialect (dialects/layout.py)."""
