"""`cuda.wgmma` and its fence / commit / wait: verifiers, the CPU reference executor's
semantics (A and B read from shared memory through the descriptors, D in the
accumulator fragment), and NVRTC compiling the printed inline PTX for sm_90a."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip
from helpers.wgmma_programs import wgmma_program

from tilec.compiler.cuda import emit_cuda
from tilec.dialects.mma import NvmmaSharedLayout
from tilec.dialects.wgmma import WgmmaDescriptor, kmajor_byte_offset, wgmma_accumulator
from tilec.runtime.nvrtc import needs_arch_specific
from tilec.runtime.reference import ExecutionError, run
from tilec.runtime.reference.api import mma_tolerance
from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16


def _arrange_a(a: np.ndarray, swizzle: int) -> np.ndarray:
    """A (64 x 16) stored as Triton's `nvmma_shared<swizzle>` tile (independent of the
    descriptor arithmetic: from the layout's own offset -> (row, k) map)."""
    ll = NvmmaSharedLayout(swizzle, 16).to_linear([64, 16])
    flat = np.empty(1024, a.dtype)
    for o in range(1024):
        flat[o] = a[ll.apply(offset=o)]
    return flat


def _arrange_b(b: np.ndarray) -> np.ndarray:
    """B (n x 16) without swizzle: 8 x 8 core matrices of 128 contiguous bytes, the two
    along K 128 bytes apart (LBO), row groups 256 bytes apart (SBO)."""
    n = b.shape[0]
    flat = np.empty(16 * n, b.dtype)
    for r in range(n):
        for k in range(16):
            flat[(r // 8) * 128 + (k // 8) * 64 + (r % 8) * 8 + k % 8] = b[r, k]
    return flat


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize("swizzle, n", [(32, 8), (32, 64), (0, 16)])
def test_reference_wgmma_is_a_times_b_transposed_plus_c(swizzle, n, dtype):
    """D = A B^T + C for a 64 x 16 A (32-byte swizzle, or core matrices without) and
    an n x 16 B; every value of every thread where the PTX ISA's fragment puts it.
    Within the float MMA tolerance of docs/testing.md (f32 products and sums)."""
    rng = np.random.default_rng(n + swizzle)
    if dtype == "bf16":  # bf16 buffers are uint16 bit patterns on the executor
        a_bits = f32_to_bf16(rng.uniform(-2, 2, (64, 16)).astype(np.float32))
        b_bits = f32_to_bf16(rng.uniform(-2, 2, (n, 16)).astype(np.float32))
        a, b = bf16_to_f32(a_bits), bf16_to_f32(b_bits)
    else:
        a_bits = a = rng.uniform(-2, 2, (64, 16)).astype(np.float16)
        b_bits = b = rng.uniform(-2, 2, (n, 16)).astype(np.float16)
    c = rng.uniform(-4, 4, (64, n)).astype(np.float32)
    if swizzle:
        ga, a_desc = _arrange_a(a_bits, swizzle), (swizzle, 0, 8 * swizzle)
    else:
        ga, a_desc = _arrange_b(a_bits), (0, 128, 256)  # the same core-matrix arrangement
    gc = np.full(64 * n, np.nan, np.float32)
    t = np.arange(128)
    for i in range(n // 2):
        gc[128 * i + t] = c[wgmma_accumulator(t, i)]
    module = wgmma_program(n, dtype, a_desc=a_desc)
    records: list = []
    out = run(module, {"ga": ga, "gb": _arrange_b(b_bits), "gc": gc}, mma_records=records)["gc"]
    d = np.empty((64, n), np.float64)
    for i in range(n // 2):
        d[wgmma_accumulator(t, i)] = out[128 * i + t]
    want = a.astype(np.float64) @ b.astype(np.float64).T + c
    tol = mma_tolerance(records)
    assert tol is not None and tol > 0
    np.testing.assert_allclose(d, want, rtol=0, atol=tol)
    assert not np.allclose(d, c)  # the product is there, not the accumulator alone


def test_descriptor_addresses_match_the_arrangements():
    """The descriptors the program gives describe the arrangements the test stores."""
    r, k = np.meshgrid(np.arange(64), np.arange(16), indexing="ij")
    a = np.arange(1024).reshape(64, 16)
    flat = _arrange_a(a, 32)
    got = flat[kmajor_byte_offset(WgmmaDescriptor(0, 0, 256, 32), r, k) // 2]
    np.testing.assert_array_equal(got, a)
    flat = _arrange_b(a)
    got = flat[kmajor_byte_offset(WgmmaDescriptor(0, 128, 256, 0), r, k) // 2]
    np.testing.assert_array_equal(got, a)


F8 = {"f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}


def _arrange_f8_a(a: np.ndarray) -> np.ndarray:
    """A (64 x 32 bytes) as Triton's `nvmma_shared<32>` tile of 8-bit elements."""
    ll = NvmmaSharedLayout(32, 8).to_linear([64, 32])
    flat = np.empty(2048, a.dtype)
    for o in range(2048):
        flat[o] = a[ll.apply(offset=o)]
    return flat


def _arrange_f8_b(b: np.ndarray) -> np.ndarray:
    """B (n x 32) of 8-bit elements in core matrices of 8 rows x 16 bytes, the two
    along K 128 bytes apart (LBO), row groups 256 bytes apart (SBO)."""
    n = b.shape[0]
    flat = np.empty(32 * n, b.dtype)
    for r in range(n):
        for k in range(32):
            flat[(r // 8) * 256 + (k // 16) * 128 + (r % 8) * 16 + k % 16] = b[r, k]
    return flat


@pytest.mark.parametrize("a_type, b_type", [("f8E4M3FN", "f8E4M3FN"), ("f8E4M3FN", "f8E5M2"), ("f8E5M2", "f8E5M2")])
@pytest.mark.parametrize("n", [8, 64])
def test_reference_fp8_wgmma_is_k32_a_times_b_transposed_plus_c(a_type, b_type, n):
    """`m64nNk32` on 8-bit floats: A 64 x 32 (32-byte swizzle), B n x 32 (core
    matrices), both K-major; the executor's D equals the float64 product of the
    operands' values (exact products, f32 sums) within the fp8 MMA tolerance."""
    from tilec.dialects.dtypes import f8_to_f32, to_f8

    rng = np.random.default_rng(n + len(a_type + b_type))
    a_bits = to_f8(rng.uniform(-8, 8, (64, 32)), a_type)
    b_bits = to_f8(rng.uniform(-8, 8, (n, 32)), b_type)
    a, b = f8_to_f32(a_bits, a_type), f8_to_f32(b_bits, b_type)
    c = rng.uniform(-4, 4, (64, n)).astype(np.float32)
    gc = np.full(64 * n, np.nan, np.float32)
    t = np.arange(128)
    for i in range(n // 2):
        gc[128 * i + t] = c[wgmma_accumulator(t, i)]
    module = wgmma_program(n, a_type, b_dtype=b_type)
    records: list = []
    inputs = {"ga": _arrange_f8_a(a_bits), "gb": _arrange_f8_b(b_bits), "gc": gc}
    out = run(module, inputs, mma_records=records)["gc"]
    d = np.empty((64, n), np.float64)
    for i in range(n // 2):
        d[wgmma_accumulator(t, i)] = out[128 * i + t]
    want = a.astype(np.float64) @ b.astype(np.float64).T + c
    tol = mma_tolerance(records)
    assert records[0].k == 32 and records[0].operand_type == F8[a_type]
    assert tol is not None and tol > 0
    np.testing.assert_allclose(d, want, rtol=0, atol=tol)
    # f32 sums of exact products: within f32's own bound too (the fp8 bound is the GPU's)
    np.testing.assert_allclose(d, want, rtol=0, atol=64 * 2.0**-24 * (np.abs(a) @ np.abs(b).T + np.abs(c)).max())
    assert not np.allclose(d, c)


def test_fp8_descriptor_addresses_match_the_arrangements():
    r, k = np.meshgrid(np.arange(64), np.arange(32), indexing="ij")
    a = np.arange(2048).reshape(64, 32)
    got = _arrange_f8_a(a)[kmajor_byte_offset(WgmmaDescriptor(0, 0, 256, 32), r, k, 1)]
    np.testing.assert_array_equal(got, a)
    got = _arrange_f8_b(a)[kmajor_byte_offset(WgmmaDescriptor(0, 128, 256, 0), r, k, 1)]
    np.testing.assert_array_equal(got, a)


@pytest.mark.parametrize("a_type, b_type", [("f8E4M3FN", "f8E4M3FN"), ("f8E5M2", "f8E4M3FN")])
@pytest.mark.parametrize("n", [8, 256])
def test_printed_fp8_wgmma_compiles_for_sm90a(a_type, b_type, n):
    """`wgmma.mma_async.sync.aligned.m64nNk32.f32.<a>.<b>` without imm-trans operands."""
    text = emit_cuda(wgmma_program(n, a_type, b_dtype=b_type))
    ptx_inst = f"wgmma.mma_async.sync.aligned.m64n{n}k32.f32.{F8[a_type]}.{F8[b_type]}"
    assert ptx_inst in text and "p, 1, 1;" in text and "#include <cuda_fp8.h>" in text
    result = compile_sm90_or_skip(text)
    assert result.arch == "sm_90a" and result.cubin
    assert ptx_inst in result.ptx


def test_reference_wgmma_needs_whole_warpgroups():
    module = wgmma_program(8, threads=64)
    zeros = {"ga": np.zeros(1024, np.uint16), "gb": np.zeros(128, np.uint16), "gc": np.zeros(512, np.float32)}
    with pytest.raises(ExecutionError, match="not a whole number of warpgroups"):
        run(module, zeros)


@pytest.mark.parametrize("n", [8, 256])
@pytest.mark.parametrize("dtype", ["bf16", "f16"])
def test_printed_wgmma_compiles_for_sm90a(n, dtype):
    """The launcher and CI compile wgmma kernels for sm_90a (`needs_arch_specific`);
    ptxas accepts the inline PTX and keeps every instruction."""
    text = emit_cuda(wgmma_program(n, dtype))
    assert needs_arch_specific(text)
    result = compile_sm90_or_skip(text)
    assert result.arch == "sm_90a" and result.cubin
    ptx = result.ptx
    assert f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{dtype}.{dtype}" in ptx
    for inst in ("wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned 0"):
        assert inst in ptx


def test_reference_wgmma_needs_one_index_per_warpgroup():
    """The descriptor is one per warpgroup: threads giving different starts are an
    error, as is a start that is not 16-byte aligned."""
    inputs = {"ga": np.zeros(1024, np.uint16), "gb": np.zeros(128, np.uint16), "gc": np.zeros(512, np.float32)}
    module = wgmma_program(8, a_at_tid=True)
    with pytest.raises(ExecutionError, match="operand a: the threads of warpgroup 0 give different indices"):
        run(module, inputs)
    with pytest.raises(ExecutionError, match="operand b starts at element 4, not 16-byte aligned"):
        run(wgmma_program(8, b_at=4), inputs)

