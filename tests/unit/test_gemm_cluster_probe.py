"""benchmarks/gemm_cluster_probe.py: the 2-CTA cluster rewrite of the emitted
warp-specialised GEMM still finds what it rewrites in today's CUDA (B's TMA boxes,
the "empty" barriers, the consumers' arrivals) and compiles for sm_90a; the pairing
check says which persistent walks give both CTAs of a pair the same B at every step."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers.nvrtc import compile_sm90_or_skip

from tilec.compiler.pipeline import emit, run_pipeline

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
sys.path.insert(0, str(ROOT / "benchmarks"))
import gemm_bf16_hopper
from gemm_cluster_probe import clusterize, pair_shares_b


@pytest.mark.parametrize(
    ("size", "bm", "bn", "group", "nprog", "shares"),
    [
        (4096, 128, 128, 8, 132, True),  # the pingpong kernel's walk at 4096
        (4096, 128, 128, 8, 120, True),
        (8192, 128, 256, 8, 132, True),  # the cooperative kernel's at 8192
        (4096, 128, 128, 1, 132, False),  # row-major order: a pair takes two block columns
        (4096, 128, 128, 8, 131, False),  # an odd grid has no pairs
        (1024, 128, 128, 3, 6, False),  # a group of 3 block rows splits a pair at its edge
    ],
)
def test_pair_shares_b(size, bm, bn, group, nprog, shares):
    assert pair_shares_b(size, size, bm, bn, group, nprog) is shares


@pytest.mark.parametrize(("m", "n", "nprog", "shares"), [
    (3000, 5000, 132, True),  # 24 x 20 tiles of 128 x 256 (edge tiles included): groups of 8 rows
    (3000, 5000, 130, True),
    (2900, 5000, 132, False),  # 23 block rows: the last group of 7 splits a pair at its edge
])
def test_pair_shares_b_at_ragged_shapes(m, n, nprog, shares):
    assert pair_shares_b(m, n, 128, 256, 8, nprog) is shares


@pytest.fixture(scope="module")
def pingpong_cuda() -> str:
    m = gemm_bf16_hopper.gemm_hopper_ws(
        256, 256, 512, bm=128, bn=128, bk=64, stages=4, persistent=2, group=2, tma_epilogue=True, pingpong=True
    )
    run_pipeline(m, "default")
    return emit(m, "cuda")


def test_clusterize_multicast(pingpong_cuda):
    """Each stage's two 64 x 64 boxes of B become one multicast load per rank; the 4
    "empty" barriers count 2 arrivals; every consumer arrival on them reaches both
    CTAs; a cluster barrier after the initialisation and one before exit."""
    out = clusterize(pingpong_cuda)
    assert "__cluster_dims__(2, 1, 1)" in out
    assert out.count(".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;") == 8
    assert out.count("if (tilec_cluster_rank() == 0u)") == out.count("if (tilec_cluster_rank() == 1u)") == 4
    assert '&pb_map)), "r"(tilec_smem_addr(mbar)), "r"((int)' in out
    assert out.count("), 2u);") == 4  # the empty barriers' init
    assert (
        pingpong_cuda.count("), 0u);") == out.count("tilec_cluster_arrive_both(reinterpret_cast") + 2
    )  # and the two turn arrivals
    assert out.count("tilec_cluster_sync();\n") == 2
    assert "fence.mbarrier_init.release.cluster" in out
    from tilec.runtime.nvrtc import resource_usage

    (usage,) = resource_usage(compile_sm90_or_skip(out)).values()
    assert usage.spill_stores == 0


@pytest.mark.parametrize(("mode", "arrivals", "multicasts"), [("dims", 0, 0), ("arrive", 10, 0)])
def test_clusterize_partial_modes(pingpong_cuda, mode, arrivals, multicasts):
    """ "dims" adds only the cluster launch and barriers, "arrive" also the cross-CTA
    empty barriers (each CTA loading all of B itself)."""
    out = clusterize(pingpong_cuda, mode)
    assert "__cluster_dims__(2, 1, 1)" in out
    assert out.count("tilec_cluster_arrive_both(reinterpret_cast") == arrivals
    assert out.count(".multicast::cluster [%0]") == multicasts
