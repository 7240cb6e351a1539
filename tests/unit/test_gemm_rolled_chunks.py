"""The tile's epilogue one trip of a loop over its column chunks (`gemm_hopper_ws(rolled_chunks=True)`,
`GemmConfig.rolled_chunks`, named `:rc`): the loop carries the chunks' accumulators, each trip
stores the first and moves the others down. On the reference executor at odd shapes against
float64 (output poisoned), after the default pipeline: staggered in one region run apart with
the bias staged (the rule's silu kernel's options), unstaggered with the bias loaded in the
trip and a residual, 4 chunks with two column parts of the C buffer each; the emitted CUDA
keeps the loop rolled with one chunk's epilogue in it; the refusals."""

from __future__ import annotations

import re

import pytest
from test_matmul import _check, _operands, _run

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm_programs import Epilogue, gemm_hopper_ws

SILU = Epilogue(bias=True, activation="silu")

CASES = {
    # 3 tiles over 2 blocks, 2 chunks of 64, the bias staged, one region run apart, one trip of K
    "staggered-apart-bias-smem": dict(m=72, n=264, k=200, ep=SILU, kw=dict(
        bn=128, chunk=64, stagger=1, bias_smem=True, consumers_apart=True)),
    # unstaggered: the bias loaded in the trip, a residual, f16, one trip of K
    "residual": dict(m=130, n=136, k=200, ep=Epilogue(bias=True, activation="gelu", residual=True, out_dtype="f16"),
                     kw=dict(bn=128, chunk=64)),
    # 4 chunks of 64, each as two 32-column parts of the one C buffer
    "four-chunks-parts": dict(m=72, n=264, k=64, ep=SILU, kw=dict(bn=256, chunk=64, c_width=32)),
}


@pytest.mark.parametrize("name", CASES)
def test_rolled_chunks_at_odd_shapes(name):
    """(up to 2.1 s on 2 shared cores: the executor runs the loop's trips for every tile of two
    blocks, the smallest shapes with more tiles than blocks)"""
    case = CASES[name]
    m, n, k, ep = case["m"], case["n"], case["k"], case["ep"]
    module = gemm_hopper_ws(None, n, k, bm=128, bk=64, stages=4, persistent=2, tma_epilogue=True, epilogue=ep,
                            rolled_chunks=True, **case["kw"])
    run_pipeline(module, "default")
    ops = _operands(m, n, k, ep, seed=n + k + 2)
    _check(_run(module, m, n, ep, ops), ops, ep)


def test_one_chunk_of_code_in_a_rolled_loop():
    """Two chunks of 64 x 64 over a warpgroup: a thread's 32 elements of one chunk, 32 SiLU
    exp2s in the CUDA (64 unrolled)."""
    module = gemm_hopper_ws(None, 264, 64, bm=128, bn=128, bk=64, stages=4, persistent=2, tma_epilogue=True,
                            epilogue=SILU, chunk=64, stagger=1, consumers_apart=True, rolled_chunks=True)
    run_pipeline(module, "default")
    text = emit(module, "cuda")
    assert re.search(r"#pragma unroll 1\n *for \((int|long long) chunk = 0; chunk < 2; \+\+chunk\) \{", text)
    assert text.count("tilec_ex2_approx_ftz(t_") == 32


@pytest.mark.parametrize("kw", [{"chunk": 0}, {"chunk": 64, "c_ring": 2}, {"chunk": 64, "tma_epilogue": False},
                                {"chunk": 64, "pingpong": True}], ids=["no-chunks", "c-ring", "no-tma", "pingpong"])
def test_refusals(kw):
    with pytest.raises(ValueError, match="rolled_chunks needs"):
        gemm_hopper_ws(None, 256, 128, bm=128, bn=128, bk=64, stages=4, persistent=1, epilogue=SILU,
                       rolled_chunks=True, **{"tma_epilogue": True, **kw})
