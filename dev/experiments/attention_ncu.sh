#!/usr/bin/env bash
# Nsight Compute figures of tilec.attention and cuDNN's SDPA on the issue-40 shapes
# (dev/experiments/attention_ncu.py): time, SM and tensor-pipe throughput, occupancy,
# registers, and the warp stall reasons per issued instruction, one line per metric.
#   bash dev/experiments/attention_ncu.sh [SHAPE ...]     (on the GPU machine, tilec installed)
set -uo pipefail
shapes=${*:-"4x32x4096x128 4x32x4096x128c 16x16x1024x64 1x32x16384x128c"}
metrics="gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,regex:sm__pipe_tensor_op_.*cycles_active.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio"
for shape in $shapes; do
  for impl in tilec cudnn; do
    if [ $impl = tilec ]; then k='regex:attention|attn'; else k='regex:^(?!.*(elementwise|vectorized|reduce|fill|copy)).*$'; fi
    echo "== $impl $shape"
    ncu --clock-control none --launch-skip 3 --launch-count 1 -k "$k" --metrics "$metrics" --csv --page raw \
      python3 dev/experiments/attention_ncu.py --impl $impl --shape $shape 2>&1 \
      | python3 -c '
import csv, sys
rows = [r for r in csv.reader(l for l in sys.stdin if l.startswith("\""))]
if len(rows) < 3:
    print("  no profile"); sys.exit()
head, units, vals = rows[0], rows[1], rows[2]
KEEP = ("Kernel Name", "gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
        "sm__warps_active.avg.pct_of_peak_sustained_active", "smsp__issue_active.avg.pct_of_peak_sustained_active",
        "launch__registers_per_thread", "launch__grid_size", "launch__block_size", "launch__shared_mem_per_block_dynamic")
out = []
for h, u, v in zip(head, units, vals):
    if h in KEEP:
        out.append(f"{h.split('.')[0]}={v}{u.strip()}")
    elif h.startswith("smsp__average_warps_issue_stalled") and h.endswith(".ratio"):
        try:
            if float(v.replace(",", "")) >= 0.1:
                out.append(h.replace("smsp__average_warps_issue_stalled_", "stall_").replace("_per_issue_active.ratio", "") + "=" + v)
        except ValueError:
            pass
print("  " + " ".join(out))
'
  done
done
