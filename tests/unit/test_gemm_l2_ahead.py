"""`gemm_hopper_ws(l2_ahead=D)` (swapped): after each trip's loads the producer asks L2 for
the unit's weight rows of the trip D trips later (`layout.prefetch`, one a row of
`stages * bk` elements, only trips that start inside K). On the reference executor (the
prefetch reads and changes nothing) after the default pipeline against float64, output
poisoned, unsplit and split, persistent blocks walking several units, pairs sharing A^T;
the CUDA of the
rule's QKV kernel at M = 128 has 64 bulk prefetches of 1 KiB a trip, guarded by the trip
count, and compiles without spills; what cannot take it is refused."""

from __future__ import annotations

import dataclasses

import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _check, _operands, _run

from tilec import gemm
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws

EP = Epilogue(bias=True, activation="silu", residual=True, out_dtype="f16")


@pytest.mark.parametrize(("split", "ahead", "ms"), [(1, 2, (1, 13)), (2, 1, (20,))])
def test_l2_ahead_against_float64(split, ahead, ms):
    n, k = 200, 1000  # 4 units of 64 rows (the last 8) over 3 blocks, 16 K steps of 64 in trips of 2
    module = gemm_hopper_ws(None, n, k, bm=64, bn=16 if split == 1 else 32, bk=64, stages=2, b_kmajor=True,
                            swap_ab=True, epilogue=EP, split_k=split, persistent=3, l2_ahead=ahead)
    run_pipeline(module, "default")
    for m in ms:
        ops = _operands(m, n, k, EP, seed=m + split)
        _check(_run(module, m, n, EP, ops, b_kmajor=True, split_k=split), ops, EP)


@pytest.mark.parametrize("n", [200, 264])
def test_l2_ahead_in_pairs_sharing_a_t(n):
    """Pairs sharing A^T by multicast (`cluster=(2, 1)`): each block asks L2 for its own rows."""
    k, m = 1000, 5
    module = gemm_hopper_ws(None, n, k, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True,
                            persistent=4, cluster=(2, 1), epilogue=EP, l2_ahead=2)
    run_pipeline(module, "default")
    ops = _operands(m, n, k, EP, seed=n)
    _check(_run(module, m, n, EP, ops, b_kmajor=True), ops, EP)


def test_the_kernel_prefetches_the_weight_rows_ahead():
    config = dataclasses.replace(gemm.swap_config(128), l2_ahead=2)
    assert config.kwargs(132)["l2_ahead"] == 2
    module = gemm.matmul_program(gemm.MatmulKey(config, 6144, 4096, "bf16", EP, 132, True, 32))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert cuda.count("tilec_prefetch_l2<0>(pb + ") == 64  # a row of 4 stages x 128 of K, 1 KiB
    assert cuda.count(", 1024ull);") == 64
    assert " < 8;" in cuda  # 8 trips of 512 in K = 4096: none past them
    from tilec.runtime.nvrtc import resource_usage

    (usage,) = resource_usage(compile_sm90_or_skip(cuda)).values()
    assert usage.spill_stores == 0 and usage.spill_loads == 0


def test_what_cannot_take_it_is_refused():
    with pytest.raises(ValueError, match="l2_ahead"):
        gemm_hopper_ws(264, 264, 328, bm=64, bn=128, bk=64, stages=4, persistent=4, l2_ahead=1)
    with pytest.raises(ValueError, match="l2_ahead"):
        gemm_hopper_ws(None, 200, 1000, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True, l2_ahead=-1)
    with pytest.raises(ValueError, match="l2_ahead"):
        gemm_hopper_ws(None, 200, 1000, bm=64, bn=16, bk=64, stages=2, b_kmajor=True, swap_ab=True, persistent=4,
                       cluster=(1, 2), l2_ahead=1)
