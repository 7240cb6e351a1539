"""`layout.cp_async_arrive` (every thread arrives on an mbarrier once its earlier
`copy_chunk_async` copies land), built with `tilec.Program`: a ring of two shared boxes
filled part by part, each waited on its own barrier (the `box_ring` of box copies), moves
every byte as NumPy says before and after the default pipeline; the reference executor
reports a read of a box before the wait on its barrier, and a barrier counting fewer
arrivals than the block's threads is a verifier error; the CUDA is one
`cp.async.mbarrier.arrive.noinc` per arrival and compiles under NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.runtime.reference import ExecutionError, run

THREADS = 32
PART = THREADS * 16
PARTS = 4
N = PART * PARTS


def program(wait: bool = True, count: int = THREADS):
    """@ring: part j (512 bytes of `a`) goes into box j mod 2 by one 16-byte chunk a
    thread, then the block arrives on the box's barrier; part j + 1 is issued before
    part j is waited for (unless not `wait`) and read, thread t writing the box's byte
    `PART - 1 - t` (another thread's chunk) to `b[j PART + t]`, a barrier after."""
    p = tilec.Program("ring")
    a, b = (p.view(p.pointer(n, "i8", align=16), f"({N}):(1)") for n in ("a", "b"))
    with p.launch(threads=THREADS) as k:
        boxes = p.alloc(f"({2 * PART}):(1)", "i8")
        bars = p.mbarrier_array(2, count=count)
        at = p.multiple_of(k.tid * 16, 16)

        def issue(j: int) -> None:
            p.copy_chunk_async(a, [at + j * PART], boxes, [at + (j % 2) * PART], 16)
            p.cp_async_arrive(p.mbarrier_at(bars, p.constant(j % 2)))

        issue(0)
        for j in range(PARTS):
            if j + 1 < PARTS:
                issue(j + 1)
            if wait:
                p.mbarrier_wait(p.mbarrier_at(bars, p.constant(j % 2)), p.constant((j // 2) % 2))
            b[k.tid + j * PART] = boxes[(j % 2) * PART + PART - 1 - k.tid]
            p.barrier()
    return p.module


def _want(a: np.ndarray) -> np.ndarray:
    want = np.zeros(N, np.int8)
    t = np.arange(THREADS)
    for j in range(PARTS):
        want[j * PART + t] = a[j * PART + PART - 1 - t]
    return want


def _lowered(m):
    m = m.clone()
    run_pipeline(m, "default")
    return m


def test_a_ring_of_boxes_waited_on_their_barriers_moves_what_numpy_says():
    m = program()
    a = np.random.default_rng(0).integers(-128, 128, N, dtype=np.int8)
    for module in (m, _lowered(m)):
        got = run(module, {"a": a.copy(), "b": np.zeros(N, np.int8)})["b"]
        np.testing.assert_array_equal(got, _want(a))


def test_a_read_before_the_barriers_wait_is_reported():
    with pytest.raises(ExecutionError, match="still writing|in flight|pending"):
        run(program(wait=False), {"a": np.zeros(N, np.int8), "b": np.zeros(N, np.int8)})


def test_a_barrier_counting_fewer_than_the_blocks_threads_is_an_error():
    with pytest.raises(Exception, match="one arrival per thread of the block"):
        program(count=THREADS - 1).verify()


def test_cuda_arrives_noinc_once_a_part_and_compiles():
    cuda = emit(_lowered(program()), "cuda")
    assert cuda.count("tilec_cp_async_mbarrier_arrive(") == PARTS + 1  # the helper's definition, then a part each
    assert "tilec_cp_async_wait<" not in cuda
    assert compile_sm90_or_skip(cuda).cubin
