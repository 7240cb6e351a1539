#!/usr/bin/env bash
# session 33 final: GPU tests of the merged tree, side by side (logs in /tmp/t, summaries printed)
set -uo pipefail
b=$(date +%s)
OUT=/tmp/t bash dev/device/parallel_tests.sh -t ${TLIM:-330} $(for f in attention row_kernels canonical_copies copy_realign tensor_copy cp_async_load dot matmul_fp8 matmul mma_async software_pipeline wgmma tma mbarrier_programs examples compute software_pipeline_rolled launch; do echo tests/gpu/test_${f}_gpu.py; done) 2>&1 | tail -60
echo "== tests $(( $(date +%s) - b )) s"
