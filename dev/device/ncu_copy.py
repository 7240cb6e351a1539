"""Nsight Compute figures of one canonical copy (issue 35: what bounds the odd transposes):
the first case of tests/helpers/canonical_copies.py whose name contains NAME (or
`contig:N`, a contiguous uint8 copy of N bytes through `tilec.copy_`, or `strided:N`, case N of benchmarks/strided_copy_bench.py's generated set, its VARIANT
routes `name=value,...` of api/copy_routes.py, or one of
dev/experiments/odd_extra_bench.py's odd transposes), through
`tilec.copy_` or, with a `canonical_copy_bench.py` variant (`tile{box_smem=76800}`; '' the
default pipeline), the Program of the same views through that pipeline; one launch
profiled between `cudaProfilerStart`/`Stop` after two warm-up calls (neither the compile
nor the first launch is profiled). The raw CSV ncu prints is then summarised in two lines:

    bash dev/device/ncu_copy.sh 'transpose int8 8191' ['tile{box_smem=76800}' ...]

runs, per path, `ncu --clock-control none --profile-from-start off --csv --page raw` with
the speed-of-light, memory (and its tables), warp-state, occupancy and launch sections on
`python3 dev/device/ncu_copy.py NAME [VARIANT]`, and reads the CSV back with
`python3 dev/device/ncu_copy.py --summary < CSV`: the kernel's time, DRAM throughput and
bytes, L2 hit rate, sectors a request of its global loads, cp.async and stores, shared
wavefronts a request (4: 4-way bank conflicts), the launch (grid, block, registers,
shared memory, the blocks a multiprocessor holds and the waves of the grid), achieved
occupancy, and the five largest warp stalls (cycles per issued instruction).
"""

from __future__ import annotations

import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path[:0] = [os.path.join(ROOT, "benchmarks"), os.path.join(ROOT, "tests")]

from ncu_gemm_fp8 import _number, read_raw  # noqa: E402  (ncu's raw CSV page, read one way)

FIGURES = (
    ("gpu__time_duration.sum", "us", 1e-3, "{:.1f}"),
    ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "dram%", 1, "{:.1f}"),
    ("dram__bytes_read.sum", "dram_rd_MB", 1e-6, "{:.1f}"),
    ("dram__bytes_write.sum", "dram_wr_MB", 1e-6, "{:.1f}"),
    ("lts__t_sector_hit_rate.pct", "l2hit%", 1, "{:.0f}"),
    ("l1tex__throughput.avg.pct_of_peak_sustained_active", "l1%", 1, "{:.0f}"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "occ%", 1, "{:.0f}"),
    ("smsp__issue_active.avg.per_cycle_active", "issue/clk", 1, "{:.2f}"),
    ("smsp__inst_executed.sum", "inst_M", 1e-6, "{:.1f}"),
)
"""The figures of the first line, where ncu reported them: (metric, label, factor, format)."""

LAUNCH = (
    ("launch__grid_size", "grid"),
    ("launch__block_size", "block"),
    ("launch__registers_per_thread", "regs"),
    ("launch__shared_mem_per_block_dynamic", "smem"),
    ("launch__occupancy_limit_registers", "lim_regs"),
    ("launch__occupancy_limit_shared_mem", "lim_smem"),
    ("launch__waves_per_multiprocessor", "waves"),
)
"""The launch's figures of the second line: (metric, label)."""

RATIOS = (
    ("ld sec/req", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
    ("cp.async sec/req", "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
     "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum"),
    ("st sec/req", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
    ("lds wf/req", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum"),
    ("sts wf/req", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "smsp__sass_inst_executed_op_shared_st.sum"),
)
"""Ratios of the second line: (label, numerator, denominator)."""


def summary(rows: list[dict]) -> str:
    """Two lines a profiled kernel (module doc); a metric ncu did not report is left out."""
    out = []
    for r in rows:
        first = []
        units = r.get("_units") or {}
        for metric, label, f, fmt in FIGURES:
            v = _number(r.get(metric))
            if v is not None and units.get(metric) in _SCALE:  # an imported report: values in their units
                v, f = _scaled(r, metric), 1e6 if metric.startswith("gpu__time") else 1e-6
            if v is not None:
                first.append(f"{label} {fmt.format(v * f)}")
        stalls = sorted(((k.split("stalled_")[1].split("_per")[0], _number(v)) for k, v in r.items()
                         if k.startswith("smsp__average_warps_issue_stalled_") and k.endswith("per_issue_active.ratio")
                         and _number(v) is not None), key=lambda x: -x[1])[:5]
        second = [f"{label} {r[m]}" for m, label in LAUNCH if r.get(m) not in (None, "")]
        for label, num, den in RATIOS:
            a, b = _number(r.get(num)), _number(r.get(den))
            if a is not None and b:
                second.append(f"{label} {a / b:.2f}")
        out.append(", ".join(first) + " | stalls " + " ".join(f"{s} {v:.1f}" for s, v in stalls))
        out.append("  " + ", ".join(second))
    return "\n".join(out) if out else "no kernel in the CSV"


EXTRA = (
    ("dram__bytes_read.sum", "dram_rd_MB", 1e-6),
    ("dram__bytes_write.sum", "dram_wr_MB", 1e-6),
    ("lts__t_sectors_srcunit_tex_op_read.sum", "l2_rd_MB", 32e-6),
    ("lts__t_sectors_srcunit_tex_op_write.sum", "l2_wr_MB", 32e-6),
    ("smsp__inst_executed.sum", "inst_M", 1e-6),
    ("smsp__inst_executed_op_ldgsts.sum", "ldgsts_M", 1e-6),
    ("smsp__sass_inst_executed_op_shared_ld.sum", "lds_M", 1e-6),
    ("smsp__sass_inst_executed_op_global_st.sum", "stg_M", 1e-6),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "bank_confl_M", 1e-6),
    ("sm__cycles_elapsed.avg", "cycles_k", 1e-3),
    ("smsp__cycles_active.avg", "smsp_active_k", 1e-3),
    ("sm__cycles_active.min", "sm_active_min_k", 1e-3),
    ("sm__cycles_active.avg", "sm_active_avg_k", 1e-3),
    ("sm__cycles_active.max", "sm_active_max_k", 1e-3),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_thr%", 1),
    ("lts__throughput.avg.pct_of_peak_sustained_elapsed", "l2_thr%", 1),
    ("l1tex__throughput.avg.pct_of_peak_sustained_elapsed", "l1_thr%", 1),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "occ%", 1),
    ("launch__waves_per_multiprocessor", "waves", 1),
)
"""`--extra`'s figures from a full set's raw page: (metric, label, factor)."""


REQUESTS = (
    ("lts__t_requests_srcunit_tex_op_read.sum", "l2_rd_req_M"),
    ("lts__t_requests_srcunit_tex_op_write.sum", "l2_wr_req_M"),
    ("lts__t_requests_srcunit_ltcfabric.sum", "l2_fabric_req_M"),
    ("lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed", "l2_tag%"),
)
"""`--extra`'s L2 requests (millions) and the tag lookups' busy share."""

_SCALE = {"us": 1e-6, "ns": 1e-9, "ms": 1e-3, "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3,
          "second": 1}


def _scaled(r: dict, metric: str) -> float | None:
    """A metric's value in bytes or seconds where its unit (the raw page's units row) is
    one of those, else as printed."""
    v = _number(r.get(metric))
    if v is None:
        return None
    return v * _SCALE.get((r.get("_units") or {}).get(metric, ""), 1)


def extra(rows: list[dict], moved: float) -> str:
    """The bytes against the ideal `moved` (read + written), instructions a byte, and
    every warp stall of at least 0.2 cycles an issued instruction."""
    out = []
    for r in rows:
        got = []
        t = _scaled(r, "gpu__time_duration.sum")
        if t:
            got.append(f"us {t * 1e6:.1f}")
        for metric, label, f in EXTRA:
            v = _scaled(r, metric) if metric.startswith("dram__bytes") else _number(r.get(metric))
            if v is not None:
                got.append(f"{label} {v * f:.4g}")
        for metric, label in REQUESTS:
            v = _number(r.get(metric))
            if v is not None:
                got.append(f"{label} {v * (1 if label.endswith('%') else 1e-6):.3g}")
        inst = _number(r.get("smsp__inst_executed.sum"))
        if inst and moved:
            got.append(f"inst/B {inst * 32 / moved:.3f} (thread-inst a byte)")
        stalls = sorted(((k.split("stalled_")[1].split("_per")[0], _number(v)) for k, v in r.items()
                         if k.startswith("smsp__average_warps_issue_stalled_") and k.endswith("per_issue_active.ratio")
                         and (_number(v) or 0) >= 0.2), key=lambda x: -x[1])
        out.append("  " + ", ".join(got))
        out.append("  stalls " + " ".join(f"{s} {v:.2f}" for s, v in stalls))
    return "\n".join(out)


def sass_top(lines: list[str], n: int = 18) -> str:
    """The `n` SASS lines of ncu's `--page source --print-source sass --csv` with the most
    warp-stall samples: samples, executed, the source, and the stall columns of note."""
    body = [x for x in lines if x.startswith('"') and not x.startswith('"Kernel Name"')]
    rows = list(csv.DictReader(body))
    if not rows:
        return "no SASS rows"
    keys = [x for x in rows[0].keys() if x]
    samp = next((k for k in keys if "Warp Stall Sampling (All" in k), None)
    exe = next((k for k in keys if k.startswith("Instructions Executed")), None)
    src = next((k for k in keys if k == "Source"), keys[1] if len(keys) > 1 else keys[0])
    stall_cols = [k for k in keys if k.startswith("stall_") and "Not Issued" not in k]
    if samp is None:
        return "columns: " + "; ".join(keys[:40])
    rows = [r for r in rows if _number(r.get(samp))]
    total = sum(_number(r[samp]) for r in rows) or 1
    out = [f"  total samples {total:.0f}"]
    for r in sorted(rows, key=lambda r: -_number(r[samp]))[:n]:
        top = sorted(((k, _number(r.get(k)) or 0) for k in stall_cols), key=lambda x: -x[1])[:3]
        out.append(f"  {_number(r[samp]) / total * 100:5.1f}% ex {r.get(exe, '')} | {r[src][:60]} | "
                   + " ".join(f"{k.replace('stall_', '')[:18]}={v:.0f}" for k, v in top if v))
    return "\n".join(out)


def call_of(name: str, variant: str | None):
    """A function launching the copy once: `tilec.copy_` (variant None) or the Program
    of the plan's views through the variant's pipeline ('' the default)."""
    import torch

    import tilec
    from canonical_copy_bench import (_make, _operand, _program_kernel, cases, variant_pipeline)
    from tilec.copy_plan import plan_copy

    if name.startswith("contig:"):  # a contiguous uint8 copy of N bytes through copy_ (a contrast)
        n = int(name.split(":")[1])
        a = torch.randint(0, 255, (n,), dtype=torch.uint8, device="cuda")
        b = torch.empty_like(a)
        return lambda: tilec.copy_(b, a)
    if name.startswith("strided:"):  # case N of the generated strided set, through copy_
        import strided_copy_bench as sb

        scase = sb.generate_cases(0, 48, 64, 1024)[int(name.split(":")[1])]
        src, _, dst = sb._make(torch, scase, torch.Generator(device="cuda").manual_seed(0))
        if not variant:
            return lambda: tilec.copy_(dst, src)
        # a variant of a strided case: copy_ under the routes `name=value,...` (api/copy_routes.py)
        from tilec import tensor_copy
        from tilec.copy_kernels import CopyKernels
        from tilec.copy_routes import forced_routes

        routes = {k: int(v) if v.isdigit() else v for k, v in (x.split("=") for x in variant.split(",") if x)}
        kern = CopyKernels(disk=False)

        def call():
            with forced_routes(**routes):
                tensor_copy.copy_(dst, src, kernels=kern)
        return call
    case = next((c for c in cases(False) if name in c.name), None)
    if case is None:  # the odd transposes outside the canonical set (dev/experiments/odd_extra_bench.py)
        sys.path.insert(0, os.path.join(ROOT, "dev", "experiments"))
        from odd_extra_bench import EXTRA

        case = next((c for c in EXTRA if name in c.name), None)
    if case is None:
        raise SystemExit(f"no canonical copy named like {name!r}")
    base, src, dst = _make(torch, case, torch.Generator(device="cuda").manual_seed(0))
    if variant is None:
        return lambda: tilec.copy_(dst, src)
    plan = plan_copy(_operand(dst), _operand(src))
    kernel, args = _program_kernel(torch, plan, src, dst, base, variant_pipeline(variant) if variant else "default")
    return lambda: kernel(*args)


def profile(name: str, variant: str | None) -> None:
    import cupy as cp

    call = call_of(name, variant)
    call()
    call()
    cp.cuda.runtime.deviceSynchronize()
    cp.cuda.runtime.profilerStart()
    call()
    cp.cuda.runtime.deviceSynchronize()
    cp.cuda.runtime.profilerStop()


if __name__ == "__main__":
    if sys.argv[1:] == ["--summary"]:
        print(summary(read_raw(sys.stdin.read().splitlines())))
    elif sys.argv[1:2] == ["--extra"]:
        print(extra(read_raw(sys.stdin.read().splitlines()), float(sys.argv[2])))
    elif sys.argv[1:] == ["--sass"]:
        print(sass_top(sys.stdin.read().splitlines()))
    else:
        profile(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
