"""The row-realigning kernel of `tilec.copy_`, as a pointer-tensor program, and when to
use it.

    text = realign_program(key)        # key.realign != 0
    realign_args(...)                  # copy_plan asks: eligible, the run-time values

Copies whose rows (the last merged mode) are contiguous in both views but start at
addresses that differ modulo 16 bytes (a slice of rows of 7775 bytes into rows at a
pitch of 7776; rows of 48014209 bytes at odd offsets) cannot move 16-byte vectors on
both sides at once: the tiled kernel reads and writes such rows 1 or 2 bytes at a
time, and its LSU wavefronts, not DRAM, are the limit. This kernel writes the dst in
16-byte aligned chunks and reads the src in aligned 16-byte vectors, realigning in
registers (`layout.funnel_shift`):

- each thread owns dst chunks (16 bytes, aligned) of rows: flat chunk index
  f = pid * R + i (consecutive lanes, consecutive chunks), row f / C and chunk
  c = f % C of it, C the chunks a row spans at most (`chunks_per_row`): rows of 40
  bytes at a pitch of 80 waste no lane, short rows share a block;
- the row's coordinates over the outer modes give its first element's offsets S (src)
  and D (dst), in elements of the aligned-down pointers (the kernel takes both
  pointers rounded down to 16 bytes; their misalignments `smis`, `dmis` are index
  arguments, as the chunk count `nchunks`); chunk c starts at A = (D // V + c) * V
  (V = 16 bytes of elements);
- the V src elements of its V dst elements start at s = A - D + S: the thread loads
  the aligned vectors at sa = s - s % V and sa + V (each masked where it holds no
  element of the row, the second also where s % V == 0) and takes V elements from
  `s % V` on (`layout.funnel_shift`);
- it stores them with a per-element mask (the row's head and tail chunks): whole
  chunks go out as one 16-byte store, partial ones element by element.

Every vector read lies inside the 16-byte aligned span of a row's bytes, so inside
the allocation (allocations are 256-byte aligned). Offsets are `i32` where every
offset, flat chunk index and a block past the end fit (`CopyKey.realign == 32`),
else `i64`. The key fixes the dtypes, the rank and the stride classes (0, 1, or
run-time), nothing of the shapes.
"""

from __future__ import annotations

import math

from .copy_key import FUNCTION, ITEMSIZE, VECTOR_BYTES, CopyKey, index_arg_names, needs_conversion

THREADS = 256
CHUNKS_PER_THREAD = 2
"""Dst chunks per thread (independent loads in flight)."""
INDEX32_LIMIT = 2**31

POLICY = "auto"
"""`use_realign`'s policy: "auto" (the measured rule), "always" (every eligible copy)
or "never"."""


def chunks_per_row(n_last: int, itemsize: int, dmis: int, dst_outer: list[int]) -> int:
    """The most 16-byte dst chunks a row spans: a row of `n_last` elements starting
    `m` bytes past a 16-byte boundary spans ceil((m + bytes) / 16) chunks, and the
    row starts `m` are `dmis` plus multiples of g = gcd(16, the outer dst strides in
    bytes), so m is at most dmis % g + 16 - g."""
    g = VECTOR_BYTES
    for s in dst_outer:
        g = math.gcd(g, abs(s) * itemsize)
    worst = dmis % g + VECTOR_BYTES - g
    return -(-(worst + n_last * itemsize) // VECTOR_BYTES)


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
    """32 when every offset (in elements, from the aligned-down pointers, a vector to
    spare), every flat chunk index and a block past the end fit a signed 32-bit
    integer; else 64."""
    v = VECTOR_BYTES // itemsize
    rows = math.prod(extents[:-1])
    block = THREADS * CHUNKS_PER_THREAD
    worst = rows * chunks + block
    for view in (src_strides, dst_strides):
        reach = sum((n - 1) * s for n, s in zip(extents, view)) + 4 * v
        worst = max(worst, reach)
    return 32 if worst < INDEX32_LIMIT else 64


def realign_program(key: CopyKey) -> str:
    """IR text of the realign kernel for `key` (module doc); the function takes the
    aligned-down pointers and `index_arg_names(key)`."""
    if key.realign not in (32, 64) or key.rank < 2:
        raise ValueError(f"not a realign key: {key}")
    e = ITEMSIZE[key.src_dtype]
    et = {1: "i8", 2: "i16", 4: "i32", 8: "i64"}[e]
    it = f"i{key.realign}"
    v = VECTOR_BYTES // e
    rank = key.rank
    last = rank - 1
    rows = THREADS * CHUNKS_PER_THREAD
    names = index_arg_names(key)
    ptr = f"!layout.ptr<{et}, align {VECTOR_BYTES}>"
    params = ", ".join([f"%src: {ptr}", f"%dst: {ptr}"] + [f"%{n}: index" for n in names])
    lay = (
        f"#layout.blocked<{{sizePerThread = [1, {v}], threadsPerWarp = [32, 1], "
        f"warpsPerCTA = [{THREADS // 32}, 1], order = [1, 0]}}>"
    )
    R = f"tensor<{rows}x{it}, #r>"
    RB = f"tensor<{rows}xi1, #r>"
    J = f"tensor<{v}x{it}, #j>"
    T = f"tensor<{rows}x{v}x{it}, #l>"
    M = f"tensor<{rows}x{v}xi1, #l>"
    P = f"tensor<{rows}x{v}x!layout.ptr<{et}>, #l>"
    F = f"tensor<{rows}x{v}x{et}, #l>"
    lines: list[str] = []
    emit = lines.append

    def scalar(name: str, value: str) -> str:
        emit(f"%{name} = arith.index_cast {value} : index to {it}")
        return f"%{name}"

    def splat(name: str, value: str) -> str:
        emit(f"%{name} = layout.splat {value} : {it} -> {R}")
        return f"%{name}"

    def const(name: str, value: int) -> str:
        emit(f"%{name} = arith.constant {value} : {it}")
        return f"%{name}"

    def op(name: str, what: str, a: str, b: str, typ: str = R) -> str:
        emit(f"%{name} = {what} {a}, {b} : {typ}")
        return f"%{name}"

    def cmp(name: str, pred: str, a: str, b: str, typ: str = R) -> str:
        emit(f"%{name} = layout.cmpi {pred}, {a}, {b} : {typ}")
        return f"%{name}"

    def to_full(name: str, value: str, src_type: str = R) -> str:
        elem = src_type.split("x")[-1].split(",")[0]
        mid = f"tensor<{rows}x1x{elem}, #l>"
        full = f"tensor<{rows}x{v}x{elem}, #l>"
        emit(f"%{name}_e = layout.expand_dims {value} {{axis = 1 : i64}} : {src_type} -> {mid}")
        emit(f"%{name} = layout.broadcast %{name}_e : {mid} -> {full}")
        return f"%{name}"

    def arange(name: str, n: int, typ: str, lay_name: str) -> str:
        if it == "i32":
            emit(f"%{name} = layout.arange {{start = 0 : i64, end = {n} : i64}} : {typ}")
        else:
            emit(f"%{name}_32 = layout.arange {{start = 0 : i64, end = {n} : i64}} : tensor<{n}xi32, {lay_name}>")
            emit(f"%{name} = layout.extsi %{name}_32 : tensor<{n}xi32, {lay_name}> to {typ}")
        return f"%{name}"

    n = [scalar(f"n{k}_i", f"%n{k}") for k in range(rank)]
    chunks = scalar("nchunks_i", "%nchunks")
    nrows = n[0]
    for k in range(1, last):
        nrows = op(f"nrows{k}", "arith.muli", nrows, n[k], it)
    total = op("total", "arith.muli", nrows, chunks, it)
    emit(f"%pid_i = arith.index_cast %pid : index to {it}")
    start = op("start", "arith.muli", "%pid_i", const("block", rows), it)
    flat = op("flat", "arith.addi", arange("fid", rows, R, "#r"), splat("start_r", start))
    row_ok = cmp("row_ok", "slt", "%flat", splat("total_r", total))
    chunks_r = splat("chunks_r", chunks)
    row = op("row", "arith.divsi", flat, chunks_r)
    chunk = op("chunk", "arith.remsi", flat, chunks_r)
    coords: list[str] = [""] * last
    rest = row
    for k in range(last - 1, 0, -1):
        nk = splat(f"n{k}_r", n[k])
        coords[k] = op(f"co{k}", "arith.remsi", rest, nk)
        rest = op(f"q{k}", "arith.divsi", rest, nk)
    coords[0] = rest

    def row_offset(x: str, classes, mis: str) -> str:
        off = splat(f"{x}mis_r", scalar(f"{x}mis_i", mis))
        for k in range(last):
            c = classes[k]
            if c == 0:
                continue
            if c == 1:
                term = coords[k]
            else:
                term = op(f"{x}t{k}", "arith.muli", coords[k], splat(f"{x}s{k}_r", scalar(f"{x}s{k}_i", f"%{x}s{k}")))
            off = op(f"{x}o{k}", "arith.addi", off, term)
        return off

    soff = row_offset("s", key.src_strides, "%smis")
    doff = row_offset("d", key.dst_strides, "%dmis")
    v_r = splat("v_r", const("v", v))
    # A = (D // V + c) * V: the chunk's first dst element (a multiple of V)
    dq = op("dq", "arith.divsi", doff, v_r)
    achunk = op("achunk", "arith.muli", op("dqc", "arith.addi", dq, chunk), v_r)
    # s = A - D + S, taken as t = s + V > 0: sa = (t // V - 1) * V, shift = t % V
    rel = op("rel", "arith.subi", achunk, doff)
    t = op("t", "arith.addi", op("srel", "arith.addi", rel, soff), v_r)
    tq = op("tq", "arith.divsi", t, v_r)
    one_r = splat("one_r", const("one", 1))
    sa = op("sa", "arith.muli", op("tq1", "arith.subi", tq, one_r), v_r)
    shift = op("shift", "arith.subi", t, op("tqv", "arith.muli", tq, v_r))
    send = op("send", "arith.addi", soff, splat("nl_r", n[last]))
    sa_v = op("sa_v", "arith.addi", sa, v_r)
    sa_2v = op("sa_2v", "arith.addi", sa_v, v_r)
    lo_in = op("lo_in", "arith.andi", cmp("lo_a", "sgt", sa_v, soff), cmp("lo_b", "slt", sa, send), RB)
    lo_ok = op("lo_ok", "arith.andi", lo_in, row_ok, RB)
    zero_r = splat("zero_r", const("zero", 0))
    hi_in = op("hi_in", "arith.andi", cmp("hi_a", "sgt", sa_2v, soff), cmp("hi_b", "slt", sa_v, send), RB)
    hi_sh = op("hi_sh", "arith.andi", hi_in, cmp("shifted", "ne", shift, zero_r), RB)
    hi_ok = op("hi_ok", "arith.andi", hi_sh, row_ok, RB)
    jar = arange("jar", v, J, "#j")
    emit(f"%jj_e = layout.expand_dims {jar} {{axis = 0 : i64}} : {J} -> tensor<1x{v}x{it}, #l>")
    emit(f"%jj = layout.broadcast %jj_e : tensor<1x{v}x{it}, #l> -> {T}")
    lo_offs = op("lo_offs", "arith.addi", to_full("sa_f", sa), "%jj", T)
    emit(f"%v_t = layout.splat %v : {it} -> {T}")
    hi_offs = op("hi_offs", "arith.addi", lo_offs, "%v_t", T)
    emit(f"%sp = layout.splat %src : {ptr} -> {P}")
    emit(f"%lo_p = layout.addptr %sp, {lo_offs} : {P}, {T}")
    emit(f"%hi_p = layout.addptr %sp, {hi_offs} : {P}, {T}")
    lo_m, hi_m = to_full("lo_m", lo_ok, RB), to_full("hi_m", hi_ok, RB)
    emit(f"%lo = layout.ptr_load %lo_p mask {lo_m} : {M} : {P} -> {F}")
    emit(f"%hi = layout.ptr_load %hi_p mask {hi_m} : {M} : {P} -> {F}")
    emit(f"%out = layout.funnel_shift %lo, %hi, {shift} : {F}, {R}")
    # the chunk's elements that lie in the row: D - A <= j < D + n - A
    first = to_full("first_f", op("first", "arith.subi", doff, achunk))
    end = to_full("end_f", op("end", "arith.subi", op("dend", "arith.addi", doff, splat("nl2_r", n[last])), achunk))
    in_row = op("in_row", "arith.andi", cmp("ge_first", "sge", "%jj", first, T), cmp("lt_end", "slt", "%jj", end, T), M)
    st_m = op("st_m", "arith.andi", in_row, to_full("row_m", row_ok, RB), M)
    emit(f"%dp = layout.splat %dst : {ptr} -> {P}")
    d_offs = op("d_offs", "arith.addi", to_full("a_f", achunk), "%jj", T)
    emit(f"%dptrs = layout.addptr %dp, {d_offs} : {P}, {T}")
    emit(f"layout.ptr_store %out, %dptrs mask {st_m} : {M} : {F}, {P}")
    body = "\n    ".join(lines)
    host = ["%hn0 = arith.muli %n0, %c1 : index"]
    for k in range(1, last):
        host.append(f"%hn{k} = arith.muli %hn{k - 1}, %n{k} : index")
    host.append(f"%htotal = arith.muli %hn{last - 1}, %nchunks : index")
    host_text = "\n  ".join(host)
    return (
        f"#l = {lay}\n"
        f"#r = #layout.slice<{{dim = 1, parent = #l}}>\n"
        f"#j = #layout.slice<{{dim = 0, parent = #l}}>\n"
        f"func.func @{FUNCTION}({params}) {{\n"
        f"  %c1 = arith.constant 1 : index\n"
        f"  {host_text}\n"
        f"  %BLOCK = arith.constant {rows} : index\n"
        f"  %grid = arith.ceildivui %htotal, %BLOCK : index\n"
        f"  layout.launch grid(%grid, %c1, %c1) threads({THREADS}) {{\n"
        f"  ^bb0(%pid: index, %by: index, %bz: index, %tid: index):\n"
        f"    {body}\n"
        "  }\n"
        "  func.return\n"
        "}\n"
    )


def prefer_realign(key: CopyKey, extents, src_strides, dst_strides, src_ptr: int, dst_ptr: int) -> bool:
    """The measured rule (to be measured): rows that the tiled kernel cannot move in
    16-byte vectors on both sides."""
    return key.src_align < VECTOR_BYTES or key.dst_align < VECTOR_BYTES
