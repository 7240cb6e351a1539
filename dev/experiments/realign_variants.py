"""Variants of the realign kernel (api/copy_realign.py) timed in strided_copy_bench's
own allocation: the bench runs as usual (`--only ...`), and where it would time
Triton on a case, this script times each variant of the realign kernel on the same
src and dst instead (a fresh `CopyKernels` per variant, its tuning values in force
for it: `with forced_routes(realign_threads=...)`, api/copy_routes.py), checks it bit-exact against PyTorch, and prints one table at the end.

    python3 dev/experiments/realign_variants.py OUT.md 46,34,16 [name=K:V,K:V ...]

A variant is `name=CONST:value,...` over copy_realign's constants (THREADS,
CHUNKS_PER_THREAD, FAST_DIV, SHORT_ROW_BYTES), set as tuning values (`TUNING`), never
as module globals; none: "main", the defaults.
Arguments `--json=PATH`, `--md=PATH` go to the bench.
"""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
import copy_bench
import strided_copy_bench as sb
import torch

from tilec import tensor_copy
from tilec.copy_kernels import CopyKernels
from tilec.copy_routes import forced_routes

TUNING = {"THREADS": "realign_threads", "CHUNKS_PER_THREAD": "realign_chunks_per_thread",
          "FAST_DIV": "realign_fast_div", "SHORT_ROW_BYTES": "realign_short_row_bytes"}
"""copy_realign's constants and the tuning values (copy_routes) that set them."""

out_md, only = sys.argv[1], sys.argv[2]
bench_args = [a for a in sys.argv[3:] if a.startswith("--")]
variants = {}
for spec in [a for a in sys.argv[3:] if not a.startswith("--")] or ["main="]:
    name, _, body = spec.partition("=")
    variants[name] = {k: int(v) for k, v in (kv.split(":") for kv in body.split(",") if kv)}
rows = []


def hook(torch_mod, dst, src):
    moved = 2 * dst.numel() * dst.element_size()
    mc = copy_bench.memcpy_tbps(moved // 2)
    res = {"dst%512": dst.data_ptr() % 512, "src%512": src.data_ptr() % 512}
    res["torch"] = copy_bench.tbps(moved, sb._median(copy_bench, lambda: dst.copy_(src), 30)) / mc
    for name, spec in variants.items():
        kern = CopyKernels(disk=False)
        with forced_routes(**{TUNING[k]: v for k, v in spec.items()}):
            dst.fill_(77)
            tensor_copy.copy_(dst, src, kernels=kern)
            ok = bool(torch.equal(dst, src))
            t = sb._median(copy_bench, lambda kern=kern: tensor_copy.copy_(dst, src, kernels=kern), 30)
        res[name] = f"{copy_bench.tbps(moved, t) / mc:.3f}{'' if ok else ' WRONG'}"
    rows.append(res)
    print("variants:", res, flush=True)


sb.triton_copy = hook
sb.main(["--only", only, "--no-host", *[x for a in bench_args for x in a.split("=", 1)]])
names = list(variants)
lines = ["| case | dst%512 | PyTorch | " + " | ".join(names) + " |", "|---" * (3 + len(names)) + "|"]
cases = [c for i, c in enumerate(sb.generate_cases()) if str(i) in only.split(",")]
for c, r in zip(sorted(cases, key=lambda c: c.name), rows):
    lines.append(f"| {c.name[:45]} | {r['dst%512']} | {r['torch']:.3f} | " + " | ".join(r[n] for n in names) + " |")
with open(out_md, "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(lines))
