"""CUDA C++ -> cubin (and PTX) through CuPy's NVRTC bindings.

Compiles for the current device's architecture, or for one named (`arch="sm_90"`), which
needs no GPU: CuPy's low-level NVRTC bindings work without a driver. Options are always
`-std=c++17` and `-lineinfo`, never `--use_fast_math`, and `--ptxas-options=-v` so that
the log reports each kernel's registers, shared memory and spills (`resource_usage`).

    result = compile_cuda(source, arch="sm_90")
    result.cubin, result.ptx, result.log
    resource_usage(result)["copy_kernel"].registers
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass

from tilec.support.diagnostics import TilecError

BASE_OPTIONS = ("-std=c++17", "-lineinfo", "--ptxas-options=-v")
"""Options every compilation gets, before any the caller adds."""

SOURCE_NAME = "tilec_kernels.cu"
"""The file name NVRTC reports in its log (and in PTX `.file` lines)."""


@dataclass(frozen=True)
class CompileResult:
    """One NVRTC compilation: machine code, its PTX, and NVRTC's log."""

    cubin: bytes
    ptx: str
    log: str
    arch: str
    """`sm_XX`."""
    options: tuple[str, ...]
    """Every option NVRTC was given, the architecture included."""


@dataclass(frozen=True)
class KernelResources:
    """What ptxas reported for one kernel."""

    registers: int
    shared_bytes: int
    """Static shared memory (`smem`)."""
    spill_stores: int | None
    """Bytes; None when unknown (read from the cubin, not from ptxas's report)."""
    spill_loads: int | None
    stack_bytes: int
    barriers: int | None = None
    constant_bytes: int | None = None


def _nvrtc():
    try:
        from cupy_backends.cuda.libs import nvrtc
    except ImportError as e:  # pragma: no cover - cupy is a dependency
        raise TilecError(f"CuPy's NVRTC bindings are not available: {e}") from e
    return nvrtc


def nvrtc_version() -> tuple[int, int]:
    """NVRTC's (major, minor) version."""
    return tuple(_nvrtc().getVersion())  # type: ignore[return-value]


def supported_archs() -> tuple[int, ...]:
    """The compute capabilities this NVRTC compiles for, e.g. (75, 80, ..., 120)."""
    return tuple(_nvrtc().getSupportedArchs())


def normalize_arch(arch: str | int) -> str:
    """`90`, `"90"`, `"sm_90"`, `"compute_90"` -> `"sm_90"` (also `sm_90a`)."""
    text = str(arch).strip()
    match = re.fullmatch(r"(?:sm_|compute_)?(\d+)([af]?)", text)
    if not match:
        raise TilecError(f"not a GPU architecture: '{arch}' (expected e.g. sm_90)")
    return f"sm_{match.group(1)}{match.group(2)}"


def device_arch() -> str:
    """The architecture of the current CUDA device, e.g. `sm_90`."""
    try:
        import cupy

        capability = cupy.cuda.Device().compute_capability
    except Exception as e:
        raise TilecError(
            "no CUDA device is available to compile for; name an architecture "
            f"(arch='sm_90') to compile without one ({e})"
        ) from e
    arch = normalize_arch(capability)
    number = int(re.sub(r"\D", "", arch))
    if number not in supported_archs():
        raise TilecError(
            f"this NVRTC {nvrtc_version()} cannot compile for the device's {arch} "
            f"(it supports {', '.join(f'sm_{a}' for a in supported_archs())})"
        )
    return arch


def cuda_include_dirs() -> list[str]:
    """Directories that hold CUDA's headers (cuda_fp16.h, cuda_bf16.h), if any: from
    $CUDA_PATH / $CUDA_HOME, CuPy's idea of the CUDA path, /usr/local/cuda*, and the
    `nvidia-cuda-runtime` wheel."""
    candidates: list[str] = []
    for var in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(var):
            candidates.append(os.path.join(os.environ[var], "include"))
    try:
        import cupy

        path = cupy.cuda.get_cuda_path()
        if path:
            candidates.append(os.path.join(path, "include"))
    except Exception:
        pass
    candidates.append("/usr/local/cuda/include")
    candidates += sorted(glob.glob("/usr/local/cuda-*/include"), reverse=True)
    try:
        import nvidia

        for root in nvidia.__path__:
            candidates += sorted(glob.glob(os.path.join(root, "*", "include")))
    except ImportError:
        pass
    for d in candidates:
        if os.path.isfile(os.path.join(d, "cuda_fp16.h")):
            return [d]
    return []


ARCH_SPECIFIC_PTX = ("wgmma.", "setmaxnreg.")
"""PTX instructions that exist only on the architecture-specific target (`sm_90a`)."""


def needs_arch_specific(source: str) -> bool:
    """Whether emitted CUDA uses an instruction of `ARCH_SPECIFIC_PTX` (warpgroup MMA,
    register reallocation), so that it must be compiled for `sm_90a` rather than `sm_90`."""
    return any(inst in source for inst in ARCH_SPECIFIC_PTX)


def compile_options(arch: str, options: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The full NVRTC option list for `arch`."""
    includes = tuple(f"-I{d}" for d in cuda_include_dirs())
    return (f"--gpu-architecture={arch}", *BASE_OPTIONS, *includes, *options)


def _source_excerpts(source: str, log: str, context: int = 2) -> str:
    """For each error in an NVRTC log, the generated lines around it."""
    lines = source.splitlines()
    excerpts: list[str] = []
    seen: set[int] = set()
    for match in re.finditer(r"\((\d+)\): (?:catastrophic )?error", log):
        number = int(match.group(1))
        if number in seen:
            continue
        seen.add(number)
        lo, hi = max(1, number - context), min(len(lines), number + context)
        block = [
            f"{'>' if n == number else ' '} {n:5d} | {lines[n - 1]}"
            for n in range(lo, hi + 1)
        ]
        excerpts.append("\n".join(block))
    return "\n\n".join(excerpts)


def compile_cuda(
    source: str, *, arch: str | None = None, options: tuple[str, ...] = ()
) -> CompileResult:
    """Compile CUDA C++ to a cubin for `arch` (default: the current device's).

    A compilation error raises a TilecError with NVRTC's log and, for each error, the
    lines of the source around it."""
    nvrtc = _nvrtc()
    arch = normalize_arch(arch) if arch is not None else device_arch()
    all_options = compile_options(arch, tuple(options))
    program = nvrtc.createProgram(source, SOURCE_NAME, [], [])
    try:
        try:
            nvrtc.compileProgram(program, list(all_options))
        except nvrtc.NVRTCError as e:
            log = nvrtc.getProgramLog(program)
            message = f"NVRTC failed to compile the generated CUDA ({arch}): {e}\n{log}"
            excerpts = _source_excerpts(source, log)
            if excerpts:
                message += f"\nGenerated source around the errors:\n{excerpts}"
            if "cuda_fp16.h" in log or "cuda_bf16.h" in log:
                message += (
                    "\nCUDA's headers were not found: set CUDA_PATH to a CUDA toolkit "
                    "(or install nvidia-cuda-runtime) for f16/bf16 kernels."
                )
            raise TilecError(message) from None
        log = nvrtc.getProgramLog(program)
        cubin = bytes(nvrtc.getCUBIN(program))
        ptx = nvrtc.getPTX(program)
        ptx_text = ptx.decode() if isinstance(ptx, bytes) else str(ptx)
    finally:
        nvrtc.destroyProgram(program)
    return CompileResult(
        cubin=cubin,
        ptx=ptx_text.rstrip("\0"),
        log=(log.decode() if isinstance(log, bytes) else str(log)).rstrip("\0"),
        arch=arch,
        options=all_options,
    )


_ENTRY = re.compile(r"Compiling entry function '([^']+)' for")
_FUNCTION_PROPERTIES = re.compile(r"Function properties for (\S+)")
_STACK = re.compile(
    r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads"
)
_USED = re.compile(r"Used (\d+) registers")
_BARRIERS = re.compile(r"used (\d+) barriers")
_SMEM = re.compile(r"(\d+) bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[0\]")


def resource_usage(result: CompileResult | str) -> dict[str, KernelResources]:
    """Registers, shared memory and spills per kernel, from the ptxas lines of an NVRTC
    log (`--ptxas-options=-v`, which `compile_cuda` always passes).

    NVRTC (CUDA 12.9+, with a driver present) keeps its own cache of compiled programs,
    and a program it finds there comes with no ptxas lines. For a CompileResult, the
    kernels the log does not describe are read from the cubin instead
    (`cubin_resource_usage`): registers, shared memory and stack, spills unknown."""
    log = result.log if isinstance(result, CompileResult) else result
    found = _parse_ptxas_log(log)
    if isinstance(result, CompileResult):
        for name, usage in cubin_resource_usage(result.cubin).items():
            found.setdefault(name, usage)
    return found


def _parse_ptxas_log(log: str) -> dict[str, KernelResources]:
    found: dict[str, dict[str, int]] = {}
    current: str | None = None
    for line in log.splitlines():
        if m := _ENTRY.search(line):
            current = m.group(1)
            found.setdefault(current, {})
        elif m := _FUNCTION_PROPERTIES.search(line):
            current = m.group(1)
            found.setdefault(current, {})
        elif current is not None and (m := _STACK.search(line)):
            found[current].update(
                stack_bytes=int(m.group(1)),
                spill_stores=int(m.group(2)),
                spill_loads=int(m.group(3)),
            )
        elif current is not None and (m := _USED.search(line)):
            entry = found[current]
            entry["registers"] = int(m.group(1))
            if b := _BARRIERS.search(line):
                entry["barriers"] = int(b.group(1))
            if s := _SMEM.search(line):
                entry["shared_bytes"] = int(s.group(1))
            if c := _CMEM.search(line):
                entry["constant_bytes"] = int(c.group(1))
    return {
        name: KernelResources(
            registers=v.get("registers", 0),
            shared_bytes=v.get("shared_bytes", 0),
            spill_stores=v.get("spill_stores", 0),
            spill_loads=v.get("spill_loads", 0),
            stack_bytes=v.get("stack_bytes", 0),
            barriers=v.get("barriers", 0),
            constant_bytes=v.get("constant_bytes", 0),
        )
        for name, v in found.items()
        if "registers" in v
    }


_EIATTR_REGCOUNT = 0x2F
_EIATTR_FRAME_SIZE = 0x11
_EIFMT_SVAL = 0x04
_RESERVED_SHARED = 1024
"""sm_90 and newer cubins count 1 KiB of system-reserved shared memory into each
kernel's `.nv.shared.<kernel>` section (ptxas's `smem` does not)."""


SASS_INSTRUCTION_BYTES = 16
"""Bytes of one SASS instruction (sm_70 and later)."""


def cubin_instructions(cubin: bytes) -> dict[str, int]:
    """SASS instructions per function of a cubin (sm_70 and later): the size of its
    `.text.<name>` section over `SASS_INSTRUCTION_BYTES`, the padding after its `EXIT`
    included (what a disassembler lists). {} for anything but a 64-bit ELF. Tests
    budget the generated copy kernels with it where no disassembler is installed."""
    import struct

    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        return {}
    shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
    strings = sections[shstrndx][4]
    out = {}
    for sec in sections:
        name = cubin[strings + sec[0] : cubin.index(b"\0", strings + sec[0])].decode()
        if name.startswith(".text."):
            out[name[len(".text."):]] = sec[5] // SASS_INSTRUCTION_BYTES
    return out


def cubin_resource_usage(cubin: bytes) -> dict[str, KernelResources]:
    """Registers, static shared memory and stack frame of each kernel, read from the
    cubin's ELF sections (`.nv.info` attributes, `.nv.shared.<kernel>` sizes). Spill
    counts are not in a cubin: they are None."""
    import struct

    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        return {}
    shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    sections = [
        struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize)
        for i in range(shnum)
    ]

    def c_string(offset: int) -> str:
        return cubin[offset : cubin.index(b"\0", offset)].decode()

    names = [c_string(sections[shstrndx][4] + sec[0]) for sec in sections]
    by_name = dict(zip(names, sections))
    # Kernel symbols: functions defined in a .text.<name> section with their own
    # .nv.info.<name> (parameters); not the subroutines ptxas puts beside a kernel in its
    # section (`$__internal_0_$__cuda_sm20_div_u64`, a 64-bit division kept a call)
    symbols: dict[int, str] = {}
    symtab = by_name.get(".symtab")
    if symtab is not None:
        strtab = sections[symtab[6]][4]
        for k in range(symtab[5] // 24):
            st_name, st_info, _, st_shndx, _, _ = struct.unpack_from(
                "<IBBHQQ", cubin, symtab[4] + 24 * k
            )
            name = c_string(strtab + st_name)
            if st_info & 0xF == 2 and names[st_shndx].startswith(".text.") and f".nv.info.{name}" in by_name:
                symbols[k] = name
    registers: dict[str, int] = {}
    frames: dict[str, int] = {}
    info = by_name.get(".nv.info")
    if info is not None:
        data = cubin[info[4] : info[4] + info[5]]
        i = 0
        while i + 4 <= len(data):
            fmt, attr = data[i], data[i + 1]
            if fmt == _EIFMT_SVAL:
                size = struct.unpack_from("<H", data, i + 2)[0]
                value = data[i + 4 : i + 4 + size]
                i += 4 + size
                if len(value) == 8 and attr in (_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE):
                    symbol, number = struct.unpack("<II", value)
                    if symbol in symbols:
                        target = registers if attr == _EIATTR_REGCOUNT else frames
                        target[symbols[symbol]] = number
            else:
                i += 4
    reserved = any(n.startswith(".nv.shared.reserved") for n in names)
    usage: dict[str, KernelResources] = {}
    for name in symbols.values():
        shared = by_name.get(f".nv.shared.{name}")
        shared_bytes = shared[5] if shared is not None else 0
        if reserved and shared is not None:
            shared_bytes = max(0, shared_bytes - _RESERVED_SHARED)
        usage[name] = KernelResources(
            registers=registers.get(name, 0),
            shared_bytes=shared_bytes,
            spill_stores=None,
            spill_loads=None,
            stack_bytes=frames.get(name, 0),
        )
    return usage
