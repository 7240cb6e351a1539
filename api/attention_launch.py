"""The hot path of `tilec.attention` (api/attention_op.py): a planned call structure's
launches with their pointers left open, as `tilec.copy_`'s `Launcher`
(api/copy_launch.py) keeps its copies'.

    launcher = PointerLauncher.build(kernel, args)     # once per structure, after a first call
    launcher((q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr), stream)

`build` runs the kernel's host function once on a call's arguments (the argument checks,
the grid, the tensor maps asked for) and records, per launch, the packed launch of that
call (runtime/raw_launch.py's `PackedLaunch`) and which of its parameters hold a
pointer: a buffer parameter (the pointer itself) or a tensor map (its request, encoded
again around the new pointer: runtime/tensor_map.py's `encode`, cached by its
pointer). A call writes those parameters and launches: no host function, no argument
check (the structure fixes them: shapes, strides, dtypes and alignments are the plan's
key), no packing. `Kernel.__call__` replays only a call whose pointers repeat; this
serves new outputs too (`out` not given, the previous output kept alive).
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

import numpy as np

from tilec.compiler.cuda.kernel_info import TENSOR_MAP
from tilec.runtime import raw_launch
from tilec.runtime.tensor_map import TensorMapRequest, encode


class _Address:
    """A buffer as a tensor map request takes it: its address."""

    __slots__ = ("ptr",)

    def __init__(self, ptr: int):
        self.ptr = ptr


class PointerLauncher:
    """One structure's launches (the module docstring): per launch (its packed launch,
    its open parameters as (parameter index, pointer slot, the tensor map request or
    None for a plain pointer), the bytes last written to each)."""

    def __init__(self, launches: list[tuple[Any, list[tuple[int, int, TensorMapRequest | None]]]]):
        self.launches = [(packed, open_params, {}) for packed, open_params in launches]
        self._maps: dict[tuple[int, int], bytes] = {}
        """Tensor maps encoded, by (parameter index, pointer)."""
        self._lock = threading.Lock()

    @classmethod
    def build(cls, kernel: Any, args: tuple, slots: int) -> PointerLauncher:
        """From a call of `kernel` (a `Kernel`, or a kernel with `specialization(*args)`:
        the one `args` run) with `args`, whose first `slots` are the pointers that change
        from call to call."""
        while hasattr(kernel, "specialization"):
            kernel = kernel.specialization(*args)
        values = kernel.check_args(args)
        pointers = values[:slots]
        out = []
        for launch in kernel.host_program.run(values):
            info = kernel.infos[launch.kernel]
            blobs, open_params = [], []
            for i, value in enumerate(launch.args):
                param = info.params[i]
                slot = next((j for j, p in enumerate(pointers) if p is value), None)
                if param.is_buffer and slot is not None:
                    open_params.append((i, slot, None))
                elif param.dtype == TENSOR_MAP and isinstance(value, TensorMapRequest):
                    slot = next((j for j, p in enumerate(pointers) if p is value.buffer), None)
                    if slot is not None:
                        open_params.append((i, slot, value))
                arg = kernel._kernel_arg(info, i, value)
                blobs.append(arg if isinstance(arg, bytes) else np.asarray(arg).tobytes())
            function = kernel._function(launch.kernel)
            shared = launch.dynamic_shared_bytes + info.dynamic_smem_bytes
            packed = raw_launch.PackedLaunch(function.ptr, launch.grid, launch.block, shared, blobs)
            out.append((packed, open_params))
        return cls(out)

    def _map(self, i: int, ptr: int, req: TensorMapRequest) -> bytes:
        """The tensor map of parameter `i` around `ptr` (kept: at most 256 at once)."""
        if len(self._maps) >= 256:
            self._maps.clear()
        data = self._maps[(i, ptr)] = encode(replace(req, buffer=_Address(ptr)))
        return data

    def __call__(self, ptrs: tuple[int, ...], stream: int) -> None:
        """Launch with the pointers `ptrs` (by slot) on `stream` (a CUstream handle); the
        device the launches were built on must be current. Only parameters whose bytes
        changed since the last call are written."""
        with self._lock:
            for packed, open_params, last in self.launches:
                for i, slot, req in open_params:
                    ptr = ptrs[slot]
                    if req is None:
                        data = ptr.to_bytes(8, "little")  # a u64 parameter (the driver's byte order)
                    else:
                        data = self._maps.get((i, ptr)) or self._map(i, ptr, req)
                    if last.get(i) != data:
                        packed.set_arg(i, data)
                        last[i] = data
                packed(stream)
