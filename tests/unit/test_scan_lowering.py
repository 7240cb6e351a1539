"""`layout.scan`: the reference executor computes an inclusive scan (exactly NumPy's
cumsum/cumprod/maximum.accumulate for integers, forward and reverse), and lower-to-gpu
lowers it on random scannable blocked layouts (registers, then lane shuffles, then
shared memory across warps and chunks) to a program that gives bit for bit what the layout-level
program gives on the CPU reference executor, also in a loop; layouts it cannot scan
are a located error; the kernels compile with NVRTC."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from xdsl.dialects import gpu, memref

from tilec.support.diagnostics import TilecError
from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.distributed import BlockedLayout
from tilec.dialects.scan_plan import ScanPlanError, scan_plan
from tilec.runtime.reference import run

from helpers.equivalence import assert_pass_preserves
from helpers.layout_strategies import blocked_parts
from helpers.nvrtc import compile_sm90_or_skip
from helpers.programs import one_block

_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def scan_program(shape, blocked, threads, et, axis, kind, reverse=False, in_loop=False, layout=None):
    """The inclusive scan of an m x n tile in the blocked layout `blocked` (or in
    `layout`, any distributed layout) along `axis` (a module)."""
    m, n = shape
    g = f"({m},{n}):({n},1)"

    def body(p, a, b):
        p.store(p.scan(p.load(a, layout or BlockedLayout(*blocked)), axis, kind, reverse=reverse), b)

    return one_block("scan", et, g, g, threads, body, twice=in_loop)


def _plan(shape, blocked, axis):
    from xdsl.dialects.builtin import TensorType, f32

    from tilec.dialects.layout_attrs import BlockedLayoutAttr

    return scan_plan(TensorType(f32, shape, BlockedLayoutAttr(BlockedLayout(*blocked))), axis)


@st.composite
def scan_cases(draw):
    warps_log2 = draw(st.integers(0, 3))
    spt, tpw, wpc, order = blocked_parts(draw, warps_log2)
    axis = draw(st.integers(0, 1))
    shape = [0, 0]
    # the axis covered by the layout (registers, lanes, warps) once or repeated in
    # registers (chunks); the other free
    shape[axis] = spt[axis] * tpw[axis] * wpc[axis] << draw(st.integers(0, 2))
    shape[1 - axis] = 1 << draw(st.integers(0, 4))
    et = draw(st.sampled_from(["f32", "i32", "f16"]))
    kind = draw(st.sampled_from(["add", "max", "min", "mul"] if et != "f16" else ["add", "max"]))
    return (tuple(shape), (spt, tpw, wpc, order), 32 << warps_log2, et, axis, kind,
            draw(st.booleans()), draw(st.booleans()))


@settings(max_examples=60, **_SETTINGS)
@given(scan_cases())
def test_scan_is_lowered_equivalently(case):
    shape, blocked, threads, et, axis, kind, reverse, in_loop = case
    try:
        plan = _plan(shape, blocked, axis)
    except ScanPlanError:
        assume(False)
    after = assert_pass_preserves(scan_program(*case), "lower-to-gpu", seeds=(0, 1))
    ops = list(after.walk())
    allocs = [o for o in ops if isinstance(o, memref.AllocaOp)]
    barriers = sum(isinstance(o, gpu.BarrierOp) for o in ops)
    if plan.warps * plan.chunks > 1:
        assert len(allocs) == 1 and barriers == 1 + (1 if in_loop else 0)
    else:
        assert not allocs and not barriers


_ROWS = ((1, 4), (1, 32), (1, 4), (1, 0))  # 4 registers, 32 lanes, 4 warps along axis 1


@pytest.mark.parametrize("kind,ref", [("add", np.cumsum), ("mul", np.cumprod),
                                      ("max", np.maximum.accumulate), ("min", np.minimum.accumulate)])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_reference_is_an_inclusive_scan(kind, ref, reverse):
    module = scan_program((2, 512), _ROWS, 128, "i32", 1, kind, reverse)
    x = np.random.default_rng(0).integers(-3, 4, size=(2, 512)).astype(np.int32)
    out = np.full_like(x, -(2**31))  # poisoned: sums of -3..3 can be 0
    out = run(module, {"src": x.ravel(), "dst": out.ravel()})["dst"].reshape(2, 512)
    want = ref(x[:, ::-1], axis=1)[:, ::-1] if reverse else ref(x, axis=1)
    np.testing.assert_array_equal(out, want.astype(np.int32))


def test_unscannable_layout_is_a_located_error():
    # along the axis: a register bit, a lane bit, a register bit, then lane bits
    blocked = ((1, 1), (1, 32), (1, 1), (1, 0))
    m = scan_program((1, 128), blocked, 32, "f32", 1, "add", layout="#layout.linear<{register = [[0, 1], [0, 4]], "
                     "lane = [[0, 2], [0, 8], [0, 16], [0, 32], [0, 64]], warp = [], block = []}>")
    with pytest.raises(TilecError) as e:
        run_pipeline(m, "lower-to-gpu")
    assert "scan along axis 1 needs a layout" in str(e.value)
    assert "test_scan_lowering.py:" in str(e.value)  # the line of the scan_program that built it


def test_scan_kernels_compile_with_nvrtc():
    for rev in (False, True):
        m = scan_program((2, 512), _ROWS, 128, "f32", 1, "add", rev)
        run_pipeline(m, "lower-to-gpu")
        text = emit(m, "cuda")
        assert "__shfl_sync" in text and "// scan across 4 warp(s) x 1 chunk(s) via smem" in text
        compile_sm90_or_skip(text)


def test_chunked_scan_of_a_coalesced_layout():
    """A 16-byte-per-thread layout repeated 4 times along a 2048-element row: chunks."""
    case = ((2, 2048), _ROWS, 128, "f32", 1, "add", False, False)
    assert _plan(case[0], case[1], 1).chunks == 4
    for rev in (False, True):
        after = assert_pass_preserves(scan_program(*case[:6], rev), "lower-to-gpu", seeds=(0,))
        assert sum(isinstance(o, gpu.BarrierOp) for o in after.walk()) == 1


def test_a_layout_whose_axis_bases_are_not_positions_is_not_scanned():
    """Bases along the axis 1, 2, ..., 32 and 65 (= 64 ^ 1): every element once, but
    register 1 is not the element 64 places along, so the scan's order (r + R*(l + ...))
    does not hold: refused, as a layout that must be converted first."""
    blocked = ((1, 1), (1, 32), (1, 1), (1, 0))
    m = scan_program((1, 128), blocked, 32, "f32", 1, "add", layout="#layout.linear<{register = [[0, 1], [0, 65]], "
                     "lane = [[0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], warp = [], block = []}>")
    with pytest.raises(TilecError, match="does not cover the 128 elements of axis 1 once"):
        run_pipeline(m, "lower-to-gpu")
