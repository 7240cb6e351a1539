"""What a whole-tensor program asks of the arrays it is launched on.

Pointers carry no extent; the views over them do. Before the passes run, each pointer
argument gets an `ArgSpec`: its element type, the number of elements its views reach
(the largest cosize; dynamic views contribute nothing static), and its alignment. The
launcher checks them, so a wrong array is an error naming the argument, never a fault.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tilec.dialects.dtypes import DTYPE_NAMES
from tilec.dialects.layout import ViewOp
from tilec.dialects.layout_attrs import PtrType

@dataclass(frozen=True)
class ArgSpec:
    """What one buffer argument must be. Fields left at None are not checked."""

    name: str
    dtype: str | None = None
    """NumPy-style name: `float32`, `float16`, `bfloat16`, `int64`, ..."""
    min_elements: int = 0
    alignment: int = 1
    """Bytes the data pointer must be a multiple of."""
    shape: tuple[int | None, ...] | None = None
    """Expected shape; None in a dimension matches any extent."""
    strides: tuple[int, ...] | None = None
    """Expected strides in elements; when None the array must be C-contiguous."""


def numpy_dtype_name(t) -> str:
    return DTYPE_NAMES.get(str(t), str(t))


def argument_specs(module: ModuleOp) -> list[ArgSpec]:
    specs: list[ArgSpec] = []
    for f in module.walk():
        if not isinstance(f, func.FuncOp) or f.is_declaration:
            continue
        for i, arg in enumerate(f.body.block.args):
            if not isinstance(arg.type, PtrType):
                continue
            reach = 0
            for use in arg.uses:
                if isinstance(use.operation, ViewOp):
                    t = use.operation.result.type
                    c = t.cute_layout.cosize()
                    if isinstance(c, int):
                        reach = max(reach, c * t.vector_size)
            specs.append(
                ArgSpec(
                    name=arg.name_hint or f"arg{i}",
                    dtype=numpy_dtype_name(arg.type.element_type),
                    min_elements=reach,
                    alignment=arg.type.alignment,
                )
            )
    return specs
