"""SiLU's exp2 on the FMA pipe (`cuda.ex2_fma`, `Epilogue.exp2_fma`, `GemmConfig.exp2_fma`):
the helper's f32 steps emulated exactly on the CPU (each fma rounded once) against
float64 over the bf16 inputs of its range and random ones, the SiLU built on it against
float64 over every bf16 input y (65536), the lowering's share of registers, the reference
executor before and after the default pipeline, and the kernel at 8192 x 28672 x 4096
compiled without spills. The GPU tests: tests/gpu/test_matmul_gpu.py `test_exp2_fma`."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import sm90_usage_or_skip
from test_matmul import SMALL, _check, _operands, _run, _values, _bits

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.cuda import EX2_FMA_ERROR, EX2_FMA_POLY, EX2_FMA_RANGE, ex2_fma_registers
from tilec.gemm import MatmulKey, matmul_program
from tilec.gemm_programs import LOG2_E, Epilogue, gemm_hopper_ws
from tilec.support.diagnostics import TilecError


def _fma32(a, b, c) -> np.ndarray:
    """`fmaf` on f32 arrays, rounded once: a b is exact in float64, the sum's residual
    (TwoSum) decides the f32 rounding where the float64 sum is an f32 tie."""
    a, b, c = (np.asarray(v, np.float32).astype(np.float64) for v in (a, b, c))
    p = a * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    r = s.astype(np.float32)
    other = np.nextafter(r, np.where(s > r, np.float32(np.inf), np.float32(-np.inf)).astype(np.float32))
    tie = (s != r) & (r.astype(np.float64) + other.astype(np.float64) == 2 * s)
    up = np.where(err > 0, np.maximum(r, other), np.minimum(r, other))
    return np.where(tie & (err != 0), up, r)


def ex2_fma(x) -> np.ndarray:
    """`tilec_ex2_fma` (compiler/cuda/device_helpers.py) step by step in f32."""
    x = np.asarray(x, np.float32)
    lo, hi = (np.float32(v) for v in EX2_FMA_RANGE)
    x = np.fmin(np.fmax(x, lo), hi)
    shift = np.float32(12582912.0)
    t = (x + shift).astype(np.float32)
    f = (x - (t - shift).astype(np.float32)).astype(np.float32)
    c = [np.float32(v) for v in EX2_FMA_POLY]
    p = _fma32(c[4], f, c[3])
    for ci in (c[2], c[1], c[0], np.float32(1)):
        p = _fma32(p, f, ci)
    return (p.view(np.uint32) + (t.view(np.uint32) << np.uint32(23))).astype(np.uint32).view(np.float32)


def _every_bf16() -> np.ndarray:
    """Every finite bf16 value, as f32."""
    x = (np.arange(65536, dtype=np.uint32) << np.uint32(16)).view(np.float32)
    return x[np.isfinite(x)]


def test_ex2_fma_within_its_error():
    """2^x within `EX2_FMA_ERROR` relative over every bf16 x of `EX2_FMA_RANGE` and 2^21
    random f32 x (the range and [-1, 1]); exact at integers; the clamp's ends beyond it
    (2^-125 below, 2^127 above, a NaN as the low end: fmaxf's)."""
    rng = np.random.default_rng(0)
    lo, hi = EX2_FMA_RANGE
    bf = _every_bf16()
    for x in (bf[(bf >= lo) & (bf <= hi)], rng.uniform(lo, hi, 2**20).astype(np.float32),
              rng.uniform(-1, 1, 2**20).astype(np.float32)):
        rel = np.abs(ex2_fma(x).astype(np.float64) / np.exp2(x.astype(np.float64)) - 1)
        assert rel.max() <= EX2_FMA_ERROR
    j = np.arange(lo, hi + 1, dtype=np.float32)
    assert (ex2_fma(j) == np.exp2(j.astype(np.float64))).all()
    ends = ex2_fma(np.array([-126.5, -1e30, -np.inf, np.nan, 127.5, 1e30, np.inf], np.float32))
    assert (ends == np.float32(2.0**lo)).sum() == 4 and (ends[4:] == np.float32(2.0**hi)).all()


def test_silu_with_ex2_fma_over_every_bf16_input():
    """The epilogue's SiLU with `cuda.ex2_fma`, y / (1 + 2^(y * -log2 e)) each step in f32
    and `div.approx` off by its stated 2 ulps (both signs; 0 past a divisor of 2^126),
    against float64's silu for every finite bf16 y: within docs/matmul.md's 2^-20
    (|silu(y)| + 1), and within (2^-21 + 2^-23 |y|) relative wherever silu(y) is a normal
    f32 above y = -87 (the `ex2.approx` form's 5 ulps, and the argument y log2 e's rounding
    and log2 e's in f32, about |y| 2^-23.7, as that form's: measured 2^-21.3 for |y| < 1,
    2^-18.0 at y = -84); the quotient
    past the clamp (y < -88.03) is -0, as 1 + inf's."""
    y = _every_bf16()
    y64 = y.astype(np.float64)
    with np.errstate(over="ignore"):
        exact = y64 / (1.0 + np.exp(-y64))
    with np.errstate(over="ignore"):
        e = ex2_fma((y * np.float32(-LOG2_E)).astype(np.float32))
    d = (e + np.float32(1)).astype(np.float32)
    assert (d[y < -88.03] > 2.0**126).all() and (d[y > 86.7] == 1).all()
    normal = (y > -87) & (np.abs(exact) >= 2.0**-126)
    for s in (-1.0, 1.0):
        q = (y64 / d.astype(np.float64) * (1 + s * 2.0**-22)).astype(np.float32)
        q = np.where(d > np.float32(2.0**126), np.float32(0), q).astype(np.float64)
        assert (np.abs(q - exact) <= 2.0**-20 * (np.abs(exact) + 1)).all()
        assert (np.abs(q - exact)[normal] <= (2.0**-21 + 2.0**-23 * np.abs(y64[normal])) * np.abs(exact[normal])).all()


@pytest.mark.parametrize("k", [1, 3, 4, 8])
def test_ex2_fma_registers_spread_the_share(k):
    """k of every 8 registers, evenly (3: 0, 3, 6), at any count of registers."""
    regs = ex2_fma_registers(64, k)
    assert sum(regs) == 8 * k and all(sum(regs[i:i + 8]) == k for i in range(0, 64, 8))
    assert ex2_fma_registers(8, 3) == [True, False, False, True, False, False, True, False]


@pytest.mark.parametrize("k", [0, 3, 8])
def test_silu_exp2_fma_share_in_the_kernel(k):
    """The rule's SiLU kernel at 8192 x 28672 x 4096 with `:fe<k>`: k of every 8 exp2 a thread
    by `tilec_ex2_fma`, the others by `ex2.approx`, one `div.approx` each; 168 registers, no
    spills (NVRTC)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    config = parse_config("128x256x64:4:c128:st1:bsm" + (f":fe{k}" if k else ""))
    assert config.exp2_fma == k
    ep = Epilogue(bias=True, activation="silu")
    module = matmul_program(MatmulKey(config, 28672, 4096, "bf16", ep, 132, index_bits=32))
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    per_thread = 2 * 128  # the two staggered regions' 128 elements a consumer thread
    assert src.count("tilec_ex2_fma(t") == per_thread * k // 8
    assert src.count("tilec_ex2_approx_ftz(t") == per_thread * (8 - k) // 8
    assert src.count("tilec_div_approx_ftz(t") == per_thread
    if k == 3:
        usage = sm90_usage_or_skip(src)
        assert usage.registers == 168 and not usage.spill_stores and not usage.spill_loads


@pytest.mark.parametrize("k", [3, 8])
def test_silu_exp2_fma_on_the_reference_executor(k):
    """bias + SiLU + residual with `exp2_fma` k at 72 x 40 x 48 against float64, before and
    after the default pipeline, and with a bias of +-120 (past both ends of the clamp)."""
    ep = Epilogue(bias=True, activation="silu", residual=True)
    m, n, kk = 72, 40, 48
    module = gemm_hopper_ws(None, n, kk, persistent=3, group=2, tma_epilogue=True, epilogue=ep, exp2_fma=k, **SMALL)
    assert "tilec.exp2_fma" in str(module)
    ops = _operands(m, n, kk, ep, seed=7)
    _check(_run(module, m, n, ep, ops), ops, ep)
    ops["bias"] = _values(_bits(np.linspace(-120.0, 120.0, n), "bf16"), "bf16")
    _check(_run(module, m, n, ep, ops), ops, ep)
    run_pipeline(module, "default")
    assert "cuda.ex2_fma" in str(module)
    got = _run(module, m, n, ep, ops)
    _check(got, ops, ep)
    assert (got[:, 0] == ops["residual"][:, 0]).all()  # silu(-120 + ..): y 2^-127 on the executor, 0 on the GPU


def test_exp2_fma_refused_outside_eighths():
    with pytest.raises(TilecError, match="exp2_fma 9"):
        Epilogue(activation="silu", exp2_fma=9)
