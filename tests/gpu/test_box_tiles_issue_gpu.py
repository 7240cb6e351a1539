"""On an H100/H200: `box<tiles>` copies with `tile{tiles_issue=B}` (passes/_box_tile.TILES_ISSUE:
1, a thread's phase-1 copies in one commit group; 2, phase 2's chunk loop unrolled; 4 and 8,
phase 1's line loop over runs, a thread's slot fixed or a quarter warp a run; 16, phase 2's
edge loop rolled; 32, the chunk loop unrolled by 2; 64, phase 2's thread values kept; 128, a
destination run's box addresses kept, a chunk's at constant steps from them; 256, the edge
path's elements read at the whole chunk's box addresses; 512, 64's values kept in the rotated body only) through
`tilec.copy_` on PyTorch tensors: int8 odd transposes (square and not: the rotated phase 2
too), f16 and uint8 -> int16, the views at element offsets, the destination's buffer
poisoned and compared with PyTorch's `copy_` bit for bit (nothing around the view written)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.torch]

CASES = [
    # (source base shape, source dtype, destination dtype, source offset, destination offset)
    ((3001, 2049), "int8", "int8", 3, 5),
    ((2051, 2051), "int8", "int8", 1, 2),  # square: the rotated phase 2 where the steps ask it
    ((1031, 2061), "float16", "float16", 1, 7),
    ((2003, 1501), "uint8", "int16", 9, 3),
]


@pytest.mark.parametrize("issue", [3, 9, 11, 17, 19, 25, 51, 89, 91, 137, 219, 259, 265, 393, 521, 777])
@pytest.mark.parametrize("base, sd, dd, so, do", CASES)
def test_tiles_box_issue_on_the_gpu(base, sd, dd, so, do, issue):
    import math

    import torch
    from helpers.canonical_copies import key_strategy

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import Operand, plan_copy
    from tilec.copy_routes import forced_routes

    n = math.prod(base)
    gen = torch.Generator(device="cuda").manual_seed(sum(base) + so + issue)
    st, dt = getattr(torch, sd), getattr(torch, dd)
    if st.is_floating_point:
        flat = (torch.randn(so + n + 16, generator=gen, device="cuda") * 30).to(st)
    else:
        flat = torch.randint(0, 250, (so + n + 16,), generator=gen, device="cuda", dtype=torch.int16).to(st)
    src = flat[so : so + n].reshape(base).permute(1, 0)
    shape = tuple(src.shape)
    dbase = torch.full((do + n + 16,), 77, dtype=dt, device="cuda")
    want = dbase.clone()
    want[do : do + n].view(shape).copy_(src)
    dst = dbase[do : do + n].view(shape)
    with forced_routes(tiles_issue=issue):
        plan = plan_copy(Operand(dst.data_ptr(), dd, shape, tuple(dst.stride())),
                         Operand(src.data_ptr(), sd, shape, tuple(src.stride())))
        assert key_strategy(plan.key) == "box<tiles>"
        tensor_copy.copy_(dst, src, kernels=CopyKernels(disk=False))
    torch.cuda.synchronize()
    bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[dbase.element_size()]
    assert torch.equal(dbase.view(bits), want.view(bits)), f"{base} {sd}->{dd} issue {issue}"


@pytest.mark.parametrize("blocks", [3])
@pytest.mark.parametrize("base, sd, dd, so, do", [((2003, 1501), "uint8", "int16", 9, 3),
                                                  ((1999, 2011), "uint8", "float16", 5, 1),
                                                  ((2003, 1501), "bool", "int16", 0, 0)])
def test_converting_tiles_box_blocks_on_the_gpu(base, sd, dd, so, do, blocks):
    """A converting `box<tiles>` launched for `blocks` blocks a multiprocessor (the copy route
    `tiles_blocks`, `tile{tiles_blocks=N}`: its `__launch_bounds__`, ptxas's registers; p1b50)
    writes what PyTorch writes, nothing around the view."""
    import math

    import torch
    from helpers.canonical_copies import key_strategy

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import Operand, plan_copy
    from tilec.copy_routes import forced_routes

    n = math.prod(base)
    gen = torch.Generator(device="cuda").manual_seed(sum(base) + so + blocks)
    st, dt = getattr(torch, sd), getattr(torch, dd)
    flat = torch.randint(0, 2 if st == torch.bool else 250, (so + n + 16,), generator=gen, device="cuda",
                         dtype=torch.int16).to(st)
    src = flat[so : so + n].reshape(base).permute(1, 0)
    shape = tuple(src.shape)
    dbase = torch.full((do + n + 16,), 77, dtype=dt, device="cuda")
    want = dbase.clone()
    want[do : do + n].view(shape).copy_(src)
    dst = dbase[do : do + n].view(shape)
    with forced_routes(tiles_blocks=blocks):
        plan = plan_copy(Operand(dst.data_ptr(), dd, shape, tuple(dst.stride())),
                         Operand(src.data_ptr(), sd, shape, tuple(src.stride())))
        assert key_strategy(plan.key) == "box<tiles>"
        tensor_copy.copy_(dst, src, kernels=CopyKernels(disk=False))
    torch.cuda.synchronize()
    bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[dbase.element_size()]
    assert torch.equal(dbase.view(bits), want.view(bits)), f"{base} {sd}->{dd} blocks {blocks}"
