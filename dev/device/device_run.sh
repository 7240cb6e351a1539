#!/usr/bin/env bash
# One call on the lent GPU machine: install what the image lacks (wheels carried in
# .whl/), install tilec, run the GPU tests (tests/gpu, then the gpu/torch tests of
# tests/unit), then the benchmarks; a short table last.
#   device run (carry .whl): bash dev/device/device_run.sh [--quick] [pytest-args...]
#   SKIP_TESTS=1 / SKIP_BENCH=1 leave out the GPU tests / the copy benchmark; COMPUTE=1 adds
#   the compute benchmark (softmax, layer norm, cumsum), each kernel also timed with --fmad=true;
#   STRIDED=1 adds the random strided copies of tilec.copy_ (benchmarks/strided_copy_bench.py),
#   with STRIDED_ARGS (e.g. "--only 0-23 --no-host") and STRIDED_TAG naming its output files;
#   GEMM=1 adds the bf16 GEMM against cuBLAS and Triton (benchmarks/gemm_bench.py), with GEMM_ARGS
#   (e.g. "--sizes 8192 --configs 128x128x32:2x4:4,128x256x32:2x4:3")
set -uo pipefail
source dev/device/install.sh
export TILEC_CACHE_DIR=/tmp/tilec-cache PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
quick=""; [ "${1:-}" = "--quick" ] && { quick="--quick"; shift; }
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  # the suite is past 500 s on one H200 (about 575 tests): two halves, each with its own
  # limit and a summary of what failed (-rf), so a cut-off run still names its failures
  : > "$OUT/gpu-tests.log"
  for part in tests/gpu tests/unit; do
    timeout 280 python3 -m pytest -m "gpu or torch" -rf "$part" "$@" 2>&1 | tee -a "$OUT/gpu-tests.log" | tail -15
  done
fi
if [ "${COMPUTE:-0}" = 1 ]; then
  timeout 450 python3 benchmarks/compute_bench.py $quick --fmad-too --json "$OUT/compute.json" --md "$OUT/compute.md" 2>&1 | tee "$OUT/compute.log" | tail -30
fi
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  timeout 400 python3 benchmarks/copy_bench.py $quick --json "$OUT/bench.json" --md "$OUT/benchmarks.md" 2>&1 | tee "$OUT/bench.log" | tail -30
fi
if [ "${STRIDED:-0}" = 1 ]; then
  tag=${STRIDED_TAG:-strided}
  timeout 560 python3 benchmarks/strided_copy_bench.py $quick ${STRIDED_ARGS:-} --json "$OUT/$tag.json" --md "$OUT/$tag.md" 2>&1 | tee "$OUT/$tag.log" | tail -70
fi
if [ "${GEMM:-0}" = 1 ]; then
  timeout 500 python3 benchmarks/gemm_bench.py ${GEMM_ARGS:-} --json "$OUT/gemm.json" --md "$OUT/gemm.md" 2>&1 | tee "$OUT/gemm.log" | tail -20
fi
