"""On an H100/H200: `box<tiles>` over the source's contiguous mode and the mode continuing
its run as one mode `W'` (`tile{tiles_mirror=R}`, `_copy_cost.TILES_MIRROR`: the rule's
where `W` is short) through `tilec.copy_` on PyTorch tensors: the strided set's 29 kind
(f16 -> bf16, W of 42), scaled, at the rule's (runs of 512, 16-byte phase-1 chunks) and
with runs of 256, 512 and 1024 bytes (tiles cutting `W'` between its digits, a last short
tile, `M` a run-time extent), 8-byte chunks and 8 lanes a row, at element offsets; f16
and f16 -> f32. The destination's buffer poisoned and compared with PyTorch's `copy_` bit
for bit (nothing around the view written); each copy twice (the second through the cached
launcher)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.torch]

CASES = [
    # (source base shape, permutation, source dtype, destination dtype, offsets, routes)
    ((69, 18, 13, 42), (3, 2, 0, 1), "float16", "bfloat16", 0, 0, {}),  # the rule's: runs of 512, 16-byte chunks
    ((69, 18, 13, 42), (3, 2, 0, 1), "float16", "bfloat16", 0, 0, {"tiles_mirror": 256}),  # W' 546, D 1242
    ((69, 18, 13, 42), (3, 2, 0, 1), "float16", "bfloat16", 3, 5, {"tiles_mirror": 512}),
    ((181, 69, 23, 42), (3, 2, 0, 1), "float16", "bfloat16", 1, 7, {"tiles_mirror": 1024}),
    ((69, 18, 13, 42), (3, 2, 0, 1), "float16", "bfloat16", 3, 5, {"tiles_mirror": 512, "tiles_stage": 8}),
    ((69, 18, 13, 42), (3, 2, 0, 1), "float16", "bfloat16", 2, 1, {"tiles_mirror": 512, "tiles_lanes": 8}),
    ((300, 7, 11, 37), (3, 2, 0, 1), "float16", "float16", 5, 1, {"tiles_mirror": 256}),
    ((300, 7, 11, 42), (3, 2, 0, 1), "float16", "float32", 1, 2, {"tiles_mirror": 256}),
]


@pytest.mark.parametrize("base, perm, sd, dd, so, do, routes", CASES)
def test_mirrored_box_copies_on_the_gpu(base, perm, sd, dd, so, do, routes):
    import math

    import torch
    from helpers.canonical_copies import key_strategy

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import Operand, plan_copy
    from tilec.copy_routes import forced_routes

    n = math.prod(base)
    gen = torch.Generator(device="cuda").manual_seed(sum(base) + so)
    flat = (torch.randn(so + n + 16, generator=gen, device="cuda") * 30).to(getattr(torch, sd))
    src = flat[so : so + n].reshape(base).permute(perm)
    shape = tuple(src.shape)
    dt = getattr(torch, dd)
    dbase = torch.full((do + n + 16,), 77, dtype=dt, device="cuda")
    want = dbase.clone()
    want[do : do + n].view(shape).copy_(src)
    dst = dbase[do : do + n].view(shape)
    plan = plan_copy(Operand(dst.data_ptr(), dd, shape, tuple(dst.stride())),
                     Operand(src.data_ptr(), sd, shape, tuple(src.stride())))
    assert key_strategy(plan.key) == "box<tiles>"
    bits = {2: torch.int16, 4: torch.int32}[dbase.element_size()]
    with forced_routes(**routes):
        kernels = CopyKernels(disk=False)
        for call in range(2):
            dbase.fill_(77)
            tensor_copy.copy_(dst, src, kernels=kernels)
            torch.cuda.synchronize()
            assert torch.equal(dbase.view(bits), want.view(bits)), f"{base} {perm} {routes}, call {call + 1}"
