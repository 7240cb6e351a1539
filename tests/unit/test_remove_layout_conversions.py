"""`remove-layout-conversions` preserves what every lit-test function computes, never
duplicates a store or a load that is not cheap to repeat (Triton's rule: fewer elements
than the block has threads), never adds a conversion that moves data and never makes the
program's weighted cost (`_layout_cost.program_cost`) larger.

Two oracles, on the same random buffers before and after the pass:

* the CPU reference executor at the layout level (`helpers.equivalence.assert_pass_preserves`);
  any failure of it, an executor gap included, fails the test;
* the CPU reference executor at the GPU level: both programs are lowered by
  `lower-convert-layout{smem_layout=plain},lower-to-gpu` (the reference: unpadded,
  unswizzled shared tiles) and `lower-convert-layout,lower-to-gpu` after the pass, then run.
  Every function must lower: a `TilecError` there is a failure.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.ir import Block, Region

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects import layout
from tilec.passes._layout_cost import CostModel, kind_of, program_cost
from tilec.passes._remat_plan import cheap_load
from tilec.runtime.reference import check_equivalence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[2]
LIT = ROOT / "tests" / "filecheck" / "remove-layout-conversions"
SOURCES = sorted(p for p in LIT.glob("*.mlir") if "RUN: tilec %s" in p.read_text()) + [
    ROOT / "examples" / "gluon_in_out_layouts.mlir"
]

REFERENCE = "lower-convert-layout{smem_layout=plain},lower-to-gpu"
LOWERED = "lower-convert-layout,lower-to-gpu"


def split_functions(path: Path) -> list[tuple[str, str]]:
    """(name, module text holding only that function) for each function of a file."""
    module = parse_module(path.read_text(), str(path))
    out = []
    for f in module.body.block.ops:
        if isinstance(f, func.FuncOp):
            m = ModuleOp([f.clone()])
            out.append((f.sym_name.data, emit(m)))
    return out


CASES = [
    pytest.param(text, id=f"{path.stem}-{name}")
    for path in SOURCES
    for name, text in split_functions(path)
]


def _count(module, cls, space=None) -> int:
    n = 0
    for op in module.walk():
        if isinstance(op, cls) and not cheap_load(op):
            view = op.view if isinstance(op, layout.LoadOp | layout.StoreOp) else None
            if space is None or (view is not None and view.type.memory_space == space):
                n += 1
    return n


def _moving_conversions(module) -> int:
    return sum(
        1
        for op in module.walk()
        if isinstance(op, layout.ConvertLayoutOp) and kind_of(op.source.type, op.result.type) != "identity"
    )


@pytest.mark.parametrize("text", CASES)
def test_no_duplicated_memory_access_nor_new_conversion(text):
    before = parse_module(text)
    after = run_pipeline(parse_module(text), "remove-layout-conversions")
    assert _count(after, layout.LoadOp) <= _count(before, layout.LoadOp)
    assert _count(after, layout.StoreOp) == _count(before, layout.StoreOp)
    assert _moving_conversions(after) <= _moving_conversions(before)
    assert program_cost(CostModel(), after) <= program_cost(CostModel(), before)


@pytest.mark.parametrize("text", CASES)
def test_preserves_results_gpu_level(text):
    ref = run_pipeline(parse_module(text), REFERENCE)
    new = run_pipeline(run_pipeline(parse_module(text), "remove-layout-conversions"), LOWERED)
    for seed in (0, 1):
        report = check_equivalence(ref, new, seed)
        assert report, f"results changed: {report}"


@pytest.mark.parametrize("text", CASES)
def test_preserves_results_layout_level(text):
    from helpers.equivalence import assert_pass_preserves

    assert_pass_preserves(text, "remove-layout-conversions")


def test_idempotent():
    for path in SOURCES:
        once = emit(run_pipeline(parse_module(path.read_text()), "remove-layout-conversions"))
        twice = emit(run_pipeline(parse_module(once), "remove-layout-conversions"))
        assert once == twice, path


# ----------------------------------------------------------------------------- random programs

from hypothesis import HealthCheck, given, settings  # noqa: E402
from tilec.passes._layout_cost import conversion_cost  # noqa: E402

from helpers.conversion_programs import loop_branch_programs, programs, region_programs  # noqa: E402


def _conversion_units(module) -> float:
    m = CostModel()
    return sum(
        conversion_cost(m, op.source.type, op.result.type).units
        for op in module.walk()
        if isinstance(op, layout.ConvertLayoutOp)
    )


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_programs(before):
    from helpers.equivalence import assert_pass_preserves

    after = assert_pass_preserves(before, "remove-layout-conversions", seeds=(0,))
    assert _count(after, layout.LoadOp) <= _count(before, layout.LoadOp)
    assert _count(after, layout.StoreOp) == _count(before, layout.StoreOp)
    assert _conversion_units(after) <= _conversion_units(before)
    again = run_pipeline(parse_module(emit(after)), "remove-layout-conversions")
    assert emit(again) == emit(after)


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(region_programs().map(str))
def test_random_region_programs(text):
    """Loops (scf.for, scf.while), uniform branches, small loads, extf: results never
    change, at the layout level and lowered to the GPU level; no store and no load that
    is not cheap is repeated; the weighted cost never grows; a second run changes
    nothing."""
    from helpers.equivalence import assert_pass_preserves

    before = parse_module(text)
    after = assert_pass_preserves(text, "remove-layout-conversions", seeds=(0,))
    assert _count(after, layout.LoadOp) <= _count(before, layout.LoadOp)
    assert _count(after, layout.StoreOp) == _count(before, layout.StoreOp)
    assert program_cost(CostModel(), after) <= program_cost(CostModel(), before)
    ref = run_pipeline(parse_module(text), REFERENCE)
    new = run_pipeline(parse_module(emit(after)), LOWERED)
    assert check_equivalence(ref, new, 0)
    again = run_pipeline(parse_module(emit(after)), "remove-layout-conversions")
    assert emit(again) == emit(after)


def _weighted_conversion_units(module) -> float:
    from tilec.passes._layout_cost import op_cost

    m = CostModel()
    return sum(op_cost(m, op).units for op in module.walk() if isinstance(op, layout.ConvertLayoutOp))


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(loop_branch_programs().map(lambda drawn: (str(drawn[0]), drawn[1])))
def test_random_loop_branch_programs(drawn):
    """Issue 41's shapes (ifs in loops, nested loops, scf.while, dead loop-carried
    values, one-branch conversions): results never change, at the layout level and
    lowered to the GPU level; no store and no load that is not cheap is repeated; the
    weighted cost never grows; what the conversions left move is the floor the
    generator states (every removable byte removed); a second run changes nothing."""
    from helpers.equivalence import assert_pass_preserves

    text, floor = drawn
    before = parse_module(text)
    after = assert_pass_preserves(text, "remove-layout-conversions", seeds=(0,))
    assert _count(after, layout.LoadOp) <= _count(before, layout.LoadOp)
    assert _count(after, layout.StoreOp) == _count(before, layout.StoreOp)
    assert program_cost(CostModel(), after) <= program_cost(CostModel(), before)
    assert _weighted_conversion_units(after) == floor
    ref = run_pipeline(parse_module(text), REFERENCE)
    new = run_pipeline(parse_module(emit(after)), LOWERED)
    assert check_equivalence(ref, new, 0)
    again = run_pipeline(parse_module(emit(after)), "remove-layout-conversions")
    assert emit(again) == emit(after)


# ----------------------------------------------------------------------------- cost model

def _tensor(shape, dtype: str, encoding):
    """`tensor<shape x dtype, encoding>` (the encoding an object or its attribute text)."""
    from xdsl.dialects.builtin import TensorType

    from tilec.compiler.builder_types import element_type, encoding_attr

    return TensorType(element_type(dtype), list(shape), encoding_attr(encoding))


_A = "#layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
_B = "#layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"
_LIN = ("#layout.linear<{register = [[0, 1], [0, 2], [16, 0], [0, 16]], lane = [[1, 0], [2, 0], "
        "[4, 0], [8, 0], [0, 4]], warp = [[0, 8], [0, 0]], block = []}>")


def test_cost_is_bytes_by_conversion_kind():
    from tilec.passes._layout_cost import conversion_cost

    m = CostModel()
    a32, b32 = _tensor([32, 32], "f32", _A), _tensor([32, 32], "f32", _B)
    a16, b16 = _tensor([32, 32], "f16", _A), _tensor([32, 32], "f16", _B)
    assert kind_of(a32, b32) == "shared"
    # shared memory: every source register written and every destination register read
    assert conversion_cost(m, a32, b32).units == (1024 + 1024) * 4
    assert conversion_cost(m, a16, b16).units == (1024 + 1024) * 2
    assert conversion_cost(m, a32, a32).units == 0
    # a small load repeated: its registers' bytes; a large load is not cheap to repeat
    assert m.load(a32) == 1024 * 4


def test_shuffle_moves_32_bit_words():
    from tilec.passes._layout_cost import conversion_cost

    lanes_a = "#layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>"
    lanes_b = ("#layout.linear<{register = [], lane = [[16], [8], [4], [2], [1]], warp = [], block = []}>")
    for et, word in (("f32", 4), ("f16", 4)):
        src, dst = _tensor([32], et, lanes_a), _tensor([32], et, lanes_b)
        assert kind_of(src, dst) == "warp_shuffle"
        assert conversion_cost(CostModel(), src, dst).units == 32 * word


def test_slice_of_linear_has_a_linear_form():
    """The reduction of a #layout.linear tensor: its slice type has a linear form, so
    its conversions are costed by kind (here registers only), not as unknown."""
    from tilec.passes._layout_cost import linear_of

    sl = _tensor([32], "f32", f"#layout.slice<{{dim = 1, parent = {_LIN}}}>")
    sb = _tensor([32], "f32", "#layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 1], "
                 "threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>}>")
    ll = linear_of(sl)
    assert ll is not None
    assert ll.get_bases("register") == [(16,)] and ll.get_bases("lane")[4] == (0,)
    assert kind_of(sl, sb) == "register"


def test_divergent_branch_keeps_its_conversion():
    """A condition that depends on the thread id: threads take different branches, and
    a conversion moves elements between threads, so it is not moved into the branches
    (the reference executor refuses tensors chosen by divergent control flow, so this is
    checked on the IR)."""
    import tilec

    ta = _tensor([32, 32], "f32", _A)
    p = tilec.Program("divergent")
    b = p.view(p.pointer("q", "f32", align=None), "(32,32):(32,1)").named("b")
    c64 = p.constant(64).named("c64")
    f = p.constant(0.25, "f32").named("f")
    with p.launch(grid=(1, 1, 1), threads=128) as k:
        low = p.insert(arith.CmpiOp(k.tid.ssa, c64.ssa, "ult")).results[0].named("low")
        const = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(ta, [1.5]))
        splat = layout.SplatOp.build(operands=[f.ssa], result_types=[ta])
        branches = Block([const, scf.YieldOp(const)]), Block([splat, scf.YieldOp(splat)])
        r = p.insert(scf.IfOp(low.ssa, [ta], Region(branches[0]), Region(branches[1]))).results[0].named("r")
        p.store(p.convert_layout(r, _B).named("w"), b)
    module = p.module
    text = emit(module)
    after = run_pipeline(module, "remove-layout-conversions")
    assert emit(after) == text


# ----------------------------------------------------------------------------- local patterns

def test_local_patterns_fold_chains_and_identities_alone():
    """The pass's local rewrites are xDSL patterns that work on their own: a chain of
    conversions back to the source layout folds away, a conversion to the same type
    goes, an unused one goes, and both branches of a uniform if converting from one
    layout leave one conversion after the if; nothing else changes."""
    from xdsl.dialects import scf
    from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

    from tilec.passes.remove_layout_conversions import LOCAL_PATTERNS

    import tilec

    def program():
        """Chains, an identity, an unused conversion and an if whose branches convert."""
        p = tilec.Program("f")
        a = p.view(p.pointer("p", "f32", align=None), "(32,32):(32,1)").named("a")
        with p.launch(grid=(1, 1, 1), threads=128) as k:
            x = p.load(a, _A).named("x")
            z = p.convert_layout(p.convert_layout(x, _B).named("y"), _A).named("z")
            w = p.convert_layout(z, _A).named("w")
            p.convert_layout(x, _B).named("u")
            first = k.bx.eq(0).named("first")
            tb = _tensor([32, 32], "f32", _B)
            t = layout.ConvertLayoutOp(x.ssa, tb)
            n = arith.NegfOp(x.ssa)
            e = layout.ConvertLayoutOp(n.result, tb)
            branches = Block([t, scf.YieldOp(t)]), Block([n, e, scf.YieldOp(e)])
            r = p.insert(scf.IfOp(first.ssa, [tb], Region(branches[0]), Region(branches[1]))).results[0].named("r")
            p.store(w, a)
            p.store(r, a)
        return p.module

    module = program()
    walker = PatternRewriteWalker(GreedyRewritePatternApplier(list(LOCAL_PATTERNS), dce_enabled=False))
    assert walker.rewrite_module(module)
    module.verify()
    cvts = [op for op in module.walk() if isinstance(op, layout.ConvertLayoutOp)]
    (left,) = cvts  # the if's, after it; the chain, the identity and the unused one went
    assert isinstance(left.source.owner, scf.IfOp)
    stores = [op for op in module.walk() if isinstance(op, layout.StoreOp)]
    assert stores[0].value.owner.name == "layout.load"
    assert stores[1].value is left.result
    assert [op.name for op in module.walk()].count("arith.negf") == 1
    assert check_equivalence(program(), module, 0)
