#!/usr/bin/env bash
# One device call for the TMA ring (issue 23): GPU tests of TMA, then the TMA transpose rows.
set -uo pipefail
cd .dev_tma23t
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
timeout 200 python3 -m pytest -q -m gpu tests/gpu/test_tma_gpu.py 2>&1 | tee "$OUT/gpu-tests.log" | tail -5
timeout 300 python3 benchmarks/copy_bench.py --no-peers --cases "${CASES:-128x128 through smem (TMA load + store,64x64 through smem (TMA load + store, 256,persistent}" \
  --json "$OUT/tma.json" --md "$OUT/tma.md" 2>&1 | tee "$OUT/bench.log" | grep -v '^{' | tail -20
