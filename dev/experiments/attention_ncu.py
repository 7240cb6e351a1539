"""Nsight Compute figures for the flash-attention forward (issue 40): tilec.attention beside
torch SDPA's cuDNN backend on one shape, one kernel each, under `ncu`.

    python3 dev/experiments/attention_ncu.py --impl tilec|cudnn --shape 4x32x4096x128[c]
    ncu --clock-control none --launch-skip 3 --launch-count 1 -k regex:NAME --metrics ... \
        python3 dev/experiments/attention_ncu.py ...     (dev/experiments/attention_ncu.sh)

Runs the kernel 5 times (the first compiles/warms), so `--launch-skip 3` profiles a warm
launch. An experiment: nothing of the product changes."""

import argparse

import torch

import tilec

ap = argparse.ArgumentParser()
ap.add_argument("--impl", choices=("tilec", "cudnn"), required=True)
ap.add_argument("--shape", required=True)
args = ap.parse_args()
causal = args.shape.endswith("c")
b, h, s, d = (int(x) for x in args.shape.rstrip("c").split("x"))
g = torch.Generator(device="cuda").manual_seed(0)
q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
if args.impl == "tilec":
    def run():
        return tilec.attention(q, k, v, causal=causal)
else:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def run():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
for _ in range(5):
    run()
torch.cuda.synchronize()
