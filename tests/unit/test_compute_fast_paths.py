"""The compute kernels' fast paths on the CPU: the reference semantics of
arith.maximumf / minimumf (NaN, signed zeros), the register runs that give slice
layouts vector accesses (`vectorize`), the softmax / layer norm forms of the benchmark
program generator (equivalent through the default pipeline), and the CUDA they emit,
compiled by NVRTC for sm_90 (PTX max.NaN / min.NaN, ex2.approx.ftz, 16-byte weight
loads). The GPU side is tests/gpu/test_compute_fast_paths_gpu.py."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import compute_kernels as ck
from helpers.nvrtc import compile_sm90_or_skip

from tilec.dialects.distributed import BlockedLayout, SliceLayout
from tilec.dialects.linear import parse_linear_layout
from tilec.passes.vectorize import register_run
from tilec.runtime.reference.arith_impls import _maximumf, _minimumf

SPECIALS = np.array([-0.0, 0.0, 0.0, -0.0, np.nan, 1.0, -np.inf, np.inf, 3.0, -2.0], np.float32)
OTHERS = np.array([0.0, -0.0, 0.0, -0.0, 1.0, np.nan, 2.0, 5.0, -np.inf, -2.0], np.float32)


def expected_max(a, b):
    """IEEE 754-2019 maximum, element by element in Python: NaN wins, +0 > -0."""
    out = []
    for x, y in zip(a.tolist(), b.tolist()):
        if np.isnan(x) or np.isnan(y):
            out.append(np.nan)
        elif x == y == 0:
            out.append(0.0 if not (np.signbit(x) and np.signbit(y)) else -0.0)
        else:
            out.append(max(x, y))
    return np.array(out, a.dtype)


def expected_min(a, b):
    out = []
    for x, y in zip(a.tolist(), b.tolist()):
        if np.isnan(x) or np.isnan(y):
            out.append(np.nan)
        elif x == y == 0:
            out.append(-0.0 if (np.signbit(x) or np.signbit(y)) else 0.0)
        else:
            out.append(min(x, y))
    return np.array(out, a.dtype)


def same_bits_or_nan(got, want) -> bool:
    nan = np.isnan(want)
    return bool(np.array_equal(np.isnan(got), nan)) and bool(
        np.array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))
    )


@pytest.mark.parametrize("order", ["ab", "ba"])
def test_reference_maximumf_minimumf_signed_zeros_and_nan(order):
    a, b = (SPECIALS, OTHERS) if order == "ab" else (OTHERS, SPECIALS)
    assert same_bits_or_nan(_maximumf(a, b), expected_max(a, b))
    assert same_bits_or_nan(_minimumf(a, b), expected_min(a, b))


@pytest.mark.parametrize(
    ("layout", "shape", "want"),
    [
        # a row's weights: the parent's 8 registers along the row
        (SliceLayout(0, BlockedLayout([1, 8], [1, 32], [1, 1], [1, 0])), [1024], (0, 8)),
        # rows repeated in registers and warps: broadcast bases (0) are multiples of anything
        (SliceLayout(0, BlockedLayout([2, 4], [1, 32], [4, 1], [1, 0])), [256], (0, 4)),
        # the kept dim has one register per thread: no run
        (SliceLayout(1, BlockedLayout([1, 4], [32, 1], [1, 1], [1, 0])), [32], (0, 1)),
        # the blocked layout itself: 4 along dim 1
        (BlockedLayout([1, 4], [4, 8], [1, 1], [1, 0]), [4, 32], (1, 4)),
    ],
)
def test_register_run(layout, shape, want):
    assert register_run(layout.to_linear(shape)) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a run of 4 whose repeat lands 2 further along the dim: 2 only
        ("register=[[0,1],[0,2],[0,6]], lane=[], warp=[], block=[], shape=[1,8]", (1, 2)),
        # register 1 is not one element further along a single dim: no run
        ("register=[[1,1]], lane=[], warp=[], block=[], shape=[2,2]", (0, 1)),
        # a lane lands inside the run: 1
        ("register=[[1],[2]], lane=[[1]], warp=[], block=[], shape=[4]", (0, 1)),
    ],
)
def test_register_run_of_linear_layouts(text, want):
    assert register_run(parse_linear_layout(text)) == want


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_softmax_exp2_form_emits_fma_ex2_and_max_nan(dtype):
    import tilec

    k = tilec.compile(ck.softmax(64, 1024, dtype, exp2=True, rows=4, warps=1, row_warps=4), arch="sm_90")
    src = k.source
    assert "tilec_ex2_approx_ftz(" in src and "expf(" not in src
    assert "fmaf(" in src
    assert 'asm("max.NaN.f32' in src
    compile_sm90_or_skip(src)


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_layer_norm_weights_are_16_byte_loads(dtype):
    import tilec

    src = tilec.compile(ck.layer_norm(64, 1024, dtype, fma=True), arch="sm_90").source
    vec = "f32x4" if dtype == "f32" else "i32x4"  # 2-byte vectors load as 32-bit words
    assert f"*reinterpret_cast<const {vec}*>(weight + " in src
    assert f"*reinterpret_cast<const {vec}*>(bias + " in src
    assert "weight[" not in src and "bias[" not in src
    compile_sm90_or_skip(src)


@pytest.mark.parametrize(
    "module",
    [
        ck.softmax(8, 256, "f32", exp2=True, rows=4, warps=1, row_warps=4),
        ck.softmax(4, 512, "f16", exp2=True, warps=2),
        ck.layer_norm(8, 256, "f16", fma=True, rows=8, warps=1, row_warps=4),
        ck.layer_norm(4, 512, "f32", fma=True, warps=1),
    ],
    ids=["softmax-f32-row-warps", "softmax-f16", "layer-norm-f16-row-warps", "layer-norm-f32"],
)
def test_benchmark_forms_equivalent_through_default(module):
    """The reference executor before and after `-p default`, bit for bit (the
    vectorized weight loads, max.NaN reductions and the exp2 / fma forms included)."""
    from helpers.equivalence import assert_pass_preserves

    assert_pass_preserves(module, "default")


@pytest.mark.parametrize("n", [1024, 4096, 16384])
def test_layer_norm_mean_scale_is_exactly_one_over_n(n):
    """The mean is the row sum times 1/N as an f32 constant: exactly 2^-log2(N) (the text
    generator this replaced wrote 1/N with 7 significant digits, 0.0002441406 at 4096,
    one f32 ulp above 2^-12)."""
    from xdsl.dialects import arith

    rn = next(op for op in ck.layer_norm(64, n, "f32").walk()
              if isinstance(op, arith.ConstantOp) and op.result.name_hint == "rn")
    assert np.float32(rn.value.value.data) == np.float32(1.0 / n)
