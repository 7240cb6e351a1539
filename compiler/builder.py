"""Build whole-tensor tilec programs from Python without writing IR text.

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
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tilec.dialects import cute
from tilec.dialects.layout import CopyOp, ViewOp
from tilec.dialects.layout_attrs import PtrType, TensorViewType

from tilec.support.diagnostics import TilecError
from .pipeline import verify_module

ELEMENT_TYPES: dict[str, Attribute] = {
    "f16": Float16Type(),
    "bf16": BFloat16Type(),
    "f32": Float32Type(),
    "f64": Float64Type(),
    "i8": IntegerType(8),
    "i16": IntegerType(16),
    "i32": IntegerType(32),
    "i64": IntegerType(64),
}


def element_type(name: str | Attribute) -> Attribute:
    """`"f32"` -> f32 (also accepts NumPy dtype names such as `"float32"`)."""
    if isinstance(name, Attribute):
        return name
    aliases = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
               "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64"}
    key = aliases.get(str(name), str(name))
    if key not in ELEMENT_TYPES:
        raise TilecError(f"unknown element type '{name}' (expected one of {', '.join(ELEMENT_TYPES)})")
    return ELEMENT_TYPES[key]


def as_layout(layout: str | cute.Layout) -> cute.Layout:
    if isinstance(layout, cute.Layout):
        return layout
    try:
        return cute.parse_layout(layout)
    except Exception as e:
        raise TilecError(f"invalid layout '{layout}': {e}") from None


class Program:
    """One whole-tensor function being built; arguments are added in call order."""

    def __init__(self, name: str):
        self.name = name
        self._block = Block()
        self._builder = Builder(InsertPoint.at_end(self._block))
        self._arg_types: list[Attribute] = []
        self._module: ModuleOp | None = None

    def _arg(self, name: str, t: Attribute) -> SSAValue:
        arg = self._block.insert_arg(t, len(self._block.args))
        arg.name_hint = name
        self._arg_types.append(t)
        return arg

    def pointer(self, name: str, dtype: str | Attribute = "f32", align: int | None = 16) -> SSAValue:
        """A global-memory pointer argument (`!layout.ptr<T, align A>`)."""
        return self._arg(name, PtrType(element_type(dtype), align))

    def index(self, name: str) -> SSAValue:
        """An index argument (a dynamic extent or stride)."""
        return self._arg(name, IndexType())

    def view(self, ptr: SSAValue, layout: str | cute.Layout, dynamic: Sequence[SSAValue] = ()) -> SSAValue:
        """A gmem view of `ptr` with `layout`."""
        if not isinstance(ptr.type, PtrType):
            raise TilecError("view() takes a pointer made with pointer()")
        t = TensorViewType(ptr.type.element_type, as_layout(layout), "gmem")
        return self._builder.insert(ViewOp(ptr, t, dynamic)).result

    def copy(self, src: SSAValue, dst: SSAValue, tile: Sequence[int] | None = None) -> None:
        """dst(i) = src(i) for every logical index; `tile` pins the tile shape."""
        op = CopyOp(src, dst)
        if tile is not None:
            from xdsl.dialects.builtin import DenseArrayBase, i64

            op.attributes["tile"] = DenseArrayBase.from_list(i64, list(tile))
        self._builder.insert(op)

    @property
    def module(self) -> ModuleOp:
        """The finished, verified module (the function gets its return here)."""
        if self._module is None:
            self._builder.insert(func.ReturnOp())
            f = func.FuncOp(self.name, (self._arg_types, []), Region(self._block))
            self._module = ModuleOp([f])
            verify_module(self._module)
        return self._module
