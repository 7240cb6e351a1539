"""Elementwise `arith` on vector values (Mojo's `elements * 2` after `load[4]`) for
every elementwise op and element type f32/f16/bf16/i32 (xDSL's `arith.cmpi`/`cmpf`
results and `arith.select` conditions, and its casts, are scalars only): the program runs through the
default pipeline, its CUDA writes the op lane by lane (C++ has no operators on the
vector structs) and compiles with NVRTC; the reference executor computes it as NumPy
does."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.runtime.reference import random_inputs, run

FLOAT_BINARY = ["addf", "subf", "mulf", "divf", "maximumf", "minimumf"]
INT_BINARY = ["addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "andi", "ori", "xori",
              "shli", "shrsi", "shrui", "maxsi", "minsi", "maxui", "minui",
              "floordivsi", "ceildivsi", "ceildivui"]
CASES = (
    [(op, t) for t in ("f32", "f16", "bf16") for op in [*FLOAT_BINARY, "negf"]]
    + [(op, "i32") for op in INT_BINARY]
)


def program(op: str, t: str) -> str:
    vt = f"vector<4x{t}>"
    if op == "negf":
        body = f"%r = arith.negf %a : {vt}"
    else:
        body = f"%r = arith.{op} %a, %b : {vt}"
    return f"""
!A = !layout.tensor<{t}, #layout.cute<(8,4):(4,1)>, gmem>
!V = !layout.tensor<{t}, #layout.cute<(8,1):(4,4)>, gmem, vec #layout.cute<(1,4):(4,1)>>
func.func @k(%x: !layout.ptr<{t}>, %y: !layout.ptr<{t}>, %z: !layout.ptr<{t}>) {{
  %X = layout.view %x : !layout.ptr<{t}> -> !A
  %Y = layout.view %y : !layout.ptr<{t}> -> !A
  %Z = layout.view %z : !layout.ptr<{t}> -> !A
  %XV = layout.vectorize %X {{vector = array<i64: 1, 4>}} : !A -> !V
  %YV = layout.vectorize %Y {{vector = array<i64: 1, 4>}} : !A -> !V
  %ZV = layout.vectorize %Z {{vector = array<i64: 1, 4>}} : !A -> !V
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(8) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %a = layout.read %XV[%tid, %c0] : !V -> {vt}
    %b = layout.read %YV[%tid, %c0] : !V -> {vt}
    {body}
    layout.write %r, %ZV[%tid, %c0] : {vt}, !V
  }}
  func.return
}}
"""


@pytest.mark.parametrize(("op", "t"), CASES, ids=[f"{o}-{t}" for o, t in CASES])
def test_vector_arith_prints_per_lane_and_compiles(op, t):
    m = parse_module(program(op, t), "vector_arith.mlir")
    run_pipeline(m, "default")
    cuda = emit(m, "cuda")
    struct = {"f32": "f32x4", "f16": "f16x4", "bf16": "bf16x4", "i32": "i32x4"}[t]
    # the result is gathered from four scalar lanes, never one struct expression
    lanes = re.findall(rf"const {struct} \w+ = {{{{(t_\d+), (t_\d+), (t_\d+), (t_\d+)}}}};", cuda)
    assert len(lanes) == 1, cuda
    assert compile_sm90_or_skip(cuda).cubin


NUMPY = {"addf": np.add, "subf": np.subtract, "mulf": np.multiply, "maximumf": np.maximum,
         "addi": np.add, "muli": np.multiply, "xori": np.bitwise_xor, "minsi": np.minimum}


@pytest.mark.parametrize("op", sorted(NUMPY))
def test_vector_arith_runs_as_numpy(op):
    t = "f32" if op.endswith("f") else "i32"
    m = parse_module(program(op, t), "vector_arith.mlir")
    inputs = random_inputs(m, seed=1)
    x, y = (np.array(inputs[k]).copy() for k in ("x", "y"))
    run_pipeline(m, "default")
    out = run(m, inputs)
    np.testing.assert_array_equal(np.asarray(out["z"]), NUMPY[op](x, y).astype(x.dtype))
