"""The realign strategy over integer rows read at a step of 2 (1-byte rows longer than 64
elements by the rule, the rest with `realign=always`: passes/_copy_cost.realign_fits'
`steps`, `REALIGN_STEPS`), as `tilec.copy_` reaches it: each 16-byte destination chunk
from the 32-byte source window its elements span (three aligned vectors, two
`layout.funnel_shift`s by the window's shift, each half to pairs of twice the element size
and a truncation to their low halves). On the CPU reference executor against NumPy, bit for bit,
the bytes around dst untouched (poisoned): every source residue against several
destination ones, heads and tails, short rows, rows of odd pitches (every other row
starting at an odd byte), an outer mode, the strided set's 07 and 37 shapes scaled down;
compiled for sm_90 where NVRTC is present."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.canonical_copies import key_strategy
from helpers.operands import operand

from tilec.copy_cpu import _operand, copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy


def _aligned(n: int, fill=None, rng=None) -> np.ndarray:
    raw = np.empty(n + 64, np.uint8)
    start = (-raw.ctypes.data) % 16
    a = raw[start : start + n].view(np.int8)
    a[...] = rng.integers(-100, 100, size=n) if rng is not None else fill
    return a


def test_the_step_is_stated_and_long_rows_taken_by_the_rule(routes):
    """`realign=auto` takes 1-byte step-2 rows longer than `STEP2_SHORT_ROW` (64)
    elements (`REALIGN_STEPS`; the strided set's 37: 0.446 -> 0.562 of cudaMemcpy on the
    H200) and leaves shorter ones (07's 56: the gather, 0.424 against 0.330) and 2-byte
    ones to the other kernels; `realign=always` takes them all, the key stating the step."""
    long_dst, long_src = operand((9, 100), dtype="int8"), operand((9, 100), (203, 2), dtype="int8")
    plan = plan_copy(long_dst, long_src)
    assert key_strategy(plan.key) == "realign" and plan.key.src_strides[-1] == 2
    dst, src = operand((9, 56), dtype="int8"), operand((9, 56), (117, 2), dtype="int8")
    assert key_strategy(plan_copy(dst, src).key) != "realign"
    assert key_strategy(plan_copy(operand((9, 100), dtype="int16"),
                                  operand((9, 100), (203, 2), dtype="int16")).key) != "realign"
    routes(realign="always")
    plan = plan_copy(dst, src)
    assert key_strategy(plan.key) == "realign"
    assert plan.key.aligned_pointers and plan.key.src_strides[-1] == 2
    # 1-byte floats (their bytes are not taken as integers) and 4-byte elements at a
    # step of 2: not this strategy; 2-byte integers are
    assert key_strategy(plan_copy(operand((9, 100), dtype="float8_e4m3fn"),
                                  operand((9, 100), (203, 2), dtype="float8_e4m3fn")).key) != "realign"
    assert key_strategy(plan_copy(operand((9, 100), dtype="int32"), operand((9, 100), (203, 2), dtype="int32")).key) \
        != "realign"
    assert key_strategy(plan_copy(operand((9, 100), dtype="int16"), operand((9, 100), (203, 2), dtype="int16")).key) \
        == "realign"


@pytest.mark.parametrize("compiled", [False, True])
def test_step_two_rows_match_numpy(routes, compiled, nvrtc_available):
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(realign="always")
    rng = np.random.default_rng(38)
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    base = _aligned(8192, rng=rng)
    out = _aligned(4096, fill=77)
    cases = [(n, so, do, pitch) for n in ((2, 7, 9, 17, 56) if not compiled else (9, 56))
             for so in (range(16) if not compiled else (0, 5, 15)) for do in (0, 3, 7, 13)
             for pitch in ((2 * n + 5, 2 * n + 8) if not compiled else (2 * n + 5,))]
    for n, so, do, pitch in cases:
        out[...] = 77
        src = np.lib.stride_tricks.as_strided(base[so:], (5, n), (pitch, 2))
        dst = np.lib.stride_tricks.as_strided(out[do:], (5, n), (n + 3, 1))
        want = out.copy()
        np.lib.stride_tricks.as_strided(want[do:], (5, n), (n + 3, 1))[...] = src
        assert key_strategy(plan_copy(_operand(dst, None), _operand(src, None)).key) == "realign"
        copy_numpy(dst, src, compiled=compiled, kernels=kernels)
        assert np.array_equal(out, want), (n, so, do, pitch)


def test_the_strided_sets_step_two_slices_match_numpy(routes):
    """07 (rows of 56 at a pitch of 117 bytes, an outer mode) and 37 (long rows) scaled
    down."""
    routes(realign="always")
    rng = np.random.default_rng(7)
    flat = _aligned(4 * 13 * 117 + 64, rng=rng)
    src = flat[9 : 9 + 4 * 13 * 117].reshape(4, 13, 117)[:, :, 2:114:2]
    out = _aligned(4 * 13 * 56 + 32, fill=77)
    dst = out[5 : 5 + 4 * 13 * 56].reshape(4, 13, 56)
    want = out.copy()
    want[5 : 5 + 4 * 13 * 56].reshape(4, 13, 56)[...] = src
    copy_numpy(dst, src)
    assert np.array_equal(out, want)
    flat = _aligned(7 * 1203, rng=rng)
    src = flat[:7 * 1203].reshape(7, 1203)[:, 1::2]
    out = _aligned(7 * 601 + 32, fill=77)
    dst = out[3 : 3 + 7 * 601].reshape(7, 601)
    want = out.copy()
    want[3 : 3 + 7 * 601].reshape(7, 601)[...] = src
    copy_numpy(dst, src)
    assert np.array_equal(out, want)


@pytest.mark.parametrize("compiled", [False, True])
def test_step_two_rows_of_two_byte_integers_match_numpy(routes, compiled, nvrtc_available):
    """int16 rows read at a step of 2 (the strided set's 43 scaled down): each 16-byte
    destination chunk from the 32-byte window of three aligned vectors, 32-bit pairs
    truncated to their low halves; every source residue, heads and tails, odd pitches."""
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(realign="always")
    rng = np.random.default_rng(43)
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    base = _aligned(16384, rng=rng).view(np.int16)
    out = _aligned(8192, fill=0).view(np.int16)
    for n, so, do, pitch in [(n, so, do, pitch) for n in ((3, 8, 31) if not compiled else (31,))
                             for so in (range(8) if not compiled else (0, 3, 7)) for do in (0, 5)
                             for pitch in (2 * n + 1, 2 * n + 124)]:
        out[...] = 77
        src = np.lib.stride_tricks.as_strided(base[so:], (6, n), (2 * pitch, 4))
        dst = np.lib.stride_tricks.as_strided(out[do:], (6, n), (2 * (n + 3), 2))
        want = out.copy()
        np.lib.stride_tricks.as_strided(want[do:], (6, n), (2 * (n + 3), 2))[...] = src
        assert key_strategy(plan_copy(_operand(dst, None), _operand(src, None)).key) == "realign"
        copy_numpy(dst, src, compiled=compiled, kernels=kernels)
        assert np.array_equal(out, want), (n, so, do, pitch)
