"""What each part of `tilec.matmul`'s epilogue costs over the plain GEMM at 8192 x 28672 x
4096 bf16 (the benchmark's epilogue shape; issue 39's goal: bias + SiLU + cast <= 3%):
plain, + bias, + bias + ReLU, SiLU alone, + bias + SiLU, + bias + GELU, + bias + SiLU +
residual, each timed beside the plain GEMM in one run (median of CUDA-event-timed calls
after warm-up), bias + SiLU checked against float64 within docs/matmul.md's bound.

    python3 dev/experiments/epilogue_cost.py [--json OUT.json] [--only plain,bias+silu]
        [--config 128x128x64:4:pp]

`--config` forces one of `tilec.gemm.CONFIGS` for every call (as
tests/gpu/test_matmul_gpu.py's `test_every_configuration_runs` does): the pingpong
schedule computes one consumer's epilogue under the other's wgmma.

An experiment: nothing of the product changes. One line per epilogue, then a table."""

import argparse
import json
import sys
from pathlib import Path

import torch

import tilec

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from gemm_bench import median_ms as timed  # noqa: E402 - one timing of a call for every benchmark
from matmul_bench import within_bound  # noqa: E402

VARIANTS = {
    "plain": {},
    "bias": {"bias": True},
    "bias+relu": {"bias": True, "activation": "relu"},
    "silu": {"activation": "silu"},
    "bias+silu": {"bias": True, "activation": "silu"},
    "bias+gelu": {"bias": True, "activation": "gelu"},
    "bias+silu+res": {"bias": True, "activation": "silu", "residual": True},
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--only", help=f"comma-separated epilogues to time, of {', '.join(VARIANTS)} (default: all)")
    ap.add_argument("--config", help="force one of tilec.gemm.CONFIGS by name (default: the rule's choice)")
    args = ap.parse_args()
    if args.config:
        from tilec import gemm

        forced = next((c for c in gemm.CONFIGS if c.name == args.config), None)
        if forced is None:
            ap.error(f"--config: expected one of {', '.join(c.name for c in gemm.CONFIGS)}")
        gemm.choose_config = lambda *a, **kw: forced
    only = args.only.split(",") if args.only else list(VARIANTS)
    if unknown := [v for v in only if v not in VARIANTS]:
        ap.error(f"--only: unknown epilogue {unknown[0]!r}; expected some of {', '.join(VARIANTS)}")
    m, n, k = 8192, 28672, 4096
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=g)
    res = torch.randn(m, n, device="cuda", dtype=torch.bfloat16, generator=g)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    tilec.matmul(a, b, bias=bias, activation="silu", out=c)
    ok = within_bound(c, a, b, bias, "silu")
    rows = []
    for name, kw in VARIANTS.items():
        if name not in only:
            continue
        call = {"activation": kw.get("activation"), "bias": bias if kw.get("bias") else None,
                "residual": res if kw.get("residual") else None}
        t_plain = timed(lambda: tilec.matmul(a, b, out=c))
        t = timed(lambda: tilec.matmul(a, b, out=c, **call))  # noqa: B023 - run now
        rows.append({"epilogue": name, "ms": t, "plain_ms": t_plain, "overhead": t / t_plain - 1})
        print(json.dumps(rows[-1]), flush=True)
    t_cublas = timed(lambda: torch.matmul(a, b))
    print(f"\n8192x28672x4096 bf16, cuBLAS plain {t_cublas:.3f} ms; bias+silu within bound: {ok}")
    print("| epilogue | ms | plain ms | overhead |\n|---|---|---|---|")
    for r in rows:
        print(f"| {r['epilogue']} | {r['ms']:.3f} | {r['plain_ms']:.3f} | {100 * r['overhead']:+.1f}% |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "cublas_ms": t_cublas, "ok": ok}, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
