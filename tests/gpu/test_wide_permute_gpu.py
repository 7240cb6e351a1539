"""On an H100/H200: permutes of 8-byte elements into short rows, which the gather rule
leaves to the tiled kernel (`_copy_cost.GATHER_TILED_BYTES`: the strided set's 18 kind,
f64 rows of 61, scaled), through `tilec.copy_` by default, the views at element offsets,
the destination's buffer poisoned and compared with PyTorch's `copy_` bit for bit;
each copy twice (the second through the cached launcher)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.torch]


@pytest.mark.parametrize("base, perm, dtype, so, do", [
    ((61, 5000), (1, 0), "float64", 0, 0),
    ((7, 61, 3001), (1, 2, 0), "float64", 1, 3),  # 18's own order: rows of 61
    ((17, 4001), (1, 0), "int64", 2, 1),
])
def test_wide_permutes_take_the_tiled_kernel_on_the_gpu(base, perm, dtype, so, do):
    import math

    import torch
    from helpers.canonical_copies import key_strategy

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import Operand, plan_copy

    n = math.prod(base)
    gen = torch.Generator(device="cuda").manual_seed(sum(base) + so)
    t = getattr(torch, dtype)
    flat = torch.randint(-(2**40), 2**40, (so + n + 16,), generator=gen, device="cuda", dtype=torch.int64).to(t)
    src = flat[so : so + n].reshape(base).permute(perm)
    shape = tuple(src.shape)
    dbase = torch.full((do + n + 16,), 77, dtype=t, device="cuda")
    want = dbase.clone()
    want[do : do + n].view(shape).copy_(src)
    dst = dbase[do : do + n].view(shape)
    plan = plan_copy(Operand(dst.data_ptr(), dtype, shape, tuple(dst.stride())),
                     Operand(src.data_ptr(), dtype, shape, tuple(src.stride())))
    assert key_strategy(plan.key) == "tiled"
    kernels = CopyKernels(disk=False)
    for call in range(2):
        dbase.fill_(77)
        tensor_copy.copy_(dst, src, kernels=kernels)
        torch.cuda.synchronize()
        assert torch.equal(dbase.view(torch.int64), want.view(torch.int64)), f"{base} {perm}, call {call + 1}"
