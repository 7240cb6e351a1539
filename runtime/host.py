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
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

from tilec.compiler.diagnostics import TilecError


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

    def run(op: Operation, a: int, b: int) -> int:
        bits = _width(op.results[0].type)
        if divides:
            _check_divisor(op, b)
        if bits == 1:
            return fn(a & 1, b & 1, bits) & 1
        return _signed(fn(a, b, bits), bits)

    return run


_BINARY: dict[type[Operation], Callable[[Operation, int, int], int]] = {
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


def host_function(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    """The host `func.func` of a GPU-level module: the one named `name`, or the only
    one."""
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    if name is not None:
        funcs = [f for f in funcs if f.sym_name.data == name]
    if len(funcs) != 1:
        which = f"named '{name}'" if name else "(give its name)"
        raise TilecError(
            f"expected one host function {which} in the GPU-level module, "
            f"found {len(funcs)}"
        )
    return funcs[0]


def run_host(function: func.FuncOp, args: Sequence[Any]) -> list[Launch]:
    """Run the host function on `args` (any objects for memrefs, ints for integers)."""
    block = function.body.block
    if len(args) != len(block.args):
        raise TilecError(
            f"'{function.sym_name.data}' takes {len(block.args)} arguments, "
            f"got {len(args)}"
        )
    values: dict[SSAValue, Any] = {}
    for arg, value in zip(block.args, args):
        if isinstance(arg.type, IndexType | IntegerType):
            value = _signed(int(value), _width(arg.type))
        values[arg] = value
    launches: list[Launch] = []
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            break
        if isinstance(op, gpu.LaunchFuncOp):
            launches.append(_launch(op, values))
        elif len(op.results) != 1:
            raise TilecError(
                f"'{op.name}' is not supported in a host function (expected arith on "
                "index values, gpu.launch_func and func.return)",
                op=op,
            )
        else:
            values[op.results[0]] = _evaluate(op, values)
    return launches


def _evaluate(op: Operation, values: dict[SSAValue, Any]) -> int:
    operands = [values[v] for v in op.operands]
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return _signed(op.value.value.data, _width(op.result.type))
    if type(op) in _BINARY:
        return _BINARY[type(op)](op, *operands)
    if isinstance(op, arith.CmpiOp):
        bits = _width(op.lhs.type)
        return int(_CMPI[op.predicate.value.data](*operands, bits))
    if isinstance(op, arith.SelectOp):
        cond, a, b = operands
        return a if cond else b
    if isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.TruncIOp):
        return _signed(operands[0], _width(op.results[0].type))
    if isinstance(op, arith.ExtUIOp):
        return _unsigned(operands[0], _width(op.operands[0].type))
    raise TilecError(
        f"'{op.name}' is not supported in a host function (expected arith on index "
        "values, gpu.launch_func and func.return)",
        op=op,
    )


def _launch(op: gpu.LaunchFuncOp, values: dict[SSAValue, Any]) -> Launch:
    def size(v: SSAValue) -> int:
        n = values[v]
        if not isinstance(n, int) or n < 1:
            raise TilecError(f"launch size must be a positive integer, got {n}", op=op)
        return n

    grid = (size(op.gridSizeX), size(op.gridSizeY), size(op.gridSizeZ))
    block = (size(op.blockSizeX), size(op.blockSizeY), size(op.blockSizeZ))
    shared = 0
    if op.dynamicSharedMemorySize is not None:
        shared = values[op.dynamicSharedMemorySize]
    path = op.kernel
    return Launch(
        kernel=path.nested_references.data[-1].data
        if path.nested_references.data
        else path.root_reference.data,
        module=path.root_reference.data,
        grid=grid,
        block=block,
        args=tuple(values[v] for v in op.kernelOperands),
        dynamic_shared_bytes=shared,
    )
