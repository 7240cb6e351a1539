"""Layouts as Python objects under `tilec` (api/layouts.py): printable, composable, drawn
by `tilec.show`, and taken by the builder wherever a layout is asked for."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
from tilec.support.diagnostics import TilecError


def test_layout_objects_print_as_their_constructor_and_short_form():
    L = tilec.BlockedLayout([1, 4], [4, 8], [2, 1], [1, 0])
    assert repr(L) == "BlockedLayout([1, 4], [4, 8], [2, 1], [1, 0])"
    assert str(L) == "blocked<spt=[1,4], tpw=[4,8], wpc=[2,1], order=[1,0]>"
    assert repr(tilec.SliceLayout(1, L)) == f"SliceLayout(1, {L!r})"
    assert repr(tilec.Layout((4, 8), (8, 1))) == "Layout((4, 8), (8, 1))"
    assert str(tilec.Layout((4, 8), (8, 1))) == "(4,8):(8,1)"


def test_layouts_compose():
    A = tilec.Layout((4, 8), (8, 1))
    assert str(A.compose(tilec.Layout(4, 2))) == "(2,2):(16,1)"      # CuTe's composition, column-major coordinates
    L = tilec.BlockedLayout([1, 4], [4, 8], [2, 1], [1, 0])
    assert L.shape_per_cta == (8, 32) and L.warp_tile().shape_per_cta == (4, 32)
    assert tilec.SliceLayout(0, L).rank == 1


def test_show_draws_owners_of_a_blocked_layout_on_its_cta_tile():
    text = tilec.show(tilec.BlockedLayout([1, 4], [4, 8], [2, 1], [1, 0]))
    lines = text.splitlines()
    assert lines[0] == "blocked<spt=[1,4], tpw=[4,8], wpc=[2,1], order=[1,0]> on 8x32:"
    assert lines[1].startswith("[[ T0:0,  T0:1,  T0:2,  T0:3,  T1:0,")
    assert lines[-1].endswith("T63:3]]") and len(lines) == 9


def test_show_draws_a_slice_and_a_cute_layout():
    L = tilec.BlockedLayout([1, 4], [4, 8], [2, 1], [1, 0])
    assert tilec.show(tilec.SliceLayout(1, L), [8]).splitlines()[1].startswith("[  T0:0| T1:0|")
    grid = tilec.show(tilec.Layout((2, 3), (3, 1))).splitlines()
    assert grid[0] == "(2,3):(3,1)" and grid[3] == " 0  | 0 | 1 | 2 |" and grid[5] == " 1  | 3 | 4 | 5 |"
    with pytest.raises(TilecError, match="needs the tensor's shape"):
        tilec.show(tilec.SliceLayout(1, L))


def test_show_draws_a_traced_tensor_and_the_builder_takes_layout_objects():
    p = tilec.Program("k")
    a = p.view(p.pointer("a", "f32"), "(8,32):(32,1)")
    L = tilec.BlockedLayout([1, 4], [4, 8], [2, 1], [1, 0])
    with p.launch(grid=(1, 1, 1), threads=64):
        x = p.load(a, L)
        assert tilec.show(x) == tilec.show(L)
        assert tilec.show(p.reduce(x, 1, "max")) == tilec.show(tilec.SliceLayout(1, L), [8])
        p.store(x * 2.0, a)
    assert tilec.show(a).startswith("(8,32):(32,1)")
    out = tilec.run_reference(p, {"a": np.arange(256, dtype=np.float32)})["a"]
    assert np.array_equal(out, np.arange(256, dtype=np.float32) * 2)
