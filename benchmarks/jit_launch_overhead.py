"""Host time per call of a cached `@tilec.jit` launch (issue 36: about 90 us before the
launch cache; Triton's launcher takes 20-40 us).

    python benchmarks/jit_launch_overhead.py [--calls 20000] [--json OUT.json] [--md OUT.md]

On any machine (no GPU needed) it times the jit's own part of a launch, what
`JITFunction._prepare` does before the `Kernel` is called (binding the arguments,
the specialisation key, the flat kernel arguments), for a 3-argument kernel
(`y = x + 1` over n, BLOCK a constexpr):

- `cached`: a repeated call, served by the launch cache (`_call_facts`);
- `general`: the same call with the launch cache emptied each time (the path of a
  first call with these facts: specs, key, the kernel from memory);

each with tilec's `DeviceArray`s (a known device) and with `__cuda_array_interface__`
objects (no known device: the key adds the current device's architecture, asked
each call). With a GPU and PyTorch it also times the whole launch on torch tensors
(`add_one[grid](x, y, n, BLOCK=1024)`, no synchronisation per call: what Python
spends on it). A micro-benchmark, not a test: the numbers vary with the machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import tilec
from tilec.runtime.launch import DeviceArray


@tilec.jit
def add_one(x, y, n, BLOCK: tilec.constexpr):
    layout = tilec.BlockedLayout([4], [32], [4], [0])
    offs = tilec.program_id(0) * BLOCK + tilec.arange(0, BLOCK, layout)
    mask = offs < n
    tilec.store(y.ptr + offs, tilec.load(x.ptr + offs, mask=mask) + 1.0, mask=mask)


class InterfaceArray:
    """A device array known only by its `__cuda_array_interface__` (nothing allocated)."""

    def __init__(self, ptr: int, n: int):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": "<f4", "data": (ptr, False),
                                         "strides": None, "version": 3}


def _per_call_us(fn, calls: int) -> float:
    for _ in range(min(calls, 1000)):
        fn()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, time.perf_counter() - t0)
    return best / calls * 1e6


def cpu_cases(calls: int) -> list[dict]:
    """Per-call microseconds of `_prepare`, cached and general, for both kinds of arrays."""
    import tilec.runtime.nvrtc as nvrtc

    n = 1 << 20
    grid = (n // 1024,)
    out = []
    for kind, make in (("DeviceArray", lambda p: DeviceArray(p, "float32", (n,), (1,), 0, None)),
                       ("__cuda_array_interface__", lambda p: InterfaceArray(p, n))):
        x, y = make(0x7F0000000000), make(0x7F0000400000)
        arch = "sm_90" if kind == "DeviceArray" else None
        saved = nvrtc.device_arch
        if arch is None and not tilec.gpu_available():
            nvrtc.device_arch = lambda: "sm_90"  # no device to ask here: the answer an H100 gives
        try:
            add_one._prepare(grid, (x, y, n), {"BLOCK": 1024}, 4, arch)

            def cached():
                add_one._prepare(grid, (x, y, n), {"BLOCK": 1024}, 4, arch)

            def general():
                add_one._calls.clear()
                add_one._prepare(grid, (x, y, n), {"BLOCK": 1024}, 4, arch)

            for path, fn in (("cached", cached), ("general", general)):
                out.append({"arrays": kind, "path": path, "us_per_call": round(_per_call_us(fn, calls), 2)})
        finally:
            nvrtc.device_arch = saved
    return out


def gpu_case(calls: int) -> dict | None:
    """Per-call microseconds of a whole launch on torch tensors (None without a GPU)."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    n = 1 << 20
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    grid = (n // 1024,)
    add_one[grid](x, y, n, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.equal(y, x + 1)
    us = _per_call_us(lambda: add_one[grid](x, y, n, BLOCK=1024), calls)
    torch.cuda.synchronize()
    return {"arrays": "torch", "path": "launch", "us_per_call": round(us, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--json")
    ap.add_argument("--md")
    args = ap.parse_args(argv)
    rows = cpu_cases(args.calls)
    gpu = gpu_case(args.calls)
    if gpu is not None:
        rows.append(gpu)
    lines = ["| arrays | path | us per call |", "|---|---|---|"]
    lines += [f"| {r['arrays']} | {r['path']} | {r['us_per_call']} |" for r in rows]
    table = "\n".join(lines)
    print(table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write("`python3 benchmarks/jit_launch_overhead.py`: host time per cached @tilec.jit call\n\n" + table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
