#!/usr/bin/env bash
# session 36 first call: the GPU tests owed from session 35 (matmul and FP8 in shards, tensor copy)
set -uo pipefail
b=$(date +%s)
P='python3 -m pytest -m "gpu or torch" -rf -q -p no:cacheprovider'
M=tests/gpu/test_matmul_gpu.py; F=tests/gpu/test_matmul_fp8_gpu.py
OUT=/tmp/t bash dev/device/parallel_tests.sh -t ${TLIM:-420} tests/gpu/test_tensor_copy_gpu.py -- \
  "$P $M -k 'epilogues or clusters_sharing'" "$P $M -k 'skip_padding or 192_column or split_k or plain_ragged'" \
  "$P $M -k 'not (epilogues or clusters_sharing or skip_padding or 192_column or split_k or plain_ragged)'" \
  "$P $F -k block_scaled" "$P $F -k 'not block_scaled'" 2>&1 | grep -v "^\s*$" | tail -60
echo "== tests $(( $(date +%s) - b )) s"
