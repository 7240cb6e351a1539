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
gputest rows "not stash and not window and not two_pass" tests/gpu/test_row_kernels_gpu.py
for f in tests/gpu/test_canonical_copies_gpu.py tests/gpu/test_tensor_copy_gpu.py tests/gpu/test_examples_gpu.py tests/gpu/test_launch_gpu.py tests/gpu/test_compute_gpu.py tests/gpu/test_tma_gpu.py tests/gpu/test_mbarrier_programs_gpu.py tests/gpu/test_software_pipeline_rolled_gpu.py; do gputest $(basename $f .py) "" $f; done
wait "${T[@]}"
for f in /tmp/log-*.txt; do echo "== $(basename $f .txt): $(grep -E '^[.FEsxX]+ +\[' $f | tr -cd '.FEsxX' | sed 's/./&\n/g' | sort | uniq -c | tr -s ' \n' ' ') $(tail -1 $f | cut -c1-70)"; grep -E "^(FAILED|ERROR)" $f | head -5 | cut -c1-250; done
echo "tests took $(( $(date +%s) - t0 )) s"
