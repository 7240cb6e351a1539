"""`stash-rereads` on the row kernels of examples/python/row_kernels.py: which two-pass
rows take a shared-memory stash (a row that fits in the target's shared memory per
block), that the results do not change by a bit (CPU reference, against the pipeline
without the pass, and NumPy's within the kernels' tolerance), and that the lowered CUDA
compiles under NVRTC."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec.compiler.pipeline import NAMED_PIPELINES, emit, run_pipeline

sys.path.insert(0, str(Path(__file__).parents[2] / "examples" / "python"))
sys.path.insert(0, str(Path(__file__).parents[1] / "helpers"))
sys.path.insert(0, str(Path(__file__).parent))
import row_kernels as rk  # noqa: E402
from nvrtc import compile_sm90_or_skip  # noqa: E402
from test_row_kernels import CHUNKED, _inputs  # noqa: E402

from tilec.passes.stash_rereads import SCRATCH  # noqa: E402

STASH = NAMED_PIPELINES["default"].replace("choose-warps,", "stash-rereads,choose-warps,")
"""The default pipeline with `stash-rereads` (not in the default: slower on the H200)."""
NO_STASH = NAMED_PIPELINES["default"]
BEFORE_WARPS = "chunk-rows,pack-rows,stash-rereads"


def _stash_bytes(program) -> int:
    """The shared bytes the launch allocates after `stash-rereads` (0: no stash)."""
    from tilec.dialects.layout import AllocOp
    from tilec.dialects.layout_attrs import element_bytes

    module = program.module.clone()
    run_pipeline(module, BEFORE_WARPS)
    return sum(a.result.type.cute_layout.cosize() * element_bytes(a.result.type.element_type)
               for a in module.walk() if isinstance(a, AllocOp))


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype,stashed", [
    (50257, "f16", 13 * 4096 * 2),  # 13 chunks of 4096: 104 KiB
    (50257, "f32", 13 * 4096 * 4),  # 208 KiB: fits sm_90's 227 KiB
    (131072, "f16", 0),  # 256 KiB: more than a block's 227 KiB
    (131072, "f32", 0),  # 512 KiB
    (16384, "f32", 0),  # one tile, no loop: nothing read twice
])
def test_row_kernels_take_the_stash_where_the_row_fits(name, n, dtype, stashed):
    program = rk.KERNELS[name](n, dtype)
    assert _stash_bytes(program) == stashed


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype", [(5000, "f32"), (2500, "f16")])
def test_stash_changes_no_bit(name, n, dtype):
    """Rows in chunks of 1024 (the last partial): the pipeline with `stash-rereads` gives the
    default (without it) bit for bit, NumPy's within the kernels' tolerance;
    with `max_bytes` below the row's bytes nothing is stashed."""
    m = 3
    program = CHUNKED[name](n, dtype, chunk=1024)
    row = -(-n // 1024) * 1024 * {"f32": 4, "f16": 2}[dtype]
    assert _stash_bytes(program) == row
    small = program.module.clone()
    run_pipeline(small, f"chunk-rows,pack-rows,stash-rereads{{max_bytes={row + SCRATCH - 1}}}")
    assert "layout.alloc" not in emit(small)
    args, want = _inputs(name, m, n, dtype)
    outs = {}
    for pipeline in (STASH, NO_STASH):
        lowered = program.module.clone()
        run_pipeline(lowered, pipeline)
        outs[pipeline] = tilec.run_reference(lowered, args)["dst"]
    assert np.array_equal(outs[STASH], outs[NO_STASH], equal_nan=True)
    got = outs[STASH].reshape(m, n).astype(np.float64)
    tol = {"f32": 2e-5, "f16": 2e-3}[dtype]
    assert np.abs(got - want).max() <= tol * np.abs(want).max()


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype", [(50257, "f16"), (50257, "f32"), (24576, "f32")])
def test_stashed_row_kernels_compile_under_nvrtc(name, n, dtype):
    """The CUDA of a stashed row kernel (a shared array of the row, a __syncthreads
    before the second loop) compiles for sm_90."""
    lowered = rk.KERNELS[name](n, dtype).module.clone()
    run_pipeline(lowered, STASH)
    cuda = emit(lowered, "cuda")
    assert "__shared__" in cuda and "__syncthreads()" in cuda
    compile_sm90_or_skip(cuda)
