"""`--run gpu --check` of a program with math functions: float buffers within the ulp
budget of its functions (dialects/math_functions.ulp_budget), element by element or,
for elements where a later addition cancels, normwise; bit for bit otherwise."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.support.diagnostics import TilecError
from tilec.compiler.pipeline import parse_module
from tilec.dialects.math_functions import ulp_budget, ulp_distance
from tilec.runtime.cli import _within_ulps


def test_budget_of_the_examples():
    from pathlib import Path

    root = Path(__file__).parents[2] / "examples"
    assert ulp_budget(parse_module((root / "softmax.mlir").read_text())) == 5  # expf: 2
    assert ulp_budget(parse_module((root / "layernorm.mlir").read_text())) == 5  # rsqrtf: 2
    assert ulp_budget(parse_module((root / "cumsum.mlir").read_text())) == 0  # bit for bit


def test_fastmath_cannot_be_checked():
    from pathlib import Path

    from xdsl.dialects.arith import FastMathFlag, FastMathFlagsAttr

    m = parse_module(Path(__file__).parents[2].joinpath("examples", "softmax.mlir").read_text())
    assert ulp_budget(m) == 5
    (exp,) = [o for o in m.walk() if o.name == "math.exp"]
    exp.properties["fastmath"] = FastMathFlagsAttr([FastMathFlag("afn")])  # the example's exp made approximate
    assert ulp_budget(m) is None


def test_ulp_distance():
    a = np.array([1.0, -0.0, np.nan, 1.0], np.float32)
    b = np.array([np.nextafter(np.float32(1), np.float32(2)), 0.0, np.nan, np.nan], np.float32)
    assert list(ulp_distance(a, b)[:3]) == [1, 0, 0]
    assert ulp_distance(a, b)[3] > 1 << 40


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_ulp_distance_of_every_float_width(dtype):
    """Neighbours are 1 ulp apart at every width (the bits read as integers of the
    element's own size), across zero too: -0 and the smallest positive are 1 apart."""
    one, two = dtype(1), dtype(2)
    tiny = np.nextafter(dtype(0), one)
    a = np.array([one, -two, dtype(-0.0)], dtype)
    b = np.array([np.nextafter(np.nextafter(one, two), two), np.nextafter(-two, one), tiny], dtype)
    assert list(ulp_distance(a, b)) == [2, 1, 1]


def test_elementwise_and_normwise():
    e = np.array([4.0, 2.5e-4, 1.0], np.float32)
    g = e.copy()
    g[0] = np.nextafter(np.nextafter(e[0], np.float32(9)), np.float32(9))  # 2 ulp
    g[1] = e[1] + np.float32(4e-8)  # many ulps of 2.5e-4, < 5 ulps of 4.0
    out = _within_ulps("f", {"dst": e}, {"dst": g}, 5)
    assert "within 2 ulp" in out[0] and "1 near-cancelling" in out[0]
    g[2] = 1.001
    with pytest.raises(TilecError, match="by more than 5 ulp"):
        _within_ulps("f", {"dst": e}, {"dst": g}, 5)
