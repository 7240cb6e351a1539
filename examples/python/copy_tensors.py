"""tilec.copy_, tilec.permute and tilec.contiguous on PyTorch tensors and CuPy arrays.

    python examples/python/copy_tensors.py

One call per copy, whatever the strides: an NHWC -> NCHW permute (merged into a 2-D
transpose), a strided slice converted from float32 to bfloat16, a broadcast, and CuPy's
negative strides. Each result is checked bit for bit against the framework's own copy.
The kernels are compiled once per pattern (dtypes, merged rank, unit and zero strides,
16-byte divisibility, small extents) and the script prints how many it compiled.

Without a GPU the script runs the same programs (the very compiled kernels) on the CPU
reference executor with NumPy arrays (`tilec.copy_cpu.copy_numpy`) and says so.
"""

import numpy as np

import tilec
from tilec.copy_kernels import default_kernels


def on_gpu() -> str:
    import cupy as cp

    try:
        import torch
    except ImportError:
        torch = None
    lines = []
    if torch is not None and torch.cuda.is_available():
        x = torch.randn(8, 56, 56, 64, device="cuda")                 # NHWC
        y = tilec.permute(x, (0, 3, 1, 2))                            # NCHW, contiguous
        assert torch.equal(y, x.permute(0, 3, 1, 2))
        src = torch.randn(300, 500, device="cuda")[::3, 7:]           # strided, offset
        dst = torch.empty(src.shape, dtype=torch.bfloat16, device="cuda")
        tilec.copy_(dst, src)                                          # float32 -> bfloat16
        assert torch.equal(dst.view(torch.int16), src.to(torch.bfloat16).view(torch.int16))
        row = torch.arange(500.0, device="cuda")
        big = torch.empty(64, 500, device="cuda")
        tilec.copy_(big, row)                                          # broadcast
        assert torch.equal(big, row.expand(64, 500))
        lines.append("PyTorch: permute NHWC->NCHW, float32->bfloat16 strided copy, broadcast: identical to PyTorch")
    a = cp.arange(200 * 300, dtype=cp.float32).reshape(200, 300)
    b = tilec.contiguous(a[::-2, ::3])                                 # negative strides
    assert bool(cp.array_equal(b, a[::-2, ::3])) and b.flags.c_contiguous
    lines.append("CuPy: contiguous of a reversed, strided view: identical to CuPy")
    lines.append(f"kernels compiled: {default_kernels().stats.compiles}")
    return "\n".join(lines)


def on_cpu() -> str:
    from tilec.copy_cpu import copy_numpy
    from tilec.copy_kernels import CopyKernels

    kernels = CopyKernels(arch="sm_90")  # NVRTC compiles without a GPU
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 14, 14, 16)).astype(np.float32)      # NHWC
    y = np.empty((2, 16, 14, 14), np.float32)
    copy_numpy(y, x.transpose(0, 3, 1, 2), compiled=True, kernels=kernels)
    assert np.array_equal(y, x.transpose(0, 3, 1, 2))
    src = rng.standard_normal((90, 50)).astype(np.float32)[::3, 7:]
    dst = np.empty(src.shape, np.float16)
    copy_numpy(dst, src, compiled=True, kernels=kernels)              # float32 -> float16
    assert np.array_equal(dst, src.astype(np.float16))
    return (
        "no GPU found: ran the compiled kernels on the CPU reference executor\n"
        "permute NHWC->NCHW and a float32->float16 strided copy: identical to NumPy\n"
        f"kernels compiled: {kernels.stats.compiles}"
    )


print(on_gpu() if tilec.gpu_available() else on_cpu())
