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

from xdsl.dialects import arith

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.runtime.reference import random_inputs, run

FLOAT_BINARY = ["addf", "subf", "mulf", "divf", "maximumf", "minimumf"]
INT_BINARY = ["addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "andi", "ori", "xori",
              "shli", "shrsi", "shrui", "maxsi", "minsi", "maxui", "minui",
              "floordivsi", "ceildivsi", "ceildivui"]
CASES = (
    [(op, t) for t in ("f32", "f16", "bf16") for op in [*FLOAT_BINARY, "negf"]]
    + [(op, "i32") for op in INT_BINARY]
)


ARITH = {cls.name: cls for cls in arith.Arith.operations}
"""xDSL's arith ops by name (the ops of CASES have no Python operator each)."""


def program(op: str, t: str):
    """@k: 8 threads, each reads a vector of 4 of x and y, applies `arith.<op>` to the
    vectors and writes z's (a module built with `tilec.Program`)."""
    import tilec

    p = tilec.Program("k")
    x, y, z = (p.vectorize(p.view(p.pointer(n, t, align=None), "(8,4):(4,1)"), [1, 4]) for n in ("x", "y", "z"))
    with p.launch(threads=8) as k:
        a, b = x[k.tid, 0], y[k.tid, 0]
        cls = ARITH[f"arith.{op}"]
        r = p.insert(cls(a.ssa) if op == "negf" else cls(a.ssa, b.ssa)).results[0]
        z[k.tid, 0] = r
    return p.module


@pytest.mark.parametrize(("op", "t"), CASES, ids=[f"{o}-{t}" for o, t in CASES])
def test_vector_arith_prints_per_lane_and_compiles(op, t):
    m = program(op, t)
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
    m = program(op, t)
    inputs = random_inputs(m, seed=1)
    x, y = (np.array(inputs[k]).copy() for k in ("x", "y"))
    run_pipeline(m, "default")
    out = run(m, inputs)
    np.testing.assert_array_equal(np.asarray(out["z"]), NUMPY[op](x, y).astype(x.dtype))
