"""C = A @ B in bf16 on Hopper's warpgroup tensor cores (`wgmma`, f32 accumulation),
written in tilec's layouts; checked against torch.matmul within the documented MMA
tolerance.

    python examples/python/gemm_bf16_hopper.py [--ws] [M N K]     (default 4096 4096 4096)

`gemm_hopper(M, N, K)` builds the program of examples/gemm_bf16_hopper.mlir with
`tilec.Program` (that file is `gemm_hopper(256, 256, 256)`, small enough for the CPU reference
executor) for any M, N, K with K and N multiples of 8 (the TMA needs 16-byte rows):
edge tiles are masked views, whose TMA loads fill the elements outside A and B with
zeros and whose stores write only the elements inside C; the K loop takes
`ceil(K / bk)` steps rounded up to a multiple of `stages`, the steps past K adding
zeros.
Per block of `bm / 64` warpgroups, a `bm x bn` tile of C:

- a ring of `stages` NVMMA-swizzled shared stages (128-byte swizzle; A K-major
  `bm x bk`, B MN-major `bk x bn`), each filled by two TMA loads
  (`layout.tma_load`, tensor maps encoded at launch) completing on the stage's
  mbarrier (`layout.mbarrier_arrive` with the stage's bytes); the loop over K is
  unrolled by `stages`, so stage `s` and its barrier are static and the phase a
  step waits on is `(kt / stages) % 2`;
- each step waits for its stage, issues one asynchronous `layout.mma {async}` on the
  shared tiles with a version-3 accumulator (`bk / 16` `wgmma.mma_async.m64n{bn}k16`
  per warpgroup, both operands through descriptors, then commit), waits for the
  previous step's (`layout.mma_wait {pending = 1}`: its own runs on under the next
  TMA wait; the loop's last is waited for after it), meets the block at a barrier
  (every warpgroup is done reading the previous stage) and starts the TMA load of the
  tile `stages - 1` steps ahead into the stage read one step before (past the end: the
  last tile again, waited on after the loop so that no copy is in flight at exit);
- the epilogue rounds the accumulator to bf16 and stores it from the accumulator
  layout (pairs of bf16 per thread).

This is the schedule by hand: examples/python/gemm_plain.py writes the same GEMM as a
plain single-buffered loop and has the `software-pipeline` pass make this schedule of
it (or `warp-specialize` the cooperative form below, non-persistent); the programs
here stay as the golden kernels the passes' output is measured against.

`--ws` runs `gemm_hopper_ws` with `BEST_WS` instead: the warp-specialised form
(a producer warpgroup filling the ring, consumer warpgroups running the wgmma,
mbarriers "full" and "empty" per stage, `setmaxnreg`), persistent over the
multiprocessors in grouped tile order, with a stmatrix + TMA-store epilogue in column
chunks (its docstring), written to examples/gemm_bf16_hopper_ws.mlir at `EXAMPLE_WS_SHAPE`.
`gemm_hopper_ws(..., pingpong=True)` is CUTLASS's pingpong schedule (two
consumer warpgroups on alternate tiles; the fastest at 4096 before `chunk`).
benchmarks/NOTES.md has the measured speed.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _k_steps(k: int, bk: int, stages: int) -> int:
    """The K steps of `bk` the loop takes: enough to cover K, rounded up to a multiple
    of `stages` (the loop is unrolled by the stages). The steps past K load boxes that
    lie wholly or partly outside A and B, which the TMA fills with zeros: they add
    nothing to C."""
    return _cdiv(_cdiv(k, bk), stages) * stages


def _check_shape(source: str, m: int, n: int, k: int, bm: int, stages: int) -> None:
    """Any M, N, K the TMA can address: A's and B's rows 16-byte aligned (K and N
    multiples of 8 bf16). Edge tiles are masked: their loads are zero-filled and their
    stores clipped by the TMA (layout.tma_load / tma_store)."""
    if min(m, n, k) < 1 or k % 8 or n % 8 or bm % 64 or stages < 2:
        raise ValueError(
            f"{source}: M, N, K >= 1 with K and N multiples of 8 (16-byte rows for the TMA); "
            f"bm a multiple of 64; stages >= 2 (got {m}x{n}x{k}, bm {bm}, stages {stages})"
        )


def _program(m: int, n: int, k: int, bm: int, bn: int, bk: int, bc: int, stages: int, mma_warps: int):
    """What both programs share up to their `layout.launch`, as a namespace `g`: the
    `tilec.Program` `g.p`, the views `g.A`, `g.B`, `g.C`, the accumulator layout
    `g.mma` (`bm x bc` over `mma_warps` warps), the shared layouts `g.SA`, `g.SB`,
    `g.SC` (NVMMA 128-byte swizzle) and the index constants."""
    from types import SimpleNamespace

    import tilec
    from tilec.dialects.mma import NvmmaSharedLayout

    def smem(rows: int, cols: int):
        return NvmmaSharedLayout(min(128, cols * 2), 16, False).composed([rows, cols])

    p = tilec.Program("gemm")
    g = SimpleNamespace(p=p, mma=tilec.NvidiaMmaLayout(3, [mma_warps, 1], [64, bc, 16]),
                        SA=smem(bm, bk), SB=smem(bk, bc), SC=smem(bm, bc))
    ptrs = [p.pointer(name, "bf16", align=16) for name in ("pa", "pb", "pc")]
    for name, ptr, (r, c) in zip("ABC", ptrs, [(m, k), (k, n), (m, n)]):
        setattr(g, name, p.view(ptr, f"({r},{c}):({c},1)").named(name))
    nk = _k_steps(k, bk, stages)
    for name, x in [("c0", 0), ("c1", 1), ("c2", 2), ("cs", stages), ("nk", nk), ("last", nk - 1),
                    ("gm", _cdiv(m, bm)), ("gn", _cdiv(n, bn))]:
        setattr(g, name, p.constant(x).named(name))
    return g


def _grouped(g, m: int, n: int, bm: int, bn: int, group: int, pid) -> None:
    """`g.bx`, `g.by` of the linear tile index `pid` in grouped order (Triton's
    `GROUP_SIZE_M`): consecutive tiles walk down `group` block rows of C, then to the
    next block column, so the blocks in flight share their A and B tiles in L2; the
    last group has the rows that are left."""
    p, gm, gn = g.p, _cdiv(m, bm), _cdiv(n, bn)
    grw = p.constant(min(group, gm) * gn).named("grw")
    gs = gg = p.constant(min(group, gm)).named("gg")
    grpi, ingrp = p.divui(pid, grw).named("grpi"), p.remui(pid, grw).named("ingrp")
    grow0 = (grpi * gg).named("grow0")
    if gm % min(group, gm):
        gs = p.minui((p.constant(gm).named("grows") - grow0).named("gleft"), gg).named("gsz")
    g.bx = (grow0 + p.remui(ingrp, gs).named("grow")).named("bx")
    g.by = p.divui(ingrp, gs).named("by")


@contextmanager
def _launch(g, m: int, n: int, bm: int, bn: int, threads: int, group: int, nprog: int = 0):
    """`layout.launch` over the tiles of C: a (M/bm, N/bn) grid; with `group` > 1 a
    linear one in grouped order; with `nprog` (persistent) a grid of `nprog` blocks.
    Sets `g.bx`, `g.by` (not persistent) or `g.pid`."""
    p = g.p
    if nprog:
        g.ntiles = p.constant(_cdiv(m, bm) * _cdiv(n, bn)).named("ntiles")
        grid = (p.constant(nprog).named("nprog"), g.c1, g.c1)
    elif group > 1:
        grid = (p.constant(_cdiv(m, bm) * _cdiv(n, bn)).named("ntiles"), g.c1, g.c1)
    else:
        grid = (g.gm, g.gn, g.c1)
    g.nprog = grid[0]
    with p.launch(grid=grid, threads=threads) as k:
        if nprog or group > 1:
            g.pid = k.bx.named("pid")
            k.by.named("b1")
            if not nprog:
                _grouped(g, m, n, bm, bn, group, g.pid)
        else:
            g.bx, g.by = k.bx, k.by
        yield


def gemm_hopper(m: int, n: int, k: int, bm: int = 128, bn: int = 256, bk: int = 64, stages: int = 4,
                group: int = 1):
    """The program of C = A @ B (the module docstring) as a verified module; A m x k,
    B k x n, C m x n, all row-major bf16 (`pa`, `pb`, `pc`)."""
    _check_shape("gemm_hopper", m, n, k, bm, stages)
    g = _program(m, n, k, bm, bn, bk, bn, stages, bm // 16)
    p = g.p
    with _launch(g, m, n, bm, bn, 2 * bm, group):
        sa, sb, bar = {}, {}, {}
        for s in range(stages):
            sa[s], sb[s] = p.alloc(g.SA, "bf16").named(f"sa{s}"), p.alloc(g.SB, "bf16").named(f"sb{s}")
            bar[s] = p.mbarrier_init(1).named(f"bar{s}")

        def load(s: int, kt, name: str) -> None:
            p.mbarrier_arrive(bar[s], tx=2 * (bm + bn) * bk)
            ta = p.tile(g.A, [g.bx, kt], [bm, bk]).named(f"ta{s}_{name}")
            tb = p.tile(g.B, [kt, g.by], [bk, bn]).named(f"tb{s}_{name}")
            p.tma_load(ta, sa[s], bar[s])
            p.tma_load(tb, sb[s], bar[s])

        for s in range(stages - 1):  # prologue: tiles 0 .. stages-2 into stages 0 .. stages-2
            load(s, p.constant(s).named(f"p{s}"), f"p{s}")
        acc = p.full([bm, bn], 0.0, "f32", g.mma, dense=True).named("zero")  # carried: named acc0, then acc
        with p.range(g.c0, g.nk, g.cs, carry=[acc]) as i:
            i.named("i")
            acc.named("acc0")
            phase = p.remui(p.divui(i, g.cs).named("round"), g.c2).named("phase")
            for s in range(stages):  # step i + s: stage s
                p.mbarrier_wait(bar[s], phase)
                d = p.mma(sa[s], sb[s], acc, is_async=True).named(f"d{s + 1}")
                # the previous step's wgmma have read their stage; this step's run on
                acc.assign(p.mma_wait(d, pending=1)[0].named(f"acc{s + 1}"))
                p.barrier()
                far = (i + p.constant(stages - 1 + s).named(f"o{s}")).named(f"far{s}")
                load((s + stages - 1) % stages, p.minui(far, g.last).named(f"next{s}"), f"next{s}")
        (acc,) = p.mma_wait(acc.named("inflight"), pending=0)
        # the loads past the end (the last tile again) land before the block exits
        endphase = p.constant((_k_steps(k, bk, stages) // stages) % 2).named("endphase")
        for s in range(stages - 1):
            p.mbarrier_wait(bar[s], endphase)
        h = acc.named("acc").cast("bf16").named("h")
        p.store(h, p.tile(g.C, [g.bx, g.by], [bm, bn]).named("tc"))
    return p.module


def gemm_hopper_ws(
    m: int, n: int, k: int, bm: int = 128, bn: int = 256, bk: int = 64, stages: int = 4,
    producer_regs: int = 40, consumer_regs: int = 232, group: int = 1, persistent: int = 0,
    tma_epilogue: bool = False, pingpong: bool = False, handover: str = "drain", chunk: int = 0,
):
    """The warp-specialised program of C = A @ B (`layout.warp_specialize`,
    dialects/layout_roles.py), as CUTLASS's sm90 cooperative kernel: a block of
    `bm / 64` consumer warpgroups and one producer warpgroup (`bm * 2 + 128` threads).

    The registers: ptxas gives a kernel that uses `setmaxnreg` the most its
    `__launch_bounds__` allow (168 per thread for 384 threads: 64512 in the block),
    and the regions move them: `dec` frees the producer's, `inc` takes them (it waits
    until they are free), so `bm / 64 * consumer_regs + producer_regs` may not exceed
    `(bm / 64 + 1) * 168` (232 x 2 + 40 = 504 = 3 x 168: all of them).

    - the producer (`setmaxnreg dec producer_regs`) fills the ring: the block's k-th
      K step overall (counting over its tiles) goes to stage `k % stages` after a wait
      on the stage's "empty" barrier (from the second round on: phase
      `(k / stages - 1) % 2`), with one `mbarrier_arrive` expecting the stage's bytes
      on its "full" barrier and two TMA loads completing on it;
    - the consumers (`setmaxnreg inc consumer_regs`) wait on "full" (phase
      `(k / stages) % 2`), run the stage's `layout.mma` (each warpgroup its 64 rows)
      and then hand the *previous* step's stage back on its "empty" barrier (one
      arrival per consumer warpgroup: its count is `bm / 64`): each `layout.mma` of a
      step is `{async}`, followed by `layout.mma_wait {pending = 1}` (its wgmma stays in
      flight while the next one issues; the wait's return says the one before has read
      its stage), as CUTLASS's consumer releases the stage `K_PIPE_MMAS` behind;
      after a tile's K loop, a `layout.mma_wait {pending = 0}` and its last stage is
      handed back; no block-wide barrier in the K loop; the
      epilogue stores the accumulator from its layout.

    `group` > 1: the tiles of C are taken in grouped order (`_grouped`).
    `persistent` = P > 0: a grid of min(P, tiles) blocks (P = the GPU's multiprocessors),
    block b taking tiles b, b + P, ... (CUTLASS's persistent tile scheduler): the ring
    and its barriers' phases run on across the block's tiles, so the producer loads
    the next tile's first stages while the consumers store the last one's C.
    `tma_epilogue`: the consumers write C's tile into a 128-byte-swizzled shared
    buffer (`layout.store`: `stmatrix`) and store it with the TMA (`layout.tma_store`,
    the consumers' threads meeting at a named barrier), waiting for the previous
    tile's store to have read the buffer first (`layout.tma_store_wait`) and for
    the last before the block exits: the store of a tile runs on beside the next
    tile's K loop. The buffer (`bm * bn * 2` bytes) comes beside the ring's
    `stages * (bm + bn) * bk * 2`: 3 stages of 128x256x64 with it.

    `pingpong` (needs `persistent`): CUTLASS's sm90 "pingpong" schedule. Two consumer
    regions of one warpgroup each (`warp_specialize warpgroups(1, 1, 1)`) take the
    block's tiles in turn: consumer 0 its 1st, 3rd, ... tile, consumer 1 its 2nd,
    4th, ..., each a whole `bm x bn` tile in its own accumulator (`bm / 64` wgmma of
    m64 per 16 of K). The producer fills the one ring with the block's tiles in order,
    so the consumers' K loops follow each other through the ring (the "empty"
    barriers count one arrival: one warpgroup reads a stage), and consumer 0's
    epilogue and restart run under consumer 1's wgmma. The consumers take turns
    through two "turn" mbarriers (CUTLASS's OrderedSequenceBarrier): a consumer
    waits for its turn before its K loop and gives the turn to the other after its
    last wait on a "full" barrier. Correctness needs this: both wait on the same
    "full" barriers, a round apart, and a wait on a parity whose phase has already
    completed returns at once. `handover` says when the turn is given: "drain"
    after the K loop (which waits for all its wgmma; the measured kernel), "issue"
    in the K loop's last step right after its last `layout.mma` is issued (the
    other's first wgmma then issues under this one's drain, as CUTLASS's consumer
    arrives after issuing its MMAs). With `tma_epilogue` each consumer has its own
    C buffer (its TMA store meets its own threads only).

    `chunk` = bc < bn: the block's `bn` columns in `bn / bc` column chunks, each with
    its own accumulator (`bm x bc`, `wgmma.m64n{bc}k16`), its own B stage buffers
    (`bk x bc`, loaded by their own TMA loads on the stage's "full" barrier) and its
    own `layout.tile` of C. The `tma_epilogue` then needs a C buffer of `bm x bc`
    only: chunk c is written (`stmatrix`) and stored once chunk c - 1's TMA store
    has read the buffer (`layout.tma_store_wait {pending = 0}`), so 4 stages of
    128 x 256 x 64 (192 KiB) fit beside a 128 x 128 buffer (32 KiB) in 227 KiB.
    """
    from tilec.compiler.kernel_builder import Value

    bc = chunk or bn
    if bn % bc or bc % 64:
        raise ValueError(f"gemm_hopper_ws: chunk ({chunk}) must divide bn ({bn}) and be a multiple of 64")
    nch = bn // bc
    _check_shape("gemm_hopper_ws", m, n, k, bm, stages)
    if persistent < 0 or group < 1:
        raise ValueError(f"gemm_hopper_ws: persistent ({persistent}) >= 0, group ({group}) >= 1")
    if pingpong and not persistent:
        raise ValueError("gemm_hopper_ws: the pingpong schedule needs persistent tiles (persistent > 0)")
    if handover not in ("drain", "issue"):
        raise ValueError(f"gemm_hopper_ws: handover is 'drain' or 'issue', got {handover!r}")
    wgs = 2 if pingpong else bm // 64
    at_launch = 65536 // (128 * (wgs + 1)) // 8 * 8  # what __launch_bounds__ allows a thread
    if wgs * consumer_regs + producer_regs > (wgs + 1) * at_launch:
        raise ValueError(
            f"gemm_hopper_ws: {wgs} x {consumer_regs} + {producer_regs} registers per thread of a "
            f"warpgroup exceed the block's {(wgs + 1) * at_launch} ({wgs + 1} x {at_launch} at launch): "
            "setmaxnreg inc would wait forever"
        )
    nprog = min(persistent, _cdiv(m, bm) * _cdiv(n, bn))
    g = _program(m, n, k, bm, bn, bk, bc, stages, 4 if pingpong else bm // 16)
    p = g.p
    o = {s: p.constant(s).named(f"o{s}") for s in reversed(range(1, stages))}
    o[0] = g.c0
    with _launch(g, m, n, bm, bn, 128 * (wgs + 1), group, nprog):

        full, empty = {}, {}

        def barriers(s: int) -> None:
            full[s] = p.mbarrier_init(1).named(f"full{s}")
            empty[s] = p.mbarrier_init(1 if pingpong else wgs).named(f"empty{s}")

        # with chunks the barriers come after all the stage buffers: each 8-byte barrier
        # between two 1024-byte-aligned buffers costs 1 KiB, which 4 x 48 + 32 KiB cannot spare
        sa, sb = {}, {}
        for s in range(stages):
            sa[s] = p.alloc(g.SA, "bf16").named(f"sa{s}")
            sb[s] = [p.alloc(g.SB, "bf16").named(f"sb{s}") for _ in range(nch)]
            if nch == 1:
                barriers(s)
        for s in range(stages if nch > 1 else 0):
            barriers(s)
        names = ["sc0", "sc1"] if pingpong else ["sc"]
        scs = [p.alloc(g.SC, "bf16").named(x) for x in names] if tma_epilogue else [None] * len(names)
        turns = [p.mbarrier_init(1).named(f"turn{c}") for c in (0, 1)] if pingpong else []

        def chunk_columns() -> None:
            g.bys = [g.by]
            if nch > 1:
                nchv = p.constant(nch).named("nch")
                g.bys = [(g.by * nchv).named("by")]
                g.bys += [(g.bys[0] + p.constant(c).named(f"ch{c}")).named("by") for c in range(1, nch)]

        def tiles(body, turn: int | None = None) -> None:
            """The region's walk over its tiles: `body()` with `g.bx`, `g.by`, `g.bys` and
            `g.base` (the block's K steps before this tile) set; `turn` c (pingpong):
            only the block's tiles c, c + 2, ... (consumer c's)."""
            if not persistent:
                g.base = p.constant(0).named("base")
                chunk_columns()
                return body()
            first, step = g.pid, g.nprog
            if turn is not None:
                first = (g.pid + p.constant(turn * nprog).named("turn")).named("first_t")
                step = p.constant(2 * nprog).named("step_t")
            with p.range(first, g.ntiles, step) as t:
                t.named("t")
                g.j = p.divui((t - g.pid).named("tsub"), g.nprog).named("j")
                g.base = (g.j * g.nk).named("base")
                if group > 1:
                    _grouped(g, m, n, bm, bn, group, t)
                else:
                    g.bx, g.by = p.divui(t, g.gn).named("bx"), p.remui(t, g.gn).named("by")
                chunk_columns()
                body()

        def consumer(sc, turn: int | None = None) -> None:
            if turn is not None:
                # the other consumer's K loop has passed its last wait on each "full"
                # barrier, so this one's waits (a round later in each stage) see the
                # next phase, not one already completed
                q = p.divui(g.j, g.c2).named("q")
                if turn == 0:
                    with p.if_(q.ne(g.c0).named("myturn")):
                        p.mbarrier_wait(turns[0], p.remui((q - g.c1).named("qprev"), g.c2).named("tphase"))
                else:
                    p.mbarrier_wait(turns[1], p.remui(q, g.c2).named("tphase"))
            accs = [Value(p, g.zero.ssa) for _ in range(nch)]
            with p.range(g.c0, g.nk, g.cs, carry=accs) as i:
                i.named("i")
                for a in accs:
                    a.named("acc0")
                rnd = p.divui((g.base + i).named("kall"), g.cs).named("round")
                phase = p.remui(rnd, g.c2).named("phase")
                later = i.ne(g.c0).named("later")
                for s in range(stages):
                    p.mbarrier_wait(full[s], phase)
                    # the loop's last step hands the turn over (handover "issue"): its wgmma complete first
                    sync = s == stages - 1 and turn is not None and handover == "issue"
                    for a, b in zip(accs, sb[s]):
                        if sync:
                            a.assign(p.mma(sa[s], b, a).named(f"acc{s + 1}"))
                            continue
                        d = p.mma(sa[s], b, a, is_async=True).named(f"d{s + 1}")
                        a.assign(p.mma_wait(d, pending=1)[0].named(f"acc{s + 1}"))
                    if s:
                        p.mbarrier_arrive(empty[s - 1])
                    else:
                        with p.if_(later):
                            p.mbarrier_arrive(empty[stages - 1])
                if turn is not None and handover == "issue":
                    # the K loop's last wait on a full barrier is past: the other consumer's turn
                    lasti = p.constant(_k_steps(k, bk, stages) - stages).named("lasti")
                    with p.if_(i.eq(lasti).named("islast")):
                        p.mbarrier_arrive(turns[1 - turn])
            accs = p.mma_wait(*(a.named("inflight") for a in accs), pending=0)
            if persistent:  # the loop waited for all its wgmma: the tile's last stage is free
                p.mbarrier_arrive(empty[stages - 1])
            if turn is not None and handover == "drain":  # the other consumer's turn: its K loop may start
                p.mbarrier_arrive(turns[1 - turn])
            for a, by in zip(accs, g.bys):
                h = a.named("acc").cast("bf16").named("h")
                tc = p.tile(g.C, [g.bx, by], [bm, bc]).named("tc")
                if tma_epilogue:  # the previous tile's (chunk's) TMA store has read sc
                    p.tma_store_wait(0)
                    p.store(h, sc)
                    p.tma_store(sc, tc)
                else:
                    p.store(h, tc)

        def producer() -> None:
            with p.range(g.c0, g.nk, g.cs) as i:
                i.named("i")
                rnd = p.divui((g.base + i).named("kall"), g.cs).named("round")
                first = rnd.eq(g.c0).named("first")
                ephase = p.remui((rnd - g.c1).named("prev"), g.c2).named("ephase")
                for s in range(stages):
                    kt = (i + o[s]).named(f"kt{s}")
                    _, otherwise = p.if_else(first)
                    with otherwise:
                        p.mbarrier_wait(empty[s], ephase)
                    p.mbarrier_arrive(full[s], tx=2 * (bm + bn) * bk)
                    ta = p.tile(g.A, [g.bx, kt], [bm, bk]).named(f"ta{s}")
                    tbs = [p.tile(g.B, [kt, by], [bk, bc]).named(f"tb{s}") for by in g.bys]
                    p.tma_load(ta, sa[s], full[s])
                    for tb, b in zip(tbs, sb[s]):
                        p.tma_load(tb, b, full[s])

        roles = p.warp_specialize([1, 1, 1] if pingpong else [wgs, 1])
        for c, role in enumerate(roles[:-1]):
            with role:
                p.setmaxnreg("inc", consumer_regs)
                g.zero = p.full([bm, bc], 0.0, "f32", g.mma, dense=True).named("zero")
                tiles(lambda c=c: consumer(scs[c], c if pingpong else None), c if pingpong else None)
                if tma_epilogue:  # the last TMA store has read the C buffer before the block exits
                    p.tma_store_wait(0)
        with roles[-1]:
            p.setmaxnreg("dec", producer_regs)
            tiles(producer)
    return p.module


EXAMPLE_SHAPE = (256, 256, 256)
"""The shape of examples/gemm_bf16_hopper.mlir."""

EXAMPLE_WS_SHAPE = (256, 256, 512)
"""The shape of examples/gemm_bf16_hopper_ws.mlir (`BEST_WS`: 2 tiles of 128 x 256, 8
K steps each, two rounds of the 4-stage ring)."""

BEST_WS = {"bk": 64, "stages": 4, "group": 8, "persistent": 132, "tma_epilogue": True, "chunk": 128}
"""The fastest warp-specialised configuration measured on the H100 at 4096 and 8192
(benchmarks/NOTES.md, `wgmma:128x256x64:4:ws:p:g8:tma:c128`): 128 x 256 x 64 tiles in
two column chunks of 128 (two accumulators, one `wgmma.m64n128k16` each per warpgroup
and 16 of K), a 4-stage ring (192 KiB) beside a 32 KiB C buffer that the chunks' TMA
stores take turns at, grouped order of 8 block rows, persistent over the H100's 132
multiprocessors (`main` takes the GPU's own count)."""


def main(argv: list[str]) -> int:
    from gemm_bf16 import run_and_check  # this script's folder is on sys.path

    ws = "--ws" in argv
    argv = [a for a in argv if a != "--ws"]
    m, n, k = (int(x) for x in argv[:3]) if len(argv) >= 3 else (4096, 4096, 4096)
    if ws:
        best = dict(BEST_WS)
        try:
            import torch

            if torch.cuda.is_available():
                best["persistent"] = torch.cuda.get_device_properties(0).multi_processor_count
        except ImportError:
            pass

        def build(m: int, n: int, k: int) -> str:
            return gemm_hopper_ws(m, n, k, **best)

        return run_and_check(build, (m, n, k), EXAMPLE_WS_SHAPE, "sm_90a")
    return run_and_check(gemm_hopper, (m, n, k), EXAMPLE_SHAPE, "sm_90a")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
