"""Random programs for `remove-layout-conversions`: what the unit tests check the pass on
and what `benchmarks/conversion_removal.py` measures it with.

`programs()` draws straight-line programs on 32x32 f32 tiles (a load, conversions,
elementwise math with constants and splats, two stores; modules built with
`tilec.Program`, the others IR text: they need `scf.while`, which the builder lacks); `region_programs()` draws the
shapes Triton's RemoveLayoutConversions is tested on: an accumulator loop (scf.for or
scf.while) over loads in one layout, a uniform scf.if whose branches load or make a
value, a small load, an f16 value widened by extf, each with conversions between layouts
drawn from `POOL`; `loop_branch_programs()` draws issue 41's shapes (ifs in loops, nested
loops, scf.while, dead loop-carried values, one-branch conversions) with the weighted
bytes a program must keep."""

from __future__ import annotations

from functools import lru_cache

from hypothesis import strategies as st

POOL = [
    "#layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "#layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>",
    "#layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "#layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>",
    "#layout.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>",
    "#layout.linear<{register = [[0, 2], [0, 1], [16, 0], [0, 16], [0, 8], [0, 4]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [8, 8]], warp = [[0, 0], [0, 0]], block = []}>",
]


@st.composite
def programs(draw):
    """A straight-line program on 32x32 f32 values (a module built with
    `tilec.Program`): a load, conversions, elementwise math with constants and splats,
    stores of the last value and of one intermediate."""
    import tilec

    p = tilec.Program("random")
    a, b, c = (p.view(p.pointer(name, "f32", align=None), "(32,32):(32,1)") for name in ("p", "q", "s"))
    f = p.constant(0.75, "f32")
    with p.launch(threads=128):
        vals = []  # (value, layout index)

        def convert(v, k):
            value, k0 = v
            if k0 == k and draw(st.booleans()):
                return v
            return (p.convert_layout(value, POOL[k]), k)

        k0 = draw(st.integers(0, len(POOL) - 1))
        vals.append((p.load(a, POOL[k0]), k0))
        for _ in range(draw(st.integers(1, 8))):
            what = draw(st.sampled_from(["convert", "neg", "binary", "constant", "splat"]))
            v = draw(st.sampled_from(vals))
            k = draw(st.integers(0, len(POOL) - 1))
            if what == "convert":
                vals.append(convert(v, k))
            elif what == "neg":
                vals.append((-v[0], v[1]))
            else:
                if what == "binary":
                    w = convert(draw(st.sampled_from(vals)), v[1])
                elif what == "constant":
                    w = convert((p.full([32, 32], 1.5, "f32", POOL[k], dense=True), k), v[1])
                else:
                    w = convert((p.splat(f, [32, 32], POOL[k]), k), v[1])
                op = draw(st.sampled_from(["addf", "mulf", "subf"]))
                r = v[0] + w[0] if op == "addf" else v[0] * w[0] if op == "mulf" else v[0] - w[0]
                vals.append((r, v[1]))
        last = convert(vals[-1], draw(st.integers(0, len(POOL) - 1)))
        p.store(last[0], b)
        mid = draw(st.sampled_from(vals))
        p.store(mid[0], c)
    return p.module


_LAYOUTS_2D = POOL[:5]
_HEADER = """
!G = !layout.tensor<{et}, #layout.cute<(32,32):(32,1)>, gmem>
!H = !layout.tensor<{et}, #layout.cute<(128,32):(32,1)>, gmem>
!G16 = !layout.tensor<f16, #layout.cute<(32,32):(32,1)>, gmem>
!S = !layout.tensor<{et}, #layout.cute<(32):(1)>, gmem>
"""


@st.composite
def region_programs(draw):
    """One to three of the region patterns, each on its own buffers, in one launch."""
    T = lambda k: f"tensor<32x32xf32, {_LAYOUTS_2D[k]}>"  # noqa: E731
    S = lambda k: f"tensor<32xf32, #layout.slice<{{dim = 1, parent = {_LAYOUTS_2D[k]}}}>>"  # noqa: E731
    layouts = st.integers(0, len(_LAYOUTS_2D) - 1)
    lines: list[str] = []
    args: list[str] = []
    views: list[str] = []
    n = [0]

    def fresh(prefix="v"):
        n[0] += 1
        return f"%{prefix}{n[0]}"

    def buffer(ty="!G", elem="f32"):
        p = fresh("p")
        args.append(f"{p}: !layout.ptr<{elem}>")
        v = fresh("view")
        views.append(f"{v} = layout.view {p} : !layout.ptr<{elem}> -> {ty}")
        return v

    def convert(v, k0, k, ty=T):
        if k0 == k:
            return v
        r = fresh()
        lines.append(f"{r} = layout.convert_layout {v} : {ty(k0)} -> {ty(k)}")
        return r

    for _ in range(draw(st.integers(1, 3))):
        what = draw(st.sampled_from(["for", "while", "if", "small", "extf"]))
        k1, k2, k3 = draw(layouts), draw(layouts), draw(layouts)
        if what in ("for", "while"):
            src, dst = buffer("!H"), buffer()
            z = fresh()
            lines.append(f"{z} = arith.constant dense<0.0> : {T(k1)}")
            acc, i, res = fresh("acc"), fresh("i"), fresh("r")
            body = []
            saved, lines[:] = lines[:], []
            t = fresh("t")
            lines.append(f"{t} = layout.tile {src}[{i}, %c0] {{tile = array<i64: 32, 32>}} : !H -> !G")
            x = fresh()
            lines.append(f"{x} = layout.load {t} : !G -> {T(k2)}")
            xc = convert(x, k2, k1)
            s = fresh()
            lines.append(f"{s} = arith.addf {acc}, {xc} : {T(k1)}")
            body, lines[:] = lines[:], saved
            if what == "for":
                lines.append(f"{res} = scf.for {i} = %c0 to %c4 step %c1 iter_args({acc} = {z}) -> ({T(k1)}) {{")
                lines.extend("  " + b for b in body)
                lines.append(f"  scf.yield {s} : {T(k1)}")
                lines.append("}")
            else:
                a0, j, go, i1 = fresh("a"), fresh("j"), fresh("go"), fresh("i")
                lines.append(f"{res}, {fresh('n')} = scf.while ({a0} = {z}, {j} = %c0) : ({T(k1)}, index) -> ({T(k1)}, index) {{")
                lines.append(f"  {go} = arith.cmpi ult, {j}, %c4 : index")
                lines.append(f"  scf.condition({go}) {a0}, {j} : {T(k1)}, index")
                lines.append("} do {")
                lines.append(f"^bb{n[0]}({acc}: {T(k1)}, {i}: index):")
                lines.extend("  " + b for b in body)
                lines.append(f"  {i1} = arith.addi {i}, %c1 : index")
                lines.append(f"  scf.yield {s}, {i1} : {T(k1)}, index")
                lines.append("}")
            w = convert(res, k1, k3)
            lines.append(f"layout.store {w}, {dst} : {T(k3)}, !G")
        elif what == "if":
            src, dst = buffer(), buffer()
            res = fresh("r")
            lines.append(f"{res} = scf.if %first -> ({T(k2)}) {{")
            x = fresh()
            lines.append(f"  {x} = layout.load {src} : !G -> {T(k1)}")
            saved, lines[:] = lines[:], []
            xc = convert(x, k1, k2)
            conv, lines[:] = lines[:], saved
            lines.extend("  " + c for c in conv)
            lines.append(f"  scf.yield {xc} : {T(k2)}")
            lines.append("} else {")
            c = fresh()
            make = draw(st.sampled_from(["constant", "splat"]))
            if make == "constant":
                lines.append(f"  {c} = arith.constant dense<1.5> : {T(k2)}")
            else:
                lines.append(f"  {c} = layout.splat %f : f32 -> {T(k2)}")
            lines.append(f"  scf.yield {c} : {T(k2)}")
            lines.append("}")
            w = convert(res, k2, k3)
            lines.append(f"layout.store {w}, {dst} : {T(k3)}, !G")
        elif what == "small":
            src, dst = buffer("!S"), buffer("!S")
            x = fresh()
            lines.append(f"{x} = layout.load {src} : !S -> {S(k1)}")
            w = convert(x, k1, k2, S)
            lines.append(f"layout.store {w}, {dst} : {S(k2)}, !S")
        else:
            src, dst = buffer("!G16", "f16"), buffer()
            x, e = fresh(), fresh()
            lines.append(f"{x} = layout.load {src} : !G16 -> tensor<32x32xf16, {_LAYOUTS_2D[k1]}>")
            lines.append(f"{e} = arith.extf {x} : tensor<32x32xf16, {_LAYOUTS_2D[k1]}> to {T(k1)}")
            w = convert(e, k1, k2)
            lines.append(f"layout.store {w}, {dst} : {T(k2)}, !G")
    body = "\n    ".join(lines)
    pre = "\n  ".join(views)
    return _HEADER.format(et="f32") + f"""
func.func @random({", ".join(args)}) {{
  {pre}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 0.75 : f32
  layout.launch grid(%c1, %c1, %c1) threads(128) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %first = arith.cmpi eq, %bx, %c0 : index
    {body}
  }}
  func.return
}}
"""


@lru_cache(maxsize=None)
def _floor(a: str, b: str, shape: str = "32x32") -> float:
    """Weighted bytes of one conversion from layout `a` to `b` outside loops and
    branches (the cost model's), 0 for equal layouts."""
    from tilec.compiler.pipeline import parse_module
    from tilec.passes._layout_cost import CostModel, conversion_cost

    if a == b:
        return 0.0
    m = parse_module(f"func.func @f(%x: tensor<{shape}xf32, {a}>, %y: tensor<{shape}xf32, {b}>) {{ func.return }}")
    (f,) = m.body.block.ops
    x, y = f.body.block.args
    return conversion_cost(CostModel(), x.type, y.type).units


@st.composite
def loop_branch_programs(draw):
    """Issue 41's shapes, one to three per launch, each on its own buffers, with
    conversions between layouts drawn from `POOL`: a uniform scf.if in an scf.for (also
    nested in an outer scf.for, or in an scf.while) that loads a tile in one layout and
    yields it converted to the layout the loop carries (the other branch yields the
    carried value or a zero; the loop adds it to the carried value or carries it as it
    is), the result stored in a third layout; a dead loop-carried value (scf.for or
    scf.while) that a conversion initialises; an scf.if whose one branch yields a
    conversion and the other a constant, its result reduced (max) or yielded by a
    second such if, then stored.

    Returns (program text, floor): the floor is the weighted bytes of the conversions
    a program of these shapes cannot do without (the cost model's, `CostModel()`): per
    shape one conversion, outside loops and branches, from the loaded layout to the
    stored one (the cheaper of before and after a reduction), none for a dead value."""
    T = lambda k: f"tensor<32x32xf32, {_LAYOUTS_2D[k]}>"  # noqa: E731
    S = lambda k: f"tensor<32xf32, #layout.slice<{{dim = 1, parent = {_LAYOUTS_2D[k]}}}>>"  # noqa: E731
    layouts = st.integers(0, len(_LAYOUTS_2D) - 1)
    lines: list[str] = []
    args: list[str] = []
    views: list[str] = []
    n = [0]
    floor = [0.0]

    def fresh(prefix="v"):
        n[0] += 1
        return f"%{prefix}{n[0]}"

    def buffer(ty="!G"):
        p = fresh("p")
        args.append(f"{p}: !layout.ptr<f32>")
        v = fresh("view")
        views.append(f"{v} = layout.view {p} : !layout.ptr<f32> -> {ty}")
        return v

    def convert(out, v, k0, k, ty=T):
        if k0 == k:
            return v
        r = fresh()
        out.append(f"{r} = layout.convert_layout {v} : {ty(k0)} -> {ty(k)}")
        return r

    def indent(block, by="  "):
        return [by + b for b in block]

    def if_in_loop(i, acc, k1, k2, src):
        """An scf.if on `i > 0` loading tile `i` in k2, yielding it in k1 (or the
        carried value / a zero); the body's lines and its next carried value."""
        body: list[str] = []
        go, r, x, t = fresh("go"), fresh("r"), fresh(), fresh("t")
        body.append(f"{go} = arith.cmpi ugt, {i}, %c0 : index")
        body.append(f"{r} = scf.if {go} -> ({T(k1)}) {{")
        then = [f"{t} = layout.tile {src}[{i}, %c0] {{tile = array<i64: 32, 32>}} : !H -> !G",
                f"{x} = layout.load {t} : !G -> {T(k2)}"]
        xc = convert(then, x, k2, k1)
        body += indent(then) + [f"  scf.yield {xc} : {T(k1)}", "} else {"]
        if draw(st.booleans()):
            body.append(f"  scf.yield {acc} : {T(k1)}")
        else:
            z = fresh()
            body += [f"  {z} = arith.constant dense<0.0> : {T(k1)}", f"  scf.yield {z} : {T(k1)}"]
        body.append("}")
        if draw(st.booleans()):
            s = fresh()
            body.append(f"{s} = arith.addf {acc}, {r} : {T(k1)}")
            return body, s
        return body, r

    for _ in range(draw(st.integers(1, 3))):
        what = draw(st.sampled_from(["loop_if", "nested", "while_if", "dead_for", "dead_while",
                                     "if_reduce", "two_ifs"]))
        k1, k2, k3 = draw(layouts), draw(layouts), draw(layouts)
        if what in ("loop_if", "nested", "while_if"):
            src, dst = buffer("!H"), buffer()
            z, res = fresh(), fresh("r")
            lines.append(f"{z} = arith.constant dense<0.0> : {T(k1)}")
            if what == "loop_if":
                i, acc = fresh("i"), fresh("acc")
                body, nxt = if_in_loop(i, acc, k1, k2, src)
                lines.append(f"{res} = scf.for {i} = %c0 to %c4 step %c1 iter_args({acc} = {z}) -> ({T(k1)}) {{")
                lines += indent(body) + [f"  scf.yield {nxt} : {T(k1)}", "}"]
            elif what == "nested":
                j, i, acc, acc2, inner = fresh("j"), fresh("i"), fresh("acc"), fresh("acc"), fresh("r")
                body, nxt = if_in_loop(i, acc2, k1, k2, src)
                lines.append(f"{res} = scf.for {j} = %c0 to %c2 step %c1 iter_args({acc} = {z}) -> ({T(k1)}) {{")
                lines.append(f"  {inner} = scf.for {i} = %c0 to %c4 step %c1 iter_args({acc2} = {acc}) -> ({T(k1)}) {{")
                lines += indent(body, "    ") + [f"    scf.yield {nxt} : {T(k1)}", "  }",
                                                  f"  scf.yield {inner} : {T(k1)}", "}"]
            else:
                a0, j, go, i, acc, i1 = fresh("a"), fresh("j"), fresh("go"), fresh("i"), fresh("acc"), fresh("i")
                body, nxt = if_in_loop(i, acc, k1, k2, src)
                lines.append(f"{res}, {fresh('n')} = scf.while ({a0} = {z}, {j} = %c0) : ({T(k1)}, index) -> ({T(k1)}, index) {{")
                lines.append(f"  {go} = arith.cmpi ult, {j}, %c4 : index")
                lines.append(f"  scf.condition({go}) {a0}, {j} : {T(k1)}, index")
                lines.append("} do {")
                lines.append(f"^bb{n[0]}({acc}: {T(k1)}, {i}: index):")
                lines += indent(body) + [f"  {i1} = arith.addi {i}, %c1 : index",
                                         f"  scf.yield {nxt}, {i1} : {T(k1)}, index", "}"]
            w = convert(lines, res, k1, k3)
            lines.append(f"layout.store {w}, {dst} : {T(k3)}, !G")
            floor[0] += _floor(_LAYOUTS_2D[k2], _LAYOUTS_2D[k3])
        elif what in ("dead_for", "dead_while"):
            src, dst = buffer("!H"), buffer()
            z, x0, res = fresh(), fresh(), fresh("r")
            lines.append(f"{z} = arith.constant dense<0.0> : {T(k1)}")
            lines.append(f"{x0} = layout.load {dst} : !G -> {T(k1)}")
            d0 = convert(lines, x0, k1, k2)
            acc, d, t, x, s, d2 = fresh("acc"), fresh("d"), fresh("t"), fresh(), fresh(), fresh()
            body = [f"{x} = layout.load {t} : !G -> {T(k1)}",
                    f"{s} = arith.addf {acc}, {x} : {T(k1)}",
                    f"{d2} = arith.mulf {d}, {d} : {T(k2)}"]
            if what == "dead_for":
                i = fresh("i")
                lines.append(f"{res}, {fresh('dd')} = scf.for {i} = %c0 to %c4 step %c1 "
                             f"iter_args({acc} = {z}, {d} = {d0}) -> ({T(k1)}, {T(k2)}) {{")
                lines.append(f"  {t} = layout.tile {src}[{i}, %c0] {{tile = array<i64: 32, 32>}} : !H -> !G")
                lines += indent(body) + [f"  scf.yield {s}, {d2} : {T(k1)}, {T(k2)}", "}"]
            else:
                a0, e0, j, go, i, i1 = fresh("a"), fresh("e"), fresh("j"), fresh("go"), fresh("i"), fresh("i")
                lines.append(f"{res}, {fresh('dd')}, {fresh('n')} = scf.while ({a0} = {z}, {e0} = {d0}, {j} = %c0) : "
                             f"({T(k1)}, {T(k2)}, index) -> ({T(k1)}, {T(k2)}, index) {{")
                lines.append(f"  {go} = arith.cmpi ult, {j}, %c4 : index")
                lines.append(f"  scf.condition({go}) {a0}, {e0}, {j} : {T(k1)}, {T(k2)}, index")
                lines.append("} do {")
                lines.append(f"^bb{n[0]}({acc}: {T(k1)}, {d}: {T(k2)}, {i}: index):")
                lines.append(f"  {t} = layout.tile {src}[{i}, %c0] {{tile = array<i64: 32, 32>}} : !H -> !G")
                lines += indent(body) + [f"  {i1} = arith.addi {i}, %c1 : index",
                                         f"  scf.yield {s}, {d2}, {i1} : {T(k1)}, {T(k2)}, index", "}"]
            lines.append(f"layout.store {res}, {dst} : {T(k1)}, !G")
        else:
            srcs = [buffer() for _ in range(1 if what == "if_reduce" else 2)]
            dst = buffer("!S" if what == "if_reduce" else "!G")
            prev = None
            for q, (src, cond) in enumerate(zip(srcs, ("%first", "%second"))):
                r, x, c = fresh("r"), fresh(), fresh()
                lines.append(f"{r} = scf.if {cond} -> ({T(k2)}) {{")
                then = [f"{x} = layout.load {src} : !G -> {T(k1)}"]
                xc = convert(then, x, k1, k2)
                lines += indent(then) + [f"  scf.yield {xc} : {T(k2)}", "} else {"]
                if prev is None:
                    lines += [f"  {c} = arith.constant dense<1.5> : {T(k2)}", f"  scf.yield {c} : {T(k2)}", "}"]
                else:
                    lines += [f"  scf.yield {prev} : {T(k2)}", "}"]
                prev = r
            if what == "if_reduce":
                m = fresh()
                lines.append(f'{m} = layout.reduce {prev} {{axis = 1 : i64, kind = "max"}} : {T(k2)} -> {S(k2)}')
                w = convert(lines, m, k2, k3, S)
                lines.append(f"layout.store {w}, {dst} : {S(k3)}, !S")
                sl = lambda k: f"#layout.slice<{{dim = 1, parent = {_LAYOUTS_2D[k]}}}>"  # noqa: E731
                floor[0] += min(_floor(_LAYOUTS_2D[k1], _LAYOUTS_2D[k3]), _floor(sl(k1), sl(k3), "32"))
            else:
                w = convert(lines, prev, k2, k3)
                lines.append(f"layout.store {w}, {dst} : {T(k3)}, !G")
                floor[0] += _floor(_LAYOUTS_2D[k1], _LAYOUTS_2D[k3])
    body = "\n    ".join(lines)
    pre = "\n  ".join(views)
    text = _HEADER.format(et="f32") + f"""
func.func @random({", ".join(args)}) {{
  {pre}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %first = arith.cmpi eq, %bx, %c0 : index
    %second = arith.cmpi eq, %by, %c0 : index
    {body}
  }}
  func.return
}}
"""
    return text, floor[0]
