#!/usr/bin/env bash
# Session 32, call C (the merged tree): GPU tests of what changed side by side, then the
# benchmarks timed alone, one after another.
set -uo pipefail
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "editable install failed"
t0=$(date +%s)
T=()
gputest() {  # NAME -k EXPR FILE  or  NAME "" FILE
  local n=$1 k=$2 f=$3
  if [ -n "$k" ]; then
    TILEC_CACHE_DIR=/tmp/cache-$n timeout ${TLIMIT:-270} python3 -m pytest -m "gpu or torch" -rf -q -p no:cacheprovider -k "$k" $f > /tmp/log-$n.txt 2>&1 &
  else
    TILEC_CACHE_DIR=/tmp/cache-$n timeout ${TLIMIT:-270} python3 -m pytest -m "gpu or torch" -rf -q -p no:cacheprovider $f > /tmp/log-$n.txt 2>&1 &
  fi
  T+=($!)
}
A=tests/gpu/test_attention_gpu.py
gputest attn1 "test_attention_pingpong and not overlap_bn128 and not ragged and not f16" $A
gputest attn2 "pingpong_overlap or pingpong_ragged or pingpong_f16 or into_given or hd256 or repeated_call" $A
gputest attn3 "not test_attention_pingpong and not into_given and not hd256 and not repeated_call" $A
gputest rows "stash or window or two_pass" tests/gpu/test_row_kernels_gpu.py
GPUFILES="tests/gpu/test_matmul_gpu.py tests/gpu/test_matmul_fp8_gpu.py tests/gpu/test_cp_async_load_gpu.py tests/gpu/test_canonical_copies_gpu.py tests/gpu/test_wgmma_gpu.py tests/gpu/test_tensor_copy_gpu.py tests/gpu/test_dot_gpu.py tests/gpu/test_mma_async_gpu.py tests/gpu/test_software_pipeline_gpu.py tests/gpu/test_copy_realign_gpu.py"
for f in $GPUFILES; do gputest $(basename $f .py) "" $f; done
wait "${T[@]}"
for f in /tmp/log-*.txt; do echo "== $(basename $f .txt): $(grep -E '^[.FEsxX]+ +\[' $f | tr -cd '.FEsxX' | sed 's/./&\n/g' | sort | uniq -c | tr -s ' \n' ' ') $(tail -1 $f | cut -c1-70)"; grep -E "^(FAILED|ERROR)" $f | head -5 | cut -c1-250; done
echo "tests took $(( $(date +%s) - t0 )) s"
for f in $(grep -lE "^(FAILED|ERROR)" /tmp/log-*.txt); do cp $f $OUT/; done
bench() {  # NAME SECONDS CMD...
  local n=$1 s=$2; shift 2; local b=$(date +%s)
  TILEC_CACHE_DIR=/tmp/cache-bench timeout $s "$@" > /tmp/bench-$n.txt 2>&1
  echo "== bench $n rc $? $(( $(date +%s) - b )) s"; tail -${TAIL:-14} /tmp/bench-$n.txt | cut -c1-300
  cp /tmp/bench-$n.txt $OUT/ 2>/dev/null
}
bench attn 150 python3 benchmarks/attention_bench.py --configs persistent-bn128 --rounds 2 --json $OUT/attention.json
echo "total $(( $(date +%s) - t0 )) s"
