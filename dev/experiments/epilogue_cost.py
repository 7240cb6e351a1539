"""Where the GEMM epilogue's time goes: tilec.matmul at one shape with each epilogue
piece alone (bias, ReLU, SiLU, GELU, bias + each), against the plain GEMM, in one run.

    python3 dev/experiments/epilogue_cost.py [--shape 8192x28672x4096] [--json OUT]

Prints one line per epilogue: milliseconds (median of 20, CUDA events) and the overhead
over the plain GEMM. ReLU costs one max per element, so (bias + SiLU) - (bias + ReLU) is
SiLU's arithmetic and (bias) - (plain) the bias's loads and add."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))


def main() -> int:
    import torch
    from gemm_bench import median_ms

    import tilec

    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="8192x28672x4096")
    ap.add_argument("--json")
    args = ap.parse_args()
    m, n, k = (int(x) for x in args.shape.split("x"))
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=g)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    cases = {"plain": {}, "bias": {"bias": bias}}
    for act in ("relu", "silu", "gelu"):
        cases[act] = {"activation": act}
        cases[f"bias+{act}"] = {"bias": bias, "activation": act}
    rows = {}
    for name, kw in cases.items():
        tilec.matmul(a, b, out=c, **kw)
        rows[name] = median_ms(lambda kw=kw: tilec.matmul(a, b, out=c, **kw))
    base = rows["plain"]
    print(f"epilogue cost at {m}x{n}x{k} ({torch.cuda.get_device_name()})")
    for name, ms in rows.items():
        print(f"  {name:10s} {ms:7.3f} ms  {100 * (ms / base - 1):+6.1f}%")
    if args.json:
        Path(args.json).write_text(json.dumps({"shape": [m, n, k], "ms": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
