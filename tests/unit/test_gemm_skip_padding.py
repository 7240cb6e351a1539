"""`gemm_hopper_ws(skip_padding=True)`: the steps of a tile's last trip of the ring that
lie wholly past K load nothing and run no wgmma (their stages only waited for and handed
back, so the barriers' phases run on), on the reference executor at odd shapes against
float64, before and after the default pipeline, output poisoned: persistent blocks
walking several tiles (the ring's phases carried across tiles whose last trip is
partly empty), pairs sharing B, a run-time M, the widest epilogue; the CUDA of the
3000 x 5000 x 7000 kernel (110 K steps of 64 in trips of 4: the last trip's two steps
past K run no wgmma and no loads, in branches of the loops' one trip) compiles
without spills; the rule's cost counts
ceil(K / bk) steps; what it cannot take is refused."""

from __future__ import annotations

import dataclasses

import pytest
from helpers.nvrtc import compile_sm90_or_skip
from test_matmul import _check, _operands, _run

from tilec import gemm
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws

EPILOGUE = Epilogue(bias=True, activation="silu", residual=True)
# 64 x 128 tiles in two chunks of 64, the TMA epilogue, the steps past K skipped
TILE = {"bm": 64, "bn": 128, "bk": 64, "chunk": 64, "tma_epilogue": True, "skip_padding": True}


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("shape,kw", [
    # 6 K steps in trips of 4 (the last trip's 2 steps past K), 3 x 3 tiles over 2 blocks
    ((136, 264, 328), {"stages": 4, "persistent": 2, "group": 2}),
    # 3 K steps in trips of 2 (the second trip's last step past K), pairs sharing B
    ((136, 264, 136), {"stages": 2, "persistent": 4, "cluster": (2, 1)}),
    # one trip only (3 K steps of 4): no loop trip before the last
    ((72, 136, 136), {"stages": 4, "persistent": 2}),
])
def test_steps_past_k_skipped_at_odd_shapes(level, shape, kw):
    m, n, k = shape
    module = gemm_hopper_ws(m, n, k, epilogue=EPILOGUE, **TILE, **kw)
    if level == "lowered":
        run_pipeline(module, "default")
    ops = _operands(m, n, k, EPILOGUE, seed=k)
    _check(_run(module, m, n, EPILOGUE, ops, dynamic_m=False), ops, EPILOGUE)


def test_one_program_serves_every_m():
    n, k = 136, 328
    module = gemm_hopper_ws(None, n, k, epilogue=EPILOGUE, stages=4, persistent=3, group=2, **TILE)
    run_pipeline(module, "default")
    for m in (8, 200):
        ops = _operands(m, n, k, EPILOGUE, seed=m)
        _check(_run(module, m, n, EPILOGUE, ops), ops, EPILOGUE)


def test_the_kernel_branches_on_the_steps_past_k():
    """3000 x 5000 x 7000 in 128 x 256 (chunks of 128) and 4 stages: 28 trips of the loops,
    the last one's 2 steps past K (110 = 27 x 4 + 2). The loops keep one trip's code (4
    steps' wgmma: 2 chunks, 4 of k16 each; the stages' loads), as without `skip_padding`;
    the last 2 stages of a trip run their wgmma (consumers) and loads (producer) in a
    branch on their step lying inside K's 110 (issue 39's cold compile: the last trip
    peeled off the loops was 1.5 times the wgmma); NVRTC + ptxas without spills."""
    from tilec.runtime.nvrtc import resource_usage

    cudas = {}
    for skip in (False, True):
        config = dataclasses.replace(gemm.CONFIGS[0], skip_padding=skip)
        key = gemm.MatmulKey(config, 5000, 7000, "bf16", Epilogue(), 132, False, 32)
        module = gemm.matmul_program(key)
        run_pipeline(module, "default")
        cudas[skip] = emit(module, "cuda")
    for what in ("wgmma.mma_async", "cp.async.bulk.tensor.2d.shared::cluster.global"):
        assert cudas[True].count(what) == cudas[False].count(what)
    assert cudas[False].count("wgmma.mma_async") == 4 * 2 * 4
    assert cudas[True].count(" < 110;") == 2 + 2 and " < 110;" not in cudas[False]
    (usage,) = resource_usage(compile_sm90_or_skip(cudas[True])).values()
    assert usage.spill_stores == 0 and usage.spill_loads == 0


def test_the_rule_counts_the_steps_inside_k():
    c = gemm.CONFIGS[0]
    whole = gemm.wave_seconds(c, 3000, 5008, 7008, 132)
    assert gemm.wave_seconds(dataclasses.replace(c, skip_padding=True), 3000, 5008, 7008, 132) == pytest.approx(
        whole * 110 / 112)
    assert c.kwargs(132).get("skip_padding") is None
    assert dataclasses.replace(c, skip_padding=True).kwargs(132)["skip_padding"]


@pytest.mark.parametrize("kw", [
    {"split_k": 2, "tma_epilogue": False, "chunk": 0},
    {"stream_k": True},
    {"pingpong": True, "chunk": 0},
    {"overlap_epilogue": True},
    {"cp_async": "b"},
])
def test_what_it_cannot_take_is_refused(kw):
    with pytest.raises(ValueError, match="skip_padding"):
        gemm_hopper_ws(136, 264, 328, stages=4, persistent=2, **{**TILE, **kw})
