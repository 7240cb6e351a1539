"""Where box flat's time goes (issue 35, b0048): `clock64` stamps in the Program's `box<flat>`
kernel (canonical "box flat bool 19x38647519", the default pipeline: blocks of two parts
through a ring of two boxes, `BOX_DEPTH` / `BOX_RING`), read back from a `__device__` buffer.

Thread 0 of each block stamps, in the kernel's one rolled loop over `i` (part `i`'s phase 1
issued where `i < 2`, part `i - 1` waited on its mbarrier and stored where `i >= 1`, then
`__syncthreads`): the block's start, each trip's head, its phase 1 issued, its wait done and
its barrier passed; plus `%smid` and `%globaltimer` at the start and the end. From them:

- the block's parts (medians over the blocks, clocks): setup (start -> part 0 issued), the
  first wait (both parts issued -> part 0 landed), phase 2 of part 0 (-> the barrier after
  it), the second wait, phase 2 of part 1;
- per multiprocessor (blocks of one SM share its `clock64`): how much of the kernel's span a
  block slot holds a block (the rest: launch gaps and the tail), the gap from a block's end to
  the next start on the same SM;
- the time with loads in flight: a slot's part issued and not landed.

The stamped kernel is checked bit for bit against PyTorch and timed beside the unstamped one
(the stamps' cost). Not a test; nothing of the product changes.

    python3 dev/experiments/flat_stamps.py [--json OUT.json]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "benchmarks"), os.path.join(HERE, "..", "..", "tests")]

from stamps import clock_into, declare, device_array, refill_gaps  # noqa: E402

POINTS = 16
"""Stamps a block: 0 start clock, 1 smid, 2 start globaltimer, 3 end globaltimer, 4 + 4 i +
(0 head, 1 issued, 2 waited, 3 synced) for trips i = 0, 1, 2."""
MAX_BLOCKS = 16384


def _stamp(i: str) -> str:
    return clock_into("tl_row", i, "tid == 0", "long long")


def stamped(src: str) -> str:
    """`src` (the flat Program's CUDA) with the module docstring's stamps."""
    src = declare(src, "tilec_stamps", MAX_BLOCKS * POINTS, "long long")
    head = "  const int tid = (int)threadIdx.x;\n"
    assert head in src
    src = src.replace(head, head + (
        "  long long* const tl_row = tilec_stamps + (unsigned)blockIdx.x * %du;\n"
        "  if (tid == 0) { long long tl_v, tl_g; unsigned tl_s;\n"
        '    asm volatile("mov.u64 %%0, %%%%clock64;" : "=l"(tl_v) :: "memory");\n'
        '    asm volatile("mov.u64 %%0, %%%%globaltimer;" : "=l"(tl_g) :: "memory");\n'
        '    asm volatile("mov.u32 %%0, %%%%smid;" : "=r"(tl_s));\n'
        "    tl_row[0] = tl_v; tl_row[1] = tl_s; tl_row[2] = tl_g; }\n") % POINTS, 1)
    loop = re.search(r"  #pragma unroll 1\n  for \(int (i) = 0; i < 3; \+\+i\) \{\n", src)
    assert loop, "the flat kernel's rolled loop over its parts"
    src = src[:loop.end()] + "    " + _stamp("4 + 4 * i + 0") + "\n" + src[loop.end():]
    issued = "    const bool p_5 = (unsigned int)i >= (unsigned int)1;\n"
    assert issued in src
    src = src.replace(issued, "    " + _stamp("4 + 4 * i + 1") + "\n" + issued, 1)
    wait = re.search(r"      tilec_mbarrier_wait\([^\n]*\n", src)
    src = src[:wait.end()] + "      " + _stamp("4 + 4 * i + 2") + "\n" + src[wait.end():]
    tail = "    __syncthreads();\n  }\n}"
    assert src.rstrip().endswith(tail), src[-200:]
    src = src.rstrip()[: -len(tail)] + (
        "    __syncthreads();\n    " + _stamp("4 + 4 * i + 3") + "\n  }\n"
        '  if (tid == 0) { long long tl_g; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(tl_g) :: "memory");'
        " tl_row[3] = tl_g; }\n}\n")
    return src


def report(s, head: dict) -> dict:
    """The module docstring's parts, slots and spans of the stamps `s` ([blocks, POINTS],
    the blocks that ran), printed; `head`: the case, exactness, times and ratios."""
    import numpy as np

    nb = len(s)
    def med(x):
        return float(np.median(x))

    issued = lambda i: s[:, 5 + 4 * i]  # noqa: E731
    waited = lambda i: s[:, 6 + 4 * i]  # noqa: E731
    synced = lambda i: s[:, 7 + 4 * i]  # noqa: E731
    parts = {
        "setup (start -> part 0 issued)": issued(0) - s[:, 0],
        "part 1 issued (-> its head after the barrier)": issued(1) - synced(0),
        "wait 0 (parts issued -> part 0 landed)": waited(1) - issued(1),
        "phase 2 of part 0 (-> barrier)": synced(1) - waited(1),
        "wait 1 (-> part 1 landed)": waited(2) - synced(1),
        "phase 2 of part 1 (-> barrier)": synced(2) - waited(2),
        "block (start -> end)": synced(2) - s[:, 0],
    }
    out = {**head, "blocks": int(nb),
           "parts_median_clocks": {k: med(v) for k, v in parts.items()},
           "parts_mean_clocks": {k: float(np.mean(v)) for k, v in parts.items()}}
    # per SM: blocks in clock order; slots busy; gaps end -> next start
    sm = s[:, 1]
    busy, spans, gaps, conc = [], [], [], []
    for m in np.unique(sm):
        b = s[sm == m]
        st0, en = b[:, 0], b[:, 7 + 8]
        order = np.argsort(st0)
        st0, en = st0[order], en[order]
        span = en.max() - st0.min()
        spans.append(span)
        busy.append(float((en - st0).sum()) / span)  # mean blocks resident over the SM's span
        gaps += refill_gaps(st0, en)  # a slot freed -> refilled
        # loads in flight: clocks where some block of this SM has a part issued and not landed
        ev = []
        for row in b:
            for lo, hi in ((row[5], row[10]), (row[9], row[14])):
                ev += [(lo, 1), (hi, -1)]
        ev.sort()
        cur, last, inflight = 0, ev[0][0], 0
        for t, d in ev:
            if cur > 0:
                inflight += t - last
            cur += d
            last = t
        conc.append(inflight / span)
    gt = s[:, 3] - s[:, 2]
    kernel_ns = s[:, 3].max() - s[:, 2].min()
    out["per_sm"] = {"sms": int(len(spans)), "blocks_resident_mean": med(busy),
                     "gap_end_to_next_start_median_clocks": med(gaps) if gaps else None,
                     "gap_p90_clocks": float(np.percentile(gaps, 90)) if gaps else None,
                     "share_of_span_with_loads_in_flight": med(conc)}
    out["globaltimer"] = {"kernel_ns": int(kernel_ns), "block_ns_median": med(gt),
                          "last_start_ns": int(s[:, 2].max() - s[:, 2].min()),
                          "first_end_ns": int(s[:, 3].min() - s[:, 2].min())}
    ends = np.sort(s[:, 3] - s[:, 2].min())
    out["globaltimer"]["tail_ns"] = int(ends[-1] - ends[-2 * len(spans)])
    clk = med(parts["block (start -> end)"]) / med(gt)  # clocks a ns
    out["clock_ghz"] = clk
    print(f"== {out['case']}: {nb} blocks on {len(spans)} SMs, exact {out['exact']}, plain {out['ms']['plain']*1e3:.1f} us"
          f" stamped {out['ms']['stamped']*1e3:.1f} us (of cudaMemcpy {out['ratio']['plain']:.3f} /"
          f" {out['ratio']['stamped']:.3f}), kernel by globaltimer {kernel_ns/1e3:.1f} us, {clk:.2f} GHz")
    for k, v in parts.items():
        print(f"  {k:46s} median {med(v):8.0f} mean {np.mean(v):8.0f} clocks")
    p = out["per_sm"]
    print(f"  blocks resident a SM (mean over its span) {p['blocks_resident_mean']:.2f}; slot refill gap median"
          f" {p['gap_end_to_next_start_median_clocks']:.0f} p90 {p['gap_p90_clocks']:.0f} clocks;"
          f" loads in flight {p['share_of_span_with_loads_in_flight']:.3f} of the span")
    g = out["globaltimer"]
    print(f"  last block start at {g['last_start_ns']/1e3:.1f} us, first end {g['first_end_ns']/1e3:.1f} us,"
          f" the last {2 * len(spans)} blocks' ends spread over {g['tail_ns']/1e3:.1f} us")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default="")
    ap.add_argument("--case", default="box flat")
    ap.add_argument("--reps", type=int, default=20)
    a = ap.parse_args(argv)
    import canonical_copy_bench as ccb
    import copy_bench
    import numpy as np
    import torch

    from tilec.copy_plan import plan_copy

    case = next(c for c in ccb.cases(False) if a.case in c.name)
    gen = torch.Generator(device="cuda").manual_seed(0)
    base, src, dst = ccb._make(torch, case, gen)
    want = torch.empty_like(dst).copy_(src)
    plan = plan_copy(ccb._operand(dst), ccb._operand(src))
    kernel, args = ccb._program_kernel(torch, plan, src, dst, base)
    kernel = kernel.specialization(*args) if hasattr(kernel, "specialization") else kernel  # (the Kernel run)
    st = copy.copy(kernel)
    st._compiled, st._modules, st._functions, st._packed = {}, {}, {}, {}
    st.source = stamped(kernel.source)
    exact = {}
    for name, k in (("plain", kernel), ("stamped", st)):
        ccb._poison(torch, dst)
        k(*args)
        torch.cuda.synchronize()
        exact[name] = bool(torch.equal(ccb._bits(torch, dst), ccb._bits(torch, want)))
    arr = device_array(st, "tilec_stamps", MAX_BLOCKS * POINTS, "int64")
    arr.fill(0)
    st(*args)
    torch.cuda.synchronize()
    s = np.asarray(arr.get()).reshape(MAX_BLOCKS, POINTS)
    s = s[s[:, 0] != 0]
    # times in turns (3 rounds): the stamps' cost
    times = {"plain": [], "stamped": []}
    for r in range(3):
        for name, k in (("plain", kernel), ("stamped", st))[:: 1 if r % 2 == 0 else -1]:
            times[name].append(copy_bench.median_ms(lambda k=k: k(*args), 3, a.reps))
    moved = ccb.bytes_moved(case)
    mc = copy_bench.memcpy_tbps(moved // 2)

    out = report(s, {"case": case.name, "exact": exact, "ms": {k: statistics.median(v) for k, v in times.items()},
                     "memcpy_tbps": mc, "ratio": {k: copy_bench.tbps(moved, statistics.median(v)) / mc
                                                  for k, v in times.items()}})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
