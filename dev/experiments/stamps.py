"""What the clock64 stamp probes share (box_stamps.py: copy_'s merged and rows boxes;
flat_stamps.py: box flat's Program kernel). Each probe edits a kernel's emitted CUDA
(text edits of a probe, not a lowering) so that thread 0 of each block writes `%clock64`
(and `%smid`, `%globaltimer`) into a `__device__` array at its phase boundaries, runs it
once, and reads the array back:

- `declare(src, name, count, ctype)`: the array declared before the kernel;
- `clock_into(row, slot, who)`: the C statement that stamps `row[slot]`;
- `device_array(kernel, name, count, dtype)`: the array of a compiled `Kernel`, as a CuPy
  array over the module's global (fill it with 0 before the launch, `.get()` after);
- `refill_gaps(starts, ends, resident)`: per multiprocessor, each block's start after the
  latest end before it (a freed slot refilled), the first `resident` starts left out.

Not a test; nothing of the product changes.
"""

from __future__ import annotations

CLOCK = 'asm volatile("mov.u64 %0, %%clock64;" : "=l"(tl_v) :: "memory");'
"""`tl_v = clock64` (an `unsigned long long` or `long long` named `tl_v` in scope)."""


def declare(src: str, name: str, count: int, ctype: str = "unsigned long long") -> str:
    """`src` with `__device__ ctype name[count];` before its (first) kernel."""
    at = src.index('extern "C" __global__')
    return src[:at] + f"__device__ {ctype} {name}[{count}];\n" + src[at:]


def clock_into(row: str, slot: str | int, who: str = "threadIdx.x == 0", ctype: str = "unsigned long long") -> str:
    """The statement (no indent, no newline): where `who`, `row[slot] = clock64`."""
    return f"if ({who}) {{ {ctype} tl_v; {CLOCK} {row}[{slot}] = tl_v; }}"


def device_array(kernel, name: str, count: int, dtype="uint64"):
    """`name[count]` of the module `kernel` (a launched or compiled `Kernel`) loaded, as a
    CuPy array viewing the device memory (kept alive by `kernel`)."""
    import cupy

    module = next(iter(kernel._modules.values()))
    ptr = module.get_global_var(name)
    size = count * cupy.dtype(dtype).itemsize
    mem = cupy.cuda.UnownedMemory(ptr, size, kernel)
    return cupy.ndarray((count,), dtype=dtype, memptr=cupy.cuda.MemoryPointer(mem, 0))


def refill_gaps(starts, ends, resident: int = 2) -> list[int]:
    """One multiprocessor's blocks (their start and end clocks): for each start but the
    first `resident` (sorted), the clocks since the latest end before it."""
    import numpy as np

    ends = np.sort(np.asarray(ends))
    gaps = []
    for x in np.sort(np.asarray(starts))[resident:]:
        k = np.searchsorted(ends, x, side="right") - 1
        if k >= 0:
            gaps.append(int(x - ends[k]))
    return gaps
