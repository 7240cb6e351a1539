"""The copies of tests/gpu/test_tensor_copy_gpu.py::test_strided_set_patterns_in_small_match_torch_bit_for_bit
on the CPU: each compiles the one kernel of the strategy the GPU test expects (the
`copy-strategy` pass's choice, `helpers.canonical_copies.key_strategy`), and that
kernel's GPU-level code, run by the reference executor (`copy_numpy(compiled=True)`),
copies bit for bit as NumPy does, the padded dst's padding untouched.

The bases are 16-byte aligned, as a CUDA allocation is (the strategies read the
pointers' alignment). A change of the cost model that moves one of these copies to
another strategy fails here first, and the GPU test's expectation is then updated
with it.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.canonical_copies import key_strategy

from tilec.copy_cpu import copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_program import pass_tile
from tilec.dialects.conversions import convert_values
from tilec.dialects.dtypes import f32_to_bf16

HOLD = {"bfloat16": np.uint16, "bool": np.uint8}
"""How NumPy holds the dtypes it lacks."""


def _aligned(shape, dtype) -> np.ndarray:
    """A zeroed C-contiguous array whose first byte is 16-byte aligned."""
    hold = np.dtype(HOLD.get(dtype, dtype))
    n = int(np.prod(shape)) * hold.itemsize
    raw = np.zeros(n + 16, np.uint8)
    start = -raw.ctypes.data % 16
    return raw[start : start + n].view(hold).reshape(shape)


def _random(rng, dtype, shape) -> np.ndarray:
    """Random `dtype` values (floats small enough for every integer type) in an aligned base."""
    out = _aligned(shape, dtype)
    if dtype == "bool":
        out[...] = rng.random(shape) > 0.5
    elif dtype in ("int8", "int16", "uint8"):
        info = np.iinfo(dtype)
        out[...] = rng.integers(info.min, info.max, size=shape)
    else:
        v = np.clip(rng.standard_normal(shape).astype(np.float32) * 30, -120, 120)
        out[...] = f32_to_bf16(v) if dtype == "bfloat16" else v.astype(dtype)
    return out


CASES = [
    # (src dtype, dst dtype, base shape, permutation, dst shape (a broadcast), strategy)
    ("int8", "int8", (6, 37, 9, 19, 17), (2, 4, 0, 1, 3), None, "box<rows>"),
    ("int8", "int8", (21, 7, 12, 5, 31, 19), (5, 2, 4, 1, 3, 0), None, "tiled"),
    ("float16", "bfloat16", (42, 3, 5, 7, 181), (4, 2, 3, 0, 1), None, "box<tiles>"),  # converting
    ("bool", "bool", (19, 100003), (1, 0), None, "box<cols>"),
    ("bool", "int16", (1700, 2850), (1, 0), None, "box<tiles>"),  # case 23: converting
    ("int16", "int16", (1, 41440), None, (45, 41440), "gather"),
    ("bfloat16", "bfloat16", (1, 5, 1, 1123), None, (3, 5, 7, 1123), "realign"),  # case 38: the run form
    ("uint8", "uint8", (1, 259), None, (450, 259), "gather"),  # case 20: a padded row of 65-512
]


@pytest.mark.parametrize("sd, dd, base, perm, shape, strategy", CASES,
                         ids=[f"{c[0]}->{c[1]}-{c[5]}" for c in CASES])
def test_strided_set_in_small_strategy_and_bits(sd, dd, base, perm, shape, strategy, nvrtc_available):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(42)
    src = _random(rng, sd, base)
    src = src.transpose(perm) if perm else src
    shape = shape or src.shape
    out = _aligned(shape, dd)
    out[...] = 1 if dd == "bool" else np.array(77).astype(HOLD.get(dd, dd))  # poison
    kernels = CopyKernels(arch="sm_90", disk=False)
    copy_numpy(out, src, src_dtype=sd, dst_dtype=dd, compiled=True, kernels=kernels)
    keys = list(kernels._entries)
    assert [key_strategy(k) for k in keys] == [strategy]
    # box and realign programs take their pointers rounded down to 16 bytes (`CopyKey.aligned_pointers`)
    aligned = strategy.startswith("box") or strategy == "realign"
    assert [k.aligned_pointers for k in keys] == [aligned]
    assert aligned or pass_tile(keys[0])
    want = convert_values(np.ascontiguousarray(np.broadcast_to(src, shape)), sd, dd)
    assert np.array_equal(out.view(np.uint8), want.view(HOLD.get(dd, dd)).view(np.uint8))


def test_rows_of_254_into_rows_of_256_at_an_odd_offset_realign(nvrtc_available):
    """Case 16: the realign strategy; the padding keeps its poison."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    src = _random(np.random.default_rng(16), "int16", (31, 3, 11, 254))
    big = _aligned((31, 3, 11, 256), "int16")
    big[...] = 77
    want = big.copy()
    want[..., 1:255] = src
    kernels = CopyKernels(arch="sm_90", disk=False)
    copy_numpy(big[..., 1:255], src, compiled=True, kernels=kernels)
    keys = list(kernels._entries)
    assert [key_strategy(k) for k in keys] == ["realign"] and keys[0].aligned_pointers
    assert np.array_equal(big, want)
