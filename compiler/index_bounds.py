"""The run-time index arguments for which every index value a kernel computes fits in 32 bits.

A kernel whose buffers have run-time sizes computes its indices in 64 bits
(support/index_width.py): a row kernel over `m` rows of 768 has offsets up to `m * 768`.
For the `m` of most calls they fit in 32 bits, and a 32-bit kernel does the same work with
fewer instructions (the row base is one multiply, not a wide multiply and carries; a
compare is one instruction). So `tilec.compile` builds the kernel twice, as Triton checks
on the host whether its pointer offsets need 64 bits, and each call runs the 32-bit one
where its index arguments are within the limit this module finds (api/compiling.py,
`IndexWidthKernel`).

`index_limit(module)` is that limit for a GPU-level module lowered under the promise
`tilec.index_bits = 32`: the largest M = 2^k - 1 (k <= 31) such that, with every index
argument of the host function in [0, M], an interval analysis bounds every index value of
its kernels (their parameters, block and thread ids, the arithmetic on them, loop
induction variables) within [-2^31, 2^31). The analysis is sound and gives up (the limit
is 0) on what it does not know: an index value loaded from memory, carried by a loop, or
made by an op it does not model. Intervals only grow with their inputs, so the check at
[0, M] holds for every argument in it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import arith, func, gpu, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue

INDEX32 = (-(2**31), 2**31 - 1)
"""The values a 32-bit index holds."""
MAX_BITS = 31
"""The limit is at most 2^31 - 1 (an argument passed as a 32-bit integer)."""

Interval = tuple[int, int]


@dataclass
class _Env:
    """The intervals known so far, and in a kernel its launch's grid and block extents."""

    values: dict[SSAValue, Interval] = field(default_factory=dict)
    grid: list[Interval] | None = None
    block: list[Interval] | None = None


class _Unknown(Exception):
    """An index value the analysis cannot bound: the kernel keeps 64-bit indices."""


def index_limit(module: ModuleOp, function: str | None = None) -> int:
    """The largest M = 2^k - 1 (0 <= k <= 31) for which the index arguments of the host
    function in [0, M] keep every index value of its kernels in 32 bits; 0 where not even
    M = 0 does (or the analysis cannot tell)."""
    host = _host(module, function)
    if host is None:
        return 0
    kernels = {(m.sym_name.data, f.sym_name.data): f for m in module.walk() if isinstance(m, gpu.ModuleOp)
               for f in m.body.block.ops if isinstance(f, gpu.FuncOp)}
    lo, hi = -1, MAX_BITS  # fits(2^lo - 1) is known (lo = -1: nothing), find the largest k
    while lo < hi:
        k = (lo + hi + 1) // 2
        if _fits(host, kernels, (1 << k) - 1):
            lo = k
        else:
            hi = k - 1
    return (1 << lo) - 1 if lo >= 0 else 0


def _host(module: ModuleOp, name: str | None) -> func.FuncOp | None:
    fs = [op for op in module.walk() if isinstance(op, func.FuncOp) and not op.is_declaration
          and (name is None or op.sym_name.data == name)]
    return fs[0] if len(fs) == 1 else None


def _fits(host: func.FuncOp, kernels: dict, m: int) -> bool:
    env = _Env()
    for a in host.body.block.args:
        if isinstance(a.type, IndexType):
            env.values[a] = (0, m)
        elif isinstance(a.type, IntegerType):
            env.values[a] = _type_range(a.type)
    try:
        for op in host.body.block.ops:
            if isinstance(op, gpu.LaunchFuncOp):
                _kernel(op, kernels, env)
            elif op.results and not isinstance(op, func.ReturnOp):
                _eval(op, env, check=False)
    except _Unknown:
        return False
    return True


def _kernel(launch: gpu.LaunchFuncOp, kernels: dict, host: _Env) -> None:
    ref = launch.kernel
    kernel = kernels.get((ref.root_reference.data, ref.nested_references.data[0].data))
    if kernel is None:
        raise _Unknown()

    def of(v: SSAValue) -> Interval:
        if v not in host.values:
            raise _Unknown()
        return host.values[v]

    env = _Env(grid=[of(v) for v in (launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ)],
               block=[of(v) for v in (launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ)])
    for a, v in zip(kernel.body.block.args, launch.kernelOperands, strict=True):
        if isinstance(a.type, IndexType | IntegerType):
            env.values[a] = of(v)
            _check(a, env.values[a])
    _block(kernel.body.block, env)


def _block(block: Block, env: _Env) -> None:
    for op in block.ops:
        if isinstance(op, scf.ForOp):
            _for(op, env)
        elif isinstance(op, scf.IfOp):
            _if(op, env)
        elif op.regions:
            if any(isinstance(r.type, IndexType) for r in op.results) or any(
                    isinstance(a.type, IndexType) for reg in op.regions for b in reg.blocks for a in b.args):
                raise _Unknown()  # an scf.while carrying indices, ...
            for reg in op.regions:
                for b in reg.blocks:
                    _block(b, env)
        elif op.results:
            _eval(op, env, check=True)


def _for(op: scf.ForOp, env: _Env) -> None:
    lb, ub, step = _get(env, op.lb), _get(env, op.ub), _get(env, op.step)
    if step[0] < 1:
        raise _Unknown()
    iv = op.body.block.args[0]
    env.values[iv] = (lb[0], max(lb[0], ub[1] - 1))
    _check(iv, env.values[iv])
    for a in op.body.block.args[1:]:
        if isinstance(a.type, IndexType):
            raise _Unknown()  # a carried index: no fixpoint here
    _block(op.body.block, env)
    for r in op.results:
        if isinstance(r.type, IndexType):
            raise _Unknown()


def _if(op: scf.IfOp, env: _Env) -> None:
    for reg in (op.true_region, op.false_region):
        for b in reg.blocks:
            _block(b, env)
    for i, r in enumerate(op.results):
        if isinstance(r.type, IndexType | IntegerType) and not _is_i1(r.type):
            got = [_get(env, b.last_op.operands[i]) for reg in (op.true_region, op.false_region)
                   for b in reg.blocks if b.last_op is not None]
            if len(got) != 2:
                raise _Unknown()
            env.values[r] = (min(g[0] for g in got), max(g[1] for g in got))
            _check(r, env.values[r])


def _is_i1(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def _type_range(t: Attribute) -> Interval:
    if isinstance(t, IntegerType):
        w = t.width.data
        return (-(1 << (w - 1)), (1 << w) - 1)  # signless: either reading
    return (-(2**63), 2**64 - 1)


def _get(env: _Env, v: SSAValue) -> Interval:
    got = env.values.get(v)
    if got is None:
        if isinstance(v.type, IntegerType):
            return _type_range(v.type)
        raise _Unknown()
    return got


def _check(v: SSAValue, iv: Interval) -> None:
    if isinstance(v.type, IndexType) and not (INDEX32[0] <= iv[0] and iv[1] <= INDEX32[1]):
        raise _Unknown()


def _nonneg(*ivs: Interval) -> None:
    if any(iv[0] < 0 for iv in ivs):
        raise _Unknown()


def _const(iv: Interval) -> int:
    if iv[0] != iv[1]:
        raise _Unknown()
    return iv[0]


def _bits_hull(a: Interval, b: Interval) -> Interval:
    _nonneg(a, b)
    return (0, (1 << max(a[1], b[1]).bit_length()) - 1)


def _div(a: Interval, c: int, ceil: bool) -> Interval:
    if c < 1:
        raise _Unknown()
    if ceil:
        return (-(-a[0] // c), -(-a[1] // c))
    return (a[0] // c, a[1] // c) if a[0] >= 0 else (-(-a[0] // c), a[1] // c if a[1] >= 0 else -(-a[1] // c))


def _mul(a: Interval, b: Interval) -> Interval:
    xs = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return (min(xs), max(xs))


def _and(a: Interval, b: Interval) -> Interval:
    """`a & b`: within [0, hi] of an operand that is never negative."""
    nonneg = [x[1] for x in (a, b) if x[0] >= 0]
    if not nonneg:
        raise _Unknown()
    return (0, min(nonneg))


def _rem(a: Interval, c: int, signed: bool) -> Interval:
    if c < 1:
        raise _Unknown()
    if a[0] >= 0:
        return (0, min(c - 1, a[1]))
    if not signed:
        raise _Unknown()
    return (-(c - 1), c - 1)


_BINARY: dict[type, Callable[[Interval, Interval], Interval]] = {
    arith.AddiOp: lambda a, b: (a[0] + b[0], a[1] + b[1]),
    arith.SubiOp: lambda a, b: (a[0] - b[1], a[1] - b[0]),
    arith.MuliOp: _mul,
    arith.MinSIOp: lambda a, b: (min(a[0], b[0]), min(a[1], b[1])),
    arith.MaxSIOp: lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
    arith.MinUIOp: lambda a, b: (_nonneg(a, b), (min(a[0], b[0]), min(a[1], b[1])))[1],
    arith.MaxUIOp: lambda a, b: (_nonneg(a, b), (max(a[0], b[0]), max(a[1], b[1])))[1],
    arith.AndIOp: lambda a, b: _and(a, b),
    arith.OrIOp: _bits_hull,
    arith.XOrIOp: _bits_hull,
    arith.ShLIOp: lambda a, b: _mul(a, (1 << _const(b), 1 << _const(b))) if 0 <= _const(b) < 64 else _raise(),
    arith.ShRUIOp: lambda a, b: (_nonneg(a), (a[0] >> _const(b), a[1] >> _const(b)))[1],
    arith.ShRSIOp: lambda a, b: (a[0] >> _const(b), a[1] >> _const(b)),
    arith.DivUIOp: lambda a, b: (_nonneg(a), _div(a, _const(b), False))[1],
    arith.DivSIOp: lambda a, b: _div(a, _const(b), False),
    arith.CeilDivUIOp: lambda a, b: (_nonneg(a), _div(a, _const(b), True))[1],
    arith.CeilDivSIOp: lambda a, b: _div(a, _const(b), True),
    arith.FloorDivSIOp: lambda a, b: _div(a, _const(b), False) if a[0] >= 0 else (a[0] // _const(b), a[1] // _const(b)),
    arith.RemUIOp: lambda a, b: _rem(a, _const(b), False),
    arith.RemSIOp: lambda a, b: _rem(a, _const(b), True),
}


def _raise() -> Interval:
    raise _Unknown()


_IDS = {gpu.BlockIdOp: ("grid", True), gpu.ThreadIdOp: ("block", True),
        gpu.GridDimOp: ("grid", False), gpu.BlockDimOp: ("block", False)}


def _eval(op: Operation, env: _Env, check: bool) -> None:
    """The interval of `op`'s integer results; _Unknown for an index result it cannot bound."""
    if any(isinstance(getattr(r.type, "element_type", None), IndexType) for r in op.results):
        raise _Unknown()  # indices in a vector or a buffer: not bounded here
    res = [r for r in op.results if isinstance(r.type, IndexType | IntegerType) and not _is_i1(r.type)]
    if not res:
        return
    iv: Interval
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        iv = (op.value.value.data, op.value.value.data)
    elif type(op) in _BINARY:
        iv = _BINARY[type(op)](_get(env, op.operands[0]), _get(env, op.operands[1]))
    elif isinstance(op, arith.SelectOp):
        a, b = _get(env, op.lhs), _get(env, op.rhs)
        iv = (min(a[0], b[0]), max(a[1], b[1]))
    elif isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp):
        iv = _get(env, op.operands[0])
        lo, hi = _type_range(op.result.type) if isinstance(op.result.type, IntegerType) else (-(2**63), 2**63 - 1)
        if iv[0] < lo or iv[1] > hi or isinstance(op, arith.ExtUIOp) and iv[0] < 0:
            iv = (lo, hi)
    elif type(op) in _IDS and env.grid is not None and env.block is not None:
        which, is_id = _IDS[type(op)]
        dim = ("x", "y", "z").index(op.dimension.data.value)
        ext = (env.grid if which == "grid" else env.block)[dim]
        iv = (0, max(0, ext[1] - 1)) if is_id else ext
    else:
        for r in res:
            if isinstance(r.type, IndexType):
                raise _Unknown()
            env.values[r] = _type_range(r.type)
        return
    for r in res:
        env.values[r] = iv
        if check:
            _check(r, iv)
