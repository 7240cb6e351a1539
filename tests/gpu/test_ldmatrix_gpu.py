"""On a GPU: ldmatrix (x1/x2/x4, .trans) and stmatrix move exactly what the CPU
reference executor's model of them moves (the PTX ISA's fragment figure): every
function of the lit tests copies through shared memory bit for bit, outputs poisoned;
and the GEMM (examples/python/gemm_bf16.py) at a shape beyond the example's, against
NumPy within the documented tolerance."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec.compiler.pipeline import parse_module
from tilec.dialects.layout_mma import mma_error_bound
from tilec.runtime.cli import run_gpu_cli
from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).parents[2]
LIT = ROOT / "tests" / "filecheck" / "lower-to-gpu"


@pytest.mark.parametrize("name", ["ldmatrix.mlir", "stmatrix_sm80.mlir"])
@pytest.mark.parametrize("seed", [0, 1])
def test_matrix_moves_match_the_reference_bit_for_bit(name, seed):
    module = parse_module((LIT / name).read_text(), name)
    out = run_gpu_cli(module, check=True, seed=seed)
    assert out.count("identical to the CPU reference executor") == (7 if name == "ldmatrix.mlir" else 1), out


def _gemm():
    spec = importlib.util.spec_from_file_location("gemm_bf16", ROOT / "examples" / "python" / "gemm_bf16.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.gemm


@pytest.mark.parametrize(
    "m, n, k, cfg",
    [
        (512, 512, 256, {}),  # the defaults: 128x256 blocks, swizzled, double-buffered fragments, grouped order
        (384, 256, 192, {"group": 2}),  # a last group of one block row
        (256, 512, 192, {"bn": 128, "warps": (2, 2), "stages": 3}),
        (256, 256, 256, {"bn": 128, "stages": 3, "swizzle": False, "double_buffer": False, "group": 1}),
        (512, 384, 256, {"bn": 128, "bk": 32, "stages": 4, "swizzle": False, "double_buffer": False, "group": 1}),
    ],
)
def test_gemm_against_numpy(m, n, k, cfg):
    import cupy as cp

    kernel = tilec.compile(_gemm()(m, n, k, **cfg))
    for what in (
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
        "stmatrix.sync.aligned.m8n8.x4.shared.b16",
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    ):
        assert what in kernel.source
    rng = np.random.default_rng(m + n + k)
    a = f32_to_bf16(rng.standard_normal((m, k)).astype(np.float32))
    b = f32_to_bf16(rng.standard_normal((k, n)).astype(np.float32))
    dc = cp.full(m * n, 0x7FC0, dtype=cp.uint16)  # NaN
    kernel(cp.asarray(a.reshape(-1)), cp.asarray(b.reshape(-1)), dc)
    got = bf16_to_f32(cp.asnumpy(dc).reshape(m, n)).astype(np.float64)
    a64, b64 = bf16_to_f32(a).astype(np.float64), bf16_to_f32(b).astype(np.float64)
    exact, mag = a64 @ b64, np.abs(a64) @ np.abs(b64)
    gamma, _ = mma_error_bound(k, "bf16")
    err = np.abs(got - exact)
    assert np.all(err <= gamma * mag + 2.0**-8 * (np.abs(exact) + gamma * mag)), err.max()
