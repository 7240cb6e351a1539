#!/usr/bin/env bash
# Issue 23 diagnosis on the lent GPU (run from the tree's root, after the install of
# device_run.sh): the wgmma GEMM configs timed per call and queued at 4096 and 8192,
# then Nsight Compute's speed of light and a few counters of one launch of each at 4096.
#   DIAG_CONFIGS (gemm_bench.py specs), DIAG_SIZES, DIAG_NCU (1: profile), DIAG_TRITON (1)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
cfgs=${DIAG_CONFIGS:-wgmma:128x256x64:4:ws,wgmma:128x256x64:4:ws:g8,wgmma:128x256x64:4:ws:p:g8}
tri="--no-triton"; [ "${DIAG_TRITON:-0}" = 1 ] && tri=""
timeout 400 python3 benchmarks/gemm_bench.py --sizes "${DIAG_SIZES:-4096,8192}" $tri --configs "$cfgs" \
  --json "$OUT/gemm.json" --md "$OUT/gemm.md" > "$OUT/gemm.log" 2>&1
if [ "${DIAG_NCU:-1}" = 1 ]; then
  m="gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,launch__registers_per_thread,launch__grid_size,sm__cycles_active.avg"
  timeout 200 ncu --clock-control none -k regex:gemm --launch-count "$(echo "${DIAG_NCU_CONFIGS:-$cfgs}" | tr , "\n" | wc -l)" --metrics "$m" --csv \
    python3 benchmarks/gemm_profile.py 4096 "${DIAG_NCU_CONFIGS:-$cfgs}" > "$OUT/ncu4096.csv" 2> "$OUT/ncu.err"
  python3 - "$OUT/ncu4096.csv" <<'PY' > "$OUT/ncu.txt"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if rows:
    h = rows[0]; iid, im, iv = h.index("ID"), h.index("Metric Name"), h.index("Metric Value")
    for r in rows[1:]:
        print(r[iid], r[im], r[iv])
PY
fi
grep -v "^{" "$OUT/gemm.log" | tail -22
cat "$OUT/ncu.txt" 2>/dev/null | tail -40; tail -3 "$OUT/ncu.err" 2>/dev/null
