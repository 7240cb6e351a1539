"""SASS of the odd transposes' kernels (tests/helpers/canonical_copies.py, 8191 x 8209)
through a pipeline, without a GPU: the Program path's CUDA compiled by NVRTC for
sm_90, its PTX through ptxas and cuobjdump; per kernel the registers, and the counts of
the instructions that matter for a copy (shared and global loads and stores by width,
PRMT / byte moves, all instructions), for an A/B of `tile` / `copy-strategy` options.

    python3 dev/experiments/tiles_sass.py --cases int8,float16 \
        --variant '' --variant 'tile{tiles_lanes=16}' [--dump DIR]

`--variant` is a `canonical_copy_bench.py` variant (passes joined by `+`; '' the
default pipeline); `CUOBJDUMP` names the disassembler (default: on PATH, else the
copy under /tmp/cuobj)."""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "benchmarks"))


def cuobjdump() -> str:
    return os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump") or "/tmp/cuobj/nvidia/cu13/bin/cuobjdump"


def ptxas() -> str:
    return os.environ.get("PTXAS") or shutil.which("ptxas") or "/usr/local/cuda-13.0/bin/ptxas"


def sass_of(ptx: str) -> tuple[str, str]:
    """(SASS, ptxas's -v log) of NVRTC's PTX through ptxas for sm_90 (cuobjdump reads
    ptxas's cubins; NVRTC's may be of a newer ELF than it reads)."""
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        open(src, "w").write(ptx)
        log = subprocess.run([ptxas(), "-arch=sm_90", "-v", src, "-o", out], capture_output=True, text=True,
                             check=True).stderr
        return subprocess.run([cuobjdump(), "-sass", out], capture_output=True, text=True, check=True).stdout, log


def counts(sass: str) -> collections.Counter:
    c: collections.Counter = collections.Counter()
    for line in sass.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if not m:
            continue
        op = m.group(2)
        c["all"] += 1
        base = op.split(".")[0]
        if base in ("LDS", "STS", "LDG", "STG", "LDGSTS", "PRMT", "SHF", "BAR", "LDGDEPBAR", "DEPBAR"):
            c[op] += 1
    return c


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="int8,float16,float32")
    ap.add_argument("--shape", default="8191x8209", help="the canonical transposes of this shape")
    ap.add_argument("--variant", action="append", default=None)
    ap.add_argument("--dump", default="")
    args = ap.parse_args()
    from canonical_copy_bench import variant_pipeline
    from helpers.canonical_copies import CANONICAL, program_of

    from tilec.compiling import compile_program
    from tilec.copy_plan import plan_copy
    from tilec.runtime.nvrtc import compile_cuda

    for dt in args.cases.split(","):
        case = next(c for c in CANONICAL if c.name == f"transpose {dt} {args.shape}")
        dst, src = case.operands()
        plan = plan_copy(dst, src)
        for v in args.variant or [""]:
            pipeline = variant_pipeline(v) if v else "default"
            source = compile_program(program_of(plan).module.clone(), pipeline).source
            r = compile_cuda(source, arch="sm_90")
            sass, log = sass_of(r.ptx)
            if args.dump:
                os.makedirs(args.dump, exist_ok=True)
                stem = os.path.join(args.dump, f"{dt}_{re.sub(r'[^A-Za-z0-9]+', '_', v) or 'default'}")
                open(stem + ".cu", "w").write(source)
                open(stem + ".sass", "w").write(sass)
            regs = (re.findall(r"Used (\d+) registers", log) or ["?"])[0]
            spill = sum(int(x) for x in re.findall(r"(\d+) bytes spill stores", log))
            regs = f"{regs} spills={spill}"
            c = counts(sass)
            print(f"{dt:8s} {v or 'default':40s} regs={regs} " + " ".join(f"{k}={n}" for k, n in sorted(c.items())))


if __name__ == "__main__":
    main()
