"""`warp-specialize` (passes/warp_specialize.py) on the plain TMA GEMM loop: the CPU
reference executor runs each schedule shape (stages 2-4; one and two consumer
warpgroups; trip counts a multiple of the stages, not one, below them, known only at
run time) with its mbarrier checks on, against NumPy within the MMA tolerance; a
schedule missing its empty-barrier wait, its release or its full-barrier wait is
caught; register budgets; NVRTC compiles the CUDA."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip
from helpers.pipeline_programs import BK, tma_gemm
from helpers.wgmma_programs import wgmma_gemm_program

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects.layout_mma import mma_error_bound
from tilec.dialects.layout_tma import MBarrierArriveOp, MBarrierWaitOp
from tilec.runtime.reference import ExecutionError, random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32
from tilec.support.diagnostics import TilecError


def _check_against_numpy(module, m: int, n: int, k: int, kused: int) -> None:
    inputs = random_inputs(module, 0)
    got = run(module, inputs)
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(m, k)).astype(np.float64)[:, :kused]
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(k, n)).astype(np.float64)[:kused]
    exact, mag = a @ b, np.abs(a) @ np.abs(b)
    gamma, _ = mma_error_bound(kused, "bf16")
    err = np.abs(np.asarray(got["pc"], np.float64).reshape(m, n) - exact)
    assert np.all(err <= gamma * mag + 1e-30), f"max error {err.max()}"


@pytest.mark.parametrize(
    "stages,k,trip,dynamic", [(2, 256, 4, False), (3, 256, 4, False), (4, 320, 5, False), (4, 128, 2, False),
                              (3, 320, 5, True)]
)
def test_one_consumer_warpgroup(stages, k, trip, dynamic):
    module = tma_gemm(k, trip, dynamic)
    after = assert_pass_preserves(module, f"warp-specialize{{num_stages={stages}}}", seeds=(0,))
    s = str(after)
    assert "layout.warp_specialize warpgroups(1, 1)" in s and "threads(256)" in s
    assert "layout.setmaxnreg inc 256" in s and "layout.setmaxnreg dec 40" in s
    _check_against_numpy(after, 64, 64, k, trip * BK)


def test_two_consumer_warpgroups():
    """bm = 128: two consumer warpgroups, each empty barrier counting 2 arrivals; 232
    registers each beside a producer of 40 (3 x 168 at launch)."""
    after = assert_pass_preserves(str(wgmma_gemm_program(128, 128, 320, bm=128, bn=128)), "warp-specialize{num_stages=3}",
                                  seeds=(0,))
    s = str(after)
    assert "warpgroups(2, 1)" in s and "threads(384)" in s and s.count("{count = 2 : i64}") == 3
    assert "layout.setmaxnreg inc 232" in s
    _check_against_numpy(after, 128, 128, 320, 320)


def _sabotaged(pred) -> None:
    m = tma_gemm(512)
    run_pipeline(m, "warp-specialize{num_stages=2}")
    for o in [o for o in m.walk() if pred(o)]:
        o.detach()
        o.erase()
    run(m, random_inputs(m, 0))


def _on(kind, prefix):
    return lambda o: isinstance(o, kind) and (o.bar.name_hint or "").startswith(prefix)


def test_the_executor_rejects_schedules_without_their_barriers():
    """Without the producer's wait on "empty" it refills a stage the consumers may still
    read (its arrival on "full" comes before the phase was seen complete); without the
    consumers' release the producer waits forever; without the wait on "full" the
    consumers read a stage before its copy."""
    with pytest.raises(ExecutionError, match="reused before its phase completes"):
        _sabotaged(_on(MBarrierWaitOp, "empty"))
    with pytest.raises(ExecutionError, match="would never return"):
        _sabotaged(_on(MBarrierArriveOp, "empty"))
    with pytest.raises(ExecutionError, match="uninitialised shared memory"):
        _sabotaged(_on(MBarrierWaitOp, "bar"))


def test_launches_of_another_form_are_left():
    """A barrier after the loop (it would meet the whole block): left as it is."""
    m = tma_gemm(256, barrier_after_loop=True)
    store = next(o for o in m.walk() if o.name == "layout.store")
    assert store.prev_op is not None and store.prev_op.name == "layout.barrier"
    run_pipeline(m, "warp-specialize{num_stages=2}")
    assert "layout.warp_specialize" not in str(m)


def test_register_budgets_are_checked():
    with pytest.raises(TilecError, match="must be a multiple of 8 in \\[24, 256\\], got 20"):
        run_pipeline(tma_gemm(256), "warp-specialize{num_stages=2 producer_regs=20}")


def test_cuda_compiles():
    m = parse_module(str(wgmma_gemm_program(256, 256, 320, bm=128, bn=128, out="bf16")), "t.mlir")
    run_pipeline(m, "warp-specialize{num_stages=4},default")
    cuda = emit(m, "cuda")
    assert "setmaxnreg.inc.sync.aligned.u32 232;" in cuda and "setmaxnreg.dec.sync.aligned.u32 40;" in cuda
    compile_sm90_or_skip(cuda)


@pytest.mark.parametrize("persistent,stages", [(4, 2), (4, 4), (2, 2), (8, 4)])
def test_persistent_tiles(persistent, stages):
    """persistent=P: a grid of min(P, 6) blocks over the 3 x 2 tiles of C, the ring's
    phases running on from tile to tile (4 K steps a tile); the epilogue once per tile."""
    module = tma_gemm(256, m=192, n=128)
    after = assert_pass_preserves(module, f"warp-specialize{{num_stages={stages} persistent={persistent}}}", seeds=(0,))
    s = str(after)
    assert "layout.launch grid(%nprog," in s and "%kround" in s
    _check_against_numpy(after, 192, 128, 256, 256)


def test_persistent_two_consumer_warpgroups():
    text = str(wgmma_gemm_program(256, 256, 256, bm=128, bn=128))
    after = assert_pass_preserves(text, "warp-specialize{num_stages=4 persistent=3}", seeds=(0,))
    assert "warpgroups(2, 1)" in str(after)
    _check_against_numpy(after, 256, 256, 256, 256)


def test_persistent_needs_a_static_trip_count_of_whole_rounds():
    with pytest.raises(TilecError, match=r"pipeline_programs.py:\d+:\d+: error: 'scf.for': warp-specialize: persistent=4: the K "
                                         r"loop's trip count must be static and a multiple of num_stages \(3\)"):
        run_pipeline(tma_gemm(256), "warp-specialize{num_stages=3 persistent=4}")


@pytest.mark.parametrize("group", [1, 2])
def test_persistent_plain_example_in_its_tile_order(group):
    """examples/python/gemm_plain.py (a 2 x 4 grid of 128 x 128 tiles; `group` 2: a
    linear grid whose block coordinates the program computes in grouped order, which
    the persistent form recomputes per tile) through warp-specialize{persistent=3}:
    equivalent, and NumPy's A @ B (bf16 C)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
    import gemm_plain

    text = str(gemm_plain.gemm_plain(256, 512, 256, bm=128, bn=128, group=group, stages=2))
    after = assert_pass_preserves(text, "warp-specialize{persistent=3}", seeds=(0,))
    inputs = random_inputs(after, 1)
    got = run(after, inputs)
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(256, 256)).astype(np.float64)
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(256, 512)).astype(np.float64)
    c = bf16_to_f32(np.asarray(got["pc"]).reshape(256, 512)).astype(np.float64)
    exact, mag = a @ b, np.abs(a) @ np.abs(b)
    gamma, _ = mma_error_bound(256, "bf16")
    assert np.all(np.abs(c - exact) <= gamma * mag + 2.0**-8 * (np.abs(exact) + gamma * mag))


TMA_STORE_LOOP = Path(__file__).parents[1] / "filecheck" / "warp-specialize" / "tma_store_loop.mlir"


@pytest.mark.parametrize("pipeline", ["warp-specialize{num_stages=2}", "warp-specialize{num_stages=3 rolled=true}",
                                      "warp-specialize{num_stages=2 persistent=1}"])
def test_tma_stores_in_the_loop_are_waited_for_before_their_stage_is_rewritten(pipeline):
    """A loop whose compute stores with the TMA from a buffer of its own (the lit input
    warp-specialize/tma_store_loop.mlir, found by the fuzz corpus's plain loops): the
    consumers wait for the store of the step S back before rewriting its stage; the
    executor passes the split program (it reported a write while a TMA store was
    still reading before), its output is 2 x the input, and NVRTC compiles the CUDA."""
    m = parse_module(TMA_STORE_LOOP.read_text(), "t.mlir")
    inputs = random_inputs(m, 1, entry="doubled")
    run_pipeline(m, pipeline + ",default")
    got = run(m, inputs, entry="doubled")
    assert np.array_equal(np.asarray(got["dst"]), 2 * np.asarray(inputs["src"]))
    compile_sm90_or_skip(emit(m, "cuda"))
