"""Bias + SiLU (+ the bf16 cast) on pingpong kernels against the rule's plain GEMM, every
variant timed against the rule's one plain kernel in the same rounds (issue 39's goal:
the epilogue <= 3% over the plain GEMM at 8192 x 28672 x 4096; pingpong runs one consumer
warpgroup's epilogue under the other's K loop).

    python3 dev/experiments/pingpong_epilogue.py [--shapes 8192x28672x4096]
        [--variants /plain,/silu,128x128x64:4:pp/plain,128x128x64:4:pp/silu,...] [--rounds 10]

A variant is `CONFIG/EPILOGUE`: CONFIG a configuration's name (`benchmarks/matmul_bench.py`'s
`parse_config`: `128x128x64:4:pp`, `128x128x64:5:ppl`, ...; empty: the rule's), EPILOGUE
`plain`, `bias` or an activation (with the bias). Each round times every variant once per
call (its configuration forced, one untimed call, then CUDA events around each of three
calls) and queued (`queued_ms`), in an order rotated each round; the figures are medians
over the rounds, over the first variant, and the queued time over the first variant's in
the same round (paired), its median and quartiles over the rounds. Every result is checked against float64 within
docs/matmul.md's bound first (the output poisoned).

An experiment: nothing of the product changes."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from matmul_bench import forced, parse_config, queued_ms, rotated, within_bound  # noqa: E402

DEFAULT = "/plain,/silu,128x128x64:4:pp/plain,128x128x64:4:pp/silu"


def main() -> None:
    import torch

    import tilec
    from tilec import gemm

    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="8192x28672x4096")
    ap.add_argument("--variants", default=DEFAULT)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--budget", type=float, default=1e9, help="seconds of timing after which no round starts")
    ap.add_argument("--deadline", type=float, default=1e9,
                    help="seconds after the start past which no variant is compiled and no round starts")
    args = ap.parse_args()
    start = time.time()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for shape in args.shapes.split(","):
        m, n, k = (int(x) for x in shape.split("x"))
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
        bias = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=g)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        rule = gemm.choose_config(m, n, sms, k=k)
        fns, configs = {}, {}
        for v in args.variants.split(","):
            if time.time() - start > args.deadline * 0.7:
                print(f"{shape} {v}: left out (deadline)", flush=True)
                continue
            name, act = v.split("/")
            configs[v] = parse_config(name) if name else None
            kw = {} if act == "plain" else {"bias": bias, "activation": None if act == "bias" else act}
            fns[v] = lambda kw=kw: tilec.matmul(a, b, out=c, **kw)
            with forced(gemm, configs[v]):
                c.fill_(float("nan"))
                t0 = time.time()
                try:
                    fns[v]()
                    torch.cuda.synchronize()
                    ok = within_bound(c, a, b, kw.get("bias"), kw.get("activation"))
                except Exception as e:  # noqa: BLE001 - say it and leave the variant out
                    print(f"{shape} {v}: {type(e).__name__}: {str(e)[:200]}", flush=True)
                    del fns[v]
                    continue
                print(f"{shape} {v}: first call {time.time() - t0:.1f} s, {'ok' if ok else 'FAIL'}", flush=True)
        per, queued = {v: [] for v in fns}, {v: [] for v in fns}
        t0, done = time.time(), 0
        for r in range(args.rounds):
            if time.time() - t0 > args.budget or (done and time.time() - start > args.deadline):
                break
            done += 1
            for v in rotated(list(fns), r):
                with forced(gemm, configs[v]):
                    fns[v]()
                    for _ in range(3):
                        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                        torch.cuda.synchronize()
                        s.record()
                        fns[v]()
                        e.record()
                        e.synchronize()
                        per[v].append(s.elapsed_time(e))
                    queued[v].append(queued_ms(fns[v]))
        base = next(iter(fns))
        pm, qm = statistics.median(per[base]), statistics.median(queued[base])
        print(f"\n{shape}, rule {rule.name}, {done} rounds; over {base} ({pm:.4f} / {qm:.4f} ms)")
        print("| variant | ms per call | queued | over first per call | queued | queued, paired a round: median [p25, p75] |"
              "\n|---|---:|---:|---:|---:|---:|")
        for v in fns:
            p1, q1 = statistics.median(per[v]), statistics.median(queued[v])
            paired = sorted(100 * (x / y - 1) for x, y in zip(queued[v], queued[base]))
            lo, hi = quartiles(paired)
            print(f"| {v} | {p1:.4f} | {q1:.4f} | {100 * (p1 / pm - 1):+.2f}% | {100 * (q1 / qm - 1):+.2f}% "
                  f"| {statistics.median(paired):+.2f}% [{lo:+.2f}, {hi:+.2f}] |", flush=True)


def quartiles(xs: list[float]) -> tuple[float, float]:
    """The 25th and 75th percentiles of sorted `xs` (nearest rank)."""
    return xs[len(xs) // 4], xs[(3 * len(xs)) // 4 - (1 if len(xs) % 4 == 0 else 0)]


if __name__ == "__main__":
    main()
