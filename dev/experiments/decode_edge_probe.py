"""A probe (issue 39, dec41): why the decode rule's kernels take longer at M = 100 than at
M = 128 (the same kernel: M's bucket is 128) for fewer bytes. dec40's lead: each K step's box
of A (A^T swapped) crosses M's edge, the TMA filling rows M..127 with zeros. Experiment only.

Per shape and M, timed in CUDA graphs over 4 weight copies as benchmarks/matmul_bench.py's
`--decode --configs` times them (the rule's configuration, or CONFIG):

- `plain`: `tilec.matmul` at M (A and C views of M rows of 128-row buffers);
- `nofill` (M < 128 only): the same call, with A's tensor map (dims (K, M)) encoded with
  128 rows instead of M: its boxes read rows M..127 of the buffer (which exist) instead of
  filling them; the kernel's M, its stores, its grid are the call's. Checked like `plain`
  (the extra rows only reach C's columns past M, which are not stored);
- cuBLAS at M, and its kernel's name (one profiled call).

    python3 dev/experiments/decode_edge_probe.py [--shapes o,qkv] [--tokens 128,100] [--configs C1,C2]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))


def cublas_kernel(fn) -> str:
    import torch

    fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = [e.key for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA]
    return ",".join(n[:60] for n in names) or "?"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="o,qkv,down")
    ap.add_argument("--tokens", default="128,100")
    ap.add_argument("--configs", default="")
    ap.add_argument("--no-nofill", action="store_true")
    ap.add_argument("--names", action="store_true", help="cuBLAS's kernel names")
    args = ap.parse_args(argv)

    import torch

    import tilec
    from matmul_bench import LLAMA, ROTATE, forced, graph_us, parse_config, within_bound
    from tilec import gemm
    from tilec.runtime import launch as L

    real_encode = L.encode
    patch = {"on": False, "dims": None}

    def encode(r):
        if patch["on"] and r.dims == patch["dims"]:
            r = dataclasses.replace(r, dims=(r.dims[0], 128))
        return real_encode(r)

    L.encode = encode
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for shape in args.shapes.split(","):
        n, k = LLAMA[shape] if shape in LLAMA else (int(x) for x in shape.split("x"))
        g = torch.Generator(device="cuda").manual_seed(n + k)
        ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(ROTATE)]
        abuf = torch.randn(128, k, device="cuda", dtype=torch.bfloat16, generator=g)
        cbuf = torch.empty(128, n, device="cuda", dtype=torch.bfloat16)
        ct = torch.empty(128, n, device="cuda", dtype=torch.bfloat16)
        for m in (int(x) for x in args.tokens.split(",")):
            a, c = abuf[:m], cbuf[:m]
            cb = graph_us([lambda w=w: torch.matmul(a, w.t(), out=ct[:m]) for w in ws])  # noqa: B023
            line = f"{shape} M={m}: cuBLAS {cb:.1f}"
            if args.names:
                line += " [" + cublas_kernel(lambda: torch.matmul(a, ws[0].t(), out=ct[:m])) + "]"  # noqa: B023
            print(line, flush=True)
            for name in [None, *[x for x in args.configs.split(",") if x]]:
                cfg = None if name is None else parse_config(name)
                label = gemm.choose_config(m, n, sms, k=k, b_kmajor=True).name if cfg is None else cfg.name
                out = []
                for mode in ("plain", "nofill"):
                    if mode == "nofill" and (m >= 128 or args.no_nofill):
                        continue
                    patch["on"], patch["dims"] = mode == "nofill", (k, m)
                    try:
                        with forced(gemm, cfg):
                            c.fill_(float("nan"))
                            tilec.matmul(a, ws[0].t(), out=c)
                            torch.cuda.synchronize()
                            ok = within_bound(c, a, ws[0].t())
                            us = graph_us([lambda w=w: tilec.matmul(a, w.t(), out=c) for w in ws])  # noqa: B023
                        out.append(f"{mode} {us:.1f}{'' if ok else ' FAIL'}")
                    except Exception as e:  # noqa: BLE001
                        out.append(f"{mode} error {type(e).__name__}: {str(e)[:120]}")
                    patch["on"] = False
                print(f"  {label}: " + ", ".join(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
