#!/usr/bin/env bash
# Session 32, call D: the FP8 rule with FMA promotion (GPU tests, bench).
set -uo pipefail
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "editable install failed"
t0=$(date +%s)
TILEC_CACHE_DIR=/tmp/c1 timeout 150 python3 -m pytest -m "gpu or torch" -rf -q -p no:cacheprovider tests/gpu/test_matmul_fp8_gpu.py > /tmp/fp8t.txt 2>&1; echo "fp8 tests rc $? $(( $(date +%s) - t0 )) s"; tail -3 /tmp/fp8t.txt | cut -c1-200
TILEC_CACHE_DIR=/tmp/c2 timeout 60 python3 benchmarks/matmul_bench.py --fp8 > /tmp/fp8b.txt 2>&1; echo "fp8 bench rc $?"; grep "^|" /tmp/fp8b.txt | tail -8
echo "total $(( $(date +%s) - t0 )) s"
