"""`layout.cp_async_load` (a global tile into a swizzled shared tile by 16-byte cp.async
of the block's threads, each arriving on an mbarrier with
`cp.async.mbarrier.arrive.noinc`), built with `tilec.Program`: the reference executor
copies the tile element for element, zeros outside the tensor, before and after the
default pipeline (where it runs `cuda.cp_async` with `src_bytes` and
`cuda.cp_async_mbarrier_arrive`); its mbarrier checker reports a count that leaves
out the copying threads (an arrival past the count), one that expects more (the wait
would never return) and a read of the tile before the wait; the CUDA compiles under
NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.mma import NvmmaSharedLayout
from tilec.runtime.reference import ExecutionError, run

M, N = 40, 24  # rows of 48 bytes: 16 mod 32, the rows cp_async_load is for
TILE = (64, 32)  # one masked tile: 24 rows and 8 columns of it outside
THREADS = 128


def program(count: int = THREADS, wait: bool = True):
    """@k: the tile (0, 0) of `src` (M x N f16) copied into a 64-byte-swizzled shared
    tile by `cp_async_load` on a barrier of `count` arrivals, waited for (unless not
    `wait`), then stored to the same tile of `dst` with the TMA."""
    p = tilec.Program("k")
    src, dst = (p.view(p.pointer(n, "f16", align=16), f"({M},{N}):({N},1)") for n in ("src", "dst"))
    with p.launch(threads=THREADS):
        c0 = p.constant(0)
        ts, td = p.tile(src, [c0, c0], list(TILE)), p.tile(dst, [c0, c0], list(TILE))
        s = p.alloc(NvmmaSharedLayout(64, 16, False).composed(list(TILE)), "f16")
        bar = p.mbarrier_init(count)
        p.cp_async_load(ts, s, bar)
        if wait:
            p.mbarrier_wait(bar, c0)
        p.tma_store(s, td)
        p.tma_store_wait(0)
    return p.module


def _lowered(m):
    m = m.clone()
    run_pipeline(m, "default")
    return m


def _inputs():
    x = np.random.default_rng(0).standard_normal(M * N).astype(np.float16)
    return x, {"src": x.copy(), "dst": np.zeros(M * N, np.float16)}


def test_the_tile_lands_as_numpy_says_before_and_after_the_pipeline():
    m = program()
    x, inputs = _inputs()
    for module in (m, _lowered(m)):
        got = run(module, {k: v.copy() for k, v in inputs.items()})["dst"]
        np.testing.assert_array_equal(got, x)


def test_a_count_without_the_copying_threads_is_reported():
    with pytest.raises(ExecutionError, match="already has all its 1 arrivals"):
        run(program(count=1), _inputs()[1])


def test_a_count_past_the_copying_threads_is_reported():
    with pytest.raises(ExecutionError, match="the wait would never return.*missing 1 of its 129 arrivals"):
        run(program(count=THREADS + 1), _inputs()[1])


def test_a_read_before_the_wait_is_reported():
    with pytest.raises(ExecutionError, match="while a TMA load is still writing it"):
        run(program(wait=False), _inputs()[1])


def test_cuda_compiles_with_one_arrival_a_thread():
    cuda = emit(_lowered(program()), "cuda")
    assert cuda.count("tilec_cp_async_mbarrier_arrive(reinterpret_cast") == 1
    assert cuda.count("tilec_cp_async_zfill(smem") == 64 * 32 * 2 // 16 // THREADS
    assert compile_sm90_or_skip(cuda).cubin
