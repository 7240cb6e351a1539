"""SiLU's quotients two through one reciprocal (`Epilogue.div_pairs`, `GemmConfig.div_pairs`,
`:dp`): the divisor clamped to 2^62 (`SILU_PAIR_CLAMP`), lower-to-gpu's `cuda.div_approx_group`
of two registers; its error against float64 over every bf16 y with mates across the range (f32
steps emulated, `ex2.approx` and `rcp.approx` off by their stated ulps either way), the rule's
kernel with `:dp` (one `rcp.approx` for two quotients, no `div.approx`, no spills), the reference
executor before and after the default pipeline. The GPU tests: tests/gpu/test_matmul_gpu.py
`test_div_pairs`."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.nvrtc import sm90_usage_or_skip
from test_matmul import SMALL, _bits, _check, _operands, _run, _values

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.gemm import MatmulKey, matmul_program
from tilec.gemm_programs import LOG2_E, SILU_PAIR_CLAMP, SILU_PAIR_FLOOR, Epilogue, gemm_hopper_ws


def _divisor(y: np.ndarray, sign: float) -> np.ndarray:
    """1 + `ex2.approx`(y * -log2 e) in f32, the exp2 off by its 2 ulps (`sign`), clamped."""
    with np.errstate(over="ignore"):
        a = (y * np.float32(-LOG2_E)).astype(np.float32)
        e = (np.exp2(a.astype(np.float64)) * (1 + sign * 2.0**-22)).astype(np.float32)
        d = (e + np.float32(1)).astype(np.float32)
    return np.fmin(d, np.float32(SILU_PAIR_CLAMP))


def test_paired_silu_over_every_bf16_input():
    """q = max(y, -2^40) (d' r), r = `rcp.approx`(d d') (1 ulp either way), d' the mate's divisor
    (y' from -60 to 100, past both ends of the clamp), each step rounded to f32: within
    docs/matmul.md's 2^-20 (|silu| + 1) (past the clamp at most 2^-22 in magnitude), and within (2^-20 + 2^-23 |y|) relative wherever silu(y) is a normal f32 above the clamp's
    y = -42.97 (2^-21.0 measured for |y| < 1, against 2^-21.3 of `div.approx`)."""
    x = (np.arange(65536, dtype=np.uint32) << np.uint32(16)).view(np.float32)
    y = x[np.isfinite(x)]
    y64 = y.astype(np.float64)
    with np.errstate(over="ignore"):
        exact = y64 / (1.0 + np.exp(-y64))
    yn = np.maximum(y, np.float32(SILU_PAIR_FLOOR))
    normal = (y64 > -42.97) & (np.abs(exact) >= 2.0**-126)
    mates = np.array([-60, -43, -42.97, -20, -5, -1, -0.01, 0, 0.3, 1, 5, 20, 87, 100], np.float32)
    for se, sm, sr in itertools.product((-1.0, 1.0), repeat=3):
        d = _divisor(y, se)
        for dm in _divisor(mates, sm):
            p = (d * dm).astype(np.float32)
            r = (1.0 / p.astype(np.float64) * (1 + sr * 2.0**-23)).astype(np.float32)
            q = (yn * (dm * r).astype(np.float32)).astype(np.float32).astype(np.float64)
            err = np.abs(q - exact)
            assert (err <= 2.0**-20 * (np.abs(exact) + 1)).all()
            assert (err[normal] <= (2.0**-20 + 2.0**-23 * np.abs(y64[normal])) * np.abs(exact[normal])).all()


def test_div_pairs_in_the_rule_kernel():
    """The rule's SiLU kernel at 8192 x 28672 x 4096 with `:dp`: one `rcp.approx` for every two
    quotients, no `div.approx`, the exp2 share as `:fe2` gives it; 168 registers, no spills."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    config = parse_config("128x256x64:4:c128:st1:bsm:fe2:dp")
    assert config.div_pairs and config.exp2_fma == 2 and config.kwargs(132)["div_pairs"]
    module = matmul_program(MatmulKey(config, 28672, 4096, "bf16", Epilogue(bias=True, activation="silu"), 132,
                                      index_bits=32))
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    per_thread = 2 * 128  # the two staggered regions' 128 elements a consumer thread
    assert src.count("tilec_rcp_approx_ftz(t") == per_thread // 2
    assert "tilec_div_approx_ftz(t" not in src
    assert src.count("tilec_ex2_fma(t") == per_thread * 2 // 8
    usage = sm90_usage_or_skip(src)
    assert usage.registers == 168 and not usage.spill_stores and not usage.spill_loads


def test_div_pairs_on_the_reference_executor():
    """bias + SiLU + residual with `div_pairs` at 72 x 40 x 48 against float64, before and after
    the default pipeline (which groups the quotients), and with a bias of +-120 (past the clamp)."""
    ep = Epilogue(bias=True, activation="silu", residual=True)
    m, n, kk = 72, 40, 48
    module = gemm_hopper_ws(None, n, kk, persistent=3, group=2, tma_epilogue=True, epilogue=ep, div_pairs=True,
                            **SMALL)
    assert "arith.minnumf" in str(module) and "arith.maximumf" in str(module)
    ops = _operands(m, n, kk, ep, seed=7)
    _check(_run(module, m, n, ep, ops), ops, ep)
    ops["bias"] = _values(_bits(np.linspace(-120.0, 120.0, n), "bf16"), "bf16")
    _check(_run(module, m, n, ep, ops), ops, ep)
    run_pipeline(module, "default")
    assert "cuda.div_approx_group" in str(module)
    _check(_run(module, m, n, ep, ops), ops, ep)


@pytest.mark.parametrize("activation", [None, "relu", "silu_tanh"])
def test_div_pairs_leaves_other_epilogues_alone(activation):
    """Only `silu` has a divisor: elsewhere the program is the one without the option."""
    ep = Epilogue(bias=True, activation=activation)
    kw = dict(persistent=3, group=2, tma_epilogue=True, epilogue=ep, **SMALL)
    assert str(gemm_hopper_ws(None, 40, 48, div_pairs=True, **kw)) == str(gemm_hopper_ws(None, 40, 48, **kw))
