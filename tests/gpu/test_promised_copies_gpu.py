"""On an H100/H200: the fuzz corpus's copy programs whose views state `layout.view
{divisible, residue}` promises (tests/fuzz/generate.py `random_copy_program`, true promises
only: `_congruences`) through their random pipeline and `tilec --run gpu --check`: the GPU's
result identical to the CPU reference executor's (which tests/fuzz/test_valid_programs.py
checks against the program as written), so what a pass made of a promise (wider vectors
along a promised stride, a pinned extent) holds on the device too."""

from __future__ import annotations

import functools
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))

SEEDS = 10
"""Programs run: the first seeds whose copy states a residue and whose pipeline tiles it
with 128 threads or more or a tile of its own (the default tile of a dynamic extent at 32
or 64 threads holds 64 and more registers a thread, fully unrolled: 0.5-1 MB of CUDA,
10-40 s of NVRTC)."""


@functools.cache
def _promised_seeds() -> list[int]:
    from generate import random_copy_program

    seeds, s = [], 0
    while len(seeds) < SEEDS:
        prog = random_copy_program(random.Random(s))
        small = "tile=" in prog.pipeline or not any(f"threads={t}}}" in prog.pipeline for t in (32, 64))
        if "residue" in prog.text and small:
            seeds.append(s)
        s += 1
    return seeds


@pytest.mark.gpu
@pytest.mark.parametrize("k", range(SEEDS))
def test_random_promised_copies_on_the_gpu(k):
    from generate import random_copy_program
    from harness import run_tilec

    prog = random_copy_program(random.Random(_promised_seeds()[k]))
    out = run_tilec(["-p", prog.pipeline, "--run", "gpu", "--check"], prog.text, timeout=120)
    assert out.rc == 0, f"{prog.summary}\n{out.describe()}"
    assert "identical to the CPU reference executor" in out.stdout, prog.summary
