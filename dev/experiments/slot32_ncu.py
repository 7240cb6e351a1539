"""Nsight Compute figures of the strided set's merged `box<tiles>` copies (36, 00) with and
without `box_slot32=1` / `=2` (2: phase 2's rows turned by bank group; runs at their source residues mod 32 in their slots: a source
sector's two 16-byte `.cg` chunks in one 32-byte block of shared memory): one profiled
launch each, after two warm-up calls, all in one process, in the order CASES x VARIANTS.
Not a test.

    ncu --clock-control none --profile-from-start off --csv --page raw --metrics "$(python3
        dev/experiments/slot32_ncu.py --metrics)" python3 dev/experiments/slot32_ncu.py > ncu.csv
    python3 dev/experiments/slot32_ncu.py --summary < ncu.csv

The summary: a line a kernel (`summary`).
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "benchmarks"), os.path.join(HERE, "..", "device")]

CASES = (36, 0)
VARIANTS = (("tree", {}), ("s32", {"box_slot32": 1}), ("s32t", {"box_slot32": 2}))
METRICS = (
    ("us", "gpu__time_duration.sum"),
    ("l2_rd_sectors", "lts__t_sectors_srcunit_tex_op_read.sum"),
    ("l2_rd_requests", "lts__t_requests_srcunit_tex_op_read.sum"),
    ("l2_thr%", "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("dram_rd", "dram__bytes_read.sum"),
    ("lds_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("lds_inst", "smsp__sass_inst_executed_op_shared_ld.sum"),
    ("smem_block", "launch__shared_mem_per_block_dynamic"),
    ("blocks_sm_smem", "launch__occupancy_limit_shared_mem"),
    ("regs", "launch__registers_per_thread"),
)


def profile() -> None:
    import cupy as cp
    import strided_copy_bench as sb
    import torch

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes

    cases = sb.generate_cases(0, 48, 64, 1024)
    for i in CASES:
        src, _, dst = sb._make(torch, cases[i], torch.Generator(device="cuda").manual_seed(0))
        for _, routes in VARIANTS:
            kern = CopyKernels(disk=False)

            def call(routes=routes, kern=kern):
                with forced_routes(**routes):
                    tensor_copy.copy_(dst, src, kernels=kern)
            call()
            call()
            cp.cuda.runtime.deviceSynchronize()
            cp.cuda.runtime.profilerStart()
            call()
            cp.cuda.runtime.deviceSynchronize()
            cp.cuda.runtime.profilerStop()
        del src, dst
        torch.cuda.empty_cache()


def summary(lines: list[str]) -> str:
    """A line a kernel: the case and variant, its time (ncu's unit), L2 read sectors and
    requests from L1 (millions), L2 throughput, DRAM read, shared wavefronts a load instruction, the box's bytes and the blocks shared memory
    lets a multiprocessor hold, the registers."""
    from ncu_gemm_fp8 import _number, read_raw

    rows = read_raw(lines)
    labels = [f"{i:02d} {v}" for i in CASES for v, _ in VARIANTS]
    out = []
    for label, r in zip(labels, rows):
        units = r.get("_units") or {}
        x = {name: _number(r.get(m)) for name, m in METRICS}

        def ratio(a, b):
            return f"{x[a] / x[b]:.2f}" if x[a] and x[b] else "?"

        def mega(a):
            return f"{x[a] / 1e6:.1f}M" if x[a] else "?"

        out.append(f"{label}: {x['us']}{units.get(METRICS[0][1], '')} l2rd {mega('l2_rd_sectors')} sec "
                   f"{mega('l2_rd_requests')} req, l2 {x['l2_thr%']}%, dram_rd {x['dram_rd']}"
                   f"{units.get('dram__bytes_read.sum', '')},"
                   f" lds wf/inst {ratio('lds_wavefronts', 'lds_inst')}, smem {x['smem_block']}"
                   f"{units.get('launch__shared_mem_per_block_dynamic', '')} x{x['blocks_sm_smem']}, regs {x['regs']}")
    if len(rows) != len(labels):
        out.append(f"({len(rows)} kernels profiled, {len(labels)} expected)")
    return "\n".join(out)


if __name__ == "__main__":
    if sys.argv[1:] == ["--metrics"]:
        print(",".join(m for _, m in METRICS))
    elif sys.argv[1:] == ["--summary"]:
        print(summary(sys.stdin.read().splitlines()))
    else:
        profile()
