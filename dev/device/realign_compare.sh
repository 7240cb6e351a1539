#!/bin/sh
# The strided set's cases with the realign kernel's dispatch ("auto", this branch) and
# without it ("never": main's kernels), one process each, in one device call:
#   sh dev/device/realign_compare.sh OUTDIR 4,10,16,19,22,28,34,40,46,13,25
set -e
out=$1
only=$2
for policy in never auto; do
  python3 -c "import runpy, sys; from tilec.copy_routes import forced_routes; \
sys.argv = ['strided_copy_bench.py', '--only', '$only', '--no-host', '--json', '$out/$policy.json', '--md', '$out/$policy.md']; \
forced_routes(realign='$policy').__enter__(); \
runpy.run_path('benchmarks/strided_copy_bench.py', run_name='__main__')"
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
runs = {p: {c["name"][:2]: c for c in json.load(open(f"{out}/{p}.json"))["cases"]} for p in ("never", "auto")}
lines = ["| case | main (never) | realign (auto) | PyTorch | DRAM bound | exact |", "|---|---:|---:|---:|---:|---|"]
for k in sorted(runs["auto"]):
    a, n = runs["auto"][k], runs["never"][k]
    r = lambda c, x: c[f"{x}_tbps"] / c["memcpy_tbps"]
    lines.append(f"| {a['name'][:60]} | {r(n, 'tilec'):.3f} | {r(a, 'tilec'):.3f} | {r(a, 'torch'):.3f} | "
                 f"{a['bound']:.3f} | {a['exact'] and n['exact']} |")
open(f"{out}/compare.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
