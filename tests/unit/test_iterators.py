"""Tile iterators (Mojo's LayoutTensorIter, seed 000 "Tiled iterators"): each tile the
reference executor hands out checked element by element against NumPy, the same results
after `expand-iterators`, from IR text and from the Python builder; a non-circular
iterator read past its tiles is an error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.runtime.reference import ExecutionError, random_inputs, run

LIT = Path(__file__).parents[1] / "filecheck" / "expand-iterators" / "iterators.mlir"


def _function(name: str) -> str:
    """One function of the lit file, with the type aliases it needs."""
    text = LIT.read_text()
    aliases = "\n".join(line for line in text.splitlines() if line.startswith("!"))
    start = text.index(f"func.func @{name}(")
    end = text.index("\n}\n", start) + 3
    return aliases + "\n" + text[start:end]


def _run(name: str, seed: int = 1):
    m = parse_module(_function(name), f"{name}.mlir")
    inputs = random_inputs(m, seed)
    return m, inputs, run(m, inputs)


def test_buffer_iterator_tiles_as_mojo_prints_them():
    """LayoutTensorIter[int16, row_major(2, 2)](storage, 16): tile k holds elements
    4k..4k+3 in row-major order; written out column-major, each tile is transposed."""
    m, inputs, out = _run("buffer_tiles")
    src = inputs["p"].reshape(4, 2, 2)
    np.testing.assert_array_equal(out["q"].reshape(4, 2, 2), src.transpose(0, 2, 1))
    assert_pass_preserves(m, "expand-iterators")


def test_circular_iterator_wraps_around():
    m, inputs, out = _run("circular_buffer")
    src = inputs["p"]
    np.testing.assert_array_equal(out["q"], np.concatenate([src, src[:8]]))
    assert_pass_preserves(m, "expand-iterators")


@pytest.mark.parametrize("name", ["tiled_iterator_rows", "next_k"])
def test_tiled_iterator_walks_a_row_of_tiles(name):
    """tiled_iterator[16, 16, axis=1](i, 0): tile j of row i is rows 16i.., columns 16j.."""
    m, inputs, out = _run(name)
    np.testing.assert_array_equal(out["q"], inputs["p"])
    assert_pass_preserves(m, "expand-iterators")


def test_reading_past_the_last_tile_is_an_error():
    """@buffer_tiles of the lit file with five trips over its four tiles."""
    p = tilec.Program("buffer_tiles")
    a = p.view(p.pointer("p", "i16", align=None), "16:1").named("a")
    b = p.view(p.pointer("q", "i16", align=None), "16:1").named("b")
    ia, ib = p.buffer_iterator(a, "(2,2):(2,1)"), p.buffer_iterator(b, "(2,2):(1,2)")
    with p.launch(grid=(1, 1, 1), threads=32):
        with p.range(0, 5, carry=[ia, ib]):
            p.copy(ia.get(), ib.get())
            ia += 1
            ib += 1
    m = p.module
    with pytest.raises(ExecutionError, match="iterator position 4 is outside its 4 tiles"):
        run(m, random_inputs(m, 0))


def test_the_builder_writes_mojo_iterators():
    """The Python builder, as seed 000 writes the loop: `iter += 1` in a loop carries it."""
    p = tilec.Program("rows")
    a = p.view(p.pointer("p", "f32"), "(32,64):(64,1)")
    b = p.view(p.pointer("q", "f32"), "(32,64):(64,1)")
    with p.launch(grid=(2, 1, 1), threads=32) as k:
        it = p.tiled_iterator(a, (16, 16), axis=1, coords=(k.bx, 0))
        with p.range(0, 4, carry=[it]) as j:
            p.copy(it.get(), p.tile(b, (k.bx, j), (16, 16)))
            it += 1
    inputs = random_inputs(p.module, 2)
    np.testing.assert_array_equal(run(p.module, inputs)["q"], inputs["p"])

    q = tilec.Program("buffer")
    buf = q.view(q.pointer("p", "i16"), "16:1")
    out = q.view(q.pointer("q", "i16"), "16:1")
    with q.launch(threads=32):
        src, dst = q.buffer_iterator(buf, "(2,2):(2,1)"), q.buffer_iterator(out, "(2,2):(1,2)")
        for i in range(4):  # the seed's loop, unrolled by Python: next(i)[]
            q.copy(src.next(i).get() if i else src.get(), dst.next(i).get() if i else dst.get())
    inputs = random_inputs(q.module, 3)
    np.testing.assert_array_equal(run(q.module, inputs)["q"].reshape(4, 2, 2),
                                  inputs["p"].reshape(4, 2, 2).transpose(0, 2, 1))
    run_pipeline(p.module, "default")
    compile_sm90_or_skip(emit(p.module, "cuda"))
