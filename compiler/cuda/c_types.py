"""C types, names and literals of the `cuda` target: which C type prints each element
type, the reserved words a variable name must avoid, float literals that round-trip."""
from __future__ import annotations

import re
import struct
from collections.abc import Iterable
from functools import lru_cache

import numpy as np
from xdsl.dialects.builtin import IndexType, IntegerType, VectorType
from xdsl.ir import Attribute

from tilec.dialects.dtypes import DTYPE_NAMES, ELEMENTS, F8_FORMATS, FLOAT_ELEMENTS, FLOAT_TYPES

SUPPORTED_ELEMENT_TYPES = ", ".join(ELEMENTS)

_INT_CTYPES = {1: "bool", 8: "signed char", 16: "short", 32: "int", 64: "long long"}
_UINT_CTYPES = {
    1: "bool",
    8: "unsigned char",
    16: "unsigned short",
    32: "unsigned int",
    64: "unsigned long long",
}
_INT_DTYPES = {1: "bool", **{e.bits: DTYPE_NAMES[e.name] for e in ELEMENTS.values() if not e.is_float}}
_FLOAT_CTYPES: dict[str, tuple[str, str | None]] = {
    "f16": ("__half", "cuda_fp16.h"),
    "bf16": ("__nv_bfloat16", "cuda_bf16.h"),
    "f32": ("float", None),
    "f64": ("double", None),
    "f8E4M3FN": ("__nv_fp8_e4m3", "cuda_fp8.h"),
    "f8E5M2": ("__nv_fp8_e5m2", "cuda_fp8.h"),
}
"""Each float element type's C type and the header that declares it, by short name."""
_FP8_TYPES = tuple(cls for cls, e in FLOAT_ELEMENTS.items() if e.name in F8_FORMATS)
"""The 8-bit floats (cuda_fp8.h): values convert to and from them through `float`
(extension, exact) and the `tilec_to_f8*` helpers (one rounding, PyTorch's overflow)."""
F8_HELPER = {"f8E4M3FN": "f8e4m3", "f8E5M2": "f8e5m2"}
"""Each 8-bit float's suffix in the names of its device helpers."""

_CXX_RESERVED = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char
    char8_t char16_t char32_t class compl concept const consteval constexpr constinit
    const_cast continue co_await co_return co_yield decltype default delete do double
    dynamic_cast else enum explicit export extern false float for friend goto if inline
    int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
    protected public register reinterpret_cast requires return short signed sizeof
    static static_assert static_cast struct switch template this thread_local throw true
    try typedef typeid typename union unsigned using virtual void volatile wchar_t while
    xor xor_eq threadIdx blockIdx blockDim gridDim warpSize main memcpy memset min max
    abs signbit isnan isinf NAN INFINITY NULL assert half float2 float4 int2 int4
    dim3""".split()
)
_VECTOR_NAME = re.compile(r"^(f16|bf16|f32|f64|i1|i8|i16|i32|i64|f8E4M3FN|f8E5M2)x\d+$")

# cmpi predicates, in xDSL's order: (C operator, unsigned?)
_CMPI = [
    ("==", False),
    ("!=", False),
    ("<", False),
    ("<=", False),
    (">", False),
    (">=", False),
    ("<", True),
    ("<=", True),
    (">", True),
    (">=", True),
]


def _sanitise(hint: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", hint)
    name = re.sub(r"_{2,}", "_", name).strip("_")
    if name and name[0].isdigit():
        name = "v" + name
    return name


def _element_bytes(element_type: Attribute) -> int:
    if isinstance(element_type, IntegerType):
        return max(1, element_type.width.data // 8)
    if isinstance(element_type, FLOAT_TYPES):
        return element_type.bitwidth // 8  # type: ignore[attr-defined]
    if isinstance(element_type, IndexType):
        return 8
    raise ValueError(f"no size for {element_type}")


def _num_elements(t: VectorType) -> int:
    return int(np.prod(t.get_shape()))


def _is_supported_element(element_type: Attribute) -> bool:
    if isinstance(element_type, IntegerType):
        return element_type.width.data in (8, 16, 32, 64)
    return isinstance(element_type, FLOAT_TYPES)



@lru_cache(maxsize=4096)
def _base_name(hint: str | None, default: str) -> str:
    """The identifier a name hint becomes before it is made unique."""
    base = _sanitise(hint) if hint else ""
    if not base:
        base = default
    if base in _CXX_RESERVED or _VECTOR_NAME.match(base) or base.startswith("tilec_"):
        base = base + "_"
    return base


class _NameTable:
    """Unique C identifiers from SSA name hints: the hint itself, else the hint with the
    smallest suffix `_1`, `_2`, ... not taken yet."""

    def __init__(self, taken: Iterable[str] = ()):
        self.used: set[str] = set(taken)
        # per base, a suffix below which every `{base}_{suffix}` is taken: `used` only
        # grows, so the search for a free suffix resumes there (linear, not quadratic)
        self._next: dict[str, int] = {}

    def fresh(self, hint: str | None, default: str) -> str:
        base = _base_name(hint, default)
        name = base
        if name in self.used:
            suffix = self._next.get(base, 1)
            name = f"{base}_{suffix}"
            while name in self.used:
                suffix += 1
                name = f"{base}_{suffix}"
            self._next[base] = suffix + 1
        self.used.add(name)
        return name


def _f32_literal(value: float) -> str:
    if value != value or value in (float("inf"), float("-inf")):
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        return f"__int_as_float(0x{bits:08x})"
    text = str(np.float32(value))
    if "." not in text and "e" not in text:
        text += ".0"
    return f"{text}f"


def _f64_literal(value: float) -> str:
    if value != value or value in (float("inf"), float("-inf")):
        bits = struct.unpack("<Q", struct.pack("<d", value))[0]
        return f"__longlong_as_double(0x{bits:016x}LL)"
    text = repr(float(value))
    if "." not in text and "e" not in text:
        text += ".0"
    return text


def _round_to_bf16(value: float) -> float:
    bits = struct.unpack("<I", struct.pack("<f", np.float32(value)))[0]
    if (bits & 0x7F800000) == 0x7F800000:  # inf or nan
        return value
    bits += 0x7FFF + ((bits >> 16) & 1)
    bits &= 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


