"""`gemm_hopper_ws(cluster=(cm, cn))`: clusters of cm block rows by cn block columns,
B's column chunks multicast along a cluster's block rows and A's tiles along its block
columns, each block loading its share (`cluster_loads`), the "empty" barriers counting
the consumers of the block's cluster row and column. On the reference executor at odd
shapes against float64, before and after the default pipeline, output poisoned: groups
with tiles past M and past N (zero loads, no stores), fewer clusters than groups, a
run-time M served at several M with the bias + SiLU + residual epilogue. The
executor's cluster checks catch "empty" barriers that forget the cluster row,
consumers that do not release the row peer's stage, and an A multicast that leaves out
a block; the generator refuses what the clusters cannot take; the rule pairs blocks
sharing B where B's rows start mid-sector (the clusters of 4 and those sharing A
measured no faster: benchmarks/NOTES.md); the CUDA of the 2 x 2 cluster at
3000 x 5000 x 7000 compiles under NVRTC without spills (tests/unit/test_gemm_cluster.py:
the pairs, cm = 2, cn = 1)."""

from __future__ import annotations

import dataclasses

import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _check, _operands, _run

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects import layout_tma
from tilec.gemm_programs import Epilogue, cluster_loads, gemm_hopper_ws
from tilec.runtime.reference import ExecutionError

# 64 x 128 tiles in two column chunks of 64, 2 stages of K 64, the TMA epilogue
TILE = {"bm": 64, "bn": 128, "bk": 64, "stages": 2, "chunk": 64, "tma_epilogue": True}
PLAIN = Epilogue()


def _lowered(module):
    run_pipeline(module, "default")
    return module


def test_each_rank_loads_its_share_multicast_to_its_row_and_column():
    """2 x 2: stage s's A by the row's block ry = s % 2 to ranks {rx, rx + 2}; B's chunk c
    by the column's block rx = (2 s + c) % 2 to ranks {2 ry, 2 ry + 1}."""
    assert cluster_loads(2, 2, 0, 2) == [[(-1, -1, 0b0101), (0, -1, 0b0011)], [(-1, -1, 0b1010), (1, -1, 0b0011)],
                                         [(0, -1, 0b1100)], [(1, -1, 0b1100)]]
    assert cluster_loads(2, 2, 1, 2) == [[(0, -1, 0b0011)], [(1, -1, 0b0011)], [(-1, -1, 0b0101), (0, -1, 0b1100)],
                                         [(-1, -1, 0b1010), (1, -1, 0b1100)]]
    # 4 x 1: B's 2 chunks of a stage by 2 of the 4 blocks, the other 2 the next stage's
    assert cluster_loads(4, 1, 0, 2) == [[(0, -1, 0b1111)], [(1, -1, 0b1111)], [], []]
    assert cluster_loads(4, 1, 1, 2) == [[], [], [(0, -1, 0b1111)], [(1, -1, 0b1111)]]
    # 1 x 2: A alone multicast (each block its own B chunks)
    assert cluster_loads(1, 2, 1, 2) == [[], [(-1, -1, 0b11)]]
    for cm, cn in ((2, 2), (4, 1), (1, 2), (2, 1)):  # over a ring of 4 stages each block loads its share
        loads = [cluster_loads(cm, cn, s, 2) for s in range(4)]
        for r in range(cm * cn):
            mine = [box for s in range(4) for box, _, _ in loads[s][r]]
            assert mine.count(-1) == (4 // cn if cn > 1 else 0)
            assert len(mine) - mine.count(-1) == (8 // cm if cm > 1 else 0)


def test_with_box_parts_every_rank_loads_its_part_of_every_box():
    """`cluster_loads(parts=True)`: at every stage rank (rx, ry) loads part ry of cn of
    A's tile to its cluster row and part rx of cm of each B chunk to its column."""
    assert cluster_loads(2, 1, 3, 1, parts=True) == [[(0, 0, 0b11)], [(0, 1, 0b11)]]
    assert cluster_loads(2, 2, 1, 2, parts=True) == [
        [(-1, 0, 0b0101), (0, 0, 0b0011), (1, 0, 0b0011)], [(-1, 0, 0b1010), (0, 1, 0b0011), (1, 1, 0b0011)],
        [(-1, 1, 0b0101), (0, 0, 0b1100), (1, 0, 0b1100)], [(-1, 1, 0b1010), (0, 1, 0b1100), (1, 1, 0b1100)]]
    assert cluster_loads(1, 2, 0, 1, parts=True) == [[(-1, 0, 0b11)], [(-1, 1, 0b11)]]


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("cluster,shape,kw", [
    # 3 block rows, 3 block columns (the last 8 wide): 2 x 2 groups with rows past M and columns past N
    ((2, 2), (136, 264, 136), {"persistent": 4, "group": 2}),
    # fewer clusters than groups (each takes several), ungrouped, K ragged
    ((2, 2), (200, 392, 72), {"persistent": 4}),
    ((1, 2), (136, 264, 136), {"persistent": 4, "group": 2}),
    # 4 block rows of a column share B: 2 chunks x 2 stages, one a block; the last group's row past M
    ((4, 1), (200, 136, 72), {"persistent": 8}),
    # `box_parts`: each block its part of every box, B row-major (parts of K: 32 of the
    # 64 rows of each chunk, 4 KiB in; 16 of them with 4 blocks a column), A by rows of M
    ((2, 2), (136, 264, 136), {"persistent": 4, "group": 2, "box_parts": True}),
    ((4, 1), (200, 136, 72), {"persistent": 8, "box_parts": True}),
    # 3 stages of two chunks: not shared evenly by whole boxes, but by parts
    ((2, 1), (136, 264, 136), {"persistent": 4, "stages": 3, "box_parts": True}),
])
def test_clusters_share_a_and_b_at_odd_shapes(level, cluster, shape, kw):
    m, n, k = shape
    module = gemm_hopper_ws(m, n, k, **{**TILE, **kw}, cluster=cluster)
    if level == "lowered":
        _lowered(module)
    ops = _operands(m, n, k, PLAIN, seed=m)
    _check(_run(module, m, n, PLAIN, ops, dynamic_m=False), ops, PLAIN)


@pytest.mark.parametrize("cluster,group", [((2, 2), 4), ((4, 1), 8), ((1, 2), 8)])
def test_one_program_serves_every_m_with_its_epilogue(cluster, group):
    """A run-time M (the grid of clusters computed from it) at M = 8, 200, 330, with
    bias + SiLU + residual, after the pipeline; 3 block columns (the last group's
    second column past N where cn = 2)."""
    ep = Epilogue(bias=True, activation="silu", residual=True)
    n, k = 264, 72
    module = _lowered(gemm_hopper_ws(None, n, k, persistent=8, group=group, epilogue=ep, cluster=cluster, **TILE))
    for m in (8, 200, 330):
        ops = _operands(m, n, k, ep, seed=m)
        _check(_run(module, m, n, ep, ops), ops, ep)


def _module():
    return gemm_hopper_ws(136, 264, 136, persistent=4, cluster=(2, 2), **TILE)


def _execute(module) -> None:
    _run(module, 136, 264, PLAIN, _operands(136, 264, 136, PLAIN), dynamic_m=False)


def test_empty_barriers_forgetting_the_cluster_row_are_reported():
    """Counting the cluster column's consumers only (2 blocks of 1 warpgroup, not 3): the
    row peer's arrival finds the phase already complete."""
    module = _module()
    for op in module.walk():
        if isinstance(op, layout_tma.MBarrierInitOp) and op.result.name_hint.startswith("empty"):
            op.count = type(op.count)(2, op.count.type)
    with pytest.raises(ExecutionError, match="already has all its 2 arrivals"):
        _execute(module)


def test_consumers_not_releasing_the_row_peers_stage_are_reported():
    """The row peer forgotten (its arrival sent to the block's own barrier instead, so
    the counts still match): the row peer multicasts A into this block's stage with
    nothing ordering this block's reads of it before."""
    module = _module()
    for op in module.walk():
        if isinstance(op, layout_tma.MBarrierArriveOp) and op.cta is not None and op.cta.name_hint == "peer":
            if op.cta.owner.operands[0].name_hint == "rx":  # the row peer: rx + 2 ryo
                op.operands = (op.bar, op.cta.owner.operands[0].owner.operands[0])  # crank: its own
    with pytest.raises(ExecutionError, match="multicast TMA load overwrites .* may still be reading it"):
        _execute(module)


def test_an_a_multicast_leaving_out_a_block_is_reported():
    module = _module()
    for op in module.walk():
        if isinstance(op, layout_tma.TmaLoadOp) and op.multicast is not None and op.multicast.value.data in (5, 10):
            op.multicast = type(op.multicast)(op.multicast.value.data & 3, op.multicast.type)  # the loader alone
    with pytest.raises(ExecutionError, match="expects .* bytes, but the TMA loads on it copy"):
        _execute(module)


@pytest.mark.parametrize("kw", [
    {"persistent": 6},  # 6 blocks: not whole clusters of 4
    {"persistent": 4, "stages": 3},  # 3 stages of A over 2 blocks of a row: not halved evenly
    {"persistent": 4, "cluster": (3, 1)},  # 3 blocks
    {"persistent": 4, "cluster": (4, 2)},  # 8 blocks
    {"persistent": 4, "pingpong": True, "chunk": 0, "tma_epilogue": False},
    {"persistent": 4, "cluster": (1, 1), "box_parts": True},  # parts of what no peer shares
    {"persistent": 4, "chunk": 128, "box_parts": True},  # B's rows 256 bytes: two swizzle panels
    {"persistent": 4, "bk": 16, "cluster": (4, 1), "box_parts": True},  # parts of 4 rows: under the 8-row repeat
])
def test_what_the_clusters_cannot_take_is_refused(kw):
    with pytest.raises(ValueError, match="cluster"):
        gemm_hopper_ws(136, 264, 136, **{**TILE, "cluster": (2, 2), **kw})


@pytest.mark.parametrize("m,n,k,sms,expected", [
    # (the wave rule's tile at 3000 x N is 128 x 192 in 5 stages: tests/unit/test_gemm_wave_tiles.py;
    # its 5 stages of 3 chunks pair with box parts)
    (3000, 5000, 7000, 132, "128x192x64:5:c64:cl2:bp"),  # both rows 16 mod 32 bytes: pairs sharing B
    (3000, 5000, 7040, 132, "128x192x64:5:c64:cl2:bp"),  # B's alone
    (3000, 5056, 7000, 132, "128x192x64:5:c64"),  # A's alone: every cluster measured slower than none
    (3000, 5008, 7008, 132, "128x192x64:5:c64"),  # 32-byte rows: measured slower with clusters
    (4000, 4000, 4000, 132, "192x160x64:4:c32:ow:cr3:sp"),  # 63 K steps: the 64th, past K, skipped
    (3000, 5000, 7000, 133, "128x192x64:5:c64:cl2:bp"),  # an odd count: 66 pairs' blocks
    (129, 5000, 7000, 132, "128x128x64:4:pp"),  # the wave rule's pingpong tile: not paired
])
def test_the_rule_pairs_blocks_sharing_b_where_its_rows_start_mid_sector(m, n, k, sms, expected, monkeypatch):
    """Among the tiles of 64-row consumer warpgroups (the 256 x 160 tile's pairs: below)."""
    from tilec import gemm

    monkeypatch.setattr(gemm, "CONFIGS", tuple(c for c in gemm.CONFIGS if c.consumer_rows == 64))
    assert gemm.choose_config(m, n, sms, k=k).name == expected


@pytest.mark.parametrize("m,n,k,sms,expected", [
    # 256 x 160 (the wave rule's tile here: tests/unit/test_gemm_wave_tiles.py) in pairs along N
    # sharing A where A's rows start mid-sector, each block half of A's boxes
    (3000, 5000, 7000, 132, "256x160x64:4:c32:ow:w128:sp:cl1x2:bp"),  # both: A's shared (H200: 601-625
    #                                                                   TFLOP/s against 589-595 sharing B)
    (3000, 5056, 7000, 132, "256x160x64:4:c32:ow:w128:sp:cl1x2:bp"),  # A's alone
    (3000, 5000, 7040, 132, "256x160x64:4:c32:ow:w128:sp:cl2"),  # B's alone: pairs sharing B, whole boxes
    (3000, 5008, 7008, 132, "256x160x64:4:c32:ow:w128:sp"),  # 32-byte rows: none
    (3000, 5000, 7000, 133, "256x160x64:4:c32:ow:w128:sp:cl1x2:bp"),
])
def test_the_rule_pairs_128_row_consumers_sharing_a(m, n, k, sms, expected):
    from tilec.gemm import choose_config

    taken = choose_config(m, n, sms, k=k)
    assert taken.name == expected
    if ":cl1x2" in expected:
        assert taken.cluster == (1, 2) and taken.box_parts and taken.kwargs(sms)["cluster"] == (1, 2)


def test_the_wave_check_counts_pairs_over_the_resident_clusters(monkeypatch):
    """3000 x 5000 x 7000: 24 x 20 tiles (4 waves over 132), 12 x 20 pairs: 4 waves
    over 66 or 60 clusters, 5 over 55 (then no clusters); 128 x 5000: 1 x 20 tiles, a
    wave, but pairs of a row past M; persistent over the resident clusters' blocks."""
    from tilec import gemm

    c = gemm.CONFIGS[0]
    for slots, expected in ((66, (2, 1)), (60, (2, 1)), (55, (1, 1))):
        monkeypatch.setattr(gemm, "cluster_slots", lambda size, sms, smem, slots=slots: slots)
        chosen = gemm.with_cluster(c, 3000, 5000, 7000, 132, False)
        assert chosen.cluster == expected
        if expected != (1, 1):
            assert chosen.kwargs(132)["persistent"] == 2 * slots
    monkeypatch.setattr(gemm, "cluster_slots", lambda size, sms, smem: 66)
    assert gemm.with_cluster(c, 128, 256 * 132 - 8, 7000, 132, False) is c
    assert gemm.with_cluster(c, 256, 256 * 132 - 8, 7000, 132, False).cluster == (2, 1)


def test_the_2x2_kernel_compiles_without_spills():
    """3000 x 5000 x 7000 in 2 x 2 clusters (`128x256x64:4:c128:cl2x2`, run-time M,
    32-bit offsets, bias + SiLU + residual): per stage A by 2 of the 4 blocks and B's 2
    chunks (2 boxes of 64 columns each) by all 4, multicast; NVRTC + ptxas for sm_90a
    without spills."""
    from tilec.gemm import CONFIGS, MatmulKey, index_bits, matmul_program
    from tilec.runtime.nvrtc import resource_usage

    config = dataclasses.replace(CONFIGS[0], cluster=(2, 2), name=f"{CONFIGS[0].name}:cl2x2")
    ep = Epilogue(bias=True, activation="silu", residual=True)
    key = MatmulKey(config, 5000, 7000, "bf16", ep, 132, False, index_bits(3000, 5000, 7000, config))
    cuda = emit(_lowered(matmul_program(key)), "cuda")
    assert "__cluster_dims__(4, 1, 1)" in cuda
    assert cuda.count(".multicast::cluster") == config.stages * (2 + 4 * 2)
    (usage,) = resource_usage(compile_sm90_or_skip(cuda)).values()
    assert usage.spill_stores == 0


def test_4x1_and_1x2_compile():
    from tilec.gemm import CONFIGS, MatmulKey, index_bits, matmul_program

    for cluster, count in (((4, 1), 4 * 2 * 2), ((1, 2), 4)):
        config = dataclasses.replace(CONFIGS[0], cluster=cluster)
        key = MatmulKey(config, 5000, 7000, "bf16", PLAIN, 132, False, index_bits(3000, 5000, 7000, config))
        cuda = emit(_lowered(matmul_program(key)), "cuda")
        assert cuda.count(".multicast::cluster") == count
        assert compile_sm90_or_skip(cuda).cubin
