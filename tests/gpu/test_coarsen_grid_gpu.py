"""`coarsen-grid` on the GPU: a shared-memory round trip of small tiles, coarsened and
pipelined by the default pipeline without `tma` (cp.async), copies exactly."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers.tma_programs import round_trip  # noqa: E402

from tilec.compiler.pipeline import NAMED_PIPELINES  # noqa: E402

NO_TMA = NAMED_PIPELINES["default"].replace(",tma,", ",")


@pytest.mark.gpu
@pytest.mark.parametrize("m,n,t", [(8192, 8192, 16), (4096, 6144, 16)])
def test_coarsened_round_trip_exact(m, n, t):
    import cupy as cp

    import tilec

    kernel = tilec.compile(round_trip(m, n, t, t, threads=64), NO_TMA)
    assert "tilec_cp_async_wait<1>()" in kernel.source, "3 stages: 2 tiles' copies in flight"
    x = np.random.default_rng(2).standard_normal((m, n)).astype(np.float32)
    dst = cp.full((m, n), np.nan, dtype=cp.float32)
    kernel(cp.asarray(x), dst)
    cp.cuda.Device().synchronize()
    assert np.array_equal(cp.asnumpy(dst).view(np.uint32), x.view(np.uint32))


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(16))
def test_random_coarsened_round_trips_on_the_gpu(seed):
    """The fuzz corpus's round trips for `coarsen-grid` (tests/fuzz/generate_coarsen.py:
    every element size, ragged tensors, grids whose x is prime or small, random ring
    depths and tiles a block, some around the griddep ops, launched as programmatic
    dependents) through `tilec --run gpu --check`: the GPU's result equal to the CPU
    reference executor's (which tests/fuzz/test_valid_programs.py checks against NumPy)."""
    import random

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
    from generate_coarsen import random_coarsen_kernel
    from harness import run_tilec

    prog = random_coarsen_kernel(random.Random(seed))
    out = run_tilec(["-p", prog.pipeline, "--run", "gpu", "--check"], prog.text, timeout=120)
    assert out.rc == 0, f"{prog.summary}\n{out.describe()}"
