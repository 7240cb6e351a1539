"""`software-pipeline` (passes/software_pipeline.py) on GEMM main loops written as plain
single-buffered loops: the CPU reference executor runs every schedule shape it makes
(stages 2-4; trip counts a multiple of the stages, not one, below the stages, known
only at run time; the TMA + wgmma form and the sm_80 cp.async + mma.sync form) with its
mbarrier, race and phase checks on, and the results match NumPy within the MMA
tolerance; wrong schedules are caught by those checks; NVRTC compiles the CUDA. These
are the unrolled form's tests (`rolled=false`, the default for TMA loops only; the
rolled form's are in test_software_pipeline_rolled.py)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip
from helpers.pipeline_programs import sm80_gemm, tma_gemm

from tilec.compiler.pipeline import NAMED_PIPELINES, emit, parse_module, run_pipeline
from tilec.dialects.layout_mma import mma_error_bound
from tilec.runtime.reference import ExecutionError, random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32

BK = 64


def _check_against_numpy(module, k: int, kused: int, seed: int = 0) -> None:
    inputs = random_inputs(module, seed)
    got = run(module, inputs)
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(64, k)).astype(np.float64)[:, :kused]
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(k, 64)).astype(np.float64)[:kused]
    exact, mag = a @ b, np.abs(a) @ np.abs(b)
    gamma, _ = mma_error_bound(kused, "bf16")
    out = np.asarray(got["pc"], np.float64).reshape(64, 64)
    err = np.abs(out - exact)
    assert np.all(err <= gamma * mag + 1e-30), f"max error {err.max()}"


# (stages, K, trip, dynamic): a multiple of the stages, one past it, below the stages,
# a run-time trip count
TMA_SHAPES = [(2, 256, 4, False), (3, 256, 4, False), (4, 256, 4, False), (3, 320, 5, False), (3, 320, 0, True),
              (4, 128, 2, False), (3, 320, 4, True), (4, 320, 1, True)]


@pytest.mark.parametrize("stages,k,trip,dynamic", TMA_SHAPES)
def test_tma_schedules_run_on_the_executor_and_match_numpy(stages, k, trip, dynamic):
    """The pipelined TMA + wgmma loop runs with the executor's mbarrier, race and
    in-flight-mma checks, and gives A @ B within the MMA tolerance; the loop before the
    pass gives the same (`assert_pass_preserves`)."""
    module = tma_gemm(k, trip, dynamic)
    after = assert_pass_preserves(module, f"software-pipeline{{num_stages={stages} rolled=false}}", seeds=(0,))
    assert "layout.mma_wait" in str(after) and str(after).count("layout.mbarrier_init") == stages
    _check_against_numpy(after, k, trip * BK)


SM80_SHAPES = [(2, 128, 4, False), (3, 128, 4, False), (4, 128, 4, False), (3, 160, 5, False),
               (4, 64, 2, False), (3, 160, 3, True), (2, 160, 0, True)]


@pytest.mark.parametrize("stages,k,trip,dynamic", SM80_SHAPES)
def test_cp_async_schedules_run_on_the_executor_and_match_numpy(stages, k, trip, dynamic):
    """The sm_80 loop (cp.async after distribute + vectorize) pipelined: each step waits
    for its own tile's commit groups only; the executor reports a read of a
    destination before its group is waited for, and races."""
    m = sm80_gemm(k, trip, dynamic)
    run_pipeline(m, "distribute,vectorize")
    after = assert_pass_preserves(m, f"software-pipeline{{num_stages={stages} rolled=false}}", seeds=(0,))
    text = str(after)
    assert f"layout.async_wait {{pending = {2 * (stages - 2)} : i64}}" in text
    _check_against_numpy(after, k, trip * 32)


def _pipelined(m, stages: int, sabotage):
    """The module `m` after `software-pipeline{num_stages=stages}` with `sabotage(module)`
    applied to the result."""
    run_pipeline(m, f"software-pipeline{{num_stages={stages} rolled=false}}")
    sabotage(m)
    return m


def _erase(pred):
    def f(m):
        for op in [o for o in m.walk() if pred(o)]:
            op.detach()
            op.erase()

    return f


def test_the_executor_rejects_a_schedule_without_its_barrier():
    """The barrier between a step's mma and the load into the stage read one step
    before is what orders them across warps: without it, a data race."""
    from tilec.dialects.layout import BarrierOp

    m = _pipelined(tma_gemm(256), 2, _erase(lambda o: isinstance(o, BarrierOp)))
    with pytest.raises(ExecutionError, match="data race|still reading"):
        run(m, random_inputs(m, 0))


def test_the_executor_rejects_a_wrong_phase():
    """Each step waits on the parity of its round: waiting on parity 0 always is caught
    (a wait on a phase that is not the current one while a copy is in flight, or a read
    before its copy landed)."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr, IndexType

    from tilec.dialects.layout_tma import MBarrierWaitOp

    def zero_parity(m):
        for w in [o for o in m.walk() if isinstance(o, MBarrierWaitOp)]:
            c = arith.ConstantOp(IntegerAttr(0, IndexType()))
            w.parent_block().insert_op_before(c, w)
            w.operands = [w.bar, c.result]

    m = _pipelined(tma_gemm(256), 2, zero_parity)
    with pytest.raises(ExecutionError, match="wait on phase parity 0 .* is in flight"):
        run(m, random_inputs(m, 0))


def test_the_executor_rejects_a_wait_that_leaves_the_tile_in_flight():
    """cp.async: `pending` one group too many leaves the step's own B tile in flight."""
    from xdsl.dialects.builtin import IntegerAttr

    from tilec.dialects.layout import AsyncWaitOp

    def one_more(m):
        for w in m.walk():
            if isinstance(w, AsyncWaitOp) and w.pending.value.data:
                w.pending = IntegerAttr(w.pending.value.data + 1, w.pending.type)

    m = sm80_gemm(128)
    run_pipeline(m, "distribute,vectorize,software-pipeline{num_stages=3 rolled=false}")
    one_more(m)
    with pytest.raises(ExecutionError, match="while a cp.async is still writing it"):
        run(m, random_inputs(m, 0))


def test_an_async_mma_stays_in_flight_across_one_step_only():
    """Written {async} + mma_wait {pending = 0}, the step's mma is left in flight with
    `pending = 1`; the result is waited for once after the loop (4 K steps under 3
    stages: 3 unrolled steps in the loop, the 4th peeled after it)."""
    after = assert_pass_preserves(tma_gemm(256, sync_mma=False), "software-pipeline{num_stages=3 rolled=false}", seeds=(0,))
    text = str(after)
    assert text.count("{pending = 1 : i64}") == 4 and text.count("{pending = 0 : i64}") == 1


@pytest.mark.parametrize("form", ["tma", "cp_async"])
def test_pipelined_cuda_compiles(form):
    """The default pipeline after the pass: equivalent, and NVRTC compiles the CUDA
    (wgmma.wait_group 1 in the loop; cp.async.wait_group 2 for 3 stages of 2 groups)."""
    if form == "tma":
        m = tma_gemm(320)
        run_pipeline(m, "software-pipeline{num_stages=4 rolled=false},default")
        cuda = emit(m, "cuda")
        assert "wgmma.wait_group.sync.aligned 1;" in cuda and "wgmma.wait_group.sync.aligned 0;" in cuda
    else:
        m = sm80_gemm(160)
        run_pipeline(m, "distribute,vectorize,software-pipeline{num_stages=3 rolled=false},vectorize-pointers,"
                        "vectorize-element-loops,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize")
        cuda = emit(m, "cuda")
        assert "tilec_cp_async_wait<2>();" in cuda and "mma.sync.aligned" in cuda
    compile_sm90_or_skip(cuda)


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_a_loop_without_wgmma_is_exact(stages):
    """A TMA loop whose compute is elementwise (the sum of A's five 64 x 64 column
    tiles, tests/filecheck/software-pipeline/tma_sync_compute.mlir): its schedule
    loads ahead before the compute, and the sum is NumPy's f32 sum in the same order,
    bit for bit."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "filecheck" / "software-pipeline" / "tma_sync_compute.mlir"
    m = parse_module(path.read_text(), str(path))
    run_pipeline(m, f"software-pipeline{{num_stages={stages} rolled=false}}")
    inputs = random_inputs(m, 0)
    got = np.asarray(run(m, inputs)["pc"]).reshape(64, 64)
    a = np.asarray(inputs["pa"], np.float32).reshape(64, 320)
    want = np.zeros((64, 64), np.float32)
    for t in range(5):
        want = want + a[:, 64 * t:64 * (t + 1)]
    assert np.array_equal(got, want)


def test_the_plain_loop_example_becomes_the_hand_scheduled_kernel():
    """examples/python/gemm_plain.py (its loop asks for 4 stages) through the default
    pipeline (`software-pipeline` among its passes) has the
    schedule examples/python/gemm_bf16_hopper.py writes by hand (`gemm_hopper`, 4
    stages): as many wgmma, `wait_group 1` in the loop, one `wait_group 0` after it,
    stage barriers and TMA loads; both compile. (Without the column chunks and the TMA
    epilogue the default pipeline gives it: tests/unit/test_split_accumulator.py.)"""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
    import gemm_bf16_hopper
    import gemm_plain

    shape = (512, 512, 1024)
    plain = parse_module(str(gemm_plain.gemm_plain(*shape, stages=4)), "plain.mlir")
    # the hand kernel's one accumulator and register epilogue: no column chunks, no TMA store
    run_pipeline(plain, NAMED_PIPELINES["default"].replace("software-pipeline", "software-pipeline{split=false}")
                 .replace("split-accumulator", "split-accumulator{enabled=false}")
                 .replace("tma-epilogue", "tma-epilogue{enabled=false}"))
    hand = parse_module(str(gemm_bf16_hopper.gemm_hopper(*shape)), "hand.mlir")
    run_pipeline(hand, "default")
    a, b = emit(plain, "cuda"), emit(hand, "cuda")
    for needle in ("wgmma.mma_async", "wgmma.wait_group.sync.aligned 1;", "wgmma.wait_group.sync.aligned 0;",
                   "tilec_mbarrier_init(", "cp.async.bulk.tensor.2d"):
        assert a.count(needle) == b.count(needle), needle
    compile_sm90_or_skip(a)


def test_the_builder_states_a_loops_depth():
    """`range(..., num_stages=N)` (builder and `@tilec.jit`'s `tilec.range`) puts
    `{tilec.num_stages = N}` on the loop; a depth outside [1, 8] is an error."""
    import tilec
    from tilec.support.diagnostics import TilecError

    p = tilec.Program("f")
    c0, c1, c4 = p.constant(0), p.constant(1), p.constant(4)
    with p.launch(grid=(c1, c1, c1), threads=32):
        with p.range(c0, c4, c1, num_stages=3):
            pass
    assert "{tilec.num_stages = 3 : i64}" in str(p.module)
    with pytest.raises(TilecError, match=r"num_stages must be an int in \[1, 8\], got 9"):
        with p.launch(grid=(c1, c1, c1), threads=32):
            with p.range(c0, c4, c1, num_stages=9):
                pass


@pytest.mark.parametrize("form", ["tma", "cp_async"])
@pytest.mark.parametrize(("trip", "stages"), [(7, 3), (7, 4), (5, 2)])
def test_a_static_trip_count_that_stages_do_not_divide_is_peeled(form, trip, stages):
    """A static trip count above S that S does not divide: the loop runs the whole
    rounds, none of its steps guarded (no `scf.if` with results), and the last trip mod
    S steps follow it; the executor's mbarrier phase, cp.async and race checks pass and
    C is unchanged, for both forms."""
    make = tma_gemm if form == "tma" else sm80_gemm
    k = trip * (64 if form == "tma" else 32)
    spec = f"software-pipeline{{num_stages={stages} rolled=false}}"
    if form == "cp_async":
        spec = "distribute,vectorize," + spec
    after = assert_pass_preserves(make(k), spec, seeds=(0,))
    text = str(after)
    assert "%rounds_end = arith.addi" in text and "to %rounds_end step %nstep" in text
    # no step is skipped (an scf.if yielding the carried values); the TMA form's loads
    # ahead keep their guard (an scf.if without results)
    assert not any("scf.if" in line and "-> (" in line for line in text.splitlines())
    assert text.count("layout.mma %") == stages + trip % stages  # S steps in the loop, the rest after it


def test_a_deep_cp_async_ring_waits_for_at_most_seven_groups_in_flight():
    """6 stages of two commit groups a step would leave 8 groups in flight, past
    `cp.async.wait_group`'s 7: the step waits with pending = 7 (one group more landed
    than it needs), and the schedule still runs on the executor and compiles."""
    m = sm80_gemm(448)
    run_pipeline(m, "distribute,vectorize")
    after = assert_pass_preserves(m, "software-pipeline{num_stages=6 rolled=false}", seeds=(0,))
    assert "layout.async_wait {pending = 7 : i64}" in str(after)
    run_pipeline(after, "vectorize-pointers,vectorize-element-loops,remove-layout-conversions,lower-convert-layout,"
                        "lower-to-gpu,canonicalize")
    compile_sm90_or_skip(emit(after, "cuda"))
