"""`layout.gather` along an axis: the reference executor is NumPy's take_along_axis (an
index out of range is an error); lower-to-gpu lowers it in registers within the warp
(shuffles from the lane that holds each element) when the layouts allow it, through
shared memory otherwise (the source written once, one barrier, each thread reads its
elements), to a program that gives bit for bit what the layout-level program gives, in
several layouts, also in a loop; the CUDA compiles."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.compiler.pipeline import emit
from tilec.dialects.distributed import BlockedLayout, SliceLayout
from tilec.runtime.reference import ExecutionError, run

from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip
from helpers.programs import one_block


def gather_program(src_enc, idx_enc, mul: int = 7, in_loop: bool = False, wrap: bool = True):
    """An 8x64 tile in `src_enc` gathered along its rows at the columns (j * mul) % 64,
    j < 32, an 8x32 index tile in `idx_enc` (a module); `wrap=False` leaves out the
    `% 64` (indices past the row)."""
    def body(p, a, b):
        x = p.load(a, src_enc)
        j = p.arange(0, 32, SliceLayout(0, idx_enc))
        jm = j * p.splat(p.constant(mul, "i32"), [32], j.type.encoding)
        ns = p.splat(p.constant(64, "i32"), [32], j.type.encoding)
        jr = jm % ns if wrap else jm + ns
        idx = p.broadcast(p.expand_dims(jr, 0), [8, 32])
        p.store(p.gather(x, idx, 1), b)

    return one_block("gather", "f32", "(8,64):(64,1)", "(8,32):(32,1)", 128, body, twice=in_loop)


ROWS = BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])
COLS = BlockedLayout([2, 1], [4, 8], [1, 4], [0, 1])
WIDE = BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0])


@pytest.mark.parametrize("src,idx,in_warp", [(ROWS, ROWS, True), (ROWS, COLS, False), (WIDE, ROWS, False),
                                             (WIDE, WIDE, True)])
def test_gather_reference_and_lowering(src, idx, in_warp):
    module = gather_program(src, idx)
    x = np.random.default_rng(0).standard_normal((8, 64)).astype(np.float32)
    out = run(module, {"src": x.ravel(), "dst": np.full(256, np.nan, np.float32)})["dst"].reshape(8, 32)
    np.testing.assert_array_equal(out, x[:, (np.arange(32) * 7) % 64])
    after = assert_pass_preserves(module, "default", seeds=(0, 1))
    cuda = emit(after, "cuda")
    if in_warp:  # every element the thread needs is in its warp
        assert "in registers within the warp" in cuda and "__shared__" not in cuda
        assert "__shfl_sync" in cuda
    else:
        assert "through smem" in cuda
    compile_sm90_or_skip(cuda)


def test_gather_in_a_loop_and_nvrtc():
    module = gather_program(ROWS, COLS, in_loop=True)
    after = assert_pass_preserves(module, "lower-to-gpu", seeds=(0,))
    cuda = emit(after, "cuda")
    assert "// gather along axis 1 through smem" in cuda and cuda.count("__syncthreads();") == 2
    compile_sm90_or_skip(cuda)


def test_gather_index_out_of_range_is_an_error():
    module = gather_program(ROWS, ROWS, wrap=False)
    with pytest.raises(ExecutionError, match=r"gather index \d+ outside \[0, 64\) along axis 1"):
        run(module, {"src": np.zeros(512, np.float32), "dst": np.zeros(256, np.float32)})
