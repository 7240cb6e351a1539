"""On a GPU: every `math` function, on f32, f64, f16 and bf16 distributed tensors, is
within its documented ulp bound (dialects/math_functions.py, docs/dialect.md) of the
CPU reference executor (float64 rounded once), on inputs spread over the function's
domain; the integer casts, compares and selects on tensors, and `layout.scan`, give bit
for bit what the reference gives."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.dialects.math_functions import MATH_FUNCTIONS, ulp_distance
from tilec.runtime.reference import run

pytestmark = pytest.mark.gpu

_B = "#layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
_DOMAIN = {  # inputs where the function is finite and not trivially 0/1/inf
    "math.exp": (-80, 80), "math.exp2": (-120, 120), "math.log": (1e-30, 1e30),
    "math.log2": (1e-30, 1e30), "math.sqrt": (0, 1e30), "math.rsqrt": (1e-30, 1e30),
    "math.tanh": (-10, 10), "math.erf": (-4, 4), "math.absf": (-1e3, 1e3),
    "math.floor": (-1e3, 1e3), "math.ceil": (-1e3, 1e3), "math.fma": (-1e3, 1e3),
    "math.powf": (1e-3, 30),
}
_SMALL = {"f16": (-8, 8), "bf16": (-8, 8)}  # keep f16 results finite
_LOG_DOMAIN = {"math.log", "math.log2", "math.sqrt", "math.rsqrt"}


def _program(fn, et: str, fast: bool):
    """@f: dst = fn(xs[, ys[, zs]]) over a 32x32 tile of `et` (one block), with the
    fast-math flag `afn` where `fast`."""
    import tilec
    from xdsl.dialects.arith import FastMathFlag, FastMathFlagsAttr

    p = tilec.Program("f")
    a, b, c, d = (p.view(p.pointer(n, et, align=None), "(32,32):(32,1)").named(v)
                  for n, v in (("xs", "a"), ("ys", "b"), ("zs", "c"), ("dst", "d")))
    with p.launch(grid=(1, 1, 1), threads=128):
        xyz = [p.load(v, _B).named(n) for v, n in ((a, "x"), (b, "y"), (c, "z"))]
        op = fn.op(*[v.ssa for v in xyz[: fn.arity]])
        if fast:
            op.properties["fastmath"] = FastMathFlagsAttr([FastMathFlag("afn")])
        r = p.insert(op).results[0].named("r")
        p.store(r, d)
    return p.module


def _inputs(fn, et: str, rng):
    lo, hi = _SMALL.get(et, _DOMAIN[fn.name]) if fn.name not in _LOG_DOMAIN else _DOMAIN[fn.name]
    if et in ("f16", "bf16") and fn.name in _LOG_DOMAIN:
        lo, hi = 1e-3, 1e3
    if fn.name in _LOG_DOMAIN and lo > 0:
        x = np.exp(rng.uniform(np.log(max(lo, 1e-300)), np.log(hi), size=1024))
    else:
        x = rng.uniform(lo, hi, size=1024)
    if fn.name == "math.powf":
        return [x, rng.uniform(-4, 4, size=1024), x]
    return [x, rng.uniform(lo, hi, size=1024), rng.uniform(lo, hi, size=1024)]


def _host(x: np.ndarray, et: str) -> np.ndarray:
    if et == "bf16":
        from tilec.runtime.reference.values import f32_to_bf16

        return f32_to_bf16(x.astype(np.float32))
    return x.astype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[et])


@pytest.mark.parametrize("et", ["f32", "f64", "f16", "bf16"])
@pytest.mark.parametrize("fn", MATH_FUNCTIONS, ids=lambda f: f.name)
def test_math_function_within_documented_ulps(fn, et):
    import cupy as cp

    import tilec

    rng = np.random.default_rng(0)
    xs = [_host(v, et) for v in _inputs(fn, et, rng)]
    poison = _host(np.full(xs[0].shape, np.nan), et)  # NaN in the element type (bf16: its bits)
    want = run(_program(fn, et, fast=False), {"xs": xs[0], "ys": xs[1], "zs": xs[2], "dst": poison.copy()})["dst"]
    dev = [cp.asarray(v) for v in xs] + [cp.asarray(poison)]
    tilec.compile(_program(fn, et, fast=False))(*dev)
    got = cp.asnumpy(dev[3])
    d = ulp_distance(want, got)
    bound = fn.ulp(et)
    i = int(np.argmax(d))
    assert d.max() <= bound, (f"{fn.name} {et}: {d.max()} ulp > {bound} at input "
                              f"{[v[i] for v in xs[:fn.arity]]}: want {want[i]}, got {got[i]}")


@pytest.mark.parametrize("name", ["math.exp", "math.log", "math.powf"])
def test_fastmath_uses_the_intrinsic(name):
    import tilec

    fn = next(f for f in MATH_FUNCTIONS if f.name == name)
    src = tilec.compile(_program(fn, "f32", fast=True)).source
    assert f"{fn.fast}(" in src
    assert f"{fn.c_f32}(" not in src.replace(fn.fast, "")


def _unit(name: str):
    """A program builder of a unit test module (tests/unit/NAME.py)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "unit" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_gpu_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _programs():
    from pathlib import Path

    lower = Path(__file__).parents[1] / "filecheck" / "lower-to-gpu"
    g, r, m, s = _unit("test_gather"), _unit("test_reduce_region"), _unit("test_masked_load_store"), _unit("test_scan_lowering")
    return {
        "gather rows->cols (shared memory)": g.gather_program(g.ROWS, g.COLS),
        "gather rows->rows (in the warp)": g.gather_program(g.ROWS, g.ROWS),
        "argmax over lanes and warps": r.argmax_program([1, 4], [1, 32], [1, 4]),
        "masked load/store": m.MASKED,
        "scan chunks reverse": s.scan_program((2, 2048), s._ROWS, 128, "f32", 1, "add", True),
        "scan max i32": s.scan_program((2, 512), s._ROWS, 128, "i32", 1, "max"),
        "permute": (lower / "permute.mlir").read_text(),
        "join/split": (lower / "join_split.mlir").read_text(),
        "reduce (Gluon tutorial layouts)": (lower / "reduce_gluon_tutorial.mlir").read_text(),
    }


@pytest.mark.parametrize("name", list(_programs()))
def test_compute_programs_match_the_reference_bit_for_bit(name, tmp_path, capsys):
    from tilec.tools.tilec import main

    path = tmp_path / "p.mlir"
    program = _programs()[name]
    path.write_text(program if isinstance(program, str) else str(program))
    for seed in (0, 1):
        assert main([str(path), "--run", "gpu", "--check", "--seed", str(seed)]) == 0
    assert "identical to the CPU reference executor" in capsys.readouterr().out
