"""On a GPU: `layout.scan_region` (tests/unit/test_scan_region.py builds the programs)
gives exactly what NumPy gives, outputs poisoned first: a linear recurrence in wrapping
i32 (a non-commutative combiner: the order of combination shows) and a running argmax,
forward and reverse, on layouts that scan in registers, lanes, warps and chunks."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


def _unit():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "unit" / "test_scan_region.py"
    spec = importlib.util.spec_from_file_location("test_scan_region_unit", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


U = _unit()


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("layout", list(U.LAYOUTS))
@pytest.mark.parametrize("which", ["affine", "argmax"])
def test_scan_region_on_gpu(which, layout, reverse):
    import cupy as cp

    import tilec

    ins = U.inputs(which, 3)
    want = U.expected(which, ins["a"], ins["b"], reverse)
    dev = {k: cp.asarray(v) for k, v in ins.items()}
    tilec.compile(U.program(which, layout, reverse))(dev["a"], dev["b"], dev["c"], dev["d"])
    np.testing.assert_array_equal(cp.asnumpy(dev["c"]), want[0])
    np.testing.assert_array_equal(cp.asnumpy(dev["d"]), want[1])
