"""`tilec.compile` with its in-process cache: a program compiled before (the same IR
text, pipeline, arch and host function) returns the same Kernel without running the
pipeline again. The disk cache (runtime/cache.py) keeps the NVRTC output across
processes; this one keeps the whole Kernel within one."""

from __future__ import annotations

import threading

from xdsl.dialects.builtin import ModuleOp

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.compiler.signature import argument_specs
from tilec.runtime.launch import Kernel
from tilec.support.target import set_target

_compiled: dict[tuple, Kernel] = {}
_lock = threading.Lock()


def compile_program(
    program: str | ModuleOp, pipeline: str, *, arch: str | None = None, function: str | None = None
) -> Kernel:
    """`tilec.compile` of IR text or a module (see there)."""
    text = program if isinstance(program, str) else emit(program)
    key = (text, pipeline, arch, function)
    kernel = _compiled.get(key)
    if kernel is not None:
        return kernel
    module = parse_module(program, "<program>") if isinstance(program, str) else program.clone()
    if arch is not None:
        set_target(module, arch)  # the verifier and the passes read it
    specs = argument_specs(module)
    if pipeline:
        run_pipeline(module, pipeline)
    kernel = Kernel(module, function=function, arg_specs=specs, arch=arch)
    with _lock:
        return _compiled.setdefault(key, kernel)


def clear() -> None:
    """Forget the kernels compiled in this process (the disk cache stays)."""
    with _lock:
        _compiled.clear()
