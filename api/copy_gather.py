"""The flat-destination gather kernel of `tilec.copy_`, as a pointer-tensor program.

    text = gather_program(key)     # key.gather != 0: same signature as copy_program

Where both views' contiguous runs are short or odd (a 17 x 19 transpose inside each
323-element block, rows of 259 bytes broadcast from one row), every tile of the tiled
kernel (copy_tile.py) is an edge tile and most of its lanes idle. This kernel walks the
destination instead, as PyTorch's and Triton's generic copies do, in Gluon's terms:
each thread owns `V` consecutive elements of a dst that is contiguous over all merged
modes (16 bytes: one vector store), and gathers their sources.

Source offsets are computed incrementally, not by `rank` divisions per element: the
thread decomposes its first element's flat index over the extents once (`c_k`, the
src offset `so`), then element j of its run is at `so + j * ss_last`, plus `W` where
`c_last + j` wrapped past `n_last`. `W` is the offset change of a wrap of the last mode,
the carry rippling through the modes whose coordinate is at its last value:

    E_0 = ss_0;  E_k = ss_k if c_k + 1 < n_k else E_(k-1) - (n_k - 1) * ss_k
    W   = E_(r-2) - n_last * ss_last

At most one wrap fits a run when `n_last >= V`, which the key guarantees: `V` is the
16-byte vector, narrowed to half the last mode's extent class where that is small.
Elements past the end are masked (their offsets are never dereferenced).

Offsets are `i32` when the key says they fit (`CopyKey.gather == 32`: every flat index
and src offset below 2**31), `i64` otherwise. A converting copy converts in registers
between the gather and the store, by the steps `distribute` uses for a converting
`layout.copy` (`conversions.conversion_steps`: PyTorch's `copy_`).
"""

from __future__ import annotations

from tilec.dialects.conversions import STORAGE, conversion_steps

from .copy_plan import ITEMSIZE, VECTOR_BYTES, CopyKey

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
    from .copy_program import needs_conversion

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


def gather_program(key: CopyKey) -> str:
    """IR text of the gather kernel for `key` (module doc); the function and its
    arguments are `copy_program`'s (the dst strides are taken and unused: the key
    promises a contiguous dst)."""
    from .copy_program import FUNCTION, index_arg_names

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
    lines: list[str] = []
    emit = lines.append

    def scalar(name: str, value: str) -> str:
        emit(f"%{name} = arith.index_cast {value} : index to {it}")
        return f"%{name}"

    def const(name: str, value: int) -> str:
        emit(f"%{name} = arith.constant {value} : {it}")
        return f"%{name}"

    def splat_r(name: str, value: str) -> str:
        emit(f"%{name} = layout.splat {value} : {it} -> {R}")
        return f"%{name}"

    def to_full(name: str, value: str, src_type: str, axis: int) -> str:
        mid = f"tensor<{'1x' + str(v) if axis == 0 else str(rows) + 'x1'}x{it}, #l>"
        emit(f"%{name}_e = layout.expand_dims {value} {{axis = {axis} : i64}} : {src_type} -> {mid}")
        emit(f"%{name} = layout.broadcast %{name}_e : {mid} -> {T}")
        return f"%{name}"

    def arange(name: str, n: int, typ: str, lay_name: str) -> str:
        if it == "i32":
            emit(f"%{name} = layout.arange {{start = 0 : i64, end = {n} : i64}} : {typ}")
        else:
            emit(f"%{name}_32 = layout.arange {{start = 0 : i64, end = {n} : i64}} : tensor<{n}xi32, {lay_name}>")
            emit(f"%{name} = layout.extsi %{name}_32 : tensor<{n}xi32, {lay_name}> to {typ}")
        return f"%{name}"

    n = [scalar(f"n{k}_i", f"%n{k}") for k in range(rank)]
    ss: list[str | None] = []
    for k, s in enumerate(key.src_strides):
        if s == 0:
            ss.append(None)
        elif s == 1:
            ss.append(const(f"one{k}", 1))
        else:
            ss.append(scalar(f"ss{k}_i", f"%ss{k}"))
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
    coords: list[str] = [""] * rank
    rest = "%base"
    for k in range(rank - 1, 0, -1):
        nk = splat_r(f"n{k}_r", n[k])
        emit(f"%co{k} = arith.remsi {rest}, {nk} : {R}")
        emit(f"%q{k} = arith.divsi {rest}, {nk} : {R}")
        coords[k], rest = f"%co{k}", f"%q{k}"
    coords[0] = rest
    zero_r = splat_r("zero_r", const("zero", 0))
    so = zero_r
    for k in range(rank):
        if ss[k] is None:
            continue
        if key.src_strides[k] == 1:
            term = coords[k]
        else:
            emit(f"%t{k} = arith.muli {coords[k]}, {splat_r(f'ss{k}_r', ss[k])} : {R}")
            term = f"%t{k}"
        emit(f"%so{k} = arith.addi {so}, {term} : {R}")
        so = f"%so{k}"
    # E_k: the src offset change of stepping mode k by one, carries included
    e = splat_r("e0", ss[0]) if ss[0] is not None else zero_r
    one_r = splat_r("one_r", const("one", 1))
    for k in range(1, rank - 1):
        emit(f"%cp{k} = arith.addi {coords[k]}, {one_r} : {R}")
        emit(f"%inside{k} = layout.cmpi slt, %cp{k}, {splat_r(f'n{k}_e', n[k])} : {R}")
        if ss[k] is None:
            step, back = zero_r, zero_r
        else:
            step = splat_r(f"ssk{k}", ss[k])
            emit(f"%nm{k} = arith.subi {n[k]}, %one : {it}")
            emit(f"%back_s{k} = arith.muli %nm{k}, {ss[k]} : {it}")
            back = splat_r(f"back{k}", f"%back_s{k}")
        emit(f"%carry{k} = arith.subi {e}, {back} : {R}")
        emit(f"%e{k} = layout.select %inside{k}, {step}, %carry{k} : tensor<{rows}xi1, #r>, {R}")
        e = f"%e{k}"
    last = rank - 1
    if ss[last] is None:
        wrap_back = zero_r
    else:
        emit(f"%wb_s = arith.muli {n[last]}, {ss[last]} : {it}")
        wrap_back = splat_r("wb", "%wb_s")
    emit(f"%w = arith.subi {e}, {wrap_back} : {R}")
    # per element: j along the run
    jj = to_full("jj", arange("j", v, J, "#j"), J, 0)
    cl = to_full("cl", coords[last], R, 1)
    emit(f"%clj = arith.addi {cl}, {jj} : {T}")
    emit(f"%n_last = layout.splat {n[last]} : {it} -> {T}")
    emit(f"%wrapped = layout.cmpi sge, %clj, %n_last : {T}")
    emit(f"%zero_t = layout.splat %zero : {it} -> {T}")
    w_full = to_full("wf", "%w", R, 1)
    emit(f"%wsel = layout.select %wrapped, {w_full}, %zero_t : {M}, {T}")
    so_full = to_full("sof", so, R, 1)
    if ss[last] is None:
        emit(f"%soj = arith.addi {so_full}, %wsel : {T}")
    else:
        if key.src_strides[last] == 1:
            step_j = jj
        else:
            emit(f"%ssl = layout.splat {ss[last]} : {it} -> {T}")
            emit(f"%jss = arith.muli {jj}, %ssl : {T}")
            step_j = "%jss"
        emit(f"%soj0 = arith.addi {so_full}, {step_j} : {T}")
        emit(f"%soj = arith.addi %soj0, %wsel : {T}")
    base_full = to_full("bf", "%base", R, 1)
    emit(f"%flat = arith.addi {base_full}, {jj} : {T}")
    emit(f"%total_t = layout.splat {total} : {it} -> {T}")
    emit(f"%mask = layout.cmpi slt, %flat, %total_t : {T}")
    emit(f"%sp = layout.splat %src : {sptr} -> {P}")
    emit(f"%sptrs = layout.addptr %sp, %soj : {P}, {T}")
    emit(f"%val = layout.ptr_load %sptrs mask %mask : {M} : {P} -> {F}")
    out = _convert(emit, "%val", key, f"{rows}x{v}")
    DP = f"tensor<{rows}x{v}x!layout.ptr<{dt}>, #l>"
    emit(f"%dp = layout.splat %dst : {dptr} -> {DP}")
    emit(f"%dptrs = layout.addptr %dp, %flat : {DP}, {T}")
    emit(f"layout.ptr_store {out}, %dptrs mask %mask : {M} : {G}, {DP}")
    body = "\n    ".join(lines)
    host = [f"%hn0 = arith.muli %n0, %c1 : index"]
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


POLICY = "auto"
"""`choose_gather`'s policy: "auto" (the measured rule), "always" (every eligible
copy: benchmarks/copy_tile_variants.py) or "never"."""

INDEX32_LIMIT = 2**31


def gather_eligible(src_dtype: str, dst_dtype: str, extents, src_strides, dst_strides) -> bool:
    """Whether the gather kernel can do the merged copy: rank 2 or more and a dst
    contiguous over all its modes."""
    if len(extents) < 2:
        return False
    reach = 1
    for n, d in zip(reversed(extents), reversed(dst_strides)):
        if d != reach:
            return False
        reach *= n
    return True


def gather_index_bits(extents, src_strides, block: int) -> int:
    """32 when every flat index (and a block past the end) and every src offset, with
    a last-mode step to spare, fit a signed 32-bit integer; else 64."""
    total = 1
    for n in extents:
        total *= n
    reach = sum(n * abs(s) for n, s in zip(extents, src_strides)) + max(abs(s) for s in src_strides)
    return 32 if total + block < INDEX32_LIMIT and reach < INDEX32_LIMIT else 64


def prefer_gather(extents, src_strides, itemsize: int) -> bool:
    """The measured rule (H100, strided set; docs/pytorch-cupy.md): the gather kernel
    where the tiled kernel's tiles are mostly edges."""
    n_last = extents[-1]
    return n_last & (n_last - 1) != 0 and n_last <= 512
