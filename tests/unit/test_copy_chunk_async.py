"""`layout.copy_chunk_async` (one thread's 4-, 8- or 16-byte chunk, global -> shared,
asynchronously), built with `tilec.Program`: the reference executor moves each chunk
exactly as NumPy indexes it, before and after the default pipeline; it reports a read
of a chunk before the `async_wait` that lands it; the CUDA of an aligned chunk is one
`cp.async` of 16 bytes (of an unaligned one, bytes one at a time) and compiles under
NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.runtime.reference import ExecutionError, run

N = 1024
THREADS = 64


def _covered(step: int) -> int:
    """The bytes of the box the chunks fill (from 0, `step` <= 16)."""
    return (THREADS - 1) * step + 16


def program(step: int, wait: bool = True):
    """@k: thread t copies the 16 bytes of `a` at `t * step` into a shared box at the
    same place (`layout.multiple_of` states a step of 16), waits (unless not `wait`),
    and after a barrier writes byte `_covered(step) - 1 - t * step` of the box (another
    thread's chunk) to `b[t * step]`."""
    p = tilec.Program("k")
    a, b = (p.view(p.pointer(n, "i8", align=16), f"({N}):(1)") for n in ("a", "b"))
    with p.launch(threads=THREADS) as k:
        box = p.alloc(f"({N}):(1)", "i8")
        i = k.tid * step
        at = p.multiple_of(i, 16) if step % 16 == 0 else i
        p.copy_chunk_async(a, [at], box, [at], 16)
        if wait:
            p.async_wait()
        p.barrier()
        b[i] = box[(_covered(step) - 1) - i]
    return p.module


@pytest.mark.parametrize("step", [16, 15])
def test_chunks_land_as_numpy_says_before_and_after_the_pipeline(step):
    m = program(step)
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, N, dtype=np.int8)
    want = np.zeros(N, np.int8)
    idx = np.arange(THREADS) * step
    want[idx] = a[_covered(step) - 1 - idx]
    for module in (m, _lowered(m)):
        got = run(module, {"a": a.copy(), "b": np.zeros(N, np.int8)})["b"]
        np.testing.assert_array_equal(got, want)


def test_a_read_before_the_wait_is_reported():
    m = program(16, wait=False)
    with pytest.raises(ExecutionError, match="while a cp.async is still writing it"):
        run(m, {"a": np.zeros(N, np.int8), "b": np.zeros(N, np.int8)})


def _lowered(m):
    m = m.clone()
    run_pipeline(m, "default")
    return m


@pytest.mark.parametrize(("step", "async_copies"), [(16, 1), (15, 0)])
def test_cuda_is_one_cp_async_where_aligned_and_compiles(step, async_copies):
    cuda = emit(_lowered(program(step)), "cuda")
    assert cuda.count("tilec_cp_async<16>(") == async_copies
    assert cuda.count("tilec_cp_async_commit();") == 1
    assert "tilec_cp_async_wait<0>();" in cuda
    assert compile_sm90_or_skip(cuda).cubin
