"""Probe (not a product path): would an L2 bulk prefetch of a block's whole row make
the two-pass long-row kernels (softmax, RMSNorm at N = 50257 / 131072) reach the copy
limit? Decides whether a `prefetch` pass is worth building.

    python3 benchmarks/probe_row_prefetch.py --json OUT.json

The two-pass kernels read their row twice; the second read finds the row in L2 only
while every resident block's row fits there. `choose-warps{l2_rows}` makes the blocks
few enough (32 warps) but then each has only one 4096-element chunk of loads in flight,
too few bytes for DRAM's rate. A `cp.async.bulk.prefetch.L2` of the whole row, issued
by one thread when the block starts, puts all of the row's bytes in flight at once
(the TMA engine, no registers, no shared memory): the first loop's loads then hit L2 as
the second's do.

For each case the probe takes tilec's CUDA (examples/python/row_kernels.py through the
default pipeline and benchmarks/realistic_rows.py's variants), and the same CUDA with
the prefetch added at the top of the kernel (the row's 16-byte-aligned interior; with
`reread-*hints` under an evict_last policy), compiles both with tilec's NVRTC, runs them
on the same input (outputs compared bit for bit: the prefetch changes no value) and
times them with CUDA events (median of 15 launches), as a ratio to a device-to-device
copy of the same bytes (input + output). The edit of the emitted CUDA is this probe's
only: if it pays, the prefetch becomes an op and a pass.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples", "python"))
import realistic_rows as rr  # noqa: E402
import row_kernels as rk  # noqa: E402

CASES = [("softmax", "f16", 50257), ("softmax", "f32", 50257), ("rms_norm", "f16", 50257),
         ("softmax", "f16", 131072)]
VARIANTS = ("default", "reread-hints", "l2-rows", "reread-l2", "reread-l2-hints")
M = 16384
ELEM = {"f16": 2, "f32": 4}

_PREFETCH = """
  if (threadIdx.x == 0) {{
    // probe: the row's 16-byte-aligned interior prefetched into L2 at once
    const unsigned long long row = (unsigned long long)({src} + (long long)blockIdx.x * {n});
    const unsigned long long lo = (row + 15ull) & ~15ull;
    const unsigned long long hi = (row + {nbytes}ull) & ~15ull;
    if (hi > lo) {{
{issue}
    }}
  }}
"""
_PLAIN = ('      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" '
          ':: "l"(lo), "r"((unsigned)(hi - lo)) : "memory");')
_LAST = ('      unsigned long long pol;\n'
         '      asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));\n'
         '      asm volatile("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%0], %1, %2;" '
         ':: "l"(lo), "r"((unsigned)(hi - lo)), "l"(pol) : "memory");')


def source(kind: str, dtype: str, n: int, variant: str) -> str:
    """tilec's CUDA for the case through the default pipeline or `variant`'s."""
    from tilec.compiler.pipeline import NAMED_PIPELINES, emit, run_pipeline

    pipe = NAMED_PIPELINES["default"] if variant == "default" else rr.variant_pipeline(variant)
    module = rk.KERNELS[kind](n, dtype).module.clone()
    run_pipeline(module, pipe)
    return emit(module, "cuda")


def with_prefetch(src: str, n: int, nbytes: int, last: bool) -> str:
    """`src` with the probe's prefetch after the kernel's opening brace."""
    m = re.search(r'extern "C" __global__ void __launch_bounds__\(\d+\)\n\w+\(const \w+\* __restrict__ (\w+)[^{]*\{\n',
                  src)
    assert m, "kernel signature not found"
    code = _PREFETCH.format(src=m.group(1), n=n, nbytes=nbytes, issue=_LAST if last else _PLAIN)
    return src[: m.end()] + code + src[m.end():]


def kernel_of(src: str):
    import cupy as cp

    from tilec.runtime.nvrtc import compile_cuda

    res = compile_cuda(src, arch="sm_90")
    path = f"/tmp/probe_row_prefetch_{abs(hash(src))}.cubin"
    with open(path, "wb") as f:
        f.write(res.cubin)
    name = re.search(r'extern "C" __global__ void __launch_bounds__\((\d+)\)\n(\w+)\(', src)
    mod = cp.RawModule(path=path)
    return mod.get_function(name.group(2)), int(name.group(1))


def time_it(fn, reps: int = 15) -> float:
    import cupy as cp

    fn()
    ts = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
    return statistics.median(ts)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default=None)
    ap.add_argument("--budget", type=float, default=150.0)
    ap.add_argument("--dry-run", action="store_true", help="no GPU: build and NVRTC-compile every source")
    args = ap.parse_args(argv)
    if args.dry_run:
        from tilec.runtime.nvrtc import compile_cuda

        for kind, dtype, n in CASES:
            for variant in VARIANTS:
                base = source(kind, dtype, n, variant)
                for pf in (False, True):
                    src = with_prefetch(base, n, n * ELEM[dtype], "hints" in variant) if pf else base
                    compile_cuda(src, arch="sm_90")
                print(f"{kind} {dtype} N={n} {variant}: compiled with and without the prefetch", flush=True)
        return
    import cupy as cp
    import numpy as np

    start = time.monotonic()
    rows = []
    for kind, dtype, n in CASES:
        if time.monotonic() - start > args.budget:
            print(f"budget spent: {kind} {dtype} N={n} not run")
            continue
        npdt = np.float16 if dtype == "f16" else np.float32
        x = cp.random.standard_normal((M, n), dtype=np.float32).astype(npdt)
        w = cp.random.standard_normal((n,), dtype=np.float32).astype(npdt)
        y = cp.empty_like(x)
        nbytes = x.nbytes
        copy_us = time_it(lambda: cp.cuda.runtime.memcpyAsync(y.data.ptr, x.data.ptr, nbytes, 3,
                                                                 cp.cuda.get_current_stream().ptr))
        for variant in VARIANTS:
            base = source(kind, dtype, n, variant)
            for pf in (False, True):
                src = with_prefetch(base, n, n * ELEM[dtype], "hints" in variant) if pf else base
                fn, threads = kernel_of(src)
                out = cp.full_like(x, np.nan)
                argv_ = (x, out, w, np.int64(M)) if kind == "rms_norm" else (x, out, np.int64(M))
                run = (lambda fn=fn, threads=threads, argv_=argv_: fn((M,), (threads,), argv_))
                run()
                cp.cuda.runtime.deviceSynchronize()
                if not pf:
                    ref = out.copy()
                    same = True
                else:
                    same = bool(cp.array_equal(out.view(np.int16 if dtype == "f16" else np.int32),
                                               ref.view(np.int16 if dtype == "f16" else np.int32)))
                us = time_it(run)
                rows.append({"kind": kind, "dtype": dtype, "n": n, "m": M, "variant": variant,
                             "prefetch": pf, "threads": threads, "us": us, "copy_us": copy_us,
                             "ratio": copy_us / us, "same_output": same})
                print(f"{kind:8s} {dtype} N={n:6d} {variant:16s} prefetch={'yes' if pf else 'no ':3s} "
                      f"threads={threads:4d} {us:8.1f} us  {copy_us / us:.2f} of copy  same={same}", flush=True)
        del x, y, w
        cp.get_default_memory_pool().free_all_blocks()
    print("\n| case | variant | threads | no prefetch | L2 bulk prefetch |\n|---|---|---|---|---|")
    for r in rows:
        if r["prefetch"]:
            continue
        p = next(q for q in rows if q["prefetch"] and all(q[k] == r[k] for k in ("kind", "dtype", "n", "variant")))
        print(f"| {r['kind']} {r['dtype']} N={r['n']} | {r['variant']} | {r['threads']} | {r['ratio']:.2f} | "
              f"{p['ratio']:.2f}{'' if p['same_output'] else ' (OUTPUT DIFFERS)'} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
