"""Distributed shared memory on the reference executor (`layout.peer_view`,
`cuda.map_shared_rank`), built with `tilec.Program`: each block of a 2-block cluster
stores its tile into a shared buffer, the cluster meets, each block adds its peer's
buffer (through `peer_view`) to its own and stores the sum, the cluster meets again.
Before and after the default pipeline the sums are the tiles of both blocks; reading
the peer's buffer before the cluster barrier is a data race, exiting while the peer
may still read is reported, the peer overwriting its buffer after the reads without a
cluster barrier in between is a race, an arrival on the peer's mbarrier does not order
its data (it releases at the block's scope), a rank past the cluster is an error; the CUDA
maps the buffer with `mapa` and compiles under NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.distributed import BlockedLayout
from tilec.runtime.reference import ExecutionError, run

R, C = 16, 32  # each block's tile
BLOCKS = 4  # two clusters of two
ROW = BlockedLayout([1, 4], [4, 8], [2, 1], [1, 0])


def program(first_sync: bool = True, last_sync: bool = True, rank_past: bool = False, overwrite: bool = False,
            arrive: bool = False, rounds: int = 1, all_read: bool = False, round_sync: bool = True):
    """@k: block b's rows 16 b .. 16 b + 15 of `src` into its buffer, the cluster's
    barrier (`first_sync`), its peer's buffer plus its own into the same rows of `dst`,
    (`overwrite`: then zeros into its own buffer), the cluster's barrier (`last_sync`).
    `rank_past`: the peer of rank 2 + rank (outside the cluster; a run-time value, which
    the verifier cannot see). `arrive`: instead of the first cluster barrier, each block
    arrives on its peer's mbarrier and waits on its own (published by a cluster barrier
    before the stores). `rounds`: the whole again on the next rows, each round's stores
    after the last round's cluster barrier (`round_sync`; else a block barrier);
    `all_read`: every block reads both buffers (its own through `peer_view` too), so
    each element is read by the two blocks of its cluster."""
    p = tilec.Program("k")
    src = p.view(p.pointer("src", "f32", align=16), f"({R * BLOCKS * rounds},{C}):({C},1)")
    dst = p.view(p.pointer("dst", "f32", align=16), f"({R * BLOCKS * rounds},{C}):({C},1)")
    with p.launch(grid=(BLOCKS, 1, 1), threads=64, cluster=2) as k:
        c0, c1 = p.constant(0), p.constant(1)
        rank = p.cluster_rank()
        s = p.alloc(f"({R},{C}):({C},1)", "f32")
        other = rank + p.constant(2) if rank_past else c1 - rank
        if arrive:
            bar = p.mbarrier_init(1)
            p.cluster_sync()
        for i in range(rounds):
            at = k.bx + p.constant(BLOCKS * i)
            p.store(p.load(p.tile(src, [at, c0], [R, C]), ROW), s)
            if arrive:
                p.mbarrier_arrive(bar, cta=other)
                p.mbarrier_wait(bar, c0)
            elif first_sync:
                p.cluster_sync()
            theirs = p.load(p.peer_view(s, other), ROW)
            own = p.load(p.peer_view(s, rank) if all_read else s, ROW)
            p.store(theirs + own, p.tile(dst, [at, c0], [R, C]))
            if overwrite:
                p.store(p.full([R, C], 0.0, "f32", ROW), s)
            if i < rounds - 1:
                p.cluster_sync() if round_sync else p.barrier()
        if last_sync:
            p.cluster_sync()
    return p.module


def _inputs(rounds: int = 1):
    x = np.random.default_rng(0).standard_normal(rounds * R * BLOCKS * C).astype(np.float32)
    return x, {"src": x.copy(), "dst": np.zeros_like(x)}


def _expected(x):
    tiles = x.reshape(-1, 2, R, C)
    return (tiles[:, ::-1] + tiles).reshape(-1)


def _lowered(m):
    m = m.clone()
    run_pipeline(m, "default")
    return m


def test_each_block_adds_its_peers_tile_before_and_after_the_pipeline():
    m = program()
    x, inputs = _inputs()
    for module in (m, _lowered(m)):
        got = run(module, {k: v.copy() for k, v in inputs.items()})["dst"]
        np.testing.assert_array_equal(got, _expected(x))


def test_reading_the_peer_before_the_cluster_barrier_is_a_race():
    for module in (program(first_sync=False), _lowered(program(first_sync=False))):
        with pytest.raises(ExecutionError, match="data race on shared memory.*ordered by a cluster_sync"):
            run(module, _inputs()[1])


def test_an_arrival_on_the_peers_mbarrier_does_not_order_its_data():
    """An mbarrier arrival releases at the block's scope (PTX's default `.cta`): the
    peer's writes are not ordered before the reads it lets through."""
    with pytest.raises(ExecutionError, match="data race on shared memory.*ordered by a cluster_sync"):
        run(program(arrive=True), _inputs()[1])


def test_exiting_while_the_peer_may_still_read_is_reported():
    for module in (program(last_sync=False), _lowered(program(last_sync=False))):
        with pytest.raises(ExecutionError, match="exits while a block of its cluster may still reach.*peer_view"):
            run(module, _inputs()[1])


def test_a_buffer_both_blocks_read_is_overwritten_after_the_cluster_barrier():
    """Each element read by the two blocks of its cluster (the buffer's own block
    through `peer_view` too), the cluster's barrier, the next round's stores into it:
    ordered (every block of the cluster passed the barrier after every read), before
    and after the pipeline; with a block barrier in its place, a race named so."""
    m = program(rounds=3, all_read=True)
    x, inputs = _inputs(3)
    for module in (m, _lowered(m)):
        got = run(module, {k: v.copy() for k, v in inputs.items()})["dst"]
        np.testing.assert_array_equal(got, _expected(x))
    bad = program(rounds=2, all_read=True, round_sync=False)
    for module in (bad, _lowered(bad)):
        with pytest.raises(ExecutionError, match="data race on shared memory.*overwrites.*"
                           "which threads of several blocks of its cluster read.*ordered by a cluster_sync"):
            run(module, _inputs(2)[1])


def test_overwriting_a_buffer_the_peer_read_is_a_race():
    with pytest.raises(ExecutionError, match="data race on shared memory.*overwrites"):
        run(program(overwrite=True), _inputs()[1])


def test_a_rank_past_the_cluster_is_an_error():
    for module in (program(rank_past=True), _lowered(program(rank_past=True))):
        with pytest.raises(ExecutionError, match="cluster rank [23] is outside a cluster of 2 blocks"):
            run(module, _inputs()[1])


def test_cuda_maps_the_peer_and_compiles():
    cuda = emit(_lowered(program()), "cuda")
    assert "mapa.u64" in cuda and cuda.count("tilec_map_shared_rank(smem") == 1
    assert cuda.count("tilec_cluster_sync();") == 2
    assert compile_sm90_or_skip(cuda).cubin
