"""The gather strategy's fill form (passes/_fill_tile.py) as `tilec.copy_` reaches it
under the route `gather_fill` on the GPU: bit for bit against PyTorch's `copy_`, the
destination and the bytes around it poisoned first: broadcasts along the outermost mode
into compact destinations of every element size, periods shorter and longer than a
vector, element counts with and without a partial last vector, a converting copy, and
the strided set's short-period broadcasts (32, 44, 14) made small.

    python -m pytest -m "gpu or torch" tests/gpu/test_copy_fill_gpu.py
"""

from __future__ import annotations

import pytest
from helpers.torch_gpu import torch_cuda

pytestmark = [pytest.mark.gpu, pytest.mark.torch]

CASES = [
    # (src dtype, dst dtype, src shape, dst shape)
    ("bfloat16", "bfloat16", (1, 175, 1), (263, 175, 3)),  # 32's pattern: each element 3 times
    ("uint8", "uint8", (1, 3), (26731, 3)),  # 44's: rows of 3 bytes
    ("bool", "bool", (1, 19), (30343, 19)),  # 14's
    ("int16", "int16", (1, 37, 1120), (45, 37, 1120)),  # 02's: whole vectors
    ("float32", "float32", (1, 4, 1, 5), (301, 4, 7, 5)),  # a broadcast inner mode too
    ("int64", "int64", (1, 7), (1001, 7)),
    ("int32", "float32", (1, 9, 1), (77, 9, 5)),  # converting
]


@pytest.mark.parametrize("sdt,ddt,sshape,dshape", CASES)
@pytest.mark.parametrize("per_sm", [2048, 64])
def test_fill_form_matches_torch(sdt, ddt, sshape, dshape, per_sm):
    torch = torch_cuda()
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes
    from tilec.tensor_copy import copy_

    gen = torch.Generator(device="cuda").manual_seed(7)
    st = getattr(torch, sdt)
    if sdt == "bool":
        src = torch.rand(sshape, generator=gen, device="cuda") > 0.5
    elif st.is_floating_point:
        src = (torch.randn(sshape, generator=gen, device="cuda") * 100).to(st)
    else:
        info = torch.iinfo(st)
        src = torch.randint(max(info.min, -(1 << 20)), min(info.max, 1 << 20), sshape, generator=gen,
                            device="cuda", dtype=st)
    n = 1
    for d in dshape:
        n *= d
    dt = getattr(torch, ddt)
    size = torch.empty(0, dtype=dt).element_size()
    base = torch.empty(n + 64 // size, dtype=dt, device="cuda")
    dst = base[16 // size:16 // size + n].view(dshape)  # 16-byte aligned, poisoned bytes around it
    base.view(torch.uint8).fill_(0x4D)
    want = base.clone()
    want[16 // size:16 // size + n].view(dshape).copy_(src.expand(dshape))
    with forced_routes(gather_fill=per_sm):
        copy_(dst, src.expand(dshape), kernels=CopyKernels(disk=False))
    torch.cuda.synchronize()
    bits = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    got, exp = (base.view(torch.uint8), want.view(torch.uint8)) if ddt == "bool" else (base.view(bits), want.view(bits))
    assert torch.equal(got, exp)
