"""Element conversions of a converting `layout.copy`: PyTorch's `copy_` between dtypes.

A `layout.copy` whose views hold different element types, or the same bits read as
different dtypes, names its conversion: `convert = "float32->bfloat16"`. The dtypes are
NumPy-style names; `uint8` and `bool` live in memory as `i8` (PyTorch's bool is one byte,
0 or 1). The meaning is PyTorch's (c10's `static_cast_with_inter_type`):

- to `bool`: nonzero (NaN too) is 1, zero is 0;
- from `bool` or `uint8`: the value read unsigned;
- float to float: rounded to nearest even; a 16- or 8-bit float is reached from
  float32 (a float64 or an integer is first made float32, as c10's Half, BFloat16 and
  Float8 types are built from a float), and read through float32; the 8-bit floats'
  overflow and NaN are dialects/dtypes.py's (PyTorch's);
- float to integer: truncated toward zero (via float32 for a 16- or 8-bit float); to `uint8`
  through int64 then wrapped (c10's special case); values out of the target's range, and
  NaN, are undefined, as in C++ and PyTorch;
- integer to integer: sign- or zero-extended, or wrapped.

`conversion_steps` spells a conversion as elementwise ops (what `distribute` builds
between the load and the store); `convert_values` is the same function on NumPy arrays
(what the reference executor runs for a whole-tensor copy).
"""

from __future__ import annotations

import numpy as np

from .dtypes import DTYPES, ELEMENTS, pack_float, unpack_float

STORAGE: dict[str, str] = {d.name: d.element.name for d in DTYPES.values()}
"""Each dtype a conversion names, and the element type that holds it in memory."""

_FLOATS = tuple(d.name for d in DTYPES.values() if d.is_float)
_BITS = {e.name: e.bits for e in ELEMENTS.values()}
_NARROW = tuple(d.name for d in DTYPES.values() if d.is_float and d.element.bits < 32)
"""The float dtypes computed through float32 (16- and 8-bit)."""


class ConversionError(ValueError):
    pass


def parse_convert(text: str) -> tuple[str, str]:
    """`"float32->int8"` -> ("float32", "int8"); ConversionError for anything else."""
    parts = text.split("->")
    if len(parts) != 2 or any(p.strip() not in STORAGE for p in parts):
        raise ConversionError(
            f"convert = \"{text}\": expected \"SRC->DST\" with dtypes among "
            f"{', '.join(STORAGE)}"
        )
    return parts[0].strip(), parts[1].strip()


def _is_float(dtype: str) -> bool:
    return dtype in _FLOATS


def _unsigned(dtype: str) -> bool:
    return DTYPES[dtype].unsigned


def conversion_steps(src: str, dst: str) -> list[tuple[str, str]]:
    """The conversion as a chain of elementwise ops: (op, result element type) with op
    one of `extf`, `truncf`, `sitofp`, `uitofp`, `fptosi`, `extsi`, `extui`, `trunci`,
    `nonzero` (compare with zero, an `i1` result). Empty when the bits stay."""
    s, d = STORAGE[src], STORAGE[dst]
    steps: list[tuple[str, str]] = []
    if dst == "bool":
        if src == "bool":
            return []
        if src in _NARROW:
            steps.append(("extf", "f32"))
        return steps + [("nonzero", "i1"), ("extui", "i8")]
    if _is_float(src) and _is_float(dst):
        if s == d:
            return []
        if src in _NARROW:
            steps.append(("extf", "f32"))
            s = "f32"
        if dst in _NARROW and s == "f64":
            steps.append(("truncf", "f32"))
            s = "f32"
        if s != d:
            steps.append(("extf" if _BITS[d] > _BITS[s] else "truncf", d))
        return steps
    if not _is_float(src) and _is_float(dst):
        wide = "f32" if dst in _NARROW else d
        steps.append(("uitofp" if _unsigned(src) else "sitofp", wide))
        if wide != d:
            steps.append(("truncf", d))
        return steps
    if _is_float(src):  # to an integer
        if src in _NARROW:
            steps.append(("extf", "f32"))
        if dst == "uint8":
            return steps + [("fptosi", "i64"), ("trunci", "i8")]
        return steps + [("fptosi", d)]
    # integer to integer
    if _BITS[d] > _BITS[s]:
        return [("extui" if _unsigned(src) else "extsi", d)]
    if _BITS[d] < _BITS[s]:
        return [("trunci", d)]
    return []


_NP = {d.name: d.values for d in DTYPES.values() if d.values is not None}


def convert_values(values: np.ndarray, src: str, dst: str) -> np.ndarray:
    """`values` as stored for `src` (bfloat16 as uint16 bits, the 8-bit floats as
    uint8 bits; uint8 and bool as the int8 or uint8 bytes) converted to `dst`, returned
    as `dst` is stored (the same bits; uint8 and bool as int8)."""
    v = np.asarray(values)
    if DTYPES[src].element.packed:
        v = unpack_float(v, STORAGE[src])
    elif src in ("uint8", "bool", "int8"):
        v = v.view(np.uint8) if src != "int8" else v.view(np.int8)
    else:
        v = v.astype(_NP[src], copy=False)
    with np.errstate(all="ignore"):
        if dst == "bool":
            out = (v != 0).astype(np.uint8)
        elif _is_float(dst):
            if dst in _NARROW and v.dtype != np.float32:
                v = v.astype(np.float32)
            out = pack_float(v, STORAGE[dst]) if DTYPES[dst].element.packed else v.astype(_NP[dst])
        elif v.dtype.kind == "f":
            if v.dtype == np.float16:  # (packed floats were unpacked to float32)
                v = v.astype(np.float32)
            t = np.trunc(v)
            t = np.where(np.isfinite(t), t, 0)
            out = t.astype(np.int64).astype(_NP[dst])
        else:
            out = v.astype(np.int64).astype(_NP[dst]) if v.dtype != np.uint64 else v.astype(_NP[dst])
    if dst in ("uint8", "bool"):
        out = out.view(np.int8)
    return out
