"""Kernel parameters of copy kernels, as the two launch paths pass them: NumPy scalar
types for CuPy's kernel call, C type names for `runtime.raw_launch`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tilec.support.diagnostics import TilecError


def param_conversions(params: list) -> list[Callable[[Any], Any] | None]:
    """Per kernel parameter, the NumPy type of an index argument (None for pointers)."""
    return [None if p.is_buffer else _converter(p.dtype) for p in params]


def _converter(dtype: str) -> Callable[[int], Any]:
    if dtype == "int32":
        return np.int32
    if dtype == "int64":
        return np.int64
    raise TilecError(f"copy kernel: unexpected parameter type {dtype}")


def param_types(params: list) -> list[str]:
    """`runtime.raw_launch` C types of kernel parameters (`u64` for pointers)."""
    return ["u64" if p.is_buffer else {"int32": "i32", "int64": "i64"}[p.dtype] for p in params]
