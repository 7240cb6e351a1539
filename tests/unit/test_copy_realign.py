"""The row-realigning kernel of `tilec.copy_` (api/copy_realign.py) without a GPU:
which copies take it, its key and arguments, and its program (the whole-program text
and the compiled kernel) on the CPU reference executor against NumPy, bit for bit,
the bytes around dst untouched (poisoned): every shift of src against dst, heads and
tails, rows shorter than 16 bytes, outer modes with carries and broadcasts, 64-bit
offsets; a property test over random row copies."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.operands import operand
from hypothesis import given, settings
from hypothesis import strategies as st

from tilec import copy_realign
from tilec.copy_cpu import copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy
from tilec.copy_routes import forced_routes
from tilec.copy_program import copy_program


@pytest.fixture
def always(routes):
    routes(realign="always")


def _aligned(n: int, dtype, fill=None, rng=None) -> np.ndarray:
    """`n` elements of `dtype` whose data starts 16-byte aligned (as GPU allocations)."""
    e = np.dtype(dtype).itemsize
    raw = np.empty(n * e + 64, np.uint8)
    start = (-raw.ctypes.data) % 16
    a = raw[start : start + n * e].view(dtype)
    if rng is not None:
        a[...] = rng.integers(-100, 100, size=n)
    else:
        a[...] = fill
    return a


def _rows(base, off, rows, n, pitch):
    e = base.itemsize
    return np.lib.stride_tricks.as_strided(base[off:], (rows, n), (pitch * e, e))


def _check(dst_base, dst, src, compiled, kernels):
    want = dst_base.copy()
    np.lib.stride_tricks.as_strided(
        want[(dst.ctypes.data - dst_base.ctypes.data) // dst.itemsize :], dst.shape, dst.strides
    )[...] = src
    copy_numpy(dst, src, compiled=compiled, kernels=kernels)
    assert np.array_equal(dst_base, want), (dst.shape, dst.strides, src.strides)


def test_key_and_arguments(always, monkeypatch):
    # rows of 100 bytes, src at byte 5 with a pitch of 203, dst at byte 3 flat
    plan = plan_copy(operand((11, 100), dtype="int8", ptr=4099), operand((11, 100), (203, 1), dtype="int8", ptr=8197))
    key = plan.key
    assert key.realign == 32 and key.src_align == key.dst_align == 16
    assert plan.src_ptr == 8192 and plan.dst_ptr == 4096
    assert plan.extra[:3] == (5, 3, 8) and plan.args[:7] == (11, 100, 203, 100, 5, 3, 8)
    assert "layout.funnel_shift" in copy_program(key)
    # shapes, pitches and misalignments of one pattern share the key
    other = plan_copy(operand((7, 3001), (3010, 1), dtype="int8", ptr=4106), operand((7, 3001), dtype="int8", ptr=8193))
    assert other.key == key
    # int64 rows of 5 at a pitch of 10 (46): misalignments in elements
    p46 = plan_copy(
        operand((999, 5), (10, 1), dtype="int64", ptr=4096 + 176), operand((999, 5), dtype="int64", ptr=8192)
    )
    assert p46.extra[:3] == (0, 0, 5) and p46.key.realign == 32 and p46.key.realign_chunk == 8
    assert f"tensor<{2 * copy_realign.THREADS}x1xi64" in copy_program(p46.key)  # 8-byte chunks, two a thread
    monkeypatch.setattr(copy_realign, "SHORT_ROW_BYTES", 0)
    p46 = plan_copy(
        operand((999, 5), (10, 1), dtype="int64", ptr=4096 + 176), operand((999, 5), dtype="int64", ptr=8192)
    )
    assert p46.extra[:3] == (0, 0, 3) and p46.key.realign_chunk == 16


def test_chunks_per_row():
    # 40-byte rows at a pitch of 80 from an aligned dst: 3 chunks
    assert copy_realign.chunks_per_row(5, 8, 0, [10]) == 3
    # rows of 7775 bytes at a pitch of 7776 (04): every row starts 1 byte in
    assert copy_realign.chunks_per_row(7775, 1, 1, [7776]) == 486
    # at a pitch of 7777: a row may start at any byte of a chunk
    assert copy_realign.chunks_per_row(7775, 1, 1, [7777]) == -(-(15 + 7775) // 16)
    assert copy_realign.chunks_per_row(3, 1, 15, [16]) == 2
    # 8-byte chunks: rows of 5 int64 at any 8-byte start span 5
    assert copy_realign.chunks_per_row(5, 8, 8, [10], 8) == 5 == copy_realign.chunks_per_row(5, 8, 0, [11], 8)
    assert (
        copy_realign.chunk_bytes(8, 8) == 8 and copy_realign.chunk_bytes(8, 9) == copy_realign.chunk_bytes(4, 5) == 16
    )


def test_not_eligible():
    # a conversion, a transposed row, a 1-mode copy, a negative src stride
    assert plan_copy(operand((9, 100), (101, 1), dtype="int16"), operand((9, 100), dtype="float16")).key.realign == 0
    assert (
        plan_copy(operand((9, 100), (101, 1), dtype="int8"), operand((9, 100), (1, 9), dtype="int8")).key.realign == 0
    )
    assert plan_copy(operand((100,), dtype="int8", ptr=1), operand((100,), dtype="int8", ptr=2)).key.realign == 0
    neg = plan_copy(operand((9, 100), (101, 1), dtype="int8"), operand((9, 100), (-100, 1), dtype="int8", ptr=900))
    assert neg.key.realign == 0


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("compiled", [False, True])
def test_every_shift_head_tail_and_short_row(always, dtype, compiled, nvrtc_available):
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(21)
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    v = 16 // np.dtype(dtype).itemsize
    base = _aligned(4096, dtype, rng=rng)
    out = _aligned(4096, dtype, fill=77)
    lengths = (1, 2, v - 1, v + 1, 2 * v + 3, 37) if not compiled else (2, v + 1, 37)
    for n in sorted({max(2, x) for x in lengths}):
        for so in range(v):
            for do in range(v) if not compiled else (0, v - 1):
                out[...] = 77
                src = _rows(base, so, 5, n, n + 1 + so % 3)
                dst = _rows(out, do, 5, n, n + 2 + do % 2)
                _check(out, dst, src, compiled, kernels)
    if compiled:
        assert all(k.realign == 32 for k in kernels._entries)


def test_magic_divides_every_31_bit_index():
    rng = np.random.default_rng(5)
    divisors = [1, 2, 3, 5, 7, 31, 32, 33, 486, 7775, 65537, 2**20 + 1, 2**30, 2**31 - 1]
    divisors += [int(d) for d in rng.integers(1, 2**31, 200)]
    xs = [0, 1, 2**31 - 1, 2**31 - 2, 2**30, 2**30 - 1] + [int(x) for x in rng.integers(0, 2**31, 300)]
    for d in divisors:
        m, s = copy_realign.magic(d)
        assert m <= 2**32 and (2**31 - 1) * m < 2**63
        for x in xs + [d - 1, d, d + 1, 2 * d - 1, (2**31 - 1) // d * d, (2**31 - 1) // d * d - 1]:
            if 0 <= x < 2**31:
                assert (x * m) >> s == x // d, (x, d)


def test_fast_division_in_the_program(always, monkeypatch):
    plan = plan_copy(
        operand((3, 5, 7, 31), (1323, 264, 33, 1), dtype="int8", ptr=4099), operand((3, 5, 7, 31), dtype="int8")
    )
    # the chunk count (3) and the outer extents 1 .. rank - 2 (5, 7): a pair each
    assert plan.extra[3:] == (*copy_realign.magic(3), *copy_realign.magic(5), *copy_realign.magic(7))
    text = copy_program(plan.key)
    assert text.count("arith.shrsi") == 3 and "%mgc" in text and "%sh2" in text
    monkeypatch.setattr(copy_realign, "FAST_DIV", False)
    assert "arith.shrsi" not in copy_program(plan.key)


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("compiled", [False, True])
def test_outer_modes_broadcasts_and_64_bit_offsets(always, monkeypatch, compiled, fast, nvrtc_available):
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    monkeypatch.setattr(copy_realign, "FAST_DIV", fast)
    rng = np.random.default_rng(4)
    for limit in (copy_realign.INDEX32_LIMIT, 100):
        monkeypatch.setattr(copy_realign, "INDEX32_LIMIT", limit)
        kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
        for dtype in ("int8", "int16"):
            e = np.dtype(dtype).itemsize
            base = _aligned(8192, dtype, rng=rng)
            out = _aligned(8192, dtype, fill=77)
            # (3, 5, 7, 31) contiguous -> rows of 31 at a pitch of 33, outer pitches padded (04, 16, 34)
            src = base[: 3 * 5 * 7 * 31].reshape(3, 5, 7, 31)
            st_ = (5 * 8 * 33 + 3, 8 * 33, 33, 1)
            dst = np.lib.stride_tricks.as_strided(out[3:], src.shape, tuple(s * e for s in st_))
            _check(out, dst, src, compiled, kernels)
            # a row broadcast along an outer mode, rows at odd offsets into padded rows
            row = np.lib.stride_tricks.as_strided(base[7:], (4, 3, 45), (0, 47 * e, e))
            dst = np.lib.stride_tricks.as_strided(out[1:], (4, 3, 45), (3 * 46 * e, 46 * e, e))
            out[...] = 77
            _check(out, dst, row, compiled, kernels)
        if compiled:
            assert {k.realign for k in kernels._entries} == {32 if limit > 100 else 64}


@settings(max_examples=40, deadline=None)
@given(
    e=st.sampled_from([1, 2, 4, 8]),
    rows=st.integers(1, 6),
    n=st.integers(2, 70),
    so=st.integers(0, 15),
    do=st.integers(0, 15),
    spad=st.integers(0, 20),
    dpad=st.integers(0, 20),
)
def test_random_row_copies_match_numpy(e, rows, n, so, do, spad, dpad):
    """Any rows, pads and element offsets: the whole program against NumPy, with the
    bytes around dst poisoned."""
    with forced_routes(realign="always"):
        dtype = f"int{8 * e}"
        rng = np.random.default_rng(n * 31 + so)
        base = _aligned(2048, dtype, rng=rng)
        out = _aligned(2048, dtype, fill=77)
        so, do = so % (16 // e), do % (16 // e)
        src = _rows(base, so, rows, n, n + spad)
        dst = _rows(out, do, rows, n, n + dpad)
        _check(out, dst, src, False, None)


def test_index_bits_counts_8_byte_elements_in_src_words():
    """The src side is read in 32-bit words: an 8-byte element's offset is twice its
    index, a 4-byte element's its index. A reach (element offset span plus a vector to
    spare: 16 bytes) of 2**30 - 1 elements of 8 bytes is 2**31 - 2 words, which still
    fits 32 bits; 2**30 does not. 4-byte elements fit up to a reach of 2**31 - 1."""
    dst = (9, 1)
    # reach = stride + 8 (the row) + 4 * (16 // itemsize) (a vector)
    assert copy_realign.index_bits((2, 9), (2**30 - 17, 1), dst, 1, 8) == 32
    assert copy_realign.index_bits((2, 9), (2**30 - 16, 1), dst, 1, 8) == 64
    assert copy_realign.index_bits((2, 9), (2**31 - 25, 1), dst, 1, 4) == 32
    assert copy_realign.index_bits((2, 9), (2**31 - 24, 1), dst, 1, 4) == 64
