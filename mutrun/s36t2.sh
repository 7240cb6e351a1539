#!/usr/bin/env bash
# session 36 final: every GPU test file over the machine's GPUs (logs in /tmp/t, summaries printed);
# the longest files in shards (-k) as commands
set -uo pipefail
b=$(date +%s)
files=$(ls tests/gpu/test_*.py | grep -v -e row_kernels -e test_attention_gpu -e test_matmul_gpu -e test_matmul_fp8_gpu)
P='python3 -m pytest -m "gpu or torch" -rf -q -p no:cacheprovider'
R=tests/gpu/test_row_kernels_gpu.py; A=tests/gpu/test_attention_gpu.py
M=tests/gpu/test_matmul_gpu.py; F=tests/gpu/test_matmul_fp8_gpu.py
OUT=/tmp/t bash dev/device/parallel_tests.sh -t ${TLIM:-420} $files -- \
  "$P $R -k float64" "$P $R -k l2_variants" "$P $R -k twin" "$P $R -k 'not (float64 or l2_variants or twin)'" \
  "$P $A -k pingpong" "$P $A -k 'not pingpong'" \
  "$P $M -k 'epilogues or clusters_sharing'" "$P $M -k 'skip_padding or 192_column or split_k or plain_ragged'" \
  "$P $M -k 'not (epilogues or clusters_sharing or skip_padding or 192_column or split_k or plain_ragged)'" \
  "$P $F -k block_scaled" "$P $F -k 'not block_scaled'" 2>&1 | grep -v "^\s*$" | tail -90
echo "== tests $(( $(date +%s) - b )) s"
