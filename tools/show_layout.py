"""`tilec show-layout`: draw a layout as text (CuTe `print_layout` / Gluon tutorial
tables) or as an SVG / PNG grid.

    tilec show-layout '(4,8):(8,1)'                                  CuTe layout: offsets
    tilec show-layout --tv '((4,8),4):((32,1),8)' --shape 8x16       thread-value layout: T<t>V<v>
    tilec show-layout --blocked '[2,4],[16,2],[2,2],[1,0]' --shape 64x16
    tilec show-layout --blocked '#layout.blocked<{sizePerThread = [2, 4], ...}>' --shape 64x16
    tilec show-layout --convert A B --shape 32x32                    before / after
    tilec show-layout ... --svg out.svg [--png out.png]

A distributed layout (`--blocked`: a blocked shorthand `[spt],[tpw],[wpc],[order]`, or
the text of a `#layout.blocked`, `#layout.slice` or `#layout.linear`) draws, for each
element, the threads and registers that hold it, `T<thread>:<register>` with thread =
warp * 32 + lane, as the Gluon layouts tutorial does; `--picture` draws the tutorial's
other pictures of a blocked layout (one thread's tile, the threads of a warp, a warp's
tile, the copies of the CTA tile). Text comes from `tilec.dialects.render`.

Python API: `render_layout(layout, shape=None, kind=None, fmt="text")` and
`render_convert(a, b, shape, fmt="text")` return the text or the SVG document.
"""

from __future__ import annotations

import argparse
import colorsys
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from tilec.support.diagnostics import TilecError
from tilec.dialects import cute, render
from tilec.dialects.distributed import BlockedLayout
from tilec.dialects.errors import LayoutError
from tilec.dialects.linear import LinearLayout

__all__ = ["Grid", "layout_grid", "parse_layout", "render_convert", "render_layout", "to_png", "to_svg", "main"]

KINDS = ("cute", "tv", "distributed")
DISTRIBUTED_PREFIXES = (
    "#layout.blocked", "#layout.slice", "#layout.linear", "#layout.nvidia_mma", "#layout.dot_op",
)
"""Attribute texts drawn as distributed layouts (an nvmma_shared draws as CuTe)."""
PICTURES = ("tensor", "thread", "warp-threads", "warp", "cta")


# ------------------------------------------------------------------------ parsing


def _parse_attr(text: str):
    """An attribute of the layout dialect from its text (TilecError if malformed)."""
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from tilec.compiler.pipeline import make_context

    try:
        return Parser(make_context(), text, "<layout>").parse_attribute()
    except ParseError as e:
        col = e.span.get_location().col
        raise TilecError(f"invalid layout '{text}': {e.msg} (at column {col})") from None
    except (DiagnosticException, ValueError) as e:
        raise TilecError(f"invalid layout '{text}': {e}") from None


_BLOCKED_SHORTHAND = re.compile(r"^\s*\[[^\]]*\](\s*,\s*\[[^\]]*\]){3}\s*$")


def parse_layout(text: str, kind: str | None = None) -> tuple[str, Any]:
    """(kind, layout object) of a layout's text.

    * `cute` / `tv`: CuTe `shape:stride` (`(4,8):(8,1)`, optionally `#layout.cute<...>`)
      -> `cute.Layout`;
    * `distributed`: `[spt],[tpw],[wpc],[order]` -> `BlockedLayout`, or the text of a
      `#layout.blocked` / `slice` / `linear` / `nvidia_mma` / `dot_op` -> that attribute.

    Without `kind`, those attributes and the shorthand are distributed and anything
    else is CuTe (`#layout.nvmma_shared` draws as its swizzled CuTe layout)."""
    from tilec.dialects.layout_attrs import (
        ComposedLayoutAttr,
        CuteLayoutAttr,
        DistributedLayoutAttr,
    )

    t = text.strip()
    if kind is None:
        kind = "distributed" if t.startswith(DISTRIBUTED_PREFIXES) or _BLOCKED_SHORTHAND.match(t) else "cute"
    if kind not in KINDS:
        raise TilecError(f"unknown layout kind '{kind}' (choose from {', '.join(KINDS)})")
    if kind == "distributed":
        if _BLOCKED_SHORTHAND.match(t):
            try:
                lists = [[int(x) for x in re.findall(r"-?\d+", g)] for g in re.findall(r"\[([^\]]*)\]", t)]
                return kind, BlockedLayout(*lists)
            except (LayoutError, ValueError) as e:
                raise TilecError(f"invalid blocked layout '{t}': {e}") from None
        attr = _parse_attr(t)
        if not isinstance(attr, DistributedLayoutAttr):
            raise TilecError(
                f"expected a distributed layout ([spt],[tpw],[wpc],[order] or a #layout.blocked, "
                f"#layout.slice, #layout.linear, #layout.nvidia_mma or #layout.dot_op), got '{t}'"
            )
        return kind, attr
    attr = _parse_attr(t if t.startswith("#layout.") else f"#layout.cute<{t}>")
    if (to_view := getattr(attr, "view_layout", None)) is not None:
        attr = to_view()  # a shared layout given by parameters (#layout.nvmma_shared)
    if isinstance(attr, ComposedLayoutAttr):
        return kind, attr.data
    if not isinstance(attr, CuteLayoutAttr):
        raise TilecError(f"expected a CuTe layout such as (4,8):(8,1), got '{t}'")
    if not attr.data.is_static():
        raise TilecError(f"cannot draw the dynamic layout {attr.data}: give every extent and stride")
    return kind, attr.data


def parse_shape(text: str | Sequence[int] | None) -> tuple[int, ...] | None:
    """`64x16` / `64,16` / (64, 16) -> (64, 16)."""
    if text is None or isinstance(text, tuple | list):
        return None if text is None else tuple(int(x) for x in text)
    parts = re.split(r"[x,]", text.strip())
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        raise TilecError(f"invalid shape '{text}': expected extents such as 64x16") from None
    if not shape or any(s <= 0 for s in shape):
        raise TilecError(f"invalid shape '{text}': extents must be positive")
    return shape


def _elide(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*,\s*(\d+)\s*", text)
    if not m:
        raise TilecError(f"invalid elision '{text}': expected HEAD,TAIL such as 2,2")
    return int(m.group(1)), int(m.group(2))


def _linear(layout: Any, shape: Sequence[int] | None) -> LinearLayout:
    """The LinearLayout of a distributed layout (object or attribute) over `shape`."""
    from xdsl.ir import Attribute

    from tilec.dialects.layout_attrs import to_linear

    if isinstance(layout, LinearLayout):
        return layout if shape is None else layout.to_linear(list(shape))
    if shape is None:
        raise TilecError("drawing a distributed layout needs the tensor shape: --shape MxN")
    if isinstance(layout, Attribute):
        return to_linear(layout, list(shape))
    return layout.to_linear(list(shape))


# ------------------------------------------------------------------------ grids


@dataclass
class Grid:
    """What a picture shows: a title and, for each (row, col), a label, the thread
    that colours it (None: no thread) and a tooltip."""

    title: str
    nrows: int
    ncols: int
    labels: dict[tuple[int, int], str] = field(default_factory=dict)
    threads: dict[tuple[int, int], int] = field(default_factory=dict)
    tips: dict[tuple[int, int], str] = field(default_factory=dict)
    colour_by: str = "thread"


def _rc(coord: tuple[int, ...]) -> tuple[int, int]:
    return (0, coord[0]) if len(coord) == 1 else (coord[0], coord[1])


def layout_grid(layout: Any, shape: Sequence[int] | None = None, kind: str | None = None) -> Grid:
    """The cells of a layout's picture (see `render_layout` for the arguments)."""
    if isinstance(layout, str):
        kind, layout = parse_layout(layout, kind)
    kind = kind or ("cute" if isinstance(layout, cute.Layout) else "distributed")
    try:
        if kind == "cute":
            modes = layout.modes() if isinstance(layout, cute.Layout) else None
            if modes is None or len(modes) > 2:
                raise TilecError(f"a CuTe picture is of a layout of one or two modes, got {layout}")
            nr, nc = (1, modes[0].size()) if len(modes) == 1 else (modes[0].size(), modes[1].size())
            g = Grid(str(layout), nr, nc, colour_by="offset")
            for m in range(nr):
                for n in range(nc):
                    off = int(layout(n) if len(modes) == 1 else layout(m, n))
                    g.labels[(m, n)] = str(off)
                    g.threads[(m, n)] = off
                    g.tips[(m, n)] = f"({m},{n}) -> {off}"
            return g
        if kind == "tv":
            if shape is None or len(shape) != 2:
                raise TilecError("a thread-value layout needs the tile shape: --shape MxN")
            if layout.rank() != 2:
                raise TilecError(f"a thread-value layout has two modes (thread, value), got {layout}")
            nr, nc = shape
            g = Grid(str(layout), nr, nc)
            owner: dict[tuple[int, int], tuple[int, int]] = {}
            for t in range(layout[0].size()):
                for v in range(layout[1].size()):
                    idx = int(layout(t, v))
                    if not 0 <= idx < nr * nc:
                        raise TilecError(f"{layout} maps (T{t}, V{v}) to {idx}, outside the {nr}x{nc} tile")
                    cell = (idx % nr, idx // nr)
                    owner[cell] = min(owner.get(cell, (t, v)), (t, v))
            for cell, (t, v) in owner.items():
                g.labels[cell], g.threads[cell] = f"T{t}V{v}", t
                g.tips[cell] = f"({cell[0]},{cell[1]}): thread {t}, value {v}"
            return g
        ll = _linear(layout, shape)
        if ll.rank not in (1, 2):
            raise TilecError(f"pictures are of 1D and 2D tensors, not shape {list(ll.out_shape)}")
        if ll.num_blocks > 1:
            raise TilecError("drawing a layout that spans several blocks is not supported")
        shp = ll.out_shape
        nr, nc = (1, shp[0]) if ll.rank == 1 else shp
        g = Grid(_title(layout, shp), nr, nc)
        lanes = ll.num_lanes
        for coord, owners in ll.owner_map().items():
            cell = _rc(coord)
            if not owners:
                g.labels[cell] = "-"
                continue
            owners = sorted(owners, key=lambda o: (o[0] * lanes + o[1], o[2]))
            w, l, r = owners[0]
            g.labels[cell] = f"T{w * lanes + l}:{r}" + ("+" if len(owners) > 1 else "")
            g.threads[cell] = w * lanes + l
            g.tips[cell] = f"{coord}: " + "; ".join(
                f"warp {w}, lane {l}, register {r} (T{w * lanes + l})" for w, l, r in owners
            )
        return g
    except LayoutError as e:
        raise TilecError(str(e)) from None


def _title(layout: Any, shape: Sequence[int]) -> str:
    if isinstance(layout, BlockedLayout):
        return (
            f"blocked sizePerThread={list(layout.size_per_thread)} threadsPerWarp={list(layout.threads_per_warp)} "
            f"warpsPerCTA={list(layout.warps_per_cta)} order={list(layout.order)}, shape {list(shape)}"
        )
    return f"{layout}, shape {list(shape)}"


# ------------------------------------------------------------------------ text


def _text(kind: str, layout: Any, shape, rows, cols, picture: str) -> str:
    try:
        if kind == "cute":
            title = str(layout)
            if layout.rank() == 1:  # one row, as CuTe draws a 1D layout: (1,N):(0,d)
                layout = cute.make_layout((1, layout.shape), (0, layout.stride))
            if layout.rank() != 2:
                raise TilecError(f"print_layout draws layouts of one or two modes, got {layout}")
            return title + render.render_cute_layout(layout)[len(str(layout)):]
        if kind == "tv":
            if shape is None or len(shape) != 2:
                raise TilecError("a thread-value layout needs the tile shape: --shape MxN")
            return render.render_thread_value(layout, shape)
        if picture != "tensor":
            if not isinstance(layout, BlockedLayout):
                from tilec.dialects.layout_attrs import BlockedLayoutAttr

                if not isinstance(layout, BlockedLayoutAttr):
                    raise TilecError(f"--picture {picture} draws a blocked layout")
                layout = layout.data
            if picture == "thread":
                return render.render_thread_tile(layout)
            if picture == "warp-threads":
                return render.render_warp_threads(layout, rows=rows, cols=cols)
            if picture == "warp":
                return render.render_warp_tile(layout, rows=rows, cols=cols)
            if shape is None:
                raise TilecError("--picture cta needs the tensor shape: --shape MxN")
            return render.render_cta_tiles(layout, list(shape), rows=rows, cols=cols)
        return render.render_distributed(_linear(layout, shape), rows=rows, cols=cols)
    except LayoutError as e:
        raise TilecError(str(e)) from None


def render_layout(
    layout: Any,
    shape: str | Sequence[int] | None = None,
    kind: str | None = None,
    fmt: str = "text",
    *,
    rows: tuple[int, int] | None = None,
    cols: tuple[int, int] | None = None,
    picture: str = "tensor",
) -> str:
    """A picture of one layout.

    `layout` is text (`'(4,8):(8,1)'`, `'[2,4],[16,2],[2,2],[1,0]'`, `'#layout.blocked<...>'`)
    or an object (`cute.Layout`, `BlockedLayout`, `SliceLayout`, `LinearLayout`, or a
    layout attribute); `kind` is `cute` (offsets), `tv` (a CuTe thread-value layout over
    a tile of `shape`) or `distributed` (guessed when not given); `fmt` is `text` or
    `svg`. `rows` / `cols` = (head, tail) elide the middle of big text tables;
    `picture` (text, blocked layouts) is one of the Gluon tutorial's pictures:
    `tensor` (default), `thread`, `warp-threads`, `warp`, `cta`."""
    shape = parse_shape(shape)
    if isinstance(layout, str):
        kind, layout = parse_layout(layout, kind)
    else:
        from tilec.dialects.layout_attrs import CuteLayoutAttr

        if isinstance(layout, CuteLayoutAttr):
            layout = layout.data
        kind = kind or ("cute" if isinstance(layout, cute.Layout) else "distributed")
    if picture not in PICTURES:
        raise TilecError(f"unknown picture '{picture}' (choose from {', '.join(PICTURES)})")
    if fmt == "text":
        return _text(kind, layout, shape, rows, cols, picture)
    if fmt == "svg":
        return to_svg([layout_grid(layout, shape, kind)])
    raise TilecError(f"unknown format '{fmt}' (choose from text, svg)")


def render_convert(a: Any, b: Any, shape: str | Sequence[int], fmt: str = "text", kind: str | None = None) -> str:
    """Before / after pictures of a layout conversion over `shape`, and (for two
    distributed layouts) how many elements change thread."""
    shape = parse_shape(shape)
    if isinstance(a, str):
        kind_a, a = parse_layout(a, kind)
    else:
        kind_a = kind or ("cute" if isinstance(a, cute.Layout) else "distributed")
    if isinstance(b, str):
        kind_b, b = parse_layout(b, kind)
    else:
        kind_b = kind or ("cute" if isinstance(b, cute.Layout) else "distributed")
    ga, gb = layout_grid(a, shape, kind_a), layout_grid(b, shape, kind_b)
    if (ga.nrows, ga.ncols) != (gb.nrows, gb.ncols):
        raise TilecError(f"the layouts draw different shapes: {ga.nrows}x{ga.ncols} and {gb.nrows}x{gb.ncols}")
    ga.title, gb.title = f"before: {ga.title}", f"after: {gb.title}"
    if fmt == "svg":
        return to_svg([ga, gb])
    if fmt != "text":
        raise TilecError(f"unknown format '{fmt}' (choose from text, svg)")
    out = [f"before: {render_layout(a, shape, kind_a)}", f"after: {render_layout(b, shape, kind_b)}"]
    if kind_a == kind_b == "distributed":
        la, lb = _linear(a, shape), _linear(b, shape)
        oa, ob = la.owner_map(), lb.owner_map()
        lanes = la.num_lanes

        def threads(owners):
            return {w * lanes + l for w, l, _ in owners}

        moved = [c for c in oa if not threads(oa[c]) & threads(ob[c])]
        cross = [c for c in moved if not {t // lanes for t in threads(oa[c])} & {t // lanes for t in threads(ob[c])}]
        out.append(
            f"{len(moved)} of {len(oa)} elements change thread "
            f"({len(moved) - len(cross)} within a warp, {len(cross)} across warps)"
        )
    return "\n\n".join(out)


# ------------------------------------------------------------------------ SVG / PNG

CELL_W, CELL_H, MARGIN, TITLE_H, INDEX_W = 56, 24, 12, 22, 28


def _colour(i: int | None) -> str:
    if i is None:
        return "#ffffff"
    h = (i * 0.618033988749895) % 1.0
    r, g, b = colorsys.hls_to_rgb(h, 0.82, 0.65)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def to_svg(grids: Sequence[Grid]) -> str:
    """An SVG document with the grids side by side: one `<rect>` per cell, coloured by
    thread (or offset), with its label as text and a `<title>` tooltip."""
    parts: list[str] = []
    x0, height = MARGIN, 0
    for g in grids:
        w = INDEX_W + g.ncols * CELL_W
        h = TITLE_H + 16 + g.nrows * CELL_H
        parts.append(f'<g class="layout" transform="translate({x0},{MARGIN})">')
        parts.append(f'<text class="title" x="0" y="14" font-size="13" font-weight="bold">{escape(g.title)}</text>')
        top = TITLE_H + 16
        for n in range(g.ncols):
            parts.append(f'<text class="index" x="{INDEX_W + n * CELL_W + CELL_W / 2}" y="{top - 4}" text-anchor="middle" font-size="10" fill="#666">{n}</text>')
        for m in range(g.nrows):
            parts.append(f'<text class="index" x="{INDEX_W - 6}" y="{top + m * CELL_H + CELL_H / 2 + 4}" text-anchor="end" font-size="10" fill="#666">{m}</text>')
            for n in range(g.ncols):
                x, y = INDEX_W + n * CELL_W, top + m * CELL_H
                label = g.labels.get((m, n), "")
                tip = g.tips.get((m, n), "")
                colour = _colour(g.threads.get((m, n)))
                parts.append(
                    f'<rect class="cell" x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" '
                    f'fill="{colour}" stroke="#333" stroke-width="0.5"><title>{escape(tip)}</title></rect>'
                )
                parts.append(f'<text x="{x + CELL_W / 2}" y="{y + CELL_H / 2 + 4}" text-anchor="middle" font-size="11">{escape(label)}</text>')
        parts.append("</g>")
        x0 += w + 2 * MARGIN
        height = max(height, h)
    width, height = x0, height + 2 * MARGIN
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace">\n'
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>\n' + "\n".join(parts) + "\n</svg>\n"
    )


def to_png(svg: str, path: str) -> None:
    """Write `svg` as a PNG with the first converter found: the `cairosvg` package,
    `rsvg-convert`, or ImageMagick (`magick` / `convert`)."""
    try:
        import cairosvg  # type: ignore[import-not-found]
    except ImportError:
        cairosvg = None
    if cairosvg is not None:
        try:
            cairosvg.svg2png(bytestring=svg.encode(), write_to=path)
            return
        except OSError as e:
            raise TilecError(f"cannot write '{path}': {e}") from None
    for tool, args in (
        ("rsvg-convert", ["-f", "png", "-o", path]),
        ("magick", ["svg:-", f"png:{path}"]),
        ("convert", ["svg:-", f"png:{path}"]),
    ):
        exe = shutil.which(tool)
        if exe is None:
            continue
        r = subprocess.run([exe, *args], input=svg.encode(), capture_output=True)
        if r.returncode == 0 and os.path.exists(path):
            return
        why = r.stderr.decode(errors="replace").strip().splitlines()
        raise TilecError(f"{tool} could not convert the SVG to '{path}': {why[0] if why else 'exit status ' + str(r.returncode)}")
    raise TilecError(
        "--png needs an SVG converter: pip install cairosvg, or install rsvg-convert (librsvg) or ImageMagick"
    )


# ------------------------------------------------------------------------ command line


def build_parser() -> argparse.ArgumentParser:
    from tilec.tools.cli_args import ArgumentParser

    p = ArgumentParser(
        prog="tilec show-layout",
        description="Draw a layout: CuTe offsets, thread-value ownership, or a distributed (Gluon) layout.",
    )
    p.add_argument("layout", nargs="?", help="a layout: CuTe '(4,8):(8,1)', or a distributed one (as for --blocked)")
    p.add_argument("--tv", metavar="TV", help="a CuTe thread-value layout, e.g. '((4,8),4):((32,1),8)' (with --shape)")
    p.add_argument("--blocked", metavar="SPEC", help="'[spt],[tpw],[wpc],[order]' or a #layout.blocked/slice/linear")
    p.add_argument("--convert", nargs=2, metavar=("A", "B"), help="draw A before and B after a conversion")
    p.add_argument("--shape", help="tensor / tile shape, e.g. 64x16")
    p.add_argument("--picture", choices=PICTURES, default="tensor",
                   help="for a blocked layout: the tensor (default), one thread's tile, the threads of a warp, a warp's tile, or the CTA tiles")
    p.add_argument("--rows", metavar="HEAD,TAIL", help="show only the first HEAD and last TAIL rows (text)")
    p.add_argument("--cols", metavar="HEAD,TAIL", help="show only the first HEAD and last TAIL columns (text)")
    p.add_argument("--svg", metavar="OUT.svg", help="also write an SVG grid (one cell per element, a colour per thread)")
    p.add_argument("--png", metavar="OUT.png", help="also write a PNG (needs cairosvg, rsvg-convert or ImageMagick)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    given = [x for x in (args.layout, args.tv, args.blocked, args.convert) if x is not None]
    if len(given) != 1:
        raise TilecError("show-layout takes one of: LAYOUT, --tv TV, --blocked SPEC, --convert A B")
    rows, cols = _elide(args.rows), _elide(args.cols)
    if args.convert:
        text = render_convert(*args.convert, args.shape)
        svg = render_convert(*args.convert, args.shape, fmt="svg") if args.svg or args.png else None
    else:
        src, kind = (args.tv, "tv") if args.tv else (args.blocked, "distributed") if args.blocked else (args.layout, None)
        text = render_layout(src, args.shape, kind, rows=rows, cols=cols, picture=args.picture)
        svg = render_layout(src, args.shape, kind, fmt="svg") if args.svg or args.png else None
    sys.stdout.write(text + "\n")
    if args.svg:
        try:
            with open(args.svg, "w", encoding="utf-8") as f:
                f.write(svg)
        except OSError as e:
            raise TilecError(f"cannot write '{args.svg}': {e.strerror}") from None
    if args.png:
        to_png(svg, args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
