"""The epilogue's cost in Nsight Compute (issue 39: bias + SiLU + cast <= 3% over the plain
GEMM at 8192 x 28672 x 4096): dev/device/ncu_gemm.py's one profiled launch of each named
GEMM (`NAME/ACT`: with the bias and activation ACT), with silu_lowering_probe.py's
rewritten SiLU forms (`nr`, `a4`, `p4`, ...) available as activations, and a table in
elapsed cycles (the clock moves between launches: cycles, not microseconds, compare
kernels) over the first kernel, with the MUFU pipe's instructions, the issue slots and the
shared-memory store bank conflicts beside.

    ncu --clock-control none --profile-from-start off --csv --page raw --metrics "$(python3
        dev/experiments/epilogue_ncu.py --metrics)" python3 dev/experiments/epilogue_ncu.py
        8192x28672x4096 rule rule/bias rule/silu rule/nr > ncu.csv
    python3 dev/experiments/epilogue_ncu.py --summary < ncu.csv

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


if __name__ == "__main__":
    if sys.argv[1] == "--metrics":
        print(EXTRA)
    elif sys.argv[1] == "--summary":
        print(table(read_raw(sys.stdin.read().splitlines()), sys.argv[2:]))
    else:
        import silu_lowering_probe

        silu_lowering_probe.install()
        ncu_gemm.profile(sys.argv[1:])
