"""`layout.mma` on the CPU reference executor, against NumPy in float64 / int64, and
the tolerance the equivalence checker applies to float MMA results (docs/testing.md)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tilec.dialects.layout_mma import EPS_F32, mma_error_bound
from tilec.runtime.reference.api import (
    check_equivalence,
    compare_outputs,
    mma_tolerance,
    run,
)
from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

from helpers.programs import mma_program  # noqa: E402


def _inputs(m, n, k, et, acc_et, seed=1):
    rng = np.random.default_rng(seed)
    if et == "i8":
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, n)).astype(np.int8)
        c = rng.integers(-(2**20), 2**20, (m, n)).astype(np.int32)
        return a, b, c, a.astype(np.int64), b.astype(np.int64), c.astype(np.int64)
    a32 = rng.standard_normal((m, k)).astype(np.float32)
    b32 = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    if et == "bf16":
        a, b = f32_to_bf16(a32), f32_to_bf16(b32)
        af, bf = bf16_to_f32(a), bf16_to_f32(b)
    elif et == "f16":
        a, b = a32.astype(np.float16), b32.astype(np.float16)
        af, bf = a.astype(np.float32), b.astype(np.float32)
    else:
        a, b, af, bf = a32, b32, a32, b32
    return a, b, c, af.astype(np.float64), bf.astype(np.float64), c.astype(np.float64)


@pytest.mark.parametrize(
    "et, k_width, m, n, k, warps",
    [
        ("bf16", 2, 32, 16, 32, (2, 2)),
        ("bf16", 8, 64, 32, 64, (2, 1)),
        ("f16", 2, 16, 8, 16, (1, 1)),
        ("f32", 1, 32, 32, 16, (2, 2)),
    ],
)
def test_float_mma_matches_float64_within_one_evaluation_bound(et, k_width, m, n, k, warps):
    module = mma_program(m, n, k, et, "f32", warps, k_width)
    a, b, c, a64, b64, c64 = _inputs(m, n, k, et, "f32")
    out = run(module, {"pa": a.reshape(-1), "pb": b.reshape(-1), "pc": c.reshape(-1)})
    got = out["pc"].reshape(m, n).astype(np.float64)
    exact = a64 @ b64 + c64
    gamma, _ = mma_error_bound(k, et)
    bound = gamma * (np.abs(c64) + np.abs(a64) @ np.abs(b64))
    assert np.all(np.abs(got - exact) <= bound)
    assert np.abs(got - exact).max() > 0 or k <= 16  # f32 sums do round


def test_i8_mma_is_exact_and_wraps_in_i32():
    m, n, k = 32, 16, 32
    module = mma_program(m, n, k, "i8", "i32", (2, 2), 4)
    a, b, c, a64, b64, c64 = _inputs(m, n, k, "i8", "i32")
    c[0, 0] = np.int32(2**31 - 1)  # + a positive dot product wraps
    a[0, :] = 127
    b[:, 0] = 127
    out = run(module, {"pa": a.reshape(-1), "pb": b.reshape(-1), "pc": c.reshape(-1)})
    want = (a.astype(np.int64) @ b.astype(np.int64) + c.astype(np.int64))
    want = ((want + 2**31) % 2**32 - 2**31).astype(np.int32)
    assert np.array_equal(out["pc"].reshape(m, n), want)
    assert out["pc"][0] < 0


def test_mma_error_bound():
    gamma, inp = mma_error_bound(16, "bf16")
    assert gamma == math.expm1(17 * math.log1p(EPS_F32)) and inp == 0.0
    assert gamma <= 17 * EPS_F32 / (1 - 17 * EPS_F32)  # Higham's first form, where it holds
    # fp8's accumulation (u = 2^-13) at K = 8192: n u > 1, where n u / (1 - n u) turns
    # negative; (1 + u)^n - 1 stays a bound (a loose one: about e - 1)
    g8, _ = mma_error_bound(8192, "e4m3")
    assert 1.7 < g8 < 1.72
    assert mma_error_bound(8, "f32")[1] == 2.0**-10
    assert mma_tolerance([]) is None


def test_equivalence_of_a_k_split_is_within_the_tolerance_not_bitwise():
    m, n, k = 32, 16, 64
    one = mma_program(m, n, k, "bf16", "f32", (2, 2), 2, k_split=1)
    four = mma_program(m, n, k, "bf16", "f32", (2, 2), 2, k_split=4)
    report = check_equivalence(one, four, seed=3)
    assert report.equal and report.tolerance is not None
    assert "within the layout.mma tolerance" in str(report)
    # the two summation orders do differ somewhere: bitwise they are not equal
    assert compare_outputs(report.before, report.after)


def test_equivalence_still_catches_a_wrong_mma():
    m, n, k = 32, 16, 64
    one = mma_program(m, n, k, "bf16", "f32", (2, 2), 2, k_split=2)
    # the second K tile of B read at the first tile's place: a different product
    wrong = mma_program(m, n, k, "bf16", "f32", (2, 2), 2, k_split=2)
    tb1 = next(op for op in wrong.walk() if op.results and op.results[0].name_hint == "tb1")
    tb1.operands[1] = tb1.operands[2]  # layout.tile %b[%i1, %i0] -> %b[%i0, %i0]
    assert str(wrong) != str(one)
    report = check_equivalence(one, wrong, seed=0)
    assert not report.equal
    assert report.first_difference.buffer == "pc"


def test_integer_mma_results_compare_bitwise():
    m, n, k = 32, 16, 64
    one = mma_program(m, n, k, "i8", "i32", (2, 2), 4, k_split=1)
    two = mma_program(m, n, k, "i8", "i32", (2, 2), 4, k_split=2)
    report = check_equivalence(one, two, seed=0)
    assert report.equal and report.tolerance is None


def test_tolerance_covers_a_bf16_output_rounding():
    before = {"c": f32_to_bf16(np.array([1.0, 2.0], np.float32))}
    after = {"c": f32_to_bf16(np.array([1.0078125, 2.0], np.float32))}  # one bf16 ulp at 1.0
    assert compare_outputs(before, after)  # bitwise: differs
    assert not compare_outputs(before, after, atol=0.0, bf16={"c"})
    far = {"c": f32_to_bf16(np.array([1.03125, 2.0], np.float32))}
    assert compare_outputs(before, far, atol=0.0, bf16={"c"})
