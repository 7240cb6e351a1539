"""Nsight Compute figures of one FP8 `tilec.matmul` kernel (issue 39: what holds the
block-scaled 128 x 128 tile at 8192^3): one launch of a configuration forced by name
(benchmarks/matmul_bench.py's `parse_config`: `f8b:` block-scaled, `f8:` per-tensor)
profiled between `cudaProfilerStart`/`Stop` after two warm-up calls (with `FP8_PATCH=V`, its CUDA
patched as dev/experiments/fp8_prefetch_probe.py's variant V), then the raw CSV
that ncu prints summarised in a few lines (tensor pipe, L1/shared, L2 and DRAM
throughput, SM clock, issue activity, the largest warp stalls per issued instruction).

    bash dev/device/ncu_gemm_fp8.sh 8192 f8b:128x128x128:4 f8:128x128x128:4
    bash dev/device/ncu_gemm_fp8.sh 8192x8192x2048 f8b:128x128x128:4     (M x N x K)

runs, for each configuration, `ncu --clock-control none --profile-from-start off --csv
--page raw --section SpeedOfLight --section MemoryWorkloadAnalysis --section
WarpStateStats python3 dev/device/ncu_gemm_fp8.py CONFIG SIZE` and reads its CSV back
with `python3 dev/device/ncu_gemm_fp8.py --summary < CSV`; with `NCU_HOT=1`, also the
SourceCounters section into a report whose source page (`ncu --import REP --page source
--csv --print-source sass`) `--hot` reads: the SASS instructions the warp sampler caught
most, and why they stalled.
"""

from __future__ import annotations

import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "benchmarks"))

SHOWN = (
    ("gpu__time_duration.sum", "us", 1e-3),
    ("gpc__cycles_elapsed.avg.per_second", "GHz", 1e-9),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm%", 1),
    ("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "tensor%", 1),
    ("l1tex__throughput.avg.pct_of_peak_sustained_active", "l1%", 1),
    ("l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed", "lsu_wf%", 1),
    ("lts__throughput.avg.pct_of_peak_sustained_elapsed", "l2%", 1),
    ("lts__t_sector_hit_rate.pct", "l2hit%", 1),
    ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "dram%", 1),
    ("smsp__issue_active.avg.per_cycle_active", "issue/clk", 1),
    ("dram__bytes_read.sum", "dram_read", None),
    ("lts__t_sector_op_read_hit_rate.pct", "l2readhit%", 1),
)
"""The figures printed, when ncu reported them: (metric, label, factor); a factor of None:
the value as ncu printed it, with its unit (ncu scales bytes to Kbyte ... Gbyte)."""


def summary(rows: list[dict]) -> str:
    """One line per profiled kernel: `SHOWN`'s figures, then the five largest warp
    stalls (cycles per issued instruction)."""
    lines = []
    for r in rows:
        name = r.get("Kernel Name", "?")[:24]
        vals = []
        for metric, label, f in SHOWN:
            v = _number(r.get(metric))
            if v is not None:
                vals.append(f"{label} {v * f:.3g}" if f is not None
                            else f"{label} {v:.4g} {r.get('_units', {}).get(metric, '')}".rstrip())
        stalls = sorted(((k.split("stalled_")[1].split("_per")[0], _number(v)) for k, v in r.items()
                         if k.startswith("smsp__average_warps_issue_stalled_") and k.endswith("per_issue_active.ratio")
                         and _number(v) is not None), key=lambda x: -x[1])[:5]
        lines.append(f"{name}: " + ", ".join(vals) + " | stalls " + " ".join(f"{s} {v:.2f}" for s, v in stalls))
    return "\n".join(lines)


def _number(text) -> float | None:
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def read_raw(lines: list[str]) -> list[dict]:
    """The kernels' rows of ncu's `--csv --page raw` output (its header, a units row,
    then one row a kernel; ncu's own lines, `==PROF==` ..., skipped)."""
    body = [x for x in lines if x.startswith('"')]
    if len(body) < 3:
        return []
    rows = list(csv.DictReader(body))
    for r in rows[1:]:
        r["_units"] = rows[0]
    return rows[1:]  # the units row


def profile(name: str, size: str) -> None:
    import torch

    import tilec
    from matmul_bench import forced, parse_config
    from tilec import gemm

    cfg = parse_config(name)
    patch = os.environ.get("FP8_PATCH")  # a variant of dev/experiments/fp8_prefetch_probe.py (`cpa`): its CUDA
    if patch:
        sys.path.insert(0, os.path.join(HERE, "..", "experiments"))
        from fp8_prefetch_probe import VARIANTS

        from tilec.runtime import cache as kcache

        orig = kcache.KernelCache.compile

        def compile_(self, source, **kw):
            if "pscale_a[" in source:
                source = VARIANTS[patch](source)[0]
            return orig(self, source, **kw)

        kcache.KernelCache.compile = compile_
    m, n, k = (int(x) for x in size.split("x")) if "x" in size else (int(size),) * 3
    g = torch.Generator(device="cuda").manual_seed(7)
    a = (torch.randn(m, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
    w = (torch.randn(n, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
    if cfg.block_scales:
        sa = 0.5 + torch.rand(m, -(-k // 128), device="cuda", generator=g)
        sb = 0.5 + torch.rand(-(-n // 128), -(-k // 128), device="cuda", generator=g)
    else:
        sa, sb = torch.tensor(0.37, device="cuda"), torch.tensor(1.9, device="cuda")
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    with forced(gemm, cfg):
        for _ in range(2):
            tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb, out=c)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        tilec.matmul(a, w.t(), scale_a=sa, scale_b=sb, out=c)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()


def hot_instructions(lines: list[str], top: int = 16) -> str:
    """The `top` SASS instructions of ncu's `--page source --csv --print-source sass`
    page (a report with the SourceCounters section) that the warp-state sampler caught
    most, one a line: the share of all samples, the instruction (its opcode and first
    operands), and its two largest stall reasons where the page breaks them down; then
    the samples by opcode (shares of all) with their three largest stall reasons."""
    body = [x for x in lines if x.startswith('"')]
    # the page starts with the kernel's name ("Kernel Name","gemm_kernel"), then the header
    # of the instructions' table (H200, 2026-11-30): the table from its header on
    head = next((i for i, x in enumerate(body) if "Sampl" in x or '"Source"' in x or '"Address"' in x), 0)
    body = body[head:]
    if len(body) < 2:
        return "no source page: " + " / ".join(x.strip() for x in lines[-3:])[:300]
    rows = list(csv.DictReader(body))
    cols = [c for c in rows[0] if c]  # a ragged row's extra cells come under the key None
    total_col = next((c for c in cols if "Sampling (All" in c), None)
    src_col = next((c for c in cols if c.strip('# ').lower() in ("source", "sass")), cols[1])
    if total_col is None:
        return "columns: " + ", ".join(cols)[:400]
    stall_cols = [c for c in cols if c.startswith("stall_") or c.startswith("Stall ")]
    vals = [(_number(r.get(total_col)) or 0.0, r) for r in rows]
    total = sum(v for v, _ in vals) or 1.0
    out = []
    for v, r in sorted(vals, key=lambda x: -x[0])[:top]:
        reasons = sorted(((_number(r.get(c)) or 0.0, c.replace("stall_", "")) for c in stall_cols), reverse=True)[:2]
        text = " ".join(r.get(src_col, "").split())[:44]
        out.append(f"{100 * v / total:4.1f}% {text}" + "".join(f" [{n} {x:.0f}]" for x, n in reasons if x))
    # by opcode (the first word, predicate dropped): the share of samples and the two largest stall reasons
    ops: dict = {}
    for v, r in vals:
        words = [w for w in " ".join(r.get(src_col, "").split()).split() if not w.startswith("@")]
        op = words[0].split(".")[0] if words else "?"
        share, stalls = ops.setdefault(op, [0.0, {}])
        ops[op][0] = share + v
        for c in stall_cols:
            stalls[c.replace("stall_", "")] = stalls.get(c.replace("stall_", ""), 0.0) + (_number(r.get(c)) or 0.0)
    out.append("by opcode:")
    for op, (v, stalls) in sorted(ops.items(), key=lambda x: -x[1][0])[:12]:
        reasons = sorted(((x, n) for n, x in stalls.items()), reverse=True)[:3]
        out.append(f"{100 * v / total:4.1f}% {op}" + "".join(f" [{n} {100 * x / total:.1f}%]" for x, n in reasons if x))
    return "\n".join(out)


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        print(summary(read_raw(sys.stdin.read().splitlines())) or "no kernel profiled")
    elif sys.argv[1] == "--hot":
        print(hot_instructions(sys.stdin.read().splitlines()))
    else:
        profile(sys.argv[1], sys.argv[2])
