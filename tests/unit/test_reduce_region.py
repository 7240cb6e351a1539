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
from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.runtime.reference import run

from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip

COMBINER = """{
    ^bb0(%p: f32, %pi: i32, %q: f32, %qi: i32):
      %gt = arith.cmpf ogt, %q, %p : f32
      %eq = arith.cmpf oeq, %q, %p : f32
      %lt = arith.cmpi slt, %qi, %pi : i32
      %tie = arith.andi %eq, %lt : i1
      %take = arith.ori %gt, %tie : i1
      %v = arith.select %take, %q, %p : f32
      %j = arith.select %take, %qi, %pi : i32
      layout.yield %v, %j : f32, i32
    }"""


def argmax_program(spt, tpw, wpc, threads=128) -> str:
    b = (f"#layout.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, "
         f"warpsPerCTA = {wpc}, order = [1, 0]}}>")
    return f"""
#b = {b}
#r = #layout.slice<{{dim = 1, parent = #b}}>
#c = #layout.slice<{{dim = 0, parent = #b}}>
!G = !layout.tensor<f32, #layout.cute<(8,256):(256,1)>, gmem>
!M = !layout.tensor<f32, #layout.cute<(8):(1)>, gmem>
!I = !layout.tensor<i32, #layout.cute<(8):(1)>, gmem>
func.func @argmax(%src: !layout.ptr<f32>, %max: !layout.ptr<f32>, %arg: !layout.ptr<i32>) {{
  %a = layout.view %src : !layout.ptr<f32> -> !G
  %m = layout.view %max : !layout.ptr<f32> -> !M
  %i = layout.view %arg : !layout.ptr<i32> -> !I
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G -> tensor<8x256xf32, #b>
    %cols = layout.arange {{start = 0 : i32, end = 256 : i32}} : tensor<256xi32, #c>
    %c2 = layout.expand_dims %cols {{axis = 0 : i64}} : tensor<256xi32, #c> -> tensor<1x256xi32, #b>
    %idx = layout.broadcast %c2 : tensor<1x256xi32, #b> -> tensor<8x256xi32, #b>
    %mx, %ix = layout.reduce_region %x, %idx {{axis = 1 : i64}} : tensor<8x256xf32, #b>, tensor<8x256xi32, #b> -> tensor<8xf32, #r>, tensor<8xi32, #r> {COMBINER}
    layout.store %mx, %m : tensor<8xf32, #r>, !M
    layout.store %ix, %i : tensor<8xi32, #r>, !I
  }}
  func.return
}}
"""


LAYOUTS = [
    ([1, 4], [1, 32], [1, 4]),  # a row over lanes and warps: shuffles, then shared memory
    ([1, 4], [4, 8], [2, 2]),
    ([1, 256], [32, 1], [4, 1]),  # a row per thread (8 rows, broadcast over threads)
]


@pytest.mark.parametrize("spt,tpw,wpc", LAYOUTS)
def test_argmax_reference_and_lowering(spt, tpw, wpc):
    text = argmax_program(spt, tpw, wpc)
    x = np.random.default_rng(0).integers(-5, 5, size=(8, 256)).astype(np.float32)  # ties
    out = run(parse_module(text), {"src": x.ravel(), "max": np.full(8, np.nan, np.float32), "arg": np.full(8, -1, np.int32)})
    np.testing.assert_array_equal(out["max"], x.max(axis=1))
    np.testing.assert_array_equal(out["arg"], x.argmax(axis=1))
    assert_pass_preserves(text, "default", seeds=(0, 1))


def test_argmax_compiles_with_nvrtc():
    m = parse_module(argmax_program([1, 4], [1, 32], [1, 4]))
    run_pipeline(m, "default")
    text = emit(m, "cuda")
    assert text.count("__shared__") == 2  # one buffer per operand
    compile_sm90_or_skip(text)


def test_combiner_signature_is_checked():
    bad = argmax_program([1, 4], [1, 32], [1, 4]).replace("layout.yield %v, %j : f32, i32", "layout.yield %v : f32")
    with pytest.raises(TilecError, match=r"the combiner must end with layout.yield of \(f32, i32\)"):
        parse_module(bad)
