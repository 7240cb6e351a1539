#!/usr/bin/env bash
# Nsight Compute on one canonical copy by name (dev/device/ncu_copy.py): tilec.copy_'s
# kernel, then the Program's through each VARIANT ('' the default pipeline), one profiled
# launch each, two summary lines each (time, DRAM, sectors a request, shared wavefronts a
# request, launch and waves, occupancy, the largest stalls). Clocks left alone. The CSVs
# stay in $OUT/ncu (default /tmp/out/ncu).
#   bash dev/device/ncu_copy.sh 'transpose int8 8191' '' 'tile{box_smem=76800}'
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}/ncu; mkdir -p "$out"
name=$1; shift
run() {  # label, then ncu_copy.py's arguments
  local label=$1; shift
  local f="$out/$(echo "$name $label" | tr -c 'A-Za-z0-9_.\n-' '_')"
  ncu --clock-control none --profile-from-start off --csv --page raw \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section Occupancy --section LaunchStats --metrics smsp__inst_executed.sum \
    python3 dev/device/ncu_copy.py "$@" > "$f.csv" 2> "$f.err" || { echo "ncu failed: $label"; tail -3 "$f.err"; }
  echo "$label:"; python3 dev/device/ncu_copy.py --summary < "$f.csv"
}
run copy_ "$name"
for v in "$@"; do run "program ${v:-default}" "$name" "$v"; done
