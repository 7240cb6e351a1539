"""Tile iterators (Mojo's `LayoutTensorIter`): a position over a sequence of tiles, read
with `iter[]` and advanced with `iter += 1` / `iter.next(i)`.

    %it = layout.tiled_iterator %A[%i, %c0] {tile = array<i64: 16, 16>, axis = 1 : i64} : !A
    %t  = layout.iter_get %it : !layout.iter<!T>            // iter[]
    %it1 = layout.iter_next %it : !layout.iter<!T>           // iter += 1
    %it5 = layout.iter_next %it, %k : !layout.iter<!T>       // iter.next(k)

Two sources, as Mojo's:
- `layout.tiled_iterator` (`tensor.tiled_iterator[16, 16, axis=1](i, 0)`): the tiles of a
  view, starting at tile coordinate `coords` and stepping along mode `axis`; tile `p`
  is `layout.tile %A[coords + p * e_axis]` (masked where the tiles do not divide the
  view, and then empty past its end, exactly as `layout.tile`).
- `layout.buffer_iterator` (`LayoutTensorIter[dtype, tile_layout](ptr, size)`): a flat
  buffer (a rank-1 compact view) as an array of tiles of layout `tile`, tile `p` at
  offset `p * cosize(tile)`; `size // cosize(tile)` tiles.
With `circular`, positions wrap around the tiles (Mojo's `circular=True`), otherwise a
position outside them is an error of the reference executor.

An iterator is a value: it may be carried through `scf.for` (Mojo's `iter += 1` in a
loop). The `expand-iterators` pass (passes/expand_iterators.py) rewrites iterators into
positions (index values) and `layout.tile` / `layout.compose` ops; `lower-to-gpu` runs it
first."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, UnitAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    param_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from . import cute, views
from .layout_attrs import CuteLayoutAttr, TensorViewType, tiled_view_type
from .verifier import refusing_layout_errors
from .view_syntax import InferredViewResult, print_operands_types


@irdl_attr_definition
class IterType(ParametrizedAttribute, TypeAttribute):
    """`!layout.iter<!layout.tensor<...>>`: an iterator whose tiles are views of this type."""

    name = "layout.iter"
    tile: TensorViewType = param_def()

    def __init__(self, tile: TensorViewType):
        super().__init__(tile)


def _ints(a: DenseArrayBase) -> tuple[int, ...]:
    return tuple(int(x) for x in a.get_values())


def _iter_type(v) -> IterType:
    if not isinstance(v.type, IterType):
        raise VerifyException(f"expected a !layout.iter, got {v.type}")
    return v.type


class _IteratorSource(InferredViewResult):
    """What `expand-iterators`, the executor and the verifier ask of an iterator's origin."""

    @property
    def is_circular(self) -> bool:
        return self.circular is not None

    def tile_count(self) -> int | None:
        """How many tiles the iterator walks over (None where the extent is dynamic)."""
        raise NotImplementedError


@irdl_op_definition
class TiledIteratorOp(_IteratorSource, IRDLOperation):
    """Mojo's `tensor.tiled_iterator[*tile, axis=a](*coords)`: the tiles of `source` from
    tile coordinate `coords`, stepping along mode `axis`.

        %it = layout.tiled_iterator %A[%i, %c0] {tile = array<i64: 16, 16>, axis = 1 : i64} : !A"""

    name = "layout.tiled_iterator"
    source = operand_def(TensorViewType)
    coords = var_operand_def(IndexType)
    tile = prop_def(DenseArrayBase)
    axis = prop_def(IntegerAttr)
    circular = opt_prop_def(UnitAttr)
    result = result_def(IterType)
    traits = traits_def(Pure())
    SYNTAX: ClassVar[str] = "coords"

    @property
    def axis_value(self) -> int:
        return self.axis.value.data

    @property
    def tile_sizes(self) -> tuple[int, ...]:
        return _ints(self.tile)

    @classmethod
    def result_type(cls, st: TensorViewType, props: dict[str, Attribute]) -> IterType:
        return IterType(tiled_view_type(st, _ints(props["tile"])))

    def tile_count(self) -> int | None:
        n = views.modes(self.source.type.cute_layout)[self.axis_value].size()
        return None if views.is_dynamic(n) else -(-n // self.tile_sizes[self.axis_value])

    def verify_(self) -> None:
        st = self.source.type
        rank = len(views.modes(st.cute_layout))
        if not 0 <= self.axis_value < rank:
            raise VerifyException(f"axis {self.axis_value} of a view of rank {rank}")
        if len(self.coords) != len(self.tile_sizes):
            raise VerifyException(f"{len(self.tile_sizes)} tile extents but {len(self.coords)} coordinates")
        with refusing_layout_errors():
            want = self.result_type(st, {"tile": self.tile})
        if self.result.type != want:
            raise VerifyException(f"the iterator's tiles are {want.tile}, got {self.result.type.tile}")
        if self.is_circular and self.tile_count() is None:
            raise VerifyException("a circular iterator needs a static extent along its axis")


@irdl_op_definition
class BufferIteratorOp(_IteratorSource, IRDLOperation):
    """Mojo's `LayoutTensorIter[dtype, tile_layout](ptr, size)`: a flat buffer (a rank-1
    compact view, e.g. `layout.view` of a pointer or `layout.alloc`) as consecutive tiles
    of layout `tile`.

        %it = layout.buffer_iterator %buf {tile = #layout.cute<(2,2):(2,1)>} : !layout.tensor<i16, #layout.cute<16:1>, rmem>"""

    name = "layout.buffer_iterator"
    source = operand_def(TensorViewType)
    tile = prop_def(CuteLayoutAttr)
    circular = opt_prop_def(UnitAttr)
    result = result_def(IterType)
    traits = traits_def(Pure())
    SYNTAX: ClassVar[str] = ""

    @property
    def tile_layout(self) -> cute.Layout:
        return self.tile.data

    @property
    def step(self) -> int:
        """Elements from one tile to the next (the tile's cosize)."""
        return int(self.tile_layout.cosize())

    @classmethod
    def result_type(cls, st: TensorViewType, props: dict[str, Attribute]) -> IterType:
        return IterType(TensorViewType(st.element_type, props["tile"].data, st.memory_space))

    def tile_count(self) -> int | None:
        return int(self.source.type.cute_layout.size()) // self.step

    def verify_(self) -> None:
        st = self.source.type
        lay = st.cute_layout
        flat = lay.flatten() if lay.is_static() else lay
        if not (lay.is_static() and lay.rank() == 1 and len(flat) == 1
                and (lay.size() == 1 or flat[0].stride == 1)):
            raise VerifyException(f"a buffer iterator walks a compact rank-1 view (N:1, also written (N):(1)), got {lay}")
        if st.is_masked or st.vec_layout is not None:
            raise VerifyException("a buffer iterator walks a plain view (not masked, not vectorized)")
        if not self.tile_layout.is_static():
            raise VerifyException(f"the tile layout must be static, got {self.tile_layout}")
        n = int(lay.size())
        if n % self.step:
            raise VerifyException(f"a buffer of {n} elements is not a whole number of tiles of {self.step}")
        want = self.result_type(st, {"tile": self.tile})
        if self.result.type != want:
            raise VerifyException(f"the iterator's tiles are {want.tile}, got {self.result.type.tile}")


@irdl_op_definition
class IterGetOp(IRDLOperation):
    """Mojo's `iter[]` / `iter.get()`: the tile at the iterator's position.

        %t = layout.iter_get %it : !layout.iter<!T> -> !T"""

    name = "layout.iter_get"
    iter = operand_def(IterType)
    result = result_def(TensorViewType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        it = _iter_type(self.iter)
        if self.result.type != it.tile:
            raise VerifyException(f"the tile of {it} is {it.tile}, got {self.result.type}")

    def print(self, printer: Printer) -> None:
        print_operands_types(printer, self, [self.iter], [self.iter.type], self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> IterGetOp:
        it = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        start = parser.pos
        t = parser.parse_type()
        if not isinstance(t, IterType):
            parser.raise_error(f"layout.iter_get takes a !layout.iter, got {t}", start, parser.pos)
        rt = parser.parse_type() if parser.parse_optional_punctuation("->") is not None else t.tile
        return cls.build(operands=[parser.resolve_operand(it, t)], attributes=attrs, result_types=[rt])


@irdl_op_definition
class IterNextOp(IRDLOperation):
    """Mojo's `iter += 1` (no offset) and `iter.next(k)`: the iterator `offset` tiles on.

        %it1 = layout.iter_next %it : !layout.iter<!T>
        %itk = layout.iter_next %it, %k : !layout.iter<!T>"""

    name = "layout.iter_next"
    iter = operand_def(IterType)
    offset = opt_operand_def(IndexType)
    result = result_def(IterType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.result.type != _iter_type(self.iter):
            raise VerifyException(f"iter_next keeps the iterator's type {self.iter.type}, got {self.result.type}")

    def print(self, printer: Printer) -> None:
        print_operands_types(printer, self, self.operands, [self.iter.type])

    @classmethod
    def parse(cls, parser: Parser) -> IterNextOp:
        it = parser.parse_unresolved_operand()
        off = parser.parse_unresolved_operand() if parser.parse_optional_punctuation(",") is not None else None
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        start = parser.pos
        t = parser.parse_type()
        if not isinstance(t, IterType):
            parser.raise_error(f"layout.iter_next takes a !layout.iter, got {t}", start, parser.pos)
        operands = [parser.resolve_operand(it, t), [parser.resolve_operand(off, IndexType())] if off is not None else []]
        return cls.build(operands=operands, attributes=attrs, result_types=[t])


ITER_OPS = (TiledIteratorOp, BufferIteratorOp, IterGetOp, IterNextOp)
"""Registered in the `layout` dialect (dialects/layout.py)."""
ITER_TYPES = (IterType,)
