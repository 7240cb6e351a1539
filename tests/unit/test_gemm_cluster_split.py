"""Split-K across the blocks of a thread-block cluster (`gemm_hopper_ws(cluster_split=True)`,
`GemmConfig.cluster_split`, the decode rule's where it costs least): a tile's S units
run as the S blocks of one cluster, each
stores its f32 partial into its shared memory, and after a cluster barrier each block
sums its rows of the tile from all S partials in split order through
`layout.peer_view`. On the reference executor (which runs a cluster's blocks together
and checks their distributed shared memory accesses against the cluster barriers):
within the bound against float64 and the same bits as the split summed by a second
launch (at the same level), S = 2 and 4, at the layout level and after the default pipeline, with the
widest epilogue; no workspace; the configurations it takes and refuses; NVRTC compiles
at Llama's decode shapes without spills; the decode cost and the rule's candidates; the
bench's `csplit` flag. The same with the partials through a global workspace
(`global_partials`, `:gp`): the same bits, one cluster barrier, the ring deeper."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _bits, _check, _operands, _values

from tilec import gemm
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm import MatmulKey, choose_config, cluster_splits, decode_cost, matmul_program, swap_config
from tilec.gemm_programs import Epilogue, gemm_hopper_ws
from tilec.runtime.reference import run

WIDEST = Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")


def _c(m: int, n: int, k: int, split: int, cluster_split: bool, level: str, ops: dict, bm: int = 64,
       global_partials: bool = False) -> np.ndarray:
    """C (bits) of the swapped split program, `bm` rows of N and 16 columns of M a tile."""
    module = gemm_hopper_ws(None, n, k, bm=bm, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            split_k=split, epilogue=WIDEST, cluster_split=cluster_split,
                            global_partials=global_partials)
    if level == "lowered":
        run_pipeline(module, "default")
    inputs = {"pa": _bits(ops["a"].ravel(), "bf16"), "pb": _bits(ops["b"].T.ravel(), "bf16"),
              "pc": _bits(np.full(m * n, np.nan), "f16"), "pbias": _bits(ops["bias"], "f16"),
              "pres": _bits(ops["residual"].ravel(), "f16"), "m": m}
    if global_partials or not cluster_split:
        inputs["pw"] = np.full(split * m * n, np.nan, np.float32)
    out = run(module, inputs)["pc"]
    _check(_values(out, "f16").reshape(m, n), ops, WIDEST)
    return np.asarray(out)


@pytest.mark.parametrize(("split", "level", "bm", "gp"), [
    (2, "layout", 64, False), (4, "layout", 64, False), (2, "lowered", 64, False), (4, "lowered", 128, False),
    (2, "layout", 64, True), (4, "layout", 64, True), (2, "lowered", 128, True), (4, "lowered", 128, True)])
def test_the_cluster_sums_the_same_bits_as_the_second_launch(split, level, bm, gp):
    """N = 296 (5 tiles of 64 rows, the last 40; 3 of 128), K = 1000 (16 steps of 64:
    splits of 8 or 4 steps over 2 stages), M = 5 of 16 columns: a cluster of S blocks a
    tile; 128 rows: two consumer warpgroups, the sum in a region of theirs; `gp`: the
    partials through the workspace (its rows of the last tile and columns past M masked)."""
    m, n, k = 5, 296, 1000
    ops = _operands(m, n, k, WIDEST, seed=split)
    got = _c(m, n, k, split, True, level, ops, bm, gp)
    assert np.array_equal(got, _c(m, n, k, split, False, level, ops, bm))


def test_no_workspace_and_one_launch():
    module = gemm_hopper_ws(None, 296, 1000, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            split_k=2, cluster_split=True)
    args = [a.name_hint for a in module.body.block.ops.first.body.block.args]
    assert "pw" not in args
    launches = [op for op in module.walk() if op.name == "layout.launch"]
    assert len(launches) == 1 and launches[0].attributes["tilec.cluster_dims"].value.data == 2
    assert sum(op.name == "layout.peer_view" for op in module.walk()) == 2


def test_global_partials_take_a_workspace_and_no_shared_partial():
    """`global_partials`: the workspace `pw`, no shared partial and no peer views: one
    cluster barrier, after the roles (none before a block exits: nothing of its shared
    memory is a peer's to read)."""
    module = gemm_hopper_ws(None, 296, 1000, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            split_k=2, cluster_split=True, global_partials=True)
    args = [a.name_hint for a in module.body.block.ops.first.body.block.args]
    assert "pw" in args
    assert not any(op.name == "layout.peer_view" for op in module.walk())
    assert not any(op.name == "layout.alloc" and op.result.type.element_type.name == "f32" for op in module.walk())
    assert sum(op.name == "layout.cluster_sync" for op in module.walk()) == 1
    with pytest.raises(ValueError, match="global_partials needs cluster_split"):
        gemm_hopper_ws(None, 296, 1000, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                       split_k=2, global_partials=True)


@pytest.mark.parametrize("kw", [dict(split_k=1), dict(split_k=2, persistent=4), dict(split_k=3),
                                dict(split_k=32, bm=128), dict(split_k=2, serial=True), dict(split_k=16)])
def test_what_cluster_split_refuses(kw):
    kw = {"bm": 64, "bn": 16, "bk": 64, "stages": 2, **kw}
    with pytest.raises(ValueError, match="cluster_split needs swap_ab"):
        gemm_hopper_ws(None, 296, 1000, b_kmajor=True, swap_ab=True, cluster_split=True, **kw)


@pytest.mark.parametrize(("m", "n", "k", "split", "rows", "gp"), [
    (128, 4096, 4096, 2, 64, False), (128, 6144, 4096, 4, 64, False), (64, 4096, 14336, 2, 64, False),
    (32, 4096, 4096, 2, 64, False), (128, 6144, 4096, 2, 128, False), (128, 6144, 4096, 2, 128, True),
    (64, 6144, 4096, 2, 128, False)])
def test_llamas_decode_shapes_compile_without_spills(m, n, k, split, rows, gp):
    """Llama-8B's O (M = 128 and 32, split 2), QKV (M = 128, split 4; in 128-row units
    split 2, three warpgroups of 168 registers, the partials in shared memory or, with 7
    stages, through global memory; M = 64 in 128-row units split 2) and down (M = 64,
    split 2), the widest epilogue, sm_90a; the shared memory fits."""
    from tilec.runtime.nvrtc import resource_usage
    from tilec.support.target import target

    c = next(d for d in cluster_splits(swap_config(m, rows=rows), k) if d.split_k == split and d.global_partials == gp)
    assert c.smem_bytes() <= target("sm_90a").smem_per_block
    module = matmul_program(MatmulKey(c, n, k, "bf16", WIDEST, 132, b_kmajor=True, index_bits=32))
    run_pipeline(module, "default")
    (usage,) = resource_usage(compile_sm90_or_skip(emit(module, "cuda"))).values()
    assert usage.spill_stores in (0, None) and usage.spill_loads in (0, None)


def test_the_candidates_and_their_cost():
    """Splits dividing 64 / 4 rows (also of 128-row units), one cluster a tile, no
    workspace; at O's M = 128 the cost drops the second launch and the partials' round
    trip through memory."""
    o = swap_config(128)
    cands = cluster_splits(o, 4096)
    assert [c.split_k for c in cands] == [2, 4, 8]
    assert all(c.cluster_split and c.per_sm == 0 and c.workspace(128, 4096, 132) == 0 for c in cands)
    assert cands[0].name == "64x128x128:4:swapAB:splitK2:csplit"
    launched = next(c for c in gemm.splits(o, 4096) if c.split_k == 2)
    assert decode_cost(cands[0], 128, 4096, 4096, 132) < decode_cost(launched, 128, 4096, 4096, 132)
    # 128 rows at M = 128: 4 stages of 32 KiB beside the 66 KiB partial, 7 without it (`deepest_ring`):
    # each split also with its partials through global memory where its splits keep K steps of their own
    # (split 8: 14 steps of 7 stages, 7 x 14 > 64)
    wide = cluster_splits(swap_config(128, rows=128), 4096)
    assert [(c.split_k, c.stages, c.global_partials) for c in wide] == [
        (2, 4, False), (2, 7, True), (4, 4, False), (4, 7, True), (8, 4, False)]
    gp = wide[1]
    assert gp.name == "128x128x64:7:swapAB:splitK2:csplit:gp" and gp.workspace(128, 6144, 132) == 2 * 128 * 6144
    assert gp.smem_bytes() == 7 * 256 * 64 * 2 + 7 * 32 <= 227 * 1024
    # its partial written back once (DRAM), and stored and read by the block after the rest
    t = gemm.target("sm_90a")
    fill = 256 * 2240 * 2 / t.sm_fill_bytes_per_s
    dram = (6144 * 4096 * 2 + 96 * 128 * 128 * 4) / t.dram_bytes_per_s  # 112 KiB in flight a block: DRAM's pace
    tail = 2 * 128 * 128 * 4 / t.sm_sum_bytes_per_s
    assert decode_cost(gp, 128, 6144, 4096, 132) == pytest.approx(max(fill, dram) + tail)


@pytest.mark.parametrize(("m", "n", "k", "split", "rows", "gp"), [
    (128, 4096, 4096, 2, 64, False), (64, 4096, 4096, 2, 64, False),  # O
    (128, 4096, 14336, 2, 64, False), (64, 4096, 14336, 2, 64, False),  # down
    # QKV: 64-row units split twice would take two rounds of pairs (192 blocks); at M = 64 48 tiles of
    # 128 rows in pairs, 96 blocks, 128 KiB of the weight in flight each (4 stages of 48 KiB; 64 KiB
    # whole): H200 16.6 us against 18.0; at M = 128 whole (19.6 against 20.3 in 128-row pairs)
    (128, 6144, 4096, 1, 64, False), (64, 6144, 4096, 2, 128, False),
    (16, 4096, 4096, 1, 64, False),  # O at M = 16: 64 units whole
])
def test_the_rule_takes_pairs_where_they_cost_least(m, n, k, split, rows, gp):
    """Llama-8B's projections on 132 SMs (benchmarks/NOTES.md): O and down at M = 64 and
    128 split twice in clusters of 2 in units of 64 rows; QKV at M = 64 in units of 128."""
    c = choose_config(m, n, 132, k=k, b_kmajor=True)
    assert (c.split_k, c.bm, c.global_partials) == (split, rows, gp) and c.cluster_split == (split > 1)


def test_without_the_switch_the_splits_are_launched(launched_splits):
    c = choose_config(128, 4096, 132, k=4096, b_kmajor=True)
    assert c.split_k == 2 and not c.cluster_split


def test_the_bench_names_cluster_splits():
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    c = parse_config("64x128x128:4:swapAB:p1:splitK2:p0:csplit")
    assert c.cluster_split and c.per_sm == 0 and c.split_k == 2
    assert c.kwargs(132)["cluster_split"] and "persistent" not in c.kwargs(132)
    assert not parse_config("64x128x128:4:swapAB:splitK2:csplit:nocsplit").cluster_split
    assert dataclasses.replace(c, cluster_split=False).workspace(128, 4096, 132) == 2 * 128 * 4096
    gp = parse_config("128x128x64:7:swapAB:splitK2:csplit:gp")
    assert gp.global_partials and gp.kwargs(132)["global_partials"] and gp.stages == 7
