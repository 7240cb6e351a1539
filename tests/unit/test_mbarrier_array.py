"""`layout.mbarrier_array` / `layout.mbarrier_at` and TMA loads into a stage of a staged
shared buffer (dialects/layout_tma.py): NVRTC compiles what `-t cuda` prints, and the
executor tells the barriers of an array apart at both levels (a wait on the wrong
stage's barrier is caught)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.nvrtc import compile_sm90_or_skip

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.runtime.reference import ExecutionError, random_inputs, run

LIT = Path(__file__).parents[1] / "filecheck" / "dialect" / "mbarrier_array.mlir"


def _text() -> str:
    return LIT.read_text()


def test_staged_ring_cuda_compiles():
    m = parse_module(_text(), "t.mlir")
    run_pipeline(m, "default")
    cuda = emit(m, "cuda")
    assert "mbars + i" in cuda
    compile_sm90_or_skip(cuda)


@pytest.mark.parametrize("level", ["layout_level", "gpu_level"])
def test_each_barrier_of_an_array_is_its_own(level):
    """Stage i's load completes on barrier i; arriving on barrier 0 instead leaves
    barrier 1's phase without its arrival when step 1 waits on it: the executor
    reports the wait (it would hang), at both levels, so the words of the array are
    separate barriers."""
    head, sep, tail = _text().rpartition("layout.mbarrier_arrive %b {tx")
    text = head + ("%b0 = layout.mbarrier_at %bars[%c0] : !layout.mbarriers<3>\n"
                   "      layout.mbarrier_arrive %b0 {tx") + tail
    m = parse_module(text, "t.mlir")
    if level == "gpu_level":
        run_pipeline(m, "lower-to-gpu")
    with pytest.raises(ExecutionError, match="arrival") as e:
        run(m, random_inputs(m, 0))
    # located at the wait written (at the GPU level too: lower-to-gpu gives the
    # cuda.mbarrier_* ops their source op's location, not the launch's)
    line = next(i for i, s in enumerate(text.splitlines(), 1) if s.strip().startswith("layout.mbarrier_wait"))
    assert e.value.location.startswith(f"t.mlir:{line}:")
