"""Converting transposes through `tilec.copy_`: the `box<tiles>` box that converts in its
phase 2 (the rule, `_copy_cost.TILES_CONVERT_BYTES`) against the tiled kernel
(`box=never`), side by side on the same tensors, each checked bit for bit against
PyTorch; ratios to cudaMemcpy of the bytes moved (read + write). Not a test.

    python3 dev/experiments/convert_tiles.py [--reps 20] [SRC->DST:RxC ...]

A copy `SRC->DST:RxC` is `dst.copy_(x.t())`, x a contiguous R x C tensor of SRC, dst a
new C x R tensor of DST (odd extents: rows not a multiple of 16 bytes).
"""

from __future__ import annotations

import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
sys.path.insert(0, os.path.join(here, "..", "..", "tests"))

DEFAULT = ["bool->int16:16998x28506", "uint8->int16:8191x8209", "int8->float32:8191x8209",
           "float16->float32:8191x8209", "int16->int8:8191x8209", "uint8->float64:8191x8209"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("copies", nargs="*")
    a = ap.parse_args()
    import copy_bench
    import strided_copy_bench as sb
    import torch

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes
    from helpers.canonical_copies import key_strategy

    gen = torch.Generator(device="cuda").manual_seed(0)
    print("copy tilec(strategy) box=never torch")
    for spec in a.copies or DEFAULT:
        conv, _, shape = spec.partition(":")
        sd, dd = conv.split("->")
        r, c = (int(x) for x in shape.split("x"))
        if sd == "bool":
            x = torch.rand((r, c), generator=gen, device="cuda") > 0.5
        elif sd in ("float16", "bfloat16", "float32", "float64"):
            x = (torch.randn((r, c), generator=gen, device="cuda") * 30).clamp(-120, 120).to(getattr(torch, sd))
        else:
            info = torch.iinfo(getattr(torch, sd))
            x = torch.randint(info.min, info.max, (r, c), generator=gen, device="cuda", dtype=getattr(torch, sd))
        src = x.t()
        dst = torch.empty((c, r), dtype=getattr(torch, dd), device="cuda")
        ref = torch.empty_like(dst)
        ref.copy_(src)
        moved = x.numel() * (x.element_size() + dst.element_size())
        mc = copy_bench.memcpy_tbps(moved // 2)
        row = [spec]
        for routes in ({}, {"box": "never"}):
            kern = CopyKernels(disk=False)
            with forced_routes(**routes):
                dst.fill_(0)
                tensor_copy.copy_(dst, src, kernels=kern)
                torch.cuda.synchronize()
                ok = bool(torch.equal(sb._bits(torch, dst), sb._bits(torch, ref)))
                t = sb._median(copy_bench, lambda: tensor_copy.copy_(dst, src, kernels=kern), a.reps)
                strat = "/".join(sorted({key_strategy(k) or "tiled" for k in kern._entries}))
            row.append(f"{copy_bench.tbps(moved, t) / mc:.3f}{'' if ok else '!'}({strat})")
        row.append(f"{copy_bench.tbps(moved, sb._median(copy_bench, lambda: dst.copy_(src), a.reps)) / mc:.3f}")
        print(" ".join(row), flush=True)
        del x, src, dst, ref
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
