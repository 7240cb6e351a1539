#!/usr/bin/env bash
# Nsight Compute on the flash-attention forward: tilec.attention and torch SDPA's cuDNN
# backend, one profiled launch each per shape (dev/device/ncu_attention.py), then one
# table of the figures. Clocks left alone (--clock-control none, device/METHOD.md).
#   device run (carry .whl): [IMPLS="tilec cudnn"] bash dev/device/ncu_attention.sh [SHAPE ...]   (default: issue 40's four)
set -uo pipefail
cd "$(dirname "$0")/../.."
source dev/device/install.sh
out=${OUT:-/tmp/out}/ncu; mkdir -p "$out"
shapes=("$@"); [ ${#shapes[@]} -eq 0 ] && shapes=(4x32x4096x128 4x32x4096x128c 16x16x1024x64 1x32x16384x128c)
for shape in "${shapes[@]}"; do
  for impl in ${IMPLS:-tilec cudnn}; do
    ncu --clock-control none --profile-from-start off --csv --page raw \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
      python3 dev/device/ncu_attention.py "$impl" "$shape" > "$out/${impl}_$shape.csv" 2> "$out/${impl}_$shape.err" \
      || { echo "ncu failed: $impl $shape"; tail -5 "$out/${impl}_$shape.err"; }
  done
done
python3 dev/device/ncu_attention.py --summary "$out"/*.csv
