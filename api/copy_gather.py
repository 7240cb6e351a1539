"""The gather kernel of `tilec.copy_`, as a pointer-tensor program, and when to use it.

    text = gather_program(key)     # key.gather != 0: same signature as copy_program
    prefer_gather(key, extents, src_strides, dst_strides, vector)   # copy_plan asks

Where both views' contiguous runs are short or odd (a 17 x 19 transpose inside each
323-element block, rows of 259 bytes broadcast from one row), every tile of the tiled
kernel (the `tile` pass's) is an edge tile and most of its lanes idle. This kernel walks the
destination instead, as PyTorch's and Triton's generic copies do, in Gluon's terms:
each thread owns `V` consecutive elements of the dst (in its row-major order over the
merged modes; where the dst is contiguous over all of them, `CopyKey.dst_flat`, that is
16 bytes: one vector store) and gathers their sources.

Source offsets are computed incrementally, not by `rank` divisions per element: the
thread decomposes its first element's flat index over the extents once (`c_k`, the
src offset `so`), then element j of its run is at `so + j * ss_last`, plus `W` where
`c_last + j` wrapped past `n_last`. `W` is the offset change of a wrap of the last mode,
the carry rippling through the modes whose coordinate is at its last value:

    E_0 = ss_0;  E_k = ss_k if c_k + 1 < n_k else E_(k-1) - (n_k - 1) * ss_k
    W   = E_(r-2) - n_last * ss_last

At most one wrap fits a run when `n_last >= V`, which the key guarantees: `V` is the
16-byte vector, narrowed to half the last mode's extent class where that is small.
The dst offsets of a dst that is not flat are computed the same way (and stored one
element at a time). Elements past the end are masked (their offsets are never
dereferenced).

Offsets are `i32` when the key says they fit (`CopyKey.gather == 32`: every flat index
and src offset below 2**31), `i64` otherwise. A converting copy converts in registers
between the gather and the store, by the steps `distribute` uses for a converting
`layout.copy` (`conversions.conversion_steps`: PyTorch's `copy_`).
"""

from __future__ import annotations

from tilec.dialects.conversions import STORAGE, conversion_steps

from .copy_key import FUNCTION, ITEMSIZE, SMALL_EXTENT, VECTOR_BYTES, CopyKey, index_arg_names, needs_conversion
from .ptr_program import PtrProgram

THREADS = 256
ROWS_PER_THREAD = 2
"""Runs of `V` elements per thread (independent loads in flight)."""


def gather_vector(key: CopyKey) -> int:
    """Elements per run of one thread: a 16-byte dst vector, at most half the last
    mode's extent class (so that a run wraps the last mode at most once)."""
    v = max(1, VECTOR_BYTES // ITEMSIZE[key.dst_dtype])
    small = key.small_extents[-1] if key.small_extents else None
    if small is not None:
        v = min(v, max(1, small // 2))
    return v


_CASTS = ("extsi", "extui", "trunci", "sitofp", "uitofp", "fptosi")


def _convert(emit, value: str, key: CopyKey, shape: str) -> str:
    """Emit PyTorch's conversion of `value` (a tensor of the src's storage type) to the
    dst's, as `conversion_steps` spells it (the ops `distribute` builds for a
    converting `layout.copy`); returns the converted value."""
    if not needs_conversion(key.src_dtype, key.dst_dtype):
        return value
    ty = STORAGE[key.src_dtype]
    for i, (step, to) in enumerate(conversion_steps(key.src_dtype, key.dst_dtype)):
        a, b = f"tensor<{shape}x{ty}, #l>", f"tensor<{shape}x{to}, #l>"
        res = f"%cv{i}"
        if step == "nonzero":
            if ty.startswith("i"):
                emit(f"%cz{i} = arith.constant 0 : {ty}")
                emit(f"%czs{i} = layout.splat %cz{i} : {ty} -> {a}")
                emit(f"{res} = layout.cmpi ne, {value}, %czs{i} : {a}")
            else:
                emit(f"%cz{i} = arith.constant 0.0 : {ty}")
                emit(f"%czs{i} = layout.splat %cz{i} : {ty} -> {a}")
                emit(f"{res} = layout.cmpf une, {value}, %czs{i} : {a}")
        elif step in ("extf", "truncf"):
            emit(f"{res} = arith.{step} {value} : {a} to {b}")
        else:
            assert step in _CASTS, step
            emit(f"{res} = layout.{step} {value} : {a} to {b}")
        value, ty = res, to
    return value


def _run_offsets(t: PtrProgram, key: CopyKey, n, r_ids, rows, T, to_full, jj) -> str:
    """The src offsets of a key whose runs are whole src vectors (`CopyKey.src_runs`):
    the run index (not the flat one) decomposed over the extents, the last counted in
    runs, and the run's offset written as `v` times a sum, so that the pointers' axis
    analysis sees `v` contiguous elements from a multiple of `v` (one vector load)."""
    emit, scalar, const, splat_r, it, R = t.emit, t.index, t.const, t.splat, t.it, t.R
    rank = key.rank
    last = rank - 1
    emit(f"%rstart = arith.muli %pid_i, {const('rows', rows)} : {it}")
    emit(f"%rbase = arith.addi {r_ids}, {splat_r('rstarts', '%rstart')} : {R}")
    emit(f"%nlv = arith.divsi {n[last]}, %v : {it}")
    coords: list[str] = [""] * rank
    rest = "%rbase"
    for k in range(last, 0, -1):
        nk = splat_r(f"vn{k}_r", "%nlv" if k == last else n[k])
        emit(f"%vco{k} = arith.remsi {rest}, {nk} : {R}")
        emit(f"%vq{k} = arith.divsi {rest}, {nk} : {R}")
        coords[k], rest = f"%vco{k}", f"%vq{k}"
    coords[0] = rest
    so = coords[last]
    for k in range(last):
        if key.src_strides[k] == 0:
            continue
        # a run-time stride, a multiple of v (the key's promise)
        emit(f"%vsq{k} = arith.divsi {scalar(f'vss{k}_i', f'%ss{k}')}, %v : {it}")
        emit(f"%vt{k} = arith.muli {coords[k]}, {splat_r(f'vsq{k}_r', f'%vsq{k}')} : {R}")
        emit(f"%vo{k} = arith.addi {so}, %vt{k} : {R}")
        so = f"%vo{k}"
    emit(f"%vso = arith.muli {so}, %vs : {R}")
    so_full = to_full("vsof", "%vso", R, 1)
    emit(f"%soffs = arith.addi {so_full}, {jj} : {T}")
    return "%soffs"


def runs_are_vectors(key: CopyKey, extents, src_strides, src_ptr: int, v: int) -> bool:
    """Whether each run of `v` elements of a gather into a flat dst is `v` contiguous
    src elements from an aligned address (`CopyKey.src_runs`): the src contiguous along
    the last mode, that mode a multiple of `v` long (a run never wraps it), every other
    src stride 0 or a multiple of `v` (not 1), and the src pointer a multiple of the
    run's bytes."""
    if src_strides[-1] != 1 or extents[-1] % v or v < 2:
        return False
    if src_ptr % (v * ITEMSIZE[key.src_dtype]):
        return False
    return all(s == 0 or (s != 1 and s % v == 0) for s in src_strides[:-1])


def gather_program(key: CopyKey) -> str:
    """IR text of the gather kernel for `key` (module doc); the function and its
    arguments are `copy_program`'s (the dst strides are taken and unused where the key
    promises a flat dst)."""
    if key.gather not in (32, 64) or key.rank < 2:
        raise ValueError(f"not a gather key: {key}")
    et, dt = STORAGE[key.src_dtype], STORAGE[key.dst_dtype]
    it = f"i{key.gather}"
    rank = key.rank
    v = gather_vector(key)
    rows = THREADS * ROWS_PER_THREAD
    block = rows * v
    names = index_arg_names(key)
    sptr = f"!layout.ptr<{et}, align {key.src_align}>"
    dptr = f"!layout.ptr<{dt}, align {key.dst_align}>"
    params = ", ".join([f"%src: {sptr}", f"%dst: {dptr}"] + [f"%{n}: index" for n in names])
    lay = (
        f"#layout.blocked<{{sizePerThread = [1, {v}], threadsPerWarp = [32, 1], "
        f"warpsPerCTA = [{THREADS // 32}, 1], order = [1, 0]}}>"
    )
    R = f"tensor<{rows}x{it}, #r>"
    J = f"tensor<{v}x{it}, #j>"
    T = f"tensor<{rows}x{v}x{it}, #l>"
    M = f"tensor<{rows}x{v}xi1, #l>"
    P = f"tensor<{rows}x{v}x!layout.ptr<{et}>, #l>"
    F = f"tensor<{rows}x{v}x{et}, #l>"
    G = f"tensor<{rows}x{v}x{dt}, #l>"
    t = PtrProgram(it, R)
    emit, scalar, const, splat_r, arange = t.emit, t.index, t.const, t.splat, t.arange

    def to_full(name: str, value: str, src_type: str, axis: int) -> str:
        mid = f"tensor<{'1x' + str(v) if axis == 0 else str(rows) + 'x1'}x{it}, #l>"
        emit(f"%{name}_e = layout.expand_dims {value} {{axis = {axis} : i64}} : {src_type} -> {mid}")
        emit(f"%{name} = layout.broadcast %{name}_e : {mid} -> {T}")
        return f"%{name}"

    n = [scalar(f"n{k}_i", f"%n{k}") for k in range(rank)]
    total = n[0]
    for k in range(1, rank):
        emit(f"%total{k} = arith.muli {total}, {n[k]} : {it}")
        total = f"%total{k}"
    emit(f"%pid_i = arith.index_cast %pid : index to {it}")
    emit(f"%start = arith.muli %pid_i, {const('block', block)} : {it}")
    # per run (the [rows] slice): its first flat index, decomposed over the extents
    r_ids = arange("rid", rows, R, "#r")
    emit(f"%rv = arith.muli {r_ids}, {splat_r('vs', const('v', v))} : {R}")
    emit(f"%base = arith.addi %rv, {splat_r('starts', '%start')} : {R}")
    last = rank - 1
    jj = to_full("jj", arange("j", v, J, "#j"), J, 0)
    if key.src_runs:
        soj = _run_offsets(t, key, n, r_ids, rows, T, to_full, jj)
    else:
        coords: list[str] = [""] * rank
        rest = "%base"
        for k in range(rank - 1, 0, -1):
            nk = splat_r(f"n{k}_r", n[k])
            emit(f"%co{k} = arith.remsi {rest}, {nk} : {R}")
            emit(f"%q{k} = arith.divsi {rest}, {nk} : {R}")
            coords[k], rest = f"%co{k}", f"%q{k}"
        coords[0] = rest
        zero_r = splat_r("zero_r", const("zero", 0))
        one_r = splat_r("one_r", const("one", 1))
        # per element: whether j along the run wrapped the last mode
        cl = to_full("cl", coords[last], R, 1)
        emit(f"%clj = arith.addi {cl}, {jj} : {T}")
        emit(f"%n_last = layout.splat {n[last]} : {it} -> {T}")
        emit(f"%wrapped = layout.cmpi sge, %clj, %n_last : {T}")
        emit(f"%zero_t = layout.splat %zero : {it} -> {T}")

    def offsets(x: str, classes: tuple[int | None, ...]) -> str:
        """Per element, the offset in the view whose strides are `classes` (0, 1 or
        the run-time `%{x}s<k>`): the run's first offset, j steps of the last mode,
        and W where j wrapped it (module doc)."""
        st: list[str | None] = []
        for k, c in enumerate(classes):
            st.append(None if c == 0 else const(f"{x}one{k}", 1) if c == 1 else scalar(f"{x}s{k}_i", f"%{x}s{k}"))
        so = zero_r
        for k in range(rank):
            if st[k] is None:
                continue
            if classes[k] == 1:
                term = coords[k]
            else:
                emit(f"%{x}t{k} = arith.muli {coords[k]}, {splat_r(f'{x}s{k}_r', st[k])} : {R}")
                term = f"%{x}t{k}"
            emit(f"%{x}o{k} = arith.addi {so}, {term} : {R}")
            so = f"%{x}o{k}"
        # E_k: the offset change of stepping mode k by one, carries included
        e = splat_r(f"{x}e0", st[0]) if st[0] is not None else zero_r
        for k in range(1, rank - 1):
            emit(f"%{x}cp{k} = arith.addi {coords[k]}, {one_r} : {R}")
            emit(f"%{x}in{k} = layout.cmpi slt, %{x}cp{k}, {splat_r(f'{x}n{k}_e', n[k])} : {R}")
            if st[k] is None:
                step, back = zero_r, zero_r
            else:
                step = splat_r(f"{x}sk{k}", st[k])
                emit(f"%{x}nm{k} = arith.subi {n[k]}, %one : {it}")
                emit(f"%{x}bs{k} = arith.muli %{x}nm{k}, {st[k]} : {it}")
                back = splat_r(f"{x}back{k}", f"%{x}bs{k}")
            emit(f"%{x}carry{k} = arith.subi {e}, {back} : {R}")
            emit(f"%{x}e{k} = layout.select %{x}in{k}, {step}, %{x}carry{k} : tensor<{rows}xi1, #r>, {R}")
            e = f"%{x}e{k}"
        if st[last] is None:
            wrap_back = zero_r
        else:
            emit(f"%{x}wb_s = arith.muli {n[last]}, {st[last]} : {it}")
            wrap_back = splat_r(f"{x}wb", f"%{x}wb_s")
        emit(f"%{x}w = arith.subi {e}, {wrap_back} : {R}")
        w_full = to_full(f"{x}wf", f"%{x}w", R, 1)
        emit(f"%{x}wsel = layout.select %wrapped, {w_full}, %zero_t : {M}, {T}")
        so_full = to_full(f"{x}of", so, R, 1)
        if st[last] is None:
            emit(f"%{x}offs = arith.addi {so_full}, %{x}wsel : {T}")
            return f"%{x}offs"
        if classes[last] == 1:
            step_j = jj
        else:
            emit(f"%{x}sl = layout.splat {st[last]} : {it} -> {T}")
            emit(f"%{x}jss = arith.muli {jj}, %{x}sl : {T}")
            step_j = f"%{x}jss"
        emit(f"%{x}offs0 = arith.addi {so_full}, {step_j} : {T}")
        emit(f"%{x}offs = arith.addi %{x}offs0, %{x}wsel : {T}")
        return f"%{x}offs"

    if not key.src_runs:
        soj = offsets("s", key.src_strides)
    base_full = to_full("bf", "%base", R, 1)
    emit(f"%flat = arith.addi {base_full}, {jj} : {T}")
    emit(f"%total_t = layout.splat {total} : {it} -> {T}")
    emit(f"%mask = layout.cmpi slt, %flat, %total_t : {T}")
    emit(f"%sp = layout.splat %src : {sptr} -> {P}")
    emit(f"%sptrs = layout.addptr %sp, {soj} : {P}, {T}")
    emit(f"%val = layout.ptr_load %sptrs mask %mask : {M} : {P} -> {F}")
    out = _convert(emit, "%val", key, f"{rows}x{v}")
    DP = f"tensor<{rows}x{v}x!layout.ptr<{dt}>, #l>"
    emit(f"%dp = layout.splat %dst : {dptr} -> {DP}")
    doffs = "%flat" if key.dst_flat else offsets("d", key.dst_strides)
    emit(f"%dptrs = layout.addptr %dp, {doffs} : {DP}, {T}")
    emit(f"layout.ptr_store {out}, %dptrs mask %mask : {M} : {G}, {DP}")
    body = "\n    ".join(t.lines)
    host = ["%hn0 = arith.muli %n0, %c1 : index"]
    for k in range(1, rank):
        host.append(f"%hn{k} = arith.muli %hn{k - 1}, %n{k} : index")
    host_text = "\n  ".join(host)
    return (
        f"#l = {lay}\n"
        f"#r = #layout.slice<{{dim = 1, parent = #l}}>\n"
        f"#j = #layout.slice<{{dim = 0, parent = #l}}>\n"
        f"func.func @{FUNCTION}({params}) {{\n"
        f"  %c1 = arith.constant 1 : index\n"
        f"  {host_text}\n"
        f"  %BLOCK = arith.constant {block} : index\n"
        f"  %grid = arith.ceildivui %hn{rank - 1}, %BLOCK : index\n"
        f"  layout.launch grid(%grid, %c1, %c1) threads({THREADS}) {{\n"
        f"  ^bb0(%pid: index, %by: index, %bz: index, %tid: index):\n"
        f"    {body}\n"
        "  }\n"
        "  func.return\n"
        "}\n"
    )



INDEX32_LIMIT = 2**31


def dst_is_flat(extents, dst_strides) -> bool:
    """Whether the dst is contiguous over all its merged modes (its offset is the flat
    index: the gather kernel stores 16-byte vectors)."""
    reach = 1
    for n, d in zip(reversed(extents), reversed(dst_strides)):
        if d != reach:
            return False
        reach *= n
    return True


def gather_index_bits(extents, strides, block: int) -> int:
    """32 when every flat index (and a block past the end) and every offset of the
    views of `strides` (src, and dst where it is not flat), with a last-mode step to
    spare, fit a signed 32-bit integer; else 64."""
    total = 1
    for n in extents:
        total *= n
    fits = total + block < INDEX32_LIMIT
    for view in strides:
        reach = sum(n * abs(s) for n, s in zip(extents, view)) + max(abs(s) for s in view)
        fits = fits and reach < INDEX32_LIMIT
    return 32 if fits else 64


MIN_SECTOR_USE = 0.35
"""Least share of the 32-byte src sectors a gather block touches that it uses
(`sector_use`) for `prefer_gather` to take the gather kernel."""
LONGEST_RUN = 512
"""Longest dst run (last merged extent) that `prefer_gather` gives to the gather
kernel: beyond it the tiled kernel's rows are long and few tiles are edges."""
MAX_TILE_USE = 0.9
"""`prefer_gather` keeps the tiled kernel where its tiles hold at least this share of
useful elements (`tile_use`)."""


def tile_use(key: CopyKey, extents) -> float:
    """The share of the tiled kernel's tile slots that hold elements over the whole
    copy: 1 when every extent is a multiple of the tile, 0.25 for rows of 259 in tiles
    of 1024. The tile is the one the `tile` pass chooses for the key's tiled program
    (`copy_key.pass_tile`)."""
    import math

    from .copy_key import pass_tile

    tile = pass_tile(key)
    use = 1.0
    for n, t in zip(extents, tile):
        use *= n / (math.ceil(n / t) * t)
    return use


def sector_use(extents, src_strides, itemsize: int, block: int) -> float:
    """Bytes the src elements of a gather block hold over the bytes of the 32-byte
    sectors they lie in, the least over three blocks (first, middle, last full):
    near 1 where a block reads whole runs of src (a transpose inside short blocks, a
    row of a few elements), far below where consecutive dst elements read far-apart
    src elements (a transpose of long modes). Above 1 for broadcast sources."""
    import numpy as np

    total = 1
    for n in extents:
        total *= n
    last_full = max(0, (total // block - 1) * block)
    worst = float("inf")
    for b0 in sorted({0, (total // 2) // block * block, last_full}):
        flat = np.arange(b0, min(total, b0 + block), dtype=np.int64)
        off = np.zeros_like(flat)
        for n, s in zip(reversed(extents), reversed(src_strides)):
            off += (flat % n) * s
            flat //= n
        sectors = len(np.unique((off * itemsize) // 32))
        worst = min(worst, len(off) * itemsize / (sectors * 32))
    return worst


def prefer_gather(key: CopyKey, extents, src_strides, dst_strides, vector: int, src_ptr: int | None = None) -> bool:
    """The measured rule (H100, strided set, `copy_tile_variants.py --variants
    tiled,gather`; docs/pytorch-cupy.md): the gather kernel for broadcasts of 2 bytes
    or more into a flat dst (`broadcast_rule`), and where the tiled kernel
    (`key`, not a gather key) wastes tile slots on edges (a dst run of a length that is
    not a power of two, at most `LONGEST_RUN` where the src runs along it too or is
    broadcast along it, else at most `SMALL_EXTENT`: the transposes measured all had
    such short runs, and longer ones keep the tiled transpose, so that a pattern of
    long extents keeps its kernels; `tile_use` below `MAX_TILE_USE`) and a
    gather block uses its src sectors well (`sector_use`); only into a flat dst (into
    padded rows, with scalar stores, it lost on all three cases tried: 0.63 -> 0.26,
    0.58 -> 0.45, 0.41 -> 0.35 of cudaMemcpy); not for a src wider than the dst (each
    gathered load then moves more than the stores: an int64 -> uint8 permute went
    from 1.16 to 0.88)."""
    n_last = extents[-1]
    src_size, dst_size = ITEMSIZE[key.src_dtype], ITEMSIZE[key.dst_dtype]
    block = THREADS * ROWS_PER_THREAD * vector
    if src_size > dst_size or not dst_is_flat(extents, dst_strides):
        return False
    runs = src_ptr is not None and runs_are_vectors(key, extents, src_strides, src_ptr, vector)
    if broadcast_rule(key, src_strides, runs):
        return sector_use(extents, src_strides, src_size, block) >= MIN_SECTOR_USE
    longest = LONGEST_RUN if src_strides[-1] in (0, 1) else SMALL_EXTENT
    if n_last & (n_last - 1) == 0 or n_last > longest:
        return False
    if tile_use(key, extents) >= MAX_TILE_USE:
        return False
    return sector_use(extents, src_strides, src_size, block) >= MIN_SECTOR_USE


BROADCAST_MIN_BYTES = 2
"""Least dst element size of a broadcast that `broadcast_rule` gives to the gather
kernel whatever its rows."""


def broadcast_rule(key: CopyKey, src_strides, runs: bool = False) -> bool:
    """Whether a copy into a flat dst takes the gather kernel for being a broadcast
    (a src stride 0) of elements of at least `BROADCAST_MIN_BYTES`, however long its
    rows: the tiled kernel loads a broadcast row for every dst row it writes, the
    gather kernel stores 16-byte vectors of the flat dst with a few L1-resident loads
    (H100, strided set, `copy_tile_variants.py`: rows of 41440 int16 from one row
    0.69 -> 1.05 of cudaMemcpy, each int32 of a column repeated 6882 times 0.90 ->
    1.40, rows of 1123 bf16 0.65 -> 0.84; 1-byte broadcasts, one byte loaded per
    element, were not measured better)."""
    return 0 in src_strides and (runs or ITEMSIZE[key.dst_dtype] >= BROADCAST_MIN_BYTES)
