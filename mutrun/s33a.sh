#!/usr/bin/env bash
set -uo pipefail
b=$(date +%s)
IMPLS="tilec cudnn flash" bash dev/device/ncu_attention.sh 16x16x1024x64 2>&1 | tail -8
echo "== attention $(( $(date +%s) - b )) s"
bash dev/device/ncu_memory.sh rows:softmax:f16:50257:16384 rows:layer_norm:f16:50257:16384 rows:rms_norm:f32:50257:16384 \
  "copy:transpose float16 8191" "copy:transpose int8 8191"
echo "== all $(( $(date +%s) - b )) s"
ls -la $OUT/ncu
