"""`layout.rank/depth/size/cosize` (dialects/layout_query.py) and `layout.static_assert`
(dialects/layout_static_assert.py) built with the Program
builder: the executor's answers against NumPy's (the shape's product, `1 + sum((s-1)*d)`
over the bound strides), before and after `-p default`; static queries fold under
`canonicalize`; the CUDA compiles under NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects import layout_query as lq
from tilec.runtime.reference import random_inputs, run
from tilec.support.diagnostics import TilecError


def queries(m: int, s: int):
    p = tilec.Program("queries")
    mi, si = p.index("m"), p.index("s")
    a = p.view(p.pointer("a", "f32"), "(?,(2,4)):(?,(4,1))", dynamic=[mi, si])
    out = p.view(p.pointer("out", "i64"), "10:1")
    with p.launch(grid=(1, 1, 1), threads=1) as k:
        t = p.tile(a, (k.bx, k.by), (4, 8))
        answers = [p.size(a), p.size(a, 0), p.size(a, 1), p.cosize(a), p.cosize(a, 1),
                   p.rank(a), p.depth(a), p.depth(a, 0), p.size(t), p.cosize(t)]
        for i, v in enumerate(answers):
            out[i] = v.cast("i64")
    return p.module


def expected(m: int, s: int) -> np.ndarray:
    shape, stride = np.array([m, 2, 4]), np.array([s, 4, 1])
    tile_shape = np.array([4, 2, 4])
    return np.int64([
        np.prod(shape), m, 8, 1 + np.sum((shape - 1) * stride), 1 + (2 - 1) * 4 + (4 - 1) * 1,
        2, 2, 0, np.prod(tile_shape), 1 + np.sum((tile_shape - 1) * stride),
    ])


def test_queries_answer_as_numpy_before_and_after_lowering():
    for m, s in [(13, 9), (3, 8), (40, 100)]:
        mod = queries(m, s)
        inputs = random_inputs(mod, seed=0, args={"m": m, "s": s})
        np.testing.assert_array_equal(run(mod, inputs)["out"], expected(m, s))
        run_pipeline(mod, "default")
        np.testing.assert_array_equal(run(mod, inputs)["out"], expected(m, s))


def test_static_queries_fold_and_dynamic_ones_stay():
    mod = queries(13, 9)
    run_pipeline(mod, "canonicalize")
    left = sorted(op.name for op in mod.walk() if isinstance(op, lq.QueryOp))
    # size(a), size<0>(a), cosize(a), cosize(tile) depend on m or s; the others fold
    assert left == ["layout.cosize", "layout.cosize", "layout.size", "layout.size"]
    inputs = random_inputs(mod, seed=0, args={"m": 13, "s": 9})
    np.testing.assert_array_equal(run(mod, inputs)["out"], expected(13, 9))


def test_query_cuda_compiles():
    mod = queries(13, 9)
    run_pipeline(mod, "default")
    assert compile_sm90_or_skip(emit(mod, "cuda")).cubin


def test_static_assert_checks_at_build_time_and_leaves_no_trace():
    p = tilec.Program("asserted")
    n = p.index("n")
    a = p.view(p.pointer("a", "f32"), "(?,(2,4)):(8,(4,1))", dynamic=[n])
    b = p.view(p.pointer("b", "f32"), "(?,(2,4)):(8,(4,1))", dynamic=[n])
    p.static_assert(p.rank(a).eq(2), "a is a matrix")
    p.static_assert((p.size(a, 1) * p.depth(a, 1)) % 4 < 1, "rows of whole vectors")
    with pytest.raises(TilecError, match="static assertion failed: three modes"):
        p.static_assert(p.rank(a).eq(3), "three modes")
    with pytest.raises(TilecError, match='static assertion "small": the condition is not known at compile time'):
        p.static_assert(p.size(a) < 64, "small")
    with pytest.raises(TilecError, match="static_assert takes an i1 value"):
        p.static_assert(p.rank(a) == 2, "Python's ==")
    with p.launch(grid=(3, 1, 1), threads=32) as k:
        p.static_assert(p.cosize(p.tile(a, (k.bx, 0), (4, 8)), 1).eq(8), "mode 1 is compact")
        p.copy(p.tile(a, (k.bx, 0), (4, 8)), p.tile(b, (k.bx, 0), (4, 8)))
    mod = p.module
    inputs = random_inputs(mod, seed=1, args={"n": 10})
    np.testing.assert_array_equal(run(mod, inputs)["b"], inputs["a"])
    run_pipeline(mod, "default")
    assert not [o for o in mod.walk() if o.name in ("layout.static_assert", "layout.rank")]
    np.testing.assert_array_equal(run(mod, inputs)["b"], inputs["a"])
    assert compile_sm90_or_skip(emit(mod, "cuda")).cubin
