#!/usr/bin/env bash
# Session 32, call A (main d647e18): ncu of attention (D64 and D128), the attention table's
# JSON, the decode rule as such, softmax at 50257.
set -uo pipefail
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "editable install failed"
t0=$(date +%s)
bench() {  # NAME SECONDS CMD...
  local n=$1 s=$2; shift 2; local b=$(date +%s)
  TILEC_CACHE_DIR=/tmp/cache-bench timeout $s "$@" > /tmp/bench-$n.txt 2>&1
  echo "== bench $n rc $? $(( $(date +%s) - b )) s"; tail -${TAIL:-14} /tmp/bench-$n.txt | cut -c1-260
  cp /tmp/bench-$n.txt $OUT/ 2>/dev/null
}
TAIL=12 bench ncu 150 env IMPLS="tilec cudnn" bash dev/device/ncu_attention.sh 16x16x1024x64 4x32x4096x128
bench attn 170 python3 benchmarks/attention_bench.py --configs persistent-bn128 --json $OUT/attention.json
TAIL=20 bench dec 70 python3 benchmarks/matmul_bench.py --decode --tokens 1,16,64,128 --configs +k64:s8:p0,+k64:s8:p0:splitK2
TAIL=10 bench smax 110 python3 benchmarks/realistic_rows.py --kinds softmax --cols 50257 --rows 16384 --dtypes f32,f16 --budget 90 --json $OUT/realistic_rows_softmax50257.json
echo "total $(( $(date +%s) - t0 )) s"
