"""tilec's PyTorch operators on CUDA tensors inside torch.compile (default backend,
Inductor): one graph, results exactly PyTorch's; a compiled kernel wrapped by
`tilec.torch_ops.kernel_op` writes what the CPU reference executor writes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers.torch_gpu import torch_cuda

import tilec

pytestmark = [pytest.mark.gpu, pytest.mark.torch]
ROOT = Path(__file__).resolve().parents[2]


def _torch():
    torch = torch_cuda()
    import tilec.torch_ops  # noqa: F401 - registers the operators

    return torch


def test_copies_in_a_compiled_function_match_torch():
    torch = _torch()
    torch._dynamo.reset()

    def f(x, y):
        tilec.copy_(y, x.t())
        a = tilec.permute(x, (1, 0))
        b = tilec.contiguous(x[:, ::2])
        return a * 2 + y, b

    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(301, 517, generator=gen, device="cuda")
    y = torch.full((517, 301), float("nan"), device="cuda")
    explained = torch._dynamo.explain(f)(x, y.clone())
    assert explained.graph_break_count == 0
    out, b = torch.compile(f, fullgraph=True)(x, y)
    torch.cuda.synchronize()
    assert torch.equal(y, x.t())
    assert torch.equal(out, x.t() * 2 + x.t())
    assert torch.equal(b, x[:, ::2]) and b.is_contiguous()


def test_copy_converts_dtypes_inside_compile():
    torch = _torch()
    torch._dynamo.reset()

    def f(x, y):
        tilec.copy_(y, x.permute(2, 0, 1))
        return y.float().sum()

    x = torch.randn(8, 16, 4, device="cuda")
    y = torch.empty(4, 8, 16, dtype=torch.float16, device="cuda")
    total = torch.compile(f, fullgraph=True)(x, y)
    torch.cuda.synchronize()
    assert torch.equal(y, x.permute(2, 0, 1).to(torch.float16))
    assert torch.allclose(total, y.float().sum())


def test_a_compiled_kernel_as_an_operator_in_a_compiled_function():
    torch = _torch()
    from tilec import torch_ops

    torch._dynamo.reset()
    kernel = tilec.compile((ROOT / "examples" / "transpose.mlir").read_text())
    op = torch_ops.kernel_op(kernel, "gpu_test_transpose", mutates=("dst",))

    def f(src, dst):
        op(src, dst)
        return dst * 3

    src = torch.randn(1024, 1024, device="cuda")
    dst = torch.full((1024, 1024), float("nan"), device="cuda")
    assert torch._dynamo.explain(f)(src, dst.clone()).graph_break_count == 0
    out = torch.compile(f, fullgraph=True)(src, dst)
    torch.cuda.synchronize()
    want = tilec.run_reference(kernel, {"src": src.cpu().numpy(), "dst": np.zeros((1024, 1024), np.float32)})["dst"]
    assert np.array_equal(dst.cpu().numpy(), want)
    assert torch.equal(out, dst * 3)
