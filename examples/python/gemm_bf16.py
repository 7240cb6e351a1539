"""C = A @ B in bf16 on tensor cores (f32 accumulation), written in tilec's layouts, on
PyTorch tensors; checked against torch.matmul within the documented MMA tolerance.

    python examples/python/gemm_bf16.py [M N K]     (default 1024 1024 1024)
    python examples/python/gemm_bf16.py --emit M N K CONFIG   (print the program of a
        block configuration, `config_kwargs`)

`gemm(M, N, K)` builds the program of examples/gemm_bf16.mlir with `tilec.Program` for
any M (a multiple of 128), N (of 256) and K (of 64, at least 192); other block tiles,
warps, K steps, pipeline depths, padded or swizzled tiles, register double buffering
and the block order are its parameters (benchmarks/gemm_bench.py tries some;
`config_kwargs` reads them from a string). examples/gemm_bf16.mlir is
`gemm(256, 256, 256)`, small enough for the CPU reference executor. With the defaults (the fastest measured,
benchmarks/NOTES.md), per block of 8 warps (2 x 4, each a 64x64 tile), a 128x256 tile
of C:

- a 4-stage `cp.async` pipeline (`layout.copy_async` of 16-byte vectors, coalesced,
  one commit group per operand tile) fills unpadded, NVMMA-style swizzled shared
  tiles of A (128x64, `Swizzle<3,3,3>` in bf16 elements) and B (64x256,
  `Swizzle<3,3,5>`): the 16-byte unit of a row is XORed with the row mod 8, so the 8
  rows of an `ldmatrix` matrix fall in 8 different bank groups (`swizzle=False`
  pads the rows by 16 bytes instead);
- an `scf.for` over K carries the 128x256 f32 accumulator in the MMA layout
  (`#layout.nvidia_mma`, warps 2x4: 128 registers per thread) and the first 16-deep
  operand slices of the next K step; each step starts the copy of the tile 3 steps
  ahead, and 4 times loads the next 16-deep slices of A and B into the operand layouts
  (`#layout.dot_op`; `lower-to-gpu` picks `ldmatrix.x4` and `ldmatrix.x4.trans`)
  before it issues `layout.mma` on the current ones (32 `mma.sync.m16n8k16` per
  warp); its one `async_wait` + `barrier` comes before the load of the next stage;
- blocks take their tiles in grouped order (8 block rows at a time, Triton's
  `GROUP_SIZE_M`), for L2 reuse;
- the epilogue rounds the accumulator to bf16, stores it into shared memory (B's
  buffer re-viewed, rows padded by 16 bytes; `stmatrix.x4` on sm_90), and stores it
  from there coalesced (a blocked layout, 16-byte vectors, each warp whole 512-byte
  rows).

Without a GPU (or PyTorch) the script compiles the kernel with NVRTC for sm_90 and
runs the 256x256x256 example on the CPU reference executor instead.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from types import SimpleNamespace

import numpy as np

import tilec


def gemm(
    m: int,
    n: int,
    k: int,
    bm: int = 128,
    bn: int = 256,
    bk: int = 64,
    warps: tuple[int, int] = (2, 4),
    stages: int = 4,
    swizzle: bool = True,
    group: int = 8,
    double_buffer: bool = True,
):
    """The program of C (m x n, bf16) = A (m x k) @ B (k x n), row-major (`pa`, `pb`,
    `pc`), as a verified module: blocks of bm x bn, K steps of bk (loaded 16 at a time
    into the operand layouts), warps[0] x warps[1] warps, a `stages`-deep cp.async
    pipeline.

    With `swizzle`, the A and B tiles are unpadded and swizzled NVMMA-style instead of
    padded: the 16-byte unit of a row (bits 3-5 of the element offset) is XORed with
    the row mod 8, `Swizzle<3,3,S>` in bf16 elements with S = log2(row length) - 3
    (`Swizzle<3,3,3>` for A's rows of 64 elements: CuTe's 128-byte `Swizzle<3,4,3>`
    counted in bytes; `Swizzle<3,3,4>` for B's rows of 128). The cp.async copies
    write through the swizzle, the ldmatrix loads read through it.

    With `group` > 1 the grid is one-dimensional and block i computes the C tile of
    Triton's grouped order (`GROUP_SIZE_M`): consecutive blocks walk down `group` block
    rows, then move one block column right, so the blocks in flight at once read fewer
    distinct A and B tiles (L2 reuse); the last group has the rows that are left.

    With `double_buffer`, the 16-deep operand slices are loaded one ahead of the MMAs
    (CUTLASS's register double buffering): slice j+1's ldmatrix is issued before slice
    j's mma.sync, and the last slice's MMAs overlap the loads of the next K step's first
    slice, which the `scf.for` carries to the next step with the accumulator. The one
    `async_wait` + `barrier` of a K step moves to just before that load (the next stage
    has landed; every warp has read the stage the step's cp.async refills)."""
    t = 32 * warps[0] * warps[1]
    ca, cb = bk // 8, bn // 8
    if m % bm or n % bn or k % bk or k // bk < stages - 1 or bk % 16 or t % ca or t % cb:
        raise ValueError(f"gemm: M, N multiples of {bm}, {bn}, K of {bk} and at least {bk * (stages - 1)}")
    if bm % (t // ca) or bk % (t // cb) or 32 % cb and cb % 32:
        raise ValueError("gemm: the block's threads do not tile the copies")
    if group < 1:
        raise ValueError(f"gemm: group {group} is not a number of block rows")
    if swizzle and not all(x >= 64 and x & (x - 1) == 0 for x in (bk, bn)):
        raise ValueError("gemm: a swizzled GEMM needs bk and bn powers of two of at least 64")
    pa, pb, pc = (bk, bn, bn + 8) if swizzle else (bk + 8, bn + 8, bn + 8)

    def smem(rows: int, cols: int, pad: int):
        """A shared tile of A (cols = bk) or B (bn): rows of `pad` elements, swizzled."""
        lay = tilec.Layout((rows, cols), (pad, 1))
        return tilec.ComposedLayout(tilec.Swizzle(3, 3, cols.bit_length() - 4), 0, lay) if swizzle else lay

    mma = tilec.NvidiaMmaLayout(2, list(warps), [16, 8])
    frag_a, frag_b = tilec.DotOperandLayout(0, mma, 2), tilec.DotOperandLayout(1, mma, 2)
    out = tilec.BlockedLayout([1, 8], [32 // min(cb, 32), min(cb, 32)], [t // 32, 1], [1, 0])
    p = tilec.Program("gemm")
    ptrs = [p.pointer(name, "bf16", align=16) for name in ("pa", "pb", "pc")]
    A, B, C = (p.view(ptr, f"({r},{c}):({c},1)").named(name)
               for name, ptr, (r, c) in zip("ABC", ptrs, [(m, k), (k, n), (m, n)]))
    g = SimpleNamespace(**{name: p.constant(x).named(name) for name, x in [
        ("c0", 0), ("c1", 1), ("stages", stages), ("ahead", stages - 1), ("nk", k // bk), ("last", k // bk - 1)]})
    with _launch(p, g, m // bm, n // bn, t, group):
        sa = p.alloc(smem(stages * bm, bk, pa), "bf16").named("sa")
        sb = p.alloc(smem(stages * bk, bn, pb), "bf16").named("sb")

        def issue(kt, stage) -> None:
            """The cp.async of K tile `kt` of A and B into shared stage `stage`: 16-byte
            vectors, coalesced (consecutive threads along a row), one group per operand."""
            ta = p.tile(A, [g.bx, kt], [bm, bk]).named("ta")
            tb = p.tile(B, [kt, g.by], [bk, bn]).named("tb")
            wa = p.tile(sa, [stage, g.c0], [bm, bk]).named("wa")
            wb = p.tile(sb, [stage, g.c0], [bk, bn]).named("wb")
            for x, src, dst, threads in (("a", ta, wa, f"({t // ca},{ca}):({ca},1)"),
                                         ("b", tb, wb, f"({t // cb},{cb}):({cb},1)")):
                f = p.distribute(p.vectorize(src, [1, 8]).named(f"v{x}"), g.tid, threads).named(f"f{x}")
                z = p.distribute(p.vectorize(dst, [1, 8]).named(f"y{x}"), g.tid, threads).named(f"z{x}")
                p.copy_async(f, z, token=False)

        def stage_tiles(s, suffix: str = ""):
            return (p.tile(sa, [s, g.c0], [bm, bk]).named(f"xa{suffix}"),
                    p.tile(sb, [s, g.c0], [bk, bn]).named(f"xb{suffix}"))

        def operands(xa, xb, off, j) -> tuple:
            """The 16-deep slices at `off` of the stage tiles, in the operand layouts
            (ldmatrix)."""
            ka = p.tile(xa, [g.c0, off], [bm, 16]).named(f"ka{j}")
            kb = p.tile(xb, [off, g.c0], [16, bn]).named(f"kb{j}")
            return p.load(ka, frag_a).named(f"opa{j}"), p.load(kb, frag_b).named(f"opb{j}")

        def wait() -> None:  # the oldest stage in flight has landed, in every thread's view
            p.async_wait(pending=2 * (stages - 2))
            p.barrier()

        def next_tile(kt) -> None:  # start tile kt+stages-1 (past the end: the last again, into a stage never read)
            far = (kt + g.ahead).named("far")
            issue(p.minui(far, g.last).named("next"), p.remui(far, g.stages).named("ns"))

        for s in range(stages - 1):  # prologue: tiles 0 .. stages-2
            kc = p.constant(s).named(f"k{s}")
            issue(kc, kc)
        nj = bk // 16
        if double_buffer:
            wait()
            xa_p, xb_p = stage_tiles(g.c0, "_p")
            opa, opb = operands(xa_p, xb_p, g.c0, "_p")
            acc = p.full([bm, bn], 0.0, "f32", mma, dense=True).named("zero")
            with p.range(g.c0, g.nk, g.c1, carry=[acc, opa, opb]) as kt:
                kt.named("kt")
                for v, name in ((acc, "acc0"), (opa, "opa0"), (opb, "opb0")):
                    v.named(name)
                next_tile(kt)
                xa, xb = stage_tiles(p.remui(kt, g.stages).named("s"))
                xan, xbn = stage_tiles(p.remui((kt + g.c1).named("kn"), g.stages).named("sn"), "n")
                d, cur = acc, (opa, opb)
                for j in range(nj):
                    if j + 1 < nj:
                        nxt = operands(xa, xb, p.constant(j + 1).named(f"j{j + 1}"), j + 1)
                    else:  # the next stage's first slices: it has landed, every warp is done with step kt-1
                        wait()
                        nxt = operands(xan, xbn, g.c0, nj)
                    d = p.mma(*cur, d).named(f"d{j}")
                    cur = nxt
                acc.assign(d)
                opa.assign(cur[0])
                opb.assign(cur[1])
            for v in (acc, opa, opb):
                v.named("acc")
        else:
            acc = p.full([bm, bn], 0.0, "f32", mma, dense=True).named("zero")
            with p.range(g.c0, g.nk, g.c1, carry=[acc]) as kt:
                kt.named("kt")
                acc.named("acc0")
                wait()
                next_tile(kt)
                xa, xb = stage_tiles(p.remui(kt, g.stages).named("s"))
                d = acc
                for j in range(nj):
                    d = p.mma(*operands(xa, xb, p.constant(j).named(f"j{j}"), j), d).named(f"d{j}")
                acc.assign(d)
            acc.named("acc")
        # the epilogue: C's tile through shared memory (stmatrix), then coalesced 16-byte stores;
        # it reuses A's or B's buffer where one is large enough (every copy landed, every warp done with it)
        reuse = next((buf for buf, rows, pad in ((sa, stages * bm, pa), (sb, stages * bk, pb))
                      if rows * pad >= bm * (bn + 8)), None)
        if reuse is not None:
            p.async_wait(pending=0)
            p.barrier()
            sc = p.view(reuse, f"({bm},{bn}):({pc},1)").named("sc")
        else:
            sc = p.alloc(f"({bm},{bn}):({pc},1)", "bf16").named("sc")
        p.store(acc.cast("bf16").named("h"), sc)
        p.barrier()
        o = p.load(sc, out, vector=8).named("o")
        p.store(o, p.tile(C, [g.bx, g.by], [bm, bn]).named("tc"), vector=8)
    return p.module


@contextmanager
def _launch(p, g, gm: int, gn: int, threads: int, group: int):
    """`layout.launch` over the C tiles (`gm` x `gn` blocks of `threads`), setting
    `g.bx`, `g.by`, `g.tid`: a 2-D grid, or with `group` > 1 a 1-D one in grouped order
    (Triton's `GROUP_SIZE_M`: consecutive blocks walk down a group of `group` block
    rows of C, then to the next block column, so the blocks in flight share their A and
    B tiles in L2; the last group has the block rows that are left)."""
    if group > 1:
        grid = (p.constant(gm * gn).named("nblocks"), g.c1, g.c1)
    else:
        grid = (p.constant(gm).named("gm"), p.constant(gn).named("gn"), g.c1)
    with p.launch(grid=grid, threads=threads) as ids:
        g.tid = ids.tid
        if group == 1:
            g.bx, g.by = ids.bx, ids.by
        else:
            group = min(group, gm)
            pid = ids.bx.named("pid")
            ids.by.named("b1")
            gw, gg = p.constant(group * gn).named("gw"), p.constant(group).named("g")
            grp, inw = p.divui(pid, gw).named("grp"), p.remui(pid, gw).named("inw")
            first = (grp * gg).named("first")
            gs = gg
            if gm % group:
                gs = p.minui((p.constant(gm).named("gm") - first).named("left"), gg).named("gsize")
            g.bx = (first + p.remui(inw, gs).named("row")).named("bx")
            g.by = p.divui(inw, gs).named("by")
        yield


def config_kwargs(spec: str) -> dict:
    """`gemm`'s keyword arguments for a block configuration written
    `BMxBNxBK:WMxWN:STAGES[:s][:db][:gG]` (`s`: swizzled shared tiles, `db`: operand
    fragments double-buffered in registers, `gG`: grouped block order of G block rows;
    a flag left out is off: padded tiles, no double buffering, row-major block order),
    as benchmarks/gemm_bench.py's --configs take them. `FASTEST` is the defaults."""
    tile, wg, st, *flags = spec.split(":")
    bm, bn, bk = (int(x) for x in tile.split("x"))
    wm, wn = (int(x) for x in wg.split("x"))
    kw = dict(bm=bm, bn=bn, bk=bk, warps=(wm, wn), stages=int(st), swizzle=False, double_buffer=False, group=1)  # noqa: C408
    for f in flags:
        if f == "s":
            kw["swizzle"] = True
        elif f == "db":
            kw["double_buffer"] = True
        elif f[:1] == "g" and f[1:].isdigit():
            kw["group"] = int(f[1:])
        else:
            raise ValueError(f"gemm config {spec!r}: unknown flag {f!r} (s, db, gN)")
    return kw


FASTEST = "128x256x64:2x4:4:s:db:g8"
"""`gemm`'s defaults as a configuration string: the fastest measured at
8192^3 on an H100 (benchmarks/NOTES.md)."""

EXAMPLE_SHAPE = (256, 256, 256)
"""The shape of examples/gemm_bf16.mlir."""


def main(argv: list[str]) -> int:
    if argv[:1] == ["--emit"]:  # --emit M N K CONFIG: print the program (dev/device/sanitize.sh)
        m, n, k = (int(x) for x in argv[1:4])
        print(gemm(m, n, k, **config_kwargs(argv[4])))
        return 0
    m, n, k = (int(x) for x in argv[:3]) if len(argv) >= 3 else (1024, 1024, 1024)
    return run_and_check(gemm, (m, n, k), EXAMPLE_SHAPE, "sm_90")


def run_and_check(
    build, shape: tuple[int, int, int], example_shape: tuple[int, int, int], arch: str, pipeline: str = "default"
) -> int:
    """Run the GEMM `build(m, n, k)` (a program taking `pa`, `pb`, `pc`, compiled with
    the passes `pipeline`) on torch tensors of `shape` where a GPU and PyTorch are
    found, else at `example_shape` on the CPU reference executor after compiling it for
    `arch` with NVRTC; check C against float64 within the layout.mma bound and say so.
    0 when within it, else 1."""
    m, n, k = shape
    try:
        import torch
    except ImportError:
        torch = None
    from tilec.dialects.layout_mma import mma_error_bound

    if torch is not None and tilec.gpu_available() and torch.cuda.is_available():
        kernel = tilec.compile(build(m, n, k), pipeline)
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        kernel(a, b, c)
        torch.cuda.synchronize()
        a64, b64 = a.double(), b.double()
        got, where = c.double(), "on the GPU (torch tensors)"
    else:
        from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

        m, n, k = example_shape
        kernel = tilec.compile(build(m, n, k), pipeline, arch=arch)
        print(
            f"no GPU (or no PyTorch): compiled {len(kernel.cubin)} bytes of {arch} cubin with NVRTC; "
            f"running {m}x{n}x{k} on the CPU reference executor"
        )
        rng = np.random.default_rng(0)
        a = f32_to_bf16(rng.standard_normal((m, k)).astype(np.float32))
        b = f32_to_bf16(rng.standard_normal((k, n)).astype(np.float32))
        c = np.full(m * n, 0x7FC0, np.uint16)
        out = tilec.run_reference(kernel, {"pa": a.reshape(-1), "pb": b.reshape(-1), "pc": c})["pc"]
        a64, b64 = bf16_to_f32(a).astype(np.float64), bf16_to_f32(b).astype(np.float64)
        got, where = bf16_to_f32(np.asarray(out).reshape(m, n)).astype(np.float64), "on the CPU reference executor"
    exact = a64 @ b64
    mag = abs(a64) @ abs(b64)
    # f32 accumulation within the layout.mma bound, then one bf16 rounding (2^-8 relative)
    gamma, _ = mma_error_bound(k, "bf16")
    bound = gamma * mag + 2.0**-8 * (abs(exact) + gamma * mag)
    err = abs(got - exact)
    ok = bool((err <= bound).all())
    print(
        f"C = A @ B, {m}x{k} @ {k}x{n} bf16, {where}: "
        f"{'within' if ok else 'NOT within'} the documented tolerance (max error {float(err.max()):.3g})"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
