"""The FMA policy (support/target.py): tilec compiles with `--fmad=false`, so `a * b + c`
written as `arith.mulf` then `arith.addf` rounds twice on the GPU, exactly as the CPU
reference executor and NumPy do; `math.fma` rounds once. Checked bit for bit on inputs
where the two differ."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
from tilec.support.target import target

pytestmark = pytest.mark.gpu

_B = "#layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
def _program(fused: bool):
    """@f: dst = xs * ys + zs over a 32x32 f32 tile, as `math.fma` (`fused`) or as
    `arith.mulf` then `arith.addf`."""
    p = tilec.Program("f")
    a, b, c, d = (p.view(p.pointer(n, "f32", align=None), "(32,32):(32,1)").named(v)
                  for n, v in (("xs", "a"), ("ys", "b"), ("zs", "c"), ("dst", "d")))
    with p.launch(grid=(1, 1, 1), threads=128):
        x, y, z = (p.load(v, _B).named(n) for v, n in ((a, "x"), (b, "y"), (c, "z")))
        r = p.fma(x, y, z) if fused else (x * y).named("p") + z
        p.store(r.named("r"), d)
    return p.module


def _inputs():
    rng = np.random.default_rng(7)
    x = rng.uniform(1, 2, (32, 32)).astype(np.float32)
    y = rng.uniform(1, 2, (32, 32)).astype(np.float32)
    z = (-(x.astype(np.float64) * y)).astype(np.float32)  # a*b+c cancels: the rounding shows
    return x, y, z


def test_the_default_target_does_not_contract():
    assert target().nvrtc_options() == ("--fmad=false",)


@pytest.mark.parametrize("fused", [False, True])
def test_mulf_addf_rounds_twice_and_fma_once(fused):
    import cupy as cp

    x, y, z = _inputs()
    kernel = tilec.compile(_program(fused))
    dst = cp.full((32, 32), np.nan, dtype=np.float32)
    kernel(cp.asarray(x), cp.asarray(y), cp.asarray(z), dst)
    got = cp.asnumpy(dst)
    exact = x.astype(np.float64) * y + z
    want = exact.astype(np.float32) if fused else (x * y) + z
    assert not np.array_equal(exact.astype(np.float32), (x * y) + z)  # the inputs tell them apart
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
