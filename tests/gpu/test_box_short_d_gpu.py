"""On an H100/H200: `box<tiles>` over a short destination-contiguous mode taken whole
(`_copy_cost.TILES_SHORT_D_BYTES`, the route `tiles_short_d=4`, off by default) through
`tilec.copy_` on PyTorch tensors: permutes into short rows of 8- and 4-byte elements (the
strided set's 18, 47, 41 and 06 kinds, scaled), converting (uint8 -> f64, f32 -> int64)
or not (f64, int32), the views at element offsets, the destination's buffer poisoned and
compared with PyTorch's `copy_` bit for bit (nothing around the view written); each copy
twice (the second through the cached launcher)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.torch]

CASES = [
    # (source base shape, permutation, source dtype, destination dtype, source offset, destination offset)
    ((61, 5000), (1, 0), "float64", "float64", 0, 0),  # 18's kind: rows of 61
    ((61, 5001), (1, 0), "float64", "float64", 1, 3),
    ((17, 9001), (1, 0), "uint8", "float64", 5, 1),  # 47's kind: rows of 17, converting
    ((17, 9, 3001), (2, 1, 0), "float32", "int64", 0, 1),  # 41's kind
    ((3, 42, 3001), (2, 0, 1), "int32", "int32", 1, 2),  # 06's kind: rows of 42
]


@pytest.mark.parametrize("base, perm, sd, dd, so, do", CASES)
def test_short_d_box_copies_on_the_gpu(base, perm, sd, dd, so, do):
    import math

    import torch
    from helpers.canonical_copies import key_strategy

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import Operand, plan_copy
    from tilec.copy_routes import forced_routes

    n = math.prod(base)
    gen = torch.Generator(device="cuda").manual_seed(sum(base) + so)
    st, dt = getattr(torch, sd), getattr(torch, dd)
    if st.is_floating_point:
        flat = (torch.randn(so + n + 16, generator=gen, device="cuda") * 30).to(st)
    else:
        flat = torch.randint(0, 120, (so + n + 16,), generator=gen, device="cuda", dtype=st)
    src = flat[so : so + n].reshape(base).permute(perm)
    shape = tuple(src.shape)
    dbase = torch.full((do + n + 16,), 77, dtype=dt, device="cuda")
    want = dbase.clone()
    want[do : do + n].view(shape).copy_(src)
    dst = dbase[do : do + n].view(shape)
    with forced_routes(tiles_short_d=4):
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
