"""The `layout` dialect: views of memory with layouts, copies between them, and
distributed values in registers.

Levels (docs/architecture.md): a *whole-tensor* function holds views of global buffers
and copies between them; `layout.launch` introduces a grid of blocks of threads (the
*block level*: each block takes tiles by its block id); inside a launch, ops are
executed by every thread (SPMD, as in CUDA) and views partitioned by thread id are the
*thread level*. An op whose operands do not depend on the thread id (a copy between two
block tiles, say) is done redundantly by every thread: correct, and the `distribute`
pass is what splits it between threads.

Run-time value of a view: (storage, base offset, the type's layout with its dynamic `?`
values bound, and for masked views a `views.MaskMap`). Element with coordinate c (lane
j for vectorized views) lives at storage[base + layout(c) (+ vec(j))].
"""

from __future__ import annotations

from collections.abc import Sequence
from math import gcd, prod
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import NoTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from tilec.support.target import target_of

from . import cute, views
from .conversions import STORAGE, ConversionError, parse_convert
from .effects import Accesses, Allocates, Synchronizes
from .errors import LayoutError
from .layout_attrs import (
    AsyncTokenType,
    BlockedLayoutAttr,
    ComposedLayoutAttr,
    CopyStrategyAttr,
    CuteLayoutAttr,
    LinearLayoutAttr,
    PtrType,
    SliceLayoutAttr,
    SwizzleAttr,
    TensorViewType,
    element_bytes,
    threads_per_block,
    tiled_view_type,
    to_linear,
)
from .layout_attrs import distributed_type as _dist
from .layout_compute import TensorToTensorOp
from .layout_roles import check_block_threads, enclosing_launch_op
from .mma_layouts import MMA_ATTRIBUTES
from .swizzle import ComposedLayout
from .verifier import check as _check
from .verifier import refusing_layout_errors
from .view_syntax import InferredViewResult, nested_item, print_nested

index = IndexType()


def _ints(attr: DenseArrayBase) -> tuple[int, ...]:
    return tuple(int(x) for x in attr.get_values())


def _array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def _view(v: SSAValue, what: str) -> TensorViewType:
    if not isinstance(v.type, TensorViewType):
        raise VerifyException(f"{what} must be a !layout.tensor, got {v.type}")
    return v.type


def _same_layout(expected: cute.Layout, got: cute.Layout, what: str) -> None:
    if expected != got:
        raise VerifyException(f"{what}: expected layout {expected}, got {got}")


def relaid(st: TensorViewType, lay: cute.Layout) -> Attribute:
    """`lay` as the layout of a view derived from `st` by tile, vectorize or distribute:
    a swizzled (composed) source keeps its swizzle and offset around the new inner
    layout (`Swizzle o offset o L` is a function of the offset, so the view op acts on
    L; the run-time base offset it adds goes inside the swizzle, as in CuTe)."""
    if isinstance(st.layout, ComposedLayoutAttr):
        c = st.layout.data
        return ComposedLayoutAttr(ComposedLayout(c.swizzle, c.offset, lay))
    return CuteLayoutAttr(lay)


def _check_same_swizzle(st: TensorViewType, rt: TensorViewType, what: str) -> None:
    """The result of a view op on a swizzled view has the source's swizzle and offset."""
    if isinstance(st.layout, ComposedLayoutAttr):
        ok = isinstance(rt.layout, ComposedLayoutAttr) and (
            rt.layout.data.swizzle, rt.layout.data.offset) == (st.layout.data.swizzle, st.layout.data.offset)
        _check(ok, f"{what} of a swizzled view keeps its swizzle: expected "
               f"{relaid(st, rt.cute_layout)}, got {rt.layout}")
    else:
        _check(isinstance(rt.layout, CuteLayoutAttr), f"{what} of a plain view gives a plain layout")


def enclosing_launch(op: Operation) -> LaunchOp | None:
    """The `layout.launch` around `op`, or None (layout_roles' `enclosing_launch_op`, typed)."""
    return enclosing_launch_op(op)  # type: ignore[return-value]


# =========================================================================== launch

OPEN_THREADS = 128
"""The threads of a `threads(auto)` launch until `choose-warps` picks them (4 warps, Triton's default `num_warps`)."""



@irdl_op_definition
class LaunchOp(IRDLOperation):
    """A grid of blocks of `threads` threads each; the body runs once per thread.

        layout.launch grid(%gx, %gy, %gz) threads(256) {
        ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
          ...
        }

    The body's arguments are the block id (x, y, z) and the thread's index in its block
    (0 <= %tid < threads). `lower-to-gpu` outlines the body into a `gpu.func`.

    A block may have a 2-D or 3-D shape, as CUDA's and Mojo's `block_dim=(16, 16)`:
    `threads(16, 16)` is 256 threads, `%tid` = x + 16 * y (x fastest), and
    `layout.thread_idx x` / `layout.global_idx x` (dialects/thread_ids.py) give the
    coordinates. (The hardware block stays 1-D: the coordinates are computed from %tid.)

    `threads(auto)` leaves the block's threads to the compiler (Triton's `num_warps`
    chosen by a rule, not written): `choose-warps` (passes/choose_warps.py) picks them
    from the bytes of the launch's tiles. Until then the launch is one of `OPEN_THREADS`
    threads (Triton's default 4 warps), its `#layout.auto` layouts over `OPEN_THREADS /
    32` warps. Such a launch does not observe its thread count: the verifier checks that
    the thread id and `layout.thread_idx` / `layout.global_idx` are unused; a layout
    written in it (not `#layout.auto`) pins the count at OPEN_THREADS (`choose-warps`).

    Its attributes (printed `threads(256) attributes {...}`) may hold the index-width
    promise of its kernel, `tilec.index_bits` (support/index_width.py)."""

    name = "layout.launch"
    grid_x = operand_def(index)
    grid_y = operand_def(index)
    grid_z = operand_def(index)
    threads = prop_def(IntegerAttr)
    block = opt_prop_def(DenseArrayBase)
    """The block's shape (x, y[, z]) when it is not 1-D; its product is `threads`."""
    open_threads = opt_prop_def(UnitAttr)
    """`threads(auto)`: the compiler chooses the threads (`threads` holds OPEN_THREADS until then)."""
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(self, grid: Sequence[SSAValue], threads: int | Sequence[int] | str, body: Region | None = None):
        """`threads`: a count, a block shape (x, y[, z]), or "auto" (the compiler's choice)."""
        if body is None:
            body = Region(Block(arg_types=[index] * 4))
        auto = threads == "auto"
        shape = [OPEN_THREADS] if auto else [threads] if isinstance(threads, int) else list(threads)
        props: dict[str, Attribute] = {"threads": IntegerAttr(prod(shape), i64)}
        if len(shape) > 1:
            props["block"] = _array(shape)
        if auto:
            props["open_threads"] = UnitAttr()
        super().__init__(operands=list(grid), properties=props, regions=[body])

    @property
    def is_open(self) -> bool:
        """Whether the block's threads are the compiler's to choose (`threads(auto)`)."""
        return self.open_threads is not None

    @property
    def block_shape(self) -> tuple[int, int, int]:
        """(x, y, z) threads of a block ((threads, 1, 1) for a 1-D block)."""
        shape = _ints(self.block) if self.block is not None else (self.num_threads,)
        return (*shape, 1, 1)[:3]  # type: ignore[return-value]

    @property
    def num_threads(self) -> int:
        return self.threads.value.data

    @property
    def block_ids(self) -> tuple[SSAValue, SSAValue, SSAValue]:
        a = self.body.block.args
        return a[0], a[1], a[2]

    @property
    def thread_id(self) -> SSAValue:
        return self.body.block.args[3]

    def verify_(self) -> None:
        n = self.num_threads
        _check(0 < n <= 1024, f"threads must be in [1, 1024], got {n}")
        if self.block is not None:
            shape = _ints(self.block)
            _check(2 <= len(shape) <= 3 and all(s > 0 for s in shape) and prod(shape) == n,
                   f"a block shape has 2 or 3 positive extents whose product is threads ({n}), got {list(shape)}")
        args = self.body.block.args
        _check(
            len(args) == 4 and all(a.type == index for a in args),
            "the body takes four index arguments: block id x, y, z and the thread id",
        )
        if self.is_open:
            self._verify_open()

    def _verify_open(self) -> None:
        """A `threads(auto)` launch observes no thread count (class docstring)."""
        _check(self.block is None and self.num_threads == OPEN_THREADS,
               f"a launch with threads(auto) has {OPEN_THREADS} threads until the compiler chooses, "
               f"got {self.num_threads}")
        _check(not self.thread_id.uses,
               "a launch with threads(auto) does not use its thread id: the compiler chooses the threads")
        for o in self.body.walk():
            _check(o.name not in ("layout.thread_idx", "layout.global_idx"),
                   f"a launch with threads(auto) does not use {o.name}: the compiler chooses the threads")

    def print(self, printer: Printer) -> None:
        printer.print_string(" grid(")
        printer.print_list([self.grid_x, self.grid_y, self.grid_z], printer.print_operand)
        shape = _ints(self.block) if self.block is not None else (self.num_threads,)
        threads = "auto" if self.is_open else ", ".join(map(str, shape))
        printer.print_string(f") threads({threads})")
        # e.g. the index-width promise of its kernel (`tilec.index_bits`, support/index_width.py)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)

    @classmethod
    def parse(cls, parser: Parser) -> LaunchOp:
        parser.parse_keyword("grid")
        ops = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        if len(ops) != 3:
            parser.raise_error("grid takes three sizes (x, y, z)")
        grid = [parser.resolve_operand(o, index) for o in ops]
        parser.parse_keyword("threads")
        pos = parser.pos
        shape = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN,
            lambda: "auto" if parser.parse_optional_keyword("auto") else parser.parse_integer(allow_boolean=False),
        )
        if "auto" in shape and len(shape) != 1:
            parser.raise_error("threads(auto) takes no extents", pos, parser.pos)
        if not 1 <= len(shape) <= 3:
            parser.raise_error("threads takes 1, 2 or 3 extents (x, y, z)", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        op = cls(grid, shape[0] if len(shape) == 1 else shape, body)
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op


# =========================================================================== views


@irdl_op_definition
class ViewOp(IRDLOperation):
    """A view of a global pointer (or a re-view of shared/register storage) with a layout.

        %a = layout.view %src : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
        %b = layout.view %p(%m, %n) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>

    The index operands bind the layout's `?` values in order of appearance (shape, then
    stride). A re-view of an allocation must stay inside it (cosize).

    `divisible = array<i64: ...>` (one positive entry per index operand) promises that
    each bound value is a multiple of its entry, as Triton's `divisibility=16`
    specialisation does: a dynamic stride known to be a multiple of 4 lets f32 rows start
    on 16-byte boundaries, so accesses along the rows may use 16-byte vectors. The
    reference executor checks the promise.

    `at_most = array<i64: ...>` (one entry per index operand, 0 for none) promises that
    each bound value is at most its entry: a dynamic extent known to be short (as
    `tilec.copy_` knows the extents up to 64 of its kernels, by their power-of-two
    ceiling) lets the `tile` pass take the whole mode in one tile instead of a tile
    made for long ones. The reference executor checks the promise.

        %a = layout.view %p(%m, %n) {at_most = array<i64: 0, 8>} : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>

    `residue = array<i64: ...>` (one entry per index operand, each below its `divisible`
    entry) promises that each bound value is its residue modulo its `divisible` entry
    (`divisible` then the modulus, the value a multiple of only what the two share,
    `divisors`): a run-time stride known modulo 32 (as `tilec.copy_` keys a `box<rows>`
    kernel by its source step's residue, `copy_key.ROWS_RESIDUES`) lets a pass take the
    layout a static stride of that residue gets. The reference executor checks it.

        %a = layout.view %p(%n, %s) {divisible = array<i64: 1, 32>, residue = array<i64: 0, 18>} : ..."""

    name = "layout.view"
    source = operand_def()
    dynamic = var_operand_def(index)
    divisible = opt_prop_def(DenseArrayBase)
    at_most = opt_prop_def(DenseArrayBase)
    residue = opt_prop_def(DenseArrayBase)
    result = result_def(TensorViewType)
    assembly_format = (
        "$source (`(` $dynamic^ `)`)? attr-dict `:` type($source) `->` type($result)"
    )
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, result_type: TensorViewType, dynamic=(),
                 divisible: Sequence[int] | None = None, at_most: Sequence[int] | None = None,
                 residue: Sequence[int] | None = None):
        props = {"divisible": _array(divisible)} if divisible is not None else {}
        if at_most is not None:
            props["at_most"] = _array(at_most)
        if residue is not None:
            props["residue"] = _array(residue)
        super().__init__(operands=[source, list(dynamic)], result_types=[result_type],
                         properties=props)

    def divisors(self) -> tuple[int, ...]:
        """What each index operand is promised to be a multiple of (1: nothing): its
        `divisible` entry, or with a `residue` what the two share."""
        return tuple(gcd(m, r) for m, r in self.congruences())

    def congruences(self) -> tuple[tuple[int, int], ...]:
        """(modulus, residue) each index operand is promised to be congruent to
        (`divisible`, `residue`; (1, 0): nothing)."""
        mods = (1,) * len(self.dynamic) if self.divisible is None else _ints(self.divisible)
        res = (0,) * len(self.dynamic) if self.residue is None else _ints(self.residue)
        return tuple(zip(mods, res))

    def bounds(self) -> tuple[int, ...]:
        """What each index operand is promised to be at most (0: nothing)."""
        if self.at_most is None:
            return (0,) * len(self.dynamic)
        return _ints(self.at_most)

    def verify_(self) -> None:
        rt = self.result.type
        st = self.source.type
        ndyn = count_dynamic(rt.cute_layout)
        _check(
            len(self.dynamic) == ndyn,
            f"layout {rt.cute_layout} has {ndyn} dynamic value(s) but {len(self.dynamic)} "
            "index operand(s) were given",
        )
        if self.divisible is not None:
            divs = _ints(self.divisible)
            _check(len(divs) == ndyn,
                   f"divisible has {len(divs)} entries but the view binds {ndyn} dynamic value(s)")
            _check(all(d >= 1 for d in divs), f"divisible entries must be positive, got {list(divs)}")
        if self.residue is not None:
            res = _ints(self.residue)
            _check(self.divisible is not None and len(res) == ndyn,
                   f"residue has {len(res)} entries, one per dynamic value ({ndyn}) below its `divisible` entry")
            _check(all(0 <= r < m for r, m in zip(res, _ints(self.divisible))),
                   f"residue entries must lie below their `divisible` entries, got {list(res)}")
        if self.at_most is not None:
            bounds = _ints(self.at_most)
            _check(len(bounds) == ndyn,
                   f"at_most has {len(bounds)} entries but the view binds {ndyn} dynamic value(s)")
            _check(all(b >= 0 for b in bounds), f"at_most entries must be 0 (none) or positive, got {list(bounds)}")
        if isinstance(st, PtrType):
            _check(st.element_type == rt.element_type,
                   f"element types disagree: pointer to {st.element_type}, view of {rt.element_type}")
            _check(rt.memory_space == "gmem", "a view of a pointer is in gmem")
            _check(rt.vec_layout is None,
                   "view a pointer with scalar elements, then vectorize")
            _check(not rt.is_masked, "a view of a pointer is not masked")
        elif isinstance(st, TensorViewType):
            _check(st.element_type == rt.element_type,
                   f"element types disagree: {st.element_type} and {rt.element_type}")
            _check(st.memory_space == rt.memory_space and st.memory_space != "gmem",
                   "re-view shared or register storage in the same memory space")
            have, need = st.cute_layout.cosize(), rt.cute_layout.cosize()
            _check(need <= have,
                   f"the view's layout {rt.cute_layout} reaches offset {need - 1}, past "
                   f"the allocation of {have} elements")
        else:
            raise VerifyException(f"expected a !layout.ptr or a !layout.tensor, got {st}")


def count_dynamic(layout: cute.Layout) -> int:
    def count(t):
        if isinstance(t, tuple):
            return sum(count(x) for x in t)
        return 1 if t is cute.DYN else 0

    return count(layout.shape) + count(layout.stride)


@irdl_op_definition
class AllocOp(IRDLOperation):
    """Shared (`smem`, one per block) or register (`rmem`, one per thread) storage of
    cosize(layout) elements, viewed with the type's layout. CuTe `make_fragment_like`
    is an `rmem` alloc shaped like a view.

        %s = layout.alloc : !layout.tensor<f32, #layout.cute<(32,33):(33,1)>, smem>"""

    name = "layout.alloc"
    traits = traits_def(Allocates())
    result = result_def(TensorViewType)
    assembly_format = "attr-dict `:` type($result)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, result_type: TensorViewType):
        super().__init__(result_types=[result_type])

    def verify_(self) -> None:
        t = self.result.type
        _check(t.memory_space in ("smem", "rmem"), "alloc makes smem or rmem storage")
        _check(not t.is_masked, "an allocation is not masked")
        _check(enclosing_launch(self) is not None, "layout.alloc must be inside a layout.launch")
        nbytes = t.cute_layout.cosize() * t.vector_size * element_bytes(t.element_type)
        if t.memory_space == "smem":
            limit = target_of(self).smem_per_block
            _check(nbytes <= limit,
                   f"shared allocation of {nbytes} bytes exceeds the {limit // 1024} KiB of a block")



@irdl_op_definition
class TileOp(InferredViewResult, IRDLOperation):
    """One tile of a view by tile coordinates (CuTe `local_tile`, Mojo `tile`).

        %t = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : A -> B

    Mode k of the result is mode k of the source composed with `tile[k]:1`, and the base
    offset grows by source_mode_k(coord_k * tile[k]). When a tile extent does not divide
    its mode (or the mode is dynamic) tiles at the edge lie partly outside, and the
    result must be `masked`: its elements past the source's extent do not exist. An
    unmasked tile must lie inside, except one used only as the global side of TMA
    copies (`layout.tma_load` / `tma_store`) or of `layout.cp_async_load`: its
    coordinates are the box's origin, and a box wholly past the end loads zeros and
    stores nothing."""

    name = "layout.tile"
    source = operand_def(TensorViewType)
    coords = var_operand_def(index)
    tile = prop_def(DenseArrayBase)
    result = result_def(TensorViewType)
    SYNTAX: ClassVar[str] = "coords"
    traits = traits_def(Pure())

    @classmethod
    def result_type(cls, st: TensorViewType, props: dict[str, Attribute]) -> TensorViewType:
        rt = tiled_view_type(st, _ints(props["tile"]))
        return rt.with_(layout=relaid(st, rt.cute_layout))

    def __init__(self, source: SSAValue, coords: Sequence[SSAValue], tile: Sequence[int]):
        props = {"tile": _array(tile)}
        rt = self.result_type(_view(source, "source"), props)
        super().__init__(operands=[source, list(coords)], properties=props, result_types=[rt])

    @property
    def tile_sizes(self) -> tuple[int, ...]:
        return _ints(self.tile)

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        _check(st.element_type == rt.element_type,
               f"element types disagree: {st.element_type} and {rt.element_type}")
        _check(st.memory_space == rt.memory_space, "a tile stays in its memory space")
        _check_same_swizzle(st, rt, "a tile")
        _check(len(self.coords) == len(self.tile_sizes),
               f"{len(self.tile_sizes)} tile extents but {len(self.coords)} coordinates")
        with refusing_layout_errors():
            lay, masked = views.tile_layout(st.cute_layout, self.tile_sizes)
        _same_layout(lay, rt.cute_layout, "tile")
        _check(st.vec == rt.vec, "a tile keeps the vector layout")
        if (masked or st.is_masked) and not rt.is_masked:
            raise VerifyException(
                f"tile {list(self.tile_sizes)} does not divide {st.cute_layout}: "
                "the result type must be masked"
            )


@irdl_op_definition
class VectorizeOp(InferredViewResult, IRDLOperation):
    """A view whose elements are vectors of `vector[k]` consecutive elements of mode k
    (Mojo `vectorize`): outer mode k = mode_k o (n_k/v_k : v_k), lanes = mode_k o (v_k:1).

        %v = layout.vectorize %t {vector = array<i64: 1, 4>} : A -> B"""

    name = "layout.vectorize"
    source = operand_def(TensorViewType)
    vector = prop_def(DenseArrayBase)
    result = result_def(TensorViewType)
    SYNTAX: ClassVar[str] = ""
    traits = traits_def(Pure())

    @classmethod
    def result_type(cls, st: TensorViewType, props: dict[str, Attribute]) -> TensorViewType:
        outer, vec = views.vectorize_layout(st.cute_layout, _ints(props["vector"]))
        return st.with_(layout=relaid(st, outer), vec=CuteLayoutAttr(vec))

    def __init__(self, source: SSAValue, vector: Sequence[int]):
        props = {"vector": _array(vector)}
        rt = self.result_type(_view(source, "source"), props)
        super().__init__(operands=[source], properties=props, result_types=[rt])

    @property
    def vector_sizes(self) -> tuple[int, ...]:
        return _ints(self.vector)

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        _check(st.vec_layout is None, "the source is already vectorized")
        _check(st.element_type == rt.element_type, "element types disagree")
        _check_same_swizzle(st, rt, "vectorize")
        with refusing_layout_errors():
            outer, vec = views.vectorize_layout(st.cute_layout, self.vector_sizes)
        _same_layout(outer, rt.cute_layout, "vectorize")
        _check(rt.vec_layout == vec, f"vectorize: expected vec layout {vec}, got {rt.vec_layout}")
        _check(rt.is_masked == st.is_masked, "vectorize keeps the mask")
        nbytes = vec.size() * element_bytes(st.element_type)
        _check(nbytes <= 16 or st.memory_space == "rmem",
               f"a vector of {nbytes} bytes exceeds the 16 bytes of one access")
        if isinstance(st.layout, ComposedLayoutAttr):
            sw = st.layout.data.swizzle
            unit = 1 << sw.base
            # the swizzle moves bits >= M: a vector of contiguous lanes inside one unit
            # of 2**M elements stays contiguous; a wider one would be split
            _check(sw.is_identity() or (vec.cosize() <= unit and unit % vec.size() == 0),
                   f"a vector of {vec.size()} elements ({vec}) would be split by {sw}, which "
                   f"permutes units of {unit} elements: vectorize by at most {unit} "
                   "contiguous elements")


@irdl_op_definition
class DistributeOp(InferredViewResult, IRDLOperation):
    """The fragment of thread `tid` when the threads of the thread layout are spread over
    the view (CuTe `local_partition`, Mojo `distribute`): the thread whose coordinate in
    the thread layout is c owns elements c + T*i of each mode (T = thread-layout extents).

        %f = layout.distribute %t, %tid {threads = #layout.cute<(8,4):(4,1)>} : A -> B

    The thread layout must be a bijection onto [0, size); `tid` must be below its size.
    If a mode's extent is not a multiple of the threads along it, the fragment is masked."""

    name = "layout.distribute"
    source = operand_def(TensorViewType)
    tid = operand_def(index)
    threads = prop_def(CuteLayoutAttr)
    result = result_def(TensorViewType)
    SYNTAX: ClassVar[str] = "tid"
    traits = traits_def(Pure())

    @classmethod
    def result_type(cls, st: TensorViewType, props: dict[str, Attribute]) -> TensorViewType:
        frag, masked = views.distribute_layout(st.cute_layout, props["threads"].data)
        return st.with_(layout=relaid(st, frag), masked=masked or st.is_masked)

    def __init__(self, source: SSAValue, tid: SSAValue, threads: cute.Layout):
        props = {"threads": CuteLayoutAttr(threads)}
        rt = self.result_type(_view(source, "source"), props)
        super().__init__(operands=[source, tid], properties=props, result_types=[rt])

    @property
    def thread_layout(self) -> cute.Layout:
        return self.threads.data

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        _check_same_swizzle(st, rt, "distribute")
        _check(st.element_type == rt.element_type, "element types disagree")
        thr = self.thread_layout
        _check(thr.is_static(), "the thread layout must be static")
        with refusing_layout_errors():
            views.thread_coord(thr, 0)
            frag, masked = views.distribute_layout(st.cute_layout, thr)
        _same_layout(frag, rt.cute_layout, "distribute")
        _check(st.vec == rt.vec, "distribute keeps the vector layout")
        if (masked or st.is_masked) and not rt.is_masked:
            raise VerifyException(
                f"thread layout {thr} does not divide {st.cute_layout}: the result must be masked"
            )
        launch = enclosing_launch(self)
        if launch is not None and thr.size() > launch.num_threads:
            raise VerifyException(
                f"thread layout {thr} has {thr.size()} threads but the block has "
                f"{launch.num_threads}"
            )


def tiler_of(tiler: Attribute):
    """A CuTe tiler from its attribute: a `#layout.cute` layout, by-mode extents
    (`array<i64: 8, 4>`), or by-mode layouts (`[#layout.cute<8:3>, #layout.cute<4:2>]`)."""
    if isinstance(tiler, CuteLayoutAttr):
        return tiler.data
    if isinstance(tiler, DenseArrayBase):
        return tuple(cute.make_layout(n, 1) for n in _ints(tiler))
    if isinstance(tiler, ArrayAttr) and tiler.data and all(isinstance(a, CuteLayoutAttr) for a in tiler.data):
        return tuple(a.data for a in tiler.data)
    raise VerifyException("tiler must be a #layout.cute, an array of extents or an array of #layout.cute (by mode)")


@irdl_op_definition
class ComposeOp(InferredViewResult, IRDLOperation):
    """CuTe's `composition(tensor, tiler)` as a view op (no data moves): the view's
    layout composed with `tiler` (a layout, or by-mode extents or layouts), over the
    same base.

        %c = layout.compose %t {tiler = [#layout.cute<4:2>, #layout.cute<2:1>]} : A -> B"""

    name = "layout.compose"
    source = operand_def(TensorViewType)
    tiler = prop_def(Attribute)
    result = result_def(TensorViewType)
    SYNTAX: ClassVar[str] = ""
    traits = traits_def(Pure())

    @classmethod
    def result_type(cls, st: TensorViewType, props: dict[str, Attribute]) -> TensorViewType:
        return st.with_(layout=CuteLayoutAttr(cls.composed(st.cute_layout, props["tiler"])))

    @staticmethod
    def composed(layout: cute.Layout, tiler: Attribute) -> cute.Layout:
        return cute.composition(layout, tiler_of(tiler))

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        _check(not st.is_masked, "compose an unmasked view")
        _check(isinstance(st.layout, CuteLayoutAttr), "compose a plain (unswizzled) layout")
        with refusing_layout_errors():
            lay = self.composed(st.cute_layout, self.tiler)
        _same_layout(lay, rt.cute_layout, "composition")


@irdl_op_definition
class DivideOp(InferredViewResult, IRDLOperation):
    """CuTe's divides as a view op (no data moves): `kind` is `logical`, `zipped`,
    `tiled` or `flat`; `tiler` is a layout, by-mode extents (`Shape<_8,_4>`), or
    by-mode layouts (`Tile<Layout<_8,_3>, Layout<_4,_2>>`).

        %d = layout.divide %t {kind = "zipped", tiler = array<i64: 4, 8>} : A -> B
        %d = layout.divide %t {kind = "zipped", tiler = [#layout.cute<8:3>, #layout.cute<4:2>]} : A -> B"""

    name = "layout.divide"
    source = operand_def(TensorViewType)
    kind = prop_def(StringAttr)
    tiler = prop_def(Attribute)
    result = result_def(TensorViewType)
    SYNTAX: ClassVar[str] = ""
    traits = traits_def(Pure())

    @classmethod
    def result_type(cls, st: TensorViewType, props: dict[str, Attribute]) -> TensorViewType:
        kind = props["kind"].data
        if kind not in cls.KINDS:
            raise LayoutError(f"kind must be one of {', '.join(cls.KINDS)}")
        return st.with_(layout=CuteLayoutAttr(cls.divided(st.cute_layout, kind, props["tiler"])))

    KINDS: ClassVar[tuple[str, ...]] = ("logical", "zipped", "tiled", "flat")

    @staticmethod
    def divided(layout: cute.Layout, kind: str, tiler: Attribute) -> cute.Layout:
        fn = {
            "logical": cute.logical_divide,
            "zipped": cute.zipped_divide,
            "tiled": cute.tiled_divide,
            "flat": cute.flat_divide,
        }[kind]
        return fn(layout, tiler_of(tiler))

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        _check(self.kind.data in self.KINDS, f"kind must be one of {', '.join(self.KINDS)}")
        _check(not st.is_masked, "divide an unmasked view")
        _check(isinstance(st.layout, CuteLayoutAttr), "divide a plain (unswizzled) layout")
        with refusing_layout_errors():
            lay = self.divided(st.cute_layout, self.kind.data, self.tiler)
        _same_layout(lay, rt.cute_layout, f"{self.kind.data}_divide")


@irdl_op_definition
class PartitionOp(InferredViewResult, IRDLOperation):
    """Thread-value partitioning (CuTe): `tv` maps (thread, value) to a coordinate of
    the view; the result is thread `tid`'s values, `composition(view, tv)(tid, _)`.

        %p = layout.partition %t, %tid {tv = #layout.cute<((4,8),4):((32,1),8)>} : A -> B"""

    name = "layout.partition"
    source = operand_def(TensorViewType)
    tid = operand_def(index)
    tv = prop_def(CuteLayoutAttr)
    result = result_def(TensorViewType)
    SYNTAX: ClassVar[str] = "tid"
    traits = traits_def(Pure())

    @classmethod
    def result_type(cls, st: TensorViewType, props: dict[str, Attribute]) -> TensorViewType:
        return st.with_(layout=CuteLayoutAttr(cls.values_layout(st.cute_layout, props["tv"].data)))

    @staticmethod
    def values_layout(view: cute.Layout, tv: cute.Layout) -> cute.Layout:
        if tv.rank() != 2:
            raise LayoutError(f"a TV layout has two modes (thread, value), got {tv}")
        return cute.composition(view, tv)[1]

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        _check(not st.is_masked, "partition an unmasked view")
        tv = self.tv.data
        with refusing_layout_errors():
            lay = self.values_layout(st.cute_layout, tv)
        _check(tv.cosize() <= st.cute_layout.size(),
               f"TV layout {tv} reaches past the {st.cute_layout.size()} elements of the view")
        _same_layout(lay, rt.cute_layout, "partition")
        launch = enclosing_launch(self)
        if launch is not None and tv[0].size() > launch.num_threads:
            raise VerifyException(
                f"TV layout {tv} has {tv[0].size()} threads but the block has {launch.num_threads}"
            )


WILDCARD = views.WILDCARD
DYNAMIC = views.DYNAMIC


@irdl_op_definition
class SliceOp(IRDLOperation):
    """Fix some coordinates of a view and keep the modes marked `_` (CuTe's `A(_, j)`):

        %row = layout.slice %t[%i, _] : !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
                                      -> !layout.tensor<f32, #layout.cute<8:1>, gmem>

    Coordinates are index values, integer constants or `_`, one per top-level mode, or a
    parenthesised tuple for a nested mode (CuTe's `A(make_coord(_, 1), make_coord(0, _, 1))`
    is `%A[(_, 1), (0, _, 1)]`). The result has one top-level mode per `_`, in order (a `_`
    keeps a nested mode whole); the base offset grows by the layout of the fixed
    coordinates (CuTe `slice_and_offset`). The result type `-> B` may be left out: it is
    then the one these rules give.

    `pattern` holds the coordinate's leaves in pre-order (WILDCARD, DYNAMIC or the index);
    `profile`, present only when a coordinate is nested, the number of children of each
    coordinate node in pre-order (0 for a leaf)."""

    name = "layout.slice"
    source = operand_def(TensorViewType)
    coords = var_operand_def(index)
    pattern = prop_def(DenseArrayBase)
    profile = opt_prop_def(DenseArrayBase)
    result = result_def(TensorViewType)
    traits = traits_def(Pure())

    @property
    def pattern_values(self) -> tuple[int, ...]:
        return _ints(self.pattern)

    @property
    def profile_values(self) -> tuple[int, ...]:
        return _ints(self.profile) if self.profile is not None else ()

    def leaves(self, layout: cute.Layout) -> list[views.SliceLeaf]:
        """The coordinate's leaves walked over `layout` (the source's, or its run-time
        form in the executor)."""
        return views.slice_leaves(layout, self.pattern_values, self.profile_values)

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        pat = self.pattern_values
        _check(sum(p == DYNAMIC for p in pat) == len(self.coords), "one operand per dynamic coordinate")
        _check(not st.is_masked, "slice an unmasked view")
        with refusing_layout_errors():
            leaves = self.leaves(st.cute_layout)
        _check(any(leaf.p == WILDCARD for leaf in leaves), "a slice keeps at least one mode (`_`)")
        for leaf in leaves:
            if leaf.p >= 0 and not views.is_dynamic(leaf.sub.size()):
                _check(leaf.p < leaf.sub.size(), f"coordinate {leaf.p} is out of range for mode {leaf.sub}")
        _same_layout(views.sliced_layout(st.cute_layout, pat, self.profile_values), rt.cute_layout, "slice")
        _check_same_swizzle(st, rt, "a slice")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        leaves, operands = iter(self.pattern_values), iter(self.coords)

        def leaf() -> None:
            p = next(leaves)
            if p == DYNAMIC:
                printer.print_operand(next(operands))
            else:
                printer.print_string("_" if p == WILDCARD else str(p))

        print_nested(printer, self.profile_values or [0] * len(self.pattern_values), leaf)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> SliceOp:
        src = parser.parse_unresolved_operand()
        pat: list[int] = []
        prof: list[int] = []
        dyn: list[UnresolvedOperand] = []

        def leaf() -> None:
            if parser.parse_optional_keyword("_") is not None:
                pat.append(WILDCARD)
                return
            if (o := parser.parse_optional_unresolved_operand()) is not None:
                pat.append(DYNAMIC)
                dyn.append(o)
                return
            pat.append(parser.parse_integer(allow_boolean=False, allow_negative=False))

        parser.parse_comma_separated_list(parser.Delimiter.SQUARE, nested_item(parser, prof, leaf, "slice coordinate"))
        start = parser.pos
        parser.parse_punctuation(":")
        st = parser.parse_type()
        props = {"pattern": _array(pat)}
        if any(prof):
            props["profile"] = _array(prof)
        if parser.parse_optional_punctuation("->") is not None:
            rt = parser.parse_type()
        elif not isinstance(st, TensorViewType):
            parser.raise_error(f"layout.slice takes a !layout.tensor, got {st}", start, parser.pos)
        else:  # the result type is the algebra's (see InferredViewResult)
            try:
                rt = st.with_(layout=relaid(st, views.sliced_layout(st.cute_layout, pat, prof if any(prof) else ())))
            except LayoutError as e:
                parser.raise_error(f"layout.slice: no result type follows from {st}: {e}", start, parser.pos)
        return cls.create(
            operands=[parser.resolve_operand(src, st)] + [parser.resolve_operand(d, index) for d in dyn],
            properties=props,
            result_types=[rt],
        )


# =========================================================================== copies


def _check_copy(src: TensorViewType, dst: TensorViewType, convert: StringAttr | None = None) -> None:
    if convert is None:
        _check(src.element_type == dst.element_type,
               f"element types disagree: {src.element_type} and {dst.element_type} "
               "(a converting copy names its conversion: convert = \"SRC->DST\")")
    else:
        try:
            names = parse_convert(convert.data)
        except ConversionError as e:
            raise VerifyException(str(e)) from None
        for name, t, side in zip(names, (src.element_type, dst.element_type), ("source", "dest")):
            _check(STORAGE[name] == str(t),
                   f"convert = \"{convert.data}\": {name} is stored as {STORAGE[name]}, "
                   f"but the {side} holds {t}")
    if src.is_masked or dst.is_masked:
        _check(views.mode_sizes(src.cute_layout) == views.mode_sizes(dst.cute_layout)
               and src.vector_size == dst.vector_size,
               f"a masked copy needs views of the same shape, got "
               f"{list(views.mode_sizes(src.cute_layout))} and {list(views.mode_sizes(dst.cute_layout))}")
    ns, nd = src.num_elements(), dst.num_elements()
    if not (views.is_dynamic(ns) or views.is_dynamic(nd)):
        _check(ns == nd, f"copy between views of different sizes: {ns} and {nd} elements")


@irdl_op_definition
class CopyOp(IRDLOperation):
    """dst(i) = src(i) for every logical index i (colexicographic), element by element
    (vector lanes in order). Elements that do not exist in a masked src or dst are
    skipped. Sizes must agree.

        layout.copy %a, %b : !layout.tensor<...>, !layout.tensor<...>
        layout.copy %a, %b {convert = "float32->bfloat16"} : !layout.tensor<f32, ...>, !layout.tensor<bf16, ...>

    With `convert = "SRC->DST"` (NumPy dtype names) each element is converted in
    registers as PyTorch's `copy_` converts SRC to DST (dialects/conversions.py); the
    views hold the dtypes' storage types (`uint8` and `bool` in `i8`).

    With `strategy = #layout.copy_strategy<tma | async | simt>` the program chooses how
    the data moves (CuTe's TiledCopy, Mojo's TileTensor copier), and the passes keep to
    it or stop with an error: `tma` (global <-> shared: the `tma` pass makes it a TMA
    copy), `async` (global -> shared: `distribute` splits it into fragments and
    `vectorize` makes them `cp.async` + wait), `simt` (loads and stores by threads,
    never TMA nor cp.async), `gather` (a whole-tensor copy between global views, outside
    any launch: each thread writes a run of consecutive destination elements and gathers
    their sources; the `tile` pass writes it as pointer tensors, and the `copy-strategy`
    pass chooses it from the facts where the tiled copy would idle its lanes), `realign`
    (a whole-tensor copy between global views, outside any launch, of rows contiguous
    in both views, each view's pointer a 16-byte aligned pointer moved by a scalar
    `layout.addptr` (its misalignment): aligned 16-byte destination chunks filled from
    aligned source vectors by `layout.funnel_shift`; the `tile` pass writes it, the
    `copy-strategy` pass chooses it where the two views' rows start at addresses that
    differ modulo 16 bytes), `box<flat | rows | cols>` (a whole-tensor copy of 1-byte
    elements between global views, outside any launch, without conversion: boxes of
    contiguous source runs through shared memory; the `copy-strategy` pass chooses it
    with `box=auto`, passes/_copy_cost.box_flavour). Without it the passes choose. The strategy does not change what the copy computes.

        layout.copy %g, %s {strategy = #layout.copy_strategy<async>} : !G, !S"""

    name = "layout.copy"
    traits = traits_def(Accesses(reads=("source",), writes=("dest",)))
    source = operand_def(TensorViewType)
    dest = operand_def(TensorViewType)
    convert = opt_prop_def(StringAttr)
    strategy = opt_prop_def(CopyStrategyAttr)
    assembly_format = "$source `,` $dest attr-dict `:` type($source) `,` type($dest)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, source: SSAValue, dest: SSAValue, convert: StringAttr | str | None = None,
                 strategy: CopyStrategyAttr | str | None = None):
        if isinstance(convert, str):
            convert = StringAttr(convert)
        if isinstance(strategy, str):
            strategy = CopyStrategyAttr(strategy)
        props: dict = {"convert": convert} if convert is not None else {}
        if strategy is not None:
            props["strategy"] = strategy
        super().__init__(operands=[source, dest], properties=props)

    @property
    def strategy_name(self) -> str | None:
        """The strategy the program chose (`tma`, `async`, `simt`, ..., `box<flat>` with
        its flavour), or None: the passes choose."""
        return None if self.strategy is None else self.strategy.data

    def verify_(self) -> None:
        _check_copy(self.source.type, self.dest.type, self.convert)
        kind = self.strategy_name
        if kind is None:
            return
        kind = self.strategy.kind
        spaces = (self.source.type.memory_space, self.dest.type.memory_space)
        if kind == "tma":
            _check(spaces in (("gmem", "smem"), ("smem", "gmem")),
                   f"copy strategy tma copies between global and shared memory, got {spaces[0]} -> {spaces[1]}")
        elif kind == "async":
            _check(spaces == ("gmem", "smem"),
                   f"copy strategy async (cp.async) copies global to shared memory, got {spaces[0]} -> {spaces[1]}")
        elif kind == "gather":
            _check(spaces == ("gmem", "gmem") and enclosing_launch(self) is None,
                   "copy strategy gather is a whole-tensor copy between global views, outside any launch")
            return
        elif kind == "realign":
            _check(spaces == ("gmem", "gmem") and enclosing_launch(self) is None,
                   "copy strategy realign is a whole-tensor copy between global views, outside any launch")
        elif kind == "box":
            _check(spaces == ("gmem", "gmem") and enclosing_launch(self) is None,
                   "copy strategy box is a whole-tensor copy between global views, outside any launch")
            sizes = {element_bytes(self.source.type.element_type), element_bytes(self.dest.type.element_type)}
            if self.strategy.flavour == "tiles":  # type: ignore[union-attr]
                _check((len(sizes) == 1 or self.convert is not None) and sizes <= {1, 2, 4, 8},
                       "copy strategy box<tiles> copies elements of 1, 2, 4 or 8 bytes, the same in both views "
                       "unless it converts")
                return  # its phase 2 converts each element (passes/_box_tile.tiles_launch)
            _check(sizes == {1}, "copy strategy box copies 1-byte elements")
        _check(self.convert is None or kind == "simt",
               f"copy strategy {kind} moves bytes as they are: a converting copy is simt or box<tiles>")


@irdl_op_definition
class CopyAsyncOp(IRDLOperation):
    """`layout.copy` from global to shared memory that completes asynchronously
    (`cp.async`): the destination may be read only after a `layout.async_wait` that
    covers it, and by other threads only after a barrier. Each call commits one group.
    Each element (vector) moved is 4, 8 or 16 bytes. With a result, it gives the
    `!layout.async_token` of its completion, for `layout.async_wait %token`:

        %t = layout.copy_async %g, %s : !G, !S -> !layout.async_token"""

    name = "layout.copy_async"
    traits = traits_def(Accesses(reads=("source",), writes=("dest",)))
    source = operand_def(TensorViewType)
    dest = operand_def(TensorViewType)
    token = opt_result_def(AsyncTokenType)
    assembly_format = "$source `,` $dest attr-dict `:` type($source) `,` type($dest) (`->` type($token)^)?"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, source: SSAValue, dest: SSAValue, *, token: bool = False):
        super().__init__(operands=[source, dest], result_types=[[AsyncTokenType()] if token else []])

    def verify_(self) -> None:
        s, d = self.source.type, self.dest.type
        _check(s.memory_space == "gmem" and d.memory_space == "smem",
               f"copy_async copies global to shared memory, got {s.memory_space} -> {d.memory_space}")
        _check_copy(s, d)
        nbytes = s.vector_size * element_bytes(s.element_type)
        _check(nbytes in (4, 8, 16),
               f"copy_async moves 4, 8 or 16 bytes per element, got {nbytes}: vectorize first")


@irdl_op_definition
class AsyncWaitOp(IRDLOperation):
    """Wait until at most `pending` groups of this thread's `copy_async` are in flight,
    or until the copies of the named tokens have landed:

        layout.async_wait {pending = 1}
        layout.async_wait %t0           (%t0 of a copy_async earlier in this block)
        layout.async_wait {pending = 0, commit}

    `commit` first closes the thread's group of `uncommitted` `layout.copy_chunk_async`
    copies (with `pending = 0`: `cp.async.wait_all`). A token wait keeps in flight the
    copies issued after the newest named token, which must all be in this block (none
    inside a region between): `groups_in_flight()`."""

    name = "layout.async_wait"
    traits = traits_def(Synchronizes())
    tokens = var_operand_def(AsyncTokenType)
    pending = opt_prop_def(IntegerAttr)
    commit = opt_prop_def(UnitAttr)
    assembly_format = "($tokens^)? attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, pending: int | None = 0, tokens: Sequence[SSAValue] = (), commit: bool = False):
        props: dict = {} if pending is None else {"pending": IntegerAttr(pending, i64)}
        if commit:
            props["commit"] = UnitAttr()
        super().__init__(operands=[list(tokens)], properties=props)

    def groups_in_flight(self) -> int:
        """The commit groups this wait leaves in flight (`cp.async.wait_group N`)."""
        if self.pending is not None:
            return self.pending.value.data
        block = self.parent_block()
        issuers = [t.owner for t in self.tokens]
        if block is None or any(not isinstance(o, CopyAsyncOp) or o.parent_block() is not block for o in issuers):
            raise LayoutError("async_wait waits on tokens of layout.copy_async ops of its own block")
        newest = max(issuers, key=lambda o: block.get_operation_index(o))
        if block.get_operation_index(newest) > block.get_operation_index(self):
            raise LayoutError("async_wait waits on a copy_async that comes after it")
        count, op = 0, newest.next_op
        while op is not None and op is not self:
            if isinstance(op, CopyAsyncOp):
                count += 1
            elif any(isinstance(o, CopyAsyncOp) for r in op.regions for o in r.walk()):
                raise LayoutError("a copy_async inside a region between a token and its async_wait: "
                                  "the groups in flight are not known statically (use pending)")
            op = op.next_op
        return count

    def verify_(self) -> None:
        _check((self.pending is None) != (len(self.tokens) == 0),
               "async_wait takes either tokens or {pending = N}, not both")
        if self.tokens:
            with refusing_layout_errors():
                self.groups_in_flight()


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """All threads of the block arrive here before any continues (`__syncthreads`)."""

    name = "layout.barrier"
    traits = traits_def(Synchronizes())
    assembly_format = "attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        _check(enclosing_launch(self) is not None, "layout.barrier must be inside a layout.launch")



DERIVED_VIEW_OPS = (TileOp, VectorizeOp, DistributeOp, DivideOp, ComposeOp, PartitionOp, SliceOp)
"""Ops whose result is a view of their `source` view (operand 0), no data moved."""
VIEW_OPS = (ViewOp, AllocOp, *DERIVED_VIEW_OPS)
"""Every op whose result is a view."""


# =========================================================================== distributed values


@irdl_op_definition
class LoadOp(IRDLOperation):
    """Each thread loads the elements its distributed layout gives it: element (i, j, ..)
    of the result is the view's element with coordinate (i, j, ..) (one coordinate per
    top-level mode). Elements missing from a masked view, and elements where the
    optional `mask` (a tensor of i1 in the result's layout, Gluon's `mask=`) is false,
    are not read and are `other` (default 0; Gluon's `other=`). `vector` (set by
    `vectorize`) is the number of consecutive register elements moved per access;
    `uniform_mask` (also set by it) says that the view's mask and `mask` are each the
    same over every vector, so that one predicate guards each (otherwise a vector
    whose lanes disagree is read lane by lane). `cache` (set by `reread-order{cache_hints}`),
    on a load of global memory, is an L2 eviction priority for its lines (`CACHE_HINTS`:
    "evict_last" keeps them in L2 before others, "evict_first" lets them go first; PTX
    `createpolicy` and `.L2::cache_hint`); it changes no value, only what L2 keeps.
    From shared memory into a layout of 16-bit elements (an MMA operand layout, for
    one), `lower-to-gpu` issues `ldmatrix` (x1/x2/x4, `.trans`) when the register
    layout composed with the view's offsets gives each 8x8 matrix 16-byte-aligned,
    contiguous rows, and says so in the CUDA (examples/gemm_bf16.mlir).

        %v = layout.load %t : !layout.tensor<...> -> tensor<64x64xf32, #layout.blocked<...>>
        %w = layout.load %t, %ninf : f32 mask %m : tensor<64x64xi1, #b> : !layout.tensor<...> -> tensor<64x64xf32, #b>"""

    name = "layout.load"
    traits = traits_def(Accesses(reads=("view",)))
    view = operand_def(TensorViewType)
    other = opt_operand_def()
    mask = opt_operand_def(TensorType)
    vector = opt_prop_def(IntegerAttr)
    uniform_mask = opt_prop_def(UnitAttr)
    cache = opt_prop_def(StringAttr)
    result = result_def(TensorType)
    assembly_format = (
        "$view (`,` $other^ `:` type($other))? (`mask` $mask^ `:` type($mask))? attr-dict "
        "`:` type($view) `->` type($result)"
    )
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))

    def __init__(self, view: SSAValue, result_type: TensorType, other: SSAValue | None = None,
                 mask: SSAValue | None = None):
        super().__init__(operands=[view, other, mask], result_types=[result_type])

    def verify_(self) -> None:
        vt, rt = self.view.type, _dist(self.result)
        _check_view_matches(vt, rt)
        if self.other is not None:
            _check(self.other.type == vt.element_type,
                   f"`other` must have the element type {vt.element_type}, got {self.other.type}")
        _check_mask(self.mask, rt)
        _check_vector(self.vector, vt)
        _check_cache(self.cache, vt)
        check_block_threads(self, rt)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """Each thread stores the elements it owns to the view (inverse of `layout.load`);
    elements missing from a masked view, and elements where the optional `mask` (a
    tensor of i1 in the value's layout) is false, are not stored. `vector` and
    `uniform_mask` and `cache` as for `layout.load`. To shared memory on sm_90, a layout that fits
    `stmatrix` (as `ldmatrix` for `layout.load`; each element held by one thread) is
    stored with it.

        layout.store %v, %t : tensor<64x64xf32, #layout.blocked<...>>, !layout.tensor<...>
        layout.store %v, %t mask %m : tensor<64x64xi1, #b> : tensor<64x64xf32, #b>, !layout.tensor<...>"""

    name = "layout.store"
    traits = traits_def(Accesses(writes=("view",)))
    value = operand_def(TensorType)
    view = operand_def(TensorViewType)
    mask = opt_operand_def(TensorType)
    vector = opt_prop_def(IntegerAttr)
    uniform_mask = opt_prop_def(UnitAttr)
    cache = opt_prop_def(StringAttr)
    assembly_format = (
        "$value `,` $view (`mask` $mask^ `:` type($mask))? attr-dict `:` type($value) `,` type($view)"
    )
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, value: SSAValue, view: SSAValue, mask: SSAValue | None = None):
        super().__init__(operands=[value, view, mask])

    def verify_(self) -> None:
        _check_view_matches(self.view.type, _dist(self.value))
        _check_mask(self.mask, self.value.type)
        _check_vector(self.vector, self.view.type)
        _check_cache(self.cache, self.view.type)
        check_block_threads(self, self.value.type)


@irdl_op_definition
class PrefetchOp(IRDLOperation):
    """The block asks L2 for the bytes of a contiguous view of global memory ahead of its
    loads (a row it is about to read): one thread issues one bulk prefetch of the view's
    16-byte-aligned interior (PTX `cp.async.bulk.prefetch.L2`, on targets with bulk
    copies, sm_90; elsewhere it lowers to nothing). It reads and changes no value: the
    loads that follow read memory as before, from L2 where the prefetch brought it
    there. `cache` as for `layout.load`: the L2 eviction priority the lines come in with.
    The view has a static layout whose elements lie at consecutive offsets (its cosize
    is its size: a row); a masked one (a tile of a tensor with a run-time row count) is
    prefetched only where it lies wholly inside its tensor. `reread-order{prefetch}`
    places it.

        layout.prefetch %row {cache = "evict_last"} : !layout.tensor<f16, #layout.cute<(1,50257):(50257,1)>, gmem>"""

    name = "layout.prefetch"
    # no memory-effect trait: its effect is on the cache, which no value shows, and an op
    # that only read would be erased as dead
    view = operand_def(TensorViewType)
    cache = opt_prop_def(StringAttr)
    assembly_format = "$view attr-dict `:` type($view)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, view: SSAValue, cache: str | None = None):
        super().__init__(operands=[view], properties={"cache": StringAttr(cache)} if cache else {})

    def verify_(self) -> None:
        vt = _view(self.view, "view")
        _check(vt.memory_space == "gmem", f"a prefetch into L2 is of global memory; this view is in {vt.memory_space}")
        _check(vt.vec_layout is None, "a prefetch takes an unvectorized view")
        lay = vt.cute_layout
        _check(isinstance(lay, cute.Layout) and lay.is_static() and lay.cosize() == lay.size(),
               f"a prefetch takes a view of consecutive elements (cosize = size); {lay} is not")
        _check_cache(self.cache, vt)


@irdl_op_definition
class PrefetchL1Op(IRDLOperation):
    """Each thread asks its multiprocessor's L1 for the lines of the elements of a global
    view that a `layout.load` of the view into `like` (a distributed tensor type: the
    shape and the layout) would give the thread (PTX `prefetch.global.L1`, one a
    register's element), without reading them: no value is read or changed, and a later
    load of those elements finds them in L1 (a load's scoreboard waits for its own
    latency, a prefetch's for nothing). Elements outside a masked view are not asked
    for. The block-scaled GEMM's K loop asks for its scales a 32-byte sector ahead
    (`gemm_hopper_ws(scale_prefetch=True)`).

        layout.prefetch_l1 %col {like = tensor<128xf32, #slice>} : !layout.tensor<f32, #layout.cute<(128):(64)>, gmem>"""

    name = "layout.prefetch_l1"
    # no memory-effect trait, as layout.prefetch: its effect is on the cache
    view = operand_def(TensorViewType)
    like = prop_def(TensorType)
    assembly_format = "$view attr-dict `:` type($view)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, view: SSAValue, like: TensorType):
        super().__init__(operands=[view], properties={"like": like})

    def verify_(self) -> None:
        vt = _view(self.view, "view")
        _check(vt.memory_space == "gmem", f"a prefetch into L1 is of global memory; this view is in {vt.memory_space}")
        _check(vt.vec_layout is None, "a prefetch takes an unvectorized view")
        like = _dist(self.like)
        _check_view_matches(vt, like)
        check_block_threads(self, like)


CACHE_HINTS = ("evict_first", "evict_last")
"""The L2 eviction priorities a `layout.load` / `layout.store` of global memory may carry as its `cache`."""


def _check_cache(cache: StringAttr | None, vt: TensorViewType) -> None:
    """`cache`: one of CACHE_HINTS, on an access of global memory (L2 caches global memory only)."""
    if cache is None:
        return
    _check(cache.data in CACHE_HINTS,
           f"cache = \"{cache.data}\": the L2 eviction priority is one of {', '.join(CACHE_HINTS)}")
    _check(vt.memory_space == "gmem",
           f"cache = \"{cache.data}\" is for global memory; this view is in {vt.memory_space}")


def _check_vector(vector: IntegerAttr | None, vt: TensorViewType) -> None:
    """`vector` (set by the vectorize pass): a power of two of at most 16 bytes."""
    if vector is None:
        return
    n = vector.value.data
    nbytes = n * element_bytes(vt.element_type)
    _check(n >= 1 and n & (n - 1) == 0 and nbytes <= 16,
           f"vector = {n}: an access moves a power of two of elements, at most 16 bytes "
           f"({16 // element_bytes(vt.element_type)} of {vt.element_type})")


def _check_mask(mask: SSAValue | None, t: TensorType) -> None:
    if mask is None:
        return
    m = _dist(mask)
    _check(m.element_type == IntegerType(1) and tuple(m.get_shape()) == tuple(t.get_shape())
           and m.encoding == t.encoding,
           f"the mask must be a tensor of i1 of the value's shape and layout, got {m}")


def _check_view_matches(vt: TensorViewType, rt: TensorType) -> None:
    _check(vt.vec_layout is None, "load and store take unvectorized views")
    _check(vt.element_type == rt.element_type,
           f"element types disagree: view of {vt.element_type}, value of {rt.element_type}")
    shape = views.mode_sizes(vt.cute_layout)
    _check(tuple(rt.get_shape()) == tuple(shape),
           f"the view has shape {list(shape)} but the value has shape {list(rt.get_shape())}")


_KIND_TEXT = {
    "warp_shuffle": "lanes of a warp exchange elements (warp shuffles)",
    "shared": "elements cross warps (a shared-memory round trip)",
}


@irdl_op_definition
class ConvertLayoutOp(TensorToTensorOp):
    """The same tensor in another distributed layout (data moves between threads).

        %w = layout.convert_layout %v : tensor<64x64xf32, #A> -> tensor<64x64xf32, #B>
        %w = layout.convert_layout %v {assert_trivial = true} : ... (registers only, or an error)"""

    name = "layout.convert_layout"
    assert_trivial = opt_prop_def(IntegerAttr)
    """Gluon's `assert_trivial=True`: the conversion must move no data between threads
    (the linear layouts decide: identity or registers only), else a verifier error."""
    lowering = opt_prop_def(StringAttr)
    """How `lower-convert-layout` decided this conversion is lowered, which `lower-to-gpu`
    follows: `"register"` (registers renamed, or chosen with selects: no data leaves the
    thread) or `"shuffle"` (warp shuffles). Absent: `lower-to-gpu` decides from the
    linear layouts."""

    def __init__(self, source: SSAValue, result_type: TensorType):
        super().__init__(operands=[source], result_types=[result_type])

    LOWERINGS: ClassVar[dict[str, tuple[str, ...]]] = {"register": ("identity", "register"), "shuffle": ("register", "warp_shuffle")}
    """Each `lowering` and the conversion kinds (dialects/linear.py) it can lower."""

    def _verify_lowering(self, s: TensorType, r: TensorType) -> None:
        from .linear import conversion_kind

        how = self.lowering.data
        _check(how in self.LOWERINGS, f"lowering must be one of {', '.join(self.LOWERINGS)}, got '{how}'")
        shape = list(s.get_shape())
        kind = conversion_kind(to_linear(s.encoding, shape), to_linear(r.encoding, shape))
        _check(kind in self.LOWERINGS[how],
               f"a '{kind}' conversion cannot be lowered as '{how}' (it can: {', '.join(self.LOWERINGS[how])})")

    def verify_(self) -> None:
        s, r = _dist(self.source), _dist(self.result)
        _check(s.get_shape() == r.get_shape() and s.element_type == r.element_type,
               f"convert_layout keeps shape and element type: {s} -> {r}")
        check_block_threads(self, r)
        ns, nr = threads_per_block(s.encoding), threads_per_block(r.encoding)
        _check(ns == nr,
               f"both layouts must span the same number of threads: {ns} and {nr}")
        if self.lowering is not None:
            self._verify_lowering(s, r)
        if self.assert_trivial is not None and self.assert_trivial.value.data:
            from .linear import conversion_kind

            shape = list(s.get_shape())
            kind = conversion_kind(to_linear(s.encoding, shape), to_linear(r.encoding, shape))
            _check(kind in ("identity", "register"),
                   f"assert_trivial: converting {s.encoding} to {r.encoding} is not "
                   f"register-only: {_KIND_TEXT.get(kind, kind)}")


@irdl_op_definition
class SplatOp(IRDLOperation):
    """A distributed tensor with every element equal to a scalar. Splatting a
    `!layout.ptr<T, align A>` to a tensor of `!layout.ptr<T>` makes a pointer tensor
    (`layout.addptr`)."""

    name = "layout.splat"
    value = operand_def()
    result = result_def(TensorType)
    assembly_format = "$value attr-dict `:` type($value) `->` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        r = _dist(self.result)
        vt, et = self.value.type, r.element_type
        # a pointer tensor's elements need not keep the pointer's alignment (layout_ptr)
        dropped_align = isinstance(vt, PtrType) and et == PtrType(vt.element_type)
        _check(vt == et or dropped_align,
               f"splat a scalar of the element type {et}, got {vt}")


@irdl_op_definition
class ArangeOp(IRDLOperation):
    """`[start, end)` as a 1-D distributed i32 tensor (Gluon `arange`)."""

    name = "layout.arange"
    start = prop_def(IntegerAttr)
    end = prop_def(IntegerAttr)
    result = result_def(TensorType)
    assembly_format = "attr-dict `:` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        r = _dist(self.result)
        n = self.end.value.data - self.start.value.data
        _check(len(r.get_shape()) == 1 and r.get_shape()[0] == n,
               f"arange of {n} values makes a 1-D tensor of {n} elements")
        _check(r.element_type == IntegerType(32), "arange makes i32 values")


def _check_slice_of(enc: Attribute, axis: int, parent: Attribute, which: str, other: str) -> None:
    """`enc` must be the slice of `parent` along `axis` (Gluon's expand_dims/reduce rule)."""
    _check(isinstance(enc, SliceLayoutAttr) and enc.dim_index == axis and enc.parent == parent,
           f"the {which} layout must be #layout.slice<{{dim = {axis}, parent = <{other} layout>}}>")


@irdl_op_definition
class ExpandDimsOp(TensorToTensorOp):
    """Insert a dimension of extent 1 at `axis`; the source's layout must be the slice
    of the result's layout along `axis` (Gluon `expand_dims`)."""

    name = "layout.expand_dims"
    axis = prop_def(IntegerAttr)

    def verify_(self) -> None:
        s, r = _dist(self.source), _dist(self.result)
        ax = self.axis.value.data
        shape = list(s.get_shape())
        _check(0 <= ax <= len(shape), f"axis {ax} out of range")
        _check(list(r.get_shape()) == shape[:ax] + [1] + shape[ax:],
               "expand_dims inserts one dimension of extent 1")
        _check_slice_of(s.encoding, ax, r.encoding, "source", "result")


@irdl_op_definition
class BroadcastOp(TensorToTensorOp):
    """Repeat extent-1 dimensions to the result's shape (same distributed layout)."""

    name = "layout.broadcast"

    def verify_(self) -> None:
        s, r = _dist(self.source), _dist(self.result)
        _check(s.encoding == r.encoding and s.element_type == r.element_type,
               "broadcast keeps the layout and the element type")
        ss, rs = s.get_shape(), r.get_shape()
        _check(len(ss) == len(rs) and all(a == b or a == 1 for a, b in zip(ss, rs)),
               f"cannot broadcast shape {list(ss)} to {list(rs)}")


REDUCE_KINDS = ("add", "mul", "max", "min")


@irdl_op_definition
class ReduceOp(TensorToTensorOp):
    """Reduce along `axis` with `kind` (add, mul, max, min); the result's layout is the
    slice of the source's layout along `axis` (Gluon `reduce`)."""

    name = "layout.reduce"
    axis = prop_def(IntegerAttr)
    kind = prop_def(StringAttr)

    def verify_(self) -> None:
        s, r = _dist(self.source), _dist(self.result)
        ax = self.axis.value.data
        _check(self.kind.data in REDUCE_KINDS, f"kind must be one of {', '.join(REDUCE_KINDS)}")
        shape = list(s.get_shape())
        _check(0 <= ax < len(shape), f"axis {ax} out of range")
        _check(list(r.get_shape()) == shape[:ax] + shape[ax + 1:], "reduce removes `axis`")
        _check_slice_of(r.encoding, ax, s.encoding, "result", "source")


from .layout_access import ACCESS_OPS  # noqa: E402  (ops of the dialect in their own modules)
from .layout_print import PRINT_OPS  # noqa: E402
from .layout_query import QUERY_OPS  # noqa: E402
from .layout_like import LIKE_OPS  # noqa: E402
from .layout_identity import IDENTITY_OPS, MakeIdentityTensorOp  # noqa: E402

VIEW_OPS = (*VIEW_OPS, MakeIdentityTensorOp)  # an identity tensor is a view too (of no memory)
from .layout_static_assert import STATIC_ASSERT_OPS  # noqa: E402
from .layout_compute import COMPUTE_OPS  # noqa: E402
from .layout_iter import ITER_OPS, ITER_TYPES  # noqa: E402
from .layout_mma import MMA_OPS  # noqa: E402
from .layout_dot import DOT_OPS  # noqa: E402
from .layout_tma import TMA_OPS, TMA_TYPES  # noqa: E402
from .layout_roles import ROLE_OPS  # noqa: E402
from .layout_ptr import POINTER_OPS  # noqa: E402
from .layout_funnel import FUNNEL_OPS  # noqa: E402
from .thread_ids import THREAD_ID_OPS  # noqa: E402
from .layout_atomic import ATOMIC_OPS  # noqa: E402
from .auto_layout import AutoLayoutAttr  # noqa: E402

Layout = Dialect(
    "layout",
    [
        *COMPUTE_OPS,
        *MMA_OPS,
        *DOT_OPS,
        *TMA_OPS,
        *ROLE_OPS,
        *ACCESS_OPS,
        *PRINT_OPS,
        *QUERY_OPS,
        *LIKE_OPS,
        *IDENTITY_OPS,
        *STATIC_ASSERT_OPS,
        *THREAD_ID_OPS,
        *ATOMIC_OPS,
        *POINTER_OPS,
        *FUNNEL_OPS,
        *ITER_OPS,
        LaunchOp,
        PrefetchOp,
        PrefetchL1Op,
        ViewOp,
        AllocOp,
        TileOp,
        VectorizeOp,
        DistributeOp,
        DivideOp,
        ComposeOp,
        PartitionOp,
        SliceOp,
        CopyOp,
        CopyAsyncOp,
        AsyncWaitOp,
        BarrierOp,
        LoadOp,
        StoreOp,
        ConvertLayoutOp,
        SplatOp,
        ArangeOp,
        ExpandDimsOp,
        BroadcastOp,
        ReduceOp,
    ],
    [
        CuteLayoutAttr,
        SwizzleAttr,
        ComposedLayoutAttr,
        CopyStrategyAttr,
        BlockedLayoutAttr,
        SliceLayoutAttr,
        LinearLayoutAttr,
        AutoLayoutAttr,
        *MMA_ATTRIBUTES,
        PtrType,
        TensorViewType,
        AsyncTokenType,
        *TMA_TYPES,
        *ITER_TYPES,
    ],
)
