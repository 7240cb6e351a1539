"""The hot path of `tilec.copy_`: a copy seen before (the same dtypes, shapes, strides,
pointer alignments and devices) is launched without planning it again.

    launcher = Launcher.build(plan, kernel, dst_op, src_op)   # once per structure
    launcher(dst_ptr, src_ptr, stream)                          # per call

A `Launcher` holds what a plan would compute again: the byte offsets that mode merging
moves each pointer by, the byte ranges both views touch (for the overlap test), and
for each kernel launch its CuPy function (per device), grid, block, shared memory and
the index arguments already converted to their C types; a call adds the two pointers and
launches. The structure key (`structure`) holds everything the plan depends on, so a
hit skips every check that the plan made (they would pass again).

Launches go straight to the driver (`runtime.raw_launch`: arguments packed once, the
two pointers written per call) where `libcuda` loads, else through CuPy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tilec.runtime import raw_launch

from .copy_kernels import CopyKernel
from .copy_plan import VECTOR_BYTES, CopyPlan, Operand, byte_range

_SRC, _DST = object(), object()
"""Stand-ins for the two pointers while the host function runs once."""
_SRC_DST = (True, False)
"""The pointer slots of a kernel taking src then dst (every copy kernel today)."""


def structure(dst: Operand, src: Operand) -> tuple:
    """What a plan depends on: everything but the pointers' values beyond their
    alignment."""
    return (
        dst.dtype, dst.shape, dst.strides, dst.ptr % VECTOR_BYTES, dst.device,
        src.dtype, src.shape, src.strides, src.ptr % VECTOR_BYTES, src.device,
    )


@dataclass
class _Launch:
    kernel: str
    grid: tuple
    block: tuple
    shared_mem: int
    args: list  # converted index arguments; _SRC/_DST where the pointers go


class _Launchers:
    """What every launcher of one copy structure shares: its device, the overlap
    test and the fast path of torch tensors; `launch_raw` and `__call__` are each
    kind's."""

    def _views(self, dst: Operand, src: Operand) -> None:
        """The device and what the overlap test needs of the two views."""
        self.device = dst.device
        d0, d1 = byte_range(dst)
        s0, s1 = byte_range(src)
        self.dst_range = (d0 - dst.ptr, d1 - dst.ptr)
        self.src_range = (s0 - src.ptr, s1 - src.ptr)
        self.same_view = (dst.dtype, dst.shape, dst.strides) == (src.dtype, src.shape, src.strides)

    def overlap(self, dst_ptr: int, src_ptr: int) -> str:
        """`"none"`, `"same"` or `"partial"` (as `copy_plan.overlap`)."""
        a0, a1 = dst_ptr + self.dst_range[0], dst_ptr + self.dst_range[1]
        b0, b1 = src_ptr + self.src_range[0], src_ptr + self.src_range[1]
        if a1 <= b0 or b1 <= a0 or a0 == a1 or b0 == b1:
            return "none"
        return "same" if self.same_view and dst_ptr == src_ptr else "partial"

    def fast_path(
        self, current_device: Callable[[], int], raw_stream: Callable[[int], int]
    ) -> Callable[[int, int], bool]:
        """This structure's cached call for two torch tensors as one closure
        `fast(dst_ptr, src_ptr) -> bool`: the overlap test, the device test and the
        launches on `raw_stream(device)`, with nothing looked up per call that the
        first call fixed (`_one_pair`). False (nothing launched) where the general
        path must run: the views' bytes intersect and are not the very same view,
        or another device is current. (Inlined: `overlap` and `launch_raw` as method
        calls cost about 0.5 us a copy on the host, which a cached `tilec.copy_` is
        measured by.)"""
        if not self.launches:
            return lambda dst_ptr, src_ptr: True
        (d0, d1), (s0, s1) = self.dst_range, self.src_range
        device, same, launch_raw = self.device, self.same_view, self.launch_raw
        pair: list = []  # `_one_pair` once the first call has loaded the kernel

        def fast(dst_ptr: int, src_ptr: int) -> bool:
            if dst_ptr + d1 > src_ptr + s0 and src_ptr + s1 > dst_ptr + d0:
                return same and dst_ptr == src_ptr
            if current_device() != device:
                return False
            if pair:
                launch, fn, src_shift, dst_shift = pair
                launch(fn, raw_stream(device), src_ptr + src_shift, dst_ptr + dst_shift)
                return True
            launch_raw(dst_ptr, src_ptr, device, raw_stream(device))
            pair.extend(self._one_pair(device))
            return True

        return fast

    def _one_pair(self, device: int | None) -> tuple:
        """(pair launch, CUfunction, src shift, dst shift) where the whole copy is one
        launch taking (src, dst) already loaded on `device`; else ()."""
        return ()

    def launch_raw(self, dst_ptr: int, src_ptr: int, device: int | None, stream: int) -> None:
        raise NotImplementedError


class Launcher(_Launchers):
    """One planned copy structure, ready to launch (module doc)."""

    def __init__(self, entry: CopyKernel, plan: CopyPlan, dst: Operand, src: Operand):
        self.entry = entry
        self.plan = plan
        """The plan of the first call (its extents, strides and key are this
        structure's; its pointers are that call's)."""
        self._views(dst, src)
        self.src_shift = plan.src_ptr - src.ptr
        self.dst_shift = plan.dst_ptr - dst.ptr
        self.launches: list[_Launch] = []
        host = entry._host.run([_SRC, _DST, *plan.args]) if plan.num_elements else []
        for launch in host:
            convs, smem = entry._params[launch.kernel]
            args = [
                v if c is None else c(v) for c, v in zip(convs, launch.args)
            ]
            self.launches.append(
                _Launch(launch.kernel, launch.grid, launch.block,
                        launch.dynamic_shared_bytes + smem, args)
            )
        self._functions: dict[tuple[int, str], Any] = {}
        self._raw: list[tuple[str, raw_launch.RawLaunch, tuple[bool, ...]]] = []
        """Per launch: (kernel, packed launch, per pointer slot whether it is the src)."""
        for launch in self.launches:
            types = entry.param_types[launch.kernel]
            values = [None if a is _SRC or a is _DST else int(a) for a in launch.args]
            slots = tuple(a is _SRC for a in launch.args if a is _SRC or a is _DST)
            raw = raw_launch.RawLaunch(launch.grid, launch.block, launch.shared_mem, types, values)
            self._raw.append((launch.kernel, raw, slots))
        self._calls: dict[int | None, list[tuple[Any, int, tuple[bool, ...] | None]]] = {}
        """Per device, each launch's packed launch, CUfunction handle and pointer slots."""

    def launch_raw(self, dst_ptr: int, src_ptr: int, device: int | None, stream: int) -> None:
        """Launch on `stream` (a CUstream handle) through the driver; the device's
        context must be current."""
        calls = self._calls.get(device)
        if calls is None:
            calls = [
                (raw.pair_launcher(), self.entry.function_handle(k), None)
                if slots == _SRC_DST
                else (raw, self.entry.function_handle(k), slots)
                for k, raw, slots in self._raw
            ]
            self._calls[device] = calls
        s, d = src_ptr + self.src_shift, dst_ptr + self.dst_shift
        for launch, fn, slots in calls:
            if slots is None:
                launch(fn, stream, s, d)
            else:
                launch(fn, stream, *[s if is_src else d for is_src in slots])

    def _one_pair(self, device: int | None) -> tuple:
        calls = self._calls.get(device)
        if calls is None or len(calls) != 1 or calls[0][2] is not None:
            return ()
        launch, fn, _ = calls[0]
        return launch, fn, self.src_shift, self.dst_shift

    def __call__(self, dst_ptr: int, src_ptr: int, device: int, stream: Any) -> None:
        """Launch on `stream`: a CUstream handle, a CuPy stream or None (CuPy's
        current stream)."""
        if raw_launch.available():
            if stream is None:
                import cupy

                stream = cupy.cuda.get_current_stream()
            self.launch_raw(dst_ptr, src_ptr, device, stream if isinstance(stream, int) else stream.ptr)
            return
        s = np.uint64(src_ptr + self.src_shift)
        d = np.uint64(dst_ptr + self.dst_shift)
        for launch in self.launches:
            key = (device, launch.kernel)
            function = self._functions.get(key)
            if function is None:
                function = self.entry.kernel._function(launch.kernel)
                self._functions[key] = function
            args = tuple(s if a is _SRC else d if a is _DST else a for a in launch.args)
            function(launch.grid, launch.block, args, shared_mem=launch.shared_mem, stream=stream)


class PartsLauncher(_Launchers):
    """A copy run as several copies in order (`copy_period.period_parts`): each part
    a `Launcher` of its own, its pointers offsets from the copy's dst pointer (or its
    src pointer); the overlap test is the whole copy's."""

    def __init__(self, parts: list[tuple[Launcher, int, int, bool]], dst: Operand, src: Operand):
        """`parts`: (launcher, dst offset, src offset, whether the src offset is from
        the dst pointer), in bytes from the pointers of `dst` and `src`."""
        self._views(dst, src)
        self.parts = parts
        self.plan = parts[0][0].plan
        self.entry = parts[0][0].entry
        self.launches = [launch for p in parts for launch in p[0].launches]

    def _pointers(self, dst_ptr: int, src_ptr: int):
        for launcher, d, s, in_dst in self.parts:
            yield launcher, dst_ptr + d, (dst_ptr if in_dst else src_ptr) + s

    def launch_raw(self, dst_ptr: int, src_ptr: int, device: int | None, stream: int) -> None:
        for launcher, d, s in self._pointers(dst_ptr, src_ptr):
            launcher.launch_raw(d, s, device, stream)

    def __call__(self, dst_ptr: int, src_ptr: int, device: int, stream: Any) -> None:
        for launcher, d, s in self._pointers(dst_ptr, src_ptr):
            launcher(d, s, device, stream)
