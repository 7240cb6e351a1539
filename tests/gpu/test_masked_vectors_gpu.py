"""On a GPU: the masked softmax-style row load of tests/unit/test_masked_vectors.py
(`row_load`: a row of N elements under a 1024-wide masked tile, `other` = -inf / NaN /
0, 16-byte vectors with one predicate each where N allows) gives the row and then
`other`, exactly, for N in {1000, 1001, 768}, f16 and f32, many rows; outputs
poisoned first."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


def _unit():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "unit" / "test_masked_vectors.py"
    spec = importlib.util.spec_from_file_location("test_masked_vectors_unit", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


U = _unit()


@pytest.mark.parametrize("other", ["-inf", "nan", "0"])
@pytest.mark.parametrize("n", [1000, 1001, 768])
@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_masked_row_load_is_exact(dtype, n, other):
    import cupy as cp

    import tilec

    rows = 4099  # several waves of blocks, and an odd count
    x = np.random.default_rng(n).standard_normal((rows, n)).astype(U.ELEMENT[dtype])
    k = tilec.compile(U.row_load(dtype, n, other))
    if n != 1001:  # 16-byte rows: whole 16-byte vectors, one predicate each
        # (vectors of 2-byte elements load as 32-bit words: `i32x4`, bitcast)
        vec = "f32x4" if dtype == "f32" else "i32x4"
        assert f"reinterpret_cast<const {vec}*>(src" in k.source and "src[" not in k.source
    src = cp.asarray(x.ravel())
    dst = cp.full(rows * 1024, 7, dtype=U.ELEMENT[dtype])
    k(src, dst, rows)
    np.testing.assert_array_equal(cp.asnumpy(dst).reshape(rows, 1024), U.expected(x, n, other))
