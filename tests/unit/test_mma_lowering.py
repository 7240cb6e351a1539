"""`lower-to-gpu` of `layout.mma` (passes/lower_to_gpu/mma.py) to `cuda.mma_sync`:
the lowered program against the layout-level one on the CPU reference executor (whose
`cuda.mma_sync` gathers each warp's fragments by the PTX ISA's formulas), against NumPy
in float64, and its CUDA compiled by NVRTC for sm_90."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects.layout_mma import mma_error_bound
from tilec.runtime.reference import run
from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip
from helpers.programs import mma_program

CASES = [
    # m, n, k, element type, warpsPerCTA
    (16, 8, 16, "bf16", (1, 1)),
    (32, 16, 32, "bf16", (2, 2)),
    (64, 32, 64, "bf16", (2, 2)),
    (64, 16, 32, "f16", (4, 1)),
    (16, 64, 16, "bf16", (1, 4)),
    (128, 64, 32, "bf16", (2, 4)),
    (16, 8, 16, "bf16", (2, 1)),  # two warps compute the same tile (broadcast)
    (32, 16, 32, "f32", (2, 2)),  # tf32: m16n8k8
    (64, 32, 64, "i8", (2, 2)),  # s8: m16n8k32, exact
]
K_STEP = {"bf16": 16, "f16": 16, "f32": 8, "i8": 32}
K_WIDTH = {"bf16": 2, "f16": 2, "f32": 1, "i8": 4}
BROADCAST = {(16, 8, 16, "bf16", (2, 1))}  # C loaded by two warps and stored: a race


@pytest.mark.parametrize("m, n, k, et, warps", CASES)
def test_lowered_mma_is_equivalent(m, n, k, et, warps):
    zero = (m, n, k, et, warps) in BROADCAST
    acc = "i32" if et == "i8" else "f32"
    after = assert_pass_preserves(mma_program(m, n, k, et, acc, warps, K_WIDTH[et], zero_acc=zero), "lower-to-gpu",
                                  seeds=(0, 1))
    text = str(after)
    step = K_STEP[et]
    per_warp = (max(m // 16, warps[0]) // warps[0]) * (max(n // 8, warps[1]) // warps[1]) * (k // step)
    assert text.count("cuda.mma_sync") == per_warp
    assert f"{per_warp} mma.sync.m16n8k{step} per warp" in text


def test_lowered_mma_against_numpy():
    m, n, k = 64, 32, 64
    module = mma_program(m, n, k, "bf16", "f32", (2, 2))
    run_pipeline(module, "lower-to-gpu")
    rng = np.random.default_rng(7)
    a = f32_to_bf16(rng.standard_normal((m, k)).astype(np.float32))
    b = f32_to_bf16(rng.standard_normal((k, n)).astype(np.float32))
    c = rng.standard_normal((m, n)).astype(np.float32)
    out = run(module, {"pa": a.reshape(-1), "pb": b.reshape(-1), "pc": c.reshape(-1)})
    a64, b64 = bf16_to_f32(a).astype(np.float64), bf16_to_f32(b).astype(np.float64)
    exact = a64 @ b64 + c
    gamma, _ = mma_error_bound(k, "bf16")
    bound = gamma * (np.abs(c) + np.abs(a64) @ np.abs(b64))
    assert np.all(np.abs(out["pc"].reshape(m, n) - exact) <= bound)


@pytest.mark.parametrize(
    "et, ptx",
    [("bf16", "m16n8k16.row.col.f32.bf16.bf16.f32"), ("f16", "m16n8k16.row.col.f32.f16.f16.f32"),
     ("f32", "m16n8k8.row.col.f32.tf32.tf32.f32"), ("i8", "m16n8k32.row.col.s32.s8.s8.s32")],
)
def test_lowered_mma_compiles_with_nvrtc(et, ptx):
    acc = "i32" if et == "i8" else "f32"
    module = mma_program(64, 32, 64, et, acc, (2, 2), K_WIDTH[et])
    run_pipeline(module, "lower-to-gpu")
    cuda = emit(module, "cuda")
    assert cuda.count(f"mma.sync.aligned.{ptx}") == 4 * (64 // K_STEP[et])  # 2x2 tiles x K steps
    compile_sm90_or_skip(cuda)


def test_lowered_i8_mma_is_exact_against_numpy():
    m, n, k = 32, 16, 64
    module = mma_program(m, n, k, "i8", "i32", (2, 2), 4)
    run_pipeline(module, "lower-to-gpu")
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    c = rng.integers(-(2**31), 2**31 - 1, (m, n)).astype(np.int32)
    out = run(module, {"pa": a.reshape(-1), "pb": b.reshape(-1), "pc": c.reshape(-1)})
    want = a.astype(np.int64) @ b.astype(np.int64) + c
    want = ((want + 2**31) % 2**32 - 2**31).astype(np.int32)
    assert np.array_equal(out["pc"].reshape(m, n), want)


def test_mma_sync_needs_whole_warps():
    from tilec.runtime.reference import ExecutionError

    module = mma_program(16, 8, 16, "bf16", "f32", (1, 1))
    run_pipeline(module, "lower-to-gpu")
    # only lanes 0..15 reach the mma: the executor refuses, as .aligned requires
    _guard_first_mma(module)
    with pytest.raises(ExecutionError, match="does not take part in the mma.sync"):
        run(module, {"pa": np.zeros(256, np.uint16), "pb": np.zeros(128, np.uint16),
                     "pc": np.zeros(128, np.float32)})


def _guard_first_mma(module) -> None:
    """The lowered module's first mma.sync moved inside `scf.if tid < 16` (the other
    lanes yield zeros), in place."""
    from xdsl.dialects import arith, gpu, scf
    from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, f32
    from xdsl.ir import Block, Region
    from xdsl.rewriter import InsertPoint, Rewriter

    mma = next(o for o in module.walk() if o.name == "cuda.mma_sync")
    tid = next(o for o in module.walk() if isinstance(o, gpu.ThreadIdOp)).result
    c16 = arith.ConstantOp(IntegerAttr(16, IndexType()))
    lanes = arith.CmpiOp(tid, c16, "ult")
    taken, other = Block(), Block()
    guard = scf.IfOp(lanes, [r.type for r in mma.results], Region(taken), Region(other))
    Rewriter.insert_op([c16, lanes, guard], InsertPoint.before(mma))
    for old, new in zip(mma.results, guard.results):
        old.replace_all_uses_with(new)
    mma.detach()
    taken.add_ops([mma, scf.YieldOp(*mma.results)])
    zero = arith.ConstantOp(FloatAttr(0.0, f32))
    other.add_ops([zero, scf.YieldOp(*[zero] * len(mma.results))])
    module.verify()


def test_tile_gemm_through_the_default_pipeline():
    """Blocked loads, conversions to the operand layouts, layout.mma and a conversion to
    a coalesced layout for the store: equivalent after `default`, every conversion
    through shared memory without bank conflicts, the operand reads ldmatrix, and NVRTC
    compiles it."""
    from helpers.programs import mma_tile_gemm

    after = assert_pass_preserves(mma_tile_gemm(), "default", seeds=(0, 1))
    cuda = emit(after, "cuda")
    assert cuda.count("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") == 32
    assert "32 mma.sync.m16n8k16 per warp (8 tile(s) of 16x8, 4 step(s) of K = 16)" in cuda
    assert cuda.count("// convert_layout via smem: 0 bank conflicts per write, 0 per read") == 3
    # the shared layouts lower-convert-layout picks for the operands also suit ldmatrix
    assert "// layout.load 64x64xbf16 from smem: 8 ldmatrix.x4 per thread" in cuda
    assert "// layout.load 64x64xbf16 from smem: 8 ldmatrix.x4.trans per thread" in cuda
    compile_sm90_or_skip(cuda)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from helpers.budget import examples  # noqa: E402


@settings(max_examples=examples(8), deadline=None)
@given(
    st.sampled_from(["bf16", "f16", "f32", "i8"]),
    st.sampled_from([(1, 1), (2, 1), (1, 2), (2, 2), (4, 1)]),
    st.integers(0, 2), st.integers(0, 2), st.integers(1, 2),
)
def test_lowered_mma_random_shapes(et, warps, mi, ni, ki):
    """Random element types, warp grids and shapes (1 to 4 CTA tiles per dim, 1 or 2
    K steps): the lowered program computes what the layout-level one does."""
    m, n, k = 16 * warps[0] << mi, 8 * warps[1] << ni, K_STEP[et] * ki
    acc = "i32" if et == "i8" else "f32"
    assert_pass_preserves(mma_program(m, n, k, et, acc, warps, K_WIDTH[et]), "lower-to-gpu", seeds=(0,))


def test_nvmma_shared_round_trip_lowers():
    """An operand staged through a #layout.nvmma_shared allocation (stored from the
    dot-operand layout, read back in it): lowered with the swizzle's XOR, equivalent,
    and compiled by NVRTC."""
    import tilec
    from tilec.dialects.mma import NvmmaSharedLayout
    from tilec.dialects.mma_layouts import NvmmaComposed

    a = tilec.DotOperandLayout(0, tilec.NvidiaMmaLayout(2, [2, 2], [16, 8]), 2)
    p = tilec.Program("stage")
    x = p.view(p.pointer("p", "bf16", align=16), "(64,64):(64,1)").named("x")
    y = p.view(p.pointer("q", "bf16", align=16), "(64,64):(64,1)").named("y")
    with p.launch(grid=(1, 1, 1), threads=128):
        v = p.load(x, a).named("v")
        s = p.alloc(NvmmaComposed(NvmmaSharedLayout(128, 16, False), [64, 64]), "bf16", "smem").named("s")
        assert "#layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false" in str(s.type)
        p.store(v, s)
        p.barrier()
        p.store(p.load(s, a).named("w"), y)
    text = p.module
    after = assert_pass_preserves(text, "default", seeds=(0,))
    cuda = emit(after, "cuda")
    assert "^" in cuda  # the swizzle
    compile_sm90_or_skip(cuda)
