"""The element types and dtypes tilec knows, in one table each; every other table of
them (the builder's names, the CUDA target's C names, the reference executor's NumPy
dtypes, the copy front end's sizes and conversions) is derived from these.

An *element type* is what memory holds: `f16 bf16 f32 f64 i8 i16 i32 i64` (the short
names the builder, vector type names and diagnostics use). A *dtype* is a PyTorch or
NumPy name that a copy takes (`float32`, `bfloat16`, `uint8`, `bool`, ...): the element
type that holds it plus how its bits are read (`uint8` and `bool` live in `i8`,
read unsigned; PyTorch's bool is one byte, 0 or 1).

NumPy has no bfloat16: its values are kept as `uint16` bit patterns (`bf16_to_f32`,
`f32_to_bf16` go between them and float32)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, IntegerType
from xdsl.ir import Attribute


@dataclass(frozen=True)
class Element:
    """An element type as memory holds it: its short name, width, whether it is a float,
    and the NumPy dtype that holds its bits (bf16: uint16)."""

    name: str
    bits: int
    is_float: bool
    storage: np.dtype

    def attr(self) -> Attribute:
        """The xDSL type (`f32`, `i8`, ...)."""
        if self.is_float:
            return _FLOAT_TYPES[self.name]()
        return IntegerType(self.bits)


_FLOAT_TYPES: dict[str, type[Attribute]] = {
    "f16": Float16Type,
    "bf16": BFloat16Type,
    "f32": Float32Type,
    "f64": Float64Type,
}

ELEMENTS: dict[str, Element] = {
    e.name: e
    for e in (
        Element("f16", 16, True, np.dtype(np.float16)),
        Element("bf16", 16, True, np.dtype(np.uint16)),
        Element("f32", 32, True, np.dtype(np.float32)),
        Element("f64", 64, True, np.dtype(np.float64)),
        Element("i8", 8, False, np.dtype(np.int8)),
        Element("i16", 16, False, np.dtype(np.int16)),
        Element("i32", 32, False, np.dtype(np.int32)),
        Element("i64", 64, False, np.dtype(np.int64)),
    )
}
"""Every element type tilec compiles, by short name, in this order."""

FLOAT_ELEMENTS: dict[type[Attribute], Element] = {cls: ELEMENTS[name] for name, cls in _FLOAT_TYPES.items()}
"""The float element types by their xDSL type class."""


def element_of(t: Attribute) -> Element | None:
    """The table's entry for the xDSL type `t` (None for `i1`, `index` and others)."""
    if isinstance(t, IntegerType):
        return ELEMENTS.get(f"i{t.width.data}")
    return FLOAT_ELEMENTS.get(type(t))


@dataclass(frozen=True)
class DType:
    """A dtype a copy names (PyTorch's and NumPy's spelling): the element type that
    holds it, whether its bits read unsigned, and the NumPy dtype of its values
    (None for bfloat16, which NumPy lacks)."""

    name: str
    element: Element
    unsigned: bool = False

    @property
    def itemsize(self) -> int:
        return self.element.bits // 8

    @property
    def is_float(self) -> bool:
        return self.element.is_float

    @property
    def values(self) -> np.dtype | None:
        if self.name == "bfloat16":
            return None
        if self.name == "bool":
            return np.dtype(np.uint8)
        return np.dtype(self.name)


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        DType("float16", ELEMENTS["f16"]),
        DType("bfloat16", ELEMENTS["bf16"]),
        DType("float32", ELEMENTS["f32"]),
        DType("float64", ELEMENTS["f64"]),
        DType("int8", ELEMENTS["i8"]),
        DType("int16", ELEMENTS["i16"]),
        DType("int32", ELEMENTS["i32"]),
        DType("int64", ELEMENTS["i64"]),
        DType("uint8", ELEMENTS["i8"], unsigned=True),
        DType("bool", ELEMENTS["i8"], unsigned=True),
    )
}
"""Every dtype a copy takes, by name, in this order."""

DTYPE_NAMES: dict[str, str] = {d.element.name: d.name for d in DTYPES.values() if not d.unsigned}
"""Each element type's dtype name (`f32` -> `float32`): how kernel parameters and
argument checks name it."""


def bf16_to_f32(bits: Any) -> Any:
    """bfloat16 bit patterns (uint16) as the float32 values they are."""
    b = np.asarray(bits, dtype=np.uint16)
    return (b.astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16(values: Any) -> Any:
    """float32 values rounded to nearest even bfloat16, as `__float2bfloat16_rn` does,
    as uint16 bit patterns; NaN stays NaN."""
    f = np.asarray(values, dtype=np.float32)
    u = f.view(np.uint32)
    rounding = ((u >> np.uint32(16)) & np.uint32(1)) + np.uint32(0x7FFF)
    out = ((u + rounding) >> np.uint32(16)).astype(np.uint16)
    nan = np.isnan(f)
    if np.any(nan):
        out = np.where(nan, ((u >> np.uint32(16)) | np.uint32(0x40)).astype(np.uint16), out)
    return out
