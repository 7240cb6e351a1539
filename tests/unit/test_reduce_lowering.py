"""lower-to-gpu lowers `layout.reduce` along any dim of a blocked layout: registers
inside the thread, shuffles across lanes, shared memory (one round, one barrier)
across warps. Random layouts, axes, kinds and element types: the lowered program gives
bit for bit what the layout-level program gives on the CPU reference executor (which
combines in the same order), also inside a loop, and compiles with NVRTC for sm_90."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import gpu, memref

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.distributed import BlockedLayout

from helpers.equivalence import assert_pass_preserves
from helpers.layout_strategies import blocked_parts
from helpers.nvrtc import compile_sm90_or_skip
from helpers.programs import one_block

_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def reduce_cases(draw):
    warps_log2 = draw(st.integers(0, 3))
    spt, tpw, wpc, order = blocked_parts(draw, warps_log2)
    shape = (1 << draw(st.integers(1, 5)), 1 << draw(st.integers(1, 5)))
    axis = draw(st.integers(0, 1))
    et = draw(st.sampled_from(["f32", "i32", "f16"]))
    kind = draw(st.sampled_from(["add", "max", "min", "mul"] if et != "f16" else ["add", "max"]))
    in_loop = draw(st.booleans())
    return shape, (spt, tpw, wpc, order), 32 << warps_log2, et, axis, kind, in_loop


def reduce_program(shape, blocked, threads, et, axis, kind, in_loop):
    """The reduction of an m x n tile in the blocked layout `blocked` along `axis`
    (a module); `in_loop`: the same reduction twice, so the shared buffer is reused
    across iterations."""
    m, n = shape

    def body(p, a, b):
        p.store(p.reduce(p.load(a, BlockedLayout(*blocked)), axis, kind), b)

    return one_block("red", et, f"({m},{n}):({n},1)", f"({shape[1 - axis]}):(1)", threads, body, twice=in_loop)


def _warp_steps(shape, blocked, axis) -> int:
    ll = BlockedLayout(*blocked).to_linear(list(shape))
    return sum(1 for bs in ll.get_bases("warp") if bs[axis])


@settings(max_examples=80, **_SETTINGS)
@given(reduce_cases())
def test_reduce_is_lowered_equivalently(case):
    shape, blocked, threads, et, axis, kind, in_loop = case
    after = assert_pass_preserves(reduce_program(*case), "lower-to-gpu", seeds=(0, 1))
    ops = list(after.walk())
    allocs = [o for o in ops if isinstance(o, memref.AllocaOp)]
    barriers = sum(isinstance(o, gpu.BarrierOp) for o in ops)
    steps = _warp_steps(shape, blocked, axis)
    if steps:
        assert len(allocs) == 1
        assert barriers == 1 + (1 if in_loop else 0)  # one round through smem
    else:
        assert not allocs and not barriers


@settings(max_examples=30, **_SETTINGS)
@given(reduce_cases())
def test_reduce_kernels_compile_with_nvrtc(case):
    m = reduce_program(*case)
    run_pipeline(m, "lower-to-gpu")
    text = emit(m, "cuda")
    compile_sm90_or_skip(text)
    if _warp_steps(case[0], case[1], case[4]):
        assert "__syncthreads();" in text and "warps via smem: one round" in text
