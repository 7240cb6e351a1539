"""An oracle for whole-tensor copies that shares no code with tilec.

`expected_copy(src_layout, dst_layout, src, dst)` computes what `layout.copy` between two
views with these CuTe layouts must leave in `dst`, from the layouts' text alone: a tiny
parser of `shape:stride` (nested tuples allowed), CuTe's coordinate order (a nested mode's
first sub-mode runs fastest), and `index = sum(coordinate * stride)`. Nothing here imports
tilec, so a bug in `dialects/views.py` or `dialects/cute.py` that the passes, the verifier
and the reference executor share cannot hide from it.

    after = run_pipeline(parse_module(text), "tile,distribute,vectorize")
    got = run(after, {"src": src, "dst": dst})["dst"]
    assert np.array_equal(got, expected_copy(SRC, DST, src, dst))
"""

from __future__ import annotations

import itertools
import re

import numpy as np

Tree = int | tuple


def _parse_tuple(text: str) -> Tree:
    tokens = re.findall(r"\(|\)|,|-?\d+", text)
    pos = 0

    def item() -> Tree:
        nonlocal pos
        if tokens[pos] == "(":
            pos += 1
            parts = [item()]
            while tokens[pos] == ",":
                pos += 1
                parts.append(item())
            assert tokens[pos] == ")", text
            pos += 1
            return tuple(parts)
        value = int(tokens[pos])
        pos += 1
        return value

    tree = item()
    assert pos == len(tokens), text
    return tree


def parse(layout: str) -> tuple[Tree, Tree]:
    """`"(64,(4,8)):(1,(64,256))"` -> (shape, stride) as nested tuples of ints."""
    shape, stride = layout.split(":")
    return _parse_tuple(shape), _parse_tuple(stride)


def _size(shape: Tree) -> int:
    return shape if isinstance(shape, int) else int(np.prod([_size(s) for s in shape]))


def _offset(coord: int, shape: Tree, stride: Tree) -> int:
    """Offset of the 1-D coordinate `coord` within one mode (colexicographic split)."""
    if isinstance(shape, int):
        return coord * stride
    total = 0
    for sub_shape, sub_stride in zip(shape, stride):
        n = _size(sub_shape)
        total += _offset(coord % n, sub_shape, sub_stride)
        coord //= n
    return total


def _modes(layout: str) -> list[tuple[Tree, Tree]]:
    shape, stride = parse(layout)
    if isinstance(shape, int):
        return [(shape, stride)]
    return list(zip(shape, stride))


def offsets(layout: str) -> np.ndarray:
    """The offset of every logical element, indexed by the top-level coordinates."""
    modes = _modes(layout)
    dims = [_size(s) for s, _ in modes]
    out = np.zeros(dims, dtype=np.int64)
    for coord in itertools.product(*[range(d) for d in dims]):
        out[coord] = sum(_offset(c, s, d) for c, (s, d) in zip(coord, modes))
    return out


def cosize(layout: str) -> int:
    """How many elements a buffer needs for `layout`: the largest offset + 1."""
    return int(offsets(layout).max()) + 1


def expected_copy(src_layout: str, dst_layout: str, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """`dst` after `layout.copy` of the view `src_layout` of `src` into the view
    `dst_layout` of `dst` (same logical shape); elements outside the destination's
    footprint keep their values."""
    s, d = offsets(src_layout), offsets(dst_layout)
    assert s.shape == d.shape, (src_layout, dst_layout)
    out = dst.copy()
    out[d.ravel()] = src[s.ravel()]
    return out
