"""The host's time of one cached `tilec.matmul` call beside `torch.matmul`'s (cuBLAS),
on decode shapes (`x @ w.t()`, w (N, K) as `torch.nn.Linear` holds it): the time the
Python launch path costs per call, which for a decode GEMM (a few microseconds on the
GPU) is the call's time unless it is small.

    python3 benchmarks/matmul_host.py [--json OUT.json]     # on the GPU: host us per call
    python3 benchmarks/matmul_host.py --cpu-profile         # no GPU: Python calls per cached call

Host us: (also with A alternating between two tensors, so that every call's A is at
another address and its tensor map is rewritten) the median over 5 rounds of (wall time of 200 calls issued back to back) / 200,
the GPU synchronised before each round and not inside it (the calls queue; a launch
path that costs more than the kernel shows). `--cpu-profile` runs the launch path on
CPU stand-ins (tests/helpers/fake_torch.py: fake CUDA tensors, driver and kernels) and
prints cProfile's count of Python (and builtin) calls in one cached call and the
functions that make them: the count tests/unit/test_matmul_launch.py bounds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time

SHAPES = (("qkv", 1, 6144, 4096), ("o", 16, 4096, 4096), ("down", 64, 4096, 14336), ("gate_up", 128, 28672, 4096))
"""(name, M, N, K) of the GPU rows: Llama-3-8B projections at decode token counts."""


def host_us(fn, calls: int = 200, rounds: int = 5) -> float:
    import torch

    times = []
    for _ in range(rounds):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    torch.cuda.synchronize()
    return statistics.median(times)


def gpu_rows() -> list[dict]:
    import torch

    import tilec

    rows = []
    for name, m, n, k in SHAPES:
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        got = tilec.matmul(x, w.t())  # compiles (or reads the disk cache) and checks once
        ref = (x.double() @ w.double().t())
        err = ((got.double() - ref).abs() / (ref.abs() + 1)).max().item()
        t = host_us(lambda: tilec.matmul(x, w.t()))
        c = host_us(lambda: torch.matmul(x, w.t()))
        xs = itertools.cycle([x, x.clone()])  # A at another address each call: its tensor map rewritten
        moving = host_us(lambda: tilec.matmul(next(xs), w.t()))
        rows.append({"shape": name, "m": m, "n": n, "k": k, "tilec_host_us": round(t, 2),
                     "tilec_moving_a_host_us": round(moving, 2), "torch_host_us": round(c, 2),
                     "ratio": round(t / c, 2), "max_rel_err": err})
    return rows


def cpu_profile(top: int = 25) -> int:
    """The Python calls of one cached call on the CPU stand-ins (module doc)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
    import pytest
    from helpers.fake_torch import install, profile_call, tilec_calls

    import tilec

    with pytest.MonkeyPatch.context() as mp:
        fake = install(mp)
        t = fake.torch
        x, w = fake.matrix(1, 4096), fake.matrix(6144, 4096)
        tilec.matmul(x, w.t())
        tilec.matmul(x, w.t())
        x2 = fake.matrix(1, 4096)  # new pointers, same structure
        stats = profile_call(tilec.matmul, x2, w.t())
        calls = tilec_calls(stats)
        print(f"one cached tilec.matmul(x, w.t()), M = 1, N = 6144, K = 4096: {calls} calls "
              f"(the stand-ins' own calls left out; {stats.total_calls} with them), "
              f"{len(fake.launches)} launches so far, torch = {t.__name__}")
        stats.sort_stats("ncalls").print_stats(top)
        return calls


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--cpu-profile", action="store_true", help="count the Python calls of a cached call (no GPU)")
    args = ap.parse_args(argv)
    if args.cpu_profile:
        cpu_profile()
        return 0
    rows = gpu_rows()
    print("| shape | M | N | K | tilec host us | tilec host us, A moving | torch host us | tilec / torch | "
          "max rel err |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['shape']} | {r['m']} | {r['n']} | {r['k']} | {r['tilec_host_us']} | "
              f"{r['tilec_moving_a_host_us']} | {r['torch_host_us']} | {r['ratio']} | {r['max_rel_err']:.2e} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
