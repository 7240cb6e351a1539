"""`box_slot32=1` on a `box<tiles>` over a merged destination mode (`_box_tile.tiles_launch`'s
`slot32`): each run lies in its slot at its source address modulo 32 bytes (slots of whole
32 bytes, `tiles_slot32_pitch`), so a source sector phase 1's 16-byte `.cg` chunks read
lands in one 32-byte block of shared memory. The merged cases of test_copy_box_merged.py
(36's and 00's shapes in small, 1-, 2- and 4-byte elements, pointers at several residues,
several tiles along both modes) through copy_'s kernel compiled for sm_90 on the CPU
reference executor, bit for bit, every byte around dst poisoned; the slots' pitch."""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_copy_box_merged import _merged_cases

from tilec.copy_cpu import _operand, copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy
from tilec.passes._box_tile import tiles_slot32_pitch


def test_the_slot32_pitch():
    assert tiles_slot32_pitch(181) == 224  # 36: 31 bytes before, the 16-byte cover after
    assert tiles_slot32_pitch(186) == 224  # 00
    assert tiles_slot32_pitch(1) == 32
    assert tiles_slot32_pitch(2) == 64  # a run at residue 31 reaches the next 32 bytes
    for run in range(1, 600):
        pitch = tiles_slot32_pitch(run)
        assert pitch % 32 == 0 and pitch >= -(-(31 + run) // 16) * 16


@pytest.mark.parametrize("smem", [8192, 16384])
def test_merged_box_with_slot32_copies_exactly(routes, smem, nvrtc_available):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    for slot32 in (0, 1, 2, 3):
        routes(box_smem=smem, tiles_merge=4, box_slot32=slot32)
        kernels = CopyKernels(arch="sm_90", disk=False)
        for src, base, view in _merged_cases(np.random.default_rng(smem + slot32)):
            want = base.copy()
            view(want)[...] = src
            copy_numpy(view(base), src, kernels=kernels, compiled=True)
            assert np.array_equal(base, want), (src.shape, src.dtype, slot32)


def test_slot32_changes_only_the_merged_box(routes):
    """The int8 36-like case's kernel: more residues mod 32 (`& 31`) than without; an odd
    transpose (not merged) builds the same kernel with or without it."""
    src = np.zeros((5, 3, 7, 150), np.int8).transpose(3, 1, 0, 2)
    dst = np.zeros(src.shape, np.int8)
    key = plan_copy(_operand(dst, None), _operand(src, None)).key
    odd = np.zeros((301, 203), np.int8).T
    okey = plan_copy(_operand(np.zeros(odd.shape, np.int8), None), _operand(odd, None)).key
    sources = {}
    for slot32 in (0, 1):
        routes(box_slot32=slot32)
        kernels = CopyKernels(arch="sm_90", disk=False)
        sources[slot32] = (kernels.get(key).kernel.source, kernels.get(okey).kernel.source)
    assert sources[0][1] == sources[1][1]
    assert sources[0][0] != sources[1][0]
    assert len(re.findall(r"& 31\b", sources[1][0])) > len(re.findall(r"& 31\b", sources[0][0]))
