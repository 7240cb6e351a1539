"""The gather strategy's fill form (`tile{gather_fill=N}`, route `gather_fill`;
passes/_fill_tile.py; off by default): a broadcast along the outermost mode into a compact
destination written as a periodic fill. As `tilec.copy_` reaches it, on the CPU reference
executor against NumPy, bit for bit, the elements around dst untouched (poisoned): periods
shorter and longer than a vector, element counts with and without a partial last vector,
a broadcast inner mode, several thread counts (one to many trips of the store loop);
compiled for sm_90 where NVRTC is present. The plan takes such a copy whole (no period
split, no box or realign key) only under the route."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.copy_cpu import _operand, copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_period import period_parts
from tilec.copy_plan import plan_copy
from tilec.passes.tile import TilePass


def _aligned(n: int, dtype, fill=0) -> np.ndarray:
    e = np.dtype(dtype).itemsize
    raw = np.empty(n * e + 64, np.uint8)
    start = (-raw.ctypes.data) % 16
    a = raw[start : start + n * e + 32].view(dtype)
    a[...] = fill
    return a


CASES = [
    ((1, 17, 1), (41, 17, 3), np.int16),  # 32's pattern: 2091 elements, a partial last vector
    ((1, 3), (3001, 3), np.uint8),  # 44's: rows of 3 bytes
    ((1, 4, 1, 5), (9, 4, 3, 5), np.float32),  # a broadcast inner mode
    ((1, 40), (9, 40), np.int16),  # whole vectors, no partial one
    ((1, 7), (51, 7), np.int64),
]


@pytest.mark.parametrize("sshape,dshape,dt", CASES)
@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("per_sm", [2048, 1])
def test_fill_form_matches_numpy(routes, nvrtc_available, sshape, dshape, dt, compiled, per_sm):
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC not available")
    rng = np.random.default_rng(3)
    src = np.broadcast_to(rng.integers(-100, 100, size=sshape).astype(dt), dshape)
    n = int(np.prod(dshape))
    buf = _aligned(n, dt, fill=77)
    dst = buf[:n].reshape(dshape)
    routes(gather_fill=per_sm)
    copy_numpy(dst, src, compiled=compiled, kernels=CopyKernels(arch="sm_90", disk=False) if compiled else None)
    assert np.array_equal(dst, src)
    assert (buf[n:] == 77).all()


def test_fill_form_taken_whole_only_when_asked(routes):
    """32's pattern at a size the period split takes: split by default, one gather copy of
    the whole dst under `gather_fill` (the strategy pass and the tile pass see the same
    facts); `gather=never` keeps the split."""
    assert TilePass().gather_fill == 0
    src = np.broadcast_to(np.zeros((1, 17575, 1), np.int16), (263, 17575, 3))
    dst = np.zeros((263, 17575, 3), np.int16)
    plan = plan_copy(_operand(dst, None), _operand(src, None))
    assert period_parts(plan) is not None
    routes(gather_fill=2048)
    plan = plan_copy(_operand(dst, None), _operand(src, None))
    assert period_parts(plan) is None and not plan.key.aligned_pointers and plan.key.dst_flat
    routes(gather="never")
    assert period_parts(plan_copy(_operand(dst, None), _operand(src, None))) is not None


def test_fill_form_kernel_stores_vectors_in_a_loop(routes, nvrtc_available):
    """The lowered kernel: the store loop's stores whole 16-byte vectors (the mask one test a
    vector), the partial last vector element-wise after it."""
    if not nvrtc_available:
        pytest.skip("NVRTC not available")
    src = np.broadcast_to(np.zeros((1, 17, 1), np.int16), (41, 17, 3))
    dst = np.zeros((41, 17, 3), np.int16)
    routes(gather_fill=2048)
    plan = plan_copy(_operand(dst, None), _operand(src, None))
    ptx = CopyKernels(arch="sm_90", disk=False).get(plan.key).kernel.compile("sm_90").ptx
    assert "st.global.v4.u32" in ptx and "st.global.u16" in ptx


def test_fill_rule_takes_copies_whose_vectors_repeat(monkeypatch):
    """The rule (`_fill_tile.fill_rule`, off while `FILL_RULE` is 0): on, it takes the
    strided set's 32 (each distinct vector stored 329 times) and 44, not a broadcast whose
    distinct vectors are stored fewer than `FILL_MIN_REPEATS` times; the plan's key states
    the form (`gather_fill`) and the period split steps aside."""
    from tilec.passes import _fill_tile

    assert _fill_tile.fill_rule((2633, 17575, 3), 2) == 0
    monkeypatch.setattr(_fill_tile, "FILL_RULE", 2048)
    assert _fill_tile.fill_rule((2633, 17575, 3), 2) == 2048
    assert _fill_tile.fill_rule((267312393, 3), 1) == 2048
    assert _fill_tile.fill_rule((7, 17575, 3), 2) == 0  # 0.9 stores a vector
    src = np.broadcast_to(np.zeros((1, 17575, 1), np.int16), (263, 17575, 3))
    dst = np.zeros((263, 17575, 3), np.int16)
    plan = plan_copy(_operand(dst, None), _operand(src, None))
    assert plan.key.gather_fill == 2048 and period_parts(plan) is None
