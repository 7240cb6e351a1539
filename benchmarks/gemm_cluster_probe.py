"""Measure, before building it into the compiler, what a 2-CTA thread-block cluster with
TMA multicast of B would give tilec's warp-specialised GEMM (issue 23, 4096^3).

    python benchmarks/gemm_cluster_probe.py [--sizes 4096,3000x5000x7000] [--configs SPEC,...] [--dump DIR]

For each `wgmma:...:ws:p...` config (gemm_bench.py's syntax) the kernel tilec emits is
timed as is and in a hand-patched form (`clusterize`, a text rewrite of the emitted
CUDA, not a compiler feature): `__cluster_dims__(2, 1, 1)`; each CTA issues half of
B's TMA boxes with `.multicast::cluster` to both CTAs of the pair (the pair's tiles
share their block column at every step: checked here for the grid and order used);
the "empty" barriers count the consumers of both CTAs, and each consumer arrives on
its own and its peer's (`mapa` + `mbarrier.arrive.shared::cluster`, as CUTLASS's ClusterBarrier::arrive); a cluster barrier
after the barriers' initialisation and before exit. Both forms are checked against
float64 (gemm_bench.check, NaN-poisoned C) and timed as gemm_bench.py times them.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "python"))

HELPERS = r"""
__device__ __forceinline__ unsigned tilec_cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void tilec_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// one arrival on the barrier at this address in every CTA of the pair
__device__ __forceinline__ void tilec_cluster_arrive_both(unsigned long long* bar) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(bar));
#pragma unroll
  for (unsigned r = 0; r < 2; ++r) {
    unsigned ra;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(ra) : "r"(a), "r"(r));
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" :: "r"(ra) : "memory");
  }
}
"""

LOAD = re.compile(
    r'asm volatile\("cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes '
    r'\[%0\], \[%1, \{%3, %4\}\], \[%2\];"\n(\s*):: "r"\(tilec_smem_addr\(([^)]*)\)\), '
    r'"l"\(reinterpret_cast<unsigned long long>\(&pb_map\)\), "r"\(tilec_smem_addr\((\w+)\)\), '
    r'"r"\(\(int\)\((\w+)\)\), "r"\(\(int\)\((\w+)\)\) : "memory"\);'
)


def clusterize(src: str, mode: str = "multicast") -> str:
    """The emitted CUDA of a warp-specialised persistent GEMM rewritten for 2-CTA
    clusters sharing B by TMA multicast (module docstring). `mode` "dims": only the
    cluster launch and its two cluster barriers; "arrive": also the empty barriers
    counting both CTAs' consumers (each CTA still loads all of B itself); "multicast":
    all of it."""
    prod = src.rindex("} else {  // warpgroup")
    producer = src[prod:]
    full = set(re.findall(r"arrive_expect_tx\(reinterpret_cast<unsigned long long\*>\((\w+)\), [1-9]\d*u\)", producer))
    empty = set(re.findall(r"tilec_mbarrier_wait\(reinterpret_cast<unsigned long long\*>\((\w+)\)", producer))
    assert full and empty and not full & empty, (full, empty)
    out = src.replace(
        'extern "C" __global__ void __launch_bounds__',
        HELPERS + '\nextern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__',
        1,
    )
    for e in empty if mode != "dims" else ():
        out, n = re.subn(
            rf"tilec_mbarrier_init\(reinterpret_cast<unsigned long long\*>\({e}\), (\d+)u\)",
            lambda m, e=e: f"tilec_mbarrier_init(reinterpret_cast<unsigned long long*>({e}), {2 * int(m.group(1))}u)",
            out,
        )
        assert n == 1, e
        out, n = re.subn(
            rf"tilec_mbarrier_arrive_expect_tx\(reinterpret_cast<unsigned long long\*>\({e}\), 0u\);",
            f"tilec_cluster_arrive_both(reinterpret_cast<unsigned long long*>({e}));",
            out,
        )
        assert n >= 1, e
    # B's boxes of one stage (consecutive loads on one barrier): the first half from
    # rank 0, the second from rank 1, each multicast to both
    loads = list(LOAD.finditer(out)) if mode == "multicast" else []
    assert loads or mode != "multicast", "no B loads found"
    groups: list[list[re.Match]] = []
    for m in loads:
        if groups and groups[-1][-1].group(3) == m.group(3) and m.start() - groups[-1][-1].end() < 200:
            groups[-1].append(m)
        else:
            groups.append([m])
    pieces, at = [], 0
    for g in groups:
        assert len(g) % 2 == 0, len(g)
        for i, m in enumerate(g):
            rank = 2 * i // len(g)
            pieces.append(out[at : m.start()])
            pieces.append(
                f'if (tilec_cluster_rank() == {rank}u) asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile'
                f'.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {{%3, %4}}], [%2], %5;"\n{m.group(1)}'
                f':: "r"(tilec_smem_addr({m.group(2)})), "l"(reinterpret_cast<unsigned long long>(&pb_map)), '
                f'"r"(tilec_smem_addr({m.group(3)})), "r"((int)({m.group(4)})), "r"((int)({m.group(5)})), '
                f'"h"((unsigned short)3) : "memory");'
            )
            at = m.end()
    pieces.append(out[at:])
    out = "".join(pieces)
    first = out.index("  if (threadIdx.x < ")
    out = (
        out[:first]
        + ('  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");\n  tilec_cluster_sync();\n')
        + out[first:]
    )
    end = out.rstrip().rindex("}")
    return out[:end] + "  tilec_cluster_sync();\n}\n"


def pair_shares_b(m: int, n: int, bm: int, bn: int, group: int, nprog: int) -> bool:
    """Whether blocks 2c and 2c+1 of the persistent grouped walk take the same number of
    tiles and, at every step, tiles of one block column (the same B); edge tiles count
    (M, N need not be multiples of the tile: their B boxes are masked alike)."""
    gm, gn = -(-m // bm), -(-n // bn)
    ntiles = gm * gn

    def col(t: int) -> int:
        g = min(group, gm)
        grp, ing = divmod(t, g * gn)
        size = min(g, gm - grp * g)
        return ing // size

    if nprog % 2:
        return False
    for p in range(0, nprog, 2):
        a, b = list(range(p, ntiles, nprog)), list(range(p + 1, ntiles, nprog))
        if len(a) != len(b) or any(col(x) != col(y) for x, y in zip(a, b, strict=True)):
            return False
    return True


OCCUPANCY_CU = r"""
extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1) probe(int* out) {
  extern __shared__ int buf[];
  buf[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = buf[1];
}
"""


def max_active_clusters(smem: int, threads: int = 384) -> int:
    """`cuOccupancyMaxActiveClusters` of a 2-CTA cluster kernel of `threads` threads and
    `smem` bytes of dynamic shared memory (one block per multiprocessor)."""
    import ctypes

    import cupy as cp

    class LaunchConfig(ctypes.Structure):
        _fields_ = [
            ("grid", ctypes.c_uint * 3),
            ("block", ctypes.c_uint * 3),
            ("shared", ctypes.c_uint),
            ("stream", ctypes.c_void_p),
            ("attrs", ctypes.c_void_p),
            ("nattrs", ctypes.c_uint),
        ]

    fn = cp.RawModule(code=OCCUPANCY_CU, options=("--gpu-architecture=sm_90a",)).get_function("probe")
    fn.max_dynamic_shared_size_bytes = smem
    cfg = LaunchConfig((2, 1, 1), (threads, 1, 1), smem, None, None, 0)
    n = ctypes.c_int(0)
    rc = ctypes.CDLL("libcuda.so.1").cuOccupancyMaxActiveClusters(
        ctypes.byref(n), ctypes.c_void_p(fn.kernel.ptr), ctypes.byref(cfg)
    )
    return n.value if rc == 0 else -rc


def main(argv=None) -> int:
    import torch
    from gemm_bench import check, median_ms, parse_size, queued_ms, sms, wgmma_source

    import tilec
    from tilec.runtime.launch import Kernel

    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="4096")
    ap.add_argument("--configs", default="wgmma:128x128x64:4:ws:p:pp:g8:tma")
    ap.add_argument("--dump")
    ap.add_argument("--forms", default="emitted,c2", help="emitted and/or c2 (the cluster rewrite)")
    args = ap.parse_args(argv)
    for smem in (160 << 10, 200728, 227 << 10):
        try:
            print(
                f"  max active 2-CTA clusters at {smem} bytes of shared memory: {max_active_clusters(smem)}", flush=True
            )
        except Exception as e:  # noqa: BLE001 - a probe: report and go on
            print(f"  occupancy query failed: {e}", flush=True)
    for m, n, k in (parse_size(s) for s in args.sizes.split(",")):
        flops = 2.0 * m * n * k
        size = f"{m}x{n}x{k}"
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
        for spec in args.configs.split(","):
            bm, bn, _ = (int(x) for x in spec.split(":")[1].split("x"))
            grp = next((int(o[1:]) for o in spec.split(":") if o.startswith("g") and o[1:].isdigit()), 1)
            nprog = next((int(o[1:]) for o in spec.split(":") if o[:1] == "p" and o[1:].isdigit()), sms())
            if not pair_shares_b(m, n, bm, bn, grp, nprog):
                print(f"  {spec} at {size}: the CTA pairs do not share B at every step; skipped", flush=True)
                continue
            forms = {
                "emitted": "as emitted",
                "c2": "2-CTA cluster, B multicast",
                "c2arrive": "2-CTA cluster, empty barriers of both CTAs, no multicast",
                "c2dims": "2-CTA cluster launch only",
            }
            modes = {forms["c2"]: "multicast", forms["c2arrive"]: "arrive", forms["c2dims"]: "dims"}
            for form in (forms[f] for f in args.forms.split(",")):
                kernel = tilec.compile(wgmma_source(spec, m, n, k))
                if form != "as emitted":  # a Kernel of its own: tilec.compile returns the same one again
                    kernel = Kernel(kernel.artifact)
                    kernel.source = clusterize(kernel.source, modes[form])
                if args.dump:
                    os.makedirs(args.dump, exist_ok=True)
                    tag = spec.replace(":", "_") + ("_" + modes[form] if form in modes else "")
                    with open(os.path.join(args.dump, f"{tag}_{size}.cu"), "w") as f:
                        f.write(kernel.source)
                c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
                kernel(a, b, c)
                torch.cuda.synchronize()
                ok, rel = check(c, a, b)
                res = next(iter(kernel.resource_usage().values()))
                t = median_ms(lambda kernel=kernel, c=c: kernel(a, b, c))  # noqa: B023 - run now
                tq = queued_ms(lambda kernel=kernel, c=c: kernel(a, b, c))  # noqa: B023 - run now
                print(
                    f"  {size} {spec} [{form}]: {flops / t / 1e9:.0f} TFLOP/s (queued {flops / tq / 1e9:.0f}), "
                    f"{res.registers} regs, {'ok' if ok else 'WRONG'} (rel {rel:.1e})",
                    flush=True,
                )
        t = median_ms(lambda: torch.matmul(a, b))  # noqa: B023 - run now
        tq = queued_ms(lambda: torch.matmul(a, b))  # noqa: B023 - run now
        print(f"  {size} cuBLAS: {flops / t / 1e9:.0f} TFLOP/s (queued {flops / tq / 1e9:.0f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
