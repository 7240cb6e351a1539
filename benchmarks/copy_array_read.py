"""CPU micro-benchmark of the host work `tilec.copy_` does per call before it launches,
where no GPU is needed: reading its two arrays (`tensor_copy.as_array`, the launch
path's reader `runtime.launch.as_device_array` underneath) and finding the launcher of
the copy's structure (`copy_launch.structure`). The arrays are stand-ins with the
attributes CuPy's and PyTorch's arrays have, so the numbers are the front end's own,
without a framework (the cached call of two torch tensors skips both: its fast path is
`Launcher.fast_path`, benchmarks/host_probe.py times it on a GPU).

    python3 benchmarks/copy_array_read.py [--json OUT.json] [--md OUT.md]
"""

from __future__ import annotations

import argparse
import json
import time


class _Ptr:
    def __init__(self, ptr):
        self.ptr = ptr


class _Dev:
    def __init__(self, i):
        self.id = self.index = i


class _DType:
    def __init__(self, name, itemsize):
        self.name, self.itemsize = name, itemsize

    def __str__(self):
        return self.name


def _fake(module: str):
    """A class whose objects look like `module`'s arrays to `framework_of`."""
    if module == "cupy":
        class A:
            data = _Ptr(1 << 20)
            dtype = _DType("float32", 4)
            shape = (1024, 512)
            strides = (4, 4096)
            device = _Dev(0)
    else:
        class A:
            is_cuda = True
            dtype = "torch.float32"
            shape = (1024, 512)
            device = _Dev(0)

            def data_ptr(self):
                return 1 << 20

            def stride(self):
                return (1, 1024)

            def get_device(self):
                return 0
    A.__module__ = module
    return A()


def _time(fn, n: int = 20000, repeat: int = 5) -> float:
    """Best of `repeat` runs, nanoseconds per call."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json")
    ap.add_argument("--md")
    args = ap.parse_args()
    from tilec import tensor_copy
    from tilec.copy_launch import structure

    tensor_copy._torch_tensor = object  # no torch import: the stand-in is enough
    rows = []
    for framework in ("cupy", "torch"):
        obj = _fake(framework)
        a = tensor_copy.as_array("x", obj)
        rows.append((f"as_array ({framework})", _time(lambda: tensor_copy.as_array("x", obj))))
        rows.append((f"structure ({framework})", _time(lambda: structure(a.operand, a.operand))))
    for name, ns in rows:
        print(f"{name:24s} {ns:8.0f} ns")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({name: ns for name, ns in rows}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write("| step | ns per call |\n|---|---|\n")
            f.writelines(f"| {name} | {ns:.0f} |\n" for name, ns in rows)


if __name__ == "__main__":
    main()
