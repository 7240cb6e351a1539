"""`layout.named_barrier` (dialects/layout_roles.py): `bar.sync` / `bar.arrive` between
warp_specialize regions. The reference executor counts each barrier's arrivals
(runtime/reference/roles_impls.py): a handover through shared memory ordered by it
runs and is exact at the layout level and after `lower-to-gpu`; without it the race
is reported; a missing arrival (a hang on the GPU) and a phase counted two ways are
reported; a pingpong of two regions taking turns through two barriers runs; what
`-t cuda` prints compiles under NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.builder import Program
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.runtime.reference import ExecutionError

L = tilec.BlockedLayout([1], [32], [4], [0])
X = np.arange(128, dtype=np.float32) * 0.5 - 3.0


def _handover(first=("arrive", 3, 256), second=("sync", 3, 256)) -> Program:
    """Region 0 writes `a` to shared memory and calls `first`; region 1 calls `second`
    and copies the shared buffer to `out` (None: no barrier call)."""
    p = Program("handover")
    a = p.view(p.pointer("a", "f32"), "(128):(1)")
    out = p.view(p.pointer("out", "f32"), "(128):(1)")
    with p.launch(grid=(2, 1, 1), threads=256):
        buf = p.alloc("(128):(1)", "f32", "smem")
        writer, reader = p.warp_specialize([1, 1])
        with writer:
            p.store(p.load(a, L) * 2.0, buf)
            if first:
                p.named_barrier(*first)
        with reader:
            if second:
                p.named_barrier(*second)
            p.store(p.load(buf, L) + 1.0, out)
    return p


def _run(p: Program, level: str) -> np.ndarray:
    m = p.module
    if level == "lowered":
        run_pipeline(m, "lower-to-gpu")
    return tilec.run_reference(m, {"a": X, "out": np.zeros_like(X)})["out"]


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_handover_through_shared_memory(level):
    assert np.array_equal(_run(_handover(), level), X * 2.0 + 1.0)


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_without_the_barrier_the_race_is_reported(level):
    with pytest.raises(ExecutionError, match="race|conflict|ordered"):
        _run(_handover(first=None, second=None), level)


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_a_missing_arrival_would_hang(level):
    with pytest.raises(ExecutionError, match=r"the bar.sync 3 would never return: 128 of the 256 threads"):
        _run(_handover(first=None), level)


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_one_phase_counted_two_ways(level):
    with pytest.raises(ExecutionError, match=r"bar.sync 3 counts 128 threads, but the phase in progress .* counts 256"):
        _run(_handover(second=("sync", 3, 128)), level)


def test_more_arrivals_than_the_count():
    """A region of two warpgroups (256 threads) arriving at a barrier that counts 128:
    on the GPU the phase completes part way through its arrivals."""
    p = Program("over")
    with p.launch(threads=384):
        big, small = p.warp_specialize([2, 1])
        with big:
            p.named_barrier("arrive", 3, 128)
        with small:
            pass
    with pytest.raises(ExecutionError, match=r"256 threads arrive at barrier 3 in block 0, whose phase counts 128"):
        tilec.run_reference(p.module, {})


def _pingpong(rounds: int, give_first_turn: bool = True, hand_over: bool = True) -> Program:
    """Two regions take turns `rounds` times through a shared buffer, as
    FlashAttention-3's consumer warpgroups take turns issuing their wgmma: region c
    waits for its turn on barrier 4 + c (256 threads: its own and the other region's
    arrival) and gives the turn to the other on barrier 5 - c; region 0 gives itself
    the first turn. Its turns add 1, region 1's double; region 1 writes the result."""
    p = Program("pingpong")
    a = p.view(p.pointer("a", "f32"), "(128):(1)")
    out = p.view(p.pointer("out", "f32"), "(128):(1)")
    with p.launch(grid=(2, 1, 1), threads=256):
        buf = p.alloc("(128):(1)", "f32", "smem")
        regions = p.warp_specialize([1, 1])
        for c, region in enumerate(regions):
            with region:
                if c == 0:
                    p.store(p.load(a, L), buf)
                    if give_first_turn:
                        p.named_barrier("arrive", 4, 256)
                with p.range(p.constant(0), p.constant(rounds), p.constant(1)):
                    p.named_barrier("sync", 4 + c, 256)
                    x = p.load(buf, L)
                    p.store(x + 1.0 if c == 0 else x * 2.0, buf)
                    if hand_over:
                        p.named_barrier("arrive", 5 - c, 256)
                if c == 1:
                    p.store(p.load(buf, L), out)
    return p


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_pingpong_takes_turns(level):
    want = X.copy()
    for _ in range(3):
        want = (want + 1.0) * 2.0
    assert np.array_equal(_run(_pingpong(3), level), want)


@pytest.mark.parametrize("kw", [{"give_first_turn": False}, {"hand_over": False}])
def test_pingpong_without_a_turn_hangs(kw):
    with pytest.raises(ExecutionError, match=r"the bar.sync [45] would never return"):
        _run(_pingpong(3, **kw), "layout")


def test_named_barriers_compile():
    """`bar.sync` and `bar.arrive` with the ids and counts of the ops, compiled by NVRTC."""
    p = _pingpong(3)
    m = p.module
    run_pipeline(m, "default")
    cuda = emit(m, "cuda")
    for line in ("bar.arrive 4, 256;", "bar.sync 4, 256;", "bar.sync 5, 256;", "bar.arrive 5, 256;"):
        assert line in cuda
    compile_sm90_or_skip(cuda)
