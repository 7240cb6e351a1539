"""`prefetch-operands` (passes/prefetch_operands.py) on the sm_80 plain-loop GEMM of
examples/python/gemm_dot.py after `software-pipeline`: the CPU reference executor runs
each schedule it makes (unrolled at 2 and 3 stages with a peeled step, rotated round
the back edge, the rolled ring) with its cp.async, race and barrier checks on, and C
matches NumPy within the MMA bound; a schedule without the barrier the pass moved is
caught; NVRTC compiles the CUDA for sm_80; loops it cannot prove safe stay as they are."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tilec.compiler.pipeline import NAMED_PIPELINES, emit, run_pipeline
from tilec.dialects.layout import AsyncWaitOp, BarrierOp, LoadOp
from tilec.dialects.layout_mma import MmaOp
from tilec.runtime.reference import ExecutionError, random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32

sys.path.insert(0, str(Path(__file__).parents[2] / "examples" / "python"))
import gemm_dot  # noqa: E402

M = N = 64
BK = 32


def _pipeline(prefetch: str, rolled: bool = False, upto: str | None = None) -> str:
    """The default pipeline with `prefetch-operands` written `prefetch` and
    software-pipeline's form stated (`rolled=true` or `rolled=false`: the default rolls
    these cp.async loops), cut after `upto`."""
    out = []
    for p in NAMED_PIPELINES["default"].split(","):
        out.append(prefetch if p == "prefetch-operands" else
                   f"software-pipeline{{rolled={str(rolled).lower()}}}" if p == "software-pipeline" else p)
        if p == upto:
            break
    return ",".join(out)


def _module(trip: int, stages: int, prefetch: str, rolled: bool = False, upto: str | None = None):
    m = gemm_dot.gemm_dot(M, N, trip * BK, M, N, BK, 4, target="sm_80", stages=stages)
    run_pipeline(m, _pipeline(prefetch, rolled, upto))
    return m


def _check(module, k: int) -> None:
    inputs = random_inputs(module, 0)
    got = run(module, inputs)
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(M, k)).astype(np.float64)
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(k, N)).astype(np.float64)
    ok, err = gemm_dot.check(np.asarray(got["pc"], np.float64).reshape(M, N), a, b, k)
    assert ok, f"max error {err:.3g}"


def _loop_starts_with_boundary(module) -> bool:
    from xdsl.dialects import scf

    loop = next(o for o in module.walk() if isinstance(o, scf.ForOp) and any(isinstance(x, MmaOp) for x in o.walk()))
    return any(isinstance(o, AsyncWaitOp) for o in list(loop.body.block.ops)[:8])


SCHEDULES = [(4, 2, "prefetch-operands", False), (5, 3, "prefetch-operands", False),
             (5, 3, "prefetch-operands{rotate=true}", False), (4, 2, "prefetch-operands", True),
             (5, 3, "prefetch-operands", True)]


@pytest.mark.parametrize(("trip", "stages", "prefetch", "rolled"), SCHEDULES)
def test_prefetched_schedules_run_on_the_executor_and_match_numpy(trip, stages, prefetch, rolled):
    """Each schedule through lower-to-gpu runs on the executor (a read of a stage
    before its cp.async group is waited for, or a race with the refill of the stage read
    one step before, is an error) and gives A @ B within the bound; with rotate=true the
    loop body no longer starts with the wait (it moved round the back edge)."""
    _check(_module(trip, stages, prefetch, rolled), trip * BK)
    if "rotate" in prefetch or rolled:  # a rolled loop is rotated by default
        assert not _loop_starts_with_boundary(_module(trip, stages, prefetch, rolled, upto="prefetch-operands"))


def test_the_first_operands_load_before_the_last_mma():
    """Inside the unrolled body, each step but the first (whose boundary is the loop's
    top) has its wait, barrier and first ldmatrix loads before the step before's last
    mma: the op after the first operands is an mma of the step before."""
    m = _module(4, 2, "prefetch-operands", upto="prefetch-operands")
    from xdsl.dialects import scf

    loop = next(o for o in m.walk() if isinstance(o, scf.ForOp))
    ops = list(loop.body.block.ops)
    bars = [i for i, o in enumerate(ops) if isinstance(o, BarrierOp)]
    assert len(bars) == 2
    inner = bars[1]
    assert isinstance(ops[inner - 1], AsyncWaitOp) and isinstance(ops[inner - 2], MmaOp)
    after = ops[inner + 1:]
    loads = [i for i, o in enumerate(after) if isinstance(o, LoadOp)][:2]
    assert isinstance(after[loads[1] + 1], MmaOp)


def test_the_executor_rejects_the_moved_schedule_without_its_barrier():
    """The barrier the pass moved still orders every warp's reads of a stage before
    the copies that refill it: erased, the executor reports a race."""
    from xdsl.dialects import scf

    m = _module(4, 2, "prefetch-operands", True, upto="prefetch-operands")
    loop = next(o for o in m.walk() if isinstance(o, scf.ForOp))
    bars = [o for o in loop.body.block.ops if isinstance(o, BarrierOp)]
    assert len(bars) == 1  # the moved one: the rolled step's only barrier
    bars[0].detach()
    bars[0].erase()
    with pytest.raises(ExecutionError, match="race|still"):
        run(m, random_inputs(m, 0))


@pytest.mark.parametrize("rolled", [False, True])
def test_prefetched_cuda_compiles_for_sm_80(rolled):
    """What `-t cuda` prints for both forms compiles under NVRTC for sm_80."""
    try:
        from tilec.runtime.nvrtc import compile_cuda
    except (ImportError, OSError) as e:  # pragma: no cover - environment
        pytest.skip(f"NVRTC unavailable: {e}")
    m = _module(4, 3, "prefetch-operands", rolled)
    try:
        r = compile_cuda(emit(m, "cuda"), arch="sm_80")
    except OSError as e:  # pragma: no cover - environment
        pytest.skip(f"NVRTC unavailable: {e}")
    assert r.cubin


def test_a_copy_into_the_stage_the_loads_read_keeps_the_boundary():
    """The rolled ring with the copies' stage index replaced by the loads' own: the
    pass cannot tell the stages apart and leaves the loop as it is."""
    from xdsl.dialects import arith

    m = _module(4, 3, "prefetch-operands{enabled=false}", True, upto="prefetch-operands")
    for sel in [o for o in m.walk() if isinstance(o, arith.SelectOp) and o.result.name_hint == "ahead"]:
        sel.result.replace_all_uses_with(sel.cond.owner.lhs)
    before = str(m)
    run_pipeline(m, "prefetch-operands")
    assert str(m) == before
