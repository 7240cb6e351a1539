"""The swapped decode kernels' options of dec38 on the GPU: A^T in a ring of its own
(`GemmConfig.small_stages`, with and without `small_prefetch`; unsplit and split twice in
pairs) within the bound against float64 with the output poisoned, at M = 1, 100 and 128;
programmatic dependent launch with the trigger after the producer's last loads
(`GemmConfig.pdl_late`) over 12 chained layers: the same bits as without PDL."""

from __future__ import annotations

from dataclasses import replace

import pytest
from helpers.matmul_chain import pdl_chain
from helpers.matmul_oracle import within_bound
from helpers.torch_gpu import f64, torch_cuda

import tilec

pytestmark = [pytest.mark.gpu, pytest.mark.torch]


@pytest.mark.parametrize(("n", "kind"), [(6144, "swap"), (6144, "prefetch"), (4096, "csplit")])
def test_small_ring_within_the_bound(n, kind, monkeypatch):
    torch = torch_cuda()
    from tilec import gemm

    k = 4096
    config = replace(gemm.swap_config(128), stages=8, small_stages=2, small_prefetch=kind == "prefetch")
    if kind == "csplit":
        config = replace(next(c for c in gemm.cluster_splits(gemm.swap_config(128), k)
                              if c.split_k == 2 and not c.global_partials), stages=8, small_stages=2)
    monkeypatch.setattr(gemm, "_decode_config", lambda *args: config)
    monkeypatch.setattr(gemm, "_fast", {})
    g = torch.Generator(device="cuda").manual_seed(n)
    w = (torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g) / 32).t()
    for m in (1, 100, 128):
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        tilec.matmul(a, w, out=c)
        torch.cuda.synchronize()
        assert within_bound(f64(c), f64(a), f64(w), None, None, None, "bf16").all()


@pytest.mark.parametrize(("m", "n", "kind"), [(16, 2048, "swap"), (128, 4096, "csplit")])
def test_late_trigger_in_a_chain(m, n, kind, monkeypatch):
    """12 layers queued back to back, each reading the previous one's output and writing
    the buffer the one before it read, launched as dependents with the late trigger
    (`helpers.matmul_chain`): the same bits as without PDL, the first layer within the
    bound against float64."""
    torch = torch_cuda()
    outs, firsts, x0, w0 = pdl_chain(torch, monkeypatch, m, n, kind, pdl_late=True)
    assert within_bound(f64(firsts[True]), f64(x0), f64(w0), None, None, None, "bf16").all()
    assert torch.equal(outs[False], outs[True])
