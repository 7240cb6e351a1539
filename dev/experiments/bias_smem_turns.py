"""The bias staged in shared memory by the producer (`GemmConfig.bias_smem`, `:bsm`)
against today's bias loaded from global memory in the epilogue, at 8192 x 28672 x 4096
(issue 39's goal: bias + SiLU + cast <= 3% over the plain GEMM), timed in turns in one
process.

    python3 dev/experiments/bias_smem_turns.py [--shape 8192x28672x4096] [--budget 30]
        [--deadline 55] [--out DIR]

Variants: `plain` (the rule's configuration, no epilogue), then for bias + `silu`, the
bias alone and bias + `silu_tanh` the rule's configuration for that activation
(`choose_config(..., activation=)`: `:st1` for the SiLUs) as it is, with `:bsm` and with
`:bss` (the staged bias as the accumulators' start, `GemmConfig.bias_smem_start`; for
`silu_tanh` only `:bss`), compiled in that order; or those `--variant` names (the first
is the one the others' "over plain" is of: name it `plain`). Each
is run once with the output poisoned and checked against float64 within docs/matmul.md's
bound (`matmul_bench.within_bound`); variants not compiled by `--compile-by` seconds are
left out. Then rounds until `--budget` seconds of timing (or `--deadline` seconds since
the start): each round times every variant per call (`per_call_in_turns`: 3 calls each,
interleaved call by call, the order rotated; each variant's call through its own
prepared launch, `gemm._fast`) and queued (10 calls, rotated order); each round's figure
over the same round's `plain` and over its own baseline (`X:bsm`, `X:bss` over `X`); the table
gives medians over the rounds and their quartiles. Past the rounds, while time is left:
the `:bsm` kernels forced on odd shapes (block rows and columns past M and N, one trip of
K, more tiles than blocks), checked likewise. The rounds' figures go to
`--out`/bias_smem_rounds.json.

An experiment: nothing of the product changes."""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from gemm_bench import queued_ms  # noqa: E402
from matmul_bench import forced, gpu_state, parse_config, per_call_in_turns, rotated, within_bound  # noqa: E402

ODD = ((300, 1096, 776, "silu"), (1000, 392, 72, "silu_tanh"), (72, 136, 200, None), (2000, 8200, 520, "silu"))
"""The odd shapes the `:bsm` / `:bss` kernels are checked at after the rounds (M, N, K, activation)."""


def quartiles(xs: list[float]) -> tuple[float, float, float]:
    """Median, 25th and 75th percentiles (nearest rank) of `xs`."""
    s = sorted(xs)
    return statistics.median(s), s[len(s) // 4], s[min(len(s) - 1, (3 * len(s)) // 4)]


def main() -> None:
    start = time.time()
    import torch

    import tilec
    from tilec import gemm

    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="8192x28672x4096")
    ap.add_argument("--budget", type=float, default=30.0, help="seconds of rounds")
    ap.add_argument("--deadline", type=float, default=55.0, help="seconds since the start past which nothing starts")
    ap.add_argument("--out", default=".")
    ap.add_argument("--variant", action="append", default=[], help="LABEL=ACT@CONFIG (ACT: silu, silu_tanh, bias "
                    "or plain; CONFIG a matmul_bench name) in place of the default variants; `X:Y` is timed "
                    "over `X` too")
    ap.add_argument("--compile-by", type=float, default=32.0, help="seconds since the start past which no variant "
                    "is compiled")
    args = ap.parse_args()
    left = lambda: args.deadline - (time.time() - start)  # noqa: E731
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    m, n, k = (int(x) for x in args.shape.split("x"))
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=g)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)

    print("the rule: " + ", ".join(f"{act or 'plain'} {gemm.choose_config(m, n, sms, k=k, activation=act).name}"
                                   for act in (None, "silu", "silu_tanh")), flush=True)
    variants = {"plain": (gemm.choose_config(m, n, sms, k=k), None, False)}
    if args.variant:
        variants = {}
    for spec in args.variant:
        label, rest = spec.split("=")
        act, name = rest.split("@")
        variants[label] = (parse_config(name), None if act in ("bias", "plain") else act, act != "plain")
    defaults = (("silu", ("bsm", "bss")), (None, ("bss", "bsm")), ("silu_tanh", ("bss",)))
    for act, forms in () if args.variant else defaults:
        rule = gemm.choose_config(m, n, sms, k=k, activation=act)
        label = act or "bias"
        variants[label] = (rule, act, True)
        for f in forms:
            variants[f"{label}:{f}"] = (dataclasses.replace(rule, bias_smem=True, bias_smem_start=f == "bss",
                                                            name=f"{rule.name}:{f}"), act, True)
    fns, configs, checks = {}, {}, {}
    for v, (cfg, act, with_bias) in variants.items():
        if time.time() - start > args.compile_by:
            print(f"{v}: left out (compile deadline)", flush=True)
            continue
        kw = {"bias": bias, "activation": act} if with_bias else {}
        fn = lambda kw=kw: tilec.matmul(a, b, out=c, **kw)  # noqa: E731
        with forced(gemm, cfg):
            c.fill_(float("nan"))
            t0 = time.time()
            try:
                fn()
                torch.cuda.synchronize()
                ok = within_bound(c, a, b, kw.get("bias"), act)
            except Exception as e:  # noqa: BLE001 - say it and leave the variant out
                print(f"{v}: {type(e).__name__}: {str(e)[:160]}", flush=True)
                checks[v] = type(e).__name__
                continue
            fn()  # the call's prepared launch (`gemm._fast`), this variant's own from here on
            fast = dict(gemm._fast)
        if fast:
            call = lambda fn=fn, fast=fast: (setattr(gemm, "_fast", fast), fn())  # noqa: E731
        else:  # no prepared launch: the configuration forced for each call
            call = lambda fn=fn, cfg=cfg: (forced(gemm, cfg).__enter__(), fn())  # noqa: E731
        print(f"{v} ({cfg.name}): first call {time.time() - t0:.1f} s, {'ok' if ok else 'FAIL'}", flush=True)
        checks[v] = "ok" if ok else "FAIL"
        fns[v], configs[v] = call, cfg

    per = {v: [] for v in fns}
    queued = {v: [] for v in fns}
    states = [gpu_state()]
    t0, r = time.time(), 0
    while r < 5 or (time.time() - t0 < args.budget and left() > 12):  # at least 5 rounds
        # each variant's call through its own prepared launch (its `gemm._fast`, set before each call)
        for v, ms in per_call_in_turns(fns, start=r, reps=3, warmup=1).items():
            per[v].append(ms)
        for v in rotated(list(fns), r):
            queued[v].append(queued_ms(fns[v], reps=10, warmup=1))
        r += 1
        if r == 2:
            states.append(gpu_state())
    states.append(gpu_state())

    def rel(xs: list[float], ys: list[float], short: bool = False) -> str:
        med, lo, hi = quartiles([100 * (x / y - 1) for x, y in zip(xs, ys)])
        return f"{med:+.2f}" if short else f"{med:+.2f}% [{lo:+.2f}, {hi:+.2f}]"

    def base(v: str) -> str | None:  # `X:bsm` / `X:bss` -> `X`
        return v.split(":")[0] if ":" in v and v.split(":")[0] in fns else None

    head = (f"{m}x{n}x{k}, {r} rounds in {time.time() - t0:.0f} s; nvidia-smi (MHz W C reasons): "
            + " | ".join(states))
    print(f"\n{head}\n| variant | config | per call ms | over plain | over its baseline | queued ms | over plain "
          "| over baseline |\n|---|---|---:|---:|---:|---:|---:|---:|")
    for v in fns:
        b0 = base(v)
        print(f"| {v} | {configs[v].name} | {statistics.median(per[v]):.4f} | "
              f"{rel(per[v], per['plain']) if v != 'plain' else ''} | {rel(per[v], per[b0]) if b0 else ''} | "
              f"{statistics.median(queued[v]):.4f} | {rel(queued[v], queued['plain']) if v != 'plain' else ''} | "
              f"{rel(queued[v], queued[b0]) if b0 else ''} |", flush=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "bias_smem_rounds.json").write_text(json.dumps(
        {"shape": [m, n, k], "configs": {v: configs[v].name for v in fns}, "per_call_ms": per, "queued_ms": queued,
         "gpu_state": states}, indent=1))

    # the `:bsm` / `:bss` kernels on odd shapes, while time is left
    odd = []
    for v in [v for v in fns if ":" in v]:
        for mm, nn, kk, act in ODD:
            if act != variants[v][1]:
                continue
            if left() < 6:  # (a compile at an odd shape: a few seconds)
                odd.append(f"{v} {mm}x{nn}x{kk} left out")
                continue
            g2 = torch.Generator(device="cuda").manual_seed(mm + nn + kk)
            a2 = torch.randn(mm, kk, device="cuda", dtype=torch.bfloat16, generator=g2)
            b2 = torch.randn(kk, nn, device="cuda", dtype=torch.bfloat16, generator=g2)
            bias2 = torch.randn(nn, device="cuda", dtype=torch.bfloat16, generator=g2)
            c2 = torch.full((mm, nn), float("nan"), device="cuda", dtype=torch.bfloat16)
            try:
                with forced(gemm, configs[v]):
                    tilec.matmul(a2, b2, bias=bias2, activation=act, out=c2)
                    torch.cuda.synchronize()
                verdict = "ok" if within_bound(c2, a2, b2, bias2, act) else "FAIL"
            except Exception as e:  # noqa: BLE001 - say it and go on
                verdict = f"{type(e).__name__}: {str(e)[:80]}"
            odd.append(f"{v} {mm}x{nn}x{kk} {verdict}")
            print(f"odd {v} ({configs[v].name}) {mm}x{nn}x{kk} bias + {act}: {verdict}", flush=True)

    # the short form last (the call's stdout comes back as its last 1500 characters)
    print(f"\nSUMMARY {head}\nchecks at {m}x{n}x{k}: " + ", ".join(f"{v} {checks[v]}" for v in checks)
          + "\nodd shapes: " + ", ".join(odd)
          + "\nvariant: per call ms, % over plain, % over baseline [X:bsm, X:bss over X] | queued ms, over plain, "
          "over baseline (medians of the rounds' ratios)")
    for v in fns:
        b0 = base(v)
        print(f"{v}: {statistics.median(per[v]):.4f} {rel(per[v], per['plain'], True) if v != 'plain' else ''} "
              f"{rel(per[v], per[b0]) if b0 else ''} | {statistics.median(queued[v]):.4f} "
              f"{rel(queued[v], queued['plain'], True) if v != 'plain' else ''} "
              f"{rel(queued[v], queued[b0]) if b0 else ''}", flush=True)


if __name__ == "__main__":
    main()
