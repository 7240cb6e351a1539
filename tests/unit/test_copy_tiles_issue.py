"""`tile{tiles_issue=B}` (passes/_box_tile.TILES_ISSUE): bit 1, a `box<tiles>` thread's
phase-1 `cp.async` copies in one commit group closed by phase 1's wait
(`layout.copy_chunk_async {uncommitted}`, `layout.async_wait {commit}`); bit 2, phase 2's
chunk loop of a destination run with static trips, unrolled (`#pragma unroll`); bits 4 and
8, phase 1's line loop over runs (a thread's slot fixed; a quarter warp a run); bit 16,
phase 2's element-wise edge loop kept rolled; bit 32 (over 2), the chunk loop unrolled by 2;
bit 64, phase 2's thread values kept; bit 128, a destination run's box addresses kept once
a run (`cuda.opaque`), a chunk's its run's plus the chunk's step; bit 256, the edge path's
elements read at the whole chunk's box addresses (no element loop, no addresses of its own). Odd
transposes (int8, and uint8 -> int16 converting) with small boxes (several blocks, runs
from every residue) through `tilec.copy_`'s kernel compiled for sm_90 on the CPU reference
executor, bit for bit against NumPy with every byte around dst poisoned (the executor
keeps uncommitted copies pending: a chunk read before its group's wait fails); and the
`tile` pass's output on the layout-level executor."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers.canonical_copies import key_strategy

from tilec.copy_cpu import _operand, copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy


def _case(seed: int, shape: tuple[int, int], dst_dtype):
    src = np.random.default_rng(seed).integers(0, 120, size=shape).astype(np.uint8).T
    dt = np.dtype(dst_dtype or src.dtype)
    base = np.full(src.size + 40, 77, dt)

    def view(b):
        return b[5 : 5 + src.size].reshape(src.shape)

    return src, base, view


@pytest.mark.parametrize("issue", [1, 2, 4, 11, 15, 17, 27, 51, 91, 137, 219, 265, 267, 393, 521, 777])
@pytest.mark.parametrize("shape, dst_dtype", [((600, 300), None), ((150, 521), None), ((301, 203), "int16"),
                                              ((601, 297), None)])
def test_issue_bits_copy_exactly(routes, nvrtc_available, issue, shape, dst_dtype):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    src, base, view = _case(issue, shape, dst_dtype)
    key = plan_copy(_operand(view(base), dst_dtype), _operand(src, None)).key
    routes(box_smem=143 * 144, tiles_issue=0)
    assert key_strategy(key) == "box<tiles>"
    plain = CopyKernels(arch="sm_90", disk=False).get(key).kernel.source
    routes(box_smem=143 * 144, tiles_issue=issue)
    kernels = CopyKernels(arch="sm_90", disk=False)
    source = kernels.get(key).kernel.source
    # bits 4 and 8 act on phase 1 by lines, which 1-byte sources converted to wider go without
    # (`_box_tile.tiles_lines_of`): bit 4 alone leaves uint8 -> int16 as it was
    assert source != plain or (issue & ~12 == 0 and dst_dtype is not None)
    # bit 1: the one commit right before the wait, not one after each copy
    assert bool(re.search(r"tilec_cp_async_commit\(\);\s*tilec_cp_async_wait", source)) == bool(issue & 1)
    # bit 2: no chunk loop from the thread's first chunk to a constant count (static trips, unrolled)
    chunk_loop = r"for \(int (i_\d+) = t_\d+; \1 < \d+; \1 \+= \d+\)"
    assert re.search(chunk_loop, plain)
    assert (re.search(chunk_loop, source) is None) == bool(issue & 2)
    # bit 16: the element-wise edge loop rolled; bit 32 (over 2): the chunk loop unrolled by 2
    edge = r"#pragma unroll 1\s*for \(int (i_\d+) = 0; \1 < (8|16); \+\+\1\)"
    assert re.search(edge, plain) is None
    assert bool(re.search(edge, source)) == bool(issue & 16 and not issue & 256)
    # bit 256: fewer element-wise edge loops (the bodies read the chunk's addresses), one
    # left where the chunk's loads are rotated (copy_'s blocks whose steps ask it)
    elements = r"for \(int (i_\d+) = 0; \1 < (8|16); \+\+\1\)"
    assert len(re.findall(elements, plain)) >= 1
    assert (len(re.findall(elements, source)) < len(re.findall(elements, plain))) == bool(issue & 256)
    assert "#pragma unroll 2\n" not in source or issue & 34 == 34  # (these boxes' trips: 1, folded)
    # bit 128: a run's box addresses kept (`asm volatile` a value) besides the chunk's first ones
    kept = source.count('asm volatile("" : "+r"') - plain.count('asm volatile("" : "+r"')
    assert (kept >= 8) == bool(issue & 128), kept  # (a chunk of 16 or 8 elements)
    want = base.copy()
    view(want)[...] = src
    copy_numpy(view(base), src, kernels=kernels, compiled=True)
    assert np.array_equal(base, want)


def test_bit_512_keeps_bit_64s_values_in_the_rotated_body_only(routes):
    """copy_'s int8 kernel builds phase 2 twice (rotated loads, and not) under a run-time
    test of the steps: bit 64 keeps the thread's first run in both bodies and its chunk
    lane in each, bit 512 only the rotated body's two (the text alone, no executor)."""
    src, base, view = _case(3, (601, 297), None)
    key = plan_copy(_operand(view(base), None), _operand(src, None)).key

    def kept(issue: int) -> int:
        routes(box_smem=143 * 144, tiles_issue=issue)
        return CopyKernels(arch="sm_90", disk=False).get(key).kernel.source.count('asm volatile("" : "+r"')

    plain = kept(265)
    assert kept(265 | 64) - plain == 3
    assert kept(265 | 512) - plain == 2
    assert kept(265 | 512 | 64) - plain == 3


@pytest.mark.parametrize("issue", [1, 3, 9])
def test_uncommitted_copies_land_at_the_committing_wait_on_the_executor(routes, monkeypatch, issue):
    """The `tile` pass's output (before lower-to-gpu) on the reference executor: the
    phase-1 copies uncommitted, the wait commits them; the copy exact."""
    from tilec import copy_cpu
    from tilec.compiler.pipeline import emit, run_pipeline
    from tilec.copy_kernels import kernel_pipeline
    from tilec.copy_program import tiled_module

    src, base, view = _case(7, (600, 300), None)
    routes(box_smem=143 * 144, tiles_issue=issue)
    texts = []

    def tiled(key):
        passes = kernel_pipeline(key, "expand-iterators,copy-strategy,tile")
        module = run_pipeline(tiled_module(key), passes)
        texts.append(emit(module))
        return texts[-1]

    monkeypatch.setattr(copy_cpu, "copy_program", tiled)
    want = base.copy()
    view(want)[...] = src
    copy_numpy(view(base), src)
    assert len(texts) == 1 and "uncommitted" in texts[0] and "commit}" in texts[0].replace(", ", "}")
    assert np.array_equal(base, want)


def test_the_rule_by_element_size_and_the_option_over_it():
    from tilec.passes._box_tile import (TILES_ISSUE, TILES_ISSUE_BYTES, TILES_ISSUE_CONSTANT, TILES_ISSUE_RUNTIME,
                                        tiles_issue_of)

    for e in (1, 2, 4, 8):
        assert tiles_issue_of(e, None) == TILES_ISSUE_BYTES.get(e, TILES_ISSUE)
        assert tiles_issue_of(e, None, constant=True) == TILES_ISSUE_BYTES.get(e, TILES_ISSUE)
        assert tiles_issue_of(e, 0) == 0 and tiles_issue_of(e, 11) == 11
        # a 1-byte box (the caller's `plain`: not converted nor merged): the kept edge too, of
        # constant extents (b0048), of run-time ones with bit 64's values in the rotated body (flat49)
        rule = TILES_ISSUE_BYTES.get(e, TILES_ISSUE)
        assert tiles_issue_of(e, None, plain=True, constant=True) == rule | TILES_ISSUE_CONSTANT
        assert tiles_issue_of(e, None, plain=True) == rule | TILES_ISSUE_RUNTIME
        assert tiles_issue_of(e, 0, plain=True, constant=True) == 0 == tiles_issue_of(e, 0, plain=True)
    assert tiles_issue_of(1, None, plain=True) == 777 and tiles_issue_of(1, None, plain=True, constant=True) == 265
