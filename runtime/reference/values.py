"""Run-time values of the reference executor: NumPy dtypes for IR types, uniform and
per-thread values.

Inside a kernel every SSA value of a scalar type is either *uniform* (a NumPy scalar,
the same for every thread) or *per-thread* (an array of shape `[T]`, T the number of
threads of the whole grid); a value of type `vector<AxBxf32>` is an array of shape
`[A, B]` (uniform) or `[T, A, B]` (per-thread). The number of axes beyond the type's
own shape says which it is. NumPy broadcasting then makes elementwise ops between
uniform and per-thread values right without special cases.

`bf16` has no NumPy dtype: its values are kept as `uint16` bit patterns and arithmetic
on them goes through `float32` (`to_compute` / `from_compute`); so are the 8-bit floats
`f8E4M3FN` and `f8E5M2`, kept as `uint8` bit patterns (the *packed* floats of
dialects/dtypes.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    IndexType,
    IntegerType,
    MemRefType,
    TensorType,
    VectorType,
)
from xdsl.ir import Attribute

from tilec.dialects.dtypes import (
    ELEMENTS,
    FLOAT_ELEMENTS,
    FLOAT_TYPES,
    bf16_to_f32,
    f32_to_bf16,
    pack_float,
    to_f8,
    unpack_float,
)

INDEX_DTYPE = np.dtype(np.int64)

_INT_DTYPES = {1: np.dtype(np.bool_), **{e.bits: e.storage for e in ELEMENTS.values() if not e.is_float}}
_UINT_DTYPES = {
    8: np.dtype(np.uint8),
    16: np.dtype(np.uint16),
    32: np.dtype(np.uint32),
    64: np.dtype(np.uint64),
}


@dataclass(frozen=True, eq=False)
class InFlight:
    """The result of an asynchronous `layout.mma` (`{async}`) whose group has not been
    retired by a `layout.mma_wait` that gives it back: `value` is what it will be,
    `scope` the warpgroups that issued it and `group` its group's number among theirs
    (mma_impls.py). The executor lets it through only to ops that read no register
    (an mma's accumulator, `layout.mma_wait`, `scf.yield`, `scf.for`'s carried values)
    and reports any other read (executor.py)."""

    value: Any
    scope: tuple[int, ...]
    group: int


class UnsupportedType(Exception):
    pass


def element_type(t: Attribute) -> Attribute:
    """The element type of a vector, memref, tensor, view or pointer type; t itself
    for a scalar type."""
    if isinstance(t, VectorType | MemRefType | TensorType):
        return t.element_type
    inner = getattr(t, "element_type", None)  # layout.ptr, layout.tensor
    return inner if isinstance(inner, Attribute) else t


def shape_of(t: Attribute) -> tuple[int, ...]:
    """The shape of one value of type t beyond its leading thread (or block) axis:
    () for scalars, the vector's or the (distributed) tensor's shape."""
    if isinstance(t, VectorType | TensorType):
        return tuple(t.get_shape())
    return ()


def is_bf16(t: Attribute) -> bool:
    return isinstance(element_type(t), BFloat16Type)


def packed_name(t: Attribute) -> str | None:
    """The short name of t's element type if it is a packed float (bf16, f8E4M3FN,
    f8E5M2: values kept as bit patterns), else None."""
    e = FLOAT_ELEMENTS.get(type(element_type(t)))
    return e.name if e is not None and e.packed else None


def pack_constant(value: Any, t: Attribute) -> Any:
    """A float constant as the bits of t's packed element type: bf16 through float32
    (as before), the 8-bit floats rounded once from float64."""
    name = packed_name(t)
    assert name is not None
    if name == "bf16":
        return f32_to_bf16(np.asarray(value, np.float32))
    return to_f8(np.asarray(value, np.float64), name)


def dtype_of(t: Attribute) -> np.dtype:
    """NumPy dtype of the elements of a scalar, vector or memref type."""
    t = element_type(t)
    match t:
        case IndexType():
            return INDEX_DTYPE
        case IntegerType():
            width = t.width.data
            if width in _INT_DTYPES:
                return _INT_DTYPES[width]
            raise UnsupportedType(f"integers of {width} bits are not supported")
        case _ if isinstance(t, FLOAT_TYPES):
            return FLOAT_ELEMENTS[type(t)].storage
        case _:
            raise UnsupportedType(f"element type {t} is not supported")


def unsigned_dtype(dt: np.dtype) -> np.dtype:
    if dt == np.bool_:
        return dt
    return _UINT_DTYPES[dt.itemsize * 8]


def bit_dtype(dt: np.dtype) -> np.dtype:
    """The unsigned integer dtype with the same bits, for bitwise comparison."""
    if dt == np.bool_:
        return np.dtype(np.uint8)
    return _UINT_DTYPES[dt.itemsize * 8]


def is_float(t: Attribute) -> bool:
    return isinstance(element_type(t), FLOAT_TYPES)


def to_compute(value: Any, t: Attribute) -> Any:
    """The value as NumPy computes with it (packed floats' bits become float32)."""
    name = packed_name(t)
    return unpack_float(value, name) if name is not None else value


def from_compute(value: Any, t: Attribute) -> Any:
    """A computed value stored back as a value of type t (one rounding to an 8-bit
    float, from float64 too; bf16 through float32)."""
    name = packed_name(t)
    if name is not None:
        return pack_float(value, name)
    dt = dtype_of(t)
    if isinstance(value, np.ndarray):
        value = value.astype(dt, copy=False)
        return value[()] if value.ndim == 0 else value
    return dt.type(value)


def is_per_thread(value: Any, t: Attribute) -> bool:
    return np.ndim(value) > len(shape_of(t))


def per_thread(value: Any, t: Attribute, num_threads: int) -> np.ndarray:
    """The value as an array `[T, *shape]` (a read-only broadcast view if uniform)."""
    a = np.asarray(value)
    if a.ndim > len(shape_of(t)):
        return a
    return np.broadcast_to(a, (num_threads, *a.shape))


def expand_cond(cond: np.ndarray, value: Any, t: Attribute) -> np.ndarray:
    """A per-thread i1 condition `[T]` reshaped to broadcast against values of type t."""
    extra = len(shape_of(t))
    return cond.reshape(cond.shape + (1,) * extra) if extra else cond


def bits_equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise bitwise equality (so NaN equals the same NaN, and 0.0 != -0.0)."""
    a = np.asarray(a)
    b = np.asarray(b)
    bd = bit_dtype(a.dtype)
    return np.ascontiguousarray(a).view(bd) == np.ascontiguousarray(b).view(bd)
