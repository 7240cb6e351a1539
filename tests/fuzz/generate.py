"""Random VALID copy programs for the fuzz tests and for `dev/device/sanitize.sh`.

A program is one `func.func` copying a source view into a destination view of the
same logical shape: rank 1 to 3, static or dynamic (`?`) extents, extents that no tile
divides, row-major / column-major / permuted / padded / nested (hierarchical) layouts,
a source that may broadcast (stride 0), every element type tilec supports, the FP8
types f8E4M3FN and f8E5M2 included (the executor keeps them as bit patterns and rounds
arithmetic results to them as CUDA does, dialects/dtypes.py `to_f8`;
`--check-equivalence` compares them bit for bit), pointer alignments of the element size or 16 bytes, and in about a third of them the
32-bit index promise `tilec.index_bits = 32` (which the reference executor checks and
the CUDA backend honours with 32-bit offsets); in about half of the views binding run-time
values, promises about them: a dynamic extent at most a bound (`at_most`), a value a multiple
of a divisor or congruent to a residue modulo a modulus (`divisible`, `residue`:
`_congruences`), true ones only, which the executor checks. Each comes with a pass pipeline
(the default pipeline's passes, with random `tile`, `distribute`, `vectorize` and
`lower-convert-layout` options; a quarter of them led by `copy-strategy`, which chooses
gather or box strategies where the copy's cost says, reading the promises). Destination layouts are always injective, so a
correct compiler gives a program without races; the CPU reference executor's bounds
and race checks turn any unsafe access into a failure.

    python -m tests.fuzz.generate --count 10 --out DIR [--seed 0] [--funnel N]

writes DIR/prog_000.mlir ... (each with the pipeline in a comment), with
`--funnel N` N kernels around `layout.funnel_shift` (`random_funnel_kernel`,
DIR/funnel_000.mlir ...), with `--chunks N` N kernels around `layout.copy_chunk_async`,
cache hints and `layout.prefetch` (`random_chunk_kernel`, DIR/chunks_000.mlir ...), with `--prefetch N` N
kernels around `layout.prefetch_l1` (`random_prefetch_l1_kernel`, DIR/prefetch_000.mlir ...), with
`--realign N` N copies the realign strategy takes, around its sector prefetch `layout.ptr_prefetch`
(`random_realign_copy`, DIR/realign_000.mlir ...), with
`--mbarrier N` N valid mbarrier programs (TMA rings and
warp-specialised producer/consumer pipelines, tests/fuzz/generate_mbarrier.py,
DIR/mbarrier_000.mlir ...), with `--cluster N` N thread-block cluster rings (multicast TMA,
remote arrivals, tests/fuzz/generate_cluster.py, DIR/cluster_000.mlir ...), with `--atomic N`
N programs of serial split-K's counter protocol (tests/fuzz/generate_atomic.py,
DIR/atomic_000.mlir ...), with `--dsmem N` N sums of partials across a cluster through
distributed shared memory (tests/fuzz/generate_dsmem.py, DIR/dsmem_000.mlir ...), with
`--epilogue N` N epilogue kernels around `math.tanh` or a division with `fastmath<afn>` and `cuda.opaque`
(tests/fuzz/generate_compute.py, DIR/epilogue_000.mlir ...; `// gpu-check: no` on those
whose result `--run gpu --check` cannot bound), with `--ex2fma N` N such kernels whose activation is
`exp2` on the FMA pipe in 1 to 8 of every 8 registers (`tilec.exp2_fma`: `cuda.ex2_fma`;
`random_ex2_fma_kernel`, DIR/ex2fma_000.mlir ...), with `--clipped N` N TMA rings whose loads are
clipped to a ragged last row of tiles, each the row's last box (`layout.tma_load {clip, tail}`;
tests/fuzz/generate_mbarrier.py `random_clipped_ring_kernel`, DIR/clipped_000.mlir ...), with
`--coarsen N` N shared-memory round trips
for `coarsen-grid` (small grids coarsened: `min_waves=0`), some around the griddep ops
(tests/fuzz/generate_coarsen.py, DIR/coarsen_000.mlir ...), and prints one line per file: `PATH PIPELINE`. Only the
standard library and tilec are used, so the generator also runs where hypothesis is
not installed (the GPU machine).
"""

from __future__ import annotations

import argparse
import math
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tilec.dialects import cute

ELEMENT_TYPES = ["f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "f8E4M3FN", "f8E5M2"]
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8,
                 "f8E4M3FN": 1, "f8E5M2": 1}

DIVISORS = ["3.0", "5.0", "0.75"]
"""Constant divisors of the element kernels' `arith.divf`, exact in every float type
(FP8 E5M2 included): the quotient's rounding is the only inexact step."""

MAX_ELEMENTS = 1 << 14
"""Largest copy generated: the CPU reference executor runs each program twice in a
fraction of a second."""


@dataclass(frozen=True)
class Program:
    """A generated program: its MLIR text and the `-p` pipeline to compile it with."""

    text: str
    pipeline: str
    summary: str


def _extents(rng: random.Random, rank: int) -> list[int]:
    """Logical extents, often not a multiple of any power of two."""
    cap = {1: MAX_ELEMENTS, 2: 160, 3: 24}[rank]
    out = []
    for _ in range(rank):
        kind = rng.random()
        if kind < 0.3:
            out.append(rng.choice([1, 2, 4, 8, 16, 32, 64, 128]))
        elif kind < 0.6:
            out.append(rng.randint(1, 70))
        else:
            out.append(rng.randint(1, cap))
        out[-1] = min(out[-1], cap)
    while math.prod(out) > MAX_ELEMENTS:
        i = max(range(rank), key=lambda k: out[k])
        out[i] = max(1, out[i] // 2)
    return out


def _mode_text(extent: int, stride: int, split: int | None) -> tuple[str, str]:
    """One top-level mode, flat `extent:stride`, or nested `(split, extent/split)`."""
    if split is None:
        return str(extent), str(stride)
    return f"({split},{extent // split})", f"({stride},{stride * split})"


def _layout(
    rng: random.Random, extents: list[int], *, injective: bool, dynamic: set[int]
) -> tuple[str, list[str], list[int]]:
    """(`shape:stride` text, names of the `?` values in order: shape, then stride, and
    the stride of each mode) of a layout of `extents`. Modes in `dynamic` get `?`
    extents (named `d<mode>`), and strides past a dynamic extent are `?` (`s<mode>`)."""
    rank = len(extents)
    order = list(range(rank))
    style = rng.random()
    if style < 0.35:
        order.reverse()  # row-major: the last mode is contiguous
    elif style < 0.55:
        rng.shuffle(order)
    # column-major otherwise (order 0, 1, ...)
    strides = [0] * rank
    cur = 1
    stride_dyn: dict[int, str] = {}
    for k in order:
        strides[k] = cur
        if cur != 1 and any(j in dynamic for j in order[: order.index(k)]):
            stride_dyn[k] = f"s{k}"  # a stride past a dynamic extent is dynamic too
        pad = rng.choice([0, 0, 0, 1, 3, 4])
        cur *= extents[k] + pad
    if not injective and rank >= 1 and rng.random() < 0.25:
        strides[rng.randrange(rank)] = 0  # broadcast one mode of the source
    shape_txt, stride_txt, names_shape, names_stride = [], [], [], []
    for k in range(rank):
        e = extents[k]
        if k in dynamic:
            shape_txt.append("?")
            names_shape.append(f"d{k}")
            stride_txt.append("?" if k in stride_dyn and strides[k] != 0 else str(strides[k]))
            if k in stride_dyn and strides[k] != 0:
                names_stride.append(stride_dyn[k])
            continue
        splits = [s for s in (2, 3, 4, 8) if e % s == 0 and e > s]
        split = rng.choice(splits) if splits and rng.random() < 0.25 and k not in stride_dyn else None
        s_txt, d_txt = _mode_text(e, strides[k], split)
        if k in stride_dyn and strides[k] != 0:
            d_txt = "?"
            names_stride.append(stride_dyn[k])
        shape_txt.append(s_txt)
        stride_txt.append(d_txt)
    if rank == 1:
        text = f"({shape_txt[0]}):({stride_txt[0]})"
    else:
        text = f"({','.join(shape_txt)}):({','.join(stride_txt)})"
    return text, names_shape + names_stride, strides


def random_copy_program(rng: random.Random) -> Program:
    """One random valid copy program and a pipeline for it (see the module docstring)."""
    rank = rng.choice([1, 2, 2, 3])
    extents = _extents(rng, rank)
    ty = rng.choice(ELEMENT_TYPES)
    eb = ELEMENT_BYTES[ty]
    dynamic = {k for k in range(rank) if rng.random() < 0.2}
    src, src_names, src_strides = _layout(rng, extents, injective=False, dynamic=dynamic)
    dst, dst_names, dst_strides = _layout(rng, extents, injective=True, dynamic=dynamic)
    align_src = rng.choice([eb, 16]) if eb <= 16 else eb
    align_dst = rng.choice([eb, 16]) if eb <= 16 else eb

    def ptr(a: int) -> str:
        return f"!layout.ptr<{ty}>" if a == eb else f"!layout.ptr<{ty}, align {a}>"

    # Index arguments: one per distinct dynamic name, per view (strides differ).
    args_src = [f"%{n}_a" if n.startswith("s") else f"%{n}" for n in src_names]
    args_dst = [f"%{n}_b" if n.startswith("s") else f"%{n}" for n in dst_names]
    arg_values: dict[str, int] = {f"d{k}": extents[k] for k in sorted(dynamic)}
    for n in src_names:
        if n.startswith("s"):
            arg_values[f"{n}_a"] = src_strides[int(n[1:])]
    for n in dst_names:
        if n.startswith("s"):
            arg_values[f"{n}_b"] = dst_strides[int(n[1:])]
    scalars = [f"%{n}: index" for n in arg_values]
    tv_src = f"!layout.tensor<{ty}, #layout.cute<{src}>, gmem>"
    tv_dst = f"!layout.tensor<{ty}, #layout.cute<{dst}>, gmem>"
    pipeline = random_pipeline_for_copy(rng, extents)
    # Drawn last, so that a seed's view and pipeline stay what they were before it.
    # Every offset of these small copies fits in 32 bits: the promise holds.
    index32 = rng.random() < 0.3
    # and the `at_most` fact (a dynamic extent promised at most a bound it keeps), drawn
    # after the promise above for the same reason
    at_most = {k: extents[k] + rng.choice([0, 0, 1, 7]) for k in sorted(dynamic) if rng.random() < 0.5}
    # and, drawn after both, what a view's index operands are promised modulo (`divisible`,
    # `residue`): true promises only (the executor checks them, a false one is an error)
    values = {"src": [_value_of(n, "a") for n in src_names], "dst": [_value_of(n, "b") for n in dst_names]}
    congruent = {side: _congruences(rng, [arg_values[v] for v in vals]) for side, vals in values.items()}
    items = []
    if arg_values:
        kv = ", ".join(f"{n} = {v} : index" for n, v in arg_values.items())
        items.append(f"tilec.args = {{{kv}}}")
    if index32:
        items.append("tilec.index_bits = 32 : i64")
    attrs = f" attributes {{{', '.join(items)}}}" if items else ""
    params = ", ".join([f"%src: {ptr(align_src)}", f"%dst: {ptr(align_dst)}", *scalars])
    def facts(names: list[str], side: str) -> str:
        bounds = [at_most.get(int(n[1:]), 0) if n.startswith("d") else 0 for n in names]
        out = [f"at_most = array<i64: {', '.join(map(str, bounds))}>"] if any(bounds) else []
        if congruent[side]:
            mods, res = zip(*congruent[side])
            out.insert(0, f"divisible = array<i64: {', '.join(map(str, mods))}>")
            if any(res) or rng.random() < 0.2:  # residues all 0 stated too, sometimes
                out.append(f"residue = array<i64: {', '.join(map(str, res))}>")
        return f" {{{', '.join(out)}}}" if out else ""

    dyn_src = f"({', '.join(args_src)}){facts(src_names, 'src')}" if args_src else ""
    dyn_dst = f"({', '.join(args_dst)}){facts(dst_names, 'dst')}" if args_dst else ""
    text = (
        f"// generated by tests/fuzz/generate.py: {ty} {extents} dynamic={sorted(dynamic)}\n"
        f"func.func @copy({params}){attrs} {{\n"
        f"  %a = layout.view %src{dyn_src} : {ptr(align_src)} -> {tv_src}\n"
        f"  %b = layout.view %dst{dyn_dst} : {ptr(align_dst)} -> {tv_dst}\n"
        f"  layout.copy %a, %b : {tv_src}, {tv_dst}\n"
        f"  func.return\n"
        f"}}\n"
    )
    summary = f"{ty} {extents} {src} -> {dst}" + (" index_bits=32" if index32 else "")
    summary += f" at_most={at_most}" if at_most else ""
    summary += "".join(f" {side}%={c}" for side, c in congruent.items() if c)
    # last of all: a quarter of the pipelines choose the copy's strategy first (gather, box,
    # ...: where `_copy_cost` reads the promises), the tile's threads then the strategy's
    if rng.random() < 0.25:
        pipeline = "copy-strategy," + re.sub(r" ?threads=\d+", "", pipeline).replace("tile{}", "tile")
    return Program(text, pipeline, summary)


def _value_of(name: str, view: str) -> str:
    """The `tilec.args` name of a view's `?` value named `name` (`d<k>` shared, `s<k>` the view's)."""
    return f"{name}_{view}" if name.startswith("s") else name


CONGRUENCE_MODULI = (2, 3, 4, 5, 7, 8, 16, 32, 64)
"""Moduli `_congruences` draws besides a value's own power-of-two part and the value and
its successor: small primes, the vector widths, `copy_key`'s residues mod 16 and 32."""


def _congruences(rng: random.Random, values: list[int]) -> list[tuple[int, int]]:
    """A view's promises for its index operands' `values`, true of them: [] (none, about
    half the views), else per operand (modulus, residue) -- (1, 0) nothing, a divisor of
    the value with residue 0 (its power-of-two part often: what lets `vectorize` take
    wider vectors along a dynamic stride), or any modulus with the value's residue."""
    if not values or rng.random() < 0.5:
        return []
    out = []
    for v in values:
        kind = rng.random()
        if kind < 0.25:
            out.append((1, 0))
        elif kind < 0.6:
            out.append((rng.choice([d for d in CONGRUENCE_MODULI if v % d == 0] + [v & -v, v]), 0))
        else:
            m = rng.choice(CONGRUENCE_MODULI + (v + 1, v))
            out.append((m, v % m))
    return out


def random_element_kernel(rng: random.Random) -> Program:
    """A kernel that copies one tensor to another element by element with layout.read /
    layout.write (issue 18): one thread per element (linear index bx * T + tid, guarded),
    the element addressed by its linear index, by one index per mode, or by one per
    leaf; random layouts (nested modes, padding, a broadcast source mode), a 1-D or a
    2-D block shape, and optionally `x + x` or, for floats, `x / d` (a constant `d`,
    with or without `fastmath<arcp>` / `fast`) on the way."""
    rank = rng.choice([1, 2, 2, 3])
    extents = _extents(rng, rank)
    ty = rng.choice(ELEMENT_TYPES)
    src, _, _ = _layout(rng, extents, injective=False, dynamic=set())
    dst, _, _ = _layout(rng, extents, injective=True, dynamic=set())
    n = math.prod(extents)
    shape2d = rng.choice([None, (32, 2), (8, 8), (16, 4)])
    threads = math.prod(shape2d) if shape2d else rng.choice([32, 64, 128, 256])
    grid = -(-n // threads)
    tv_src = f"!layout.tensor<{ty}, #layout.cute<{src}>, gmem>"
    tv_dst = f"!layout.tensor<{ty}, #layout.cute<{dst}>, gmem>"
    body = [f"    %c{threads} = arith.constant {threads} : index",
            f"    %cn = arith.constant {n} : index",
            f"    %base = arith.muli %bx, %c{threads} : index",
            "    %i = arith.addi %base, %tid : index",
            "    %in = arith.cmpi ult, %i, %cn : index",
            "    scf.if %in {"]

    def coords(layout_text: str, tag: str) -> list[str]:
        form = rng.choice(["linear", "modes", "leaves"])
        if form == "linear" or rank == 1:
            return ["%i"]
        names, rest = [], "%i"
        leaves = list(extents)  # one index per mode, colexicographic as the linear index
        if form == "leaves":  # one per leaf: nested modes flattened
            shape = cute.parse_layout(layout_text).shape
            leaves = [x for s in shape for x in (s if isinstance(s, tuple) else (s,))]
        for k, e in enumerate(leaves):
            name = f"%{tag}{k}"
            if k == len(leaves) - 1:
                body.append(f"      {name} = arith.addi {rest}, %c0 : index")
            else:
                body.append(f"      %e_{tag}{k} = arith.constant {e} : index")
                body.append(f"      {name} = arith.remui {rest}, %e_{tag}{k} : index")
                body.append(f"      %q_{tag}{k} = arith.divui {rest}, %e_{tag}{k} : index")
                rest = f"%q_{tag}{k}"
            names.append(name)
        return names

    body.append("      %c0 = arith.constant 0 : index")
    cs = coords(src, "s")
    body.append(f"      %x = layout.read %a[{', '.join(cs)}] : {tv_src} -> {ty}")
    value = "%x"
    if rng.random() < 0.3:
        if ty.startswith("i") or rng.random() < 0.5:
            op = "arith.addi" if ty.startswith("i") else "arith.addf"
            body.append(f"      %y = {op} %x, %x : {ty}")
        else:
            # a division by a constant, allowed a reciprocal on f32 / f64 (x * (1 / d),
            # each step rounded: dialects/math_functions.reciprocal_division)
            fast = rng.choice(["", " fastmath<arcp>", " fastmath<fast>"])
            body.append(f"      %d = arith.constant {rng.choice(DIVISORS)} : {ty}")
            body.append(f"      %y = arith.divf %x, %d{fast} : {ty}")
        value = "%y"
    cd = coords(dst, "d")
    body.append(f"      layout.write {value}, %b[{', '.join(cd)}] : {ty}, {tv_dst}")
    body.append("    }")
    block = f"{shape2d[0]}, {shape2d[1]}" if shape2d else str(threads)
    text = (
        f"// generated by tests/fuzz/generate.py (element access): {ty} {extents}\n"
        f"func.func @elements(%src: !layout.ptr<{ty}>, %dst: !layout.ptr<{ty}>) {{\n"
        f"  %a = layout.view %src : !layout.ptr<{ty}> -> {tv_src}\n"
        f"  %b = layout.view %dst : !layout.ptr<{ty}> -> {tv_dst}\n"
        f"  %g = arith.constant {grid} : index\n"
        f"  %c1 = arith.constant 1 : index\n"
        f"  layout.launch grid(%g, %c1, %c1) threads({block}) {{\n"
        f"  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):\n"
        + "\n".join(body) + "\n  }\n  func.return\n}\n"
    )
    return Program(text, "default", f"{ty} {extents} {src} -> {dst} threads({block})")


def random_slice_iterator_kernel(rng: random.Random) -> Program:
    """A block-level copy of a slice into a tile taken by an iterator (issue 18): the
    source is a random layout (nested modes, padding, a broadcast mode), the slice a
    random coordinate in CuTe's forms (`_`, an index, the block id mod the extent, a
    tuple for a nested mode: `%a[(_, 1), %k]`), and each block writes its slice into
    its own compact tile of the destination, `layout.iter_get` of a buffer iterator
    advanced by the block id."""
    from tilec.dialects import views

    rank = rng.choice([2, 2, 3])
    extents = _extents(rng, rank)
    ty = rng.choice(ELEMENT_TYPES)
    src, _, _ = _layout(rng, extents, injective=False, dynamic=set())
    lay = cute.parse_layout(src)
    grid = rng.choice([1, 2, 3])
    pattern: list[int] = []
    profile: list[int] = []
    body: list[str] = []

    def leaf(extent: int) -> str:
        pick = rng.random()
        if pick < 0.45:
            pattern.append(views.WILDCARD)
            return "_"
        if pick < 0.75:
            c = rng.randrange(extent)
            pattern.append(c)
            return str(c)
        name = f"%k{len(pattern)}"
        body.append(f"    %e{len(pattern)} = arith.constant {extent} : index")
        body.append(f"    {name} = arith.remui %bx, %e{len(pattern)} : index")
        pattern.append(views.DYNAMIC)
        return name

    def coord(mode) -> str:
        if isinstance(mode.shape, tuple) and rng.random() < 0.6:
            subs = mode.modes()
            profile.append(len(subs))
            return "(" + ", ".join(coord(m) for m in subs) + ")"
        profile.append(0)
        return leaf(mode.size())

    text_coords = [coord(m) for m in lay.modes()]
    if views.WILDCARD not in pattern:  # a slice keeps at least one mode
        return random_slice_iterator_kernel(rng)
    prof = profile if any(profile) else []
    kept = views.sliced_layout(lay, pattern, prof)
    tile = cute.make_layout(kept.shape)  # compact, column-major, the slice's shape
    n = int(kept.size())
    tv_src = f"!layout.tensor<{ty}, #layout.cute<{src}>, gmem>"
    tv_slice = f"!layout.tensor<{ty}, #layout.cute<{kept}>, gmem>"
    tv_buf = f"!layout.tensor<{ty}, #layout.cute<{grid * n}:1>, gmem>"
    tv_tile = f"!layout.tensor<{ty}, #layout.cute<{tile}>, gmem>"
    body += [
        f"    %s = layout.slice %a[{', '.join(text_coords)}] : {tv_src}",
        f"    %it = layout.buffer_iterator %b {{tile = #layout.cute<{tile}>}} : {tv_buf}",
        f"    %at = layout.iter_next %it, %bx : !layout.iter<{tv_tile}>",
        f"    %t = layout.iter_get %at : !layout.iter<{tv_tile}>",
        f"    layout.copy %s, %t : {tv_slice}, {tv_tile}",
    ]
    text = (
        f"// generated by tests/fuzz/generate.py (slices and iterators): {ty} {src}\n"
        f"func.func @slices(%src: !layout.ptr<{ty}>, %dst: !layout.ptr<{ty}>) {{\n"
        f"  %a = layout.view %src : !layout.ptr<{ty}> -> {tv_src}\n"
        f"  %b = layout.view %dst : !layout.ptr<{ty}> -> {tv_buf}\n"
        f"  %g = arith.constant {grid} : index\n"
        f"  %c1 = arith.constant 1 : index\n"
        f"  layout.launch grid(%g, %c1, %c1) threads({rng.choice([32, 64, 128])}) {{\n"
        f"  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):\n"
        + "\n".join(body) + "\n  }\n  func.return\n}\n"
    )
    return Program(text, "default", f"{ty} {src}[{', '.join(text_coords)}] grid {grid}")


def random_funnel_kernel(rng: random.Random) -> Program:
    """A pointer-tensor kernel around `layout.funnel_shift` (the realign strategy's op,
    passes/_realign_tile.py): each row of `R` loads two windows of `V` elements at a
    random row pitch and stores the `V` elements from a per-row shift on (an affine
    function of the row, mod `V`). Either one element type throughout (rows of 2 to
    16 bytes, 1- to 8-byte integers or f32) or, as the realign kernel does, rows of
    four 32-bit words taken apart into 16 bytes of 1-, 2-, 4- or 8-byte elements
    (`-> type`); 1 to 4 warps, one or two rows per thread."""
    words = rng.random() < 0.5
    ty = rng.choice(["i8", "i16", "i32", "i64"] if words else ["i8", "i16", "i32", "i64", "f32"])
    e = ELEMENT_BYTES[ty]
    v = 16 // e if words else rng.choice([n for n in (2, 4, 8, 16) if n * e <= 16])
    lt, lv = ("i32", 4) if words else (ty, v)  # the loaded rows: type, elements per row
    warps = rng.choice([1, 2, 4])
    rows = 32 * warps * rng.choice([1, 2])
    pitch = rng.choice([lv, 2 * lv, lv + 1])  # src row pitch, in loaded elements
    a, b = rng.randint(1, v + 3), rng.randint(0, v - 1)

    def blocked(per_thread: int) -> str:
        return (f"#layout.blocked<{{sizePerThread = [1, {per_thread}], threadsPerWarp = [32, 1], "
                f"warpsPerCTA = [{warps}, 1], order = [1, 0]}}>")

    def tensor(n: int, t: str, lay: str) -> str:
        return f"tensor<{rows}x{n}x{t}, {lay}>"

    def offsets(tag: str, n: int, lay: str, row_step: int) -> list[str]:
        """`%{tag}offs`: row * row_step + j over a rows x n tensor in `lay`."""
        r, j = f"#{tag}r", f"#{tag}j"
        t = tensor(n, "i32", lay)
        return [
            f"    %{tag}rows = layout.arange {{start = 0 : i64, end = {rows} : i64}} : tensor<{rows}xi32, {r}>",
            f"    %{tag}j = layout.arange {{start = 0 : i64, end = {n} : i64}} : tensor<{n}xi32, {j}>",
            f"    %{tag}step = arith.constant {row_step} : i32",
            f"    %{tag}steps = layout.splat %{tag}step : i32 -> tensor<{rows}xi32, {r}>",
            f"    %{tag}base = arith.muli %{tag}rows, %{tag}steps : tensor<{rows}xi32, {r}>",
            (
                f"    %{tag}be = layout.expand_dims %{tag}base {{axis = 1 : i64}} : tensor<{rows}xi32, {r}> "
                f"-> tensor<{rows}x1xi32, {lay}>"
            ),
            f"    %{tag}bb = layout.broadcast %{tag}be : tensor<{rows}x1xi32, {lay}> -> {t}",
            (
                f"    %{tag}je = layout.expand_dims %{tag}j {{axis = 0 : i64}} : tensor<{n}xi32, {j}> "
                f"-> tensor<1x{n}xi32, {lay}>"
            ),
            f"    %{tag}jb = layout.broadcast %{tag}je : tensor<1x{n}xi32, {lay}> -> {t}",
            f"    %{tag}offs = arith.addi %{tag}bb, %{tag}jb : {t}",
        ]

    arg_s, arg_d = f"!layout.ptr<{lt}, align 16>", f"!layout.ptr<{ty}, align 16>"
    ps, pd = tensor(lv, f"!layout.ptr<{lt}>", "#s"), tensor(v, f"!layout.ptr<{ty}>", "#d")
    body = offsets("s", lv, "#s", pitch) + [
        f"    %win = arith.constant {lv} : i32",
        f"    %wins = layout.splat %win : i32 -> {tensor(lv, 'i32', '#s')}",
        f"    %soffs_hi = arith.addi %soffs, %wins : {tensor(lv, 'i32', '#s')}",
        f"    %sp = layout.splat %src : {arg_s} -> {ps}",
        f"    %plo = layout.addptr %sp, %soffs : {ps}, {tensor(lv, 'i32', '#s')}",
        f"    %phi = layout.addptr %sp, %soffs_hi : {ps}, {tensor(lv, 'i32', '#s')}",
        f"    %lo = layout.ptr_load %plo : {ps} -> {tensor(lv, lt, '#s')}",
        f"    %hi = layout.ptr_load %phi : {ps} -> {tensor(lv, lt, '#s')}",
    ] + offsets("d", v, "#d", v) + [
        f"    %ca = arith.constant {a} : i32",
        f"    %cb = arith.constant {b} : i32",
        f"    %cv = arith.constant {v} : i32",
        f"    %cas = layout.splat %ca : i32 -> tensor<{rows}xi32, #dr>",
        f"    %cbs = layout.splat %cb : i32 -> tensor<{rows}xi32, #dr>",
        f"    %cvs = layout.splat %cv : i32 -> tensor<{rows}xi32, #dr>",
        f"    %sha = arith.muli %drows, %cas : tensor<{rows}xi32, #dr>",
        f"    %shb = arith.addi %sha, %cbs : tensor<{rows}xi32, #dr>",
        f"    %sh = arith.remsi %shb, %cvs : tensor<{rows}xi32, #dr>",
        # every other kernel asks for the words picked bit by bit (`{bits}`: same results), no draw of its own
        f"    %out = layout.funnel_shift %lo, %hi, %sh{' {bits}' if (a + b) % 2 else ''} : {tensor(lv, lt, '#s')}, "
        f"tensor<{rows}xi32, #dr>"
        + (f" -> {tensor(v, ty, '#d')}" if words else ""),
        f"    %dp = layout.splat %dst : {arg_d} -> {pd}",
        f"    %pdst = layout.addptr %dp, %doffs : {pd}, {tensor(v, 'i32', '#d')}",
        f"    layout.ptr_store %out, %pdst : {tensor(v, ty, '#d')}, {pd}",
    ]
    aliases = [f"#s = {blocked(lv)}", "#sr = #layout.slice<{dim = 1, parent = #s}>",
               "#sj = #layout.slice<{dim = 0, parent = #s}>", f"#d = {blocked(v)}",
               "#dr = #layout.slice<{dim = 1, parent = #d}>", "#dj = #layout.slice<{dim = 0, parent = #d}>"]
    src_size, dst_size = (rows - 1) * pitch + 2 * lv, rows * v
    text = (
        f"// generated by tests/fuzz/generate.py (funnel shift): {ty} rows of {v}"
        f"{' from i32 words' if words else ''}, pitch {pitch}, shift ({a} r + {b}) % {v}\n"
        + "\n".join(aliases) + "\n"
        f"func.func @funnel(%src: {arg_s}, %dst: {arg_d}) "
        f"attributes {{tilec.args = {{src = {src_size} : index, dst = {dst_size} : index}}}} {{\n"
        f"  %c1 = arith.constant 1 : index\n"
        f"  layout.launch grid(%c1, %c1, %c1) threads({32 * warps}) {{\n"
        f"  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):\n"
        + "\n".join(body) + "\n  }\n  func.return\n}\n"
    )
    summary = f"{ty} {rows} rows of {v}{' (words)' if words else ''} pitch {pitch} shift ({a} r + {b}) % {v}"
    return Program(text, "default", summary)


def random_chunk_kernel(rng: random.Random) -> Program:
    """A kernel around `layout.copy_chunk_async` (the box strategy's staging op,
    passes/_box_tile.py; a 16-byte chunk's `cp.async` through L1, `l1`, half the time),
    with L2 cache hints and a prefetch: thread t copies `width`
    elements of `a` at t * step into a shared box (asynchronously; one `cp.async` where
    the chunk is 16 aligned bytes, byte copies elsewhere), waits, and after a barrier
    writes one element of another thread's chunk to `b[t * step]`; beside it a tile of
    `a` is loaded and stored to `c` with random `cache` hints (`evict_first` /
    `evict_last` / none), and `a` may be prefetched into L2 first. Half the time the copy
    commits no group of its own (`uncommitted`) and the wait closes it (`commit`: the box
    strategy's one group a thread, `tiles_issue`). 1-, 2- and 4-byte
    elements, chunks of 4, 8 or 16 bytes, steps that keep or break their alignment,
    1 to 4 warps. Built with `tilec.Program` and printed (the harness runs the text
    through the `tilec` command)."""
    from xdsl.dialects.builtin import StringAttr, UnitAttr

    import tilec
    from tilec.dialects.layout import AsyncWaitOp, LaunchOp, LoadOp, PrefetchOp, StoreOp
    from tilec.dialects.layout_access import CopyChunkAsyncOp

    ty = rng.choice(["i8", "i16", "f32"])
    e = ELEMENT_BYTES[ty]
    width = rng.choice([w for w in (4, 8, 16) if w >= e]) // e  # elements a chunk
    step = rng.choice([width, width + 1, 2 * width, width + 3])
    threads = 32 * rng.choice([1, 2, 4])
    n = (threads - 1) * step + width
    off = rng.randrange(width)  # the element of the mirrored thread's chunk each thread reads
    vec = rng.choice([v for v in (1, 2, 4) if v * e <= 16])
    known = math.gcd(step, 16 // e) if step % (16 // e) == 0 else 1  # what the index is a multiple of
    hints = [rng.choice([None, "evict_first", "evict_last"]) for _ in range(2)]
    prefetch = rng.choice([None, False, "evict_last"])  # None: no prefetch; False: one without a hint
    l1 = width * e == 16 and rng.random() < 0.5  # a 16-byte chunk's cp.async through L1 (`l1`)
    grouped = rng.random() < 0.5  # the copy `uncommitted`, the wait `commit`

    p = tilec.Program("chunks")
    pa, pb, pc = (p.pointer(x, ty, align=16) for x in ("a", "b", "c"))
    a, b = p.view(pa, f"({n}):(1)"), p.view(pb, f"({n}):(1)")
    head, tail = p.view(pa, f"({threads * vec}):(1)"), p.view(pc, f"({threads * vec}):(1)")
    with p.launch(threads=threads) as k:
        box = p.alloc(f"({n}):(1)", ty)
        i = k.tid * step
        at = p.multiple_of(i, known) if known > 1 else i
        p.copy_chunk_async(a, [at], box, [at], width)
        p.async_wait()
        p.barrier()
        b[i] = box[((threads - 1) - k.tid) * step + off]
        x = p.load(head, tilec.BlockedLayout([vec], [32], [threads // 32], [0]), vector=vec)
        p.store(x, tail, vector=vec)
    module = p.module
    for op in module.walk():
        if isinstance(op, (LoadOp, StoreOp)) and hints[isinstance(op, StoreOp)]:
            op.cache = StringAttr(hints[isinstance(op, StoreOp)])
    if l1:
        next(o for o in module.walk() if isinstance(o, CopyChunkAsyncOp)).l1 = UnitAttr()
    if grouped:
        next(o for o in module.walk() if isinstance(o, CopyChunkAsyncOp)).uncommitted = UnitAttr()
        next(o for o in module.walk() if isinstance(o, AsyncWaitOp)).commit = UnitAttr()
    if prefetch is not None:
        launch = next(o for o in module.walk() if isinstance(o, LaunchOp))
        first = launch.body.block.first_op
        launch.body.block.insert_op_before(PrefetchOp(a.ssa, prefetch or None), first)
    summary = (f"{ty} chunks of {width} at step {step}, {threads} threads, reads +{off}; "
               f"load/store {vec} hints {hints}, prefetch {'none' if prefetch is None else prefetch or 'unhinted'}"
               f"{', through L1' if l1 else ''}{', one group closed by the wait' if grouped else ''}")
    return Program(tilec.emit(module, "mlir"), "default", summary)


@dataclass(frozen=True)
class PrefetchProgram(Program):
    """A `random_prefetch_l1_kernel` program: `b`'s m x n elements (row pitch `pb`) are
    `a`'s (row pitch `pa`)."""

    m: int = 0
    n: int = 0
    pa: int = 0
    pb: int = 0


def random_prefetch_l1_kernel(rng: random.Random) -> PrefetchProgram:
    """A kernel around `layout.prefetch_l1` (each thread asks L1 for the elements of a
    global view that a load into a layout would give it; the block-scaled GEMM's `:pf`):
    each block loads its `tr x tc` tile of `a` (m x n, row pitch `pa`; m static or a
    run-time argument, neither extent a multiple of the tile: the last block row and
    column masked) in a random blocked layout and stores it into `b`'s tile (pitch
    `pb`); before the load (or after the store) it asks L1 for one or two views: its own
    tile (in the load's layout or another, whose threads hold other elements or the same
    ones twice), the tile `ahead` block rows on (clipped at the last, as the GEMM clips its
    K block), or a column or row of one (a slice, the layout's `SliceLayout`). No value
    changes: `b` must be NumPy's copy of `a`, and every element asked for must lie inside
    `a`'s buffer (the executor checks it at both levels, as a load's). 1- to 8-byte
    elements, 32 to 256 threads. Built with `tilec.Program` and printed."""
    import tilec
    from tilec.dialects.distributed import BlockedLayout, SliceLayout

    ty = rng.choice(["i8", "f16", "bf16", "f32", "f64"])
    tr, tc = rng.choice([1, 2, 4, 8, 16, 32]), rng.choice([4, 8, 16, 32, 64])
    threads = rng.choice([t for t in (32, 64, 128, 256) if t <= max(32, tr * tc)])
    gy, gx = rng.randint(1, 4), rng.randint(1, 4)
    m = gy * tr - rng.randrange(min(tr, 3)) if tr > 1 else gy
    n = gx * tc - rng.randrange(1, min(tc, 5))
    pa, pb = n + rng.choice([0, 0, rng.randrange(1, 9)]), n + rng.choice([0, rng.randrange(1, 5)])
    dynamic = rng.random() < 0.4

    def blocked() -> BlockedLayout:
        vec = rng.choice([v for v in (1, 2, 4) if v <= tc and v * ELEMENT_BYTES[ty] <= 16])
        lanes_c = rng.choice([c for c in (1, 2, 4, 8, 16, 32) if c <= max(1, tc // vec)] or [1])
        warps = threads // 32
        wr = rng.choice([w for w in (1, 2, 4, 8) if w <= warps and warps % w == 0])
        return BlockedLayout([1, vec], [32 // lanes_c, lanes_c], [wr, warps // wr], rng.choice([[1, 0], [0, 1]]))

    p = tilec.Program("prefetch")
    a_ptr, b_ptr = p.pointer("a", ty, align=16), p.pointer("b", ty, align=16)
    if dynamic:
        mv = p.index("m")
        a = p.view(a_ptr, f"(?,{n}):({pa},1)", dynamic=[mv])
        b = p.view(b_ptr, f"(?,{n}):({pb},1)", dynamic=[mv])
    else:
        a, b = p.view(a_ptr, f"({m},{n}):({pa},1)"), p.view(b_ptr, f"({m},{n}):({pb},1)")
    load_layout = blocked()
    asks = []
    for _ in range(rng.choice([1, 1, 2])):
        kind = rng.choice(["own", "own", "ahead", "column", "row"])
        ahead = rng.randint(1, 2) if kind == "ahead" or (kind != "own" and rng.random() < 0.4) else 0
        lay = load_layout if rng.random() < 0.5 else blocked()
        k = rng.randrange(tc if kind == "column" else tr)
        asks.append((kind, ahead, lay, k))
    after = rng.random() < 0.25
    with p.launch(grid=(p.constant(gx), p.constant(gy), p.constant(1)), threads=threads) as kk:
        def prefetch() -> None:
            for kind, ahead, lay, k in asks:
                row = kk.by if not ahead else p.minui(kk.by + ahead, p.constant(gy - 1))
                tile = p.tile(a, [row, kk.bx], [tr, tc])
                if kind in ("own", "ahead"):
                    p.prefetch_l1(tile, lay)
                elif kind == "column":  # column k of the tile's columns, clipped at n's last: the tile's rows
                    col = p.slice(a, ["_", p.minui(kk.bx * tc + k, p.constant(n - 1))])
                    p.prefetch_l1(p.tile(col, [row], [tr]), SliceLayout(1, lay))
                else:  # row k of the tile's rows, clipped at m's last row: the tile's columns
                    r = p.minui(row * tr + k, (mv - 1) if dynamic else p.constant(m - 1))
                    p.prefetch_l1(p.tile(p.slice(a, [r, "_"]), [kk.bx], [tc]), SliceLayout(0, lay))

        if not after:
            prefetch()
        x = p.load(p.tile(a, [kk.by, kk.bx], [tr, tc]), load_layout)
        p.store(x, p.tile(b, [kk.by, kk.bx], [tr, tc]))
        if after:
            prefetch()
    module = p.module
    if dynamic:  # m's value and the buffers' elements, as `--run gpu` and the executor take them
        from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerAttr

        values = {"m": m, "a": (m - 1) * pa + n, "b": (m - 1) * pb + n}
        next(iter(module.ops)).attributes["tilec.args"] = DictionaryAttr(
            {k: IntegerAttr(v, IndexType()) for k, v in values.items()})
    what = "; ".join(f"{kind}{f'+{ahead}' if ahead else ''}{f' {k}' if kind in ('column', 'row') else ''}"
                     f"{' (the load layout)' if lay is load_layout else ''}" for kind, ahead, lay, k in asks)
    summary = (f"{ty} {m}{'?' if dynamic else ''}x{n} pitches {pa}/{pb}, tiles {tr}x{tc}, grid {gx}x{gy}, "
               f"{threads} threads, load {load_layout}; prefetch_l1 {'after the store' if after else 'first'}: {what}")
    return PrefetchProgram(tilec.emit(module, "mlir"), "default", summary, m, n, pa, pb)


@dataclass(frozen=True)
class RealignProgram(Program):
    """A `random_realign_copy` program: `dst[dmis + j . dst_strides] = src[smis + j .
    src_strides]` for every index j of `shape` (strides in elements)."""

    shape: tuple[int, ...] = ()
    src_strides: tuple[int, ...] = ()
    dst_strides: tuple[int, ...] = ()
    smis: int = 0
    dmis: int = 0


REALIGN_TYPES = ["i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"]


def realign_pipeline(prefetch: bool, bulk: bool = False, ends: bool = False, late: bool = False,
                     edges: bool = False) -> str:
    """The default pipeline with the realign strategy taken where it fits
    (`copy-strategy{realign=always}`, as `tilec.copy_`'s plan asks for it), with its
    sector prefetch (the default; with `bulk`, each sector by a bulk prefetch of its
    16-byte block, `tile{realign_prefetch=3}`; with `ends` too, those of each row's first
    and last chunks only, `tile{realign_prefetch=4}`; with `late` too, those after the source
    loads, `tile{realign_prefetch=5}`; with `edges` instead, a row's first and last elements
    unless on a sector boundary, `tile{realign_prefetch=6}`) or without it
    (`tile{realign_prefetch=0}`)."""
    from tilec.compiler.pipeline import expand_pipeline

    mode = 0 if not prefetch else 6 if edges else (5 if late else 4) if ends else 3 if bulk else None
    tile = "tile" if mode is None else f"tile{{realign_prefetch={mode}}}"
    swap = {"copy-strategy": "copy-strategy{realign=always}", "tile": tile}
    return ",".join(swap.get(p, p) for p in expand_pipeline("default").split(","))


def random_realign_copy(rng: random.Random) -> RealignProgram:
    """A copy the realign strategy takes (passes/_realign_tile.py), around its sector
    prefetch (`layout.ptr_prefetch` of the chunks of the 32-byte sectors a destination
    row covers in part, where the rows leave gaps): rows of `n` elements (1 to 80, 1- to
    8-byte integers or floats, 2 to 12 rows) read at a step of 1 from a pointer moved by
    `smis` elements and written to one moved by `dmis` (both run-time arguments, under 16
    bytes), source and destination row pitches of the row or longer (a gap in most
    destinations; never rows that abut on both sides, one contiguous run the strategy
    does not take), rank 2 or 3 (an outer mode past the rows' reach, or abutting it).
    The buffers end at the first 16-byte boundary past the views' reach (the strategy
    reads whole 16-byte chunks of aligned allocations): a load or prefetch past it is an
    error on the executor. Built with `tilec.Program` and printed."""
    import tilec
    from xdsl.dialects import func
    from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerAttr

    ty = rng.choice(REALIGN_TYPES)
    e = ELEMENT_BYTES[ty]
    n = rng.choice([rng.randint(1, 16), rng.randint(2, 80)])
    rows = rng.randint(2, 12)
    sp = n + rng.choice([0, rng.randint(1, 20)])
    dp = n + rng.choice([0, rng.randint(1, 20), rng.randint(1, 20)])
    if sp == dp == n:  # rows that continue each other on both sides: one contiguous run, not realign's
        sp += rng.randint(1, 20)
    shape, sst, dst_ = [rows, n], [sp, 1], [dp, 1]
    if rng.random() < 0.3:
        outer = rng.randint(2, 3)
        shape.insert(0, outer)
        sst.insert(0, rows * sp + rng.choice([0, rng.randint(1, 9)]))
        dst_.insert(0, rows * dp + rng.choice([0, rng.randint(1, 9)]))
    smis, dmis = rng.randrange(16 // e), rng.randrange(16 // e)

    def reach(strides: list[int]) -> int:
        return sum((k - 1) * s for k, s in zip(shape, strides)) + 1

    p = tilec.Program("realign")
    src, dst = p.pointer("src", ty, align=16), p.pointer("dst", ty, align=16)
    sm, dm = p.index("smis", value=smis), p.index("dmis", value=dmis)

    def layout(strides: list[int]) -> str:
        return f"({','.join(map(str, shape))}):({','.join(map(str, strides))})"

    p.copy(p.view(p.addptr(src, sm), layout(sst)), p.view(p.addptr(dst, dm), layout(dst_)))
    module = p.module
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    chunk = 16 // e  # the strategy reads and asks for whole 16-byte chunks of the aligned allocations
    sizes = {"src": -(-(smis + reach(sst)) // chunk) * chunk, "dst": -(-(dmis + reach(dst_)) // chunk) * chunk}
    args = dict(fn.attributes["tilec.args"].data)
    args.update({k: IntegerAttr(v, IndexType()) for k, v in sizes.items()})
    fn.attributes["tilec.args"] = DictionaryAttr(args)
    summary = (f"{ty} {'x'.join(map(str, shape))} src {layout(sst)} +{smis}, dst {layout(dst_)} +{dmis}"
               f"{' (rows abut)' if dp == n else ''}")
    return RealignProgram(tilec.emit(module, "mlir"), realign_pipeline(True), summary, tuple(shape), tuple(sst), tuple(dst_),
                          smis, dmis)


def random_pipeline_for_copy(rng: random.Random, extents: list[int]) -> str:
    """The default pipeline's passes with random valid options (tile extents no larger
    than the copy's: `tile` refuses those with a diagnostic)."""
    threads = rng.choice([32, 64, 128, 256, 512])
    tile_opts = [f"threads={threads}"]
    if rng.random() < 0.6:
        choices = [1, 2, 4, 8, 16, 32, 64, 3, 5, 12]
        tile = [rng.choice([t for t in choices if t <= e]) for e in extents]
        tile_opts.insert(0, "tile=" + ",".join(map(str, tile)))
    passes = [f"tile{{{' '.join(tile_opts)}}}"]
    if rng.random() < 0.5:
        passes.append(f"distribute{{vector-bytes={rng.choice([1, 2, 4, 8, 16])}}}")
    else:
        passes.append("distribute")
    opts = [f"max-bytes={rng.choice([1, 2, 4, 8, 16])}"]
    if rng.random() < 0.3:
        opts.append("async=false")
    passes.append(f"vectorize{{{' '.join(opts)}}}")
    passes.append("remove-layout-conversions" + rng.choice(["", "{reassociate=true}"]))
    passes.append("lower-convert-layout" + rng.choice(["", "{smem_layout=plain}"]))
    passes += ["lower-to-gpu", "canonicalize"]
    if rng.random() < 0.2:
        passes.append("cse")
    return ",".join(passes)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=10, help="programs to write")
    ap.add_argument("--out", required=True, help="directory to write prog_NNN.mlir into")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--funnel", type=int, default=0, help="funnel-shift kernels to write as well (funnel_NNN.mlir)")
    ap.add_argument("--chunks", type=int, default=0,
                    help="copy_chunk_async / cache-hint / prefetch kernels to write as well (chunks_NNN.mlir)")
    ap.add_argument("--prefetch", type=int, default=0,
                    help="layout.prefetch_l1 kernels to write as well (prefetch_NNN.mlir)")
    ap.add_argument("--realign", type=int, default=0,
                    help="copies the realign strategy takes, around its sector prefetch, to write as well "
                         "(realign_NNN.mlir)")
    ap.add_argument("--mbarrier", type=int, default=0,
                    help="valid mbarrier programs to write as well (mbarrier_NNN.mlir, generate_mbarrier.py)")
    ap.add_argument("--cluster", type=int, default=0,
                    help="valid thread-block cluster rings to write as well (cluster_NNN.mlir, generate_cluster.py)")
    ap.add_argument("--atomic", type=int, default=0,
                    help="valid split-K counter programs to write as well (atomic_NNN.mlir, generate_atomic.py)")
    ap.add_argument("--epilogue", type=int, default=0,
                    help="valid epilogue kernels (tanh or a division with afn, cuda.opaque) to write as well (epilogue_NNN.mlir, "
                         "generate_compute.py; `// gpu-check: no` where --run gpu --check cannot bound the result)")
    ap.add_argument("--dsmem", type=int, default=0,
                    help="valid sums through distributed shared memory to write as well (dsmem_NNN.mlir, "
                         "generate_dsmem.py)")
    ap.add_argument("--ex2fma", type=int, default=0,
                    help="epilogue kernels with exp2 on the FMA pipe (tilec.exp2_fma) to write as well "
                         "(ex2fma_NNN.mlir, generate_compute.py)")
    ap.add_argument("--clipped", type=int, default=0,
                    help="TMA rings clipped to a ragged last row of tiles, `tma_load {clip, tail}`, to write as "
                         "well (clipped_NNN.mlir, generate_mbarrier.py)")
    ap.add_argument("--coarsen", type=int, default=0,
                    help="shared-memory round trips for coarsen-grid (some with griddep ops) to write as well "
                         "(coarsen_NNN.mlir, generate_coarsen.py)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from generate_atomic import random_split_k_kernel
    from generate_cluster import random_cluster_kernel
    from generate_coarsen import random_coarsen_kernel
    from generate_compute import random_epilogue_kernel, random_ex2_fma_kernel
    from generate_dsmem import random_dsmem_kernel
    from generate_mbarrier import random_clipped_ring_kernel, random_mbarrier_kernel

    # one stream per kind, so that a seed's copy programs do not depend on --funnel
    for stem, count, make, rng in (
        ("prog", args.count, random_copy_program, random.Random(args.seed)),
        ("funnel", args.funnel, random_funnel_kernel, random.Random(f"funnel{args.seed}")),
        ("chunks", args.chunks, random_chunk_kernel, random.Random(f"chunks{args.seed}")),
        ("prefetch", args.prefetch, random_prefetch_l1_kernel, random.Random(f"prefetch{args.seed}")),
        ("realign", args.realign, random_realign_copy, random.Random(f"realign{args.seed}")),
        ("mbarrier", args.mbarrier, random_mbarrier_kernel, random.Random(f"mbarrier{args.seed}")),
        ("cluster", args.cluster, random_cluster_kernel, random.Random(f"cluster{args.seed}")),
        ("atomic", args.atomic, random_split_k_kernel, random.Random(f"atomic{args.seed}")),
        ("dsmem", args.dsmem, random_dsmem_kernel, random.Random(f"dsmem{args.seed}")),
        ("epilogue", args.epilogue, random_epilogue_kernel, random.Random(f"epilogue{args.seed}")),
        ("coarsen", args.coarsen, random_coarsen_kernel, random.Random(f"coarsen{args.seed}")),
        ("ex2fma", args.ex2fma, random_ex2_fma_kernel, random.Random(f"ex2fma{args.seed}")),
        ("clipped", args.clipped, lambda rng: random_clipped_ring_kernel(rng, tail=True),
         random.Random(f"clipped{args.seed}")),
    ):
        for i in range(count):
            prog = make(rng)
            path = out / f"{stem}_{i:03d}.mlir"
            check = "" if getattr(prog, "gpu_check", True) else "// gpu-check: no\n"
            path.write_text(f"// pipeline: {prog.pipeline}\n// {prog.summary}\n{check}{prog.text}")
            print(f"{path} {prog.pipeline}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
