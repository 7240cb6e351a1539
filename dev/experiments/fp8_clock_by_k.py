"""A probe (issue 39, fp839): does the block-scaled rule's K step cost more at K = 8192 than at
2048, or does the GPU run it at a lower clock? The rule (`tilec.matmul`, block scales) and
`torch._scaled_mm` (per-tensor) at 8192 x 8192 x K for each K given, all launched back to back
in turns (fp8_prefetch_probe's `sustained`: rounds in rotated order, S seconds each, under
nvidia-smi's samples of the SM clock, the power and the clocks' event reasons), in one process,
so that every shape meets the same history of the GPU. Prints each one's TFLOP/s and its
TFLOP/s per GHz of the clock sampled.

    python3 dev/experiments/fp8_clock_by_k.py [--rounds N] [--seconds S] 2048 8192   (on the GPU)
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> int:
    import torch

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))
    from fp8_prefetch_probe import sustained
    from matmul_bench import block_fp8_within_bound

    import tilec

    rounds, seconds = 3, 0.4
    while argv[:1] in (["--rounds"], ["--seconds"]):
        rounds, seconds = (int(argv[1]), seconds) if argv[0] == "--rounds" else (rounds, float(argv[1]))
        argv = argv[2:]
    m = n = 8192
    fns, flops, ok = {}, {}, True
    for k in (int(x) for x in argv):
        g = torch.Generator(device="cuda").manual_seed(k)
        a = (torch.randn(m, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
        w = (torch.randn(n, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
        bsa = 0.5 + torch.rand(m, k // 128, device="cuda", generator=g)
        bsb = 0.5 + torch.rand(n // 128, k // 128, device="cuda", generator=g)
        sa, sb = torch.tensor(0.37, device="cuda"), torch.tensor(1.9, device="cuda")
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        tilec.matmul(a, w.t(), scale_a=bsa, scale_b=bsb, out=c)
        good = block_fp8_within_bound(c, a, w, bsa, bsb)
        ok &= good
        print(f"K = {k}: checked {good}", flush=True)
        fns[f"rule K{k}"] = (lambda a, w, bsa, bsb, c: lambda: tilec.matmul(a, w.t(), scale_a=bsa, scale_b=bsb, out=c))(
            a, w, bsa, bsb, c)
        fns[f"scaled_mm K{k}"] = (lambda a, w, sa, sb: lambda: torch._scaled_mm(
            a, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16))(a, w, sa, sb)
        flops[f"rule K{k}"] = flops[f"scaled_mm K{k}"] = 2.0 * m * n * k
    for rnd in range(rounds):
        got = {}
        res = sustained(fns, seconds, 1.0, start=rnd)  # TFLOP/s of one flop a call: times each shape's flops
        for name, (tf, mhz, watts, why) in res.items():
            got[name] = (tf * flops[name], mhz, watts, why)
        print(f"round {rnd}: " + ", ".join(f"{name} {tf:.0f} TFLOP/s {mhz:.0f} MHz ({tf / mhz * 1000:.0f} a GHz) "
                                            f"{watts:.0f} W {why}" for name, (tf, mhz, watts, why) in got.items()),
              flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
