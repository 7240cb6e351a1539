#!/usr/bin/env bash
# Nsight Compute's full set on canonical copies by name (dev/device/ncu_copy.py), the
# Program's kernel through the default pipeline (or VARIANT's, a canonical_copy_bench.py
# variant), one launch each: ncu_copy.py's two summary
# lines, then the bytes (DRAM, L2) against the ideal, instructions a byte, every stall of
# note, and the SASS lines holding the most warp-stall samples. Stops starting new cases
# past BUDGET seconds (default 60). CSVs in $OUT (default /tmp/out).
#   bash dev/device/ncu_full.sh 'transpose int8 8191x8209' 'transpose float32 8191x8209'
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"; rep=$(mktemp -d)
t0=$SECONDS
for name in "$@"; do
  if (( SECONDS - t0 > ${BUDGET:-60} )); then echo "skipped (time): $name"; continue; fi
  f=$(echo "$name ${VARIANT:-}" | tr -c 'A-Za-z0-9_.\n-' '_')
  timeout ${NCU_TIMEOUT:-40} ncu --clock-control none --profile-from-start off --set full -f -o "$rep/$f" \
    python3 dev/device/ncu_copy.py "$name" "${VARIANT:-}" > "$rep/$f.log" 2>&1 || { echo "ncu failed: $name"; tail -3 "$rep/$f.log"; continue; }
  ncu --import "$rep/$f.ncu-rep" --csv --page raw > "$out/$f.raw.csv" 2>/dev/null
  ncu --import "$rep/$f.ncu-rep" --csv --page source --print-source sass > "$out/$f.sass.csv" 2>/dev/null
  moved=$(python3 -c "import sys; sys.path[:0]=['benchmarks','tests']; from canonical_copy_bench import cases, bytes_moved; print(bytes_moved(next(c for c in cases(False) if '$name' in c.name)))" 2>/dev/null || echo 0)
  echo "== $name ${VARIANT:-} ($((SECONDS - t0)) s; ideal bytes $moved)"
  python3 dev/device/ncu_copy.py --summary < "$out/$f.raw.csv"
  python3 dev/device/ncu_copy.py --extra "$moved" < "$out/$f.raw.csv"
  python3 dev/device/ncu_copy.py --sass < "$out/$f.sass.csv"
done
