"""Element types and layouts as the Python builder takes them (`"f32"`, `"(8,4):(4,1)"`)."""

from __future__ import annotations

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, IntegerType
from xdsl.ir import Attribute

from tilec.dialects import cute
from tilec.support.diagnostics import TilecError

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
