"""What `tilec FILE --run cpu` and `tilec FILE -p PIPELINE --check-equivalence` print.

Both return text for the driver to write; problems (an `ExecutionError`, outputs that
differ) are `TilecError`s, which the driver prints with their location and turns into
exit status 1.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tilec.support.diagnostics import TilecError

from .api import (
    buffer_effects,
    check_equivalence,
    entry_function,
    host_functions,
    poison_value,
    random_inputs,
    run,
)
from .values import bits_equal


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


def _describe(name: str, a: np.ndarray, role: str) -> str:
    flat = a.reshape(-1)
    head = ", ".join(str(x) for x in flat[:4]) + (", ..." if flat.size > 4 else "")
    text = f"//   %{name}: {flat.size} x {a.dtype} ({role}) [{head}]"
    if role == "output":
        left = int(bits_equal(flat, np.full(flat.shape, poison_value(a.dtype), a.dtype)).sum())
        text += f"; {left} element(s) never written" if left else "; every element written"
    if a.dtype.kind == "f" and flat.size:
        finite = flat[np.isfinite(flat)]
        if finite.size:
            text += f"; sum {float(finite.astype(np.float64).sum()):.6g}"
    return text


def run_cpu_cli(module: ModuleOp, seed: int = 0, values: dict[str, int] | None = None) -> str:
    """Run each host function on random inputs (`random_inputs(module, seed)`; `values`,
    from `--arg NAME=INT`, give index arguments and buffer sizes) and summarise its
    buffers."""
    lines = []
    for name in _roots(module):
        fn = entry_function(module, name)
        inputs = random_inputs(module, seed, name, args=values, sizes=values)
        out = run(module, inputs, name)
        effects = buffer_effects(module, fn)
        lines.append(f"// @{name} on the CPU reference executor (seed {seed}): ok")
        for buf, arr in out.items():
            role = "output" if "read" not in effects.get(buf, {"read"}) else (
                "input/output" if "write" in effects.get(buf, set()) else "input"
            )
            lines.append(_describe(buf, arr, role))
        scalars = {k: v for k, v in inputs.items() if k not in out}
        if scalars:
            lines.append("//   " + ", ".join(f"%{k} = {v}" for k, v in scalars.items()))
    if not lines:
        raise TilecError("nothing to run: the module has no host function (func.func)")
    return "\n".join(lines) + "\n"


def _clone_with_locations(module: ModuleOp) -> ModuleOp:
    from tilec.support.locations import get_loc, set_loc

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
