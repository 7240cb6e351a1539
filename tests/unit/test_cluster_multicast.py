"""Thread-block clusters on the reference executor, built with `tilec.Program`: a launch
of 2-block clusters (`launch(cluster=2)`, `tilec.cluster_dims`) whose blocks each load
half of their cluster's tile with a TMA load multicast to both (`tma_load(multicast=)`),
meet on a barrier each arrives on in both blocks (`mbarrier_arrive(cta=)`), and store
the whole tile: the executor lands each half in both blocks' shared memory before and
after the default pipeline (`cuda.tma_load {multicast}`, `cuda.mbarrier_arrive_expect_tx
on %cta`, `cuda.cluster_sync`); it reports a peer's barrier reached before a
`cluster_sync` published its initialisation, a block exiting while its peer may still
reach it, and a phase whose bytes miss the peer's half; the CUDA prints
`__cluster_dims__` and the cluster PTX and compiles under NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.mma import NvmmaSharedLayout
from tilec.runtime.reference import ExecutionError, run

M, N = 100, 24  # rows of 48 bytes; the second cluster's tile runs past M (zeros)
HALF = (32, 32)  # each block's half of its cluster's 64 x 32 tile (8 columns past N)
BLOCKS = 4  # two clusters of two


def program(first_sync: bool = True, last_sync: bool = True, tx: int = 2 * 32 * 32 * 2, peer: bool = True):
    """@k: cluster c's tile of `src` (rows 64 c .. 64 c + 63), half r loaded by the block
    of rank r and multicast to both, waited for, stored by each block b into its rows
    64 b .. 64 b + 63 of `dst`; then each block arrives on a barrier of 2 arrivals in
    both blocks (unless not `peer`: twice on its own) and waits for it. `first_sync` /
    `last_sync`: the cluster barriers after the barriers' initialisation and before
    exit; `tx` the bytes the load barrier expects."""
    p = tilec.Program("k")
    src = p.view(p.pointer("src", "f16", align=16), f"({M},{N}):({N},1)")
    dst = p.view(p.pointer("dst", "f16", align=16), f"({64 * BLOCKS},{N}):({N},1)")
    with p.launch(grid=(BLOCKS, 1, 1), threads=128, cluster=2) as k:
        c0, c1, c2 = p.constant(0), p.constant(1), p.constant(2)
        rank = p.cluster_rank()
        cluster = p.divui(k.bx, c2)
        halves = [p.alloc(NvmmaSharedLayout(64, 16, False).composed(list(HALF)), "f16") for _ in range(2)]
        bar = p.mbarrier_init(1)
        done = p.mbarrier_init(2)
        if first_sync:
            p.cluster_sync()
        p.mbarrier_arrive(bar, tx=tx)
        for r in range(2):
            with p.if_(rank.eq(p.constant(r))):
                p.tma_load(p.tile(src, [cluster * c2 + p.constant(r), c0], list(HALF)), halves[r], bar, multicast=3)
        p.mbarrier_wait(bar, c0)
        for r in range(2):
            p.tma_store(halves[r], p.tile(dst, [k.bx * c2 + p.constant(r), c0], list(HALF)))
        p.tma_store_wait(0)
        p.mbarrier_arrive(done, cta=c0 if peer else rank)
        p.mbarrier_arrive(done, cta=c1 if peer else rank)
        p.mbarrier_wait(done, c0)
        if last_sync:
            p.cluster_sync()
    return p.module


def _inputs():
    x = np.random.default_rng(0).standard_normal(M * N).astype(np.float16)
    return x, {"src": x.copy(), "dst": np.zeros(64 * BLOCKS * N, np.float16)}


def _expected(x):
    padded = np.zeros((128, N), np.float16)
    padded[:M] = x.reshape(M, N)
    return np.concatenate([padded[64 * (b // 2): 64 * (b // 2) + 64] for b in range(BLOCKS)]).reshape(-1)


def _lowered(m):
    m = m.clone()
    run_pipeline(m, "default")
    return m


def test_each_half_lands_in_both_blocks_of_the_cluster_before_and_after_the_pipeline():
    m = program()
    x, inputs = _inputs()
    for module in (m, _lowered(m)):
        got = run(module, {k: v.copy() for k, v in inputs.items()})["dst"]
        np.testing.assert_array_equal(got, _expected(x))


def test_arrivals_on_the_own_barrier_only_are_the_same_count():
    x, inputs = _inputs()  # each block arriving twice on its own barrier: also complete
    np.testing.assert_array_equal(run(program(peer=False), inputs)["dst"], _expected(x))


def test_a_peer_barrier_reached_before_a_cluster_sync_is_reported():
    for module in (program(first_sync=False), _lowered(program(first_sync=False))):
        with pytest.raises(ExecutionError, match="whose initialisation no cluster_sync has published"):
            run(module, _inputs()[1])


def test_a_block_exiting_before_its_peer_is_done_is_reported():
    for module in (program(last_sync=False), _lowered(program(last_sync=False))):
        with pytest.raises(ExecutionError, match="exits while a block of its cluster may still reach"):
            run(module, _inputs()[1])


def test_a_phase_expecting_only_its_own_half_is_reported():
    with pytest.raises(ExecutionError, match="expects 2048 bytes, but the TMA loads on it copy 4096"):
        run(program(tx=32 * 32 * 2), _inputs()[1])


def test_cuda_prints_the_cluster_and_compiles():
    cuda = emit(_lowered(program()), "cuda")
    assert "__cluster_dims__(2, 1, 1)" in cuda
    assert cuda.count(".multicast::cluster") == 2
    assert cuda.count("tilec_mbarrier_arrive_cluster(reinterpret_cast") == 2
    assert cuda.count("tilec_cluster_sync();") == 2
    assert compile_sm90_or_skip(cuda).cubin
