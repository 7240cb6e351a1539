"""The reference executor's entry points: `run`, `random_inputs`, `check_equivalence`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import DictionaryAttr, FloatAttr, IntegerAttr, MemRefType, ModuleOp, TensorType
from xdsl.interpreter import InterpreterFunctions
from xdsl.ir import Attribute

from .errors import ExecutionError
from .executor import HostArray, ReferenceInterpreter, arg_names
from .memory import fmt_value
from .values import UnsupportedType, bits_equal, dtype_of

Inputs = Mapping[str, Any] | Sequence[Any]

MAX_ELEMENTS = 1 << 27
"""Most elements of one buffer or one value that the executor materialises (1 GiB of
f64): larger programs are refused with an ExecutionError before anything is
allocated (launches have their own limits, `executor.check_launch_size`)."""

ARGS_ATTR = "tilec.args"
"""A dictionary attribute on a host function: values of its `index` arguments, and
element counts of its buffers whose size the IR does not fix (`{n = 1000 : index}`)."""


def _functions() -> list[InterpreterFunctions]:
    from .arith_impls import ArithFunctions
    from .executor import FuncFunctions, GpuFunctions
    from .math_impls import MathFunctions
    from .memory_impls import MemoryFunctions
    from .scf_impls import ScfFunctions

    fns: list[InterpreterFunctions] = [
        ArithFunctions(),
        MathFunctions(),
        ScfFunctions(),
        MemoryFunctions(),
        GpuFunctions(),
        FuncFunctions(),
    ]
    try:
        from .cuda_impls import CudaFunctions
    except ImportError:  # pragma: no cover - the cuda dialect is part of tilec
        pass
    else:
        fns.append(CudaFunctions())
        from .wgmma_impls import WgmmaFunctions

        fns.append(WgmmaFunctions())
    try:
        from .layout_impls import LayoutFunctions
    except ImportError:  # pragma: no cover
        pass
    else:
        fns.append(LayoutFunctions())
        from .access_impls import AccessFunctions
        from .compute_impls import ComputeFunctions
        from .mma_impls import MmaFunctions
        from .tma_impls import TmaFunctions

        fns.append(ComputeFunctions())
        fns.append(MmaFunctions())
        fns.append(TmaFunctions())
        from .roles_impls import RoleFunctions

        fns.append(RoleFunctions())
        fns.append(AccessFunctions())
        from .print_impls import PrintFunctions

        fns.append(PrintFunctions())
        from .query_impls import QueryFunctions

        fns.append(QueryFunctions())
        from .like_impls import LikeFunctions

        fns.append(LikeFunctions())
        from .identity_impls import IdentityFunctions

        fns.append(IdentityFunctions())
        from .iter_impls import IterFunctions

        fns.append(IterFunctions())
        from .thread_ids_impls import ThreadIdFunctions

        fns.append(ThreadIdFunctions())
        from .ptr_impls import PointerFunctions

        fns.append(PointerFunctions())
        from .atomic_impls import AtomicFunctions

        fns.append(AtomicFunctions())
    return fns


def parse(text: str, name: str = "<input>") -> ModuleOp:
    """Parse a module with tilec's parser (so that errors carry `file:line:col`)."""
    from tilec.compiler.pipeline import parse_module

    return parse_module(text, name)


def host_functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.ops if isinstance(op, func.FuncOp) and not op.is_declaration]


def entry_function(module: ModuleOp, entry: str | None = None) -> func.FuncOp:
    """The host function to run: `entry`, else the module's only one, else the only
    one that no other calls (a host function and its helpers); ExecutionError where
    that leaves several."""
    fns = host_functions(module)
    if entry is not None:
        for f in fns:
            if f.sym_name.data == entry:
                return f
        raise ExecutionError(module, f"no function @{entry} in the module")
    if not fns:
        raise ExecutionError(module, "the module has no host function (func.func) to run")
    if len(fns) > 1:
        called = {
            op.callee.root_reference.data
            for f in fns
            for op in f.walk()
            if isinstance(op, func.CallOp)
        }
        roots = [f for f in fns if f.sym_name.data not in called]
        if len(roots) == 1:
            return roots[0]
        names = ", ".join("@" + f.sym_name.data for f in fns)
        raise ExecutionError(module, f"several functions ({names}): say which with entry=")
    return fns[0]


def is_buffer_type(t: Attribute) -> bool:
    """Memrefs, and the layout dialect's pointers (`!layout.ptr<f32>`)."""
    if isinstance(t, MemRefType):
        return True
    return _is_layout_ptr(t)


def _is_view(t: Attribute) -> bool:
    from tilec.dialects.layout_attrs import TensorViewType

    return isinstance(t, TensorViewType)


def _is_layout_ptr(t: Attribute) -> bool:
    try:
        from tilec.dialects.layout_attrs import PtrType
    except ImportError:  # pragma: no cover
        return False
    return isinstance(t, PtrType)


def buffer_dtype(t: Attribute) -> np.dtype:
    return dtype_of(t.element_type)  # type: ignore[attr-defined]


def _args_attr(fn: func.FuncOp) -> dict[str, int | float]:
    attr = fn.attributes.get(ARGS_ATTR)
    out: dict[str, int | float] = {}
    if isinstance(attr, DictionaryAttr):
        for k, v in attr.data.items():
            if isinstance(v, IntegerAttr | FloatAttr):
                out[k] = v.value.data
    return out


def _bind_inputs(fn: func.FuncOp, inputs: Inputs) -> dict[str, Any]:
    names = arg_names(fn)
    if isinstance(inputs, Mapping):
        given = dict(inputs)
        unknown = set(given) - set(names)
        if unknown:
            raise ExecutionError(
                fn,
                f"inputs for unknown argument(s) {sorted(unknown)} of "
                f"@{fn.sym_name.data} (its arguments: {names})",
            )
        return given
    values = list(inputs)
    if len(values) != len(names):
        raise ExecutionError(
            fn, f"@{fn.sym_name.data} takes {len(names)} arguments, {len(values)} given"
        )
    return dict(zip(names, values))


def run(
    module: ModuleOp | str,
    inputs: Inputs,
    entry: str | None = None,
    *,
    mma_records: list | None = None,
) -> dict[str, np.ndarray]:
    """Run a host function on NumPy arrays; returns every buffer argument after the
    run (flat buffers keep the shape they were given in). Inputs are copied, never
    mutated. `index` arguments missing from `inputs` come from the function's
    `tilec.args` attribute. Raises `ExecutionError` for anything a GPU would not
    compute deterministically (see the package docstring). `mma_records`, when given,
    receives a `mma_impls.MmaRecord` per float `layout.mma` executed (for
    `mma_tolerance`)."""
    if isinstance(module, str):
        module = parse(module)
    fn = entry_function(module, entry)
    given = _bind_inputs(fn, inputs)
    defaults = _args_attr(fn)
    values: list[Any] = []
    buffers: dict[str, HostArray] = {}
    for name, arg in zip(arg_names(fn), fn.body.block.args):
        t = arg.type
        if name not in given:
            if is_buffer_type(t) or name not in defaults:
                raise ExecutionError(fn, f"no input for argument %{name} : {t}")
            given[name] = defaults[name]
        v = given[name]
        if is_buffer_type(t):
            arr = np.array(v, copy=True)
            try:
                want = buffer_dtype(t)
            except UnsupportedType as e:
                raise ExecutionError(fn, f"argument %{name}: {e}") from None
            if arr.dtype != want:
                raise ExecutionError(
                    fn, f"argument %{name} : {t} needs {want} elements, got {arr.dtype}"
                )
            host = HostArray(name, np.ascontiguousarray(arr).reshape(-1), arr.shape)
            buffers[name] = host
            values.append(host)
        else:
            try:
                dt = dtype_of(t)
            except UnsupportedType as e:
                raise ExecutionError(fn, f"argument %{name}: {e}") from None
            if np.ndim(v) != 0:
                raise ExecutionError(fn, f"argument %{name} : {t} needs a scalar")
            values.append(dt.type(v))
    check_sizes(module)
    interp = ReferenceInterpreter(module)
    for fns in _functions():
        interp.register_implementations(fns)
    with np.errstate(all="ignore"):
        interp.run_ssacfg_region(fn.body, tuple(values), fn.sym_name.data)
    if mma_records is not None:
        mma_records.extend(getattr(interp, "mma_records", ()))
    return {name: h.data.reshape(h.shape) for name, h in buffers.items()}


def check_sizes(module: ModuleOp) -> None:
    """Refuse, with an ExecutionError at the op, a module with a value of more than
    MAX_ELEMENTS elements (a view, distributed tensor or memref of static shape):
    the executor would have to materialise it."""
    from .executor import value_elements

    for op in module.walk():
        for r in op.results:
            sized = value_elements(r.type)
            if sized is not None and sized[0] > MAX_ELEMENTS:
                raise ExecutionError(
                    op,
                    f"a value of {sized[0]} elements ({r.type}) is too large for the CPU "
                    f"reference executor (at most {MAX_ELEMENTS})",
                )


# ----------------------------------------------------------------------------- inputs


def buffer_effects(module: ModuleOp, fn: func.FuncOp) -> dict[str, set[str]]:
    """Per buffer argument, whether the program may read it and whether it writes it
    ({"read", "write"}), found by following the argument through launches, calls and
    views to the ops that access it. An op this analysis does not know counts as a
    read (so the buffer gets real data, never poison)."""
    from .effects import access_effects

    out: dict[str, set[str]] = {}
    for name, arg in zip(arg_names(fn), fn.body.block.args):
        if is_buffer_type(arg.type):
            out[name] = access_effects(module, arg)
    return out


def buffer_sizes(module: ModuleOp, fn: func.FuncOp, scalars: Mapping[str, int]) -> dict[str, int | None]:
    """Element count of each buffer argument when the IR fixes it: the static size of
    a memref, or for a layout-level pointer the cosize of the views of it."""
    from .effects import pointer_extent

    out: dict[str, int | None] = {}
    for name, arg in zip(arg_names(fn), fn.body.block.args):
        t = arg.type
        if isinstance(t, MemRefType) and all(s >= 0 for s in t.get_shape()):
            out[name] = int(np.prod(t.get_shape())) if t.get_shape() else 1
        elif is_buffer_type(t):
            out[name] = pointer_extent(module, fn, arg, scalars)
    return out


def poison_value(dtype: np.dtype) -> Any:
    """What an output buffer holds before the run: a NaN with payload 0xDEAD (floats),
    0xDEAD... (integers), so that an element nobody wrote shows."""
    if dtype == np.float32:
        return np.array([0x7FC0DEAD], np.uint32).view(np.float32)[0]
    if dtype == np.float64:
        return np.array([0x7FF800000000DEAD], np.uint64).view(np.float64)[0]
    if dtype == np.float16:
        return np.array([0x7E5D], np.uint16).view(np.float16)[0]
    if dtype == np.bool_:
        return np.bool_(True)
    bits = np.array([0xDEADBEEFDEADBEEF], np.uint64).view(np.uint8)[: dtype.itemsize]
    return bits.view(dtype)[0]


def random_inputs(
    module: ModuleOp | str,
    seed: int,
    entry: str | None = None,
    *,
    args: Mapping[str, int] | None = None,
    sizes: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """Inputs for every argument of a host function, reproducible from `seed`.

    - `index` (and integer) arguments: from `args`, else the function's `tilec.args`
      attribute;
    - buffer sizes: from the IR (static memref shapes; the cosize of the views of a
      layout-level pointer), else from `sizes` or `tilec.args`;
    - buffers the program reads: random normal floats, random integers in
      [-1000, 1000) (booleans at random);
    - buffers it only writes (outputs): poisoned with `poison_value`, never zeros;
    - buffers it adds to with atomics (counters, dialects/layout_atomic.py): zeros.
    """
    if isinstance(module, str):
        module = parse(module)
    fn = entry_function(module, entry)
    scalars = dict(_args_attr(fn))
    scalars.update(args or {})
    rng = np.random.default_rng(seed)
    effects = buffer_effects(module, fn)
    known = buffer_sizes(module, fn, scalars)
    out: dict[str, Any] = {}
    # index arguments first: buffer sizes may depend on them
    for name, arg in zip(arg_names(fn), fn.body.block.args):
        t = arg.type
        if not is_buffer_type(t):
            if isinstance(t, TensorType) or _is_view(t):
                from tilec.dialects.layout_attrs import tensor_argument_message

                raise ExecutionError(fn, tensor_argument_message(name, t))
            if name not in scalars:
                raise ExecutionError(
                    fn,
                    f"argument %{name} : {t} needs a value: give it with `--arg {name}=N` "
                    f"(tilec), args={{'{name}': N}} (Python) or an attribute "
                    f"{ARGS_ATTR} = {{{name} = N : index}} on @{fn.sym_name.data}",
                )
            v = scalars[name]
            out[name] = dtype_of(t).type(v) if isinstance(v, float) else v
    for name, arg in zip(arg_names(fn), fn.body.block.args):
        t = arg.type
        if not is_buffer_type(t):
            continue
        n = (sizes or {}).get(name)
        if n is None:
            n = known.get(name)
        if n is None:
            n = scalars.get(name)
        if n is None:
            raise ExecutionError(
                fn,
                f"the number of elements of buffer %{name} : {t} is not known from the "
                f"IR: give it with `--arg {name}=N` (tilec), sizes={{'{name}': N}} "
                f"(Python) or an attribute {ARGS_ATTR} = {{{name} = N : index}} on "
                f"@{fn.sym_name.data}",
            )
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
            raise ExecutionError(
                fn,
                f"buffer %{name} : {t} cannot have {n} elements: a buffer's number of "
                "elements is an integer >= 0",
            )
        if n > MAX_ELEMENTS:
            raise ExecutionError(
                fn,
                f"buffer %{name} : {t} would have {n} elements, too many for the CPU "
                f"reference executor (at most {MAX_ELEMENTS})",
            )
        dt = buffer_dtype(t)
        eff = effects.get(name, {"read"})
        if "atomic" in eff:  # counters: zero on entry, as a program counting with atomics asks
            out[name] = np.zeros(n, dtype=dt)
        elif "read" not in eff:
            out[name] = np.full(n, poison_value(dt), dtype=dt)
        elif dt.kind == "f":
            out[name] = rng.standard_normal(n).astype(dt)
        elif dt == np.bool_:
            out[name] = rng.integers(0, 2, n).astype(bool)
        elif dt == np.uint8 and _f8_buffer(t) is not None:
            from tilec.dialects.dtypes import to_f8

            out[name] = to_f8(rng.standard_normal(n), _f8_buffer(t))
        elif dt == np.uint16 and _is_bf16_buffer(t):
            out[name] = (rng.standard_normal(n).astype(np.float32).view(np.uint32) >> 16).astype(
                np.uint16
            )
        else:
            lo, hi = (-1000, 1000) if dt.itemsize > 1 else (-128, 128)
            out[name] = rng.integers(lo, hi, n).astype(dt)
    return out


def _f8_buffer(t: Attribute) -> str | None:
    """The 8-bit float element of a buffer type, or None."""
    from tilec.dialects.dtypes import F8_FORMATS, element_of

    e = element_of(getattr(t, "element_type", t))
    return e.name if e is not None and e.name in F8_FORMATS else None


def _is_bf16_buffer(t: Attribute) -> bool:
    from xdsl.dialects.builtin import BFloat16Type

    return isinstance(getattr(t, "element_type", None), BFloat16Type)


# ------------------------------------------------------------------------ equivalence


@dataclass
class Difference:
    buffer: str
    index: int
    before: Any
    after: Any
    count: int

    def __str__(self) -> str:
        return (
            f"buffer %{self.buffer} differs at flat index {self.index}: "
            f"{fmt_value(self.before)} before, {fmt_value(self.after)} after "
            f"({self.count} element(s) differ)"
        )


@dataclass
class EquivalenceReport:
    """Outcome of `check_equivalence`: truthy when every buffer is bitwise equal, or,
    in a program with a float `layout.mma`, every float buffer within `tolerance`
    (`mma_tolerance`) and every other buffer bitwise equal."""

    seed: int
    inputs: dict[str, Any]
    before: dict[str, np.ndarray]
    after: dict[str, np.ndarray]
    differences: list[Difference] = field(default_factory=list[Difference])
    tolerance: float | None = None

    @property
    def equal(self) -> bool:
        return not self.differences

    @property
    def first_difference(self) -> Difference | None:
        return self.differences[0] if self.differences else None

    def __bool__(self) -> bool:
        return self.equal

    def __str__(self) -> str:
        if self.equal:
            return f"equivalent (seed {self.seed}, buffers {sorted(self.before)}){self.tolerance_note}"
        return f"not equivalent (seed {self.seed}): " + "; ".join(
            str(d) for d in self.differences
        )

    @property
    def tolerance_note(self) -> str:
        """`""` or, when floats were compared with the MMA tolerance, what it was."""
        if self.tolerance is None:
            return ""
        return f"; float buffers within the layout.mma tolerance {self.tolerance:.3g}"


def mma_tolerance(records: Sequence[Any]) -> float | None:
    """The absolute difference two correct runs of a program may show in a float
    result of its `layout.mma` ops (docs/testing.md): the largest, over the MMAs run
    (`mma_impls.MmaRecord`), of 2 gamma(K+1) (|acc| + sum |a||b|) + 2 input_error
    sum |a||b| (`layout_mma.mma_error_bound`); None when the program ran no float MMA."""
    from tilec.dialects.layout_mma import mma_error_bound

    if not records:
        return None
    tol = 0.0
    for r in records:
        gamma, inp = mma_error_bound(r.k, r.operand_type)
        tol = max(tol, 2 * gamma * r.magnitude + 2 * inp * r.products)
    return tol


def _within(a: np.ndarray, b: np.ndarray, atol: float, bf16: bool) -> np.ndarray:
    """Elementwise: bitwise equal, or both finite and |a - b| <= atol plus one unit
    in the last place of the buffer's type at the larger magnitude (a stored result
    rounds once more to the buffer's type)."""
    from .values import bf16_to_f32

    same = bits_equal(a, b)
    af = (bf16_to_f32(a) if bf16 else a).astype(np.float64)
    bf = (bf16_to_f32(b) if bf16 else b).astype(np.float64)
    mag = np.maximum(np.abs(af), np.abs(bf))
    ulp = mag * (2.0**-7 if bf16 else float(np.finfo(a.dtype).eps))
    close = np.isfinite(af) & np.isfinite(bf) & (np.abs(af - bf) <= atol + ulp)
    return same | close


def compare_outputs(
    before: Mapping[str, np.ndarray],
    after: Mapping[str, np.ndarray],
    *,
    atol: float | None = None,
    bf16: Iterable[str] = (),
) -> list[Difference]:
    """Buffers compared bit for bit (a NaN equals the same NaN; 0.0 and -0.0 differ);
    the first differing element of each differing buffer. With `atol` (a program with
    a float `layout.mma`: `mma_tolerance`), float buffers (and the bf16 ones named in
    `bf16`, kept as uint16 bits) may differ by `atol` plus one ulp of their type."""
    bf16 = set(bf16)
    diffs: list[Difference] = []
    for name in before:
        a = np.asarray(before[name]).reshape(-1)
        if name not in after:
            diffs.append(Difference(name, -1, "present", "missing", a.size))
            continue
        b = np.asarray(after[name]).reshape(-1)
        if a.shape != b.shape or a.dtype != b.dtype:
            diffs.append(
                Difference(name, -1, f"{a.dtype}[{a.size}]", f"{b.dtype}[{b.size}]", a.size)
            )
            continue
        if atol is not None and (a.dtype.kind == "f" or name in bf16):
            ne = ~_within(a, b, atol, name in bf16)
        else:
            ne = ~bits_equal(a, b)
        if ne.any():
            i = int(np.argmax(ne))
            diffs.append(Difference(name, i, a[i], b[i], int(ne.sum())))
    return diffs


def check_equivalence(
    module_before: ModuleOp | str,
    module_after: ModuleOp | str,
    seed: int = 0,
    entry: str | None = None,
    *,
    args: Mapping[str, int] | None = None,
    sizes: Mapping[str, int] | None = None,
) -> EquivalenceReport:
    """Run both modules on the same random inputs (made from `module_before`, falling
    back to `module_after` for what it cannot size) and compare every buffer bitwise.
    An `ExecutionError` of either run propagates, with a note saying which run."""
    if isinstance(module_before, str):
        module_before = parse(module_before, "<before>")
    if isinstance(module_after, str):
        module_after = parse(module_after, "<after>")
    try:
        inputs = random_inputs(module_before, seed, entry, args=args, sizes=sizes)
    except ExecutionError as first:
        try:
            inputs = random_inputs(module_after, seed, entry, args=args, sizes=sizes)
        except ExecutionError:
            raise first from None  # about the program as written, not as transformed
    results = []
    records: list[Any] = []
    for which, m in (("before", module_before), ("after", module_after)):
        try:
            results.append(run(m, inputs, entry, mma_records=records))
        except ExecutionError as e:
            e.add_note(f"(while running the module {which} the transformation, seed {seed})")
            raise
    before, after = results
    atol = mma_tolerance(records)
    bf16 = bf16_buffers(module_before, entry)
    diffs = compare_outputs(before, after, atol=atol, bf16=bf16)
    return EquivalenceReport(seed, inputs, before, after, diffs, atol)


def bf16_buffers(module: ModuleOp, entry: str | None = None) -> set[str]:
    """Names of the buffer arguments of `entry` whose elements are bf16."""
    fn = entry_function(module, entry)
    return {
        name for name, arg in zip(arg_names(fn), fn.body.block.args)
        if is_buffer_type(arg.type) and _is_bf16_buffer(arg.type)
    }


def kernels(module: ModuleOp) -> Iterable[gpu.FuncOp]:
    return (op for op in module.walk() if isinstance(op, gpu.FuncOp))


__all__ = [
    "ARGS_ATTR",
    "Difference",
    "EquivalenceReport",
    "ExecutionError",
    "check_equivalence",
    "compare_outputs",
    "mma_tolerance",
    "entry_function",
    "poison_value",
    "random_inputs",
    "run",
]
