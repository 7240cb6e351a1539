"""The AxisInfo analysis of passes/_axis_info.py: its rules hold on random values that
satisfy their operands' facts (a property test against NumPy), the facts of the
offsets a Gluon kernel computes are Triton's, and the access widths follow."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tilec
from tilec.dialects import layout_ptr as lp
from tilec.dialects.layout_attrs import to_linear
from tilec.passes._axis_info import AxisInfo, AxisInfoAnalysis, access_width

N = 64
POW = [1, 2, 4, 8, 16, 32, 64]


def sample(info: AxisInfo, rng) -> np.ndarray:
    """Random 1-D values of N elements with the facts `info` states."""
    (c,), (d,), (k,) = info.contiguity, info.divisibility, info.constancy
    out = np.empty(N, np.int64)
    if c > 1:
        for s in range(0, N, c):
            out[s : s + c] = d * int(rng.integers(-50, 50)) + np.arange(c)
    else:
        for s in range(0, N, k):
            out[s : s + k] = d * int(rng.integers(-50, 50))
    return out


def holds(info: AxisInfo, x: np.ndarray) -> bool:
    (c,), (d,), (k,) = info.contiguity, info.divisibility, info.constancy
    runs = x.reshape(-1, c)
    if not (runs == runs[:, :1] + np.arange(c)).all() or (runs[:, 0] % d).any():
        return False
    groups = x.reshape(-1, k)
    return bool((groups == groups[:, :1]).all())


def infos():
    for c, d in itertools.product(POW, [1, 2, 4, 16, 64]):
        yield AxisInfo((c,), (d,), (1,))
    for k, d in itertools.product(POW[1:], [1, 2, 4, 16, 64]):
        yield AxisInfo((1,), (d,), (k,))


ALL = list(infos())


@pytest.mark.parametrize("rule", ["add", "sub", "mul"])
def test_arithmetic_rules_hold_on_random_values(rule):
    rng = np.random.default_rng(0)
    op = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[rule]
    for a, b in itertools.product(ALL, ALL):
        if rule == "mul":
            got = AxisInfoAnalysis._mul(a, b)
        else:
            got = AxisInfoAnalysis._add(a, b, rule == "sub", 1)
        for _ in range(3):
            x, y = sample(a, rng), sample(b, rng)
            assert holds(got, op(x, y)), (rule, a, b, got)


@pytest.mark.parametrize("pred", ["slt", "sge", "sgt", "sle"])
def test_compare_constancy_holds_on_random_values(pred):
    rng = np.random.default_rng(1)
    op = {"slt": np.less, "sge": np.greater_equal, "sgt": np.greater, "sle": np.less_equal}[pred]
    for a, b in itertools.product(ALL, ALL):
        got = AxisInfoAnalysis._cmp(pred, a, b, (N,))
        for _ in range(3):
            m = op(sample(a, rng), sample(b, rng))
            g = m.reshape(-1, got.constancy[0])
            assert (g == g[:, :1]).all(), (pred, a, b, got)


def test_compare_against_a_run_is_not_constant_for_le():
    """x <= n over a run changes inside an aligned group (n, n+1): no constancy."""
    run, n = AxisInfo((64,), (64,), (1,)), AxisInfo((1,), (64,), (64,))
    assert AxisInfoAnalysis._cmp("slt", run, n, (64,)).constancy == (64,)
    assert AxisInfoAnalysis._cmp("sle", run, n, (64,)).constancy == (1,)


def test_a_sum_of_runs_loses_the_divisibility_of_its_starts():
    """arange + arange = 0, 2, 4, ..: not contiguous, and its elements are multiples of
    2 only (Triton's gcd rule would keep the runs' start divisibility)."""
    a = AxisInfo((64,), (1 << 30,), (1,))
    got = AxisInfoAnalysis._add(a, a, False, 1)
    assert got.contiguity == (1,) and got.divisibility == (1,)


def kernel():
    """Triton's row-major tile of pointers: rows = pid * 16 + arange(16), offsets
    rows * 96 + cols over a 16x32 tile of #b, masks cols < n and cols < 24, a masked
    pointer load."""
    b = tilec.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    sx, sy = tilec.SliceLayout(1, b), tilec.SliceLayout(0, b)
    p = tilec.Program("k")
    src, n = p.pointer("src", "f32", align=16), p.index("n")
    with p.launch(grid=(1, 1, 1), threads=128) as k:
        row0 = (k.bx.cast("i32").named("pid") * 16).named("row0")
        ax, ay = p.arange(0, 16, sx).named("ax"), p.arange(0, 32, sy).named("ay")
        rows = (p.splat(row0, [16], sx).named("r0") + ax).named("rows")
        r1, c1r = p.expand_dims(rows, 1).named("r1"), p.expand_dims(ay, 0).named("c1r")
        r, c = p.broadcast(r1, [16, 32]).named("r"), p.broadcast(c1r, [16, 32]).named("c")
        rs = (r * p.full([16, 32], 96, "i32", b, dense=True).named("ld")).named("rs")
        offs = (rs + c).named("offs")
        (c < p.splat(n.cast("i32").named("n32"), [16, 32], b).named("ns")).named("m")
        m2 = (c < p.full([16, 32], 24, "i32", b, dense=True).named("w")).named("m2")
        q = p.addptr(p.splat(src, [16, 32], b).named("p"), offs).named("q")
        p.ptr_load(q, mask=m2).named("v")
    return p.module


def _values():
    module = kernel()
    names = {}
    for op in module.walk():
        for r in op.results:
            if r.name_hint:
                names[r.name_hint] = r
    return module, names


def test_facts_of_a_row_major_tile_of_offsets():
    """rows * 96 + cols of a 16x32 tile, rows = pid * 16 + arange(16): the rows are
    contiguous along dim 0 and constant along dim 1; times 96, every element is a
    multiple of 32; plus the columns, runs of 32 along dim 1 starting at multiples of
    32; the pointer's byte divisibility along dim 1 is min(16, 32 * 4), along dim 0
    only the element size."""
    _, v = _values()
    a = AxisInfoAnalysis()
    assert a.get(v["rows"]) == AxisInfo((16,), (16,), (1,))
    assert a.get(v["r"]) == AxisInfo((16, 1), (16, 1), (1, 32))
    assert a.get(v["c"]) == AxisInfo((1, 32), (1, 1 << 30), (16, 1))
    assert a.get(v["rs"]) == AxisInfo((1, 1), (32, 32), (1, 32))
    assert a.get(v["offs"]) == AxisInfo((1, 32), (1, 32), (1, 1))
    assert a.get(v["q"]).divisibility == (4, 16)
    assert a.get(v["m"]).constancy == (16, 1)  # n unknown: no constancy along the rows
    assert a.get(v["m2"]).constancy == (16, 8)  # 24 is a multiple of 8


def test_access_width_of_the_tile():
    """4 f32 per thread along dim 1, addresses contiguous by 32 and 16-byte aligned:
    16-byte vectors; the mask `cols < 24` is constant over each (8 | 24)."""
    _, v = _values()
    a = AxisInfoAnalysis()
    load = v["v"].owner
    assert isinstance(load, lp.PtrLoadOp)
    t = load.ptrs.type
    ll = to_linear(t.encoding, list(t.get_shape()))
    w = access_width(ll, a.get(load.ptrs), a.get(load.mask), 4, 16)
    assert (w.vector, w.uniform_mask, w.dim) == (4, True, 1)
    assert access_width(ll, a.get(load.ptrs), a.get(v["m"]), 4, 16).uniform_mask is False
    assert access_width(ll, a.get(load.ptrs), None, 4, 8).vector == 2
    assert access_width(ll, a.get(load.ptrs), None, 2, 16).vector == 4  # f16: 4 registers only


def loops():
    """Three loops to n: from 0 by 96, from an unknown %lo by 96, from 0 by 1; each
    casts its induction variable (x, y, z)."""
    p = tilec.Program("k")
    n, lo = p.index("n"), p.index("lo")
    for start, step, name in ((0, 96, "x"), (lo, 96, "y"), (0, 1, "z")):
        with p.range(start, n, step) as i:
            i.cast("i32").named(name)
    return p.module


def test_the_induction_variable_of_a_loop_over_chunks_keeps_its_divisibility():
    """`for off in range(0, n, 96)`: off is a multiple of 32 (96's power-of-two
    factor) at every trip, as Triton's AxisInfo says of an scf.for induction variable;
    from an unknown lower bound, or with step 1, nothing is known."""
    module = loops()
    names = {r.name_hint: r for op in module.walk() for r in op.results if r.name_hint}
    a = AxisInfoAnalysis()
    assert a.get(names["x"]) == AxisInfo((1,), (32,), (1,))
    assert a.get(names["y"]).divisibility == (1,)
    assert a.get(names["z"]).divisibility == (1,)
