"""`tilec.HostTensor`: a view of a NumPy array through a layout, on the host, for the
CPU-side examples of the guides (Mojo's `LayoutTensor` over host memory, CuTe's
`make_tensor(ptr, layout)` on a host pointer).

    a = np.arange(8 * 24, dtype=np.float32)
    A = tilec.HostTensor(a, "(8,24)")           # CuTe: make_tensor(ptr, make_shape(8, 24))
    A[2, 5]                                     # A(2, 5): a[2 + 8 * 5]
    A[2, 5] = 1.0                               # writes a[42]
    T = A.tile((1, 2), (4, 8))                  # local_tile(A, (4, 8), (1, 2)): rows 4..7, cols 16..23
    col = A[:, 5]                               # A(_, 5): a rank-1 view
    V = HostTensor(b, "(16,16):(16,1)").vectorize((1, 4))   # V[i, j] is a vector of 4
    F = V.distribute("(8,4):(4,1)", lane)       # Mojo's distribute[thread_layout](lane)
    A.numpy()                                   # the logical tensor as an array (a copy)
    print(A)                                    # CuTe's print_tensor: ptr[32b] o (8,24):(1,8): ...

Every view shares the array's memory: a write through a tile, slice or fragment writes
the array. The layout arithmetic is tilec's own (`dialects/views.py`: `tile_layout`,
`sliced_layout`, `vectorize_layout`, `distribute_layout`, `thread_coord`), the same
functions the reference executor and the lowering use for `layout.tile`,
`layout.slice`, `layout.vectorize`, `layout.distribute`, `layout.read` and
`layout.write`; coordinates take the three forms of `layout.read` (one index per mode,
one for the whole view, one per leaf of a nested shape) and the print is
`layout.print`'s. A coordinate outside its mode, a tile or fragment that would need a
mask (an extent the tile does not divide) and a layout reaching past the array are
`TilecError`s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tilec.dialects import cute, views
from tilec.dialects import layout_access as la
from tilec.dialects.errors import LayoutError
from tilec.support.diagnostics import TilecError


def _as_layout(layout: str | cute.Layout) -> cute.Layout:
    from tilec.compiler.builder_types import as_layout

    return as_layout(layout)


class HostTensor:
    """A view of `array`'s memory (a contiguous array, taken flat) through `layout`
    (text such as `"(8,24):(1,8)"` or a `cute.Layout`; default: the array's own shape
    and strides, in elements), starting `offset` elements in."""

    def __init__(self, array: np.ndarray, layout: str | cute.Layout | None = None, offset: int = 0,
                 _vec: cute.Layout | None = None):
        if not isinstance(array, np.ndarray):
            raise TilecError(f"HostTensor wraps a NumPy array, not {type(array).__name__}")
        if layout is None:
            if array.ndim == 0:
                raise TilecError("HostTensor of a 0-d array: give a layout")
            strides = tuple(s // array.itemsize for s in array.strides)
            layout = cute.Layout(tuple(array.shape), strides) if array.ndim > 1 else \
                cute.Layout(array.shape[0], strides[0])
            if any(s < 0 for s in strides):
                raise TilecError("HostTensor of an array with negative strides: wrap its base with a layout")
        flat = _flat(array)
        self.storage = flat
        self.layout = _as_layout(layout)
        self.offset = int(offset)
        self.vec = _vec
        if any(views.is_dynamic(s) for s in _leaves(self.layout.shape)):
            raise TilecError(f"a host tensor's layout has static extents, not {self.layout}")
        hi = self.offset + int(self.layout.cosize()) + (int(_vec.cosize()) - 1 if _vec is not None else 0)
        if self.offset < 0 or hi > flat.size:
            raise TilecError(f"layout {self.layout} at offset {self.offset} reaches element {hi - 1} of an "
                             f"array of {flat.size}")

    # -------------------------------------------------------------- facts
    @property
    def shape(self) -> tuple:
        """The extent of each top-level mode (Mojo's `tensor.dim(i)`, CuTe's `size<i>`)."""
        return tuple(int(s) for s in views.mode_sizes(self.layout))

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.storage.dtype

    def __len__(self) -> int:
        return int(self.layout.size())

    def _scalar_only(self, what: str) -> None:
        if self.vec is not None:
            raise TilecError(f"{what} of a vectorized host tensor: {what} before vectorize")

    def _derived(self, layout: cute.Layout, offset: int, vec: cute.Layout | None = None) -> HostTensor:
        return HostTensor(self.storage, layout, offset, vec)

    # -------------------------------------------------------------- views
    def tile(self, coords: Sequence[int], tile: Sequence[int]) -> HostTensor:
        """Mojo's `tensor.tile[*tile](*coords)`, CuTe's `local_tile(A, tile, coords)`
        (`layout.tile`): the tile at block coordinate `coords`."""
        self._scalar_only("tile")
        try:
            lay, masked = views.tile_layout(self.layout, list(tile))
        except LayoutError as e:
            raise TilecError(f"tile: {e}") from None
        if masked:
            raise TilecError(f"tile {list(tile)} does not divide {self.layout}: a host tensor has no masked tiles")
        ms = views.modes(self.layout)
        nt = [int(m.size()) // t for m, t in zip(ms, tile)]
        if len(coords) != len(ms) or any(not 0 <= c < n for c, n in zip(coords, nt)):
            raise TilecError(f"tile coordinate {list(coords)} out of range: {nt} tiles of {list(tile)}")
        off = sum(int(views.eval_mode(m, c * t)) for m, c, t in zip(ms, coords, tile))
        return self._derived(lay, self.offset + off)

    def vectorize(self, vector: Sequence[int]) -> HostTensor:
        """Mojo's `vectorize[*vector]()` (`layout.vectorize`): each element becomes a
        vector of `vector` extents; reading one gives a NumPy array of its lanes."""
        self._scalar_only("vectorize")
        try:
            outer, vec = views.vectorize_layout(self.layout, list(vector))
        except LayoutError as e:
            raise TilecError(f"vectorize: {e}") from None
        return self._derived(outer, self.offset, vec)

    def distribute(self, threads: str | cute.Layout, tid: int) -> HostTensor:
        """Mojo's `distribute[thread_layout](tid)`, CuTe's `local_partition(A, threads,
        tid)` (`layout.distribute`): the fragment thread `tid` owns."""
        thr = _as_layout(threads)
        try:
            lay, masked = views.distribute_layout(self.layout, thr)
            coord = views.thread_coord(thr, int(tid))
        except LayoutError as e:
            raise TilecError(f"distribute: {e}") from None
        if masked:
            raise TilecError(f"distribute: {thr} does not divide {self.layout}: a host tensor has no masked fragments")
        if not 0 <= tid < int(thr.size()):
            raise TilecError(f"distribute: thread {tid} of a thread layout of {thr.size()}")
        off = sum(int(views.eval_mode(m, c)) for m, c in zip(views.modes(self.layout), coord))
        return self._derived(lay, self.offset + off, self.vec)

    def _slice(self, key: tuple) -> HostTensor:
        pattern: list[int] = []
        profile: list[int] = []

        def walk(c) -> None:
            if isinstance(c, tuple):
                profile.append(len(c))
                for x in c:
                    walk(x)
            else:
                profile.append(0)
                pattern.append(views.WILDCARD if isinstance(c, slice) else int(c))

        for c in key:
            walk(c)
        try:
            leaves = views.slice_leaves(self.layout, pattern, profile)
        except LayoutError as e:
            raise TilecError(f"slice: {e}") from None
        off = 0
        for leaf in leaves:
            if leaf.p != views.WILDCARD:
                if not 0 <= leaf.p < int(leaf.sub.size()):
                    raise TilecError(f"slice: coordinate {leaf.p} is out of range for mode {leaf.sub}")
                off += int(views.eval_layout(leaf.sub, leaf.p))
        lay = views.kept_modes([leaf.sub for leaf in leaves if leaf.p == views.WILDCARD])
        return self._derived(lay, self.offset + off, self.vec)

    # -------------------------------------------------------------- elements
    def _element_offset(self, key: tuple) -> int:
        idx = [x for c in key for x in (_leaves(c) if isinstance(c, tuple) else [c])]
        try:
            form = la.coordinate_form(self.layout, len(idx))
        except Exception as e:  # VerifyException: the forms a coordinate may take
            raise TilecError(str(e)) from None
        ms = views.modes(self.layout)
        if form == "linear":
            (i,) = idx
            if not 0 <= i < len(self):
                raise TilecError(f"index {i} out of range for a view of {len(self)} elements")
            return self.offset + int(views.eval_layout(self.layout, int(i)))
        if form == "leaves":
            per, k = [], 0
            for ws in la.leaf_multipliers(self.layout):
                per.append(sum(idx[k + j] * w for j, w in enumerate(ws)))
                k += len(ws)
            idx = per
        for d, (m, i) in enumerate(zip(ms, idx)):
            if not 0 <= i < int(m.size()):
                raise TilecError(f"coordinate {i} out of range for mode {d} ({m}) of {self.layout}")
        return self.offset + sum(int(views.eval_mode(m, int(i))) for m, i in zip(ms, idx))

    def _lanes(self) -> np.ndarray:
        if self.vec is None:
            return np.zeros(1, np.int64)
        return np.asarray(views.eval_layout(self.vec, np.arange(int(self.vec.size()))), np.int64)

    def __getitem__(self, key: Any):
        """An element (a vector of lanes for a vectorized view), or, where the key holds
        a `:` (CuTe's `_`), the slice (`layout.slice`): `A[:, 5]`, `A[(slice(None), 1),
        (0, slice(None), 1)]`."""
        key = key if isinstance(key, tuple) else (key,)
        if any(isinstance(x, slice) for c in key for x in (_leaves(c) if isinstance(c, tuple) else [c])):
            return self._slice(key)
        off = self._element_offset(key)
        if self.vec is None:
            return self.storage[off]
        return self.storage[off + self._lanes()].copy()

    def __setitem__(self, key: Any, value: Any) -> None:
        """Write an element (all lanes of a vector; a scalar is broadcast)."""
        key = key if isinstance(key, tuple) else (key,)
        off = self._element_offset(key)
        self.storage[off + self._lanes()] = value

    def _scalars(self) -> np.ndarray:
        """[elements, lanes]: the storage index of lane j of element i (colexicographic)."""
        base = self.offset + np.asarray(views.eval_layout(self.layout, np.arange(len(self))), np.int64)
        return np.asarray(base, np.int64).reshape(-1, 1) + self._lanes()[None, :]

    def offsets(self) -> np.ndarray:
        """The storage index of every scalar, shaped as `numpy()` is: the mode extents
        (mode 0 fastest in memory order of the elements, as CuTe counts), lanes last for
        a vectorized view."""
        out = self._scalars()
        arr = np.moveaxis(out.T.reshape((out.shape[1], *self.shape), order="F"), 0, -1)
        return arr if self.vec is not None else arr[..., 0]

    def numpy(self) -> np.ndarray:
        """The view's values as an array of its mode extents (lanes last for a vectorized
        view): a copy."""
        return self.storage[self.offsets()]

    def fill(self, values: Any) -> None:
        """Write `values` (broadcast to `numpy()`'s shape) through the view."""
        self.storage[self.offsets()] = np.broadcast_to(values, self.offsets().shape)

    # -------------------------------------------------------------- print
    def __str__(self) -> str:
        """CuTe's `print_tensor` as `layout.print` prints it, with a host pointer:
        `ptr[32b] o LAYOUT:` then the values, row by mode-0 index."""
        from tilec.compiler.builder_types import element_type
        from tilec.dialects import layout_print as lp
        from tilec.dialects.layout_attrs import CuteLayoutAttr, TensorViewType

        t = TensorViewType(element_type(str(self.dtype)), CuteLayoutAttr(self.layout), "gmem", self.vec)
        # print_plan numbers scalars element-major (colexicographic), lanes minor
        text = lp.render(t, self.storage[self._scalars()].reshape(-1)).replace("gmem_ptr", "ptr", 1)
        return text[:-1]  # print() ends the last line

    def __repr__(self) -> str:
        vec = f", vec {self.vec}" if self.vec is not None else ""
        return f"HostTensor({self.dtype}, {self.layout}{vec}, offset {self.offset})"


def _flat(array: np.ndarray) -> np.ndarray:
    flat = array.reshape(-1, order="A")
    if not (np.shares_memory(flat, array) and flat.strides == (array.itemsize,)):
        raise TilecError("HostTensor wraps a contiguous array (its memory taken flat); this one is strided: "
                         "wrap the array it views, with a layout")
    return flat


def _leaves(shape) -> list:
    return [x for s in shape for x in _leaves(s)] if isinstance(shape, tuple) else [shape]
