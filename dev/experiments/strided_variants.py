"""Variants of `tilec.copy_`'s kernels on cases of the generated strided set, timed
side by side on the bench's own tensors (benchmarks/strided_copy_bench.py's
allocation, `_make`), each checked bit for bit against PyTorch. Not a test.

    python3 dev/experiments/strided_variants.py --only 41,36 VARIANT ...

A variant is `name=SPEC`, SPEC a comma-separated list of
  - `route:value` (api/copy_routes.py: `gather:always`, `realign:never`, `box:never`,
    `realign_threads:256`, ...), in force while the variant compiles and runs, and
  - `NN:t0.t1...` (a case number and a tile): the `tile` pass given that tile
    (`tile{tile=...}`) for case NN, and `NN@T` its threads (`tile{threads=T}`),
    `NN/OPT=V` any other `tile` option for case NN (`00/tiles_run=288`),
  - `on:NN.MM...`: the cases its routes apply to (default: every case); `T` among them
    (`on:23.T`): strided_turns.py's canonical copies and transposes too.
Each variant compiles with a fresh `CopyKernels(disk=False)`. A case a variant names
no tile or threads for, and that its routes do not apply to, is not run again under
it ("-"). The table at the
end: tilec (the tree's default), PyTorch and each variant, as ratios to cudaMemcpy.
"""

from __future__ import annotations

import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))


def parse_variant(spec: str) -> tuple[str, dict, dict, dict, set | None]:
    """(name, routes, tiles by case, threads by case, the cases the routes apply to or
    None: all) of `name=SPEC` (module doc); a tile `NN/OPT=V` option goes into
    threads by case as `(T or None, {OPT: V, ...})`."""
    name, _, body = spec.partition("=")
    on: set | None = None
    routes: dict = {}
    tiles: dict = {}
    threads: dict = {}
    for item in (x for x in body.split(",") if x):
        if "/" in item:
            case, opt = item.split("/")
            t, extra = threads.get(int(case), (None, {})) if isinstance(threads.get(int(case)), tuple) else \
                (threads.get(int(case)), {})
            k, v = opt.split("=")
            extra[k] = v
            threads[int(case)] = (t, extra)
            continue
        if "@" in item:
            case, t = item.split("@")
            old = threads.get(int(case))
            threads[int(case)] = (int(t), old[1]) if isinstance(old, tuple) else int(t)
            continue
        k, v = item.split(":")
        if k == "on":
            on = {int(x) if x.isdigit() else x for x in v.split(".")}
        elif k.isdigit():
            tiles[int(k)] = tuple(int(x) for x in v.split("."))
        else:
            routes[k] = int(v) if v.isdigit() else v
    return name, routes, tiles, threads, on


def pipeline_of(tile: tuple[int, ...] | None, threads) -> str:
    """The default pipeline with the `tile` pass given `tile` and `threads` (an int, or
    `(threads or None, {option: value})`)."""
    from tilec.compiler.pipeline import expand_pipeline

    opts = []
    extra: dict = {}
    if isinstance(threads, tuple):
        threads, extra = threads
    if tile:
        opts.append("tile=" + ",".join(map(str, tile)))
    if threads:
        opts.append(f"threads={threads}")
    opts += [f"{k}={v}" for k, v in extra.items()]
    if not opts:
        return "default"
    return ",".join(f"tile{{{' '.join(opts)}}}" if p == "tile" else p for p in expand_pipeline("default").split(","))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", required=True)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("variants", nargs="*")
    a = ap.parse_args()
    import copy_bench
    import strided_copy_bench as sb
    import torch

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes

    variants = [parse_variant(v) for v in a.variants]
    only = [int(x) for x in a.only.split(",")]
    cases = sb.generate_cases(0, 48, 64, 1024)
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    for i in only:
        case = cases[i]
        src, dst_base, dst = sb._make(torch, case, gen)
        dst_base.fill_(77)
        ref_base = dst_base.clone()
        (ref_base[tuple(slice(*ix) for ix in case.dst_index)] if case.dst_base else ref_base).copy_(src)
        ref_bits = sb._bits(torch, ref_base)
        moved = case.bytes_read + case.bytes_written
        mc = copy_bench.memcpy_tbps(moved // 2)

        def ratio(fn) -> float:
            return copy_bench.tbps(moved, sb._median(copy_bench, fn, a.reps)) / mc

        def run(kern) -> str:
            dst_base.fill_(77)
            tensor_copy.copy_(dst, src, kernels=kern)
            torch.cuda.synchronize()
            ok = bool(torch.equal(sb._bits(torch, dst_base), ref_bits))
            r = ratio(lambda: tensor_copy.copy_(dst, src, kernels=kern))
            return f"{r:.3f}{'' if ok else '!'}"

        row = {"case": f"{i:02d}", "tilec": run(CopyKernels(disk=False)),
               "torch": f"{ratio(lambda: dst.copy_(src)):.3f}"}
        for name, routes, tiles, threads, on in variants:
            applies = bool(routes) and (on is None or i in on)
            if not applies and i not in tiles and i not in threads:
                row[name] = "-"
                continue
            with forced_routes(**(routes if applies else {})):
                try:
                    row[name] = run(CopyKernels(disk=False, pipeline=pipeline_of(tiles.get(i), threads.get(i))))
                except Exception as e:  # a tile the views refuse: say so, go on
                    row[name] = f"err:{type(e).__name__}"
        rows.append(row)
        print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
        del src, dst_base, dst, ref_base, ref_bits
        torch.cuda.empty_cache()
    names = ["tilec", "torch"] + [v[0] for v in variants]
    print("case " + " ".join(names))
    for r in rows:
        print(r["case"], " ".join(r[n] for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
