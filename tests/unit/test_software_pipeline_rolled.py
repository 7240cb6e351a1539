"""`software-pipeline{rolled=true}` (passes/_pipeline_rolled.py) on GEMM main loops
written as plain single-buffered loops: the CPU reference executor runs the rolled
schedule (one staged buffer per operand, an mbarrier array, the stage and phase carried
by the loop) with its mbarrier, race and phase checks on, at stages 2-4 and trip counts
a multiple of the stages, not one, below the stages and known only at run time, in the
TMA + wgmma form and the sm_80 cp.async + mma.sync form; results match NumPy within
the MMA tolerance; sabotaged state (a phase that never flips, a stage that never
advances, no barrier) is caught; NVRTC compiles the CUDA, whose K loop appears once."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip
from helpers.pipeline_programs import sm80_gemm, tma_gemm

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects.layout import BarrierOp
from tilec.dialects.layout_mma import mma_error_bound
from tilec.runtime.reference import ExecutionError, random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32

BK = 64
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


def _rolled(stages: int) -> str:
    return f"software-pipeline{{num_stages={stages} rolled=true}}"


def _check_against_numpy(module, k: int, kused: int, seed: int = 0) -> None:
    """C (64 x 64) within the MMA bound of float64's A[:, :kused] @ B[:kused]."""
    inputs = random_inputs(module, seed)
    got = run(module, inputs)
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(64, k)).astype(np.float64)[:, :kused]
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(k, 64)).astype(np.float64)[:kused]
    exact, mag = a @ b, np.abs(a) @ np.abs(b)
    gamma, _ = mma_error_bound(max(kused, 1), "bf16")
    out = np.asarray(got["pc"], np.float64).reshape(64, 64)
    err = np.abs(out - exact)
    assert np.all(err <= gamma * mag + 1e-30), f"max error {err.max()}"


# (stages, K, trip, dynamic): K steps a multiple of the stages, not one (5 steps of 64
# under 2, 3 and 4 stages: K = 320 is no multiple of stages x BK), below the stages,
# none, a run-time trip count
TMA_SHAPES = [(2, 256, 4, False), (3, 320, 5, False), (4, 320, 5, False), (4, 128, 2, False),
              (3, 320, 0, True), (3, 320, 4, True), (4, 320, 1, True), (2, 192, 3, True)]


@pytest.mark.parametrize("stages,k,trip,dynamic", TMA_SHAPES)
def test_rolled_tma_schedules_run_on_the_executor_and_match_numpy(stages, k, trip, dynamic):
    """The rolled TMA + wgmma loop runs with the executor's mbarrier, race and
    in-flight-mma checks and gives A @ B within the MMA tolerance; the loop before the
    pass gives the same (`assert_pass_preserves`). One staged buffer per operand, one
    mbarrier array, one wgmma in the loop."""
    after = assert_pass_preserves(tma_gemm(k, trip, dynamic), _rolled(stages), seeds=(0,))
    text = str(after)
    assert text.count("layout.alloc") == 2 and f"({stages},64,64):(4096,64,1)" in text
    assert f"layout.mbarrier_array {{count = 1 : i64, stages = {stages} : i64}}" in text
    assert "layout.mbarrier_init" not in text and text.count("layout.mma %") == 1
    _check_against_numpy(after, k, trip * BK)


SM80_SHAPES = [(2, 128, 4, False), (3, 160, 5, False), (4, 160, 5, False), (4, 64, 2, False),
               (3, 160, 3, True), (2, 160, 0, True)]


@pytest.mark.parametrize("stages,k,trip,dynamic", SM80_SHAPES)
def test_rolled_cp_async_schedules_run_on_the_executor_and_match_numpy(stages, k, trip, dynamic):
    """The sm_80 loop (cp.async after distribute + vectorize) rolled: each step waits
    for its own stage's commit groups only; the executor reports a read of a
    destination before its group is waited for, and races."""
    m = sm80_gemm(k, trip, dynamic)
    run_pipeline(m, "distribute,vectorize")
    after = assert_pass_preserves(m, _rolled(stages), seeds=(0,))
    text = str(after)
    assert f"layout.async_wait {{pending = {2 * (stages - 2)} : i64}}" in text
    assert text.count("layout.mma %") == 1
    _check_against_numpy(after, k, trip * 32)


def test_the_default_rolls_cp_async_loops_and_unrolls_tma_loops():
    """`rolled=auto` (the default): the cp.async loop comes out as `rolled=true` makes
    it, the TMA loop as `rolled=false` does (the sm_80 plain-loop GEMM measured faster
    rolled, issue 38; the Hopper kernels were tuned unrolled)."""
    def out(make, pre, opts):
        m = make()
        run_pipeline(m, pre + f"software-pipeline{{num_stages=3{opts}}}")
        return str(m)

    sm80 = (lambda: sm80_gemm(160)), "distribute,vectorize,"
    tma = (lambda: tma_gemm(320)), ""
    assert out(*sm80, "") == out(*sm80, " rolled=auto") == out(*sm80, " rolled=true") != out(*sm80, " rolled=false")
    assert out(*tma, "") == out(*tma, " rolled=false") != out(*tma, " rolled=true")


def test_the_default_keeps_a_cp_async_loop_unrolled_where_only_its_clones_fit(monkeypatch):
    """Under `rolled=auto` a cp.async loop whose staged buffers (stages on 1024 bytes)
    would pass the block's shared memory where its clones fit stays unrolled instead of
    failing; `rolled=true` reports it at the loop."""
    from tilec.passes import software_pipeline
    from tilec.support.diagnostics import TilecError

    monkeypatch.setattr(software_pipeline, "smem_need", lambda launch, plan, n, rolled: 1 << 30 if rolled else 0)
    m = sm80_gemm(160)
    run_pipeline(m, "distribute,vectorize,software-pipeline{num_stages=3}")
    assert "tilec.unroll" not in str(m) and str(m).count("layout.mma %") > 1
    m = sm80_gemm(160)
    with pytest.raises(TilecError, match="stages of this loop's shared buffers need"):
        run_pipeline(m, "distribute,vectorize,software-pipeline{num_stages=3 rolled=true}")


def _sabotaged(stages: int, sabotage):
    m = tma_gemm(320)
    run_pipeline(m, _rolled(stages))
    sabotage(m)
    return m


def _yield_of_the_loop(m):
    from xdsl.dialects import scf

    loop = next(o for o in m.walk() if isinstance(o, scf.ForOp) and "tilec.unroll" in o.attributes)
    return loop, loop.body.block.last_op


def test_a_phase_that_never_flips_is_caught():
    """The phase flips where the stage wraps round; carried unchanged, the step after
    the first round waits on a phase of its barrier that has completed and been
    waited on while the load of its tile is in flight."""
    def keep_phase(m):
        loop, y = _yield_of_the_loop(m)
        ops = list(y.operands)
        ops[-1] = loop.body.block.args[-1]
        y.operands = ops

    m = _sabotaged(3, keep_phase)
    with pytest.raises(ExecutionError, match="phase"):
        run(m, random_inputs(m, 0))


def test_a_stage_that_never_advances_is_caught():
    """Every step on stage 0: every load ahead goes into stage 2 (the one before 0) and
    arrives on its barrier again before any wait saw that barrier's phase complete:
    the executor reports the barrier reused before its phase completes."""
    def keep_stage(m):
        loop, y = _yield_of_the_loop(m)
        ops = list(y.operands)
        ops[-2] = loop.body.block.args[-2]
        y.operands = ops

    m = _sabotaged(3, keep_stage)
    with pytest.raises(ExecutionError, match="reused before its phase completes"):
        run(m, random_inputs(m, 0))


def test_the_rolled_schedule_needs_its_barrier():
    """The barrier between a step's mma and the load into the stage read one step
    before orders them across warps: without it, a data race."""
    def erase(m):
        for op in [o for o in m.walk() if isinstance(o, BarrierOp)]:
            op.detach()
            op.erase()

    m = _sabotaged(2, erase)
    with pytest.raises(ExecutionError, match="data race|still reading"):
        run(m, random_inputs(m, 0))


@pytest.mark.parametrize("form", ["tma", "cp_async"])
def test_rolled_cuda_compiles(form):
    """Through lowering: equivalent, NVRTC compiles the CUDA, whose K loop is rolled
    (`#pragma unroll 1`) with its step once (one wgmma.wait_group 1 / one
    cp.async.wait_group 2)."""
    if form == "tma":
        m = tma_gemm(320)
        after = assert_pass_preserves(m, _rolled(4) + ",default", seeds=(0,))
        cuda = emit(after, "cuda")
        assert cuda.count("wgmma.wait_group.sync.aligned 1;") == 1
    else:
        m = sm80_gemm(160)
        run_pipeline(m, "distribute,vectorize")
        after = assert_pass_preserves(m, _rolled(3) + ",vectorize-pointers,vectorize-element-loops,"
                                      "remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize",
                                      seeds=(0,))
        cuda = emit(after, "cuda")
        assert cuda.count("tilec_cp_async_wait<2>();") == 1
    assert "#pragma unroll 1\n  for (int kt" in cuda
    compile_sm90_or_skip(cuda)


def test_the_rolled_plain_gemm_example_is_one_step_of_the_unrolled():
    """examples/python/gemm_plain.py (4 stages) rolled: a quarter of the unrolled
    form's wgmma instructions (the K loop's step once), the same TMA boxes, a smaller
    CUDA source; NVRTC compiles it."""
    sys.path.insert(0, str(EXAMPLES))
    import gemm_plain

    shape = (512, 512, 1024)
    out = {}
    for rolled in (False, True):
        m = parse_module(str(gemm_plain.gemm_plain(*shape, stages=4)), "plain.mlir")
        run_pipeline(m, gemm_plain.pipeline(rolled=rolled))
        out[rolled] = emit(m, "cuda")
    assert 4 * out[True].count("wgmma.mma_async") == out[False].count("wgmma.mma_async")
    assert len(out[True]) < len(out[False])
    assert "mbars + " in out[True] and "#pragma unroll 1" in out[True]
    compile_sm90_or_skip(out[True])


def test_the_staged_type_has_a_leading_stage_mode():
    """`staged_type`: S stages before the layout, each starting on 1024 bytes (a
    buffer of 8 x 24 bf16, 384 bytes, takes 1024), the swizzle kept."""
    from tilec.dialects import cute
    from tilec.dialects.layout_attrs import ComposedLayoutAttr
    from tilec.dialects.swizzle import ComposedLayout
    from tilec.passes._pipeline_rolled import staged_type

    m = tma_gemm(128)
    t = next(o for o in m.walk() if o.name == "layout.alloc").result.type
    assert str(staged_type(t, 3).layout) == "#layout.composed<swizzle<3,3,3> o 0 o (3,64,64):(4096,64,1)>"
    odd = t.with_(layout=ComposedLayoutAttr(ComposedLayout(t.layout.data.swizzle, 0, cute.Layout((8, 24), (24, 1)))))
    assert str(staged_type(odd, 2).layout).endswith("(2,8,24):(512,24,1)>")


def test_too_many_stages_of_staged_buffers_is_a_located_error():
    """6 stages of the plain example's 128 x 64 and 64 x 256 bf16 tiles (48 KiB a
    stage) pass the 227 KiB of a block: the pass says so at the loop, rolled or not."""
    from tilec.support.diagnostics import TilecError

    sys.path.insert(0, str(EXAMPLES))
    import gemm_plain

    m = parse_module(str(gemm_plain.gemm_plain(512, 512, 512, stages=6)), "plain.mlir")
    with pytest.raises(TilecError, match=r"plain.mlir:\d+:\d+: .*6 stages of this loop's shared buffers need 294912 bytes"):
        run_pipeline(m, gemm_plain.pipeline(rolled=True))


def test_the_nvrtc_benchmark_runs_without_a_gpu(tmp_path):
    """benchmarks/pipeline_nvrtc.py at a small shape: both forms compile, the rolled
    one has half the wgmma of 2 unrolled stages and a smaller CUDA source and cubin."""
    pytest.importorskip("cupy")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import pipeline_nvrtc

    try:
        assert pipeline_nvrtc.main(["--shape", "512,512,512", "--stages", "2", "--json", str(tmp_path / "o.json"),
                                    "--md", str(tmp_path / "o.md")]) == 0
    except (ImportError, OSError) as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    import json

    unrolled, rolled = json.loads((tmp_path / "o.json").read_text())["rows"]
    assert (unrolled["rolled"], rolled["rolled"]) == (False, True)
    assert 2 * rolled["wgmma"] == unrolled["wgmma"]
    assert rolled["cuda_bytes"] < unrolled["cuda_bytes"] and rolled["cubin_bytes"] < unrolled["cubin_bytes"]
    assert "| 2 | rolled |" in (tmp_path / "o.md").read_text()
