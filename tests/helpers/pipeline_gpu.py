"""The GPU runners of the software-pipeline tests (tests/gpu/test_software_pipeline*_gpu.py):
the plain-loop example and the test programs of tests/helpers/pipeline_programs.py,
compiled through `software-pipeline` and checked against NumPy. Need a GPU (and CuPy,
or PyTorch for the example)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec.dialects.layout_mma import mma_error_bound
from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

from .pipeline_programs import sm80_gemm, tma_gemm

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"

SM80_PASSES = ("distribute,vectorize,software-pipeline{{{options}}},vectorize-pointers,"
               "vectorize-element-loops,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize")
"""The sm_80 form's pipeline around `software-pipeline{options}` (format with `options`)."""


def gemm_plain(*argv: str) -> int:
    """examples/python/gemm_plain.py's `main(argv)` (it checks its result against
    float64 itself and returns 0 when it holds); skips where PyTorch is missing."""
    pytest.importorskip("torch")
    sys.path.insert(0, str(EXAMPLES))
    import gemm_plain as example

    return example.main(list(argv))


def pipelined_gemm_source(form: str, stages: int, k: int, rolled: bool = False, m: int = 1024,
                          n: int = 1024) -> str:
    """Compiles the `form` ("tma": TMA + wgmma, or "cp_async": cp.async + mma.sync) test
    program of tests/helpers/pipeline_programs.py (m x n x k, 64 x 64 tiles) with
    `software-pipeline{num_stages=stages rolled=...}` (`rolled`: its rolled form, else
    the unrolled one, whatever the pass's default for the form), runs it on
    random bf16 A and B (seeded by `stages`) into an f32 C poisoned with NaN and asserts
    C is A @ B within the MMA error bound of NumPy's float64 product. Returns the
    kernel's CUDA (for the caller's checks of it)."""
    import cupy as cp

    options = f"num_stages={stages} rolled={'true' if rolled else 'false'}"
    rng = np.random.default_rng(stages)
    a = f32_to_bf16(rng.uniform(-2, 2, (m, k)).astype(np.float32))
    b = f32_to_bf16(rng.uniform(-2, 2, (k, n)).astype(np.float32))
    if form == "tma":
        kernel = tilec.compile(tma_gemm(k, m=m, n=n), f"software-pipeline{{{options}}},default")
    else:
        kernel = tilec.compile(sm80_gemm(k, m=m, n=n), SM80_PASSES.format(options=options))
    dc = cp.full(m * n, np.nan, dtype=cp.float32)
    kernel(cp.asarray(a.reshape(-1)), cp.asarray(b.reshape(-1)), dc)
    got = cp.asnumpy(dc).reshape(m, n).astype(np.float64)
    a64, b64 = bf16_to_f32(a).astype(np.float64), bf16_to_f32(b).astype(np.float64)
    exact, mag = a64 @ b64, np.abs(a64) @ np.abs(b64)
    gamma, _ = mma_error_bound(k, "bf16")
    err = np.abs(got - exact)
    assert np.all(err <= gamma * mag), f"max error {np.nanmax(err)}"
    return kernel.source
