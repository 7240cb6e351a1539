#!/bin/sh
# One device call for the realign probes: Nsight Compute figures of tilec's and
# PyTorch's kernels on the cases named (the bench's allocation), then the variants.
#   sh dev/experiments/realign_run.sh OUTDIR ORDER PROFILE [VARIANT ...]
out=$1; order=$2; prof=$3; shift 3
ncu --profile-from-start off --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section Occupancy \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum \
  python3 dev/experiments/realign_ncu.py "$order" "$prof" > "$out/ncu.txt" 2>&1
grep -E "^  [a-z_:<>]|dram__bytes|lts__t_sectors_src|smsp__inst_executed.sum|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Issue Slots Busy|Achieved Occupancy|Registers Per|dst%512" "$out/ncu.txt" | cut -c1-150
python3 dev/experiments/realign_variants.py "$out/variants.md" "$order" "$@" --json="$out/bench.json" --md="$out/bench.md" > "$out/variants.log" 2>&1
tail -15 "$out/variants.log"
