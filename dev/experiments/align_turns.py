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

Prints, a shape: TFLOP/s per call, tilec's ratio to cuBLAS per call as the median of the
rounds' own ratios (least-most) and queued (median), and tilec's and cuBLAS's TFLOP/s against
their own at the first shape in the same rounds (median (least-most)): where the aligned
rows lift tilec's rate and not cuBLAS's, the misaligned boxes are tilec's cost.

Then, with `--compare "SHAPE=CFG+CFG;..."`, each shape's rule against those configurations
and cuBLAS in turns (`matmul_bench.compare`, the rule's same round as reference,
c_ring_turns.py's lines), `--compare-rounds` rounds each, in the time left.

    python dev/experiments/align_turns.py --seconds 20 --json OUT/align.json \
        --compare "3000x5000x7000=256x160x64:4:c32:ow:w128:sp:cl1x2:bp:wb"
"""

from __future__ import annotations

import argparse
import contextlib
import io
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
    ap.add_argument("--seconds", type=float, default=20.0, help="seconds of rounds (after the builds)")
    ap.add_argument("--rounds", type=int, default=60, help="at most this many rounds")
    ap.add_argument("--json")
    ap.add_argument("--compare", default="", help="SHAPE=CFG+CFG;...: after the rounds, each shape's rule "
                    "against these in turns")
    ap.add_argument("--compare-rounds", type=int, default=30)
    ap.add_argument("--end", type=float, default=60.0, help="seconds from the start for everything to end by")
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
        r, t1 = 0, time.time()
        while r < args.rounds and (r < 3 or time.time() - t1 < args.seconds):
            for key, t in mb.per_call_in_turns(fns, start=r).items():
                ms[key].append(t)
            for key in mb.rotated(list(fns), r):
                queued[key].append(mb.queued_ms(fns[key]))
            r += 1
        states.append(mb.gpu_state())
    names = list(flops)
    ref = names[0]
    print(f"== {r} rounds in {time.time() - t0:.0f} s; GPU (MHz W C reasons) {states[0]} -> {states[-1]}")
    print(f"shape: TFLOP/s tilec/cuBLAS per call; tilec/cuBLAS per call: rounds' median (range), queued: median"
          f" | rates over {ref}'s, same rounds: tilec, cuBLAS")
    rows = []
    for name in names:
        rate = {(x, q): [flops[name] / t / 1e9 for t in src[name, x]]
                for x in ("tilec", "cuBLAS") for q, src in (("ms", ms), ("queued", queued))}
        ref_rate = {(x, q): [flops[ref] / t / 1e9 for t in src[ref, x]]
                    for x in ("tilec", "cuBLAS") for q, src in (("ms", ms), ("queued", queued))}
        of = {q: [t / c for t, c in zip(rate["tilec", q], rate["cuBLAS", q])] for q in ("ms", "queued")}
        vs = {x: [s / f for s, f in zip(rate[x, "ms"], ref_rate[x, "ms"])] for x in ("tilec", "cuBLAS")}
        med = {key: statistics.median(v) for key, v in rate.items()}
        print(f"{name:<15}{med['tilec', 'ms']:4.0f}/{med['cuBLAS', 'ms']:4.0f} {spread(of['ms'])} "
              f"q {statistics.median(of['queued']):.3f}"
              + ("" if name == ref else f" | {spread(vs['tilec'])}, {spread(vs['cuBLAS'])}")
              + ("" if all(ok[name]) else "  NOT WITHIN THE BOUND"), flush=True)
        rows.append({"shape": name, "config": args.config, "ok": ok[name], "ms": {x: ms[name, x] for x in
                     ("tilec", "cuBLAS")}, "queued_ms": {x: queued[name, x] for x in ("tilec", "cuBLAS")},
                     "of_cublas": of, "rate_vs_first": vs})
    good = all(all(v) for v in ok.values())
    sys.path.insert(0, str(ROOT / "dev" / "experiments"))
    from c_ring_turns import line

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    compared = []
    real_state, calls = mb.gpu_state, [0]

    def state() -> str:  # nvidia-smi at a group's first and every 8th round only (its time)
        calls[0] += 1
        return real_state() if calls[0] % 8 == 1 else "-"

    mb.gpu_state = state
    for group in filter(None, args.compare.split(";")):
        shape, arms = group.split("=")
        calls[0] = 0
        if time.time() - t0 > args.end - 10:
            print(f"{shape}: not compared (time)")
            continue
        t1 = time.time()
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # compare's JSON lines (the rows are in --json)
                got = mb.compare([mb.shape_of(shape)], arms.split("+"), (), sms, args.compare_rounds)
        except Exception as e:  # noqa: BLE001 - reported; the next group still runs
            print(f"== {shape}: FAILED {type(e).__name__}: {str(e)[:300]}", flush=True)
            good = False
            continue
        cub = next(x for x in got if x["config"] == "cuBLAS")
        print(f"== {shape}: {args.compare_rounds} rounds in {time.time() - t1:.0f} s; rule {got[0]['config']}")
        print("\n".join(line(x, cub) for x in got), flush=True)
        good = good and all(x["ok"] for x in got)
        compared += got
    if args.json:
        Path(args.json).write_text(json.dumps({"states": states, "rounds": r, "rows": rows, "compared": compared},
                                              indent=1))
    print(f"done in {time.time() - t0:.0f} s; every result within the bound: {good}")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
