"""Guard (1) of issue 35: for every canonical copy (tests/helpers/canonical_copies.py),
the kernel `tilec.copy_` compiles for a pair of views is the kernel the default pipeline
compiles for a `tilec.Program` of the same views: the same strategy, the same tile and
the same threads per block, read from the IR after the `tile` pass; the same index
width in the CUDA (32-bit where copy_'s numbers show it fits, from the same rule); and
for the box copies the same CUDA text but for names and the values one path has as
run-time arguments and the other as constants."""

import pytest
from helpers.canonical_copies import CANONICAL, copy_choice, program_box_strategy, program_choice

import re

from tilec.copy_plan import plan_copy

BOX_CASES = {"box flat bool 19x38647519": "box<flat>", "box cols uint8->int8 rows of 5": "box<cols>",
             "box rows int8 37x17 in 1691 steps": "box<rows>"}
"""The canonical copies the box strategy takes (cases 30, 35, 42 of the strided set), and
its flavour."""

DIVERGES: dict[str, str] = {}
"""Canonical copies whose two kernels still differ, and why (each an expected failure)."""


def _params():
    for case in CANONICAL:
        marks = [pytest.mark.xfail(reason=DIVERGES[case.name], strict=True)] if case.name in DIVERGES else []
        yield pytest.param(case, id=case.name.replace(" ", "_"), marks=marks)


@pytest.mark.parametrize("case", list(_params()))
def test_copy_compiles_the_kernel_of_the_program_of_the_same_views(case):
    plan = plan_copy(*case.operands())
    assert copy_choice(plan) == program_choice(plan)


def _kernels(plan):
    """(copy_'s compiled kernel, the Program's), each as the launch of this copy runs it
    (the Program with the plan's misalignments as its index arguments)."""
    import tilec
    from helpers.canonical_copies import program_of

    from tilec.compiling import compile_program
    from tilec.copy_kernels import kernel_pipeline
    from tilec.copy_program import FUNCTION, copy_program

    mine = compile_program(copy_program(plan.key), kernel_pipeline(plan.key, "default"), function=FUNCTION)
    theirs = tilec.compile(program_of(plan), "default")
    if hasattr(theirs, "specialization"):  # a 32-bit twin for some index arguments: this call's
        theirs = theirs.specialization(None, None, *plan.extra)
    return mine, theirs


def _widths(kernel) -> list[int]:
    return [info.index_bits for info in kernel.infos.values()]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name.replace(" ", "_")) for c in CANONICAL])
def test_copy_kernel_has_the_index_width_of_the_program_kernel(case):
    """The index width is chosen from facts the same way on both paths: a Program of
    static views whose misalignments are stated bounded (`mis % 16`) gets 32-bit
    indices where copy_'s numbers do (the `tile` pass's rules, the launch's promise)."""
    mine, theirs = _kernels(plan_copy(*case.operands()))
    assert _widths(mine) == _widths(theirs)


_STRUCTURE = re.compile(r"\bfor \(|\bif \(|\belse\b|smem\[|src\[|dst\[|tilec_cp_async|reinterpret_cast|__syncthreads")
"""The lines of a kernel that make its structure: loops, branches, memory accesses,
cp.async and barriers (not the index arithmetic between them, which constant folding
shortens where a value is static)."""


def _shape_of_cuda(source: str) -> list[str]:
    """The kernel's structural lines (`_STRUCTURE`) after its signature, each with its
    parameters' and temporaries' names and every integer literal replaced by `#`: its
    loops, branches and accesses in order, with their types."""
    sig, rest = source.split("__global__", 1)[1].split("{", 1)
    params = re.search(r"\w+\(([^()]*)\)\s*$", sig).group(1)
    names = [p.split()[-1] for p in params.split(",")]
    out = []
    for line in rest.splitlines():
        if not _STRUCTURE.search(line):
            continue
        line = re.sub(r"\b(" + "|".join(map(re.escape, names)) + r")\b", "#", line)
        line = re.sub(r"\b[a-z]_?\d*(?:_\d+)?\b|\bt_\d+\b", "#", line)
        out.append(re.sub(r"(?<![\w.])-?\d+\b", "#", line.strip()))
    return out


@pytest.mark.parametrize("name", sorted(BOX_CASES))
def test_box_copy_kernel_is_the_program_kernel_but_for_its_values(name):
    """A box copy's two kernels differ only in names and in which values are run-time
    arguments (copy_'s extents and strides) or constants (the Program's): the same
    index width, the same loops, branches and accesses in the same order."""
    case = next(c for c in CANONICAL if c.name == name)
    mine, theirs = _kernels(plan_copy(*case.operands()))
    assert _widths(mine) == _widths(theirs) == [32]
    assert _shape_of_cuda(mine.source) == _shape_of_cuda(theirs.source)


def _literals(source: str) -> set[str]:
    """The integer literals of a kernel's body (after its `__global__`)."""
    return set(re.findall(r"(?<![\w.])-?\d+\b", source.split("__global__", 1)[1]))


@pytest.mark.parametrize("name", sorted(BOX_CASES))
def test_box_copy_kernel_has_the_layout_constants_of_the_program_kernel(name):
    """A box copy's kernel has no constant the Program's kernel lacks: its box, slots,
    pitch, steps and phase-2 order are the Program's numbers, copy_ only taking some of
    the Program's constants as run-time arguments. (A `box<rows>` copy's key states its
    strides' residues, `copy_key.ROWS_RESIDUES`: without them its box was grown for the
    worst residue's pitch and its slot tables looked up in the kernel.)"""
    case = next(c for c in CANONICAL if c.name == name)
    mine, theirs = _kernels(plan_copy(*case.operands()))
    assert _literals(mine.source) <= _literals(theirs.source)


@pytest.mark.parametrize("name", sorted(BOX_CASES))
def test_box_copies_take_the_box_strategy_on_both_paths(name):
    """copy_'s program and the copy-strategy pass on the Program of the same
    views choose the box strategy of the same flavour, from one rule
    (passes/_copy_cost.box_flavour)."""
    case = next(c for c in CANONICAL if c.name == name)
    plan = plan_copy(*case.operands())
    assert copy_choice(plan) == (BOX_CASES[name], None, 256)
    assert program_box_strategy(plan) == BOX_CASES[name]


def test_every_element_size_has_square_and_odd_transposes():
    sizes = {1, 2, 4, 8}
    for kind in ("8192x8192", "8191x8209"):
        got = {int(c.src_dtype[-2:]) // 8 if c.src_dtype[-2:].isdigit() else 1
               for c in CANONICAL if c.name.startswith("transpose ") and kind in c.name}
        assert got == sizes, kind


def _random_copies(n: int, seed: int):
    """Random strided copies: ranks 2-4, short odd and long extents, permutes, steps,
    broadcasts, casts, offsets that keep or break 16-byte alignment."""
    import numpy as np

    from tilec.copy_plan import Operand

    rng = np.random.default_rng(seed)
    pairs = [("float32", "float32"), ("float16", "float16"), ("int8", "int8"), ("float32", "bfloat16"),
             ("int16", "float32"), ("float64", "float64")]
    for _ in range(n):
        rank = int(rng.integers(2, 5))
        base = [int(rng.choice([rng.integers(2, 10), rng.integers(15, 70), rng.integers(100, 300)])) for _ in range(rank)]
        strides, acc = [], 1
        for e in reversed(base):
            strides.insert(0, acc)
            acc *= e
        step = int(rng.choice([1, 1, 2]))
        strides[0] *= step
        perm = [int(p) for p in rng.permutation(rank)]
        shape = [base[p] for p in perm]
        sstr = [strides[p] for p in perm]
        if rng.random() < 0.3:
            k = int(rng.integers(rank))
            sstr[k] = 0
        sd, dd = pairs[int(rng.integers(len(pairs)))]
        off = int(rng.choice([0, 0, 1, 4]))
        dstr, acc = [], 1
        for e in reversed(shape):
            dstr.insert(0, acc)
            acc *= e
        yield Operand(1 << 30, dd, tuple(shape), tuple(dstr)), Operand((1 << 34) + off * 16 // 4 * 4, sd, tuple(shape),
                                                                        tuple(sstr))


def test_random_copies_take_the_strategy_of_the_program_of_the_same_views():
    """Over random copies, the strategy the passes choose from the facts copy_ states is
    the one they choose from the static views (a realign
    program's views state their misalignments as run-time values, as copy_'s do; tiles may differ where a static extent above 64 is shorter than the tile the
    pass wants, which copy_'s run-time extent does not show: docs/pytorch-cupy.md)."""
    checked, gathers = 0, 0
    for dst, src in _random_copies(40, 35):
        plan = plan_copy(dst, src)
        got, want = copy_choice(plan), program_choice(plan)
        assert got[0] == want[0], (dst, src)
        if got[0] == "gather":
            assert got == want
            gathers += 1
        checked += 1
    assert checked >= 25 and gathers >= 3


def test_random_byte_copies_take_the_box_strategy_of_the_program_of_the_same_views():
    """Over random transposes of 1-byte elements (short odd, power-of-two and long
    extents), copy_'s program takes the box strategy of a flavour exactly where the
    copy-strategy pass takes the Program of the same views for the box
    strategy of that flavour: one rule, passes/_copy_cost.box_flavour."""
    import numpy as np

    from helpers.canonical_copies import c_strides, key_strategy

    from tilec.copy_plan import Operand

    rng = np.random.default_rng(35)
    seen = set()
    for _ in range(60):
        rank = int(rng.integers(2, 5))
        base = tuple(int(rng.choice([rng.integers(3, 10), rng.integers(15, 70), 8, 32, rng.integers(100, 3000)]))
                     for _ in range(rank))
        perm = [int(p) for p in rng.permutation(rank)]
        st = c_strides(base)
        shape, sstr = tuple(base[p] for p in perm), tuple(st[p] for p in perm)
        sd, dd = [("int8", "int8"), ("uint8", "int8"), ("bool", "bool")][int(rng.integers(3))]
        plan = plan_copy(Operand(1 << 30, dd, shape, c_strides(shape)), Operand(1 << 34, sd, shape, sstr))
        got = key_strategy(plan.key)
        got = got if got.startswith("box") else None
        want = program_box_strategy(plan)
        assert got == (want if want.startswith("box") else None), (shape, sstr)
        seen.add(got)
    assert {"box<flat>", "box<cols>", None} <= seen


VECTOR_EDGES = ("NCHW->NHWC float16", "NHWC->NCHW float16", "transpose int8 8192x8192", "batched transpose float16")
"""Tiled canonical copies whose extents copy_ has at run time, each a multiple of the
16-byte vector along the modes the views move vectors along."""


@pytest.mark.parametrize("name", VECTOR_EDGES)
def test_copy_masks_its_edge_tiles_a_vector_at_a_time_as_the_program(name):
    # copy_'s key states the extents' divisibility (`CopyKey.extent_divisors`), so its
    # masked path moves whole vectors as the Program's does: no element-wise global access
    from tilec.compiler.pipeline import emit, parse_module, run_pipeline
    from tilec.copy_kernels import kernel_pipeline
    from tilec.copy_program import copy_program

    case = next(c for c in CANONICAL if c.name == name)
    key = plan_copy(*case.operands()).key
    from tilec.copy_key import ITEMSIZE

    assert key.extent_divisors and max(key.extent_divisors) * ITEMSIZE[case.src_dtype] == 16
    module = parse_module(copy_program(key))
    run_pipeline(module, kernel_pipeline(key, "default"))
    cuda = emit(module, "cuda")
    assert not re.search(r"= src\[|dst\[[^]]*\] = ", cuda)
