"""`@tilec.jit` kernels traced to `layout` IR: the language and the tracer.

A jit kernel is a Python function whose body runs once per specialisation, with the
builder (`tilec.Program`, compiler/builder.py) current; each builder call it makes
inserts ops at the kernel's launch, at the user's line (compiler/builder_locations.py):

    @tilec.jit
    def add_one(x, y, n, BLOCK: tilec.constexpr):
        L = tilec.BlockedLayout([4], [32], [4], [0])
        offs = tilec.program_id(0) * BLOCK + tilec.arange(0, BLOCK, L)
        mask = offs < n
        tilec.store(y.ptr + offs, tilec.load(x.ptr + offs, mask=mask) + 1.0, mask=mask)

Parameters, by what the caller passes (api/jit.py launches; this module only traces):

- an array (PyTorch, CuPy, DLPack, NumPy): a `Tensor`, a global-memory view of its
  data with run-time extents and strides (`layout.view %x(%x_shape0, ..., %x_stride0, ...)`),
  `x.shape[i]` / `x.strides[i]` their index values, `x.ptr` its pointer;
- an int: an index value (`n`), a float: an f32 value;
- a parameter annotated `tilec.constexpr`: the Python value itself, a trace-time constant.

Specialisation (Triton's): a kernel is traced per `Spec` of its arguments, never per
shape: an array's element type, whether its address is a multiple of 16 bytes, and
per extent and stride whether it equals 1 (then 1 in the view's layout) and whether it
is a multiple of 16 (`divisible` on the view); an int's `== 1` (then the constant 1)
and `% 16 == 0` (`layout.multiple_of`); a constexpr's value; the number of warps.

Control flow without rewriting the function's AST: `tilec.static_range(n)` is Python's
range (unrolled while tracing; constexpr bounds); `for i in tilec.range(lo, hi, step,
carry=[acc])` is one `scf.for` whose carried Values are updated in place (`acc += x`,
`acc.assign(...)`); `with tilec.if_(cond):` is an `scf.if` with no results (stores
inside; a value chosen at run time is `tilec.where`). A Python `if` or `range` on a
traced value is a located error that says so. Any error while tracing is a `TilecError`
at the user's line, never a traceback from inside tilec.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import f32

from tilec.dialects import cute
from tilec.support.diagnostics import TilecError

from .builder import Program
from .builder_locations import user_location
from .builder_tensors import is_distributed
from .builder_types import element_type
from .kernel_builder import Launch, Value
from .specialize import DIVISOR

# ====================================================================== parameters


class constexpr:
    """Triton's `tl.constexpr`: annotate a parameter with it (`BLOCK: tilec.constexpr`)
    and the kernel sees the caller's Python value, fixed while tracing; each value is
    its own specialisation. `tilec.constexpr(v)` also marks a value passed for a
    parameter without the annotation."""

    def __init__(self, value: Any):
        self.value = value

    def __repr__(self) -> str:
        return f"constexpr({self.value!r})"


@dataclass(frozen=True)
class TensorSpec:
    """What a kernel is specialised on for one array argument."""

    dtype: str
    """The element type (`f32`, `bf16`, ...)."""
    aligned: bool
    """Its data address is a multiple of 16 bytes (`!layout.ptr<T, align 16>`)."""
    shape: tuple[tuple[bool, bool], ...]
    """Per extent: (== 1, % 16 == 0)."""
    strides: tuple[tuple[bool, bool], ...]
    """Per stride, in elements: (== 1, % 16 == 0)."""


@dataclass(frozen=True)
class IntSpec:
    """An integer argument: (== 1, % 16 == 0)."""

    one: bool
    divisible: bool


@dataclass(frozen=True)
class FloatSpec:
    """A float argument (an f32 value; nothing about it is specialised)."""


@dataclass(frozen=True)
class ConstSpec:
    """A constexpr argument: its value."""

    value: Any


Spec = TensorSpec | IntSpec | FloatSpec | ConstSpec


def _facts(n: int) -> tuple[bool, bool]:
    return (n == 1, n % DIVISOR == 0)


@functools.lru_cache(maxsize=64)
def _element_name(dtype: str) -> str:
    return str(element_type(dtype))


def tensor_spec(dtype: str, address: int, shape: Sequence[int], strides: Sequence[int]) -> TensorSpec:
    """The `TensorSpec` of an array: element type name (NumPy's or tilec's), data address,
    extents and strides in elements."""
    et = _element_name(dtype)
    return TensorSpec(et, address % DIVISOR == 0, tuple(_facts(int(n)) for n in shape),
                      tuple(_facts(int(s)) for s in strides))


def int_spec(n: int) -> IntSpec:
    return IntSpec(*_facts(int(n)))


# ====================================================================== the trace


class Tensor(Value):
    """A jit kernel's array parameter: a global-memory view (a `Value`) of the array's
    data, with its run-time extents `shape` and strides `strides` (index Values; the
    constant 1 where the specialisation knows it) and its pointer `ptr`."""

    def __init__(self, program: Program, view: Value, ptr: Value, shape: tuple[Value, ...],
                 strides: tuple[Value, ...]):
        super().__init__(program, view.ssa)
        self.ptr = ptr
        self.shape = shape
        self.strides = strides


@dataclass
class _Trace:
    program: Program
    launch: Launch
    grid: tuple[Value, ...]


_state = threading.local()


def _trace() -> _Trace:
    t = getattr(_state, "trace", None)
    if t is None:
        raise TilecError("this is a tilec kernel function: call it only inside a @tilec.jit kernel being traced",
                         loc=user_location())
    return t


def tracing() -> bool:
    """Whether a jit kernel is being traced in this thread (a jit function called inside
    one is inlined: api/jit_launch.py)."""
    return getattr(_state, "trace", None) is not None


def builder() -> Program:
    """The `Program` a jit kernel is being traced into: every builder method (docs/builder.md)
    is reachable through it.

        p = tilec.builder(); p.barrier()
    """
    return _trace().program


def _is_constexpr(annotation: Any, globals_: dict) -> bool:
    if annotation is constexpr:
        return True
    if isinstance(annotation, str):
        try:
            return eval(annotation, globals_) is constexpr  # noqa: S307 - the user's own annotation
        except Exception:  # noqa: BLE001 - an annotation we cannot read is not ours
            return annotation.split(".")[-1] == "constexpr"
    return False


class Tracer:
    """Traces one Python function into a `Program` per specialisation."""

    def __init__(self, fn: Callable):
        if not callable(fn):
            raise TilecError(f"@tilec.jit decorates a function, not {type(fn).__name__}", loc=user_location())
        self.fn = fn
        self.name = fn.__name__
        self.signature = inspect.signature(fn)
        self._names = list(self.signature.parameters)
        self.constexprs = frozenset(n for n, p in self.signature.parameters.items()
                                    if _is_constexpr(p.annotation, getattr(fn, "__globals__", {})))
        for name, prm in self.signature.parameters.items():
            if prm.kind in (prm.VAR_POSITIONAL, prm.VAR_KEYWORD):
                raise TilecError(f"@tilec.jit kernel '{self.name}': *{name} / **{name} parameters are not supported",
                                 loc=_def_location(fn))

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The arguments by parameter name (defaults applied); a TilecError names what is
        missing or extra."""
        names = self._names
        if len(args) + len(kwargs) == len(names) and len(args) <= len(names) \
                and all(k in names[len(args):] for k in kwargs):  # every parameter given once: no inspect
            return {n: kwargs[n] if n in kwargs else args[i] for i, n in enumerate(names)}
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TilecError(f"kernel '{self.name}': {e}") from None
        bound.apply_defaults()
        return dict(bound.arguments)

    def trace(self, specs: dict[str, Spec], num_warps: int = 4) -> Program:
        """The kernel for `specs` (one per parameter), built with the function's body
        inside a `layout.launch` of `num_warps` warps on a run-time grid (the index
        arguments `grid_x`, `grid_y`, `grid_z` after the parameters'); the Program's
        module is verified, its errors located at the user's lines."""
        p = Program(self.name)
        values: dict[str, Any] = {}
        ints: dict[str, Value] = {}
        for name, spec in specs.items():
            if isinstance(spec, ConstSpec):
                values[name] = spec.value
            elif isinstance(spec, TensorSpec):
                values[name] = _tensor_param(p, name, spec)
            elif isinstance(spec, IntSpec):
                arg = p.index(name)
                values[name] = p.constant(1) if spec.one else arg
                if spec.divisible and not spec.one:
                    ints[name] = arg
            else:
                values[name] = p._arg(name, f32)
        taken = set(specs)
        grid_names = ["grid_x", "grid_y", "grid_z"]
        if taken & set(grid_names):
            raise TilecError(f"kernel '{self.name}': parameter names grid_x, grid_y, grid_z are tilec's own "
                             "(the launch grid)", loc=_def_location(self.fn))
        grid = tuple(p.index(n) for n in grid_names)
        with p.launch(grid=grid, threads=32 * num_warps) as k:
            for name, arg in ints.items():
                values[name] = p.multiple_of(arg, DIVISOR)
            for name, spec in specs.items():
                if isinstance(spec, TensorSpec):  # x.shape[i], x.strides[i] carry their facts too
                    t = values[name]
                    t.shape = _promised(p, t.shape, spec.shape)
                    t.strides = _promised(p, t.strides, spec.strides)
            self._run(p, _Trace(p, k, grid), values)
        p.module  # noqa: B018 - verify now: the errors name the user's lines
        return p

    def _run(self, p: Program, trace: _Trace, values: dict[str, Any]) -> None:
        saved = getattr(_state, "trace", None)
        _state.trace = trace
        try:
            self.fn(**values)
        except TilecError:
            raise
        except Exception as e:  # noqa: BLE001 - the user's mistake, reported at the user's line
            raise TilecError(f"{type(e).__name__}: {e}", loc=_traceback_location(e, self.fn)) from None
        finally:
            _state.trace = saved


def _tensor_param(p: Program, name: str, spec: TensorSpec) -> Tensor:
    """The view of an array parameter: its pointer, extents and strides arguments, the
    layout with 1 where the spec knows it and `divisible` where it knows % 16."""
    rank = len(spec.shape)
    if rank == 0:
        raise TilecError(f"argument '{name}' is a 0-d array: pass a number, or an array of one element")
    ptr = p.pointer(name, spec.dtype, align=DIVISOR if spec.aligned else None)
    shape_args = [p.index(f"{name}_shape{i}") for i in builtins.range(rank)]
    stride_args = [p.index(f"{name}_stride{i}") for i in builtins.range(rank)]
    dynamic: list[Value] = []
    divisible: list[int] = []

    def entry(arg: Value, fact: tuple[bool, bool]) -> int | Any:
        if fact[0]:
            return 1
        dynamic.append(arg)
        divisible.append(DIVISOR if fact[1] else 1)
        return cute.DYN

    shape = tuple(entry(a, f) for a, f in zip(shape_args, spec.shape))
    strides = tuple(entry(a, f) for a, f in zip(stride_args, spec.strides))
    lay = cute.Layout(shape, strides)
    view = p.view(ptr, lay, dynamic, divisible if any(d > 1 for d in divisible) else None)
    one = None

    def known(arg: Value, fact: tuple[bool, bool]) -> Value:
        nonlocal one
        if fact[0]:
            if one is None:
                one = p.constant(1)
            return one
        return arg

    return Tensor(p, view, ptr, tuple(known(a, f) for a, f in zip(shape_args, spec.shape)),
                  tuple(known(a, f) for a, f in zip(stride_args, spec.strides)))


def _promised(p: Program, values: tuple[Value, ...], facts: tuple[tuple[bool, bool], ...]) -> tuple[Value, ...]:
    """`values` with those known % 16 (and not 1) promised so (`layout.multiple_of`)."""
    return tuple(p.multiple_of(v, DIVISOR) if f[1] and not f[0] else v for v, f in zip(values, facts))


def _def_location(fn: Callable) -> str | None:
    code = getattr(fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}:1" if code is not None else None


def _traceback_location(e: BaseException, fn: Callable) -> str | None:
    """The innermost frame of `e`'s traceback in the kernel's file (else its definition)."""
    file = fn.__code__.co_filename
    loc = None
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == file:
            col = 1
            positions = list(tb.tb_frame.f_code.co_positions())
            i = tb.tb_lasti // 2
            if 0 <= i < len(positions) and positions[i][2] is not None:
                col = positions[i][2] + 1
            loc = f"{file}:{tb.tb_lineno}:{col}"
        tb = tb.tb_next
    return loc or _def_location(fn)


# ====================================================================== the language


def program_id(axis: int) -> Value:
    """Triton's `tl.program_id(axis)`: this block's index along grid axis 0, 1 or 2 (index).

        pid = tilec.program_id(0)
    """
    k = _trace().launch
    return (k.bx, k.by, k.bz)[_axis(axis)]


def num_programs(axis: int) -> Value:
    """Triton's `tl.num_programs(axis)`: the grid's extent along `axis` (index).

        n = tilec.num_programs(0)
    """
    return _trace().grid[_axis(axis)]


def _axis(axis: Any) -> int:
    if axis not in (0, 1, 2):
        raise TilecError(f"grid axis {axis!r}: expected 0, 1 or 2", loc=user_location())
    return int(axis)


def static_range(*args: int) -> builtins.range:
    """Gluon's `gl.static_range`: a loop unrolled while tracing (Python's `range`; its
    bounds are Python ints or constexprs, never traced values).

        for i in tilec.static_range(4): ...
    """
    for a in args:
        if isinstance(a, Value):
            raise TilecError("static_range takes Python ints (constexprs): a traced bound is a run-time loop, "
                             "`tilec.range(...)`", loc=user_location())
    return builtins.range(*args)


def range(start: Any, stop: Any = None, step: Any = 1, *, carry: Sequence[Value] = (),  # noqa: A001
          num_stages: int | None = None) -> Iterator[Value]:
    """A run-time loop, one `scf.for`: `for i in tilec.range(lo, hi, step):` runs its body
    once while tracing, with `i` the loop's index Value. The Values in `carry` are
    loop-carried: update them in place (`acc += x`, `acc.assign(tilec.maximum(acc, x))`);
    after the loop they hold the last trip's values. No `break` or `continue`.
    `num_stages` (Triton's `tl.range(..., num_stages=)`): the depth `software-pipeline`
    pipelines the loop to, where it loads tiles into shared memory.

        for k in tilec.range(0, K, BK, carry=[acc]): acc += ...
    """
    if stop is None:
        start, stop = 0, start
    p = _trace().program
    with p.range(start, stop, step, carry=carry, num_stages=num_stages) as i:
        yield i


def if_(cond: Value) -> Any:
    """A run-time branch, one `scf.if` with no results: `with tilec.if_(cond):` (cond an
    i1 Value); what its body stores happens where cond holds.

        with tilec.if_(pid < n): ...
    """
    return _trace().program.if_(cond)


def arange(start: int, end: int, layout: Any) -> Value:
    """Gluon's `gl.arange(start, end, layout)`: i32 values start .. end-1 (a power of two of them).

        offs = tilec.arange(0, 128, L)
    """
    return _trace().program.arange(start, end, layout)


def full(shape: Sequence[int], value: int | float, dtype: str, layout: Any) -> Value:
    """Gluon's `gl.full(shape, value, dtype, layout)`.

        acc = tilec.full([64, 64], 0.0, "f32", L)
    """
    return _trace().program.full(shape, value, dtype, layout)


def zeros(shape: Sequence[int], dtype: str, layout: Any) -> Value:
    """`tilec.full(shape, 0, dtype, layout)`.

        acc = tilec.zeros([64, 64], "f32", L)
    """
    return _trace().program.full(shape, 0, dtype, layout)


def tile(view: Value, coords: Sequence[Any], shape: Sequence[int]) -> Value:
    """CuTe's `local_tile`: tile `coords` of `view` in tiles of `shape` (Program.tile); a
    tile that reaches past a run-time extent is masked (its missing elements are
    neither read nor written).

        row = tilec.tile(x, (pid, 0), (1, BLOCK))
    """
    return _trace().program.tile(view, list(coords), list(shape))


def load(src: Value, layout: Any = None, *, mask: Value | None = None, other: Any = None) -> Value:
    """Gluon's `gl.load`: a view (a tile, a Tensor) into a distributed tensor of `layout`,
    or a tensor of pointers (`x.ptr + offs`; its layout is the offsets'); elements
    outside a masked tile or where `mask` is false are `other` (default 0).

        v = tilec.load(row, L, other=float("-inf"))
        v = tilec.load(x.ptr + offs, mask=offs < n)
    """
    p = _trace().program
    if is_distributed(src.type):
        return p.ptr_load(src, mask=mask, other=other)
    if layout is None:
        raise TilecError("load of a view takes the layout of the result: tilec.load(view, tilec.BlockedLayout(...))",
                         loc=user_location())
    return p.load(src, layout, mask=mask, other=other)


def store(dst: Value, value: Any, *, mask: Value | None = None) -> None:
    """Gluon's `gl.store`: `value` into a view of its shape, or to a tensor of pointers,
    where `mask` holds.

        tilec.store(out_row, y)
        tilec.store(y.ptr + offs, v, mask=offs < n)
    """
    p = _trace().program
    if is_distributed(dst.type):
        p.ptr_store(dst, value, mask=mask)
    else:
        p.store(value, dst, mask=mask)


def reduce(x: Value, axis: int, kind: str) -> Value:
    """Gluon's `gl.reduce` with a named combiner ("add", "mul", "max", "min").

        s = tilec.reduce(x, 1, "add")
    """
    return _trace().program.reduce(x, axis, kind)


def sum(x: Value, axis: int) -> Value:  # noqa: A001
    """`gl.sum(x, axis)`: the layout of the result is the slice of x's along `axis`.

        s = tilec.sum(x, 1)
    """
    return _trace().program.reduce(x, axis, "add")


def max(x: Value, axis: int) -> Value:  # noqa: A001
    """`gl.max(x, axis)`.

        m = tilec.max(x, 1)
    """
    return _trace().program.reduce(x, axis, "max")


def min(x: Value, axis: int) -> Value:  # noqa: A001
    """`gl.min(x, axis)`.

        m = tilec.min(x, 1)
    """
    return _trace().program.reduce(x, axis, "min")


def cumsum(x: Value, axis: int, reverse: bool = False) -> Value:
    """Triton's `tl.cumsum(x, axis, reverse)`: the inclusive running sum (`layout.scan`).

        c = tilec.cumsum(x, 1)
    """
    return _trace().program.scan(x, axis, "add", reverse)


def expand_dims(x: Value, axis: int) -> Value:
    """`gl.expand_dims(x, axis)`: a dimension of 1 at `axis` (x's layout a slice along it).

        m2 = tilec.expand_dims(tilec.max(x, 1), 1)
    """
    return _trace().program.expand_dims(x, axis)


def broadcast_to(x: Value, shape: Sequence[int]) -> Value:
    """Extent-1 dimensions repeated to `shape` (operators broadcast by themselves).

        b = tilec.broadcast_to(m2, [1, BLOCK])
    """
    return _trace().program.broadcast(x, shape)


def convert_layout(x: Value, layout: Any, assert_trivial: bool = False) -> Value:
    """`gl.convert_layout(x, layout, assert_trivial)`.

        y = tilec.convert_layout(x, L2)
    """
    return _trace().program.convert_layout(x, layout, assert_trivial)


def where(cond: Value, a: Any, b: Any) -> Value:
    """`gl.where(cond, a, b)`; numbers beside tensors are splat.

        y = tilec.where(x > 0, x, 0.0)
    """
    return _trace().program.where(cond, a, b)


def maximum(a: Value, b: Any) -> Value:
    """Elementwise maximum.

        r = tilec.maximum(x, 0.0)
    """
    return _trace().program.maximum(a, b)


def minimum(a: Value, b: Any) -> Value:
    """Elementwise minimum.

        r = tilec.minimum(x, 1.0)
    """
    return _trace().program.minimum(a, b)


def _math(name: str) -> Callable[[Value], Value]:
    def fn(x: Value) -> Value:
        return _trace().program.math(name, x)

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"""Elementwise `math.{name}` of a float scalar or tensor.

        y = tilec.{name}(x)
    """
    return fn


exp, exp2, log, log2, sqrt, rsqrt = (_math(n) for n in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt"))


def dot(a: Value, b: Value, acc: Value) -> Value:
    """Triton's `tl.dot(a, b, acc)`: `acc + a @ b`. With a and b in the dot-operand
    layouts of acc's `tilec.NvidiaMmaLayout` (or shared views of a Hopper one) it is
    that `layout.mma`; in any other layouts it is `layout.dot`, which the
    `accelerate-matmul` pass lowers for the target (wgmma, mma.sync through shared
    memory, or an FMA loop).

        acc.assign(tilec.dot(a, b, acc))
    """
    from tilec.dialects.mma_layouts import NvidiaMmaLayoutAttr

    p = _trace().program
    enc = getattr(acc.ssa.type, "encoding", None)
    if isinstance(enc, NvidiaMmaLayoutAttr):
        return p.mma(a, b, acc)
    return p.dot(a, b, acc)


def cdiv(a: Any, b: Any) -> Any:
    """Triton's `cdiv`: (a + b - 1) // b, on Python ints or index Values.

        grid = (tilec.cdiv(n, 128),)
    """
    return (a + b - 1) // b


def multiple_of(x: Value, divisor: int) -> Value:
    """`tl.multiple_of(x, d)`: x, promised to be a multiple of d.

        n = tilec.multiple_of(n, 16)
    """
    return _trace().program.multiple_of(x, divisor)


LANGUAGE = ("constexpr", "builder", "program_id", "num_programs", "static_range", "range", "if_", "arange", "full",
            "zeros", "tile", "load", "store", "reduce", "sum", "max", "min", "cumsum", "expand_dims", "broadcast_to",
            "convert_layout", "where", "maximum", "minimum", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "dot", "cdiv",
            "multiple_of", "Tensor")
"""The names `tilec` exports from this module (api/__init__.py)."""
