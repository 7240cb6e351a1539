"""On an H100/H200: GEMMs written as plain single-buffered loops and compiled through
`software-pipeline{num_stages=S}` (passes/software_pipeline.py) or
`warp-specialize{num_stages=S}` (passes/warp_specialize.py) give NumPy's / torch's
A @ B within the MMA tolerance: the plain-loop Hopper example (examples/python/
gemm_plain.py: TMA + wgmma, 128 x 256 x 64 tiles) at 1024^3 for S = 2, 3, 4 and at a
shape whose K steps are no multiple of S (the skipped steps), and the sm_80 form
(cp.async + mma.sync) at 1024^3; the example warp-specialised (`--ws`: a producer
warpgroup beside two consumer warpgroups), also persistent. Inputs random, outputs poisoned (NaN)."""

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
def test_plain_loop_gemm_example_at_1024(stages):
    """examples/python/gemm_plain.py at 1024^3 (torch tensors, checked in the script)."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(EXAMPLES))
    import gemm_plain

    assert gemm_plain.main(["1024", "1024", "1024", "--stages", str(stages)]) == 0


@pytest.mark.parametrize("stages", [2, 4])
def test_plain_loop_gemm_example_warp_specialized_at_1024(stages):
    """examples/python/gemm_plain.py --ws at 1024^3, and at 1000^3 (skipped steps,
    masked edge tiles)."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(EXAMPLES))
    import gemm_plain

    assert gemm_plain.main(["1024", "1024", "1024", "--stages", str(stages), "--ws"]) == 0
    assert gemm_plain.main(["1000", "1000", "1000", "--stages", "3", "--ws"]) == 0


def test_plain_loop_gemm_example_warp_specialized_persistent():
    """examples/python/gemm_plain.py --ws --persistent (over the GPU's
    multiprocessors) at 1024^3 and 4096 x 4096 x 1024 (more tiles than blocks)."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(EXAMPLES))
    import gemm_plain

    assert gemm_plain.main(["1024", "1024", "1024", "--stages", "4", "--ws", "--persistent"]) == 0
    assert gemm_plain.main(["4096", "4096", "1024", "--stages", "4", "--ws", "--persistent"]) == 0


def test_plain_loop_gemm_example_with_skipped_steps():
    """K = 1000: 16 K steps under 3 stages (the last round's steps past 16 skipped);
    M and N not multiples of the tile (masked edge tiles)."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(EXAMPLES))
    import gemm_plain

    assert gemm_plain.main(["1000", "1000", "1000", "--stages", "3"]) == 0


@pytest.mark.parametrize("form,stages", [("tma", 4), ("cp_async", 3)])
def test_pipelined_test_programs_at_1024(form, stages):
    """The test programs of tests/helpers/pipeline_programs.py (64 x 64 tiles) at
    1024^3, f32 C against NumPy."""
    import cupy as cp

    m = n = k = 1024
    rng = np.random.default_rng(stages)
    a = f32_to_bf16(rng.uniform(-2, 2, (m, k)).astype(np.float32))
    b = f32_to_bf16(rng.uniform(-2, 2, (k, n)).astype(np.float32))
    if form == "tma":
        kernel = tilec.compile(tma_gemm(k, m=m, n=n), f"software-pipeline{{num_stages={stages}}},default")
        assert "wgmma.wait_group.sync.aligned 1;" in kernel.source
    else:
        kernel = tilec.compile(
            sm80_gemm(k, m=m, n=n),
            f"distribute,vectorize,software-pipeline{{num_stages={stages}}},vectorize-pointers,"
            "vectorize-element-loops,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize",
        )
        assert "tilec_cp_async_wait<2>();" in kernel.source
    dc = cp.full(m * n, np.nan, dtype=cp.float32)
    kernel(cp.asarray(a.reshape(-1)), cp.asarray(b.reshape(-1)), dc)
    got = cp.asnumpy(dc).reshape(m, n).astype(np.float64)
    a64, b64 = bf16_to_f32(a).astype(np.float64), bf16_to_f32(b).astype(np.float64)
    exact, mag = a64 @ b64, np.abs(a64) @ np.abs(b64)
    gamma, _ = mma_error_bound(k, "bf16")
    err = np.abs(got - exact)
    assert np.all(err <= gamma * mag), f"max error {np.nanmax(err)}"
