"""Hopper's `wgmma` in pure Python: the 64-bit shared-memory matrix descriptor, the
shared-memory addresses a K-major operand is read from, and the accumulator fragment.

Descriptor (PTX ISA, "Matrix Descriptor Format" of `wgmma`), bits of the u64:

    0-13   start address >> 4          (shared-window byte address, 16-byte aligned)
    16-29  leading byte offset >> 4    (LBO)
    32-45  stride byte offset >> 4     (SBO)
    49-51  base offset                 (0 here: swizzled operands start at a multiple
                                        of the swizzle's repeat, 8 x swizzle bytes)
    62-63  swizzle mode                (0 none, 1 128-byte, 2 64-byte, 3 32-byte)

K-major operand (A as M x K, B as N x K, K contiguous), one 32-byte slice of K (`k16`
of 16-bit elements, `k32` of 8-bit ones: the addresses below are in bytes, the same
for both): rows are grouped by 8 ("core matrices" of 8 rows x 16 bytes).
* No swizzle: a core matrix is 128 contiguous bytes (row r at 16 r); the two core
  matrices along K are LBO bytes apart, the 8-row groups SBO bytes apart.
* Swizzle of S = 32/64/128 bytes: row r of a group is S bytes after row r - 1 (the
  rows of Triton's `nvmma_shared<swizzle = S>` tile), groups SBO bytes apart (8 S for
  dense tiles), LBO unused; the hardware then XORs the 16-byte chunk bits 4.. of the
  address with bits 7.. (log2(S / 16) of them), which is `NvmmaSharedLayout`'s swizzle
  when the tile starts at a multiple of 8 S bytes.

MN-major operand (A as K x M, B as K x N, M/N contiguous; `imm-trans` 1), CUTLASS's
canonical GMMA layouts in 16-byte units with T = 8 elements per unit:
* No swizzle: `((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))`: 8 MN-contiguous elements per
  16 bytes, 8 K rows 16 bytes apart, MN groups of 8 SBO apart, K groups of 8 LBO apart.
* Swizzle of S bytes: `((T,S/16,m),(8,k)):((1,T,LBO),(S/16 T,SBO))`: S / 2 elements
  contiguous along MN, 8 K rows S bytes apart, then MN groups of S / 2 LBO apart and K
  groups of 8 SBO apart; the same XOR of address bits.

`fit_descriptor` finds, from the byte address of every element of one operand (what
the layout algebra of a shared view gives), the descriptor and majorness that reproduce
them all, or says there is none.

Accumulator (f32, `m64nNk16`, and `m64nNk32` alike): thread `t` of the warpgroup (warp w = t / 32, lane l,
g = l / 4, q = l % 4) holds `N / 2` values; value i is row `16 w + g + 8 ((i / 2) % 2)`,
column `8 (i / 4) + 2 q + i % 2`, which is `NvidiaMmaLayout(3, [4, 1], [16, N, 16])`
on a `64 x N` tensor.

Nothing in this module imports xDSL.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilec.dialects.errors import LayoutError

__all__ = [
    "SWIZZLE_MODES",
    "WGMMA_N",
    "WgmmaDescriptor",
    "fit_descriptor",
    "kmajor_byte_offset",
    "mnmajor_byte_offset",
    "operand_byte_offset",
    "swizzle_repeat_bytes",
    "wgmma_accumulator",
]

SWIZZLE_MODES = {0: 0, 128: 1, 64: 2, 32: 3}
"""Swizzle bytes -> the descriptor's 2-bit mode (bits 62-63)."""

WGMMA_N = tuple(range(8, 257, 8))
"""The N of `wgmma.mma_async.m64nNk16` for 16-bit operands."""

_FIELD_MASK = (1 << 14) - 1


def swizzle_repeat_bytes(swizzle: int) -> int:
    """Bytes after which a swizzle pattern repeats (8 rows of `swizzle` bytes); 16 for
    no swizzle (only 16-byte alignment is needed)."""
    return 8 * swizzle if swizzle else 16


@dataclass(frozen=True)
class WgmmaDescriptor:
    """The fields of a `wgmma` shared-memory matrix descriptor, in bytes."""

    start: int
    lbo: int
    sbo: int
    swizzle: int

    def __post_init__(self):
        if self.swizzle not in SWIZZLE_MODES:
            raise LayoutError(f"wgmma swizzle must be 0, 32, 64 or 128 bytes, got {self.swizzle}")
        for name in ("start", "lbo", "sbo"):
            v = getattr(self, name)
            if v < 0 or v % 16 or (v >> 4) > _FIELD_MASK:
                raise LayoutError(f"wgmma descriptor {name} must be a multiple of 16 below 2^18 bytes, got {v}")

    def encode(self) -> int:
        """The u64 the instruction takes."""
        return (
            (self.start >> 4) | ((self.lbo >> 4) << 16) | ((self.sbo >> 4) << 32) | (SWIZZLE_MODES[self.swizzle] << 62)
        )

    @staticmethod
    def decode(bits: int) -> WgmmaDescriptor:
        """The fields of an encoded descriptor (a non-zero base offset is an error)."""
        if (bits >> 49) & 7:
            raise LayoutError(f"wgmma descriptor {bits:#018x} has a base offset, which tilec does not use")
        mode = bits >> 62
        swizzle = next(s for s, m in SWIZZLE_MODES.items() if m == mode)
        return WgmmaDescriptor(
            (bits & _FIELD_MASK) << 4,
            ((bits >> 16) & _FIELD_MASK) << 4,
            ((bits >> 32) & _FIELD_MASK) << 4,
            swizzle,
        )


def kmajor_byte_offset(desc: WgmmaDescriptor, row, k, element_bytes: int = 2):
    """Shared-memory byte address of element (`row`, `k`) (k < 32 / element_bytes, row
    < 64 for A or N for B) of the K-major operand of 2- or 1-byte elements that `desc`
    describes, as the hardware forms it (module docstring); works on NumPy arrays."""
    if element_bytes not in (1, 2):
        raise LayoutError(f"tilec's wgmma reads 16- or 8-bit operands, got {element_bytes}-byte elements")
    kb = k * element_bytes
    if desc.swizzle == 0:
        return desc.start + (row // 8) * desc.sbo + (kb // 16) * desc.lbo + (row % 8) * 16 + kb % 16
    addr = desc.start + (row // 8) * desc.sbo + (row % 8) * desc.swizzle + kb
    bits = {128: 3, 64: 2, 32: 1}[desc.swizzle]
    mask = ((1 << bits) - 1) << 4
    return addr ^ ((addr >> 3) & mask)


def _swizzle_bytes_xor(addr, swizzle: int):
    """The hardware's XOR of 16-byte chunk bits 4.. with bits 7.. of a byte address."""
    if swizzle == 0:
        return addr
    bits = {128: 3, 64: 2, 32: 1}[swizzle]
    mask = ((1 << bits) - 1) << 4
    return addr ^ ((addr >> 3) & mask)


def mnmajor_byte_offset(desc: WgmmaDescriptor, row, k, element_bytes: int = 2):
    """Shared-memory byte address of element (`row`, `k`) (row along M or N, k < 16)
    of the MN-major operand of 16-bit elements that `desc` describes (module docstring;
    8-bit operands are K-major only); NumPy-friendly."""
    if element_bytes != 2:
        raise LayoutError(f"tilec's MN-major wgmma operands are 16-bit, got {element_bytes}-byte elements")
    if desc.swizzle == 0:
        return desc.start + (row // 8) * desc.sbo + (k // 8) * desc.lbo + (k % 8) * 16 + (row % 8) * 2
    w = desc.swizzle // 2
    addr = desc.start + (row // w) * desc.lbo + (k // 8) * desc.sbo + (k % 8) * desc.swizzle + (row % w) * 2
    return _swizzle_bytes_xor(addr, desc.swizzle)


def operand_byte_offset(desc: WgmmaDescriptor, row, k, mn_major: bool, element_bytes: int = 2):
    """`kmajor_byte_offset` or `mnmajor_byte_offset`."""
    return (mnmajor_byte_offset if mn_major else kmajor_byte_offset)(desc, row, k, element_bytes)


def fit_descriptor(addrs, element_bytes: int = 2) -> tuple[WgmmaDescriptor, bool] | str:
    """The descriptor and majorness (`mn_major`) under which the hardware reads element
    (row, k) of a `rows x K` operand (K = 32 bytes of `element_bytes`-byte elements: 16
    of 16-bit, 32 of 8-bit) at byte address `addrs[row, k]` (relative to a buffer
    aligned to 1024 bytes), trying the swizzles from the widest down and K-major first
    (8-bit operands: K-major only); a string saying why none does otherwise."""
    import numpy as np

    addrs = np.asarray(addrs, dtype=np.int64)
    rows = addrs.shape[0]
    kk = 32 // element_bytes
    half = 16 // element_bytes  # the second core matrix along K
    r, k = np.meshgrid(np.arange(rows), np.arange(kk), indexing="ij")
    for swizzle in (128, 64, 32, 0):

        def pre(a: int, swizzle: int = swizzle) -> int:
            return int(_swizzle_bytes_xor(int(a), swizzle))

        start = pre(addrs[0, 0])
        for mn_major in (False, True) if element_bytes == 2 else (False,):
            if not mn_major:
                sbo = pre(addrs[8, 0]) - start if rows > 8 else 8 * max(swizzle, 16)
                lbo = addrs[0, half] - start if swizzle == 0 else 0
            elif swizzle == 0:
                sbo = pre(addrs[8, 0]) - start if rows > 8 else 0
                lbo = pre(addrs[0, 8]) - start
            else:
                w = swizzle // 2
                sbo = pre(addrs[0, 8]) - start
                lbo = pre(addrs[w, 0]) - start if rows > w else 0
            try:
                d = WgmmaDescriptor(start, int(lbo), int(sbo), swizzle)
            except LayoutError:
                continue
            if np.array_equal(operand_byte_offset(d, r, k, mn_major, element_bytes), addrs):
                return d, mn_major
    return (
        "its shared layout is none of wgmma's: 8-row groups of 16-byte rows (no swizzle) or "
        "rows of 32/64/128 bytes under the matching swizzle, K-major"
        + (" or MN-major" if element_bytes == 2 else " (8-bit operands)")
        + ", at 16-byte aligned addresses"
    )


def wgmma_accumulator(thread, i):
    """(row, col) in the 64 x N tile of accumulator value `i` of warpgroup thread
    `thread` (0..127); works on NumPy arrays."""
    w, lane = thread // 32, thread % 32
    g, q = lane // 4, lane % 4
    return 16 * w + g + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * q + i % 2
