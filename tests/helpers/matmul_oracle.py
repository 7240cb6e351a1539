"""The float64 oracle of `tilec.matmul`'s epilogue GEMM and its documented error bound
(docs/matmul.md), shared by the reference-executor tests and the GPU tests. The functions
take NumPy arrays or PyTorch tensors (float64 on the GPU: the GPU tests' oracle of a
4096^3 product costs milliseconds there, seconds on the host), and answer in kind."""

from __future__ import annotations

import math
import sys

import numpy as np

from tilec.dialects.layout_mma import mma_error_bound

LIPSCHITZ = {None: 1.0, "relu": 1.0, "silu": 1.1, "silu_tanh": 1.1, "gelu": 1.13}
"""A bound of |f'| of each activation (SiLU's largest slope is 1.0998, GELU's 1.1289)."""

ABSOLUTE = {"silu_tanh": 2.0**-11}
"""Activations whose f32 evaluation errs by up to this times |z|, z their input (`silu_tanh`:
|z| / 2 times `tanh.approx`'s 2^-10.987, docs/matmul.md): the bound's e_act."""

OUT_UNIT = {"bf16": 2.0**-8, "f16": 2.0**-11, "f32": 2.0**-24}
"""The unit roundoff of the output type (round to nearest)."""


def _xp(x):
    """The array module of `x`: torch for a PyTorch tensor, else NumPy."""
    return sys.modules["torch"] if type(x).__module__.startswith("torch") else np


def activation(name: str | None, z: np.ndarray) -> np.ndarray:
    """The activation in float64 (GELU: the erf form)."""
    if name is None:
        return z
    xp = _xp(z)
    if name == "relu":
        return z.clip(min=0.0)
    if name in ("silu", "silu_tanh"):
        with np.errstate(over="ignore"):  # exp(-z) of a large negative z: inf, and z / inf = -0
            return z / (1.0 + xp.exp(-z))
    if name == "gelu":
        erf = xp.erf if xp is not np else np.vectorize(math.erf)
        return 0.5 * z * (1.0 + erf(z / math.sqrt(2.0)))
    raise ValueError(name)


def outside(ok) -> str:
    """How many elements of the boolean `ok` are false, and the first (a test's message)."""
    bad = ~ok
    if _xp(ok) is np:
        size, first = bad.size, np.argwhere(bad)[0].tolist()
    else:
        size, first = bad.numel(), bad.nonzero()[0].tolist()
    return f"{int(bad.sum())} of {size} outside the bound, first at {first}"


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
    evaluation (2^-20 relative, and 2^-20 absolute for the functions near zero; an
    activation of `ABSOLUTE` error e_act also e_act (|z| + d0), z = a @ b + bias, d0 the
    accumulation's part), then one rounding to `out` (unit u): |got - y| <= d + u (|y| + d)."""
    gamma, _ = mma_error_bound(a.shape[1], "bf16")
    mag = abs(a) @ abs(b)
    y = expected(a, b, bias, act, residual)
    fz = expected(a, b, bias, act, None)
    d0 = gamma * mag + 2.0**-22 * (mag + (abs(bias)[None, :] if bias is not None else 0.0))
    d = LIPSCHITZ[act] * d0
    d = d + 2.0**-20 * (abs(fz) + (abs(residual) if residual is not None else 0.0) + 1.0)
    if act in ABSOLUTE:
        d = d + ABSOLUTE[act] * (abs(expected(a, b, bias)) + d0)
    return _xp(got).isfinite(got) & (abs(got - y) <= d + OUT_UNIT[out] * (abs(y) + d))


SCALE_BLOCK = 128
"""The block of a block scale (`tilec.gemm_programs.SCALE_BLOCK`)."""


def block_scaled(a, w, sa, sb) -> tuple[np.ndarray, np.ndarray]:
    """(z, mag) in float64 for block-scaled FP8: z = sum over K blocks kb of
    (a[:, kb] @ w[:, kb].T) * sa[:, kb] * sb[n / 128, kb], mag the same sum of
    |a[:, kb]| @ |w[:, kb]|.T * |sa sb| (a M x K, w N x K, sa M x KB, sb NB x KB)."""
    n = w.shape[0]
    sbn = sb[(np.arange(n) // SCALE_BLOCK).tolist()]  # N x KB: each column's scale of B
    z = mag = 0.0
    for kb in range(sa.shape[1]):
        ks = slice(kb * SCALE_BLOCK, (kb + 1) * SCALE_BLOCK)
        s = sa[:, kb, None] * sbn[None, :, kb]
        z = z + (a[:, ks] @ w[:, ks].T) * s
        mag = mag + (abs(a[:, ks]) @ abs(w[:, ks]).T) * abs(s)
    return z, mag


def block_scaled_within_bound(got, a, w, sa, sb, bias=None, act=None, fp8_accumulation: bool = False,
                              out="bf16") -> np.ndarray:
    """docs/matmul.md's bound of block-scaled FP8: each K block's partial product
    within gamma_128 (unit roundoff 2^-24 on the reference executor, 2^-13 for the
    GPU's fp8 wgmma: `fp8_accumulation`), then the product with sa sb and the sum of the
    KB blocks in f32 (gamma_{KB+2} with 2^-24): d0 = (g1 + g2 + g1 g2) mag; then as the
    FP8 bound: y = act(z + bias), d = L (d0 + 2^-22 (|z| + |bias|)) + 2^-20 (|y| + 1),
    |got - y| <= d + u (|y| + d)."""
    z, mag = block_scaled(a, w, sa, sb)
    g1, _ = mma_error_bound(SCALE_BLOCK, "e4m3" if fp8_accumulation else "bf16")
    g2, _ = mma_error_bound(sa.shape[1] + 2, "bf16")
    if bias is not None:
        z = z + bias[None, :]
    y = activation(act, z)
    d = LIPSCHITZ[act] * ((g1 + g2 + g1 * g2) * mag
                          + 2.0**-22 * (abs(z) + (abs(bias)[None, :] if bias is not None else 0.0)))
    d = d + 2.0**-20 * (abs(y) + 1.0)
    return _xp(got).isfinite(got) & (abs(got - y) <= d + OUT_UNIT[out] * (abs(y) + d))
