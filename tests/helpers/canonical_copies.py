"""The canonical copies a user makes with `tilec.copy_`, and the two ways tilec compiles
each: `copy_`'s kernel for the pair of views, and a `tilec.Program` of the same views
(static extents and strides) through the default pipeline.

    for case in CANONICAL:
        dst, src = case.operands()                 # framework-free views (copy_plan.Operand)
        plan = plan_copy(dst, src)
        copy_choice(plan) == program_choice(plan)  # the guard (tests/unit/test_copy_same_kernel.py)

The "same views" are the merged views of the plan (`copy_plan.merge_modes`): the copy a
user would write as a Program after merging what is contiguous in both. A choice is
(strategy, tile, threads): the strategy is "tiled" for the kernel the `tile` pass makes
(the one the Program path always takes), else "box<F>" (its flavour) where the plan
routed the copy to the api/ box kernel, else the strategy the `copy-strategy` pass chose ("gather",
"realign": a realign plan's Program states its misalignments as copy_'s does); the tile and the threads are read from the IR after the `tile` pass.

Each case also says how to make it on a GPU (`src_base`, `index`, `perm`, broadcast to
`shape`), for benchmarks/canonical_copy_bench.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tilec.compiler.builder import Program
from tilec.copy_key import ITEMSIZE
from tilec.copy_plan import VECTOR_BYTES
from tilec.compiler.pipeline import expand_pipeline, run_pipeline
from tilec.dialects.layout import CopyOp, LaunchOp, TileOp

SHORT = {"int8": "i8", "uint8": "i8", "bool": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
         "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64"}
DST_BASE = 1 << 30
SRC_BASE = 1 << 34
"""Byte addresses of the views' bases on the CPU (16-byte aligned, as an allocation is)."""


def c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return tuple(reversed(out))


@dataclass(frozen=True)
class CanonicalCopy:
    """`dst[...] = src` with dst a new C-contiguous `dst_dtype` tensor of the view's
    shape and src `base[index].permute(perm)` of a C-contiguous `src_dtype` tensor of
    shape `base`, broadcast to `shape` when that is given (`index`: per dimension of
    base, (start, stop, step); None: whole)."""

    name: str
    src_dtype: str
    dst_dtype: str
    base: tuple[int, ...]
    perm: tuple[int, ...] | None = None
    index: tuple[tuple[int, int, int], ...] | None = None
    shape: tuple[int, ...] | None = None

    def src_view(self) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """(shape, strides in elements, offset in elements) of src."""
        strides = c_strides(self.base)
        index = self.index or tuple((0, n, 1) for n in self.base)
        shape = tuple(len(range(a, b, c)) for a, b, c in index)
        offset = sum(a * s for (a, _, _), s in zip(index, strides))
        strides = tuple(s * c for (_, _, c), s in zip(index, strides))
        perm = self.perm or tuple(range(len(shape)))
        shape, strides = tuple(shape[p] for p in perm), tuple(strides[p] for p in perm)
        if self.shape is not None:
            lead = len(self.shape) - len(shape)
            strides = (0,) * lead + tuple(0 if n == 1 and m != 1 else s
                                          for n, m, s in zip(shape, self.shape[lead:], strides))
            shape = self.shape
        return shape, strides, offset

    def operands(self):
        """(dst, src) as `copy_plan.Operand`s at 16-byte aligned bases."""
        from tilec.copy_plan import Operand

        shape, strides, offset = self.src_view()
        src = Operand(SRC_BASE + offset * ITEMSIZE[self.src_dtype], self.src_dtype, shape, strides)
        return Operand(DST_BASE, self.dst_dtype, shape, c_strides(shape)), src

    @property
    def num_elements(self) -> int:
        return math.prod(self.src_view()[0])


def _cases() -> list[CanonicalCopy]:
    out = []
    for dt in ("int8", "float16", "bfloat16", "float32", "float64"):
        out.append(CanonicalCopy(f"transpose {dt} 8192x8192", dt, dt, (8192, 8192), (1, 0)))
    for dt in ("int8", "float16", "float32", "float64"):
        out.append(CanonicalCopy(f"transpose {dt} 8191x8209", dt, dt, (8191, 8209), (1, 0)))
    for dt in ("float16", "float32"):
        out.append(CanonicalCopy(f"NHWC->NCHW {dt}", dt, dt, (32, 56, 56, 64), (0, 3, 1, 2)))
        out.append(CanonicalCopy(f"NCHW->NHWC {dt}", dt, dt, (32, 64, 56, 56), (0, 2, 3, 1)))
    out.append(CanonicalCopy("NCHW->NHWC float32 C=3", "float32", "float32", (32, 3, 224, 224), (0, 2, 3, 1)))
    for dt in ("float16", "float32"):
        out.append(CanonicalCopy(f"batched transpose {dt}", dt, dt, (16, 1024, 1024), (0, 2, 1)))
    out.append(CanonicalCopy("head split float16", "float16", "float16", (8, 1024, 16, 64), (0, 2, 1, 3)))
    out.append(CanonicalCopy("head merge float16", "float16", "float16", (8, 16, 1024, 64), (0, 2, 1, 3)))
    out.append(CanonicalCopy("every 2nd row float32", "float32", "float32", (8192, 8192),
                             index=((0, 8192, 2), (0, 8192, 1))))
    out.append(CanonicalCopy("columns 1:-1 float32", "float32", "float32", (8192, 8192),
                             index=((0, 8192, 1), (1, 8191, 1))))
    out.append(CanonicalCopy("row broadcast float32", "float32", "float32", (1, 8192), shape=(8192, 8192)))
    out.append(CanonicalCopy("column broadcast float32", "float32", "float32", (8192, 1), shape=(8192, 8192)))
    out.append(CanonicalCopy("cast float32->bfloat16", "float32", "bfloat16", (8192, 8192)))
    out.append(CanonicalCopy("cast float16->float32", "float16", "float32", (8192, 8192)))
    out.append(CanonicalCopy("transposing cast float32->bfloat16", "float32", "bfloat16", (8192, 8192), (1, 0)))
    # the box strategy's copies (cases 30, 35 and 42 of the strided set,
    # benchmarks/strided_copy_bench.py seed 0; docs/pytorch-cupy.md)
    out.append(CanonicalCopy("box flat bool 19x38647519", "bool", "bool", (38647519, 19), (1, 0)))
    out.append(CanonicalCopy("box cols uint8->int8 rows of 5", "uint8", "int8", (5, 37, 737978), (1, 2, 0)))
    out.append(CanonicalCopy("box rows int8 37x17 in 1691 steps", "int8", "int8", (89, 19, 346, 17, 37),
                             (2, 4, 0, 1, 3)))
    # the realign and gather strategies' copies (cases 19, 08 and 01 of the strided set:
    # their kernels regressed unseen once, 2026-11-29; tests/unit/test_copy_kernel_budget.py)
    out.append(CanonicalCopy("realign int8 columns 1: of 8192x8195", "int8", "int8", (8192, 8195),
                             index=((0, 8192, 1), (1, 8194, 1))))
    out.append(CanonicalCopy("gather int32 column broadcast 2532x6882", "int32", "int32", (2532, 1),
                             shape=(2532, 6882)))
    out.append(CanonicalCopy("gather uint8 rows of 5 at a pitch of 7", "uint8", "uint8", (16777216, 7),
                             index=((0, 16777216, 1), (0, 5, 1))))
    return out


CANONICAL: list[CanonicalCopy] = _cases()


# ----------------------------------------------------------------------------- the two paths

TILE_PREFIX = "expand-iterators,copy-strategy,tile"
"""The passes up to the tile choice."""


def _split(pipeline: str) -> tuple[str, str]:
    """`pipeline` (expanded) cut into the passes up to its `copy-strategy` pass and the
    passes after it up to its `tile` pass."""
    passes = expand_pipeline(pipeline).split(",")
    s = next(i for i, p in enumerate(passes) if p.split("{")[0] == "copy-strategy")
    t = next(i for i, p in enumerate(passes) if p.split("{")[0] == "tile")
    return ",".join(passes[: s + 1]), ",".join(passes[s + 1 : t + 1])


def _read_choice(module, pipeline: str) -> tuple[str, tuple[int, ...] | None, int]:
    """(strategy, tile, threads): the strategy the copy has after `copy-strategy` ("tiled"
    where none), then the tile (None for a gather) and the threads after `tile`."""
    first, rest = _split(pipeline)
    run_pipeline(module, first)
    copies = [op for op in module.walk() if isinstance(op, CopyOp)]
    assert len(copies) == 1, "one copy"
    strategy = copies[0].strategy_name or "tiled"
    run_pipeline(module, rest)
    launches = [op for op in module.walk() if isinstance(op, LaunchOp)]
    tiles = [op for op in module.walk() if isinstance(op, TileOp)]
    assert len(launches) == 1, "one launch"
    tile = tuple(int(x) for x in tiles[0].tile.get_values()) if tiles else None
    return strategy, tile, launches[0].num_threads


def key_strategy(key) -> str:
    """The strategy of the kernel `tilec.copy_` compiles for `key` (under the routes in
    force): the `copy-strategy` pass's ("box<F>", "gather", "realign", "tiled")."""
    from tilec.compiler.pipeline import parse_module
    from tilec.copy_kernels import kernel_pipeline
    from tilec.copy_program import copy_program

    module = parse_module(copy_program(key))
    run_pipeline(module, _split(kernel_pipeline(key, "default"))[0])
    return next(op for op in module.walk() if isinstance(op, CopyOp)).strategy_name or "tiled"


def copy_choice(plan) -> tuple[str, tuple[int, ...] | None, int | None]:
    """(strategy, tile, threads) of the kernel `tilec.copy_` compiles for `plan`."""
    from tilec.compiler.pipeline import parse_module
    from tilec.copy_kernels import kernel_pipeline
    from tilec.copy_program import copy_program

    key = plan.key
    module = parse_module(copy_program(key))
    return _read_choice(module, kernel_pipeline(key, "default"))


def program_of(plan, src_ptr: int | None = None, dst_ptr: int | None = None) -> Program:
    """The `tilec.Program` of the plan's merged views, every extent and stride static.
    `src_ptr` / `dst_ptr`: the addresses of the views' first elements (default the
    plan's; a realigning or box plan moves its own pointers, so a Program of the same
    views is given the operands' first elements), for the pointers' alignment. With the
    plan's pointers, a realign plan's Program states the misalignments (index
    arguments `smis`, `dmis`) as `copy_`'s program does."""
    from tilec.copy_key import needs_conversion

    key = plan.key
    sp = plan.src_ptr if src_ptr is None else src_ptr
    dp = plan.dst_ptr if dst_ptr is None else dst_ptr
    p = Program("same_views")
    src = p.pointer("src", SHORT[key.src_dtype], align=16 if sp % 16 == 0 else ITEMSIZE[key.src_dtype])
    dst = p.pointer("dst", SHORT[key.dst_dtype], align=16 if dp % 16 == 0 else ITEMSIZE[key.dst_dtype])
    if key.aligned_pointers and src_ptr is None and dst_ptr is None:
        # the plan's pointers (aligned down), moved by their misalignments (run-time
        # values, arguments after the pointers, each stated as what it is: less than a
        # 16-byte vector, `mis % (16 / itemsize)`, which the passes read as its bound),
        # as a program that knows its rows are misaligned states them; given the first
        # elements' addresses, the Program takes them as they are
        from xdsl.dialects import arith

        def misaligned(ptr, name: str, dtype: str):
            vec = p.constant(VECTOR_BYTES // ITEMSIZE[dtype])
            mis = p.insert(arith.RemUIOp(p.index(name).ssa, vec.ssa)).results[0]
            return p.addptr(ptr, mis)

        src, dst = misaligned(src, "smis", key.src_dtype), misaligned(dst, "dmis", key.dst_dtype)

    def layout(strides):
        if len(strides) == 1:
            return f"{plan.extents[0]}:{strides[0]}"
        return f"({','.join(map(str, plan.extents))}):({','.join(map(str, strides))})"

    a, b = p.view(src, layout(plan.src_strides)), p.view(dst, layout(plan.dst_strides))
    convert = f"{key.src_dtype}->{key.dst_dtype}" if needs_conversion(key.src_dtype, key.dst_dtype) else None
    p.insert(CopyOp(a.ssa, b.ssa, convert))
    return p


def program_choice(plan) -> tuple[str, tuple[int, ...] | None, int]:
    """(strategy, tile, threads) of the Program of the same views through `-p default`."""
    return _read_choice(program_of(plan).module.clone(), "default")


def program_box_strategy(plan) -> str:
    """The strategy the default pipeline's `copy-strategy` pass chooses for the Program
    of the same views."""
    module = program_of(plan).module.clone()
    first, _ = _split("default")
    run_pipeline(module, first)
    copies = [op for op in module.walk() if isinstance(op, CopyOp)]
    assert len(copies) == 1, "one copy"
    return copies[0].strategy_name or "tiled"
