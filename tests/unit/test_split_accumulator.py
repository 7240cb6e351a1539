"""`split-accumulator` (passes/split_accumulator.py) and `tma-epilogue`
(passes/tma_epilogue.py) on examples/python/gemm_plain.py: the plain loop's 128x256
accumulator becomes two 128-column chunks stored through one shared C buffer with the
TMA (the schedule of `gemm_hopper_ws(..., tma_epilogue=True, chunk=128)`), on the CPU
reference executor equal to NumPy within the MMA tolerance (with its race and mbarrier
checks), a missing `tma_store_wait` caught as a race, and the 4096^3 kernel compiled
by NVRTC without spills."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import sm90_usage_or_skip

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects.layout_mma import MmaOp, mma_error_bound
from tilec.dialects.layout_tma import TmaStoreOp, TmaStoreWaitOp
from tilec.runtime.reference import ExecutionError, random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
import gemm_plain  # noqa: E402

WS = "warp-specialize{persistent=132}"


def _plain(m: int, n: int, k: int, **kw):
    return parse_module(str(gemm_plain.gemm_plain(m, n, k, stages=4, group=8, **kw)), "plain.mlir")


def _check_against_numpy(module, m: int, n: int, k: int) -> None:
    inputs = random_inputs(module, 0)
    got = run(module, inputs)
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(m, k)).astype(np.float64)
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(k, n)).astype(np.float64)
    c = bf16_to_f32(np.asarray(got["pc"]).reshape(m, n)).astype(np.float64)
    exact, mag = a @ b, np.abs(a) @ np.abs(b)
    gamma, _ = mma_error_bound(k, "bf16")
    assert np.all(np.abs(c - exact) <= gamma * mag + 2.0**-8 * (np.abs(exact) + gamma * mag))


def _chunk_mmas(module) -> list[list[int]]:
    return [list(o.acc.type.get_shape()) for o in module.walk() if isinstance(o, MmaOp)]


def test_auto_splits_the_plain_gemm_where_the_c_buffer_does_not_fit():
    """4 stages of 128x64 + 64x256 bf16 (192 KiB) leave no room for a 64 KiB C buffer in
    227 KiB, but for a 32 KiB one: two chunks of 128 columns, each one mma per step."""
    m = _plain(256, 256, 256)
    run_pipeline(m, "split-accumulator")
    assert _chunk_mmas(m) == [[128, 128], [128, 128]]
    stores = [o for o in m.walk() if o.name == "layout.store"]
    assert [list(s.value.type.get_shape()) for s in stores] == [[128, 128], [128, 128]]


def test_auto_keeps_the_accumulator_where_the_c_buffer_fits():
    """With 2 stages (96 KiB) the 64 KiB buffer fits beside the ring: nothing to split."""
    m = parse_module(str(gemm_plain.gemm_plain(256, 256, 256, stages=2)), "plain.mlir")
    run_pipeline(m, "split-accumulator")
    assert _chunk_mmas(m) == [[128, 256]]


def test_disabled_leaves_the_ir():
    """`enabled=false` leaves the accumulator whole."""
    m = _plain(256, 256, 256)
    run_pipeline(m, "split-accumulator{enabled=false}")
    assert _chunk_mmas(m) == [[128, 256]]


def test_explicit_columns():
    """`columns=64`: four chunks of 64 columns."""
    m = _plain(256, 256, 256)
    run_pipeline(m, "split-accumulator{columns=64}")
    assert _chunk_mmas(m) == [[128, 64]] * 4


@pytest.mark.parametrize("shape", [(256, 256, 256), (200, 264, 256)])
def test_ws_pipeline_equals_numpy(shape):
    """The bench's pipeline (warp-specialize{persistent}, then the default passes up to
    tma-epilogue): chunks, one C buffer, its waits; equivalent to the plain program and
    NumPy's A @ B (an edge shape: masked tiles, which the TMA store clips)."""
    m = _plain(*shape)
    after = assert_pass_preserves(m, f"{WS},split-accumulator,tma-epilogue", seeds=(0,))
    assert _chunk_mmas(after) == [[128, 128]] * 8  # 4 stages of the consumer's step, 2 chunks each
    assert len([o for o in after.walk() if isinstance(o, TmaStoreOp)]) == 2
    assert len([o for o in after.walk() if isinstance(o, TmaStoreWaitOp)]) == 3
    assert len([o for o in after.walk() if o.name == "layout.alloc"
                and list(o.result.type.shape) == [128, 128]]) == 1
    _check_against_numpy(after, *shape)


@pytest.mark.parametrize("shape", [(256, 256, 256), (200, 264, 136)])
def test_default_pipeline_equals_numpy(shape):
    """Without warp specialisation (`default`: software-pipeline after the two passes)."""
    m = _plain(*shape)
    run_pipeline(m, "default")
    _check_against_numpy(m, *shape)


@pytest.mark.parametrize("level", ["layout", "lowered"])
def test_missing_tma_store_wait_is_a_race(level):
    """Without the wait before a chunk's stmatrix, it writes the C buffer while the
    previous chunk's TMA store still reads it: the executor reports it."""
    m = _plain(256, 256, 256)
    run_pipeline(m, f"{WS},split-accumulator,tma-epilogue")
    waits = [o for o in m.walk() if isinstance(o, TmaStoreWaitOp)]
    second = waits[1]  # the second chunk's: the first chunk's store is in flight
    assert second.next_op is not None and second.next_op.name == "layout.store"
    second.detach()
    second.erase()
    if level == "lowered":
        run_pipeline(m, "default")
    with pytest.raises(ExecutionError, match="TMA store is still reading it"):
        run(m, random_inputs(m, 0))


def test_4096_compiles_without_spills():
    """The 4096^3 plain kernel's CUDA stores each chunk with stmatrix and a TMA store
    (no st.global) and NVRTC compiles it for sm_90a: 168 registers (the hand kernel's),
    no spills."""
    m = _plain(4096, 4096, 4096)
    run_pipeline(m, f"{WS},default")
    cuda = emit(m, "cuda")
    assert "// layout.store 128x128xbf16 to smem: 8 stmatrix.x4 per thread" in cuda
    assert "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" in cuda
    assert "st.global" not in cuda
    usage = sm90_usage_or_skip(cuda)
    assert (usage.registers, usage.spill_stores) == (168, 0)


def test_a_hand_scheduled_register_epilogue_stays():
    """`gemm_hopper_ws` without `tma_epilogue` (a hand-scheduled kernel: its own ring,
    asynchronous mma) keeps its register stores through the default pipeline: only a
    plain loop's accumulator is marked for `tma-epilogue`."""
    from tilec.gemm_programs import gemm_hopper_ws

    m = parse_module(str(gemm_hopper_ws(256, 256, 512, stages=3)), "hand.mlir")
    run_pipeline(m, "split-accumulator,tma-epilogue")
    assert not [o for o in m.walk() if isinstance(o, TmaStoreOp)]
    assert not [o for o in m.walk() if "tilec.tma_epilogue" in o.attributes]
