"""Runs a GPU-level host function: `arith` on index values, `cuda.tensor_map` (a
`TensorMapRequest` the launcher encodes), `gpu.launch_func`, `func.return`
(docs/gpu-level.md). The result is the list of launches, each with its
grid, block and kernel arguments computed from the actual arguments; buffers pass
through untouched (whatever object the caller bound to a memref argument).

    launches = run_host(host_func, [src, dst, 1000])
    launches[0].grid, launches[0].block, launches[0].args
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects import arith, func, gpu
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue

from tilec.dialects import cuda_tma
from tilec.runtime.host_ops import BINARY, Launch, Step, StepProgram, recipe_step, signed
from tilec.support.diagnostics import TilecError

from .tensor_map import TensorMapRequest

__all__ = ["HostProgram", "Launch", "run_host"]


def _width(t: Attribute) -> int:
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        return t.width.data
    raise TypeError(f"not an integer type: {t}")


class HostProgram(StepProgram):
    """A host function made ready to run many times: each op becomes a step that
    reads and writes numbered slots, so running it costs no IR traversal. Each step is
    a recipe step (`host_ops.recipe_step`), but for `cuda.tensor_map`, which has none."""

    def __init__(self, function: func.FuncOp):
        self.name = function.sym_name.data
        block = function.body.block
        self.slots: dict[SSAValue, int] = {}
        self.arg_widths = []
        for arg in block.args:
            self._slot(arg)
            is_int = isinstance(arg.type, IndexType | IntegerType)
            self.arg_widths.append(_width(arg.type) if is_int else None)
        self.steps = []
        self._recipe: list[list] | None = []
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                break
            self.steps.append(self._step(op))
        self.slot_count = len(self.slots)

    @property
    def recipe(self) -> dict | None:
        """This function as plain data for `host_ops.RecipeProgram` (JSON-able), or
        None when an op has no recipe step."""
        if self._recipe is None:
            return None
        return {"name": self.name, "arg_widths": self.arg_widths, "slots": len(self.slots),
                "steps": self._recipe}

    def _slot(self, value: SSAValue) -> int:
        if value not in self.slots:
            self.slots[value] = len(self.slots)
        return self.slots[value]

    def _step(self, op: Operation) -> Step:
        if isinstance(op, gpu.LaunchFuncOp):
            step = self._launch_recipe(op)
        elif len(op.results) != 1 or not all(v in self.slots for v in op.operands):
            raise _unsupported(op)
        elif isinstance(op, cuda_tma.TensorMapOp):
            self._recipe = None  # a tensor map has no recipe step: the function has no recipe
            ins = [self.slots[v] for v in op.operands]
            out = self._slot(op.results[0])
            request = _tensor_map(op)

            def tensor_map(v: list[Any], _: list[Launch]) -> None:
                v[out] = request(*[v[i] for i in ins])

            return tensor_map
        else:
            ins = [self.slots[v] for v in op.operands]
            step = _recipe_of(op, ins, self._slot(op.results[0]))
        if self._recipe is not None:
            self._recipe.append(step)
        return recipe_step(step, op)

    def _launch_recipe(self, op: gpu.LaunchFuncOp) -> list:
        slot = self.slots
        sizes = [
            slot[v]
            for v in (op.gridSizeX, op.gridSizeY, op.gridSizeZ, op.blockSizeX, op.blockSizeY, op.blockSizeZ)
        ]
        shared = slot[op.dynamicSharedMemorySize] if op.dynamicSharedMemorySize is not None else None
        args = [slot[v] for v in op.kernelOperands]
        path = op.kernel
        refs = path.nested_references.data
        kernel = refs[-1].data if refs else path.root_reference.data
        return ["launch", kernel, path.root_reference.data, sizes, shared, args]


def _unsupported(op: Operation) -> TilecError:
    return TilecError(
        f"'{op.name}' is not supported in a host function (expected arith on index "
        "values, gpu.launch_func and func.return)",
        op=op,
    )


def _recipe_of(op: Operation, ins: list[int], out: int) -> list:
    """The recipe step (`host_ops.RecipeProgram`) of an arith op reading slots `ins`
    and writing slot `out`."""
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return ["const", out, signed(op.value.value.data, _width(op.result.type))]
    if op.name in BINARY and len(op.operands) == 2:
        return ["bin", op.name, out, *ins, _width(op.results[0].type)]
    if isinstance(op, arith.CmpiOp):
        return ["cmpi", op.predicate.value.data, out, *ins, _width(op.lhs.type)]
    if isinstance(op, arith.SelectOp):
        return ["select", out, *ins]
    if isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.TruncIOp):
        return ["cast", "signed", out, *ins, _width(op.results[0].type)]
    if isinstance(op, arith.ExtUIOp):
        return ["cast", "unsigned", out, *ins, _width(op.operands[0].type)]
    raise _unsupported(op)


def _tensor_map(op: cuda_tma.TensorMapOp) -> Callable[..., TensorMapRequest]:
    """`cuda.tensor_map`: the request the launcher encodes (runtime/tensor_map.py); with
    `clip`, the box cut to the tensor (`op.box_of`)."""
    rank = len(op.box_sizes)
    swizzle, promotion = op.swizzle_bytes, op.l2_promotion_bytes
    et = op.buffer.type.element_type
    eb = max(1, (et.width.data if isinstance(et, IntegerType) else et.bitwidth) // 8)

    def request(buffer: Any, *sizes: int) -> TensorMapRequest:
        dims = tuple(sizes[:rank])
        return TensorMapRequest(buffer, dims, tuple(sizes[rank:]), op.box_of(dims), swizzle, eb, promotion)

    return request


def run_host(function: func.FuncOp, args: Sequence[Any]) -> list[Launch]:
    """Run the host function on `args` (any objects for memrefs, ints for integers)."""
    return HostProgram(function).run(args)
