#!/usr/bin/env bash
# Session 32, call C2 (the merged tree): benchmarks, one at a time.
set -uo pipefail
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "editable install failed"
t0=$(date +%s)
bench() {  # NAME SECONDS CMD...
  local n=$1 s=$2; shift 2; local b=$(date +%s)
  TILEC_CACHE_DIR=/tmp/cache-bench timeout $s "$@" > /tmp/bench-$n.txt 2>&1
  echo "== bench $n rc $? $(( $(date +%s) - b )) s"; tail -${TAIL:-14} /tmp/bench-$n.txt | cut -c1-${CUT:-300}
  cp /tmp/bench-$n.txt $OUT/ 2>/dev/null
}
TAIL=7 CUT=400 bench attn 90 python3 benchmarks/attention_bench.py --configs persistent-bn128 --rounds 2 --json $OUT/attention.json
TAIL=20 CUT=140 bench dec 90 python3 benchmarks/matmul_bench.py --decode --tokens 1,16,64,128
TAIL=12 CUT=200 bench canon 150 python3 benchmarks/canonical_copy_bench.py --json $OUT/canonical_copies.json
TAIL=8 bench fp8 40 python3 benchmarks/matmul_bench.py --fp8 --shapes 4096,8192 --configs f8b:128x128x128:4:fma
TAIL=10 bench clu 60 python3 benchmarks/gemm_cluster_probe.py --sizes 3000x5000x7000,3000x5008x7008 --configs wgmma:128x256x64:4:ws:p:g8:tma:c128
echo "total $(( $(date +%s) - t0 )) s"
