"""`warp-specialize{rolled=true}` (passes/_ws_rolled.py): the producer and consumer
loops on staged buffers and "full"/"empty" mbarrier arrays, each carrying its (stage,
phase), run on the CPU reference executor (its mbarrier, phase and race checks on,
warp_specialize regions interleaved) at stages 2-4 and K steps a multiple of the
stages, not one, below them and at run time, and match NumPy within the MMA
tolerance; without the producer's wait on "empty" the executor reports the overwrite;
NVRTC compiles the CUDA; persistent tiles are refused with a located error."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip
from helpers.pipeline_programs import tma_gemm

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects.layout_mma import mma_error_bound
from tilec.runtime.reference import ExecutionError, random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32
from tilec.support.diagnostics import TilecError

BK = 64


def _ws(stages: int, extra: str = "") -> str:
    return f"warp-specialize{{num_stages={stages} rolled=true{extra}}}"


# (stages, K, trip, dynamic)
SHAPES = [(2, 256, 4, False), (3, 320, 5, False), (4, 320, 5, False), (4, 128, 2, False),
          (3, 320, 4, True), (4, 320, 1, True)]


@pytest.mark.parametrize("stages,k,trip,dynamic", SHAPES)
def test_rolled_warp_specialized_schedules_match_numpy(stages, k, trip, dynamic):
    after = assert_pass_preserves(tma_gemm(k, trip, dynamic), _ws(stages), seeds=(0,))
    text = str(after)
    assert text.count("layout.mbarrier_array") == 2 and text.count("layout.mma %") == 1
    assert text.count("{tilec.unroll = 1 : i64}") == 2 and "layout.mbarrier_init" not in text
    inputs = random_inputs(after, 0)
    got = run(after, inputs)
    kused = trip * BK
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(64, k)).astype(np.float64)[:, :kused]
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(k, 64)).astype(np.float64)[:kused]
    gamma, _ = mma_error_bound(max(kused, 1), "bf16")
    err = np.abs(np.asarray(got["pc"], np.float64).reshape(64, 64) - a @ b)
    assert np.all(err <= gamma * (np.abs(a) @ np.abs(b)) + 1e-30), f"max error {err.max()}"


def test_without_the_wait_on_empty_the_producer_overwrites_a_stage_in_use():
    """The producer's refill of a stage waits until the consumers handed it back; without
    that wait the producer runs ahead and arrives on a stage's "full" barrier again
    before the consumers saw its phase complete: the executor reports the reuse."""
    from tilec.dialects.layout_roles import WarpSpecializeOp
    from tilec.dialects.layout_tma import MBarrierWaitOp

    m = tma_gemm(512)
    run_pipeline(m, _ws(2))
    ws = next(o for o in m.walk() if isinstance(o, WarpSpecializeOp))
    producer = ws.regions[1]
    for w in [o for o in producer.walk() if isinstance(o, MBarrierWaitOp)]:
        w.detach()
        w.erase()
    with pytest.raises(ExecutionError, match="reused before its phase completes"):
        run(m, random_inputs(m, 0))


def test_rolled_warp_specialized_cuda_compiles():
    m = tma_gemm(320)
    after = assert_pass_preserves(m, _ws(3) + ",default", seeds=(0,))
    cuda = emit(after, "cuda")
    assert cuda.count("#pragma unroll 1") >= 2 and cuda.count("wgmma.wait_group.sync.aligned 1;") == 1
    compile_sm90_or_skip(cuda)


def test_rolled_takes_no_persistent_tiles():
    m = tma_gemm(256)
    with pytest.raises(TilecError, match=r"pipeline_programs.py:\d+:\d+: .*rolled=true takes no persistent tiles"):
        run_pipeline(m, _ws(2, " persistent=4"))
