#!/usr/bin/env bash
# Nsight Compute figures of tilec.attention and cuDNN's SDPA on the issue-40 shapes
# (dev/experiments/attention_ncu.py's profiler ranges: per shape, tilec's kernel then
# cuDNN's): time, SM and tensor-pipe throughput, occupancy, registers, and the warp
# stall reasons per issued instruction, one line per kernel.
#   bash dev/experiments/attention_ncu.sh     (on the GPU machine, tilec installed)
set -uo pipefail
metrics="gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,regex:sm__pipe_tensor_op_.*cycles_active.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio"
ncu --clock-control none --profile-from-start off --metrics "$metrics" --csv --page raw \
  python3 dev/experiments/attention_ncu.py 2>&1 | python3 -c '
import csv, sys
lines = sys.stdin.read().splitlines()
print("\n".join(l for l in lines if l.startswith("shape ")))
rows = list(csv.reader(l for l in lines if l.startswith("\"")))
if len(rows) < 3:
    sys.exit("no profile")
head = rows[0]
KEEP = ("Kernel Name", "gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
        "sm__warps_active.avg.pct_of_peak_sustained_active", "smsp__issue_active.avg.pct_of_peak_sustained_active",
        "launch__registers_per_thread", "launch__grid_size", "launch__block_size")
for vals in rows[2:]:
    out = []
    for h, v in zip(head, vals):
        if h in KEEP:
            out.append(h.split(".")[0] + "=" + v)
        elif h.startswith("smsp__average_warps_issue_stalled") and h.endswith(".ratio"):
            try:
                if float(v.replace(",", "")) >= 0.1:
                    out.append(h.replace("smsp__average_warps_issue_stalled_", "stall_").replace("_per_issue_active.ratio", "") + "=" + v)
            except ValueError:
                pass
    print(" ".join(out))
'
