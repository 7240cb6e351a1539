"""`software-pipeline` (passes/software_pipeline.py) on GEMM main loops written as plain
single-buffered loops: the CPU reference executor runs every schedule shape it makes
(stages 2-4; trip counts a multiple of the stages, not one, below the stages, known
only at run time; the TMA + wgmma form and the sm_80 cp.async + mma.sync form) with its
mbarrier, race and phase checks on, and the results match NumPy within the MMA
tolerance; wrong schedules are caught by those checks; NVRTC compiles the CUDA."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects.layout_mma import mma_error_bound
from tilec.runtime.reference import ExecutionError, random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32

BK = 64


def tma_gemm(k: int, trip: int | None = None, dynamic: bool = False, sync_mma: bool = True) -> str:
    """@gemm: C (64 x 64, f32) = A[:, :trip*64] @ B[:trip*64, :] (A 64 x k, B k x 64,
    bf16), one warpgroup, the plain loop over K steps: TMA loads of the step's A and B
    tiles on one mbarrier, its wait, a wgmma `layout.mma` (sync, or {async} + wait 0),
    a barrier. `dynamic`: the trip count is the index argument %nk (`tilec.args`)."""
    trip = k // BK if trip is None else trip
    sig = ", %nk: index" if dynamic else ""
    attrs = f" attributes {{tilec.args = {{nk = {trip} : index}}}}" if dynamic else ""
    nk = "" if dynamic else f"\n  %nk = arith.constant {trip} : index"
    mma = (
        "      %d = layout.mma %sa, %sb, %acc0 : !S, !S, !ACC\n"
        if sync_mma
        else "      %e = layout.mma %sa, %sb, %acc0 {async} : !S, !S, !ACC\n"
        "      %d = layout.mma_wait %e {pending = 0 : i64} : !ACC\n"
    )
    return f"""#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!GA = !layout.tensor<bf16, #layout.cute<(64,{k}):({k},1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<({k},64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,64):({k},1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(64,64):(64,1)>, gmem>
!S = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>
func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>{sig}){attrs} {{
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index{nk}
  layout.launch grid(%c1, %c1, %c1) threads(128) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !S
    %sb = layout.alloc : !S
    %bar = layout.mbarrier_init {{count = 1 : i64}}
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {{
      %ta = layout.tile %a[%c0, %kt] {{tile = array<i64: 64, 64>}} : !GA -> !TA
      %tb = layout.tile %b[%kt, %c0] {{tile = array<i64: 64, 64>}} : !GB -> !TB
      layout.mbarrier_arrive %bar {{tx = 16384 : i64}}
      layout.tma_load %ta, %sa, %bar : !TA, !S
      layout.tma_load %tb, %sb, %bar : !TB, !S
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
{mma}      layout.barrier
      scf.yield %d : !ACC
    }}
    layout.store %acc, %c : !ACC, !GC
  }}
  func.return
}}
"""


def sm80_gemm(k: int, trip: int | None = None, dynamic: bool = False) -> str:
    """@gemm: the same GEMM for sm_80: block-level copies of the step's A (64 x 32) and
    B (32 x 64) tiles into shared buffers (cp.async after `distribute,vectorize`), a
    barrier, the operands loaded into the mma.sync operand layouts, `layout.mma`, a
    barrier; 4 warps."""
    trip = k // 32 if trip is None else trip
    sig = ", %nk: index" if dynamic else ""
    attrs = f"tilec.args = {{nk = {trip} : index}}, " if dynamic else ""
    nk = "" if dynamic else f"\n  %nk = arith.constant {trip} : index"
    return f"""#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
!GA = !layout.tensor<bf16, #layout.cute<(64,{k}):({k},1)>, gmem>
!GB = !layout.tensor<bf16, #layout.cute<({k},64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!TA = !layout.tensor<bf16, #layout.cute<(64,32):({k},1)>, gmem>
!TB = !layout.tensor<bf16, #layout.cute<(32,64):(64,1)>, gmem>
!SA = !layout.tensor<bf16, #layout.cute<(64,32):(32,1)>, smem>
!SB = !layout.tensor<bf16, #layout.cute<(32,64):(64,1)>, smem>
!ACC = tensor<64x64xf32, #mma>
func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>{sig}) attributes {{{attrs}tilec.target = "sm_80"}} {{
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !GA
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !GB
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index{nk}
  layout.launch grid(%c1, %c1, %c1) threads(128) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %zero = arith.constant dense<0.0> : !ACC
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (!ACC) {{
      %ta = layout.tile %A[%c0, %kt] {{tile = array<i64: 64, 32>}} : !GA -> !TA
      %tb = layout.tile %B[%kt, %c0] {{tile = array<i64: 32, 64>}} : !GB -> !TB
      layout.copy %ta, %sa : !TA, !SA
      layout.copy %tb, %sb : !TB, !SB
      layout.barrier
      %fa = layout.load %sa : !SA -> tensor<64x32xbf16, #a>
      %fb = layout.load %sb : !SB -> tensor<32x64xbf16, #b>
      %d = layout.mma %fa, %fb, %acc0 : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b>, !ACC
      layout.barrier
      scf.yield %d : !ACC
    }}
    layout.store %acc, %C : !ACC, !GC
  }}
  func.return
}}
"""


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
TMA_SHAPES = [(2, 256, 4, False), (3, 256, 4, False), (4, 256, 4, False), (3, 320, 5, False),
              (4, 128, 2, False), (3, 320, 4, True), (4, 320, 1, True)]


@pytest.mark.parametrize("stages,k,trip,dynamic", TMA_SHAPES)
def test_tma_schedules_run_on_the_executor_and_match_numpy(stages, k, trip, dynamic):
    """The pipelined TMA + wgmma loop runs with the executor's mbarrier, race and
    in-flight-mma checks, and gives A @ B within the MMA tolerance; the loop before the
    pass gives the same (`assert_pass_preserves`)."""
    text = tma_gemm(k, trip, dynamic)
    after = assert_pass_preserves(text, f"software-pipeline{{num_stages={stages}}}", seeds=(0,))
    assert "layout.mma_wait" in str(after) and str(after).count("layout.mbarrier_init") == stages
    _check_against_numpy(after, k, trip * BK)


SM80_SHAPES = [(2, 128, 4, False), (3, 128, 4, False), (4, 128, 4, False), (3, 160, 5, False),
               (4, 64, 2, False), (3, 160, 3, True), (2, 160, 0, True)]


@pytest.mark.parametrize("stages,k,trip,dynamic", SM80_SHAPES)
def test_cp_async_schedules_run_on_the_executor_and_match_numpy(stages, k, trip, dynamic):
    """The sm_80 loop (cp.async after distribute + vectorize) pipelined: each step waits
    for its own tile's commit groups only; the executor reports a read of a
    destination before its group is waited for, and races."""
    m = parse_module(sm80_gemm(k, trip, dynamic), "t.mlir")
    run_pipeline(m, "distribute,vectorize")
    after = assert_pass_preserves(m, f"software-pipeline{{num_stages={stages}}}", seeds=(0,))
    text = str(after)
    assert f"layout.async_wait {{pending = {2 * (stages - 2)} : i64}}" in text
    _check_against_numpy(after, k, trip * 32)


def _pipelined(text: str, stages: int, sabotage):
    """The module after `software-pipeline{num_stages=stages}` with `sabotage(module)`
    applied to the result."""
    m = parse_module(text, "t.mlir")
    run_pipeline(m, f"software-pipeline{{num_stages={stages}}}")
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

    m = parse_module(sm80_gemm(128), "t.mlir")
    run_pipeline(m, "distribute,vectorize,software-pipeline{num_stages=3}")
    one_more(m)
    with pytest.raises(ExecutionError, match="while a cp.async is still writing it"):
        run(m, random_inputs(m, 0))


def test_an_async_mma_stays_in_flight_across_one_step_only():
    """Written {async} + mma_wait {pending = 0}, the step's mma is left in flight with
    `pending = 1`; the result is waited for once after the loop."""
    after = assert_pass_preserves(tma_gemm(256, sync_mma=False), "software-pipeline{num_stages=3}", seeds=(0,))
    text = str(after)
    assert text.count("{pending = 1 : i64}") == 3 and text.count("{pending = 0 : i64}") == 1


@pytest.mark.parametrize("form", ["tma", "cp_async"])
def test_pipelined_cuda_compiles(form):
    """The default pipeline after the pass: equivalent, and NVRTC compiles the CUDA
    (wgmma.wait_group 1 in the loop; cp.async.wait_group 2 for 3 stages of 2 groups)."""
    if form == "tma":
        m = parse_module(tma_gemm(320), "t.mlir")
        run_pipeline(m, "software-pipeline{num_stages=4},default")
        cuda = emit(m, "cuda")
        assert "wgmma.wait_group.sync.aligned 1;" in cuda and "wgmma.wait_group.sync.aligned 0;" in cuda
    else:
        m = parse_module(sm80_gemm(160), "t.mlir")
        run_pipeline(m, "distribute,vectorize,software-pipeline{num_stages=3},vectorize-pointers,"
                        "vectorize-element-loops,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize")
        cuda = emit(m, "cuda")
        assert "tilec_cp_async_wait<2>();" in cuda and "mma.sync.aligned" in cuda
    compile_sm90_or_skip(cuda)
