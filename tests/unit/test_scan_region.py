"""`layout.scan_region` (Triton's `tt.scan` with a combiner region) against NumPy on the
CPU reference executor, through the default pipeline (bit for bit) and compiled by
NVRTC: a linear recurrence h[i] = a[i] * h[i-1] + b[i] (an associative combiner that is
not commutative, in exact i32 arithmetic, so the order of combination is tested) and a
running argmax, forward and reverse, on layouts that scan in registers only, across
lanes, across warps and in chunks. The GPU test (tests/gpu/test_compute_gpu.py) runs
the same programs."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.runtime.nvrtc import compile_cuda
from tilec.runtime.reference import run

ROWS, N = 4, 512
# (sizePerThread, threadsPerWarp, warpsPerCTA) along the row: registers only, lanes,
# lanes and warps, and a layout that repeats along the row (chunks)
LAYOUTS = {
    "registers": ([1, 512], [32, 1], [1, 1]),
    "lanes": ([1, 16], [1, 32], [1, 1]),
    "warps": ([1, 4], [1, 32], [1, 4]),
    "chunks": ([1, 2], [1, 32], [1, 2]),
}

AFFINE = """
    ^bb0(%a1: i32, %b1: i32, %a2: i32, %b2: i32):
      %aa = arith.muli %a1, %a2 : i32
      %t = arith.muli %a2, %b1 : i32
      %bb = arith.addi %t, %b2 : i32
      layout.yield %aa, %bb : i32, i32"""

ARGMAX = """
    ^bb0(%p: f32, %pi: i32, %q: f32, %qi: i32):
      %gt = arith.cmpf ogt, %q, %p : f32
      %v = arith.select %gt, %q, %p : f32
      %w = arith.select %gt, %qi, %pi : i32
      layout.yield %v, %w : f32, i32"""


def program(which: str, layout: str, reverse: bool = False) -> str:
    """Each block scans one of the ROWS rows of N elements of two buffers (a, b) into
    two outputs (c, d), with the `AFFINE` or `ARGMAX` combiner (for ARGMAX, a is f32 and
    b is ignored: the indices are an arange)."""
    spt, tpw, wpc = LAYOUTS[layout]
    lay = f"#layout.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = [1, 0]}}>"
    threads = 32 * wpc[0] * wpc[1]
    ta = "f32" if which == "argmax" else "i32"
    V = lambda e: f"!layout.tensor<{e}, #layout.cute<({ROWS},{N}):({N},1)>, gmem>"
    T = lambda e: f"!layout.tensor<{e}, #layout.cute<(1,{N}):({N},1)>, gmem>"
    D = lambda e: f"tensor<1x{N}x{e}, {lay}>"
    rev = ", reverse = true" if reverse else ""
    if which == "argmax":
        second = (
            f"%j0 = layout.arange {{start = 0 : i64, end = {N} : i64}} : "
            f"tensor<{N}xi32, #layout.slice<{{dim = 0, parent = {lay}}}>>\n    "
            f"%y = layout.expand_dims %j0 {{axis = 0 : i64}} : tensor<{N}xi32, "
            f"#layout.slice<{{dim = 0, parent = {lay}}}>> -> {D('i32')}"
        )
        body = ARGMAX
    else:
        second = f"%y = layout.load %tb : {T('i32')} -> {D('i32')}"
        body = AFFINE
    return f"""
func.func @scan(%a: !layout.ptr<{ta}, align 16>, %b: !layout.ptr<i32, align 16>, %c: !layout.ptr<{ta}, align 16>, %d: !layout.ptr<i32, align 16>) {{
  %va = layout.view %a : !layout.ptr<{ta}, align 16> -> {V(ta)}
  %vb = layout.view %b : !layout.ptr<i32, align 16> -> {V("i32")}
  %vc = layout.view %c : !layout.ptr<{ta}, align 16> -> {V(ta)}
  %vd = layout.view %d : !layout.ptr<i32, align 16> -> {V("i32")}
  %g = arith.constant {ROWS} : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %c1, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %va[%bx, %c0] {{tile = array<i64: 1, {N}>}} : {V(ta)} -> {T(ta)}
    %tb = layout.tile %vb[%bx, %c0] {{tile = array<i64: 1, {N}>}} : {V("i32")} -> {T("i32")}
    %tc = layout.tile %vc[%bx, %c0] {{tile = array<i64: 1, {N}>}} : {V(ta)} -> {T(ta)}
    %td = layout.tile %vd[%bx, %c0] {{tile = array<i64: 1, {N}>}} : {V("i32")} -> {T("i32")}
    %x = layout.load %ta : {T(ta)} -> {D(ta)}
    {second}
    %r, %s = layout.scan_region %x, %y {{axis = 1 : i64{rev}}} : {D(ta)}, {D("i32")} -> {D(ta)}, {D("i32")} {{{body}
    }}
    layout.store %r, %tc : {D(ta)}, {T(ta)}
    layout.store %s, %td : {D("i32")}, {T("i32")}
  }}
  func.return
}}
"""


def _wrap(x: np.ndarray) -> np.ndarray:
    return ((x + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int64)


def expected(which: str, a: np.ndarray, b: np.ndarray, reverse: bool):
    """NumPy, element by element: the recurrence in wrapping i32, or the running max
    and the first index reaching it."""
    a, b = a.reshape(ROWS, N), b.reshape(ROWS, N)
    order = range(N - 1, -1, -1) if reverse else range(N)
    if which == "affine":
        pa, h = np.ones(ROWS, np.int64), np.zeros(ROWS, np.int64)
        outa, outb = np.empty((ROWS, N), np.int32), np.empty((ROWS, N), np.int32)
        for i in order:
            pa = _wrap(pa * a[:, i])
            h = _wrap(a[:, i].astype(np.int64) * h + b[:, i])
            outa[:, i], outb[:, i] = pa, h
        return outa.reshape(-1), outb.reshape(-1)
    m, j = np.full(ROWS, -np.inf, np.float32), np.zeros(ROWS, np.int32)
    outm, outj = np.empty((ROWS, N), np.float32), np.empty((ROWS, N), np.int32)
    for i in order:
        take = a[:, i] > m
        m, j = np.where(take, a[:, i], m), np.where(take, i, j)
        outm[:, i], outj[:, i] = m, j
    return outm.reshape(-1), outj.reshape(-1)


def inputs(which: str, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    if which == "affine":
        a = rng.choice(np.array([-1, 1, 2, 3], np.int32), ROWS * N)
    else:
        a = rng.standard_normal(ROWS * N).astype(np.float32)
    b = rng.integers(-1000, 1000, ROWS * N).astype(np.int32)
    poison_c = np.full(ROWS * N, -7, a.dtype)
    return {"a": a, "b": b, "c": poison_c, "d": np.full(ROWS * N, -7, np.int32)}


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("which", ["affine", "argmax"])
def test_scan_region_is_numpy_and_survives_the_pipeline(which, layout, reverse):
    text = program(which, layout, reverse)
    ins = inputs(which, 0)
    want = expected(which, ins["a"], ins["b"], reverse)
    module = parse_module(text)
    out = run(module, ins)
    np.testing.assert_array_equal(out["c"], want[0])
    np.testing.assert_array_equal(out["d"], want[1])
    run_pipeline(module, "default")
    after = run(module, ins)
    np.testing.assert_array_equal(after["c"], want[0])
    np.testing.assert_array_equal(after["d"], want[1])
    assert len(compile_cuda(emit(module, "cuda"), arch="sm_90").cubin) > 0
