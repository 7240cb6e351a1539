"""Element access: one element (or one vector) of a view at a coordinate, read or
written, as the seeds write it first (CuTe's `A(m, n)`, `A[i]`,
`A(make_coord(make_coord(m0, m1), n))`; Mojo's `tensor[x, y]`, `tensor[x, y] = z`,
`nested_tensor[1, 0, 0, 1]`).

    %x = layout.read %A[%m, %n] : !layout.tensor<f32, ...> -> f32
    layout.write %x, %B[%n, %m] : f32, !layout.tensor<f32, ...>

A coordinate is one of three forms, told apart by how many indices it has:
- one index per top-level mode (a nested mode takes its 1-D, colexicographic index):
  CuTe's `A(m, n)`, Mojo's `tensor[x, y]`;
- one index for the whole view, colexicographic over all its modes: CuTe's `A[i]`;
- one index per leaf of the shape (nested modes flattened): CuTe's
  `A(make_coord(make_coord(m0, m1), n))` and Mojo's `nested_tensor[1, 0, 0, 1]`.
A view of rank 1 takes one index; where two forms have the same count they agree.
A coordinate may also be nested, as the view's shape is (CuTe's
`A(make_coord(make_coord(m0, m1), n))`, TileTensor's `Coord(Coord(m0, m1), n)`):
`%A[(%m0, %m1), %n]`, one parenthesised tuple per nested mode whose elements index its
sub-modes (each a whole sub-mode by its colexicographic index, or a tuple again), as
`layout.slice` takes them; the op's `profile` property holds the nesting (the number
of children of each coordinate node in pre-order, 0 for a leaf), present only when a
coordinate is nested.

Mojo's `load[N](x, y)` / `store[N](x, y, v)` at element coordinates: a `width = N`
attribute reads (writes) N contiguous elements as a `vector<N x T>`: the element at the
coordinate and the N - 1 after it along the view's contiguous mode (its one top-level
mode of stride 1); the coordinate is one index per mode, every lane must lie inside
that mode (the reference executor checks it), the view is neither vectorized nor
masked. The lowering makes it one vector access where the first lane's address is
known aligned to the vector, else one scalar access per lane.

The element of a vectorized view (`vec` layout) is its vector: `layout.read` gives a
`vector<N x T>`, `layout.write` takes one. Inside a `layout.launch` every thread does
the access with its own indices (SPMD). An element that the view's mask says lies
outside its tensor must not be accessed: the reference executor reports it, the CUDA
code guards it (a read gives 0, a write does nothing)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, UnitAttr, VectorType, i64
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from . import cute, views
from .effects import Accesses
from .errors import LayoutError
from .layout_attrs import TensorViewType, element_bytes
from .layout_roles import enclosing_launch_op
from .verifier import refusing_layout_errors
from .view_syntax import nested_item, print_nested


def coordinate_form(layout: cute.Layout, n: int) -> str:
    """How `n` indices address an element of a view with this layout: `modes` (one per
    top-level mode), `linear` (one for the whole view) or `leaves` (one per leaf); a
    VerifyException naming the forms otherwise."""
    rank = len(views.modes(layout))
    leaves = len(cute.flatten(layout.shape))
    if n == rank:
        return "modes"
    if n == 1:
        return "linear"
    if n == leaves:
        if any(views.is_dynamic(s) for m in views.modes(layout) if isinstance(m.shape, tuple)
               for s in cute.flatten(m.shape)):
            raise VerifyException("a coordinate per leaf needs static extents in the nested modes")
        return "leaves"
    raise VerifyException(
        f"{n} indices for a view of rank {rank}: give {rank} (one per mode), 1 (the whole view)"
        + (f" or {leaves} (one per leaf of the shape)" if leaves != rank else ""))


def leaf_multipliers(layout: cute.Layout) -> list[list[int]]:
    """Per top-level mode, the weight of each of its leaves in the mode's 1-D index
    (colexicographic: 1, s0, s0*s1, ...), for the `leaves` coordinate form."""
    out = []
    for m in views.modes(layout):
        ws, w = [], 1
        for s in cute.flatten(m.shape):
            ws.append(w)
            w = w * s if isinstance(s, int) else w
        out.append(ws)
    return out


def nested_mode_terms(layout: cute.Layout, profile: Sequence[int]) -> list[list[tuple[int, int]]]:
    """For a nested coordinate (`profile`, as `layout.slice`'s), per top-level mode the
    (coordinate position, weight) terms of the mode's 1-D colexicographic index: a leaf
    that indexes a sub-mode whose flat leaves start at `lo` weighs the product of the
    mode's leaf extents before `lo`. A LayoutError where the coordinate does not fit the
    shape, or a weight needs a dynamic extent."""
    leaves = views.slice_leaves(layout, [views.DYNAMIC] * sum(a == 0 for a in profile), profile)
    terms: list[list[tuple[int, int]]] = [[] for _ in views.modes(layout)]
    for k, leaf in enumerate(leaves):
        flat = cute.flatten(views.modes(layout)[leaf.top].shape)
        w = 1
        for e in flat[: leaf.lo]:
            if views.is_dynamic(e):
                raise LayoutError("a nested coordinate needs static extents in the nested modes")
            w *= e
        terms[leaf.top].append((k, w))
    return terms


def nested_leaf_sizes(layout: cute.Layout, profile: Sequence[int]) -> list[int | None]:
    """The extent of the sub-mode each leaf of a nested coordinate indexes (None where
    dynamic): an index at or past it is out of range."""
    leaves = views.slice_leaves(layout, [views.DYNAMIC] * sum(a == 0 for a in profile), profile)
    return [None if views.is_dynamic(leaf.sub.size()) else int(leaf.sub.size()) for leaf in leaves]


def profile_of(op: Operation) -> tuple[int, ...]:
    """The op's coordinate nesting (empty for a flat coordinate, and for an op whose
    coordinates are never nested: `layout.copy_chunk_async`)."""
    profile = getattr(op, "profile", None)
    return tuple(profile.get_values()) if profile is not None else ()


def element_type(t: TensorViewType, width: int | None = None) -> Attribute:
    """What one element of view type t is: its element type, or for a vectorized view a
    vector of it (for an access of `width` contiguous elements, a vector of `width`)."""
    if width is not None:
        return VectorType(t.element_type, [width])
    return VectorType(t.element_type, [t.vector_size]) if t.vec_layout is not None else t.element_type


def contiguous_mode(layout: cute.Layout) -> int:
    """The top-level mode of `layout` along which elements are contiguous (one leaf of
    static stride 1), for an access of several elements; a VerifyException when there
    is none, or more than one."""
    found = [k for k, m in enumerate(views.modes(layout)) if not isinstance(m.shape, tuple) and m.stride == 1]
    if len(found) != 1:
        raise VerifyException(
            f"an access of several contiguous elements needs one mode of stride 1 in {layout}, "
            f"found {len(found)}: vectorize the view instead (`layout.vectorize`)")
    return found[0]


def width_of(op: Operation) -> int | None:
    """The `width` of an access of several contiguous elements (None: one element)."""
    w = op.properties.get("width")
    return w.value.data if isinstance(w, IntegerAttr) else None


def _verify_access(op: Operation, t: TensorViewType, n: int, value_type: Attribute, what: str) -> None:
    profile = profile_of(op)  # type: ignore[arg-type]
    width = width_of(op)
    if width is not None:
        if width < 1:
            raise VerifyException(f"width must be at least 1, got {width}")
        if t.vec_layout is not None or t.is_masked:
            raise VerifyException("an access of several contiguous elements takes a view that is neither "
                                  "vectorized nor masked")
        rank = len(views.modes(t.cute_layout))
        if profile or n != rank:
            raise VerifyException(f"an access of several contiguous elements takes one index per mode ({rank})")
        k = contiguous_mode(t.cute_layout)
        extent = views.modes(t.cute_layout)[k].shape
        if isinstance(extent, int) and extent < width:
            raise VerifyException(f"{width} contiguous elements do not fit in mode {k} of {extent}")
        want = element_type(t, width)
        if value_type != want:
            raise VerifyException(f"{width} contiguous elements of {t} are {want}, not {value_type}")
        return
    if profile:
        if sum(a == 0 for a in profile) != n:
            raise VerifyException(f"a nested coordinate of {sum(a == 0 for a in profile)} indices has {n} operands")
        with refusing_layout_errors():
            nested_mode_terms(t.cute_layout, profile)
    else:
        coordinate_form(t.cute_layout, n)
    want = element_type(t)
    if value_type != want:
        raise VerifyException(f"{what} of {t} is {want}, not {value_type}")


def _profile_props(profile: Sequence[int], width: int | None = None) -> dict[str, Attribute]:
    props: dict[str, Attribute] = {}
    if any(profile):
        props["profile"] = DenseArrayBase.from_list(i64, list(profile))
    if width is not None:
        props["width"] = IntegerAttr(width, 64)
    return props


def _print_attr_dict(printer: Printer, op: ReadOp | WriteOp) -> None:
    """The attribute dictionary, with `width` (a property) in it."""
    shown = dict(op.attributes)
    if op.width is not None:
        shown = {"width": op.width, **shown}
    printer.print_op_attributes(shown)


def _split_props(attrs: dict[str, Attribute], profile: list[int]) -> tuple[dict, dict]:
    """(properties, attributes) of a parsed access: `width` is a property."""
    width = attrs.pop("width", None)
    props = _profile_props(profile)
    if width is not None:
        props["width"] = width
    return props, attrs


def _print_coords(printer: Printer, op: ReadOp | WriteOp) -> None:
    """`[%a, %b]`, or a nested coordinate `[(%a, %b), %c]` as its profile says."""
    operands = iter(op.coords)
    print_nested(printer, profile_of(op) or [0] * len(op.coords), lambda: printer.print_operand(next(operands)))


def _parse_coords(parser: Parser) -> tuple[list[UnresolvedOperand], list[int]]:
    """`[...]` of index operands, where a parenthesised tuple nests (as in
    `layout.slice`): the operands and the profile (all zeros when flat)."""
    coords: list[UnresolvedOperand] = []
    profile: list[int] = []
    one = nested_item(parser, profile, lambda: coords.append(parser.parse_unresolved_operand()), "coordinate")

    parser.parse_punctuation("[")
    if parser.parse_optional_punctuation("]") is None:
        one()
        while parser.parse_optional_punctuation(",") is not None:
            one()
        parser.parse_punctuation("]", " or ',' after a coordinate")
    return coords, profile


@irdl_op_definition
class ReadOp(IRDLOperation):
    """The element of `view` at the coordinate (see the module docstring for its three
    forms, and nested coordinates): CuTe's `A(m, n)`, Mojo's `tensor[x, y]`; with
    `width = N`, N contiguous elements from it (Mojo's `tensor.load[N](x, y)`).

        %x = layout.read %A[%m, %n] : !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem> -> f32
        %y = layout.read %N[(%m0, %m1), %n] : !layout.tensor<f32, #layout.cute<((2,2),4)>, gmem> -> f32
        %v = layout.read %A[%m, %n] {width = 4 : i64} : !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem> -> vector<4xf32>"""

    name = "layout.read"
    view = operand_def(TensorViewType)
    coords = var_operand_def(IndexType)
    profile = opt_prop_def(DenseArrayBase)
    width = opt_prop_def(IntegerAttr)
    result = result_def()
    traits = traits_def(Accesses(reads=("view",)))

    def __init__(self, view, coords, result_type: Attribute | None = None, profile: Sequence[int] = (),
                 width: int | None = None):
        t = view.type
        super().__init__(operands=[view, list(coords)], result_types=[result_type or element_type(t, width)],
                         properties=_profile_props(profile, width))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.view)
        _print_coords(printer, self)
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.view.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> ReadOp:
        view = parser.parse_unresolved_operand()
        coords, profile = _parse_coords(parser)
        props, attrs = _split_props(parser.parse_optional_attr_dict(), profile)
        parser.parse_punctuation(":")
        vt = parser.parse_type()
        parser.parse_punctuation("->")
        rt = parser.parse_type()
        return cls.create(operands=[parser.resolve_operand(view, vt), *(parser.resolve_operand(c, IndexType()) for c in coords)],
                          result_types=[rt], properties=props, attributes=attrs)

    def verify_(self) -> None:
        _verify_access(self, self.view.type, len(self.coords), self.result.type, "an element")


@irdl_op_definition
class WriteOp(IRDLOperation):
    """Writes `value` to the element of `view` at the coordinate: CuTe's `B(n, m) = x`,
    Mojo's `tensor[x, y] = z` (nested coordinates and `width = N`, Mojo's
    `tensor.store[N](x, y, v)`, as `layout.read`).

        layout.write %x, %B[%n, %m] : f32, !layout.tensor<f32, #layout.cute<(4,8):(8,1)>, gmem>"""

    name = "layout.write"
    value = operand_def()
    view = operand_def(TensorViewType)
    coords = var_operand_def(IndexType)
    profile = opt_prop_def(DenseArrayBase)
    width = opt_prop_def(IntegerAttr)
    traits = traits_def(Accesses(writes=("view",)))

    def __init__(self, value, view, coords, profile: Sequence[int] = (), width: int | None = None):
        super().__init__(operands=[value, view, list(coords)], properties=_profile_props(profile, width))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.view)
        _print_coords(printer, self)
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(", ")
        printer.print_attribute(self.view.type)

    @classmethod
    def parse(cls, parser: Parser) -> WriteOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        view = parser.parse_unresolved_operand()
        coords, profile = _parse_coords(parser)
        props, attrs = _split_props(parser.parse_optional_attr_dict(), profile)
        parser.parse_punctuation(":")
        xt = parser.parse_type()
        parser.parse_punctuation(",")
        vt = parser.parse_type()
        return cls.create(operands=[parser.resolve_operand(value, xt), parser.resolve_operand(view, vt),
                                    *(parser.resolve_operand(c, IndexType()) for c in coords)],
                          properties=props, attributes=attrs)

    def verify_(self) -> None:
        _verify_access(self, self.view.type, len(self.coords), self.value.type, "an element")


@irdl_op_definition
class DimOp(IRDLOperation):
    """The extent of top-level mode `mode` of a view at run time (Mojo's
    `tensor.dim(0)`, CuTe's `size<0>(A)`): its layout's (dynamic extents bound), and for
    a masked view the elements that lie inside its tensor (a partial tile's extent).

        %rows = layout.dim %tile {mode = 0 : i64} : !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem, masked>"""

    name = "layout.dim"
    view = operand_def(TensorViewType)
    mode = prop_def(IntegerAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "$view attr-dict `:` type($view)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, view, mode: int):
        super().__init__(operands=[view], properties={"mode": IntegerAttr(mode, 64)}, result_types=[IndexType()])

    @property
    def axis(self) -> int:
        return self.mode.value.data

    def verify_(self) -> None:
        t = self.view.type
        rank = len(views.modes(t.cute_layout))
        if not 0 <= self.axis < rank:
            raise VerifyException(f"mode {self.axis} of a view of rank {rank}")
        if t.is_masked and t.vec_layout is not None:
            raise VerifyException("the extent of a masked vectorized view is not defined (a vector may lie "
                                  "partly outside): ask the view before vectorize")


CHUNK_ASYNC_BYTES = (4, 8, 16)
CHUNK_ASYNC_PREFETCH = (64, 128, 256)
"""The L2 prefetch sizes a 16-byte `layout.copy_chunk_async` may ask (`prefetch`; those of
`cuda.cp_async`, which it lowers to)."""
"""The bytes one `layout.copy_chunk_async` may move (PTX `cp.async`)."""


@irdl_op_definition
class CopyChunkAsyncOp(IRDLOperation):
    """`width` contiguous elements of the global view `source` at a coordinate into
    the shared view `dest` at a coordinate, asynchronously: inside a `layout.launch`
    each thread issues one
    `cp.async` of its own 4-, 8- or 16-byte chunk (CuTe's `copy` of one
    `SM80_CP_ASYNC_CACHEGLOBAL` atom at a thread's own offsets). Coordinates are one
    index per mode, each chunk runs along its view's contiguous mode, as a
    `layout.read`/`layout.write` of `width` elements does (neither view vectorized
    nor masked). Each call commits one group (as `layout.copy_async`): the chunk may
    be read only after a `layout.async_wait` that covers it, and by other threads only
    after a barrier too.

        layout.copy_chunk_async %g[%i], %s[%j] {width = 16 : i64} : !layout.tensor<i8, #layout.cute<(?):(1)>, gmem>, !layout.tensor<i8, #layout.cute<(4096):(1)>, smem>

    The lowering makes it one `cp.async.cg` where both first elements are known aligned
    to the chunk (their indices' divisors, `layout.multiple_of`, the buffers'
    alignment), else a copy of `width` elements one at a time (done when issued).
    `prefetch` (64, 128 or 256, a 16-byte chunk's only): the L2 prefetch size its
    `cp.async` asks (`.L2::256B`: the L2 fetches the 256 bytes around the chunk's sector
    from DRAM); a hint, no value changes. `l1` (a 16-byte chunk's only): its `cp.async`
    goes through L1 (`.ca`, which asks L2 for whole sectors) instead of around it
    (`.cg`, which asks each 16-byte half of a sector that lands in another 32-byte block
    of shared memory on its own); a hint, no value changes.

        layout.copy_chunk_async %g[%i], %s[%j] {width = 16 : i64, prefetch = 256 : i64} : ...
        layout.copy_chunk_async %g[%i], %s[%j] {width = 16 : i64, l1} : ...

    `uncommitted`: the call commits no group; its chunk joins the thread's next group,
    which a later `layout.async_wait {commit}` closes (`cp.async.wait_all`: one group
    for a thread's copies in a loop, not one each); it may be read only after that wait.

        layout.copy_chunk_async %g[%i], %s[%j] {width = 16 : i64, uncommitted} : ..."""

    name = "layout.copy_chunk_async"
    source = operand_def(TensorViewType)
    src_coords = var_operand_def(IndexType)
    dest = operand_def(TensorViewType)
    dst_coords = var_operand_def(IndexType)
    width = prop_def(IntegerAttr)
    prefetch = opt_prop_def(IntegerAttr)
    l1 = opt_prop_def(UnitAttr)
    uncommitted = opt_prop_def(UnitAttr)
    traits = traits_def(Accesses(reads=("source",), writes=("dest",)))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, source, src_coords, dest, dst_coords, width: int, prefetch: int | None = None,
                 l1: bool = False, uncommitted: bool = False):
        props: dict[str, Attribute] = {"width": IntegerAttr(width, 64)}
        if prefetch is not None:
            props["prefetch"] = IntegerAttr(prefetch, 64)
        if l1:
            props["l1"] = UnitAttr()
        if uncommitted:
            props["uncommitted"] = UnitAttr()
        super().__init__(operands=[source, list(src_coords), dest, list(dst_coords)], properties=props)

    def print(self, printer: Printer) -> None:
        for i, (view, coords) in enumerate(((self.source, self.src_coords), (self.dest, self.dst_coords))):
            printer.print_string(", " if i else " ")
            printer.print_operand(view)
            printer.print_string("[")
            printer.print_list(coords, printer.print_operand)
            printer.print_string("]")
        given: dict[str, Attribute] = {"width": self.width}
        if self.prefetch is not None:
            given["prefetch"] = self.prefetch
        if self.l1 is not None:
            given["l1"] = self.l1
        if self.uncommitted is not None:
            given["uncommitted"] = self.uncommitted
        printer.print_op_attributes({**given, **self.attributes})
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(", ")
        printer.print_attribute(self.dest.type)

    @classmethod
    def parse(cls, parser: Parser) -> CopyChunkAsyncOp:
        def side() -> tuple[UnresolvedOperand, list[UnresolvedOperand]]:
            view = parser.parse_unresolved_operand()
            coords = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
            return view, coords

        (sv, sc) = side()
        parser.parse_punctuation(",")
        (dv, dc) = side()
        attrs = parser.parse_optional_attr_dict()
        width = attrs.pop("width", None)
        if not isinstance(width, IntegerAttr):
            parser.raise_error("layout.copy_chunk_async needs {width = N : i64}")
        prefetch = attrs.pop("prefetch", None)
        if prefetch is not None and not isinstance(prefetch, IntegerAttr):
            parser.raise_error("layout.copy_chunk_async's prefetch is an integer (bytes)")
        l1 = attrs.pop("l1", None)
        if l1 is not None and not isinstance(l1, UnitAttr):
            parser.raise_error("layout.copy_chunk_async's l1 is a unit attribute")
        uncommitted = attrs.pop("uncommitted", None)
        if uncommitted is not None and not isinstance(uncommitted, UnitAttr):
            parser.raise_error("layout.copy_chunk_async's uncommitted is a unit attribute")
        parser.parse_punctuation(":")
        st = parser.parse_type()
        parser.parse_punctuation(",")
        dt = parser.parse_type()
        ix = IndexType()
        op = cls(parser.resolve_operand(sv, st), [parser.resolve_operand(c, ix) for c in sc],
                 parser.resolve_operand(dv, dt), [parser.resolve_operand(c, ix) for c in dc], width.value.data,
                 None if prefetch is None else prefetch.value.data, l1 is not None, uncommitted is not None)
        op.attributes.update(attrs)
        return op

    def verify_(self) -> None:
        s, d = self.source.type, self.dest.type
        if enclosing_launch_op(self) is None:
            raise VerifyException("copy_chunk_async is a thread's copy: it lies inside a layout.launch")
        if (s.memory_space, d.memory_space) != ("gmem", "smem"):
            raise VerifyException(f"copy_chunk_async copies global to shared memory, got "
                                  f"{s.memory_space} -> {d.memory_space}")
        if s.element_type != d.element_type:
            raise VerifyException(f"copy_chunk_async between element types {s.element_type} and {d.element_type}")
        width = width_of(self)
        eb = element_bytes(s.element_type)
        if width is None or width * eb not in CHUNK_ASYNC_BYTES:
            raise VerifyException(f"copy_chunk_async moves 4, 8 or 16 bytes (cp.async), got {width} x {eb} bytes")
        if self.prefetch is not None:
            if self.prefetch.value.data not in CHUNK_ASYNC_PREFETCH:
                raise VerifyException(f"copy_chunk_async's prefetch is 64, 128 or 256 (bytes), got "
                                      f"{self.prefetch.value.data}")
            if width * eb != 16:
                raise VerifyException(f"copy_chunk_async with a prefetch size moves 16 bytes, got {width * eb}")
        if self.l1 is not None and width * eb != 16:
            raise VerifyException(f"copy_chunk_async with l1 moves 16 bytes, got {width * eb}")
        chunk = VectorType(s.element_type, [width])
        _verify_access(self, s, len(self.src_coords), chunk, "the source chunk")
        _verify_access(self, d, len(self.dst_coords), chunk, "the destination chunk")


ACCESS_OPS = (ReadOp, WriteOp, DimOp, CopyChunkAsyncOp)
"""Registered in the `layout` dialect (dialects/layout.py)."""
