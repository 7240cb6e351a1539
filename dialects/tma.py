"""When a tile copy between global and shared memory can be one TMA bulk tensor copy,
and the tensor map it needs, in pure Python (nothing here imports xDSL).

The Tensor Memory Accelerator (`cp.async.bulk.tensor`, sm_90) copies a *box* of a
tensor described by a `CUtensorMap`: up to 5 dimensions, dimension 0 the contiguous
one (element stride 1), the others with byte strides that are multiples of 16; the
box extents at most 256 each, its dimension-0 bytes a multiple of 16. In shared
memory the box lies compact, dimension 0 fastest, then dimension 1, ..., optionally
permuted by a swizzle of 32, 64 or 128 bytes (16-byte chunk `c` of each
`swizzle`-byte row `r` goes to chunk `c ^ (r mod swizzle/16)`, i.e. CuTe's
`Swizzle<log2(swizzle/16), 4, 3>` on byte offsets), which needs dimension 0 of the
box to fit in one swizzle row. A box narrower than its swizzle row takes a whole swizzle
row a row (`TmaGeometry.pad`), so it lands as the first columns of a panel of the swizzle's
width: the H200's TMA (b3k50, `dev/experiments/tma_narrow_probe.py`) puts row r of a 32 x 8
box of 2-byte elements under the 128-byte swizzle at byte 128 r, its chunks swizzled as the
panel's, leaves the rest of each row unwritten and counts the box's 512 bytes. Box elements
outside the tensor read as zero (loads) and are not written (stores).

`tma_geometry` takes the layout of the global view the tile is cut from, the tile
extents (one per top-level mode), the element size, what the global view promises of
its base address and dynamic strides, and the shared-memory layout; it returns the
`TmaGeometry` (which view mode each TMA dimension is, the box, the swizzle) or, when
TMA cannot do the copy, a `str` saying why.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import cute, views
from .swizzle import ComposedLayout, Swizzle

MAX_RANK = 5
MAX_BOX = 256
SWIZZLE_BYTES = (0, 32, 64, 128)
L2_PROMOTIONS = (0, 64, 128, 256)
"""The L2 promotions a tensor map may ask of its loads, in bytes (0: none): the L2 fetches
whole sectors of that size around each request (CU_TENSOR_MAP_L2_PROMOTION_*)."""
DEFAULT_L2_PROMOTION = 128
GLOBAL_ALIGN = 16
"""Bytes the tensor's base address and its strides must be multiples of."""
MAX_BOX_ELEMENTS = 1 << 16
"""Largest box `tma_geometry` checks element by element (shared memory is smaller)."""


@dataclass(frozen=True)
class TmaGeometry:
    """One tensor map and box for a tile copy."""

    order: tuple[int, ...]
    """The global view's top-level mode of each TMA dimension (dimension 0 first)."""
    box: tuple[int, ...]
    """The box extent of each TMA dimension (of one copy)."""
    swizzle_bytes: int
    element_bytes: int
    copies: int = 1
    """Boxes side by side along dimension 0 (a tile wider than its swizzle: NVMMA's
    tiles across the columns), each `copy_elements` after the last in shared memory."""
    copy_stride: int = 0
    """Shared-memory elements from one copy's box to the next; 0: `box_elements` (the boxes
    compact). More where the tile is part of a wider buffer's swizzle panels (a column
    chunk of a K-major B stage whose K step spans two 128-byte panels: each panel holds
    all the stage's rows), a multiple of the swizzle's repeat (8 rows of it)."""

    @property
    def rank(self) -> int:
        return len(self.order)

    @property
    def pad(self) -> int:
        """1, or for a box narrower than its swizzle row the box rows' worth of bytes each row takes in
        shared memory: a whole swizzle row, the rest of it not written (the copy engine's padding)."""
        row = self.box[0] * self.element_bytes
        return self.swizzle_bytes // row if self.swizzle_bytes > row else 1

    @property
    def box_elements(self) -> int:
        return int(np.prod(self.box))

    @property
    def copy_elements(self) -> int:
        """Shared-memory elements from one copy's box to the next."""
        return self.copy_stride or self.box_elements

    @property
    def box_bytes(self) -> int:
        """Bytes one copy moves."""
        return self.box_elements * self.element_bytes

    @property
    def total_bytes(self) -> int:
        """Bytes all copies move (what the mbarrier's transaction count expects; boxes
        partly outside the tensor count whole)."""
        return self.copies * self.box_bytes

    @property
    def smem_align(self) -> int:
        """Bytes the shared buffer must be aligned to: 128 for the copy engine, the
        swizzle pattern's repeat (8 rows) with a swizzle."""
        return max(128, 8 * self.swizzle_bytes)

    def describe(self) -> str:
        box = "x".join(str(b) for b in self.box)
        sw = f"swizzle {self.swizzle_bytes}B" if self.swizzle_bytes else "no swizzle"
        n = f"{self.copies} boxes" if self.copies > 1 else "box"
        if self.copy_stride:
            n += f" {self.copy_stride} elements apart"
        pad = f", its rows padded x{self.pad} to the swizzle row" if self.pad > 1 else ""
        return f"{n} {box} (dims {list(self.order)} of the view){pad}, {sw}, {self.total_bytes} bytes"


def swizzle_of_bytes(swizzle_bytes: int, element_bytes: int) -> Swizzle | None:
    """TMA's swizzle of `swizzle_bytes` as a CuTe swizzle on element offsets (None for
    no swizzle): `Swizzle<log2(swizzle/16), 4 - log2(element bytes), 3>`."""
    if swizzle_bytes == 0:
        return None
    return Swizzle(int(np.log2(swizzle_bytes // 16)), 4 - int(np.log2(element_bytes)), 3)


def _swizzle_bytes(sw: Swizzle, element_bytes: int) -> int | None:
    for n in SWIZZLE_BYTES[1:]:
        if swizzle_of_bytes(n, element_bytes) == sw:
            return n
    return None


def _apply(sw: Swizzle | None, x: np.ndarray) -> np.ndarray:
    if sw is None:
        return x
    y = x & sw.yyy_msk
    y = y >> sw.shift if sw.shift >= 0 else y << -sw.shift
    return x ^ y


def box_offsets(
    box: Sequence[int],
    order: Sequence[int],
    swizzle_bytes: int,
    element_bytes: int,
    copies: int = 1,
    copy_stride: int = 0,
) -> np.ndarray:
    """Shared-memory element offset of every element of `copies` boxes side by side
    along dimension 0, indexed by the view's mode coordinates (an array of the tile's
    shape in view-mode order): each box compact in TMA dimension order, then swizzled,
    box b starting `b * copy_stride` elements in (`copy_stride` 0: `prod(box)`); a box narrower
    than its swizzle row a whole swizzle row a row (`TmaGeometry.pad`)."""
    rank = len(order)
    pad = swizzle_bytes // (box[0] * element_bytes) if swizzle_bytes > box[0] * element_bytes else 1
    full = [box[0] * copies, *box[1:]]
    ext = [full[order.index(m)] for m in range(rank)]  # extent per view mode
    grids = np.meshgrid(*[np.arange(e, dtype=np.int64) for e in ext], indexing="ij")
    c0 = grids[order[0]]
    off = (c0 // box[0]) * (copy_stride or int(np.prod(box)) * pad) + c0 % box[0]
    step = box[0] * pad
    for d in range(1, rank):
        off = off + grids[order[d]] * step
        step *= box[d]
    return _apply(swizzle_of_bytes(swizzle_bytes, element_bytes), off)


def _layout_offsets(lay, ext: Sequence[int]) -> np.ndarray | None:
    """Offsets of a static (possibly swizzled) layout at every coordinate of its
    top-level modes, shape `ext`; None when it is not static."""
    inner = lay.layout if isinstance(lay, ComposedLayout) else lay
    ms = views.modes(inner)
    if len(ms) != len(ext) or any(not isinstance(m.size(), int) for m in ms):
        return None
    if any(isinstance(s, type(cute.DYN)) or s is cute.DYN for s in cute.flatten(inner.stride)):
        return None
    grids = np.meshgrid(*[np.arange(e, dtype=np.int64) for e in ext], indexing="ij")
    off = np.zeros(ext, dtype=np.int64)
    for m, g in zip(ms, grids):
        off = off + np.asarray(views.eval_mode(m, g))
    if isinstance(lay, ComposedLayout):
        off = _apply(lay.swizzle, off + lay.offset)
    return off


def tma_geometry(
    global_layout: cute.Layout,
    tile: Sequence[int] | None,
    element_bytes: int,
    base_align: int,
    stride_multiple: dict[int, int],
    smem_layout,
    smem_offset_known_zero: bool = True,
) -> TmaGeometry | str:
    """The TMA copy of one tile of `global_layout` (extents `tile` per top-level
    mode; None: the whole view) to or from shared memory laid out as `smem_layout`,
    or why there is none.

    base_align: bytes the view's base address is known to be a multiple of.
    stride_multiple: for a mode whose stride is dynamic, what it is promised to be a
        multiple of (in elements); absent: nothing.
    smem_offset_known_zero: the shared view starts at its allocation (whose alignment
        the lowering chooses)."""
    ms = views.modes(global_layout)
    rank = len(ms)
    if not 1 <= rank <= MAX_RANK:
        return f"TMA copies tensors of rank 1 to {MAX_RANK}, the view has rank {rank}"
    extents, strides = [], []
    for k, m in enumerate(ms):
        if isinstance(m.shape, tuple) or isinstance(m.stride, tuple):
            return f"mode {k} of the view ({m}) is nested: TMA needs one extent and stride per dimension"
        extents.append(m.shape)
        strides.append(m.stride)
    box = list(tile) if tile is not None else list(extents)
    if len(box) != rank:
        return f"{len(box)} tile extents for a view of rank {rank}"
    if any(views.is_dynamic(b) for b in box):
        return "the tile has a dynamic extent"
    ones = [k for k, s in enumerate(strides) if s == 1 and not views.is_dynamic(s)]
    if not ones:
        return "no mode of the view has stride 1 (TMA's dimension 0 is contiguous)"
    if base_align % GLOBAL_ALIGN:
        return f"the tensor's base is aligned to {base_align} bytes, TMA needs {GLOBAL_ALIGN}"
    for k, s in enumerate(strides):
        if k == ones[0]:
            continue
        if views.is_dynamic(s):
            mult = stride_multiple.get(k, 1) * element_bytes
            if mult % GLOBAL_ALIGN:
                return (
                    f"the stride of mode {k} is dynamic and not promised to be a multiple of "
                    f"{GLOBAL_ALIGN} bytes (layout.view divisible = ...)"
                )
        elif (s * element_bytes) % GLOBAL_ALIGN:
            return f"the stride of mode {k} is {s * element_bytes} bytes, not a multiple of {GLOBAL_ALIGN}"
    for k, b in enumerate(box):
        if not 1 <= b <= MAX_BOX:
            return f"box extent {b} of mode {k} is outside [1, {MAX_BOX}]"
    d0 = ones[0]
    if (box[d0] * element_bytes) % 16:
        return f"the box's contiguous extent is {box[d0] * element_bytes} bytes, not a multiple of 16"
    if int(np.prod(box)) > MAX_BOX_ELEMENTS:
        return f"the box holds {int(np.prod(box))} elements, more than {MAX_BOX_ELEMENTS}"
    if not smem_offset_known_zero:
        return "the shared-memory view does not start at its allocation"
    swizzle_bytes = 0
    if isinstance(smem_layout, ComposedLayout):
        sb = _swizzle_bytes(smem_layout.swizzle, element_bytes)
        if sb is None or smem_layout.offset != 0:
            return (
                f"the shared-memory swizzle {smem_layout.swizzle} (offset {smem_layout.offset}) is not one "
                "TMA writes (Swizzle<1|2|3, 4 - log2(element bytes), 3>, offset 0)"
            )
        swizzle_bytes = sb
        if (box[d0] * element_bytes) % swizzle_bytes and box[d0] * element_bytes > swizzle_bytes:
            return (
                f"the box's contiguous extent ({box[d0] * element_bytes} bytes) is wider than "
                f"the {swizzle_bytes}-byte swizzle and not a multiple of it"
            )
    actual = _layout_offsets(smem_layout, box)
    if actual is None:
        return "the shared-memory layout is not static with one mode per view mode"
    rest = [k for k in range(rank) if k != d0]
    copies = 1
    if swizzle_bytes and box[d0] * element_bytes > swizzle_bytes:
        copies = box[d0] * element_bytes // swizzle_bytes  # one box per swizzle-wide column
    for perm in itertools.permutations(rest):
        order = (d0, *perm)
        tma_box = (box[d0] // copies, *(box[m] for m in perm))
        if np.array_equal(actual, box_offsets(tma_box, order, swizzle_bytes, element_bytes, copies)):
            return TmaGeometry(order, tma_box, swizzle_bytes, element_bytes, copies)
    if copies > 1:  # the boxes apart: the second box's first element says how far
        stride = int(actual[tuple(box[d0] // copies if k == d0 else 0 for k in range(rank))])
        if stride > 0 and (stride * element_bytes) % (8 * swizzle_bytes) == 0:
            for perm in itertools.permutations(rest):
                order = (d0, *perm)
                tma_box = (box[d0] // copies, *(box[m] for m in perm))
                if stride >= int(np.prod(tma_box)) and np.array_equal(
                    actual, box_offsets(tma_box, order, swizzle_bytes, element_bytes, copies, stride)
                ):
                    return TmaGeometry(order, tma_box, swizzle_bytes, element_bytes, copies, stride)
    return (
        "the shared-memory layout is not the box stored compact (contiguous mode first"
        + (f", {swizzle_bytes}-byte swizzle" if swizzle_bytes else "")
        + ")"
    )
