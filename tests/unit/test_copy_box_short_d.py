"""`box<tiles>` over a short destination-contiguous mode `D` (`tiles_short_d`,
passes/_copy_cost.TILES_SHORT_D_BYTES, off by default): where `D` is known short and `W`
long, a tile takes the destination's rows whole (`tiles_shape`'s `n_d`). On the CPU
reference executor against NumPy, bit for bit, with every byte around dst poisoned:
the strided set's kinds 18 (f64 rows of 61), 47 (uint8 -> f64 rows of 17), 41 (f32 ->
int64, a grid mode) and 06 (int32 rows of 42), scaled, pointers at several remainders
mod 16; compiled for sm_90 where NVRTC is present."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.canonical_copies import key_strategy

from tilec.copy_cpu import _operand, copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy
from tilec.passes._copy_cost import CopyFacts, Mode, box_flavour

CASES = [
    # (source base shape, permutation, source dtype, destination dtype, source offset, destination offset)
    ((61, 301), (1, 0), "float64", "float64", 0, 0),  # 18's kind
    ((61, 301), (1, 0), "float64", "float64", 1, 3),
    ((17, 301), (1, 0), "uint8", "float64", 5, 1),  # 47's kind, converting
    ((17, 5, 203), (2, 1, 0), "float32", "int64", 0, 1),  # 41's kind
    ((3, 42, 201), (2, 0, 1), "int32", "int32", 2, 3),  # 06's kind
]


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("base, perm, sd, dd, so, do", CASES)
def test_short_d_tiles_box_copies_match_numpy(routes, base, perm, sd, dd, so, do, compiled, nvrtc_available):
    """Every destination element written once, exactly, nothing around it."""
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(tiles_short_d=4)
    rng = np.random.default_rng(sum(base) + so)
    n = int(np.prod(base))
    flat = rng.integers(0, 100, size=so + n + 9).astype(sd)
    src = flat[so : so + n].reshape(base).transpose(perm)
    dbase = np.full(do + n + 9, 77, dd)

    def view(b):
        return b[do : do + n].reshape(src.shape)

    assert key_strategy(plan_copy(_operand(view(dbase), None), _operand(src, None)).key) == "box<tiles>"
    want = dbase.copy()
    view(want)[...] = src
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    copy_numpy(view(dbase), src, kernels=kernels, compiled=compiled)
    assert np.array_equal(dbase, want), (src.shape, sd, dd)


def _facts(ns, ss, ds, e, ed):
    modes = tuple(Mode(n, n if n <= 64 else None, n <= 64, s, d, divisor=1) for n, s, d in zip(ns, ss, ds))
    return CopyFacts(modes, e, ed, 16, 16, True, None, None, 0, 0, converts=e != ed)


def test_the_short_d_rule():
    """`box_flavour` takes a short `D` with a long `W` as `tiles` only where the wider
    element is at least `short_d` bytes (off by default, 0: the gather or the tiled
    kernel); never a 1-byte copy without conversion (the `cols` flavour's)."""
    f18 = _facts((231043, 61), (1, 231043), (61, 1), 8, 8)
    assert box_flavour(f18) is None
    assert box_flavour(f18, short_d=8) == "tiles" and box_flavour(f18, short_d=4) == "tiles"
    f06 = _facts((793, 871, 42), (1, 793, 690703), (36582, 42, 1), 4, 4)
    assert box_flavour(f06, short_d=4) == "tiles" and box_flavour(f06, short_d=8) is None
    assert box_flavour(_facts((301, 61), (1, 301), (61, 1), 1, 1), short_d=1) == "cols"
    f47 = _facts((1115178, 17), (1, 1115178), (17, 1), 1, 8)
    assert box_flavour(f47) is None and box_flavour(f47, short_d=8) == "tiles"
    # rows of 3 f32 (NCHW -> NHWC, C = 3): shorter than 64 bytes, the gather's
    assert box_flavour(_facts((50176, 3), (1, 50176), (3, 1), 4, 4), short_d=4) is None
    # W short too: not this rule's
    assert box_flavour(_facts((40, 61), (1, 40), (61, 1), 8, 8), short_d=8) is None


@pytest.mark.parametrize("compiled", [False, True])
def test_short_d_box_with_longer_runs_matches_numpy(routes, compiled, nvrtc_available):
    """The route `tiles_run` (the `tile` pass's option through `tilec.copy_`): runs of 1024
    bytes in a 64 KiB box, W over several tiles (41's and 06's kinds)."""
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(tiles_short_d=4, tiles_run=1024, box_smem=65536)
    rng = np.random.default_rng(3)
    kinds = (((17, 3, 603), (2, 1, 0), "float32", "int64"), ((3, 42, 601), (2, 0, 1), "int32", "int32"))
    for base, perm, sd, dd in kinds:
        src = rng.integers(0, 100, size=base).astype(sd).transpose(perm)
        dst = np.full(src.shape, 77, dd)
        assert key_strategy(plan_copy(_operand(dst, None), _operand(src, None)).key) == "box<tiles>"
        kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
        copy_numpy(dst, src, kernels=kernels, compiled=compiled)
        assert np.array_equal(dst, src.astype(dd)), (base, sd, dd)
