"""The epilogue's cost in Nsight Compute (issue 39: bias + SiLU + cast <= 3% over the plain
GEMM at 8192 x 28672 x 4096): dev/device/ncu_gemm.py's one profiled launch of each named
GEMM (`NAME/ACT`: with the bias and activation ACT), with silu_lowering_probe.py's
rewritten SiLU forms (`nr`, `a4`, `p4`, ...) available as activations, and a table in
elapsed cycles (the clock moves between launches: cycles, not microseconds, compare
kernels) over the first kernel, with the MUFU pipe's instructions, the issue slots and the
shared-memory store bank conflicts beside. Two more activation names: `pf` (the bias alone)
and `pfsilu` (bias + SiLU), their CUDA rewritten so that each of the first column chunk's
bias loads before the K loop also asks L1 for the second chunk's (`prefetch.global.L1`,
128 columns on): whether the second chunk's bias loads after the K loop wait on L2.

    ncu --clock-control none --profile-from-start off --csv --page raw --metrics "$(python3
        dev/experiments/epilogue_ncu.py --metrics)" python3 dev/experiments/epilogue_ncu.py
        8192x28672x4096 rule rule/bias rule/silu rule/nr > ncu.csv
    python3 dev/experiments/epilogue_ncu.py --summary < ncu.csv

What binds the epilogue (`--binds`): a report with the sections ComputeWorkloadAnalysis,
WarpStateStats, SourceCounters and MemoryWorkloadAnalysis_Tables (`ncu ... -o REP`), read back
as its raw page (`ncu --import REP.ncu-rep --page raw --csv > RAW`) and its SASS source page
(`... --page source --csv --print-source sass > SASS`), then

    python3 dev/experiments/epilogue_ncu.py --binds RAW SASS plain silu

prints, a kernel a column: the pipes' utilisation, the issue rate, the largest warp stalls
(cycles a issued instruction), the shared-memory store wavefronts and bank conflicts; then per
kernel the epilogue's SASS window's share of the samples and its stall reasons
(`epilogue_window`), and the samples by opcode with their largest stall reasons (`hot_by_opcode`).

An experiment: nothing of the product changes."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "dev" / "device"), str(HERE.parents[1] / "benchmarks")]

import ncu_gemm  # noqa: E402
from ncu_gemm_fp8 import _number, read_raw  # noqa: E402

EXTRA = ("smsp__inst_executed_pipe_xu.sum,smsp__inst_executed.sum,"
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,gpc__cycles_elapsed.max,gpu__time_duration.sum,"
         "gpc__cycles_elapsed.avg.per_second,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed")
"""The metrics of the table (ncu's `--metrics`)."""


def table(rows: list[dict], names: list[str]) -> str:
    """A line a kernel: its name (in order), time, clock, elapsed cycles and over the
    first's, tensor pipe, MUFU (XU pipe) and all warp instructions a multiprocessor (in
    thousands), shared store bank conflicts."""
    out = ["| kernel | us | GHz | kcycles | over first | tensor % | MUFU k/SM | instr k/SM | st conflicts k |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    base = None
    for i, r in enumerate(rows):
        g = {k: _number(r.get(k)) for k in EXTRA.split(",")}
        cyc = g["gpc__cycles_elapsed.max"]
        base = base or cyc
        name = names[i] if i < len(names) else r.get("Kernel Name", "?")[:40]

        def f(x, scale=1.0, fmt="{:.1f}"):
            return "-" if x is None else fmt.format(x * scale)
        out.append(f"| {name} | {f(g['gpu__time_duration.sum'], 1e-3, '{:.0f}')} "
                   f"| {f(g['gpc__cycles_elapsed.avg.per_second'], 1e-9, '{:.3f}')} | {f(cyc, 1e-3, '{:.0f}')} "
                   f"| {'-' if not (cyc and base) else f'{100 * (cyc / base - 1):+.2f}%'} "
                   f"| {f(g['sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed'])} "
                   f"| {f(g['smsp__inst_executed_pipe_xu.sum'], 1e-3 / 132, '{:.0f}')} "
                   f"| {f(g['smsp__inst_executed.sum'], 1e-3 / 132, '{:.0f}')} "
                   f"| {f(g['l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum'], 1e-3, '{:.0f}')} |")
    return "\n".join(out)


PREFETCHED = {"pf": None, "pfsilu": "silu"}
"""The activation names whose kernels prefetch the second chunk's bias (-> the activation)."""


def prefetched(src: str) -> str:
    """`src` with a `prefetch.global.L1` of `pbias + X + 128` after each of the first 16 bias
    loads `... (pbias + X));` (the first chunk's, before the K loop)."""
    import re

    out, seen = [], 0
    for line in src.split("\n"):
        out.append(line)
        m = re.search(r"reinterpret_cast<const i32x1\*>\(pbias \+ (\w+)\)\);$", line)
        if m and seen < 16:
            seen += 1
            out.append(f'      asm volatile("prefetch.global.L1 [%0];" :: "l"(pbias + {m.group(1)} + 128));')
    if seen != 16:
        raise SystemExit(f"prefetched: {seen} bias loads found, expected 16")
    return "\n".join(out)


def install_prefetch() -> None:
    """`pf` and `pfsilu` as activation names of `tilec.matmul` (checked as the bias alone and SiLU)."""
    import copy
    import dataclasses

    import matmul_bench
    from tilec import gemm, gemm_programs

    gemm_programs.ACTIVATIONS = gemm.ACTIVATIONS = (*gemm_programs.ACTIVATIONS, *PREFETCHED)
    within, original = matmul_bench.within_bound, gemm.matmul_kernel

    def within_bound(got, a, b, bias=None, act=None):
        return within(got, a, b, bias, PREFETCHED.get(act, act) if act in PREFETCHED else act)

    def matmul_kernel(key):
        if key.epilogue.activation not in PREFETCHED:
            return original(key)
        act = PREFETCHED[key.epilogue.activation]
        k = copy.copy(original(dataclasses.replace(key, epilogue=dataclasses.replace(key.epilogue, activation=act))))
        k.source = prefetched(k.source)
        k._compiled, k._modules, k._functions, k._packed = {}, {}, {}, {}
        gemm._kernels[key] = k
        return k

    matmul_bench.within_bound = within_bound
    gemm.matmul_kernel = matmul_kernel


def _sass_tables(lines: list[str]) -> list[list[dict]]:
    """The instruction tables of a `--page source --csv --print-source sass` page, one a kernel
    (each starts at a header row naming the sampler's columns)."""
    import csv

    body = [x for x in lines if x.startswith('"')]
    heads = [i for i, x in enumerate(body) if "Sampling (All" in x]
    return [list(csv.DictReader(body[h:(heads[j + 1] if j + 1 < len(heads) else len(body))]))
            for j, h in enumerate(heads)]


def hot_by_opcode(rows: list[dict], top: int = 9) -> list[str]:
    """The samples by opcode (predicate dropped, first word up to its first dot), the share of
    all samples, and each opcode's three largest stall reasons (shares of all samples)."""
    cols = [c for c in rows[0] if c]
    total_col = next(c for c in cols if "Sampling (All" in c)
    src_col = next((c for c in cols if c.strip("# ").lower() in ("source", "sass")), cols[1])
    stall_cols = [c for c in cols if c.startswith("stall_") or c.startswith("Stall ")]
    total = sum(_number(r.get(total_col)) or 0.0 for r in rows) or 1.0
    ops: dict = {}
    reasons_all: dict = {}
    for r in rows:
        if _number(r.get(total_col)) is None:  # the next kernel's name row
            continue
        words = [w for w in " ".join((r.get(src_col) or "").split()).split() if not w.startswith("@")]
        op = words[0].split(".")[0] if words else "?"
        ent = ops.setdefault(op, [0.0, {}])
        ent[0] += _number(r.get(total_col)) or 0.0
        for c in stall_cols:
            name = c.replace("stall_", "").replace("Stall ", "")
            x = _number(r.get(c)) or 0.0
            ent[1][name] = ent[1].get(name, 0.0) + x
            reasons_all[name] = reasons_all.get(name, 0.0) + x
    out = ["all: " + " ".join(f"{n} {100 * x / total:.1f}" for x, n in
                              sorted(((x, n) for n, x in reasons_all.items()), reverse=True)[:7])]
    for op, (v, st) in sorted(ops.items(), key=lambda x: -x[1][0])[:top]:
        rs = sorted(((x, n) for n, x in st.items()), reverse=True)[:3]
        out.append(f"{100 * v / total:4.1f} {op}: " + " ".join(f"{n} {100 * x / total:.1f}" for x, n in rs if x))
    return out


def epilogue_window(rows: list[dict]) -> str:
    """The epilogue's SASS (each instruction past a `WARPGROUP.DEPBAR.LE gsb0, 0x0`, the K loop's
    last wgmma wait, up to the next `HGMMA` or `WARPGROUP.ARRIVE`, every consumer region's copy):
    its instructions, its share of all the warp sampler's samples, and its stall reasons (shares
    of its samples, issued and not)."""
    cols = [c for c in rows[0] if c]
    total_col = next(c for c in cols if "Sampling (All" in c)
    src_col = next((c for c in cols if c.strip("# ").lower() in ("source", "sass")), cols[1])
    stall_cols = [c for c in cols if c.startswith("stall_") and "Not Issued" not in c]
    rows = [r for r in rows if _number(r.get(total_col)) is not None]
    src = [" ".join((r.get(src_col) or "").split()) for r in rows]
    picked: set = set()
    for i, x in enumerate(src):
        if x.startswith("WARPGROUP.DEPBAR.LE gsb0, 0x0"):
            end = next((j for j in range(i + 1, len(src)) if "HGMMA" in src[j] or src[j].startswith("WARPGROUP.ARRIVE")),
                       len(src))
            picked.update(range(i + 1, end))
    total = sum(_number(r[total_col]) for r in rows) or 1.0
    inside = [rows[i] for i in sorted(picked)]
    n = sum(_number(r[total_col]) for r in inside) or 1.0
    reasons = sorted(((sum(_number(r.get(c)) or 0.0 for r in inside), c[6:]) for c in stall_cols), reverse=True)
    return (f"epilogue window: {len(inside)} instructions, {100 * n / total:.1f}% of samples; "
            + " ".join(f"{name} {100 * x / n:.1f}" for x, name in reasons[:9] if x))


BINDS = (r"^sm__inst_executed_pipe_\w+\.avg\.pct_of_peak_sustained_active$",
         r"^sm__pipe_\w+_cycles_active\.avg\.pct_of_peak_sustained_active$",
         r"^smsp__issue_active\.avg\.per_cycle_active$", r"^gpc__cycles_elapsed\.max$",
         r"^gpc__cycles_elapsed\.avg\.per_second$", r"^smsp__inst_executed\.sum$",
         r"^smsp__inst_executed_pipe_xu\.sum$", r"^l1tex__data_\w*shared\w*$|^l1tex__data_\w*shared\w*\.sum$",
         r"^smsp__average_warps_issue_stalled_\w+_per_issue_active\.ratio$")
"""The raw metrics `--binds` shows (regular expressions; the stalls: the 9 largest in any kernel)."""


def binds(raw: list[str], sass: list[str], names: list[str]) -> str:
    """`--binds`' table (the module docstring): the raw page's `BINDS` metrics a kernel a column
    with the last column over the first, then each kernel's samples by opcode."""
    import re

    rows = read_raw(raw)
    tables = _sass_tables(sass)
    names = names + [f"k{i}" for i in range(len(names), max(len(rows), len(tables)))]
    keys = [k for k in (rows[0] if rows else {}) if any(re.match(p, k) for p in BINDS)]
    stalls = [k for k in keys if "issue_stalled" in k]
    stalls = sorted(stalls, key=lambda k: -max((_number(r.get(k)) or 0.0) for r in rows))[:9]
    keys = [k for k in keys if "issue_stalled" not in k] + stalls
    out = ["metric | " + " | ".join(names[:len(rows)]) + " | last/first"] if rows else []
    for k in keys:
        vals = [_number(r.get(k)) for r in rows]
        if not any(vals):
            continue
        short = (k.replace("smsp__average_warps_issue_stalled_", "stall ").replace("_per_issue_active.ratio", "")
                 .replace(".avg.pct_of_peak_sustained_active", " %").replace("sm__inst_executed_pipe_", "inst ")
                 .replace("sm__pipe_", "pipe ").replace("_cycles_active", ""))
        ratio = f"{vals[-1] / vals[0]:.3f}" if vals[0] and vals[-1] is not None else "-"
        out.append(f"{short} | " + " | ".join("-" if v is None else f"{v:.4g}" for v in vals) + f" | {ratio}")
    for name, table in zip(names, tables):
        if table:
            out += [f"{name} {epilogue_window(table)}", f"{name} samples by opcode (% of its samples):"]
            out += ["  " + x for x in hot_by_opcode(table)]
    return "\n".join(out)


if __name__ == "__main__":
    if sys.argv[1] == "--metrics":
        print(EXTRA)
    elif sys.argv[1] == "--binds":
        print(binds(Path(sys.argv[2]).read_text().splitlines(), Path(sys.argv[3]).read_text().splitlines(),
                    sys.argv[4:]))
    elif sys.argv[1] == "--summary":
        print(table(read_raw(sys.stdin.read().splitlines()), sys.argv[2:]))
    else:
        import silu_lowering_probe

        silu_lowering_probe.install()
        install_prefetch()
        ncu_gemm.profile(sys.argv[1:])
