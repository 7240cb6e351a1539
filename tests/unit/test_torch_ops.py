"""tilec's PyTorch operators (tilec.torch_ops) traced by torch.compile without a GPU: the
graph of a function calling `tilec.copy_`, `tilec.permute`, `tilec.contiguous` and a
compiled kernel wrapped by `kernel_op` is one graph (fullgraph, no break) holding the
operators, and the fake implementations give the results' shapes. The GPU runs of the
same functions, checked against PyTorch, are in tests/gpu/test_torch_ops_gpu.py."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import tilec
from tilec import torch_ops
from tilec.support.diagnostics import TilecError

pytestmark = pytest.mark.torch
ROOT = Path(__file__).resolve().parents[2]


def _copies(x, y):
    tilec.copy_(y, x.t())
    a = tilec.permute(x, (1, 0))
    b = tilec.contiguous(x.t())
    return a * 2 + b


def _graph_ops(fn, *args) -> list[str]:
    """Compile `fn` in one graph (an error at a graph break) on `args` and return the
    call targets of its graph."""
    from torch._dynamo.testing import EagerAndRecordGraphs

    torch._dynamo.reset()
    backend = EagerAndRecordGraphs()
    out = torch.compile(fn, backend=backend, fullgraph=True)(*args)
    assert len(backend.graphs) == 1
    explained = torch._dynamo.explain(fn)(*args)
    assert explained.graph_break_count == 0 and explained.graph_count == 1
    targets = [str(n.target).removesuffix(".default") for n in backend.graphs[0].graph.nodes if n.op == "call_function"]
    return targets, out


def test_copies_are_operators_in_one_graph():
    x = torch.empty(4, 6, device="meta")
    y = torch.empty(6, 4, device="meta")
    targets, out = _graph_ops(_copies, x, y)
    assert {"tilec.copy_", "tilec.permute", "tilec.contiguous"} <= set(targets)
    assert out.shape == (6, 4) and out.device.type == "meta"


def test_fake_results_have_the_shapes_of_the_copies():
    x = torch.empty(2, 3, 5, dtype=torch.float16, device="meta")
    p = torch.ops.tilec.permute(x, [2, -3, 1])
    assert p.shape == (5, 2, 3) and p.dtype == torch.float16 and p.is_contiguous()
    c = torch.ops.tilec.contiguous(x.transpose(0, 2))
    assert c.shape == (5, 3, 2) and c.is_contiguous()


def test_the_operators_run_the_eager_implementation():
    """A CPU tensor is refused by the operator as by tilec.copy_ (CUDA tensors only)."""
    x = torch.zeros(3, 4)
    with pytest.raises(TilecError, match="CPU tensor"):
        torch.ops.tilec.copy_(x, x.t().contiguous().t())
    with pytest.raises(TilecError, match="CPU tensor"):
        tilec.copy_(x, x)


def test_a_compiled_kernel_as_an_operator():
    kernel = tilec.compile((ROOT / "examples" / "transpose.mlir").read_text())
    op = torch_ops.kernel_op(kernel, "test_transpose_meta", mutates=("dst",))
    assert op is torch.ops.tilec.test_transpose_meta
    schema = str(op.default._schema)
    assert "Tensor a0" in schema and "Tensor(a1!) a1" in schema

    def f(src, dst):
        op(src, dst)
        return dst + 1

    src = torch.empty(1024, 1024, device="meta")
    dst = torch.empty(1024, 1024, device="meta")
    targets, out = _graph_ops(f, src, dst)
    assert "tilec.test_transpose_meta" in targets
    assert out.shape == (1024, 1024)


def test_kernel_op_refuses_bad_names_and_unknown_buffers():
    kernel = tilec.compile((ROOT / "examples" / "transpose.mlir").read_text())
    with pytest.raises(TilecError, match="not a valid operator name"):
        torch_ops.kernel_op(kernel, "no-dashes")
    with pytest.raises(TilecError, match="'out' is not a buffer argument of 'transpose'"):
        torch_ops.kernel_op(kernel, "test_transpose_bad", mutates=("out",))
    torch_ops.kernel_op(kernel, "test_transpose_twice")
    with pytest.raises(TilecError, match="registered already"):
        torch_ops.kernel_op(kernel, "test_transpose_twice")
    # by default every buffer is declared written
    assert str(torch.ops.tilec.test_transpose_twice.default._schema).count("!") == 2
