"""`layout.mbarrier_array` / `layout.mbarrier_at` and TMA loads into a stage of a staged
shared buffer (dialects/layout_tma.py): NVRTC compiles what `-t cuda` prints, and the
executor tells the barriers of an array apart at both levels (a wait on the wrong
stage's barrier is caught)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.runtime.reference import ExecutionError, random_inputs, run

LIT = Path(__file__).parents[1] / "filecheck" / "dialect" / "mbarrier_array.mlir"


def _text() -> str:
    return LIT.read_text()


def staged_ring(arrive_on_first: bool = False):
    """@staged_ring of the lit file, built with tilec.Program: three TMA loads, each
    into its stage of a swizzled shared buffer, completing on its own barrier of the
    array (`arrive_on_first`: the arrivals all go to barrier 0)."""
    p = tilec.Program("staged_ring")
    g = p.view(p.pointer("src", "f32", align=16), "(256,256):(256,1)").named("g")
    staged = tilec.ComposedLayout(tilec.Swizzle(3, 2, 3), 0, tilec.Layout((3, 64, 32), (2048, 32, 1)))
    with p.launch(grid=(1, 1, 1), threads=32):
        buf = p.alloc(staged, "f32", "smem").named("buf")
        bars = p.mbarrier_array(3).named("bars")
        with p.range(0, 3) as i:
            s = p.slice(buf, [i.named("i"), "_", "_"]).named("s")
            b = p.mbarrier_at(bars, i).named("b")
            t = p.tile(g, [i, i], [64, 32]).named("t")
            p.mbarrier_arrive(p.mbarrier_at(bars, 0).named("b0") if arrive_on_first else b, tx=8192)
            p.tma_load(t, s, b)
            p.mbarrier_wait(b, 0)
    return p.module


def test_the_built_ring_is_the_lit_files():
    """The Python-built ring prints as the lit file's function (its own test: the round
    trip and the executor's run there)."""
    def ops(m):
        return [(o.name, [str(r.type) for r in o.results], sorted(map(str, o.properties.values())))
                for o in m.walk() if o.name != "arith.constant"]

    assert ops(staged_ring()) == ops(parse_module(_text(), "t.mlir"))


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
    m = staged_ring(arrive_on_first=True)
    if level == "gpu_level":
        run_pipeline(m, "lower-to-gpu")
    with pytest.raises(ExecutionError, match="arrival") as e:
        run(m, random_inputs(m, 0))
    # located at the wait written (at the GPU level too: lower-to-gpu gives the
    # cuda.mbarrier_* ops their source op's location, not the launch's)
    src = Path(__file__).read_text().splitlines()
    line = next(i for i, s in enumerate(src, 1) if s.strip().startswith("p.mbarrier_wait("))
    assert f"{Path(__file__).name}:{line}:" in e.value.location
