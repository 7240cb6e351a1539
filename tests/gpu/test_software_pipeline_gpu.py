"""On an H100/H200: GEMMs written as plain single-buffered loops and compiled through
`software-pipeline{num_stages=S}` (passes/software_pipeline.py) or
`warp-specialize{num_stages=S}` (passes/warp_specialize.py) give NumPy's / torch's
A @ B within the MMA tolerance: the plain-loop Hopper example (examples/python/
gemm_plain.py: TMA + wgmma, 128 x 256 x 64 tiles) at 1024^3 for S = 2, 3, 4 and at a
shape whose K steps are no multiple of S (the skipped steps), and the sm_80 form
(cp.async + mma.sync) at 1024^3; the example warp-specialised (`--ws`: a producer
warpgroup beside two consumer warpgroups), also persistent. Inputs random, outputs poisoned (NaN)."""

from __future__ import annotations

import pytest
from helpers.pipeline_gpu import gemm_plain, pipelined_gemm_source

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_plain_loop_gemm_example_at_1024(stages):
    """examples/python/gemm_plain.py at 1024^3 (torch tensors, checked in the script)."""
    assert gemm_plain("1024", "1024", "1024", "--stages", str(stages)) == 0


@pytest.mark.parametrize("stages", [2, 4])
def test_plain_loop_gemm_example_warp_specialized_at_1024(stages):
    """examples/python/gemm_plain.py --ws at 1024^3, and at 1000^3 (skipped steps,
    masked edge tiles)."""
    assert gemm_plain("1024", "1024", "1024", "--stages", str(stages), "--ws") == 0
    assert gemm_plain("1000", "1000", "1000", "--stages", "3", "--ws") == 0


def test_plain_loop_gemm_example_warp_specialized_persistent():
    """examples/python/gemm_plain.py --ws --persistent (over the GPU's
    multiprocessors) at 1024^3 and 4096 x 4096 x 1024 (more tiles than blocks)."""
    assert gemm_plain("1024", "1024", "1024", "--stages", "4", "--ws", "--persistent") == 0
    assert gemm_plain("4096", "4096", "1024", "--stages", "4", "--ws", "--persistent") == 0


def test_plain_loop_gemm_example_with_skipped_steps():
    """K = 1000: 16 K steps under 3 stages (the last round's steps past 16 skipped);
    M and N not multiples of the tile (masked edge tiles)."""
    assert gemm_plain("1000", "1000", "1000", "--stages", "3") == 0


@pytest.mark.parametrize("form,stages", [("tma", 4), ("cp_async", 3)])
def test_pipelined_test_programs_at_1024(form, stages):
    """The test programs of tests/helpers/pipeline_programs.py (64 x 64 tiles) at
    1024^3, f32 C against NumPy."""
    source = pipelined_gemm_source(form, stages, 1024)
    if form == "tma":
        assert "wgmma.wait_group.sync.aligned 1;" in source
    else:
        assert "tilec_cp_async_wait<2>();" in source
