"""`layout.gather` along an axis: the reference executor is NumPy's take_along_axis (an
index out of range is an error); lower-to-gpu lowers it in registers within the warp
(shuffles from the lane that holds each element) when the layouts allow it, through
shared memory otherwise (the source written once, one barrier, each thread reads its
elements), to a program that gives bit for bit what the layout-level program gives, in
several layouts, also in a loop; the CUDA compiles."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.runtime.reference import ExecutionError, run

from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip
from helpers.programs import one_block_program


def gather_program(src_enc: str, idx_enc: str, mul: int = 7, in_loop: bool = False) -> str:
    body = f"""
    %x = layout.load %a : !S -> tensor<8x64xf32, #s>
    %j = layout.arange {{start = 0 : i32, end = 32 : i32}} : tensor<32xi32, #ic>
    %m = arith.constant {mul} : i32
    %ms = layout.splat %m : i32 -> tensor<32xi32, #ic>
    %n = arith.constant 64 : i32
    %ns = layout.splat %n : i32 -> tensor<32xi32, #ic>
    %jm = arith.muli %j, %ms : tensor<32xi32, #ic>
    %jr = arith.remsi %jm, %ns : tensor<32xi32, #ic>
    %j2 = layout.expand_dims %jr {{axis = 0 : i64}} : tensor<32xi32, #ic> -> tensor<1x32xi32, #i>
    %idx = layout.broadcast %j2 : tensor<1x32xi32, #i> -> tensor<8x32xi32, #i>
    %g = layout.gather %x[%idx] {{axis = 1 : i64}} : tensor<8x64xf32, #s>, tensor<8x32xi32, #i> -> tensor<8x32xf32, #i>
    layout.store %g, %b : tensor<8x32xf32, #i>, !D"""
    preamble = f"""
#s = {src_enc}
#i = {idx_enc}
#ic = #layout.slice<{{dim = 0, parent = #i}}>
!S = !layout.tensor<f32, #layout.cute<(8,64):(64,1)>, gmem>
!D = !layout.tensor<f32, #layout.cute<(8,32):(32,1)>, gmem>"""
    return one_block_program("gather", "f32", "!S", "!D", 128, body, twice=in_loop, preamble=preamble)


ROWS = "#layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>"
COLS = "#layout.blocked<{sizePerThread = [2, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>"
WIDE = "#layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>"


@pytest.mark.parametrize("src,idx,in_warp", [(ROWS, ROWS, True), (ROWS, COLS, False), (WIDE, ROWS, False),
                                             (WIDE, WIDE, True)])
def test_gather_reference_and_lowering(src, idx, in_warp):
    text = gather_program(src, idx)
    x = np.random.default_rng(0).standard_normal((8, 64)).astype(np.float32)
    out = run(parse_module(text), {"src": x.ravel(), "dst": np.full(256, np.nan, np.float32)})["dst"].reshape(8, 32)
    np.testing.assert_array_equal(out, x[:, (np.arange(32) * 7) % 64])
    after = assert_pass_preserves(text, "default", seeds=(0, 1))
    cuda = emit(after, "cuda")
    if in_warp:  # every element the thread needs is in its warp
        assert "in registers within the warp" in cuda and "__shared__" not in cuda
        assert "__shfl_sync" in cuda
    else:
        assert "through smem" in cuda
    compile_sm90_or_skip(cuda)


def test_gather_in_a_loop_and_nvrtc():
    text = gather_program(ROWS, COLS, in_loop=True)
    after = assert_pass_preserves(text, "lower-to-gpu", seeds=(0,))
    cuda = emit(after, "cuda")
    assert "// gather along axis 1 through smem" in cuda and cuda.count("__syncthreads();") == 2
    compile_sm90_or_skip(cuda)


def test_gather_index_out_of_range_is_an_error():
    text = gather_program(ROWS, ROWS).replace("%jr = arith.remsi %jm, %ns", "%jr = arith.addi %jm, %ns")
    with pytest.raises(ExecutionError, match=r"gather index \d+ outside \[0, 64\) along axis 1"):
        run(parse_module(text), {"src": np.zeros(512, np.float32), "dst": np.zeros(256, np.float32)})
