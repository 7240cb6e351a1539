"""The realign strategy's flat form over a broadcast into a compact destination
(`tile{realign_flat=1}`, the route `realign_flat=1`; passes/_realign_tile.realign_flat_launch,
`_copy_cost.flat_broadcast`, off by default: measured slower than the row form on the H200,
benchmarks/NOTES.md perm40), as `tilec.copy_` reaches it: the plan states the destination
compact and the rows' extent exactly; each aligned destination chunk from its row's window
and the next row's. On the CPU reference executor against NumPy, bit for bit, the elements
around dst untouched (poisoned): rows of 2- and 4-byte elements at every destination residue,
rows of exactly one chunk, broadcasts along inner and outer modes; compiled for sm_90 where
NVRTC is present."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.canonical_copies import key_strategy

from tilec.copy_cpu import _operand, copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy
from tilec.passes._copy_cost import REALIGN_FLAT_BROADCAST


def _aligned(n: int, dtype, fill=None, rng=None) -> np.ndarray:
    e = np.dtype(dtype).itemsize
    raw = np.empty(n * e + 64, np.uint8)
    start = (-raw.ctypes.data) % 16
    a = raw[start : start + n * e].view(dtype)
    a[...] = rng.integers(-1000, 1000, size=n) if rng is not None else fill
    return a


def test_the_flat_facts_are_stated_only_when_asked(routes):
    """Off by default (`REALIGN_FLAT_BROADCAST`): the realign key of a broadcast into a
    compact destination states its row form's facts; under `realign_flat=1` the
    destination compact and the last extent exactly, not for a destination with gaps."""
    assert not REALIGN_FLAT_BROADCAST
    src = np.broadcast_to(np.zeros((1, 5, 1, 1120), np.int16)[..., 3:], (7, 5, 9, 1117))
    flat = np.zeros(7 * 5 * 9 * 1117 + 8, np.int16)[3 : 3 + 7 * 5 * 9 * 1117].reshape(7, 5, 9, 1117)
    gaps = np.zeros((7, 5, 9, 1120), np.int16)[..., 3:]
    routes(realign="always", realign_run=0)  # the row form (not the run form's rule, g3847)
    plan = plan_copy(_operand(flat, None), _operand(src, None))
    assert key_strategy(plan.key) == "realign" and not plan.key.dst_flat
    routes(realign_flat=1)
    plan = plan_copy(_operand(flat, None), _operand(src, None))
    assert key_strategy(plan.key) == "realign" and plan.key.dst_flat
    assert plan.key.small_extents[-1] == 1117 and plan.key.exact_extents[-1]
    plan = plan_copy(_operand(gaps, None), _operand(src, None))
    assert key_strategy(plan.key) == "realign" and not plan.key.dst_flat


@pytest.mark.parametrize("compiled", [False, True])
def test_flat_broadcasts_match_numpy(routes, compiled, nvrtc_available):
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(realign="always", realign_flat=1)
    rng = np.random.default_rng(40)
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    cases = [("int16", (3, 4, 5, 37), (1, 4, 1, 37)), ("int16", (2, 3, 8), (2, 1, 8)),
             ("int32", (4, 6, 9), (1, 6, 9)), ("float16", (5, 3, 23), (1, 3, 23))]
    for dtype, shape, sshape in cases:
        for so in (0, 3, 5) if not compiled else (3,):
            for do in range(16 // np.dtype(dtype).itemsize) if not compiled else (0, 5 % (16 // np.dtype(dtype).itemsize)):
                n = int(np.prod(shape))
                base = _aligned(int(np.prod(sshape)) + 16, dtype, rng=rng)
                src = np.broadcast_to(base[so : so + int(np.prod(sshape))].reshape(sshape), shape)
                out = _aligned(n + 32, dtype, fill=77)
                dst = out[do : do + n].reshape(shape)
                assert key_strategy(plan_copy(_operand(dst, None), _operand(src, None)).key) == "realign"
                want = out.copy()
                want[do : do + n] = src.reshape(-1)
                copy_numpy(dst, src, kernels=kernels, compiled=compiled)
                assert np.array_equal(out, want), (dtype, shape, so, do)
