"""Paired A/B of a box copy's pipeline variants against the default Program, in turns in
one process (issue 35, box43): benchmarks/canonical_copy_bench.py's graph timing
(`run_case_graph`: copy_, the default Program, each variant, PyTorch and cudaMemcpy, each
over its rotated sets, 20 launches a graph, checked bit for bit first) with ROUNDS rounds
(default 15) of 3 samples each, the order rotated every round; per round the median of
each function's samples, so each variant is compared with the default Program of the
same round (a paired ratio: the clock and the power cap move both alike).

    python3 dev/experiments/box_prefetch_ab.py 'box flat' 'box rows' \
        --variant 'tile{box_prefetch=128}' --variant 'tile{box_prefetch=256}'

Prints per case and function: the median ratio to cudaMemcpy (all samples) and its spread
(max - min of the round medians over the median), then per variant the default Program's
time over the variant's per round: median [min, max] and how many rounds it won.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path[:0] = [os.path.join(ROOT, "benchmarks"), os.path.join(ROOT, "tests")]

ROUND_MEDIANS: dict = {}


def paired_interleaved(rounds: int):
    """compute_bench.interleaved with `rounds` rounds that keeps each round's medians in
    ROUND_MEDIANS (name -> [ms per launch, one a round])."""
    import compute_bench as cb

    def interleaved(fns: dict, sets: int, rounds_: int = rounds, samples_per_round: int = 3) -> dict:
        timers = {k: cb._timer(fn, sets) for k, fn in fns.items()}
        names = list(fns)
        samples: dict = {k: [] for k in names}
        ROUND_MEDIANS.clear()
        ROUND_MEDIANS.update({k: [] for k in names})
        for r in range(rounds_):
            for k in names[r % len(names):] + names[: r % len(names)]:
                t = [timers[k][0]() for _ in range(samples_per_round)]
                samples[k] += t
                ROUND_MEDIANS[k].append(statistics.median(t))
        out = {}
        for k in names:
            med = statistics.median(samples[k])
            out[k] = (med, (max(ROUND_MEDIANS[k]) - min(ROUND_MEDIANS[k])) / med, timers[k][1])
        return out

    return interleaved


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="+", help="substrings of canonical case names (the first match each)")
    ap.add_argument("--variant", action="append", default=[])
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("ROUNDS", "15")))
    args = ap.parse_args(argv)
    import compute_bench as cb
    import torch

    import canonical_copy_bench as ccb

    cb.interleaved = paired_interleaved(args.rounds)
    gen = torch.Generator(device="cuda").manual_seed(0)
    for name in args.names:
        case = next(c for c in ccb.cases(False) if name in c.name)
        row = ccb.run_case_graph(torch, case, gen, tuple(args.variant))
        torch.cuda.empty_cache()
        bad = [k for k in row if k.endswith("_exact") and not row[k]] + [k for k in row if k.endswith("_error")]
        print(f"== {case.name}: {args.rounds} rounds, memcpy {row['memcpy_tbps']:.3f} TB/s"
              f"{'  NOT EXACT/ERROR: ' + ', '.join(bad) if bad else ''}")
        for k in ROUND_MEDIANS:
            if k in ("memcpy", "torch"):
                continue
            per = [m / t for m, t in zip(ROUND_MEDIANS["memcpy"], ROUND_MEDIANS[k])]
            line = (f"  {k:34s} ratio {row[k + '_ratio']:.3f} spread {row[k + '_spread']:.3f}"
                    f" per-round {statistics.median(per):.3f} [{min(per):.3f}, {max(per):.3f}]")
            if k.startswith("variant"):
                gain = [p / v for p, v in zip(ROUND_MEDIANS["program"], ROUND_MEDIANS[k])]
                won = sum(g > 1 for g in gain)
                line += (f"  / default {statistics.median(gain):.4f} [{min(gain):.4f}, {max(gain):.4f}]"
                         f" won {won}/{len(gain)}")
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
