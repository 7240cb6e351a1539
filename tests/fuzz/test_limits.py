"""The size limits the fuzzer made necessary (issue #10), checked directly: 64-bit index
range of layouts and views, and what the CPU reference executor refuses to simulate."""

from __future__ import annotations

import os
import sys

import pytest

from tilec.dialects import cute
from tilec.dialects.layout_attrs import MAX_INDEX, index_range_error

sys.path.insert(0, os.path.dirname(__file__))
from harness import check_outcome, run_tilec  # noqa: E402


@pytest.mark.parametrize(
    "layout, ok",
    [
        (cute.Layout((1024, 1024), (1024, 1)), True),
        (cute.Layout((2**31, 2**31), (2**31, 1)), True),  # 2^62 elements
        (cute.Layout((2**32, 2**32), (2**32, 1)), False),  # 2^64 elements
        (cute.Layout((4, 4), (2**63, 1)), False),
        (cute.Layout((2**62, 3), (1, -(2**62))), False),  # offsets reach -2^63
        (cute.Layout((cute.DYN, 8), (cute.DYN, 1)), True),  # dynamic parts: run time
    ],
)
def test_index_range(layout, ok):
    assert (index_range_error(layout) is None) == ok


def test_view_bytes_must_fit_too():
    """A view's byte offsets (elements x element size) must fit in 64 bits."""
    lay = cute.Layout(2**61, 1)
    assert index_range_error(lay) is None
    assert index_range_error(lay, scale=8) is not None
    assert (2**61 - 1) * 4 <= MAX_INDEX and index_range_error(lay, scale=4) is None


LAUNCH = """func.func @f(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  %b = layout.view %q : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  %g = arith.constant GRID : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %c1, %c1) threads(THREADS) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>, !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
  }
  func.return
}
"""


@pytest.mark.parametrize(
    "grid, threads, message",
    [
        ("1048576", "1024", "a launch of 1073741824 threads"),  # 2^30 threads
        ("1048576", "1", "is too large for the CPU reference executor (at most 268435456)"),
    ],
)
def test_executor_refuses_launches_too_large_to_simulate(grid, threads, message):
    """Refused before anything is allocated (fast), with the launch's location."""
    out = run_tilec(["--run", "cpu"], LAUNCH.replace("GRID", grid).replace("THREADS", threads))
    check_outcome(out)
    assert out.rc == 1 and message in out.stderr, out.describe()
    assert out.seconds < 5


def test_executor_still_runs_a_normal_launch():
    out = run_tilec(["--run", "cpu"], LAUNCH.replace("GRID", "4").replace("THREADS", "32"))
    assert out.rc == 0, out.describe()
