"""Random strided copies: `tilec.copy_` against cudaMemcpy and PyTorch's `copy_`.

    python benchmarks/strided_copy_bench.py [--seed 0] [--cases 48] [--quick]
        [--only 0-23] [--json OUT.json] [--md OUT.md] [--host-only | --no-host] [--list]

A seeded generator (`generate_cases`, no GPU needed) makes permutes of rank 2-6, slices
with offsets and steps, broadcasts, copies into strided destinations and
dtype-converting copies, with odd and prime extents, element sizes 1-8 bytes and 64 MiB
to 1 GiB per tensor. For each case: the result is checked bit for bit against PyTorch's
`dst.copy_(src)` (outputs poisoned first); tilec and PyTorch are timed with CUDA events
(median, benchmarks/copy_bench.py's method) beside a device-to-device cudaMemcpy of the
same bytes; ratio = (bytes read + bytes written) / time, over cudaMemcpy's. Beside it,
each case's DRAM bound (`dram_bound`): the ratio reached if the 32-byte sectors the two
views touch (partly used ones counted whole) moved at cudaMemcpy's bandwidth, so a
miss splits into sector waste (physical) and the kernel's own.

The second part times small copies (4 KiB - 1 MiB) end to end per call (host + GPU,
2000 calls then one synchronisation): tilec, PyTorch `copy_`, CuPy.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np

MiB = 1 << 20
ITEMSIZE = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int8": 1, "int16": 2,
            "int32": 4, "int64": 8, "uint8": 1, "bool": 1}
ODD = [3, 5, 7, 11, 13, 17, 19, 31, 37, 56, 61, 97, 127, 131, 251, 257, 509, 1021, 1031, 2053]


@dataclass
class CopyCase:
    """One copy, reproducible from its fields: src is a contiguous `base` tensor of
    `src_dtype`, then `src_index` (per dimension: start, stop, step), `src_perm`, and
    broadcast to `dst_shape` (`src_shape_b` is its shape before broadcasting; dims of
    extent 1 broadcast). dst is a `dst_dtype` tensor of `dst_base` shape viewed
    through `dst_index` (its shape is `dst_shape`)."""

    name: str
    kind: str
    src_dtype: str
    dst_dtype: str
    base: tuple
    src_index: tuple
    src_perm: tuple
    dst_base: tuple
    dst_index: tuple
    dst_shape: tuple
    bytes_read: int = 0
    bytes_written: int = 0
    notes: dict = field(default_factory=dict)


def _is_prime(n: int) -> bool:
    return n > 1 and all(n % p for p in range(2, int(n**0.5) + 1))


def _extents(rng, rank: int, elements: int) -> list[int]:
    """`rank` extents whose product is close to `elements`, odd and prime ones among
    them (the last one takes what is left, nudged to a prime half the time)."""
    out = []
    left = elements
    for _ in range(rank - 1):
        cap = max(2, int(left ** (1 / max(1, rank - len(out)))) * 2)
        choices = [v for v in ODD if v <= cap] or [2]
        v = int(rng.choice(choices)) if rng.random() < 0.7 else int(rng.integers(2, cap + 1))
        out.append(v)
        left = max(1, left // v)
    last = max(1, left)
    if rng.random() < 0.5:
        while not _is_prime(last) and last > 2:
            last -= 1
    out.append(last)
    rng.shuffle(out)
    return out


def _target_elements(rng, itemsize: int, lo_mib: float, hi_mib: float) -> int:
    mib = math.exp(rng.uniform(math.log(lo_mib), math.log(hi_mib)))
    return int(mib * MiB / itemsize)


def generate_cases(seed: int = 0, count: int = 48, lo_mib: float = 64, hi_mib: float = 1024) -> list[CopyCase]:
    """`count` random copies (see the module doc), the same for the same seed."""
    rng = np.random.default_rng(seed)
    kinds = ["permute", "slice", "broadcast", "convert", "dst_slice", "permute_convert"]
    dtypes = list(ITEMSIZE)
    cases = []
    for i in range(count):
        kind = kinds[i % len(kinds)]
        sd = str(rng.choice(dtypes))
        dd = sd
        if "convert" in kind:
            while dd == sd:
                dd = str(rng.choice(dtypes))
        big = max(ITEMSIZE[sd], ITEMSIZE[dd])
        n = _target_elements(rng, big, lo_mib, hi_mib)
        if kind in ("permute", "permute_convert", "convert"):
            rank = int(rng.integers(2, 7)) if kind != "convert" else int(rng.integers(1, 4))
            base = tuple(_extents(rng, rank, n))
            perm = tuple(int(p) for p in rng.permutation(rank)) if kind != "convert" else tuple(range(rank))
            if kind != "convert" and perm == tuple(range(rank)) and rank > 1:
                perm = perm[1:] + perm[:1]
            index = tuple((0, e, 1) for e in base)
            shape = tuple(base[p] for p in perm)
            c = CopyCase("", kind, sd, dd, base, index, perm, shape, tuple((0, e, 1) for e in shape), shape)
        elif kind == "slice":
            rank = int(rng.integers(2, 5))
            shape = _extents(rng, rank, n)
            base, index = [], []
            for e in shape:
                step = int(rng.choice([1, 1, 2, 3]))
                start = int(rng.integers(0, 5))
                base.append(start + (e - 1) * step + 1 + int(rng.integers(0, 3)))
                index.append((start, start + (e - 1) * step + 1, step))
            shape = tuple(shape)
            c = CopyCase("", kind, sd, dd, tuple(base), tuple(index), tuple(range(rank)), shape,
                         tuple((0, e, 1) for e in shape), shape)
        elif kind == "broadcast":
            rank = int(rng.integers(2, 5))
            shape = tuple(_extents(rng, rank, n))
            src_shape = [e if rng.random() < 0.5 else 1 for e in shape]
            if all(s == e for s, e in zip(src_shape, shape)):
                src_shape[int(rng.integers(0, rank))] = 1
            base = tuple(src_shape)
            c = CopyCase("", kind, sd, dd, base, tuple((0, e, 1) for e in base), tuple(range(rank)), shape,
                         tuple((0, e, 1) for e in shape), shape)
        else:  # dst_slice: a contiguous src into a strided window of a larger dst
            rank = int(rng.integers(2, 5))
            shape = tuple(_extents(rng, rank, n))
            dst_base, dst_index = [], []
            for e in shape:
                start = int(rng.integers(0, 4))
                pad = int(rng.integers(0, 4))
                dst_base.append(start + e + pad)
                dst_index.append((start, start + e, 1))
            c = CopyCase("", kind, sd, dd, shape, tuple((0, e, 1) for e in shape), tuple(range(rank)),
                         tuple(dst_base), tuple(dst_index), shape)
        src_elems = math.prod(len(range(*ix)) for ix in c.src_index)
        c.bytes_read = src_elems * ITEMSIZE[sd]
        c.bytes_written = math.prod(c.dst_shape) * ITEMSIZE[dd]
        c.name = f"{i:02d} {kind} {sd}->{dd} {'x'.join(map(str, c.dst_shape))}"
        if c.src_perm != tuple(range(len(c.src_perm))):
            c.name += f" perm{list(c.src_perm)}"
        cases.append(c)
    return cases


# ----------------------------------------------------------------- DRAM bound (no GPU)

SECTOR = 32
"""Bytes of one DRAM sector (the unit the memory system moves on Hopper)."""


def _byte_modes(addr: int, itemsize: int, shape, strides) -> tuple[int, list[tuple[int, int]]]:
    """The lowest byte address of a strided view (element 0 at `addr`, `strides` in
    elements) and its modes as (stride in bytes, extent), increasing: modes of extent 1
    or stride 0 dropped, negative strides flipped (neither changes the set of addresses
    once the base moves to the lowest one)."""
    base = addr
    modes = []
    for n, s in zip(shape, strides):
        if n == 1 or s == 0:
            continue
        if s < 0:
            base += s * (n - 1) * itemsize
            s = -s
        modes.append((s * itemsize, n))
    return base, sorted(modes)


def sectors_touched(addr: int, itemsize: int, shape, strides) -> int:
    """Distinct 32-byte sectors that the elements of a strided view touch, exactly.

    `addr` is the byte address of element 0 (only its residue mod 32 matters),
    `strides` are in elements (any sign; 0 for broadcast modes). Modes of stride 0 or
    extent 1 are dropped and negative strides flipped (neither changes the set of
    addresses once the base moves to the lowest one); the rest are sorted by stride.
    Where they nest (each stride steps over the whole reach of the modes below it,
    as every slice and permute of a contiguous tensor does), the count is built mode
    by mode without enumerating elements: a block of modes 0..k is `n_k` blocks of
    modes 0..k-1 in increasing address order, so its sectors are theirs summed less
    the sectors two neighbouring blocks share (only the last sector of one block can
    be the first of the next), and all of that depends on the block's start address
    mod 32 alone (32 cases per mode; a mode's offsets mod 32 repeat with period at
    most 32). Views that do not nest are enumerated (`ValueError` beyond 2**24
    elements)."""
    if any(n == 0 for n in shape):
        return 0
    base, modes = _byte_modes(addr, itemsize, shape, strides)
    reach = itemsize
    nested = True
    for s, n in modes:
        if s < reach:
            nested = False
            break
        reach += s * (n - 1)
    if not nested:
        if math.prod(n for _, n in modes) > 1 << 24:
            raise ValueError("sectors_touched: a view whose modes interleave, too large to enumerate")
        off = np.zeros(1, dtype=np.int64)
        for s, n in modes:
            off = (off[:, None] + np.arange(n, dtype=np.int64)[None, :] * s).ravel()
        first = (base + off) // SECTOR
        last = (base + off + itemsize - 1) // SECTOR
        return len(np.union1d(first, last))
    # count[r]: sectors of the block so far when it starts at an address = r (mod 32)
    count = [(r + itemsize - 1) // SECTOR + 1 for r in range(SECTOR)]
    span = itemsize  # bytes from the block's first byte past its last one
    for s, n in modes:
        period = SECTOR // math.gcd(s, SECTOR)
        new = []
        for r in range(SECTOR):
            # block j (j >= 1) starts at a = r + j * s and may share its first sector
            # with the last one of block j - 1; blocks j and j + period agree
            per = []
            for j in range(1, period + 1):
                a = r + j * s
                per.append(count[a % SECTOR] - (a // SECTOR == (a - s + span - 1) // SECTOR))
            total = count[r % SECTOR] + sum(per) * ((n - 1) // period) + sum(per[: (n - 1) % period])
            new.append(total)
        count = new
        span += s * (n - 1)
    return count[base % SECTOR]


def partial_sectors(addr: int, itemsize: int, shape, strides) -> int:
    """Sectors a strided view touches but does not cover whole (some of their 32 bytes
    outside the view), exactly, for a view that does not overlap itself. Writing such a
    sector costs a DRAM read besides its write: the L2 fills the bytes not written
    before it writes the sector back (Nsight Compute, 11-26: case 46's DRAM reads are
    its source plus 32 bytes each partly written sector; 16's the same). The view's
    contiguous run (its stride-1 mode and the modes continuing it, bytes `R`) starts
    at addresses whose residues mod 32 are counted mode by mode (`hist`); a run at
    residue r covers floor((r + R) / 32) - ceil(r / 32) sectors whole, and no sector
    is covered whole by two runs (runs that abut would continue each other). So the
    count is `sectors_touched` less the whole sectors of every run."""
    if any(n == 0 for n in shape):
        return 0
    base, modes = _byte_modes(addr, itemsize, shape, strides)
    run = itemsize
    while modes and modes[0][0] == run:  # the contiguous run continues through this mode
        run *= modes.pop(0)[1]
    hist = [0] * SECTOR
    hist[base % SECTOR] = 1
    for s, n in modes:
        period = SECTOR // math.gcd(s, SECTOR)
        new = [0] * SECTOR
        for t in range(period):  # steps j = t (mod period) of [0, n)
            count = n // period + (t < n % period)
            for r in range(SECTOR):
                if hist[r]:
                    new[(r + t * s) % SECTOR] += hist[r] * count
        hist = new
    whole = sum(h * max(0, (r + run) // SECTOR - -(-r // SECTOR)) for r, h in enumerate(hist))
    return sectors_touched(addr, itemsize, shape, strides) - whole


def case_views(case: CopyCase) -> tuple[tuple, tuple, int, tuple, tuple, int]:
    """(src shape, src strides, src offset, dst shape, dst strides, dst offset) of a
    case, in elements, as `_make` builds them (offsets from each base tensor's start;
    src not yet broadcast)."""

    def contiguous(shape):
        out, acc = [], 1
        for n in reversed(shape):
            out.append(acc)
            acc *= n
        return out[::-1]

    bs = contiguous(case.base)
    shape = [len(range(*ix)) for ix in case.src_index]
    strides = [b * ix[2] for b, ix in zip(bs, case.src_index)]
    soff = sum(b * ix[0] for b, ix in zip(bs, case.src_index))
    sshape = tuple(shape[p] for p in case.src_perm)
    sstrides = tuple(strides[p] for p in case.src_perm)
    db = contiguous(case.dst_base)
    doff = sum(b * ix[0] for b, ix in zip(db, case.dst_index))
    return sshape, sstrides, soff, tuple(case.dst_shape), tuple(db), doff


def dram_bound(case: CopyCase, src_addr: int | None = None, dst_addr: int | None = None) -> dict:
    """The least DRAM traffic of a case: 32-byte sectors its src view touches (read)
    and its dst view touches (written), each counted once (a broadcast src is read
    once; sectors that strides or slices use only in part count whole). `bound` is
    the fastest ratio to cudaMemcpy the case can reach at cudaMemcpy's bandwidth:
    (bytes read + bytes written) / (sector bytes moved); above 1 where a broadcast
    src is read once for many dst elements. `src_addr`/`dst_addr` are the byte
    addresses of the views' element 0 (default: each base tensor 512-byte aligned)."""
    sshape, sstrides, soff, dshape, dstrides, doff = case_views(case)
    si, di = ITEMSIZE[case.src_dtype], ITEMSIZE[case.dst_dtype]
    src_addr = soff * si if src_addr is None else src_addr
    dst_addr = doff * di if dst_addr is None else dst_addr
    rs = sectors_touched(src_addr, si, sshape, sstrides)
    ws = sectors_touched(dst_addr, di, dshape, dstrides)
    fills = partial_sectors(dst_addr, di, dshape, dstrides)
    moved = case.bytes_read + case.bytes_written
    return {"read_sectors": rs, "write_sectors": ws, "fill_sectors": fills,
            "bound": moved / (SECTOR * (rs + ws)), "bound_fills": moved / (SECTOR * (rs + ws + fills))}


# --------------------------------------------------------------------------- GPU side


def _make(torch, case: CopyCase, gen):
    def rand(dtype, shape):
        t = getattr(torch, dtype)
        if dtype == "bool":
            return torch.rand(shape, generator=gen, device="cuda") > 0.5
        if dtype in ("float16", "bfloat16", "float32", "float64"):
            return (torch.randn(shape, generator=gen, device="cuda") * 30).clamp(-120, 120).to(t)
        info = torch.iinfo(t)
        return torch.randint(info.min, info.max, shape, generator=gen, device="cuda", dtype=t)

    base = rand(case.src_dtype, case.base)
    src = base[tuple(slice(*ix) for ix in case.src_index)].permute(*case.src_perm) if case.base else base
    dst_base = torch.empty(case.dst_base, dtype=getattr(torch, case.dst_dtype), device="cuda")
    dst = dst_base[tuple(slice(*ix) for ix in case.dst_index)] if case.dst_base else dst_base
    return src, dst_base, dst


def _bits(torch, x):
    size = x.element_size()
    return x.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]) \
        if x.dtype != torch.bool else x.view(torch.uint8)


_TRITON_KERNEL = None
TRITON_RANK = 6


def _triton_kernel():
    """One generic strided copy in Triton: each program copies BLOCK elements of dst
    (in its row-major order over the merged modes), decomposing the flat index over
    run-time extents (modes beyond the copy's rank have extent 1)."""
    global _TRITON_KERNEL
    if _TRITON_KERNEL is None:
        import triton
        import triton.language as tl

        @triton.jit
        def strided_copy(src, dst, total, n0, n1, n2, n3, n4, n5, s0, s1, s2, s3, s4, s5,
                         d0, d1, d2, d3, d4, d5, RANK: tl.constexpr, BLOCK: tl.constexpr):
            i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
            mask = i < total
            so = tl.zeros([BLOCK], dtype=tl.int64)
            do = tl.zeros([BLOCK], dtype=tl.int64)
            rest = i
            if RANK > 5:
                so += (rest % n5) * s5
                do += (rest % n5) * d5
                rest = rest // n5
            if RANK > 4:
                so += (rest % n4) * s4
                do += (rest % n4) * d4
                rest = rest // n4
            if RANK > 3:
                so += (rest % n3) * s3
                do += (rest % n3) * d3
                rest = rest // n3
            if RANK > 2:
                so += (rest % n2) * s2
                do += (rest % n2) * d2
                rest = rest // n2
            if RANK > 1:
                so += (rest % n1) * s1
                do += (rest % n1) * d1
                rest = rest // n1
            so += rest * s0
            do += rest * d0
            x = tl.load(src + so, mask=mask)
            tl.store(dst + do, x, mask=mask)

        _TRITON_KERNEL = strided_copy
    return _TRITON_KERNEL


def triton_copy(torch, dst, src):
    """A callable running the generic Triton copy of `src` into `dst`, or None where
    one generic kernel does not apply (dtypes differ: PyTorch's conversion rules are
    not Triton's; more than TRITON_RANK merged modes; no Triton). Same-dtype copies
    move the bits through same-sized integer views, so every dtype is exact."""
    if src.dtype != dst.dtype:
        return None
    try:
        import triton  # noqa: F401
    except ImportError:
        return None
    from tilec.copy_plan import merge_modes

    srcb = src.expand(dst.shape)
    ns, ss, ds, soff, doff = merge_modes(tuple(dst.shape), tuple(srcb.stride()), tuple(dst.stride()))
    if len(ns) > TRITON_RANK or soff or doff:
        return None
    ints = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[dst.element_size()]
    sv = src.view(ints) if src.dtype != torch.bool else src.view(torch.int8)
    dv = dst.view(ints) if dst.dtype != torch.bool else dst.view(torch.int8)
    # the flat views' element 0 is each tensor's element 0; merge_modes keeps that
    pad = TRITON_RANK - len(ns)
    ns, ss, ds = ns + [1] * pad, ss + [0] * pad, ds + [0] * pad
    total = math.prod(ns[: len(ns) - pad])
    block = 1024
    kernel = _triton_kernel()
    grid = (triton_cdiv(total, block),)

    def run():
        kernel[grid](sv, dv, total, *ns, *ss, *ds, RANK=TRITON_RANK - pad, BLOCK=block)

    return run


def triton_cdiv(a: int, b: int) -> int:
    return -(-a // b)


WARM_MS = 25.0
"""Least GPU time each timed copy runs before its timing: the GPU's clocks ramp
down while the host compiles or checks, and five warm-up calls of a 50 us copy did
not bring them back (H100: the copy timed first of two ran up to 10% slower)."""


def _median(copy_bench, fn, reps: int) -> float:
    """`copy_bench.median_ms` of fn after at least `WARM_MS` of fn itself."""
    probe = copy_bench.median_ms(fn, warmup=1, reps=3)
    return copy_bench.median_ms(fn, warmup=max(5, math.ceil(WARM_MS / max(probe, 1e-3))), reps=reps)


def run_cases(cases, quick_reps: bool = False) -> list[dict]:
    import copy_bench  # benchmarks/copy_bench.py: median_ms, tbps, memcpy_tbps
    import torch

    import tilec

    results = []
    memcpy_cache: dict[int, float] = {}
    gen = torch.Generator(device="cuda").manual_seed(0)
    for case in cases:
        src, dst_base, dst = _make(torch, case, gen)
        dst_base.fill_(77)
        ref_base = dst_base.clone()
        ref = ref_base[tuple(slice(*ix) for ix in case.dst_index)] if case.dst_base else ref_base
        ref.copy_(src)
        t0 = time.perf_counter()
        tilec.copy_(dst, src)
        torch.cuda.synchronize()
        first = time.perf_counter() - t0
        exact = bool(torch.equal(_bits(torch, dst_base), _bits(torch, ref_base)))
        del ref_base, ref
        moved = case.bytes_read + case.bytes_written
        reps = 10 if quick_reps else 30
        t_tilec = _median(copy_bench, lambda: tilec.copy_(dst, src), reps)
        t_torch = _median(copy_bench, lambda: dst.copy_(src), reps)
        t_triton, triton_exact = None, None
        run_triton = triton_copy(torch, dst, src)
        if run_triton is not None:
            dst_base.fill_(77)
            run_triton()
            torch.cuda.synchronize()
            ref_base = dst_base.clone()
            ref_base.fill_(77)
            ref_base[tuple(slice(*ix) for ix in case.dst_index)].copy_(src)
            triton_exact = bool(torch.equal(_bits(torch, dst_base), _bits(torch, ref_base)))
            del ref_base
            t_triton = _median(copy_bench, run_triton, reps)
        one_way = moved // 2
        if one_way not in memcpy_cache:
            memcpy_cache[one_way] = copy_bench.memcpy_tbps(one_way)
        mc = memcpy_cache[one_way]
        bound = dram_bound(case, src.data_ptr(), dst.data_ptr())
        r = {
            "name": case.name, "kind": case.kind, "src": case.src_dtype, "dst": case.dst_dtype,
            "shape": list(case.dst_shape), "perm": list(case.src_perm), "bytes": moved,
            "exact": exact, "first_call_s": round(first, 3),
            "tilec_ms": t_tilec, "torch_ms": t_torch, "triton_ms": t_triton,
            "triton_exact": triton_exact,
            "tilec_tbps": copy_bench.tbps(moved, t_tilec), "torch_tbps": copy_bench.tbps(moved, t_torch),
            "memcpy_tbps": mc, **bound,
        }
        r["tilec_ratio"] = r["tilec_tbps"] / mc
        r["torch_ratio"] = r["torch_tbps"] / mc
        r["triton_ratio"] = copy_bench.tbps(moved, t_triton) / mc if t_triton else None
        results.append(r)
        tri = "-" if t_triton is None else f"{r['triton_ratio']:.3f}{'' if triton_exact else ' (not exact)'}"
        print(f"{case.name:60s} exact={exact} tilec {r['tilec_ratio']:.3f} torch {r['torch_ratio']:.3f} "
              f"triton {tri} bound {r['bound']:.3f} (with fills {r['bound_fills']:.3f})", flush=True)
        del src, dst_base, dst
        torch.cuda.empty_cache()
    return results


def host_time(calls: int = 2000) -> list[dict]:
    """Per-call end-to-end time of small copies: tilec (on torch tensors), torch
    `copy_`, CuPy (`dst[...] = src`), each 2000 calls then one synchronisation."""
    import cupy as cp
    import torch

    import tilec

    out = []
    patterns = [
        ("transpose f32", "float32", "float32", lambda n: (n, n), (1, 0)),
        ("NHWC->NCHW f16", "float16", "float16", lambda n: (2, n // 4, n // 4, 8), (0, 3, 1, 2)),
        ("f32->f16 contiguous", "float32", "float16", lambda n: (n, n), (0, 1)),
    ]
    for nbytes in (4 * 1024, 64 * 1024, 1024 * 1024):
        for name, sd, dd, shape_of, perm in patterns:
            elems = nbytes // ITEMSIZE[sd]
            side = int(round(elems ** 0.5)) if len(shape_of(4)) == 2 else int(round((elems / 16) ** 0.5)) * 4
            shape = shape_of(side)
            x = torch.randn(shape, device="cuda").to(getattr(torch, sd)).permute(*perm)
            y = torch.empty(x.shape, device="cuda", dtype=getattr(torch, dd))
            xc, yc = cp.asarray(x), cp.asarray(y)
            cdt = yc.dtype

            def host_only(fn, n=500):
                """Host time per call alone: fewer calls than the launch queue holds,
                no synchronisation inside the timed region."""
                for _ in range(50):
                    fn()
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(n):
                    fn()
                dt = time.perf_counter() - t0
                torch.cuda.synchronize()
                return dt / n * 1e6

            def timed(fn):
                for _ in range(50):
                    fn()
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(calls):
                    fn()
                torch.cuda.synchronize()
                return (time.perf_counter() - t0) / calls * 1e6

            row = {
                "pattern": name, "bytes": int(x.numel() * x.element_size()),
                "tilec_us": timed(lambda: tilec.copy_(y, x)),
                "torch_us": timed(lambda: y.copy_(x)),
                "cupy_us": timed(lambda: yc.__setitem__(Ellipsis, xc.astype(cdt, copy=False))),
                "tilec_host_us": host_only(lambda y=y, x=x: tilec.copy_(y, x)),
                "torch_host_us": host_only(lambda y=y, x=x: y.copy_(x)),
            }
            out.append(row)
            print(f"{name:22s} {row['bytes']:>8d} B  tilec {row['tilec_us']:6.1f} us  torch "
                  f"{row['torch_us']:6.1f} us  cupy {row['cupy_us']:6.1f} us  host only: tilec "
                  f"{row['tilec_host_us']:.1f} torch {row['torch_host_us']:.1f}", flush=True)
    return out


def tables(results: list[dict], host: list[dict]) -> str:
    lines = []
    if results:
        ratios = [r["tilec_ratio"] for r in results]
        lines += [
            (
                f"Generated set: {len(results)} cases; tilec / cudaMemcpy: min {min(ratios):.3f}, "
                f"median {statistics.median(ratios):.3f}, max {max(ratios):.3f}; exact: "
                f"{sum(r['exact'] for r in results)}/{len(results)}; slower than PyTorch: "
                f"{sum(r['tilec_ms'] > r['torch_ms'] * 1.02 for r in results)}"
            ),
            (
                f"DRAM bound (sectors touched at cudaMemcpy's bandwidth): below 0.99 on "
                f"{sum(r['bound'] < 0.99 for r in results)} cases (min {min(r['bound'] for r in results):.3f}); "
                f"tilec / bound: min {min(r['tilec_ratio'] / r['bound'] for r in results):.3f}, median "
                f"{statistics.median(r['tilec_ratio'] / r['bound'] for r in results):.3f}"
            ),
        ]
        tri = [r for r in results if r.get("triton_ratio") is not None]
        if tri:
            lines.append(
                f"Triton (the {len(tri)} same-dtype cases with at most {TRITON_RANK} merged modes): "
                f"median {statistics.median(r['triton_ratio'] for r in tri):.3f}; tilec on these: median "
                f"{statistics.median(r['tilec_ratio'] for r in tri):.3f}; exact {sum(bool(r['triton_exact']) for r in tri)}"
                f"/{len(tri)}; tilec slower than Triton: {sum(r['tilec_ms'] > r['triton_ms'] * 1.02 for r in tri)}"
            )
        lines += [
            "",
            "| case | MiB moved | tilec TB/s | tilec / memcpy | PyTorch / memcpy | Triton / memcpy | tilec vs PyTorch | DRAM bound | tilec / bound | exact |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for r in results:
            tri = r.get("triton_ratio")
            tri = "-" if tri is None else f"{tri:.3f}" + ("" if r.get("triton_exact") else " (not exact)")
            lines.append(
                f"| {r['name']} | {r['bytes'] / MiB:.0f} | {r['tilec_tbps']:.2f} | {r['tilec_ratio']:.3f} | "
                f"{r['torch_ratio']:.3f} | {tri} | {r['torch_ms'] / r['tilec_ms']:.2f}x | {r['bound']:.3f} | "
                f"{r['tilec_ratio'] / r['bound']:.3f} | {'yes' if r['exact'] else 'NO'} |"
            )
    if host:
        lines += ["", "| pattern | bytes | tilec us/call | PyTorch us/call | CuPy us/call | tilec host us | PyTorch host us |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for h in host:
            lines.append(f"| {h['pattern']} | {h['bytes']} | {h['tilec_us']:.1f} | {h['torch_us']:.1f} | "
                         f"{h['cupy_us']:.1f} | {h['tilec_host_us']:.1f} | {h['torch_host_us']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cases", type=int, default=48)
    ap.add_argument("--quick", action="store_true", help="4-16 MiB tensors, fewer repetitions")
    ap.add_argument("--only", default="", help="case numbers: 3,5,10-20")
    ap.add_argument("--host-only", action="store_true")
    ap.add_argument("--no-host", action="store_true")
    ap.add_argument("--list", action="store_true", help="print the generated cases and stop (no GPU)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--md", default=None)
    args = ap.parse_args(argv)
    lo, hi = (4, 16) if args.quick else (64, 1024)
    cases = generate_cases(args.seed, args.cases, lo, hi)
    if args.only:
        keep = set()
        for part in args.only.split(","):
            lo, _, hi = part.partition("-")
            keep.update(range(int(lo), int(hi or lo) + 1))
        cases = [c for i, c in enumerate(cases) if i in keep]
    if args.list:
        for c in cases:
            print(c.name, f"{(c.bytes_read + c.bytes_written) / MiB:.0f} MiB, DRAM bound {dram_bound(c)['bound']:.3f}")
        return 0
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    results = [] if args.host_only else run_cases(cases, args.quick)
    host = [] if args.no_host else host_time()
    text = tables(results, host)
    print(text)
    if args.json:
        from run_info import run_info  # benchmarks/ (this script's folder)

        with open(args.json, "w") as f:
            import torch

            json.dump({**run_info(torch.cuda.get_device_name()), "cases": results, "host": host, "seed": args.seed,
                       "generated": [asdict(c) for c in cases]}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    bad = [r for r in results if not r["exact"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
