"""SiLU's quotients G = 2 or 4 through one reciprocal (`Epilogue.div_group`,
`GemmConfig.div_group`, `:dg<G>`): the divisor clamped to 2^(124 / G), the numerator floored
(`silu_group_bounds`), lower-to-gpu's `cuda.div_approx_group` of G registers; its error against
float64 over every bf16 y with mates across the range (f32 steps emulated, `ex2.approx` and
`rcp.approx` off by their stated ulps either way), the rule's kernel with `:dg<G>` (one
`rcp.approx` for G quotients, no `div.approx`, no spills), the reference executor before and after
the default pipeline. The GPU tests: tests/gpu/test_matmul_gpu.py `test_div_group`."""

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
from tilec.gemm_programs import LOG2_E, Epilogue, gemm_hopper_ws, silu_group_bounds
from tilec.support.diagnostics import TilecError


def _divisor(y: np.ndarray, sign: float, clamp: float) -> np.ndarray:
    """1 + `ex2.approx`(y * -log2 e) in f32, the exp2 off by its 2 ulps (`sign`), clamped."""
    with np.errstate(over="ignore"):
        a = (y * np.float32(-LOG2_E)).astype(np.float32)
        e = (np.exp2(a.astype(np.float64)) * (1 + sign * 2.0**-22)).astype(np.float32)
        d = (e + np.float32(1)).astype(np.float32)
    return np.fmin(d, np.float32(clamp))


@pytest.mark.parametrize("g", [2, 4])
def test_grouped_silu_over_every_bf16_input(g):
    """q = max(y, floor) (d1 .. r), r = `rcp.approx`(d d1 ..) (1 ulp either way), the G - 1 mates'
    divisors all one d' (y' from -60 to 100, past both ends of the clamp; G = 4 as the emitter:
    a = d d', b = d' d', r = rcp(a b), ra = r b, 1 / d = d' ra), each step rounded to f32:
    within docs/matmul.md's 2^-20 (|silu| + 1) (past the clamp at most 2^-22 in magnitude), and
    within (2^-20 + 2^-23 |y|) relative wherever silu(y) is a normal f32 above the clamp's y
    (-42.97 at G = 2, -21.49 at G = 4; 2^-21.0 measured for |y| < 1 at G = 2, against 2^-21.3
    of `div.approx`)."""
    clamp, floor = silu_group_bounds(g)
    x = (np.arange(65536, dtype=np.uint32) << np.uint32(16)).view(np.float32)
    y = x[np.isfinite(x)]
    y64 = y.astype(np.float64)
    with np.errstate(over="ignore"):
        exact = y64 / (1.0 + np.exp(-y64))
    yn = np.maximum(y, np.float32(floor))
    normal = (y64 > -np.log(clamp)) & (np.abs(exact) >= 2.0**-126)
    mates = np.array([-60, -43, -42.97, -22, -21.4, -5, -1, -0.01, 0, 0.3, 1, 5, 20, 87, 100], np.float32)
    f32 = np.float32
    for se, sm, sr in itertools.product((-1.0, 1.0), repeat=3):
        d = _divisor(y, se, clamp)
        for dm in _divisor(mates, sm, clamp):
            a, b = (d * dm).astype(f32), f32(dm * dm)
            p = a if g == 2 else (a * b).astype(f32)
            r = (1.0 / p.astype(np.float64) * (1 + sr * 2.0**-23)).astype(f32)
            ra = r if g == 2 else (r * b).astype(f32)  # G = 4: ra = r b = 1 / a
            q = (yn * (dm * ra).astype(f32)).astype(f32).astype(np.float64)  # 1 / d = d' ra
            err = np.abs(q - exact)
            assert (err <= 2.0**-20 * (np.abs(exact) + 1)).all()
            assert (err[normal] <= (2.0**-20 + 2.0**-23 * np.abs(y64[normal])) * np.abs(exact[normal])).all()


@pytest.mark.parametrize("g", [2, 4])
def test_div_group_in_the_rule_kernel(g):
    """The rule's SiLU kernel at 8192 x 28672 x 4096 with `:dg<G>`: one `rcp.approx` for every G
    quotients, no `div.approx`, the exp2 share as `:fe2` gives it; 168 registers, no spills."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from matmul_bench import parse_config

    config = parse_config(f"128x256x64:4:c128:st1:bsm:fe2:dg{g}")
    assert config.div_group == g and config.exp2_fma == 2 and config.kwargs(132)["div_group"] == g
    module = matmul_program(MatmulKey(config, 28672, 4096, "bf16", Epilogue(bias=True, activation="silu"), 132,
                                      index_bits=32))
    run_pipeline(module, "default")
    src = emit(module, "cuda")
    per_thread = 2 * 128  # the two staggered regions' 128 elements a consumer thread
    assert src.count("tilec_rcp_approx_ftz(") == per_thread // g + 1  # and the helper's definition
    assert "tilec_div_approx_ftz(t" not in src
    assert src.count("tilec_ex2_fma(t") == per_thread * 2 // 8
    usage = sm90_usage_or_skip(src)
    assert usage.registers == 168 and not usage.spill_stores and not usage.spill_loads


@pytest.mark.parametrize("g", [2, 4])
def test_div_group_on_the_reference_executor(g):
    """bias + SiLU + residual with `div_group` at 72 x 40 x 48 against float64, before and after
    the default pipeline (which groups the quotients), and with a bias of +-120 (past the clamp)."""
    ep = Epilogue(bias=True, activation="silu", residual=True)
    m, n, kk = 72, 40, 48
    module = gemm_hopper_ws(None, n, kk, persistent=3, group=2, tma_epilogue=True, epilogue=ep, div_group=g,
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
def test_div_group_leaves_other_epilogues_alone(activation):
    """Only `silu` has a divisor: elsewhere the program is the one without the option."""
    ep = Epilogue(bias=True, activation=activation)
    kw = dict(persistent=3, group=2, tma_epilogue=True, epilogue=ep, **SMALL)
    assert str(gemm_hopper_ws(None, 40, 48, div_group=2, **kw)) == str(gemm_hopper_ws(None, 40, 48, **kw))


def test_div_group_refused_outside_2_and_4():
    with pytest.raises(TilecError, match="div_group 3"):
        Epilogue(activation="silu", div_group=3)
