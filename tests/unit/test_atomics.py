"""`layout.atomic_add` and `layout.fence` (dialects/layout_atomic.py) on the reference
executor (runtime/reference/atomic_impls.py): atomics in thread order, the old values
they give, and the release/acquire hand-over between blocks that the race checks accept
(the counter protocol of a serial split-K: partials, a barrier, thread 0's fence,
arrival on a counter, fence, the last block sums) and refuse (no release fence, no
acquire, a cta-scope counter); counters zero in `random_inputs`; the CUDA compiled by NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import sm90_usage_or_skip

from tilec.compiler.builder import Program
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.runtime.reference import random_inputs, run
from tilec.runtime.reference.errors import ExecutionError

BLOCKS, THREADS = 4, 32


def handoff(release: bool = True, acquire: str | None = "fence", scope: str = "gpu"):
    """Each block doubles its 32 elements of %x into %part; thread 0 counts the block's
    arrival on %ctr; the last block sums the 4 partials in block order into %out and
    puts the counter back to 0. `release`: the fence before the arrival; `acquire`:
    "fence" (after a relaxed arrival), "order" (an acq_rel arrival) or None; `scope` the
    counter's and fences'."""
    p = Program("handoff")
    x = p.view(p.pointer("x", "f32", align=4), f"({BLOCKS * THREADS}):(1)")
    part = p.view(p.pointer("part", "f32", align=4), f"({BLOCKS * THREADS}):(1)")
    out = p.view(p.pointer("out", "f32", align=4), f"({THREADS}):(1)")
    ctr = p.view(p.pointer("ctr", "i32", align=4), "(1):(1)")
    with p.launch(grid=(BLOCKS, 1, 1), threads=THREADS) as k:
        flag = p.alloc("(1):(1)", "i32", "smem")
        i = k.bx * THREADS + k.tid
        part[i] = x[i] * 2.0
        p.barrier()
        with p.if_(k.tid.eq(0)):
            if release:
                p.fence(scope)
            old = p.atomic_add(ctr, [0], 1, scope=scope, order="acq_rel" if acquire == "order" else "relaxed")
            if acquire == "fence":
                p.fence(scope)
            flag[0] = old
        p.barrier()
        last = p.constant(BLOCKS - 1, "i32")
        with p.if_(flag[0].eq(last)):
            acc = part[k.tid]
            for b in range(1, BLOCKS):
                acc = acc + part[k.tid + b * THREADS]
            out[k.tid] = acc
            with p.if_(k.tid.eq(0)):
                p.atomic_add(ctr, [0], -BLOCKS, scope=scope)
    return p.module


def _inputs(seed: int = 0) -> dict:
    x = np.random.default_rng(seed).standard_normal(BLOCKS * THREADS).astype(np.float32)
    return {"x": x, "part": np.zeros_like(x), "out": np.full(THREADS, np.nan, np.float32),
            "ctr": np.zeros(1, np.int32)}


@pytest.mark.parametrize("acquire", ["fence", "order"])
def test_the_counter_protocol_runs_and_sums_in_block_order(acquire):
    ins = _inputs()
    got = run(handoff(acquire=acquire), ins)
    parts = (ins["x"] * np.float32(2)).reshape(BLOCKS, THREADS)
    want = parts[0]
    for b in range(1, BLOCKS):
        want = want + parts[b]
    assert np.array_equal(got["out"], want)
    assert got["ctr"].tolist() == [0]


def test_a_missing_release_fence_is_a_data_race():
    with pytest.raises(ExecutionError, match=r"data race on global memory: thread \d+ of block 3 reads %part\[\d+\], "
                                             r"which thread \d+ of block 0 wrote .*no release"):
        run(handoff(release=False), _inputs())


def test_a_missing_acquire_is_a_data_race():
    with pytest.raises(ExecutionError, match="data race on global memory.*%part"):
        run(handoff(acquire=None), _inputs())


def test_a_cta_scope_counter_hands_nothing_over():
    with pytest.raises(ExecutionError, match="data race on global memory.*%part"):
        run(handoff(scope="cta"), _inputs())


def test_atomics_run_in_thread_order():
    """Every thread of 2 blocks adds its id + 1 to one counter: each gets the sum of the
    lower threads' (lower blocks first), the counter their total."""
    p = Program("order")
    ctr = p.view(p.pointer("ctr", "i32", align=4), "(1):(1)")
    olds = p.view(p.pointer("olds", "i32", align=4), "(64):(1)")
    with p.launch(grid=(2, 1, 1), threads=32) as k:
        g = k.bx * 32 + k.tid
        olds[g] = p.atomic_add(ctr, [0], (g + 1).cast("i32"))
    got = run(p.module, {"ctr": np.array([5], np.int32), "olds": np.zeros(64, np.int32)})
    adds = np.arange(1, 65)
    assert got["olds"].tolist() == (5 + np.concatenate([[0], np.cumsum(adds)[:-1]])).tolist()
    assert got["ctr"].tolist() == [5 + adds.sum()]


def test_random_inputs_give_counters_zeros():
    ins = random_inputs(handoff(), seed=3)
    assert ins["ctr"].tolist() == [0] and ins["x"].any()


def test_the_protocol_after_the_default_pipeline_and_its_cuda():
    module = handoff()
    run_pipeline(module, "default")
    ins = _inputs(1)
    got = run(module, ins)
    assert got["ctr"].tolist() == [0] and not np.isnan(got["out"]).any()
    cuda = emit(module, "cuda")
    assert 'asm volatile("fence.acq_rel.gpu;" ::: "memory");' in cuda
    assert "atom.relaxed.gpu.global.add.u32" in cuda
    usage = sm90_usage_or_skip(cuda)
    assert usage.spill_stores in (0, None)
