#!/usr/bin/env bash
# Nsight Compute on bf16 GEMMs side by side at a shape (or several) (dev/device/ncu_gemm.py): each NAME
# (`rule`: tilec.matmul's configuration, `cublas`: torch.matmul, or a configuration's name)
# run and checked, then one profiled launch each in one process; two lines a kernel (its
# name; grid, cluster, registers, time, clock, tensor pipe, L2 and DRAM bytes, stalls).
# Clocks left alone (NCU_CLOCK=base: ncu's fixed base clock, durations comparable across kernels
# whatever the power cap does; NCU_SECTIONS="A B": ncu's sections A and B as well). The CSV stays in $OUT/ncu
# (default /tmp/out/ncu).
#   bash dev/device/ncu_gemm.sh 3000x5000x7000 rule cublas
#   bash dev/device/ncu_gemm.sh 8192x28672x4096t rule cublas     # t: B = w.t() (K-major)
#   bash dev/device/ncu_gemm.sh 3000x5000x7000 rule cublas 8192x28672x4096t rule cublas   # one process
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}/ncu; mkdir -p "$out"
f="$out/gemm_$(echo "$*" | tr -c 'A-Za-z0-9_.\n-' '_' | cut -c1-120)"
metrics=$(python3 -c "import sys; sys.path.insert(0, 'dev/device'); import ncu_gemm; print(ncu_gemm.METRICS)")
traffic=$(python3 -c "import sys; sys.path.insert(0, 'dev/device'); import ncu_gemm; print(ncu_gemm.TRAFFIC_METRICS)")
sections=""
for x in ${NCU_SECTIONS:-}; do sections="$sections --section $x"; done  # more sections, e.g. InstructionStats
run() {  # ncu's extra arguments
  ncu --clock-control ${NCU_CLOCK:-none} --profile-from-start off --csv --page raw \
    --section SpeedOfLight --section WarpStateStats --section LaunchStats $sections "$@" \
    python3 dev/device/ncu_gemm.py $names > "$f.csv" 2> "$f.err" || { echo "ncu failed: $names"; tail -3 "$f.err"; }
}
names="$*"
unknown() { grep -qi "metric" "$f.err" "$f.csv" && ! grep -q '^"[0-9]' "$f.csv"; }
run --metrics "$metrics,$traffic"
# a metric this ncu does not know fails the whole run: again without the traffic's, then with the sections' own
unknown && { echo "again without the traffic metrics"; run --metrics "$metrics"; }
unknown && { echo "again without --metrics"; run; }
grep "^# " "$f.err"
python3 dev/device/ncu_gemm.py --summary < "$f.csv"
