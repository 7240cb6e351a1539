"""Flash-attention forward written in tilec (compiler/attention.py, docs/attention.md),
checked against float64.

    python examples/python/attention.py [--causal] [B H S D]     (default 4 32 4096 128)
    python examples/python/attention.py --emit D causal|full B H HKV SQ SKV [P] [pingpong]   (MLIR with
                                               tilec.args; P: persistent on P blocks; pingpong: the
                                               consumer warpgroups taking turns)

With a GPU and PyTorch: `tilec.attention(q, k, v, causal=...)` on random bf16 tensors,
compared with PyTorch's attention in float64 and timed once against
`F.scaled_dot_product_attention`. Without: the program of B=1, H=2, S=150, D=64 is
compiled for sm_90a with NVRTC and run on the CPU reference executor.
"""

from __future__ import annotations

import math
import sys

import numpy as np


def _reference(q, k, v, causal: bool):
    """softmax(q k^T / sqrt(D)) v in float64 (NumPy arrays (B, H, S, D))."""
    s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1])
    if causal:
        n = s.shape[-1]
        s = np.where(np.tri(s.shape[-2], n, dtype=bool), s, -np.inf)
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


def on_gpu(b: int, h: int, s: int, d: int, causal: bool) -> float:
    import torch
    import torch.nn.functional as F

    import tilec

    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
    out = tilec.attention(q, k, v, causal=causal)
    n = min(b, 1)
    ref = F.scaled_dot_product_attention(q[:n].double(), k[:n].double(), v[:n].double(), is_causal=causal)
    err = (out[:n].double() - ref).abs().max().item()
    for name, fn in [("tilec", lambda: tilec.attention(q, k, v, causal=causal)),
                     ("torch SDPA", lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))]:
        fn()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(10):
            fn()
        end.record()
        torch.cuda.synchronize()
        ms = start.elapsed_time(end) / 10
        flops = 4 * b * h * s * s * d / (2 if causal else 1)
        print(f"{name}: {ms:.3f} ms, {flops / ms / 1e9:.0f} TFLOP/s")
    return err


def on_cpu(causal: bool) -> float:
    import tilec
    from tilec.compiler.attention import attention_fwd
    from tilec.dialects.dtypes import bf16_to_f32, f32_to_bf16

    b, h, s, d = 1, 2, 150, 64
    kernel = tilec.compile(attention_fwd(d, "bf16", causal), arch="sm_90a")
    print(f"no GPU (or no PyTorch): compiled {len(kernel.cubin)} bytes of sm_90a cubin; running "
          f"B={b} H={h} S={s} D={d} on the CPU reference executor")
    rng = np.random.default_rng(0)
    q, k, v = (f32_to_bf16(rng.standard_normal((b, h, s, d)).astype(np.float32)) for _ in range(3))
    strides = [h * s * d, s * d, d] * 4
    args = [q.ravel(), k.ravel(), v.ravel(), np.zeros(b * h * s * d, np.uint16), np.zeros(b * h * s, np.float32),
            b, h, h, s, s, *strides]
    out = tilec.run_reference(kernel, args)["o"]
    got = bf16_to_f32(np.asarray(out).reshape(b, h, s, d)).astype(np.float64)
    ref = _reference(*(bf16_to_f32(x).astype(np.float64) for x in (q, k, v)), causal)
    return float(np.abs(got - ref).max())


def emit_with_args(d: int, causal: bool, b: int, h: int, hkv: int, sq: int, skv: int, persistent: int = 0,
                   pingpong: bool = False) -> str:
    """The program as MLIR text whose function carries `tilec.args` (every index
    argument and buffer size of contiguous (B, H, S, D) tensors), so that
    `tilec FILE --run gpu --check` runs it as it is (dev/device/sanitize.sh --attention);
    `persistent` P > 0: the persistent schedule on min(P, tiles) blocks; `pingpong`:
    the pingpong schedule."""
    from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerAttr

    import tilec
    from tilec.compiler.attention import attention_fwd

    module = attention_fwd(d, "bf16", causal, h // hkv, persistent=persistent, pingpong=pingpong).module
    fn = next(op for op in module.body.ops if op.name == "func.func")
    args = {"B": b, "H": h, "Hkv": hkv, "Sq": sq, "Skv": skv, "q": b * h * sq * d, "k": b * hkv * skv * d,
            "v": b * hkv * skv * d, "o": b * h * sq * d, "lse": b * h * sq}
    for name, (heads, s) in {"q": (h, sq), "k": (hkv, skv), "v": (hkv, skv), "o": (h, sq)}.items():
        args.update({f"{name}sb": heads * s * d, f"{name}sh": s * d, f"{name}ss": d})
    fn.attributes["tilec.args"] = DictionaryAttr({k: IntegerAttr(v, IndexType()) for k, v in args.items()})
    return tilec.emit(module, "mlir")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--emit"]:  # --emit D causal|full B H HKV SQ SKV [P] [pingpong]
        d, mode, *dims = argv[1:]
        pingpong = dims[-1:] == ["pingpong"]
        dims = dims[:-1] if pingpong else dims
        print(emit_with_args(int(d), mode == "causal", *(int(x) for x in dims), pingpong=pingpong), end="")
        return 0
    causal = "--causal" in argv
    argv = [a for a in argv if a != "--causal"]
    b, h, s, d = (int(x) for x in argv[:4]) if len(argv) >= 4 else (4, 32, 4096, 128)
    try:
        import torch

        gpu = torch.cuda.is_available()
    except ImportError:
        gpu = False
    err = on_gpu(b, h, s, d, causal) if gpu else on_cpu(causal)
    ok = err <= 2.0**-6
    print(f"max |O - float64| = {err:.3g}: {'ok' if ok else 'TOO LARGE'} (bf16 P and O: about 2^-8 of |O|)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
