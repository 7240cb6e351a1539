"""On a GPU: the Gluon tutorial's memcpy kernels written with pointer tensors
(tests/unit/test_pointer_tensors.py builds them) copy exactly, outputs poisoned first:
the tutorial's test_memcpy_1d and test_memcpy_2d parameters (transposed inputs too),
layouts with 1 and 4 elements per thread (16-byte vectors, masked by lanes at the
edge), and a masked load's `other`."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


def _unit():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "unit" / "test_pointer_tensors.py"
    spec = importlib.util.spec_from_file_location("test_pointer_tensors_unit", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


U = _unit()


# (XBLOCK, R): the tutorial's test blocks with R = 1, and R = 4 where XBLOCK holds the
# layout's 128 * R elements
@pytest.mark.parametrize("xnumel", [200, 1000, 1001, 1 << 20])
@pytest.mark.parametrize("xblock, r", [(128, 1), (256, 1), (2048, 1), (512, 4), (2048, 4)])
def test_memcpy_1d(xblock, r, xnumel):
    import cupy as cp

    import tilec

    x = np.random.default_rng(0).standard_normal(xnumel).astype(np.float32)
    src, dst = cp.asarray(x), cp.asarray(U.poison(xnumel))
    k = tilec.compile(U.memcpy_1d(xblock, r))
    if r == 4:
        assert "reinterpret_cast<const f32x4*>(in_ptr" in k.source
    k(src, dst, xnumel)
    np.testing.assert_array_equal(cp.asnumpy(dst), x)


def test_masked_load_other():
    import cupy as cp

    import tilec

    n = 1000
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    src, dst = cp.asarray(x), cp.asarray(U.poison(1024))
    tilec.compile(U.memcpy_1d(512, 4, other="-2.5"))(src, dst, n)
    np.testing.assert_array_equal(cp.asnumpy(dst), np.concatenate([x, np.full(24, -2.5, np.float32)]))


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("shape", [(100, 2000), (1000, 200)])
@pytest.mark.parametrize("blocks", [(128, 256), (256, 128)])
def test_memcpy_2d(blocks, shape, transposed):
    """The tutorial's test_memcpy_2d: BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0])."""
    import cupy as cp

    import tilec

    xn, yn = shape
    lay = U.blocked([1, 1], [1, 32], [1, 4], [1, 0])
    x = np.random.default_rng(2).standard_normal(xn * yn).astype(np.float32)
    src, dst = cp.asarray(x), cp.asarray(U.poison(xn * yn))
    a = U.memcpy_2d_args(xn, yn, transposed)
    k = tilec.compile(U.memcpy_2d(*blocks, lay))
    k(src, dst, a["xnumel"], a["ynumel"], a["xstride_in"], a["ystride_in"], a["xstride_out"], a["ystride_out"])
    np.testing.assert_array_equal(cp.asnumpy(dst), x)
