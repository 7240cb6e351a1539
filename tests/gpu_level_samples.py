"""Hand-written GPU-level modules (docs/gpu-level.md) shared by the emitter's unit tests
and the GPU launch tests, built with `GpuProgram` (compiler/builder_gpu_level.py). Each
sample is a function returning a fresh, verified `ModuleOp`; values carry the names the
CUDA text reads, and some ops a `tilec.loc` (`source_location`) as lowered ops have."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, VectorType

from tilec.compiler.builder_gpu_level import GpuProgram
from tilec.compiler.builder_types import element_type
from tilec.compiler.kernel_builder import Value

ELEMENT_TYPES = ("f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64")
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8}
_ARITH = {op.name.removeprefix("arith."): op for op in arith.Arith.operations}


def _op(g: GpuProgram, name: str, *operands: Value, to: str | None = None) -> Value:
    """`arith.<name>` of `operands` (a cast's result type `to`)."""
    cls = _ARITH[name]
    ssa = [v.ssa for v in operands]
    op = cls(*ssa, element_type(to) if to != "index" else arith.IndexType()) if to else cls(*ssa)
    return g.insert(op).results[0]


def copy_1d(t: str = "f32", block: int = 256, launch_block: int | None = None) -> ModuleOp:
    """dst[i] = src[i] for i < n: one 16-byte vector per thread where the whole vector
    is in bounds, element by element (masked) in the tail. (`launch_block`: the host
    launches blocks of that size instead, a mismatch the launcher refuses.)"""
    vec = 16 // ELEMENT_BYTES[t]
    per_block = block * vec
    g = GpuProgram("copy")
    g.buffer("src", t)
    g.buffer("dst", t)
    n = g.index("n")
    gx = g.ceildivui(n, per_block).named("gx")
    with g.kernel(grid=gx, block=launch_block or block, name="copy_kernel", module="copy_kernels",
                  known_block_size=(block, 1, 1)) as (src, dst, n):
        bid = g.block_id("x").named("bid")
        tid = g.thread_id("x").named("tid")
        base = (bid * per_block).named("base")
        offset = (tid * vec).named("offset")
        i = (base + offset).named("i")
        end = (i + vec).named("end")
        full, tail = g.if_else((end <= n).named("full"))
        with full:
            with g.source_location("copy.py:7:3"):
                dst.store(vec, i, src.load(vec, i).named("v"))
        with tail:
            with g.range(0, vec) as k:
                j = (i + k.named("k")).named("j")
                with g.if_((j < n).named("in")):
                    with g.source_location("copy.py:8:3"):
                        dst[j] = src[j].named("x")
    return g.module


def transpose(rows: int = 70, cols: int = 100, t: str = "f32") -> ModuleOp:
    """dst (cols x rows, row-major) = transpose of src (rows x cols, row-major), through
    a 32 x 33 shared tile (padded against bank conflicts); block (32, 8), each thread
    moves 4 elements; partial tiles masked. Static sizes: 32-bit indices."""
    size = rows * cols
    g = GpuProgram("transpose")
    g.buffer("src", t, size)
    g.buffer("dst", t, size)
    with g.kernel(grid=((cols + 31) // 32, (rows + 31) // 32), block=(32, 8), name="transpose_kernel",
                  module="transpose_kernels") as (src, dst):
        tx, ty = g.thread_id("x").named("tx"), g.thread_id("y").named("ty")
        bx, by = g.block_id("x").named("bx"), g.block_id("y").named("by")
        tile = g.alloca(1056, t).named("tile")
        col0, row0 = (bx * 32).named("col0"), (by * 32).named("row0")
        col = (col0 + tx).named("col")
        with g.range(0, 4) as k:
            ly = (ty + (k.named("k") * 8).named("ky")).named("ly")
            row = (row0 + ly).named("row")
            inside = ((row < rows).named("rin") & (col < cols).named("cin")).named("in")
            with g.if_(inside):
                si = ((row * cols).named("rs") + col).named("si")
                with g.source_location("transpose.py:5:3"):
                    x = src[si].named("x")
                tile[((ly * 33).named("ls") + tx).named("ti")] = x
        g.barrier()
        orow0, ocol0 = (bx * 32).named("orow0"), (by * 32).named("ocol0")
        ocol = (ocol0 + tx).named("ocol")
        with g.range(0, 4) as k:
            ly = (ty + (k.named("k") * 8).named("ky")).named("ly")
            orow = (orow0 + ly).named("orow")
            inside = ((orow < cols).named("rin") & (ocol < rows).named("cin")).named("in")
            with g.if_(inside):
                x = tile[((tx * 33).named("ts") + ly).named("ti")].named("x")
                di = ((orow * rows).named("ds") + ocol).named("di")
                with g.source_location("transpose.py:6:3"):
                    dst[di] = x
    return g.module


def cp_async_reverse(blocks: int = 4, t: str = "f32", block: int = 128, copy_bytes: int = 16) -> ModuleOp:
    """Each block stages block*V elements of src in shared memory with cp.async copies
    of `copy_bytes` (16: all of them), waits, and writes them to dst in reverse order
    within the block (so that each thread reads elements another thread copied: the
    barrier matters)."""
    vec = 16 // ELEMENT_BYTES[t]
    per_block = block * vec
    g = GpuProgram("stage")
    g.buffer("src", t, blocks * per_block)
    g.buffer("dst", t, blocks * per_block)
    with g.kernel(grid=blocks, block=block, name="stage_kernel", module="stage_kernels") as (src, dst):
        bid = g.block_id("x").named("bid")
        tid = g.thread_id("x").named("tid")
        stage = g.alloca(per_block, t).named("stage")
        base = (bid * per_block).named("base")
        local = (tid * vec).named("local")
        gi = (base + local).named("gi")
        with g.source_location("stage.py:4:3"):
            g.cp_async(stage, local, src, gi, copy_bytes)
        g.cp_async_commit()
        g.cp_async_wait(0)
        g.barrier()
        with g.range(0, vec) as k:
            e = (local + k.named("k")).named("e")
            x = stage[(per_block - 1 - e).named("r")].named("x")
            o = (base + e).named("o")
            with g.source_location("stage.py:5:3"):
                dst[o] = x
    return g.module


def warp_reverse(n_warps: int = 8, t: str = "f32") -> ModuleOp:
    """dst[w*32 + l] = src[w*32 + 31 - l] through cuda.shfl_idx (one block of warps)."""
    size = n_warps * 32
    g = GpuProgram("warp_reverse")
    g.buffer("src", t, size)
    g.buffer("dst", t, size)
    with g.kernel(grid=1, block=size, name="warp_reverse_kernel", module="shfl_kernels") as (src, dst):
        tid = g.thread_id("x").named("tid")
        lane = g.lane_id().named("lane")
        x = src[tid].named("x")
        lane_from = (31 - lane).named("from").cast("i32").named("from32")
        dst[tid] = g.shfl_idx(x, lane_from).named("y")
    return g.module


FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
INT_TYPES = ("i8", "i16", "i32", "i64")
INT_OF_WIDTH = {"f16": "i16", "bf16": "i16", "f32": "i32", "f64": "i64"}
CMPF = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge",
        "ult", "ule", "une", "uno", "true")
CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


def arith_zoo(t: str) -> ModuleOp:
    """Every arith op the contract allows on element type `t`, results stored to `out`
    (compile coverage: the CUDA text must type-check for each type)."""
    g = GpuProgram("zoo")
    g.buffer("src", t, 64)
    g.buffer("out", t, 64)
    with g.kernel(grid=1, block=1, name="zoo_kernel", module="zoo_kernels") as (src, out):
        tid = g.thread_id("x").named("tid")
        a = src[tid].named("a")
        b = src[(tid + 1).named("tid1")].named("b")
        results: list[Value] = []

        def op(name: str, result: str, *operands: Value, to: str | None = None) -> Value:
            return _op(g, name, *operands, to=to).named(result)

        if t in FLOAT_TYPES:
            k = g.constant(1.5, t).named("k")
            g.constant(-0.0, t).named("nz")
            for name in ("addf", "subf", "mulf", "divf", "maximumf", "minimumf"):
                results.append(op(name, name, a, b))
            results.append(op("negf", "negf", a))
            for p in CMPF:
                cmp = g.insert(arith.CmpfOp(a.ssa, b.ssa, p)).results[0].named(f"cmp_{p}")
                results.append(op("select", f"sel_{p}", cmp, a, k))
            for it in INT_TYPES:
                si = op("fptosi", f"fptosi_{it}", a, to=it)
                ui = op("fptoui", f"fptoui_{it}", a, to=it)
                results += [op("sitofp", f"sitofp_{it}", si, to=t), op("uitofp", f"uitofp_{it}", ui, to=t)]
            for other in FLOAT_TYPES:
                if other == t or _WIDTH[other] == _WIDTH[t]:
                    continue  # f16 <-> bf16 have no arith op (same width)
                conv, back = ("extf", "truncf") if _WIDTH[other] > _WIDTH[t] else ("truncf", "extf")
                there = op(conv, f"to_{other}", a, to=other)
                results.append(op(back, f"from_{other}", there, to=t))
            bits = op("bitcast", "bits", a, to=INT_OF_WIDTH[t])
            results.append(op("bitcast", "unbits", bits, to=t))
        else:
            for name in ("addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "floordivsi",
                         "ceildivsi", "ceildivui", "andi", "ori", "xori", "shli", "shrsi", "shrui",
                         "minsi", "minui", "maxsi", "maxui"):
                results.append(op(name, name, a, b))
            for p in CMPI:
                cmp = g.insert(arith.CmpiOp(a.ssa, b.ssa, p)).results[0].named(f"cmp_{p}")
                results.append(op("select", f"sel_{p}", cmp, a, b))
            idx = op("index_cast", "idx", a, to="index")
            results.append(op("index_cast", "back", idx, to=t))
            for other in INT_TYPES:
                if int(other[1:]) > int(t[1:]):
                    sx = op("extsi", f"sx_{other}", a, to=other)
                    zx = op("extui", f"zx_{other}", a, to=other)
                    results += [op("trunci", f"tsx_{other}", sx, to=t), op("trunci", f"tzx_{other}", zx, to=t)]
            results.append(op("muli", "m", a, g.constant(-7, t).named("c7")))
            flag = g.insert(arith.CmpiOp(a.ssa, b.ssa, "slt")).results[0].named("flag")
            results += [op("extui", "wide", flag, to=t), op("extsi", "swide", flag, to=t)]
        for i, r in enumerate(results):
            out[(tid + g.constant(i).named(f"o{i}")).named(f"at{i}")] = r
    return g.module


def vector_ops(t: str = "f32") -> ModuleOp:
    """vector.load / extract / insert / broadcast, a vector constant, a register array,
    an scf.for with iter_args that swap, and an scf.if with results:
    out[4i + j] = (sum over the 4 src elements of thread i) for j in 0..3, except that
    element 1 is the first element and element 2 is the larger of the last two."""
    vt = VectorType(element_type(t), [4])
    g = GpuProgram("vector_ops")
    g.buffer("src", t)
    g.buffer("out", t)
    n = g.index("n")
    g.ceildivui(n, 1).named("threads")
    gx = g.ceildivui(n, 64).named("gx")
    with g.kernel(grid=gx, block=64, name="vector_kernel", module="vector_kernels") as (src, out, n):
        bid, bdim = g.block_id("x").named("bid"), g.block_dim("x").named("bdim")
        tid = g.thread_id("x").named("tid")
        thread = ((bid * bdim).named("bbase") + tid).named("thread")
        inside = (thread < n).named("in")
        with g.if_(inside):
            i = (thread * 4).named("i")
            v = src.load(4, i).named("v")
            regs = g.alloca(4, t, None).named("regs")
            regs.store(4, 0, v)
            zero = g.constant(0, t).named("zero")
            zeros = g.insert(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(vt, [0]))).results[0].named("zeros")
            acc, swap = zero, Value(g, zero.ssa)
            with g.range(0, 4, carry=[acc, swap]) as k:
                acc.named("acc"), swap.named("swap"), k.named("k")
                nxt = (acc + regs[k].named("x")).named("next")
                acc.assign(swap)
                swap.assign(nxt)
            total = (acc.named("sum") + swap.named("other")).named("total")
            b = g.splat(total, 4).named("b")

            w = g.vector_insert(g.vector_extract(v, 0).named("first"), b, 1).named("w")
            x2 = g.vector_extract(v, 2).named("x2")
            g.vector_extract(v, g.constant(1)).named("x3")
            x3b = g.vector_extract(v, 3).named("x3b")
            bigger = (x2 > x3b).named("bigger")
            larger = Value(g, x2.ssa)
            _, otherwise = g.if_else(bigger, carry=[larger])
            with otherwise:
                larger.assign(x3b)
            w2 = g.vector_insert(larger.named("larger"), w, 2).named("w2")
            w3 = _op(g, "select", bigger, w2, w2).named("w3")
            out.store(4, i, _op(g, "select", inside, w3, zeros).named("w4"))
    return g.module
