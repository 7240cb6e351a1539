"""Variants of `tilec.copy_`'s kernels on cases of the generated strided set timed in
turns: each round times the tree's kernel and every variant's once (CUDA events, the
launches queued, `copy_bench.median_ms`), the order rotated a round, so that a clock
or power drift falls on all of them alike; each kernel checked bit for bit against
PyTorch first. Not a test.

    python3 dev/experiments/strided_turns.py --only 36,0 --rounds 5 fill=36/tiles_fill=1,0/tiles_fill=1
    python3 dev/experiments/strided_turns.py --canonical 'int8 8191' fill=tiles_fill:1

`--canonical`: canonical copies (tests/helpers/canonical_copies.py) by names' parts, `|`
between them, through `tilec.copy_` (routes apply to them; `NN/...` options name strided cases).
`--transpose`: transposes of a `base` of R x C (`SRC[->DST] RxC`, `|` between them; e.g.
`'float32 8192x8209|float16->float32 8191x8209'`), built as canonical copies are.
Cases run in that order: canonical, transposes, then the strided set's (`--only`).

VARIANT as dev/experiments/strided_variants.py's (`name=SPEC`: routes, `NN:tile`,
`NN@threads`, `NN/OPT=V`, `on:NN.MM`). Prints a line a case: the median over the rounds
of each kernel's ratio to cudaMemcpy of the same bytes, then of each variant's time
against the tree's in the same round (`x1.04`: 4% faster), its least and most.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
sys.path.insert(0, os.path.join(here, "..", "..", "tests"))
sys.path.insert(0, here)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--canonical", default="")
    ap.add_argument("--transpose", default="")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("variants", nargs="*")
    a = ap.parse_args()
    import copy_bench
    import strided_copy_bench as sb
    import torch
    from strided_variants import parse_variant, pipeline_of

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes

    variants = [parse_variant(v) for v in a.variants]
    cases = sb.generate_cases(0, 48, 64, 1024)
    gen = torch.Generator(device="cuda").manual_seed(0)
    todo: list = []
    if a.canonical:
        from helpers.canonical_copies import CANONICAL
        todo += [c for part in a.canonical.split("|") for c in CANONICAL if part in c.name][:8]
    for part in (x.strip() for x in a.transpose.split("|") if x.strip()):
        from helpers.canonical_copies import CanonicalCopy
        dtypes, extents = part.split()
        sd, _, dd = dtypes.partition("->")
        rows, cols = (int(x) for x in extents.split("x"))
        todo.append(CanonicalCopy(f"transpose {part}", sd, dd or sd, (rows, cols), (1, 0)))
    todo += [int(x) for x in a.only.split(",") if x]  # the strided cases last
    for i in todo:
        if isinstance(i, int):
            case = cases[i]
            src, dst_base, dst = sb._make(torch, case, gen)
            moved = case.bytes_read + case.bytes_written
        else:
            import canonical_copy_bench as cb
            case, i = i, i.name
            _, src, dst = cb._make(torch, case, gen)
            dst_base = dst
            moved = cb.bytes_moved(case)
        dst_base.fill_(77)
        ref_base = dst_base.clone()
        (ref_base[tuple(slice(*ix) for ix in case.dst_index)] if getattr(case, "dst_base", None) else ref_base).copy_(src)
        ref_bits = sb._bits(torch, ref_base)
        mc = copy_bench.memcpy_tbps(moved // 2)
        runs = {"tree": ({}, CopyKernels(disk=False))}
        for name, routes, tiles, threads, on in variants:
            applies = bool(routes) and (on is None or i in on or (not isinstance(i, int) and "T" in on))
            if applies or (isinstance(i, int) and (i in tiles or i in threads)):
                runs[name] = (routes if applies else {},
                              CopyKernels(disk=False, pipeline=pipeline_of(tiles.get(i), threads.get(i))))
        calls, exact = {}, {}
        for name, (routes, kern) in runs.items():
            def call(routes=routes, kern=kern):
                with forced_routes(**routes):
                    tensor_copy.copy_(dst, src, kernels=kern)
            dst_base.fill_(77)
            try:
                call()
                torch.cuda.synchronize()
            except Exception as e:  # a variant the views refuse: say so, go on
                print(f"{i} {name}: {type(e).__name__}: {str(e)[:120]}", flush=True)
                continue
            exact[name] = bool(torch.equal(sb._bits(torch, dst_base), ref_bits))
            calls[name] = call
        names = list(calls)
        times: dict[str, list[float]] = {n: [] for n in names}
        for r in range(a.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for n in order:
                times[n].append(sb._median(copy_bench, calls[n], a.reps))
        out = [f"{i:02d}" if isinstance(i, int) else i]
        for n in names:
            ratio = statistics.median(copy_bench.tbps(moved, t) / mc for t in times[n])
            out.append(f"{n} {ratio:.3f}{'' if exact[n] else '!'}")
        for n in names[1:]:
            rel = [t / v for t, v in zip(times["tree"], times[n])]
            out.append(f"{n}/tree x{statistics.median(rel):.3f} [{min(rel):.3f}, {max(rel):.3f}]")
        print(" | ".join(out), flush=True)
        del src, dst_base, dst, ref_base, ref_bits, calls
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
