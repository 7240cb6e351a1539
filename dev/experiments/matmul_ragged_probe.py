"""Which ragged dimension costs `tilec.matmul` its speed (4000^3 at 0.59 of cuBLAS where
4096^3 is at 0.99): bf16 x @ w.t() at 4096^3 and with one dimension (or all) at 4000,
tilec beside torch.matmul, median of 20 CUDA-event-timed calls after warm-up.

    python3 dev/experiments/matmul_ragged_probe.py

An experiment: nothing of the product changes. One RESULT line per shape."""

import sys
from pathlib import Path

import torch

import tilec

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from gemm_bench import median_ms as timed  # noqa: E402 - one timing of a call for every benchmark

SHAPES = [(4096, 4096, 4096), (4000, 4096, 4096), (4096, 4000, 4096), (4096, 4096, 4000), (4000, 4000, 4000),
          (3968, 4096, 4096), (4096, 4096, 4032)]


for m, n, k in SHAPES:
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    t_tilec = timed(lambda: tilec.matmul(x, w.t()))
    t_cublas = timed(lambda: torch.matmul(x, w.t()))
    fl = 2 * m * n * k / 1e9
    print(f"RESULT {m}x{n}x{k} tilec {fl / t_tilec:.0f} TFLOP/s cuBLAS {fl / t_cublas:.0f} ratio {t_cublas / t_tilec:.2f}",
          flush=True)
