#!/usr/bin/env bash
# Nsight Compute on memory-bound tilec kernels (dev/device/ncu_memory.py): one profiled launch
# per CASE, the sections that explain a bandwidth shortfall (speed of light, memory tables:
# sectors per request and shared-memory bank conflicts, warp stalls, occupancy, launch),
# printed as ncu's details page into $OUT/ncu/CASE.txt. Clocks left alone (--clock-control none).
#   device run (carry .whl): bash dev/device/ncu_memory.sh rows:softmax:f16:50257:16384 copy:'transpose float16 8191'
set -uo pipefail
cd "$(dirname "$0")/../.."
source dev/device/install.sh
out=${OUT:-/tmp/out}/ncu; mkdir -p "$out"
for case in "$@"; do
  f="$out/$(echo "$case" | tr -c 'A-Za-z0-9_.\n-' '_').txt"
  ncu --clock-control none --profile-from-start off --print-details all \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats \
    python3 dev/device/ncu_memory.py "$case" > "$f" 2>&1 || { echo "ncu failed: $case"; tail -5 "$f"; }
done
