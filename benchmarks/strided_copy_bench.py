"""Random strided copies: `tilec.copy_` against cudaMemcpy and PyTorch's `copy_`.

    python benchmarks/strided_copy_bench.py [--seed 0] [--cases 48] [--quick]
        [--only 0-23] [--json OUT.json] [--md OUT.md] [--host-only | --no-host] [--list]

A seeded generator (`generate_cases`, no GPU needed) makes permutes of rank 2-6, slices
with offsets and steps, broadcasts, copies into strided destinations and
dtype-converting copies, with odd and prime extents, element sizes 1-8 bytes and 64 MiB
to 1 GiB per tensor. For each case: the result is checked bit for bit against PyTorch's
`dst.copy_(src)` (outputs poisoned first); tilec and PyTorch are timed with CUDA events
(median, benchmarks/copy_bench.py's method) beside a device-to-device cudaMemcpy of the
same bytes; ratio = (bytes read + bytes written) / time, over cudaMemcpy's.

The second part times small copies (4 KiB - 1 MiB) end to end per call (host + GPU,
2000 calls then one synchronisation): tilec, PyTorch `copy_`, CuPy.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np

MiB = 1 << 20
ITEMSIZE = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int8": 1, "int16": 2,
            "int32": 4, "int64": 8, "uint8": 1, "bool": 1}
ODD = [3, 5, 7, 11, 13, 17, 19, 31, 37, 56, 61, 97, 127, 131, 251, 257, 509, 1021, 1031, 2053]


@dataclass
class CopyCase:
    """One copy, reproducible from its fields: src is a contiguous `base` tensor of
    `src_dtype`, then `src_index` (per dimension: start, stop, step), `src_perm`, and
    broadcast to `dst_shape` (`src_shape_b` is its shape before broadcasting; dims of
    extent 1 broadcast). dst is a `dst_dtype` tensor of `dst_base` shape viewed
    through `dst_index` (its shape is `dst_shape`)."""

    name: str
    kind: str
    src_dtype: str
    dst_dtype: str
    base: tuple
    src_index: tuple
    src_perm: tuple
    dst_base: tuple
    dst_index: tuple
    dst_shape: tuple
    bytes_read: int = 0
    bytes_written: int = 0
    notes: dict = field(default_factory=dict)


def _is_prime(n: int) -> bool:
    return n > 1 and all(n % p for p in range(2, int(n**0.5) + 1))


def _extents(rng, rank: int, elements: int) -> list[int]:
    """`rank` extents whose product is close to `elements`, odd and prime ones among
    them (the last one takes what is left, nudged to a prime half the time)."""
    out = []
    left = elements
    for _ in range(rank - 1):
        cap = max(2, int(left ** (1 / max(1, rank - len(out)))) * 2)
        choices = [v for v in ODD if v <= cap] or [2]
        v = int(rng.choice(choices)) if rng.random() < 0.7 else int(rng.integers(2, cap + 1))
        out.append(v)
        left = max(1, left // v)
    last = max(1, left)
    if rng.random() < 0.5:
        while not _is_prime(last) and last > 2:
            last -= 1
    out.append(last)
    rng.shuffle(out)
    return out


def _target_elements(rng, itemsize: int, lo_mib: float, hi_mib: float) -> int:
    mib = math.exp(rng.uniform(math.log(lo_mib), math.log(hi_mib)))
    return int(mib * MiB / itemsize)


def generate_cases(seed: int = 0, count: int = 48, lo_mib: float = 64, hi_mib: float = 1024) -> list[CopyCase]:
    """`count` random copies (see the module doc), the same for the same seed."""
    rng = np.random.default_rng(seed)
    kinds = ["permute", "slice", "broadcast", "convert", "dst_slice", "permute_convert"]
    dtypes = list(ITEMSIZE)
    cases = []
    for i in range(count):
        kind = kinds[i % len(kinds)]
        sd = str(rng.choice(dtypes))
        dd = sd
        if "convert" in kind:
            while dd == sd:
                dd = str(rng.choice(dtypes))
        big = max(ITEMSIZE[sd], ITEMSIZE[dd])
        n = _target_elements(rng, big, lo_mib, hi_mib)
        if kind in ("permute", "permute_convert", "convert"):
            rank = int(rng.integers(2, 7)) if kind != "convert" else int(rng.integers(1, 4))
            base = tuple(_extents(rng, rank, n))
            perm = tuple(int(p) for p in rng.permutation(rank)) if kind != "convert" else tuple(range(rank))
            if kind != "convert" and perm == tuple(range(rank)) and rank > 1:
                perm = perm[1:] + perm[:1]
            index = tuple((0, e, 1) for e in base)
            shape = tuple(base[p] for p in perm)
            c = CopyCase("", kind, sd, dd, base, index, perm, shape, tuple((0, e, 1) for e in shape), shape)
        elif kind == "slice":
            rank = int(rng.integers(2, 5))
            shape = _extents(rng, rank, n)
            base, index = [], []
            for e in shape:
                step = int(rng.choice([1, 1, 2, 3]))
                start = int(rng.integers(0, 5))
                base.append(start + (e - 1) * step + 1 + int(rng.integers(0, 3)))
                index.append((start, start + (e - 1) * step + 1, step))
            shape = tuple(shape)
            c = CopyCase("", kind, sd, dd, tuple(base), tuple(index), tuple(range(rank)), shape,
                         tuple((0, e, 1) for e in shape), shape)
        elif kind == "broadcast":
            rank = int(rng.integers(2, 5))
            shape = tuple(_extents(rng, rank, n))
            src_shape = [e if rng.random() < 0.5 else 1 for e in shape]
            if all(s == e for s, e in zip(src_shape, shape)):
                src_shape[int(rng.integers(0, rank))] = 1
            base = tuple(src_shape)
            c = CopyCase("", kind, sd, dd, base, tuple((0, e, 1) for e in base), tuple(range(rank)), shape,
                         tuple((0, e, 1) for e in shape), shape)
        else:  # dst_slice: a contiguous src into a strided window of a larger dst
            rank = int(rng.integers(2, 5))
            shape = tuple(_extents(rng, rank, n))
            dst_base, dst_index = [], []
            for e in shape:
                start = int(rng.integers(0, 4))
                pad = int(rng.integers(0, 4))
                dst_base.append(start + e + pad)
                dst_index.append((start, start + e, 1))
            c = CopyCase("", kind, sd, dd, shape, tuple((0, e, 1) for e in shape), tuple(range(rank)),
                         tuple(dst_base), tuple(dst_index), shape)
        src_elems = math.prod(len(range(*ix)) for ix in c.src_index)
        c.bytes_read = src_elems * ITEMSIZE[sd]
        c.bytes_written = math.prod(c.dst_shape) * ITEMSIZE[dd]
        c.name = f"{i:02d} {kind} {sd}->{dd} {'x'.join(map(str, c.dst_shape))}"
        if c.src_perm != tuple(range(len(c.src_perm))):
            c.name += f" perm{list(c.src_perm)}"
        cases.append(c)
    return cases


# --------------------------------------------------------------------------- GPU side


def _make(torch, case: CopyCase, gen):
    def rand(dtype, shape):
        t = getattr(torch, dtype)
        if dtype == "bool":
            return torch.rand(shape, generator=gen, device="cuda") > 0.5
        if dtype in ("float16", "bfloat16", "float32", "float64"):
            return (torch.randn(shape, generator=gen, device="cuda") * 30).clamp(-120, 120).to(t)
        info = torch.iinfo(t)
        return torch.randint(info.min, info.max, shape, generator=gen, device="cuda", dtype=t)

    base = rand(case.src_dtype, case.base)
    src = base[tuple(slice(*ix) for ix in case.src_index)].permute(*case.src_perm) if case.base else base
    dst_base = torch.empty(case.dst_base, dtype=getattr(torch, case.dst_dtype), device="cuda")
    dst = dst_base[tuple(slice(*ix) for ix in case.dst_index)] if case.dst_base else dst_base
    return src, dst_base, dst


def _bits(torch, x):
    size = x.element_size()
    return x.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]) \
        if x.dtype != torch.bool else x.view(torch.uint8)


def run_cases(cases, quick_reps: bool = False) -> list[dict]:
    import copy_bench  # benchmarks/copy_bench.py: median_ms, tbps, memcpy_tbps
    import torch

    import tilec

    results = []
    memcpy_cache: dict[int, float] = {}
    gen = torch.Generator(device="cuda").manual_seed(0)
    for case in cases:
        src, dst_base, dst = _make(torch, case, gen)
        dst_base.fill_(77)
        ref_base = dst_base.clone()
        ref = ref_base[tuple(slice(*ix) for ix in case.dst_index)] if case.dst_base else ref_base
        ref.copy_(src)
        t0 = time.perf_counter()
        tilec.copy_(dst, src)
        torch.cuda.synchronize()
        first = time.perf_counter() - t0
        exact = bool(torch.equal(_bits(torch, dst_base), _bits(torch, ref_base)))
        del ref_base, ref
        moved = case.bytes_read + case.bytes_written
        reps = 10 if quick_reps else 30
        t_tilec = copy_bench.median_ms(lambda: tilec.copy_(dst, src), reps=reps)
        t_torch = copy_bench.median_ms(lambda: dst.copy_(src), reps=reps)
        one_way = moved // 2
        if one_way not in memcpy_cache:
            memcpy_cache[one_way] = copy_bench.memcpy_tbps(one_way)
        mc = memcpy_cache[one_way]
        r = {
            "name": case.name, "kind": case.kind, "src": case.src_dtype, "dst": case.dst_dtype,
            "shape": list(case.dst_shape), "perm": list(case.src_perm), "bytes": moved,
            "exact": exact, "first_call_s": round(first, 3),
            "tilec_ms": t_tilec, "torch_ms": t_torch,
            "tilec_tbps": copy_bench.tbps(moved, t_tilec), "torch_tbps": copy_bench.tbps(moved, t_torch),
            "memcpy_tbps": mc,
        }
        r["tilec_ratio"] = r["tilec_tbps"] / mc
        r["torch_ratio"] = r["torch_tbps"] / mc
        results.append(r)
        print(f"{case.name:60s} exact={exact} tilec {r['tilec_ratio']:.3f} torch {r['torch_ratio']:.3f}", flush=True)
        del src, dst_base, dst
        torch.cuda.empty_cache()
    return results


def host_time(calls: int = 2000) -> list[dict]:
    """Per-call end-to-end time of small copies: tilec (on torch tensors), torch
    `copy_`, CuPy (`dst[...] = src`), each 2000 calls then one synchronisation."""
    import cupy as cp
    import torch

    import tilec

    out = []
    patterns = [
        ("transpose f32", "float32", "float32", lambda n: (n, n), (1, 0)),
        ("NHWC->NCHW f16", "float16", "float16", lambda n: (2, n // 4, n // 4, 8), (0, 3, 1, 2)),
        ("f32->f16 contiguous", "float32", "float16", lambda n: (n, n), (0, 1)),
    ]
    for nbytes in (4 * 1024, 64 * 1024, 1024 * 1024):
        for name, sd, dd, shape_of, perm in patterns:
            elems = nbytes // ITEMSIZE[sd]
            side = int(round(elems ** 0.5)) if len(shape_of(4)) == 2 else int(round((elems / 16) ** 0.5)) * 4
            shape = shape_of(side)
            x = torch.randn(shape, device="cuda").to(getattr(torch, sd)).permute(*perm)
            y = torch.empty(x.shape, device="cuda", dtype=getattr(torch, dd))
            xc, yc = cp.asarray(x), cp.asarray(y)
            cdt = yc.dtype

            def timed(fn):
                for _ in range(50):
                    fn()
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(calls):
                    fn()
                torch.cuda.synchronize()
                return (time.perf_counter() - t0) / calls * 1e6

            row = {
                "pattern": name, "bytes": int(x.numel() * x.element_size()),
                "tilec_us": timed(lambda: tilec.copy_(y, x)),
                "torch_us": timed(lambda: y.copy_(x)),
                "cupy_us": timed(lambda: yc.__setitem__(Ellipsis, xc.astype(cdt, copy=False))),
            }
            out.append(row)
            print(f"{name:22s} {row['bytes']:>8d} B  tilec {row['tilec_us']:6.1f} us  torch "
                  f"{row['torch_us']:6.1f} us  cupy {row['cupy_us']:6.1f} us", flush=True)
    return out


def tables(results: list[dict], host: list[dict]) -> str:
    lines = []
    if results:
        ratios = [r["tilec_ratio"] for r in results]
        lines += [
            f"Generated set: {len(results)} cases; tilec / cudaMemcpy: min {min(ratios):.3f}, "
            f"median {statistics.median(ratios):.3f}, max {max(ratios):.3f}; exact: "
            f"{sum(r['exact'] for r in results)}/{len(results)}; slower than PyTorch: "
            f"{sum(r['tilec_ms'] > r['torch_ms'] * 1.02 for r in results)}",
            "",
            "| case | MiB moved | tilec TB/s | tilec / memcpy | PyTorch / memcpy | tilec vs PyTorch | exact |",
            "|---|---:|---:|---:|---:|---:|---|",
        ]
        for r in results:
            lines.append(
                f"| {r['name']} | {r['bytes'] / MiB:.0f} | {r['tilec_tbps']:.2f} | {r['tilec_ratio']:.3f} | "
                f"{r['torch_ratio']:.3f} | {r['torch_ms'] / r['tilec_ms']:.2f}x | {'yes' if r['exact'] else 'NO'} |"
            )
    if host:
        lines += ["", "| pattern | bytes | tilec us/call | PyTorch us/call | CuPy us/call |",
                  "|---|---:|---:|---:|---:|"]
        for h in host:
            lines.append(f"| {h['pattern']} | {h['bytes']} | {h['tilec_us']:.1f} | {h['torch_us']:.1f} | {h['cupy_us']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cases", type=int, default=48)
    ap.add_argument("--quick", action="store_true", help="4-16 MiB tensors, fewer repetitions")
    ap.add_argument("--only", default="", help="case numbers: 3,5,10-20")
    ap.add_argument("--host-only", action="store_true")
    ap.add_argument("--no-host", action="store_true")
    ap.add_argument("--list", action="store_true", help="print the generated cases and stop (no GPU)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--md", default=None)
    args = ap.parse_args(argv)
    lo, hi = (4, 16) if args.quick else (64, 1024)
    cases = generate_cases(args.seed, args.cases, lo, hi)
    if args.only:
        keep = set()
        for part in args.only.split(","):
            lo, _, hi = part.partition("-")
            keep.update(range(int(lo), int(hi or lo) + 1))
        cases = [c for i, c in enumerate(cases) if i in keep]
    if args.list:
        for c in cases:
            print(c.name, f"{(c.bytes_read + c.bytes_written) / MiB:.0f} MiB")
        return 0
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    results = [] if args.host_only else run_cases(cases, args.quick)
    host = [] if args.no_host else host_time()
    text = tables(results, host)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cases": results, "host": host, "seed": args.seed,
                       "generated": [asdict(c) for c in cases]}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    bad = [r for r in results if not r["exact"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
