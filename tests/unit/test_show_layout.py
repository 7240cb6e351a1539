"""`tilec show-layout` / `tilec.tools.show_layout`: text pictures match CuTe's
print_layout and the Triton Gluon layouts tutorial, the SVG is well-formed with one
rect per cell, errors are TilecErrors."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tilec.support.diagnostics import TilecError
from tilec.dialects import cute
from tilec.dialects.distributed import BlockedLayout
from tilec.tools import show_layout
from tilec.tools.show_layout import render_convert, render_layout

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for helpers
from helpers.gluon_tables import (  # noqa: E402
    BROADCAST_32x8_AS_PRINTED,
    CTA_TILES_128x128,
    THREAD_TILE_COL_MAJOR,
    THREAD_TILE_ROW_MAJOR,
    WARP_THREADS,
    WARP_TILE,
)

GLUON = "[2,4],[16,2],[2,2],[1,0]"
GLUON_ATTR = (
    "#layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [16, 2], "
    "warpsPerCTA = [2, 2], order = [1, 0]}>"
)

CUTE_4x8 = """\
(4,8):(8,1)
       0    1    2    3    4    5    6    7 
    +----+----+----+----+----+----+----+----+
 0  |  0 |  1 |  2 |  3 |  4 |  5 |  6 |  7 |
    +----+----+----+----+----+----+----+----+
 1  |  8 |  9 | 10 | 11 | 12 | 13 | 14 | 15 |
    +----+----+----+----+----+----+----+----+
 2  | 16 | 17 | 18 | 19 | 20 | 21 | 22 | 23 |
    +----+----+----+----+----+----+----+----+
 3  | 24 | 25 | 26 | 27 | 28 | 29 | 30 | 31 |
    +----+----+----+----+----+----+----+----+"""


def _no_line_end_commas(s: str) -> str:
    return "\n".join(line.rstrip().rstrip(",") for line in s.splitlines())


@pytest.mark.parametrize("spec", [GLUON, GLUON_ATTR])
def test_gluon_tutorial_tables(spec):
    assert render_layout(spec, picture="thread") == THREAD_TILE_ROW_MAJOR
    assert render_layout(spec, picture="warp-threads", rows=(2, 2)) == WARP_THREADS
    assert render_layout(spec, picture="warp", rows=(4, 4)) == WARP_TILE
    assert render_layout(spec, "128x128", picture="cta") == CTA_TILES_128x128
    got = render_layout(spec, "32x8", rows=(2, 2), cols=(1, 1))
    assert _no_line_end_commas(got) == _no_line_end_commas(BROADCAST_32x8_AS_PRINTED)


def test_gluon_tutorial_col_major_thread_tile():
    assert render_layout("[2,4],[16,2],[2,2],[0,1]", picture="thread") == THREAD_TILE_COL_MAJOR


def test_blocked_64x16_is_the_block():
    text = render_layout(GLUON, "64x16")
    lines = text.splitlines()
    assert len(lines) == 64
    assert lines[0].startswith("[[  T0:0,   T0:1,   T0:2,   T0:3,   T1:0,")
    assert lines[-1].endswith("T127:4, T127:5, T127:6, T127:7]]")
    assert render_layout(BlockedLayout([2, 4], [16, 2], [2, 2], [1, 0]), [64, 16]) == text


def test_cute_print_layout():
    assert render_layout("(4,8):(8,1)") == CUTE_4x8
    assert render_layout("#layout.cute<(4,8):(8,1)>") == CUTE_4x8
    assert render_layout(cute.make_layout((4, 8), (8, 1))) == CUTE_4x8
    one_d = render_layout("8:2").splitlines()
    assert one_d[0] == "8:2" and one_d[3] == " 0  |  0 |  2 |  4 |  6 |  8 | 10 | 12 | 14 |"


def test_thread_value():
    text = render_layout("((4,8),4):((32,1),8)", "8x16", kind="tv")
    rows = text.splitlines()
    assert rows[0] == "((4,8),4):((32,1),8)"
    assert "|  T0V0 |  T0V1 |  T0V2 |  T0V3 |  T1V0 |" in rows[3]
    assert "|  T4V0 |" in rows[5]


def test_convert_counts_moves():
    text = render_convert("[1,4],[8,4],[4,1],[1,0]", "[1,4],[8,4],[4,1],[1,0]", "32x16")
    assert text.startswith("before: ") and "\n\nafter: " in text
    assert text.endswith("0 of 512 elements change thread (0 within a warp, 0 across warps)")
    text = render_convert("[1,4],[8,4],[4,1],[1,0]", "[4,1],[4,8],[1,4],[0,1]", "32x32")
    assert "elements change thread" in text.splitlines()[-1]


def _svg_cells(svg: str):
    root = ET.fromstring(svg.encode())
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    return [r for r in root.iter(f"{ns}rect") if r.get("class") == "cell"]


def test_svg_one_rect_per_cell():
    cells = _svg_cells(render_layout(GLUON, "64x16", fmt="svg"))
    assert len(cells) == 64 * 16
    colours = {c.get("fill") for c in cells}
    assert len(colours) > 1
    assert len(_svg_cells(render_layout("(4,8):(8,1)", fmt="svg"))) == 32
    assert len(_svg_cells(render_layout("((4,8),4):((32,1),8)", "8x16", kind="tv", fmt="svg"))) == 128
    assert len(_svg_cells(render_convert(GLUON, "[2,4],[2,16],[2,2],[0,1]", "64x16", fmt="svg"))) == 2 * 64 * 16


def test_svg_colour_is_per_thread():
    root = ET.fromstring(render_layout("[1,1],[1,32],[1,1],[1,0]", "1x64", fmt="svg").encode())
    ns = "{http://www.w3.org/2000/svg}"
    fills = [r.get("fill") for r in root.iter(f"{ns}rect") if r.get("class") == "cell"]
    assert fills[:32] == fills[32:]  # thread t holds columns t and t + 32
    assert len(set(fills[:32])) == 32


def test_cli(tmp_path, capsys):
    svg = tmp_path / "out.svg"
    assert show_layout.main(["--blocked", GLUON, "--shape", "64x16", "--svg", str(svg)]) == 0
    assert capsys.readouterr().out.startswith("[[  T0:0,")
    assert len(_svg_cells(svg.read_text())) == 64 * 16


def test_png_without_converter(monkeypatch, tmp_path):
    import builtins
    import shutil

    real_import = builtins.__import__

    def no_cairosvg(name, *a, **k):
        if name == "cairosvg":
            raise ImportError(name)
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_cairosvg)
    monkeypatch.setattr(shutil, "which", lambda tool: None)
    with pytest.raises(TilecError, match="--png needs an SVG converter"):
        show_layout.to_png(render_layout("(2,2):(2,1)", fmt="svg"), str(tmp_path / "x.png"))


def test_png_with_cairosvg(tmp_path):
    """cairosvg is a [dev] dependency: this runs everywhere the tests run."""
    from PIL import Image

    out = tmp_path / "x.png"
    show_layout.to_png(render_layout("(4,8):(8,1)", fmt="svg"), str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(out).convert("RGB")
    assert image.width > image.height > 0  # 4 rows of 8 cells: wider than tall
    colours = {colour for _, colour in image.getcolors(maxcolors=1 << 16)}
    assert len(colours) >= 8, "the cells are coloured by their index: expected several colours"


@pytest.mark.parametrize(
    "args, message",
    [
        (("(4,8):(1)",), "invalid layout"),
        (("(4,8",), "invalid layout"),
        (("[2,4],[16,2],[2,2],[1,1]",), "invalid blocked layout"),
        ((GLUON,), "needs the tensor shape"),
        (("((4,8),4):((32,1),8)", None, "tv"), "needs the tile shape"),
        (("(4,8):(8,1)", "4x", None), "invalid shape"),
        (("(?,8):(8,1)",), "dynamic"),
        (("(2,2,2):(4,2,1)",), "one or two modes"),
    ],
)
def test_errors(args, message):
    with pytest.raises(TilecError, match=message):
        render_layout(*args)
