"""On an H100/H200: the fuzz corpus's copy programs whose views state `layout.view
{divisible, residue}` promises (tests/fuzz/generate.py `random_copy_program`, true promises
only: `_congruences`) through the default pipeline and `tilec --run gpu --check`: the GPU's
result identical to the CPU reference executor's on the program as written, so what the
passes made of a promise (a strategy's cost, wider vectors along a promised stride, a pinned
extent) holds on the device too. The programs' own random pipelines are checked on the CPU
(tests/fuzz/test_valid_programs.py); `--run gpu` takes the program at the layout level, where
the buffers' sizes are the views' reach at the bound values (a fully lowered module's
`memref<?x...>` arguments say nothing of them)."""

from __future__ import annotations

import functools
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))

SEEDS = 10
"""Programs run: the first seeds whose copy states a residue."""


@functools.cache
def _promised_seeds() -> list[int]:
    from generate import random_copy_program

    seeds, s = [], 0
    while len(seeds) < SEEDS:
        if "residue" in random_copy_program(random.Random(s)).text:
            seeds.append(s)
        s += 1
    return seeds


@pytest.mark.gpu
@pytest.mark.parametrize("k", range(SEEDS))
def test_random_promised_copies_on_the_gpu(k):
    from generate import random_copy_program
    from harness import run_tilec

    prog = random_copy_program(random.Random(_promised_seeds()[k]))
    out = run_tilec(["--run", "gpu", "--check"], prog.text, timeout=120)
    assert out.rc == 0, f"{prog.summary}\n{out.describe()}"
    assert "identical to the CPU reference executor" in out.stdout, prog.summary
