#!/usr/bin/env bash
# Run an exported mutation sample (dev/mutation_batch.py export) on the lent GPU machine's
# host cores. Carry .whl (xdsl, lit, filecheck: ../shared/tools/device-wheels.sh) and
# .whlmut (pytest 9.2, hypothesis, their needs for the machine's Python):
#   device run (carry .whl .whlmut DIR): bash dev/device/mutation_run.sh DIR/mutants.json JOBS [CPUS]
# Installs nothing into the machine's Python (an editable tilec there would put a `tilec`
# next to python3, which lit.cfg prefers to each worker copy's own). CPUS: a taskset list.
set -uo pipefail
cd "$(dirname "$0")/../.."
manifest=$1; jobs=$2; cpus=${3:-}
site=/tmp/site-mut-$$
python3 -m pip install -q --no-index --no-deps --target $site .whl/*.whl .whlmut/*.whl
export PYTHONPATH=$site PATH=$site/bin:$PATH PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
run=(python3 dev/mutation_batch.py run "$manifest" --jobs "$jobs" --timeout "${MUTANT_TIMEOUT:-480}" --out "$OUT" ${MUTANT_ARGS:-})
[ -n "$cpus" ] && run=(taskset -c "$cpus" "${run[@]}")
"${run[@]}" > "$OUT/mutation.log" 2>&1
rc=$?
grep -v "^killed  \|^baseline" "$OUT/mutation.log" | tail -60
exit $rc
