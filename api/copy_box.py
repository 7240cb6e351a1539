"""The box kernel of `tilec.copy_`: transposes of 1-byte elements whose dst-contiguous
mode continues a short src-contiguous one (or the reverse), as a GPU-level program
built as typed IR (xDSL's gpu, scf, memref, vector ops and `cuda.cp_async`), and when
to use it.

    box = box_shape(key, extents, src_strides, dst_strides)   # a BoxShape (NONE: no box kernel)
    module = box_module(key)       # key.box != 0: copy_program's signature + box_args

The tiled kernel (the `tile` pass's) pads every short mode to a power of two and moves one
byte per access through shared memory (a 32-bit register each). Where the src is
contiguous along a short mode `W` (taken whole: no padding) and the dst's contiguous
mode `D` (the last merged one) comes next in the src (src stride `n_W`), a block copies
a *box* of `W x D` (and, for a short `D`, `T` steps of the dst's next mode `K`) whose src
part is one or `T` contiguous runs:

- `BoxShape.FLAT` (`D` long, case 30's 19 x 38647519 bools): the box is `W` whole by `T`
  elements of `D`, one contiguous src run of `n_W * T` bytes;
- `BoxShape.ROWS` (`D` short, 16 to `SMALL_EXTENT`, case 42's 37 x 17 inside each of 1691
  steps of `K`): the box is `W x D` whole by `T` steps of `K`, `T` src runs of
  `n_W * n_D` bytes (stride `ss_K`), the dst `n_W` runs of `n_D * T` bytes (`ds_K` is
  `n_D`: the dst is contiguous over `D` and `K`);
- `BoxShape.COLS`, the mirror of `BoxShape.FLAT` (`W` long, `D` short, the dst contiguous over
  `D` then `W`: case 35's rows of 5 bytes from 5 src rows): the box is `D` whole by
  `T` elements of `W`, `n_D` src runs of `T` bytes, one dst run of `n_D * T` bytes.

For `BoxShape.FLAT` and `BoxShape.ROWS`, phase 1 copies each src run with 16-byte
`cuda.cp_async` copies of the aligned 16-byte chunks that cover it into a shared-memory slot congruent to it modulo 16 (slot `k` at
`k * PB`, the run's first byte at `PB k + (address mod 16)`), so no byte is moved
through registers and no run needs realigning. Phase 2 gives each thread one aligned
16-byte chunk of a dst run (the dst of coordinate `w` of `W`): its 16 bytes are read
from shared memory at a step of `n_W` (plus, for `BoxShape.ROWS`, one jump where the chunk
crosses a step of `K`: `n_D >= 16`, so at most one), put in a 16-byte vector and
stored with one `vector.store`; a chunk cut by the run's ends stores byte by byte.
Every other mode is a grid step (box extent 1). The pointers the kernel receives are
aligned down to 16 bytes; the remainders, the chunk `T`, the slot pitch `PB`, the
chunks per run `CD` and the block count are index arguments after `copy_program`'s
(`box_args`): one kernel per pattern, whatever the extents. `BoxShape.COLS` turns the
phases around (`_cols_phases`): 16-byte src loads whose bytes are stored into a
dst-ordered image of the box in shared memory, congruent to the dst modulo 16, then
copied out in 16-byte vectors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import arith, func, gpu, memref, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    VectorType,
    i8,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue

from tilec.dialects.cuda import CpAsyncCommitOp, CpAsyncOp, CpAsyncWaitOp
from tilec.support.index_width import INDEX_BITS_ATTR

from .copy_key import FUNCTION, ITEMSIZE, SMALL_EXTENT, BoxShape, CopyKey, index_arg_names, needs_conversion
from .copy_routes import current_routes

THREADS = 256
SMEM_BYTES = 40 * 1024
"""Shared memory of a box (static): H100, the probe of
dev/experiments/narrow_permute_probe.py (v3): case 30 0.75 / 0.84 / 0.90 of
cudaMemcpy with boxes of 10 / 20 / 39 KiB, case 42 0.45 / 0.47 / 0.52 with 11 / 17 /
22 KiB."""
INDEX32_LIMIT = 2**31
_INDEX = IndexType()
_V16 = VectorType(i8, [16])


def smem_bytes() -> int:
    """Shared memory of a box: `SMEM_BYTES`, or the tuning value in force
    (`copy_routes`, `box_smem`)."""
    return current_routes().box_smem or SMEM_BYTES


def _src_mode(key: CopyKey) -> int | None:
    """`W`: the src's stride-1 mode, where it is not the dst's contiguous mode."""
    w = next((k for k, s in enumerate(key.src_strides) if s == 1), None)
    return None if w is None or w == key.rank - 1 else w


def box_shape(key: CopyKey, extents, src_strides, dst_strides) -> BoxShape:
    """`BoxShape.FLAT`, `ROWS`, `COLS` or `NONE` (no box kernel) for a copy: the
    `copy-strategy` pass's box rule (passes/_copy_cost.box_flavour, its module doc) on
    the copy's own numbers, with the box's shared memory in force (`smem_bytes`).
    (H100, `box_cols_probe.py`, rows of `n_D` bytes from `n_D` long src rows, 256 MiB,
    off -> on: 3 0.61 -> 0.88, 5 0.71 -> 0.87, 19 0.47 -> 0.74, 37 0.37 -> 0.62, but 8
    0.87 -> 0.75, 64 0.91 -> 0.62: the rule takes no power-of-two short mode.)
    (`plan_copy` asks before the gather kernel's rule: a box copy takes the box
    kernel.)"""
    from tilec.passes._copy_cost import CopyFacts, Mode, box_flavour

    if current_routes().box == "never" or key.rank < 2:
        return BoxShape.NONE
    modes = tuple(Mode(n, n, True, s, d, divisor=n) for n, s, d in zip(extents, src_strides, dst_strides))
    facts = CopyFacts(modes, ITEMSIZE[key.src_dtype], ITEMSIZE[key.dst_dtype], 16, 16, False, None, None,
                      converts=needs_conversion(key.src_dtype, key.dst_dtype))
    flavour = box_flavour(facts, smem_bytes())
    return BoxShape.NONE if flavour is None else BoxShape[flavour.upper()]


def _pitch(run_bytes: int) -> int:
    """Bytes of a slot (passes/_copy_cost.box_pitch)."""
    from tilec.passes._copy_cost import box_pitch

    return box_pitch(run_bytes)


def box_args(key: CopyKey, extents, src_ptr: int, dst_ptr: int) -> tuple[tuple[int, ...], int, int]:
    """(the box kernel's index arguments after `copy_program`'s, the src pointer and
    the dst pointer it takes: aligned down to 16 bytes). The arguments: the pointers'
    remainders mod 16, the chunk `T`, the slot pitch `PB`, the chunks per dst run
    `CD` (`BoxShape.COLS`: the 16-byte chunks per src run; its `PB` is 0) and the number
    of blocks."""
    d = key.rank - 1
    w = _src_mode(key)
    nw, nd = extents[w], extents[d]
    if key.box == BoxShape.FLAT:
        t = (smem_bytes() - 32) // nw
        pb = _pitch(nw * t)
        kmode, run = d, t
    elif key.box == BoxShape.COLS:
        t = (smem_bytes() - 32) // nd
        pb = 0
        kmode, run = w, t  # CD: the src chunks per src run
    else:
        pb = _pitch(nw * nd)
        t = smem_bytes() // pb
        kmode, run = d - 1, nd * t
    cd = (run + 15) // 16 + 1
    blocks = math.ceil(extents[kmode] / t)
    for m, n in enumerate(extents):
        if m not in (w, d, kmode):
            blocks *= n
    so, do = src_ptr % 16, dst_ptr % 16
    return (so, do, t, pb, cd, blocks), src_ptr - so, dst_ptr - do


def box_index_bits(extents, src_strides, dst_strides, args: tuple[int, ...]) -> int:
    """32 when every offset the box kernel computes fits a signed 32-bit integer: the
    views' reach with the pointers' remainders, a step of any src mode and a slot to
    spare (the slot after a box's last run is computed, not read), a chunk past the
    dst's, the blocks, and the phase-2 loop bound."""
    so, do, _t, pb, cd, blocks = args
    src_reach = so + sum((n - 1) * abs(s) for n, s in zip(extents, src_strides))
    dst_reach = do + sum((n - 1) * abs(s) for n, s in zip(extents, dst_strides))
    worst = max(src_reach + max(abs(s) for s in src_strides) + pb + 64, dst_reach + 64, blocks, SMALL_EXTENT * cd)
    return 32 if worst < INDEX32_LIMIT else 64


def box_program(key: CopyKey) -> str:
    """The box kernel's module for `key` (`box_module`), printed."""
    from tilec.compiler.pipeline import emit

    return emit(box_module(key))


def box_module(key: CopyKey) -> ModuleOp:
    """The box kernel for `key` as typed GPU-level IR (module doc): a host function
    `@tilec_copy` with `copy_program`'s arguments and `BOX_ARG_NAMES` that launches one
    kernel. Values carry the names the kernel's CUDA reads (`bid`, `sorig`, `TK`, ...)."""
    if key.box not in (BoxShape.FLAT, BoxShape.ROWS, BoxShape.COLS):
        raise ValueError(f"not a box key: {key}")
    rank = key.rank
    d = rank - 1
    w = _src_mode(key)
    kmode = {BoxShape.FLAT: d, BoxShape.ROWS: d - 1, BoxShape.COLS: w}[key.box]
    names = index_arg_names(key)
    mt = MemRefType(i8, [DYNAMIC_INDEX])
    types = [mt, mt] + [_INDEX] * len(names)
    entry = Block(arg_types=types)
    for a, n in zip(entry.args, ["src", "dst", *names]):
        a.name_hint = n
    args = dict(zip(["src", "dst", *names], entry.args))
    k = _Kernel(entry)
    c = k.c

    def stride(view: str, m: int) -> SSAValue | None:
        cls = (key.src_strides if view == "s" else key.dst_strides)[m]
        return None if cls == 0 else c(1) if cls == 1 else args[f"{view}s{m}"]

    bid = k.add(gpu.BlockIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X)), "bid")
    tid = k.add(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X)), "tid")
    smem = k.add(memref.AllocaOp.get(i8, 16, [smem_bytes()], memory_space=IntegerAttr(3, i64)), "smem")
    # the block's coordinates: chunks of K fastest, then the other modes, dst-fastest first
    n = [args[f"n{m}"] for m in range(rank)]
    gk = k.add(arith.CeilDivUIOp(n[kmode], args["T"]), "gK")
    ok = k.muli(k.remui(bid, gk, "kc"), args["T"], "oK")
    rest = k.divui(bid, gk, "kq")
    grid = [m for m in range(rank - 1, -1, -1) if m not in (w, d, kmode)]
    origin = {kmode: ok}
    for i, m in enumerate(grid):
        if i == len(grid) - 1:
            origin[m] = rest
        else:
            origin[m], rest = k.remui(rest, n[m], f"o{m}"), k.divui(rest, n[m], f"q{m}")
    orig = {}
    for view in ("s", "d"):
        acc = args[f"{view}off"]
        for m, o in origin.items():
            st = stride(view, m)
            if st is not None:
                acc = k.addi(acc, k.muli(o, st, f"{view}t{m}"), f"{view}a{m}")
        orig[view] = k.addi(acc, c(0), f"{view}orig")
    tk = k.add(arith.MinUIOp(args["T"], k.subi(n[kmode], ok, "kleft")), "TK")
    ctx = _Box(k, key, args, n, w, d, kmode, smem, orig, tk, tid, stride)
    if key.box == BoxShape.COLS:
        _cols_phases(ctx)
    else:
        _slot_phases(ctx)
    k.finish()
    entry.add_op(gpu.ReturnOp([]))
    kernel = gpu.FuncOp(f"{FUNCTION}_box", (types, []), Region(entry), kernel=True, known_block_size=[THREADS, 1, 1])
    if key.index_bits == 32:
        kernel.attributes[INDEX_BITS_ATTR] = IntegerAttr(32, i64)
    host = Block(arg_types=types)
    for a, nm in zip(host.args, ["src", "dst", *names]):
        a.name_hint = nm
    c1 = arith.ConstantOp.from_int_and_width(1, _INDEX)
    cthreads = arith.ConstantOp.from_int_and_width(THREADS, _INDEX)
    c1.result.name_hint, cthreads.result.name_hint = "c1", "cthreads"
    nblocks = host.args[2 + names.index("nblocks")]
    launch = gpu.LaunchFuncOp(
        SymbolRefAttr(f"{FUNCTION}_kernels", [StringAttr(f"{FUNCTION}_box")]),
        [nblocks, c1, c1], [cthreads, c1, c1], None, list(host.args),
    )
    host.add_ops([c1, cthreads, launch, func.ReturnOp()])
    hostf = func.FuncOp(FUNCTION, (types, []), Region(host))
    kernels = gpu.ModuleOp(StringAttr(f"{FUNCTION}_kernels"), Region(Block([kernel])))  # type: ignore[arg-type]
    module = ModuleOp([hostf, kernels])
    module.attributes["gpu.container_module"] = UnitAttr()
    return module


class _Kernel:
    """The ops of the box kernel's body as typed IR: `add` appends to the block being
    built (`loop` and `when` nest) and names the result; `c` is an index constant
    (`%c<v>`, made once; all of them go to the top of the body, in the order of first
    use)."""

    def __init__(self, entry: Block):
        self.entry = entry
        self.block = entry
        self.consts: dict[int, arith.ConstantOp] = {}

    def add(self, op: Operation, name: str | None = None) -> SSAValue:
        self.block.add_op(op)
        if not op.results:
            return None  # type: ignore[return-value]
        if name is not None:
            op.results[0].name_hint = name
        return op.results[0]

    def c(self, v: int) -> SSAValue:
        if v not in self.consts:
            op = arith.ConstantOp.from_int_and_width(v, _INDEX)
            op.result.name_hint = f"c{v}" if v >= 0 else f"cm{-v}"
            self.consts[v] = op
        return self.consts[v].result

    def finish(self) -> None:
        first = self.entry.first_op
        for op in self.consts.values():
            if first is None:
                self.entry.add_op(op)
            else:
                self.entry.insert_op_before(op, first)

    def addi(self, a, b, name=None):
        return self.add(arith.AddiOp(a, b), name)

    def subi(self, a, b, name=None):
        return self.add(arith.SubiOp(a, b), name)

    def muli(self, a, b, name=None):
        return self.add(arith.MuliOp(a, b), name)

    def divui(self, a, b, name=None):
        return self.add(arith.DivUIOp(a, b), name)

    def remui(self, a, b, name=None):
        return self.add(arith.RemUIOp(a, b), name)

    def andi(self, a, b, name=None):
        return self.add(arith.AndIOp(a, b), name)

    def cmp(self, pred: str, a, b, name=None):
        return self.add(arith.CmpiOp(a, b, pred), name)

    def stepped(self, name: str, base: SSAValue, count: SSAValue, stride: SSAValue | None) -> SSAValue:
        """`name = base + count * stride` (a stride the key fixes to 0 is None)."""
        if stride is None:
            return self.addi(base, self.c(0), name)
        return self.addi(base, self.muli(count, stride, f"{name}_t"), name)

    @contextmanager
    def loop(self, lb: SSAValue, ub: SSAValue, step: SSAValue, name: str) -> Iterator[SSAValue]:
        """An `scf.for` appended here, built inside the `with` block; yields its
        induction variable (named `name`)."""
        body = Block(arg_types=[_INDEX])
        body.args[0].name_hint = name
        self.add(scf.ForOp(lb, ub, step, [], body))
        saved, self.block = self.block, body
        try:
            yield body.args[0]
        finally:
            body.add_op(scf.YieldOp())
            self.block = saved

    @contextmanager
    def when(self, cond: SSAValue, otherwise: bool = False) -> Iterator[Callable[[], Any]]:
        """An `scf.if` without results appended here: the `with` block builds its then
        branch; calling the value it yields switches to the else branch."""
        then = Block()
        other = Block() if otherwise else None
        self.add(scf.IfOp(cond, [], [then], [other] if other is not None else None))
        saved, self.block = self.block, then

        def to_else() -> None:
            self.block.add_op(scf.YieldOp())
            self.block = other  # type: ignore[assignment]

        try:
            yield to_else
        finally:
            self.block.add_op(scf.YieldOp())
            self.block = saved


@dataclass
class _Box:
    """What both phases of a box kernel read."""

    k: _Kernel
    key: CopyKey
    args: dict[str, SSAValue]
    n: list[SSAValue]
    w: int
    d: int
    kmode: int
    smem: SSAValue
    orig: dict[str, SSAValue]
    tk: SSAValue
    tid: SSAValue
    stride: Callable[[str, int], SSAValue | None]


def _slot_phases(b: _Box) -> None:
    """`BoxShape.FLAT` and `BoxShape.ROWS`: cp.async of the src runs into congruent slots, then
    16-byte dst chunks read from the slots at a step of `n_W`."""
    k, c, key = b.k, b.k.c, b.key
    nw, nd = b.n[b.w], b.n[b.d]
    src, dst, pb = b.args["src"], b.args["dst"], b.args["PB"]
    # phase 1: the src runs into their slots
    if key.box == BoxShape.FLAT:
        run = k.muli(nw, b.tk, "L")
        mis = k.andi(b.orig["s"], c(15), "mis")
        sb = k.subi(b.orig["s"], mis, "sb")
        nch = k.add(arith.CeilDivUIOp(k.addi(mis, run, "lm"), c(16)), "nch")
        with k.loop(b.tid, nch, c(THREADS), "j") as j:
            j16 = k.muli(j, c(16), "j16")
            k.add(CpAsyncOp(b.smem, j16, src, k.addi(sb, j16, "g"), 16))
    else:
        ssk = b.stride("s", b.kmode)
        run = k.muli(nw, nd, "L")
        warp = k.divui(b.tid, c(32), "warp")
        lane = k.remui(b.tid, c(32), "lane")
        with k.loop(warp, b.tk, c(THREADS // 32), "k") as kk:
            off = k.stepped("off", b.orig["s"], kk, ssk)
            m = k.andi(off, c(15), "mis")
            sb = k.subi(off, m, "sb")
            nch = k.add(arith.CeilDivUIOp(k.addi(m, run, "lm"), c(16)), "nch")
            slot = k.muli(kk, pb, "slot")
            with k.loop(lane, nch, c(32), "j") as j:
                j16 = k.muli(j, c(16), "j16")
                g = k.addi(sb, j16, "g")
                k.add(CpAsyncOp(b.smem, k.addi(slot, j16, "s"), src, g, 16))
    k.add(CpAsyncCommitOp())
    k.add(CpAsyncWaitOp(0))
    k.add(gpu.BarrierOp())
    # phase 2: aligned 16-byte chunks of the dst runs
    dsw = b.stride("d", b.w)
    ld = k.addi(b.tk, c(0), "LD") if key.box == BoxShape.FLAT else k.muli(nd, b.tk, "LD")
    cd = b.args["CD"]
    with k.loop(b.tid, k.muli(nw, cd, "tot"), c(THREADS), "idx") as idx:
        wq = k.divui(idx, cd, "w")
        ci = k.subi(idx, k.muli(wq, cd, "wcd"), "ci")
        start = k.stepped("start", b.orig["d"], wq, dsw)
        end = k.addi(start, ld, "end")
        sal = k.andi(start, c(-16), "sal")
        cs = k.addi(sal, k.muli(ci, c(16), "c16i"), "cs")
        ce = k.addi(cs, c(16), "ce")
        with k.when(k.cmp("slt", cs, end, "go")):
            lo = k.add(arith.MaxSIOp(cs, start), "lo")
            p0 = k.subi(lo, start, "p0")
            np0 = k.muli(nw, p0, "np0")
            wrap = key.box == BoxShape.ROWS
            if not wrap:
                a0 = k.addi(k.addi(mis, wq, "a0w"), np0, "a0")
            else:
                ssk = b.stride("s", b.kmode)

                def slot_of(name: str, kv: SSAValue) -> SSAValue:
                    sp = k.muli(kv, pb, f"{name}_p")
                    so = k.stepped(f"{name}_o", b.orig["s"], kv, ssk)
                    ss = k.addi(sp, k.andi(so, c(15), f"{name}_m"), f"{name}_s")
                    return k.addi(ss, wq, name)

                d0 = k.remui(p0, nd, "d0")
                k0 = k.divui(p0, nd, "k0")
                s0 = slot_of("s0", k0)
                a0 = k.addi(s0, k.muli(nw, d0, "nd0"), "a0")
                s1 = slot_of("s1", k.addi(k0, c(1), "k1"))
                nwr = k.subi(nd, d0, "nwr")
                a1 = k.addi(a0, k.muli(nwr, nw, "nwrw"), "a1")
                delta = k.subi(s1, a1, "delta")
            full = k.andi(k.cmp("sge", cs, start, "f0"), k.cmp("sle", ce, end, "f1"), "full")
            with k.when(full, otherwise=True) as to_else:
                vec = None
                bt = None
                for t in range(16):
                    bt = k.addi(a0, c(0), "b0") if t == 0 else k.addi(bt, nw, f"b{t}")
                    addr = bt
                    if wrap and t > 0:
                        jt = k.cmp("sge", c(t), nwr, f"j{t}")
                        addr = k.add(arith.SelectOp(jt, k.addi(bt, delta, f"e{t}"), bt), f"at{t}")
                    x = k.add(memref.LoadOp.get(b.smem, [addr]), f"x{t}")
                    if t == 0:
                        vec = k.add(vector.BroadcastOp(x, _V16), "v0")
                    else:
                        vec = k.add(vector.InsertOp(x, vec, [t], _V16), f"v{t}")
                k.add(vector.StoreOp(vec, dst, [cs]))
                to_else()
                cnt = k.subi(k.add(arith.MinSIOp(ce, end), "hi"), lo, "cnt")
                with k.loop(c(0), cnt, c(1), "t") as t:
                    addr = k.addi(a0, k.muli(t, nw, "tw"), "bt")
                    if wrap:
                        jt = k.cmp("sge", t, nwr, "jt")
                        addr = k.add(arith.SelectOp(jt, k.addi(addr, delta, "et"), addr), "att")
                    x = k.add(memref.LoadOp.get(b.smem, [addr]), "xt")
                    k.add(memref.StoreOp.get(x, dst, [k.addi(lo, t, "pos")]))


def _cols_phases(b: _Box) -> None:
    """`BoxShape.COLS` (the dst's short contiguous mode `D` whole, `T` elements of the src's
    long contiguous mode `W`): phase 1 loads each src run's aligned 16-byte chunks
    (lane `i` takes run `i mod n_D`: the lanes' byte stores fall in different banks)
    and stores their bytes into shared memory in the dst's order, congruent to the dst
    modulo 16; phase 2 copies the image to the dst in aligned 16-byte vectors."""
    k, c = b.k, b.k.c
    nd = b.n[b.d]
    src, dst = b.args["src"], b.args["dst"]
    ssd = b.stride("s", b.d)
    misd = k.andi(b.orig["d"], c(15), "misd")
    with k.loop(b.tid, k.muli(nd, b.args["CD"], "tot"), c(THREADS), "idx") as idx:
        rd = k.remui(idx, nd, "rd")
        ci = k.divui(idx, nd, "ci")
        rstart = k.stepped("rstart", b.orig["s"], rd, ssd)
        ral = k.andi(rstart, c(-16), "ral")
        g = k.addi(ral, k.muli(ci, c(16), "cof"), "g")
        t0 = k.subi(g, rstart, "t0")
        with k.when(k.cmp("slt", t0, b.tk, "go")):
            v = k.add(vector.LoadOp(src, [g], _V16), "v")
            base = k.addi(k.addi(k.muli(t0, nd, "q0"), rd, "q1"), misd, "base")
            f0 = k.cmp("sge", t0, c(0), "f0")
            full = k.andi(f0, k.cmp("sle", k.addi(t0, c(16), "tend"), b.tk, "f1"), "full")
            with k.when(full, otherwise=True) as to_else:
                p = None
                for t in range(16):
                    p = k.addi(base, c(0), "p0") if t == 0 else k.addi(p, nd, f"p{t}")
                    x = k.add(vector.ExtractOp(v, [t], i8), f"x{t}")
                    k.add(memref.StoreOp.get(x, b.smem, [p]))
                to_else()
                with k.loop(c(0), c(16), c(1), "b") as bb:
                    tb = k.addi(t0, bb, "tb")
                    inside = k.andi(k.cmp("sge", tb, c(0), "in0"), k.cmp("slt", tb, b.tk, "in1"), "in")
                    with k.when(inside):
                        x = k.add(vector.ExtractOp(v, [bb], i8), "xb")
                        k.add(memref.StoreOp.get(x, b.smem, [k.addi(base, k.muli(bb, nd, "bn"), "pb")]))
    k.add(gpu.BarrierOp())
    ld = k.muli(nd, b.tk, "LD")
    dal = k.andi(b.orig["d"], c(-16), "dal")
    lend = k.addi(misd, ld, "lend")
    nch2 = k.add(arith.CeilDivUIOp(lend, c(16)), "nch2")
    with k.loop(b.tid, nch2, c(THREADS), "i") as i:
        off = k.muli(i, c(16), "off")
        cs = k.addi(dal, off, "cs")
        g0 = k.cmp("sge", off, misd, "g0")
        whole = k.andi(g0, k.cmp("sle", k.addi(off, c(16), "oend"), lend, "g1"), "whole")
        with k.when(whole, otherwise=True) as to_else:
            y = k.add(vector.LoadOp(b.smem, [off], _V16), "y")
            k.add(vector.StoreOp(y, dst, [cs]))
            to_else()
            with k.loop(c(0), c(16), c(1), "b") as bb:
                pos = k.addi(off, bb, "pos")
                h = k.andi(k.cmp("sge", pos, misd, "h0"), k.cmp("slt", pos, lend, "h1"), "h")
                with k.when(h):
                    x = k.add(memref.LoadOp.get(b.smem, [pos]), "xy")
                    k.add(memref.StoreOp.get(x, dst, [k.addi(dal, pos, "dp")]))
