#!/usr/bin/env bash
# session 35: the GPU test files that failed or ran out of time, in shards over both GPUs (by test function)
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1
P='python3 -m pytest -m "gpu or torch" -rf -q -p no:cacheprovider'
M=tests/gpu/test_matmul_gpu.py
fns=$(python3 -m pytest -m "gpu or torch" --co -q -p no:cacheprovider $M 2>/dev/null | grep "::" | sed 's/.*:://; s/\[.*//' | sort -u)
n=$(echo "$fns" | wc -l)
k() { echo "$fns" | awk -v s=$1 -v m=$2 'NR % m == s' | paste -sd' ' | sed 's/ / or /g'; }
mkdir -p /tmp/r
(export CUDA_VISIBLE_DEVICES=0; TILEC_CACHE_DIR=/tmp/r0 timeout 300 bash -c "$P tests/gpu/test_tensor_copy_gpu.py -k 'gather_kernel or short_periods'" > /tmp/r/tc.log 2>&1
 TILEC_CACHE_DIR=/tmp/r0 timeout 250 bash -c "$P $M -k '$(k 0 3)'" > /tmp/r/m0.log 2>&1) &
(export CUDA_VISIBLE_DEVICES=1; TILEC_CACHE_DIR=/tmp/r1 timeout 300 bash -c "$P tests/gpu/test_matmul_fp8_gpu.py" > /tmp/r/f8.log 2>&1) &
(export CUDA_VISIBLE_DEVICES=1; TILEC_CACHE_DIR=/tmp/r2 timeout 300 bash -c "$P $M -k '$(k 1 3)'" > /tmp/r/m1.log 2>&1) &
(export CUDA_VISIBLE_DEVICES=0; TILEC_CACHE_DIR=/tmp/r3 timeout 300 bash -c "$P $M -k '$(k 2 3)'" > /tmp/r/m2.log 2>&1) &
wait
echo "matmul functions $n"
for f in tc f8 m0 m1 m2; do echo "== $f"; grep -E "^(FAILED|ERROR)|passed|failed|^E " /tmp/r/$f.log | head -12 | cut -c1-400; done
