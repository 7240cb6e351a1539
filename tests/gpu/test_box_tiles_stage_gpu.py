"""On an H100/H200: `box<tiles>` copies of 2-, 4- and 8-byte elements and converting ones at
each phase-1 chunk size (`tiles_stage` 8 and 16, and the rule's: `_box_tile.tiles_phase2`)
through `tilec.copy_` on PyTorch tensors: odd transposes (f16, f32; f64 where the box is
asked, `tiles_bytes=8`), bool -> int16 (the strided set's 23 kind) and f16 -> bf16 over a
short source-contiguous mode (29's kind), the views at element offsets (every run residue),
the destination's buffer poisoned and compared with PyTorch's `copy_` bit for bit (nothing
around the view written)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.torch]

CASES = [
    # (source base shape, permutation, source dtype, destination dtype, source offset, destination offset, routes)
    ((1031, 517), (1, 0), "float32", "float32", 3, 1, {}),
    ((1031, 517), (1, 0), "float16", "float16", 5, 7, {}),
    ((777, 1301), (1, 0), "bool", "int16", 9, 3, {}),  # 23's kind
    ((69, 18, 13, 42), (3, 2, 0, 1), "float16", "bfloat16", 3, 5, {}),  # 29's kind: W of 42
    ((1031, 517), (1, 0), "float64", "float64", 1, 1, {"tiles_bytes": 8}),
]


@pytest.mark.parametrize("stage", [None, 8, 16])
@pytest.mark.parametrize("base, perm, sd, dd, so, do, extra", CASES)
def test_tiles_box_stages_on_the_gpu(base, perm, sd, dd, so, do, extra, stage):
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
    if sd == "bool":
        flat = torch.rand(so + n + 16, generator=gen, device="cuda") > 0.5
    elif st.is_floating_point:
        flat = (torch.randn(so + n + 16, generator=gen, device="cuda") * 30).to(st)
    else:
        flat = torch.randint(-30000, 30000, (so + n + 16,), generator=gen, device="cuda", dtype=st)
    src = flat[so : so + n].reshape(base).permute(perm)
    shape = tuple(src.shape)
    dbase = torch.full((do + n + 16,), 77, dtype=dt, device="cuda")
    want = dbase.clone()
    want[do : do + n].view(shape).copy_(src)
    dst = dbase[do : do + n].view(shape)
    with forced_routes(tiles_stage=stage, **extra):
        plan = plan_copy(Operand(dst.data_ptr(), dd, shape, tuple(dst.stride())),
                         Operand(src.data_ptr(), sd, shape, tuple(src.stride())))
        assert key_strategy(plan.key) == "box<tiles>"
        tensor_copy.copy_(dst, src, kernels=CopyKernels(disk=False))
    torch.cuda.synchronize()
    bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[dbase.element_size()]
    assert torch.equal(dbase.view(bits), want.view(bits)), f"{base} {perm} {sd}->{dd} stage {stage}"
