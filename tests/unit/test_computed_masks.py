"""Masks a @tilec.jit kernel computes (`offs < n`, `(rows < m) & (cols < n)`, in a loop
over chunks) keep full-width vectors with one predicate each where the jit's
specialisation knows n a multiple of 16, for 1-, 2- and 4-byte elements, whether the
layout is written or left to `coalesce`; where n is not (1000), the interior still moves
whole vectors (no `uniform_mask`: lanes masked one by one only where they disagree)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
from tilec.compiler.pipeline import run_pipeline
from tilec.dialects import layout_ptr as lp
from tilec.dialects.auto_layout import AutoLayoutAttr

PASSES = "expand-iterators,tile,order-grid,tma,distribute,pack-rows,coalesce,vectorize,vectorize-pointers"


@tilec.jit
def chunks(x, y, n, BLOCK: tilec.constexpr, VEC: tilec.constexpr):
    layout = AutoLayoutAttr(1, 4) if VEC == 0 else tilec.BlockedLayout([VEC], [32], [4], [0])
    for off in tilec.range(0, n, BLOCK):
        offs = off + tilec.arange(0, BLOCK, layout)
        mask = offs < n
        tilec.store(y.ptr + offs, tilec.load(x.ptr + offs, mask=mask, other=0), mask=mask)


def _accesses(x, n, auto):
    program = chunks.trace(x, np.zeros_like(x), n, BLOCK=2048, VEC=0 if auto else 16 // x.itemsize)
    module = program.module.clone()
    run_pipeline(module, PASSES)
    return [o for o in module.walk() if isinstance(o, lp.PtrLoadOp | lp.PtrStoreOp)]


@pytest.mark.parametrize("auto", [True, False])
@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32])
def test_a_loop_over_chunks_keeps_full_width_vectors(dtype, auto):
    x = np.zeros(4096, dtype)
    width = 16 // x.itemsize
    for n, uniform in ((4096, True), (4080, True), (1000, False)):
        ops = _accesses(x[:n], n, auto)
        assert len(ops) == 2
        for o in ops:
            assert o.vector.value.data == width, (dtype, n)
            assert (o.uniform_mask is not None) == uniform, (dtype, n)


def test_the_loop_runs_on_the_reference_executor():
    x = np.arange(1000, dtype=np.float16)
    y = np.zeros_like(x)
    chunks[(1,)](x, y, 1000, BLOCK=256, VEC=0)
    assert (y == x).all()
