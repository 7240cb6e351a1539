"""Probe (issue 35, box41): the box copies' emitted CUDA with its global accesses' cache
qualifiers changed by text, timed against the kernel as emitted and cudaMemcpy of the
same bytes. A probe to decide what to build in the passes, not a path of the compiler.

    python3 dev/experiments/box_hints_probe.py ['box flat' 'box rows' ...]

Per canonical copy (tests/helpers/canonical_copies.py, by name), the Program of the
plan's views through `-p default` (canonical_copy_bench's `_program_kernel`), its
`Kernel.source` patched before its first compile:

- `as is`: the source unchanged (the control: the bench's Program);
- `ld128` / `ld256`: phase 1's `cp.async.cg` with the L2 prefetch size `.L2::128B` /
  `.L2::256B` (the L2 fetches that many bytes around a request's sector from DRAM);
- `stcs`: phase 2's 16-byte stores `st.global.cs` (streaming: evict first);
- `stef`: phase 2's 16-byte stores with an `L2::evict_first` cache policy (as a
  `layout.store`'s `cache = "evict_first"` emits);
- `ld256+stcs`: both;
- `ldef`: phase 1's `cp.async` with an `L2::evict_first` cache policy;
- `BOX_TEXTS` (comma-separated) picks the patched variants (default all of them);
- each of `BOX_PIPES` (`;`-separated canonical_copy_bench `--variant`s, `@TEXT` for the
  cases named so): the Program through that pipeline, unpatched.

Every variant's result is checked bit for bit against PyTorch's copy (poisoned first);
timing: CUDA events around 20 launches after 3 warm-up ones, the median of 7 rounds
interleaved with a cudaMemcpy of the same bytes; ratio = cudaMemcpy time / kernel time.
Also the contiguous copy of the first case's bytes through `tilec.copy_` (the contrast).
"""

from __future__ import annotations

import copy
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path[:0] = [os.path.join(ROOT, "benchmarks"), os.path.join(ROOT, "tests")]

CP = 'cp.async.cg.shared.global [%0], [%1], 16;'


def patch(source: str, variant: str) -> str:
    s = source
    if variant in ("ld128", "ld256", "ld256+stcs"):
        size = "128B" if variant == "ld128" else "256B"
        assert CP in s, "no 16-byte cp.async in the source"
        s = s.replace(CP, f"cp.async.cg.shared.global.L2::{size} [%0], [%1], 16;")
    if variant == "ldef":
        assert CP in s
        s = s.replace(
            '    asm volatile("' + CP + '\\n" ::"r"(s), "l"(gmem)\n                 : "memory");',
            '    unsigned long long pol;\n'
            '    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));\n'
            '    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;\\n" ::"r"(s), "l"(gmem), "l"(pol)\n'
            '                 : "memory");')
        assert "evict_first" in s, "ldef: the helper's text did not match"
    if variant == "stef":  # the stores with an L2::evict_first policy (what layout.store's `cache` emits)
        pat = re.compile(r"\*reinterpret_cast<i8x16\*>\((dst \+ \w+)\) = (\w+);")
        assert pat.search(s), "no 16-byte store in the source"

        def st(m):
            return ("{ unsigned long long pol; uint4 u; memcpy(&u, &" + m.group(2) + ", 16); "
                    'asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol)); '
                    'asm volatile("st.global.L2::cache_hint.v4.b32 [%0], {%1, %2, %3, %4}, %5;" :: "l"('
                    + m.group(1) + '), "r"(u.x), "r"(u.y), "r"(u.z), "r"(u.w), "l"(pol) : "memory"); }')
        s = pat.sub(st, s)
    if variant in ("stcs", "ld256+stcs"):
        pat = re.compile(r"\*reinterpret_cast<i8x16\*>\((dst \+ \w+)\) = (\w+);")
        assert pat.search(s), "no 16-byte store in the source"
        s = pat.sub(r"__stcs(reinterpret_cast<int4*>(\1), *reinterpret_cast<const int4*>(&\2));", s)
    return s


VARIANTS = ("as is", "ld128", "ld256", "stcs", "stef", "ld256+stcs", "ldef")


def main(names: list[str]) -> None:
    import torch

    import tilec
    from canonical_copy_bench import (_bits, _make, _operand, _poison, _program_kernel, cases, variant_applies,
                                      variant_pipeline)
    from tilec.copy_plan import plan_copy
    from tilec.runtime.launch import Kernel

    def timed(fn, ref) -> tuple[float, float]:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(3):
            fn()
            ref()
        a, b = [], []
        for _ in range(7):
            for f, out in ((fn, a), (ref, b)):
                start.record()
                for _ in range(20):
                    f()
                end.record()
                end.synchronize()
                out.append(start.elapsed_time(end) / 20)
        return statistics.median(a), statistics.median(b)

    print("| case | variant | us | memcpy us | ratio | exact |")
    print("|---|---|---:|---:|---:|---|")
    for name in names:
        case = next(c for c in cases(False) if name in c.name)
        base, src, dst = _make(torch, case, torch.Generator(device="cuda").manual_seed(0))
        want = torch.empty_like(dst)
        want.copy_(src)
        nbytes = dst.numel() * dst.element_size()
        ma = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        mb = torch.empty_like(ma)

        def memcpy():
            mb.copy_(ma)

        plan = plan_copy(_operand(dst), _operand(src))
        emitted, args = _program_kernel(torch, plan, src, dst, base)
        assert isinstance(emitted, Kernel), type(emitted)
        pipes = [x for x in os.environ.get("BOX_PIPES", "").split(";") if x and variant_applies(x, case.name)]
        texts = [x for x in os.environ.get("BOX_TEXTS", ",".join(VARIANTS)).split(",") if x in VARIANTS]
        for v in (*texts, *pipes):
            try:
                if v in VARIANTS:
                    kernel = copy.copy(emitted)  # the same kernel, compiled anew from the patched source
                    kernel._compiled, kernel._modules, kernel._functions, kernel._packed = {}, {}, {}, {}
                    kernel.source = patch(emitted.source, v)
                else:  # a pipeline variant (canonical_copy_bench's --variant)
                    kernel, _ = _program_kernel(torch, plan, src, dst, base, variant_pipeline(v.split("@")[0]))
                _poison(torch, dst)
                kernel(*args)
                torch.cuda.synchronize()
                exact = bool(torch.equal(_bits(torch, dst), _bits(torch, want)))
                t, m = timed(lambda: kernel(*args), memcpy)
                print(f"| {case.name} | {v} | {t * 1e3:.1f} | {m * 1e3:.1f} | {m / t:.3f} | {'yes' if exact else 'NO'} |",
                      flush=True)
            except Exception as e:  # report and go on
                print(f"| {case.name} | {v} | error {type(e).__name__}: {str(e)[:150]} | | | |", flush=True)
        del base, src, dst, want
        if name != names[0]:
            continue
        # the contrast: a contiguous copy of as many bytes through tilec.copy_ (the first case's)
        a = torch.randint(0, 255, (nbytes,), dtype=torch.uint8, device="cuda")
        b = torch.empty_like(a)
        tilec.copy_(b, a)
        torch.cuda.synchronize()
        t, m = timed(lambda: tilec.copy_(b, a), memcpy)
        print(f"| contiguous uint8 {nbytes} | copy_ | {t * 1e3:.1f} | {m * 1e3:.1f} | {m / t:.3f} | "
              f"{'yes' if bool(torch.equal(a, b)) else 'NO'} |", flush=True)
        del a, b
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1:] or ["box flat", "box rows"])
