"""The asynchronous `layout.mma {async}` and `layout.mma_wait {pending = N}`
(dialects/layout_mma.py): the CPU reference executor models the groups in flight
(runtime/reference/mma_impls.py: a read of an accumulator in flight and a write of
shared memory an mma in flight reads are errors, located), gives the same values as the
synchronous op, and agrees with the lowering (passes/lower_to_gpu/wgmma.py: commit
without a wait, `wgmma.wait_group N`), whose CUDA NVRTC compiles; the ops' effects keep
CSE from merging two async mmas."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects.layout_mma import MmaOp, MmaWaitOp
from tilec.runtime.reference import ExecutionError, random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32

MMA = "#layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>"
HEAD = f"""#mma = {MMA}
!ACC = tensor<64x64xf32, #mma>
!GA = !layout.tensor<bf16, #layout.cute<(64,16):(16,1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
"""


def program(body: str) -> str:
    """@f: A (64 x 16) and B (16 x 64) copied into shared tiles %sa, %sb, C loaded into
    %c_in; then `body`, which stores into %c."""
    return (
        HEAD
        + """func.func @f(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    layout.copy %a, %sa : !GA, !SA
    layout.copy %b, %sb : !GB, !SB
    layout.barrier
    %c_in = layout.load %c : !GC -> !ACC
"""
        + body
        + """  }
  func.return
}
"""
    )


def k_loop(pending: int, wait_after: bool = True) -> str:
    """C += A @ B three times in an `scf.for`, each `{async}` mma waited for with
    `pending` inside the loop, the loop's result (with `wait_after`) with `pending = 0`
    after it; without, the result is read (doubled) straight away."""
    after = (
        "    %r = layout.mma_wait %out {pending = 0 : i64} : !ACC\n"
        if wait_after
        else "    %r = arith.addf %out, %out : !ACC\n"
    )
    return (
        "    %out = scf.for %i = %c0 to %c3 step %c1 iter_args(%x = %c_in) -> (!ACC) {\n"
        "      %d = layout.mma %sa, %sb, %x {async} : !SA, !SB, !ACC\n"
        f"      %w = layout.mma_wait %d {{pending = {pending} : i64}} : !ACC\n"
        "      scf.yield %w : !ACC\n"
        "    }\n" + after + "    layout.store %r, %c : !ACC, !GC\n"
    )


SYNC_LOOP = """    %out = scf.for %i = %c0 to %c3 step %c1 iter_args(%x = %c_in) -> (!ACC) {
      %d = layout.mma %sa, %sb, %x : !SA, !SB, !ACC
      scf.yield %d : !ACC
    }
    layout.store %out, %c : !ACC, !GC
"""


def _run(text: str, level: str = "layout", seed: int = 0):
    m = parse_module(text, "t.mlir")
    if level == "lowered":
        run_pipeline(m, "default")
    inputs = random_inputs(m, seed)
    return inputs, run(m, inputs)


@pytest.mark.parametrize("pending", [0, 1])
def test_async_k_loop_gives_the_synchronous_values(pending):
    """The async loop's C equals the synchronous loop's bit for bit (the executor
    computes at issue), and NumPy's C + 3 A @ B within the MMA tolerance."""
    inputs, got = _run(program(k_loop(pending)))
    _, sync = _run(program(SYNC_LOOP))
    assert np.array_equal(np.asarray(got["pc"]), np.asarray(sync["pc"]))
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(64, 16)).astype(np.float64)
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(16, 64)).astype(np.float64)
    c = np.asarray(inputs["pc"], np.float64).reshape(64, 64)
    out = np.asarray(got["pc"], np.float64).reshape(64, 64)
    assert np.allclose(out, c + 3 * a @ b, rtol=1e-5, atol=1e-4)


def test_async_k_loop_is_equivalent_after_lowering_and_compiles():
    """The default pipeline keeps the values (wait_group 1 in the loop, 0 after it);
    NVRTC compiles the CUDA for sm_90a."""
    after = assert_pass_preserves(program(k_loop(1)), "default", seeds=(0,))
    cuda = emit(after, "cuda")
    assert cuda.count("wgmma.wait_group.sync.aligned 1;") == 1
    assert cuda.count("wgmma.wait_group.sync.aligned 0;") == 1
    assert cuda.index("wgmma.commit_group") < cuda.index("wgmma.wait_group.sync.aligned 1;")
    compile_sm90_or_skip(cuda)


def test_lit_program_with_two_accumulators_compiles():
    """NVRTC compiles what `-t cuda` prints for tests/filecheck/lower-to-gpu/
    wgmma_async.mlir (two accumulators through one wait)."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "filecheck" / "lower-to-gpu" / "wgmma_async.mlir"
    m = parse_module(path.read_text(), str(path))
    run_pipeline(m, "default")
    compile_sm90_or_skip(emit(m, "cuda"))


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_reading_the_accumulator_before_its_wait_is_reported(level):
    """The loop yields the async result; reading the loop's result without a
    `layout.mma_wait` is a located error of the executor (the verifier cannot see it:
    the yield is allowed). After lowering, the value read is the wgmma's register, and
    the executor does not model registers in flight: only the layout level reports it."""
    text = program(k_loop(1, wait_after=False))
    if level == "lowered":
        m = parse_module(text, "t.mlir")
        run_pipeline(m, "default")
        assert "wgmma.wait_group.sync.aligned 0;" not in emit(m, "cuda")
        return
    with pytest.raises(ExecutionError) as info:
        _run(text)
    msg = str(info.value)
    assert "t.mlir:" in msg
    assert "'arith.addf' reads %out, the result of an asynchronous layout.mma still in flight" in msg


def test_a_wait_that_may_leave_the_group_in_flight():
    """`{pending = 1}` after the loop may leave the last group in flight: its result is
    passed to a `{pending = 0}` wait before it is read (run); read directly, the
    verifier rejects it, located."""
    from tilec.support.diagnostics import TilecError

    body = k_loop(1).replace(
        "%r = layout.mma_wait %out {pending = 0 : i64}", "%r1 = layout.mma_wait %out {pending = 1 : i64}"
    )
    ok = body.replace("    layout.store %r,", "    %r = layout.mma_wait %r1 {pending = 0 : i64} : !ACC\n    layout.store %r,")
    inputs, got = _run(program(ok))
    _, sync = _run(program(SYNC_LOOP))
    assert np.array_equal(np.asarray(got["pc"]), np.asarray(sync["pc"]))
    with pytest.raises(TilecError, match=r"t.mlir:\d+:\d+: error: 'layout.mma_wait': a result of layout.mma_wait "
                                         r"\{pending = 1\} is in flight .* not an operand of layout.store"):
        parse_module(program(body.replace("layout.store %r,", "layout.store %r1,")), "t.mlir")


WRITE_AFTER = """    %d = layout.mma %sa, %sb, %c_in {{async}} : !SA, !SB, !ACC
{wait}    layout.copy %b, %sb : !GB, !SB
    %r = layout.mma_wait %d {{pending = 0 : i64}} : !ACC
    layout.store %r, %c : !ACC, !GC
"""


def test_writing_a_buffer_an_async_mma_reads_is_a_race():
    """An async mma reads its shared operands until a wait retires its group: a copy
    into %sb before is a data race (after `layout.mma_wait {pending = 0}`, none)."""
    with pytest.raises(ExecutionError, match="while a wgmma is still reading it"):
        _run(program(WRITE_AFTER.format(wait="")))
    _run(program(WRITE_AFTER.format(wait="    layout.mma_wait {pending = 0 : i64}\n")))


def test_async_mma_and_wait_effects():
    """An async mma writes hidden state (its group): CSE keeps two identical ones; the
    wait synchronises (nothing moves across it); the synchronous twin is merged."""
    from xdsl.traits import MemoryEffectKind, get_effects

    two = """    %d1 = layout.mma %sa, %sb, %c_in {async} : !SA, !SB, !ACC
    %d2 = layout.mma %sa, %sb, %c_in {async} : !SA, !SB, !ACC
    %r:2 = layout.mma_wait %d1, %d2 {pending = 0 : i64} : !ACC, !ACC
    %s = arith.addf %r#0, %r#1 : !ACC
    layout.store %s, %c : !ACC, !GC
"""
    m = parse_module(program(two))
    run_pipeline(m, "cse")
    mmas = [op for op in m.walk() if isinstance(op, MmaOp)]
    assert len(mmas) == 2
    assert MemoryEffectKind.WRITE in {e.kind for e in get_effects(mmas[0])}
    (wait,) = [op for op in m.walk() if isinstance(op, MmaWaitOp)]
    assert {e.kind for e in get_effects(wait)} == {MemoryEffectKind.READ, MemoryEffectKind.WRITE}
    sync = parse_module(program(two.replace(" {async}", "").replace(
        "%r:2 = layout.mma_wait %d1, %d2 {pending = 0 : i64} : !ACC, !ACC\n    %s = arith.addf %r#0, %r#1",
        "%s = arith.addf %d1, %d2")))
    run_pipeline(sync, "cse")
    assert len([op for op in sync.walk() if isinstance(op, MmaOp)]) == 1


def test_an_accumulator_in_flight_through_divergent_loop_trips_is_reported():
    """A loop whose trip count differs per thread chooses its carried values per
    thread: an accumulator in flight cannot be chosen so (located error, no crash)."""
    body = k_loop(1).replace(
        "    %out = scf.for %i = %c0 to %c3 step",
        "    %c2 = arith.constant 2 : index\n    %odd = arith.remui %tid, %c2 : index\n"
        "    %ub = arith.addi %odd, %c1 : index\n    %out = scf.for %i = %c0 to %ub step",
    )
    with pytest.raises(ExecutionError, match="still in flight, chosen per thread by divergent control flow"):
        _run(program(body))
