"""Build tilec programs from Python without writing IR text: whole-tensor copies
(below) and kernels (launches, tiles, element access, arithmetic: compiler/kernel_builder.py).

    from tilec.compiler.builder import Program

    p = Program("transpose")
    src = p.pointer("src", "f32", align=16)
    dst = p.pointer("dst", "f32", align=16)
    a = p.view(src, "(4096,4096):(4096,1)")
    b = p.view(dst, "(4096,4096):(1,4096)")
    p.copy(a, b)
    module = p.module          # a verified builtin.module, ready for run_pipeline / compile

Layouts are CuTe text or `cute.Layout` objects; `?` extents are bound to index arguments
made with `p.index("n")` and given to `view(..., dynamic=[n, ...])`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tilec.dialects import cute
from tilec.dialects.layout import CopyOp, ViewOp
from tilec.dialects.layout_attrs import COPY_STRATEGIES, PtrType, TensorViewType, is_copy_strategy

from tilec.support.diagnostics import TilecError
from .builder_locations import located
from .builder_types import ARGS_ATTR, ELEMENT_TYPES, as_layout, element_type, view_layout_attr  # noqa: F401  (re-exported)
from .kernel_builder import KernelBuilding, Value

def _ssa(x: Value | SSAValue) -> SSAValue:
    return x.ssa if isinstance(x, Value) else x


@located
class Program(KernelBuilding):
    """One function being built; arguments are added in call order. Values come back
    as `Value`s (compiler/kernel_builder.py), which take Python operators."""

    def __init__(self, name: str):
        """An empty function named `name`.

            p = Program("transpose")
        """
        self.name = name
        self._block = Block()
        self._builder = Builder(InsertPoint.at_end(self._block))
        self._arg_types: list[Attribute] = []
        self._module: ModuleOp | None = None
        self._locs: dict[Operation, str | None] = {}
        self._values: dict[str, Attribute] = {}

    def _arg(self, name: str, t: Attribute) -> Value:
        taken = [a.name_hint for a in self._block.args]
        if name in taken:
            raise TilecError(f"argument name '{name}' is taken: every argument of a function needs its own name "
                             f"(the arguments so far: {', '.join(taken)})")
        arg = self._block.insert_arg(t, len(self._block.args))
        arg.name_hint = name
        self._arg_types.append(t)
        return Value(self, arg)

    def pointer(self, name: str, dtype: str | Attribute = "f32", align: int | None = 16) -> Value:
        """A global-memory pointer argument (`!layout.ptr<T, align A>`): the next argument
        of the function, of element type `dtype` ("f32", "f16", "bf16", "i8", ...), whose
        address the caller promises is a multiple of `align` bytes (None: the element's).

            src = p.pointer("src", "f32", align=16)
        """
        return self._arg(name, PtrType(element_type(dtype), align))

    def index(self, name: str, value: int | None = None) -> Value:
        """An index argument (a dynamic extent or stride), the next argument of the
        function; `value` (optional) is recorded in the function's `tilec.args`
        attribute, the value a run on the reference executor takes when none is given.

            n = p.index("n")
            a = p.view(src, "(?,1024):(1024,1)", dynamic=[n])
            m = p.index("m", value=100)
        """
        if value is not None:
            self._values[name] = IntegerAttr(value, IndexType())
        return self._arg(name, IndexType())

    def view(self, ptr: Value | SSAValue, layout: str | cute.Layout,
             dynamic: Sequence[Value | SSAValue] = (), divisible: Sequence[int] | None = None) -> Value:
        """A global-memory view of `ptr` with `layout` (CuTe text or a `cute.Layout`);
        `dynamic` gives the `?` extents and strides of the layout, in order, and
        `divisible` what each is promised to be a multiple of (1: nothing).

        Given a shared or register view (of `alloc`) instead of a pointer, the same
        storage re-viewed with another layout (a swizzled `tilec.ComposedLayout` too)
        in the same memory space, inside the allocation: how a kernel reuses a
        buffer for another tile (CuTe's `make_tensor(smem.data(), layout)`).

            a = p.view(src, "(4096,4096):(4096,1)")      # row-major
            b = p.view(dst, "(4096,4096):(1,4096)")      # column-major: copying a to b transposes
            sc = p.view(sb, "(128,256):(264,1)")         # B's shared buffer as C's padded tile
        """
        st = ptr.type
        if isinstance(st, TensorViewType) and st.memory_space != "gmem":
            t = TensorViewType(st.element_type, view_layout_attr(layout), st.memory_space)
        elif isinstance(st, PtrType):
            t = TensorViewType(st.element_type, as_layout(layout), "gmem")
        else:
            raise TilecError("view() takes a pointer made with pointer(), or a shared or register view to re-view")
        return self.insert(ViewOp(_ssa(ptr), t, [_ssa(d) for d in dynamic], divisible)).results[0]

    def copy(self, src: Value | SSAValue, dst: Value | SSAValue, tile: Sequence[int] | None = None,
             strategy: str | None = None, convert: str | None = None) -> None:
        """`layout.copy`: dst(i) = src(i) for every logical index i of the two views (the
        same shape); the passes decide tiles, threads and vectors, `tile` pins the tile
        shape.

        `strategy` ("tma", "async", "simt" or "gather"; `#layout.copy_strategy<...>`) says
        how the data moves, as a copier does in Mojo's TileTensor guide (CuTe's
        TiledCopy); the passes keep to it or stop with an error. None: the passes choose
        (`copy-strategy` may pick "gather" for a whole-tensor copy between global views).

            p.copy(a, b)
            p.copy(a, b, tile=[64, 64])
            p.copy(tile, smem, strategy="async")   # GenericToSharedAsyncTileCopier
            p.copy(smem, tile, strategy="simt")    # SharedToGenericTileCopier
            p.copy(tile, smem, strategy="tma")     # a TMA tile copy (sm_90)
            p.copy(a, b, strategy="gather")        # whole views: runs of the dst per thread
            p.copy(a, h, convert="float32->bfloat16")  # an f32 view into a bf16 one

        `convert` ("SRC->DST", NumPy dtype names) converts each element as PyTorch's
        `copy_` converts SRC to DST (`{convert = ...}`; the element types must be theirs).
        """
        if strategy is not None and not is_copy_strategy(strategy):
            raise TilecError(f"copy strategy {strategy!r}: expected one of {', '.join(COPY_STRATEGIES)}"
                             " (box as box<flat>, box<rows> or box<cols>)")
        op = CopyOp(_ssa(src), _ssa(dst), convert, strategy=strategy)
        if tile is not None:
            from xdsl.dialects.builtin import DenseArrayBase, i64

            op.attributes["tile"] = DenseArrayBase.from_list(i64, list(tile))
        self._put(op)

    @property
    def module(self) -> ModuleOp:
        """The finished, verified module (the function gets its return here; build
        nothing after reading it).

            k = tilec.compile(p.module)                  # or tilec.compile(p)
        """
        if self._module is None:
            self._builder.insert(func.ReturnOp())
            f = func.FuncOp(self.name, (self._arg_types, []), Region(self._block))
            if self._values:
                f.attributes[ARGS_ATTR] = DictionaryAttr(self._values)
            module = ModuleOp([f])
            self._module = self._verified(module)
        return self._module
