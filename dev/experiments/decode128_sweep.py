"""The decode rule at M = 128 (issue 39: Llama's QKV 0.71 of cuBLAS with
128x128x64:4:splitK2, O 0.75 and down 0.81 with splitK4, gate_up 1.01 with 128x256):
each shape with the configurations near the rule's pick (the split-K tile split S ways,
and the wave rule's tile), forced one at a time, tilec beside torch.matmul in one run
(x @ w.t(), w as torch.nn.Linear holds it). `decode_cost` counts only the bytes of B a
multiprocessor streams; at M = 128 a unit's tensor-core time is about as long (QKV:
6.4 GFLOP, 9 us at 700 TFLOP/s, against 50 MB, 10.5 us at 4.8 TB/s) and 48 tiles split
2 ways leave 36 of 132 SMs idle: the table says which term the rule lacks.

    python3 dev/experiments/decode128_sweep.py [--json OUT.json]

An experiment: nothing of the product changes. One RESULT line per row, then a table;
stops starting rows after 170 s (each row compiles a kernel)."""

import argparse
import json
import sys
import time
from pathlib import Path

import torch

import tilec
from tilec import gemm

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from gemm_bench import median_ms as timed  # noqa: E402 - one timing of a call for every benchmark

SHAPES = {"qkv": (6144, 4096, (0, 2, 3, 4)), "o": (4096, 4096, (2, 3, 4, 6)),
          "down": (4096, 14336, (3, 4, 6, 8)), "gate_up": (28672, 4096, (0, 2))}
"""name: (N, K, the splits of the 128 x 128 split-K tile to try; 0: the wave rule's tile)."""


def config(n: int, k: int, split: int) -> gemm.GemmConfig:
    """The wave rule's tile at M = 128 (split 0), else the split-K tile split `split` ways."""
    if split == 0:
        from tilec.support.target import target

        return gemm._wave(128, n, 132, target("sm_90a"), False, False)
    return next(c for c in gemm.splits(gemm.SPLIT_K_TILES[1], k) if c.split_k == split)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args()
    started, rows, m = time.time(), [], 128
    for name, (n, k, splits) in SHAPES.items():
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        tc = timed(lambda: torch.matmul(x, w.t(), out=c))  # noqa: B023 - run now
        rule = gemm.choose_config(m, n, 132, k=k, b_kmajor=True).name
        for s in splits:
            if time.time() - started > 170:
                break
            cfg = config(n, k, s)
            saved = gemm._decode_config
            gemm._decode_config = lambda *a, _c=cfg: _c
            gemm.forget_cached_calls()
            try:
                tilec.matmul(x, w.t(), out=c)
                err = (c.double() - x.double() @ w.double().t()).abs().max().item()
                t = timed(lambda: tilec.matmul(x, w.t(), out=c))  # noqa: B023 - run now
            finally:
                gemm._decode_config = saved
                gemm.forget_cached_calls()
            fl, nbytes = 2 * m * n * k, 2 * (m * k + n * k + m * n)
            r = {"shape": f"{name} {m}x{n}x{k}", "config": cfg.name, "rule": cfg.name == rule,
                 "tilec_tflops": fl / t / 1e9, "tilec_gbs": nbytes / t / 1e6, "cublas_tflops": fl / tc / 1e9,
                 "ratio": tc / t, "max_abs_err": err}
            rows.append(r)
            print("RESULT", json.dumps(r), flush=True)
    print(f"\ndecode M = 128, bf16, {time.time() - started:.0f} s")
    print("| shape | config | rule's | tilec TFLOP/s | GB/s | cuBLAS TFLOP/s | ratio |\n|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['shape']} | {r['config']} | {'*' if r['rule'] else ''} | {r['tilec_tflops']:.0f} | "
              f"{r['tilec_gbs']:.0f} | {r['cublas_tflops']:.0f} | {r['ratio']:.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
