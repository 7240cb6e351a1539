"""`layout.make_tensor_like` / `layout.make_fragment_like` (dialects/layout_like.py):
CuTe's layout rules on the examples of CuTe's comments, the builder methods, and a copy
through the registers they make, checked against NumPy before and after `-p default`;
the CUDA compiles under NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects import cute
from tilec.dialects.layout_like import fragment_like, tensor_like
from tilec.runtime.reference import random_inputs, run
from tilec.support.diagnostics import TilecError

L = cute.Layout._mk


@pytest.mark.parametrize("lay, tensor, fragment", [
    (L((8, 4), (3, 48)), "(8,4):(1,8)", "(8,4):(1,8)"),
    (L((4, 8), (8, 1)), "(4,8):(8,1)", "(4,8):(1,4)"),
    (L(((2, 2), 4), ((1, 16), 2)), "((2,2),4):((1,8),2)", "((2,2),4):((1,2),4)"),
    (L(((2, 2), (4, 2)), ((0, 16), (2, 100))), "((2,2),(4,2)):((0,4),(1,8))", "((2,2),(4,2)):((0,1),(2,8))"),
    (L(8, 4), "8:1", "8:1"),
])
def test_cute_rules(lay, tensor, fragment):
    assert str(tensor_like(lay)) == tensor
    assert str(fragment_like(lay)) == fragment
    assert tensor_like(lay).shape == fragment_like(lay).shape == lay.shape


def test_a_copy_through_fragments_keeps_every_element():
    p = tilec.Program("fragments")
    a = p.view(p.pointer("a", "f32"), "(16,32):(32,1)")
    b = p.view(p.pointer("b", "f32"), "(16,32):(32,1)")
    with p.launch(grid=(8, 8, 1), threads=1) as k:
        ta, tb = p.tile(a, (k.by, k.bx), (2, 4)), p.tile(b, (k.by, k.bx), (2, 4))
        frag, like = p.make_fragment_like(ta), p.make_tensor_like(ta)
        assert str(frag.type.cute_layout) == "(2,4):(1,2)" and frag.type.memory_space == "rmem"
        assert str(like.type.cute_layout) == "(2,4):(4,1)"
        p.copy(ta, frag)
        p.copy(frag, like)
        p.copy(like, tb)
    m = p.module
    inputs = random_inputs(m, seed=3)
    np.testing.assert_array_equal(run(m, inputs)["b"], inputs["a"])
    run_pipeline(m, "default")
    np.testing.assert_array_equal(run(m, inputs)["b"], inputs["a"])
    assert compile_sm90_or_skip(emit(m, "cuda")).cubin


def test_fragment_of_a_dynamic_view_is_an_error():
    p = tilec.Program("dynamic")
    n = p.index("n")
    a = p.view(p.pointer("a", "f32"), "(?,8):(8,1)", dynamic=[n])
    with p.launch(grid=(1, 1, 1), threads=1):
        with pytest.raises(TilecError, match="registers are sized at compile time"):
            p.make_fragment_like(a)
