"""On a GPU: the @tilec.jit loop over chunks of tests/unit/test_computed_masks.py (masks
`off + arange < n`, 16-byte vectors with one predicate each where n is a multiple of 16,
lanes masked one by one where not) copies exactly, for 1-, 2- and 4-byte elements, the
layout written or left to `coalesce`, the output poisoned first."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

_spec = importlib.util.spec_from_file_location(
    "test_computed_masks_unit", Path(__file__).parents[1] / "unit" / "test_computed_masks.py")
U = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(U)  # type: ignore[union-attr]


@pytest.mark.parametrize("vec", [0, 1])
@pytest.mark.parametrize("n", [4096, 4080, 1000, 1001, 77777])
@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32])
def test_loop_over_chunks_copies_exactly(dtype, n, vec):
    import cupy as cp

    x = (np.arange(n) % 97).astype(dtype)
    src, dst = cp.asarray(x), cp.full(n + 64, 55, dtype)  # 64 past n: must stay as they were
    U.chunks[(1,)](src, dst, n, BLOCK=2048, VEC=vec and 16 // x.itemsize)
    out = cp.asnumpy(dst)
    assert (out[:n] == x).all() and (out[n:] == 55).all()
