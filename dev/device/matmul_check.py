"""`tilec.matmul` with a configuration forced, at one shape, checked against float64
within docs/matmul.md's bound: what `dev/device/sanitize.sh --matmul` runs under
compute-sanitizer (the configurations `gemm_bench`'s syntax has no form for: 2-block
clusters `:cl2`, serial split-K `:ser`).

    python3 dev/device/matmul_check.py CONFIG MxNxK [--calls N] [--bias] [--activation ACT] [--scale-a-mn]
                                       [--compile-only]

CONFIG is benchmarks/matmul_bench.py's `parse_config` syntax (`128x256x64:4:c128:cl2`,
`64x128x64:4:splitK2:ser`, `64x16x64:8:swapAB:splitK4:p1:ser`; FP8 e4m3 with `f8:`
(per-tensor scales) or `f8b:` (block scales, (M, K/128) and (N/128, K/128) f32), e.g.
`f8b:128x128x128:4:cl2:bp`, checked within matmul_bench's FP8 bounds). B is `w.t()`
(w (N, K), as `torch.nn.Linear` holds it: the decode rows' and FP8's form) for a
swapped, split or FP8 configuration, else row-major (K, N). The operands are drawn on the host (no kernel
but tilec's and a fill), each call's output is poisoned with NaN first, and the bound
is computed on the host, so that the sanitizer sees tilec's kernels alone. `--calls N`
(default 2) calls it N times on the same operands: serial split-K's counters must be
back at 0 for the second call. Prints one line; exits 1 where a result is outside the
bound. `--bias`: with a bias of exactly N elements (bf16, drawn on the host; run with
`PYTORCH_NO_CUDA_MEMORY_CACHING=1` under memcheck so that the bias is an allocation of
its own, whose end memcheck knows). `--activation ACT` (`silu`, `gelu`, `relu`, `silu_tanh`): the
epilogue's activation, checked within matmul_bench's bound of it (`silu` with the configuration's
`:fe<k>`: SiLU's exp2 on the FMA pipe, `cuda.ex2_fma`, as `gemm.staggered`'s rule takes it with
`:fe2`). `--scale-a-mn` (block-scaled FP8): A's scales given
MN-major (strides (1, M), DeepGEMM's layout: the kernel
`gemm_hopper_ws(scale_a_mn_major=True)`). `--compile-only` (no GPU): builds the kernel of the call's `MatmulKey` (132
multiprocessors) and compiles it with NVRTC for sm_90a, printing its registers, whether SiLU's exp2
runs on the FMA pipe (`cuda.ex2_fma`) and whether a tensor map is tail-clipped (`tma_load {clip,
tail}`: the clipped halves, `:clip`).
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))


def _fp8(cfg) -> bool:
    return cfg.name.startswith(("f8:", "f8b:"))


def _b_kmajor(cfg) -> bool:
    return cfg.swap_ab or cfg.split_k > 1 or _fp8(cfg)


def compile_only(cfg, m: int, n: int, k: int, scale_a_mn: bool = False, bias: bool = False,
                 activation: str | None = None) -> int:
    """NVRTC's compile of the kernel `tilec.matmul` would launch for this call."""
    from tilec import gemm
    from tilec.runtime.nvrtc import resource_usage

    epilogue = gemm.Epilogue(bias=bias, activation=activation, out_dtype="bf16",
                             scale=_fp8(cfg) and not cfg.block_scales)
    dtype = "f8E4M3FN" if _fp8(cfg) else "bf16"
    key = gemm.MatmulKey(cfg, n, k, dtype, epilogue, 132, _b_kmajor(cfg), gemm.index_bits(m, n, k, cfg), scale_a_mn)
    kernel = gemm.matmul_kernel(key)
    usage = resource_usage(kernel.compile("sm_90a"))
    regs = ", ".join(f"{r.registers} registers, {r.spill_stores} spill stores" for r in usage.values())
    fma = ", ex2 on the FMA pipe (cuda.ex2_fma)" if "tilec_ex2_fma(" in kernel.source else ""
    tail = any(op.name == "cuda.tensor_map" and "tail" in op.properties for op in kernel.module.walk())
    print(f"matmul_check: {cfg.name} {m}x{n}x{k}{' scale_a MN-major' if scale_a_mn else ''}"
          f"{' + bias' if bias else ''}{f' + {activation}' if activation else ''}: compiled ({regs}){fma}"
          f"{', a tail-clipped tensor map (tma_load {clip, tail})' if tail else ''}")
    return 0


def run(cfg, m: int, n: int, k: int, calls: int, bias: bool = False, scale_a_mn: bool = False,
        activation: str | None = None) -> int:
    import torch
    from matmul_bench import forced, within_bound

    from tilec import gemm

    if _fp8(cfg):
        return run_fp8(cfg, m, n, k, calls, scale_a_mn)
    g = torch.Generator().manual_seed(0)
    a_host = torch.randn(m, k, generator=g).to(torch.bfloat16)
    if _b_kmajor(cfg):
        w_host = torch.randn(n, k, generator=g).to(torch.bfloat16)
        b_host, b = w_host.t(), w_host.cuda().t()
    else:
        b_host = torch.randn(k, n, generator=g).to(torch.bfloat16)
        b = b_host.cuda()
    a = a_host.cuda()
    bias_host = torch.randn(n, generator=g).to(torch.bfloat16) if bias else None
    bias_dev = bias_host.cuda() if bias else None
    ok = True
    with forced(gemm, cfg):
        for call in range(calls):
            out = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
            gemm.matmul(a, b, bias=bias_dev, activation=activation, out=out)
            torch.cuda.synchronize()
            good = within_bound(out.cpu(), a_host, b_host, bias_host, activation)
            ok &= good
            print(f"matmul_check: {cfg.name} {m}x{n}x{k}{f' + {activation}' if activation else ''} call {call + 1}: "
                  f"{'ok' if good else 'OUTSIDE THE BOUND'}")
    return 0 if ok else 1


def run_fp8(cfg, m: int, n: int, k: int, calls: int, scale_a_mn: bool = False) -> int:
    """An FP8 configuration: e4m3 operands (a (M, K), w (N, K), B = w.t()), per-tensor
    or block scales drawn on the host (A's MN-major where `scale_a_mn`), checked on the
    host within matmul_bench's `fp8_within_bound` / `block_fp8_within_bound`."""
    import torch
    from matmul_bench import block_fp8_within_bound, forced, fp8_within_bound

    from tilec import gemm

    g = torch.Generator().manual_seed(0)
    a_host = (torch.randn(m, k, generator=g) * 4).to(torch.float8_e4m3fn)
    w_host = (torch.randn(n, k, generator=g) * 4).to(torch.float8_e4m3fn)
    if cfg.block_scales:
        sa_host = 0.5 + torch.rand(m, -(-k // 128), generator=g)
        sb_host = 0.5 + torch.rand(-(-n // 128), -(-k // 128), generator=g)
        sa, sb = sa_host.cuda(), sb_host.cuda()
        if scale_a_mn:  # strides (1, M): the same values, each K block's M scales contiguous
            sa = sa.t().contiguous().t()
        check = lambda got: block_fp8_within_bound(got, a_host, w_host, sa_host, sb_host)  # noqa: E731
    else:
        sa, sb = torch.tensor(0.37).cuda(), torch.tensor(1.9).cuda()
        check = lambda got: fp8_within_bound(got, a_host, w_host, 0.37 * 1.9)  # noqa: E731
    a, w = a_host.cuda(), w_host.cuda()
    ok = True
    with forced(gemm, cfg):
        for call in range(calls):
            out = torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
            gemm.matmul(a, w.t(), scale_a=sa, scale_b=sb, out=out)
            torch.cuda.synchronize()
            good = check(out.cpu())
            ok &= good
            print(f"matmul_check: {cfg.name} {m}x{n}x{k}{' scale_a MN-major' if scale_a_mn else ''} call {call + 1}: "
                  f"{'ok' if good else 'OUTSIDE THE BOUND'}")
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("shape", help="MxNxK")
    ap.add_argument("--calls", type=int, default=2)
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--bias", action="store_true", help="a bias of N elements (not with FP8 configurations)")
    ap.add_argument("--activation", choices=("relu", "gelu", "silu", "silu_tanh"),
                    help="the epilogue's activation (not with FP8 configurations)")
    ap.add_argument("--scale-a-mn", action="store_true",
                    help="block-scaled FP8: A's scales MN-major (strides (1, M))")
    args = ap.parse_args(argv)
    from matmul_bench import parse_config

    cfg = parse_config(args.config)
    if args.scale_a_mn and not cfg.block_scales:
        ap.error("--scale-a-mn takes a block-scaled FP8 configuration (f8b:...)")
    m, n, k = (int(x) for x in args.shape.split("x"))
    if args.activation and _fp8(cfg):
        ap.error("--activation takes a 16-bit configuration")
    if args.compile_only:
        return compile_only(cfg, m, n, k, args.scale_a_mn, args.bias, args.activation)
    return run(cfg, m, n, k, args.calls, args.bias, args.scale_a_mn, args.activation)


if __name__ == "__main__":
    raise SystemExit(main())
