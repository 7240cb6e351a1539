"""Why 3000 x 5000 x 7000 runs at 0.69 of cuBLAS where 4000^3 runs at 0.96 (issue 39).
On the CPU both take 128x256x64:4:c128 and 4 persistent rounds on 132 SMs (480 tiles,
the last round 64% full, against 512 tiles and 88%), K rounded up to the 4 stages alike
(110 -> 112 steps, 63 -> 64): waves and K tails explain about 6% of the gap. What
differs besides: the rows of A (14000 bytes) and B (10000 bytes) are 16 bytes off a
32-byte sector (4000's 8000 bytes are not). This probe moves one dimension at a time
to a multiple of 128 (which fixes one operand's row alignment) and runs every
configuration of `tilec.gemm.CONFIGS` at 3000 x 5000 x 7000 (the rule forced, calls
forgotten between), tilec beside torch.matmul in one run.

    python3 dev/experiments/ragged_7000_probe.py [--json OUT.json]

An experiment: nothing of the product changes. One RESULT line per row, then a table."""

import argparse
import json
import sys
from pathlib import Path

import torch

import tilec
from tilec import gemm

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from gemm_bench import median_ms as timed  # noqa: E402 - one timing of a call for every benchmark

SHAPES = [(3000, 5000, 7000), (3072, 5120, 7168), (3000, 5120, 7168), (3072, 5000, 7168), (3072, 5120, 7000),
          (4000, 4000, 4000)]
"""One kernel compile each (and one per forced configuration): 8 in all, within 200 s."""


def row(m: int, n: int, k: int, config: str | None = None) -> dict:
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    wave = gemm._wave
    if config is not None:
        gemm._wave = lambda *args, _c=next(x for x in gemm.CONFIGS if x.name == config): _c
        gemm.forget_cached_calls()
    try:
        tilec.matmul(a, b, out=c)
        err = (c.double() - a.double() @ b.double()).abs().max().item()
        t = timed(lambda: tilec.matmul(a, b, out=c))
        chosen = gemm.choose_config(m, n, 132, k=k).name
    finally:
        gemm._wave = wave
        gemm.forget_cached_calls()
    tc = timed(lambda: torch.matmul(a, b, out=c))
    fl = 2 * m * n * k / 1e9
    r = {"shape": f"{m}x{n}x{k}", "config": chosen, "tilec_tflops": fl / t, "cublas_tflops": fl / tc,
         "ratio": tc / t, "max_abs_err": err}
    print("RESULT", json.dumps(r), flush=True)
    return r


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = [row(*s) for s in SHAPES]
    rows += [row(3000, 5000, 7000, c.name) for c in gemm.CONFIGS]
    print("| shape | config | tilec TFLOP/s | cuBLAS | ratio |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['shape']} | {r['config']} | {r['tilec_tflops']:.0f} | {r['cublas_tflops']:.0f} | {r['ratio']:.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
