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
_T = f"tensor<32x32xf32, {_B}>"
_G = "!layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>"


def _program(body: str) -> str:
    return f"""
func.func @f(%xs: !layout.ptr<f32>, %ys: !layout.ptr<f32>, %zs: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {{
  %a = layout.view %xs : !layout.ptr<f32> -> {_G}
  %b = layout.view %ys : !layout.ptr<f32> -> {_G}
  %c = layout.view %zs : !layout.ptr<f32> -> {_G}
  %d = layout.view %dst : !layout.ptr<f32> -> {_G}
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : {_G} -> {_T}
    %y = layout.load %b : {_G} -> {_T}
    %z = layout.load %c : {_G} -> {_T}
    {body}
    layout.store %r, %d : {_T}, {_G}
  }}
  func.return
}}
"""


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

    body = ("%r = math.fma %x, %y, %z : " + _T) if fused else (
        f"%p = arith.mulf %x, %y : {_T}\n    %r = arith.addf %p, %z : {_T}")
    x, y, z = _inputs()
    kernel = tilec.compile(_program(body))
    dst = cp.full((32, 32), np.nan, dtype=np.float32)
    kernel(cp.asarray(x), cp.asarray(y), cp.asarray(z), dst)
    got = cp.asnumpy(dst)
    exact = x.astype(np.float64) * y + z
    want = exact.astype(np.float32) if fused else (x * y) + z
    assert not np.array_equal(exact.astype(np.float32), (x * y) + z)  # the inputs tell them apart
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
