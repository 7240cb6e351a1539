"""`warp-specialize{marked=true}` in the default pipeline: the Triton-form GEMM
(examples/python/gemm_dot.py: tile loads, `dot`, a store of the cast accumulator) whose
K loop asks for it (`range(..., num_stages=4, warp_specialize=True[, persistent=P])`)
gets the warp-specialised schedule of the plain-loop GEMM (producer warpgroup,
setmaxnreg, the split accumulator, the TMA epilogue) from the compiler, equal to
NumPy on the reference executor and compiled by NVRTC without spills."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.nvrtc import sm90_usage_or_skip

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects.layout_mma import mma_error_bound
from tilec.runtime.reference import random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32
from tilec.support.diagnostics import TilecError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))
import gemm_dot  # noqa: E402


def _dot(m: int, n: int, k: int, **kw):
    kw = {"bm": 128, "bn": 256, "bk": 64, "warps": 8, "stages": 4, "target": "sm_90a", "out_dtype": "bf16",
          "warp_specialize": True, **kw}
    return gemm_dot.gemm_dot(m, n, k, **kw)


def _check_against_numpy(module, m: int, n: int, k: int) -> None:
    inputs = random_inputs(module, 0)
    got = run(module, inputs)  # the executor's mbarrier, TMA and race checks on
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(m, k)).astype(np.float64)
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(k, n)).astype(np.float64)
    c = bf16_to_f32(np.asarray(got["pc"]).reshape(m, n)).astype(np.float64)
    exact, mag = a @ b, np.abs(a) @ np.abs(b)
    gamma, _ = mma_error_bound(k, "bf16")
    assert np.all(np.abs(c - exact) <= gamma * mag + 2.0**-8 * (np.abs(exact) + gamma * mag))


@pytest.mark.parametrize("persistent", [0, 132])
def test_default_pipeline_warp_specializes_gemm_dot_and_equals_numpy(persistent):
    """256^3, 128x256x64 tiles, 8 warps, 4 stages: one producer and two consumer
    warpgroups (setmaxnreg), C stored with the TMA; equal to NumPy's A @ B."""
    m = _dot(256, 256, 256, persistent=persistent)
    run_pipeline(m, "default")
    cuda = emit(m, "cuda")
    assert cuda.count("setmaxnreg.dec") == 1 and cuda.count("setmaxnreg.inc") == 1
    assert "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" in cuda
    _check_against_numpy(m, 256, 256, 256)


@pytest.mark.parametrize("persistent", [0, 5])
def test_grouped_order_warp_specialized_equals_numpy(persistent):
    """`group=2` over 3 x 2 tiles (a last group of one block row): the grouped tile
    coordinates, computed before the loop, recomputed per tile by the persistent
    blocks (5 blocks, 6 tiles)."""
    m = _dot(384, 512, 256, persistent=persistent, group=2)
    run_pipeline(m, "default")
    assert "setmaxnreg.inc" in emit(m, "cuda")
    _check_against_numpy(m, 384, 512, 256)


def test_unmarked_gemm_dot_is_software_pipelined():
    """Without `warp_specialize` the loop keeps `software-pipeline`'s schedule (3
    stages: with 4, the ring of 192 KiB and the epilogue's 64 KiB layout conversion
    of C do not fit in a block's 227 KiB)."""
    m = _dot(256, 256, 256, warp_specialize=False, stages=3)
    run_pipeline(m, "default")
    assert "setmaxnreg" not in emit(m, "cuda")
    _check_against_numpy(m, 256, 256, 256)


def test_range_refuses_warp_specialize_without_stages():
    with pytest.raises(TilecError, match="warp_specialize=True needs num_stages >= 2"):
        _dot(256, 256, 256, stages=None)


def test_range_refuses_persistent_without_warp_specialize():
    with pytest.raises(TilecError, match="persistent=P takes an int P > 0 with warp_specialize=True"):
        _dot(256, 256, 256, warp_specialize=False, persistent=132)


def test_a_marked_loop_that_cannot_be_specialized_is_an_error():
    """On sm_80 the loads are cp.async copies, not TMA loads: the asked-for schedule
    cannot be made, and the compiler says so rather than leave the loop unpipelined."""
    m = _dot(256, 256, 256, target="sm_80", bk=32)
    with pytest.raises(TilecError, match="asks for warp specialisation but cannot have it"):
        run_pipeline(m, "default")


def test_4096_compiles_without_spills():
    """The 4096^3 persistent kernel's CUDA: setmaxnreg, TMA loads, wgmma m64n128k16
    (the split accumulator's chunks), stmatrix and TMA stores (no st.global); NVRTC
    compiles it for sm_90a: 168 registers (gemm_plain's), no spills."""
    m = _dot(4096, 4096, 4096, persistent=132)
    run_pipeline(m, "default")
    cuda = emit(m, "cuda")
    assert "setmaxnreg.dec" in cuda and "setmaxnreg.inc" in cuda
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in cuda
    assert "wgmma.mma_async.sync.aligned.m64n128k16" in cuda
    assert "stmatrix" in cuda
    assert "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" in cuda
    assert "st.global" not in cuda
    usage = sm90_usage_or_skip(cuda)
    assert (usage.registers, usage.spill_stores) == (168, 0)


def test_gemm_bench_dot_config_compiles_the_warp_specialised_kernel():
    """benchmarks/gemm_bench.py's `dot:128x256x64:4:ws:p132:g8`: gemm_dot with 8 warps,
    bf16 C, grouped order, its loop warp-specialised over 132 persistent blocks; NVRTC
    compiles it."""
    pytest.importorskip("cupy")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import gemm_bench

    spec = "dot:128x256x64:4:ws:p132:g8"
    assert gemm_bench.dot_options(spec) == (128, 256, 64, 4, {
        "warps": 8, "out_dtype": "bf16", "target": "sm_90a", "warp_specialize": True, "persistent": 132,
        "group": 8})
    kernel = gemm_bench.dot_kernel(spec, 1024, 1024, 1024, arch="sm_90a")
    (usage,) = kernel.resource_usage().values()
    assert (usage.registers, usage.spill_stores) == (168, 0)
    with pytest.raises(ValueError, match="persistent"):
        gemm_bench.dot_options("dot:128x256x64:4:p132")
