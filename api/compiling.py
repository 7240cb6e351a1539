"""`tilec.compile` with its in-process cache: a program compiled before (the same IR
text, pipeline, arch and host function) returns the same Kernel without running the
pipeline again. The disk cache (runtime/cache.py) keeps the NVRTC output across
processes; this one keeps the whole Kernel within one.

A pointer-tensor program (Gluon's `gl.load` kernels) with integer arguments, or
pointers whose type promises less than 16 bytes of alignment, is specialised at launch
time as Triton specialises it (compiler/specialize.py): each call's key is, per such
argument, (== 1, % 16 == 0) of an integer and (address % 16 == 0) of a pointer; one
kernel is compiled per key and cached (`SpecializingKernel`).

Any other program with index arguments whose kernel computes 64-bit indices (buffers of
run-time size) is compiled a second time under the promise `tilec.index_bits = 32`; each
call runs that one where its index arguments are within the limit that keeps every index
value in 32 bits (compiler/index_bounds.py, `IndexWidthKernel`), as Triton checks on the
host whether its pointer offsets need 64 bits: a row kernel over M rows of N elements runs
in 32 bits while M * N < 2^31."""

from __future__ import annotations

import numbers
import threading
from collections.abc import Sequence
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, ModuleOp

from tilec.compiler.index_bounds import index_limit
from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.compiler.signature import argument_specs
from tilec.compiler.specialize import DIVISOR, Facts, is_pointer_program, specialisable, specialize
from tilec.runtime.launch import Kernel, as_device_array, call_key
from tilec.support.diagnostics import TilecError
from tilec.support.index_width import promise_index_bits, promised_index_bits
from tilec.support.target import set_target

_compiled: dict[tuple, Any] = {}
_lock = threading.Lock()


def compile_program(
    program: str | ModuleOp, pipeline: str, *, arch: str | None = None, function: str | None = None,
    specialize: bool = False, verify_each_pass: bool = False, fresh: bool = False,
) -> Any:
    """`tilec.compile` of IR text or a module (see there). With `specialize`, a
    pointer-tensor program comes back as a `SpecializingKernel` (the module docstring);
    the copy kernels of `tilec.copy_`, specialised by their own keys, leave it off.

    The pipeline verifies the module after its first and its last pass only, unless
    `verify_each_pass` (`run_pipeline`'s: a broken pass is then named). `fresh`: the
    module was built and verified for this call (`Program.module`) and is the
    compiler's to change (not copied; not verified again before the last pass), and
    the caller keeps its kernels by a key of its own (`tilec.matmul`'s `MatmulKey`):
    the module is neither printed for this cache's key nor kept in it."""
    key = None
    if not fresh:
        text = program if isinstance(program, str) else emit(program)
        key = (text, pipeline, arch, function, specialize, verify_each_pass)
        kernel = _compiled.get(key)
        if kernel is not None:
            return kernel
    module = (parse_module(program, "<program>") if isinstance(program, str)
              else program if fresh else program.clone())
    if not any(isinstance(op, func.FuncOp) and not op.is_declaration for op in module.walk()):
        raise TilecError("nothing to compile: the program has no function (`func.func`); a kernel is "
                         "a function whose body makes views of its pointer arguments and copies or "
                         "launches on them")
    if arch is not None:
        set_target(module, arch)  # the verifier and the passes read it
    f = _function_of(module, function) if specialize else None
    source = module.clone() if f is not None and is_pointer_program(f) and any(specialisable(f)) else None
    narrow = module.clone() if source is None and f is not None and pipeline and _narrowable(f) else None
    kernel: Any = _build(module, pipeline, arch, function, verify_each_pass, input_verified=fresh)
    if source is not None:
        kernel = SpecializingKernel(source, pipeline, arch, function, kernel, verify_each_pass)
    elif narrow is not None and any(i.index_bits == 64 for i in kernel.infos.values()):
        kernel = _index_width_kernel(narrow, pipeline, arch, function, kernel, verify_each_pass)
    if key is None:
        return kernel
    with _lock:
        return _compiled.setdefault(key, kernel)


def _build(module: ModuleOp, pipeline: str, arch: str | None, function: str | None,
           verify_each_pass: bool = False, input_verified: bool = False) -> Kernel:
    specs = argument_specs(module)
    if pipeline:
        run_pipeline(module, pipeline, verify_each_pass=verify_each_pass, input_verified=input_verified)
    return Kernel(module, function=function, arg_specs=specs, arch=arch)


def _narrowable(f: func.FuncOp) -> bool:
    """Whether `f` may get a 32-bit twin (`IndexWidthKernel`): it takes index arguments
    and promises no index width of its own."""
    return promised_index_bits(f) is None and any(isinstance(a.type, IndexType) for a in f.body.block.args)


def _index_width_kernel(module: ModuleOp, pipeline: str, arch: str | None, function: str | None,
                        generic: Kernel, verify_each_pass: bool) -> Any:
    """`generic` with a 32-bit twin where one exists for some arguments: `module` (the
    program before the passes) compiled under the promise `tilec.index_bits = 32`, and
    the limit of its index arguments (compiler/index_bounds.py); `generic` alone where
    the limit is 0."""
    f = _function_of(module, function)
    assert f is not None
    promise_index_bits(f, 32)
    narrow = _build(module, pipeline, None, function, verify_each_pass)
    limit = index_limit(narrow.module, function)
    if limit == 0:
        return generic
    if arch is not None:
        narrow.compile(arch)
    return IndexWidthKernel(generic, narrow, limit)


class IndexWidthKernel:
    """A kernel compiled twice, with 64-bit and with 32-bit indices, that runs the 32-bit
    one where every index argument of a call is in [0, limit] (the module docstring of
    compiler/index_bounds.py: every index value the kernel computes then fits in 32
    bits), as Triton checks on the host whether pointer offsets need 64 bits. It reads
    as the 64-bit Kernel (`source`, `module`, `launches`); `specialization(*args)` is the
    Kernel a call with `args` runs."""

    def __init__(self, generic: Kernel, narrow: Kernel, limit: int):
        self.generic, self.narrow, self.limit = generic, narrow, limit
        self._index_args = [i for i, t in enumerate(generic._arg_types) if isinstance(t, IndexType)]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.generic, name)

    def specialization(self, *args: Any) -> Kernel:
        """The 32-bit Kernel where every index argument is an int in [0, limit], else the 64-bit one."""
        if len(args) != len(self.generic.arg_names):
            return self.generic  # its call reports the mistake
        for i in self._index_args:
            v = args[i]
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or not 0 <= int(v) <= self.limit:
                return self.generic
        return self.narrow

    def launches(self, *args: Any) -> list:
        return self.specialization(*args).launches(*args)

    def __call__(self, *args: Any, stream: Any = None) -> None:
        self.specialization(*args)(*args, stream=stream)


def _function_of(module: ModuleOp, name: str | None) -> func.FuncOp | None:
    fs = [op for op in module.walk() if isinstance(op, func.FuncOp) and not op.is_declaration]
    if name is not None:
        fs = [f for f in fs if f.sym_name.data == name]
    return fs[0] if len(fs) == 1 else None


def _address(name: str, value: Any) -> int:
    """The data address of an array argument: a device array's, or for a NumPy array
    (a key computed without a GPU) its host address."""
    interface = getattr(value, "__array_interface__", None)
    if interface is not None and not hasattr(value, "__cuda_array_interface__"):
        return int(interface["data"][0])
    return as_device_array(name, value).ptr


_CALLS_KEPT = 256
"""How many calls a `SpecializingKernel` remembers the kernel of (all dropped past it)."""


class SpecializingKernel:
    """A pointer-tensor Kernel specialised per call on its arguments' facts (see the
    module docstring). It reads as the generic Kernel (`source`, `module`, `launches`:
    the kernel compiled with no fact known); `specialization(*args)` is the Kernel a
    call with `args` runs, `key(args)` its key."""

    def __init__(self, module: ModuleOp, pipeline: str, arch: str | None, function: str | None,
                 generic: Kernel, verify_each_pass: bool = False):
        self.generic = generic
        self._module = module
        self._pipeline, self._arch, self._function = pipeline, arch, function
        self._verify_each_pass = verify_each_pass
        f = _function_of(module, function)
        assert f is not None
        self._kinds = specialisable(f)
        self._names = [a.name_hint or f"arg{i}" for i, a in enumerate(f.body.block.args)]
        self._kernels: dict[tuple[Facts, ...], Kernel] = {}
        self._by_call: dict[tuple, Kernel] = {}
        """The kernel of each call seen (`call_key`: the arguments' pointers, shapes,
        strides and values, which fix the facts), so a repeated call skips `key`."""
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.generic, name)

    def key(self, args: Sequence[Any]) -> tuple[Facts, ...]:
        """Per argument: (== 1, % 16 == 0) of an integer, (aligned, aligned) of a pointer
        whose address is a multiple of 16 bytes, None otherwise."""
        if len(args) != len(self._kinds):
            raise TilecError(f"'{self.generic.name}' takes {len(self._kinds)} arguments "
                             f"({', '.join(self._names)}), got {len(args)}")
        out: list[Facts] = []
        for kind, name, v in zip(self._kinds, self._names, args):
            if kind == "int" and isinstance(v, numbers.Integral) and not isinstance(v, bool):
                out.append((int(v) == 1, int(v) % DIVISOR == 0))
            elif kind == "ptr":
                aligned = _address(name, v) % DIVISOR == 0
                out.append((aligned, aligned))
            else:
                out.append(None)
        return tuple(out)

    def specialization(self, *args: Any) -> Kernel:
        """The Kernel compiled for the facts of `args` (the generic one where none holds)."""
        key = self.key(args)
        if not any(k is not None and any(k) for k in key):
            return self.generic
        kernel = self._kernels.get(key)
        if kernel is None:
            module = self._module.clone()
            f = _function_of(module, self._function)
            assert f is not None
            specialize(f, key)
            kernel = _build(module, self._pipeline, self._arch, self._function, self._verify_each_pass)
            with self._lock:
                kernel = self._kernels.setdefault(key, kernel)
        return kernel

    def launches(self, *args: Any) -> list:
        return self.specialization(*args).launches(*args)

    def __call__(self, *args: Any, stream: Any = None) -> None:
        ck = call_key(args)
        kernel = self._by_call.get(ck) if ck is not None else None
        if kernel is None:
            kernel = self.specialization(*args)
            if ck is not None:
                if len(self._by_call) >= _CALLS_KEPT:
                    self._by_call.clear()
                self._by_call[ck] = kernel
        kernel.call_keyed(ck, args, stream)


def clear() -> None:
    """Forget the kernels compiled in this process (the disk cache stays)."""
    with _lock:
        _compiled.clear()
