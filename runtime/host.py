"""Runs a GPU-level host function: `arith` on index values, `gpu.launch_func`,
`func.return` (docs/gpu-level.md). The result is the list of launches, each with its
grid, block and kernel arguments computed from the actual arguments; buffers pass
through untouched (whatever object the caller bound to a memref argument).

    launches = run_host(host_func, [src, dst, 1000])
    launches[0].grid, launches[0].block, launches[0].args
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import arith, func, gpu
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue

from tilec.dialects import cuda_tma
from tilec.support.diagnostics import TilecError

from .tensor_map import TensorMapRequest


@dataclass(frozen=True)
class Launch:
    """One `gpu.launch_func` as run: kernel name, sizes and argument values."""

    kernel: str
    """The kernel's symbol name (`@mod::@name` -> `name`)."""
    module: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple[Any, ...]
    dynamic_shared_bytes: int = 0


def _width(t: Attribute) -> int:
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        return t.width.data
    raise TypeError(f"not an integer type: {t}")


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if bits > 1 and value >> (bits - 1) else value


def _unsigned(value: int, bits: int) -> int:
    return value & ((1 << bits) - 1)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _check_divisor(op: Operation, b: int) -> None:
    if b == 0:
        raise TilecError("division by zero in the host function", op=op)


def _binary(fn: Callable[[int, int, int], int], divides: bool = False):
    """An arith op on two signless integers of `bits` bits (values kept signed)."""

    def run(op: Operation, a: int, b: int, bits: int) -> int:
        if divides:
            _check_divisor(op, b)
        if bits == 1:
            return fn(a & 1, b & 1, bits) & 1
        return _signed(fn(a, b, bits), bits)

    return run


_BINARY: dict[type[Operation], Callable[[Operation, int, int, int], int]] = {
    arith.AddiOp: _binary(lambda a, b, n: a + b),
    arith.SubiOp: _binary(lambda a, b, n: a - b),
    arith.MuliOp: _binary(lambda a, b, n: a * b),
    arith.DivSIOp: _binary(lambda a, b, n: _trunc_div(a, b), divides=True),
    arith.DivUIOp: _binary(
        lambda a, b, n: _unsigned(a, n) // _unsigned(b, n), divides=True
    ),
    arith.RemSIOp: _binary(lambda a, b, n: a - b * _trunc_div(a, b), divides=True),
    arith.RemUIOp: _binary(
        lambda a, b, n: _unsigned(a, n) % _unsigned(b, n), divides=True
    ),
    arith.FloorDivSIOp: _binary(lambda a, b, n: a // b, divides=True),
    arith.CeilDivSIOp: _binary(lambda a, b, n: -((-a) // b), divides=True),
    arith.CeilDivUIOp: _binary(
        lambda a, b, n: -((-_unsigned(a, n)) // _unsigned(b, n)), divides=True
    ),
    arith.MinSIOp: _binary(lambda a, b, n: min(a, b)),
    arith.MaxSIOp: _binary(lambda a, b, n: max(a, b)),
    arith.MinUIOp: _binary(
        lambda a, b, n: a if _unsigned(a, n) <= _unsigned(b, n) else b
    ),
    arith.MaxUIOp: _binary(
        lambda a, b, n: a if _unsigned(a, n) >= _unsigned(b, n) else b
    ),
    arith.AndIOp: _binary(lambda a, b, n: a & b),
    arith.OrIOp: _binary(lambda a, b, n: a | b),
    arith.XOrIOp: _binary(lambda a, b, n: a ^ b),
    arith.ShLIOp: _binary(lambda a, b, n: a << b if 0 <= b < n else 0),
    arith.ShRSIOp: _binary(lambda a, b, n: a >> min(b, n - 1) if b >= 0 else 0),
    arith.ShRUIOp: _binary(lambda a, b, n: _unsigned(a, n) >> b if 0 <= b < n else 0),
}

_CMPI: list[Callable[[int, int, int], bool]] = [
    lambda a, b, n: a == b,
    lambda a, b, n: a != b,
    lambda a, b, n: a < b,
    lambda a, b, n: a <= b,
    lambda a, b, n: a > b,
    lambda a, b, n: a >= b,
    lambda a, b, n: _unsigned(a, n) < _unsigned(b, n),
    lambda a, b, n: _unsigned(a, n) <= _unsigned(b, n),
    lambda a, b, n: _unsigned(a, n) > _unsigned(b, n),
    lambda a, b, n: _unsigned(a, n) >= _unsigned(b, n),
]


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
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                break
            self.steps.append(self._step(op))

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
            value = _signed(op.value.value.data, _width(op.result.type))

            def constant(v: list[Any], _: list[Launch]) -> None:
                v[out] = value

            return constant
        compute = _compute(op)

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

        def launch(v: list[Any], launches: list[Launch]) -> None:
            dims = [v[i] for i in sizes]
            for n in dims:
                if not isinstance(n, int) or n < 1:
                    raise TilecError(
                        f"launch size must be a positive integer, got {n}", op=op
                    )
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
            values[i] = _signed(int(value), width) if width is not None else value
        launches: list[Launch] = []
        for step in self.steps:
            step(values, launches)
        return launches


def _compute(op: Operation) -> Callable[..., Any]:
    """A function of the operand values that gives the result of `op`."""
    if isinstance(op, cuda_tma.TensorMapOp):
        return _tensor_map(op)
    if type(op) in _BINARY:
        bits = _width(op.results[0].type)
        fn = _BINARY[type(op)]
        return lambda a, b: fn(op, a, b, bits)
    if isinstance(op, arith.CmpiOp):
        bits = _width(op.lhs.type)
        predicate = _CMPI[op.predicate.value.data]
        return lambda a, b: int(predicate(a, b, bits))
    if isinstance(op, arith.SelectOp):
        return lambda c, a, b: a if c else b
    if isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.TruncIOp):
        bits = _width(op.results[0].type)
        return lambda a: _signed(a, bits)
    if isinstance(op, arith.ExtUIOp):
        bits = _width(op.operands[0].type)
        return lambda a: _unsigned(a, bits)
    raise TilecError(
        f"'{op.name}' is not supported in a host function (expected arith on index "
        "values, gpu.launch_func and func.return)",
        op=op,
    )


def _tensor_map(op: cuda_tma.TensorMapOp) -> Callable[..., TensorMapRequest]:
    """`cuda.tensor_map`: the request the launcher encodes (runtime/tensor_map.py)."""
    rank = len(op.box_sizes)
    box, swizzle = op.box_sizes, op.swizzle_bytes
    et = op.buffer.type.element_type
    eb = max(1, (et.width.data if isinstance(et, IntegerType) else et.bitwidth) // 8)

    def request(buffer: Any, *sizes: int) -> TensorMapRequest:
        return TensorMapRequest(buffer, tuple(sizes[:rank]), tuple(sizes[rank:]), box, swizzle, eb)

    return request


def run_host(function: func.FuncOp, args: Sequence[Any]) -> list[Launch]:
    """Run the host function on `args` (any objects for memrefs, ints for integers)."""
    return HostProgram(function).run(args)
