"""Registers, launch bounds and steps a block of the kernels a canonical box case compiles
to through NVRTC (the compiler tilec launches with; nvcc's whole compile of the same
source can differ: the canonical rows kernel 48 registers through NVRTC 13.0, 60 through
nvcc 13.0): `tilec.copy_`'s under each `--route` and the Program's through each
`--variant` (issue 35, brow46). Not a test; no GPU needed (`--arch`).

    python3 dev/experiments/box_regs.py 'box rows' --route box_blocks=5 --variant 'tile{box_blocks=5}'
"""

from __future__ import annotations

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path[:0] = [os.path.join(ROOT, "benchmarks"), os.path.join(ROOT, "tests"), HERE]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", help="a substring of a canonical case's name")
    ap.add_argument("--route", action="append", default=[], help="name=value,... (api/copy_routes.py)")
    ap.add_argument("--variant", action="append", default=[], help="PASS{OPTIONS}[+...], as box_prefetch_ab.py's")
    ap.add_argument("--arch", default="sm_90")
    a = ap.parse_args(argv)
    import tilec
    from canonical_copy_bench import variant_pipeline
    from helpers.canonical_copies import CANONICAL, program_of
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import plan_copy
    from tilec.copy_routes import forced_routes
    from tilec.runtime.nvrtc import nvrtc_version, resource_usage

    case = next(c for c in CANONICAL if a.name in c.name)
    dst, src = case.operands()
    print(f"{case.name}: NVRTC {'.'.join(map(str, nvrtc_version()))}, {a.arch}")

    def show(tag: str, kernel) -> None:
        use = list(resource_usage(kernel.compile(a.arch)).values())[0]
        bounds = re.search(r"__launch_bounds__\([^)]*\)", kernel.source)
        steps = re.search(r"tilec_ceildivu\(\(unsigned int\)\w+, \(unsigned int\)(\d+)\)", kernel.source)
        print(f"  {tag:50s} {bounds.group(0) if bounds else '-':28s} steps {steps.group(1) if steps else '?':>3s}"
              f" regs {use.registers} spills {use.spill_stores}", flush=True)

    for spec in ["", *a.route]:
        routes = {k: int(v) if v.lstrip("-").isdigit() else v for k, v in (x.split("=") for x in spec.split(",") if x)}
        with forced_routes(**routes):
            plan = plan_copy(dst, src)
            show(f"copy_ {spec or 'as is'}", CopyKernels(arch=a.arch, disk=False).get(plan.key).kernel)
    plan = plan_copy(dst, src)
    for v in ["tile", *a.variant]:
        show(f"Program {v}", tilec.compile(program_of(plan), variant_pipeline(v), arch=a.arch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
