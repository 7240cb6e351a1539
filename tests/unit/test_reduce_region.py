"""`layout.reduce_region`: several tensors reduced together with a combiner region (an
argmax: the largest value of each row and its first index). The reference executor
gives NumPy's argmax; lower-to-gpu lowers it (registers, lane butterfly, one round
through shared memory, one buffer per operand) to a program that gives bit for bit
what the layout-level program gives; the CUDA compiles; the verifier rejects a
combiner of the wrong signature."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.support.diagnostics import TilecError
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.distributed import BlockedLayout, SliceLayout
from tilec.runtime.reference import run

from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip

def argmax_program(spt, tpw, wpc, threads=128):
    """The largest value of each row of an 8x256 f32 tile and its first index
    (`layout.reduce_region` with an argmax combiner; a module built with
    `tilec.Program`)."""
    import tilec

    lay = BlockedLayout(spt, tpw, wpc, [1, 0])

    def combine(accs, news):
        (v, i), (w, j) = accs, news
        take = (w > v) | (w.eq(v) & (j < i))
        return [p.where(take, w, v), p.where(take, j, i)]

    p = tilec.Program("argmax")
    src, mx_ptr, arg_ptr = (p.pointer(n, t, align=None) for n, t in (("src", "f32"), ("max", "f32"), ("arg", "i32")))
    a, m, i = p.view(src, "(8,256):(256,1)"), p.view(mx_ptr, "(8):(1)"), p.view(arg_ptr, "(8):(1)")
    with p.launch(threads=threads):
        x = p.load(a, lay)
        idx = p.broadcast(p.expand_dims(p.arange(0, 256, SliceLayout(0, lay)), 0), [8, 256])
        mx, ix = p.reduce((x, idx), 1, combine)
        p.store(mx, m)
        p.store(ix, i)
    return p.module


LAYOUTS = [
    ([1, 4], [1, 32], [1, 4]),  # a row over lanes and warps: shuffles, then shared memory
    ([1, 4], [4, 8], [2, 2]),
    ([1, 256], [32, 1], [4, 1]),  # a row per thread (8 rows, broadcast over threads)
]


@pytest.mark.parametrize("spt,tpw,wpc", LAYOUTS)
def test_argmax_reference_and_lowering(spt, tpw, wpc):
    module = argmax_program(spt, tpw, wpc)
    x = np.random.default_rng(0).integers(-5, 5, size=(8, 256)).astype(np.float32)  # ties
    out = run(module, {"src": x.ravel(), "max": np.full(8, np.nan, np.float32), "arg": np.full(8, -1, np.int32)})
    np.testing.assert_array_equal(out["max"], x.max(axis=1))
    np.testing.assert_array_equal(out["arg"], x.argmax(axis=1))
    assert_pass_preserves(module, "default", seeds=(0, 1))


def test_argmax_compiles_with_nvrtc():
    m = argmax_program([1, 4], [1, 32], [1, 4])
    run_pipeline(m, "default")
    text = emit(m, "cuda")
    assert text.count("__shared__") == 2  # one buffer per operand
    compile_sm90_or_skip(text)


def test_combiner_signature_is_checked():
    """The verifier refuses a combiner whose yield drops a value."""
    from tilec.compiler.pipeline import verify_module
    from tilec.dialects.layout_compute import YieldOp

    module = argmax_program([1, 4], [1, 32], [1, 4])
    yield_op = next(op for op in module.walk() if isinstance(op, YieldOp))
    yield_op.operands = yield_op.operands[:1]
    with pytest.raises(TilecError, match=r"the combiner must end with layout.yield of \(f32, i32\)"):
        verify_module(module)
