"""Attributes and types of the `layout` dialect.

Attributes wrap the pure-Python algebra (``cute``, ``swizzle``, ``distributed``,
``linear``); each has a custom syntax that parses and prints back identically:

    #layout.cute<(4,(2,3)):(1,(4,8))>            CuTe shape:stride layout, `?` is dynamic
    #layout.swizzle<3,4,3>                        CuTe Swizzle<B,M,S>
    #layout.composed<swizzle<3,4,3> o 0 o (8,64):(64,1)>
                                                  swizzle o offset o layout
    #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [16, 2],
                     warpsPerCTA = [2, 2], order = [1, 0]}>
    #layout.slice<{dim = 0, parent = #layout.blocked<...>}>
    #layout.linear<{register = [[0, 1]], lane = [[1, 0], ...], warp = [...], block = []}>

Types:

    !layout.ptr<f32>              pointer to global memory (alignment = element size)
    !layout.ptr<f32, align 16>    ... whose address is a multiple of 16 bytes
    !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
    !layout.tensor<f32, #layout.cute<(16,4):(16,4)>, gmem, vec #layout.cute<(1,4):(16,1)>>
    !layout.tensor<f32, #layout.cute<(64,64):(4096,1)>, gmem, masked>
    !layout.tensor<tuple<index, index>, #layout.cute<(8,8):(1,8)>, coord>

A tensor is a *view*: storage (a pointer or an allocation) plus a layout from
coordinates to element offsets, in a memory space (`gmem`, `smem`, `rmem`). A vectorized
view's elements are vectors: the view's layout maps the outer coordinate to the offset
of the vector's first element and `vec` maps the lane coordinate to the offset within
the vector. A `masked` view is a tile that may lie partly outside its tensor; which of
its elements exist is known at run time (see `layout.tile`). A view in the space
`coord` is an identity tensor (`layout.make_identity_tensor`): no storage, its elements
are their own coordinates (`tuple<index, ...>`), read with `layout.read_coord`.

Distributed values (data held in registers across the threads of a block, Gluon style)
are builtin tensors whose encoding is a distributed layout:
`tensor<64x16xf32, #layout.blocked<...>>`. Elementwise arithmetic on them is `arith`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    IndexType,
    IntAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    TensorType,
    TupleType,
)
from xdsl.ir import Attribute, Data, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from . import cute, views
from .dtypes import FLOAT_TYPES, element_of
from .distributed import BlockedLayout, SliceLayout
from .encoding import AlgebraEncoding, DistributedEncoding
from .errors import LayoutError
from .swizzle import ComposedLayout, Swizzle

# --------------------------------------------------------------------------- helpers


MAX_TUPLE_DEPTH = 32
"""Deepest nesting of a layout's shape or stride that the parser accepts. CuTe layouts
nest a few levels; the algebra recurses once per level, so a bound keeps every pass
far from Python's recursion limit."""


def parse_int_tuple(parser: AttrParser, depth: int = 0) -> object:
    """Parse a CuTe IntTuple (`4`, `?`, `(4,(2,?))`) from xDSL tokens; a parse error
    when it nests deeper than MAX_TUPLE_DEPTH."""
    pos = parser.pos
    if parser.parse_optional_punctuation("(") is not None:
        if depth >= MAX_TUPLE_DEPTH:
            parser.raise_error(
                f"layout nested deeper than {MAX_TUPLE_DEPTH} levels", pos, parser.pos
            )
        items = [parse_int_tuple(parser, depth + 1)]
        while parser.parse_optional_punctuation(",") is not None:
            items.append(parse_int_tuple(parser, depth + 1))
        parser.parse_punctuation(")")
        return tuple(items)
    if parser.parse_optional_punctuation("?") is not None:
        return cute.DYN
    return parser.parse_integer(allow_boolean=False)


MAX_INDEX = 2**63 - 1
"""Largest value of the 64-bit signed index arithmetic that lowered code does: every
static size, stride and offset (in bytes, for a view) must lie in [-MAX_INDEX,
MAX_INDEX], so that no address computation of a kernel can wrap around."""


def _offset_span(layout: cute.Layout) -> tuple[int, int]:
    """(lowest, highest) offset of `layout` over its static modes (modes with a `?`
    extent or stride are left out: their values are bound at run time)."""
    lo = hi = 0
    for s, d in zip(cute.flatten(layout.shape), cute.flatten(layout.stride)):
        if s is cute.DYN or d is cute.DYN:
            continue
        span = (s - 1) * d
        if span > 0:
            hi += span
        else:
            lo += span
    return lo, hi


def index_range_error(layout: cute.Layout, scale: int = 1, extra: int = 0) -> str | None:
    """Why `layout` cannot be computed with 64-bit indices, or None when it can: a
    static extent or stride beyond MAX_INDEX, a static size beyond it, or offsets
    (times `scale`, plus `extra` more) outside [-MAX_INDEX, MAX_INDEX]."""
    leaves = [*cute.flatten(layout.shape), *cute.flatten(layout.stride)]
    for v in leaves:
        if v is not cute.DYN and abs(v) > MAX_INDEX:
            return f"{v} does not fit in a 64-bit index"
    n = 1
    for s in cute.flatten(layout.shape):
        if s is not cute.DYN:
            n *= s
    if n > MAX_INDEX:
        return f"{layout} has {n} elements, more than a 64-bit index can count"
    lo, hi = _offset_span(layout)
    if (hi + extra) * scale > MAX_INDEX or lo * scale < -MAX_INDEX:
        unit = " bytes" if scale > 1 else ""
        return (
            f"the offsets of {layout} span [{lo * scale}, {(hi + extra) * scale}]{unit}, "
            "beyond 64-bit index arithmetic"
        )
    return None


def parse_cute_layout(parser: AttrParser) -> cute.Layout:
    """Parse `shape:stride` in CuTe notation; a bare shape means LayoutLeft strides.
    A layout that 64-bit index arithmetic cannot evaluate (`index_range_error`) is a
    parse error."""
    pos = parser.pos
    shape = parse_int_tuple(parser)
    stride = None
    if parser.parse_optional_punctuation(":") is not None:
        stride = parse_int_tuple(parser)
    try:
        layout = cute.make_layout(shape, stride)
    except LayoutError as e:
        parser.raise_error(f"invalid layout: {e}", pos, parser.pos)
    if (why := index_range_error(layout)) is not None:
        parser.raise_error(f"layout too large: {why}", pos, parser.pos)
    return layout


def _parse_int_list(parser: AttrParser) -> list[int]:
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
    )


def _print_int_list(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _verified(parser: AttrParser, pos: int, cls, params: Sequence[Attribute]) -> Sequence[Attribute]:
    """`params`, after checking that they make a valid `cls` (a ParametrizedAttribute):
    a verifier's error becomes a parse error at `pos`, so that it has a line and column."""
    try:
        cls.new(params)
    except VerifyException as e:
        parser.raise_error(str(e), pos, parser.pos)
    return params


def _parse_struct(parser: AttrParser, fields: dict[str, object]) -> dict[str, object]:
    """Parse `{key = value, ...}` where `fields` maps key -> parse function."""
    out: dict[str, object] = {}

    def one():
        pos = parser.pos
        key = parser.parse_identifier()
        if key not in fields:
            parser.raise_error(
                f"unknown field '{key}', expected one of {', '.join(fields)}", pos
            )
        parser.parse_punctuation("=")
        out[key] = fields[key]()  # type: ignore[operator]

    parser.parse_comma_separated_list(parser.Delimiter.BRACES, one)
    missing = [k for k in fields if k not in out]
    if missing:
        parser.raise_error(f"missing field(s) {', '.join(missing)}")
    return out


# --------------------------------------------------------------------------- layouts


@irdl_attr_definition
class CuteLayoutAttr(Data[cute.Layout]):
    """A CuTe hierarchical shape:stride layout, e.g. `#layout.cute<(4,(2,3)):(1,(4,8))>`."""

    name = "layout.cute"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> cute.Layout:
        with parser.in_angle_brackets():
            return parse_cute_layout(parser)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data}>")

    @property
    def layout(self) -> cute.Layout:
        return self.data


@irdl_attr_definition
class SwizzleAttr(Data[Swizzle]):
    """CuTe `Swizzle<B,M,S>`: `#layout.swizzle<3,4,3>`."""

    name = "layout.swizzle"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Swizzle:
        with parser.in_angle_brackets():
            return _parse_swizzle_args(parser)

    def print_parameter(self, printer: Printer) -> None:
        s = self.data
        printer.print_string(f"<{s.bits},{s.base},{s.shift}>")


def _parse_swizzle_args(parser: AttrParser) -> Swizzle:
    pos = parser.pos
    b = parser.parse_integer(allow_boolean=False)
    parser.parse_punctuation(",")
    m = parser.parse_integer(allow_boolean=False)
    parser.parse_punctuation(",")
    s = parser.parse_integer(allow_boolean=False)
    if min(b, m) >= 0 and b + m + abs(s) > 63:
        parser.raise_error(
            f"invalid swizzle: Swizzle<{b},{m},{s}> moves bits past bit 63 of an offset",
            pos,
            parser.pos,
        )
    try:
        return Swizzle(b, m, s)
    except LayoutError as e:
        parser.raise_error(f"invalid swizzle: {e}", pos, parser.pos)


COPY_STRATEGIES = ("tma", "async", "simt", "gather", "realign", "box")
"""How a `layout.copy` moves its data, when the program says so or the `copy-strategy`
pass chose (CuTe's TiledCopy with its Copy_Atom, Mojo's TileTensor copier): `tma` (a
TMA bulk tensor copy, global <-> shared), `async` (`cp.async` per thread, global ->
shared), `simt` (loads and stores by threads, never asynchronous), `gather` (a
whole-tensor copy between global views: each thread writes a run of consecutive
destination elements and gathers their sources; the `tile` pass writes it as
pointer tensors, passes/_gather_tile.py), `realign` (a whole-tensor copy of rows
contiguous in both views whose starts differ modulo 16 bytes: aligned 16-byte
destination chunks from aligned source vectors, realigned in registers by
`layout.funnel_shift`; passes/_realign_tile.py), `box` (a whole-tensor copy of 1-byte
elements whose dst-contiguous mode continues a short src-contiguous one, or the
reverse, or of 1- or 2-byte elements with both contiguous modes long: boxes of contiguous src runs through shared memory; written with its flavour,
`box<flat>`, `box<rows>` or `box<cols>`, `BOX_FLAVOURS`; passes/_copy_cost.box_flavour
says which)."""

BOX_FLAVOURS = ("flat", "rows", "cols", "tiles", "span")
"""The shapes of a box strategy (passes/_copy_cost.box_flavour): `flat` (the dst's
contiguous mode long: a box is the short src-contiguous mode whole by a chunk of it),
`rows` (the dst's contiguous mode short, 16 to 64: the box is both short modes whole
by a chunk of the dst's next mode), `cols` (the mirror of `flat`: the src-contiguous
mode long, the dst-contiguous one short), `tiles` (both long, elements of 1 or 2
bytes by default, up to 8, whose rows are not 16-byte aligned: a box is a tile of both, with the source
runs the destination's last chunks reach past it), `span` (rows shorter than a chunk, contiguous in both
views, at a source pitch whose gaps are shorter than a chunk, into a destination compact over the rows:
a box is one contiguous source span of rows, gaps included)."""


def copy_strategy_kind(strategy: str) -> str:
    """A strategy's kind: `box` for `box<flat>`, the strategy itself otherwise."""
    return strategy.split("<", 1)[0]


def is_copy_strategy(strategy: str) -> bool:
    """Whether `strategy` names one: one of `COPY_STRATEGIES` other than `box`, or
    `box<F>` with F one of `BOX_FLAVOURS`."""
    if strategy in COPY_STRATEGIES:
        return strategy != "box"
    return any(strategy == f"box<{f}>" for f in BOX_FLAVOURS)


@irdl_attr_definition
class CopyStrategyAttr(Data[str]):
    """`#layout.copy_strategy<tma>`, `<async>`, `<simt>`, `<gather>`, `<realign>` or
    `<box<flat>>` (`<box<rows>>`, `<box<cols>>`; `COPY_STRATEGIES`, `BOX_FLAVOURS`): the
    strategy of a `layout.copy`, a value as CuTe's TiledCopy is. Its data is the
    strategy as written inside the brackets (`box<flat>`); `kind` drops the flavour,
    `flavour` is it (None for the strategies that have none)."""

    name = "layout.copy_strategy"

    @property
    def kind(self) -> str:
        return copy_strategy_kind(self.data)

    @property
    def flavour(self) -> str | None:
        return self.data[len(self.kind) + 1 : -1] if "<" in self.data else None

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> str:
        with parser.in_angle_brackets():
            pos = parser.pos
            kind = parser.parse_identifier()
            if kind not in COPY_STRATEGIES:
                parser.raise_error(f"unknown copy strategy {kind!r}: expected one of {', '.join(COPY_STRATEGIES)}",
                                   pos, parser.pos)
            if kind != "box":
                return kind
            parser.parse_punctuation("<")
            fpos = parser.pos
            flavour = parser.parse_identifier()
            if flavour not in BOX_FLAVOURS:
                parser.raise_error(f"unknown box flavour {flavour!r}: expected one of {', '.join(BOX_FLAVOURS)}",
                                   fpos, parser.pos)
            parser.parse_punctuation(">")
            return f"box<{flavour}>"

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data}>")


@irdl_attr_definition
class ComposedLayoutAttr(Data[ComposedLayout]):
    """`swizzle o offset o layout`, CuTe's ComposedLayout as used for shared memory:
    `#layout.composed<swizzle<3,4,3> o 0 o (8,64):(64,1)>`."""

    name = "layout.composed"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> ComposedLayout:
        with parser.in_angle_brackets():
            parser.parse_keyword("swizzle")
            parser.parse_punctuation("<")
            sw = _parse_swizzle_args(parser)
            parser.parse_punctuation(">")
            parser.parse_keyword("o")
            offset = parser.parse_integer(allow_boolean=False)
            parser.parse_keyword("o")
            inner = parse_cute_layout(parser)
            return ComposedLayout(sw, offset, inner)

    def print_parameter(self, printer: Printer) -> None:
        c = self.data
        s = c.swizzle
        printer.print_string(
            f"<swizzle<{s.bits},{s.base},{s.shift}> o {c.offset} o {c.layout}>"
        )

    @property
    def layout(self) -> ComposedLayout:
        return self.data


MemoryLayoutAttr = CuteLayoutAttr | ComposedLayoutAttr
"""What a view may carry: a plain CuTe layout or a swizzled composed layout."""


def inner_layout(attr: Attribute) -> cute.Layout:
    """The CuTe layout of a view layout attribute (the inner layout of a composed one)."""
    if isinstance(attr, CuteLayoutAttr):
        return attr.data
    if isinstance(attr, ComposedLayoutAttr):
        return attr.data.layout
    raise VerifyException(f"expected a #layout.cute or #layout.composed, got {attr}")


@irdl_attr_definition
class BlockedLayoutAttr(AlgebraEncoding, Data[BlockedLayout]):
    """Gluon `BlockedLayout(size_per_thread, threads_per_warp, warps_per_cta, order)`.

    As in Gluon, every entry of `sizePerThread`, `threadsPerWarp` and `warpsPerCTA` is a
    power of two, and so is every extent of a distributed tensor (`tensor<...>` with a
    distributed layout: blocked, slice, linear, MMA): a row of 1000 elements is a masked
    tile of 1024 (`layout.tile ... masked`, `layout.load ... other`)."""

    name = "layout.blocked"


    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> BlockedLayout:
        pos = parser.pos
        with parser.in_angle_brackets():
            f = _parse_struct(
                parser,
                {
                    "sizePerThread": lambda: _parse_int_list(parser),
                    "threadsPerWarp": lambda: _parse_int_list(parser),
                    "warpsPerCTA": lambda: _parse_int_list(parser),
                    "order": lambda: _parse_int_list(parser),
                },
            )
        try:
            layout = BlockedLayout(
                f["sizePerThread"], f["threadsPerWarp"], f["warpsPerCTA"], f["order"]
            )
        except (LayoutError, ValueError) as e:
            parser.raise_error(f"invalid blocked layout: {e}", pos, parser.pos)
        if (why := _blocked_size_error(layout)) is not None:
            parser.raise_error(f"invalid blocked layout: {why}", pos, parser.pos)
        return layout

    def print_parameter(self, printer: Printer) -> None:
        b = self.data
        printer.print_string(
            "<{sizePerThread = "
            + _print_int_list(b.size_per_thread)
            + ", threadsPerWarp = "
            + _print_int_list(b.threads_per_warp)
            + ", warpsPerCTA = "
            + _print_int_list(b.warps_per_cta)
            + ", order = "
            + _print_int_list(b.order)
            + "}>"
        )


MAX_REGISTERS_PER_THREAD = 1 << 12
"""Most elements one thread may hold in a blocked layout's `sizePerThread`."""

MAX_THREADS_PER_BLOCK = 1024
"""CUDA's limit on the threads of a block."""


def _blocked_size_error(b: BlockedLayout) -> str | None:
    """Why a blocked layout cannot describe a CUDA block, or None: a warp of other
    than 32 lanes (threadsPerWarp's product), more than
    MAX_REGISTERS_PER_THREAD elements per thread, or more than MAX_THREADS_PER_BLOCK
    threads (threadsPerWarp x warpsPerCTA)."""
    if b.lanes_per_warp != 32:
        return (f"threadsPerWarp={list(b.threads_per_warp)} gives a warp {b.lanes_per_warp} lanes; "
                "an NVIDIA warp has 32")
    regs = threads = 1
    for x in b.size_per_thread:
        regs *= x
    for t, w in zip(b.threads_per_warp, b.warps_per_cta):
        threads *= t * w
    if regs > MAX_REGISTERS_PER_THREAD:
        return (
            f"sizePerThread={list(b.size_per_thread)} gives each thread {regs} elements, "
            f"more than {MAX_REGISTERS_PER_THREAD}"
        )
    if threads > MAX_THREADS_PER_BLOCK:
        return f"{threads} threads per block, more than {MAX_THREADS_PER_BLOCK}"
    return None


@irdl_attr_definition
class SliceLayoutAttr(DistributedEncoding, ParametrizedAttribute):
    """Gluon `SliceLayout(dim, parent)`: the parent layout with dimension `dim` removed."""

    name = "layout.slice"
    dim: IntAttr = param_def()
    parent: Attribute = param_def()

    def encoding_rank(self) -> int:
        return distributed_rank(self.parent) - 1

    def linear_layout(self, shape: Sequence[int]):
        return self.layout.to_linear(list(shape))

    def thread_count(self) -> int:
        return threads_per_block(self.parent)

    def algebra(self) -> SliceLayout:
        return self.layout

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        pos = parser.pos
        with parser.in_angle_brackets():
            f = _parse_struct(
                parser,
                {
                    "dim": lambda: parser.parse_integer(allow_boolean=False),
                    "parent": parser.parse_attribute,
                },
            )
        return _verified(parser, pos, cls, (IntAttr(f["dim"]), f["parent"]))  # type: ignore[arg-type]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{{dim = {self.dim.data}, parent = ")
        printer.print_attribute(self.parent)
        printer.print_string("}>")

    @property
    def dim_index(self) -> int:
        return self.dim.data

    def verify(self) -> None:
        if not isinstance(self.parent, DistributedLayoutAttr):
            raise VerifyException(
                f"#layout.slice parent must be a distributed layout, got {self.parent}"
            )
        rank = distributed_rank(self.parent)
        if not 0 <= self.dim_index < rank:
            raise VerifyException(
                f"#layout.slice dim {self.dim_index} out of range for a rank-{rank} parent"
            )

    @property
    def layout(self) -> SliceLayout:
        return SliceLayout(self.dim_index, distributed_layout(self.parent))


@dataclass(frozen=True)
class LinearBases:
    """The bases of a `#layout.linear` attribute; output sizes come from the tensor shape."""

    register: tuple[tuple[int, ...], ...]
    lane: tuple[tuple[int, ...], ...]
    warp: tuple[tuple[int, ...], ...]
    block: tuple[tuple[int, ...], ...]

    def rank(self) -> int | None:
        for group in (self.register, self.lane, self.warp, self.block):
            if group:
                return len(group[0])
        return None


@irdl_attr_definition
class LinearLayoutAttr(DistributedEncoding, Data[LinearBases]):
    """A linear layout over GF(2): bases of register, lane, warp and block bits."""

    name = "layout.linear"

    def encoding_rank(self) -> int:
        r = self.data.rank()
        if r is None:
            raise VerifyException("#layout.linear with no bases has no rank")
        return r

    def linear_layout(self, shape: Sequence[int]):
        from .linear import LinearLayout

        d = self.data
        return LinearLayout(
            {
                "register": [list(b) for b in d.register],
                "lane": [list(b) for b in d.lane],
                "warp": [list(b) for b in d.warp],
                "block": [list(b) for b in d.block],
            },
            list(shape),
        )

    def thread_count(self) -> int:
        return (1 << len(self.data.lane)) * (1 << len(self.data.warp))

    def algebra(self):
        """A `LinearLayout` over the smallest power-of-two shape that holds the bases
        (fitted to a tensor's shape by `linear_layout`)."""
        return _natural_linear(self.data)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> LinearBases:
        def bases():
            return tuple(
                tuple(v)
                for v in parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, lambda: _parse_int_list(parser)
                )
            )

        with parser.in_angle_brackets():
            f = _parse_struct(
                parser,
                {"register": bases, "lane": bases, "warp": bases, "block": bases},
            )
        lb = LinearBases(f["register"], f["lane"], f["warp"], f["block"])  # type: ignore[arg-type]
        rank = lb.rank()
        for group in (lb.register, lb.lane, lb.warp, lb.block):
            for b in group:
                if len(b) != rank:
                    parser.raise_error("#layout.linear bases must all have the same rank")
        return lb

    def print_parameter(self, printer: Printer) -> None:
        d = self.data

        def fmt(group):
            return "[" + ", ".join(_print_int_list(b) for b in group) + "]"

        printer.print_string(
            f"<{{register = {fmt(d.register)}, lane = {fmt(d.lane)}, "
            f"warp = {fmt(d.warp)}, block = {fmt(d.block)}}}>"
        )


DistributedLayoutAttr = DistributedEncoding
"""Every distributed-layout attribute (blocked, slice, linear, and the tensor-core
layouts of `mma_layouts`): the classes that implement `encoding.DistributedEncoding`."""


def _encoding(attr: Attribute) -> DistributedEncoding:
    if not isinstance(attr, DistributedEncoding):
        raise VerifyException(f"not a distributed layout: {attr}")
    return attr


def distributed_rank(attr: Attribute) -> int:
    """Rank of the tensors a distributed layout applies to."""
    return _encoding(attr).encoding_rank()


def distributed_layout(attr: Attribute):
    """The algebra object of a distributed layout attr: a `BlockedLayout`, a
    `SliceLayout`, an MMA layout, or for `#layout.linear` a `LinearLayout` over the
    smallest power-of-two shape that holds its bases (fitted to a tensor's shape by
    `to_linear`)."""
    return _encoding(attr).algebra()


def _natural_linear(d: LinearBases):
    from .linear import LinearLayout

    rank = d.rank() or 0
    return LinearLayout(
        {"register": d.register, "lane": d.lane, "warp": d.warp, "block": d.block},
        None if rank else [],
    )


def threads_per_block(attr: Attribute) -> int:
    """Threads a distributed layout spans (32 * warps)."""
    return _encoding(attr).thread_count()


def to_linear(attr: Attribute, shape: Sequence[int]):
    """The linear form of a distributed layout applied to `shape` (a LinearLayout)."""
    return _encoding(attr).linear_layout(shape)


# --------------------------------------------------------------------------- types

ELEMENT_TYPES = (*FLOAT_TYPES, IntegerType)
"""The xDSL classes of element types (any integer width: `element_bytes` checks the width)."""


def element_bytes(t: Attribute) -> int:
    """Size in bytes of a supported element type (dialects/dtypes.py's table)."""
    e = element_of(t)
    if e is not None:
        return e.bits // 8
    raise VerifyException(
        f"unsupported element type {t}: expected f16, bf16, f32, f64, i8, i16, i32, i64, f8E4M3FN or f8E5M2"
    )


@irdl_attr_definition
class AsyncTokenType(ParametrizedAttribute, TypeAttribute):
    """`!layout.async_token`: the completion of one `layout.copy_async`, which a
    `layout.async_wait` can name (later asynchronous copies, TMA and mbarriers, extend
    it)."""

    name = "layout.async_token"


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """`!layout.ptr<f32>` / `!layout.ptr<f32, align 16>`: a pointer to global memory."""

    name = "layout.ptr"
    element_type: Attribute = param_def()
    align: StringAttr = param_def()

    def __init__(self, element_type: Attribute, align: int | None = None):
        a = element_bytes(element_type) if align is None else align
        super().__init__(element_type, StringAttr(str(a)))

    @property
    def alignment(self) -> int:
        return int(self.align.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        pos = parser.pos
        with parser.in_angle_brackets():
            et = parser.parse_type()
            align = None
            if parser.parse_optional_punctuation(",") is not None:
                parser.parse_keyword("align")
                align = parser.parse_integer(allow_boolean=False)
        try:
            a = element_bytes(et) if align is None else align
        except VerifyException as e:
            parser.raise_error(str(e), pos, parser.pos)
        return _verified(parser, pos, cls, (et, StringAttr(str(a))))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.element_type)
        if self.alignment != element_bytes(self.element_type):
            printer.print_string(f", align {self.alignment}")
        printer.print_string(">")

    def verify(self) -> None:
        eb = element_bytes(self.element_type)
        a = self.alignment
        if a <= 0 or a & (a - 1) or a % eb:
            raise VerifyException(
                f"alignment {a} must be a power of two and a multiple of the element size {eb}"
            )


MEMORY_SPACES = ("gmem", "smem", "rmem", "coord")
"""`coord` is no memory: the space of an identity (counting) tensor, whose element at a
coordinate is that coordinate (`layout.make_identity_tensor`, dialects/layout_identity.py)."""


def coordinate_element_error(t: Attribute) -> str | None:
    """Why `t` cannot be the element type of a `coord` view (None: it can): its elements
    are coordinates, a `tuple<index, ...>` of one index per mode of the identity tensor."""
    if isinstance(t, TupleType) and len(t.types) >= 1 and all(isinstance(x, IndexType) for x in t.types):
        return None
    return f"the elements of a coord tensor are coordinates (tuple<index, ...>), not {t}"


def _view_layout(attr: Attribute) -> Attribute:
    """The layout a view carries for `attr`: a layout attribute with a `view_layout()`
    (such as `#layout.nvmma_shared`) stands for the `#layout.composed` it returns. Such
    a composed layout's data may offer `attr_text()` (how the view prints it) and
    `view_error(element_type, space)` (what the view's verifier checks)."""
    to_view = getattr(attr, "view_layout", None)
    return to_view() if to_view is not None else attr


@irdl_attr_definition
class TensorViewType(ParametrizedAttribute, TypeAttribute):
    """`!layout.tensor<T, LAYOUT, SPACE[, vec VECLAYOUT][, masked]>`: a view of memory."""

    name = "layout.tensor"
    element_type: Attribute = param_def()
    layout: Attribute = param_def()
    space: StringAttr = param_def()
    vec: Attribute = param_def()  # CuteLayoutAttr or NoneAttr
    masked: StringAttr = param_def()  # "masked" or ""

    def __init__(
        self,
        element_type: Attribute,
        layout: Attribute | cute.Layout,
        space: str = "gmem",
        vec: Attribute | cute.Layout | None = None,
        masked: bool = False,
    ):
        if isinstance(layout, cute.Layout):
            layout = CuteLayoutAttr(layout)
        if isinstance(vec, cute.Layout):
            vec = CuteLayoutAttr(vec)
        layout = _view_layout(layout)
        super().__init__(
            element_type,
            layout,
            StringAttr(space),
            NoneAttr() if vec is None else vec,
            StringAttr("masked" if masked else ""),
        )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        pos = parser.pos
        with parser.in_angle_brackets():
            et = parser.parse_type()
            parser.parse_punctuation(",")
            lay = _view_layout(parser.parse_attribute())
            parser.parse_punctuation(",")
            space = parser.parse_keyword_in(MEMORY_SPACES, " (memory space)")
            vec: Attribute = NoneAttr()
            masked = ""
            while parser.parse_optional_punctuation(",") is not None:
                if parser.parse_optional_keyword("vec") is not None:
                    vec = parser.parse_attribute()
                else:
                    parser.parse_keyword("masked")
                    masked = "masked"
        return _verified(parser, pos, cls, (et, lay, StringAttr(space), vec, StringAttr(masked)))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.element_type)
        printer.print_string(", ")
        own_text = getattr(getattr(self.layout, "data", None), "attr_text", None)
        if own_text is not None:
            printer.print_string(own_text())
        else:
            printer.print_attribute(self.layout)
        printer.print_string(f", {self.space.data}")
        if not isinstance(self.vec, NoneAttr):
            printer.print_string(", vec ")
            printer.print_attribute(self.vec)
        if self.is_masked:
            printer.print_string(", masked")
        printer.print_string(">")

    def verify(self) -> None:
        coord = self.space.data == "coord"
        if coord:
            if (why := coordinate_element_error(self.element_type)) is not None:
                raise VerifyException(why)
            if not isinstance(self.layout, CuteLayoutAttr):
                raise VerifyException(f"a coord tensor's layout must be #layout.cute, got {self.layout}")
        else:
            element_bytes(self.element_type)
        if not isinstance(self.layout, CuteLayoutAttr | ComposedLayoutAttr):
            raise VerifyException(
                f"a tensor's layout must be #layout.cute or #layout.composed, got {self.layout}"
            )
        if self.space.data not in MEMORY_SPACES:
            raise VerifyException(f"unknown memory space '{self.space.data}'")
        if not isinstance(self.vec, NoneAttr | CuteLayoutAttr):
            raise VerifyException("a tensor's vec layout must be a #layout.cute")
        eb = 1 if coord else element_bytes(self.element_type)
        vec = self.vec_layout
        extra = 0 if vec is None else _offset_span(vec)[1]
        if isinstance(self.layout, ComposedLayoutAttr):
            extra += abs(self.layout.data.offset)
        for lay in (self.cute_layout, vec):
            if lay is not None and (why := index_range_error(lay, eb, extra)) is not None:
                raise VerifyException(f"view too large: {why}")
        view_error = getattr(getattr(self.layout, "data", None), "view_error", None)
        if view_error is not None and (why := view_error(self.element_type, self.space.data)):
            raise VerifyException(why)
        if self.space.data not in ("gmem", "coord") and not self.cute_layout.is_static():
            raise VerifyException(
                f"a {self.space.data} tensor must have a static layout, got {self.cute_layout}"
            )

    # -- convenience ---------------------------------------------------------
    @property
    def cute_layout(self) -> cute.Layout:
        """The CuTe layout (inner layout of a swizzled one)."""
        return inner_layout(self.layout)

    @property
    def vec_layout(self) -> cute.Layout | None:
        return None if isinstance(self.vec, NoneAttr) else self.vec.data  # type: ignore[union-attr]

    @property
    def vector_size(self) -> int:
        v = self.vec_layout
        return 1 if v is None else v.size()

    @property
    def is_masked(self) -> bool:
        return self.masked.data == "masked"

    @property
    def memory_space(self) -> str:
        return self.space.data

    @property
    def shape(self) -> tuple:
        """Top-level mode sizes (a mode's size is the product of its nested extents)."""
        return tuple(m.size() for m in self.cute_layout.modes())

    def num_elements(self):
        """Scalar elements the view addresses (vectors count their lanes); `cute.DYN`
        when an extent is dynamic."""
        n = self.cute_layout.size()
        return n if n is cute.DYN else n * self.vector_size

    def with_(self, **changes) -> TensorViewType:
        """A copy with some of (element_type, layout, space, vec, masked) changed."""
        args = dict(
            element_type=self.element_type,
            layout=self.layout,
            space=self.memory_space,
            vec=None if isinstance(self.vec, NoneAttr) else self.vec,
            masked=self.is_masked,
        )
        args.update(changes)
        return TensorViewType(**args)


def distributed_tensor_encoding(t: Attribute) -> Attribute:
    """The distributed layout of a `tensor<...>` value, or a VerifyException."""
    if not isinstance(t, TensorType) or not isinstance(t.encoding, DistributedLayoutAttr):
        raise VerifyException(
            f"expected a distributed tensor (tensor<...> with a #layout.blocked, "
            f"#layout.slice, #layout.linear, #layout.nvidia_mma or #layout.dot_op "
            f"encoding), got {t}"
        )
    if distributed_rank(t.encoding) != len(t.get_shape()):
        raise VerifyException(
            f"encoding {t.encoding} has rank {distributed_rank(t.encoding)} but the "
            f"tensor has rank {len(t.get_shape())}"
        )
    return t.encoding


def distributed_type(v: SSAValue | Attribute) -> TensorType:
    """The distributed tensor type of value `v` (or the type `v` itself), or
    `distributed_tensor_encoding`'s VerifyException."""
    t = v.type if isinstance(v, SSAValue) else v
    distributed_tensor_encoding(t)
    return t  # type: ignore[return-value]


def tiled_view_type(st: TensorViewType, tile: Sequence[int]) -> TensorViewType:
    """The type of one tile of `tile` extents of a view of type `st` (`layout.tile`'s
    result, and a tiled iterator's tiles): masked where the tiles do not divide it."""
    lay, masked = views.tile_layout(st.cute_layout, tile)
    return st.with_(layout=CuteLayoutAttr(lay), masked=masked or st.is_masked)


def tensor_argument_message(name: str, t: Attribute) -> str:
    """Why a function argument of a tensor type (a view, a distributed tensor) cannot be
    given a value (`--arg` gives integers; a kernel receives pointers), and what to
    write instead."""
    return (
        f"argument %{name} : {t} is a tensor, which a program cannot be given: take a pointer "
        f"(`%{name}: !layout.ptr<T>`) and make the view inside the function "
        f"(`layout.view %{name} : !layout.ptr<T> -> !layout.tensor<...>`); "
        "`--arg NAME=N` gives only integer arguments and buffer sizes"
    )
