"""Nsight Compute target and host-path profile for `tilec.attention` (issue 40's closing
note): the issue's four shapes, tilec's kernel and torch SDPA's cuDNN backend, one launch
of each inside a profiler range (run under `ncu --profile-from-start off`); with
`--host`, cProfile of repeated calls at one shape instead (where the host time goes).

    ncu --profile-from-start off --section SpeedOfLight --section Occupancy --section WarpStateStats \
        python3 dev/experiments/attention_ncu.py
    python3 dev/experiments/attention_ncu.py --host 16x16x1024x64
"""

import cProfile
import pstats
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


SHAPES = [(4, 32, 4096, 128, False), (4, 32, 4096, 128, True), (16, 16, 1024, 64, False), (1, 32, 16384, 128, True)]


def tensors(b, h, s, d):
    g = torch.Generator(device="cuda").manual_seed(s + d)
    return [torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3)]


def host(shape: str) -> None:
    b, h, s, d = (int(x) for x in shape.split("x"))
    q, k, v = tensors(b, h, s, d)
    out, lse = torch.empty_like(q), torch.empty(b, h, s, device="cuda")
    from tilec.attention_op import attention

    for _ in range(20):
        attention(q, k, v, out=out, lse=lse)
    torch.cuda.synchronize()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(500):
        attention(q, k, v, out=out, lse=lse)
    prof.disable()
    torch.cuda.synchronize()
    pstats.Stats(prof).sort_stats("tottime").print_stats(18)


def profile() -> None:
    from tilec.attention_op import attention

    for b, h, s, d, causal in SHAPES:
        q, k, v = tensors(b, h, s, d)
        attention(q, k, v, causal=causal)
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.cuda.synchronize()
        print(f"shape {b}x{h}x{s}x{d} causal={causal}: tilec, then cuDNN", flush=True)
        torch.cuda.cudart().cudaProfilerStart()
        attention(q, k, v, causal=causal)
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--host":
        host(sys.argv[2])
    else:
        profile()
