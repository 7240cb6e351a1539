"""Hand-written GPU-level modules (docs/gpu-level.md) shared by the emitter's unit tests
and the GPU launch tests. Each sample is a function returning MLIR text.

xDSL 0.74's `gpu` ops have no custom syntax, so they are written in generic form."""

from __future__ import annotations

ELEMENT_TYPES = ("f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64")
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8}


def kernel(name: str, args: str, arg_types: str, body: str, block=(256, 1, 1)) -> str:
    bx, by, bz = block
    return f"""
    "gpu.func"() <{{function_type = ({arg_types}) -> (), kernel}}> ({{
    ^bb0({args}):
{body}
      "gpu.return"() : () -> ()
    }}) {{sym_name = "{name}", gpu.known_block_size = array<i32: {bx}, {by}, {bz}>}} : () -> ()"""


def launch(kernel_sym: str, grid: tuple[str, str, str], block: tuple[str, str, str],
           args: list[str], types: list[str]) -> str:
    operands = ", ".join([*grid, *block, *args])
    all_types = ", ".join(["index"] * 6 + types)
    return (
        f'"gpu.launch_func"({operands}) <{{kernel = {kernel_sym}, operandSegmentSizes = '
        f"array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, {len(args)}, 0>}}> : ({all_types}) -> ()"
    )


def module(host: str, kernels: str, mod: str) -> str:
    return f"""builtin.module attributes {{gpu.container_module}} {{
{host}
  "gpu.module"() <{{sym_name = "{mod}"}}> ({{{kernels}
  }}) : () -> ()
}}
"""


def copy_1d(t: str = "f32", block: int = 256) -> str:
    """dst[i] = src[i] for i < n: one 16-byte vector per thread where the whole vector
    is in bounds, element by element (masked) in the tail."""
    vec = 16 // ELEMENT_BYTES[t]
    per_block = block * vec
    host = f"""
  func.func @copy(%src: memref<?x{t}>, %dst: memref<?x{t}>, %n: index) {{
    %c1 = arith.constant 1 : index
    %cb = arith.constant {block} : index
    %per_block = arith.constant {per_block} : index
    %gx = arith.ceildivui %n, %per_block : index
    {launch("@copy_kernels::@copy_kernel", ("%gx", "%c1", "%c1"), ("%cb", "%c1", "%c1"),
            ["%src", "%dst", "%n"], [f"memref<?x{t}>", f"memref<?x{t}>", "index"])}
    func.return
  }}"""
    body = f"""
      %bid = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %vec = arith.constant {vec} : index
      %per_block = arith.constant {per_block} : index
      %base = arith.muli %bid, %per_block : index
      %offset = arith.muli %tid, %vec : index
      %i = arith.addi %base, %offset : index
      %end = arith.addi %i, %vec : index
      %full = arith.cmpi sle, %end, %n : index
      scf.if %full {{
        %v = vector.load %src[%i] {{tilec.loc = "copy.py:7:3"}} : memref<?x{t}>, vector<{vec}x{t}>
        vector.store %v, %dst[%i] {{tilec.loc = "copy.py:7:3"}} : memref<?x{t}>, vector<{vec}x{t}>
      }} else {{
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        scf.for %k = %c0 to %vec step %c1 {{
          %j = arith.addi %i, %k : index
          %in = arith.cmpi slt, %j, %n : index
          scf.if %in {{
            %x = memref.load %src[%j] {{tilec.loc = "copy.py:8:3"}} : memref<?x{t}>
            memref.store %x, %dst[%j] {{tilec.loc = "copy.py:8:3"}} : memref<?x{t}>
          }}
        }}
      }}"""
    k = kernel("copy_kernel", f"%src: memref<?x{t}>, %dst: memref<?x{t}>, %n: index",
               f"memref<?x{t}>, memref<?x{t}>, index", body, (block, 1, 1))
    return module(host, k, "copy_kernels")


def transpose(rows: int = 70, cols: int = 100, t: str = "f32") -> str:
    """dst (cols x rows, row-major) = transpose of src (rows x cols, row-major), through
    a 32 x 33 shared tile (padded against bank conflicts); block (32, 8), each thread
    moves 4 elements; partial tiles masked. Static sizes: 32-bit indices."""
    size = rows * cols
    host = f"""
  func.func @transpose(%src: memref<{size}x{t}>, %dst: memref<{size}x{t}>) {{
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %gx = arith.constant {(cols + 31) // 32} : index
    %gy = arith.constant {(rows + 31) // 32} : index
    {launch("@transpose_kernels::@transpose_kernel", ("%gx", "%gy", "%c1"), ("%c32", "%c8", "%c1"),
            ["%src", "%dst"], [f"memref<{size}x{t}>", f"memref<{size}x{t}>"])}
    func.return
  }}"""
    body = f"""
      %tx = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %ty = "gpu.thread_id"() <{{dimension = #gpu<dim y>}}> : () -> index
      %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %by = "gpu.block_id"() <{{dimension = #gpu<dim y>}}> : () -> index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %c33 = arith.constant 33 : index
      %rows = arith.constant {rows} : index
      %cols = arith.constant {cols} : index
      %tile = memref.alloca() : memref<1056x{t}, 3>
      %col0 = arith.muli %bx, %c32 : index
      %row0 = arith.muli %by, %c32 : index
      %col = arith.addi %col0, %tx : index
      scf.for %k = %c0 to %c4 step %c1 {{
        %ky = arith.muli %k, %c8 : index
        %ly = arith.addi %ty, %ky : index
        %row = arith.addi %row0, %ly : index
        %rin = arith.cmpi slt, %row, %rows : index
        %cin = arith.cmpi slt, %col, %cols : index
        %in = arith.andi %rin, %cin : i1
        scf.if %in {{
          %rs = arith.muli %row, %cols : index
          %si = arith.addi %rs, %col : index
          %x = memref.load %src[%si] {{tilec.loc = "transpose.py:5:3"}} : memref<{size}x{t}>
          %ls = arith.muli %ly, %c33 : index
          %ti = arith.addi %ls, %tx : index
          memref.store %x, %tile[%ti] : memref<1056x{t}, 3>
        }}
      }}
      "gpu.barrier"() : () -> ()
      %orow0 = arith.muli %bx, %c32 : index
      %ocol0 = arith.muli %by, %c32 : index
      %ocol = arith.addi %ocol0, %tx : index
      scf.for %k = %c0 to %c4 step %c1 {{
        %ky = arith.muli %k, %c8 : index
        %ly = arith.addi %ty, %ky : index
        %orow = arith.addi %orow0, %ly : index
        %rin = arith.cmpi slt, %orow, %cols : index
        %cin = arith.cmpi slt, %ocol, %rows : index
        %in = arith.andi %rin, %cin : i1
        scf.if %in {{
          %ts = arith.muli %tx, %c33 : index
          %ti = arith.addi %ts, %ly : index
          %x = memref.load %tile[%ti] : memref<1056x{t}, 3>
          %ds = arith.muli %orow, %rows : index
          %di = arith.addi %ds, %ocol : index
          memref.store %x, %dst[%di] {{tilec.loc = "transpose.py:6:3"}} : memref<{size}x{t}>
        }}
      }}"""
    k = kernel("transpose_kernel", f"%src: memref<{size}x{t}>, %dst: memref<{size}x{t}>",
               f"memref<{size}x{t}>, memref<{size}x{t}>", body, (32, 8, 1))
    return module(host, k, "transpose_kernels")


def cp_async_reverse(blocks: int = 4, t: str = "f32", block: int = 128) -> str:
    """Each block stages block*V elements of src in shared memory with 16-byte
    cp.async copies, waits, and writes them to dst in reverse order within the block
    (so that each thread reads elements another thread copied: the barrier matters)."""
    vec = 16 // ELEMENT_BYTES[t]
    per_block = block * vec
    size = blocks * per_block
    mt = f"memref<{size}x{t}>"
    host = f"""
  func.func @stage(%src: {mt}, %dst: {mt}) {{
    %c1 = arith.constant 1 : index
    %cb = arith.constant {block} : index
    %gx = arith.constant {blocks} : index
    {launch("@stage_kernels::@stage_kernel", ("%gx", "%c1", "%c1"), ("%cb", "%c1", "%c1"),
            ["%src", "%dst"], [mt, mt])}
    func.return
  }}"""
    body = f"""
      %bid = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %vec = arith.constant {vec} : index
      %per_block = arith.constant {per_block} : index
      %last = arith.constant {per_block - 1} : index
      %stage = memref.alloca() : memref<{per_block}x{t}, 3>
      %base = arith.muli %bid, %per_block : index
      %local = arith.muli %tid, %vec : index
      %gi = arith.addi %base, %local : index
      cuda.cp_async %stage[%local], %src[%gi], 16 {{tilec.loc = "stage.py:4:3"}} : memref<{per_block}x{t}, 3>, {mt}
      cuda.cp_async_commit
      cuda.cp_async_wait 0
      "gpu.barrier"() : () -> ()
      scf.for %k = %c0 to %vec step %c1 {{
        %e = arith.addi %local, %k : index
        %r = arith.subi %last, %e : index
        %x = memref.load %stage[%r] : memref<{per_block}x{t}, 3>
        %o = arith.addi %base, %e : index
        memref.store %x, %dst[%o] {{tilec.loc = "stage.py:5:3"}} : {mt}
      }}"""
    k = kernel("stage_kernel", f"%src: {mt}, %dst: {mt}", f"{mt}, {mt}", body, (block, 1, 1))
    return module(host, k, "stage_kernels")


def warp_reverse(n_warps: int = 8, t: str = "f32") -> str:
    """dst[w*32 + l] = src[w*32 + 31 - l] through cuda.shfl_idx (one block of warps)."""
    size = n_warps * 32
    mt = f"memref<{size}x{t}>"
    host = f"""
  func.func @warp_reverse(%src: {mt}, %dst: {mt}) {{
    %c1 = arith.constant 1 : index
    %cb = arith.constant {size} : index
    {launch("@shfl_kernels::@warp_reverse_kernel", ("%c1", "%c1", "%c1"), ("%cb", "%c1", "%c1"),
            ["%src", "%dst"], [mt, mt])}
    func.return
  }}"""
    body = f"""
      %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %lane = "gpu.lane_id"() : () -> index
      %x = memref.load %src[%tid] : {mt}
      %c31 = arith.constant 31 : index
      %from = arith.subi %c31, %lane : index
      %from32 = arith.index_cast %from : index to i32
      %y = cuda.shfl_idx %x, %from32, 32 : {t}
      memref.store %y, %dst[%tid] : {mt}"""
    k = kernel("warp_reverse_kernel", f"%src: {mt}, %dst: {mt}", f"{mt}, {mt}", body, (size, 1, 1))
    return module(host, k, "shfl_kernels")


FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
INT_TYPES = ("i8", "i16", "i32", "i64")
INT_OF_WIDTH = {"f16": "i16", "bf16": "i16", "f32": "i32", "f64": "i64"}
CMPF = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge",
        "ult", "ule", "une", "uno", "true")
CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def arith_zoo(t: str) -> str:
    """Every arith op the contract allows on element type `t`, results stored to `out`
    (compile coverage: the CUDA text must type-check for each type)."""
    mt = "memref<64x" + t + ">"
    lines: list[str] = []
    add = lines.append
    add(f'%tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index')
    add(f"%a = memref.load %src[%tid] : {mt}")
    add("%c1 = arith.constant 1 : index")
    add("%tid1 = arith.addi %tid, %c1 : index")
    add(f"%b = memref.load %src[%tid1] : {mt}")
    results: list[str] = []
    if t in FLOAT_TYPES:
        zero = "0.0"
        add(f"%k = arith.constant 1.5 : {t}")
        add(f"%inf = arith.constant 0x7F800000 : f32" if False else f"%nz = arith.constant -0.0 : {t}")
        for name in ("addf", "subf", "mulf", "divf", "maximumf", "minimumf"):
            add(f"%{name} = arith.{name} %a, %b : {t}")
            results.append(f"%{name}")
        add(f"%negf = arith.negf %a : {t}")
        results.append("%negf")
        for p in CMPF:
            add(f"%cmp_{p} = arith.cmpf {p}, %a, %b : {t}")
            add(f"%sel_{p} = arith.select %cmp_{p}, %a, %k : {t}")
            results.append(f"%sel_{p}")
        for it in INT_TYPES:
            add(f"%fptosi_{it} = arith.fptosi %a : {t} to {it}")
            add(f"%fptoui_{it} = arith.fptoui %a : {t} to {it}")
            add(f"%sitofp_{it} = arith.sitofp %fptosi_{it} : {it} to {t}")
            add(f"%uitofp_{it} = arith.uitofp %fptoui_{it} : {it} to {t}")
            results += [f"%sitofp_{it}", f"%uitofp_{it}"]
        for other in FLOAT_TYPES:
            if other == t:
                continue
            width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
            if width[other] > width[t] or (width[other] == width[t]):
                conv = "extf" if width[other] > width[t] else None
            else:
                conv = "truncf"
            if conv is None:
                continue  # f16 <-> bf16 have no arith op (same width)
            back = "truncf" if conv == "extf" else "extf"
            add(f"%to_{other} = arith.{conv} %a : {t} to {other}")
            add(f"%from_{other} = arith.{back} %to_{other} : {other} to {t}")
            results.append(f"%from_{other}")
        it = INT_OF_WIDTH[t]
        add(f"%bits = arith.bitcast %a : {t} to {it}")
        add(f"%unbits = arith.bitcast %bits : {it} to {t}")
        results.append("%unbits")
        del zero
    else:
        for name in ("addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "floordivsi",
                     "ceildivsi", "ceildivui", "andi", "ori", "xori", "shli", "shrsi", "shrui",
                     "minsi", "minui", "maxsi", "maxui"):
            add(f"%{name} = arith.{name} %a, %b : {t}")
            results.append(f"%{name}")
        for p in CMPI:
            add(f"%cmp_{p} = arith.cmpi {p}, %a, %b : {t}")
            add(f"%sel_{p} = arith.select %cmp_{p}, %a, %b : {t}")
            results.append(f"%sel_{p}")
        add(f"%idx = arith.index_cast %a : {t} to index")
        add(f"%back = arith.index_cast %idx : index to {t}")
        results.append("%back")
        for other in INT_TYPES:
            w, ow = int(t[1:]), int(other[1:])
            if ow > w:
                add(f"%sx_{other} = arith.extsi %a : {t} to {other}")
                add(f"%zx_{other} = arith.extui %a : {t} to {other}")
                add(f"%tsx_{other} = arith.trunci %sx_{other} : {other} to {t}")
                add(f"%tzx_{other} = arith.trunci %zx_{other} : {other} to {t}")
                results += [f"%tsx_{other}", f"%tzx_{other}"]
        add(f"%c7 = arith.constant -7 : {t}")
        add(f"%m = arith.muli %a, %c7 : {t}")
        results.append("%m")
        add("%flag = arith.cmpi slt, %a, %b : " + t)
        add(f"%wide = arith.extui %flag : i1 to {t}")
        add(f"%swide = arith.extsi %flag : i1 to {t}")
        results += ["%wide", "%swide"]
    for k, r in enumerate(results):
        add(f"%o{k} = arith.constant {k} : index")
        add(f"%at{k} = arith.addi %tid, %o{k} : index")
        add(f"memref.store {r}, %out[%at{k}] : {mt}")
    body = "\n".join("      " + line for line in lines)
    host = f"""
  func.func @zoo(%src: {mt}, %out: {mt}) {{
    %c1 = arith.constant 1 : index
    {launch("@zoo_kernels::@zoo_kernel", ("%c1", "%c1", "%c1"), ("%c1", "%c1", "%c1"),
            ["%src", "%out"], [mt, mt])}
    func.return
  }}"""
    k = kernel("zoo_kernel", f"%src: {mt}, %out: {mt}", f"{mt}, {mt}", body, (1, 1, 1))
    return module(host, k, "zoo_kernels")


def vector_ops(t: str = "f32") -> str:
    """vector.load / extract / insert / broadcast, a vector constant, a register array,
    an scf.for with iter_args that swap, and an scf.if with results:
    out[4i + j] = (sum over the 4 src elements of thread i) for j in 0..3, except that
    element 1 is the first element and element 2 is the larger of the last two."""
    vec = 4
    mt = f"memref<?x{t}>"
    vt = f"vector<{vec}x{t}>"
    is_float = t in FLOAT_TYPES
    zero = "0.0" if is_float else "0"
    add_op = "arith.addf" if is_float else "arith.addi"
    gt = "arith.cmpf ogt" if is_float else "arith.cmpi sgt"
    host = f"""
  func.func @vector_ops(%src: {mt}, %out: {mt}, %n: index) {{
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %threads = arith.ceildivui %n, %c1 : index
    %gx = arith.ceildivui %n, %c64 : index
    {launch("@vector_kernels::@vector_kernel", ("%gx", "%c1", "%c1"), ("%c64", "%c1", "%c1"),
            ["%src", "%out", "%n"], [mt, mt, "index"])}
    func.return
  }}"""
    body = f"""
      %bid = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %bdim = "gpu.block_dim"() <{{dimension = #gpu<dim x>}}> : () -> index
      %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %bbase = arith.muli %bid, %bdim : index
      %thread = arith.addi %bbase, %tid : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %in = arith.cmpi slt, %thread, %n : index
      scf.if %in {{
        %i = arith.muli %thread, %c4 : index
        %v = vector.load %src[%i] : {mt}, {vt}
        %regs = memref.alloca() : memref<4x{t}>
        vector.store %v, %regs[%c0] : memref<4x{t}>, {vt}
        %zero = arith.constant {zero} : {t}
        %zeros = arith.constant dense<{zero}> : {vt}
        %sum, %other = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero, %swap = %zero) -> ({t}, {t}) {{
          %x = memref.load %regs[%k] : memref<4x{t}>
          %next = {add_op} %acc, %x : {t}
          scf.yield %swap, %next : {t}, {t}
        }}
        %total = {add_op} %sum, %other : {t}
        %b = vector.broadcast %total : {t} to {vt}
        %first = vector.extract %v[0] : {t} from {vt}
        %w = vector.insert %first, %b[1] : {t} into {vt}
        %x2 = vector.extract %v[2] : {t} from {vt}
        %x3 = vector.extract %v[%c1] : {t} from {vt}
        %x3b = vector.extract %v[3] : {t} from {vt}
        %bigger = {gt}, %x2, %x3b : {t}
        %larger = scf.if %bigger -> ({t}) {{
          scf.yield %x2 : {t}
        }} else {{
          scf.yield %x3b : {t}
        }}
        %w2 = vector.insert %larger, %w[2] : {t} into {vt}
        %w3 = arith.select %bigger, %w2, %w2 : {vt}
        %w4 = arith.select %in, %w3, %zeros : {vt}
        vector.store %w4, %out[%i] : {mt}, {vt}
      }}"""
    k = kernel("vector_kernel", f"%src: {mt}, %out: {mt}, %n: index", f"{mt}, {mt}, index",
               body, (64, 1, 1))
    return module(host, k, "vector_kernels")
