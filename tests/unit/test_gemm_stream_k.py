"""Stream-K for the decode sizes (`gemm_hopper_ws(swap_ab=True, persistent=P,
stream_k=True)`, `GemmConfig.stream_k`): the blocks share the swapped tiles' trips of
the ring evenly, a tile one block takes whole stored with the epilogue, the segments of
a tile shared by several blocks stored as f32 partials into two slots a block and
summed in block order by the fixup launch. On the reference executor against float64
within the documented bound, the workspace and the output poisoned, at grids that
share tiles every way: a block's range across a tile boundary (P = 3, 5), ranges
inside one tile so that a tile has three segments or more (P = 13), one trip a block
(P = 40: every tile in 8 segments); M across two column tiles; two consumer
warpgroups; after the default pipeline. NVRTC compiles of the rule's shapes without
spills. The GPU timings are benchmarks/matmul_bench.py's (`--configs ...:sk`)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _bits, _check, _operands, _values

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm import GemmConfig, MatmulKey, matmul_program
from tilec.gemm_programs import Epilogue, gemm_hopper_ws
from tilec.runtime.reference import run

WIDEST = Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")


def _run_stream_k(module, m: int, n: int, ep: Epilogue, ops: dict, slots: int, bm: int, bn: int) -> np.ndarray:
    """The program on the reference executor with a workspace of `slots` `bm x bn` f32
    tiles, C and the workspace poisoned with NaN; C as float64."""
    inputs = {"pa": _bits(ops["a"].ravel(), "bf16"), "pb": _bits(ops["b"].T.ravel(), "bf16"),
              "pc": _bits(np.full(m * n, np.nan, np.float32), ep.out_dtype)}
    if ep.bias:
        inputs["pbias"] = _bits(ops["bias"], ep.out_dtype)
    if ep.residual:
        inputs["pres"] = _bits(ops["residual"].ravel(), ep.out_dtype)
    inputs["pw"] = np.full(slots * bm * bn, np.nan, np.float32)
    inputs["m"] = m
    return _values(run(module, inputs)["pc"], ep.out_dtype).reshape(m, n)


# N = 200: 4 tiles of 64 rows (the last 8); K = 1000: 16 steps of 64 over 2 stages, 8
# trips a tile (the last step ragged), 32 trips at M <= 16, 64 at M = 20 (two column tiles)
@pytest.mark.parametrize("blocks", [3, 13, 40])
def test_stream_k_against_float64(blocks):
    n, k = 200, 1000
    module = gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            persistent=blocks, stream_k=True, epilogue=WIDEST)
    for m in (1, 20):  # one program for every M
        ops = _operands(m, n, k, WIDEST, seed=m + blocks)
        _check(_run_stream_k(module, m, n, WIDEST, ops, 2 * blocks, 64, 16), ops, WIDEST)


def test_stream_k_plain_epilogue():
    n, k, blocks = 200, 1000, 5  # span 7 trips: every block's range across a tile boundary
    module = gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            persistent=blocks, stream_k=True)
    ops = _operands(5, n, k, Epilogue(), seed=3)
    _check(_run_stream_k(module, 5, n, Epilogue(), ops, 2 * blocks, 64, 16), ops, Epilogue())


def test_stream_k_of_two_consumer_warpgroups():
    """128 rows of N a tile (two consumer warpgroups sharing each stage of A^T), 32
    columns of M, over 7 blocks: M = 1 (one column tile) and 33 (two)."""
    n, k, blocks = 200, 1000, 7
    module = gemm_hopper_ws(None, n, k, bm=128, bn=32, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            persistent=blocks, stream_k=True, epilogue=WIDEST)
    for m in (1, 33):
        ops = _operands(m, n, k, WIDEST, seed=m)
        _check(_run_stream_k(module, m, n, WIDEST, ops, 2 * blocks, 128, 32), ops, WIDEST)


def test_stream_k_after_the_default_pipeline():
    m, n, k, blocks = 40, 136, 456, 4  # 64 columns of M; K = 456: 8 steps, the last 8 wide
    module = gemm_hopper_ws(None, n, k, bm=64, bn=64, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            persistent=blocks, stream_k=True, epilogue=WIDEST)
    run_pipeline(module, "default")
    ops = _operands(m, n, k, WIDEST, seed=7)
    _check(_run_stream_k(module, m, n, WIDEST, ops, 2 * blocks, 64, 64), ops, WIDEST)


def test_stream_k_refuses_what_it_does_not_do():
    base = {"bm": 64, "bn": 64, "bk": 64, "stages": 2, "b_kmajor": True, "stream_k": True}
    for extra in ({"swap_ab": True}, {}, {"swap_ab": True, "persistent": 4, "split_k": 2},
                  {"persistent": 4, "pingpong": True}):
        with pytest.raises(ValueError, match="stream_k needs persistent"):
            gemm_hopper_ws(None, 200, 1000, **base, **extra)


def _run_tiles(module, m: int, n: int, ep: Epilogue, ops: dict, slots: int, bm: int, bn: int) -> np.ndarray:
    """The unswapped program (B row-major) on the reference executor, C and the
    workspace of `slots` `bm x bn` f32 tiles poisoned with NaN; C as float64."""
    inputs = {"pa": _bits(ops["a"].ravel(), "bf16"), "pb": _bits(ops["b"].ravel(), "bf16"),
              "pc": _bits(np.full(m * n, np.nan, np.float32), ep.out_dtype), "m": m,
              "pw": np.full(slots * bm * bn, np.nan, np.float32)}
    if ep.bias:
        inputs["pbias"] = _bits(ops["bias"], ep.out_dtype)
    if ep.residual:
        inputs["pres"] = _bits(ops["residual"].ravel(), ep.out_dtype)
    return _values(run(module, inputs)["pc"], ep.out_dtype).reshape(m, n)


# 200 x 136 in 64 x 128 tiles in chunks of 64: 4 x 2 = 8 tiles (the last row 8 rows, the
# last column 8 columns); K = 1000: 16 steps over 2 stages, 8 trips a tile. 3 blocks: two
# full waves whole (6 tiles), the last 2 tiles' 16 trips shared (6 a block: across the
# tile boundary); 5 blocks: one wave, 3 tiles' 24 trips 5 a block; 8 blocks: every tile
# whole (nothing shared); 13 blocks: no full wave, every tile shared, three ways or more;
# K = 200 (4 steps: 2 trips a tile) over 5 blocks: span 2, the tail's 3 tiles each whole
@pytest.mark.parametrize(("blocks", "group", "k"), [(3, 1, 1000), (5, 2, 1000), (8, 1, 1000), (13, 2, 1000),
                                                    (5, 1, 200)])
def test_data_parallel_waves_and_a_stream_k_tail(blocks, group, k):
    """Unswapped stream-K (`GemmConfig.stream_k` of the wave rule's tiles): the full
    waves of tiles whole, the last round's trips shared, the TMA epilogue in column
    chunks, grouped order; against float64, the widest epilogue."""
    m, n = 200, 136
    module = gemm_hopper_ws(None, n, k, bm=64, bn=128, bk=64, stages=2, chunk=64, group=group, persistent=blocks,
                            tma_epilogue=True, stream_k=True, epilogue=WIDEST)
    ops = _operands(m, n, k, WIDEST, seed=blocks)
    _check(_run_tiles(module, m, n, WIDEST, ops, 2 * blocks, 64, 128), ops, WIDEST)


def test_data_parallel_stream_k_after_the_default_pipeline():
    """The same through the default pipeline (the code the GPU runs), two consumer
    warpgroups (128-row tiles), M = 300 over 5 blocks (3 x 2 = 6 tiles: one whole
    wave of 5, the last tile shared by all)."""
    m, n, k, blocks = 300, 200, 456, 5
    ep = Epilogue(bias=True, activation="silu")
    module = gemm_hopper_ws(None, n, k, bm=128, bn=128, bk=64, stages=2, chunk=64, group=8, persistent=blocks,
                            tma_epilogue=True, stream_k=True, epilogue=ep)
    run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=5)
    _check(_run_tiles(module, m, n, ep, ops, 2 * blocks, 128, 128), ops, ep)


def test_the_workspace_is_two_tiles_a_block():
    sk = GemmConfig("64x128x128:4:swapAB:p1:sk", 64, 128, 128, 4, efficiency=0.0, group=1, swap_ab=True, per_sm=1,
                    stream_k=True)
    assert sk.kwargs(132)["stream_k"] is True and sk.kwargs(132)["persistent"] == 132
    assert sk.workspace(128, 4096, 132) == 2 * 132 * 64 * 128
    split = GemmConfig("s", 64, 128, 128, 4, efficiency=0.0, group=1, swap_ab=True, per_sm=1, split_k=2)
    assert split.workspace(100, 4096, 132) == 2 * 100 * 4096


@pytest.mark.parametrize(("bm", "bn", "bk", "stages"), [(64, 128, 128, 4), (64, 64, 128, 4), (128, 128, 64, 4)])
def test_stream_k_compiles_without_spills(bm, bn, bk, stages):
    """Llama's O (4096 x 4096) at M = 64 and 128, widest epilogue, sm_90a: two
    kernels, the units' and the fixup's."""
    from tilec.runtime.nvrtc import resource_usage

    c = GemmConfig(f"{bm}x{bn}x{bk}:{stages}:swapAB:p1:sk", bm, bn, bk, stages, efficiency=0.0, group=1,
                   swap_ab=True, per_sm=1, stream_k=True)
    module = matmul_program(MatmulKey(c, 4096, 4096, "bf16", WIDEST, 132, b_kmajor=True, index_bits=32))
    run_pipeline(module, "default")
    usage = resource_usage(compile_sm90_or_skip(emit(module, "cuda")))
    assert len(usage) == 2, sorted(usage)
    assert all(u.spill_stores in (0, None) for u in usage.values())


@pytest.mark.parametrize("blocks", [5, 13])
def test_the_rule_s_schedule_is_the_program_s(blocks):
    """`stream_k_schedule` and `shared_segments` (the decode rule's view) count the
    partials the program writes: the workspace's slots not left poisoned."""
    from tilec.gemm import shared_segments, stream_k_schedule

    m, n, k = 5, 200, 1000
    module = gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            persistent=blocks, stream_k=True)
    ops = _operands(m, n, k, Epilogue(), seed=1)
    inputs = {"pa": _bits(ops["a"].ravel(), "bf16"), "pb": _bits(ops["b"].T.ravel(), "bf16"),
              "pc": _bits(np.full(m * n, np.nan, np.float32), "bf16"),
              "pw": np.full(2 * blocks * 64 * 16, np.nan, np.float32), "m": m}
    written = ~np.isnan(run(module, inputs)["pw"].reshape(2 * blocks, -1)).all(axis=1)
    c = GemmConfig("sk", 64, 16, 64, 2, efficiency=0.0, group=1, swap_ab=True, per_sm=1, stream_k=True)
    tiles, trips, used, span, waves = stream_k_schedule(c, m, n, k, blocks)
    assert (tiles, trips, used, waves) == (4, 8, min(blocks, 32), 0)
    assert written.sum() == shared_segments(tiles, trips, span) > 0


@pytest.mark.parametrize(("blocks", "expect"), [(3, (8, 8, 3, 6, 2)), (5, (8, 8, 5, 5, 1)), (13, (8, 8, 13, 5, 0))])
def test_the_schedule_of_the_stream_k_tail_is_the_program_s(blocks, expect):
    """Unswapped: `stream_k_schedule`'s full waves and tail (the wave rule's view,
    `wave_seconds`) count the partials the program writes: 200 x 136 in 8 tiles of 64 x
    128, 8 trips each; 3 blocks take 2 waves whole and share the last 2 tiles."""
    from tilec.gemm import shared_segments, stream_k_schedule

    m, n, k = 200, 136, 1000
    module = gemm_hopper_ws(None, n, k, bm=64, bn=128, bk=64, stages=2, chunk=64, persistent=blocks,
                            tma_epilogue=True, stream_k=True)
    ops = _operands(m, n, k, Epilogue(), seed=1)
    inputs = {"pa": _bits(ops["a"].ravel(), "bf16"), "pb": _bits(ops["b"].ravel(), "bf16"),
              "pc": _bits(np.full(m * n, np.nan, np.float32), "bf16"),
              "pw": np.full(2 * blocks * 64 * 128, np.nan, np.float32), "m": m}
    written = ~np.isnan(run(module, inputs)["pw"].reshape(2 * blocks, -1)).all(axis=1)
    c = GemmConfig("sk", 64, 128, 64, 2, efficiency=1.0, chunk=64, stream_k=True)
    tiles, trips, used, span, waves = stream_k_schedule(c, m, n, k, blocks)
    assert (tiles, trips, used, span, waves) == expect
    assert written.sum() == shared_segments(tiles - waves * used, trips, span) > 0


def test_stream_k_of_four_consumer_warpgroups():
    """256 rows of N a tile (four consumer warpgroups, 104 registers each: the most the
    640 threads' 96 at launch leave beside the producer's 40), over 3 blocks, M = 9."""
    m, n, k, blocks = 9, 296, 1000, 3
    module = gemm_hopper_ws(None, n, k, bm=256, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            persistent=blocks, stream_k=True, epilogue=WIDEST)
    ops = _operands(m, n, k, WIDEST, seed=2)
    _check(_run_stream_k(module, m, n, WIDEST, ops, 2 * blocks, 256, 16), ops, WIDEST)


def test_decode_cost_of_stream_k():
    """Llama's QKV at M = 128 on 132 SMs, 64 x 128 units of K steps of 128 over 4 stages:
    96 tiles x 8 trips = 768 trips, span 6 (the busiest block's 6 x 4 steps of the
    weight's 64 and A^T's 128 rows, two partials), the shared tiles' partials written
    and read back, the fixup's launch."""
    from tilec.gemm import decode_cost, shared_segments, stream_k_schedule, swap_config
    from tilec.support.target import target

    t = dataclasses.replace(target("sm_90a"), dram_latency_s=0.0)  # the bytes in flight aside
    c = GemmConfig("64x128x128:4:swapAB:p1:sk", 64, 128, 128, 4, efficiency=0.0, group=1, swap_ab=True, per_sm=1,
                   stream_k=True)
    assert stream_k_schedule(c, 128, 6144, 4096, 132) == (96, 8, 132, 6, 0)
    partial = 2 * 128 * 64 * 4
    dram = (96 * 64 * 4096 * 2 + shared_segments(96, 8, 6) * partial) / t.dram_bytes_per_s
    fill = (6 * (64 + 128) * 512 * 2 + 2 * partial) / t.sm_fill_bytes_per_s
    mma = 6 * 2 * 64 * 128 * 512 / t.sm_mma_flops_per_s
    assert decode_cost(c, 128, 6144, 4096, 132, t) == pytest.approx(max(dram, fill, mma) + t.kernel_gap_s)
    # against the whole units' 8 trips on the busiest SM (96 units, one each): less fill, one launch more
    assert fill < 8 * (64 + 128) * 512 * 2 / t.sm_fill_bytes_per_s
    assert swap_config(128).name + ":sk" == c.name


def test_wave_seconds_of_the_stream_k_tail():
    """3000 x 5008 x 7008 in 128 x 256 tiles on 132 SMs: 480 tiles (3 full waves, 84
    left), 28 trips a tile, span 18: 3 tiles and 18 / 28 of one, the shared segments'
    partials written and read back, the fixup's launch; whole tiles take 4 rounds."""
    import dataclasses

    from tilec.gemm import CONFIGS, shared_segments, stream_k_schedule, wave_seconds
    from tilec.support.target import target

    t = target("sm_90a")
    c = CONFIGS[0]
    sk = dataclasses.replace(c, stream_k=True)
    assert stream_k_schedule(sk, 3000, 5008, 7008, 132) == (480, 28, 132, 18, 3)
    tile = 2 * 128 * 256 * 28 * 4 * 64 / t.sm_mma_flops_per_s
    assert wave_seconds(c, 3000, 5008, 7008, 132) == pytest.approx(4 * tile)
    partials = 2 * shared_segments(84, 28, 18) * 128 * 256 * 4 / t.dram_bytes_per_s
    assert wave_seconds(sk, 3000, 5008, 7008, 132) == pytest.approx(3 * tile + 18 * tile / 28 + partials
                                                                    + t.kernel_gap_s)
    # a whole number of waves: no tail, no partials, no fixup's cost
    assert wave_seconds(sk, 128 * 12, 256 * 11, 4096, 132) == pytest.approx(wave_seconds(c, 128 * 12, 256 * 11,
                                                                                         4096, 132))


def test_the_rule_takes_the_tail_by_its_cost(monkeypatch):
    """With `STREAM_K_TAIL`: 3000 x 5008 x 7008 takes the tail (3.64 waves), 4000^3 whole
    tiles (16 trips a tile: the tail saves one trip, its partials cost more), 3000 x 5000
    x 7000 the pairs sharing B (misaligned rows: `with_cluster` first) with the tail
    (240 pairs over 66 clusters: 3.64 waves); off, the tiles whole."""
    from tilec import gemm

    # among the 128 x 256 tiles (128 x 192 whole in 5 stages and 256 x 160 cost less than the tail
    # at these shapes: tests/unit/test_gemm_wave_tiles.py)
    monkeypatch.setattr(gemm, "CONFIGS", tuple(c for c in gemm.CONFIGS if c.bn not in (192, 160)))
    assert not gemm.choose_config(3000, 5008, 132, k=7008).stream_k
    monkeypatch.setattr(gemm, "STREAM_K_TAIL", True)
    taken = gemm.choose_config(3000, 5008, 132, k=7008)
    assert taken.stream_k and taken.name == "128x256x64:4:c128:sk"
    assert taken.kwargs(132)["stream_k"] and taken.workspace(3000, 5008, 132) == 2 * 132 * 128 * 256
    assert not gemm.choose_config(4000, 4000, 132, k=4000).stream_k
    clustered = gemm.choose_config(3000, 5000, 132, k=7000)
    assert clustered.cluster == (2, 1) and clustered.stream_k and clustered.name == "128x256x64:4:c128:cl2:sk"
    assert clustered.kwargs(132)["cluster"] == (2, 1) and clustered.kwargs(132)["stream_k"]
    assert clustered.workspace(3000, 5000, 132) == 2 * 132 * 128 * 256  # 66 pairs (no device here)
    assert not gemm.choose_config(3000, 5008, 132).stream_k  # K unknown


@pytest.mark.parametrize("cluster", [(1, 1), (2, 1)])
def test_the_stream_k_tail_compiles_without_spills(cluster):
    """The rule's 128 x 256 x 64 tile in chunks of 128 with the tail at 3000 x 5000 x
    7000 (plain epilogue), alone and in pairs sharing B, sm_90a: two kernels, the
    units' and the fixup's, neither spilling."""
    import dataclasses

    from tilec.gemm import CONFIGS
    from tilec.runtime.nvrtc import resource_usage

    c = dataclasses.replace(CONFIGS[0], stream_k=True, cluster=cluster, name=CONFIGS[0].name + ":sk")
    module = matmul_program(MatmulKey(c, 5000, 7000, "bf16", Epilogue(), 132, index_bits=32))
    run_pipeline(module, "default")
    usage = resource_usage(compile_sm90_or_skip(emit(module, "cuda")))
    assert len(usage) == 2, sorted(usage)
    assert all(u.spill_stores in (0, None) and u.spill_loads in (0, None) for u in usage.values())


# 200 x 264 in 64 x 128 tiles: 4 block rows by 3 block columns = 2 x 3 = 6 pairs (groups of
# 2 x 1 tiles sharing B), the last row 8 rows, the last column 8 columns; K = 1000: 8 trips
@pytest.mark.parametrize(("cluster", "blocks", "group"), [
    ((2, 1), 8, 1),    # 4 clusters: one full wave of pairs, 2 pairs' 16 trips shared (4 a cluster)
    ((2, 1), 10, 4),   # 5 clusters: one wave, 1 pair over 5 clusters (ranges inside one pair), grouped
    ((2, 1), 14, 1),   # 7 clusters: no full wave, every pair shared
    ((2, 2), 8, 1),    # 2 x 2 clusters (A shared too): 4 groups of 2 x 2 tiles over 2 clusters, whole
    ((2, 2), 12, 1),   # 3 clusters: one wave, the last group's trips shared
])
def test_stream_k_tail_in_clusters(cluster, blocks, group):
    """The tail in thread-block clusters (`gemm_hopper_ws(cluster=..., stream_k=True)`): the
    groups of cm x cn tiles are the units, the clusters the blocks sharing them (every
    block of a cluster walks the same K steps, so the multicast and the "empty" barriers'
    arrivals stay as without the tail); the executor checks the clusters' barriers and
    multicasts; against float64, the widest epilogue, after the default pipeline."""
    m, n, k = 200, 264, 1000
    module = gemm_hopper_ws(None, n, k, bm=64, bn=128, bk=64, stages=2, chunk=64, group=group, persistent=blocks,
                            tma_epilogue=True, stream_k=True, cluster=cluster, epilogue=WIDEST)
    run_pipeline(module, "default")
    ops = _operands(m, n, k, WIDEST, seed=blocks)
    _check(_run_tiles(module, m, n, WIDEST, ops, 2 * blocks, 64, 128), ops, WIDEST)
