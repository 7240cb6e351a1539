"""The staggered consumers in one region run apart (`gemm_hopper_ws(stagger=L,
consumers_apart=True)`, `:st<L>:ap`): one copy of the consumer's code for both warpgroups,
the lag's wait (consumer 0) and arrival (consumer 1) branches on `layout.warpgroup_index`.
On the reference executor at odd shapes against float64 (output poisoned), after the
default pipeline (a missed or doubled arrival on the lag barrier hangs or fails there); the
emitted CUDA: one consumer region, half the wgmma; not with `epilogue_turns`. (The rule's
SiLU kernel with `:ap`, 2272 SASS instructions against 3968: dev/experiments/epilogue_size.py,
benchmarks/NOTES.md epi50.)"""

from __future__ import annotations

import pytest
from test_gemm_epilogue_turns import CASES, SILU
from test_matmul import _check, _operands, _run

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws


CASES_APART = {
    "one-block": CASES["one-block"],  # a K tail, 4 tiles in one block
    # 3 tiles over 2 blocks, 64-column chunks, the bias staged, L = 2, one trip of K
    "chunks-bias-smem": dict(m=72, n=264, k=200, ep=Epilogue(bias=True, activation="silu_tanh", out_dtype="f16"),
                             kw=dict(bm=128, bn=128, bk=64, stages=4, persistent=2, tma_epilogue=True, stagger=2,
                                     chunk=64, bias_smem=True)),
    "plain": CASES["plain"],
}


@pytest.mark.parametrize("name", CASES_APART)
def test_staggered_apart_at_odd_shapes(name):
    """(up to 2.6 s on 2 shared cores: the executor runs both warpgroups' K steps, the lag's
    first trip and the ring's later trips, the smallest shapes that reach them)"""
    case = CASES_APART[name]
    m, n, k, ep = case["m"], case["n"], case["k"], case["ep"]
    module = gemm_hopper_ws(None, n, k, epilogue=ep, consumers_apart=True, **case["kw"])
    run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=n + k + 1)
    _check(_run(module, m, n, ep, ops), ops, ep)


def test_one_consumer_region_and_one_lag():
    case = CASES["one-block"]
    mods = [gemm_hopper_ws(None, case["n"], case["k"], epilogue=case["ep"], consumers_apart=a, **case["kw"])
            for a in (True, False)]
    for mod in mods:
        run_pipeline(mod, "default")
    new, old = emit(mods[0], "cuda"), emit(mods[1], "cuda")
    assert "// warpgroups 0..1" in new and "// warpgroup 1" not in new
    assert "// warpgroup 1" in old
    assert new.count("wgmma.mma_async") * 2 == old.count("wgmma.mma_async")


def test_not_with_epilogue_turns():
    kw = dict(CASES["one-block"]["kw"])
    with pytest.raises(ValueError, match="consumers_apart needs"):
        gemm_hopper_ws(None, 136, 520, epilogue=SILU, consumers_apart=True, epilogue_turns=True, **kw)
