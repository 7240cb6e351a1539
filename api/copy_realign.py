"""The row-realigning kernel of `tilec.copy_`, as a pointer-tensor program, and when to
use it.

    text = realign_program(key)        # key.realign is not OffsetBits.NONE
    eligible(...), prefer_realign(...) # copy_plan asks (`_realign_plan`)

Copies whose rows (the last merged mode) are contiguous in both views but start at
addresses that differ modulo 16 bytes (a slice of rows of 7775 bytes into rows at a
pitch of 7776; rows of 48014209 bytes at odd offsets) cannot move 16-byte vectors on
both sides at once: the tiled kernel reads and writes such rows 1 or 2 bytes at a
time, and its LSU wavefronts, not DRAM, are the limit. This kernel writes the dst in
16-byte aligned chunks and reads the src in aligned 16-byte vectors, realigning in
registers (`layout.funnel_shift`):

- each thread owns a dst chunk (16 bytes, aligned; 8 bytes, one element, for short
  rows of 8-byte elements: `chunk_bytes`, two chunks a thread, at f and f + THREADS)
  of a row: flat chunk index f = pid * THREADS + tid (consecutive lanes, consecutive
  chunks), row f / C and chunk c = f % C of it, C the chunks a row spans at most
  (`chunks_per_row`): rows of 40 bytes at a pitch of 80 waste no lane, short rows
  share a block; with 32-bit offsets the divisions by C and by the outer extents are
  multiply-shifts (`magic`: the plan passes the pairs, `divisor_args`);
- the row's coordinates over the outer modes give its first element's offsets S (src)
  and D (dst), in elements of the aligned-down pointers (the kernel takes both
  pointers rounded down to 16 bytes; their misalignments `smis`, `dmis` are index
  arguments, as the chunk count `nchunks`); chunk c starts at A = (D // V + c) * V
  (V = a chunk's elements);
- the V src elements of its V dst elements start at s = A - D + S: the thread loads
  the aligned vectors at sa = s - s % V and sa + V, as 32-bit words (the
  kernel's src pointer is an `i32` pointer: the words go to the funnel shift as
  loaded), each masked where it holds no element of the row, the second also where
  s % V == 0, and takes V elements from `s % V` on (`layout.funnel_shift`);
- it stores them with a per-element mask (the row's head and tail chunks): whole
  chunks go out as one 16-byte store, partial ones element by element.

Every vector read lies inside the 16-byte aligned span of a row's bytes, so inside
the allocation (allocations are 256-byte aligned). Offsets are `i32` where every
offset, flat chunk index and a block past the end fit (`CopyKey.realign` is `OffsetBits.I32`),
else `i64`. The key fixes the dtypes, the rank and the stride classes (0, 1, or
run-time), nothing of the shapes.
"""

from __future__ import annotations

import math

from .copy_key import FUNCTION, ITEMSIZE, VECTOR_BYTES, CopyKey, OffsetBits, index_arg_names, needs_conversion
from .copy_routes import current_routes
from .ptr_program import PtrProgram

THREADS = 512
"""Threads per block. H100, strided set in strided_copy_bench's allocation
(`dev/experiments/realign_variants.py`, one call, with `FAST_DIV`), of
cudaMemcpy for 128 / 256 / 512 / 1024: 46 0.364 / 0.372 / 0.379 / 0.383, 16 0.782 /
0.793 / 0.803 / 0.805, 04 1.007 / 0.997 / 1.004 / 0.960, 28 1.005 / 1.009 / 1.010 /
0.977; the rest (19, 22, 34, 40) level within 0.01 but for 1024 (19 0.983, 40
0.975)."""
CHUNKS_PER_THREAD = 1
"""Dst chunks per thread. H100, `copy_tile_variants.py --variants realign1,realign2,
realign4` (one call): 1 is best or level on every case measured (19: 1.00, 0.99,
0.86 of cudaMemcpy; 16: 0.80, 0.77, 0.80; 34: 0.62, 0.59, 0.59): the kernel is
light in registers, and more resident threads keep as many loads in flight. (One
block per row segment, the row's values computed once per thread and whole chunks
stored without masks, was no better: 04 0.94, 19 1.01, 28 1.17.)"""
INDEX32_LIMIT = 2**31
SHORT_ROW_BYTES = 64
"""Rows of 8-byte elements of at most this many bytes take 8-byte chunks
(`chunk_bytes`); 0: never."""

FAST_DIV = True
"""Whether kernels with 32-bit offsets divide by the run-time chunk count and outer
extents through multiply-shift pairs (`magic`, passed by the plan) instead of
`arith.divsi` (False: the kernel as first merged, for comparisons). Nsight Compute,
H100, 256 threads: instructions 222.9 M -> 171.4 M on 16, 323.7 M -> 236.4 M on 34
(issue slots busy 60% -> 47%, 42% -> 30%), the time unchanged (those cases are not
issue-bound: 16 at 73% of DRAM throughput, 34 at 62%); with 512 threads it kept 04
and 28 at 1.004 and 1.010 where divsi gave 0.963 and 0.990 (one call)."""



def _tuned(name: str, default):
    """The tuning value `name` in force (`copy_routes`), else `default`."""
    value = getattr(current_routes(), name)
    return default if value is None else value


def threads() -> int:
    """Threads per block: `THREADS`, or the tuning value in force (`realign_threads`)."""
    return _tuned("realign_threads", THREADS)


def chunk_bytes(itemsize: int, n_last: int) -> int:
    """The dst chunk of a copy's kernel: 8 bytes (one element, two a thread) for rows
    of 8-byte elements of at most `SHORT_ROW_BYTES`, else 16. 8-byte elements need no
    realigning within a chunk of one, and a warp's store then writes 32 consecutive
    elements, each row's whole (rows of 40 bytes at a pitch of 80: 16-byte chunks
    store a row's last whole chunk and its half tail chunk, which share a sector, by
    two instructions, two L2 write requests to one sector). H100, 46 (int64 rows of 5
    at a pitch of 10, strided_copy_bench's allocation), one call: 0.396 of cudaMemcpy
    against 0.378 with 16-byte chunks (512 threads both; the kernel as first merged
    0.371, PyTorch 0.393; the bench's own columns: 0.400 against PyTorch's 0.395);
    Nsight Compute, the kernel as first merged against this one: L2 write sectors
    4.75 M -> 4.31 M (PyTorch's 4.31 M), DRAM bytes unchanged (179 MB read, 96 MB of them filling partly written
    sectors, 125 MB written), 156 -> 146 us (PyTorch 150 us). Measured on 46 only
    (the one such case of the strided set): the 64-byte cut is a guess."""
    short = _tuned("realign_short_row_bytes", SHORT_ROW_BYTES)
    return 8 if itemsize == 8 and n_last * itemsize <= short else VECTOR_BYTES


def chunks_per_row(n_last: int, itemsize: int, dmis: int, dst_outer: list[int], chunk: int = VECTOR_BYTES) -> int:
    """The most `chunk`-byte dst chunks a row spans: a row of `n_last` elements
    starting `m` bytes past a chunk boundary spans ceil((m + bytes) / chunk) chunks,
    and the row starts `m` are `dmis` plus multiples of g = gcd(chunk, the outer dst
    strides in bytes), so m is at most dmis % g + chunk - g."""
    g = chunk
    for s in dst_outer:
        g = math.gcd(g, abs(s) * itemsize)
    worst = dmis % g + chunk - g
    return -(-(worst + n_last * itemsize) // chunk)


def chunks_per_thread(key: CopyKey) -> int:
    """A thread's dst chunks: `CHUNKS_PER_THREAD`, 2 for 8-byte chunks (as many bytes
    in flight as one 16-byte chunk)."""
    return 2 if key.realign_chunk == 8 else _tuned("realign_chunks_per_thread", CHUNKS_PER_THREAD)


def magic(d: int) -> tuple[int, int]:
    """(m, s) with floor(x * m / 2**s) == x // d for every 0 <= x < 2**31 (d >= 1):
    l = ceil(log2 d), s = 31 + l, m = ceil(2**s / d) <= 2**32, so x * m < 2**63.
    (m * d = 2**s + e with 0 <= e < d <= 2**l: x * m / 2**s = x / d + x * e /
    (d * 2**s), the second term below 1/d, which cannot carry x / d past the next
    integer.)"""
    d = max(1, d)
    s = 31 + (d - 1).bit_length()
    return -(-(1 << s) // d), s


def divisor_args(chunks: int, extents) -> tuple[int, ...]:
    """The multiply-shift pairs (`magic`) of the kernel's divisors, in
    `copy_key.realign_arg_names` order: the chunks per row, then the outer extents
    1 .. rank - 2 (extent 0 is never a divisor, the last is the row)."""
    return tuple(x for d in (chunks, *extents[1:-1]) for x in magic(d))


def eligible(key: CopyKey, extents, src_strides, dst_strides, src_ptr: int, dst_ptr: int) -> bool:
    """Whether the copy can take the realign kernel: the same element size on both
    sides and no conversion, at least two merged modes, the last contiguous in both
    views, both pointers element-aligned, no negative src stride (the kernel's offsets
    from the aligned-down pointers stay non-negative)."""
    e = ITEMSIZE[key.src_dtype]
    if ITEMSIZE[key.dst_dtype] != e or needs_conversion(key.src_dtype, key.dst_dtype):
        return False
    if len(extents) < 2 or src_strides[-1] != 1 or dst_strides[-1] != 1:
        return False
    if src_ptr % e or dst_ptr % e:
        return False
    return all(s >= 0 for s in src_strides)


def index_bits(extents, src_strides, dst_strides, chunks: int, itemsize: int) -> int:
    """32 when every offset (in elements and in src words, from the aligned-down
    pointers, a vector to spare), every flat chunk index and a block past the end fit
    a signed 32-bit integer; else 64."""
    v = VECTOR_BYTES // itemsize
    rows = math.prod(extents[:-1])
    block = threads() * max(_tuned("realign_chunks_per_thread", CHUNKS_PER_THREAD), 2)
    worst = rows * chunks + block
    for view in (src_strides, dst_strides):
        reach = sum((n - 1) * s for n, s in zip(extents, view)) + 4 * v
        worst = max(worst, reach * max(1, itemsize // 4))  # src words of 8-byte elements
    return 32 if worst < INDEX32_LIMIT else 64


class _Text(PtrProgram):
    """The lines of one realign program and the helpers that write them (those of
    every pointer-tensor program from `PtrProgram`): `it` the offset type, R the
    per-chunk tensors ([rows] in #r), T/M/P/F the per-element ones
    ([rows x V] in #l: offsets, masks, pointers, values)."""

    def __init__(self, key: CopyKey):
        e = ITEMSIZE[key.src_dtype]
        it = f"i{int(key.realign)}"
        self.rows = rows = threads() * chunks_per_thread(key)
        super().__init__(it, f"tensor<{rows}x{it}, #r>")
        self.key = key
        self.et = f"i{8 * e}"
        self.v = v = key.realign_chunk // e
        self.nw = nw = key.realign_chunk // 4
        self.ptr = f"!layout.ptr<{self.et}, align {VECTOR_BYTES}>"
        self.RB = f"tensor<{rows}xi1, #r>"
        self.J = f"tensor<{v}x{it}, #j>"
        self.T = f"tensor<{rows}x{v}x{it}, #l>"
        self.M = f"tensor<{rows}x{v}xi1, #l>"
        self.P = f"tensor<{rows}x{v}x!layout.ptr<{self.et}>, #l>"
        self.F = f"tensor<{rows}x{v}x{self.et}, #l>"
        # the src side: 32-bit words, nw per chunk, in #w (rows held as in #l)
        self.wptr = f"!layout.ptr<i32, align {VECTOR_BYTES}>"
        self.RW = f"tensor<{rows}x{it}, #rw>"
        self.RBW = f"tensor<{rows}xi1, #rw>"
        self.TW = f"tensor<{rows}x{nw}x{it}, #w>"
        self.MW = f"tensor<{rows}x{nw}xi1, #w>"
        self.PW = f"tensor<{rows}x{nw}x!layout.ptr<i32>, #w>"
        self.FW = f"tensor<{rows}x{nw}xi32, #w>"

    def op(self, name: str, what: str, a: str, b: str, typ: str | None = None) -> str:
        self.emit(f"%{name} = {what} {a}, {b} : {typ or self.R}")
        return f"%{name}"

    def divmod(self, name: str, x: str, d: str, arg: str) -> tuple[str, str]:
        """(x // d, x % d) of a [rows] tensor `x` >= 0 by the splat divisor `d`, the
        index argument `d` stands for: with 32-bit offsets and `FAST_DIV`, the
        quotient as (x * mg) >> sh in 64 bits (`magic`; the pair `mg<arg>`,
        `sh<arg>`), else `arith.divsi`."""
        if not (_tuned("realign_fast_div", FAST_DIV) and self.it == "i32"):
            return self.op(f"{name}_q", "arith.divsi", x, d), self.op(f"{name}_r", "arith.remsi", x, d)
        w = f"tensor<{self.rows}xi64, #r>"
        for part in ("mg", "sh"):
            self.emit(f"%{name}_{part}i = arith.index_cast %{part}{arg} : index to i64")
            self.emit(f"%{name}_{part} = layout.splat %{name}_{part}i : i64 -> {w}")
        self.emit(f"%{name}_x = layout.extsi {x} : {self.R} to {w}")
        self.emit(f"%{name}_p = arith.muli %{name}_x, %{name}_mg : {w}")
        self.emit(f"%{name}_q64 = arith.shrsi %{name}_p, %{name}_sh : {w}")
        self.emit(f"%{name}_q = layout.trunci %{name}_q64 : {w} to {self.R}")
        qd = self.op(f"{name}_qd", "arith.muli", f"%{name}_q", d)
        return f"%{name}_q", self.op(f"{name}_r", "arith.subi", x, qd)

    def s(self, name: str, what: str, a: str, b: str) -> str:
        """A scalar op."""
        return self.op(name, what, a, b, self.it)

    def cmp(self, name: str, pred: str, a: str, b: str, typ: str | None = None) -> str:
        self.emit(f"%{name} = layout.cmpi {pred}, {a}, {b} : {typ or self.R}")
        return f"%{name}"

    def full(self, name: str, value: str, src_type: str | None = None) -> str:
        """A per-chunk tensor broadcast along the chunk's elements (its words where
        it is in #rw)."""
        src_type = src_type or self.R
        elem = src_type.split("x")[-1].split(",")[0]
        lay, n = ("#w", self.nw) if src_type.endswith("#rw>") else ("#l", self.v)
        mid = f"tensor<{self.rows}x1x{elem}, {lay}>"
        out = f"tensor<{self.rows}x{n}x{elem}, {lay}>"
        self.emit(f"%{name}_e = layout.expand_dims {value} {{axis = 1 : i64}} : {src_type} -> {mid}")
        self.emit(f"%{name} = layout.broadcast %{name}_e : {mid} -> {out}")
        return f"%{name}"

    def lanes(self) -> str:
        """%jj: each chunk's element index 0..V-1, as a [rows x V] tensor."""
        jar = self.arange("jar", self.v, self.J, "#j")
        mid = f"tensor<1x{self.v}x{self.it}, #l>"
        self.emit(f"%jj_e = layout.expand_dims {jar} {{axis = 0 : i64}} : {self.J} -> {mid}")
        self.emit(f"%jj = layout.broadcast %jj_e : {mid} -> {self.T}")
        return "%jj"

    def words(self) -> str:
        """%jw: each chunk's word index 0..nw-1, as a [rows x nw] tensor in #w."""
        nw = self.nw
        jar = self.arange("jwar", nw, f"tensor<{nw}x{self.it}, #jw>", "#jw")
        mid = f"tensor<1x{nw}x{self.it}, #w>"
        self.emit(f"%jw_e = layout.expand_dims {jar} {{axis = 0 : i64}} : tensor<{nw}x{self.it}, #jw> -> {mid}")
        self.emit(f"%jw = layout.broadcast %jw_e : {mid} -> {self.TW}")
        return "%jw"

    def to_words(self, name: str, value: str, typ: str | None = None) -> str:
        """A per-chunk tensor of #r in #rw (the same registers: no data moves)."""
        typ = typ or self.R
        self.emit(f"%{name} = layout.convert_layout {value} : {typ} -> {typ.replace('#r>', '#rw>')}")
        return f"%{name}"

    def pointers(self, name: str, base: str, offs: str) -> str:
        self.emit(f"%{name}_s = layout.splat {base} : {self.ptr} -> {self.P}")
        self.emit(f"%{name} = layout.addptr %{name}_s, {offs} : {self.P}, {self.T}")
        return f"%{name}"

    def src_words(self, name: str, chunk: str) -> tuple[str, str]:
        """The word pointers of the src vectors `chunk` and `chunk + 1` (chunks of
        the aligned-down src; `chunk` a [rows] tensor in #rw)."""
        jw = self.words()
        four = self.splat(f"{name}_4", self.const(f"{name}_c4", self.nw), self.RW)
        lo = self.op(
            f"{name}_lo",
            "arith.addi",
            self.full(f"{name}_f", self.op(f"{name}_w", "arith.muli", chunk, four, self.RW), self.RW),
            jw,
            self.TW,
        )
        hi = self.op(f"{name}_hi", "arith.addi", lo, self.splat(f"{name}_4t", f"%{name}_c4", self.TW), self.TW)
        out = []
        for x, offs in (("lo", lo), ("hi", hi)):
            self.emit(f"%{name}_{x}_s = layout.splat %src : {self.wptr} -> {self.PW}")
            self.emit(f"%{name}_{x}_p = layout.addptr %{name}_{x}_s, {offs} : {self.PW}, {self.TW}")
            out.append(f"%{name}_{x}_p")
        return out[0], out[1]

    def load(self, name: str, ptrs: str, mask: str | None) -> str:
        """A load of src words."""
        m = f" mask {mask} : {self.MW}" if mask else ""
        self.emit(f"%{name} = layout.ptr_load {ptrs}{m} : {self.PW} -> {self.FW}")
        return f"%{name}"

    def funnel(self, name: str, lo: str, hi: str, shift: str) -> str:
        """The chunk's V elements from its src words (`layout.funnel_shift`)."""
        self.emit(f"%{name} = layout.funnel_shift {lo}, {hi}, {shift} : {self.FW}, {self.R} -> {self.F}")
        return f"%{name}"

    def store(self, value: str, ptrs: str, mask: str | None) -> None:
        m = f" mask {mask} : {self.M}" if mask else ""
        self.emit(f"layout.ptr_store {value}, {ptrs}{m} : {self.F}, {self.P}")

    def program(self, grid: str, host: list[str]) -> str:
        """The function: `host` index ops, a grid of `grid` blocks, the body."""
        key = self.key
        names = index_arg_names(key)
        params = ", ".join([f"%src: {self.wptr}", f"%dst: {self.ptr}"] + [f"%{n}: index" for n in names])
        lay, wlay = (
            f"#layout.blocked<{{sizePerThread = [1, {n}], threadsPerWarp = [32, 1], "
            f"warpsPerCTA = [{threads() // 32}, 1], order = [1, 0]}}>"
            for n in (self.v, self.nw)
        )
        body = "\n    ".join(self.lines)
        host_text = "\n  ".join(host)
        return (
            f"#l = {lay}\n"
            f"#r = #layout.slice<{{dim = 1, parent = #l}}>\n"
            f"#j = #layout.slice<{{dim = 0, parent = #l}}>\n"
            f"#w = {wlay}\n"
            f"#rw = #layout.slice<{{dim = 1, parent = #w}}>\n"
            f"#jw = #layout.slice<{{dim = 0, parent = #w}}>\n"
            f"func.func @{FUNCTION}({params}) {{\n"
            f"  %c1 = arith.constant 1 : index\n"
            f"  {host_text}\n"
            f"  layout.launch grid({grid}, %c1, %c1) threads({threads()}) {{\n"
            f"  ^bb0(%pid: index, %by: index, %bz: index, %tid: index):\n"
            f"    {body}\n"
            "  }\n"
            "  func.return\n"
            "}\n"
        )

    def host_rows(self) -> list[str]:
        last = self.key.rank - 1
        host = ["%hn0 = arith.muli %n0, %c1 : index"]
        for k in range(1, last):
            host.append(f"%hn{k} = arith.muli %hn{k - 1}, %n{k} : index")
        host.append(f"%hrows = arith.muli %hn{last - 1}, %c1 : index")
        return host

    def row_offsets(self, coords: list[str]) -> tuple[str, str]:
        """(S, D): each chunk's row's first element's offsets from the aligned-down
        pointers, from the row's coordinates over the outer modes ([rows] tensors)."""
        key = self.key
        out = []
        for x, classes in (("s", key.src_strides), ("d", key.dst_strides)):
            off = self.splat(f"{x}mis_r", self.index(f"{x}mis_i", f"%{x}mis"))
            for k in range(key.rank - 1):
                c = classes[k]
                if c == 0:
                    continue
                if c == 1:
                    term = coords[k]
                else:
                    st = self.splat(f"{x}s{k}_r", self.index(f"{x}s{k}_i", f"%{x}s{k}"))
                    term = self.op(f"{x}t{k}", "arith.muli", coords[k], st)
                off = self.op(f"{x}o{k}", "arith.addi", off, term)
            out.append(off)
        return out[0], out[1]


def _coords(t: _Text, row: str, n: list[str]) -> list[str]:
    """Row indices ([rows]) decomposed over the outer extents (the last outer mode
    fastest)."""
    last = t.key.rank - 1
    coords = [""] * last
    rest = row
    for k in range(last - 1, 0, -1):
        rest, coords[k] = t.divmod(f"dv{k}", rest, t.splat(f"n{k}_r", n[k]), str(k))
    coords[0] = rest
    return coords


def realign_program(key: CopyKey) -> str:
    """IR text of the realign kernel for `key` (module doc): chunks numbered flat over
    all rows, each chunk's row, offsets, shift and masks per-chunk tensors; the
    function takes the aligned-down pointers and `index_arg_names(key)`."""
    if key.realign not in (OffsetBits.I32, OffsetBits.I64) or key.rank < 2:
        raise ValueError(f"not a realign key: {key}")
    t = _Text(key)
    it, v, rows = t.it, t.v, t.rows
    last = key.rank - 1
    n = [t.index(f"n{k}_i", f"%n{k}") for k in range(key.rank)]
    chunks = t.index("nchunks_i", "%nchunks")
    nrows = n[0]
    for k in range(1, last):
        nrows = t.s(f"nrows{k}", "arith.muli", nrows, n[k])
    total = t.s("total", "arith.muli", nrows, chunks)
    t.emit(f"%pid_i = arith.index_cast %pid : index to {it}")
    start = t.s("start", "arith.muli", "%pid_i", t.const("block", rows))
    flat = t.op("flat", "arith.addi", t.arange("fid", rows, t.R, "#r"), t.splat("start_r", start))
    row_ok = t.cmp("row_ok", "slt", flat, t.splat("total_r", total))
    chunks_r = t.splat("chunks_r", chunks)
    row, chunk = t.divmod("dvc", flat, chunks_r, "c")
    soff, doff = t.row_offsets(_coords(t, row, n))
    v_r = t.splat("v_r", t.const("v", v))
    # A = (D // V + c) * V: the chunk's first dst element (a multiple of V)
    achunk = t.op("achunk", "arith.muli", t.op("dqc", "arith.addi", t.op("dq", "arith.divsi", doff, v_r), chunk), v_r)
    # s = A - D + S, taken as u = s + V > 0: sa = (u // V - 1) * V, shift = u % V
    u = t.op("u", "arith.addi", t.op("srel", "arith.addi", t.op("rel", "arith.subi", achunk, doff), soff), v_r)
    uq = t.op("uq", "arith.divsi", u, v_r)
    sa = t.op("sa", "arith.muli", t.op("uq1", "arith.subi", uq, t.splat("one_r", t.const("one", 1))), v_r)
    shift = t.op("shift", "arith.subi", u, t.op("uqv", "arith.muli", uq, v_r))
    send = t.op("send", "arith.addi", soff, t.splat("nl_r", n[last]))
    sa_v = t.op("sa_v", "arith.addi", sa, v_r)
    sa_2v = t.op("sa_2v", "arith.addi", sa_v, v_r)
    RB = t.RB
    lo_in = t.op("lo_in", "arith.andi", t.cmp("lo_a", "sgt", sa_v, soff), t.cmp("lo_b", "slt", sa, send), RB)
    lo_ok = t.op("lo_ok", "arith.andi", lo_in, row_ok, RB)
    hi_in = t.op("hi_in", "arith.andi", t.cmp("hi_a", "sgt", sa_2v, soff), t.cmp("hi_b", "slt", sa_v, send), RB)
    shifted = t.cmp("shifted", "ne", shift, t.splat("zero_r", t.const("zero", 0)))
    hi_ok = t.op("hi_ok", "arith.andi", t.op("hi_sh", "arith.andi", hi_in, shifted, RB), row_ok, RB)
    jj = t.lanes()
    lo_p, hi_p = t.src_words("sw", t.to_words("uq1_w", "%uq1"))
    lo = t.load("lo", lo_p, t.full("lo_m", t.to_words("lo_ok_w", lo_ok, RB), t.RBW))
    hi = t.load("hi", hi_p, t.full("hi_m", t.to_words("hi_ok_w", hi_ok, RB), t.RBW))
    t.funnel("out", lo, hi, shift)
    # the chunk's elements that lie in the row: D - A <= j < D + n - A
    first = t.full("first_f", t.op("first", "arith.subi", doff, achunk))
    dend = t.op("dend", "arith.addi", doff, t.splat("nl2_r", n[last]))
    end = t.full("end_f", t.op("end", "arith.subi", dend, achunk))
    in_row = t.op(
        "in_row", "arith.andi", t.cmp("ge_first", "sge", jj, first, t.T), t.cmp("lt_end", "slt", jj, end, t.T), t.M
    )
    st_m = t.op("st_m", "arith.andi", in_row, t.full("row_m", row_ok, RB), t.M)
    d_offs = t.op("d_offs", "arith.addi", t.full("a_f", achunk), jj, t.T)
    t.store("%out", t.pointers("dptrs", "%dst", d_offs), st_m)
    host = t.host_rows() + [
        "%htotal = arith.muli %hrows, %nchunks : index",
        f"%BLOCK = arith.constant {rows} : index",
        "%grid = arith.ceildivui %htotal, %BLOCK : index",
    ]
    return t.program("%grid", host)


def prefer_realign(key: CopyKey, extents, src_strides, dst_strides, src_ptr: int, dst_ptr: int) -> bool:
    """The measured rule: every eligible copy (`eligible`) that the tiled kernel could
    not move with 16-byte vectors on both sides (its key's src or dst alignment below
    16 bytes: a pointer or a stride not a multiple of 16 bytes) and that the gather
    kernel does not take (`copy_plan._realign_plan` asks after `_gather_key`). H100,
    strided set, `dev/device/realign_compare.sh` (strided_copy_bench.py, main's
    kernels and this rule in one call), of cudaMemcpy (tiled -> realign; PyTorch):
    04 bool rows of 7775 into a pitch of 7776 0.71 -> 0.99 (0.27), 19 int8 rows of
    48014209 at odd offsets 0.81 -> 1.00 (0.32), 28 int8 rows of 350059 into 350062
    0.77 -> 1.01 (0.30), 40 bool rows of 40691 into 40696 0.70 -> 1.00 (0.31), 22
    int16 0.94 -> 1.00 (0.55), 10 int64 0.99 -> 1.01 (0.99), 16 int16 rows of 254
    into 256 0.67 -> 0.79 (0.47), 34 int32 rows of 56 into 59 0.58 -> 0.62 (0.59),
    46 int64 rows of 5 into 10 0.36 -> 0.37 (0.39: 40-byte rows in 80, half their
    sectors partly written; 0.400 with 8-byte chunks, `chunk_bytes`, PyTorch 0.395,
    benchmarks/NOTES.md "Strided copies", the realign kernel's last case). The gather kernel keeps the copies it takes (13, 25:
    short rows into a flat dst, 0.94 and 0.77 gathered against 0.27 and 0.52 with
    an earlier, byte-loading realign kernel)."""
    return key.src_align < VECTOR_BYTES or key.dst_align < VECTOR_BYTES
