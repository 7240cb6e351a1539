"""Every canonical copy (tests/helpers/canonical_copies.py), made small with its pattern
kept (odd extents stay odd, C = 3 stays 3, broadcasts and slices stay), through
`tilec.copy_`'s front end and the very kernel it compiles (the GPU-level code, on the
CPU reference executor: `copy_numpy(compiled=True)`), bit for bit against NumPy, the
dst poisoned first. The strategies the passes choose (tiled, gather) and the api/
kernels (realign, box) all run here."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from helpers.canonical_copies import CANONICAL, CanonicalCopy, copy_choice

from tilec.copy_cpu import copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy
from tilec.dialects.conversions import convert_values

HOLD = {"bfloat16": np.uint16, "bool": np.uint8}


def _small(n: int) -> int:
    """An extent above 16 shrunk (by 64, at least 16), its parity kept."""
    if n <= 16:
        return n
    m = max(16, n // 64)
    return m | 1 if n % 2 else m & ~1


def small_case(case: CanonicalCopy) -> CanonicalCopy:
    base = tuple(_small(n) for n in case.base)
    index = None
    if case.index is not None:
        index = tuple((a, m - (n - b), c) for n, m, (a, b, c) in zip(case.base, base, case.index))
    shape = None if case.shape is None else tuple(_small(n) for n in case.shape)
    return replace(case, base=base, index=index, shape=shape)


def _values(rng, dtype: str, shape) -> np.ndarray:
    if dtype == "bfloat16":
        return (rng.standard_normal(shape).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if dtype.startswith("float"):
        return (rng.standard_normal(shape) * 100).astype(dtype)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape, dtype=np.uint8)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype)


KERNELS = CopyKernels(arch="sm_90", disk=False)


@pytest.mark.parametrize("case", CANONICAL, ids=lambda c: c.name.replace(" ", "_"))
def test_canonical_copy_matches_numpy(case, nvrtc_available):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    case = small_case(case)
    rng = np.random.default_rng(len(case.name))
    base = _values(rng, case.src_dtype, case.base)
    index = tuple(slice(a, b, c) for a, b, c in case.index) if case.index else (slice(None),) * base.ndim
    src = base[index].transpose(case.perm or tuple(range(base.ndim)))
    if case.shape is not None:
        src = np.broadcast_to(src.reshape((1,) * (len(case.shape) - src.ndim) + src.shape), case.shape)
    sd, dd = case.src_dtype, case.dst_dtype
    dst = np.full(src.shape, 7, HOLD.get(dd, dd))
    copy_numpy(dst, src, src_dtype=sd, dst_dtype=dd, compiled=True, kernels=KERNELS)
    if sd == dd:
        want = np.ascontiguousarray(src)
    else:
        want = convert_values(np.ascontiguousarray(src), sd, dd).view(HOLD.get(dd, dd))
    assert np.array_equal(dst, want)


def test_small_cases_keep_the_strategies():
    """The small cases take the strategies of the full-size ones where those are the
    passes' or api/'s (the gather copies stay gathers, the slice stays realigned)."""
    for case in CANONICAL:
        if case.name in ("NCHW->NHWC float32 C=3", "row broadcast float32", "column broadcast float32",
                         "columns 1:-1 float32"):
            big, small = (copy_choice(plan_copy(*c.operands()))[0] for c in (case, small_case(case)))
            assert big == small, case.name
