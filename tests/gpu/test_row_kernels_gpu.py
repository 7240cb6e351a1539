"""On a GPU: the row kernels a user writes (examples/python/row_kernels.py, layouts left
to `pack-rows` and `coalesce`) against PyTorch at the row lengths users have (768, 1000,
1001, 3072, 50257; 100 for short rows packed several per block), one compile per
(kernel, dtype, N) serving several row counts M."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tilec

pytestmark = pytest.mark.gpu

sys.path.insert(0, str(Path(__file__).parents[2] / "examples" / "python"))
import row_kernels as rk  # noqa: E402

torch = pytest.importorskip("torch")

DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}
TOL = {"f32": 1e-5, "f16": 2e-3, "bf16": 1.6e-2}


def _torch_ref(name, x, w, b):
    xf = x.float()
    if name == "softmax":
        return torch.softmax(xf, dim=1)
    if name == "layer_norm":
        return torch.nn.functional.layer_norm(xf, (x.shape[1],), w.float(), b.float(), 1e-5)
    if name == "rms_norm":
        return xf * torch.rsqrt((xf * xf).mean(dim=1, keepdim=True) + 1e-6) * w.float()
    return torch.cumsum(x, dim=1).float()


@pytest.mark.parametrize("n", [100, 768, 1000, 1001, 3072, 50257])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", list(rk.KERNELS))
def test_row_kernel_matches_torch(name, dtype, n):
    if name != "softmax" and n > rk.ONLINE_ABOVE:
        pytest.skip("only softmax has a chunked form for rows longer than registers hold")
    if name == "cumsum" and dtype != "f32":
        pytest.skip("cumsum in a half type rounds every partial sum: compared in f32 only")
    kernel = tilec.compile(rk.KERNELS[name](n, dtype))
    td = getattr(torch, DTYPES[dtype])
    for m in (1, 7, 300):  # one compile, every M
        g = torch.Generator(device="cuda").manual_seed(m * 31 + n)
        x = (torch.randn(m, n, device="cuda", generator=g) * 3).to(td)
        w = torch.randn(n, device="cuda", generator=g).to(td)
        b = torch.randn(n, device="cuda", generator=g).to(td)
        y = torch.full_like(x, float("nan"))
        args = [x, y] + ([w, b] if name == "layer_norm" else [w] if name == "rms_norm" else []) + [m]
        kernel(*args)
        torch.cuda.synchronize()
        want = _torch_ref(name, x, w, b)
        err = (y.float() - want).abs().max().item()
        scale = want.abs().max().item()
        tol = TOL[dtype] * (8 if name == "cumsum" else 1)
        assert err <= tol * scale, (name, dtype, n, m, err, scale)
