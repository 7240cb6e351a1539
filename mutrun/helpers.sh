#!/usr/bin/env bash
# Mid-session call: each helper's tree (mutrun/br/NAME, a git archive of its branch HEAD) is
# installed on its own (/tmp/site-NAME, all installs side by side first) and its snippet
# (mutrun/br/NAME.gpu) run from its root. LANES="a b|c d": each lane (|) on its own GPU, its
# helpers one after another; lanes side by side. EXTRA_LANE: a command run as one more lane.
set -uo pipefail
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
ROOT=$PWD
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
IFS='|' read -ra lanes <<< "${LANES:-$(cd mutrun/br && ls -d */ | tr -d / | tr '\n' ' ')}"
for lane in "${lanes[@]}"; do for n in $lane; do
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --target /tmp/site-$n mutrun/br/$n >/tmp/inst-$n.txt 2>&1 &
done; done
wait
g=0
for lane in "${lanes[@]}"; do
  (export CUDA_VISIBLE_DEVICES=$g
   for n in $lane; do
     d=mutrun/br/$n; [ -f $d.gpu ] || continue
     b=$(date +%s)
     (cd $d && PYTHONPATH=/tmp/site-$n:/tmp/site PATH=/tmp/site/bin:$PATH TILEC_CACHE_DIR=/tmp/cache-$n timeout ${HLIMIT:-105} bash $ROOT/$d.gpu) > /tmp/$n.gpu.out 2>&1
     echo "== $n rc $? $(( $(date +%s) - b )) s (GPU $g)" >> /tmp/$n.gpu.out
     cp /tmp/$n.gpu.out $OUT/ 2>/dev/null
   done) &
  g=$((g + 1))
done
wait
for lane in "${lanes[@]}"; do for n in $lane; do
  [ -f /tmp/$n.gpu.out ] || continue
  tail -1 /tmp/$n.gpu.out; tail -c ${TAILC:-1500} /tmp/$n.gpu.out | head -n -1
done; done
