"""Masked loads and stores keep their full vector width (issue 37;
tests/filecheck/vectorize/masked_width.mlir shows the widths and masks chosen): a row of
N elements under a 1024-wide masked tile, read with `other` (a softmax's -inf, 0, NaN)
and written whole to a 1024-wide row, gives the row then `other`, exactly, on the
reference executor after the default pipeline; a false `uniform_mask` is caught; the
CUDA compiles with NVRTC. tests/gpu/test_masked_vectors_gpu.py runs `row_load` on a
GPU."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects import layout
from tilec.dialects.distributed import BlockedLayout
from tilec.runtime.reference import ExecutionError, run

from helpers.nvrtc import compile_sm90_or_skip

LIT = Path(__file__).resolve().parents[1] / "filecheck" / "vectorize" / "masked_width.mlir"

ELEMENT = {"f32": np.float32, "f16": np.float16}
OTHER = {  # the bits of `other` in the IR, and its value
    ("f32", "-inf"): ("0xFF800000", -np.inf),
    ("f16", "-inf"): ("0xFC00", -np.inf),
    ("f32", "nan"): ("0x7FC00000", np.nan),
    ("f16", "nan"): ("0x7E00", np.nan),
    ("f32", "0"): ("0.0", 0.0),
    ("f16", "0"): ("0.0", 0.0),
}


def _rows_program(name: str, dtype: str, n: int, out_n: int, threads: int, body):
    """@name(%src, %dst, %m) with tilec.args m = 3 (a module built with `tilec.Program`):
    block i runs `body(p, ta, tb)` on the 1x1024 masked tiles of row i of src (M x n)
    and dst (M x out_n)."""
    import tilec
    from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerAttr

    p = tilec.Program(name)
    src, dst = p.pointer("src", dtype, align=16), p.pointer("dst", dtype, align=16)
    m = p.index("m")
    a, b = p.view(src, f"(?,{n}):({n},1)", dynamic=[m]), p.view(dst, f"(?,{out_n}):({out_n},1)", dynamic=[m])
    with p.launch(grid=(m, 1, 1), threads=threads) as k:
        body(p, p.tile(a, [k.bx, 0], [1, 1024]), p.tile(b, [k.bx, 0], [1, 1024]))
    module = p.module
    module.body.block.first_op.attributes["tilec.args"] = DictionaryAttr({"m": IntegerAttr(3, IndexType())})
    return module


def row_load(dtype: str, n: int, other: str = "-inf"):
    """One row of N elements (rows of pitch N) per block, read as a masked 1x1024 tile
    with `other`, 16 bytes per thread, and written whole to a row of 1024 (a softmax's
    masked load, its result made visible)."""
    spt = 16 // np.dtype(ELEMENT[dtype]).itemsize
    warps = 1024 // spt // 32
    lay = BlockedLayout([1, spt], [1, 32], [1, warps], [1, 0])
    _, value = OTHER[(dtype, other)]
    return _rows_program("row_load", dtype, n, 1024, 32 * warps,
                         lambda p, ta, tb: p.store(p.load(ta, lay, other=float(value)), tb))


def expected(x: np.ndarray, n: int, other: str) -> np.ndarray:
    """Each row of x (M x N) followed by `other` up to 1024."""
    m = x.shape[0]
    out = np.full((m, 1024), OTHER[(x.dtype.name.replace("float", "f"), other)][1], x.dtype)
    out[:, :n] = x
    return out


CASES = [(dt, n, other) for dt in ("f32", "f16") for n in (1000, 1001, 768) for other in ("-inf", "nan", "0")]


@pytest.mark.parametrize("dtype, n, other", CASES)
def test_row_load_reads_the_row_then_other(dtype, n, other):
    m = row_load(dtype, n, other)
    run_pipeline(m, "default")
    x = np.random.default_rng(n).standard_normal((3, n)).astype(ELEMENT[dtype])
    out = run(m, {"src": x.ravel(), "dst": np.full(3 * 1024, 7, ELEMENT[dtype])})["dst"].reshape(3, 1024)
    np.testing.assert_array_equal(out, expected(x, n, other))


@pytest.mark.parametrize("dtype, n, want", [("f16", 1000, (8, True)), ("f16", 1001, (1, False)),
                                            ("f16", 768, (8, True)), ("f32", 1000, (4, True)),
                                            ("f32", 1001, (1, False)), ("f32", 768, (4, True))])
def test_row_load_width(dtype, n, want):
    m = row_load(dtype, n)
    run_pipeline(m, "tile,distribute,vectorize")
    load = next(o for o in m.walk() if isinstance(o, layout.LoadOp))
    v = load.vector.value.data if load.vector is not None else 1
    assert (v, load.uniform_mask is not None and v > 1) == want


def test_a_false_uniform_mask_is_caught():
    m = parse_module(LIT.read_text(), str(LIT))
    run_pipeline(m, "vectorize")
    f = next(o for o in m.ops if o.sym_name.data == "f16_n1001_padded")
    load = next(o for o in f.walk() if isinstance(o, layout.LoadOp))
    assert load.vector.value.data == 8 and load.uniform_mask is None
    load.properties["uniform_mask"] = layout.UnitAttr()  # a claim that does not hold
    x = np.zeros(3 * 1024, np.float16)
    with pytest.raises(ExecutionError, match="uniform_mask: the mask differs within a vector of 8"):
        run(m, {"src": x, "dst": x.copy()}, "f16_n1001_padded")


def test_lit_programs_through_the_default_pipeline_compile():
    m = parse_module(LIT.read_text(), str(LIT))
    run_pipeline(m, "default")
    compile_sm90_or_skip(emit(m, "cuda"))


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_row_load_compiles(dtype):
    m = row_load(dtype, 1000)
    run_pipeline(m, "default")
    text = emit(m, "cuda")
    vec = "f32x4" if dtype == "f32" else "i32x4"  # 2-byte vectors load as 32-bit words
    assert f"reinterpret_cast<const {vec}*>(src" in text and "src[" not in text
    compile_sm90_or_skip(text)


def masked_softmax():
    """The issue's user program: one row per block, a masked power-of-two tile, other =
    -inf, a run-time M (examples/softmax.mlir with N = 1000 under a 1024-wide tile)."""
    lay = BlockedLayout([1, 4], [1, 32], [1, 2], [1, 0])

    def body(p, ta, tb):
        x = p.load(ta, lay, other=float("-inf"))
        e = p.math("exp", x - p.expand_dims(p.reduce(x, 1, "max"), 1))
        inv = 1.0 / p.reduce(e, 1, "add")
        p.store(e * p.expand_dims(inv, 1), tb)

    return _rows_program("softmax", "f32", 1000, 1000, 64, body)


def test_masked_softmax_moves_whole_vectors():
    from helpers.equivalence import assert_pass_preserves

    after = assert_pass_preserves(masked_softmax(), "default", seeds=(0, 1))
    text = emit(after, "cuda")
    assert "reinterpret_cast<const f32x4*>(src" in text and "reinterpret_cast<f32x4*>(dst" in text
    assert "src[" not in text and "dst[" not in text  # no element read or written alone
    compile_sm90_or_skip(text)
