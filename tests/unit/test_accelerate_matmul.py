"""`accelerate-matmul` (passes/accelerate_matmul.py): the warps' tiling of the MMA
layouts, the NVMMA swizzle of the shared operands, the lowering chosen per target
and dtype, the CUDA of both tensor-core paths and of the FMA loop compiled by NVRTC
(sm_80 for mma.sync and FMA, sm_90a for wgmma), and the plain-loop GEMM
(examples/python/gemm_dot.py) against NumPy on the CPU reference executor."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import scf

import tilec
from tilec.dialects.layout_dot import DotOp
from tilec.dialects.layout import BarrierOp, LoadOp, TileOp
from tilec.dialects.layout_mma import MmaOp
from tilec.passes.accelerate_matmul import shared_swizzle, warps_v2, warps_v3
from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
import gemm_dot  # noqa: E402
from helpers.dot_programs import ONE_DOT_CASES, one_dot  # noqa: E402


@pytest.mark.parametrize(("m", "n", "warps", "want"), [
    (64, 64, 4, (2, 2)), (128, 128, 8, (4, 2)), (32, 256, 8, (1, 8)), (16, 8, 1, (1, 1)), (256, 16, 4, (4, 1)),
])
def test_warps_v2_tiles_as_triton(m, n, warps, want):
    """Triton's warpsPerTileV2: along M while the tile has more 16-row tiles per warp
    than 16-column pairs."""
    assert warps_v2(m, n, warps) == want


@pytest.mark.parametrize(("m", "warps", "want"), [(64, 4, (4, 1)), (128, 8, (8, 1)), (64, 8, (4, 2)), (256, 8, (8, 1))])
def test_warps_v3_fills_m_with_warpgroups_first(m, warps, want):
    assert warps_v3(m, warps) == want


@pytest.mark.parametrize(("rows", "cols", "bits", "want"), [
    (64, 64, 16, 128), (64, 32, 16, 64), (64, 16, 16, 32), (16, 8, 16, 0), (4, 64, 16, 0), (32, 32, 32, 128),
])
def test_shared_swizzle_is_the_widest_the_rows_hold(rows, cols, bits, want):
    assert shared_swizzle(rows, cols, bits) == want


def _lowered(target: str | None, dtype: str) -> tuple[list, object]:
    module = gemm_dot.gemm_dot(256, 256, 64, dtype=dtype, target=target)
    tilec.run_pipeline(module, "accelerate-matmul")
    ops = list(module.walk())
    assert not any(isinstance(o, DotOp) for o in ops)
    return [o for o in ops if isinstance(o, MmaOp)], module


@pytest.mark.parametrize(("target", "dtype", "version"), [
    ("sm_90a", "bf16", 3), (None, "f16", 3), ("sm_90", "bf16", 2), ("sm_80", "bf16", 2), ("sm_86", "f16", 2),
    ("sm_90a", "f32", None), ("sm_80", "f32", None),
])
def test_the_target_and_dtype_choose_the_lowering(target, dtype, version):
    """wgmma where the target has it (sm_90a, or none named: the default, whose kernels
    compile for sm_90a), mma.sync on sm_80+ without it (plain sm_90 included), the FMA
    loop for f32 operands."""
    mmas, _ = _lowered(target, dtype)
    if version is None:
        assert mmas == []
    else:
        # mma.sync runs K (gemm_dot's bk = 32) one 16-deep slice at a time: 2 chained mmas
        assert [m.acc.type.encoding.data.version for m in mmas] == [version] * (1 if version == 3 else 2)


def test_mma_sync_runs_k_a_slice_at_a_time_loading_the_next_slice_first():
    """On mma.sync a dot of K = 64 becomes 4 chained mmas of 16-deep tiles of the shared
    buffers; the fragments of slice j + 1 are loaded before the mma of slice j (a thread
    holds two slices' fragments, not all of K), and in the loop one barrier follows the
    last loads, before the last mma."""
    module = gemm_dot.gemm_dot(256, 256, 256, 128, 128, 64, 8, target="sm_80")
    tilec.run_pipeline(module, "accelerate-matmul")
    loop = next(o for o in module.walk() if isinstance(o, scf.ForOp))
    body = [o for o in loop.body.block.ops if isinstance(o, (LoadOp, MmaOp, BarrierOp))]
    kinds = ["L" if isinstance(o, LoadOp) else "M" if isinstance(o, MmaOp) else "B" for o in body]
    assert "".join(kinds) == "BLLLLMLLMLLMBM"  # the barrier after the copies first
    mmas = [o for o in body if isinstance(o, MmaOp)]
    assert all(m.a.type.get_shape() == (128, 16) and m.b.type.get_shape() == (16, 128) for m in mmas)
    assert all(b.acc is a.result for a, b in zip(mmas, mmas[1:]))
    tiles = [o.view.owner for o in body if isinstance(o, LoadOp)]
    assert all(isinstance(t, TileOp) for t in tiles)
    assert [t.tile_sizes for t in tiles[:2]] == [(128, 16), (16, 128)]


@pytest.mark.parametrize(("target", "dtype", "arch", "expect"), [
    ("sm_80", "bf16", "sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
    ("sm_80", "f16", "sm_80", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"),
    ("sm_90a", "bf16", "sm_90a", "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"),
    ("sm_90a", "f16", "sm_90a", "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"),
    ("sm_80", "f32", "sm_80", "for (int dot_k = 0; dot_k < 32; ++dot_k)"),
])
def test_nvrtc_compiles_the_cuda_of_each_lowering(target, dtype, arch, expect):
    """What `-t cuda` prints for the plain-loop GEMM compiles with NVRTC for its target."""
    pytest.importorskip("cupy")
    from tilec.runtime.nvrtc import compile_cuda

    module = tilec.run_pipeline(gemm_dot.gemm_dot(256, 256, 128, dtype=dtype, target=target))
    cuda = tilec.emit(module, "cuda")
    assert expect in cuda
    try:
        result = compile_cuda(cuda, arch=arch)
    except (ImportError, OSError) as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    assert result.cubin


def _bf16(rng, shape):
    bits = f32_to_bf16(rng.standard_normal(shape).astype(np.float32))
    return bits, bf16_to_f32(bits).astype(np.float64)


@pytest.mark.parametrize(("target", "tiles", "pipeline"), [
    ("sm_80", (128, 128, 32, 8), "accelerate-matmul,tma,distribute"),
    ("sm_90a", (128, 128, 32, 8), "accelerate-matmul,tma,distribute"),
    ("sm_90a", (64, 128, 32, 8), "default"),  # warpsPerCTA [4, 2]: two warpgroups along N
])
def test_plain_loop_gemm_on_the_reference_executor(target, tiles, pipeline):
    """The loop of tile loads and dots, lowered for each target, gives NumPy's A @ B
    within the bound of f32 accumulation (the C buffer poisoned with NaN)."""
    m, n, k = 128, 128, 64
    bm, bn, bk, warps = tiles
    rng = np.random.default_rng(1)
    a, a64 = _bf16(rng, (m, k))
    b, b64 = _bf16(rng, (k, n))
    module = tilec.run_pipeline(gemm_dot.gemm_dot(m, n, k, bm, bn, bk, warps, target=target), pipeline)
    out = tilec.run_reference(module, {"pa": a.reshape(-1), "pb": b.reshape(-1),
                                       "pc": np.full(m * n, np.nan, np.float32)})["pc"]
    ok, err = gemm_dot.check(np.asarray(out).reshape(m, n).astype(np.float64), a64, b64, k)
    assert ok, err


@pytest.mark.parametrize("stages", [2, 3])
def test_sm_80_pipeline_of_the_plain_loop(stages):
    """The same plain loop asking for `stages` stages, compiled for sm_80 by the default
    pipeline: `accelerate-matmul` stages A and B by cp.async and `software-pipeline`
    makes the ring (a wait for all but the newest S - 2 steps' 2 commit groups each);
    the executor's cp.async, barrier and race checks pass, C is within the bound of f32
    accumulation (C poisoned with NaN), and NVRTC compiles the CUDA for sm_80."""
    m, n, k = 64, 64, 128
    rng = np.random.default_rng(3)
    a, a64 = _bf16(rng, (m, k))
    b, b64 = _bf16(rng, (k, n))
    module = tilec.run_pipeline(gemm_dot.gemm_dot(m, n, k, 64, 64, 32, 4, target="sm_80", stages=stages))
    out = tilec.run_reference(module, {"pa": a.reshape(-1), "pb": b.reshape(-1),
                                       "pc": np.full(m * n, np.nan, np.float32)})["pc"]
    ok, err = gemm_dot.check(np.asarray(out).reshape(m, n).astype(np.float64), a64, b64, k)
    assert ok, err
    cuda = tilec.emit(module, "cuda")
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in cuda and "cp.async.cg.shared.global" in cuda
    assert f"tilec_cp_async_wait<{2 * (stages - 2)}>();" in cuda
    pytest.importorskip("cupy")
    from tilec.runtime.nvrtc import compile_cuda

    try:
        result = compile_cuda(cuda, arch="sm_80")
    except (ImportError, OSError) as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    assert result.cubin


def test_fma_gemm_is_bit_for_bit_the_sequential_sum():
    """f32: the FMA loop adds a[:, k] * b[k, :] in order, each product and sum rounded
    to f32: exactly NumPy doing the same over the whole K."""
    m, n, k = 128, 128, 64
    rng = np.random.default_rng(2)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    module = tilec.run_pipeline(gemm_dot.gemm_dot(m, n, k, dtype="f32", target="sm_80"), "accelerate-matmul")
    out = tilec.run_reference(module, {"pa": a.reshape(-1), "pb": b.reshape(-1),
                                       "pc": np.full(m * n, np.nan, np.float32)})["pc"]
    want = np.zeros((m, n), np.float32)
    for kk in range(k):
        want = (want + (a[:, kk:kk + 1] * b[kk:kk + 1, :]).astype(np.float32)).astype(np.float32)
    assert np.array_equal(np.asarray(out).reshape(m, n), want)


@pytest.mark.parametrize(("m", "n", "k", "warps", "dtype", "target", "operands"), ONE_DOT_CASES)
def test_one_dot_is_equivalent_after_the_pass(m, n, k, warps, dtype, target, operands):
    """Shapes, warp counts, dtypes, targets and operand origins: the lowered program
    computes what `layout.dot` defines (f16/bf16 within the MMA tolerance, f32 bit for
    bit), through the pass alone and through the whole default pipeline."""
    from tilec.runtime.reference.api import check_equivalence

    before = one_dot(m, n, k, warps, dtype, target, operands)
    for pipeline in ("accelerate-matmul", "default"):
        after = tilec.run_pipeline(before.clone(), pipeline)
        report = check_equivalence(before, after)
        assert report.equal, f"{pipeline}: {report}"
        assert (report.tolerance is None) == (dtype == "f32")


def test_sm_80_128x256_plain_loop_stores_c_from_the_mma_layout():
    """The 128x256 block tile at bk = 64, 3 stages (8 warps of 64x64, the hand-written
    mma.sync GEMM's warp tile): its ring takes 144 KiB, so the f32 accumulator's shared
    round trip (128 KiB) does not fit beside it on sm_80 and `lower-convert-layout`
    stores C from the mma.sync layout in 8-byte vectors. No barrier is left in the
    step's compute (`software-pipeline`: it writes no memory). The executor's cp.async,
    barrier and race checks pass and C is within the bound (C poisoned with NaN);
    NVRTC compiles it for sm_80 without spilling."""
    m, n, k = 128, 256, 256
    rng = np.random.default_rng(5)
    a, a64 = _bf16(rng, (m, k))
    b, b64 = _bf16(rng, (k, n))
    module = tilec.run_pipeline(gemm_dot.gemm_dot(m, n, k, 128, 256, 64, 8, target="sm_80", stages=3))
    out = tilec.run_reference(module, {"pa": a.reshape(-1), "pb": b.reshape(-1),
                                       "pc": np.full(m * n, np.nan, np.float32)})["pc"]
    ok, err = gemm_dot.check(np.asarray(out).reshape(m, n).astype(np.float64), a64, b64, k)
    assert ok, err
    cuda = tilec.emit(module, "cuda")
    assert "*reinterpret_cast<f32x2*>(pc + " in cuda
    # the steps' tops: the default pipeline keeps this cp.async loop rolled (one step an
    # iteration, `#pragma unroll 1`), and `prefetch-operands` rotates the step's top
    # round the back edge (once before the loop, once in it); none in the compute, none after
    assert "#pragma unroll 1" in cuda and cuda.count("__syncthreads();") == 2
    pytest.importorskip("cupy")
    from tilec.runtime.nvrtc import compile_cuda, resource_usage

    try:
        result = compile_cuda(cuda, arch="sm_80")
    except (ImportError, OSError) as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    (usage,) = resource_usage(result).values()
    assert usage.spill_stores in (0, None)
