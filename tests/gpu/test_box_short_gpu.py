"""On an H100/H200: `box<tiles>` over a short source-contiguous mode taken whole
(`_copy_cost.TILES_SHORT_BYTES`, the rule's 2-byte elements) through `tilec.copy_` on PyTorch tensors: permutes of
2-byte elements whose source-contiguous mode is short (the strided set's 29 kind, scaled),
converting (f16 -> bf16, int16 -> int32) or not (f16), the views at element offsets, the
destination's buffer poisoned and compared with PyTorch's `copy_` bit for bit (nothing
around the view written); each copy twice (the second through the cached launcher)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.torch]

CASES = [
    # (source base shape, permutation, source dtype, destination dtype, source offset, destination offset)
    ((69, 18, 13, 42), (3, 2, 0, 1), "float16", "bfloat16", 0, 0),  # 29's kind: W of 42, D of 69 x 18
    ((69, 18, 13, 42), (3, 2, 0, 1), "float16", "bfloat16", 3, 5),
    ((300, 7, 33), (2, 1, 0), "int16", "int32", 1, 2),  # W of 33 (runs of 80 bytes)
    ((500, 3, 63), (2, 0, 1), "float16", "float16", 5, 1),  # W of 63, no conversion
]


@pytest.mark.parametrize("base, perm, sd, dd, so, do", CASES)
def test_short_box_copies_on_the_gpu(base, perm, sd, dd, so, do):
    import math

    import torch
    from helpers.canonical_copies import key_strategy

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import Operand, plan_copy

    n = math.prod(base)
    gen = torch.Generator(device="cuda").manual_seed(sum(base) + so)
    st, dt = getattr(torch, sd), getattr(torch, dd)
    if st.is_floating_point:
        flat = (torch.randn(so + n + 16, generator=gen, device="cuda") * 30).to(st)
    else:
        flat = torch.randint(-30000, 30000, (so + n + 16,), generator=gen, device="cuda", dtype=st)
    src = flat[so : so + n].reshape(base).permute(perm)
    shape = tuple(src.shape)
    dbase = torch.full((do + n + 16,), 77, dtype=dt, device="cuda")
    want = dbase.clone()
    want[do : do + n].view(shape).copy_(src)
    dst = dbase[do : do + n].view(shape)
    plan = plan_copy(Operand(dst.data_ptr(), dd, shape, tuple(dst.stride())),
                     Operand(src.data_ptr(), sd, shape, tuple(src.stride())))
    assert key_strategy(plan.key) == "box<tiles>"
    kernels = CopyKernels(disk=False)
    for call in range(2):
        dbase.fill_(77)
        tensor_copy.copy_(dst, src, kernels=kernels)
        torch.cuda.synchronize()
        bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[dbase.element_size()]
        assert torch.equal(dbase.view(bits), want.view(bits)), f"{base} {perm}, call {call + 1}"
