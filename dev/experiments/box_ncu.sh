#!/usr/bin/env bash
# Nsight Compute on the box copies against a contiguous copy of the same bytes (issue 35,
# box41): per NAME (dev/device/ncu_copy.py's names: a canonical copy's Program through the
# default pipeline, or `contig:N`), one profiled launch, the speed-of-light, memory tables,
# warp-state, occupancy and launch sections plus the L2's requests and sectors both sides and
# the multiprocessors' active cycles (min / avg / max: the grid's tail); then ncu_copy.py's
# summary and --extra lines (BYTES the ideal bytes read + written). Stops starting new
# profiles past BUDGET seconds (default 45).
#   bash dev/experiments/box_ncu.sh 'box flat@1468605722' 'contig:734302861@1468605722' \
#     'box rows@736038188@tile{box_prefetch=128}'   (NAME@BYTES[@VARIANT]: the Program through that variant)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}; mkdir -p "$out"
m="lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.min,sm__cycles_active.max,sm__cycles_active.avg,sm__cycles_elapsed.avg,smsp__cycles_active.avg,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_global_st.sum,smsp__inst_executed_op_ldgsts.sum"
t0=$SECONDS
for arg in "$@"; do
  name=${arg%%@*}; rest=${arg#*@}; moved=${rest%%@*}; variant=""
  [[ $rest == *@* ]] && variant=${rest#*@}
  if (( SECONDS - t0 > ${BUDGET:-45} )); then echo "skipped (time): $name"; continue; fi
  f="$out/$(echo "$name $variant" | tr -c 'A-Za-z0-9_.\n-' '_')"
  timeout ${NCU_TIMEOUT:-30} ncu --clock-control none --profile-from-start off --csv --page raw \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section Occupancy --section LaunchStats --metrics "$m" \
    python3 dev/device/ncu_copy.py "$name" "$variant" > "$f.csv" 2> "$f.err" || { echo "ncu failed: $name"; tail -3 "$f.err"; continue; }
  echo "== $name ${variant:-default} ($((SECONDS - t0)) s)"
  python3 dev/device/ncu_copy.py --summary < "$f.csv"
  python3 dev/device/ncu_copy.py --extra "$moved" < "$f.csv"
done
