"""Phase 2's chunk of the int8 odd transposes at 32 SASS instructions, not 47: a probe of
`tile{tiles_issue}` bit 128 with its kept run addresses 64-bit in the CUDA. Not a test.

NVRTC addresses shared memory with 64-bit pointers: a chunk's read at a kept 32-bit
address plus a constant is `smem + sext(held + C)`, an add and a sign extension a load
that ptxas cannot fold into `LDS [R+UR+imm]` (the 16 `IADD3` of i8o46's 47-instruction
chunk). With the kept value 64-bit (`long long`, `asm volatile "+l"`) and the add 64-bit,
NVVM folds the constant and each `LDS.U8` reads at `[R+UR4+imm]` (local ptxas 13.0: the
Program's chunk 47 -> 32 instructions, 63 registers, no spills). The IR has no 64-bit
shared coordinate, so this probe rewrites the kernel's CUDA text (`held64`) and times
`tilec.copy_` with it in turns against the rule's kernel and bit 128's as emitted, each
checked bit for bit against PyTorch first ('!' = not exact).

    python3 dev/experiments/held64_turns.py --rounds 9 --reps 10 --issue 219
    python3 dev/experiments/held64_turns.py --sass   # the rewrite's SASS counts, no GPU
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
sys.path.insert(0, os.path.join(here, "..", "..", "tests"))
sys.path.insert(0, here)

KEPT = re.compile(r'int (t_\d+) = (t_\d+);\n(\s*)asm volatile\(""\s*:\s*"\+r"\(\1\)\);')


def held64(source: str) -> tuple[str, int]:
    """`source` with each kept int whose every use is `const int t_N = KEPT + t_M;`, each
    such t_N used only as a subscript, kept as a `long long` and those adds 64-bit; and
    how many were."""
    n = 0
    for x in [m.group(1) for m in KEPT.finditer(source)]:
        m = next(m for m in KEPT.finditer(source) if m.group(1) == x)  # (positions move as it rewrites)
        uses = [u for u in re.finditer(rf"\b{x}\b", source) if u.start() > m.end()]
        adds = list(re.finditer(rf"const int (t_\d+) = {x} \+ (t_\d+);", source))
        if not adds or len(adds) != len(uses):
            continue
        if not all(source[u.start() - 1] == "[" and source[u.end()] == "]"
                   for a in adds for u in re.finditer(rf"\b{a.group(1)}\b", source) if u.start() > a.end()):
            continue
        for a in adds:
            source = source.replace(a.group(0), f"const long long {a.group(1)} = {x} + (long long){a.group(2)};")
        source = source.replace(m.group(0), f'long long {x} = {m.group(2)};\n{m.group(3)}asm volatile("" : "+l"({x}));')
        n += 1
    return source, n


def int8_key(rows: int, cols: int):
    from tilec.copy_plan import Operand, plan_copy
    shape = (cols, rows)
    return plan_copy(Operand(1 << 20, "int8", shape, (rows, 1)), Operand(1 << 30, "int8", shape, (1, cols))).key


def sass_counts(issue: int) -> None:
    from tiles_sass import counts, sass_of

    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes
    from tilec.runtime.nvrtc import compile_cuda
    with forced_routes(tiles_issue=issue):
        src = CopyKernels(arch="sm_90", disk=False).get(int8_key(8191, 8209)).kernel.source
    for name, s in (("as emitted", src), ("held64", held64(src)[0])):
        sass, log = sass_of(compile_cuda(s, arch="sm_90").ptx)
        c = counts(sass)
        imm = len(re.findall(r"LDS\.U8 R\d+, \[R\d+\+UR\d+\+0x", sass))
        regs = re.search(r"Used (\d+) registers", log).group(1)
        print(f"{issue} {name}: {c['all']} instructions, LDS.U8 {c['LDS.U8']} ({imm} at [R+UR+imm]), "
              f"{regs} registers, rewrites {held64(src)[1]}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--issue", type=int, default=219)
    ap.add_argument("--cases", default="8191x8209,8191x8191,4099x12289")
    ap.add_argument("--sass", action="store_true")
    a = ap.parse_args()
    if a.sass:
        sass_counts(a.issue)
        return 0
    import copy_bench
    import strided_copy_bench as sb
    import torch

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernel, CopyKernels
    from tilec.copy_plan import Operand, plan_copy
    from tilec.copy_routes import forced_routes

    gen = torch.Generator(device="cuda").manual_seed(0)
    for case in a.cases.split(","):
        rows, cols = (int(x) for x in case.split("x"))
        base = torch.randint(-128, 127, (rows, cols), generator=gen, device="cuda", dtype=torch.int8)
        src = base.t()
        dst = torch.empty(src.shape, dtype=torch.int8, device="cuda")
        ref = src.contiguous()
        mc = copy_bench.memcpy_tbps(src.numel())
        held = CopyKernels(disk=False)
        with forced_routes(tiles_issue=a.issue):
            key = plan_copy(Operand(dst.data_ptr(), "int8", tuple(dst.shape), tuple(dst.stride())),
                            Operand(src.data_ptr(), "int8", tuple(src.shape), tuple(src.stride()))).key
            k = held.get(key)
        # a Kernel of its own: compiled programs are shared between CopyKernels (call 1 of
        # i8p47 timed the rewrite as both i and h for that)
        own = copy.copy(k.kernel)
        own._compiled, own._modules, own._functions, own._packed = {}, {}, {}, {}
        own.source, n = held64(k.kernel.source)
        held._entries[key] = CopyKernel(key, own)
        runs = {"tree": ({}, CopyKernels(disk=False)), f"i{a.issue}": ({"tiles_issue": a.issue}, CopyKernels(disk=False)),
                f"h{a.issue}": ({"tiles_issue": a.issue}, held)}
        calls, exact = {}, {}
        for name, (routes, kern) in runs.items():
            def call(routes=routes, kern=kern):
                with forced_routes(**routes):
                    tensor_copy.copy_(dst, src, kernels=kern)
            dst.fill_(77)
            call()
            torch.cuda.synchronize()
            exact[name] = bool(torch.equal(dst, ref))
            calls[name] = call
        names = list(calls)
        times: dict[str, list[float]] = {x: [] for x in names}
        for r in range(a.rounds):
            for x in names[r % len(names):] + names[:r % len(names)]:
                times[x].append(sb._median(copy_bench, calls[x], a.reps))
        # (one kernel in `held`: copy_ found the rewritten one by its key, else h is i)
        out = [f"int8 {case} ({n} rewritten, {len(held)} kernel{'' if len(held) == 1 else 's: NOT the rewrite'})"]
        for x in names:
            out.append(f"{x} {statistics.median(copy_bench.tbps(2 * src.numel(), t) / mc for t in times[x]):.3f}"
                       f"{'' if exact[x] else '!'}")
        for x in names[1:]:
            rel = [t / v for t, v in zip(times["tree"], times[x])]
            out.append(f"{x}/tree x{statistics.median(rel):.3f} [{min(rel):.3f}, {max(rel):.3f}]")
        print(" | ".join(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
