"""A model's decode layers as back-to-back GEMMs, with and without programmatic dependent
launch (issue 39, dec37).

Llama-3-8B's four projections at M tokens (QKV 6144 x 4096, O 4096 x 4096, gate_up 28672 x
4096, down 4096 x 14336; weights K-major as `torch.nn.Linear` holds them, 436 MB a layer)
in order, `layers` layers of weights in turn (past L2), captured in one CUDA graph of
`reps` layers and timed by its replays (the median of 10): the decode rule's picks as
they are (`rule`), launched as programmatic dependents (`pdl`: `GemmConfig.pdl`), with the
weight's first stages loaded before the wait (`pdlw`: `GemmConfig.pdl_weight`), with the
weight's rows asked of L2 D trips ahead (`l2p<D>`: `GemmConfig.l2_ahead`), the dependents let in
after the producer's last loads (`pdll`: `GemmConfig.pdl_late`), the swapped picks' A^T in a ring of
R stages of its own beside STAGES of the weight (`sr<R>s<STAGES>`: `GemmConfig.small_stages`), or flags of these
joined by `+` (`pdl+l2p2`), beside
cuBLAS's chain (torch.matmul) and cudaMemcpy of the weights' bytes. Each GEMM reads
the activations the chain's data flow gives it (h -> QKV, a -> O -> h2 -> gate_up, d ->
down -> h) and every variant's outputs are compared with the `rule` variant's, bit for
bit (same kernels, same order of sums). Also per variant one layer's time between two
events, launched from the host (the launches not hidden by a graph).

    python3 dev/experiments/pdl_chain.py --tokens 16,128 [--layers 2] [--reps 8] [--variants rule,pdl,pdlw,cublas]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

SHAPES = (("qkv", 6144, 4096), ("o", 4096, 4096), ("gate_up", 28672, 4096), ("down", 4096, 14336))


def main(argv=None) -> int:
    import torch
    from compute_bench import Graph  # benchmarks/

    import tilec
    from tilec import gemm

    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", default="16,128")
    ap.add_argument("--layers", type=int, default=2, help="layers of weights taken in turn")
    ap.add_argument("--reps", type=int, default=8, help="layers a graph holds")
    ap.add_argument("--variants", default="rule,pdl,pdlw,cublas")
    args = ap.parse_args(argv)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    g = torch.Generator(device="cuda").manual_seed(37)
    weights = [{name: torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g) / k ** 0.5
                for name, n, k in SHAPES} for _ in range(args.layers)]
    wbytes = sum(2 * n * k for _, n, k in SHAPES)
    src = [torch.empty(wbytes // 4, device="cuda", dtype=torch.bfloat16) for _ in range(args.layers)]
    dst = [torch.empty_like(x) for x in src]
    memcpy = Graph(lambda i, _s: dst[i].copy_(src[i]), args.layers, reps=args.reps, warmup=args.layers)
    memcpy_us = 1000 * statistics.median(memcpy.ms() for _ in range(10))
    print(f"layer: {wbytes / 1e6:.0f} MB of weights; memcpy of them {memcpy_us:.1f} us", flush=True)
    original = gemm._decode_config

    def flagged(variant: str):
        """The decode rule's pick with the variant's flags (`pdl`, `pdlw`, `l2p<D>`, joined by `+`)."""
        flags = variant.split("+")

        def pick(*a, **kw):
            c = original(*a, **kw)
            for f in flags:
                if f in ("pdl", "pdlw"):
                    c = dataclasses.replace(c, pdl=True, pdl_weight=f == "pdlw" or c.pdl_weight)
                elif f == "pdll":  # the dependents let in after the producer's last loads
                    c = dataclasses.replace(c, pdl=True, pdl_late=True)
                elif f.startswith("sr") and c.swap_ab:  # A^T's ring of its own: sr<R>s<STAGES>
                    r, st = (int(x) for x in f[2:].split("s"))
                    small = dataclasses.replace(c, small_stages=r, stages=st)
                    if small.smem_bytes() <= 232448 and not c.stream_k and c.cluster == (1, 1):  # else as it is
                        c = small
                elif f.startswith("l2p") and c.swap_ab:
                    c = dataclasses.replace(c, l2_ahead=int(f[3:]))
            return dataclasses.replace(c, name=f"{c.name}:{':'.join(flags)}")

        return pick

    failed = False
    for m in (int(x) for x in args.tokens.split(",")):
        acts = {"h": torch.randn(m, 4096, device="cuda", dtype=torch.bfloat16, generator=g),
                "a": torch.randn(m, 4096, device="cuda", dtype=torch.bfloat16, generator=g),
                "d": torch.randn(m, 14336, device="cuda", dtype=torch.bfloat16, generator=g)}
        start = {x: t.clone() for x, t in acts.items()}
        outs = {"q": torch.empty(m, 6144, device="cuda", dtype=torch.bfloat16),
                "h2": torch.empty(m, 4096, device="cuda", dtype=torch.bfloat16),
                "gu": torch.empty(m, 28672, device="cuda", dtype=torch.bfloat16)}
        flow = (("qkv", "h", "q"), ("o", "a", "h2"), ("gate_up", "h2", "gu"), ("down", "d", "h"))
        buf = {**acts, **outs}
        reference = None
        for variant in args.variants.split(","):
            gemm._decode_config = original if variant in ("rule", "cublas") else flagged(variant)
            original.cache_clear()
            gemm.forget_cached_calls()

            def layer(i, _stream, variant=variant):
                for name, x, y in flow:
                    w = weights[i][name]
                    if variant == "cublas":
                        torch.matmul(buf[x], w.t(), out=buf[y])
                    else:
                        tilec.matmul(buf[x], w.t(), out=buf[y])

            try:
                picks = [gemm.choose_config(m, n, sms, k=k, b_kmajor=True).name for _, n, k in SHAPES]
                t0 = time.time()
                for x, t in start.items():
                    buf[x].copy_(t)
                for i in range(args.layers):
                    layer(i, None)
                torch.cuda.synchronize()
                first = time.time() - t0
                got = {y: buf[y].clone() for _, _, y in flow}
                same = "-" if reference is None or variant == "cublas" else (
                    "same bits" if all(torch.equal(got[y], reference[y]) for y in got) else "DIFFERENT")
                failed |= same == "DIFFERENT"
                if variant == "rule":
                    reference = got
                graph = Graph(layer, args.layers, reps=args.reps, warmup=args.layers)
                us = 1000 * statistics.median(graph.ms() for _ in range(10))
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                host = []
                for r in range(12):
                    s.record()
                    layer(r % args.layers, None)
                    e.record()
                    e.synchronize()
                    host.append(1000 * s.elapsed_time(e))
                print(f"M={m} {variant}: {us:.1f} us a layer in a graph ({memcpy_us / us:.2f} of memcpy), "
                      f"launched one layer {statistics.median(host[2:]):.1f} us; {same}; first {first:.1f} s; "
                      f"{' '.join(picks) if variant != 'cublas' else ''}", flush=True)
            except Exception as ex:  # noqa: BLE001 - report and go on
                failed = True
                print(f"M={m} {variant}: {type(ex).__name__}: {str(ex)[:300]}", flush=True)
    gemm._decode_config = original
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
