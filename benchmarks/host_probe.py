"""Where the host time of a cached `tilec.copy_` goes (H100 probe for issue 20).

    python benchmarks/host_probe.py

A 32 x 32 f32 transpose, as in strided_copy_bench.py's host table: per call, host
time alone (200 calls, no synchronisation) and end to end (2000 calls), for tilec's
`copy_`, its cached call alone (`Launcher.fast_path`), its launch alone (`Launcher.launch_raw`), and PyTorch's `copy_`; then the
GPU time per kernel (CUDA events around 2000 launches of each).
"""

from __future__ import annotations

import time


def main() -> None:
    import torch

    import tilec
    from tilec import tensor_copy
    from tilec.copy_kernels import default_kernels

    x = torch.randn(32, 32, device="cuda").t()
    y = torch.empty(32, 32, device="cuda")
    tilec.copy_(y, x)
    torch.cuda.synchronize()
    launcher = next(iter(default_kernels().launchers.values()))
    dp, sp = y.data_ptr(), x.data_ptr()
    stream = torch._C._cuda_getCurrentRawStream(0)
    fast = launcher.fast_path(torch._C._cuda_getDevice, torch._C._cuda_getCurrentRawStream)

    def host(fn, n):
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        torch.cuda.synchronize()
        return dt / n * 1e6

    def gpu(fn, n=2000):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        fn()
        torch.cuda.synchronize()
        a.record()
        for _ in range(n):
            fn()
        b.record()
        b.synchronize()
        return a.elapsed_time(b) / n * 1e3

    import ctypes

    from cupy_backends.cuda.api import driver as cupy_driver

    launcher.launch_raw(dp, sp, 0, stream)
    _, handle, _ = launcher._calls[0][0]  # (the launch closure, CUfunction, slots)
    raw = launcher._raw[0][1]  # its RawLaunch: grid, block, packed params
    g, b = raw.grid, raw.block
    params = ctypes.addressof(raw._params)
    lib = ctypes.CDLL("libcuda.so.1")
    untyped = lib.cuLaunchKernel  # no argtypes: ctypes converts nothing
    boxed = [ctypes.c_void_p(handle)] + [ctypes.c_uint(v) for v in (*g, *b, raw.shared_mem)]
    boxed += [ctypes.c_void_p(stream), ctypes.c_void_p(params), ctypes.c_void_p(0)]
    libc = ctypes.CDLL(None)
    labs = libc.labs
    side = torch.cuda.Stream()

    cases = {
        "python no-op": lambda: None,
        "ctypes labs(1)": lambda: labs(1),
        "ctypes untyped boxed": lambda: untyped(*boxed),
        "cupy driver.launch": lambda: cupy_driver.launchKernel(handle, *g, *b, raw.shared_mem, stream, params, 0),
        "cupy launch side st": lambda: cupy_driver.launchKernel(
            handle, *g, *b, raw.shared_mem, side.cuda_stream, params, 0
        ),
        "tilec.copy_": lambda: tilec.copy_(y, x),
        "tensor_copy.copy_": lambda: tensor_copy.copy_(y, x),
        "launch_raw only": lambda: launcher.launch_raw(dp, sp, 0, stream),
        "fast_path only": lambda: fast(dp, sp),
        "torch copy_": lambda: y.copy_(x),
    }
    for name, case in cases.items():
        print(
            f"{name:18s} host/call: 200 calls {host(case, 200):5.1f} us, 2000 calls {host(case, 2000):5.1f} us; "
            f"events over 2000: {gpu(case):5.1f} us",
            flush=True,
        )
    assert torch.equal(y, x)


if __name__ == "__main__":
    main()
