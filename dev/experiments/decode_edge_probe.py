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
- `clamp` (swapped configurations, M < 128): A's map's box of min(M, bn) rows instead of bn
  (no row past M asked of the TMA) and each stage's expected bytes the weight's plus those rows'
  (the emitted CUDA patched as text: `(bm + bn) bk 2` -> `bm bk 2 + min(m, bn) bk 2`); the rows of
  the stage past M keep what shared memory held (they reach only C's columns past M);
- cuBLAS at M, and its kernel's name (one profiled call, `--names`).

    python3 dev/experiments/decode_edge_probe.py [--shapes o,qkv] [--tokens 128,100] [--configs C1,+clip]

(a CONFIG `+FLAGS`: the rule's swapped configuration with the flags, as matmul_bench's `--configs`).
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
    ap.add_argument("--clamp", action="store_true", help="the clamp mode too (swapped configurations)")
    ap.add_argument("--names", action="store_true", help="cuBLAS's kernel names")
    args = ap.parse_args(argv)

    import torch

    import tilec
    from matmul_bench import LLAMA, ROTATE, forced, graph_us, parse_config, within_bound
    from tilec import gemm
    import re

    from tilec import compiling
    from tilec.runtime import cache as kcache
    from tilec.runtime import launch as L

    real_encode, real_compile = L.encode, kcache.KernelCache.compile
    patch = {"on": None, "dims": None, "cfg": None, "edits": 0}

    def encode(r):
        if patch["on"] == "nofill" and r.dims == patch["dims"]:
            r = dataclasses.replace(r, dims=(r.dims[0], 128))
        if patch["on"] == "clamp" and r.dims == patch["dims"]:
            r = dataclasses.replace(r, box=(r.box[0], min(r.box[1], r.dims[1])))
        return real_encode(r)

    def compile_(self, source, **kw):
        c = patch["cfg"]
        if patch["on"] == "clamp" and "wgmma" in source:
            whole, weight, row = 2 * (c.bm + c.bn) * c.bk, 2 * c.bm * c.bk, 2 * c.bk
            new = f"{weight}u + {row}u * (unsigned)(m < {c.bn} ? m : {c.bn})"
            source, edits = re.subn(
                rf"(tilec_mbarrier_arrive_expect_tx\(reinterpret_cast<unsigned long long\*>\(\w+\)), {whole}u\)",
                rf"\1, {new})", source)
            if not edits:  # the map's box clamped with the bytes unchanged would hang: refuse
                raise RuntimeError("clamp: no expected byte count of (bm + bn) bk 2 in the CUDA")
            patch["edits"] += edits
        return real_compile(self, source, **kw)

    kept = {"plain": ({}, {}), "clamp": ({}, {})}

    def use(mode):  # the compiled kernels of `mode` in the caches (the IR is the same, the CUDA not)
        other = "plain" if mode == "clamp" else "clamp"
        kept[other][0].update(compiling._compiled)
        kept[other][1].update(gemm._kernels)
        compiling._compiled.clear()
        gemm._kernels.clear()
        compiling._compiled.update(kept[mode][0])
        gemm._kernels.update(kept[mode][1])

    L.encode = encode
    kcache.KernelCache.compile = compile_
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
                base = gemm.choose_config(m, n, sms, k=k, b_kmajor=True)
                if name is not None and name.startswith("+") and not base.swap_ab:
                    continue  # (`+FLAGS`: the rule's swapped configuration with the flags)
                cfg = (None if name is None else parse_config(f"{base.name}:{name[1:]}") if name.startswith("+")
                       else parse_config(name))
                label = gemm.choose_config(m, n, sms, k=k, b_kmajor=True).name if cfg is None else cfg.name
                out = []
                rule = cfg or gemm.choose_config(m, n, sms, k=k, b_kmajor=True)
                for mode in ("plain", "nofill", "clamp"):
                    if mode != "plain" and m >= 128 or mode == "nofill" and (args.no_nofill or rule.clip_small):
                        continue  # (a clipped box's bytes are M's rows: a map of 128 rows would hang)
                    if mode == "clamp" and not (args.clamp and rule.swap_ab and m < rule.bn):
                        continue
                    patch["on"], patch["dims"], patch["cfg"] = mode, (k, m), rule
                    if mode == "clamp":
                        use("clamp")
                    try:
                        with forced(gemm, cfg):
                            c.fill_(float("nan"))
                            tilec.matmul(a, ws[0].t(), out=c)
                            torch.cuda.synchronize()
                            ok = within_bound(c, a, ws[0].t())
                            us = graph_us([lambda w=w: tilec.matmul(a, w.t(), out=c) for w in ws])  # noqa: B023
                        edits = f" ({patch['edits']} edits so far)" if mode == "clamp" else ""
                        out.append(f"{mode} {us:.1f}{'' if ok else ' FAIL'}{edits}")
                    except Exception as e:  # noqa: BLE001
                        out.append(f"{mode} error {type(e).__name__}: {str(e)[:120]}")
                    patch["on"] = None
                    if mode == "clamp":
                        use("plain")
                print(f"  {label}: " + ", ".join(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
