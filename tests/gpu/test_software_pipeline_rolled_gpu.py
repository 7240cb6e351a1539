"""On an H100/H200: GEMMs written as plain single-buffered loops and compiled through
`software-pipeline{rolled=true}` (passes/_pipeline_rolled.py: staged buffers, an
mbarrier array, the stage and phase carried by a K loop kept rolled) give NumPy's /
torch's A @ B within the MMA tolerance: the plain-loop Hopper example
(examples/python/gemm_plain.py --rolled, checked against float64 in the script) at
1024^3 for S = 2, 3, 4 and at 1000^3 (K steps no multiple of S, masked edge tiles);
the test programs of tests/helpers/pipeline_programs.py (TMA + wgmma and cp.async +
mma.sync) at 1024^3 and at K = 1088 (17 K steps under 4 stages) against NumPy
float64. Inputs random, outputs poisoned (NaN)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.pipeline_programs import sm80_gemm, tma_gemm

import tilec
from tilec.dialects.layout_mma import mma_error_bound
from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

pytestmark = pytest.mark.gpu

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_rolled_plain_loop_gemm_example_at_1024(stages):
    pytest.importorskip("torch")
    sys.path.insert(0, str(EXAMPLES))
    import gemm_plain

    assert gemm_plain.main(["1024", "1024", "1024", "--stages", str(stages), "--rolled"]) == 0


def test_rolled_plain_loop_gemm_example_with_a_partial_round():
    """K = 1000: 16 K steps under 3 stages; M and N not multiples of the tile."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(EXAMPLES))
    import gemm_plain

    assert gemm_plain.main(["1000", "1000", "1000", "--stages", "3", "--rolled"]) == 0


@pytest.mark.parametrize("form,stages,k", [("tma", 4, 1024), ("tma", 4, 1088), ("tma", 3, 1088),
                                           ("cp_async", 3, 1024), ("cp_async", 4, 1056)])
def test_rolled_test_programs_match_numpy(form, stages, k):
    """64 x 64 tiles, f32 C against NumPy float64 within the MMA bound."""
    import cupy as cp

    m = n = 1024
    rng = np.random.default_rng(stages)
    a = f32_to_bf16(rng.uniform(-2, 2, (m, k)).astype(np.float32))
    b = f32_to_bf16(rng.uniform(-2, 2, (k, n)).astype(np.float32))
    if form == "tma":
        kernel = tilec.compile(tma_gemm(k, m=m, n=n), f"software-pipeline{{num_stages={stages} rolled=true}},default")
        assert kernel.source.count("wgmma.wait_group.sync.aligned 1;") == 1
    else:
        kernel = tilec.compile(
            sm80_gemm(k, m=m, n=n),
            f"distribute,vectorize,software-pipeline{{num_stages={stages} rolled=true}},vectorize-pointers,"
            "vectorize-element-loops,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize",
        )
        assert kernel.source.count(f"tilec_cp_async_wait<{2 * (stages - 2)}>();") == 1
    dc = cp.full(m * n, np.nan, dtype=cp.float32)
    kernel(cp.asarray(a.reshape(-1)), cp.asarray(b.reshape(-1)), dc)
    got = cp.asnumpy(dc).reshape(m, n).astype(np.float64)
    a64, b64 = bf16_to_f32(a).astype(np.float64), bf16_to_f32(b).astype(np.float64)
    exact, mag = a64 @ b64, np.abs(a64) @ np.abs(b64)
    gamma, _ = mma_error_bound(k, "bf16")
    err = np.abs(got - exact)
    assert np.all(err <= gamma * mag), f"max error {np.nanmax(err)}"


@pytest.mark.parametrize("stages", [2, 4])
def test_rolled_warp_specialized_plain_loop_gemm_example(stages):
    """examples/python/gemm_plain.py --ws --rolled (warp-specialize{rolled=true}) at
    1024^3 and at 1000^3 (a partial round, masked edge tiles)."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(EXAMPLES))
    import gemm_plain

    assert gemm_plain.main(["1024", "1024", "1024", "--stages", str(stages), "--ws", "--rolled"]) == 0
    assert gemm_plain.main(["1000", "1000", "1000", "--stages", "3", "--ws", "--rolled"]) == 0
