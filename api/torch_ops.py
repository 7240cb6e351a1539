"""tilec's copies and compiled kernels as PyTorch custom operators (`torch.library`), so
that `torch.compile` puts them into its graphs instead of breaking the graph around them.

    import torch, tilec               # torch first: `import tilec` registers the operators
    @torch.compile                    #   (else the first tilec.copy_ call, or `import tilec.torch_ops`)
    def f(x, y):
        tilec.copy_(y, x.t())         # torch.ops.tilec.copy_ in the graph
        return tilec.permute(x, (1, 0)) * 2

    op = tilec.torch_ops.kernel_op(tilec.compile(program), "transpose", mutates=("dst",))
    op(src, dst)                      # eager or compiled: torch.ops.tilec.transpose

The operators:

- `tilec::copy_(Tensor(a!) dst, Tensor src) -> ()`: `tilec.copy_` (the Python function
  returns dst, as `Tensor.copy_` does; an operator may not return an input);
- `tilec::contiguous(Tensor x) -> Tensor` and `tilec::permute(Tensor x, int[] dims) ->
  Tensor`: new C-contiguous tensors, never aliases of x.

Each runs tilec's eager implementation (`tilec.tensor_copy`), so it takes what that
takes: CUDA tensors (a CPU tensor is a TilecError, in compiled code as in eager code).
Their fake implementations give the result's shape, dtype and device for tracing, so
a compiled graph traces them on fake or meta tensors without a GPU.

`tilec.copy_`, `tilec.contiguous` and `tilec.permute` call the operators while
`torch.compile` traces them (`torch.compiler.is_compiling()`) and run directly
otherwise: an eager call costs one test more.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

import torch

from tilec.support.diagnostics import TilecError

from . import tensor_copy

_NAMESPACE = "tilec"


tracing = torch.compiler.is_compiling
"""True while `torch.compile` traces the caller (Dynamo folds it to a constant); the
function itself, no frame around it: tilec.copy_'s eager calls ask it every time."""


@torch.library.custom_op("tilec::copy_", mutates_args=("dst",))
def _copy_op(dst: torch.Tensor, src: torch.Tensor) -> None:
    tensor_copy.copy_(dst, src)


@_copy_op.register_fake
def _(dst: torch.Tensor, src: torch.Tensor) -> None:
    return None


@torch.library.custom_op("tilec::contiguous", mutates_args=())
def _contiguous_op(x: torch.Tensor) -> torch.Tensor:
    return tensor_copy.contiguous(x)


@_contiguous_op.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return x.new_empty(x.shape)


@torch.library.custom_op("tilec::permute", mutates_args=())
def _permute_op(x: torch.Tensor, dims: Sequence[int]) -> torch.Tensor:
    return tensor_copy.permute(x, dims)


@_permute_op.register_fake
def _(x: torch.Tensor, dims: Sequence[int]) -> torch.Tensor:
    rank = x.dim()
    return x.new_empty([x.shape[d + rank if d < 0 else d] for d in dims])


def copy_(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """`tilec.copy_` through its operator; returns dst."""
    torch.ops.tilec.copy_(dst, src)
    return dst


def contiguous(x: torch.Tensor) -> torch.Tensor:
    """`tilec.contiguous` through its operator."""
    return torch.ops.tilec.contiguous(x)


def permute(x: torch.Tensor, dims: Sequence[int]) -> torch.Tensor:
    """`tilec.permute` through its operator."""
    return torch.ops.tilec.permute(x, [int(d) for d in dims])


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def kernel_op(kernel: Any, name: str, *, mutates: Sequence[str] | None = None) -> Any:
    """Register the compiled kernel `kernel` (`tilec.compile(...)`) as the operator
    `tilec::NAME` and return it (also reachable as `torch.ops.tilec.NAME`).

    The operator takes the kernel's arguments in order: a `Tensor` for each buffer,
    an `int` for each index or integer scalar, and returns nothing; it launches the
    kernel on PyTorch's current stream. `mutates` names the buffers the kernel writes
    (by the names of the IR function's arguments, `kernel.arg_names`); by default every
    buffer, which is always correct but makes `torch.compile` treat inputs as written
    too. A buffer that is written but not named gives wrong results under
    `torch.compile`, as for any custom operator. NAME is a Python identifier not
    registered before in this process. TilecError for a bad name or an unknown buffer."""
    if not _NAME.fullmatch(name):
        raise TilecError(f"kernel_op: '{name}' is not a valid operator name (a Python identifier)")
    if hasattr(torch.ops.tilec, name):
        raise TilecError(f"kernel_op: the operator tilec::{name} is registered already")
    buffers = [n for n, spec in zip(kernel.arg_names, kernel.arg_specs) if spec is not None]
    written = list(buffers if mutates is None else mutates)
    for n in written:
        if n not in buffers:
            raise TilecError(f"kernel_op: '{n}' is not a buffer argument of '{kernel.name}' "
                             f"(its buffers: {', '.join(buffers)})")
    params = []
    for i, (n, spec) in enumerate(zip(kernel.arg_names, kernel.arg_specs)):
        arg = f"a{i}"
        params.append(f"Tensor({arg}!) {arg}" if n in written else f"Tensor {arg}" if spec is not None else f"int {arg}")
    schema = f"({', '.join(params)}) -> ()"
    mutated = [f"a{i}" for i, n in enumerate(kernel.arg_names) if n in written]

    def run(*args: Any) -> None:
        kernel(*args, stream=torch.cuda.current_stream())

    def fake(*args: Any) -> None:
        return None

    op = torch.library.custom_op(f"{_NAMESPACE}::{name}", run, mutates_args=mutated, schema=schema)
    op.register_fake(fake)
    return getattr(torch.ops.tilec, name)


# Inside torch.compile, the public functions call the operators (tensor_copy checks
# `_torch_ops`), and `tilec.copy_` is the implementation itself from now on.
tensor_copy._torch_ops = sys.modules[__name__]
for _name in ("copy_", "contiguous", "permute"):
    setattr(sys.modules["tilec"], _name, getattr(tensor_copy, _name))
