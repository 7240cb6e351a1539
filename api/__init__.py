"""tilec: a compiler for GPU data movement.

The Python API in one screen:

    import tilec
    k = tilec.compile(program)                 # default pipeline, NVRTC, kernel cache
    k(src, dst)                                # CuPy arrays or PyTorch tensors
    print(k.source)                            # the CUDA C++ it compiled

    m = tilec.parse(text)                      # a verified xDSL module
    tilec.run_pipeline(m, "tile,distribute")   # passes by name, in place
    print(tilec.emit(m, "cuda"))               # CUDA C++ (or "mlir")
    outs = tilec.run_reference(m, inputs)      # the CPU reference executor
    outs = tilec.run_reference(k, inputs)      # ... on what the GPU would run
    tilec.gpu_available()                      # is there a CUDA GPU to launch on?

    A = tilec.HostTensor(np_array, "(8,24)")   # a layout over host memory (CuTe's
    A.tile((1, 2), (4, 8))[0, 3] = 1.0         #   make_tensor on a host pointer):
    print(A[:, 5])                             #   tile/slice/vectorize, read, write, print

    y = tilec.matmul(x, w, bias=b, activation="silu")   # Hopper GEMM + epilogue
    tilec.copy_(dst, src)                      # PyTorch/CuPy arrays: strided, broadcast,
    y = tilec.contiguous(x)                    #   dtype-converting copies, one kernel
    y = tilec.permute(x, (0, 3, 1, 2))         #   per pattern (docs/pytorch-cupy.md)
    o = tilec.attention(q, k, v, causal=True)  # flash attention on torch tensors (docs/attention.md)

Programs can also be built without IR text: `tilec.Program` (see compiler/builder.py).
Wherever a module is taken, a `Program` is accepted too (its `.module` is used).
"""

from __future__ import annotations

__version__ = "0.2.0"

DEFAULT_PIPELINE = "default"


def _module_of(program):
    """The module of a `Program`; anything else is returned as is."""
    from tilec.compiler.builder import Program

    return program.module if isinstance(program, Program) else program


def parse(text: str, name: str = "<string>"):
    """Parse and verify IR text; TilecError (with file:line:col) on bad input, and on
    something that is not text (a module is already parsed: pass it on as it is).

        module = tilec.parse(open("examples/transpose.mlir").read(), "transpose.mlir")
    """
    from tilec.compiler.pipeline import parse_module
    from tilec.support.diagnostics import TilecError

    if not isinstance(text, str):
        raise TilecError(f"tilec.parse takes IR text (a str), not {type(text).__name__}")
    return parse_module(text, name)


def run_pipeline(module, pipeline: str = DEFAULT_PIPELINE):
    """Run a pass pipeline (`-p` syntax, or a named pipeline) on `module` in place and
    return it. A `Program`'s module is changed in place too."""
    from tilec.compiler.pipeline import run_pipeline as _run

    return _run(_module_of(module), pipeline)


def emit(module, target: str = "mlir") -> str:
    """Print `module` (or a `Program`) as MLIR text or as CUDA C++ (`target="cuda"`;
    the module must be at the GPU level, i.e. after `lower-to-gpu`)."""
    from tilec.compiler.pipeline import emit as _emit

    return _emit(_module_of(module), target)


def arg_specs(module):
    """Launch-time checks for each pointer argument of a whole-tensor program: element
    type, the number of elements its views reach, the pointer's alignment."""
    from tilec.compiler.signature import argument_specs

    return argument_specs(_module_of(module))


def compile(program, pipeline: str = DEFAULT_PIPELINE, *, arch: str | None = None, function: str | None = None):
    """Compile a tilec program (text, module or `Program`, at any level) into a callable
    Kernel.

    The program is copied (the caller's module is left as it was), run through
    `pipeline`, printed as CUDA, and returned as a `tilec.runtime.launch.Kernel`:
    `k(*arrays)` checks each argument against the IR and launches; `k.source` is the
    CUDA C++, `k.module` the GPU-level module. With `arch` (`"sm_90"`) it is compiled
    by NVRTC (through the kernel cache) at once, which needs no GPU; without, it is
    compiled for the current device on its first call.

    A program compiled before in this process (the same IR text, pipeline, arch and
    function) returns the same Kernel at once: no pass runs again (tilec.compiling).
    A pointer-tensor program (Gluon's `gl.load` kernels) is specialised at launch time
    as Triton does: per integer argument on `== 1` and `% 16 == 0`, per pointer on
    16-byte alignment, one kernel per key (`tilec.compiling.SpecializingKernel`; its
    `specialization(*args)` is the Kernel a call runs). A program whose kernel needs
    64-bit indices for some run-time sizes gets a 32-bit twin for the others
    (`tilec.compiling.IndexWidthKernel`: a row kernel runs in 32 bits while M * N < 2^31).
    The Kernel's `module` is shared between such calls; treat it as read-only."""
    from tilec.compiling import compile_program

    return compile_program(_module_of(program), pipeline, arch=arch, function=function, specialize=True)


def run_reference(module, inputs, **kwargs):
    """Run a program on NumPy arrays with the CPU reference executor.

    `module`: IR text, a module at any level, a `Program`, or a compiled `Kernel` (its
    GPU-level module runs: the very code the GPU would run). `inputs`: the arguments by
    name (`{"src": x, "dst": y}`) or in order; anything `numpy.asarray` takes (a
    PyTorch CPU tensor too). Inputs are never changed; returns every buffer argument
    after the run by name, as NumPy arrays shaped like the inputs. Keyword arguments
    go to `tilec.runtime.reference.run` (`entry=` names the function)."""
    from tilec.runtime.launch import Kernel
    from tilec.runtime.reference import run

    from tilec.compiling import IndexWidthKernel, SpecializingKernel

    if isinstance(module, SpecializingKernel | IndexWidthKernel):
        module = module.generic
    if isinstance(module, Kernel):
        kwargs.setdefault("entry", module.name)
        module = module.module
    return run(_module_of(module), inputs, **kwargs)


def gpu_available() -> bool:
    """True when CuPy is installed and sees at least one CUDA device (nothing raises:
    no CuPy, no driver or no device is False)."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - the contract: nothing raises (no CuPy, no driver, no device)
        return False


def copy_(dst, src):
    """`dst[...] = src` on device arrays, like `torch.Tensor.copy_` (broadcast, dtype
    conversion, any strides); returns dst. See `tilec.tensor_copy.copy_`."""
    from tilec.tensor_copy import copy_ as impl

    _register_torch_ops_if_torch_is_loaded()
    # Imported on first use; from then on `tilec.copy_` is the implementation itself,
    # one Python call less on the hot path of cached copies.
    globals()["copy_"] = impl
    return impl(dst, src)


def contiguous(x):
    """A new C-contiguous copy of the device array `x`, in its framework."""
    from tilec.tensor_copy import contiguous as _contiguous

    _register_torch_ops_if_torch_is_loaded()
    return _contiguous(x)


def attention(q, k, v, causal: bool = False, scale: float | None = None, return_lse: bool = False):
    """Flash-attention forward on PyTorch CUDA tensors, as
    `F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)` (GQA
    too): `out`, or `(out, lse)` with `return_lse`. See `tilec.attention_op`."""
    from tilec.attention_op import attention as impl

    return impl(q, k, v, causal, scale, return_lse)


def permute(x, dims):
    """`x.permute(dims).contiguous()` on a device array, in its framework."""
    from tilec.tensor_copy import permute as _permute

    _register_torch_ops_if_torch_is_loaded()
    return _permute(x, dims)


def matmul(a, b, *, bias=None, activation=None, residual=None, out_dtype=None, out=None, scale_a=None, scale_b=None):
    """`epilogue(a @ b)` in one kernel on a Hopper GPU (bf16/f16 PyTorch or CuPy
    tensors, or FP8 e4m3/e5m2 with per-tensor scales `scale_a`, `scale_b`; f32
    accumulation, optional bias, ReLU/GELU/SiLU, residual, output dtype); the kernel and its configuration are chosen from the shape, one compiled kernel
    serving every M. See `tilec.matmul` in api/gemm.py and docs/matmul.md.

        y = tilec.matmul(x, w, bias=b, activation="silu")
    """
    from tilec.gemm import matmul as impl

    globals()["matmul"] = impl
    return impl(a, b, bias=bias, activation=activation, residual=residual, out_dtype=out_dtype, out=out,
                scale_a=scale_a, scale_b=scale_b)


def _register_torch_ops_if_torch_is_loaded() -> None:
    """Where torch is imported, register tilec's PyTorch operators (tilec.torch_ops), so
    that `torch.compile` traces `copy_`, `contiguous` and `permute` as operators. Called
    when tilec is imported and on the first call of each of the three."""
    import sys

    if "torch" in sys.modules and "tilec.torch_ops" not in sys.modules:
        import tilec.torch_ops  # noqa: F401 - registers the operators


_register_torch_ops_if_torch_is_loaded()


_JIT_LANGUAGE = frozenset({
    "constexpr", "builder", "program_id", "num_programs", "static_range", "range", "if_", "arange", "full", "zeros",
    "tile", "load", "store", "reduce", "sum", "max", "min", "cumsum", "expand_dims", "broadcast_to", "convert_layout",
    "where", "maximum", "minimum", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "dot", "cdiv", "multiple_of",
    "Tensor"})
"""The names of the jit kernels' language (compiler/jit.py's LANGUAGE; test_jit.py checks they agree)."""


_LAYOUTS = {"Layout": "tilec.dialects.cute", "BlockedLayout": "tilec.dialects.distributed",
            "SliceLayout": "tilec.dialects.distributed", "LinearLayout": "tilec.dialects.linear",
            "NvidiaMmaLayout": "tilec.dialects.mma", "DotOperandLayout": "tilec.dialects.mma",
            "Swizzle": "tilec.dialects.swizzle", "ComposedLayout": "tilec.dialects.swizzle"}
"""Layouts as Python objects, by the module that defines each."""


def __getattr__(name: str):
    if name in ("autotune", "Config"):
        from tilec import autotuning as _autotune_module

        return getattr(_autotune_module, name)
    if name in ("jit", "JITFunction"):
        from tilec import jit_launch as _jit_module

        return getattr(_jit_module, name)
    if name in _JIT_LANGUAGE:
        from tilec.compiler import jit as _lang

        return getattr(_lang, name)
    if name == "show":
        from tilec.layouts import show

        return show
    if name in _LAYOUTS:
        import importlib

        return getattr(importlib.import_module(_LAYOUTS[name]), name)
    if name == "Program":
        from tilec.compiler.builder import Program

        return Program
    if name == "HostTensor":
        from tilec.host_tensor import HostTensor

        return HostTensor
    raise AttributeError(f"module 'tilec' has no attribute {name!r}")
