"""Text pictures of layouts.  Every function returns a string (no trailing newline).

1. :func:`render_distributed`: which thread and register hold each element of a
   tensor under a distributed layout, in the style of the tables of the Triton
   Gluon layouts tutorial::

       [[ T0:0,  T0:1,  T0:2,  T0:3,  T1:0,  T1:1,  T1:2,  T1:3],
        [ T0:4,  T0:5,  T0:6,  T0:7,  T1:4,  T1:5,  T1:6,  T1:7],
        ...
        [T30:4, T30:5, T30:6, T30:7, T31:4, T31:5, T31:6, T31:7]]

   ``T<t>:<r>`` is register ``r`` of thread ``t = warp * lanes_per_warp + lane``;
   an element held by several threads lists them all, ``T0:0| T32:0``.
   :func:`render_thread_tile`, :func:`render_warp_threads`,
   :func:`render_warp_tile`, :func:`render_cta_tiles` draw the tutorial's other
   pictures of a blocked layout.
2. :func:`render_cute_layout`: CuTe's ``print_layout`` grid of offsets of a 2D
   layout, character for character.
3. :func:`render_thread_value`: a ``print_layout``-style grid whose cells name
   the thread and value holding each element, ``T3V1``.

Nothing in this module imports xDSL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tilec.dialects.distributed import BlockedLayout
from tilec.dialects.errors import LayoutError
from tilec.dialects.linear import LinearLayout, _iter_coords

__all__ = [
    "render_distributed",
    "render_thread_tile",
    "render_warp_threads",
    "render_warp_tile",
    "render_cta_tiles",
    "render_cute_layout",
    "render_thread_value",
]

Elide = tuple[int, int] | None


def _linear(layout: Any, shape: Sequence[int] | None) -> LinearLayout:
    if isinstance(layout, LinearLayout):
        ll = layout if shape is None else layout.to_linear(shape)
    else:
        if shape is None:
            raise LayoutError(f"rendering {layout} needs a tensor shape")
        ll = layout.to_linear(shape)
    if ll.num_blocks > 1:
        raise LayoutError("rendering a layout that spans several blocks is not supported")
    return ll


def _pick(n: int, elide: Elide) -> list[int | None]:
    """Indices to show of ``n``; ``None`` marks the ``...``."""
    if elide is None:
        return list(range(n))
    head, tail = elide
    if head < 0 or tail < 0:
        raise LayoutError(f"elision {elide} must be two non-negative counts")
    if head + tail >= n:
        return list(range(n))
    return [*range(head), None, *range(n - tail, n)]


def _join_lines(lines: list[str | None], first: str, rest: str, last: str) -> str:
    """Lines of a bracketed list: ``,`` after entries, a bare `` ...`` for elided ones."""
    out = []
    for k, line in enumerate(lines):
        if line is None:
            text = " ..."
        else:
            text = (first if k == 0 else rest) + line
        if k + 1 < len(lines):
            text += "\n" if line is None else ",\n"
        out.append(text)
    return "".join(out) + last


def _owner_labels(
    ll: LinearLayout, show_thread: bool, show_register: bool
) -> dict[tuple[int, ...], list[str]]:
    lanes = ll.num_lanes
    labels: dict[tuple[int, ...], list[str]] = {}
    for coord, owners in ll.owner_map().items():
        cell: list[str] = []
        for w, l, r in sorted(owners, key=lambda o: (o[0] * lanes + o[1], o[2])):
            t = f"T{w * lanes + l}" if show_thread else "T"
            s = f"{t}:{r}" if show_register else t
            if s not in cell:
                cell.append(s)
        labels[coord] = cell
    return labels


def render_distributed(
    layout: Any,
    shape: Sequence[int] | None = None,
    *,
    rows: Elide = None,
    cols: Elide = None,
    show_thread: bool = True,
    show_register: bool = True,
    collapse: int | None = None,
) -> str:
    """The owners of every element of a 1D or 2D tensor, as the Gluon tutorial draws them.

    ``layout`` is a ``BlockedLayout``, ``SliceLayout`` or ``LinearLayout``;
    ``shape`` the tensor shape (optional for a linear layout).

    * ``rows=(head, tail)`` / ``cols=(head, tail)`` show only the first ``head``
      and last ``tail`` rows / columns, with ``...`` between.
    * ``show_thread=False`` writes ``T:<r>`` (one thread's tile);
      ``show_register=False`` writes ``T<t>`` (a tile of threads).
    * ``collapse=d`` (2D only) draws the 1D list obtained by merging the owners
      along dim ``d``, in order, the first step of the tutorial's slice picture.

    A cell lists every owner sorted by thread then register, joined by ``|``,
    each right-aligned to the widest label drawn.  2D tensors print as nested
    lists, one row per line; 1D tensors one element per line, as in the
    tutorial.  An element that no thread holds is drawn ``-``.
    """
    ll = _linear(layout, shape)
    shp = ll.out_shape
    labels = _owner_labels(ll, show_thread, show_register)
    if collapse is not None:
        if len(shp) != 2 or collapse not in (0, 1):
            raise LayoutError(f"collapse={collapse!r} needs a 2D tensor and dim 0 or 1")
        n, m = shp if collapse == 1 else (shp[1], shp[0])
        merged: dict[tuple[int, ...], list[str]] = {}
        for i in range(n):
            cell: list[str] = []
            for j in range(m):
                cell.extend(labels[(i, j) if collapse == 1 else (j, i)])
            merged[(i,)] = cell
        labels, shp = merged, (n,)
    if len(shp) == 1:
        idx = _pick(shp[0], rows)
        shown = [labels[(i,)] for i in idx if i is not None]
        width = max((len(s) for cell in shown for s in cell), default=1)
        lines = [None if i is None else _cell(labels[(i,)], width) for i in idx]
        return _join_lines(lines, "[ ", "  ", "]")
    if len(shp) == 2:
        ridx, cidx = _pick(shp[0], rows), _pick(shp[1], cols)
        width = max(
            (len(s) for i in ridx if i is not None for j in cidx if j is not None for s in labels[(i, j)]),
            default=1,
        )
        lines: list[str | None] = []
        for i in ridx:
            if i is None:
                lines.append(None)
                continue
            cells = ["..." if j is None else _cell(labels[(i, j)], width) for j in cidx]
            lines.append("[" + ", ".join(cells) + "]")
        return _join_lines(lines, "[", " ", "]")
    raise LayoutError(f"render_distributed draws 1D and 2D tensors, not shape {list(shp)}")


def _cell(owners: list[str], width: int) -> str:
    if not owners:
        return "-".rjust(width)
    return "|".join(s.rjust(width) for s in owners)


def render_thread_tile(layout: BlockedLayout) -> str:
    """The registers of one thread over its ``size_per_thread`` tile: ``[[T:0, T:1, ...]]``."""
    return render_distributed(layout.thread_tile(), layout.size_per_thread, show_thread=False)


def render_warp_threads(layout: BlockedLayout, *, rows: Elide = None, cols: Elide = None) -> str:
    """The threads of one warp over its ``threads_per_warp`` grid: ``[[ T0,  T1], ...]``."""
    lay = BlockedLayout([1] * layout.rank, layout.threads_per_warp, [1] * layout.rank, layout.order)
    return render_distributed(lay, layout.threads_per_warp, rows=rows, cols=cols, show_register=False)


def render_warp_tile(layout: BlockedLayout, *, rows: Elide = None, cols: Elide = None) -> str:
    """The elements one warp holds (``spt * tpw``), as thread:register."""
    return render_distributed(layout.warp_tile(), layout.shape_per_warp, rows=rows, cols=cols)


def render_cta_tiles(layout: BlockedLayout, shape: Sequence[int], *, rows: Elide = None, cols: Elide = None) -> str:
    """How copies of the CTA block tile a larger tensor: ``[[ B0,  B1, ...], ...]``.

    Copy ``B<k>`` is held in registers ``k * prod(size_per_thread)`` onwards of
    every thread; the picture is over the grid ``shape / shape_per_cta``.
    """
    ll = layout.to_linear(shape)
    block = layout.shape_per_cta
    if any(s < b for s, b in zip(ll.out_shape, block)):
        raise LayoutError(f"render_cta_tiles: shape {list(shape)} is smaller than the CTA block {list(block)}")
    grid = [s // b for s, b in zip(ll.out_shape, block)]
    per = 1
    for s in layout.size_per_thread:
        per *= s
    thread0 = {}
    for coord, owners in ll.owner_map().items():
        for w, l, r in owners:
            if w == 0 and l == 0:
                thread0[coord] = r
    cells = {}
    for t in _iter_coords(grid):
        origin = tuple(i * b for i, b in zip(t, block))
        cells[t] = f"B{thread0[origin] // per}"
    if len(grid) == 1:
        idx = _pick(grid[0], rows)
        width = max(len(cells[(i,)]) for i in idx if i is not None)
        return "[" + ", ".join("..." if i is None else cells[(i,)].rjust(width) for i in idx) + "]"
    if len(grid) != 2:
        raise LayoutError("render_cta_tiles draws 1D and 2D tensors")
    ridx, cidx = _pick(grid[0], rows), _pick(grid[1], cols)
    width = max(len(cells[(i, j)]) for i in ridx if i is not None for j in cidx if j is not None)
    lines: list[str | None] = [
        None
        if i is None
        else "[" + ", ".join("..." if j is None else cells[(i, j)].rjust(width) for j in cidx) + "]"
        for i in ridx
    ]
    return _join_lines(lines, "[", " ", "]")


# ------------------------------------------------------------------------ CuTe
def _size(x: Any) -> int:
    if isinstance(x, (tuple, list)):
        p = 1
        for y in x:
            p *= _size(y)
        return p
    return int(x)


def _shape_of(layout: Any) -> Any:
    shape = layout.shape
    return shape() if callable(shape) else shape


def _grid(
    title: str, nrows: int, ncols: int, cell: Callable[[int, int], str], width: int
) -> str:
    """CuTe's console table: column indices, ``+---+`` rules, ``| x |`` cells, row indices."""
    rule = "    " + ("+" + "-" * (width + 2)) * ncols + "+"
    lines = [title, "    " + "".join(f"  {n:>{width}} " for n in range(ncols))]
    for m in range(nrows):
        lines.append(rule)
        lines.append(f"{m:2d}  " + "".join(f"| {cell(m, n):>{width}} " for n in range(ncols)) + "|")
    lines.append(rule)
    return "\n".join(lines)


def render_cute_layout(layout: Any) -> str:
    """CuTe's ``print_layout`` of a 2D layout: the offset of every ``(m, n)``.

    ``layout`` is duck-typed: ``.shape`` with two top-level modes, ``str()`` its
    text form, and ``layout(m, n)`` the offset.  The output is what CuTe prints,
    without the final newline: the layout, a row of column indices, and a grid
    whose cells are ``num_digits(cosize)`` wide.
    """
    shape = _shape_of(layout)
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise LayoutError(f"render_cute_layout needs a rank-2 layout, got {layout}")
    nrows, ncols = _size(shape[0]), _size(shape[1])
    vals = {(m, n): int(layout(m, n)) for m in range(nrows) for n in range(ncols)}
    cosize = max(vals.values(), default=-1) + 1
    width = len(str(cosize))
    return _grid(str(layout), nrows, ncols, lambda m, n: str(vals[(m, n)]), width)


def render_thread_value(layout: Any, shape: Sequence[int] | None = None) -> str:
    """A grid naming, for each element of a 2D tile, the thread and value that hold it: ``T3V1``.

    * For a distributed layout (``BlockedLayout``, ``SliceLayout``,
      ``LinearLayout``) over a 2D ``shape``: thread ``warp * lanes + lane`` and
      value = register.
    * For a CuTe thread-value layout (duck-typed: ``.shape`` with two top-level
      modes ``(threads, values)``, ``layout(t, v)`` the index of an element in
      a tile of ``shape = (M, N)``, column-major as in CuTe, ``m + n * M``).

    Where several (thread, value) pairs hold an element, the cell names the
    lowest thread, then the lowest value.  The grid has CuTe's ``print_layout``
    frame, titled with the layout's text form.
    """
    owner: dict[tuple[int, int], tuple[int, int]] = {}
    if isinstance(layout, LinearLayout) or hasattr(layout, "to_linear"):
        ll = _linear(layout, shape)
        if ll.rank != 2:
            raise LayoutError(f"render_thread_value draws 2D tensors, not shape {list(ll.out_shape)}")
        lanes = ll.num_lanes
        for coord, owners in ll.owner_map().items():
            if owners:
                owner[coord] = min((w * lanes + l, r) for w, l, r in owners)
        nrows, ncols = ll.out_shape
    else:
        if shape is None or len(shape) != 2:
            raise LayoutError("render_thread_value of a CuTe layout needs the tile shape (M, N)")
        tv_shape = _shape_of(layout)
        if not isinstance(tv_shape, (tuple, list)) or len(tv_shape) != 2:
            raise LayoutError(f"render_thread_value needs a (thread, value) layout, got {layout}")
        nrows, ncols = shape
        for t in range(_size(tv_shape[0])):
            for v in range(_size(tv_shape[1])):
                idx = int(layout(t, v))
                if not 0 <= idx < nrows * ncols:
                    raise LayoutError(f"{layout} maps (T{t}, V{v}) to {idx}, outside the {nrows}x{ncols} tile")
                cell = (idx % nrows, idx // nrows)
                if cell not in owner or (t, v) < owner[cell]:
                    owner[cell] = (t, v)
    labels = {c: f"T{t}V{v}" for c, (t, v) in owner.items()}
    width = max((len(s) for s in labels.values()), default=1)
    return _grid(str(layout), nrows, ncols, lambda m, n: labels.get((m, n), "-"), width)
