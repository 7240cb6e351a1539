#!/usr/bin/env bash
# Run GPU test files (or sanitizer commands) side by side on the lent GPU machine: each
# pytest file is its own process with its own kernel cache and log ($OUT/NAME.log), so
# NVRTC compiles spread over the host's cores while the GPU checks results. For
# correctness only: nothing here is timed (benchmarks run alone).
#   device run (carry .whl): bash dev/device/parallel_tests.sh [-t SECONDS] FILE.py ... [-- "shell command" ...]
# Prints each file's pytest summary (with -rf's failures) at the end. On a machine of several
# GPUs the files and commands take them in turn (CUDA_VISIBLE_DEVICES).
set -uo pipefail
cd "$(dirname "$0")/../.."
source dev/device/install.sh
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
limit=500; [ "${1:-}" = "-t" ] && { limit=$2; shift 2; }
files=(); cmds=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; cmds=("$@"); break; fi
  files+=("$1"); shift
done
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); [ "$ngpu" -ge 1 ] || ngpu=1
i=0; j=0
for f in "${files[@]}"; do
  name=$(basename "$f" .py)
  export CUDA_VISIBLE_DEVICES=$((j % ngpu)); j=$((j + 1))
  (TILEC_CACHE_DIR=/tmp/tilec-cache-$name timeout "$limit" python3 -m pytest -m "gpu or torch" -rf -q -p no:cacheprovider "$f" > "$OUT/$name.log" 2>&1; echo "exit status $?" >> "$OUT/$name.log") &
done
for c in "${cmds[@]}"; do
  i=$((i + 1))
  export CUDA_VISIBLE_DEVICES=$((j % ngpu)); j=$((j + 1))
  TILEC_CACHE_DIR=/tmp/tilec-cache-cmd$i timeout "$limit" bash -c "$c" > "$OUT/cmd$i.log" 2>&1 &
done
wait
unset CUDA_VISIBLE_DEVICES
for f in "${files[@]}"; do
  # pytest runs -qq here (addopts -q and -q): no count line; the progress marks, the -rf
  # lines and the exit status (124: the time limit cut it) say how it went
  name=$(basename "$f" .py); log="$OUT/$name.log"
  echo "== $name: $(grep -E '^[.FEsxX]+ +\[' "$log" | tr -cd '.FEsxX' | sed 's/./&\n/g' | sort | uniq -c | tr -s ' \n' ' ')$(tail -1 "$log")"
  grep -E "^(FAILED|ERROR)" "$log" | tail -12
done
i=0
for c in "${cmds[@]}"; do i=$((i + 1)); echo "== cmd$i: $c"; tail -15 "$OUT/cmd$i.log"; done
