#!/usr/bin/env bash
# session 33 final: benchmarks for docs/performance.md (JSON into $OUT)
set -uo pipefail
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "editable install failed"
b=$(date +%s)
python3 benchmarks/canonical_copy_bench.py --json $OUT/canonical_copies.json > /tmp/cc.log 2>&1; echo "canonical rc $?"; grep -v '^{' /tmp/cc.log | tail -32
echo "== canonical $(( $(date +%s) - b )) s"
for k in softmax layer_norm rms_norm cumsum; do
  python3 benchmarks/realistic_rows.py --kinds $k --budget 70 --json $OUT/realistic_rows_$k.json > /tmp/rr_$k.log 2>&1; echo "$k rc $?"; grep "N=50257 M=16384\|N=131072 M=16384" /tmp/rr_$k.log | grep "^|" | cut -c1-160
done
echo "== rows $(( $(date +%s) - b )) s"
