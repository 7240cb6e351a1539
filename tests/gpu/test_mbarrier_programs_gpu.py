"""On an H100/H200: the fuzz corpus's mbarrier programs (tests/fuzz/generate_mbarrier.py:
TMA rings on mbarrier arrays, warp-specialised producer/consumer pipelines (with
named barriers among a subset of their warps, `layout.named_barrier`), plain
loops that `software-pipeline` schedules) and the warp-specialised TMA-store loop
(tests/filecheck/warp-specialize/tma_store_loop.mlir), each through its pipeline, give
bit for bit what the CPU reference executor gives (`tilec FILE -p P --run gpu --check`,
outputs poisoned). Each runs in a process of its own with a time bound, so a program
the executor passed that hangs on the GPU (a phase the hardware never completes)
fails instead of stopping the run."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "fuzz"))
from generate_mbarrier import random_mbarrier_kernel, random_named_barrier_kernel  # noqa: E402

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).parents[2]


def _run_gpu(path: Path, pipeline: str) -> str:
    r = subprocess.run([sys.executable, "-m", "tilec.tools.tilec", str(path), "-p", pipeline, "--run", "gpu", "--check"],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "identical to the CPU reference executor" in r.stdout, r.stdout[-2000:]
    return r.stdout


@pytest.mark.parametrize("seed", range(24))
def test_fuzzed_mbarrier_programs_match_the_reference(seed, tmp_path):
    prog = random_mbarrier_kernel(random.Random(f"gpu{seed}"))
    path = tmp_path / f"mbarrier_{seed}.mlir"
    path.write_text(f"// {prog.summary}\n{prog.text}")
    _run_gpu(path, prog.pipeline)


@pytest.mark.parametrize("seed", range(8))
def test_fuzzed_named_barrier_programs_match_the_reference(seed, tmp_path):
    """Warp-specialised programs with `bar.sync` / `bar.arrive` among a subset of the
    block's warps (the consumers' exchange through shared memory, their handover of
    the last tile to the producer): bit for bit the executor's, and no hang."""
    prog = random_named_barrier_kernel(random.Random(f"named{seed}"))
    path = tmp_path / f"named_{seed}.mlir"
    path.write_text(f"// {prog.summary}\n{prog.text}")
    _run_gpu(path, prog.pipeline)


@pytest.mark.parametrize("pipeline", ["warp-specialize{num_stages=2},default",
                                      "warp-specialize{num_stages=3 rolled=true},default",
                                      "warp-specialize{num_stages=2 persistent=1},default"])
def test_warp_specialized_tma_store_loop(pipeline):
    _run_gpu(ROOT / "tests" / "filecheck" / "warp-specialize" / "tma_store_loop.mlir", pipeline)
