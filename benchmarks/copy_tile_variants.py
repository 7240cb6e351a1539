"""Tile choices of `tilec.copy_` side by side on cases of the strided-copy set.

    python benchmarks/copy_tile_variants.py --only 11,13,24 [--variants old,new,novec]
    python benchmarks/copy_tile_variants.py --per-case "34=new,t1x32x1x64;16=new,t64x1x1x256"

For each generated case (benchmarks/strided_copy_bench.py, seed 0) and each variant:
compile the case's kernel with a fresh `CopyKernels`, check it bit for bit against
PyTorch's `copy_`, and time it (median of CUDA events) beside PyTorch. Variants:
`old` the `tile` pass's heuristic told the small extents (`pass_tile_choice`), `new`
`copy_tile.copy_tile`, `capN` `new` with `copy_tile.LINE_CAP_BYTES` N KiB (`cap32`:
the whole budget), `novec` `new` with the dst's 16-byte facts dropped from the key
(scalar, coalesced stores), `smemN` `new` with transposing tiles of N KiB
(`copy_tile.SMEM_TILE_BYTES`), `minrunsN` `new` with `copy_tile.MIN_RUNS_TILE` N,
`threadsN` `new`'s tile with N threads, `gather` the flat-destination gather kernel
(copy_gather.py) wherever it applies, `tiled` never the gather kernel, `tAxBxC[@T]` the
tiled kernel with that tile pinned (and T threads; 256 by default), to try a tile by
hand, `square` the square transposing tiles of before (`copy_tile.TRANSPOSE_RULE`),
`realign` the row-realigning kernel (copy_realign.py) wherever it applies
(`realignN`: with N chunks per thread; every other variant: never), `V+i64` variant V with 64-bit index arithmetic (`CopyKey.index_bits`),
`rS_U_D_G` the "runs" rule with `SRC_RUN` S, `SRC_MIN_USE` U %, `DST_RUN_BYTES` D and
`GROW_TRANSPOSE` G (0/1). The kernels skip the disk cache (keyed by CopyKey alone).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


RULE_KNOBS = (
    "TRANSPOSE_RULE",
    "SRC_RUN",
    "SRC_MIN_USE",
    "DST_RUN_BYTES",
    "GROW_TRANSPOSE",
    "LINE_CAP_BYTES",
    "SMEM_TILE_BYTES",
    "MIN_RUNS_TILE",
)
"""The globals of copy_tile.py that the variants change (restored after each one)."""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--variants", default="old,new")
    ap.add_argument("--per-case", default="", help='variants per case: "34=new,t1x32x1x64;16=new,gather"')
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args(argv)
    import copy_bench
    import strided_copy_bench as scb
    import torch

    from tilec import copy_kernels, copy_program, copy_realign, copy_tile, tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import ITEMSIZE
    from tilec.copy_routes import forced_routes

    cases = scb.generate_cases(0, 48)
    keep = set()
    for part in filter(None, args.only.split(",")):
        lo, _, hi = part.partition("-")
        keep.update(range(int(lo), int(hi or lo) + 1))
    per_case = {}
    for part in filter(None, args.per_case.split(";")):
        case_no, _, variants = part.partition("=")
        per_case[int(case_no)] = variants
        keep.add(int(case_no))
    new_choice = copy_program.tile_choice
    plain_plan = tensor_copy.plan_copy
    knobs = [(copy_program, "tile_choice"), (copy_kernels, "tile_choice"), (tensor_copy, "plan_copy")]
    knobs += [(copy_realign, "CHUNKS_PER_THREAD")]
    knobs += [(copy_tile, name) for name in RULE_KNOBS]
    defaults = [(module, name, getattr(module, name)) for module, name in knobs]
    routes = contextlib.ExitStack()  # the copy routes a variant forces (api/copy_routes.py)

    def restore():
        """Every rule knob a variant may change back at its value on entry, the routes
        back to the rules."""
        routes.close()
        for module, name, value in defaults:
            setattr(module, name, value)

    def novec_plan(dst, src):
        plan = plain_plan(dst, src)
        k = plan.key
        key = dataclasses.replace(k, dst_align=ITEMSIZE[k.dst_dtype], dst_divisors=(1,) * k.rank)
        return dataclasses.replace(plan, key=key)

    def wide_plan(plan):
        return dataclasses.replace(plan, key=dataclasses.replace(plan.key, index_bits=64))

    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    for i in sorted(keep):
        case = cases[i]
        src, dst_base, dst = scb._make(torch, case, gen)
        ref_base = torch.full_like(dst_base, 77)
        ref = ref_base[tuple(slice(*ix) for ix in case.dst_index)]
        ref.copy_(src)
        moved = case.bytes_read + case.bytes_written
        mc = copy_bench.memcpy_tbps(moved // 2)
        t_torch = copy_bench.median_ms(lambda d=dst, s=src: d.copy_(s), reps=args.reps)
        line = [f"{i:02d}", f"torch {copy_bench.tbps(moved, t_torch) / mc:.3f}"]
        for v in per_case.get(i, args.variants).split(","):
            v, _, suffix = v.partition("+")
            choice = copy_tile.pass_tile_choice if v == "old" else new_choice
            if v[:1] == "t" and v[1:2].isdigit():
                shape, _, threads = v[1:].partition("@")
                pinned = (tuple(int(x) for x in shape.split("x")), int(threads or 256))
                choice = lambda key, pinned=pinned: (None, 0) if key.gather else pinned
            restore()
            if v == "square":
                copy_tile.TRANSPOSE_RULE = "square"
            elif v[:1] == "r" and v[1:2].isdigit():  # rS_U_D_G: SRC_RUN, SRC_MIN_USE %, DST_RUN_BYTES, grow
                s, u, d, g = v[1:].split("_")
                copy_tile.TRANSPOSE_RULE = "runs"
                copy_tile.SRC_RUN, copy_tile.SRC_MIN_USE = int(s), int(u) / 100
                copy_tile.DST_RUN_BYTES, copy_tile.GROW_TRANSPOSE = int(d), g == "1"
            if v.startswith("cap"):
                copy_tile.LINE_CAP_BYTES = int(v[3:]) * 1024
            if v.startswith("smem"):
                copy_tile.SMEM_TILE_BYTES = int(v[4:]) * 1024
            if v.startswith("minruns"):
                copy_tile.MIN_RUNS_TILE = int(v[7:])
            if v.startswith("threads"):  # new's tile, that many threads
                choice = lambda key, n=int(v[7:]): (None, 0) if key.gather else (new_choice(key)[0], n)
            copy_program.tile_choice = copy_kernels.tile_choice = choice
            plan = novec_plan if v == "novec" else plain_plan
            tensor_copy.plan_copy = plan if suffix != "i64" else lambda d, s, plan=plan: wide_plan(plan(d, s))
            routes.enter_context(forced_routes(
                gather={"gather": "always", "tiled": "never"}.get(v, "never" if v[:1] == "t" else "auto"),
                realign="always" if v.startswith("realign") else "never"))
            if v.startswith("realign") and v[7:]:
                copy_realign.CHUNKS_PER_THREAD = int(v[7:])
            kernels = CopyKernels(disk=False)  # the disk cache is keyed by CopyKey alone
            dst_base.fill_(77)
            t0 = time.perf_counter()
            try:
                tensor_copy.copy_(dst, src, kernels=kernels)
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001 - a variant may not compile; report it
                line.append(f"{v} FAILED {type(e).__name__}: {str(e)[:80]}")
                continue
            first = time.perf_counter() - t0
            exact = torch.equal(dst_base.view(torch.uint8), ref_base.view(torch.uint8))
            t = copy_bench.median_ms(lambda d=dst, s=src, k=kernels: tensor_copy.copy_(d, s, kernels=k), reps=args.reps)
            key = next(iter(kernels._entries))
            if key.realign:
                tile = f"realign{key.realign}"
            else:
                tile = f"gather{key.gather}" if key.gather else "/".join(map(str, copy_program.tile_choice(key)))
            line.append(
                f"{v}{'+' + suffix if suffix else ''} {copy_bench.tbps(moved, t) / mc:.3f}{'' if exact else ' WRONG'} {tile} ({first:.1f}s)"
            )
        restore()
        rows.append(" | ".join(line))
        print(case.name[:70], "::", rows[-1], flush=True)
        del src, dst_base, dst, ref_base, ref
        torch.cuda.empty_cache()
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
