"""A probe (issue 39, dec39): at the decode sizes where the swapped kernels run at about
80 GB/s a multiprocessor (QKV at M = 128), is the time the fill of shared memory or the
tensor cores' work beside it? Experiment only, not a compiler path: the configuration's
emitted CUDA is patched as text (`nomma`: every `wgmma.mma_async` instruction removed, the
ring, its barriers, the loads, the waits and the stores as they were: the fill alone;
`half`: every other one removed: half the tensor cores' work and their shared-memory
reads, the same fill), compiled and timed as benchmarks/matmul_bench.py's `--decode
--configs` times (CUDA graphs over 4 weight copies), beside the unpatched kernel and cuBLAS.
The `nomma` and `half` kernels' results are wrong by construction (not checked); the others' are.
dec40's probes of the kernel's start (`tmpf`: the tensor maps prefetched; `init1`: one barrier
after the barriers' initialisation; `fence1`: `fence.mbarrier_init` by one thread; `start`: the
three) keep the result.

    python3 dev/experiments/decode_mma_probe.py [--shapes qkv,5120x5120] [--tokens 128] [CONFIG[/PROBE] ...]
        (on the GPU)
    python3 dev/experiments/decode_mma_probe.py --patch FILE.cu nomma|half   (the patched text, on the CPU)

CONFIG: a configuration's name (benchmarks/matmul_bench.py's `parse_config`, or `+FLAGS` on the
rule's swap; empty: the rule's); PROBE: a name of `VARIANTS` (none: the kernel as built, checked).
A shape: a name of matmul_bench's `LLAMA` or N x K.
No arguments: the rule's kernel, then its two probes.
"""

from __future__ import annotations

import re
import sys

WGMMA = re.compile(r'" wgmma\.mma_async[^"]*"')


def patch(src: str, keep: int) -> tuple[str, int]:
    """`src` with the instruction text of its `wgmma.mma_async` asm statements removed, all
    but every `keep`-th (keep 0: all removed); and how many were removed."""
    count = [0, 0]

    def drop(m: re.Match) -> str:
        count[0] += 1
        if keep and (count[0] - 1) % keep == 0:
            return m.group(0)
        count[1] += 1
        return '"\\n}"'

    out = WGMMA.sub(drop, src)
    return out, count[1]


def prefetch_maps(src: str) -> tuple[str, int]:
    """`tmpf` (dec40): a thread of the second warp asks for every `__grid_constant__` tensor
    map (`prefetch.tensormap`, as CUTLASS's producer does) at the kernel's start, under the
    barriers' initialisation, so that the first TMA copies do not wait for the descriptors."""
    maps = re.findall(r"const __grid_constant__ tilec_tensor_map (\w+)", src)
    asks = "".join(f'    asm volatile("prefetch.tensormap [%0];" :: '
                   f'"l"(reinterpret_cast<unsigned long long>(&{m})) : "memory");\n' for m in maps)
    anchor = "unsigned char tilec_smem[];\n"
    return src.replace(anchor, anchor + "  if (threadIdx.x == 32) {\n" + asks + "  }\n", 1), len(maps)


def one_init_sync(src: str) -> tuple[str, int]:
    """`init1` (dec40): the prologue's `__syncthreads()` after each barrier's initialisation
    dropped but the last (the cluster barrier after it orders them for every thread anyway)."""
    head, sep, tail = src.partition("  tilec_cluster_sync();\n")
    n = head.count("  __syncthreads();\n")
    if not sep or n < 2:
        return src, 0
    head = head.replace("  __syncthreads();\n", "", n - 1)
    return head + sep + tail, n - 1


def one_fence(src: str) -> tuple[str, int]:
    """`fence1` (dec40): `fence.mbarrier_init` by thread 0 only (the one that initialised the
    barriers; CUTLASS's `fence_barrier_init`) instead of by every thread at each cluster barrier."""
    old = '  asm volatile("fence.mbarrier_init.release.cluster;\\n"\n'
    if old not in src:
        return src, 0
    new = ('  if (threadIdx.x == 0) asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");\n'
           '  asm volatile(\n')
    return src.replace(old, new, 1), 1


def chain(*fs):
    def run(src: str) -> tuple[str, int]:
        total = 0
        for f in fs:
            src, n = f(src)
            total += n
        return src, total
    return run


VARIANTS = {"nomma": lambda s: patch(s, 0), "half": lambda s: patch(s, 2), "tmpf": prefetch_maps,
            "init1": one_init_sync, "fence1": one_fence, "start": chain(prefetch_maps, one_init_sync, one_fence)}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--patch"]:
        text, n = VARIANTS[argv[2]](open(argv[1]).read())
        sys.stdout.write(text)
        print(f"// {argv[2]}: {n} edits", file=sys.stderr)
        return 0
    import dataclasses
    import os

    import torch

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
    from matmul_bench import LLAMA, ROTATE, forced, graph_us, variant, within_bound

    import tilec
    from tilec import gemm
    from tilec.runtime import cache as kcache

    state = {"on": None, "patched": {}}
    orig = kcache.KernelCache.compile

    def compile_(self, source, **kw):
        if state["on"] and "wgmma.mma_async" in source:
            source, state["patched"][state["on"]] = VARIANTS[state["on"].rsplit("/", 1)[1]](source)
        return orig(self, source, **kw)

    kcache.KernelCache.compile = compile_
    shapes, tokens = ["qkv"], [128]
    while argv[:1] and argv[0] in ("--shapes", "--tokens"):
        if argv[0] == "--shapes":
            shapes = argv[1].split(",")
        else:
            tokens = [int(x) for x in argv[1].split(",")]
        argv = argv[2:]
    names = argv or ["", "/nomma", "/half"]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for shape in shapes:
        n, k = LLAMA[shape] if shape in LLAMA else (int(x) for x in shape.split("x"))  # a name, or NxK
        g = torch.Generator(device="cuda").manual_seed(n + k)
        ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(ROTATE)]
        for m in tokens:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            rule = gemm.choose_config(m, n, sms, k=k, b_kmajor=True)
            cub = graph_us([lambda w=w: torch.matmul(a, w.t(), out=c) for w in ws])
            print(f"{shape} M={m} cuBLAS {cub:.1f} us", flush=True)
            for entry in names:
                name, _, probe = entry.partition("/")
                base = rule if not name else variant(name, rule)
                if base is False:
                    continue
                label = f"{base.name}/{probe}" if probe else base.name
                cfg = dataclasses.replace(base, name=f"{base.name}:{probe}probe") if probe else base
                state["on"] = label if probe else None
                try:
                    with forced(gemm, cfg):
                        c.fill_(float("nan"))
                        tilec.matmul(a, ws[0].t(), out=c)
                        torch.cuda.synchronize()
                        wrong = probe in ("nomma", "half")  # wrong by construction; the others checked
                        ok = "" if wrong else " ok" if within_bound(c, a, ws[0].t()) else " FAIL"
                        us = graph_us([lambda w=w: tilec.matmul(a, w.t(), out=c) for w in ws])  # noqa: B023
                except Exception as e:  # noqa: BLE001 - one variant's failure reported, the others timed
                    print(f"{shape} M={m} {label}: {type(e).__name__}: {str(e)[:120]}", flush=True)
                    continue
                finally:
                    state["on"] = None
                print(f"{shape} M={m} {label} {us:.1f} us{ok}", flush=True)
    print(f"removed: {state['patched']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
