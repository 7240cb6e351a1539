"""`layout.mma` with a version-3 accumulator lowered to `wgmma` (passes/lower_to_gpu/
wgmma.py): descriptors fitted from the NVMMA shared views (`wgmma.fit_descriptor`),
A from shared memory or registers, B K- or MN-major; the same results on the CPU
reference executor before and after the default pipeline; the CUDA compiled by NVRTC
for sm_90a; the Hopper GEMM example; layouts wgmma cannot take are located errors."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip
from helpers.wgmma_programs import wgmma_gemm_program, wgmma_mma_program

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects.mma import NvmmaSharedLayout
from tilec.dialects.wgmma import WgmmaDescriptor, fit_descriptor, mnmajor_byte_offset
from tilec.support.diagnostics import TilecError

ROOT = Path(__file__).resolve().parents[2]


def _nvmma_addresses(swizzle: int, shape, transposed: bool) -> np.ndarray:
    """Byte address of each element of a Triton `nvmma_shared` tile, from its own linear
    layout (offset -> coordinate), independent of the descriptor arithmetic."""
    ll = NvmmaSharedLayout(swizzle, 16, transposed).to_linear(list(shape))
    off = np.zeros(shape, np.int64)
    for o in range(shape[0] * shape[1]):
        off[ll.apply(offset=o)] = 2 * o
    return off


@pytest.mark.parametrize(
    "swizzle, shape, expect",
    [
        (128, (64, 64), (0, 1024)),
        (128, (64, 128), (8192, 1024)),
        (64, (32, 256), (2048, 512)),
        (32, (16, 64), (512, 256)),
    ],
)
def test_fit_descriptor_mn_major(swizzle, shape, expect):
    """B stored K x N row-major under an NVMMA swizzle: MN-major, LBO the distance of
    the swizzle atoms along N (unused within one atom), SBO of 8 K rows; every K step
    starts 16 rows further."""
    addrs = _nvmma_addresses(swizzle, shape, False)
    for k0 in range(0, shape[0], 16):
        d, mn = fit_descriptor(addrs[k0 : k0 + 16, :].T)
        assert mn and (d.swizzle, d.lbo, d.sbo) == (swizzle, *expect)
        assert d.start == k0 * swizzle


@pytest.mark.parametrize("swizzle", [32, 64, 128])
def test_fit_descriptor_k_major(swizzle):
    """A stored M x K row-major: K-major, SBO = 8 rows of `swizzle` bytes; a K step
    inside the swizzle row moves the start by 32 bytes (the hardware's XOR does the
    rest)."""
    cols = swizzle // 2
    addrs = _nvmma_addresses(swizzle, (64, cols), False)
    for k0 in range(0, cols, 16):
        d, mn = fit_descriptor(addrs[:, k0 : k0 + 16])
        assert not mn and (d.swizzle, d.sbo, d.start) == (swizzle, 8 * swizzle, 2 * k0)


def test_fit_descriptor_no_swizzle_and_refusal():
    """Core matrices (8 rows of 16 bytes) without a swizzle: K-major with LBO/SBO;
    MN-major's own formula; plain row-major rows of 128 bytes: no descriptor."""
    r, k = np.meshgrid(np.arange(64), np.arange(16), indexing="ij")
    core = (r % 8) * 16 + (k % 8) * 2 + (k // 8) * 1024 + (r // 8) * 128
    d, mn = fit_descriptor(core)
    assert not mn and (d.swizzle, d.lbo, d.sbo) == (0, 1024, 128)
    want = WgmmaDescriptor(256, 2048, 128, 0)
    d, mn = fit_descriptor(mnmajor_byte_offset(want, r, k))
    assert mn and d == want
    assert isinstance(fit_descriptor(r * 128 + k * 2), str)


CASES = [
    {},
    {"et": "f16", "n": 256},
    {"a_from": "regs"},
    {"b_major": "k", "b_swizzle": 32},
    {"a_swizzle": 0, "b_swizzle": 0},
    {"a_swizzle": 0, "b_swizzle": 0, "b_major": "k"},
    {"k": 32, "a_swizzle": 64, "b_swizzle": 64},
    {"m": 128, "wg": 2, "n": 128, "k": 64, "a_swizzle": 128},
    {"m": 128, "n": 256, "instr_n": 128, "k": 32, "a_swizzle": 64, "a_from": "regs"},
]


@pytest.mark.parametrize("case", CASES, ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()) or "default")
def test_wgmma_programs_equivalent_and_compile(case):
    """C + A @ B on the CPU executor equals the lowered program's (wgmma through the
    descriptors, MMA tolerance); NVRTC compiles the CUDA for sm_90a."""
    case = dict(case)
    m, n, k, et = case.pop("m", 64), case.pop("n", 128), case.pop("k", 16), case.pop("et", "bf16")
    text = wgmma_mma_program(m, n, k, et, **case)
    after = assert_pass_preserves(text, "default", seeds=(0,))
    cuda = emit(after, "cuda")
    instr_n = case.get("instr_n") or n
    wgs = case.get("wg", 1)
    tiles = (m // 64 // wgs) * (n // instr_n) * (k // 16)
    assert cuda.count(f"wgmma.mma_async.sync.aligned.m64n{instr_n}k16.f32.{et}.{et}") == tiles
    assert cuda.count("wgmma.commit_group") == 1 and "wgmma.wait_group.sync.aligned 0" in cuda
    compile_sm90_or_skip(cuda)


FP8 = {"f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}
FP8_CASES = [
    {"et": "f8E4M3FN", "k": 32, "a_swizzle": 32, "b_swizzle": 32},
    {"et": "f8E4M3FN", "b_et": "f8E5M2", "k": 128, "a_swizzle": 128, "b_swizzle": 128},
    {"et": "f8E5M2", "m": 128, "wg": 2, "n": 64, "k": 64, "a_swizzle": 64, "b_swizzle": 64},
]


@pytest.mark.parametrize("case", FP8_CASES, ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()))
def test_fp8_wgmma_programs_equivalent_and_compile(case):
    """8-bit float operands: A and B K-major in NVMMA-swizzled shared tiles of 1-byte
    elements (a 128-byte swizzle holds rows of 128 elements), one `m64nNk32` per 32-deep
    K step; the executor's C + A @ B before and after the default pipeline agree (MMA
    tolerance), and NVRTC compiles the CUDA for sm_90a."""
    case = dict(case)
    m, n, k, et = case.pop("m", 64), case.pop("n", 128), case.pop("k"), case.pop("et")
    text = wgmma_mma_program(m, n, k, et, b_major="k", **case)
    after = assert_pass_preserves(text, "default", seeds=(0,))
    cuda = emit(after, "cuda")
    wgs = case.get("wg", 1)
    tb = FP8[case.get("b_et", et)]
    inst = f"wgmma.mma_async.sync.aligned.m64n{n}k32.f32.{FP8[et]}.{tb}"
    assert cuda.count(inst) == (m // 64 // wgs) * (k // 32)
    assert f"B K-major, swizzle {case['b_swizzle']}B" in cuda
    compile_sm90_or_skip(cuda)


def test_fit_descriptor_of_8_bit_k_major_tiles():
    """An M x 128 tile of 1-byte elements under a 128-byte swizzle: K-major, SBO 1024,
    each 32-element K step 32 bytes further; 8-bit operands are never MN-major."""
    shape = (64, 128)
    ll = NvmmaSharedLayout(128, 8, False).to_linear(list(shape))
    addrs = np.zeros(shape, np.int64)
    for o in range(shape[0] * shape[1]):
        addrs[ll.apply(offset=o)] = o
    for k0 in range(0, 128, 32):
        d, mn = fit_descriptor(addrs[:, k0 : k0 + 32], 1)
        assert not mn and (d.swizzle, d.sbo, d.start) == (128, 1024, k0)
    assert isinstance(fit_descriptor(addrs[:32, :64].T[:, :32], 1), str)


def test_wgmma_gemm_loop_with_tma():
    """The multi-K-step GEMM: TMA loads on one mbarrier per step, wgmma, barriers;
    equivalent after default and compiled; no proxy fence for the operand tiles (only
    TMA writes them), whereas block-level copies (generic stores) get one. The one fence
    is tma-epilogue's: the C tile's `stmatrix` stores (generic) before its TMA store."""
    after = assert_pass_preserves(wgmma_gemm_program(256, 256, 128, out="bf16"), "default", seeds=(0,))
    cuda = emit(after, "cuda")
    assert "cp.async.bulk.tensor" in cuda
    body = cuda[cuda.index("__global__"):]
    assert body.count("tilec_fence_proxy_async();") == 1
    store = body.index("cp.async.bulk.tensor.2d.global.shared")
    fence = body.index("tilec_fence_proxy_async();")
    assert body.rindex("stmatrix", 0, fence) < fence < store and "wgmma.mma_async" not in body[fence:]
    # one stage, overwritten by the next step's TMA: the wait cannot be deferred
    assert "wgmma.wait_group.sync.aligned 1" not in cuda
    assert "B MN-major, swizzle 128B, LBO 8192, SBO 1024" in cuda
    compile_sm90_or_skip(cuda)
    plain = assert_pass_preserves(wgmma_gemm_program(256, 256, 128, tma=False), "default", seeds=(0,))
    assert "tilec_fence_proxy_async();" in emit(plain, "cuda")


def test_hopper_gemm_example_is_generated_and_runs_on_cpu():
    """examples/gemm_bf16_hopper.mlir (with its comments) is the program of
    `gemm_hopper(256, 256, 256)`, and equivalent after the default pipeline."""
    sys.path.insert(0, str(ROOT / "examples" / "python"))
    import gemm_bf16_hopper

    text = str(gemm_bf16_hopper.gemm_hopper(*gemm_bf16_hopper.EXAMPLE_SHAPE))
    assert str(parse_module((ROOT / "examples" / "gemm_bf16_hopper.mlir").read_text(), "t.mlir")) == text
    after = assert_pass_preserves(text, "default", seeds=(0,))
    cuda = emit(after, "cuda")
    assert cuda.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16") == 16
    # 4 stages: each step's `layout.mma {async}` waited for by the next step's
    # `layout.mma_wait {pending = 1}` (wait_group 1), the loop's result once after it
    assert cuda.count("wgmma.wait_group.sync.aligned 1;") == 4
    assert cuda.count("wgmma.wait_group.sync.aligned 0;") == 1
    assert cuda.index("wgmma.wait_group.sync.aligned 0;") > cuda.rindex("wgmma.mma_async")


def test_unreadable_shared_layout_is_located():
    """A plain row-major B (128-byte rows, no swizzle) is no wgmma layout."""
    module = wgmma_mma_program(64, 64, 16, b_layout="(16,64):(64,1)")
    with pytest.raises(TilecError, match="wgmma cannot read operand B"):
        run_pipeline(module, "lower-to-gpu")
