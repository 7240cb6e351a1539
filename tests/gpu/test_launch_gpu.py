"""Kernels printed by the cuda target, compiled for the device and launched on random
data; outputs start poisoned (0xFF bytes) and must equal NumPy's exactly. Skipped where
no GPU is found (tests/conftest.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gpu_level_samples as S  # noqa: E402
from tilec.support.diagnostics import TilecError  # noqa: E402
from tilec.runtime.cache import KernelCache  # noqa: E402
from tilec.runtime.launch import ArgSpec, Kernel  # noqa: E402

pytestmark = pytest.mark.gpu

NUMPY_TYPES = {
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
}


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return KernelCache(tmp_path_factory.mktemp("kernel-cache"))


@pytest.fixture(scope="module")
def cp():
    import cupy

    return cupy


def random_bits(cp, n: int, dtype, seed: int = 0):
    """n elements of `dtype` with random bit patterns (NaNs included for floats)."""
    rng = np.random.default_rng(seed)
    host = rng.integers(0, 256, size=n * np.dtype(dtype).itemsize, dtype=np.uint8)
    return cp.asarray(host).view(dtype)


def poisoned(cp, n: int, dtype):
    return cp.full(n * np.dtype(dtype).itemsize, 0xFF, dtype=cp.uint8).view(dtype)


def same_bits(a, b) -> bool:
    return a.view(np.uint8).tobytes() == b.view(np.uint8).tobytes()


# ---------------------------------------------------------------- copies


@pytest.mark.parametrize("t", list(NUMPY_TYPES))
@pytest.mark.parametrize("n", [1, 1000, 4096, 4096 * 3 + 5])
def test_copy_1d(cp, cache, t, n):
    dtype = NUMPY_TYPES[t]
    kernel = Kernel(S.copy_1d(t), cache=cache)
    src = random_bits(cp, n, dtype, seed=n)
    extra = 64
    dst = poisoned(cp, n + extra, dtype)
    kernel(src, dst[:n], n)
    cp.cuda.runtime.deviceSynchronize()
    out = cp.asnumpy(dst)
    assert same_bits(out[:n], cp.asnumpy(src))
    assert same_bits(out[n:], np.full(extra * np.dtype(dtype).itemsize, 0xFF, np.uint8))


def test_transpose(cp, cache):
    rows, cols = 70, 100
    kernel = Kernel(S.transpose(rows, cols), cache=cache)
    src = cp.asarray(np.random.default_rng(1).standard_normal(rows * cols).astype(np.float32))
    dst = poisoned(cp, rows * cols, np.float32)
    kernel(src, dst)
    expected = cp.asnumpy(src).reshape(rows, cols).T.reshape(-1)
    assert same_bits(cp.asnumpy(dst), expected)


@pytest.mark.parametrize("t", ["f16", "f64", "i8"])
def test_transpose_other_dtypes(cp, cache, t):
    rows, cols = 40, 33
    dtype = NUMPY_TYPES[t]
    kernel = Kernel(S.transpose(rows, cols, t), cache=cache)
    src = random_bits(cp, rows * cols, dtype, seed=2)
    dst = poisoned(cp, rows * cols, dtype)
    kernel(src, dst)
    expected = cp.asnumpy(src).reshape(rows, cols).T.reshape(-1)
    assert same_bits(cp.asnumpy(dst), expected)


@pytest.mark.parametrize("t", list(NUMPY_TYPES))
def test_cp_async_staging(cp, cache, t):
    dtype = NUMPY_TYPES[t]
    blocks, block = 4, 128
    per_block = block * 16 // np.dtype(dtype).itemsize
    kernel = Kernel(S.cp_async_reverse(blocks, t, block), cache=cache)
    src = random_bits(cp, blocks * per_block, dtype, seed=3)
    dst = poisoned(cp, blocks * per_block, dtype)
    kernel(src, dst)
    expected = cp.asnumpy(src).reshape(blocks, per_block)[:, ::-1].reshape(-1)
    assert same_bits(cp.asnumpy(dst), expected)
    usage = kernel.resource_usage()["stage_kernel"]
    assert usage.shared_bytes == per_block * np.dtype(dtype).itemsize


@pytest.mark.parametrize("t", list(NUMPY_TYPES))
def test_warp_shuffle(cp, cache, t):
    dtype = NUMPY_TYPES[t]
    kernel = Kernel(S.warp_reverse(8, t), cache=cache)
    src = random_bits(cp, 256, dtype, seed=4)
    dst = poisoned(cp, 256, dtype)
    kernel(src, dst)
    expected = cp.asnumpy(src).reshape(8, 32)[:, ::-1].reshape(-1)
    assert same_bits(cp.asnumpy(dst), expected)


@pytest.mark.parametrize("t", ["f32", "i32", "i16"])
def test_vector_ops(cp, cache, t):
    dtype = NUMPY_TYPES[t]
    n = 100  # threads; 64 per block, so the second block is partly masked
    kernel = Kernel(S.vector_ops(t), cache=cache)
    rng = np.random.default_rng(5)
    if t == "f32":
        host = rng.standard_normal(4 * n).astype(dtype)
    else:
        host = rng.integers(-1000, 1000, size=4 * n).astype(dtype)
    src = cp.asarray(host)
    out = poisoned(cp, 4 * n + 8, dtype)
    kernel(src, out, n)
    x = host.reshape(n, 4)
    with np.errstate(over="ignore"):
        total = (x[:, 0] + x[:, 2]) + (x[:, 1] + x[:, 3])
    expected = np.stack([total, x[:, 0], np.where(x[:, 2] > x[:, 3], x[:, 2], x[:, 3]), total], 1)
    result = cp.asnumpy(out)
    assert same_bits(result[: 4 * n], expected.astype(dtype).reshape(-1))
    assert same_bits(result[4 * n :], np.full(8 * np.dtype(dtype).itemsize, 0xFF, np.uint8))


# ---------------------------------------------------------------- other array kinds


def test_torch_tensors_including_bf16(cache):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    for t, dtype in [("bf16", torch.bfloat16), ("f32", torch.float32), ("f16", torch.float16)]:
        kernel = Kernel(S.copy_1d(t), cache=cache)
        n = 5000
        src = torch.randn(n, device="cuda").to(dtype)
        dst = torch.full((n,), float("nan"), device="cuda").to(dtype)
        kernel(src, dst, n)
        torch.cuda.synchronize()
        assert torch.equal(src.view(torch.int16 if t != "f32" else torch.int32),
                           dst.view(torch.int16 if t != "f32" else torch.int32))
    kernel = Kernel(S.copy_1d("f32"), cache=cache)
    with pytest.raises(TilecError, match="argument 'src' is a host \\(PyTorch CPU\\) array"):
        kernel(torch.zeros(8), torch.zeros(8, device="cuda"), 8)
    with pytest.raises(TilecError, match="argument 'dst': expected float32, got bfloat16"):
        kernel(torch.zeros(8, device="cuda"), torch.zeros(8, device="cuda", dtype=torch.bfloat16), 8)


def test_cuda_array_interface_and_dlpack(cp, cache):
    kernel = Kernel(S.copy_1d("f32"), cache=cache)
    n = 777
    src = cp.arange(n, dtype=cp.float32)
    dst = poisoned(cp, n, np.float32)

    class Interface:
        def __init__(self, array):
            self.array = array
            self.__cuda_array_interface__ = array.__cuda_array_interface__

    class DLPackOnly:
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    kernel(Interface(src), DLPackOnly(dst), n)
    assert same_bits(cp.asnumpy(dst), cp.asnumpy(src))


# ---------------------------------------------------------------- errors, cache


def test_argument_errors_on_device(cp, cache):
    kernel = Kernel(S.copy_1d("f32"), cache=cache)
    a = cp.zeros(64, dtype=cp.float32)
    with pytest.raises(TilecError, match="argument 'src': expected float32, got float16"):
        kernel(a.astype(cp.float16), a, 64)
    with pytest.raises(TilecError, match=r"argument 'src' is a host \(NumPy\) array; pass a device array \(CuPy/PyTorch\)"):
        kernel(np.zeros(64, np.float32), a, 64)
    with pytest.raises(TilecError, match="argument 'dst': the kernel needs its address aligned to 16 bytes"):
        kernel(a[:60], a[1:61], 60)
    with pytest.raises(TilecError, match="argument 'src' is not contiguous"):
        kernel(a[::2], a[:32], 32)
    spec = Kernel(S.copy_1d("f32"), cache=cache, arg_specs=[ArgSpec("dst", min_elements=100)])
    with pytest.raises(TilecError, match="argument 'dst': the kernel accesses 100 elements, the array has 64"):
        spec(a, a, 64)


def test_second_kernel_compiles_nothing(cp, tmp_path):
    first = KernelCache(tmp_path)
    Kernel(S.copy_1d("i32"), cache=first)(cp.zeros(8, cp.int32), cp.zeros(8, cp.int32), 8)
    assert first.stats.compiles == 1
    second = KernelCache(tmp_path)
    kernel = Kernel(S.copy_1d("i32"), cache=second)
    src = cp.arange(8, dtype=cp.int32)
    dst = cp.zeros(8, dtype=cp.int32)
    kernel(src, dst, 8)
    assert (second.stats.compiles, second.stats.disk_hits) == (0, 1)
    assert cp.asnumpy(dst).tolist() == list(range(8))


def test_dynamic_shared_memory_past_48k(cp):
    """The Gluon tutorial's 128x128 in/out layouts: a 64 KiB conversion buffer, taken as
    dynamic shared memory with the kernel opted in to it."""
    import tilec

    path = Path(__file__).resolve().parents[1] / "filecheck" / "cuda" / "dynamic_smem.mlir"
    kernel = tilec.compile(tilec.parse(path.read_text(), path.name))
    src = cp.asarray(np.random.default_rng(3).standard_normal(256 * 256).astype(np.float32))
    dst = poisoned(cp, 256 * 256, np.float32)
    kernel(src, dst)
    expected = cp.asnumpy(src).reshape(256, 256).T.reshape(-1)
    assert same_bits(cp.asnumpy(dst), expected)
