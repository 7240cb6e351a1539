#!/usr/bin/env bash
# session 35 final: every GPU test file, side by side over the machine's GPUs (logs in /tmp/t, summaries
# printed); the two longest files in shards (-k) as commands
set -uo pipefail
b=$(date +%s)
files=$(ls tests/gpu/test_*.py | grep -v -e row_kernels -e test_attention_gpu)
P='python3 -m pytest -m "gpu or torch" -rf -q -p no:cacheprovider'
R=tests/gpu/test_row_kernels_gpu.py; A=tests/gpu/test_attention_gpu.py
OUT=/tmp/t bash dev/device/parallel_tests.sh -t ${TLIM:-400} $files -- \
  "$P $R -k float64" "$P $R -k l2_variants" "$P $R -k twin" "$P $R -k 'not (float64 or l2_variants or twin)'" \
  "$P $A -k pingpong" "$P $A -k 'not pingpong'" 2>&1 | grep -v "^\s*$" | tail -90
echo "== tests $(( $(date +%s) - b )) s"
