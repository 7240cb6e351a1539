"""The layout arithmetic of view operations, shared by verifiers, passes, the reference
executor and the lowering so that all four agree by construction.

A view is (storage, base offset, layout[, vec layout][, mask]). Each view op below maps
the layout of its source to the layout of its result (static, checked by verifiers) and
contributes a run-time base offset (dynamic, from tile coordinates or thread ids).

Modes are the *top-level* modes of a layout; a mode may be hierarchical, and a 1-D
index inside a mode is decomposed colexicographically, as in CuTe.

Masks. A masked view remembers, for each top-level mode k, where its elements lie in
the coordinate space of the tensor that was tiled ("root" mode k of extent `bound_k`):

    root coordinate of element x, vector lane j  =  off_k + scale_k * x + lscale_k * j

and the element exists iff 0 <= root coordinate < bound_k for every k. `MaskMap` holds
(off, scale, lscale) per mode; `off` is run-time (it depends on block and thread ids).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from . import cute
from .errors import LayoutError

WILDCARD = -1  # a slice coordinate `_`: the mode is kept
DYNAMIC = -2  # a slice coordinate given by an index operand


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def modes(layout: cute.Layout) -> list[cute.Layout]:
    """The top-level modes of a layout (a rank-0 layout counts as one mode)."""
    return layout.modes()


def from_modes(ms: Sequence[cute.Layout]) -> cute.Layout:
    """Concatenate modes into one layout (a single mode stays rank-1)."""
    if len(ms) == 1:
        return ms[0]
    return cute.make_layout(tuple(m.shape for m in ms), tuple(m.stride for m in ms))


def kept_modes(ms: Sequence[cute.Layout]) -> cute.Layout:
    """The layout of the modes a slice keeps, one top-level mode each: CuTe's rule that
    the result's rank is the number of `_`, so `A(2, _)` of a (4,(5,2)) tensor is
    ((5,2)):(...), rank 1, not the rank-2 (5,2):(...) that `A(2, _, _)` would be."""
    if len(ms) == 1 and isinstance(ms[0].shape, tuple):
        return cute.Layout((ms[0].shape,), (ms[0].stride,))
    return from_modes(ms)


@dataclass(frozen=True)
class SliceLeaf:
    """One leaf of a slice coordinate: it fixes (`p >= 0`, or DYNAMIC) or keeps (`p`
    is WILDCARD) the sub-mode `sub` of top-level mode `top`, whose flat leaves are
    `lo:hi` of that mode's leaves."""

    top: int
    lo: int
    hi: int
    sub: cute.Layout
    p: int


def slice_leaves(layout: cute.Layout, pattern: Sequence[int], profile: Sequence[int] = ()) -> list[SliceLeaf]:
    """Walk a slice coordinate over a layout, as CuTe's `slice(coord, layout)` does.

    `pattern` holds the coordinate's leaves in pre-order (an index, WILDCARD or DYNAMIC);
    `profile` its shape: the number of children of each node in pre-order, 0 for a leaf
    (empty: a flat coordinate, one leaf per top-level mode). A tuple coordinate must match
    the nesting of the mode it indexes; a leaf indexes a whole (sub-)mode, a linear index
    over it colexicographically. Raises LayoutError on a coordinate that does not fit."""
    ms = modes(layout)
    prof = list(profile) if profile else [0] * len(pattern)
    leaves, arities = iter(pattern), iter(prof)
    out: list[SliceLeaf] = []

    def walk(top: int, sub: cute.Layout, lo: int) -> None:
        arity = next(arities)
        if arity == 0:
            out.append(SliceLeaf(top, lo, lo + len(_flat(sub)), sub, next(leaves)))
            return
        children = sub.modes() if isinstance(sub.shape, tuple) else []
        if len(children) != arity:
            raise LayoutError(f"a coordinate of {arity} elements for mode {sub} of {len(children) or 1}")
        for child in children:
            walk(top, child, lo)
            lo += len(_flat(child))

    tops = count_roots(prof)
    if tops != len(ms):
        raise LayoutError(f"{tops} coordinates for a view of {len(ms)} modes")
    for top, m in enumerate(ms):
        walk(top, m, 0)
    return out


def count_roots(profile: Sequence[int]) -> int:
    """How many trees a pre-order list of arities holds."""
    roots, pending = 0, 0
    for a in profile:
        if pending == 0:
            roots += 1
        else:
            pending -= 1
        pending += a
    return roots


def sliced_layout(layout: cute.Layout, pattern: Sequence[int], profile: Sequence[int] = ()) -> cute.Layout:
    """The layout a slice keeps: one top-level mode per `_`, in order."""
    return kept_modes([leaf.sub for leaf in slice_leaves(layout, pattern, profile) if leaf.p == WILDCARD])


def mode_sizes(layout: cute.Layout) -> tuple:
    return tuple(m.size() for m in modes(layout))


def is_dynamic(x) -> bool:
    return x is cute.DYN


# ---------------------------------------------------------------- tile (local_tile)


def tile_layout(layout: cute.Layout, tile: Sequence[int]) -> tuple[cute.Layout, bool]:
    """Layout of one tile of `layout` by the tile extents `tile` (one per top-level
    mode), and whether tiles need a mask (an extent that the tile does not divide, or
    a dynamic extent)."""
    ms = modes(layout)
    if len(tile) != len(ms):
        raise LayoutError(
            f"tile {list(tile)} has {len(tile)} extents but layout {layout} has "
            f"{len(ms)} modes"
        )
    out, masked = [], False
    for m, t in zip(ms, tile):
        if t <= 0:
            raise LayoutError(f"tile extent {t} must be positive")
        n = m.size()
        if is_dynamic(n):
            masked = True
        elif t > n and isinstance(m.shape, tuple):
            raise LayoutError(f"tile extent {t} exceeds the hierarchical mode {m} of size {n}")
        elif n % t:  # a partial last tile, or one tile larger than a flat mode (Gluon's
            # XBLOCK > xnumel): masked either way
            masked = True
        out.append(_compose_mode(m, cute.make_layout(t, 1)))
    return from_modes(out), masked


def _compose_mode(mode: cute.Layout, by: cute.Layout) -> cute.Layout:
    """composition(mode, by) for one mode, tolerating a partial last tile of a flat mode
    (CuTe composes a flat mode with any sub-extent)."""
    if not isinstance(mode.shape, tuple):
        return cute.make_layout(by.shape, _mul(mode.stride, by.stride))
    return cute.composition(mode, by)


def _mul(a, b):
    if is_dynamic(a) or is_dynamic(b):
        return cute.DYN
    return a * b


# ---------------------------------------------------------------- vectorize


def vectorize_layout(
    layout: cute.Layout, vector: Sequence[int]
) -> tuple[cute.Layout, cute.Layout]:
    """(outer, vec): the layout of the vectors of `vector` extents per mode, and the
    layout of lanes inside one vector (Mojo `vectorize`, CuTe zipped_divide)."""
    ms = modes(layout)
    if len(vector) != len(ms):
        raise LayoutError(
            f"vector {list(vector)} has {len(vector)} extents but layout {layout} has "
            f"{len(ms)} modes"
        )
    outer, inner = [], []
    for m, v in zip(ms, vector):
        n = m.size()
        if v <= 0 or (not is_dynamic(n) and n % v):
            raise LayoutError(f"vector extent {v} does not divide the mode {m}")
        if is_dynamic(n):
            raise LayoutError(f"vectorizing the dynamic mode {m} requires a static extent")
        outer.append(_compose_mode(m, cute.make_layout(n // v, v)))
        inner.append(_compose_mode(m, cute.make_layout(v, 1)))
    return from_modes(outer), from_modes(inner)


# ---------------------------------------------------------------- distribute


def distribute_layout(layout: cute.Layout, threads: cute.Layout) -> tuple[cute.Layout, bool]:
    """Layout of one thread's fragment when the threads of `threads` (one thread-layout
    mode per view mode) are spread over `layout` (CuTe `local_partition`, Mojo
    `distribute`): thread with coordinate c owns elements c + T*i per mode. Returns
    (fragment layout, needs mask)."""
    ms, ts = modes(layout), modes(threads)
    if len(ms) != len(ts):
        raise LayoutError(
            f"thread layout {threads} has {len(ts)} modes but the view {layout} has {len(ms)}"
        )
    out, masked = [], False
    for m, t in zip(ms, ts):
        n, tn = m.size(), t.size()
        if is_dynamic(n):
            raise LayoutError(f"distributing the dynamic mode {m} requires a static extent")
        if n % tn:
            masked = True
        out.append(_compose_mode(m, cute.make_layout(_ceil_div(n, tn), tn)))
    return from_modes(out), masked


def thread_coord(threads: cute.Layout, tid):
    """Coordinate (one 1-D index per mode of `threads`) of thread `tid`: the c with
    threads(c) == tid. `tid` may be an int or a NumPy integer array."""
    flat = _flat(threads)
    # compact iff the largest offset is size - 1 and no two coordinates collide;
    # for a layout whose strides are products of the extents below them (any order)
    # that is: 1 + sum((s - 1) * d) == size and the strides are distinct prefix products
    cover = 1 + sum((s - 1) * d for s, d in flat)
    strides = sorted((d, s) for s, d in flat if s != 1)
    acc = 1
    for d, s in strides:
        if d != acc:
            cover = -1
        acc *= s
    if cover != threads.size():
        raise LayoutError(f"thread layout {threads} is not a bijection onto [0, {threads.size()})")
    # per flat mode coordinate: (tid // d) % s  (valid because the layout is compact);
    # 0 for a mode of extent 1, whatever its stride (CuTe writes (8,1):(1,0))
    per_flat = [0 if s == 1 else (tid // d) % s for s, d in flat]
    coords, i = [], 0
    for t in modes(threads):
        sub = _flat(t)
        idx, mul = 0, 1
        for s, _ in sub:
            idx = idx + per_flat[i] * mul
            mul *= s
            i += 1
        coords.append(idx)
    return coords


# ---------------------------------------------------------------- evaluation


def _flat(layout: cute.Layout) -> list[tuple[int, int]]:
    shp, std = layout.shape, layout.stride

    def walk(s, d, acc):
        if isinstance(s, tuple):
            for a, b in zip(s, d):
                walk(a, b, acc)
        else:
            acc.append((s, d))
        return acc

    return walk(shp, std, [])


@dataclass(frozen=True)
class IndexArith:
    """The operations of the view arithmetic: on Python ints and NumPy arrays
    (`NUMERIC`: verifiers, passes, the reference executor) or building IR
    (`lower-to-gpu`'s IndexBuilder.arith), so that one implementation serves both."""

    add: Callable[[Any, Any], Any]
    mul: Callable[[Any, Any], Any]
    div: Callable[[Any, Any], Any]
    rem: Callable[[Any, Any], Any]
    sub: Callable[[Any, Any], Any] = operator.sub
    min: Callable[[Any, Any], Any] = np.minimum
    max: Callable[[Any, Any], Any] = np.maximum


NUMERIC = IndexArith(operator.add, operator.mul, operator.floordiv, operator.mod)


def valid_extent(size, mask: MaskMap | None, mode: int, ar: IndexArith = NUMERIC):
    """How many of the `size` elements along top-level `mode` of a view lie inside its
    tensor (all of them without a mask): for each map of the chain, the x in [0, size)
    with off + scale * x < bound, i.e. ceil(max(bound - off, 0) / scale)."""
    n = size
    for m in mask.chain() if mask is not None else ():
        if m.bound[mode] is None:
            continue
        room = ar.max(ar.sub(m.bound[mode], m.off[mode]), 0)
        scale = m.scale[mode]
        n = ar.min(n, ar.div(ar.add(room, scale - 1), scale) if scale != 1 else room)
    return n


def leaves_offset(leaves: Sequence[tuple[Any, Any]], idx, ar: IndexArith = NUMERIC):
    """Offset of the 1-D index `idx` over (extent, stride) leaves, colexicographic."""
    off: Any = 0
    rest = idx
    for k, (s, d) in enumerate(leaves):
        last = k == len(leaves) - 1
        c = rest if last else ar.rem(rest, s)
        if not last:
            rest = ar.div(rest, s)
        off = ar.add(off, ar.mul(c, d))
    return off


def split_index(n_modes: int, size: Callable[[int], Any], idx, ar: IndexArith = NUMERIC) -> list:
    """Per-mode coordinates of the 1-D index `idx` over modes of extents `size(k)`
    (colexicographic; the last mode takes the rest)."""
    out, rest = [], idx
    for k in range(n_modes):
        if k == n_modes - 1:
            out.append(rest)
        else:
            n = size(k)
            out.append(ar.rem(rest, n))
            rest = ar.div(rest, n)
    return out


def eval_mode(mode: cute.Layout, idx, dyn: dict | None = None):
    """Offset of the 1-D index `idx` (int or NumPy array) inside one (possibly nested)
    mode; colexicographic."""
    return leaves_offset(_flat(mode), idx)


def eval_layout(layout: cute.Layout, idx):
    """Offset of logical index `idx` (colexicographic over all modes), vectorised."""
    return eval_mode(layout, idx)


def mode_coords(layout: cute.Layout, idx) -> list:
    """Per top-level mode 1-D coordinates of logical index `idx` (vectorised)."""
    ms = modes(layout)
    return split_index(len(ms), lambda k: ms[k].size(), idx)


def offsets(layout: cute.Layout) -> np.ndarray:
    """All offsets of a static layout in logical-index order (small layouts only)."""
    return np.asarray(eval_layout(layout, np.arange(layout.size(), dtype=np.int64)))


# ---------------------------------------------------------------- masks


@dataclass(frozen=True)
class MaskMap:
    """Per top-level mode: root coordinate = off + scale * x + lscale * lane, which must
    be in [0, bound) (a bound None: the mode never leaves its tensor, no check). `also`
    is a further map the element must satisfy too: the bounds of a masked view that was
    distributed by threads that do not divide its extents (its elements past those
    extents do not exist, even where the root has elements there).

    The entries are numbers (static or NumPy arrays: verifiers, the reference
    executor) or, in `lower-to-gpu`, index SSA values of the kernel being built."""

    off: Sequence
    scale: Sequence
    lscale: Sequence
    bound: Sequence
    also: MaskMap | None = None

    def chain(self) -> list[MaskMap]:
        """This map and every map it is conjoined with."""
        out, m = [], self
        while m is not None:
            out.append(m)
            m = m.also
        return out

    def conjoin(self, other: MaskMap) -> MaskMap:
        """This map, with `other` also to be satisfied (at the end of the chain)."""
        return replace(self, also=other if self.also is None else self.also.conjoin(other))

    @staticmethod
    def for_tile(layout: cute.Layout, tile: Sequence[int], coords: Sequence) -> MaskMap:
        n = len(tile)
        return MaskMap(
            tuple(c * t for c, t in zip(coords, tile)),
            (1,) * n,
            (1,) * n,
            mode_sizes(layout),
        )

    @staticmethod
    def local(extents: Sequence) -> MaskMap:
        """The map of a view's own extents: coordinate x of mode k exists iff x < extents[k]."""
        n = len(extents)
        return MaskMap((0,) * n, (1,) * n, (1,) * n, tuple(extents))

    def tile(self, tile: Sequence[int], coords: Sequence) -> MaskMap:
        return MaskMap(
            tuple(o + s * c * t for o, s, c, t in zip(self.off, self.scale, coords, tile)),
            self.scale,
            self.lscale,
            self.bound,
            self.also.tile(tile, coords) if self.also else None,
        )

    def vectorize(self, vector: Sequence[int]) -> MaskMap:
        return MaskMap(
            self.off,
            tuple(s * v for s, v in zip(self.scale, vector)),
            self.scale,
            self.bound,
            self.also.vectorize(vector) if self.also else None,
        )

    def distribute(self, thread_counts: Sequence[int], tcoords: Sequence) -> MaskMap:
        return MaskMap(
            tuple(o + s * c for o, s, c in zip(self.off, self.scale, tcoords)),
            tuple(s * t for s, t in zip(self.scale, thread_counts)),
            self.lscale,
            self.bound,
            self.also.distribute(thread_counts, tcoords) if self.also else None,
        )

    def valid(self, xs: Sequence, lanes: Sequence | None = None):
        """Whether element (per-mode coordinates xs, per-mode lane coordinates) exists."""
        ok = True
        for m in self.chain():
            for k, x in enumerate(xs):
                r = m.off[k] + m.scale[k] * x
                if lanes is not None:
                    r = r + m.lscale[k] * lanes[k]
                ok = ok & (r >= 0) & (r < m.bound[k])
        return ok


def distributed_mask(
    mask: MaskMap | None, extents: Sequence, thread_counts: Sequence[int], tcoords: Sequence
) -> MaskMap:
    """The mask of a masked view of `extents` (mask None: only its own extents bound it)
    distributed by `thread_counts` threads per mode at thread coordinates `tcoords`.
    Where the threads do not divide an extent, the view's own extents bound the
    fragment too (`also`): element c + T*i exists only if it is below the extent."""
    base = mask or MaskMap.local(extents)
    out = base.distribute(thread_counts, tcoords)
    if mask is not None and any(
        not isinstance(n, int) or n % t for n, t in zip(extents, thread_counts)
    ):
        out = out.conjoin(MaskMap.local(extents).distribute(thread_counts, tcoords))
    return out
