"""Where a merged `box<tiles>` block's time goes (strided 36 / 00): `clock64` stamps a block
in copy_'s kernel, read back from a `__device__` buffer. Not a test.

    python3 dev/experiments/box_stamps.py --only 36,0 [--variant r3=box_slot32:3] [--runs 3]

The kernel is copy_'s own (`CopyKernels`, routes as `strided_variants.py`'s `route:value`),
its CUDA source given stamps before NVRTC (text edits of the emitted source: a probe, not
a lowering). Thread 0 of each block writes, at

    0 entry, 1 past phase 0's barrier (run tables built; at entry where the box has none), 2 its own phase-1 copies issued
    (past the commit), 3 past phase 1's wait and barrier (the box landed), 4 past a barrier
    added after phase 2 (every store issued), 8 and 9 thread 0's and the block's last thread's
    own phase 2 done (before that barrier: the threads' balance); in a `box<rows>` kernel (strided 42, rows49)
    1 thread 0's runs' phase-1 copies issued ("tables" below), 2 the run ends' byte pass
    done ("issue"), 3 and 4 as above,

`clock64` (the multiprocessor's clock), then its `%smid` and `%globaltimer` at 0 and 4.
Per multiprocessor (clocks of one counter), the script sums over its span (first entry to
last end): the time with 0, 1, 2 blocks resident, and the time with at least one block in
phase 1 (between stamps 1 and 3: reads in flight) against none; per block the medians of
the parts. The stamped kernel is checked bit for bit against PyTorch, and the plain and
stamped kernels are timed in turns (the stamps' cost).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
sys.path.insert(0, here)

from stamps import clock_into, declare, device_array, refill_gaps  # noqa: E402

MAX_BLOCKS = 1 << 15
SLOTS = 10
MACROS = ("#define TL_CLK(v) asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(v) :: \"memory\")\n"
          "#define TL_GT(v) asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(v) :: \"memory\")\n")


def stamped(src: str) -> str:
    """copy_'s merged-box kernel source with the module doc's stamps; raises where the
    kernel's shape is not the one expected (one entry, phase-0 barrier, one commit / wait)."""
    anchor = "  const int tid = (int)threadIdx.x;\n"
    if src.count(anchor) != 1:
        raise ValueError("stamped: no single thread-index line")
    head = ("  unsigned long long tl_c0, tl_g0; TL_CLK(tl_c0); TL_GT(tl_g0);\n"
            "  const unsigned tl_b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);\n"
            f"  unsigned long long* const tl_row = tilec_stamps + (unsigned long long)(tl_b < {MAX_BLOCKS} ? tl_b : {MAX_BLOCKS - 1}) * {SLOTS};\n")

    def put(slot: int) -> str:
        return "  " + clock_into("tl_row", slot) + "\n"

    src = src.replace(anchor, anchor + head, 1)
    rows_wait = "  tilec_cp_async_wait<0>();\n  __syncthreads();\n"
    commit = "  tilec_cp_async_commit();\n" + rows_wait
    if src.count(commit) == 0 and src.count(rows_wait) == 1:
        # a `box<rows>` kernel: 1 past thread 0's runs' phase-1 copies (the loop over its
        # runs closed), 2 past the run ends' byte pass (at the wait), 3 past wait and barrier
        loop = re.search(r"\n  for \(int i = [^\n]*\n(?:    [^\n]*\n|\n)*  }\n", src[src.index(head):])
        if loop is None:
            raise ValueError("stamped: a rows kernel without its phase-1 loop over runs")
        at = src.index(head) + loop.end()
        src = src[:at] + put(1) + src[at:]
        src = src.replace(rows_wait, put(2) + rows_wait + put(3), 1)
    else:
        first_sync = "  __syncthreads();\n"
        i = src.index(first_sync, src.index(head))
        if src.find(commit, src.index(head)) == i - len(commit) + len(first_sync):
            # no phase 0 (a box without run tables: its first barrier is phase 1's): 1 at entry
            at = src.index(head) + len(head)
            src = src[:at] + put(1) + src[at:]
        else:
            src = src[:i + len(first_sync)] + put(1) + src[i + len(first_sync):]
        if src.count(commit) != 1:
            raise ValueError("stamped: phase 1's commit / wait / barrier not found once")
        src = src.replace(commit, "  tilec_cp_async_commit();\n" + put(2)
                          + "  tilec_cp_async_wait<0>();\n  __syncthreads();\n" + put(3), 1)
    end = src.rstrip()
    if not end.endswith("}"):
        raise ValueError("stamped: the kernel does not end the source")
    tail = ("  if (threadIdx.x == 0 || threadIdx.x == blockDim.x - 1) { unsigned long long tl_v; TL_CLK(tl_v);"
            " tl_row[threadIdx.x == 0 ? 8 : 9] = tl_v; }\n"
            "  __syncthreads();\n"
            "  if (threadIdx.x == 0) { unsigned long long tl_v, tl_g; TL_CLK(tl_v); TL_GT(tl_g); unsigned tl_sm;\n"
            "    asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(tl_sm));\n"
            "    tl_row[0] = tl_c0; tl_row[4] = tl_v; tl_row[5] = tl_sm; tl_row[6] = tl_g0; tl_row[7] = tl_g; }\n")
    src = end[:-1] + tail + "}\n"
    kernel_at = src.index('extern "C" __global__')
    return declare(src[:kernel_at] + MACROS + src[kernel_at:], "tilec_stamps", MAX_BLOCKS * SLOTS)


def stamped_kernels(pipeline: str = "default"):
    """A `CopyKernels` whose kernels carry the stamps."""
    from tilec.copy_kernels import CopyKernels

    class Stamped(CopyKernels):
        def _compile_now(self, key):
            entry = super()._compile_now(key)
            k = entry.kernel
            k.source = stamped(k.source)
            k._compiled, k._modules, k._functions, k._packed = {}, {}, {}, {}  # compiled again, stamped
            return entry

    return Stamped(disk=False, pipeline=pipeline)


def summary(s) -> dict:
    """The module doc's figures from stamps `s` ([blocks, SLOTS], the launch's blocks)."""
    import numpy as np

    s = s.astype(np.int64)
    parts = {"tables": s[:, 1] - s[:, 0], "issue": s[:, 2] - s[:, 1], "wait": s[:, 3] - s[:, 2],
             "phase2": s[:, 4] - s[:, 3], "block": s[:, 4] - s[:, 0],
             "p2first": s[:, 8] - s[:, 3], "p2last": s[:, 9] - s[:, 3]}
    out = {f"{k}_med": float(np.median(v)) for k, v in parts.items()}
    out["blocks"] = int(len(s))
    ns = (s[:, 7] - s[:, 6]).astype(float)
    out["ghz"] = float(np.median(parts["block"] / np.maximum(ns, 1)))
    res = {0: 0, 1: 0, 2: 0, 3: 0}
    p1 = {"reads": 0, "none": 0}
    both = {"rr": 0, "rw": 0, "ww": 0, "one_p1": 0, "one_p2": 0, "one_p0": 0}
    span_total = 0
    gaps = []
    for sm in np.unique(s[:, 5]):
        b = s[s[:, 5] == sm]
        ev = []
        for r in b:
            ev += [(r[0], 0, +1), (r[1], 1, 0), (r[3], 3, 0), (r[4], 4, -1)]
        t0, t1 = b[:, 0].min(), b[:, 4].max()
        span_total += t1 - t0
        # sweep with each block's phase: 0 tables, 1 phase 1, 2 phase 2
        times = sorted({int(x) for r in b for x in (r[0], r[1], r[3], r[4])})
        for a, z in zip(times, times[1:]):
            mid = (a + z) / 2
            live = b[(b[:, 0] <= mid) & (b[:, 4] > mid)]
            n = len(live)
            res[min(n, 3)] += z - a
            ph = [0 if mid < r[1] else 1 if mid < r[3] else 2 for r in live]
            p1["reads" if 1 in ph else "none"] += z - a
            if n == 2:  # r: before the box landed (phases 0 and 1), w: phase 2
                both["".join(sorted("w" if x == 2 else "r" for x in ph))] += z - a
            elif n == 1:
                both[("one_p0", "one_p1", "one_p2")[ph[0]]] += z - a
        gaps += refill_gaps(b[:, 0], b[:, 4])
    for k, v in res.items():
        out[f"resident{k}"] = v / span_total
    for k, v in p1.items():
        out[f"phase1_{k}"] = v / span_total
    for k, v in both.items():
        out[k] = v / span_total
    out["refill_gap_med"] = float(np.median(gaps)) if gaps else 0.0
    out["sms"] = int(len(np.unique(s[:, 5])))
    out["sm_span_med"] = float(span_total / out["sms"])
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="36,0")
    ap.add_argument("--variant", action="append", default=[], help="name=SPEC (routes), as strided_turns.py's")
    ap.add_argument("--rounds", type=int, default=5, help="plain / stamped timing rounds")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--dump", default="", help="a folder for each launch's stamps (.npy)")
    ap.add_argument("--no-tree", action="store_true", help="the variants only (not the tree's kernel first)")
    a = ap.parse_args()
    import copy_bench
    import numpy as np
    import strided_copy_bench as sb
    import torch
    from strided_variants import parse_variant

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes

    variants = [] if a.no_tree else [("tree", {}, None)]
    variants += [(n, r, on) for n, r, _, _, on in (parse_variant(v) for v in a.variant)]
    cases = sb.generate_cases(0, 48, 64, 1024)
    gen = torch.Generator(device="cuda").manual_seed(0)
    alive = []  # every variant's kernels kept loaded: copy_'s fast path keeps their function handles
    for i in (int(x) for x in a.only.split(",") if x):
        case = cases[i]
        src, dst_base, dst = sb._make(torch, case, gen)
        dst_base.fill_(77)
        ref = dst_base.clone()
        (ref[tuple(slice(*ix) for ix in case.dst_index)] if getattr(case, "dst_base", None) else ref).copy_(src)
        ref_bits = sb._bits(torch, ref)
        for name, routes, on in variants:
            if on is not None and i not in on:  # `on:NN.MM`: the cases the variant applies to
                continue
            plain, stamp = CopyKernels(disk=False), stamped_kernels()
            alive.append((plain, stamp))
            calls = {}
            for kind, kern in (("plain", plain), ("stamped", stamp)):
                def call(kern=kern, routes=routes):
                    with forced_routes(**routes):
                        tensor_copy.copy_(dst, src, kernels=kern)
                dst_base.fill_(77)
                call()
                torch.cuda.synchronize()
                exact = bool(torch.equal(sb._bits(torch, dst_base), ref_bits))
                if not exact:
                    print(f"{i:02d} {name} {kind}: NOT EXACT", flush=True)
                calls[kind] = call
            kernel = next(iter(stamp._entries.values())).kernel
            buf = device_array(kernel, "tilec_stamps", MAX_BLOCKS * SLOTS)
            buf.fill(0)
            torch.cuda.synchronize()
            calls["stamped"]()
            torch.cuda.synchronize()
            s = buf.get().reshape(MAX_BLOCKS, SLOTS)
            s = s[s[:, 4] != 0]
            if a.dump:
                np.save(os.path.join(a.dump, f"stamps_{i:02d}_{name}.npy"), s)
            times = {"plain": [], "stamped": []}
            for r in range(a.rounds):
                for kind in (("plain", "stamped") if r % 2 == 0 else ("stamped", "plain")):
                    times[kind].append(sb._median(copy_bench, calls[kind], a.reps))
            f = summary(s)
            tp, ts = statistics.median(times["plain"]), statistics.median(times["stamped"])
            print(f"{i:02d} {name}: {f['blocks']} blocks on {f['sms']} SMs, plain {tp * 1e3:.1f} us, stamped x{tp / ts:.3f}; "
                  f"block median {f['block_med']:.0f} clk = tables {f['tables_med']:.0f} + issue {f['issue_med']:.0f} "
                  f"+ wait {f['wait_med']:.0f} + phase2 {f['phase2_med']:.0f}; {f['ghz']:.2f} GHz", flush=True)
            print(f"   SM time: resident 0/1/2 {f['resident0']:.3f}/{f['resident1']:.3f}/{f['resident2']:.3f}; "
                  f"reads in flight {f['phase1_reads']:.3f}, none {f['phase1_none']:.3f}; two blocks r+r {f['rr']:.3f} "
                  f"r+w {f['rw']:.3f} w+w {f['ww']:.3f}; one block p0 {f['one_p0']:.3f} p1 {f['one_p1']:.3f} "
                  f"p2 {f['one_p2']:.3f}; refill gap {f['refill_gap_med']:.0f} clk; SM span {f['sm_span_med']:.0f} clk",
                  flush=True)
            print(f"# {i:02d} {name}: blk {f['block_med']:.0f}=t{f['tables_med']:.0f}+i{f['issue_med']:.0f}"
                  f"+w{f['wait_med']:.0f}+p2 {f['phase2_med']:.0f} (t0 {f['p2first_med']:.0f} tN {f['p2last_med']:.0f}); res0/1/2 {f['resident0']:.2f}/{f['resident1']:.2f}/"
                  f"{f['resident2']:.2f}; rd {f['phase1_reads']:.2f}; rr/rw/ww {f['rr']:.2f}/{f['rw']:.2f}/{f['ww']:.2f}; "
                  f"gap {f['refill_gap_med']:.0f}; st x{tp / ts:.3f}", flush=True)
        del src, dst_base, dst, ref, ref_bits
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
