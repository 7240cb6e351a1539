"""Compute ops of the `layout` dialect on distributed tensors: comparisons that give
tensors of `i1`, `select` on such tensors, integer casts, scans, reductions with a
combiner region, gathers, and the shape ops (permute, reshape, join, split).

xDSL's `arith.cmpi`/`arith.cmpf` type their result as a scalar `i1` whatever their
operands, and its `extsi`, `extui`, `trunci`, `sitofp`, `uitofp`, `fptosi` and
`fptoui` accept only scalars, so a distributed tensor cannot be compared, selected
from or cast between integer and float types with `arith`. These ops are the same
functions elementwise on distributed tensors (every operand and the result in one
distributed layout), with `arith`'s syntax:

    %p = layout.cmpf olt, %a, %b : tensor<128x128xf32, #b>
    %m = layout.select %p, %a, %c : tensor<128x128xi1, #b>, tensor<128x128xf32, #b>
    %w = layout.extsi %x : tensor<128xi8, #s> to tensor<128xi32, #s>

`arith.extf`, `arith.truncf`, `arith.maximumf`, ... and the `math` functions already
accept tensors and are used as they are. `layout.scan` is Triton's `associative_scan`
with a built-in combiner (add, mul, max, min), inclusive, forward or reverse, and
`layout.scan_region` the same with a combiner region over several tensors (Triton's
`tt.scan`); `layout.reduce_region` reduces several tensors together with a combiner
region (an argmax keeps a value and its index); `layout.gather` picks elements along an
axis.

The shape ops take their result layout from the source's linear layout, as Gluon's
do: `layout.permute` permutes its dimensions, `layout.reshape` keeps each basis's
row-major offset, `layout.join` adds a minor dimension of 2 in register bit 0 and
`layout.split` takes it apart. The verifier checks the result layout written in the
IR against that (as linear layouts, so a blocked or a linear layout may be written),
so these ops never move data: where another layout is wanted, a `convert_layout`
before or after says so.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    BoolAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, Pure

from .layout_attrs import SliceLayoutAttr
from .layout_attrs import distributed_type as _dist
from .verifier import check as _check
from .view_syntax import print_operands_types


def _same_layout(a: TensorType, b: TensorType, what: str) -> None:
    _check(tuple(a.get_shape()) == tuple(b.get_shape()) and a.encoding == b.encoding,
           f"{what} must have the same shape and distributed layout: {a} and {b}")


class TensorToTensorOp(IRDLOperation):
    """A pure op of one distributed tensor `source` giving one distributed tensor
    `result`, written `%r = OP %x {props} : SRC -> RESULT` (`permute` and `reshape`
    here, dialects/layout.py's `convert_layout`, `expand_dims`, `broadcast`, `reduce`).
    A subclass adds properties and its verifier, no operand or result: xDSL collects
    a subclass's fields before its base's, so an added operand would come before
    `source`."""

    source = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())


# =========================================================================== comparisons


class _CompareOp(IRDLOperation):
    """`arith.cmpi`/`cmpf` elementwise: a tensor of i1 in the operands' layout."""

    PREDICATES: ClassVar[list[str]]
    SCALAR: ClassVar[type[Operation]]

    _T: ClassVar = VarConstraint("_T", AnyAttr())
    predicate = prop_def(IntegerAttr)
    lhs = operand_def(_T)
    rhs = operand_def(_T)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, lhs: SSAValue, rhs: SSAValue, predicate: str):
        t: TensorType = lhs.type  # type: ignore[assignment]
        super().__init__(
            operands=[lhs, rhs],
            result_types=[TensorType(i1, t.get_shape(), t.encoding)],
            properties={"predicate": IntegerAttr(self.PREDICATES.index(predicate), i64)},
        )

    @property
    def predicate_name(self) -> str:
        return self.PREDICATES[self.predicate.value.data]

    def verify_(self) -> None:
        t, r = _dist(self.lhs), _dist(self.result)
        _check(0 <= self.predicate.value.data < len(self.PREDICATES), "unknown predicate")
        _check(r.element_type == i1, f"the result is a tensor of i1, got {r}")
        _same_layout(t, r, "operands and result")
        self.check_element(t.element_type)

    def check_element(self, e: Attribute) -> None:
        raise NotImplementedError

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.predicate_name},")
        print_operands_types(printer, self, [self.lhs, self.rhs], [self.lhs.type])

    @classmethod
    def parse(cls, parser: Parser) -> _CompareOp:
        pos = parser.pos
        name = parser.parse_identifier(" predicate")
        if name not in cls.PREDICATES:
            parser.raise_error(f"unknown predicate '{name}' (one of {', '.join(cls.PREDICATES)})",
                               pos, parser.pos)
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, TensorType):
            parser.raise_error(f"'{cls.name}' compares distributed tensors, got {t}")
        a, b = parser.resolve_operand(lhs, t), parser.resolve_operand(rhs, t)
        op = cls(a, b, name)
        op.attributes.update(attrs)
        return op


@irdl_op_definition
class CmpiOp(_CompareOp):
    """Integer comparison of two distributed tensors (predicates as `arith.cmpi`)."""

    name = "layout.cmpi"
    PREDICATES: ClassVar[list[str]] = list(arith.CMPI_COMPARISON_OPERATIONS)
    SCALAR: ClassVar[type[Operation]] = arith.CmpiOp

    def check_element(self, e: Attribute) -> None:
        _check(isinstance(e, IntegerType), f"layout.cmpi compares integers, got {e}")


@irdl_op_definition
class CmpfOp(_CompareOp):
    """Float comparison of two distributed tensors (predicates as `arith.cmpf`)."""

    name = "layout.cmpf"
    PREDICATES: ClassVar[list[str]] = list(arith.CMPF_COMPARISON_OPERATIONS)
    SCALAR: ClassVar[type[Operation]] = arith.CmpfOp

    def check_element(self, e: Attribute) -> None:
        _check(isinstance(e, AnyFloat), f"layout.cmpf compares floats, got {e}")


@irdl_op_definition
class SelectOp(IRDLOperation):
    """Elementwise `cond ? lhs : rhs` with a tensor of i1 as `cond` (Gluon `where`)."""

    name = "layout.select"
    _T: ClassVar = VarConstraint("_T", AnyAttr())
    cond = operand_def(TensorType)
    lhs = operand_def(_T)
    rhs = operand_def(_T)
    result = result_def(_T)
    assembly_format = "$cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def __init__(self, cond: SSAValue, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[cond, lhs, rhs], result_types=[lhs.type])

    def verify_(self) -> None:
        c, r = _dist(self.cond), _dist(self.result)
        _check(c.element_type == i1, f"the condition is a tensor of i1, got {c}")
        _same_layout(c, r, "the condition and the values")


# =========================================================================== casts


class _CastOp(IRDLOperation):
    """An `arith` cast elementwise on a distributed tensor: same shape and layout."""

    SCALAR: ClassVar[type[Operation]]
    input = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, result_type: TensorType):
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        s, r = _dist(self.input), _dist(self.result)
        _same_layout(s, r, "source and result")
        self.check_elements(s.element_type, r.element_type)

    def check_elements(self, a: Attribute, b: Attribute) -> None:
        raise NotImplementedError


class _IntCast(_CastOp):
    """An integer-to-integer cast: the result `WIDER` (extensions) or narrower (truncation)."""

    WIDER: ClassVar[bool]

    def check_elements(self, a, b):
        _check(isinstance(a, IntegerType) and isinstance(b, IntegerType),
               f"{self.name} casts integers to integers, got {a} to {b}")
        wa, wb = a.width.data, b.width.data  # type: ignore[attr-defined]
        _check(wb > wa if self.WIDER else wb < wa,
               f"{self.name}: the result must be {'wider' if self.WIDER else 'narrower'} than the source ({a} to {b})")


@irdl_op_definition
class ExtSIOp(_IntCast):
    """Sign-extend each integer (`arith.extsi`)."""

    name = "layout.extsi"
    SCALAR: ClassVar[type[Operation]] = arith.ExtSIOp
    WIDER: ClassVar[bool] = True


@irdl_op_definition
class ExtUIOp(_IntCast):
    """Zero-extend each integer (`arith.extui`)."""

    name = "layout.extui"
    SCALAR: ClassVar[type[Operation]] = arith.ExtUIOp
    WIDER: ClassVar[bool] = True


@irdl_op_definition
class TruncIOp(_IntCast):
    """Keep the low bits of each integer (`arith.trunci`)."""

    name = "layout.trunci"
    SCALAR: ClassVar[type[Operation]] = arith.TruncIOp
    WIDER: ClassVar[bool] = False


class _IntToFloat(_CastOp):
    def check_elements(self, a, b):
        _check(isinstance(a, IntegerType) and isinstance(b, AnyFloat),
               f"{self.name} casts integers to floats, got {a} to {b}")


class _FloatToInt(_CastOp):
    def check_elements(self, a, b):
        _check(isinstance(a, AnyFloat) and isinstance(b, IntegerType),
               f"{self.name} casts floats to integers, got {a} to {b}")


@irdl_op_definition
class SIToFPOp(_IntToFloat):
    """Signed integer to float, rounding to nearest (`arith.sitofp`)."""

    name = "layout.sitofp"
    SCALAR: ClassVar[type[Operation]] = arith.SIToFPOp


@irdl_op_definition
class UIToFPOp(_IntToFloat):
    """Unsigned integer to float, rounding to nearest (`arith.uitofp`)."""

    name = "layout.uitofp"
    SCALAR: ClassVar[type[Operation]] = arith.UIToFPOp


@irdl_op_definition
class FPToSIOp(_FloatToInt):
    """Float to signed integer, rounding toward zero (`arith.fptosi`)."""

    name = "layout.fptosi"
    SCALAR: ClassVar[type[Operation]] = arith.FPToSIOp


@irdl_op_definition
class FPToUIOp(_FloatToInt):
    """Float to unsigned integer, rounding toward zero (`arith.fptoui`)."""

    name = "layout.fptoui"
    SCALAR: ClassVar[type[Operation]] = arith.FPToUIOp


ELEMENTWISE_OPS = (CmpiOp, CmpfOp, SelectOp, ExtSIOp, ExtUIOp, TruncIOp, SIToFPOp, UIToFPOp,
                   FPToSIOp, FPToUIOp)
"""Ops that apply a scalar `arith` op (their `SCALAR`; select: arith.select) to each
element: `lower-to-gpu` emits that op once per register."""


# =========================================================================== scans

SCAN_KINDS = ("add", "mul", "max", "min")


@irdl_op_definition
class ScanOp(IRDLOperation):
    """Inclusive scan along `axis` with `kind` (add, mul, max, min); `reverse` scans
    from the last element to the first. The result has the source's type (Triton
    `associative_scan` / `cumsum` / `cumprod`; Gluon `associative_scan`).

        %c = layout.scan %x {axis = 1 : i64, kind = "add"} : tensor<4x1024xf32, #b>"""

    name = "layout.scan"
    _T: ClassVar = VarConstraint("_T", AnyAttr())
    source = operand_def(_T)
    axis = prop_def(IntegerAttr)
    kind = prop_def(StringAttr)
    reverse = opt_prop_def(BoolAttr)
    result = result_def(_T)
    assembly_format = "$source attr-dict `:` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    @property
    def is_reverse(self) -> bool:
        return self.reverse is not None and bool(self.reverse.value.data)

    def verify_(self) -> None:
        s = _dist(self.source)
        ax = self.axis.value.data
        _check(self.kind.data in SCAN_KINDS, f"kind must be one of {', '.join(SCAN_KINDS)}")
        _check(0 <= ax < len(s.get_shape()), f"axis {ax} out of range")


# =========================================================================== shape ops


@irdl_op_definition
class PermuteOp(TensorToTensorOp):
    """The tensor with its dimensions permuted: dim d of the result is dim `order[d]` of
    the source (Gluon `permute`; `trans` is order [1, 0]). The result's layout must be
    the source's with its dimensions permuted alike (checked on their linear layouts,
    so it may be written as a blocked or a linear layout): every thread keeps its
    registers, and no data moves.

        %t = layout.permute %x {order = array<i64: 1, 0>} : tensor<64x128xf32, #row> -> tensor<128x64xf32, #col>"""

    name = "layout.permute"
    order = prop_def(DenseArrayBase)

    @property
    def permutation(self) -> tuple[int, ...]:
        return tuple(self.order.get_values())

    def verify_(self) -> None:
        from .layout_attrs import to_linear

        s, r = _dist(self.source), _dist(self.result)
        order = self.permutation
        shape = list(s.get_shape())
        _check(sorted(order) == list(range(len(shape))),
               f"order must be a permutation of 0..{len(shape) - 1}, got {list(order)}")
        _check(list(r.get_shape()) == [shape[o] for o in order] and r.element_type == s.element_type,
               f"the result must be the source with its dims permuted: {[shape[o] for o in order]}")
        src = to_linear(s.encoding, shape)
        got = to_linear(r.encoding, list(r.get_shape()))
        _check(all([tuple(b[o] for o in order) for b in src.get_bases(d)]
                   == [tuple(b) for b in got.get_bases(d)] for d in ("register", "lane", "warp")),
               "the result layout must be the source layout with its dims permuted (no data moves); "
               "convert_layout before or after the permute")


def _flat(c, shape) -> int:
    """The row-major offset of coordinate c in `shape`."""
    off = 0
    for x, n in zip(c, shape):
        off = off * n + x
    return off


def flat_bases(ll, shape) -> dict[str, list[int]]:
    """Each basis of the linear layout of a tensor of `shape` as a row-major offset: with
    power-of-two extents the coordinates' bits take disjoint bits of the offset, so the
    offsets XOR as the bases do."""
    return {d: [_flat(b, shape) for b in ll.get_bases(d)] for d in ("register", "lane", "warp")}


@irdl_op_definition
class ReshapeOp(TensorToTensorOp):
    """The same elements in row-major order with another shape (Gluon / Triton
    `reshape` without `can_reorder`). The result's layout must give each thread the
    elements it already holds (checked on the linear layouts: each basis maps to the
    same row-major offset), so no data moves; otherwise convert_layout before or after.

        %r = layout.reshape %x : tensor<32x16xf32, #a> -> tensor<512xf32, #b>"""

    name = "layout.reshape"

    def verify_(self) -> None:
        from .layout_attrs import to_linear

        s, r = _dist(self.source), _dist(self.result)
        ss, rs = list(s.get_shape()), list(r.get_shape())
        n = 1
        for x in ss:
            n *= x
        m = 1
        for x in rs:
            m *= x
        _check(n == m and s.element_type == r.element_type,
               f"reshape keeps the element type and the number of elements: {ss} -> {rs}")
        _check(all(x & (x - 1) == 0 for x in ss + rs), "reshape of power-of-two extents only")
        _check(flat_bases(to_linear(s.encoding, ss), ss) == flat_bases(to_linear(r.encoding, rs), rs),
               "the result layout must give each thread the elements it holds (no data moves); "
               "convert_layout before or after the reshape")


def _joined_bases(ll) -> dict[str, list[tuple[int, ...]]]:
    """The bases of the join of two tensors of layout `ll` along a new minor dim of 2:
    the new dim is register bit 0; every other basis gets a 0 for it (Triton's join)."""
    rank = len(ll.out_dims)
    out = {d: [(*b, 0) for b in ll.get_bases(d)] for d in ("register", "lane", "warp")}
    out["register"].insert(0, (0,) * rank + (1,))
    return out


def _check_joined(pair: TensorType, joined: TensorType, what: str) -> None:
    from .layout_attrs import to_linear

    shape = list(pair.get_shape())
    _check(list(joined.get_shape()) == shape + [2] and joined.element_type == pair.element_type,
           f"{what} adds a minor dimension of 2: {shape + [2]}")
    want = _joined_bases(to_linear(pair.encoding, shape))
    got = to_linear(joined.encoding, shape + [2])
    _check(all(want[d] == [tuple(b) for b in got.get_bases(d)] for d in want),
           "the joined layout must hold the new minor dimension in register bit 0 and otherwise "
           "be the halves' layout (no data moves)")


@irdl_op_definition
class JoinOp(IRDLOperation):
    """Two tensors of one shape and layout joined along a new minor dimension of 2
    (Gluon/Triton `join`): the result's layout holds the new dimension in register bit
    0 and is otherwise the operands' layout (checked on linear layouts), so each thread
    interleaves its own registers and no data moves.

        %j = layout.join %a, %b : tensor<64xf32, #s> -> tensor<64x2xf32, #j>"""

    name = "layout.join"
    _T: ClassVar = VarConstraint("_T", AnyAttr())
    lhs = operand_def(_T)
    rhs = operand_def(_T)
    result = result_def(TensorType)
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        a, b = _dist(self.lhs), _dist(self.rhs)
        _check(a == b, f"join takes two tensors of one type, got {a} and {b}")
        _check_joined(a, _dist(self.result), "join")


@irdl_op_definition
class SplitOp(IRDLOperation):
    """The inverse of `layout.join`: a tensor whose minor dimension is 2, held in
    register bit 0, split into its two halves (Gluon/Triton `split`); no data moves.

        %a, %b = layout.split %j : tensor<64x2xf32, #j> -> tensor<64xf32, #s>"""

    name = "layout.split"
    source = operand_def(TensorType)
    lhs = result_def(TensorType)
    rhs = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, half: TensorType):
        super().__init__(operands=[source], result_types=[half, half])

    @classmethod
    def parse(cls, parser: Parser) -> SplitOp:
        src = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        st = parser.parse_type()
        parser.parse_punctuation("->")
        half = parser.parse_type()
        op = cls(parser.resolve_operand(src, st), half)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        print_operands_types(printer, self, [self.source], [self.source.type], self.lhs.type)

    def verify_(self) -> None:
        a, b = _dist(self.lhs), _dist(self.rhs)
        _check(a == b, "split gives two tensors of one type")
        src = _dist(self.source)
        _check(src.get_shape()[-1] == 2, "split takes a tensor whose minor dimension is 2")
        _check_joined(a, src, "the split source")


# =========================================================================== gathers


@irdl_op_definition
class GatherOp(IRDLOperation):
    """Elements of `source` picked along `axis` by a tensor of integer indices (Gluon /
    Triton `gather`): result[.., j, ..] = source[.., index[.., j, ..], ..], the other
    coordinates the same. `index` has the source's rank and shape except along `axis`;
    the result has the index's shape and layout. An index outside [0, extent) is
    undefined behaviour (the reference executor reports it).

        %g = layout.gather %src[%idx] {axis = 1 : i64} : tensor<8x64xf32, #s>, tensor<8x32xi32, #i> -> tensor<8x32xf32, #i>"""

    name = "layout.gather"
    source = operand_def(TensorType)
    index = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    result = result_def(TensorType)
    assembly_format = ("$source `[` $index `]` attr-dict `:` type($source) `,` type($index) "
                       "`->` type($result)")
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        s, i, r = _dist(self.source), _dist(self.index), _dist(self.result)
        ax = self.axis.value.data
        ss, si = list(s.get_shape()), list(i.get_shape())
        _check(0 <= ax < len(ss), f"axis {ax} out of range")
        _check(isinstance(i.element_type, IntegerType), f"the index is a tensor of integers, got {i}")
        _check(len(si) == len(ss) and all(a == b for d, (a, b) in enumerate(zip(ss, si)) if d != ax),
               f"the index must have the source's shape except along axis {ax}: {ss} and {si}")
        _check(list(r.get_shape()) == si and r.encoding == i.encoding and r.element_type == s.element_type,
               "the result has the index's shape and layout and the source's element type")


# =========================================================================== reductions with a region


@irdl_op_definition
class ReduceRegionOp(IRDLOperation):
    """Reduce one or more distributed tensors together along `axis` with a combiner
    region (Triton's `tt.reduce`, Gluon `reduce(..., combine_fn)`): the region takes two
    elements of each operand (the accumulated ones, then the new ones) and yields one of
    each; it must be associative and commutative, since the GPU combines in a tree. Each
    result's layout is the slice of the operands' layout along `axis`. An argmax:

        %m, %i = layout.reduce_region %x, %idx {axis = 1 : i64} : tensor<4x128xf32, #b>, tensor<4x128xi32, #b> -> tensor<4xf32, #r>, tensor<4xi32, #r> {
        ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
          %gt = arith.cmpf ogt, %b, %a : f32
          %eq = arith.cmpf oeq, %b, %a : f32
          %lt = arith.cmpi slt, %bi, %ai : i32
          %tie = arith.andi %eq, %lt : i1
          %take = arith.ori %gt, %tie : i1
          %v = arith.select %take, %b, %a : f32
          %j = arith.select %take, %bi, %ai : i32
          layout.yield %v, %j : f32, i32
        }"""

    name = "layout.reduce_region"
    srcs = var_operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    res = var_result_def(TensorType)
    combiner = region_def("single_block")
    assembly_format = "$srcs attr-dict `:` type($srcs) `->` type($res) $combiner"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        first, ax, shape = _region_operands(self, "reduce_region")
        elems = []
        for s, r in zip(self.srcs, self.res):
            st = _region_operand(s, first)
            rt = _dist(r)
            _check(list(rt.get_shape()) == shape[:ax] + shape[ax + 1:] and rt.element_type == st.element_type,
                   "each result is its operand without `axis`")
            _check(isinstance(rt.encoding, SliceLayoutAttr) and rt.encoding.dim_index == ax
                   and rt.encoding.parent == first.encoding,
                   f"the result layout must be #layout.slice<{{dim = {ax}, parent = <the operands' layout>}}>")
            elems.append(st.element_type)
        _check_combiner(self.combiner.block, elems)


@irdl_op_definition
class ScanRegionOp(IRDLOperation):
    """Inclusive scan of one or more distributed tensors together along `axis` with a
    combiner region (Triton's `tt.scan`, `associative_scan(..., combine_fn)`): element
    i of each result combines elements 0..i of the operands. The region takes two
    elements of each operand (the accumulated ones, earlier along the axis, then the
    new ones) and yields one of each; it must be associative, not necessarily
    commutative (the GPU combines in a tree, earlier elements always on the left).
    `reverse` scans from the last element to the first (the scan of the axis read
    backwards). The results have the operands' types. A running argmax:

        %m, %i = layout.scan_region %x, %idx {axis = 1 : i64} : tensor<4x128xf32, #b>, tensor<4x128xi32, #b> -> tensor<4x128xf32, #b>, tensor<4x128xi32, #b> {
        ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
          %gt = arith.cmpf ogt, %b, %a : f32
          %v = arith.select %gt, %b, %a : f32
          %j = arith.select %gt, %bi, %ai : i32
          layout.yield %v, %j : f32, i32
        }"""

    name = "layout.scan_region"
    srcs = var_operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    reverse = opt_prop_def(BoolAttr)
    res = var_result_def(TensorType)
    combiner = region_def("single_block")
    assembly_format = "$srcs attr-dict `:` type($srcs) `->` type($res) $combiner"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    @property
    def is_reverse(self) -> bool:
        return self.reverse is not None and bool(self.reverse.value.data)

    def verify_(self) -> None:
        first, _, _ = _region_operands(self, "scan_region")
        elems = []
        for s, r in zip(self.srcs, self.res):
            st = _region_operand(s, first)
            _check(r.type == st, f"each result has its operand's type: {st}, got {r.type}")
            elems.append(st.element_type)
        _check_combiner(self.combiner.block, elems)


def _region_operands(op: ReduceRegionOp | ScanRegionOp, what: str) -> tuple[TensorType, int, list[int]]:
    """The checks a `reduce_region` or `scan_region` (`what`) begins with: one result
    per operand, `axis` within the first operand's rank. (The first operand's type, the
    axis, its shape.)"""
    _check(len(op.srcs) >= 1 and len(op.srcs) == len(op.res), f"{what} has one result per operand")
    first = _dist(op.srcs[0])
    ax = op.axis.value.data
    shape = list(first.get_shape())
    _check(0 <= ax < len(shape), f"axis {ax} out of range")
    return first, ax, shape


def _region_operand(s: SSAValue, first: TensorType) -> TensorType:
    """The type of an operand of a `reduce_region` or `scan_region`: the first's shape and layout."""
    st = _dist(s)
    _check(list(st.get_shape()) == list(first.get_shape()) and st.encoding == first.encoding,
           "the operands must have one shape and distributed layout")
    return st


def _check_combiner(block, elems: list) -> None:
    """A combiner region takes two elements of each operand and yields one of each."""
    _check([a.type for a in block.args] == elems + elems,
           f"the combiner takes two elements of each operand: ({', '.join(map(str, elems + elems))})")
    last = block.last_op
    _check(isinstance(last, YieldOp) and [v.type for v in last.operands] == elems,
           f"the combiner must end with layout.yield of ({', '.join(map(str, elems))})")


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The values a `layout.reduce_region` or `layout.scan_region` combiner gives."""

    name = "layout.yield"
    values = var_operand_def()
    assembly_format = "$values attr-dict `:` type($values)"
    traits = traits_def(IsTerminator(), HasParent(ReduceRegionOp, ScanRegionOp))


COMPUTE_OPS = (*ELEMENTWISE_OPS, ScanOp, PermuteOp, ReshapeOp, JoinOp, SplitOp, GatherOp, ReduceRegionOp,
               ScanRegionOp, YieldOp)
"""Registered in the `layout` dialect (dialects/layout.py)."""
