"""Launching GPU-level modules on device arrays.

    kernel = Kernel(module)            # a compiler Artifact, a GPU-level ModuleOp or its text
    kernel(src, dst, n)                # CuPy arrays, PyTorch tensors, anything with
                                       # __cuda_array_interface__ or DLPack; ints for index

`Kernel` consumes the compiler's `Artifact` (compiler/artifact.py: CUDA source, kernel
parameters, argument specs, host function, target): it compiles the source through the
kernel cache (runtime/cache.py) for the current device with the target's NVRTC options,
and on each call checks every argument against its `ArgSpec` (derived from the IR,
refined by the caller's), runs the host function (runtime/host.py) for each launch's
grid, block and arguments, and launches the cubin: through the driver with the
arguments packed once (`Kernel.prepare`, `PreparedCall`: runtime/raw_launch.py), else
through CuPy.

    prepared = kernel.prepare([a, b, c, m], free=[0, 2])   # a and c: per-call pointers
    prepared(stream_handle, [a2_ptr, c2_ptr])               # b, m, grids: the first call's
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from tilec.compiler.artifact import Artifact, build_artifact
from tilec.compiler.cuda import KernelInfo
from tilec.compiler.cuda.kernel_info import TENSOR_MAP
from tilec.compiler.signature import ArgSpec
from tilec.dialects.cuda import Cuda
from tilec.dialects.dtypes import DTYPES
from tilec.runtime import raw_launch
from tilec.runtime.cache import KernelCache, default_cache
from tilec.runtime.host import HostProgram, Launch
from tilec.runtime.nvrtc import CompileResult, KernelResources, resource_usage
from tilec.runtime.tensor_map import TensorMapRequest, encode
from tilec.support.diagnostics import TilecError


def dtype_name(dtype: Any) -> str:
    """A NumPy-style dtype name for a NumPy/CuPy dtype, a type, a string or a torch
    dtype."""
    text = str(dtype)
    if text.startswith("torch."):
        return text[len("torch.") :]
    if text == "bfloat16":
        return text
    try:
        return np.dtype(dtype).name
    except TypeError:
        return text


@dataclass(frozen=True)
class DeviceArray:
    """The facts about a device array that a launch needs."""

    ptr: int
    dtype: str
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    """In elements."""
    device: int | None
    obj: Any
    """The original object (kept alive for the launch)."""

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def is_c_contiguous(self) -> bool:
        expected = 1
        for extent, stride in reversed(list(zip(self.shape, self.strides))):
            if extent != 1 and stride != expected:
                return False
            expected *= extent
        return True


@functools.lru_cache(maxsize=64)
def _typestr_dtype(typestr: str) -> np.dtype:
    return np.dtype(typestr)


@functools.lru_cache(maxsize=64)
def _dtype_name(dtype: np.dtype) -> str:
    return dtype.name


def _host_array_error(name: str, what: str) -> TilecError:
    return TilecError(
        f"argument '{name}' is a host ({what}) array; pass a device array "
        "(CuPy/PyTorch)"
    )


def _current_device() -> int:
    import cupy

    return cupy.cuda.Device().id


def framework_of(kind: type) -> str | None:
    """"torch" for PyTorch's tensor types, "cupy" for CuPy's arrays, else None (the
    one test of which framework made an argument, for every reader of arrays)."""
    module = kind.__module__ or ""
    if module.startswith("torch") and hasattr(kind, "data_ptr"):
        return "torch"
    if module.startswith("cupy") and hasattr(kind, "data"):
        return "cupy"
    return None


_torch_names: dict[Any, str] = {}
"""`dtype_name` of each torch dtype seen (memoised: the readers run per call)."""


def framework_facts(name: str, obj: Any, framework: str) -> tuple[int, str, tuple, tuple, int | None]:
    """(pointer, dtype name, shape, strides in elements, device) of a CuPy array
    (`framework` "cupy") or a PyTorch tensor ("torch", as `framework_of` says of its
    type): the one reader of framework arrays, for `as_device_array` and for
    `tilec.copy_`'s front end (api/tensor_copy.py). TilecError naming the argument for a
    PyTorch CPU tensor."""
    if framework == "cupy":
        itemsize = obj.dtype.itemsize
        return (int(obj.data.ptr), _dtype_name(obj.dtype), tuple(obj.shape),
                tuple(s // itemsize for s in obj.strides), int(obj.device.id))
    if not obj.is_cuda:
        raise _host_array_error(name, "PyTorch CPU")
    dtype = _torch_names.get(obj.dtype)
    if dtype is None:
        dtype = _torch_names[obj.dtype] = dtype_name(obj.dtype)
    return int(obj.data_ptr()), dtype, tuple(obj.shape), tuple(obj.stride()), obj.device.index


def as_device_array(name: str, obj: Any) -> DeviceArray:
    """View `obj` (CuPy array, torch tensor, `__cuda_array_interface__`, DLPack; a
    DeviceArray as it is) as a DeviceArray, or raise a TilecError that names the argument."""
    if isinstance(obj, DeviceArray):
        return obj
    if isinstance(obj, np.ndarray):
        raise _host_array_error(name, "NumPy")
    framework = framework_of(type(obj))
    if framework is not None:
        return DeviceArray(*framework_facts(name, obj, framework), obj=obj)
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is not None:
        dtype = _typestr_dtype(interface["typestr"])
        shape = tuple(interface["shape"])
        if interface.get("strides") is None:
            strides, step = [], 1
            for extent in reversed(shape):
                strides.insert(0, step)
                step *= extent
        else:
            strides = [s // dtype.itemsize for s in interface["strides"]]
        ptr = int(interface["data"][0])
        return DeviceArray(ptr, _dtype_name(dtype), shape, tuple(strides), None, obj)
    if hasattr(obj, "__dlpack__"):
        device_type = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else None
        if device_type in (1, 3):  # kDLCPU, kDLCUDAHost
            raise _host_array_error(name, "DLPack CPU")
        import cupy

        return as_device_array(name, cupy.from_dlpack(obj))
    raise TilecError(
        f"argument '{name}': expected a device array (CuPy, PyTorch, "
        f"__cuda_array_interface__ or DLPack), got {type(obj).__name__}"
    )


_BITS_OF = {d.name: d.element.storage.name for d in DTYPES.values() if d.element.packed}
"""The floats NumPy and CuPy have no type for, and the unsigned integers of their width."""


def _float_bits(spec: ArgSpec, array: DeviceArray) -> bool:
    """A bfloat16 or 8-bit float buffer also takes an unsigned integer array of the same
    width holding the bits (NumPy and CuPy have no such types; the reference executor
    keeps their values that way too, and `tilec --run gpu` passes them so)."""
    return spec.dtype in _BITS_OF and str(array.dtype) == _BITS_OF[spec.dtype]


def check_arg(spec: ArgSpec, array: DeviceArray) -> None:
    """Raise a TilecError naming the argument if `array` does not meet `spec`."""
    name = spec.name
    if spec.dtype is not None and array.dtype != spec.dtype and not _float_bits(spec, array):
        raise TilecError(f"argument '{name}': expected {spec.dtype}, got {array.dtype}")
    if spec.shape is not None:
        ok = len(spec.shape) == len(array.shape) and all(
            e is None or e == a for e, a in zip(spec.shape, array.shape)
        )
        if not ok:
            expected = tuple("?" if e is None else e for e in spec.shape)
            raise TilecError(
                f"argument '{name}': expected shape {expected}, got {array.shape}"
            )
    if spec.strides is not None:
        if tuple(spec.strides) != array.strides:
            raise TilecError(
                f"argument '{name}': expected strides {tuple(spec.strides)} "
                f"(in elements), got {array.strides}"
            )
    elif not array.is_c_contiguous():
        raise TilecError(
            f"argument '{name}' is not contiguous (strides {array.strides} in "
            "elements); pass a contiguous array (e.g. cupy.ascontiguousarray)"
        )
    if array.size < spec.min_elements:
        raise TilecError(
            f"argument '{name}': the kernel accesses {spec.min_elements} elements, "
            f"the array has {array.size}"
        )
    if spec.alignment > 1 and array.ptr % spec.alignment:
        raise TilecError(
            f"argument '{name}': the kernel needs its address aligned to "
            f"{spec.alignment} bytes (vector accesses), got 0x{array.ptr:x}"
        )


def gpu_level_context() -> Context:
    """A context that parses GPU-level IR: xDSL's dialects plus `cuda`."""
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    ctx.load_dialect(Cuda)
    return ctx


def parse_gpu_module(text: str) -> ModuleOp:
    """Parse and verify GPU-level IR text."""
    try:
        module = Parser(gpu_level_context(), text).parse_module()
        module.verify()
    except (ParseError, VerifyException) as e:
        raise TilecError(f"invalid GPU-level IR: {e}") from None
    return module


def _merge(derived: ArgSpec, given: ArgSpec) -> ArgSpec:
    return replace(
        derived,
        dtype=dtype_name(given.dtype) if given.dtype is not None else derived.dtype,
        min_elements=max(derived.min_elements, given.min_elements),
        alignment=max(derived.alignment, given.alignment),
        shape=given.shape if given.shape is not None else derived.shape,
        strides=given.strides if given.strides is not None else derived.strides,
    )


_INT_RANGES = {
    "int8": 8,
    "int16": 16,
    "int32": 32,
    "int64": 64,
}


class Kernel:
    """A compiled GPU-level module, callable on device arrays like its host function.

    module: the compiler's `Artifact`, or a GPU-level `ModuleOp` (docs/gpu-level.md)
        or its text (made into an Artifact).
    function: the host function's name, when the module has more than one.
    arg_specs: checks for buffer arguments, by name; merged with what the IR says
        (dtype, static size, alignment of vector accesses).
    arch: compile now for this architecture (`sm_90`); by default the kernel compiles
        for the current device on its first call.
    """

    def __init__(
        self,
        module: Artifact | ModuleOp | str,
        *,
        function: str | None = None,
        arg_specs: Sequence[ArgSpec] | None = None,
        arch: str | None = None,
        options: Sequence[str] = (),
        cache: KernelCache | None = None,
    ):
        if isinstance(module, str):
            module = parse_gpu_module(module)
        artifact = module if isinstance(module, Artifact) else build_artifact(module, function)
        self.artifact = artifact
        self.module = artifact.module
        self.host = artifact.host
        self.name = artifact.name
        self.host_program = HostProgram(self.host)
        self.infos = artifact.kernels
        self.source = artifact.source
        self.options = (*artifact.nvrtc_options, *options)
        self.cache = cache if cache is not None else default_cache()
        host_args = self.host.body.block.args
        self.arg_names = [arg.name_hint or f"arg{i}" for i, arg in enumerate(host_args)]
        self._arg_types = [arg.type for arg in host_args]
        self.arg_specs = list(artifact.arg_specs)
        for given in arg_specs or ():
            if given.name not in self.arg_names:
                raise TilecError(
                    f"ArgSpec for '{given.name}', but '{self.name}' has no such "
                    f"argument (it has {', '.join(self.arg_names)})"
                )
            index = self.arg_names.index(given.name)
            derived = self.arg_specs[index]
            if derived is None:
                raise TilecError(f"argument '{given.name}' is not a buffer")
            self.arg_specs[index] = _merge(derived, given)
        self._compiled: dict[str, CompileResult] = {}
        self._modules: dict[int, Any] = {}
        self._functions: dict[tuple[int, str], Any] = {}
        self._packed: dict[tuple, PreparedCall] = {}
        """The prepared launches of earlier calls, by `call_key` of their arguments."""
        if arch is not None:
            self.compile(arch)

    # ------------------------------------------------------------ compilation

    def compile(self, arch: str | None = None) -> CompileResult:
        """The compiled module for `arch` (default: the current device's), through the
        cache."""
        result = self.cache.compile(self.source, arch=self._arch(arch), options=self.options)
        self._compiled[result.arch] = result
        return result

    @functools.cached_property
    def uses_tma(self) -> bool:
        """Whether a kernel takes a TMA tensor map."""
        return any(p.dtype == TENSOR_MAP for info in self.infos.values() for p in info.params)

    def _arch(self, arch: str | None) -> str | None:
        """The architecture to compile for: kernels with TMA copies or warpgroup MMA
        compile for the architecture-specific sm_90a on sm_90 (docs/gpu-level.md)."""
        from tilec.runtime.nvrtc import device_arch, needs_arch_specific, normalize_arch

        if not (self.uses_tma or needs_arch_specific(self.source)):
            return arch

        name = normalize_arch(arch) if arch is not None else device_arch()
        return "sm_90a" if name == "sm_90" else name

    @property
    def cubin(self) -> bytes:
        return self._last().cubin

    @property
    def ptx(self) -> str:
        return self._last().ptx

    def resource_usage(self) -> dict[str, KernelResources]:
        """Registers, shared memory and spills of each kernel (ptxas's report)."""
        return resource_usage(self._last())

    def _last(self) -> CompileResult:
        if not self._compiled:
            return self.compile()
        return next(reversed(self._compiled.values()))

    def _function(self, kernel: str) -> Any:
        """The CuPy function for `kernel` on the current device (the cubin is loaded
        once per device)."""
        import cupy

        from tilec.runtime.nvrtc import device_arch

        device = _current_device()
        loaded = self._modules.get(device)
        if loaded is None:
            arch = self._arch(device_arch())
            result = self._compiled.get(arch) or self.compile(arch)
            loaded = cupy.cuda.function.Module()
            loaded.load(result.cubin)
            self._modules[device] = loaded
        key = (device, kernel)
        if key not in self._functions:
            info = self.infos[kernel]
            function = loaded.get_function(info.name)
            if info.dynamic_smem_bytes:
                _allow_dynamic_smem(function, info.dynamic_smem_bytes)
            self._functions[key] = function
        return self._functions[key]

    # ------------------------------------------------------------ launching

    def check_args(self, args: Sequence[Any]) -> list[Any]:
        """Check every argument; return the host function's argument values."""
        if len(args) != len(self.arg_names):
            raise TilecError(
                f"'{self.name}' takes {len(self.arg_names)} arguments "
                f"({', '.join(self.arg_names)}), got {len(args)}"
            )
        values: list[Any] = []
        device = None
        for name, spec, value, arg_type in zip(
            self.arg_names, self.arg_specs, args, self._arg_types
        ):
            if spec is not None:
                array = as_device_array(name, value)
                check_arg(spec, array)
                if array.device is not None:
                    if device is None:
                        device = _current_device()
                    if array.device != device:
                        raise TilecError(
                            f"argument '{name}' is on device {array.device}, but the "
                            f"kernel runs on the current device {device}"
                        )
                values.append(array)
            elif isinstance(arg_type, IndexType | IntegerType):
                if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                    raise TilecError(
                        f"argument '{name}': expected an integer ({arg_type}), got "
                        f"{type(value).__name__}"
                    )
                values.append(int(value))
            else:
                values.append(value)
        return values

    def launches(self, *args: Any) -> list[Launch]:
        """The launches a call with `args` makes (arguments checked, nothing run)."""
        return self.host_program.run(self.check_args(args))

    def __call__(self, *args: Any, stream: Any = None) -> None:
        """Check `args`, run the host function and launch its kernels on `stream` (a
        CuPy or PyTorch stream, a CUstream handle, or None: CuPy's current stream).
        A call whose arguments repeat an earlier call's exactly (the same pointers,
        dtypes, shapes, strides and scalar values, on the same current device) replays
        that call's prepared launches (`prepare`) straight through the driver: nothing is checked
        or computed again, since the host function is a pure function of those."""
        self.call_keyed(call_key(args), args, stream)

    def call_keyed(self, key: tuple | None, args: Sequence[Any], stream: Any = None) -> None:
        """`__call__` with the call's replay key (`call_key(args)`) already computed by
        the caller (a `SpecializingKernel` that looked its kernel up by the same key)."""
        if key is not None:
            packed = self._packed.get(key)
            if packed is not None:
                packed(_stream_handle(stream), ())
                return
        packed = self._launch(args, stream)
        if key is not None and packed is not None:
            if len(self._packed) >= _PACKED_CALLS:
                self._packed.clear()
            self._packed[key] = packed

    def prepare(self, args: Sequence[Any], free: Sequence[int] = ()) -> PreparedCall:
        """The launches of a call with `args`, packed once for the driver
        (`PreparedCall`): every argument checked and the host function run now; the
        buffer arguments at the indices `free` are the call's slots, their pointers given
        per call (so a call with other pointers of the same sizes, strides, dtypes and
        alignment launches without checking or computing anything again), the rest
        fixed. The kernels are loaded on the current device, which the launches need."""
        return PreparedCall(self, args, free)

    def _launch(self, args: Sequence[Any], stream: Any) -> PreparedCall | None:
        """The general path of `__call__`; returns the call prepared for replay, or None
        where the driver library is not there (launched through CuPy)."""
        if raw_launch.available():
            prepared = self.prepare(args)
            if prepared.calls:
                prepared(_stream_handle(stream), ())
            return prepared
        for launch in self.launches(*args):
            info = self._checked_info(launch)
            if any(p.dtype == TENSOR_MAP for p in info.params):
                raise TilecError(f"kernel '{info.name}' takes a tensor map, which needs the CUDA driver library")
            kernel_args = [self._kernel_arg(info, i, value) for i, value in enumerate(launch.args)]
            shared = launch.dynamic_shared_bytes + info.dynamic_smem_bytes
            self._function(launch.kernel)(launch.grid, launch.block, tuple(kernel_args), shared_mem=shared,
                                          stream=stream)
        return None

    def _checked_info(self, launch: Launch) -> KernelInfo:
        """The KernelInfo of a launch of the host function, its block checked."""
        info = self.infos[launch.kernel]
        if info.block_size is not None and tuple(launch.block) != info.block_size:
            raise TilecError(
                f"kernel '{info.name}' is compiled for blocks of {info.block_size} "
                f"threads, but the host function launches {launch.block}"
            )
        return info

    def _kernel_arg(self, info: KernelInfo, index: int, value: Any) -> Any:
        param = info.params[index]
        if param.is_buffer:
            if not isinstance(value, DeviceArray):
                raise TilecError(
                    f"kernel '{info.name}' parameter '{param.name}' expects a buffer"
                )
            return np.uint64(value.ptr)
        if param.dtype == TENSOR_MAP:
            if not isinstance(value, TensorMapRequest):
                raise TilecError(f"kernel '{info.name}' parameter '{param.name}' expects a tensor map")
            return encode(value)
        if param.dtype in _INT_RANGES:
            bits = _INT_RANGES[param.dtype]
            if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
                raise TilecError(
                    f"kernel '{info.name}' parameter '{param.name}' = {value} does not "
                    f"fit in {param.dtype}"
                )
            return np.dtype(param.dtype).type(value)
        if param.dtype == "bool":
            return np.bool_(value)
        if param.dtype == "bfloat16":
            bits = np.array([value], dtype=np.float32).view(np.uint32)[0]
            rounded = (int(bits) + 0x7FFF + ((int(bits) >> 16) & 1)) >> 16
            return np.uint16(rounded)
        return np.dtype(param.dtype).type(value)


class PreparedCall:
    """The launches of one call of a `Kernel` packed for the driver
    (`runtime.raw_launch.RawLaunch`, `Kernel.prepare`): `call(stream, pointers)`
    launches them all on `stream` (a CUstream handle) with `pointers`, one per free
    argument in the order of `free`, in the free argument's buffer parameters and
    tensor maps (their global addresses rewritten where a pointer changed); everything
    else (sizes, grids, the maps' other fields) is the preparing call's. With no free
    argument it replays that call (`Kernel.__call__`'s repeated calls). `calls`: per
    launch, (packed launch, CUfunction handle, the indices in `pointers` of its free
    slots)."""

    def __init__(self, kernel: Kernel, args: Sequence[Any], free: Sequence[int]):
        values = kernel.check_args(args)
        slot = {id(values[i]): j for j, i in enumerate(free)}
        for i in free:
            if not isinstance(values[i], DeviceArray):
                raise TilecError(f"argument '{kernel.arg_names[i]}' is not a buffer: it cannot be a per-call slot")
        self.calls: list[tuple[raw_launch.RawLaunch, int, tuple[int, ...]]] = []
        for launch in kernel.host_program.run(values):
            info = kernel._checked_info(launch)
            types: list[str] = []
            fixed: list[Any] = []
            picks: list[int] = []
            for index, value in enumerate(launch.args):
                param = info.params[index]
                if param.is_buffer and id(value) in slot:
                    types.append("u64")
                    fixed.append(None)
                    picks.append(slot[id(value)])
                elif param.dtype == TENSOR_MAP and isinstance(value, TensorMapRequest) and id(value.buffer) in slot:
                    types.append("map")
                    fixed.append(raw_launch.MapSlot(encode(value), value.ptr))
                    picks.append(slot[id(value.buffer)])
                else:
                    arg = kernel._kernel_arg(info, index, value)
                    types.append("bytes")
                    fixed.append(arg if isinstance(arg, bytes) else np.asarray(arg).tobytes())
            shared = launch.dynamic_shared_bytes + info.dynamic_smem_bytes
            packed = raw_launch.RawLaunch(launch.grid, launch.block, shared, types, fixed, info.programmatic)
            self.calls.append((packed, kernel._function(launch.kernel).ptr, tuple(picks)))

    def __call__(self, stream: int, pointers: Sequence[int]) -> None:
        for packed, function, picks in self.calls:
            packed(function, stream, *[pointers[i] for i in picks])


def _allow_dynamic_smem(function: Any, nbytes: int) -> None:
    """Opt `function` in to `nbytes` of dynamic shared memory (past the 48 KiB default)."""
    from cupy_backends.cuda.api import driver

    driver.funcSetAttribute(
        function.ptr, driver.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, nbytes
    )


def _stream_handle(stream: Any) -> int:
    """The CUstream of a CuPy or PyTorch stream, an int, or the current CuPy stream."""
    if stream is None:
        import cupy

        return int(cupy.cuda.get_current_stream().ptr)
    for attr in ("ptr", "cuda_stream"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    return int(stream)


_PACKED_CALLS = 256
"""How many argument sets a `Kernel` keeps prepared launches for (all dropped past it)."""


def _torch_key(t: Any) -> tuple:
    return (t.data_ptr(), t.dtype, t.shape, t.stride(), t.get_device())


def _cupy_key(a: Any) -> tuple:
    return (a.data.ptr, a.dtype, a.shape, a.strides, a.device.id)


def _interface_key(a: Any) -> tuple | None:
    i = getattr(a, "__cuda_array_interface__", None)
    if i is None:
        return None
    return (i["data"][0], i["typestr"], tuple(i["shape"]), i.get("strides") and tuple(i["strides"]))


def _scalar_key(v: Any) -> tuple:
    return (type(v), v)


def _device_array_key(a: DeviceArray) -> tuple:
    return (a.ptr, a.dtype, a.shape, a.strides, a.device)


_KEYS: dict[type, Any] = {int: _scalar_key, float: _scalar_key, bool: _scalar_key, DeviceArray: _device_array_key}
"""Per argument type, what identifies an argument for the replay of `Kernel.__call__`
(a key function returning None: that argument is never replayed)."""


def _key_of(kind: type) -> Any:
    framework = framework_of(kind)
    if framework == "torch":
        return _torch_key
    if framework == "cupy":
        return _cupy_key
    if issubclass(kind, numbers.Integral | numbers.Real):
        return _scalar_key
    return _interface_key


def call_key(args: Sequence[Any]) -> tuple | None:
    """What makes a call's launches the same as an earlier call's (`Kernel.__call__`):
    each argument's identity and the current device; None where an argument's type
    has no key (a DLPack-only object, anything else) or there is no device."""
    key = []
    for a in args:
        kind = type(a)
        keyer = _KEYS.get(kind)
        if keyer is None:
            keyer = _KEYS[kind] = _key_of(kind)
        k = keyer(a)
        if k is None:
            return None
        key.append(k)
    device = raw_launch.current_device()
    if device is None:
        return None
    key.append(device)
    return tuple(key)
