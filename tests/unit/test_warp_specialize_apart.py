"""Warp_specialize regions run apart (`layout.warp_specialize warpgroups(3, 1) apart(0)`,
dialects/layout_roles.py): each warpgroup of the region runs it as a region of its own
(its distributed tensors its own, its TMA stores meeting its own 128 threads), and
`layout.warpgroup_index` says which it is: one copy of the code for warpgroups that
differ only in what they index (the 192-row GEMM tile's three consumers,
tests/unit/test_gemm_three_consumers.py). Exact on the reference executor at the
layout level and after `lower-to-gpu` (each warpgroup its 64 rows, a TMA store through
its rows of one shared buffer, named barrier 1 + its index); the round trip; the
verifier's refusals; what `-t cuda` prints compiles under NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.compiler.builder import Program
from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.support.diagnostics import TilecError

L = tilec.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
ROWS, COLS = 192, 32
X = (np.arange(ROWS * COLS, dtype=np.float32).reshape(ROWS, COLS) % 97) * 0.25 - 7.0


def _apart(index: bool = True) -> Program:
    """Three warpgroups in one region run apart, each adding 1 to its 64 rows of `a`
    (`warpgroup_index`; `index` False: all take rows 0-63) and storing them to `out`
    through its rows of one shared buffer with the TMA; a fourth, empty region."""
    p = Program("apart")
    a = p.view(p.pointer("a", "f32"), f"({ROWS},{COLS}):({COLS},1)")
    out = p.view(p.pointer("out", "f32"), f"({ROWS},{COLS}):({COLS},1)")
    with p.launch(grid=(2, 1, 1), threads=512):
        buf = p.alloc(f"({ROWS},{COLS}):({COLS},1)", "f32", "smem")
        three, other = p.warp_specialize([3, 1], apart=[0])
        with three:
            w = p.warpgroup_index() if index else p.constant(0)
            c0 = p.constant(0)
            mine = p.tile(buf, [w, c0], [64, COLS])
            p.store(p.load(p.tile(a, [w, c0], [64, COLS]), L) + 1.0, mine)
            p.tma_store(mine, p.tile(out, [w, c0], [64, COLS]))
            p.tma_store_wait(0)
        with other:
            pass
    return p


def _run(p: Program, level: str) -> np.ndarray:
    m = p.module
    if level == "lowered":
        run_pipeline(m, "default")
    out = np.full_like(X, np.nan)
    return tilec.run_reference(m, {"a": X, "out": out})["out"]


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_each_warpgroup_its_rows(level):
    assert np.array_equal(_run(_apart(), level), X + 1.0)


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_without_the_index_rows_stay_unwritten(level):
    got = _run(_apart(index=False), level)
    assert np.array_equal(got[:64], X[:64] + 1.0) and np.isnan(got[64:]).all()


def test_one_copy_of_the_code_and_a_barrier_per_warpgroup():
    m = _apart().module
    text = str(m)
    assert "layout.warp_specialize warpgroups(3, 1) apart(0)" in text and "layout.warpgroup_index" in text
    again = parse_module(text, "apart")
    assert str(again) == text
    run_pipeline(m, "default")
    lowered = str(m)
    assert "cuda.warp_specialize warpgroups(3, 1) apart(0)" in lowered
    assert str(parse_module(lowered, "apart")) == lowered
    cuda = emit(m, "cuda")
    assert "if (threadIdx.x < 384) {  // warpgroups 0..2" in cuda
    assert cuda.count("cp.async.bulk.tensor.2d.global.shared::cta") == 1
    assert 'asm volatile("bar.sync %0, 128;" :: "r"((int)(1 + ' in cuda
    assert compile_sm90_or_skip(cuda).cubin


def test_the_index_needs_a_region_run_apart():
    p = Program("noapart")
    with p.launch(threads=256):
        one, two = p.warp_specialize([1, 1])
        with one:
            p.warpgroup_index()
        with two:
            pass
    with pytest.raises(TilecError, match="layout.warpgroup_index must be inside a layout.warp_specialize "
                                              "region run apart"):
        p.module


@pytest.mark.parametrize("apart,match", [
    ([2], r"apart lists regions in increasing order, each once \(of 2\), got \[2\]"),
    ([1, 0], r"apart lists regions in increasing order, each once \(of 2\), got \[1, 0\]"),
])
def test_apart_names_the_regions(apart, match):
    p = Program("bad")
    with p.launch(threads=512):
        for r in p.warp_specialize([3, 1], apart=apart):
            with r:
                pass
    with pytest.raises(TilecError, match=match):
        p.module


def test_named_barriers_above_the_regions_own():
    """A region of 3 warpgroups run apart takes barriers 1..3, the next region 4: a
    `layout.named_barrier` of the program's own starts at 5."""
    p = Program("ids")
    with p.launch(threads=512):
        three, other = p.warp_specialize([3, 1], apart=[0])
        with three:
            pass
        with other:
            p.named_barrier("arrive", 4, 128)
    with pytest.raises(TilecError, match=r"named_barrier id must be in \[5, 16\)"):
        p.module
