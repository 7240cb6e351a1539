"""What `tilec FILE --run cpu` and `tilec FILE -p PIPELINE --check-equivalence` print.

Both return text for the driver to write; problems (an `ExecutionError`, outputs that
differ) are `TilecError`s, which the driver prints with their location and turns into
exit status 1.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tilec.support.diagnostics import TilecError
from tilec.support.locations import get_loc

from .api import (
    buffer_effects,
    check_equivalence,
    entry_function,
    host_functions,
    random_inputs,
    run,
)
from .memory import audit_writes

PARTIAL_ATTR = "tilec.partial"
"""The argument attribute by which a program says that it writes only part of an output
buffer on purpose (`func.func @f(%dst: !layout.ptr<f32> {tilec.partial})`): `--run cpu`
then reports the elements left unwritten instead of failing."""


def _roots(module: ModuleOp) -> list[str]:
    """Host functions no other function calls: the ones to run."""
    fns = host_functions(module)
    called = {
        op.callee.root_reference.data  # type: ignore[attr-defined]
        for f in fns
        for op in f.walk()
        if op.name == "func.call"
    }
    return [f.sym_name.data for f in fns if f.sym_name.data not in called]


def _partial_arguments(fn) -> set[str]:
    """Names of `fn`'s arguments marked `{tilec.partial}`."""
    from .api import arg_names

    if fn.arg_attrs is None:
        return set()
    return {name for name, attrs in zip(arg_names(fn), fn.arg_attrs.data) if PARTIAL_ATTR in attrs.data}


def _as_numbers(flat: np.ndarray, dtype_name: str | None) -> np.ndarray:
    """bf16 buffers travel as uint16 bit patterns: their values, for printing."""
    if dtype_name == "bf16":
        return (flat.astype(np.uint32) << 16).view(np.float32)
    return flat


def _describe(name: str, a: np.ndarray, role: str, unwritten: int | None = None,
              dtype_name: str | None = None) -> str:
    flat = _as_numbers(a.reshape(-1), dtype_name)
    head = ", ".join(str(x) for x in flat[:4]) + (", ..." if flat.size > 4 else "")
    text = f"//   %{name}: {flat.size} x {dtype_name or a.dtype} ({role}) [{head}]"
    if unwritten is not None:
        text += f"; {unwritten} element(s) never written (partial output)" if unwritten else "; every element written"
    if flat.dtype.kind == "f" and flat.size:
        finite = flat[np.isfinite(flat)]
        if finite.size:
            text += f"; sum {float(finite.astype(np.float64).sum()):.6g}"
    return text


def _buffer_dtype_names(fn) -> dict[str, str]:
    """The element type's name of each buffer argument whose NumPy storage does not say
    it (bf16 is stored as its uint16 bits)."""
    from .api import arg_names

    out = {}
    for name, arg in zip(arg_names(fn), fn.body.block.args):
        element = getattr(arg.type, "element_type", None)
        if element is not None and str(element) == "bf16":
            out[name] = "bf16"
    return out


def run_cpu_cli(module: ModuleOp, seed: int = 0, values: dict[str, int] | None = None) -> str:
    """Run each host function on random inputs (`random_inputs(module, seed)`; `values`,
    from `--arg NAME=INT`, give index arguments and buffer sizes) and summarise its
    buffers."""
    lines = []
    for name in _roots(module):
        fn = entry_function(module, name)
        inputs = random_inputs(module, seed, name, args=values, sizes=values)
        with audit_writes(strict=False) as audit:
            out = run(module, inputs, name)
        effects = buffer_effects(module, fn)
        partial = _partial_arguments(fn)
        types = _buffer_dtype_names(fn)
        described = []
        for buf, arr in out.items():
            role = "counter" if "atomic" in effects.get(buf, ()) else "output" if "read" not in effects.get(
                buf, {"read"}) else (
                "input/output" if "write" in effects.get(buf, set()) else "input"
            )
            unwritten = None
            if role == "output":
                written = audit.written.get("%" + buf, np.zeros(arr.size, bool))
                unwritten = int(arr.size - written[: arr.size].sum())
                if unwritten and buf not in partial:
                    first = int(np.flatnonzero(~written[: arr.size])[0])
                    raise TilecError(
                        f"@{name}: {unwritten} of the {arr.size} element(s) of output %{buf} were "
                        f"never written (the first at flat index {first}; seed {seed}): the grid or "
                        f"the tiles do not cover the output. If the program writes part of %{buf} on "
                        f"purpose, mark the argument `{{{PARTIAL_ATTR}}}`",
                        loc=get_loc(fn),
                    )
            described.append(_describe(buf, arr, role, unwritten, types.get(buf)))
        lines.append(f"// @{name} on the CPU reference executor (seed {seed}): ok")
        lines.extend(described)
        scalars = {k: v for k, v in inputs.items() if k not in out}
        if scalars:
            lines.append("//   " + ", ".join(f"%{k} = {v}" for k, v in scalars.items()))
    if not lines:
        raise TilecError("nothing to run: the module has no host function (func.func)")
    return "\n".join(lines) + "\n"


def _clone_with_locations(module: ModuleOp) -> ModuleOp:
    from tilec.support.locations import set_loc

    copy = module.clone()
    for a, b in zip(module.walk(), copy.walk()):
        set_loc(b, get_loc(a))
    return copy


def _split_passes(spec: str) -> list[str]:
    """'tile{tile=64,64},distribute' -> ['tile{tile=64,64}', 'distribute']."""
    parts, depth, cur = [], 0, ""
    for ch in spec:
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return [p for p in parts if p]


def check_equivalence_cli(
    module: ModuleOp, passes: str, seed: int = 0, each: bool = False,
    values: dict[str, int] | None = None,
) -> str:
    """Run `module` before and after `passes` (after each pass, with `each`) on the same
    random inputs; a difference is a TilecError naming the pass, the buffer, the
    element and both values."""
    from tilec.compiler.pipeline import expand_pipeline, run_pipeline

    if not passes:
        raise TilecError("--check-equivalence needs a pipeline (-p)")
    steps = _split_passes(expand_pipeline(passes)) if each else [passes]
    lines = []
    for name in _roots(module):
        after = _clone_with_locations(module)
        done: list[str] = []
        for step in steps:
            run_pipeline(after, step)
            done.append(step)
            report = check_equivalence(module, after, seed, name, args=values, sizes=values)
            where = ",".join(done)
            if not report:
                raise TilecError(f"@{name} is not equivalent after '{where}' (seed {seed}): "
                                 f"{report.first_difference}")
            lines.append(f"// @{name}: equivalent after '{where}' (seed {seed}, "
                         f"buffers {', '.join('%' + b for b in report.before)})"
                         f"{report.tolerance_note}")
    return "\n".join(lines) + "\n"
