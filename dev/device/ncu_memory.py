"""Nsight Compute figures of one memory-bound tilec kernel: a row kernel of
`examples/python/row_kernels.py` (issue 37) or a canonical copy through `tilec.copy_`
(issue 35), one launch profiled between `cudaProfilerStart`/`Stop` after two warm-up
calls (so neither the compile nor the first launch is profiled).

    device run (carry .whl): bash dev/device/ncu_memory.sh CASE ...

CASE: `rows:KIND:DTYPE:N:M` (e.g. rows:softmax:f16:50257:16384) or `copy:NAME` (the first
canonical copy whose name contains NAME, tests/helpers/canonical_copies.py). The
profiled process is `python3 dev/device/ncu_memory.py CASE`.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path[:0] = [os.path.join(ROOT, "benchmarks"), os.path.join(ROOT, "tests")]


def rows_call(kind: str, dtype: str, n: int, m: int):
    import cupy as cp
    import realistic_rows as rr

    key = rr.Key(kind, dtype, n)
    kernel = rr.compile_key(key)
    np_dtype = {"f32": "float32", "f16": "float16", "bf16": "float32"}[dtype]
    if dtype == "bf16":
        raise SystemExit("bf16 rows: profile f16 (the same kernel shape)")
    x = cp.random.standard_normal((m, n)).astype(np_dtype)
    y = cp.empty_like(x)
    w = cp.random.standard_normal(n).astype(np_dtype)
    b = cp.random.standard_normal(n).astype(np_dtype)
    vecs = {"softmax": (), "layer_norm": (w, b), "rms_norm": (w,), "cumsum": ()}[kind]
    return lambda: kernel(x, y, *vecs, m)


def copy_call(name: str):
    import torch
    import tilec
    from canonical_copy_bench import _make, cases

    case = next(c for c in cases(False) if name in c.name)
    _, src, dst = _make(torch, case, torch.Generator(device="cuda").manual_seed(0))
    return lambda: tilec.copy_(dst, src)


def main(case: str) -> None:
    import cupy as cp

    kind, _, rest = case.partition(":")
    if kind == "rows":
        k, dtype, n, m = rest.split(":")
        call = rows_call(k, dtype, int(n), int(m))
    elif kind == "copy":
        call = copy_call(rest)
    else:
        raise SystemExit(f"unknown case {case!r}: rows:KIND:DTYPE:N:M or copy:NAME")
    call()
    call()
    cp.cuda.runtime.deviceSynchronize()
    cp.cuda.runtime.profilerStart()
    call()
    cp.cuda.runtime.deviceSynchronize()
    cp.cuda.runtime.profilerStop()


if __name__ == "__main__":
    main(sys.argv[1])
