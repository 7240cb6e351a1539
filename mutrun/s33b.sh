#!/usr/bin/env bash
set -uo pipefail
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1 || echo "editable install failed"
b=$(date +%s)
python3 dev/device/attention_turns.py --shapes 16x16x1024x64 --configs persistent-bn128,persistent-bn64-2x-s3,persistent-bn64-2x-s4 --rounds 2 2>&1 | tail -12
echo "== turns $(( $(date +%s) - b )) s"
python3 benchmarks/realistic_rows.py --kinds softmax,layer_norm,rms_norm --cols 768,1000,3072,4096,8192 --rows 16384 --dtypes f32,f16 \
  --variants SWEEP --budget 200 --json $OUT/sweep.json --md $OUT/sweep.md > /tmp/sweep.log 2>&1; echo "sweep rc $?"; tail -3 /tmp/sweep.log
echo "== sweep $(( $(date +%s) - b )) s"
mkdir -p /tmp/n; OUT=/tmp/n bash dev/device/ncu_memory.sh rows:softmax:f16:50257:16384 >/dev/null 2>&1
grep -E "^    (Duration|No Eligible|Warp Cycles Per Issued|Block Size|Registers Per Thread|Achieved Occupancy|Dynamic Shared Memory Per Block)|Stall (Short|Not Sel|Wait|Barrier|MIO|Long|LG|Math|Branch)" /tmp/n/ncu/*.txt | head -20
cp /tmp/n/ncu/*.txt $OUT/
IMPLS=tilec bash dev/device/ncu_attention.sh 16x16x1024x64 2>&1 | tail -2
python3 - <<'PY'
import csv,glob
import os
for f in glob.glob(os.environ['OUT']+'/ncu/tilec_16x16x1024x64.csv'):
    lines=[l for l in open(f) if l.startswith('"')]
    r=[x for x in csv.DictReader(lines) if x.get('ID','').isdigit()][0]
    for k in ('gpu__time_duration.sum','sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed','sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed','sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed','sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed'):
        print(k, r.get(k))
PY
echo "== all $(( $(date +%s) - b )) s"
