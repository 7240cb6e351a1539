"""On an H100/H200: the fuzz corpus's kernels around `layout.prefetch_l1`
(tests/fuzz/generate.py `random_prefetch_l1_kernel`: a block's tile of a ragged tensor loaded
and stored, its own tile, a tile block rows ahead, a column or a row of one asked of L1;
rows static or a run-time argument) through `tilec --run gpu --check`: the GPU's result equal
to the CPU reference executor's (which tests/fuzz/test_valid_programs.py checks against
NumPy): `prefetch.global.L1` changes no value."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(12))
def test_random_prefetch_l1_kernels_on_the_gpu(seed):
    from generate import random_prefetch_l1_kernel
    from harness import run_tilec

    prog = random_prefetch_l1_kernel(random.Random(seed))
    out = run_tilec(["-p", prog.pipeline, "--run", "gpu", "--check"], prog.text, timeout=120)
    assert out.rc == 0, f"{prog.summary}\n{out.describe()}"
    assert "identical to the CPU reference executor" in out.stdout, prog.summary
