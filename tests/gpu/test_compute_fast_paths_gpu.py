"""On a GPU: the fast paths of the compute kernels (tests/unit/test_compute_fast_paths.py
has their CPU side). arith.maximumf / minimumf through PTX max.NaN / min.NaN give, bit
for bit, IEEE 754-2019 maximum / minimum (NaN if either is NaN, +0 > -0) on f32, f16 and
f64 (the generic helper) tensors and in a max reduction; math.exp2 fastmath<afn> (one
ex2.approx.ftz) is within its documented 2 ulp of exp2 in float64, and 0 where the
result is under 2^-126; the benchmark's softmax (exp2 form) and layer norm (fma form,
16-byte weight loads, one warp per row) match float64 NumPy within the benchmark's
tolerances. Outputs are poisoned (NaN) first."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import compute_kernels as ck
from test_compute_fast_paths import expected_max, expected_min

from tilec.dialects.math_functions import ulp_distance

pytestmark = pytest.mark.gpu

_B = "#layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
_NP = {"f32": np.float32, "f16": np.float16, "f64": np.float64}
_BITS = {"f32": np.uint32, "f16": np.uint16, "f64": np.uint64}


def _views(p, et: str, *names: str, layout: str = "(32,32):(32,1)"):
    return [p.view(p.pointer(n, et, align=None), layout) for n in names]


def _minmax_program(et: str):
    """@f: mx = maximumf(xs, ys), mn = minimumf(xs, ys) over a 32x32 tile of `et`."""
    import tilec

    p = tilec.Program("f")
    a, b, c, d = _views(p, et, "xs", "ys", "mx", "mn")
    with p.launch(grid=(1, 1, 1), threads=128):
        x, y = p.load(a, _B).named("x"), p.load(b, _B).named("y")
        mx, mn = p.maximum(x, y).named("p"), p.minimum(x, y).named("q")
        p.store(mx, c)
        p.store(mn, d)
    return p.module


def _specials(rng, dt, n=1024):
    pool = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 2.5, -2.5, 1e-30], np.float64)
    x = np.where(rng.random(n) < 0.5, rng.choice(pool, n), rng.standard_normal(n))
    return x.astype(dt)


def _same(got, want, et) -> bool:
    nan = np.isnan(want)
    return bool(np.array_equal(np.isnan(got), nan)) and bool(
        np.array_equal(got[~nan].view(_BITS[et]), want[~nan].view(_BITS[et]))
    )


@pytest.mark.parametrize("et", ["f32", "f16", "f64"])
def test_maximumf_minimumf_nan_and_signed_zeros(et):
    import cupy as cp

    import tilec

    rng = np.random.default_rng(1)
    dt = _NP[et]
    x, y = _specials(rng, dt), _specials(rng, dt)
    # every pairing of the two zeros, both orders
    x[:4], y[:4] = np.array([0.0, -0.0, 0.0, -0.0], dt), np.array([-0.0, 0.0, 0.0, -0.0], dt)
    dev = [cp.asarray(x), cp.asarray(y), cp.full(1024, np.nan, dt), cp.full(1024, np.nan, dt)]
    tilec.compile(_minmax_program(et))(*dev)
    assert _same(cp.asnumpy(dev[2]), expected_max(x, y), et)
    assert _same(cp.asnumpy(dev[3]), expected_min(x, y), et)


def test_row_max_reduction_nan_and_signed_zeros():
    import cupy as cp

    import tilec

    p = tilec.Program("rowmax")
    (a,) = _views(p, "f32", "xs")
    (o,) = _views(p, "f32", "out", layout="(32):(1)")
    with p.launch(grid=(1, 1, 1), threads=128):
        p.store(p.reduce(p.load(a, _B).named("x"), 1, "max").named("m"), o)
    rowmax = p.module
    rng = np.random.default_rng(2)
    x = -np.abs(rng.standard_normal((32, 32))).astype(np.float32) - 1
    x[0, 5] = np.nan  # a NaN anywhere makes the row NaN
    x[1, 31] = np.nan
    x[2, :] = -0.0
    x[2, 17] = 0.0  # +0 beats -0 wherever it sits
    x[3, :] = -0.0
    x[4, :] = -np.inf
    x[5, 9] = np.inf
    want = np.array([np.nan, np.nan, 0.0, -0.0, -np.inf, np.inf] + [x[i].max() for i in range(6, 32)], np.float32)
    dev = [cp.asarray(x), cp.full(32, np.nan, np.float32)]
    tilec.compile(rowmax)(*dev)
    assert _same(cp.asnumpy(dev[1]), want, "f32")


def test_exp2_fastmath_within_two_ulp():
    import cupy as cp

    import tilec
    from tilec.dialects.math_functions import MATH_FUNCTIONS

    fn = next(f for f in MATH_FUNCTIONS if f.name == "math.exp2")
    p = tilec.Program("e")
    a, d = _views(p, "f32", "xs", "dst")
    with p.launch(grid=(1, 1, 1), threads=128):
        p.store(p.math("exp2", p.load(a, _B).named("x"), fastmath="afn").named("r"), d)
    k = tilec.compile(p.module)
    assert f"{fn.fast}(" in k.source
    rng = np.random.default_rng(3)
    x = rng.uniform(-125, 125, 1024).astype(np.float32)
    x[:8] = [-130, -140, -126.5, 0, 1, -1, 0.5, 127]
    dev = [cp.asarray(x), cp.full(1024, np.nan, np.float32)]
    k(*dev)
    got = cp.asnumpy(dev[1])
    want = np.exp2(x.astype(np.float64)).astype(np.float32)
    normal = want >= np.float32(2.0**-126)
    d = ulp_distance(want[normal], got[normal])
    assert d.max() <= 2, (d.max(), x[normal][np.argmax(d)])
    assert np.all(got[~normal] == 0)  # ftz: results under 2^-126 are 0


@pytest.mark.parametrize(
    ("dtype", "cfg"),
    [
        ("f32", {"warps": 2, "exp2": True}),
        ("f16", {"warps": 1, "exp2": True}),
        ("f16", {"warps": 1, "rows": 8, "row_warps": 4, "exp2": True}),
        ("f16", {"warps": 4, "exp2": True}),
    ],
)
def test_softmax_exp2_form(dtype, cfg):
    import cupy as cp

    import tilec

    m, n = 256, 1024
    rng = np.random.default_rng(4)
    x = (3 * rng.standard_normal((m, n))).astype(_NP[dtype])
    dev = [cp.asarray(x), cp.full((m, n), np.nan, _NP[dtype])]
    tilec.compile(ck.softmax(m, n, dtype, **cfg))(*dev)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    atol, rtol = (1e-6, 1e-5) if dtype == "f32" else (1e-4, 1e-2)
    np.testing.assert_allclose(cp.asnumpy(dev[1]).astype(np.float64), want, atol=atol, rtol=rtol)


@pytest.mark.parametrize(
    ("dtype", "cfg"),
    [
        ("f16", {"warps": 1, "fma": True}),
        ("f16", {"warps": 1, "rows": 8, "row_warps": 4, "fma": True}),
        ("f32", {"warps": 4, "rows": 4, "fma": True}),
    ],
)
def test_layer_norm_fma_form_and_vector_weights(dtype, cfg):
    import cupy as cp

    import tilec

    m, n = 256, 1024
    rng = np.random.default_rng(5)
    dt = _NP[dtype]
    x = rng.standard_normal((m, n)).astype(dt)
    w, b = rng.standard_normal(n).astype(dt), rng.standard_normal(n).astype(dt)
    k = tilec.compile(ck.layer_norm(m, n, dtype, **cfg))
    assert "weight[" not in k.source  # 16-byte vector loads of the weights
    dev = [cp.asarray(x), cp.full((m, n), np.nan, dt), cp.asarray(w), cp.asarray(b)]
    k(*dev)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    want = (x64 - mean) / np.sqrt(var + 1e-5) * w.astype(np.float64) + b.astype(np.float64)
    atol, rtol = (1e-4, 1e-4) if dtype == "f32" else (2e-2, 1e-2)
    np.testing.assert_allclose(cp.asnumpy(dev[1]).astype(np.float64), want, atol=atol, rtol=rtol)


def test_tanh_fastmath_within_its_stated_error():
    """`math.tanh` with `fastmath<afn>` on f32 is one `tanh.approx.f32`, within
    `TANH_APPROX_ERROR` (2^-10.987) of tanh relative and so absolute, over [-20, 20] and
    at small, subnormal and signed-zero inputs (the bound `silu_tanh` is documented by)."""
    import cupy as cp

    import tilec
    from tilec.dialects.math_functions import TANH_APPROX_ERROR

    p = tilec.Program("t")
    a, d = _views(p, "f32", "xs", "dst")
    with p.launch(grid=(1, 1, 1), threads=128):
        p.store(p.math("tanh", p.load(a, _B).named("x"), fastmath="afn").named("r"), d)
    k = tilec.compile(p.module)
    assert "tilec_tanh_approx(" in k.source and "tanhf(" not in k.source
    rng = np.random.default_rng(4)
    x = rng.uniform(-20, 20, 1024).astype(np.float32)
    x[:512] = rng.uniform(-1, 1, 512) * np.float32(2.0) ** rng.integers(-30, 2, 512)
    x[:8] = [0.0, -0.0, 1e-40, -1e-40, 2.0**-126, 9.0, -9.0, 0.5]
    dev = [cp.asarray(x), cp.full(1024, np.nan, np.float32)]
    k(*dev)
    got = cp.asnumpy(dev[1]).astype(np.float64)
    want = np.tanh(x.astype(np.float64))
    err = np.abs(got - want)
    assert np.isfinite(got).all() and (err <= TANH_APPROX_ERROR).all()
    normal = np.abs(x) >= 2.0**-126
    rel = err[normal] / np.abs(want[normal])
    assert rel.max() <= TANH_APPROX_ERROR, (rel.max(), np.log2(rel.max()), x[normal][np.argmax(rel)])
