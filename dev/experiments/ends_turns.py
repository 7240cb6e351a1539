"""Destination-slice copies into padded rows (the realign strategy), timed in turns under
`realign_prefetch` modes: a synthetic family (element sizes 1-8, rows of 8-512 elements at
pitches a few elements longer, ~`--mib` MiB a copy) and, with `--set`, cases of the
generated strided set. copy_turns.py's method: each variant one `CopyKernels(disk=False)`
(shared by the family's cases: their kernels differ by dtype only), every result checked
bit for bit against PyTorch (the padding poisoned and compared too), then `--rounds`
rounds, each round every variant once (the order rotated a round); the median ratio to
cudaMemcpy, the rounds' spread, `x` to the first variant. Not a test.

    python3 dev/experiments/ends_turns.py --rounds 3 --set 34,16,4 --json OUT.json \
        t= e4=realign_prefetch:4 e5=realign_prefetch:5 e5c2=realign_prefetch:5,realign_chunks:2

Beside each copy, the host's model of a row (`row_model`): bytes, destination chunks, the
32-byte sectors written in part (a DRAM fill each), the 128-byte lines the line prefetch
(mode 1) brings for them, the bulk prefetches of the ends (modes 4, 5). `--until S` starts
no case after S seconds from the start (the rest printed as skipped).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
sys.path.insert(0, here)

FAMILY = [("int8", 24, 3), ("int8", 120, 5), ("int8", 500, 7),
          ("int16", 8, 1), ("int16", 24, 3), ("int16", 56, 3), ("int16", 120, 2), ("int16", 254, 2), ("int16", 500, 3),
          ("int32", 8, 1), ("int32", 24, 3), ("int32", 56, 3), ("int32", 120, 3), ("int32", 250, 2),
          ("int64", 8, 1), ("int64", 24, 1), ("int64", 60, 3),
          ("int16", 70, 3), ("int16", 130, 3), ("int16", 200, 3),
          ("int32", 70, 3), ("int32", 130, 3), ("int32", 200, 3)]
"""(dtype, row elements n, pad): rows of n elements into rows of n + pad, starting 1
element into the padded row. From index 17, rows of 65-256 elements (copy_'s realign key
classes them by 128 and 256, `copy_key.REALIGN_ROW_CLASS`; s1645)."""
ITEM = {"int8": 1, "int16": 2, "int32": 4, "int64": 8}


def row_model(e: int, n: int, pitch: int, off: int, rows: int = 4096, chunk: int = 16) -> dict:
    """Per destination row of n e-byte elements at `pitch` elements, the first at `off`
    (the base 256-byte aligned), averaged over `rows` rows: bytes, chunks (16-byte
    aligned blocks it touches), sectors written in part (`fill`, distinct, a row's tail
    and the next row's head sharing one counted once), 128-byte lines holding them
    (`lines`: what `prefetch.global.L2` of those chunks brings), bulk asks of the ends
    (`asks`: the first chunk, and the last unless the next row starts inside it), and
    the DRAM bytes each prefetch mode reads for the fills over the row's bytes
    (`line_read`, `ends_read`; the fill itself is `fill_read`)."""
    fills, lines, chunks, asks = set(), set(), 0, 0
    for r in range(rows):
        d = (off + r * pitch) * e
        end = d + n * e
        chunks += (end - 1) // chunk - d // chunk + 1
        for s in {d // 32, (end - 1) // 32}:
            if s * 32 < d or s * 32 + 32 > end:
                fills.add(s)
                lines.add(s // 4)
        nxt = d + pitch * e
        tail = (end - 1) // chunk * chunk
        asks += 1 + (tail != d // chunk * chunk and not (r < rows - 1 and tail <= nxt < tail + chunk))
    # a sector another row writes whole in the same line is read by the line prefetch too
    ends_sectors = fills  # each ask brings the 32-byte sector holding its 16 bytes
    row_bytes = n * e * rows
    return {"bytes": n * e, "chunks": chunks / rows, "fill": len(fills) / rows, "lines": len(lines) / rows,
            "asks": asks / rows, "fill_read": 32 * len(fills) / row_bytes, "line_read": 128 * len(lines) / row_bytes,
            "ends_read": 32 * len(ends_sectors) / row_bytes}


def main() -> int:
    t0 = time.time()
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--set", default="")
    ap.add_argument("--family", default="all", help="indices into FAMILY, or all, or none")
    ap.add_argument("--until", type=float, default=1e9)
    ap.add_argument("--set-first", action="store_true", help="the set's cases before the family's")
    ap.add_argument("--then", default="", help="set cases after all others (controls)")
    ap.add_argument("--json", default="")
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
    shared = {name: CopyKernels(disk=False) for name, *_ in variants}
    gen = torch.Generator(device="cuda").manual_seed(0)
    jobs: list = []
    if a.family != "none":
        picks = range(len(FAMILY)) if a.family == "all" else [int(x) for x in a.family.split(",")]
        jobs += [("fam", FAMILY[k]) for k in picks]
    cases = sb.generate_cases(0, 48, 64, 1024) if a.set or a.then else []
    set_jobs = [("set", int(x)) for x in a.set.split(",") if x]
    jobs = set_jobs + jobs if a.set_first else jobs + set_jobs
    jobs += [("set", int(x)) for x in a.then.split(",") if x]
    out = []
    memcpy: dict = {}
    for kind, job in jobs:
        if time.time() - t0 > a.until:
            print(f"skipped {kind} {job} (past --until)", flush=True)
            continue
        if kind == "fam":
            dt, n, pad = job
            e = ITEM[dt]
            rows = (a.mib << 20) // (n * e)
            info = torch.iinfo(getattr(torch, dt))
            src = torch.randint(info.min, info.max, (rows, n), generator=gen, device="cuda", dtype=getattr(torch, dt))
            dst_base = torch.empty((rows, n + pad), dtype=src.dtype, device="cuda")
            dst = dst_base[:, 1:1 + n]
            ref_base = torch.full_like(dst_base, 77)
            ref_base[:, 1:1 + n].copy_(src)
            label = f"{dt} {n}@{n + pad}"
            model = row_model(e, n, n + pad, 1)
            moved = 2 * src.numel() * e
            kerns = shared
        else:
            case = cases[job]
            src, dst_base, dst = sb._make(torch, case, gen)
            ref_base = dst_base.clone()
            ref_base.fill_(77)
            (ref_base[tuple(slice(*ix) for ix in case.dst_index)] if case.dst_base else ref_base).copy_(src)
            label = f"set {job:02d} {case.dst_dtype} {tuple(case.dst_shape)}"
            e = sb.ITEMSIZE.get(case.dst_dtype, 0)
            model = {}
            if case.dst_base and e and dst.dim() >= 2:  # as if the rows followed at the pitch
                model = row_model(e, case.dst_shape[-1], dst.stride()[-2], dst.storage_offset())
            moved = case.bytes_read + case.bytes_written
            kerns = {name: CopyKernels(disk=False) for name, *_ in variants}
        ref_bits = sb._bits(torch, ref_base)
        if moved // 2 not in memcpy:
            memcpy[moved // 2] = copy_bench.memcpy_tbps(moved // 2)
        mc = memcpy[moved // 2]
        runs = []
        for name, routes, _, _, _ in variants:
            kern = kerns[name]

            def fn(kern=kern, r=routes):
                with forced_routes(**r):
                    tensor_copy.copy_(dst, src, kernels=kern)

            dst_base.fill_(77)
            try:
                fn()
                torch.cuda.synchronize()
            except Exception as ex:  # a variant the views refuse: say so, go on
                print(f"{label} {name}: {type(ex).__name__}: {str(ex)[:120]}", flush=True)
                continue
            runs.append((name, fn, bool(torch.equal(sb._bits(torch, dst_base), ref_bits)), []))
        if not runs:
            continue
        for rnd in range(a.rounds):
            k = rnd % len(runs)
            for name, fn, ok, got in runs[k:] + runs[:k]:
                got.append(copy_bench.tbps(moved, sb._median(copy_bench, fn, a.reps)) / mc)
        first = statistics.median(runs[0][3])
        res = {"label": label, "model": model, "variants": {}}
        cells = []
        for name, fn, ok, got in runs:
            m = statistics.median(got)
            res["variants"][name] = {"median": m, "rounds": got, "exact": ok, "x": m / first}
            cells.append(f"{name}={m:.3f}{'' if ok else '!'}(+-{max(got) - min(got):.3f},x{m / first:.3f})")
        mod = (f" [B/row {model['bytes']} fill/row {model['fill']:.2f} asks/row {model['asks']:.2f} "
               f"line_read {model['line_read']:.3f} ends_read {model['ends_read']:.3f}]") if model else ""
        print(f"{label}: " + " ".join(cells) + mod, flush=True)
        out.append(res)
        if a.json:  # after each copy: a run cut short keeps what it measured
            with open(a.json, "w") as f:
                json.dump(out, f, indent=1)
        del src, dst_base, dst, ref_base, ref_bits
        torch.cuda.empty_cache()
    print(f"all exact: {all(v['exact'] for r in out for v in r['variants'].values())}; "
          f"{len(out)} copies in {time.time() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
