#!/usr/bin/env bash
# Device call for the TMA ring (issue 23): GPU tests of TMA, the TMA transpose rows of
# copy_bench, then Nsight Compute figures of a few of them (NCU=1).
set -uo pipefail
cd .dev_tma23t
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
[ "${SKIP_TESTS:-0}" = 1 ] || timeout 200 python3 -m pytest -q -m gpu tests/gpu/test_tma_gpu.py 2>&1 | tee "$OUT/gpu-tests.log" | tail -3
timeout 300 python3 benchmarks/copy_bench.py --no-peers --cases "${CASES:-128x128 through smem (TMA load + store,TMA ring}" \
  --json "$OUT/tma.json" --md "$OUT/tma.md" 2>&1 | tee "$OUT/bench.log" | grep -v '^{' | tail -20
if [ "${NCU:-0}" = 1 ]; then
  M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,launch__shared_mem_config_size,launch__grid_size,launch__registers_per_thread
  IFS=';' read -ra names <<< "${NCU_CASES:-128x128 through smem (TMA load + store;128x64 TMA ring (3 stages, persistent, 1/SM, 256;64x64 TMA ring (3 stages, persistent}"
  for n in "${names[@]}"; do
    echo "== $n"
    timeout 120 ncu --clock-control none -k regex:transpose -c 1 --metrics $M python3 benchmarks/tma_ring_probe.py "$n" 2>&1 | grep -E "^ +(gpu__|dram__|sm__|launch__)|True|False" | tee -a "$OUT/ncu.log"
  done
fi
