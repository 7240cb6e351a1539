"""The box kernel of `tilec.copy_`: transposes of 1-byte elements whose dst-contiguous
mode continues a short src-contiguous one (or the reverse), as a GPU-level program,
and when to use it.

    box = box_shape(key, extents, src_strides, dst_strides)   # a BoxShape (NONE: no box kernel)
    text = box_program(key)        # key.box != 0: copy_program's signature + box_args

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

from .copy_key import FUNCTION, ITEMSIZE, SMALL_EXTENT, BoxShape, CopyKey, index_arg_names, needs_conversion
from .copy_routes import current_routes

THREADS = 256
SMEM_BYTES = 40 * 1024
"""Shared memory of a box (static): H100, the probe of
dev/experiments/narrow_permute_probe.py (v3): case 30 0.75 / 0.84 / 0.90 of
cudaMemcpy with boxes of 10 / 20 / 39 KiB, case 42 0.45 / 0.47 / 0.52 with 11 / 17 /
22 KiB."""
INDEX32_LIMIT = 2**31


def smem_bytes() -> int:
    """Shared memory of a box: `SMEM_BYTES`, or the tuning value in force
    (`copy_routes`, `box_smem`)."""
    return current_routes().box_smem or SMEM_BYTES


def _src_mode(key: CopyKey) -> int | None:
    """`W`: the src's stride-1 mode, where it is not the dst's contiguous mode."""
    w = next((k for k, s in enumerate(key.src_strides) if s == 1), None)
    return None if w is None or w == key.rank - 1 else w


def box_shape(key: CopyKey, extents, src_strides, dst_strides) -> BoxShape:
    """`BoxShape.FLAT`, `ROWS`, `COLS` or `NONE` (no box kernel) for a copy (module doc): 1-byte
    elements that need no conversion, the dst contiguous along its last mode `D`, the
    src contiguous along a short mode `W` (at most `SMALL_EXTENT`) followed in the src
    by `D` (src stride `n_W`); `D` longer than `SMALL_EXTENT` (`BoxShape.FLAT`), or from 16
    to `SMALL_EXTENT` with the dst's next mode `K` contiguous after it (dst stride
    `n_D`, `BoxShape.ROWS`); or the mirror of `BoxShape.FLAT`, `BoxShape.COLS`: `W` long, `D` at most
    `SMALL_EXTENT` and the dst contiguous over `D` then `W` (dst stride `n_D`). Never
    for a src that broadcasts, and only where the other kernels pad: the short modes
    taken whole are not all powers of two (H100, `box_cols_probe.py`, rows of `n_D`
    bytes from `n_D` long src rows, 256 MiB, off -> on: 3 0.61 -> 0.88, 5 0.71 ->
    0.87, 19 0.47 -> 0.74, 37 0.37 -> 0.62, but 8 0.87 -> 0.75, 64 0.91 -> 0.62).
    (`plan_copy` asks before the gather kernel's rule: a box copy takes the box
    kernel.)"""
    if current_routes().box == "never" or key.rank < 2:
        return BoxShape.NONE
    if ITEMSIZE[key.src_dtype] != 1 or ITEMSIZE[key.dst_dtype] != 1:
        return BoxShape.NONE
    if needs_conversion(key.src_dtype, key.dst_dtype) or 0 in src_strides:
        return BoxShape.NONE  # (a broadcast src: the gather kernel's, or the short periods')
    d = key.rank - 1
    w = _src_mode(key)
    if w is None or dst_strides[d] != 1:
        return BoxShape.NONE
    if extents[w] > SMALL_EXTENT:
        cols = extents[d] <= SMALL_EXTENT and dst_strides[w] == extents[d] and not _pow2(extents[d])
        return BoxShape.COLS if cols and extents[d] * 16 + 32 <= smem_bytes() else BoxShape.NONE
    if src_strides[d] != extents[w]:
        return BoxShape.NONE
    if extents[d] > SMALL_EXTENT:
        return BoxShape.FLAT if extents[w] * 16 + 16 <= smem_bytes() and not _pow2(extents[w]) else BoxShape.NONE
    if extents[d] < 16 or key.rank < 3 or (_pow2(extents[w]) and _pow2(extents[d])):
        return BoxShape.NONE
    k = d - 1
    if k == w or dst_strides[k] != extents[d]:
        return BoxShape.NONE
    return BoxShape.ROWS if 2 * _pitch(extents[w] * extents[d]) <= smem_bytes() else BoxShape.NONE


def _pow2(n: int) -> bool:
    return n & (n - 1) == 0


def _pitch(run_bytes: int) -> int:
    """Bytes of a slot: the run and up to 15 bytes before it, in whole 16-byte chunks."""
    return (run_bytes + 15 + 15) // 16 * 16


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
    """GPU-level IR text of the box kernel for `key` (module doc): a host function
    `@tilec_copy` with `copy_program`'s arguments and `BOX_ARG_NAMES`, one kernel."""
    if key.box not in (BoxShape.FLAT, BoxShape.ROWS, BoxShape.COLS):
        raise ValueError(f"not a box key: {key}")
    rank = key.rank
    d = rank - 1
    w = _src_mode(key)
    kmode = {BoxShape.FLAT: d, BoxShape.ROWS: d - 1, BoxShape.COLS: w}[key.box]
    names = index_arg_names(key)
    mt = "memref<?xi8>"
    params = ", ".join([f"%src: {mt}", f"%dst: {mt}"] + [f"%{n}: index" for n in names])
    types = ", ".join([mt, mt] + ["index"] * len(names))
    operands = ", ".join(
        ["%nblocks", "%c1", "%c1", "%cthreads", "%c1", "%c1", "%src", "%dst"] + [f"%{n}" for n in names]
    )
    nargs = 2 + len(names)
    host = (
        f"  func.func @{FUNCTION}({params}) {{\n"
        "    %c1 = arith.constant 1 : index\n"
        f"    %cthreads = arith.constant {THREADS} : index\n"
        f'    "gpu.launch_func"({operands}) <{{kernel = @{FUNCTION}_kernels::@{FUNCTION}_box, operandSegmentSizes = '
        f"array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, {nargs}, 0>}}> : ({', '.join(['index'] * 6)}, {types}) -> ()\n"
        "    func.return\n"
        "  }\n"
    )
    lines: list[str] = []
    emit = lines.append
    consts: dict[int, str] = {}

    def c(v: int) -> str:
        if v not in consts:
            name = f"%c{v}" if v >= 0 else f"%cm{-v}"
            consts[v] = name
        return consts[v]

    def stride(view: str, k: int) -> str | None:
        cls = (key.src_strides if view == "s" else key.dst_strides)[k]
        return None if cls == 0 else c(1) if cls == 1 else f"%{view}s{k}"

    emit('%bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index')
    emit('%tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index')
    emit(f"%smem = memref.alloca() {{alignment = 16 : i64}} : memref<{smem_bytes()}xi8, 3>")
    # the block's coordinates: chunks of K fastest, then the other modes, dst-fastest first
    emit(f"%gK = arith.ceildivui %n{kmode}, %T : index")
    emit("%kc = arith.remui %bid, %gK : index")
    emit("%oK = arith.muli %kc, %T : index")
    rest = "%kq"
    emit("%kq = arith.divui %bid, %gK : index")
    grid = [m for m in range(rank - 1, -1, -1) if m not in (w, d, kmode)]
    origin = {kmode: "%oK"}
    for i, m in enumerate(grid):
        if i == len(grid) - 1:
            origin[m] = rest
        else:
            emit(f"%o{m} = arith.remui {rest}, %n{m} : index")
            emit(f"%q{m} = arith.divui {rest}, %n{m} : index")
            origin[m], rest = f"%o{m}", f"%q{m}"
    for view, base in (("s", "%soff"), ("d", "%doff")):
        acc = base
        for m, o in origin.items():
            st = stride(view, m)
            if st is None:
                continue
            emit(f"%{view}t{m} = arith.muli {o}, {st} : index")
            emit(f"%{view}a{m} = arith.addi {acc}, %{view}t{m} : index")
            acc = f"%{view}a{m}"
        emit(f"%{view}orig = arith.addi {acc}, {c(0)} : index")
    emit(f"%kleft = arith.subi %n{kmode}, %oK : index")
    emit("%TK = arith.minui %T, %kleft : index")
    if key.box == BoxShape.COLS:
        _cols_phases(emit, c, stride, key, w, d, mt)
    else:
        _slot_phases(emit, c, stride, key, w, d, kmode, mt)
    const_lines = [f"{name} = arith.constant {v} : index" for v, name in consts.items()]
    body = "\n      ".join(const_lines + lines)
    fattrs = f", tilec.index_bits = {key.index_bits} : i64" if key.index_bits == 32 else ""
    kernel = (
        f'    "gpu.func"() <{{function_type = ({types}) -> (), kernel}}> ({{\n'
        f"    ^bb0({params}):\n"
        f"      {body}\n"
        '      "gpu.return"() : () -> ()\n'
        f'    }}) {{sym_name = "{FUNCTION}_box", gpu.known_block_size = array<i32: {THREADS}, 1, 1>{fattrs}}} : () -> ()\n'
    )
    return (
        "builtin.module attributes {gpu.container_module} {\n"
        f"{host}"
        f'  "gpu.module"() <{{sym_name = "{FUNCTION}_kernels"}}> ({{\n'
        f"{kernel}"
        "  }) : () -> ()\n"
        "}\n"
    )


def _stepped(emit, c, name: str, base: str, count: str, stride: str | None, indent: str) -> None:
    """`%name = base + count * stride` (a stride the key fixes to 0 is None)."""
    if stride is None:
        emit(f"{indent}%{name} = arith.addi {base}, {c(0)} : index")
    else:
        emit(f"{indent}%{name}_t = arith.muli {count}, {stride} : index")
        emit(f"{indent}%{name} = arith.addi {base}, %{name}_t : index")


def _slot_phases(emit, c, stride, key: CopyKey, w: int, d: int, kmode: int, mt: str) -> None:
    """`BoxShape.FLAT` and `BoxShape.ROWS`: cp.async of the src runs into congruent slots, then
    16-byte dst chunks read from the slots at a step of `n_W`."""
    nw, nd = f"%n{w}", f"%n{d}"
    # phase 1: the src runs into their slots
    if key.box == BoxShape.FLAT:
        emit(f"%L = arith.muli {nw}, %TK : index")
        emit(f"%mis = arith.andi %sorig, {c(15)} : index")
        emit("%sb = arith.subi %sorig, %mis : index")
        emit("%lm = arith.addi %mis, %L : index")
        emit(f"%nch = arith.ceildivui %lm, {c(16)} : index")
        emit(f"scf.for %j = %tid to %nch step {c(THREADS)} {{")
        emit(f"  %j16 = arith.muli %j, {c(16)} : index")
        emit("  %g = arith.addi %sb, %j16 : index")
        emit(f"  cuda.cp_async %smem[%j16], %src[%g], 16 : memref<{smem_bytes()}xi8, 3>, {mt}")
        emit("}")
    else:
        ssk = stride("s", kmode)
        emit(f"%L = arith.muli {nw}, {nd} : index")
        emit(f"%warp = arith.divui %tid, {c(32)} : index")
        emit(f"%lane = arith.remui %tid, {c(32)} : index")
        emit(f"scf.for %k = %warp to %TK step {c(THREADS // 32)} {{")
        _stepped(emit, c, "off", "%sorig", "%k", ssk, "  ")
        emit(f"  %mis = arith.andi %off, {c(15)} : index")
        emit("  %sb = arith.subi %off, %mis : index")
        emit("  %lm = arith.addi %mis, %L : index")
        emit(f"  %nch = arith.ceildivui %lm, {c(16)} : index")
        emit("  %slot = arith.muli %k, %PB : index")
        emit(f"  scf.for %j = %lane to %nch step {c(32)} {{")
        emit(f"    %j16 = arith.muli %j, {c(16)} : index")
        emit("    %g = arith.addi %sb, %j16 : index")
        emit("    %s = arith.addi %slot, %j16 : index")
        emit(f"    cuda.cp_async %smem[%s], %src[%g], 16 : memref<{smem_bytes()}xi8, 3>, {mt}")
        emit("  }")
        emit("}")
    emit("cuda.cp_async_commit")
    emit("cuda.cp_async_wait 0")
    emit('"gpu.barrier"() : () -> ()')
    # phase 2: aligned 16-byte chunks of the dst runs
    dsw = stride("d", w)
    if key.box == BoxShape.FLAT:
        emit("%LD = arith.addi %TK, %c0 : index")
    else:
        emit(f"%LD = arith.muli {nd}, %TK : index")
    emit(f"%tot = arith.muli {nw}, %CD : index")
    emit(f"scf.for %idx = %tid to %tot step {c(THREADS)} {{")
    emit("  %w = arith.divui %idx, %CD : index")
    emit("  %wcd = arith.muli %w, %CD : index")
    emit("  %ci = arith.subi %idx, %wcd : index")
    _stepped(emit, c, "start", "%dorig", "%w", dsw, "  ")
    emit("  %end = arith.addi %start, %LD : index")
    emit(f"  %sal = arith.andi %start, {c(-16)} : index")
    emit(f"  %c16i = arith.muli %ci, {c(16)} : index")
    emit("  %cs = arith.addi %sal, %c16i : index")
    emit(f"  %ce = arith.addi %cs, {c(16)} : index")
    emit("  %go = arith.cmpi slt, %cs, %end : index")
    emit("  scf.if %go {")
    emit("    %lo = arith.maxsi %cs, %start : index")
    emit("    %p0 = arith.subi %lo, %start : index")
    emit(f"    %np0 = arith.muli {nw}, %p0 : index")
    wrap = key.box == BoxShape.ROWS
    if not wrap:
        emit("    %a0w = arith.addi %mis, %w : index")
        emit("    %a0 = arith.addi %a0w, %np0 : index")
    else:
        ssk = stride("s", kmode)

        def slot(name: str, kv: str) -> None:
            emit(f"    %{name}_p = arith.muli {kv}, %PB : index")
            _stepped(emit, c, f"{name}_o", "%sorig", kv, ssk, "    ")
            emit(f"    %{name}_m = arith.andi %{name}_o, {c(15)} : index")
            emit(f"    %{name}_s = arith.addi %{name}_p, %{name}_m : index")
            emit(f"    %{name} = arith.addi %{name}_s, %w : index")

        emit(f"    %d0 = arith.remui %p0, {nd} : index")
        emit(f"    %k0 = arith.divui %p0, {nd} : index")
        slot("s0", "%k0")
        emit(f"    %nd0 = arith.muli {nw}, %d0 : index")
        emit("    %a0 = arith.addi %s0, %nd0 : index")
        emit(f"    %k1 = arith.addi %k0, {c(1)} : index")
        slot("s1", "%k1")
        emit(f"    %nwr = arith.subi {nd}, %d0 : index")
        emit(f"    %nwrw = arith.muli %nwr, {nw} : index")
        emit("    %a1 = arith.addi %a0, %nwrw : index")
        emit("    %delta = arith.subi %s1, %a1 : index")
    emit("    %f0 = arith.cmpi sge, %cs, %start : index")
    emit("    %f1 = arith.cmpi sle, %ce, %end : index")
    emit("    %full = arith.andi %f0, %f1 : i1")
    emit("    scf.if %full {")
    prev = None
    for t in range(16):
        if t == 0:
            emit("      %b0 = arith.addi %a0, %c0 : index")
        else:
            emit(f"      %b{t} = arith.addi %b{t - 1}, {nw} : index")
        addr = f"%b{t}"
        if wrap and t > 0:
            emit(f"      %j{t} = arith.cmpi sge, {c(t)}, %nwr : index")
            emit(f"      %e{t} = arith.addi %b{t}, %delta : index")
            emit(f"      %at{t} = arith.select %j{t}, %e{t}, %b{t} : index")
            addr = f"%at{t}"
        emit(f"      %x{t} = memref.load %smem[{addr}] : memref<{smem_bytes()}xi8, 3>")
        if t == 0:
            emit("      %v0 = vector.broadcast %x0 : i8 to vector<16xi8>")
        else:
            emit(f"      %v{t} = vector.insert %x{t}, %v{t - 1}[{t}] : i8 into vector<16xi8>")
        prev = t
    emit(f"      vector.store %v{prev}, %dst[%cs] : {mt}, vector<16xi8>")
    emit("    } else {")
    emit("      %hi = arith.minsi %ce, %end : index")
    emit("      %cnt = arith.subi %hi, %lo : index")
    emit(f"      scf.for %t = {c(0)} to %cnt step {c(1)} {{")
    emit(f"        %tw = arith.muli %t, {nw} : index")
    emit("        %bt = arith.addi %a0, %tw : index")
    addr = "%bt"
    if wrap:
        emit("        %jt = arith.cmpi sge, %t, %nwr : index")
        emit("        %et = arith.addi %bt, %delta : index")
        emit("        %att = arith.select %jt, %et, %bt : index")
        addr = "%att"
    emit(f"        %xt = memref.load %smem[{addr}] : memref<{smem_bytes()}xi8, 3>")
    emit("        %pos = arith.addi %lo, %t : index")
    emit(f"        memref.store %xt, %dst[%pos] : {mt}")
    emit("      }")
    emit("    }")
    emit("  }")
    emit("}")


def _cols_phases(emit, c, stride, key: CopyKey, w: int, d: int, mt: str) -> None:
    """`BoxShape.COLS` (the dst's short contiguous mode `D` whole, `T` elements of the src's
    long contiguous mode `W`): phase 1 loads each src run's aligned 16-byte chunks
    (lane `i` takes run `i mod n_D`: the lanes' byte stores fall in different banks)
    and stores their bytes into shared memory in the dst's order, congruent to the dst
    modulo 16; phase 2 copies the image to the dst in aligned 16-byte vectors."""
    nd = f"%n{d}"
    ssd = stride("s", d)
    sm = f"memref<{smem_bytes()}xi8, 3>"
    emit(f"%misd = arith.andi %dorig, {c(15)} : index")
    emit(f"%tot = arith.muli {nd}, %CD : index")
    emit(f"scf.for %idx = %tid to %tot step {c(THREADS)} {{")
    emit(f"  %rd = arith.remui %idx, {nd} : index")
    emit(f"  %ci = arith.divui %idx, {nd} : index")
    _stepped(emit, c, "rstart", "%sorig", "%rd", ssd, "  ")
    emit(f"  %ral = arith.andi %rstart, {c(-16)} : index")
    emit(f"  %cof = arith.muli %ci, {c(16)} : index")
    emit("  %g = arith.addi %ral, %cof : index")
    emit("  %t0 = arith.subi %g, %rstart : index")
    emit("  %go = arith.cmpi slt, %t0, %TK : index")
    emit("  scf.if %go {")
    emit(f"    %v = vector.load %src[%g] : {mt}, vector<16xi8>")
    emit("    %q0 = arith.muli %t0, " + nd + " : index")
    emit("    %q1 = arith.addi %q0, %rd : index")
    emit("    %base = arith.addi %q1, %misd : index")
    emit(f"    %f0 = arith.cmpi sge, %t0, {c(0)} : index")
    emit(f"    %tend = arith.addi %t0, {c(16)} : index")
    emit("    %f1 = arith.cmpi sle, %tend, %TK : index")
    emit("    %full = arith.andi %f0, %f1 : i1")
    emit("    scf.if %full {")
    for t in range(16):
        if t == 0:
            emit("      %p0 = arith.addi %base, %c0 : index")
        else:
            emit(f"      %p{t} = arith.addi %p{t - 1}, {nd} : index")
        emit(f"      %x{t} = vector.extract %v[{t}] : i8 from vector<16xi8>")
        emit(f"      memref.store %x{t}, %smem[%p{t}] : {sm}")
    emit("    } else {")
    emit(f"      scf.for %b = {c(0)} to {c(16)} step {c(1)} {{")
    emit("        %tb = arith.addi %t0, %b : index")
    emit(f"        %in0 = arith.cmpi sge, %tb, {c(0)} : index")
    emit("        %in1 = arith.cmpi slt, %tb, %TK : index")
    emit("        %in = arith.andi %in0, %in1 : i1")
    emit("        scf.if %in {")
    emit("          %xb = vector.extract %v[%b] : i8 from vector<16xi8>")
    emit(f"          %bn = arith.muli %b, {nd} : index")
    emit("          %pb = arith.addi %base, %bn : index")
    emit(f"          memref.store %xb, %smem[%pb] : {sm}")
    emit("        }")
    emit("      }")
    emit("    }")
    emit("  }")
    emit("}")
    emit('"gpu.barrier"() : () -> ()')
    emit(f"%LD = arith.muli {nd}, %TK : index")
    emit(f"%dal = arith.andi %dorig, {c(-16)} : index")
    emit("%lend = arith.addi %misd, %LD : index")
    emit(f"%nch2 = arith.ceildivui %lend, {c(16)} : index")
    emit(f"scf.for %i = %tid to %nch2 step {c(THREADS)} {{")
    emit(f"  %off = arith.muli %i, {c(16)} : index")
    emit("  %cs = arith.addi %dal, %off : index")
    emit("  %g0 = arith.cmpi sge, %off, %misd : index")
    emit(f"  %oend = arith.addi %off, {c(16)} : index")
    emit("  %g1 = arith.cmpi sle, %oend, %lend : index")
    emit("  %whole = arith.andi %g0, %g1 : i1")
    emit("  scf.if %whole {")
    emit(f"    %y = vector.load %smem[%off] : {sm}, vector<16xi8>")
    emit(f"    vector.store %y, %dst[%cs] : {mt}, vector<16xi8>")
    emit("  } else {")
    emit(f"    scf.for %b = {c(0)} to {c(16)} step {c(1)} {{")
    emit("      %pos = arith.addi %off, %b : index")
    emit("      %h0 = arith.cmpi sge, %pos, %misd : index")
    emit("      %h1 = arith.cmpi slt, %pos, %lend : index")
    emit("      %h = arith.andi %h0, %h1 : i1")
    emit("      scf.if %h {")
    emit(f"        %xy = memref.load %smem[%pos] : {sm}")
    emit("        %dp = arith.addi %dal, %pos : index")
    emit(f"        memref.store %xy, %dst[%dp] : {mt}")
    emit("      }")
    emit("    }")
    emit("  }")
    emit("}")
