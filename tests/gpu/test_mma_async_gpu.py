"""On an H100: the asynchronous `layout.mma {async}` and `layout.mma_wait` lowered to
wgmma without a wait and `wgmma.wait_group N` (tests/filecheck/lower-to-gpu/
wgmma_async.mlir: two accumulators, a K loop of two steps whose wgmma run on under the
next, `pending = 1` in the loop, 0 after it) give NumPy's C + 2 A @ B and D + 2 A @ B
within the float MMA tolerance; the unit test's K loop (tests/unit/test_mma_async.py)
likewise gives C + 3 A @ B."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec.dialects.layout_mma import mma_error_bound
from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]


def _bf16(rng, shape):
    bits = f32_to_bf16(rng.uniform(-2, 2, shape).astype(np.float32))
    return bits, bf16_to_f32(bits).astype(np.float64)


def _check(got, want, c, a64, b64, steps):
    gamma, _ = mma_error_bound(16 * steps, "bf16")
    bound = gamma * (np.abs(c) + steps * np.abs(a64) @ np.abs(b64)) + 1e-6
    assert np.all(np.abs(got - want) <= bound), f"max error {np.abs(got - want).max()}"


def test_two_accumulators_in_flight():
    import cupy as cp

    text = (ROOT / "tests" / "filecheck" / "lower-to-gpu" / "wgmma_async.mlir").read_text()
    kernel = tilec.compile(text)
    assert "wgmma.wait_group.sync.aligned 1;" in kernel.source
    rng = np.random.default_rng(38)
    a, a64 = _bf16(rng, (64, 16))
    b, b64 = _bf16(rng, (16, 64))
    c = rng.uniform(-4, 4, (64, 64)).astype(np.float32)
    d = rng.uniform(-4, 4, (64, 64)).astype(np.float32)
    dc, dd = cp.asarray(c.reshape(-1)), cp.asarray(d.reshape(-1))
    kernel(cp.asarray(a.reshape(-1)), cp.asarray(b.reshape(-1)), dc, dd)
    for got, init in ((dc, c), (dd, d)):
        _check(cp.asnumpy(got).reshape(64, 64).astype(np.float64), init + 2 * a64 @ b64, init, a64, b64, 2)


@pytest.mark.parametrize("pending", [0, 1])
def test_k_loop(pending):
    import cupy as cp

    sys.path.insert(0, str(ROOT / "tests" / "unit"))
    from test_mma_async import k_loop, program

    kernel = tilec.compile(program(k_loop(pending)))
    rng = np.random.default_rng(pending)
    a, a64 = _bf16(rng, (64, 16))
    b, b64 = _bf16(rng, (16, 64))
    c = rng.uniform(-4, 4, (64, 64)).astype(np.float32)
    dc = cp.asarray(c.reshape(-1))
    kernel(cp.asarray(a.reshape(-1)), cp.asarray(b.reshape(-1)), dc)
    _check(cp.asnumpy(dc).reshape(64, 64).astype(np.float64), c + 3 * a64 @ b64, c, a64, b64, 3)
