"""The GPU a program is compiled for: one object that the verifier, the passes, the CUDA
printer, NVRTC's options and the runtime all read, instead of constants of their own.

A module names its target with the attribute `tilec.target = "sm_90"` (the CLI's and
`tilec.compile`'s `arch` sets it); a module without one is for `DEFAULT_ARCH`.

The FMA policy: tilec compiles with `--fmad=false`. A `mulf` followed by an `addf` is
then two roundings on the GPU as in the CPU reference executor, so that the equivalence
and GPU checks stay bit for bit. A program that wants the contraction writes `math.fma`
(one rounding, everywhere). `Target.fmad = True` gives NVRTC's default back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation

from tilec.support.diagnostics import TilecError

TARGET_ATTR = "tilec.target"
"""Module attribute naming the target architecture (`sm_90`)."""

DEFAULT_ARCH = "sm_90"

KIB = 1024


@dataclass(frozen=True)
class Target:
    """What tilec relies on of one GPU architecture."""

    arch: str
    """`sm_XY` or `sm_XYa` (the architecture-specific features of Hopper: wgmma,
    setmaxnreg)."""
    smem_per_block: int
    """Bytes of shared memory one block may use (with the dynamic opt-in)."""
    features: frozenset[str] = field(default_factory=frozenset)
    """Of: `cp.async`, `ldmatrix`, `stmatrix`, `tma`, `mbarrier`, `wgmma`, `setmaxnreg`."""
    static_smem_limit: int = 48 * KIB
    """Shared memory a kernel may declare statically; beyond it, dynamic."""
    smem_align: int = 16
    """Bytes each shared buffer is aligned to (a 16-byte vector access needs 16; a
    128-byte swizzled TMA box needs 1024)."""
    warp_size: int = 32
    sector_bytes: int = 32
    """Bytes of the unit global memory is read and written in (an L2 sector): a warp's
    access costs the sectors it touches, whatever it uses of them."""
    vector_bytes: int = 16
    """The widest access of one thread (a 16-byte vector)."""
    fmad: bool = False
    """Let NVRTC contract a*b+c into an FMA (see the module docstring)."""
    multiprocessors: int = 0
    """The multiprocessors of the architecture's reference part (sm_90: the H100 SXM's
    and the H200's 132), which rules that size grids to the GPU read where no device is
    at hand (`tilec.gemm.choose_config`); 0: unknown. A caller with the device passes
    its own count instead (an H100 PCIe has 114)."""

    l2_bytes: int = 0
    """Bytes of L2 of the architecture's reference part (sm_80: the A100's 40 MiB; sm_90:
    the H100 SXM's and the H200's 50 MiB), which `choose-warps{l2_rows}` sizes rows in
    flight to; 0: unknown."""
    threads_per_sm: int = 2048
    """The most threads resident on one multiprocessor (sm_80, sm_90: 2048)."""
    max_blocks_per_sm: int = 32
    """The most blocks resident on one multiprocessor (sm_80, sm_90: 32; sm_86: 16; sm_89: 24)."""
    smem_per_sm: int = 0
    """Bytes of shared memory of one multiprocessor, which its resident blocks share,
    each taking `SMEM_RESERVED_PER_BLOCK` of it besides its own (sm_80: 164 KiB, sm_86
    and sm_89: 100 KiB, sm_90: 228 KiB); 0: unknown."""

    dram_bytes_per_s: float = 0.0
    """DRAM's bandwidth as a device-wide stream reaches it (sm_90: the H200's, 3.65e12 B/s,
    what the decode GEMMs' rule was measured against; the H100 SXM's is lower); 0: unknown."""
    sm_fill_bytes_per_s: float = 0.0
    """The most bytes per second one multiprocessor fills its shared memory with from L2
    and DRAM through the TMA, with a deep ring (sm_90: 80e9, the H200's decode GEMMs
    measured 75-84 GB/s an SM, QKV at M = 128 in 64-row units 80, benchmarks/NOTES.md); 0: unknown."""
    sm_mma_flops_per_s: float = 0.0
    """16-bit tensor-core flop/s of one multiprocessor in the best measured GEMM (sm_90:
    758 TFLOP/s / 132 on the H200 at 4096^3; 8-bit operands twice it); 0: unknown."""
    sm_sum_bytes_per_s: float = 0.0
    """The rate at which a block of a split summed in a thread-block cluster sums its
    share of the partials after its K loop (their loads from the peers' shared memory or
    from L2, the epilogue, the stores; sm_90: 24e9, fitted to the H200's QKV at M = 128 in
    128-row units split twice in pairs: 20.3 us with 4 stages, 37.3 with 2, 22.6 with 7
    and the partials through global memory; benchmarks/NOTES.md); 0: `sm_fill_bytes_per_s`."""
    dram_latency_s: float = 0.0
    """How long a load from DRAM takes while a device-wide stream keeps DRAM busy, so that,
    by Little's law, a kernel's loads reach `dram_bytes_per_s` only with about
    `dram_bytes_per_s * dram_latency_s` bytes in flight over the device (sm_90: 2.2e-6,
    fitted to the H200's decode GEMMs, benchmarks/NOTES.md: rings holding 6.3 MB of the
    weight in flight ran at 2.6 TB/s, 8.4 MB at 3.5, 12.6 MB at the copy's rate); 0: unknown."""
    kernel_gap_s: float = 0.0
    """What a second kernel launch costs a GEMM in a CUDA graph, its wait for the first
    to drain included (sm_90: about 2.4 us, split-K's reduction on the H200: Llama's O
    at M = 1 split twice took 12.2 us against 11.2 whole)."""

    def resident_blocks(self, smem: int) -> int:
        """How many blocks of `smem` bytes of shared memory fit one multiprocessor
        together (by shared memory alone; 0 where `smem_per_sm` is unknown)."""
        return self.smem_per_sm // (smem + SMEM_RESERVED_PER_BLOCK)

    @property
    def sm(self) -> int:
        """The compute capability as a number: 90 for sm_90 and sm_90a."""
        return int(self.arch[3:].rstrip("a"))

    def has(self, feature: str) -> bool:
        return feature in self.features

    def nvrtc_options(self) -> tuple[str, ...]:
        """The NVRTC options this target's policies ask for (the architecture apart)."""
        return () if self.fmad else ("--fmad=false",)


SMEM_RESERVED_PER_BLOCK = KIB
"""Shared memory the hardware reserves for each resident block (sm_80 and newer)."""

_AMPERE = frozenset({"cp.async", "ldmatrix"})
_HOPPER = _AMPERE | {"stmatrix", "tma", "mbarrier"}
_HOPPER_RATES = {"dram_bytes_per_s": 3.65e12, "sm_fill_bytes_per_s": 80e9, "sm_mma_flops_per_s": 758e12 / 132,
                 "dram_latency_s": 2.2e-6, "sm_sum_bytes_per_s": 24e9,
                 "kernel_gap_s": 2.4e-6}
"""The H200's rates (the reference part of sm_90's rules that size work to the GPU's
bandwidths: the decode GEMMs' `tilec.gemm.decode_cost`)."""

TARGETS = {
    "sm_80": Target("sm_80", 163 * KIB, _AMPERE, l2_bytes=40 * KIB * KIB, smem_per_sm=164 * KIB),
    "sm_86": Target("sm_86", 99 * KIB, _AMPERE, threads_per_sm=1536, max_blocks_per_sm=16, smem_per_sm=100 * KIB),
    "sm_89": Target("sm_89", 99 * KIB, _AMPERE, threads_per_sm=1536, max_blocks_per_sm=24, smem_per_sm=100 * KIB),
    "sm_90": Target("sm_90", 227 * KIB, _HOPPER, multiprocessors=132, l2_bytes=50 * KIB * KIB,
                    smem_per_sm=228 * KIB, **_HOPPER_RATES),
    "sm_90a": Target("sm_90a", 227 * KIB, _HOPPER | {"wgmma", "setmaxnreg"}, multiprocessors=132,
                     l2_bytes=50 * KIB * KIB, smem_per_sm=228 * KIB, **_HOPPER_RATES),
}
"""The architectures tilec knows (sm_80 and newer: cp.async is the floor)."""


def target(arch: str | None = None) -> Target:
    """The Target of `arch` (`sm_90`, `sm_90a`, `90`, `compute_90`); None: the default."""
    name = arch or DEFAULT_ARCH
    for prefix in ("compute_", "sm_"):
        name = name.removeprefix(prefix)
    name = f"sm_{name}"
    if name not in TARGETS:
        raise TilecError(f"unknown target architecture '{arch}' (known: {', '.join(TARGETS)})")
    return TARGETS[name]


def target_of(op: Operation) -> Target:
    """The Target of the module `op` is in (the default when it names none)."""
    while op.parent_op() is not None:
        op = op.parent_op()
    attr = op.attributes.get(TARGET_ATTR)
    return target(attr.data if isinstance(attr, StringAttr) else None)


def set_target(module: ModuleOp, arch: str) -> Target:
    """Name the target of `module` (checked); returns it."""
    t = target(arch)
    module.attributes[TARGET_ATTR] = StringAttr(t.arch)
    return t
