"""Tensor-core layouts of Triton/Gluon, in pure Python: MMA accumulators, dot operands
and NVMMA shared memory.

Each distributed layout here converts, for a tensor shape, to a
:class:`~tilec.dialects.linear.LinearLayout` from ``register, lane, warp, block`` to
``dim0, dim1, ...`` exactly as Triton's ``toLinearLayout`` does
(``lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp``):

* :class:`NvidiaMmaLayout` ``(version, warps_per_cta, instr_shape)``: the accumulator
  (C/D) of ``mma.sync.m16n8k*`` (version 2, ``instr_shape = [16, 8]``, or
  ``[1, 16, 8]`` with a batch dim) or of Hopper's ``wgmma`` (version 3,
  ``instr_shape = [M, N, K]``).  One warp owns a tile of ``instr_M x instr_N``
  elements (for version 3 with ``M = 64``, a warpgroup of 4 warps along M owns
  ``64 x N``, each warp 16 rows, the same ownership as ``M = 16``): in the tile, a
  thread's 2 consecutive columns, 4 lanes along the columns, 8 lanes along the
  rows, then registers repeat down the rows (every 8) and across the columns
  (every 8).  Warps tile the CTA row-major (version 2) or column-major (version 3:
  a warpgroup's 4 warps stack along M).  A larger tensor repeats the CTA tile in
  registers, columns first; a smaller one broadcasts.
* :class:`DotOperandLayout` ``(op_idx, parent, k_width)``: the A (``op_idx = 0``,
  ``M x K``) or B (``op_idx = 1``, ``K x N``) operand of an MMA whose accumulator
  has layout ``parent``.  A thread holds ``k_width`` consecutive elements along K,
  4 lanes run along K and 8 along M (A) or N (B); the tile is ``16 x 8*k_width``
  (A) or ``8*k_width x 8`` (B).  Warps are the parent's, broadcast along K (every
  warp of a row of C needs the same A rows).  Version 3 has only the A operand in
  registers (``wgmma`` reads B from shared memory).
* :class:`NvmmaSharedLayout` ``(swizzle_bytes, element_bits, transposed)``: the
  shared-memory layout that ``wgmma`` and ``ldmatrix`` read, Triton's
  ``NVMMASharedEncodingAttr``: 8-row tiles ``swizzle_bytes`` wide, in which 16-byte
  chunk ``c`` of row ``r`` is stored at chunk ``c ^ (r / per_phase) % max_phase``;
  tiles stack down the rows, then across the columns.  Swizzle 0 is the plain
  row-major layout.  ``transposed`` makes dim 0 the contiguous one.  Its linear
  layout maps ``offset`` (element index in memory) to ``dim0, dim1``; its CuTe
  form (:meth:`NvmmaSharedLayout.composed`) is ``Swizzle<log2 max_phase,
  log2 vec, 3> o 0 o layout`` in elements.

The PTX ISA's fragment figures for ``mma.m16n8k16`` follow from these with
``k_width = 2`` (f16/bf16), 1 (tf32, ``m16n8k8``) and 4 (i8, ``m16n8k32``): register
``i`` of lane ``l`` is element ``i`` of the figure for thread ``l``.

Nothing in this module imports xDSL.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tilec.dialects import cute
from tilec.dialects.distributed import _check_shape, _DistributedMixin
from tilec.dialects.errors import LayoutError
from tilec.dialects.linear import LinearLayout, _is_pow2, _log2, fit_to_shape
from tilec.dialects.swizzle import ComposedLayout, Swizzle

__all__ = [
    "NvidiaMmaLayout",
    "DotOperandLayout",
    "NvmmaSharedLayout",
    "mma_tile_bases",
    "MMA_VERSIONS",
    "WGMMA_N",
    "SWIZZLE_BYTES",
]

MMA_VERSIONS = (2, 3)
"""2: Ampere ``mma.sync`` (also on Hopper); 3: Hopper ``wgmma``."""

WGMMA_N = tuple(range(8, 257, 8))
"""The N extents of ``wgmma.mma_async`` (multiples of 8 up to 256)."""

WGMMA_K = (8, 16, 32)
"""K of ``wgmma``: 8 (tf32), 16 (f16/bf16), 32 (i8/fp8): 32 bytes of each operand."""

SWIZZLE_BYTES = (0, 32, 64, 128)
"""The swizzle widths of NVMMA shared memory (``wgmma`` descriptors, TMA)."""

NVMMA_ELEMENT_BITS = (8, 16, 32)

MAX_WARPS = 32
"""1024 threads: CUDA's limit on a block."""


def _unit(rank: int, dim: int, value: int) -> tuple[int, ...]:
    return tuple(value if k == dim else 0 for k in range(rank))


def mma_tile_bases(
    rank: int, tile: Sequence[int], k_width: int, inner: int, outer: int
) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    """(register bases, lane bases) of one warp's MMA tile (Triton's ``nvidiaMmaTile``).

    ``tile`` gives the tile's extent per dim (1 outside ``inner`` and ``outer``).
    Along ``inner`` a thread holds ``k_width`` consecutive elements and 4 lanes follow;
    8 lanes run along ``outer``; then registers repeat the 8 x 4*k_width core down
    ``outer`` (``tile[outer] / 8`` times) and across ``inner``
    (``tile[inner] / (4 * k_width)`` times)."""
    m, n = tile[outer], tile[inner]
    if m % 8 or n % (4 * k_width):
        raise LayoutError(
            f"MMA tile {list(tile)} is not a multiple of 8 x {4 * k_width} (kWidth={k_width})"
        )
    regs = [_unit(rank, inner, 1 << i) for i in range(_log2(k_width))]
    lanes = [_unit(rank, inner, k_width << i) for i in range(2)]
    lanes += [_unit(rank, outer, 1 << i) for i in range(3)]
    regs += [_unit(rank, outer, 8 << i) for i in range(_log2(m // 8))]
    regs += [_unit(rank, inner, (4 * k_width) << i) for i in range(_log2(n // (4 * k_width)))]
    return regs, lanes


def _warp_bases(
    rank: int, warps: Sequence[int], order: Sequence[int], tile: Sequence[int], zero_dim: int | None
) -> list[tuple[int, ...]]:
    """Warp bases: ``warps[d]`` warps per dim, dims in ``order`` (minor first), each warp
    step moving one ``tile[d]``; dim ``zero_dim`` broadcasts (its bases are zero)."""
    out = []
    for d in order:
        for i in range(_log2(warps[d])):
            out.append(_unit(rank, d, 0) if d == zero_dim else _unit(rank, d, tile[d] << i))
    return out


def _matrix_order(rank: int, row_major: bool) -> tuple[int, ...]:
    """Triton's ``getMatrixOrder``: ``[rank-1, ..., 0]``, the last two swapped when
    column-major."""
    order = list(reversed(range(rank)))
    if not row_major and rank >= 2:
        order[0], order[1] = order[1], order[0]
    return tuple(order)


def _check_int_list(xs: Sequence[int], what: str) -> tuple[int, ...]:
    xs = tuple(xs)
    if not all(type(x) is int for x in xs):
        raise LayoutError(f"{what} must be a list of integers, got {list(xs)}")
    return xs


@dataclass(frozen=True, init=False)
class NvidiaMmaLayout(_DistributedMixin):
    """Triton's ``NvidiaMmaEncodingAttr(versionMajor, warpsPerCTA, instrShape)``: the
    accumulator layout of ``mma.sync`` (version 2) or ``wgmma`` (version 3)."""

    version: int
    warps_per_cta: tuple[int, ...]
    instr_shape: tuple[int, ...]

    def __init__(self, version: int, warps_per_cta: Sequence[int], instr_shape: Sequence[int]):
        warps = _check_int_list(warps_per_cta, "warpsPerCTA")
        instr = _check_int_list(instr_shape, "instrShape")
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "warps_per_cta", warps)
        object.__setattr__(self, "instr_shape", instr)
        if (why := self.error()) is not None:
            raise LayoutError(why)

    def error(self) -> str | None:
        """Why these parameters make no MMA layout, or None."""
        v, warps, instr = self.version, self.warps_per_cta, self.instr_shape
        if v not in MMA_VERSIONS:
            return f"version must be 2 (mma.sync) or 3 (wgmma), got {v}"
        if not 2 <= len(warps) <= 3:
            return f"warpsPerCTA must have rank 2 or 3, got {list(warps)}"
        if not all(_is_pow2(w) for w in warps):
            return f"warpsPerCTA entries must be powers of two, got {list(warps)}"
        if math.prod(warps) > MAX_WARPS:
            return f"warpsPerCTA {list(warps)} gives {math.prod(warps)} warps, more than {MAX_WARPS}"
        if v == 2:
            want = (16, 8) if len(warps) == 2 else (1, 16, 8)
            if instr != want:
                return (
                    f"version 2 (mma.sync.m16n8k*) needs instrShape = {list(want)} for "
                    f"warpsPerCTA of rank {len(warps)}, got {list(instr)}"
                )
            return None
        if len(warps) != 2:
            return f"version 3 (wgmma) needs warpsPerCTA of rank 2, got {list(warps)}"
        if len(instr) != 3:
            return f"version 3 (wgmma) needs instrShape = [M, N, K], got {list(instr)}"
        m, n, k = instr
        if m not in (16, 64):
            return f"version 3 instrShape M must be 16 (one warp) or 64 (a warpgroup), got {m}"
        if n not in WGMMA_N:
            return f"version 3 instrShape N must be a multiple of 8 in [8, 256], got {n}"
        if not _is_pow2(n):
            return f"version 3 instrShape N must be a power of two for a linear layout, got {n}"
        if k not in WGMMA_K:
            return f"version 3 instrShape K must be 8, 16 or 32, got {k}"
        if math.prod(warps) % 4:
            return f"version 3 (wgmma) needs whole warpgroups: warpsPerCTA {list(warps)} is not a multiple of 4 warps"
        if m == 64 and warps[0] % 4:
            return f"instrShape M = 64 needs a multiple of 4 warps along M, got warpsPerCTA {list(warps)}"
        return None

    # -- shape ---------------------------------------------------------------
    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    @property
    def num_warps(self) -> int:
        return math.prod(self.warps_per_cta)

    @property
    def lanes_per_warp(self) -> int:
        return 32

    @property
    def threads_per_cta(self) -> int:
        return 32 * self.num_warps

    def warp_tile(self) -> tuple[int, ...]:
        """The extent of one warp's tile per dim (Triton's tile shape)."""
        if self.version == 2:
            return self.instr_shape
        return (16, self.instr_shape[1])

    def order(self) -> tuple[int, ...]:
        """Register order (Triton's ``getOrder``: row-major)."""
        return _matrix_order(self.rank, True)

    def rep_order(self) -> tuple[int, ...]:
        """In which order a tensor larger than the CTA tile repeats it (row-major)."""
        return _matrix_order(self.rank, True)

    def warp_order(self) -> tuple[int, ...]:
        """Row-major for version 2; column-major for version 3 (a warpgroup's warps
        stack along M, as ``wgmma`` requires)."""
        return _matrix_order(self.rank, self.version == 2)

    def cta_layout(self) -> LinearLayout:
        """The linear layout of one CTA tile (shape: warp tile times warpsPerCTA)."""
        rank, tile = self.rank, self.warp_tile()
        order = self.order()
        regs, lanes = mma_tile_bases(rank, tile, 2, order[0], order[1])
        warps = _warp_bases(rank, self.warps_per_cta, self.warp_order(), tile, None)
        shape = [t * w for t, w in zip(tile, self.warps_per_cta)]
        return LinearLayout({"register": regs, "lane": lanes, "warp": warps, "block": []}, shape)

    def to_linear(self, shape: Sequence[int]) -> LinearLayout:
        """Triton's ``NvidiaMmaEncodingAttr::toLinearLayout``."""
        shape = _check_shape(shape, self.rank, str(self))
        return fit_to_shape(self.cta_layout(), shape, self.rep_order())

    def __str__(self) -> str:
        return (
            f"nvidia_mma<version={self.version}, warpsPerCTA={list(self.warps_per_cta)}, "
            f"instrShape={list(self.instr_shape)}>"
        )


@dataclass(frozen=True, init=False)
class DotOperandLayout(_DistributedMixin):
    """Triton's ``DotOperandEncodingAttr(opIdx, parent, kWidth)`` with an NVIDIA MMA
    parent: operand A (``op_idx = 0``, shape ``[.., M, K]``) or B (``op_idx = 1``,
    ``[.., K, N]``) of the MMA whose accumulator layout is ``parent``."""

    op_idx: int
    parent: NvidiaMmaLayout
    k_width: int

    def __init__(self, op_idx: int, parent: NvidiaMmaLayout, k_width: int):
        object.__setattr__(self, "op_idx", op_idx)
        object.__setattr__(self, "parent", parent)
        object.__setattr__(self, "k_width", k_width)
        if (why := self.error()) is not None:
            raise LayoutError(why)

    def error(self) -> str | None:
        """Why these parameters make no operand layout, or None."""
        if self.op_idx not in (0, 1):
            return f"opIdx must be 0 (A) or 1 (B), got {self.op_idx}"
        if not isinstance(self.parent, NvidiaMmaLayout):
            return f"the parent of a dot operand must be an nvidia_mma layout, got {self.parent}"
        if type(self.k_width) is not int or not _is_pow2(self.k_width) or self.k_width > 16:
            return f"kWidth must be a power of two in [1, 16], got {self.k_width}"
        if self.parent.version == 3 and self.op_idx == 1:
            return "version 3 (wgmma) takes operand B from shared memory: a register dot operand of it must have opIdx = 0"
        return None

    @property
    def rank(self) -> int:
        return self.parent.rank

    @property
    def num_warps(self) -> int:
        return self.parent.num_warps

    @property
    def lanes_per_warp(self) -> int:
        return 32

    @property
    def threads_per_cta(self) -> int:
        return self.parent.threads_per_cta

    @property
    def k_dim(self) -> int:
        return self.rank - 1 if self.op_idx == 0 else self.rank - 2

    def order(self) -> tuple[int, ...]:
        """K fastest (Triton's ``getOrderForDotOperand(opIdx, rank, kContig=true)``)."""
        return _matrix_order(self.rank, self.op_idx == 0)

    def warp_tile(self) -> tuple[int, ...]:
        """One warp's tile: 16 x 8*kWidth (A) or 8*kWidth x 8 (B), 1 in batch dims."""
        tile = [1] * self.rank
        if self.op_idx == 0:
            tile[-2], tile[-1] = 16, 8 * self.k_width
        else:
            tile[-2], tile[-1] = 8 * self.k_width, 8
        return tuple(tile)

    def cta_layout(self) -> LinearLayout:
        rank, tile, order = self.rank, self.warp_tile(), self.order()
        regs, lanes = mma_tile_bases(rank, tile, self.k_width, order[0], order[1])
        warps = _warp_bases(
            rank, self.parent.warps_per_cta, self.parent.warp_order(), tile, self.k_dim
        )
        shape = [
            t if d == self.k_dim else t * w
            for d, (t, w) in enumerate(zip(tile, self.parent.warps_per_cta))
        ]
        return LinearLayout({"register": regs, "lane": lanes, "warp": warps, "block": []}, shape)

    def to_linear(self, shape: Sequence[int]) -> LinearLayout:
        """Triton's ``nvidiaDotToLinearLayout``."""
        shape = _check_shape(shape, self.rank, str(self))
        return fit_to_shape(self.cta_layout(), shape, self.order())

    def __str__(self) -> str:
        return f"dot_op<opIdx={self.op_idx}, parent={self.parent}, kWidth={self.k_width}>"


@dataclass(frozen=True, init=False)
class NvmmaSharedLayout:
    """Triton's ``NVMMASharedEncodingAttr(swizzlingByteWidth, transposed,
    elementBitWidth)`` on a rank-2 shape: where each element of a shared-memory tile
    lives."""

    swizzle_bytes: int
    element_bits: int
    transposed: bool

    def __init__(self, swizzle_bytes: int, element_bits: int, transposed: bool = False):
        object.__setattr__(self, "swizzle_bytes", swizzle_bytes)
        object.__setattr__(self, "element_bits", element_bits)
        object.__setattr__(self, "transposed", bool(transposed))
        if swizzle_bytes not in SWIZZLE_BYTES:
            raise LayoutError(f"swizzle must be 0, 32, 64 or 128 bytes, got {swizzle_bytes}")
        if element_bits not in NVMMA_ELEMENT_BITS:
            raise LayoutError(f"elementBitWidth must be 8, 16 or 32, got {element_bits}")

    @property
    def vec(self) -> int:
        """Elements in 16 bytes: the unit the swizzle permutes."""
        return 128 // self.element_bits

    @property
    def per_phase(self) -> int:
        """Rows that share one XOR pattern."""
        return 128 // self.swizzle_bytes if self.swizzle_bytes else 1

    @property
    def max_phase(self) -> int:
        """Distinct XOR patterns (16-byte chunks in a swizzle row)."""
        return self.swizzle_bytes // 16 if self.swizzle_bytes else 1

    @property
    def tile_cols(self) -> int:
        """Elements in one swizzle row (the contiguous extent of a tile)."""
        return 8 * self.swizzle_bytes // self.element_bits

    def _dims(self) -> tuple[int, int]:
        """(row dim, contiguous dim)."""
        return (1, 0) if self.transposed else (0, 1)

    def shape_error(self, shape: Sequence[int], linear: bool = True) -> str | None:
        """Why the layout cannot hold a tensor of ``shape``, or None. Its linear form
        (``linear``) needs extents that are powers of two; its CuTe form (`composed`)
        only whole swizzle tiles (8 rows of `tile_cols`): a swizzled buffer of 3 tiles
        across (a 192-column B stage of 64-column tiles) is the tiles one after the other."""
        if len(shape) != 2:
            return f"an NVMMA shared layout is rank 2, got shape {list(shape)}"
        if linear and not all(_is_pow2(s) for s in shape):
            return f"shape {list(shape)} has an extent that is not a power of two"
        if not all(type(s) is int and s > 0 for s in shape):
            return f"shape {list(shape)} has an extent that is not a positive integer"
        if self.swizzle_bytes:
            row, col = self._dims()
            if shape[col] < self.tile_cols or shape[row] < 8:
                want = [8, self.tile_cols] if not self.transposed else [self.tile_cols, 8]
                return (
                    f"a {self.swizzle_bytes}-byte swizzle of {self.element_bits}-bit elements "
                    f"needs a shape of at least {want}, got {list(shape)}"
                )
            if shape[col] % self.tile_cols or shape[row] % 8:
                return (
                    f"a {self.swizzle_bytes}-byte swizzle of {self.element_bits}-bit elements needs whole tiles of "
                    f"8 rows of {self.tile_cols} elements, got {list(shape)}"
                )
        return None

    def to_linear(self, shape: Sequence[int]) -> LinearLayout:
        """Triton's shared -> linear conversion: ``offset`` -> ``(dim0, dim1)``."""
        if (why := self.shape_error(shape)) is not None:
            raise LayoutError(why)
        row, col = self._dims()
        bases: list[tuple[int, ...]] = []

        def basis(r: int, c: int) -> tuple[int, int]:
            out = [0, 0]
            out[row], out[col] = r, c
            return tuple(out)  # type: ignore[return-value]

        if self.swizzle_bytes == 0:
            bases += [basis(0, 1 << i) for i in range(_log2(shape[col]))]
            bases += [basis(1 << i, 0) for i in range(_log2(shape[row]))]
            return LinearLayout({"offset": bases, "block": []}, list(shape))
        bases += [basis(0, 1 << i) for i in range(_log2(self.tile_cols))]
        for i in range(3):
            r = 1 << i
            bases.append(basis(r, self.vec * ((r // self.per_phase) % self.max_phase)))
        bases += [basis(8 << i, 0) for i in range(_log2(shape[row] // 8))]
        bases += [basis(0, self.tile_cols << i) for i in range(_log2(shape[col] // self.tile_cols))]
        return LinearLayout({"offset": bases, "block": []}, list(shape))

    def composed(self, shape: Sequence[int]) -> ComposedLayout:
        """The same layout in CuTe form, ``Swizzle<B, M, 3> o 0 o layout`` in elements:
        coordinates ``(i, j)`` to element offsets."""
        if (why := self.shape_error(shape, linear=False)) is not None:
            raise LayoutError(why)
        row, col = self._dims()
        rows, cols = shape[row], shape[col]
        if self.swizzle_bytes == 0:  # plain: rows of `cols` contiguous elements
            col_mode, row_mode, sw = (cols, 1), (rows, cols), Swizzle(0, 0, 0)
        else:  # 8-row tiles `tile_cols` wide, down the rows, then across the columns
            tc = self.tile_cols
            col_mode = (tc, 1) if cols == tc else ((tc, cols // tc), (1, tc * rows))
            row_mode = (rows, tc)
            sw = Swizzle(_log2(self.max_phase), _log2(self.vec), 3)
        modes = {col: col_mode, row: row_mode}  # (extent, stride) of dim 0 and dim 1
        lay = cute.make_layout((modes[0][0], modes[1][0]), (modes[0][1], modes[1][1]))
        return ComposedLayout(sw, 0, lay)

    def __str__(self) -> str:
        return (
            f"nvmma_shared<swizzle={self.swizzle_bytes}, elementBitWidth={self.element_bits}, "
            f"transposed={str(self.transposed).lower()}>"
        )
