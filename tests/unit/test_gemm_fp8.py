"""The Hopper GEMM programs (api/gemm_programs.py) on 8-bit float operands: A (M x K)
row-major and B K-major (the transpose of a row-major N x K, as `torch._scaled_mm`
takes it) of float8_e4m3fn or float8_e5m2, `wgmma.m64nNk32`, per-tensor scales applied
to the f32 accumulator (`Epilogue.scale`), bf16 output.

On the reference executor (before and after the default pipeline) at odd shapes,
against float64: the executor sums the exact fp8 products in f32, so

    |C - (A @ B) sa sb| <= K 2^-24 |sa sb| (|A| @ |B|) + 2^-8 (|(A @ B) sa sb| + that)

(f32 accumulation, then one bf16 rounding: the bound of tests/unit/test_gemm_ragged.py).
The GPU's fp8 accumulation keeps fewer bits (`layout_mma.FP8_ACCUMULATION_EPS`);
tests/gpu/test_matmul_fp8_gpu.py checks it with that unit roundoff."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.dtypes import f8_to_f32, to_f8
from tilec.gemm_programs import Epilogue, gemm_hopper, gemm_hopper_ws
from tilec.runtime.reference import random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32
from tilec.support.diagnostics import TilecError


def _check(module, m: int, n: int, k: int, dtype: str, level: str, bias: bool = False) -> None:
    if level == "lowered":
        run_pipeline(module, "default")
    inputs = random_inputs(module, 0)
    rng = np.random.default_rng(1)
    inputs["pa"] = to_f8(rng.standard_normal(m * k) * 8, dtype)  # spread over the format's range
    inputs["pscale_a"] = np.array([0.37], np.float32)
    inputs["pscale_b"] = np.array([-2.5], np.float32)
    inputs["pc"] = np.full(m * n, 0x7FC0, np.uint16)  # NaN: an element never written fails
    out = run(module, inputs)["pc"]
    a = f8_to_f32(np.asarray(inputs["pa"]).reshape(m, k), dtype).astype(np.float64)
    b = f8_to_f32(np.asarray(inputs["pb"]).reshape(n, k), dtype).astype(np.float64).T  # B K-major
    s = 0.37 * -2.5
    got = bf16_to_f32(np.asarray(out).reshape(m, n)).astype(np.float64)
    exact, mag = a @ b * np.float64(np.float32(0.37)) * np.float64(np.float32(-2.5)), abs(a) @ abs(b) * abs(s)
    if bias:
        exact = exact + bf16_to_f32(np.asarray(inputs["pbias"])).astype(np.float64)[None, :]
    gamma = k * 2.0**-24
    err = abs(got - exact) - (gamma * mag + 2.0**-8 * (abs(exact) + gamma * mag))
    assert np.all(err <= 0), float(err.max())


CASES = {
    # 200 = 3 block rows of 64 and 8; 272 = 4 block columns of 64 and 16; K = 336: 3
    # steps of 128 (the last 80 wide), rounded up to 4 by the 2 stages
    "ws-odd-e4m3": ("ws", (200, 272, 336), {"bm": 64, "bn": 64, "bk": 128}, "f8E4M3FN"),
    "ws-persistent-tma-e5m2": ("ws", (72, 144, 160), {"bm": 64, "bn": 64, "bk": 64, "persistent": 3, "group": 2,
                                                      "tma_epilogue": True}, "f8E5M2"),
    "sync-one-row": ("sync", (1, 16, 32), {"bm": 64, "bn": 64, "bk": 128}, "f8E4M3FN"),
    # a static M, column chunks of 64, the last one's epilogue (scales) under the next tile's first round
    "ws-overlap-e4m3": ("ws", (200, 272, 336), {"bm": 64, "bn": 128, "bk": 128, "chunk": 64, "persistent": 3,
                                                "group": 2, "tma_epilogue": True, "overlap_epilogue": True},
                        "f8E4M3FN"),
}


@pytest.mark.parametrize("level", ["layout", "lowered"])
@pytest.mark.parametrize("case", CASES)
def test_fp8_gemm_any_shape_with_scales(case, level):
    kind, (m, n, k), kw, dtype = CASES[case]
    build = gemm_hopper_ws if kind == "ws" else gemm_hopper
    module = build(m, n, k, stages=2, dtype=dtype, b_kmajor=True, epilogue=Epilogue(scale=True), **kw)
    _check(module, m, n, k, dtype, level)


def test_fp8_gemm_scale_then_bias():
    """The scales come first: bias is added to the scaled product."""
    m, n, k = 72, 80, 96
    module = gemm_hopper_ws(m, n, k, bm=64, bn=64, bk=64, stages=2, dtype="f8E4M3FN", b_kmajor=True,
                            epilogue=Epilogue(scale=True, bias=True))
    _check(module, m, n, k, "f8E4M3FN", "layout", bias=True)


def test_fp8_gemm_compiles_with_k32_wgmma():
    """The configuration `tilec.matmul` takes for FP8 at 4096^3 (128 x 256 x 128, 4
    stages, TMA epilogue in chunks of 128, run-time M): wgmma.m64n128k32 on e4m3, no
    spills."""
    from tilec.gemm import FP8_CONFIGS, choose_config
    from tilec.runtime.nvrtc import resource_usage

    config = choose_config(4096, 4096, 132, k=4096, fp8=True)
    assert config is FP8_CONFIGS[0]
    module = gemm_hopper_ws(None, 4096, 4096, dtype="f8E4M3FN", b_kmajor=True, epilogue=Epilogue(scale=True),
                            **config.kwargs(132))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" in cuda
    result = compile_sm90_or_skip(cuda)
    (usage,) = resource_usage(result).values()
    assert usage.spill_stores in (0, None)


def test_fp8_needs_k_major_b_and_16_byte_rows():
    with pytest.raises(TilecError, match="B must be K-major"):
        gemm_hopper_ws(64, 64, 64, bm=64, bn=64, stages=2, dtype="f8E4M3FN")
    with pytest.raises(ValueError, match="K and N multiples of 16"):
        gemm_hopper_ws(64, 64, 72, bm=64, bn=64, stages=2, dtype="f8E4M3FN", b_kmajor=True)


def test_fp8_configurations_fit_and_never_split_k():
    from tilec.gemm import FP8_CONFIGS, choose_config
    from tilec.support.target import target

    assert all(c.smem_bytes() <= target("sm_90a").smem_per_block for c in FP8_CONFIGS)
    assert choose_config(16, 8192, 132, k=8192, fp8=True).split_k == 1
    assert choose_config(16, 8192, 132, k=8192, fp8=True) in FP8_CONFIGS


@pytest.mark.parametrize("name", ["f8:128x128x128:4:pp", "f8:64x256x128:4:c128"])
def test_other_fp8_configurations_compile(name):
    """The FP8 configurations the rule takes besides the 4096^3 one, with scales, bias
    and SiLU, run-time M, compile for sm_90a."""
    from tilec.gemm import FP8_CONFIGS, MatmulKey, matmul_program

    c = next(c for c in FP8_CONFIGS if c.name == name)
    ep = Epilogue(scale=True, bias=True, activation="silu")
    module = matmul_program(MatmulKey(c, 4096, 4096, "f8E4M3FN", ep, 132, b_kmajor=True))
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert "k32.f32.e4m3.e4m3" in cuda
    compile_sm90_or_skip(cuda)
