#!/usr/bin/env bash
# session 35 final, part 2: copy_bench (Program copies) and attention, one lane each
set -uo pipefail
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH
b=$(date +%s)
(export CUDA_VISIBLE_DEVICES=0 TILEC_CACHE_DIR=/tmp/c0
 timeout ${CLIM:-280} python3 benchmarks/copy_bench.py --json $OUT/copy_programs.json > /tmp/m0.log 2>&1; echo "copy_bench rc $? $(( $(date +%s) - b )) s") &
(export CUDA_VISIBLE_DEVICES=1 TILEC_CACHE_DIR=/tmp/c1
 timeout ${CLIM:-280} python3 benchmarks/attention_bench.py --json $OUT/attention.json > /tmp/m1.log 2>&1; echo "attention rc $? $(( $(date +%s) - b )) s") &
wait
cat /tmp/m0.log /tmp/m1.log > $OUT/bench2.log
tail -5 /tmp/m0.log; tail -8 /tmp/m1.log | cut -c1-200
