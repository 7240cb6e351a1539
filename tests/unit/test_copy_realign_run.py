"""The realign strategy's run form (`tile{realign_run=K}`, routes `realign_run`, `realign_lanes`,
`realign_elems`; passes/_realign_tile.realign_run_launch; off by default): K chunks of one row a
thread, the row's coordinates, offsets and shift computed once. As `tilec.copy_` reaches it, on
the CPU reference executor against NumPy, bit for bit, the elements around dst untouched
(poisoned): broadcasts into compact destinations (the strided set's 38 made small, the plan
stating the destination compact) and rows into a padded destination, at several residues;
compiled for sm_90 where NVRTC is present."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.canonical_copies import key_strategy

from tilec.copy_cpu import _operand, copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy
from tilec.passes.tile import TilePass


def _aligned(n: int, dtype, fill=None, rng=None) -> np.ndarray:
    e = np.dtype(dtype).itemsize
    raw = np.empty(n * e + 64, np.uint8)
    start = (-raw.ctypes.data) % 16
    a = raw[start : start + n * e].view(dtype)
    a[...] = rng.integers(-100, 100, size=n) if rng is not None else fill
    return a


def test_the_compact_destination_stated_when_asked(routes):
    """Under `realign_run` copy_'s realign key states a compact destination (the run form then
    asks L2 for no sector), not one with gaps; the rows here (1117 int16) fill a group, so the
    rule (`run_broadcast`) states it too."""
    assert TilePass().realign_run is None  # `_copy_cost.run_broadcast` by default
    src = np.broadcast_to(np.zeros((1, 5, 1, 1120), np.int16)[..., 3:], (7, 5, 9, 1117))
    flat = np.zeros(7 * 5 * 9 * 1117 + 8, np.int16)[3 : 3 + 7 * 5 * 9 * 1117].reshape(7, 5, 9, 1117)
    gaps = np.zeros((7, 5, 9, 1120), np.int16)[..., 3:]
    routes(realign="always", realign_run=0)
    assert not plan_copy(_operand(flat, None), _operand(src, None)).key.dst_flat
    routes(realign_run=4)
    plan = plan_copy(_operand(flat, None), _operand(src, None))
    assert key_strategy(plan.key) == "realign" and plan.key.dst_flat and not plan.key.exact_extents[-1]
    assert not plan_copy(_operand(gaps, None), _operand(src, None)).key.dst_flat


@pytest.mark.parametrize("run, lanes, elems, bits", [(4, 1, 0, 1), (8, 1, 0, 1), (2, 4, 0, 1), (4, 1, 1, 1),
                                                     (2, 2, 1, 1), (4, 1, 0, 0)])
@pytest.mark.parametrize("compiled", [False, True])
def test_run_form_matches_numpy(routes, compiled, nvrtc_available, run, lanes, elems, bits):
    """`compiled` runs the lowered code: the funnel shifts' words picked on the shift's bits
    (`bits` 1, passes/lower_to_gpu/funnel._pick_bits) or by chains, at every residue."""
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(realign="always", realign_run=run, realign_lanes=lanes, realign_elems=elems, realign_bits=bits)
    rng = np.random.default_rng(47)
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    cases = [("int16", (3, 4, 5, 37), (1, 4, 1, 37)), ("int32", (4, 6, 9), (1, 6, 9)),
             ("int8", (2, 3, 45), (2, 1, 45))]
    for dtype, shape, sshape in cases:
        v = 16 // np.dtype(dtype).itemsize
        for so in (0, 3) if not compiled else (3,):
            for do in (0, 1, v - 3) if not compiled else (5 % v, 1):
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
    # rows into a padded destination (gaps: the sector asks kept)
    base = _aligned(6 * 60 + 16, "int16", rng=rng)
    src = base[3 : 3 + 6 * 60].reshape(6, 60)[:, :53]
    out = _aligned(6 * 61 + 32, "int16", fill=77)
    dst = out[5 : 5 + 6 * 61].reshape(6, 61)[:, :53]
    want = out.copy()
    want[5 : 5 + 6 * 61].reshape(6, 61)[:, :53] = src
    copy_numpy(dst, src, kernels=kernels, compiled=compiled)
    assert np.array_equal(out, want)


def test_the_broadcast_rule_takes_the_run_form(monkeypatch):
    """`_copy_cost.run_broadcast` (`REALIGN_RUN_BROADCAST` K = 2 over `REALIGN_RUN_LANES` 16, the
    H200's measure on the strided set's 38) takes a misaligned broadcast into a compact destination
    whose rows fill a group (K L chunks: 512 bytes) from the gather to the run form, the
    destination stated compact, exact on the executor; shorter rows, a destination with gaps (the
    row form's facts), a 1-byte broadcast (its own rules) and rule 0 keep theirs."""
    from tilec.passes import _copy_cost

    assert (_copy_cost.REALIGN_RUN_BROADCAST, _copy_cost.REALIGN_RUN_LANES) == (2, 16)
    rng = np.random.default_rng(3)

    def bcast(n, dtype="int16", do=5):
        base = _aligned(5 * n + 16, dtype, rng=rng)
        src = np.broadcast_to(base[3 : 3 + 5 * n].reshape(1, 5, 1, n), (2, 5, 3, n))
        out = _aligned(2 * 5 * 3 * n + 32, dtype, fill=77)
        return src, out, out[do : do + src.size].reshape(src.shape)

    src, out, dst = bcast(300)
    plan = plan_copy(_operand(dst, None), _operand(src, None))
    assert key_strategy(plan.key) == "realign" and plan.key.dst_flat
    want = out.copy()
    want[5 : 5 + dst.size] = src.reshape(-1)
    copy_numpy(dst, src)
    assert np.array_equal(out, want)
    short_src, _, short_dst = bcast(37)
    assert key_strategy(plan_copy(_operand(short_dst, None), _operand(short_src, None)).key) == "gather"
    gaps = _aligned(2 * 5 * 3 * 304, "int16", fill=77).reshape(2, 5, 3, 304)[..., 1:301]
    assert not plan_copy(_operand(gaps, None), _operand(src, None)).key.dst_flat  # the row form's facts
    bsrc, _, bdst = bcast(600, "int8", 3)
    assert not plan_copy(_operand(bdst, None), _operand(bsrc, None)).key.dst_flat  # not the run form
    monkeypatch.setattr(_copy_cost, "REALIGN_RUN_BROADCAST", 0)
    assert key_strategy(plan_copy(_operand(dst, None), _operand(src, None)).key) == "gather"
