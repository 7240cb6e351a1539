"""Static SASS of the kernels `tilec.copy_` compiles for cases of the generated strided set,
under routes, without a GPU: each part's plan (`copy_period` splits included) compiled for
sm_90 by NVRTC, its PTX through the local ptxas (the PTX's `.version` lowered to ptxas's),
the cubin through nvdisasm; per part the registers and the instruction counts (NOPs
included). Not a test.

    python3 dev/experiments/copy_sass.py --only 38,13 tree= ib=inbounds:1 [--dump DIR]

A variant is `name=SPEC` as in copy_turns.py (routes only). `PTXAS` names ptxas (default
/usr/local/cuda-13.0/bin/ptxas), `NVDISASM` the disassembler (default: on PATH; the
`nvidia-cuda-nvdisasm` wheel holds one under nvidia/cu13/bin)."""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
sys.path.insert(0, here)


def _contiguous(shape) -> list[int]:
    out = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        out[k] = out[k + 1] * shape[k + 1]
    return out


def operands(case):
    """(dst, src) `Operand`s of a strided case at fake, 256-byte aligned addresses (what
    `strided_copy_bench._make` builds on the GPU: a broadcast, a slice of a permuted base,
    a slice of a dst base)."""
    from tilec.copy_plan import ITEMSIZE, Operand

    bs = _contiguous(case.base)
    if case.kind == "broadcast":
        strides = tuple(0 if case.base[k] == 1 and case.dst_shape[k] != 1 else bs[k] for k in range(len(bs)))
        src = Operand(1 << 20, case.src_dtype, case.dst_shape, strides)
    else:
        st = [bs[k] * case.src_index[k][2] for k in range(len(bs))]
        off = sum(bs[k] * case.src_index[k][0] for k in range(len(bs)))
        shp = [len(range(*case.src_index[k])) for k in range(len(bs))]
        src = Operand((1 << 20) + off * ITEMSIZE[case.src_dtype], case.src_dtype,
                      tuple(shp[p] for p in case.src_perm), tuple(st[p] for p in case.src_perm))
    if case.dst_base:
        ds = _contiguous(case.dst_base)
        doff = sum(ds[k] * case.dst_index[k][0] for k in range(len(ds)))
        dst = Operand((1 << 40) + doff * ITEMSIZE[case.dst_dtype], case.dst_dtype, case.dst_shape,
                      tuple(ds[k] * case.dst_index[k][2] for k in range(len(ds))))
    else:
        dst = Operand(1 << 40, case.dst_dtype, case.dst_shape, tuple(_contiguous(case.dst_shape)))
    return dst, src


def sass_of(ptx: str) -> tuple[str, str]:
    """(SASS, ptxas's -v log) of NVRTC's PTX for sm_90."""
    ptxas = os.environ.get("PTXAS", "/usr/local/cuda-13.0/bin/ptxas")
    nvdisasm = os.environ.get("NVDISASM") or shutil.which("nvdisasm") or "nvdisasm"
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        for _ in range(2):  # NVRTC's PTX may be of a newer ISA than ptxas's: retry at ptxas's
            open(src, "w").write(ptx)
            r = subprocess.run([ptxas, "-arch=sm_90", "-v", src, "-o", out], capture_output=True, text=True)
            older = re.search(r"current version is '(\d+\.\d+)'", r.stderr)
            if r.returncode == 0 or older is None:
                break
            ptx = re.sub(r"\.version \d+\.\d+", f".version {older.group(1)}", ptx)
        if r.returncode:
            raise RuntimeError(r.stderr)
        return subprocess.run([nvdisasm, out], capture_output=True, text=True, check=True).stdout, r.stderr


def counts(sass: str) -> collections.Counter:
    c: collections.Counter = collections.Counter()
    for line in sass.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)[ ;]", line)
        if m:
            c["all"] += 1
            c[m.group(2).split(".")[0]] += 1
    return c


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", required=True)
    ap.add_argument("--dump", default="")
    ap.add_argument("variants", nargs="+")
    a = ap.parse_args()
    import strided_copy_bench as sb
    from strided_variants import parse_variant

    from tilec.copy_kernels import CopyKernels
    from tilec.copy_period import period_parts
    from tilec.copy_plan import plan_copy
    from tilec.copy_routes import forced_routes

    cases = sb.generate_cases(0, 48, 64, 1024)
    for i in (int(x) for x in a.only.split(",")):
        dst, src = operands(cases[i])
        for name, routes, _, _, _ in (parse_variant(v) for v in a.variants):
            with forced_routes(**routes):
                plan = plan_copy(dst, src)
                parts = period_parts(plan)
                plans = [plan] if parts is None else [plan_copy(p.dst, p.src) for p in parts]
                kernels = CopyKernels(arch="sm_90", disk=False)
                for n, p in enumerate(plans):
                    kernel = kernels.get(p.key).kernel
                    sass, log = sass_of(kernel.compile("sm_90").ptx)
                    if a.dump:
                        os.makedirs(a.dump, exist_ok=True)
                        stem = os.path.join(a.dump, f"{i:02d}_{name}_{n}")
                        open(stem + ".cu", "w").write(kernel.source)
                        open(stem + ".sass", "w").write(sass)
                    c = counts(sass)
                    regs = (re.findall(r"Used (\d+) registers", log) or ["?"])[0]
                    top = " ".join(f"{k}={v}" for k, v in c.most_common(12) if k != "all")
                    print(f"{i:02d} {name} part {n} {p.extents}: regs={regs} all={c['all']} {top}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
