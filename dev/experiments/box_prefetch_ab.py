"""Paired A/B of a box copy's pipeline variants against the default Program, in turns in
one process (issue 35, box43): benchmarks/canonical_copy_bench.py's graph timing
(`run_case_graph`: copy_, the default Program, each variant, PyTorch and cudaMemcpy, each
over its rotated sets, 20 launches a graph, checked bit for bit first) with ROUNDS rounds
(default 15) of 3 samples each, the order rotated every round; per round the median of
each function's samples, so each variant is compared with the default Program of the
same round (a paired ratio: the clock and the power cap move both alike).

    python3 dev/experiments/box_prefetch_ab.py 'box flat' 'box rows' \
        --variant 'tile{box_prefetch=128}' --variant 'tile{box_prefetch=256}'
    python3 dev/experiments/box_prefetch_ab.py strided:36 strided:0 --route box_l1=0
    python3 dev/experiments/box_prefetch_ab.py 'transpose float64 8191' --route tiles_bytes=8

Prints per case and function: the median ratio to cudaMemcpy (all samples) and its spread
(max - min of the round medians over the median), then per variant the default Program's
time over the variant's per round: median [min, max] and how many rounds it won.
`--route` (api/copy_routes.py): `tilec.copy_` under the routes against copy_ as is, paired
the same way (a canonical case: beside the Program and its variants; `strided:N`, case N of
benchmarks/strided_copy_bench.py's set: copy_ alone).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path[:0] = [os.path.join(ROOT, "benchmarks"), os.path.join(ROOT, "tests"), HERE]

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


def strided_row(torch, n: int, routes: list[str], gen) -> dict:
    """Case `n` of benchmarks/strided_copy_bench.py's generated set through `tilec.copy_`,
    as is and under each `routes` (`name=value,...`, api/copy_routes.py; a fresh
    `CopyKernels(disk=False)` each), each checked bit for bit against PyTorch, then timed
    in turns with a cudaMemcpy of as many bytes (one tensor set: the cases are larger
    than L2)."""
    import compute_bench as cb
    import cupy as cp
    import strided_copy_bench as sb

    import tilec
    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes

    case = sb.generate_cases(0, 48, 64, 1024)[n]
    src, _, dst = sb._make(torch, case, gen)
    want = torch.empty_like(dst).copy_(src)
    moved = dst.numel() * (src.element_size() + dst.element_size())
    fns = {"copy": lambda i, s: tilec.copy_(dst, src)}
    for r in routes:
        kw = {k: int(v) if v.lstrip("-").isdigit() else v for k, v in (x.split("=") for x in r.split(",") if x)}
        kern = CopyKernels(disk=False)

        def fn(i, s, kw=kw, kern=kern):
            with forced_routes(**kw):
                tensor_copy.copy_(dst, src, kernels=kern)
        fns[f"variant {r}"] = fn
    row = {"case": f"strided {n:02d} {case.kind} {case.src_dtype}->{case.dst_dtype}"}
    for k, fn in fns.items():
        dst.fill_(0) if dst.dtype == torch.bool else dst.fill_(7)
        fn(0, None)
        torch.cuda.synchronize()
        row[f"{k}_exact"] = bool(torch.equal(dst, want))
    half = moved // 2
    a, b = (torch.empty(half, dtype=torch.uint8, device="cuda") for _ in range(2))
    fns["memcpy"] = lambda i, s: cp.cuda.runtime.memcpyAsync(b.data_ptr(), a.data_ptr(), half,
                                                             cp.cuda.runtime.memcpyDeviceToDevice,
                                                             0 if s is None else s.cuda_stream)
    for fn in fns.values():
        fn(0, None)
    torch.cuda.synchronize()
    timed = cb.interleaved(fns, 1)
    for k, (ms, spread, _) in timed.items():
        row[f"{k}_ratio"] = timed["memcpy"][0] / ms
        row[f"{k}_spread"] = spread
    row["memcpy_tbps"] = moved / timed["memcpy"][0] / 1e9
    row["program_ratio"] = row["copy_ratio"]  # (the paired column below compares with copy_)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="+", help="substrings of canonical case names (the first match each)")
    ap.add_argument("--variant", action="append", default=[])
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("ROUNDS", "15")))
    ap.add_argument("--route", action="append", default=[],
                    help="copy_ under these routes (name=value,...[@TEXT|TEXT2]: only for the names holding a"
                         " TEXT, `strided:N` its own), against copy_ as is (canonical names: also beside the"
                         " Program's variants)")
    args = ap.parse_args(argv)
    import compute_bench as cb
    import torch

    import canonical_copy_bench as ccb

    cb.interleaved = paired_interleaved(args.rounds)
    gen = torch.Generator(device="cuda").manual_seed(0)
    for name in args.names:
        if name.startswith("strided:"):
            routes = [r.split("@")[0] for r in args.route if ccb.variant_applies(r, name)]
            row = strided_row(torch, int(name.split(":")[1]), routes, gen)
            torch.cuda.empty_cache()
            bad = [k for k in row if k.endswith("_exact") and not row[k]]
            print(f"== {row['case']}: {args.rounds} rounds, memcpy {row['memcpy_tbps']:.3f} TB/s"
                  f"{'  NOT EXACT: ' + ', '.join(bad) if bad else ''}")
            for k in ROUND_MEDIANS:
                if k == "memcpy":
                    continue
                line = f"  {k:34s} ratio {row[k + '_ratio']:.3f} spread {row[k + '_spread']:.3f}"
                if k.startswith("variant"):
                    gain = [p / v for p, v in zip(ROUND_MEDIANS["copy"], ROUND_MEDIANS[k])]
                    line += (f"  / copy_ {statistics.median(gain):.4f} [{min(gain):.4f}, {max(gain):.4f}]"
                             f" won {sum(g > 1 for g in gain)}/{len(gain)}")
                print(line, flush=True)
            continue
        case = next((c for c in ccb.cases(False) if name in c.name), None)
        if case is None:  # the odd transposes outside the canonical set
            from odd_extra_bench import EXTRA

            case = next(c for c in EXTRA if name in c.name)
        row = ccb.run_case_graph(torch, case, gen, tuple(args.variant), tuple(args.route))
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
            if k.startswith("variant") or k.startswith("copy "):  # a Program variant / copy_ under a route
                ref = ROUND_MEDIANS["program" if k.startswith("variant") else "copy"]
                gain = [p / v for p, v in zip(ref, ROUND_MEDIANS[k])]
                won = sum(g > 1 for g in gain)
                line += (f"  / {'default' if k.startswith('variant') else 'copy_'} {statistics.median(gain):.4f}"
                         f" [{min(gain):.4f}, {max(gain):.4f}] won {won}/{len(gain)}")
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
