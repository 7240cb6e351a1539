"""On a GPU: `layout.mma` lowered to `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`
gives NumPy's product within the float MMA tolerance (docs/testing.md): one warp,
one 16x8x16 instruction; then several warps, tiles and K steps; tf32 (m16n8k8) within
its tolerance, s8 (m16n8k32) exactly."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
from tilec.dialects.layout_mma import mma_error_bound
from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

from helpers.programs import mma_program

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize(
    "m, n, k, warps",
    [(16, 8, 16, (1, 1)), (64, 32, 64, (2, 2)), (128, 64, 32, (2, 4))],
)
def test_mma_sync_bf16_against_numpy(m, n, k, warps):
    import cupy as cp

    rng = np.random.default_rng(0)
    a = f32_to_bf16(rng.standard_normal((m, k)).astype(np.float32))
    b = f32_to_bf16(rng.standard_normal((k, n)).astype(np.float32))
    c = rng.standard_normal((m, n)).astype(np.float32)
    kernel = tilec.compile(mma_program(m, n, k, "bf16", "f32", warps), "lower-to-gpu")
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in kernel.source
    dc = cp.asarray(c.reshape(-1))
    kernel(cp.asarray(a.reshape(-1)), cp.asarray(b.reshape(-1)), dc)
    got = cp.asnumpy(dc).reshape(m, n).astype(np.float64)
    a64, b64 = bf16_to_f32(a).astype(np.float64), bf16_to_f32(b).astype(np.float64)
    exact = a64 @ b64 + c
    gamma, _ = mma_error_bound(k, "bf16")
    bound = gamma * (np.abs(c) + np.abs(a64) @ np.abs(b64))
    err = np.abs(got - exact)
    assert np.all(err <= bound), f"max error {err.max()}, bound {bound[err.argmax() // n, err.argmax() % n]}"
    # a wrong fragment would be off by O(1): make sure the check could see one
    assert err.max() < 1e-3


@pytest.mark.parametrize("k_width", [4, 8])
def test_mma_sync_bf16_wider_kwidth_against_numpy(k_width):
    """Operands of kWidth 4 and 8 (Triton's): the lowering renames the fragments' K
    slots alike in A and B; the product is NumPy's within the MMA tolerance."""
    import cupy as cp

    m, n, k = 64, 32, 64
    rng = np.random.default_rng(1)
    a = f32_to_bf16(rng.standard_normal((m, k)).astype(np.float32))
    b = f32_to_bf16(rng.standard_normal((k, n)).astype(np.float32))
    c = rng.standard_normal((m, n)).astype(np.float32)
    kernel = tilec.compile(mma_program(m, n, k, "bf16", "f32", (2, 2), k_width=k_width), "lower-to-gpu")
    dc = cp.asarray(c.reshape(-1))
    kernel(cp.asarray(a.reshape(-1)), cp.asarray(b.reshape(-1)), dc)
    got = cp.asnumpy(dc).reshape(m, n).astype(np.float64)
    a64, b64 = bf16_to_f32(a).astype(np.float64), bf16_to_f32(b).astype(np.float64)
    gamma, _ = mma_error_bound(k, "bf16")
    err = np.abs(got - (a64 @ b64 + c))
    assert np.all(err <= gamma * (np.abs(c) + np.abs(a64) @ np.abs(b64)))
    assert err.max() < 1e-3  # a wrong pairing of K would be off by O(1)


def test_mma_sync_cli_check():
    """`tilec --run gpu --check` compares the GPU with the CPU executor within the MMA
    tolerance."""
    from tilec.runtime.cli import run_gpu_cli
    from tilec.compiler.pipeline import parse_module

    out = run_gpu_cli(mma_program(64, 32, 64, "bf16", "f32", (2, 2)), check=True)
    assert "within the layout.mma tolerance" in out


def test_tile_gemm_default_pipeline_against_numpy():
    """The 64x64x64 tile GEMM (blocked loads, operand conversions, layout.mma, a
    coalesced epilogue) through the default pipeline, on the GPU."""
    import cupy as cp

    from helpers.programs import mma_tile_gemm

    rng = np.random.default_rng(1)
    a = f32_to_bf16(rng.standard_normal((64, 64)).astype(np.float32))
    b = f32_to_bf16(rng.standard_normal((64, 64)).astype(np.float32))
    dc = cp.full(64 * 64, np.nan, dtype=np.float32)
    tilec.compile(mma_tile_gemm())(cp.asarray(a.reshape(-1)), cp.asarray(b.reshape(-1)), dc)
    got = cp.asnumpy(dc).reshape(64, 64).astype(np.float64)
    a64, b64 = bf16_to_f32(a).astype(np.float64), bf16_to_f32(b).astype(np.float64)
    gamma, _ = mma_error_bound(64, "bf16")
    assert np.all(np.abs(got - a64 @ b64) <= gamma * (np.abs(a64) @ np.abs(b64)))


def test_mma_sync_tf32_and_s8_against_numpy():
    import cupy as cp

    m, n, k = 64, 32, 64
    rng = np.random.default_rng(2)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    dc = cp.asarray(c.reshape(-1))
    tilec.compile(mma_program(m, n, k, "f32", "f32", (2, 2), 1), "lower-to-gpu")(
        cp.asarray(a.reshape(-1)), cp.asarray(b.reshape(-1)), dc)
    got = cp.asnumpy(dc).reshape(m, n).astype(np.float64)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    gamma, inp = mma_error_bound(k, "f32")
    mag = np.abs(a64) @ np.abs(b64)
    assert np.all(np.abs(got - a64 @ b64) <= (gamma + 2 * inp) * mag)

    ai = rng.integers(-128, 128, (m, k)).astype(np.int8)
    bi = rng.integers(-128, 128, (k, n)).astype(np.int8)
    ci = rng.integers(-1000, 1000, (m, n)).astype(np.int32)
    dci = cp.asarray(ci.reshape(-1))
    tilec.compile(mma_program(m, n, k, "i8", "i32", (2, 2), 4), "lower-to-gpu")(
        cp.asarray(ai.reshape(-1)), cp.asarray(bi.reshape(-1)), dci)
    want = (ai.astype(np.int64) @ bi.astype(np.int64) + ci).astype(np.int32)
    assert np.array_equal(cp.asnumpy(dci).reshape(m, n), want)
