"""lower-to-gpu lowers scf.for / scf.if whose loop-carried values and results are
distributed tensors: random blocked layouts (with broadcast registers, lanes and warps
where the tile is smaller than the layout), the lowered program computes bit for bit
what the layout-level program computes on the CPU reference executor, and compiles
with NVRTC for sm_90."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import scf

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.distributed import BlockedLayout

from helpers.equivalence import assert_pass_preserves
from helpers.layout_strategies import blocked_parts
from helpers.nvrtc import compile_sm90_or_skip
from helpers.programs import one_block

_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def loop_cases(draw):
    """(shape, blocked layout, threads, element type, trip count)."""
    warps_log2 = draw(st.integers(0, 2))
    spt, tpw, wpc, order = blocked_parts(draw, warps_log2)
    shape = (1 << draw(st.integers(0, 5)), 1 << draw(st.integers(1, 5)))
    et = draw(st.sampled_from(["f32", "i32", "f16"]))
    return shape, BlockedLayout(spt, tpw, wpc, order), 32 << warps_log2, et, draw(st.integers(1, 4))


def loop_program(shape, enc, threads, et, trips):
    """dst = sum over tiles i of src (+ on even i, a product on odd i, chosen by an
    scf.if inside the loop), carried in `enc` (a module)."""
    m, n = shape

    def body(p, a, b):
        acc = p.full([m, n], 0, et, enc, dense=True)
        with p.range(0, trips, carry=[acc]) as i:
            v = p.load(p.tile(a, [i, 0], [m, n]), enc)
            then, otherwise = p.if_else(p.remui(i, 2).eq(0), carry=[acc])
            with then:
                acc.assign(acc + v)
            with otherwise:
                acc.assign(acc * v)
        p.store(acc, b)

    return one_block("loop", et, f"({trips * m},{n}):({n},1)", f"({m},{n}):({n},1)", threads, body)


@settings(max_examples=60, **_SETTINGS)
@given(loop_cases())
def test_loop_carried_distributed_tensors_are_lowered_equivalently(case):
    after = assert_pass_preserves(loop_program(*case), "lower-to-gpu", seeds=(0, 1))
    loops = [o for o in after.walk() if isinstance(o, scf.ForOp)]
    assert len(loops) == 1
    ifs = [o for o in loops[0].body.walk() if isinstance(o, scf.IfOp) and o.results]
    # the carried tensor: one iter_arg per distinct element of a thread, as many results
    # of the branch inside the loop
    assert ifs and len(ifs[0].results) == len(loops[0].iter_args) >= 1


@settings(max_examples=30, **_SETTINGS)
@given(loop_cases())
def test_loop_kernels_compile_with_nvrtc(case):
    m = loop_program(*case)
    run_pipeline(m, "lower-to-gpu")
    text = emit(m, "cuda")
    compile_sm90_or_skip(text)
    assert "for (" in text and "} else {" in text


def test_broadcast_registers_share_one_iter_arg():
    """A 2x2 tile in a layout of 4 registers along dim 1 (2 of them copies): 2 iter_args."""
    enc = BlockedLayout([1, 4], [2, 16], [1, 1], [1, 0])
    after = assert_pass_preserves(loop_program((2, 2), enc, 32, "f32", 2), "lower-to-gpu")
    (loop,) = [o for o in after.walk() if isinstance(o, scf.ForOp)]
    assert len(loop.iter_args) == 2


def while_program(shape, enc, threads, et, trips):
    """dst = sum of the first `trips` tiles of src, carried through an scf.while (the
    tensor enters `before`, is forwarded by scf.condition to `after` and the result;
    a module)."""
    m, n = shape

    def body(p, a, b):
        acc = p.full([m, n], 0, et, enc, dense=True)
        j = p.constant(0)
        with p.while_(lambda: j < trips, carry=[acc, j]):
            acc += p.load(p.tile(a, [j, 0], [m, n]), enc)
            j += 1
        p.store(acc, b)

    return one_block("loop", et, f"({trips * m},{n}):({n},1)", f"({m},{n}):({n},1)", threads, body)


@settings(max_examples=30, **_SETTINGS)
@given(loop_cases())
def test_while_carried_distributed_tensors_are_lowered_equivalently(case):
    after = assert_pass_preserves(while_program(*case), "lower-to-gpu", seeds=(0, 1))
    (loop,) = [o for o in after.walk() if isinstance(o, scf.WhileOp)]
    # the tensor's registers and the index enter `before` and leave through the condition
    assert len(loop.arguments) == len(loop.results) >= 2


@settings(max_examples=20, **_SETTINGS)
@given(loop_cases())
def test_while_kernels_compile_with_nvrtc(case):
    m = while_program(*case)
    run_pipeline(m, "lower-to-gpu")
    text = emit(m, "cuda")
    compile_sm90_or_skip(text)
    assert "while (true) {" in text and "break;" in text
