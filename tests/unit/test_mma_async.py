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

from types import SimpleNamespace

from xdsl.dialects.builtin import ModuleOp

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects.mma import NvidiaMmaLayout
from tilec.support.diagnostics import TilecError
from tilec.dialects.layout_mma import MmaOp, MmaWaitOp
from tilec.runtime.reference import ExecutionError, random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32

MMA = NvidiaMmaLayout(3, [4, 1], [64, 64, 16])


def program(body) -> ModuleOp:
    """@f (a module built with `tilec.Program`): A (64 x 16) and B (16 x 64) copied into
    swizzled shared tiles `g.sa`, `g.sb`, C loaded into `g.c_in` (the wgmma
    accumulator layout); then `body(p, g)`, which stores into `g.c`."""
    import tilec

    p = tilec.Program("f")
    pa, pb, pc = (p.pointer(n, t, align=16) for n, t in (("pa", "bf16"), ("pb", "bf16"), ("pc", "f32")))
    g = SimpleNamespace(a=p.view(pa, "(64,16):(16,1)"), b=p.view(pb, "(16,64):(64,1)"), c=p.view(pc, "(64,64):(64,1)"))
    with p.launch(threads=128) as k:
        g.tid = k.tid
        g.sa = p.alloc("#layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>", "bf16")
        g.sb = p.alloc("#layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>", "bf16")
        p.copy(g.a, g.sa)
        p.copy(g.b, g.sb)
        p.barrier()
        g.c_in = p.load(g.c, MMA)
        body(p, g)
    return p.module


def k_loop(pending: int, after: str = "wait", divergent: bool = False):
    """C += A @ B three times in an `scf.for`, each `{async}` mma waited for with
    `pending` inside the loop; after it (`after`): "wait" the loop's result waited for
    with `pending = 0`; "read" it read (doubled) straight away; "wait 1" waited for
    with `pending = 1` and stored; "wait 1, 0" waited for with `pending = 1`, then 0.
    `divergent`: odd threads take one more trip (the trip count differs per thread)."""

    def body(p, g):
        acc = g.c_in
        ub = (p.remui(g.tid, 2) + 1) if divergent else 3
        with p.range(0, ub, carry=[acc]):
            (w,) = p.mma_wait(p.mma(g.sa, g.sb, acc, is_async=True), pending=pending)
            acc.assign(w)
        acc.named("out")
        if after == "read":
            r = acc + acc
        else:
            (r,) = p.mma_wait(acc, pending=0 if after == "wait" else 1)
            if after == "wait 1, 0":
                (r,) = p.mma_wait(r, pending=0)
        p.store(r, g.c)

    return body


def sync_loop(p, g):
    """C += A @ B three times in an `scf.for`, synchronous mmas."""
    acc = g.c_in
    with p.range(0, 3, carry=[acc]):
        acc.assign(p.mma(g.sa, g.sb, acc))
    p.store(acc, g.c)


def _run(module, level: str = "layout", seed: int = 0):
    m = module.clone()
    if level == "lowered":
        run_pipeline(m, "default")
    inputs = random_inputs(m, seed)
    return inputs, run(m, inputs)


@pytest.mark.parametrize("pending", [0, 1])
def test_async_k_loop_gives_the_synchronous_values(pending):
    """The async loop's C equals the synchronous loop's bit for bit (the executor
    computes at issue), and NumPy's C + 3 A @ B within the MMA tolerance."""
    inputs, got = _run(program(k_loop(pending)))
    _, sync = _run(program(sync_loop))
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
    module = program(k_loop(1, after="read"))
    if level == "lowered":
        m = module.clone()
        run_pipeline(m, "default")
        assert "wgmma.wait_group.sync.aligned 0;" not in emit(m, "cuda")
        return
    with pytest.raises(ExecutionError) as info:
        _run(module)
    msg = str(info.value)
    assert "test_mma_async.py:" in msg  # the line that built the read
    assert "'arith.addf' reads %out, the result of an asynchronous layout.mma still in flight" in msg


def test_a_wait_that_may_leave_the_group_in_flight():
    """`{pending = 1}` after the loop may leave the last group in flight: its result is
    passed to a `{pending = 0}` wait before it is read (run); read directly, the
    verifier rejects it, located."""
    inputs, got = _run(program(k_loop(1, after="wait 1, 0")))
    _, sync = _run(program(sync_loop))
    assert np.array_equal(np.asarray(got["pc"]), np.asarray(sync["pc"]))
    with pytest.raises(TilecError, match=r"test_mma_async.py:\d+:\d+: error: 'layout.mma_wait': a result of "
                                         r"layout.mma_wait \{pending = 1\} is in flight .* not an operand of "
                                         r"layout.store"):
        program(k_loop(1, after="wait 1"))


def write_after(wait: bool):
    """An async mma on %sa, %sb, then a copy into %sb (after a `pending = 0` wait of
    no accumulator with `wait`), then the mma's wait and store."""

    def body(p, g):
        d = p.mma(g.sa, g.sb, g.c_in, is_async=True)
        if wait:
            p.mma_wait(pending=0)
        p.copy(g.b, g.sb)
        (r,) = p.mma_wait(d, pending=0)
        p.store(r, g.c)

    return body


def test_writing_a_buffer_an_async_mma_reads_is_a_race():
    """An async mma reads its shared operands until a wait retires its group: a copy
    into %sb before is a data race (after `layout.mma_wait {pending = 0}`, none)."""
    with pytest.raises(ExecutionError, match="while a wgmma is still reading it"):
        _run(program(write_after(False)))
    _run(program(write_after(True)))


def test_async_mma_and_wait_effects():
    """An async mma writes hidden state (its group): CSE keeps two identical ones; the
    wait synchronises (nothing moves across it); the synchronous twin is merged."""
    from xdsl.traits import MemoryEffectKind, get_effects

    def two(is_async: bool):
        def body(p, g):
            d1 = p.mma(g.sa, g.sb, g.c_in, is_async=is_async)
            d2 = p.mma(g.sa, g.sb, g.c_in, is_async=is_async)
            if is_async:
                d1, d2 = p.mma_wait(d1, d2, pending=0)
            p.store(d1 + d2, g.c)

        return body

    m = program(two(True))
    run_pipeline(m, "cse")
    mmas = [op for op in m.walk() if isinstance(op, MmaOp)]
    assert len(mmas) == 2
    assert MemoryEffectKind.WRITE in {e.kind for e in get_effects(mmas[0])}
    (wait,) = [op for op in m.walk() if isinstance(op, MmaWaitOp)]
    assert {e.kind for e in get_effects(wait)} == {MemoryEffectKind.READ, MemoryEffectKind.WRITE}
    sync = program(two(False))
    run_pipeline(sync, "cse")
    assert len([op for op in sync.walk() if isinstance(op, MmaOp)]) == 1


def test_an_accumulator_in_flight_through_divergent_loop_trips_is_reported():
    """A loop whose trip count differs per thread chooses its carried values per
    thread: an accumulator in flight cannot be chosen so (located error, no crash)."""
    body = k_loop(1, divergent=True)
    with pytest.raises(ExecutionError, match="still in flight, chosen per thread by divergent control flow"):
        _run(program(body))


def test_an_accumulator_in_flight_through_per_block_loop_trips():
    """Loops whose trip count differs per block (not within one) carry an accumulator
    in flight: the executor chooses it per block (in flight until the later group
    retires), so block b's C is C + (b + 1) A @ B, as the synchronous loop's, before
    and after lowering."""
    import tilec

    def build(is_async: bool) -> ModuleOp:
        p = tilec.Program("f")
        pa, pb, pc = (p.pointer(n, t, align=16) for n, t in (("pa", "bf16"), ("pb", "bf16"), ("pc", "f32")))
        a, b = p.view(pa, "(64,16):(16,1)"), p.view(pb, "(16,64):(64,1)")
        c = p.view(pc, "(128,64):(64,1)")
        with p.launch(grid=(2, 1, 1), threads=128) as k:
            sa = p.alloc("#layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>", "bf16")
            sb = p.alloc("#layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>", "bf16")
            p.copy(a, sa)
            p.copy(b, sb)
            p.barrier()
            ct = p.tile(c, [k.bx, p.constant(0)], [64, 64])
            acc = p.load(ct, MMA)
            with p.range(p.constant(0), (k.bx + p.constant(1)), p.constant(1), carry=[acc]):
                acc.assign(p.mma(sa, sb, acc, is_async=is_async))
            if is_async:
                (acc,) = p.mma_wait(acc, pending=0)
            p.store(acc, ct)
        return p.module

    inputs, want = _run(build(False))
    for level in ("layout", "lowered"):
        _, got = _run(build(True), level)
        assert np.array_equal(np.asarray(got["pc"]), np.asarray(want["pc"]))
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(64, 16)).astype(np.float64)
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(16, 64)).astype(np.float64)
    c = np.asarray(inputs["pc"], np.float64).reshape(2, 64, 64)
    out = np.asarray(want["pc"], np.float64).reshape(2, 64, 64)
    assert np.allclose(out, c + np.array([1, 2])[:, None, None] * (a @ b), rtol=1e-5, atol=1e-4)


def carried_then_read(mma_first: bool):
    """A loop carrying two accumulators: `c`, a complete value, and `d`, each trip's
    async mma. Each trip waits for `c` with `pending = 1` and adds it into `s` (a read),
    after the trip's mma (`mma_first`: `c` is older than the one group pending) or
    before it; `c` then takes `d` waited for with `pending = 0` (as the block-scaled
    GEMM carries its last partial)."""

    def body(p, g):
        s, c = p.load(g.c, MMA), p.load(g.c, MMA)
        with p.range(0, 3, carry=[s, c]):
            d = p.mma(g.sa, g.sb, g.c_in, is_async=True) if mma_first else None
            (w,) = p.mma_wait(c, pending=1)
            if d is None:
                d = p.mma(g.sa, g.sb, g.c_in, is_async=True)
            s.assign(s + w)
            (done,) = p.mma_wait(d, pending=0)
            c.assign(done)
        p.store(s + c, g.c)

    return body


def test_a_loop_carried_accumulator_is_complete_after_pending_groups_of_the_trip():
    """A block argument (a loop-carried accumulator) waited for with `pending = 1`
    after one mma of its trip is complete: readable (verified, and the executor runs
    it: 5 C + 3 A @ B); waited for before the trip's mma, the verifier rejects the
    read, located."""
    inputs, got = _run(program(carried_then_read(True)))
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(64, 16)).astype(np.float64)
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(16, 64)).astype(np.float64)
    c = np.asarray(inputs["pc"], np.float64).reshape(64, 64)
    # s = C + C + 2 (C + A B) (the first trip reads C, then C + A B twice), stored + C + A B
    assert np.allclose(np.asarray(got["pc"], np.float64).reshape(64, 64), 5 * c + 3 * a @ b, rtol=1e-5, atol=1e-3)
    with pytest.raises(TilecError, match=r"test_mma_async.py:\d+:\d+: error: 'layout.mma_wait': a result of "
                                         r"layout.mma_wait \{pending = 1\} is in flight .* not an operand of "
                                         r"arith.addf"):
        program(carried_then_read(False))
