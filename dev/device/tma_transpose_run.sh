#!/usr/bin/env bash
# Device call for the TMA transpose variants (issue 23): their GPU tests, the probe
# (benchmarks/tma_transpose_probe.py: every variant twice, cudaMemcpy before and after),
# then Nsight Compute figures of a few (NCU_CASES, ';'-separated; empty: none).
#   DEV=.dev_NAME bash dev/device/tma_transpose_run.sh   (from the checkout's root)
set -uo pipefail
cd "${DEV:-.}"
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
timeout 150 python3 -m pytest -q -m gpu tests/gpu/test_tma_gpu.py -k "${TEST_K:-tile_transpose or transpose_exact}" 2>&1 | tee "$OUT/gpu-tests.log" | tail -3
timeout 240 python3 benchmarks/tma_transpose_probe.py 2>&1 | tee "$OUT/probe.log" | grep -v '^round' | tail -25
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,launch__registers_per_thread
best=$(grep '^BEST:' "$OUT/probe.log" | sed 's/^BEST: //')
IFS=';' read -ra names <<< "${NCU_CASES:-TMA round trip 128x64;non-TMA transpose f32;$best}"
for n in "${names[@]}"; do
  echo "== $n"
  timeout 60 ncu --clock-control none -k regex:'transpose|round_trip' -c 1 --metrics $M python3 benchmarks/tma_transpose_probe.py --only "$n" 2>&1 \
    | grep -E "^ +(gpu__|dram__|lts__|l1tex__|sm__|launch__)|exact|WRONG|ERR" | tee -a "$OUT/ncu.log"
done
if [ -n "${BENCH_CASES:-}" ]; then
  timeout 200 python3 benchmarks/copy_bench.py --cases "$BENCH_CASES" --json "$OUT/bench.json" --md "$OUT/bench.md" 2>&1 \
    | tee "$OUT/bench.log" | grep -v '^{' | tail -12
fi
