"""`tile{tiles_mirror=R}` (passes/_copy_cost.TILES_MIRROR, off): a `box<tiles>` copy whose
source run continues past its contiguous mode `W` into another mode `M`
(`tiles_mirror_mode`) takes `W` and `M` as one mode `W'` of the box, its source runs `R`
bytes, each destination row's start from its `W'` step's digits. The mode found on the
strided set's 29 kind; then through `tilec.copy_`'s compiled kernel on the CPU reference
executor against NumPy, bit for bit, every byte around dst poisoned: the 29 kind (f16 ->
bf16, W of 42) with runs cutting `W'` between digits and a last short tile, a small box
(several tiles along `D`), `M` past the extents a plan states exactly, f16 without conversion and f16 -> f32; each a
kernel other than the one without it (`tiles_mirror=0`)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.canonical_copies import key_strategy

from tilec.copy_cpu import _operand, copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy
from tilec.passes._copy_cost import CopyFacts, Mode, tiles_mirror_mode


def test_the_mode_continuing_w():
    """29's modes (W of 42, the 299-mode at source stride 42, D): W and the 299-mode; none
    where no mode's source stride is W's extent, or W is not known exactly."""
    def facts(modes):
        return CopyFacts(tuple(modes), 2, 2, 16, 16, True, None, None)

    modes = [Mode(42, 42, True, 1, 3734211), Mode(299, 299, True, 42, 12489), Mode(12489, 12489, True, 12558, 1)]
    assert tiles_mirror_mode(facts(modes)) == (0, 1)
    assert tiles_mirror_mode(facts([modes[0], Mode(299, 299, True, 43, 12489), modes[2]])) is None
    assert tiles_mirror_mode(facts([Mode(42, 64, False, 1, 3734211), *modes[1:]])) is None


def _cases(rng):
    """(name, src, dst dtype name or None, runs R, box bytes or None)."""
    f16 = lambda shape: (rng.standard_normal(shape) * 30).astype(np.float16)  # noqa: E731
    return [
        # 29's kind: W' = 42 x 6 = 252 steps in runs of 128 (tiles cut W's digits), D = 150
        ("29 kind, runs 256", f16((2, 75, 3, 2, 42)).transpose(4, 2, 3, 0, 1), "bfloat16", 256, None),
        # W' = 42 x 15 = 630 in runs of 64 (the last short), a 16 KiB box: tiles along D
        ("29 kind, 16 KiB box", f16((2, 75, 3, 5, 42)).transpose(4, 2, 3, 0, 1), "bfloat16", 128, 16384),
        ("29 kind, runs 512", f16((3, 41, 2, 7, 42)).transpose(4, 2, 3, 0, 1), "bfloat16", 512, None),
        # M of 70 (past `SMALL_EXTENT`: a run-time extent, W' = 42 M on the host), D = 150
        ("29 kind, M run-time", f16((5, 30, 70, 42)).transpose(3, 2, 0, 1), "bfloat16", 512, None),
        # f16 not converting (W of 37: runs of 74 bytes), and f16 -> f32 (W of 42)
        ("f16", f16((3, 50, 7, 37)).transpose(3, 2, 0, 1), None, 96, 8192),
        ("f16 -> f32", f16((2, 60, 5, 42)).transpose(3, 2, 0, 1), "float32", 64, 8192),
    ]


@pytest.mark.parametrize("i", range(6))
def test_mirrored_tiles_box_copies_exactly(routes, i, nvrtc_available):
    """Every destination element written once, exactly, nothing around it."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    name, src, dst_dtype, run, smem = _cases(np.random.default_rng(i))[i]
    dtype = {"bfloat16": np.uint16, "float32": np.float32, None: src.dtype}[dst_dtype]
    base = np.full(src.size + 40, 77, dtype)

    def view(b):
        return b[5 : 5 + src.size].reshape(src.shape)

    key = plan_copy(_operand(view(base), dst_dtype), _operand(src, None)).key
    assert key_strategy(key) == "box<tiles>", name
    box = {"box_smem": smem} if smem else {}
    routes(tiles_mirror=0, **box)
    plain = CopyKernels(arch="sm_90", disk=False).get(key).kernel.source
    routes(tiles_mirror=run, **box)
    kernels = CopyKernels(arch="sm_90", disk=False)
    assert kernels.get(key).kernel.source != plain, name
    want = base.copy()
    if dst_dtype == "bfloat16":  # f16 -> f32 -> bf16, round to nearest even (exact: f16 fits bf16's range)
        bits = src.astype(np.float32).view(np.uint32).astype(np.uint64)
        view(want)[...] = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    else:
        view(want)[...] = src  # (f16 -> f32 exact)
    copy_numpy(view(base), src, dst_dtype=dst_dtype, kernels=kernels, compiled=True)
    assert np.array_equal(base, want), name
