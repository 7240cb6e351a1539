"""Broadcasts of a short period into a flat dst, split in parts (api/copy_period.py):
which copies are split and how (pure), and the parts run on the CPU reference executor
(the whole-tensor programs and the compiled kernels) against NumPy, bit for bit, with
the elements around the dst untouched."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.operands import operand

from helpers.canonical_copies import copy_choice

from tilec import copy_period
from tilec.copy_cpu import copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_period import period_parts, period_row
from tilec.copy_plan import plan_copy


def op(shape, strides=None, dtype="uint8", ptr=4096):
    return operand(shape, strides, dtype, ptr)


def test_short_periods_become_aligned_rows():
    # 44 of the strided set: rows of 3 bytes repeated from one row
    plan = plan_copy(op((267312393, 3)), op((1, 3), ptr=64))
    assert period_row(plan) == 48  # 16 periods: three 16-byte vectors
    first, rows, tail = period_parts(plan)
    assert first.dst.shape == (16, 3) and first.src.strides == (0, 1) and not first.src_in_dst
    assert rows.dst.shape == (16707023, 48) and rows.dst.ptr == 4096 + 48
    assert rows.src.ptr == 4096 and rows.src.strides == (0, 1) and rows.src_in_dst
    assert tail.dst.shape == (27,) and tail.dst.ptr == 4096 + 16707024 * 48 and tail.src.ptr == 4096
    # the rows: a compact dst of aligned 48-byte rows from one aligned row
    key = plan_copy(rows.dst, rows.src).key
    assert key.dst_flat and key.src_strides == (0, 1) and key.src_align == 16 and key.last_divisor == 16
    # the gather strategy's, each run one 16-byte vector loaded and stored
    assert copy_choice(plan_copy(rows.dst, rows.src))[0] == "gather"
    # 14 and 20: rows of 19 and 259 bytes, 16 of them a row
    assert period_row(plan_copy(op((30342512, 19)), op((1, 19)))) == 304
    # rows of 259 bytes broadcast from one row: padded rows (259 of their 512-element
    # ceiling, `_copy_cost.padded_last`), gathered, their length stated exactly (strided35)
    plan = plan_copy(op((950863, 259)), op((1, 259)))
    assert copy_choice(plan)[0] == "gather" and not plan.key.aligned_pointers and plan.key.exact_extents[-1]
    # 32: each bf16 element of a row of 17575 repeated 3 times (a period of 52725)
    plan = plan_copy(op((2633, 17575, 3), dtype="bfloat16"), op((1, 17575, 1), dtype="bfloat16", ptr=64))
    assert period_row(plan) == 8 * 52725 and len(period_parts(plan)) == 3
    rows = period_parts(plan)[1]
    assert copy_choice(plan_copy(rows.dst, rows.src))[0] == "gather"  # a 2-byte broadcast


def test_what_is_not_split():
    # rows of 41440 int16: runs of whole vectors already
    assert period_row(plan_copy(op((4456, 41440), dtype="int16"), op((1, 41440), dtype="int16"))) == 0
    # not broadcast along the outermost mode
    assert period_row(plan_copy(op((2532, 6), dtype="int32"), op((2532, 1), dtype="int32"))) == 0
    assert period_row(plan_copy(op((267312393, 3), ptr=4097), op((1, 3)))) == 0  # a dst not 16-byte aligned
    assert period_row(plan_copy(op((1000, 3)), op((1, 3)))) == 0  # small
    assert period_row(plan_copy(op((3000000, 3), (4, 1)), op((1, 3)))) == 0  # a padded dst
    assert period_row(plan_copy(op((10, 400000, 3)), op((1, 400000, 1)))) == 0  # a row of 19 MB
    assert period_parts(plan_copy(op((1000, 3)), op((1, 3)))) is None


@pytest.fixture
def small_split(monkeypatch):
    """Split small copies too (dsts of 1 KiB, 2 rows)."""
    monkeypatch.setattr(copy_period, "MIN_BYTES", 1024)
    monkeypatch.setattr(copy_period, "MIN_ROWS", 2)


@pytest.mark.parametrize("compiled", [False, True])
def test_split_copies_match_numpy(small_split, compiled, nvrtc_available):
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(44)
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    cases = [
        ("uint8", "uint8", (1, 3), (1001, 3)),  # 1-byte rows of 3: a tail
        ("int8", "int8", (1, 5), (256, 5)),  # rows of 5, no tail (16 rows of 80)
        ("int16", "int16", (1, 37, 1), (50, 37, 3)),  # each element of a row 3 times
        ("int16", "int32", (1, 3), (700, 3)),  # a converting first part
        ("int32", "int32", (1, 5, 1, 3), (40, 5, 2, 3)),  # a period of several modes
    ]
    for sd, dd, sshape, dshape in cases:
        src = rng.integers(-100, 100, size=sshape).astype(sd)
        size = int(np.prod(dshape))
        # a 16-byte aligned window of a larger poisoned buffer
        buf = np.full(size + 64, 77, dtype=dd)
        off = (-buf.__array_interface__["data"][0] % 16) // buf.itemsize
        window = slice(off, off + size)
        want = buf.copy()
        want[window] = np.broadcast_to(src, dshape).astype(dd).reshape(-1)
        dst = buf[window].reshape(dshape)
        plan = plan_copy(op(dshape, dtype=dd, ptr=dst.__array_interface__["data"][0]), op(sshape, dtype=sd))
        parts = period_parts(plan)
        assert parts and plan_copy(parts[1].dst, parts[1].src).key.dst_flat, (sd, dd, dshape)
        copy_numpy(dst, src, compiled=compiled, kernels=kernels)
        assert np.array_equal(buf, want), (sd, dd, dshape)
