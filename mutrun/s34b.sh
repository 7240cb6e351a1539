#!/usr/bin/env bash
# session 34 final: the benchmarks of docs/performance.md (JSON into $OUT), two lanes on two GPUs
set -uo pipefail
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "editable install failed"
b=$(date +%s)
(export CUDA_VISIBLE_DEVICES=0 TILEC_CACHE_DIR=/tmp/c0
 timeout 120 python3 benchmarks/canonical_copy_bench.py --json $OUT/canonical_copies.json > /tmp/l0.log 2>&1; echo "canonical rc $? $(( $(date +%s) - b )) s" >> /tmp/l0.sum
 timeout 200 python3 benchmarks/strided_copy_bench.py --no-host --json $OUT/strided_copy.json > /tmp/l0s.log 2>&1; echo "strided rc $? $(( $(date +%s) - b )) s" >> /tmp/l0.sum
 timeout 60 python3 benchmarks/strided_copy_bench.py --host-only --json $OUT/strided_host.json >> /tmp/l0s.log 2>&1; echo "host rc $? $(( $(date +%s) - b )) s" >> /tmp/l0.sum
 timeout 150 python3 benchmarks/copy_bench.py --json $OUT/copy_programs.json >> /tmp/l0.log 2>&1; echo "copy_bench rc $? $(( $(date +%s) - b )) s" >> /tmp/l0.sum
) &
(export CUDA_VISIBLE_DEVICES=1 TILEC_CACHE_DIR=/tmp/c1
 timeout 200 python3 benchmarks/matmul_bench.py --json $OUT/matmul.json > /tmp/l1.log 2>&1; echo "matmul rc $? $(( $(date +%s) - b )) s" >> /tmp/l1.sum
 timeout 150 python3 benchmarks/attention_bench.py --json $OUT/attention.json >> /tmp/l1.log 2>&1; echo "attention rc $? $(( $(date +%s) - b )) s" >> /tmp/l1.sum
 timeout 150 python3 benchmarks/compute_bench.py --sweep --json $OUT/compute.json >> /tmp/l1.log 2>&1; echo "compute rc $? $(( $(date +%s) - b )) s" >> /tmp/l1.sum
) &
wait
cat /tmp/l0.sum /tmp/l1.sum
cat /tmp/l0.log /tmp/l0s.log /tmp/l1.log > $OUT/bench.log
grep -E "min|median|slower" /tmp/l0s.log | head -6
grep -v "^{" /tmp/l1.log | grep -E "^\| (4000|3000|o M|qkv M=128|down M=128|fp8)|Epilogue" | cut -c1-160 | head -20
