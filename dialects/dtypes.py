"""The element types and dtypes tilec knows, in one table each; every other table of
them (the builder's names, the CUDA target's C names, the reference executor's NumPy
dtypes, the copy front end's sizes and conversions) is derived from these.

An *element type* is what memory holds: `f16 bf16 f32 f64 i8 i16 i32 i64` and the
8-bit floats `f8E4M3FN f8E5M2` (the short names the builder, vector type names and
diagnostics use; each is how the IR prints the type). A *dtype* is a PyTorch or
NumPy name that a copy takes (`float32`, `bfloat16`, `uint8`, `bool`, ...): the element
type that holds it plus how its bits are read (`uint8` and `bool` live in `i8`,
read unsigned; PyTorch's bool is one byte, 0 or 1).

NumPy has no bfloat16: its values are kept as `uint16` bit patterns (`bf16_to_f32`,
`f32_to_bf16` go between them and float32). Nor has it the 8-bit floats: their values
are kept as `uint8` bit patterns (`f8_to_f32`, `to_f8`). An element whose storage is
unsigned bits is *packed*; `unpack_float` and `pack_float` go between any packed
element's bits and float32.

The 8-bit floats are the OCP formats PyTorch calls `float8_e4m3fn` and `float8_e5m2`:
e4m3fn (bias 7, 3 mantissa bits) has no infinity, its largest value is 448 and `0x7F`
/ `0xFF` are NaN; e5m2 (bias 15, 2 mantissa bits) is IEEE-like, largest 57344, with
infinities. A conversion to either (`to_f8`) is one rounding to nearest even of the
exact value, as PyTorch's `c10::Float8_e4m3fn` / `Float8_e5m2` conversions and CUDA's
`__nv_cvt_double_to_fp8(x, __NV_NOSAT, ...)` do: e4m3fn gives NaN beyond 464 (the
midpoint above 448) and for infinities; e5m2 gives infinity from 61440 up (the midpoint
above 57344, ties to even). NaN becomes `0x7F` in both (the sign dropped, as CUDA's
float path does; PyTorch keeps it, `0xFF`: NaN either way)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
)
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

    @property
    def packed(self) -> bool:
        """A float whose storage is its bit pattern as an unsigned integer (bf16, the
        8-bit floats): arithmetic goes through float32 (`unpack_float`, `pack_float`)."""
        return self.is_float and self.storage.kind == "u"


_FLOAT_TYPES: dict[str, type[Attribute]] = {
    "f16": Float16Type,
    "bf16": BFloat16Type,
    "f32": Float32Type,
    "f64": Float64Type,
    "f8E4M3FN": Float8E4M3FNType,
    "f8E5M2": Float8E5M2Type,
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
        Element("f8E4M3FN", 8, True, np.dtype(np.uint8)),
        Element("f8E5M2", 8, True, np.dtype(np.uint8)),
    )
}
"""Every element type tilec compiles, by short name, in this order."""

FLOAT_ELEMENTS: dict[type[Attribute], Element] = {cls: ELEMENTS[name] for name, cls in _FLOAT_TYPES.items()}
"""The float element types by their xDSL type class."""

FLOAT_TYPES: tuple[type[Attribute], ...] = tuple(FLOAT_ELEMENTS)
"""The float element types' xDSL classes (for `isinstance`)."""


def element_of(t: Attribute) -> Element | None:
    """The table's entry for the xDSL type `t` (None for `i1`, `index` and others)."""
    if isinstance(t, IntegerType):
        return ELEMENTS.get(f"i{t.width.data}")
    return FLOAT_ELEMENTS.get(type(t))


def operand_type_name(t: Attribute) -> str:
    """The name of element type `t` among the tensor-core ops (layout.mma, mma.sync,
    wgmma) and their messages: its short name, the 8-bit floats as PTX spells them
    (`e4m3`, `e5m2`); `str(t)` for a type not in the table (`i1`, `index`)."""
    e = element_of(t)
    if e is None:
        return str(t)
    return {"f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}.get(e.name, e.name)


@dataclass(frozen=True)
class DType:
    """A dtype a copy names (PyTorch's and NumPy's spelling): the element type that
    holds it, whether its bits read unsigned, and the NumPy dtype of its values
    (None for bfloat16 and the 8-bit floats, which NumPy lacks)."""

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
        if self.element.packed:
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
        DType("float8_e4m3fn", ELEMENTS["f8E4M3FN"]),
        DType("float8_e5m2", ELEMENTS["f8E5M2"]),
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


@dataclass(frozen=True)
class F8Format:
    """An 8-bit float format: exponent bias, mantissa bits, whether it has infinities
    (e5m2) or gives NaN on overflow (e4m3fn), its largest finite value."""

    bias: int
    mantissa: int
    has_inf: bool
    max: float


F8_FORMATS: dict[str, F8Format] = {
    "f8E4M3FN": F8Format(7, 3, False, 448.0),
    "f8E5M2": F8Format(15, 2, True, 57344.0),
}
"""The 8-bit float element types by short name."""

F8_NAN = 0x7F
"""The bits every NaN converts to."""


def _f8_table(name: str) -> np.ndarray:
    fmt = F8_FORMATS[name]
    codes = np.arange(256)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exp = (codes >> fmt.mantissa) & ((0x7F >> fmt.mantissa))
    man = codes & ((1 << fmt.mantissa) - 1)
    normal = (1.0 + man / (1 << fmt.mantissa)) * np.exp2(exp - fmt.bias)
    sub = man / (1 << fmt.mantissa) * np.exp2(1 - fmt.bias)
    v = sign * np.where(exp == 0, sub, normal)
    top = (codes & 0x7F) >> fmt.mantissa == (0x7F >> fmt.mantissa)
    if fmt.has_inf:  # exponent all ones: infinity (mantissa 0) or NaN
        v = np.where(top & (man == 0), sign * np.inf, np.where(top, np.nan, v))
    else:  # e4m3fn: only S.1111.111 is NaN
        v = np.where((codes & 0x7F) == 0x7F, np.nan, v)
    return v.astype(np.float32)


_F8_VALUES = {name: _f8_table(name) for name in F8_FORMATS}


def f8_to_f32(bits: Any, name: str) -> Any:
    """8-bit float bit patterns (uint8) of element `name` as the float32 values they
    are (exact)."""
    return _F8_VALUES[name][np.asarray(bits, dtype=np.uint8)]


def to_f8(values: Any, name: str) -> Any:
    """float32 or float64 values rounded once to nearest even 8-bit float of element
    `name` (module docstring: overflow, NaN), as uint8 bit patterns."""
    fmt = F8_FORMATS[name]
    x = np.asarray(values, dtype=np.float64)
    a = np.abs(x)
    emin = 1 - fmt.bias
    with np.errstate(all="ignore"):
        _, e2 = np.frexp(a)  # a = m * 2**e2, m in [0.5, 1): floor(log2 a) = e2 - 1
        e = np.maximum(e2 - 1, emin)
        quantum = np.ldexp(1.0, e - fmt.mantissa)
        r = np.rint(np.where(np.isfinite(a), a, 0.0) / quantum) * quantum  # exact: RNE
        _, r2 = np.frexp(r)
        re = np.maximum(r2 - 1, emin)
        normal = r >= np.ldexp(1.0, emin)
        exp_field = np.where(normal, re + fmt.bias, 0)
        man = np.where(normal, r / np.ldexp(1.0, re) - 1.0, r / np.ldexp(1.0, emin)) * (1 << fmt.mantissa)
        bits = (exp_field.astype(np.int64) << fmt.mantissa) | np.rint(man).astype(np.int64)
    over = (r > fmt.max) | np.isinf(a)
    inf_bits = (0x7F >> fmt.mantissa) << fmt.mantissa
    bits = np.where(over, inf_bits if fmt.has_inf else F8_NAN, bits)
    bits = bits | np.where(np.signbit(x), 0x80, 0)
    bits = np.where(np.isnan(x), F8_NAN, bits)
    out = bits.astype(np.uint8)
    return out[()] if out.ndim == 0 else out


def unpack_float(bits: Any, name: str) -> Any:
    """A packed element's (`Element.packed`) bit patterns as float32 values."""
    return bf16_to_f32(bits) if name == "bf16" else f8_to_f32(bits, name)


def pack_float(values: Any, name: str) -> Any:
    """float32 values (float64 for the 8-bit floats: one rounding) rounded to nearest
    even as a packed element's bit patterns."""
    return f32_to_bf16(values) if name == "bf16" else to_f8(values, name)
