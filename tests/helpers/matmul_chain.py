"""A chain of decode GEMMs for the GPU tests of programmatic dependent launch: 12 layers
queued back to back, each reading the previous layer's output and writing the buffer the
layer before it read (two buffers in turn), run with a configuration's PDL flags off and
on."""

from __future__ import annotations

from dataclasses import replace

import tilec


def pdl_chain(torch, monkeypatch, m: int, n: int, kind: str, **flags: bool):
    """The chain of `m` rows through 12 N x N bf16 weights, under the decode rule's
    swapped configuration (`kind` "swap"), its split twice in clusters of two ("csplit"),
    its tiles of M's halves (`kind` "halves", the rule's at M = 128: `HALVES_CLUSTER`, none
    by default) or those tiles in pairs sharing the weight ("pairs"), with PDL off and on (`flags`, e.g. `pdl_weight=True`: set where PDL is):
    three rounds each (compiled and prepared on the first, replayed after). Returns
    ({pdl: the last layer's output}, {pdl: the first layer's output}, x0, the first
    weight)."""
    from tilec import gemm

    k = n
    swap = gemm.swap_config(m)
    if kind in ("halves", "pairs"):  # the decode rule's unswapped tiles of M's halves (M = 128)
        swap = gemm.choose_config(m, n, 132, k=k, b_kmajor=True)
        assert swap.bm == 64 and not swap.swap_ab and swap.cluster == gemm.HALVES_CLUSTER
        if kind == "pairs":  # the same tile in pairs sharing the weight's stages (`HALVES_CLUSTER` (2, 1))
            monkeypatch.setattr(gemm, "HALVES_CLUSTER", (2, 1))
            swap = next(c for c in gemm.halves_configs() if c.bn == swap.bn)
            assert swap.cluster == (2, 1)
    if kind == "csplit":
        swap = next(c for c in gemm.cluster_splits(swap, k) if c.split_k == 2 and not c.global_partials)
    g = torch.Generator(device="cuda").manual_seed(m + n)
    ws = [(torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g) / 32).t() for _ in range(12)]
    x0 = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    outs, firsts = {}, {}
    for pdl in (False, True):
        config = replace(swap, pdl=pdl, **{name: on and pdl for name, on in flags.items()})
        monkeypatch.setattr(gemm, "_decode_config", lambda *args, c=config: c)
        monkeypatch.setattr(gemm, "_fast", {})
        bufs = [x0.clone(), torch.full_like(x0, float("nan"))]
        for r in range(3):
            bufs[0].copy_(x0)
            for i, w in enumerate(ws):
                tilec.matmul(bufs[i % 2], w, out=bufs[(i + 1) % 2])
                if r == 0 and i == 0:
                    torch.cuda.synchronize()
                    firsts[pdl] = bufs[1].clone()
            torch.cuda.synchronize()
        outs[pdl] = bufs[0].clone()
    return outs, firsts, x0, ws[0]
