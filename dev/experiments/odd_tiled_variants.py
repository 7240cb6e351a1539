"""The tiled kernel of canonical copies (tests/helpers/canonical_copies.py) through
`tilec.copy_` with routes forced and the `tile` pass given tiles, side by side, each
checked bit for bit against PyTorch. Not a test. For the odd transposes the box strategy
takes (`box=never` gives the tiled kernel the rule would give them, or a converting copy
of the same element size).

    python3 dev/experiments/odd_tiled_variants.py --only 'float16 8191,int8 8191' \\
        nobox=box:never old=box:never,tile:256.128@512

A variant is `name=SPEC`, SPEC a comma-separated list of `route:value`
(api/copy_routes.py, in force while it compiles and runs) and `tile:t0.t1[@T]` (the
`tile` pass's tile and threads). The table: ratios to cudaMemcpy of the same bytes
(`!` where the bits differ from PyTorch's).
"""

from __future__ import annotations

import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
sys.path.insert(0, os.path.join(here, "..", "..", "tests"))
sys.path.insert(0, here)


def parse(spec: str) -> tuple[str, dict, tuple[int, ...] | None, int | None]:
    """(name, routes, tile, threads) of `name=SPEC` (module doc)."""
    name, _, body = spec.partition("=")
    routes: dict = {}
    tile = threads = None
    for item in (x for x in body.split(",") if x):
        k, v = item.split(":")
        if k == "tile":
            t, _, th = v.partition("@")
            tile = tuple(int(x) for x in t.split("."))
            threads = int(th) if th else None
        else:
            routes[k] = int(v) if v.isdigit() else v
    return name, routes, tile, threads


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", required=True, help="comma-separated substrings of canonical case names")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("variants", nargs="*")
    a = ap.parse_args()
    import copy_bench
    import strided_copy_bench as sb
    import torch
    from helpers.canonical_copies import CANONICAL
    from strided_variants import pipeline_of

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes

    variants = [parse(v) for v in a.variants]
    gen = torch.Generator(device="cuda").manual_seed(0)
    names = ["tilec", "torch"] + [v[0] for v in variants]
    rows = []
    for case in [c for c in CANONICAL if any(t in c.name for t in a.only.split(","))]:
        if case.index or case.shape:
            continue  # permutes only
        dt = getattr(torch, case.src_dtype)
        if case.src_dtype in ("int8", "uint8"):
            base = torch.randint(-100, 100, case.base, generator=gen, device="cuda").to(dt)
        else:
            base = (torch.randn(case.base, generator=gen, device="cuda") * 30).to(dt)
        src = base.permute(*case.perm)
        dst = torch.empty(src.shape, dtype=getattr(torch, case.dst_dtype), device="cuda")
        want = torch.empty_like(dst).copy_(src)
        moved = src.numel() * (src.element_size() + dst.element_size())
        mc = copy_bench.memcpy_tbps(moved // 2)

        def run(kern) -> str:
            dst.fill_(0)
            tensor_copy.copy_(dst, src, kernels=kern)
            torch.cuda.synchronize()
            ok = bool(torch.equal(sb._bits(torch, dst), sb._bits(torch, want)))
            ms = sb._median(copy_bench, lambda: tensor_copy.copy_(dst, src, kernels=kern), a.reps)
            return f"{copy_bench.tbps(moved, ms) / mc:.3f}{'' if ok else '!'}"

        row = {"case": case.name, "tilec": run(CopyKernels(disk=False)),
               "torch": f"{copy_bench.tbps(moved, sb._median(copy_bench, lambda: dst.copy_(src), a.reps)) / mc:.3f}"}
        for name, routes, tile, threads in variants:
            with forced_routes(**routes):
                try:
                    row[name] = run(CopyKernels(disk=False, pipeline=pipeline_of(tile, threads)))
                except Exception as e:  # a tile the views refuse: say so, go on
                    row[name] = f"err:{type(e).__name__}"
        rows.append(row)
        del base, src, dst, want
        torch.cuda.empty_cache()
    print("case " + " ".join(names))
    for r in rows:
        print(r["case"], " ".join(r[n] for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
