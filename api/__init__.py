"""tilec: a compiler for GPU data movement.

The Python API in one screen:

    import tilec
    k = tilec.compile(text_or_module)          # default pipeline, NVRTC, kernel cache
    k(src, dst)                                # CuPy arrays or PyTorch tensors

    m = tilec.parse(text)                      # a verified xDSL module
    tilec.run_pipeline(m, "tile,distribute")   # passes by name, in place
    print(tilec.emit(m, "cuda"))               # CUDA C++ (or "mlir")
    outs = tilec.run_reference(m, inputs)      # the CPU reference executor

Programs can also be built without IR text: `tilec.Program` (see compiler/builder.py).
"""

from __future__ import annotations

__version__ = "0.1.0"

DEFAULT_PIPELINE = "default"


def parse(text: str, name: str = "<string>"):
    """Parse and verify IR text; TilecError (with file:line:col) on bad input."""
    from tilec.compiler.pipeline import parse_module

    return parse_module(text, name)


def run_pipeline(module, pipeline: str = DEFAULT_PIPELINE):
    """Run a pass pipeline (`-p` syntax, or a named pipeline) on `module` in place."""
    from tilec.compiler.pipeline import run_pipeline as _run

    return _run(module, pipeline)


def emit(module, target: str = "mlir") -> str:
    """Print `module` as MLIR text or as CUDA C++ (`target="cuda"`)."""
    from tilec.compiler.pipeline import emit as _emit

    return _emit(module, target)


def arg_specs(module):
    """Launch-time checks for each pointer argument of a whole-tensor program: element
    type, the number of elements its views reach, the pointer's alignment."""
    from tilec.compiler.signature import argument_specs

    return argument_specs(module)


def compile(program, pipeline: str = DEFAULT_PIPELINE, *, arch: str | None = None, function: str | None = None):
    """Compile a tilec program (text or module, at any level) into a callable Kernel.

    The program is copied, run through `pipeline`, printed as CUDA, compiled by NVRTC
    (through the kernel cache) and returned as a `tilec.runtime.launch.Kernel`:
    `k(*arrays)` checks each argument against the IR and launches."""
    from tilec.compiler.pipeline import parse_module
    from tilec.compiler.pipeline import run_pipeline as _run
    from tilec.runtime.launch import Kernel

    module = parse_module(program, "<program>") if isinstance(program, str) else program.clone()
    specs = arg_specs(module)
    if pipeline:
        _run(module, pipeline)
    return Kernel(module, function=function, arg_specs=specs, arch=arch)


def run_reference(module, inputs, **kwargs):
    """Run a program on NumPy arrays with the CPU reference executor."""
    from tilec.runtime.reference import run

    return run(module, inputs, **kwargs)


def __getattr__(name: str):
    if name == "Program":
        from tilec.compiler.builder import Program

        return Program
    raise AttributeError(f"module 'tilec' has no attribute {name!r}")
