"""`tilec.matmul` with a configuration forced, at one shape, checked against float64
within docs/matmul.md's bound: what `dev/device/sanitize.sh --matmul` runs under
compute-sanitizer (the configurations `gemm_bench`'s syntax has no form for: 2-block
clusters `:cl2`, serial split-K `:ser`).

    python3 dev/device/matmul_check.py CONFIG MxNxK [--calls N] [--compile-only]

CONFIG is benchmarks/matmul_bench.py's `parse_config` syntax (`128x256x64:4:c128:cl2`,
`64x128x64:4:splitK2:ser`, `64x16x64:8:swapAB:splitK4:p1:ser`). B is `w.t()` (w (N, K),
as `torch.nn.Linear` holds it: the decode rows' form) for a swapped or split
configuration, else row-major (K, N). The operands are drawn on the host (no kernel
but tilec's and a fill), each call's output is poisoned with NaN first, and the bound
is computed on the host, so that the sanitizer sees tilec's kernels alone. `--calls N`
(default 2) calls it N times on the same operands: serial split-K's counters must be
back at 0 for the second call. Prints one line; exits 1 where a result is outside the
bound. `--compile-only` (no GPU): builds the kernel of the call's `MatmulKey` (132
multiprocessors) and compiles it with NVRTC for sm_90a, printing its registers.
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))


def _b_kmajor(cfg) -> bool:
    return cfg.swap_ab or cfg.split_k > 1


def compile_only(cfg, m: int, n: int, k: int) -> int:
    """NVRTC's compile of the kernel `tilec.matmul` would launch for this call."""
    from tilec import gemm
    from tilec.runtime.nvrtc import resource_usage

    epilogue = gemm.Epilogue(out_dtype="bf16")
    key = gemm.MatmulKey(cfg, n, k, "bf16", epilogue, 132, _b_kmajor(cfg), gemm.index_bits(m, n, k, cfg))
    usage = resource_usage(gemm.matmul_kernel(key).compile("sm_90a"))
    regs = ", ".join(f"{r.registers} registers, {r.spill_stores} spill stores" for r in usage.values())
    print(f"matmul_check: {cfg.name} {m}x{n}x{k}: compiled ({regs})")
    return 0


def run(cfg, m: int, n: int, k: int, calls: int) -> int:
    import torch
    from matmul_bench import forced, within_bound

    from tilec import gemm

    g = torch.Generator().manual_seed(0)
    a_host = torch.randn(m, k, generator=g).to(torch.bfloat16)
    if _b_kmajor(cfg):
        w_host = torch.randn(n, k, generator=g).to(torch.bfloat16)
        b_host, b = w_host.t(), w_host.cuda().t()
    else:
        b_host = torch.randn(k, n, generator=g).to(torch.bfloat16)
        b = b_host.cuda()
    a = a_host.cuda()
    ok = True
    with forced(gemm, cfg):
        for call in range(calls):
            out = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
            gemm.matmul(a, b, out=out)
            torch.cuda.synchronize()
            good = within_bound(out.cpu(), a_host, b_host)
            ok &= good
            print(f"matmul_check: {cfg.name} {m}x{n}x{k} call {call + 1}: {'ok' if good else 'OUTSIDE THE BOUND'}")
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("shape", help="MxNxK")
    ap.add_argument("--calls", type=int, default=2)
    ap.add_argument("--compile-only", action="store_true")
    args = ap.parse_args(argv)
    from matmul_bench import parse_config

    cfg = parse_config(args.config)
    m, n, k = (int(x) for x in args.shape.split("x"))
    return compile_only(cfg, m, n, k) if args.compile_only else run(cfg, m, n, k, args.calls)


if __name__ == "__main__":
    raise SystemExit(main())
