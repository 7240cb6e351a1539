"""The 8-bit float element types f8E4M3FN and f8E5M2 (PyTorch's float8_e4m3fn and
float8_e5m2): their bits as float32, one rounding to them checked exactly against a
brute-force nearest-value search, and a converting `layout.copy` between them and the
other float dtypes through the reference executor and NVRTC."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tilec.copy_cpu import copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.dialects.conversions import conversion_steps, convert_values
from tilec.dialects.dtypes import DTYPES, ELEMENTS, F8_FORMATS, f8_to_f32, f32_to_bf16, to_f8

# Hand-checked values of the OCP formats (PyTorch's float8 types).
KNOWN = {
    "f8E4M3FN": {0x00: 0.0, 0x01: 2.0**-9, 0x08: 2.0**-6, 0x38: 1.0, 0x7E: 448.0, 0xFE: -448.0, 0x80: -0.0},
    "f8E5M2": {0x00: 0.0, 0x01: 2.0**-16, 0x04: 2.0**-14, 0x3C: 1.0, 0x7B: 57344.0, 0x7C: np.inf, 0xFC: -np.inf},
}


@pytest.mark.parametrize("name", list(F8_FORMATS))
def test_bits_decode_to_the_formats_values(name):
    v = f8_to_f32(np.arange(256), name)
    assert v.dtype == np.float32
    for bits, want in KNOWN[name].items():
        assert v[bits] == want and np.signbit(v[bits]) == np.signbit(want), hex(bits)
    nan = {0x7F, 0xFF} if name == "f8E4M3FN" else {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}
    assert {i for i in range(256) if np.isnan(v[i])} == nan
    assert ELEMENTS[name].bits == 8 and ELEMENTS[name].packed
    assert DTYPES[{"f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2"}[name]].element is ELEMENTS[name]


def _nearest(x: float, name: str) -> int:
    """The bits of the value nearest x among the format's finite values, ties to the
    even mantissa; beyond the largest value's midpoint NaN (e4m3fn) or infinity (e5m2)."""
    fmt = F8_FORMATS[name]
    if x != x:
        return 0x7F
    sign = 0x80 if np.signbit(x) else 0
    if abs(x) == np.inf:
        return (0x7C if fmt.has_inf else 0x7F) | sign
    table = f8_to_f32(np.arange(128), name)
    finite = [(Fraction(float(table[b])), b) for b in range(128) if np.isfinite(table[b])]
    a = Fraction(abs(x))
    top = Fraction(fmt.max)
    ulp = Fraction(2) ** (int(np.floor(np.log2(fmt.max))) - fmt.mantissa)
    if a > top + ulp / 2 or (a == top + ulp / 2 and fmt.has_inf):  # 448's mantissa is even; 57344's odd
        return (0x7C if fmt.has_inf else 0x7F) | sign
    best = min(finite, key=lambda vb: (abs(vb[0] - a), vb[1] & 1))
    return best[1] | sign


@pytest.mark.parametrize("name", list(F8_FORMATS))
def test_rounding_is_nearest_even_with_pytorchs_overflow(name):
    rng = np.random.default_rng(7)
    table = f8_to_f32(np.arange(256), name).astype(np.float64)
    finite = table[np.isfinite(table)]
    mids = (np.sort(np.unique(finite))[1:] + np.sort(np.unique(finite))[:-1]) / 2  # every tie
    top = F8_FORMATS[name].max
    xs = np.concatenate([
        finite, mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf),
        rng.standard_normal(300) * 4, rng.uniform(-2 * top, 2 * top, 100),
        [top * 1.03, top * 1.05, 1e30, -1e30, np.inf, -np.inf, np.nan, -np.nan, 1e-30, -1e-30],
    ])
    got = to_f8(xs, name)
    want = np.array([_nearest(float(x), name) for x in xs], np.uint8)
    assert np.array_equal(got, want), [(x, g, w) for x, g, w in zip(xs, got, want) if g != w][:5]
    f32 = rng.standard_normal(200).astype(np.float32) * 50
    assert np.array_equal(to_f8(f32, name), [_nearest(float(x), name) for x in f32])


def test_e4m3fn_overflow_is_nan_and_e5m2_overflow_is_infinity():
    assert to_f8([464.0, 464.01, 480.0, -1e9], "f8E4M3FN").tolist() == [0x7E, 0x7F, 0x7F, 0xFF]
    assert to_f8([61439.0, 61440.0, -1e9], "f8E5M2").tolist() == [0x7B, 0x7C, 0xFC]


def test_conversion_steps_go_through_float32():
    assert conversion_steps("float32", "float8_e4m3fn") == [("truncf", "f8E4M3FN")]
    assert conversion_steps("float64", "float8_e5m2") == [("truncf", "f32"), ("truncf", "f8E5M2")]
    assert conversion_steps("float8_e4m3fn", "bfloat16") == [("extf", "f32"), ("truncf", "bf16")]
    assert conversion_steps("float8_e5m2", "float8_e4m3fn") == [("extf", "f32"), ("truncf", "f8E4M3FN")]
    assert conversion_steps("int32", "float8_e4m3fn") == [("sitofp", "f32"), ("truncf", "f8E4M3FN")]
    assert conversion_steps("float8_e4m3fn", "int8") == [("extf", "f32"), ("fptosi", "i8")]
    x = np.array([1.0, 0.3, -500.0, 3e-3], np.float32)
    assert convert_values(x, "float32", "float8_e4m3fn").tolist() == to_f8(x, "f8E4M3FN").tolist()
    bits = np.arange(256, dtype=np.uint8)
    assert np.array_equal(convert_values(bits, "float8_e5m2", "bfloat16"),
                          f32_to_bf16(f8_to_f32(bits, "f8E5M2")))


PAIRS = [("float32", "float8_e4m3fn"), ("float8_e4m3fn", "float32"), ("bfloat16", "float8_e5m2"),
         ("float8_e5m2", "float16"), ("float8_e4m3fn", "float8_e5m2"), ("float8_e5m2", "float8_e5m2")]


def _source(rng, dtype, shape):
    v = rng.standard_normal(shape).astype(np.float32) * 30
    if dtype == "float8_e4m3fn":
        return to_f8(v, "f8E4M3FN")
    if dtype == "float8_e5m2":
        return to_f8(v, "f8E5M2")
    if dtype == "bfloat16":
        return f32_to_bf16(v)
    return v.astype(dtype)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("sd, dd", PAIRS)
def test_converting_copy_of_fp8_views_matches_numpy(sd, dd, compiled, nvrtc_available):
    """A transposed, sliced fp8 (or to-fp8) copy: the program's loads, conversions and
    stores, run by the reference executor (compiled: its CUDA compiled by NVRTC first)."""
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(len(sd) * 7 + len(dd))
    src = _source(rng, sd, (9, 13)).T[1:12:2]                 # (6, 9), strided
    hold = {"bfloat16": np.uint16, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8}.get(dd, dd)
    dst = np.full((6, 9), 7, hold)
    copy_numpy(dst, src, src_dtype=sd, dst_dtype=dd, compiled=compiled,
               kernels=CopyKernels(arch="sm_90") if compiled else None)
    want = convert_values(np.ascontiguousarray(src), sd, dd).view(hold)
    assert np.array_equal(dst.view(np.uint8) if dst.itemsize == 1 else dst, want.view(np.uint8) if want.itemsize == 1 else want)


def test_cuda_of_fp8_copies_compiles_with_nvrtc():
    """tests/filecheck/distribute/convert_fp8.mlir through the default pipeline and the
    CUDA target: fp8 loads, stores, shared-memory round trips, extf and truncf."""
    import subprocess
    import sys
    from pathlib import Path

    from helpers.nvrtc import compile_sm90_or_skip

    path = Path(__file__).resolve().parents[1] / "filecheck" / "distribute" / "convert_fp8.mlir"
    out = subprocess.run([sys.executable, "-m", "tilec.tools.tilec", str(path), "-p", "default", "-t", "cuda"],
                         capture_output=True, text=True, check=True).stdout
    assert "#include <cuda_fp8.h>" in out and "tilec_to_f8e4m3(static_cast<double>(" in out
    result = compile_sm90_or_skip(out)
    assert result.ptx
