"""`gemm_hopper_ws(cluster=(2, 1))`: 2-block thread-block clusters sharing B (each block
loads its A and half of B's column chunks, multicast to both; the "empty" barriers
count both blocks' consumers, each arriving on its own and its peer's), on the
reference executor at odd shapes against float64, before and after the default
pipeline, output poisoned: an odd number of block rows (the last pair's second tile
wholly past M), masked block columns and K, a run-time M served at several M, the
bias + SiLU + residual epilogue. The executor's cluster checks catch a count of one
block's consumers, consumers releasing only their own block's stage (the peer's
multicast overwriting what it may still read) and a multicast that leaves out a block;
the generator refuses what
the pairs cannot take; the CUDA compiles under NVRTC (and the 3000 x 5000 x 7000
kernel without spills). Clusters of 2 x 2, 4 x 1 and 1 x 2 blocks and the rule:
tests/unit/test_gemm_cluster_grid.py."""

from __future__ import annotations

import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _check, _operands, _run

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects import layout_tma
from tilec.gemm_programs import Epilogue, gemm_hopper_ws
from tilec.runtime.reference import ExecutionError

# 64 x 128 tiles in two column chunks of 64 (one each rank), 2 stages of K 64, the TMA epilogue
PAIR = {"bm": 64, "bn": 128, "bk": 64, "stages": 2, "chunk": 64, "tma_epilogue": True, "cluster": (2, 1)}
PLAIN = Epilogue()


def _lowered(module):
    run_pipeline(module, "default")
    return module


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("shape,kw", [
    # 3 block rows (2 pairs, the second's row 3 past M), 3 block columns (the last 8 wide), K 136
    ((136, 264, 136), {"persistent": 4, "group": 2}),
    # fewer clusters than pairs (each cluster takes several), ungrouped
    ((200, 136, 72), {"persistent": 2}),
])
def test_pairs_share_b_at_odd_shapes(level, shape, kw):
    m, n, k = shape
    module = gemm_hopper_ws(m, n, k, **PAIR, **kw)
    if level == "lowered":
        _lowered(module)
    ops = _operands(m, n, k, PLAIN, seed=m)
    _check(_run(module, m, n, PLAIN, ops, dynamic_m=False), ops, PLAIN)


def test_one_program_serves_every_m_with_its_epilogue():
    """A run-time M (the grid of clusters computed from it) at M = 8, 72, 200, with
    bias + SiLU + residual, after the pipeline."""
    ep = Epilogue(bias=True, activation="silu", residual=True)
    n, k = 136, 72
    module = _lowered(gemm_hopper_ws(None, n, k, persistent=6, group=4, epilogue=ep, **PAIR))
    for m in (8, 72, 200):
        ops = _operands(m, n, k, ep, seed=m)
        _check(_run(module, m, n, ep, ops), ops, ep)


def _sabotaged(change) -> None:
    m, n, k = 136, 264, 136
    module = gemm_hopper_ws(m, n, k, persistent=4, **PAIR)
    for op in list(module.walk()):
        change(op)
    ops = _operands(m, n, k, PLAIN)
    _run(module, m, n, PLAIN, ops, dynamic_m=False)


def test_empty_barriers_counting_one_blocks_consumers_are_reported():
    def one_block(op):
        if isinstance(op, layout_tma.MBarrierInitOp) and op.result.name_hint.startswith("empty"):
            op.count = type(op.count)(op.count.value.data // 2, op.count.type)

    with pytest.raises(ExecutionError, match="already has all its 1 arrivals"):
        _sabotaged(one_block)


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_consumers_releasing_only_their_own_blocks_stage_are_reported(level):
    """The peer forgotten: each consumer arrives on its own "empty" barrier only (which
    counts its own block's consumers), so a block's producer multicasts into its peer's
    stage with nothing ordering the peer's reads of it before: the executor reports the
    overwrite (lockstep alone would hide it: both producers wait at once)."""
    m, n, k = 136, 264, 136
    module = gemm_hopper_ws(m, n, k, persistent=4, **PAIR)
    ops = list(module.walk())
    (rank,) = [op.result for op in ops if isinstance(op, layout_tma.ClusterRankOp)]
    for op in ops:
        if isinstance(op, layout_tma.MBarrierInitOp) and op.result.name_hint.startswith("empty"):
            op.count = type(op.count)(op.count.value.data // 2, op.count.type)
        if isinstance(op, layout_tma.MBarrierArriveOp) and op.cta is not None:
            if op.cta.owner.value.value.data:  # the arrival on rank 1: gone
                op.detach()
                op.erase()
            else:  # the arrival on rank 0: on the block's own barrier
                op.operands = (op.bar, rank)
    if level == "lowered":
        _lowered(module)
    with pytest.raises(ExecutionError, match="multicast TMA load overwrites .* may still be reading it"):
        _run(module, m, n, PLAIN, _operands(m, n, k, PLAIN), dynamic_m=False)


def test_a_multicast_leaving_out_a_block_is_reported():
    def own_only(op):
        if isinstance(op, layout_tma.TmaLoadOp) and op.multicast is not None:
            op.multicast = type(op.multicast)(1, op.multicast.type)  # rank 0 only

    with pytest.raises(ExecutionError, match="expects 24576 bytes, but the TMA loads on it copy"):
        _sabotaged(own_only)


@pytest.mark.parametrize("kw", [
    {"persistent": 3},  # an odd grid cannot be cut into pairs
    {"persistent": 4, "chunk": 128, "stages": 3},  # 3 stages of one chunk of B: not halved evenly
    {"persistent": 0},
    {"persistent": 4, "cp_async": "b"},
])
def test_what_the_pairs_cannot_take_is_refused(kw):
    with pytest.raises(ValueError, match="cluster"):
        gemm_hopper_ws(136, 264, 136, **{**PAIR, **kw})


def test_cuda_compiles():
    cuda = emit(_lowered(gemm_hopper_ws(None, 264, 136, persistent=132, group=8, **PAIR)), "cuda")
    assert "__cluster_dims__(2, 1, 1)" in cuda
    assert cuda.count(".multicast::cluster") == 2 * 2  # a chunk per rank per stage
    assert compile_sm90_or_skip(cuda).cubin


def test_the_pairs_kernel_compiles_without_spills():
    """The pairs' kernel at 3000 x 5000 x 7000 (`128x256x64:4:c128:cl2`, run-time M,
    32-bit offsets): 2 x 4 multicast loads of B's chunks, NVRTC + ptxas for sm_90a
    without spills (the rule's choice: tests/unit/test_gemm_cluster_grid.py)."""
    import dataclasses

    from tilec.gemm import CONFIGS, MatmulKey, index_bits, matmul_program
    from tilec.runtime.nvrtc import resource_usage

    config = dataclasses.replace(CONFIGS[0], cluster=(2, 1), name=f"{CONFIGS[0].name}:cl2")
    key = MatmulKey(config, 5000, 7000, "bf16", PLAIN, 132, False, index_bits(3000, 5000, 7000, config))
    module = matmul_program(key)
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert cuda.count(".multicast::cluster") == 2 * config.stages * 2  # 2 boxes of 64 columns a chunk
    (usage,) = resource_usage(compile_sm90_or_skip(cuda)).values()
    assert usage.spill_stores == 0
