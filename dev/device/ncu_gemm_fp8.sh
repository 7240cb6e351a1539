#!/usr/bin/env bash
# Nsight Compute on FP8 tilec.matmul kernels (issue 39): one profiled launch per CONFIG at
# M = N = K = SIZE, or SIZE = MxNxK (dev/device/ncu_gemm_fp8.py), one summary line each; with NCU_HOT=1 the
# SASS instructions the warp sampler caught most instead (SourceCounters). Clocks left alone.
#   bash dev/device/ncu_gemm_fp8.sh SIZE CONFIG ...   (e.g. 8192 f8b:128x128x128:4 f8:128x128x128:4)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}/ncu; mkdir -p "$out"
size=$1; shift
for cfg in "$@"; do
  f="$out/$(echo "$cfg" | tr -c 'A-Za-z0-9_.\n-' '_')"
  if [ "${NCU_HOT:-0}" = 1 ]; then
    ncu --clock-control none --profile-from-start off --section SourceCounters --section WarpStateStats -f -o "$f" \
      python3 dev/device/ncu_gemm_fp8.py "$cfg" "$size" > "$f.log" 2>&1 || { echo "ncu failed: $cfg"; tail -3 "$f.log"; }
    echo "$cfg:"; ncu --import "$f.ncu-rep" --page source --csv --print-source sass 2>&1 | python3 dev/device/ncu_gemm_fp8.py --hot
    continue
  fi
  ncu --clock-control none --profile-from-start off --csv --page raw \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --metrics dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct \
    python3 dev/device/ncu_gemm_fp8.py "$cfg" "$size" > "$f.csv" 2> "$f.err" || { echo "ncu failed: $cfg"; tail -3 "$f.err"; }
  echo -n "$cfg: "; python3 dev/device/ncu_gemm_fp8.py --summary < "$f.csv"
done
