"""`vectorize` decides the width of loads and stores from the linear layout of any
distributed encoding (tests/filecheck/vectorize/encodings.mlir): each program there
copies exactly through the default pipeline on the reference executor, and its CUDA
compiles with NVRTC."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects import layout
from tilec.dialects.layout_attrs import to_linear
from tilec.passes._vector_legality import register_run
from tilec.runtime.reference import run

from helpers.nvrtc import compile_sm90_or_skip

LIT = Path(__file__).resolve().parents[1] / "filecheck" / "vectorize" / "encodings.mlir"

def _lowered():
    m = parse_module(LIT.read_text(), str(LIT))
    run_pipeline(m, "default")
    return m


@pytest.mark.parametrize(
    "entry, n, dtype",
    [
        ("mma_accumulator_gmem", 64 * 64, np.float32),
        ("mma_accumulator_smem", 64 * 64, np.float32),
        ("linear_runs_of_4", 32 * 32, np.float32),
        ("linear_run_of_2", 128, np.float16),
    ],
)
def test_copies_exactly(entry, n, dtype):
    m = _lowered()
    x = np.random.default_rng(0).standard_normal(n).astype(dtype)
    out = run(m, {"src": x, "dst": np.full(n, np.nan, dtype)}, entry)["dst"]
    np.testing.assert_array_equal(out, x)


def test_dot_operand_copies_exactly():
    m = _lowered()
    x = np.random.default_rng(1).integers(0, 1 << 15, 256).astype(np.uint16)  # bf16 bit patterns
    out = run(m, {"src": x, "dst": np.zeros(256, np.uint16)}, "dot_operand_pairs")["dst"]
    np.testing.assert_array_equal(out, x)


def test_unaligned_accumulator_doubles_in_place():
    m = _lowered()
    x = np.random.default_rng(2).standard_normal(64 * 64).astype(np.float32)
    out = run(m, {"src": x}, "mma_unaligned")["src"]
    np.testing.assert_array_equal(out, x + x)


def test_cuda_compiles_with_nvrtc():
    text = emit(_lowered(), "cuda")
    # bf16 pairs load as their 32-bit word (the cuda target's sub-word vectors)
    assert "reinterpret_cast<f32x2*>(dst" in text and "tilec_bitcast<bf16x2>(*reinterpret_cast<const i32x1*>(src" in text
    compile_sm90_or_skip(text)


def _linear_of_first_load(entry: str):
    """The linear layout of the first `layout.load` result in function `entry`."""
    m = parse_module(LIT.read_text(), str(LIT))
    f = next(o for o in m.ops if o.sym_name.data == entry)
    op = next(o for o in f.walk() if isinstance(o, layout.LoadOp))
    t = op.result.type
    return to_linear(t.encoding, list(t.get_shape()))


@pytest.mark.parametrize(
    "entry, want",
    [
        ("mma_accumulator_gmem", (1, 2)),  # c0, c1: two columns
        ("linear_runs_of_4", (1, 4)),
        ("linear_run_of_2", (0, 2)),  # register 1 is element 4
        ("dot_operand_pairs", (1, 2)),  # kWidth = 2 along k
    ],
)
def test_register_run_of_each_encoding(entry, want):
    assert register_run(_linear_of_first_load(entry)) == want
