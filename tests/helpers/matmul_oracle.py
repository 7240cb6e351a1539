"""The float64 oracle of `tilec.matmul`'s epilogue GEMM and its documented error bound
(docs/matmul.md), shared by the reference-executor tests and the GPU tests."""

from __future__ import annotations

import math

import numpy as np

from tilec.dialects.layout_mma import mma_error_bound

LIPSCHITZ = {None: 1.0, "relu": 1.0, "silu": 1.1, "gelu": 1.13}
"""A bound of |f'| of each activation (SiLU's largest slope is 1.0998, GELU's 1.1289)."""

OUT_UNIT = {"bf16": 2.0**-8, "f16": 2.0**-11}
"""The unit roundoff of the output type (round to nearest)."""


def activation(name: str | None, z: np.ndarray) -> np.ndarray:
    """The activation in float64 (GELU: the erf form)."""
    if name is None:
        return z
    if name == "relu":
        return np.maximum(z, 0.0)
    if name == "silu":
        return z / (1.0 + np.exp(-z))
    if name == "gelu":
        return 0.5 * z * (1.0 + np.vectorize(math.erf)(z / math.sqrt(2.0)))
    raise ValueError(name)


def expected(a, b, bias=None, act=None, residual=None) -> np.ndarray:
    """act(a @ b + bias) + residual in float64 (a, b, bias, residual float64)."""
    z = a @ b
    if bias is not None:
        z = z + bias[None, :]
    y = activation(act, z)
    return y + residual if residual is not None else y


def within_bound(got, a, b, bias=None, act=None, residual=None, out="bf16") -> np.ndarray:
    """Whether each element of `got` (float64) is within the bound of the exact result:
    the f32 accumulation's gamma_K * |a| @ |b| and the f32 roundings of the bias add
    carried through the activation's slope L, the activation's and residual add's f32
    evaluation (2^-20 relative, and 2^-20 absolute for the functions near zero), then
    one rounding to `out` (unit u): |got - y| <= d + u (|y| + d)."""
    gamma, _ = mma_error_bound(a.shape[1], "bf16")
    mag = np.abs(a) @ np.abs(b)
    y = expected(a, b, bias, act, residual)
    fz = expected(a, b, bias, act, None)
    d = LIPSCHITZ[act] * (gamma * mag + 2.0**-22 * (mag + (np.abs(bias)[None, :] if bias is not None else 0.0)))
    d = d + 2.0**-20 * (np.abs(fz) + (np.abs(residual) if residual is not None else 0.0) + 1.0)
    return np.isfinite(got) & (np.abs(got - y) <= d + OUT_UNIT[out] * (np.abs(y) + d))
