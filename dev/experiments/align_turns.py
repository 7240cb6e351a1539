"""Do B's (and A's) rows starting mid-sector cost the rule's 3000 x 5000 x 7000 kernel time?
(issue 39, b3k46.) One configuration (default: the rule's there) forced at shapes whose
row strides differ only in their alignment to the L2's 32-byte sectors, and cuBLAS at each,
all timed in turns in one process: every round times each (shape, tilec / cuBLAS) call
interleaved with all the others (`per_call_in_turns`, the order rotated a round), then each
queued (`queued_ms`, rotated). Every tilec result is first checked against float64
(`within_bound`). The shapes keep the rule's tiles and K steps (12 x 32 tiles of 256 x 160,
110 steps of 64), so the work differs only by the FLOPs (<= 0.3%):

- 3000 x 5000 x 7000: A's 14000-byte rows and B's and C's 10000-byte rows: every second
  row starts 16 bytes into a sector;
- 3000 x 5008 x 7000, 3000 x 4992 x 7000: B's and C's rows whole sectors (A's not);
- 3000 x 5000 x 7008: A's rows whole sectors (B's and C's not);
- 3000 x 5008 x 7008: every row whole sectors.

Prints, a shape: TFLOP/s per call / queued, tilec's ratio to cuBLAS per call / queued as
the median of the rounds' own ratios (least-most), and tilec's and cuBLAS's TFLOP/s against
their own at the first shape in the same rounds (median (least-most)): where the aligned
rows lift tilec's rate and not cuBLAS's, the misaligned boxes are tilec's cost.

    python dev/experiments/align_turns.py --budget 50 --json OUT/align.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULE_3K = "256x160x64:4:c32:ow:w128:sp:cl1x2:bp"
SHAPES = "3000x5000x7000,3000x5008x7000,3000x4992x7000,3000x5000x7008,3000x5008x7008"


def spread(xs: list[float]) -> str:
    """`median (least-most)` of `xs`, three decimals."""
    return f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=RULE_3K, help="the configuration forced at every shape")
    ap.add_argument("--shapes", default=SHAPES, help="MxNxK,...; the first is the reference of the rates")
    ap.add_argument("--budget", type=float, default=50.0, help="seconds from the start for the rounds to end by")
    ap.add_argument("--rounds", type=int, default=60, help="at most this many rounds")
    ap.add_argument("--json")
    args = ap.parse_args()
    t0 = time.time()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import matmul_bench as mb
    import torch

    import tilec
    from tilec import gemm

    print(f"import {time.time() - t0:.0f} s; {args.config} forced at each shape", flush=True)
    shapes = [mb.parse_size(s) for s in args.shapes.split(",")]
    fns, flops, ok = {}, {}, {}
    with mb.forced(gemm, mb.parse_config(args.config)):
        for m, n, k in shapes:
            name = f"{m}x{n}x{k}"
            g = torch.Generator(device="cuda").manual_seed(m + n + k)
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
            b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            ct = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            tilec.matmul(a, b, out=c)  # compiled and its call cached with the forced configuration
            torch.matmul(a, b, out=ct)
            torch.cuda.synchronize()
            ok[name] = (mb.within_bound(c, a, b), mb.within_bound(ct, a, b))
            flops[name] = 2.0 * m * n * k
            fns[name, "tilec"] = lambda a=a, b=b, c=c: tilec.matmul(a, b, out=c)
            fns[name, "cuBLAS"] = lambda a=a, b=b, ct=ct: torch.matmul(a, b, out=ct)
            print(f"{name}: built and checked at {time.time() - t0:.0f} s (tilec, cuBLAS within the bound: "
                  f"{ok[name]})", flush=True)
        states = [mb.gpu_state()]
        ms: dict = {key: [] for key in fns}
        queued: dict = {key: [] for key in fns}
        r = 0
        while r < args.rounds and (r < 3 or time.time() - t0 < args.budget):
            for key, t in mb.per_call_in_turns(fns, start=r).items():
                ms[key].append(t)
            for key in mb.rotated(list(fns), r):
                queued[key].append(mb.queued_ms(fns[key]))
            r += 1
        states.append(mb.gpu_state())
    names = list(flops)
    ref = names[0]
    print(f"== {r} rounds in {time.time() - t0:.0f} s; GPU (MHz W C reasons) {states[0]} -> {states[-1]}")
    print(f"shape: TFLOP/s tilec/cuBLAS per call, queued | tilec/cuBLAS per call, queued: rounds' median (range)"
          f" | TFLOP/s over {ref}'s in the same rounds: tilec, cuBLAS (per call)")
    rows = []
    for name in names:
        rate = {(x, q): [flops[name] / t / 1e9 for t in src[name, x]]
                for x in ("tilec", "cuBLAS") for q, src in (("ms", ms), ("queued", queued))}
        ref_rate = {(x, q): [flops[ref] / t / 1e9 for t in src[ref, x]]
                    for x in ("tilec", "cuBLAS") for q, src in (("ms", ms), ("queued", queued))}
        of = {q: [t / c for t, c in zip(rate["tilec", q], rate["cuBLAS", q])] for q in ("ms", "queued")}
        vs = {x: [s / f for s, f in zip(rate[x, "ms"], ref_rate[x, "ms"])] for x in ("tilec", "cuBLAS")}
        med = {key: statistics.median(v) for key, v in rate.items()}
        print(f"{name:<15} {med['tilec', 'ms']:4.0f}/{med['cuBLAS', 'ms']:4.0f}, {med['tilec', 'queued']:4.0f}/"
              f"{med['cuBLAS', 'queued']:4.0f} | {spread(of['ms'])}, {spread(of['queued'])}"
              + ("" if name == ref else f" | {spread(vs['tilec'])}, {spread(vs['cuBLAS'])}")
              + ("" if all(ok[name]) else "  NOT WITHIN THE BOUND"), flush=True)
        rows.append({"shape": name, "config": args.config, "ok": ok[name], "ms": {x: ms[name, x] for x in
                     ("tilec", "cuBLAS")}, "queued_ms": {x: queued[name, x] for x in ("tilec", "cuBLAS")},
                     "of_cublas": of, "rate_vs_first": vs})
    if args.json:
        Path(args.json).write_text(json.dumps({"states": states, "rounds": r, "rows": rows}, indent=1))
    good = all(all(v) for v in ok.values())
    print(f"done in {time.time() - t0:.0f} s; every result within the bound: {good}")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
