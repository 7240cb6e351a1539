#!/usr/bin/env bash
set -uo pipefail
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "editable install failed"
b=$(date +%s)
python3 benchmarks/matmul_bench.py --json $OUT/matmul.json > $OUT/mm.log 2>&1; echo "matmul rc $?"; grep -v "^{" $OUT/mm.log | tail -40 | cut -c1-200
echo "== matmul $(( $(date +%s) - b )) s"
