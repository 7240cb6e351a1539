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

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.distributed import BlockedLayout, SliceLayout
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

def affine(p, accs, news):
    """h[i] = a[i] * h[i-1] + b[i] as a combiner: (a1, b1) then (a2, b2) is (a1 a2, a2 b1 + b2)."""
    (a1, b1), (a2, b2) = accs, news
    return [a1 * a2, a2 * b1 + b2]


def argmax(p, accs, news):
    """The running maximum and the first index that reached it (`>`: a tie keeps the earlier)."""
    (v, i), (w, j) = accs, news
    gt = w > v
    return [p.where(gt, w, v), p.where(gt, j, i)]


def program(which: str, layout: str, reverse: bool = False):
    """Each block scans one of the ROWS rows of N elements of two buffers (a, b) into
    two outputs (c, d), with the `affine` or `argmax` combiner (for argmax, a is f32 and
    b is ignored: the indices are an arange); a module built with `tilec.Program`."""
    import tilec

    spt, tpw, wpc = LAYOUTS[layout]
    lay = BlockedLayout(spt, tpw, wpc, [1, 0])
    ta = "f32" if which == "argmax" else "i32"
    p = tilec.Program("scan")
    ptrs = [p.pointer(name, t, align=16) for name, t in (("a", ta), ("b", "i32"), ("c", ta), ("d", "i32"))]
    views = [p.view(ptr, f"({ROWS},{N}):({N},1)") for ptr in ptrs]
    with p.launch(grid=(ROWS, 1, 1), threads=32 * wpc[0] * wpc[1]) as k:
        tiles = [p.tile(v, [k.bx, 0], [1, N]) for v in views]
        x = p.load(tiles[0], lay)
        if which == "argmax":
            y = p.expand_dims(p.arange(0, N, SliceLayout(0, lay)), 0)
        else:
            y = p.load(tiles[1], lay)
        combine = argmax if which == "argmax" else affine
        r, s = p.scan((x, y), 1, lambda accs, news: combine(p, accs, news), reverse=reverse)
        p.store(r, tiles[2])
        p.store(s, tiles[3])
    return p.module


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
    module = program(which, layout, reverse)
    ins = inputs(which, 0)
    want = expected(which, ins["a"], ins["b"], reverse)
    out = run(module, ins)
    np.testing.assert_array_equal(out["c"], want[0])
    np.testing.assert_array_equal(out["d"], want[1])
    run_pipeline(module, "default")
    after = run(module, ins)
    np.testing.assert_array_equal(after["c"], want[0])
    np.testing.assert_array_equal(after["d"], want[1])
    assert len(compile_cuda(emit(module, "cuda"), arch="sm_90").cubin) > 0
