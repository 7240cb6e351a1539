"""`tilec.dialects.wgmma`: the wgmma descriptor's bit layout (PTX ISA "Matrix
Descriptor Format"), the K-major operand addresses against Triton's NVMMA shared
layouts, and the accumulator fragment against the version-3 MMA layout."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.dialects.errors import LayoutError
from tilec.dialects.mma import NvidiaMmaLayout, NvmmaSharedLayout
from tilec.dialects.wgmma import WgmmaDescriptor, kmajor_byte_offset, wgmma_accumulator


def test_descriptor_fields_sit_where_the_ptx_isa_puts_them():
    d = WgmmaDescriptor(start=0x3FFF0, lbo=0x20, sbo=0x400, swizzle=128)
    bits = d.encode()
    assert bits & 0x3FFF == 0x3FFF  # start >> 4, bits 0-13
    assert (bits >> 14) & 3 == 0
    assert (bits >> 16) & 0x3FFF == 2  # LBO >> 4, bits 16-29
    assert (bits >> 32) & 0x3FFF == 0x40  # SBO >> 4, bits 32-45
    assert (bits >> 49) & 7 == 0  # base offset
    assert bits >> 62 == 1  # 128-byte swizzle
    assert bits == 0x3FFF | (2 << 16) | (0x40 << 32) | (1 << 62)
    assert [WgmmaDescriptor(0, 0, 0, s).encode() >> 62 for s in (0, 128, 64, 32)] == [0, 1, 2, 3]


@pytest.mark.parametrize("swizzle", [0, 32, 64, 128])
def test_descriptor_decodes_what_it_encodes(swizzle):
    d = WgmmaDescriptor(start=1024 * 5 + 32, lbo=128, sbo=1024, swizzle=swizzle)
    assert WgmmaDescriptor.decode(d.encode()) == d


@pytest.mark.parametrize(
    "fields, message",
    [
        ((8, 0, 0, 0), "start must be a multiple of 16"),
        ((0, 1 << 18, 0, 0), r"lbo must be a multiple of 16 below 2\^18"),
        ((0, 0, -16, 0), "sbo must be"),
        ((0, 0, 0, 16), "swizzle must be 0, 32, 64 or 128"),
    ],
)
def test_descriptor_rejects_unencodable_fields(fields, message):
    with pytest.raises(LayoutError, match=message):
        WgmmaDescriptor(*fields)


def test_decode_rejects_a_base_offset():
    with pytest.raises(LayoutError, match="base offset"):
        WgmmaDescriptor.decode(1 << 49)


@pytest.mark.parametrize("swizzle", [32, 64, 128])
@pytest.mark.parametrize("k0", [0, 16, 32, 48])
def test_swizzled_kmajor_addresses_are_the_nvmma_shared_layout(swizzle, k0):
    """A 64 x 64 bf16 tile stored as `nvmma_shared<swizzle>` (rows of 64 elements, K
    contiguous, at a 1024-aligned address): the k16 slice at column k0 is described by
    start = the byte of column k0 in the swizzle row (no swizzle applied: the hardware
    swizzles the formed address), SBO = 8 rows; every element's address equals the
    layout's offset of it."""
    layout = NvmmaSharedLayout(swizzle, 16)
    cols = layout.tile_cols  # elements per swizzle row
    if k0 + 16 > cols:
        k0 = k0 % cols
    shape = [64, cols]
    ll = layout.to_linear(shape)
    where = {ll.apply(offset=o): o for o in range(64 * cols)}
    base = 1024 * 3
    d = WgmmaDescriptor(start=base + 2 * k0, lbo=0, sbo=8 * swizzle, swizzle=swizzle)
    for row in range(64):
        for k in range(16):
            assert kmajor_byte_offset(d, row, k) == base + 2 * where[(row, k0 + k)], (row, k)


def test_unswizzled_kmajor_addresses_follow_lbo_and_sbo():
    """No swizzle: core matrices of 8 rows x 16 bytes, LBO apart along K, SBO apart
    along the rows (here the layout that stores core matrices K-first)."""
    d = WgmmaDescriptor(start=256, lbo=128, sbo=256, swizzle=0)
    rows, ks = np.meshgrid(np.arange(64), np.arange(16), indexing="ij")
    got = kmajor_byte_offset(d, rows, ks)
    want = 256 + (rows // 8) * 256 + (ks // 8) * 128 + (rows % 8) * 16 + (ks % 8) * 2
    assert (got == want).all()
    assert len(set(got.ravel().tolist())) == 64 * 16


@pytest.mark.parametrize("n", [8, 64, 256])
def test_accumulator_fragment_is_the_version_3_mma_layout(n):
    ll = NvidiaMmaLayout(3, [4, 1], [16, n, 16]).to_linear([64, n])
    for t in range(128):
        for i in range(n // 2):
            assert wgmma_accumulator(t, i) == ll.apply(register=i, lane=t % 32, warp=t // 32), (t, i)
