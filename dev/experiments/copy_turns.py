"""Routes of `tilec.copy_` timed in turns on cases of the generated strided set: the
same buffers, each variant compiled once (a fresh `CopyKernels(disk=False)`), checked
bit for bit against PyTorch, then timed in `--rounds` rounds, each round every variant
once (the order rotated a round), so that the clock's drift falls on all of them. Not a
test.

    python3 dev/experiments/copy_turns.py --only 38,13 --rounds 3 base= n=narrow32:1

A variant is `name=SPEC` as in strided_variants.py (routes only: `narrow32:1`,
`gather:always`, `on:NN.MM` the cases they apply to; a case it does not apply to is not
run under it). Printed per case: each variant's
median ratio to cudaMemcpy over the rounds, its spread (max - min), and each variant's
ratio to the first one's (`x`), a `!` after a result that was not exact.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
sys.path.insert(0, here)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", required=True)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("variants", nargs="+")
    a = ap.parse_args()
    import copy_bench
    import strided_copy_bench as sb
    import torch
    from strided_variants import parse_variant

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes

    variants = [parse_variant(v) for v in a.variants]
    cases = sb.generate_cases(0, 48, 64, 1024)
    gen = torch.Generator(device="cuda").manual_seed(0)
    for i in (int(x) for x in a.only.split(",")):
        case = cases[i]
        src, dst_base, dst = sb._make(torch, case, gen)
        ref_base = dst_base.clone()
        ref_base.fill_(77)
        (ref_base[tuple(slice(*ix) for ix in case.dst_index)] if case.dst_base else ref_base).copy_(src)
        ref_bits = sb._bits(torch, ref_base)
        moved = case.bytes_read + case.bytes_written
        mc = copy_bench.memcpy_tbps(moved // 2)
        runs = []
        for name, routes, _, _, on in variants:
            if on is not None and i not in on:  # not this case's variant
                continue
            r = routes
            kern = CopyKernels(disk=False)

            def fn(kern=kern, r=r):
                with forced_routes(**r):
                    tensor_copy.copy_(dst, src, kernels=kern)

            dst_base.fill_(77)
            try:
                fn()
                torch.cuda.synchronize()
            except Exception as e:  # a variant the views refuse: say so, go on
                print(f"{i:02d} {name}: {type(e).__name__}: {str(e)[:120]}", flush=True)
                continue
            ok = bool(torch.equal(sb._bits(torch, dst_base), ref_bits))
            runs.append((name, fn, ok, []))
        for rnd in range(a.rounds):
            k = rnd % len(runs)
            for name, fn, ok, got in runs[k:] + runs[:k]:
                got.append(copy_bench.tbps(moved, sb._median(copy_bench, fn, a.reps)) / mc)
        first = statistics.median(runs[0][3])
        cells = []
        for name, fn, ok, got in runs:
            m = statistics.median(got)
            xs = [g / f for g, f in zip(got, runs[0][3])]  # a round's ratio to the first variant
            cells.append(f"{name}={m:.3f}{'' if ok else '!'}(+-{max(got) - min(got):.3f},x{m / first:.3f}"
                         f"[{min(xs):.3f},{max(xs):.3f}])")
        print(f"{i:02d} " + " ".join(cells), flush=True)
        del src, dst_base, dst, ref_base, ref_bits
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
