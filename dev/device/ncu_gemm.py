"""Nsight Compute figures of bf16 GEMMs side by side (issue 39: what tilec's kernel at
3000 x 5000 x 7000 and Llama's gate_up at M = 8192 does that cuBLAS's does not): at one
shape, one launch of each named GEMM (`rule`: `tilec.matmul`'s own configuration;
`cublas`: `torch.matmul`, whatever kernels it launches; else a configuration forced by
name, benchmarks/matmul_bench.py's `parse_config`; `NAME/ACT`: with a bias and the
activation ACT, `NAME/bias` the bias alone), each run twice and checked against
float64 first, then all profiled between one `cudaProfilerStart` / `Stop`; then ncu's raw
CSV summarised a line a kernel: its name (cuBLAS's names its tile and cluster), grid,
block, cluster, registers, shared memory, duration, SM clock, tensor pipe, L2 and DRAM
throughput and bytes, issue activity and the largest warp stalls.

    bash dev/device/ncu_gemm.sh 3000x5000x7000 rule cublas
    bash dev/device/ncu_gemm.sh 3000x5000x7000 rule cublas 8192x28672x4096t rule cublas   # t: B = w.t()

(several shapes in one process: each shape's names after it) runs `ncu --clock-control
none --profile-from-start off --csv --page raw --section SpeedOfLight --section
WarpStateStats --section LaunchStats --metrics ...
python3 dev/device/ncu_gemm.py SHAPE NAME ...` and reads its
CSV back with `python3 dev/device/ncu_gemm.py --summary < CSV`.
"""

from __future__ import annotations

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "benchmarks"))

from ncu_gemm_fp8 import _number, read_raw  # noqa: E402 - this folder

METRICS = ("dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,"
           "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,"
           "sm__pipe_tensor_cycles_active.max.pct_of_peak_sustained_elapsed,"
           "sm__cycles_active.avg,gpc__cycles_elapsed.max,lts__t_sector_hit_rate.pct,"
           "lts__throughput.avg.pct_of_peak_sustained_elapsed,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")
"""The metrics asked for beside the sections (ncu's `--metrics`)."""

TRAFFIC_METRICS = ("lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,"
                   "lts__t_requests_srcunit_tex.sum,lts__t_requests_srcunit_ltcfabric.sum,"
                   "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__d_sectors_fill_device.sum,"
                   "smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")
"""Asked for beside `METRICS` first (b3k49: where a kernel's energy a FLOP goes): the L2's sectors
and requests from the SMs (`tex`: sectors a request say how the TMA's boxes are cut) and from the other
L2 partition (`ltcfabric`: a near partition's miss looked up in the far one, A100/H100's split L2), the
SMs' read sectors that hit, the sectors filled from DRAM, the instructions issued and the shared-memory
wavefronts of the LSU pipe (the epilogue's; wgmma's operand reads are not LSU). A name this ncu does not
know fails the run: ncu_gemm.sh then asks for `METRICS` alone."""

SHOWN = (
    ("gpu__time_duration.sum", "us", 1e-3),
    ("gpc__cycles_elapsed.avg.per_second", "GHz", 1e-9),
    ("launch__grid_size", "grid", 1),
    ("launch__block_size", "block", 1),
    ("launch__registers_per_thread", "regs", 1),
    ("launch__shared_mem_per_block_dynamic", "dsmem", 1),
    ("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "tensor%", 1),
    ("sm__pipe_tensor_cycles_active.max.pct_of_peak_sustained_elapsed", "tensormax%", 1),
    ("sm__cycles_active.avg", "smact_cyc", 1e-3),
    ("gpc__cycles_elapsed.max", "elapsed_cyc", 1e-3),
    ("l1tex__throughput.avg.pct_of_peak_sustained_active", "l1%", 1),
    ("l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed", "lsu_wf%", 1),
    ("lts__throughput.avg.pct_of_peak_sustained_elapsed", "l2%", 1),
    ("lts__t_sector_hit_rate.pct", "l2hit%", 1),
    ("lts__t_bytes.sum", "l2MB", 1e-6),
    ("lts__t_sectors_srcunit_tex_op_read.sum", "l2rdsecM", 1e-6),
    ("dram__bytes_read.sum", "dramrdMB", 1e-6),
    ("dram__bytes_write.sum", "dramwrMB", 1e-6),
    ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "dram%", 1),
    ("smsp__issue_active.avg.per_cycle_active", "issue/clk", 1),
    ("lts__t_sectors_srcunit_tex.sum", "l2texsecM", 1e-6),
    ("lts__t_sectors_srcunit_ltcfabric.sum", "l2fabricsecM", 1e-6),
    ("lts__t_requests_srcunit_tex.sum", "l2texreqM", 1e-6),
    ("lts__t_requests_srcunit_ltcfabric.sum", "l2fabricreqM", 1e-6),
    ("lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "l2texrdhitM", 1e-6),
    ("lts__d_sectors_fill_device.sum", "l2fillsecM", 1e-6),
    ("smsp__inst_executed.sum", "instM", 1e-6),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "smemwfM", 1e-6),
)
"""The figures printed, when ncu reported them: (metric, label, factor)."""


def summary(rows: list[dict]) -> str:
    """Per profiled kernel: its name (to 150 characters) on one line, then `SHOWN`'s
    figures (and LaunchStats' cluster figures) and the six largest warp stalls (cycles per issued instruction)."""
    lines = []
    for r in rows:
        vals = []
        for metric, label, f in SHOWN:
            v = _number(r.get(metric))
            if v is not None:
                vals.append(f"{label} {v * f:.4g}")
        vals += [f"{k.split('__')[1]} {v}" for k, v in r.items() if k.startswith("launch__cluster") and v]
        stalls = sorted(((k.split("stalled_")[1].split("_per")[0], _number(v)) for k, v in r.items()
                         if k.startswith("smsp__average_warps_issue_stalled_") and k.endswith("per_issue_active.ratio")
                         and _number(v) is not None), key=lambda x: -x[1])[:6]
        lines.append(r.get("Kernel Name", "?")[:150])
        lines.append("  " + ", ".join(vals) + " | stalls " + " ".join(f"{s} {v:.2f}" for s, v in stalls))
    return "\n".join(lines)


BRIEF = (("gpu__time_duration.sum", "us", 1e6), ("gpc__cycles_elapsed.max", "kcyc", 1e-3),
         ("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "tens%", 1),
         ("lts__t_bytes.sum", "L2MB", 1e-6), ("lts__t_sectors_srcunit_tex.sum", "texM", 1e-6),
         ("lts__t_sectors_srcunit_ltcfabric.sum", "fabM", 1e-6), ("lts__t_requests_srcunit_tex.sum", "texRqM", 1e-6),
         ("lts__t_requests_srcunit_ltcfabric.sum", "fabRqM", 1e-6),
         ("lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "rdhitM", 1e-6),
         ("lts__d_sectors_fill_device.sum", "fillM", 1e-6), ("dram__bytes_read.sum", "dramMB", 1e-6),
         ("smsp__inst_executed.sum", "instM", 1e-6), ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "smwfM", 1e-6))
"""`--brief`'s figures: (metric, label, factor to the label's unit from the base unit)."""


def _base(r: dict, metric: str) -> float | None:
    """The metric's value in its base unit (byte, second, sector, inst, cycle): ncu prints them with a prefix
    on the unit (Kbyte ... Gbyte, nsecond / ns ..., Msector)."""
    v = _number(r.get(metric))
    unit = (r.get("_units") or {}).get(metric, "")
    prefix = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "n": 1e-9, "u": 1e-6, "m": 1e-3}
    if v is not None and unit in ("ns", "us", "ms"):
        return v * prefix[unit[0]]
    if v is not None and len(unit) > 1 and unit[0] in prefix and unit[1:] in ("byte", "sector", "inst", "cycle",
                                                                               "second", "request", "warp"):
        return v * prefix[unit[0]]
    return v


def brief(rows: list[dict]) -> str:
    """One short line a kernel (b3k49's table): its place in the profile (the names' order) and its name's head
    (cuBLAS's `nvjet_..._<tile>_<stages>_<cluster>_<raster>...`), then `BRIEF`'s figures in their labels' units and
    the two largest stalls."""
    lines = []
    for i, r in enumerate(rows):
        name = r.get("Kernel Name", "?")
        short = f"{i} " + (re.sub(r"^nvjet_sm90_tst_", "cuBLAS ", name)[:36] if "nvjet" in name else name[:12])
        vals = []
        for metric, label, f in BRIEF:
            v = _base(r, metric)
            vals.append(f"{label} {v * f:.4g}" if v is not None else f"{label} -")
        stalls = sorted(((k.split("stalled_")[1].split("_per")[0], _number(v)) for k, v in r.items()
                         if k.startswith("smsp__average_warps_issue_stalled_") and k.endswith("per_issue_active.ratio")
                         and _number(v) is not None), key=lambda x: -x[1])[:2]
        lines.append(f"{short}: " + " ".join(vals) + " | " + " ".join(f"{s} {v:.1f}" for s, v in stalls))
    return "\n".join(lines)


def operands(shape: str):
    """A (M, K), B (K, N) bf16 on the GPU for `MxNxK` (B row-major) or `MxNxKt` (B the
    transpose of a row-major (N, K), as `x @ w.t()`), random, seeded."""
    import torch

    kmajor = shape.endswith("t")
    m, n, k = (int(x) for x in shape.rstrip("t").split("x"))
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    if kmajor:
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g).t()
    else:
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
    return a, b


def groups(args: list[str]) -> list[tuple[str, list[str]]]:
    """`SHAPE NAME ... [SHAPE NAME ...]` -> [(shape, names)]: a shape is `MxNxK[t]`."""
    out: list[tuple[str, list[str]]] = []
    for x in args:
        if re.fullmatch(r"\d+x\d+x\d+t?", x):
            out.append((x, []))
        elif out:
            out[-1][1].append(x)
        else:
            raise ValueError(f"ncu_gemm: a shape MxNxK[t] first, got {x!r}")
    return out


def profile(args: list[str]) -> None:
    """Each group's GEMMs run twice and checked (a line each on stderr: `# SHAPE NAME
    CONFIG ok`), then one launch of each, in order, between one profiler start and stop."""
    import torch

    import tilec
    from matmul_bench import forced, parse_config, within_bound
    from tilec import gemm

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    calls = []
    for shape, names in groups(args):
        a, b = operands(shape)
        c = torch.full((a.shape[0], b.shape[1]), float("nan"), device="cuda", dtype=torch.bfloat16)
        bias = torch.randn(b.shape[1], device="cuda", dtype=torch.bfloat16,
                           generator=torch.Generator(device="cuda").manual_seed(7))
        for full in names:
            name, _, act = full.partition("/")  # NAME/ACT: with the bias and the activation ACT (`bias`: none)
            kw = {"bias": bias, "activation": None if act == "bias" else act} if act else {}
            if name == "cublas":
                fn = (lambda a=a, b=b, c=c: torch.matmul(a, b, out=c))
                cfg = None
            else:
                fn = (lambda a=a, b=b, c=c, kw=kw: tilec.matmul(a, b, out=c, **kw))
                cfg = None if name == "rule" else parse_config(name)
            with forced(gemm, cfg):
                c.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                ok = within_bound(c, a, b, kw.get("bias"), kw.get("activation"))
                fn()
                torch.cuda.synchronize()
            rule = gemm.choose_config(a.shape[0], b.shape[1], sms, k=a.shape[1], b_kmajor=shape.endswith("t"),
                                      activation=kw.get("activation")).name if name == "rule" else ""
            print(f"# {shape} {full} {rule} {'ok' if ok else 'FAIL'}", file=sys.stderr, flush=True)
            calls.append((cfg, fn))
    torch.cuda.cudart().cudaProfilerStart()
    for cfg, fn in calls:
        with forced(gemm, cfg):
            fn()
            torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    if sys.argv[1] in ("--summary", "--brief"):
        rows = read_raw(sys.stdin.read().splitlines())
        print((summary if sys.argv[1] == "--summary" else brief)(rows) or "no kernel profiled")
    else:
        profile(sys.argv[1:])
