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
from tilec.runtime.host_ops import BINARY, CMPI, Launch, check_launch_size, signed, unsigned
from tilec.support.diagnostics import TilecError

from .tensor_map import TensorMapRequest

__all__ = ["HostProgram", "Launch", "run_host"]


def _width(t: Attribute) -> int:
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        return t.width.data
    raise TypeError(f"not an integer type: {t}")


class HostProgram:
    """A host function made ready to run many times: each op becomes a step that
    reads and writes numbered slots, so running it costs no IR traversal."""

    def __init__(self, function: func.FuncOp):
        self.name = function.sym_name.data
        block = function.body.block
        self.slots: dict[SSAValue, int] = {}
        self.arg_widths: list[int | None] = []
        for arg in block.args:
            self._slot(arg)
            is_int = isinstance(arg.type, IndexType | IntegerType)
            self.arg_widths.append(_width(arg.type) if is_int else None)
        self.constants: list[tuple[int, int]] = []
        self.steps: list[Callable[[list[Any], list[Launch]], None]] = []
        self._recipe: list[list] | None = []
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                break
            self.steps.append(self._step(op))

    @property
    def recipe(self) -> dict | None:
        """This function as plain data for `host_ops.RecipeProgram` (JSON-able), or
        None when an op has no recipe step."""
        if self._recipe is None:
            return None
        return {"name": self.name, "arg_widths": self.arg_widths, "slots": len(self.slots),
                "steps": self._recipe}

    def _record(self, step: list | None) -> None:
        if step is None:
            self._recipe = None
        elif self._recipe is not None:
            self._recipe.append(step)

    def _slot(self, value: SSAValue) -> int:
        if value not in self.slots:
            self.slots[value] = len(self.slots)
        return self.slots[value]

    def _step(self, op: Operation) -> Callable[[list[Any], list[Launch]], None]:
        if isinstance(op, gpu.LaunchFuncOp):
            return self._launch_step(op)
        if len(op.results) != 1 or not all(v in self.slots for v in op.operands):
            raise TilecError(
                f"'{op.name}' is not supported in a host function (expected arith on "
                "index values, gpu.launch_func and func.return)",
                op=op,
            )
        ins = [self.slots[v] for v in op.operands]
        out = self._slot(op.results[0])
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            value = signed(op.value.value.data, _width(op.result.type))
            self._record(["const", out, value])

            def constant(v: list[Any], _: list[Launch]) -> None:
                v[out] = value

            return constant
        if isinstance(op, cuda_tma.TensorMapOp):
            self._record(None)  # a tensor map has no recipe step: the function has no recipe
            request = _tensor_map(op)

            def tensor_map(v: list[Any], _: list[Launch]) -> None:
                v[out] = request(*[v[i] for i in ins])

            return tensor_map
        compute, recipe = _compute(op)
        self._record(["select", out, *ins] if recipe[0] == "select" else [*recipe[:2], out, *ins, *recipe[2:]])

        def step(v: list[Any], _: list[Launch]) -> None:
            v[out] = compute(*[v[i] for i in ins])

        return step

    def _launch_step(self, op: gpu.LaunchFuncOp) -> Callable[[list[Any], list[Launch]], None]:
        slot = self.slots
        sizes = [
            slot[v]
            for v in (
                op.gridSizeX,
                op.gridSizeY,
                op.gridSizeZ,
                op.blockSizeX,
                op.blockSizeY,
                op.blockSizeZ,
            )
        ]
        shared = (
            slot[op.dynamicSharedMemorySize]
            if op.dynamicSharedMemorySize is not None
            else None
        )
        args = [slot[v] for v in op.kernelOperands]
        path = op.kernel
        refs = path.nested_references.data
        kernel = refs[-1].data if refs else path.root_reference.data
        module = path.root_reference.data

        self._record(["launch", kernel, module, sizes, shared, args])

        def launch(v: list[Any], launches: list[Launch]) -> None:
            dims = [v[i] for i in sizes]
            check_launch_size(dims, op)
            launches.append(
                Launch(
                    kernel=kernel,
                    module=module,
                    grid=(dims[0], dims[1], dims[2]),
                    block=(dims[3], dims[4], dims[5]),
                    args=tuple(v[i] for i in args),
                    dynamic_shared_bytes=v[shared] if shared is not None else 0,
                )
            )

        return launch

    def run(self, args: Sequence[Any]) -> list[Launch]:
        """The launches for `args` (any objects for memrefs, ints for integers)."""
        if len(args) != len(self.arg_widths):
            raise TilecError(
                f"'{self.name}' takes {len(self.arg_widths)} arguments, got {len(args)}"
            )
        values: list[Any] = [None] * len(self.slots)
        for i, (value, width) in enumerate(zip(args, self.arg_widths)):
            values[i] = signed(int(value), width) if width is not None else value
        launches: list[Launch] = []
        for step in self.steps:
            step(values, launches)
        return launches


def _compute(op: Operation) -> tuple[Callable[..., int], list | None]:
    """A function of the operand values that gives the result of `op`, and its
    recipe step without the slots (`host_ops.RecipeProgram`): `[kind, what, bits]`."""
    if op.name in BINARY and len(op.operands) == 2:
        bits = _width(op.results[0].type)
        fn = BINARY[op.name]
        return (lambda a, b: fn(op, a, b, bits)), ["bin", op.name, bits]
    if isinstance(op, arith.CmpiOp):
        bits = _width(op.lhs.type)
        pred = op.predicate.value.data
        predicate = CMPI[pred]
        return (lambda a, b: int(predicate(a, b, bits))), ["cmpi", pred, bits]
    if isinstance(op, arith.SelectOp):
        return (lambda c, a, b: a if c else b), ["select"]
    if isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.TruncIOp):
        bits = _width(op.results[0].type)
        return (lambda a: signed(a, bits)), ["cast", "signed", bits]
    if isinstance(op, arith.ExtUIOp):
        bits = _width(op.operands[0].type)
        return (lambda a: unsigned(a, bits)), ["cast", "unsigned", bits]
    raise TilecError(
        f"'{op.name}' is not supported in a host function (expected arith on index "
        "values, gpu.launch_func and func.return)",
        op=op,
    )


def _tensor_map(op: cuda_tma.TensorMapOp) -> Callable[..., TensorMapRequest]:
    """`cuda.tensor_map`: the request the launcher encodes (runtime/tensor_map.py)."""
    rank = len(op.box_sizes)
    box, swizzle, promotion = op.box_sizes, op.swizzle_bytes, op.l2_promotion_bytes
    et = op.buffer.type.element_type
    eb = max(1, (et.width.data if isinstance(et, IntegerType) else et.bitwidth) // 8)

    def request(buffer: Any, *sizes: int) -> TensorMapRequest:
        return TensorMapRequest(buffer, tuple(sizes[:rank]), tuple(sizes[rank:]), box, swizzle, eb, promotion)

    return request


def run_host(function: func.FuncOp, args: Sequence[Any]) -> list[Launch]:
    """Run the host function on `args` (any objects for memrefs, ints for integers)."""
    return HostProgram(function).run(args)
