"""A periodic-fill kernel for broadcasts into a flat dst (src broadcast along the
outermost merged mode: the dst repeats one period of `P` elements) timed in turns
against `tilec.copy_` (the tree: api/copy_period.py's parts), a plain write of the same
bytes (`fill_`, cudaMemsetAsync) and checked bit for bit against PyTorch. Not a test.

    python3 dev/experiments/periodic_fill_probe.py --only 32,44,14,20,2,38 [--rounds 5] [--json F]
    python3 dev/experiments/periodic_fill_probe.py --only '' --canonical 'row broadcast'

The dst's content repeats every `L` = lcm(P * itemsize, 16) bytes: `U` = L / 16
distinct 16-byte vectors. Thread t of `NT` = m U threads computes vector t mod U once
(each element's src offset by divisions over the period's modes) and stores it at
vectors t, t + NT, t + 2 NT, ...: a warp's store is 512 contiguous bytes, the loop
body an add, a compare and a store. The dst's last partial vector by elements (thread
0). Variants: `fill` (plain stores, 256 threads, ~2048 threads an SM), `cs` (stores with
the evict-first hint `st.global.cs`), `half` (~1024 threads an SM), `u1` (the store
loop not unrolled), `c_stride` / `c_blockK` / `c_one` a constant stored in those orders, no
loads, not checked (`const_source`); `tN` tilec's own fill form (`copy_` under the route `gather_fill=N`,
passes/_fill_tile.py). CUDA C written here for the probe only (tilec's kernels are built
from IR).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
sys.path.insert(0, os.path.join(here, "..", "..", "tests"))

CTYPE = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}
SMS = 132


def fill_source(inner: tuple[int, ...], sstr: tuple[int, ...], eb: int, total: int, nt: int,
                threads: int, store: str, unroll: int) -> tuple[str, int]:
    """CUDA C of the periodic fill (module doc) and its thread count."""
    period = math.prod(inner)
    ve = 16 // eb
    lbytes = period * eb * 16 // math.gcd(period * eb, 16)
    u = lbytes // 16
    nvec = total * eb // 16
    assert nvec + nt < 2**32
    off = ["unsigned q = p, off = 0, r;"]
    for n, s in zip(reversed(inner), reversed(sstr)):
        off.append(f"r = q % {n}u; q /= {n}u;" + (f" off += r * {s}u;" if s else ""))
    offc = " ".join(off)
    st = "__stcs(dst + v, c.v);" if store == "cs" else "dst[v] = c.v;"
    src = f"""
typedef {CTYPE[eb]} E;
__device__ __forceinline__ unsigned src_off(unsigned p) {{ {offc} return off; }}
extern "C" __global__ void __launch_bounds__({threads}) periodic_fill(const E* __restrict__ src, uint4* __restrict__ dst) {{
  unsigned t = blockIdx.x * {threads}u + threadIdx.x;
  if (t >= {nt}u) return;
  unsigned u = t % {u}u;
  union {{ uint4 v; E e[{ve}]; }} c;
  #pragma unroll
  for (int i = 0; i < {ve}; ++i) {{
    unsigned long long e = (unsigned long long)u * {ve}u + i;
    c.e[i] = src[src_off((unsigned)(e % {period}ull))];
  }}
  #pragma unroll {unroll}
  for (unsigned v = t; v < {nvec}u; v += {nt}u) {st}
  if (t == 0) {{
    E* d = (E*)dst;
    for (unsigned long long e = {nvec}ull * {ve}u; e < {total}ull; ++e) d[e] = src[src_off((unsigned)(e % {period}ull))];
  }}
}}
"""
    return src, u


def const_grid(name: str, nvec: int) -> int:
    """Blocks of 256 threads of `const_source(name)`."""
    if name == "c_stride":
        return SMS * 2048 // 256
    per = int(name[len("c_block"):]) if name.startswith("c_block") else 1
    return -(-nvec // (256 * per))


def const_source(name: str, nvec: int) -> str:
    """CUDA C storing one constant 16-byte vector over `nvec` vectors in the order `name`
    says: `c_stride` a grid-stride loop over ~2048 threads a multiprocessor (the fill's
    order), `c_blockK` each block K contiguous 4 KiB steps (a warp's store 512 contiguous
    bytes), `c_one` one vector a thread."""
    if name == "c_stride":
        nt = SMS * 2048
        body = f"for (unsigned v = t; v < {nvec}u; v += {nt}u) dst[v] = c;"
    else:
        per = int(name[len("c_block"):]) if name.startswith("c_block") else 1
        body = (f"unsigned b = blockIdx.x * {256 * per}u + threadIdx.x;\n  #pragma unroll\n"
                f"  for (int k = 0; k < {per}; ++k) if (b + k * 256u < {nvec}u) dst[b + k * 256u] = c;")
    return f"""
extern "C" __global__ void __launch_bounds__(256) const_fill(uint4* __restrict__ dst) {{
  unsigned t = blockIdx.x * 256u + threadIdx.x;
  uint4 c = make_uint4(0x4d4d4d4du, 0x4d4d4d4du, 0x4d4d4d4du, 0x4d4d4d4du);
  (void)t;
  {body}
}}
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="32,44,14,20,2,38")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--canonical", default="", help="canonical copies by names' parts, `|` between")
    ap.add_argument("--variants", default="fill,cs,half")
    ap.add_argument("--tilec", default="2048", help="tilec's fill form (`gather_fill=N`) at these N, `tN`")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    import copy_bench
    import cupy as cp
    import strided_copy_bench as sb
    import torch

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import Operand, plan_copy
    from tilec.copy_routes import forced_routes

    cases = sb.generate_cases(0, 48, 64, 1024)
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    todo: list = [int(x) for x in a.only.split(",") if x]  # the strided cases first
    if a.canonical:
        from helpers.canonical_copies import CANONICAL
        todo += [c for part in a.canonical.split("|") for c in CANONICAL if part in c.name][:8]
    for i in todo:
        if isinstance(i, int):
            case = cases[i]
            src, dst_base, dst = sb._make(torch, case, gen)
            moved = case.bytes_read + case.bytes_written
            label = f"{i:02d}"
        else:
            import canonical_copy_bench as cb
            case = i
            _, src, dst = cb._make(torch, case, gen)
            dst_base = dst
            moved = cb.bytes_moved(case)
            label = case.name
        dst_base.fill_(77)
        ref = dst_base.clone()
        (ref[tuple(slice(*ix) for ix in case.dst_index)] if getattr(case, "dst_base", None) else ref).copy_(src)
        refb = sb._bits(torch, ref)
        mc = copy_bench.memcpy_tbps(moved // 2)
        plan = plan_copy(Operand(dst.data_ptr(), case.dst_dtype, tuple(dst.shape), tuple(dst.stride())),
                         Operand(src.data_ptr(), case.src_dtype, tuple(src.shape), tuple(src.stride())))
        ns, ss, ds = plan.extents, plan.src_strides, plan.dst_strides
        eb = dst.element_size()
        kern = CopyKernels(disk=False)
        calls = {"tree": lambda: tensor_copy.copy_(dst, src, kernels=kern)}
        flat = all(ds[k] == math.prod(ns[k + 1:]) for k in range(len(ns)))
        why = ""
        if len(ns) < 2 or ss[0] != 0 or not flat or plan.dst_ptr % 16:
            why = f"not a periodic fill (extents {ns} src {ss} dst {ds})"
        else:
            total = math.prod(ns)
            nvec = total * eb // 16
            for name in (x for x in a.variants.split(",") if x.startswith("c_")):
                # a constant written as 16-byte vectors, no loads: the store order alone
                k = cp.RawKernel(const_source(name, nvec), "const_fill", options=("-std=c++17",))
                grid = (const_grid(name, nvec),)
                dp = cp.uint64(dst.data_ptr())
                calls[name] = lambda k=k, grid=grid, dp=dp: k(grid, (256,), (dp,))
            for name in (x for x in a.variants.split(",") if x and not x.startswith("c_")):
                threads = 256
                per_sm = 1024 if name == "half" else 2048
                lbytes = math.prod(ns[1:]) * eb * 16 // math.gcd(math.prod(ns[1:]) * eb, 16)
                u = lbytes // 16
                m = max(1, round(SMS * per_sm / u))
                code, _ = fill_source(tuple(ns[1:]), tuple(ss[1:]), eb, total, m * u, threads,
                                      "cs" if name == "cs" else "", 1 if name == "u1" else 4)
                k = cp.RawKernel(code, "periodic_fill", options=("-std=c++17",))
                grid = (-(-m * u // threads),)
                sp, dp = cp.uint64(src.data_ptr()), cp.uint64(dst.data_ptr())
                calls[name] = (lambda k=k, grid=grid, threads=threads, sp=sp, dp=dp:
                               k(grid, (threads,), (sp, dp)))
                print(f"{label} {name}: U {u} vectors, {m * u} threads, {total * eb // 16 / (m * u):.1f} stores a thread",
                      flush=True)
        for per_sm in (int(x) for x in a.tilec.split(",") if x):
            # tilec's own fill form (passes/_fill_tile.py) through copy_, a fresh CopyKernels
            kf = CopyKernels(disk=False)

            def call(kf=kf, per_sm=per_sm):
                with forced_routes(gather_fill=per_sm):
                    tensor_copy.copy_(dst, src, kernels=kf)
            calls[f"t{per_sm}"] = call
        calls["fill_"] = lambda: dst.fill_(3)
        calls["memset"] = lambda: cp.cuda.runtime.memsetAsync(dst.data_ptr(), 5, dst.numel() * eb, 0)
        exact = {}
        for n in list(calls):
            if n in ("fill_", "memset") or n.startswith("c_"):
                continue
            dst_base.fill_(77)
            calls[n]()
            torch.cuda.synchronize()
            exact[n] = bool(torch.equal(sb._bits(torch, dst_base), refb))
        names = list(calls)
        times: dict[str, list[float]] = {n: [] for n in names}
        for r in range(a.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for n in order:
                times[n].append(sb._median(copy_bench, calls[n], a.reps))
        out = [label]
        row = {"case": label, "name": case.name, "why": why, "ratios": {}, "x": {}, "us": {}}
        for n in names:
            ratio = statistics.median(copy_bench.tbps(moved, t) / mc for t in times[n])
            row["ratios"][n] = ratio
            row["us"][n] = statistics.median(times[n]) * 1e3
            out.append(f"{n} {ratio:.3f}{'' if exact.get(n, True) else '!'}")
        for n in names[1:]:
            rel = [t / v for t, v in zip(times["tree"], times[n])]
            row["x"][n] = (statistics.median(rel), min(rel), max(rel))
            if n not in ("fill_", "memset") and not n.startswith("c_"):
                out.append(f"{n}/tree x{statistics.median(rel):.3f} [{min(rel):.3f}, {max(rel):.3f}]")
        row["exact"] = exact
        print(" | ".join(out) + (f" ({why})" if why else ""), flush=True)
        rows.append(row)
        del src, dst_base, dst, ref, refb, calls
        torch.cuda.empty_cache()
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
