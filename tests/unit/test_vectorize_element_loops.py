"""vectorize-element-loops (passes/vectorize_element_loops.py) on the programs of
tests/filecheck/vectorize-element-loops/element_loops.mlir: each computes what NumPy
says, before and after `-p default`; the loops the pass rewrites become 16-byte vector
accesses in the CUDA, which compiles under NVRTC; the pass leaves the others as they
are."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects import layout_access as la
from tilec.runtime.reference import random_inputs, run
from tilec.support.diagnostics import TilecError

LIT = Path(__file__).parents[1] / "filecheck" / "vectorize-element-loops" / "element_loops.mlir"


def _module():
    return parse_module(LIT.read_text(), str(LIT))


def _shift(a):
    """A[i + 1] = A[i] for i in 0..7, in order: A[0] everywhere in 0..8."""
    out = a.copy()
    out[1:9] = a[0]
    return out


EXPECTED = {
    "through_registers": lambda x: {"b": x["a"] * np.float32(2)},
    "halves": lambda x: {"c": (x["a"] + x["b"]).astype(np.float16)},
    "six": lambda x: {"b": np.concatenate([np.zeros(2, np.float32), x["a"][2:8]])},
    "strided": lambda x: {"b": x["a"]},
    "masked": lambda x: {"b": x["a"]},
    "same_storage": lambda x: {"a": _shift(x["a"])},
    "index_math": lambda x: {"b": x["a"] + np.arange(8, dtype=np.float32)},
}


@pytest.mark.parametrize("fn", sorted(EXPECTED))
def test_computes_numpy_before_and_after_default(fn):
    module = _module()
    inputs = random_inputs(module, seed=4, entry=fn)
    want = EXPECTED[fn]({k: np.asarray(v).copy() for k, v in inputs.items() if isinstance(v, np.ndarray)})
    for name, w in want.items():
        np.testing.assert_array_equal(run(module, inputs, fn)[name], w)
    run_pipeline(module, "default")
    for name, w in want.items():
        np.testing.assert_array_equal(run(module, inputs, fn)[name], w)


def _widths(module) -> dict[str, list[int]]:
    out = {}
    for f in module.ops:
        out[f.sym_name.data] = [la.width_of(o) for o in f.walk() if isinstance(o, la.ReadOp | la.WriteOp)]
    return out


def test_rewrites_exactly_the_contiguous_loops():
    module = _module()
    run_pipeline(module, "vectorize-element-loops")
    w = _widths(module)
    assert w["through_registers"] == [4, 4, 4, 4]
    assert w["halves"] == [8, 8, 8]
    assert w["six"] == [4, 2, 2]  # 0..8 by 4, then 2..8 by 2
    for fn in ("strided", "masked", "same_storage", "index_math"):
        assert set(w[fn]) == {None}, fn


def test_cuda_has_vector_accesses_and_compiles():
    module = _module()
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    kernel = cuda[cuda.index("through_registers_kernel("):cuda.index("halves_kernel(")]
    assert kernel.count("*reinterpret_cast<const f32x4*>") == 2
    assert kernel.count("*reinterpret_cast<f32x4*>") == 2
    compile_sm90_or_skip(cuda)


def test_max_bytes_must_be_a_power_of_two():
    with pytest.raises(TilecError, match="max-bytes=12 must be a power of two"):
        run_pipeline(_module(), "vectorize-element-loops{max-bytes=12}")
