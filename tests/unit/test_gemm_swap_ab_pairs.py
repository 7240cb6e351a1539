"""Swapped decode GEMMs in pairs sharing A^T (`gemm_hopper_ws(swap_ab=True,
persistent=P, cluster=(2, 1))`, `GemmConfig.cluster` of a swapped configuration, named
`:cl2`): two units of N's rows (a cluster's two block rows of C^T) walk the same K steps,
each stage's A^T box (the wgmma's "B") loaded once and multicast to both, so A^T is read
from L2 once per pair instead of once per unit. On the reference executor (which checks
the clusters' barriers and multicasts) against float64 within the bound, the widest
epilogue: N = 200 (4 tiles: 2 pairs) and 264 (5 tiles: the last pair's second tile past
N, its loads zeros and its stores nothing), run-time M over one and two column tiles,
more clusters than pairs and fewer, at the layout level and after the default pipeline;
NVRTC of Llama's QKV at M = 128 without spills, the multicast in the CUDA."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _bits, _check, _operands, _values

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm import GemmConfig, MatmulKey, matmul_program
from tilec.gemm_programs import Epilogue, gemm_hopper_ws
from tilec.runtime.reference import run

WIDEST = Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")


@pytest.mark.parametrize(("n", "blocks", "level"), [(200, 4, "layout"), (264, 4, "lowered"), (264, 2, "layout"),
                                                    (200, 8, "lowered")])
def test_pairs_sharing_a_t(n, blocks, level):
    k = 1000
    module = gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            persistent=blocks, cluster=(2, 1), epilogue=WIDEST)
    if level == "lowered":
        run_pipeline(module, "default")
    for m in (5, 20):  # one program for every M: one column tile, then two
        ops = _operands(m, n, k, WIDEST, seed=m + n)
        inputs = {"pa": _bits(ops["a"].ravel(), "bf16"), "pb": _bits(ops["b"].T.ravel(), "bf16"),
                  "pc": _bits(np.full(m * n, np.nan), "f16"), "pbias": _bits(ops["bias"], "f16"),
                  "pres": _bits(ops["residual"].ravel(), "f16"), "m": m}
        _check(_values(run(module, inputs)["pc"], "f16").reshape(m, n), ops, WIDEST)


def test_the_configuration_runs_over_the_resident_pairs():
    c = GemmConfig("64x128x128:4:swapAB:p1:cl2", 64, 128, 128, 4, efficiency=0.0, group=1, swap_ab=True, per_sm=1,
                   cluster=(2, 1))
    kw = c.kwargs(132)
    assert kw["cluster"] == (2, 1) and kw["persistent"] == 132  # 66 pairs where no device is asked


def test_qkv_in_pairs_compiles_without_spills():
    from tilec.runtime.nvrtc import resource_usage

    c = GemmConfig("64x128x128:4:swapAB:p1:cl2", 64, 128, 128, 4, efficiency=0.0, group=1, swap_ab=True, per_sm=1,
                   cluster=(2, 1))
    module = matmul_program(MatmulKey(c, 6144, 4096, "bf16", WIDEST, 132, b_kmajor=True, index_bits=32))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert "__cluster_dims__(2, 1, 1)" in cuda and ".multicast::cluster" in cuda
    (usage,) = resource_usage(compile_sm90_or_skip(cuda)).values()
    assert usage.spill_stores in (0, None) and usage.spill_loads in (0, None)
