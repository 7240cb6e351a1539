"""On an H100/H200: GEMMs written as plain single-buffered loops and compiled through
`software-pipeline{rolled=true}` (passes/_pipeline_rolled.py: staged buffers, an
mbarrier array, the stage and phase carried by a K loop kept rolled) give NumPy's /
torch's A @ B within the MMA tolerance: the plain-loop Hopper example
(examples/python/gemm_plain.py --rolled, checked against float64 in the script) at
1024^3 for S = 2, 3, 4 and at 1000^3 (K steps no multiple of S, masked edge tiles);
the test programs of tests/helpers/pipeline_programs.py (TMA + wgmma and cp.async +
mma.sync) at 1024^3 and at K = 1088 (17 K steps under 4 stages) against NumPy
float64. Inputs random, outputs poisoned (NaN)."""

from __future__ import annotations

import pytest
from helpers.pipeline_gpu import gemm_plain, pipelined_gemm_source

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_rolled_plain_loop_gemm_example_at_1024(stages):
    assert gemm_plain("1024", "1024", "1024", "--stages", str(stages), "--rolled") == 0


def test_rolled_plain_loop_gemm_example_with_a_partial_round():
    """K = 1000: 16 K steps under 3 stages; M and N not multiples of the tile."""
    assert gemm_plain("1000", "1000", "1000", "--stages", "3", "--rolled") == 0


@pytest.mark.parametrize("form,stages,k", [("tma", 4, 1024), ("tma", 4, 1088), ("tma", 3, 1088),
                                           ("cp_async", 3, 1024), ("cp_async", 4, 1056)])
def test_rolled_test_programs_match_numpy(form, stages, k):
    """64 x 64 tiles, f32 C against NumPy float64 within the MMA bound."""
    source = pipelined_gemm_source(form, stages, k, rolled=True)
    if form == "tma":
        assert source.count("wgmma.wait_group.sync.aligned 1;") == 1
    else:
        assert source.count(f"tilec_cp_async_wait<{2 * (stages - 2)}>();") == 1


@pytest.mark.parametrize("stages", [2, 4])
def test_rolled_warp_specialized_plain_loop_gemm_example(stages):
    """examples/python/gemm_plain.py --ws --rolled (warp-specialize{rolled=true}) at
    1024^3 and at 1000^3 (a partial round, masked edge tiles)."""
    assert gemm_plain("1024", "1024", "1024", "--stages", str(stages), "--ws", "--rolled") == 0
    assert gemm_plain("1000", "1000", "1000", "--stages", "3", "--ws", "--rolled") == 0
