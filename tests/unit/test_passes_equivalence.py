"""`tile`, `distribute` and `vectorize` preserve what a program computes.

Two oracles run each program before and after the passes on the same random buffers:

* the CPU reference executor (`helpers.equivalence.assert_pass_preserves`), the project's
  oracle; any failure of it (an executor gap included) fails the test;
* `LayoutOracle` below: a small NumPy interpreter of the layout-level ops these passes
  produce (views, tiles, vectorize, distribute, copies, loads, stores; barriers and
  waits are no-ops, a distributed value is its logical tensor). It runs each thread's
  fragments for real, so a wrong thread layout, tile offset or mask shows up.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp

import tilec

from tilec.compiler.pipeline import parse_module, run_pipeline
from tilec.dialects import cute, views
from tilec.dialects.layout import (
    AllocOp,
    AsyncWaitOp,
    BarrierOp,
    ConvertLayoutOp,
    CopyAsyncOp,
    CopyOp,
    DistributeOp,
    LaunchOp,
    LoadOp,
    StoreOp,
    TileOp,
    VectorizeOp,
    ViewOp,
)
from tilec.dialects.layout_attrs import element_bytes

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers.budget import examples  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PIPELINES = ["tile", "tile,distribute", "tile,distribute,vectorize"]

# ----------------------------------------------------------------------------- oracle

_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8}


class View:
    def __init__(self, buf, base, layout, vec=None, mask=None):
        self.buf, self.base, self.layout, self.vec, self.mask = buf, base, layout, vec, mask

    def elements(self):
        """(flat offsets, valid) of every element, logical order, lanes innermost."""
        n = self.layout.size()
        idx = np.arange(n, dtype=np.int64)
        off = self.base + np.asarray(views.eval_layout(self.layout, idx), dtype=np.int64)
        xs = views.mode_coords(self.layout, idx)
        nl = 1 if self.vec is None else self.vec.size()
        lanes = np.arange(nl, dtype=np.int64)
        if self.vec is not None:
            loff = np.asarray(views.eval_layout(self.vec, lanes), dtype=np.int64)
            lcs = views.mode_coords(self.vec, lanes)
        else:
            loff, lcs = np.zeros(1, dtype=np.int64), None
        offs = (off[:, None] + loff[None, :]).reshape(-1)
        if self.mask is None:
            return offs, np.ones(offs.shape, bool)
        xs_b = [np.repeat(np.asarray(x).reshape(-1, 1), nl, 1).reshape(-1) for x in xs]
        lanes_b = None
        if lcs is not None:
            lanes_b = [np.tile(np.asarray(c).reshape(1, -1), (n, 1)).reshape(-1) for c in lcs]
        valid = self.mask.valid(xs_b, lanes_b)
        return offs, np.broadcast_to(np.asarray(valid, bool), offs.shape)


class LayoutOracle:
    """Runs a module's first function on {ptr arg name: 1-D array} in place."""

    def __init__(self, module):
        self.func = next(o for o in module.walk() if o.name == "func.func")

    def run(self, buffers: dict[str, np.ndarray]) -> None:
        env = {}
        names = [a.name_hint for a in self.func.body.block.args]
        for a, name in zip(self.func.body.block.args, names):
            env[a] = buffers.get(name)
        self._block(self.func.body.block.ops, env)

    def _block(self, ops, env):
        for op in ops:
            self._op(op, env)

    def _op(self, op, env):
        n = op.name
        if n == "func.return":
            return
        if n == "arith.constant":
            env[op.results[0]] = op.value.value.data
            return
        if n.startswith("arith."):
            a, b = (env[x] for x in op.operands)
            f = {
                "arith.ceildivui": lambda a, b: -(-a // b),
                "arith.divui": lambda a, b: a // b,
                "arith.remui": lambda a, b: a % b,
                "arith.muli": lambda a, b: a * b,
                "arith.addi": lambda a, b: a + b,
            }[n]
            env[op.results[0]] = f(a, b)
            return
        if isinstance(op, ViewOp):
            assert not op.dynamic, "the oracle runs static views only"
            env[op.result] = View(env[op.source], 0, op.result.type.cute_layout)
        elif isinstance(op, AllocOp):
            t = op.result.type
            env[op.result] = View(np.zeros(t.cute_layout.cosize(), _np_dtype(t)), 0, t.cute_layout)
        elif isinstance(op, LaunchOp):
            grid = [env[v] for v in (op.grid_x, op.grid_y, op.grid_z)]
            for bz in range(grid[2]):
                for by in range(grid[1]):
                    for bx in range(grid[0]):
                        for tid in range(op.num_threads):
                            benv = dict(env)
                            for arg, v in zip(op.body.block.args, (bx, by, bz, tid)):
                                benv[arg] = v
                            self._block(op.body.block.ops, benv)
                            if not any(_thread_dependent(o) for o in op.body.block.ops):
                                break  # every thread does the same (redundant) work
        elif isinstance(op, TileOp):
            src, t = env[op.source], op.tile_sizes
            coords = [env[c] for c in op.coords]
            lay, masked = views.tile_layout(src.layout, t)
            base = src.base + sum(
                int(views.eval_mode(m, c * k)) for m, c, k in zip(views.modes(src.layout), coords, t)
            )
            mask = src.mask.tile(t, coords) if src.mask else (
                views.MaskMap.for_tile(src.layout, t, coords) if masked else None
            )
            env[op.result] = View(src.buf, base, lay, src.vec, mask)
        elif isinstance(op, VectorizeOp):
            src = env[op.source]
            outer, vec = views.vectorize_layout(src.layout, op.vector_sizes)
            mask = src.mask.vectorize(op.vector_sizes) if src.mask else None
            env[op.result] = View(src.buf, src.base, outer, vec, mask)
        elif isinstance(op, DistributeOp):
            src, thr, tid = env[op.source], op.thread_layout, env[op.tid]
            c = views.thread_coord(thr, tid)
            lay, masked = views.distribute_layout(src.layout, thr)
            base = src.base + sum(int(views.eval_mode(m, x)) for m, x in zip(views.modes(src.layout), c))
            counts = [m.size() for m in views.modes(thr)]
            mask = src.mask
            if mask is None and masked:
                k = len(counts)
                mask = views.MaskMap((0,) * k, (1,) * k, (1,) * k, views.mode_sizes(src.layout))
            if mask is not None:
                mask = mask.distribute(counts, c)
            env[op.result] = View(src.buf, base, lay, src.vec, mask)
        elif isinstance(op, CopyOp | CopyAsyncOp):
            s, d = env[op.source], env[op.dest]
            so, sv = s.elements()
            do, dv = d.elements()
            ok = sv & dv
            d.buf[do[ok]] = s.buf[so[ok]]
        elif isinstance(op, LoadOp):
            v = env[op.view]
            o, ok = v.elements()
            vals = np.zeros(o.shape, v.buf.dtype)
            vals[ok] = v.buf[o[ok]]
            env[op.result] = vals
        elif isinstance(op, StoreOp):
            v = env[op.view]
            o, ok = v.elements()
            v.buf[o[ok]] = env[op.value][ok]
        elif isinstance(op, ConvertLayoutOp):
            env[op.result] = env[op.source]
        elif isinstance(op, BarrierOp | AsyncWaitOp):
            pass
        else:
            raise NotImplementedError(op.name)


def _thread_dependent(op) -> bool:
    return isinstance(op, DistributeOp) or any(_thread_dependent(o) for r in op.regions for o in r.walk())


def _np_dtype(t):
    return {1: np.int8, 2: np.float16, 4: np.float32, 8: np.float64}[element_bytes(t.element_type)]


def _buffers(module, seed):
    """Random buffers for every pointer argument, sized by the views of it."""
    rng = np.random.default_rng(seed)
    func = next(o for o in module.walk() if o.name == "func.func")
    sizes, types = {}, {}
    for op in func.walk():
        if isinstance(op, ViewOp):
            name = op.source.name_hint
            sizes[name] = max(sizes.get(name, 0), op.result.type.cute_layout.cosize())
            types[name] = op.result.type
    out = {}
    for name, n in sizes.items():
        dt = _np_dtype(types[name])
        if np.issubdtype(dt, np.integer):
            out[name] = rng.integers(-100, 100, n).astype(dt)
        else:
            out[name] = rng.standard_normal(n).astype(dt)
    return out


def _fresh(program: str | ModuleOp) -> ModuleOp:
    """A module of its own: `program` parsed (an example file's text) or cloned."""
    return parse_module(program) if isinstance(program, str) else program.clone()


def oracle_preserves(program: str | ModuleOp, pipeline: str, seed: int = 0):
    before = _fresh(program)
    after = run_pipeline(_fresh(program), pipeline)
    b0 = _buffers(before, seed)
    b1 = {k: v.copy() for k, v in b0.items()}
    LayoutOracle(before).run(b0)
    LayoutOracle(after).run(b1)
    for k in b0:
        assert np.array_equal(b0[k], b1[k]), f"{pipeline}: buffer {k} differs"
    return after


_NUMPY = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i8": np.int8}


def numpy_oracle(src: str, dst: str, pipeline: str, ty: str = "f32", align: int = 16, seed: int = 0):
    """The independent oracle (helpers.copy_oracle: the layouts' text and plain index
    arithmetic, no tilec code) against the reference executor before `pipeline`, after
    it, and after lowering it to the GPU level (when it distributes), and against
    `LayoutOracle` after it; the destination starts random, so an element written that
    should not be, or not written, shows. Each run after the pipeline is audited: it
    writes exactly the destination view's footprint. At the layout level a store of a
    replicated (broadcast) tensor is written by each owner, by definition; after
    lower-to-gpu (which decides who stores) every element is written by one thread only
    (a strict audit)."""
    from helpers.copy_oracle import cosize, expected_copy, offsets

    from tilec.runtime.reference import audit_writes, run

    rng = np.random.default_rng(seed)
    dtype = _NUMPY[ty]

    def buffer(layout):
        n = cosize(layout)
        if dtype == np.int8:
            return rng.integers(-128, 128, n).astype(np.int8)
        return rng.standard_normal(n).astype(dtype)

    a, b = buffer(src), buffer(dst)
    want = expected_copy(src, dst, a, b)
    got = run(copy_program(src, dst, ty, align), {"src": a, "dst": b})["dst"]
    assert np.array_equal(got, want), "before: dst differs from NumPy's copy"
    after = run_pipeline(copy_program(src, dst, ty, align), pipeline)
    footprint = np.zeros(b.shape[0], bool)
    footprint[offsets(dst).ravel()] = True
    levels = [("layout level", after, False)]
    if "distribute" in pipeline:
        lowered = run_pipeline(after.clone(), "lower-convert-layout,lower-to-gpu")
        levels.append(("GPU level", lowered, True))
    for level, module, strict in levels:
        with audit_writes(strict=strict) as audit:
            got = run(module, {"src": a, "dst": b})["dst"]
        assert np.array_equal(got, want), f"{level} after {pipeline}: dst differs from NumPy's copy"
        assert np.array_equal(audit.written["%dst"], footprint), f"{level} after {pipeline}: writes outside the view"
        assert "%src" not in audit.written, f"{level} after {pipeline}: the source was written"
    bufs = {"src": a.copy(), "dst": b.copy()}
    LayoutOracle(after).run(bufs)
    assert np.array_equal(bufs["dst"], want), f"LayoutOracle after {pipeline}: dst differs from NumPy's copy"
    return after


def executor_preserves(text: str | ModuleOp, pipeline: str):
    """The project oracle: the reference executor before and after the passes. An
    executor gap is a failure here, never a skip: a pass that emits an op the executor
    cannot run would otherwise switch its own oracle off."""
    from helpers.equivalence import assert_pass_preserves

    return assert_pass_preserves(text, pipeline)


# ----------------------------------------------------------------------------- programs


def copy_program(src: str, dst: str, ty: str = "f32", align: int = 16) -> ModuleOp:
    """@copy: a whole-tensor copy from layout `src` to `dst` of `ty` elements."""
    p = tilec.Program("copy")
    a = p.view(p.pointer("src", ty, align=align), src).named("a")
    b = p.view(p.pointer("dst", ty, align=align), dst).named("b")
    p.copy(a, b)
    return p.module


CASES = {
    "row_major": ("(64,96):(96,1)", "(64,96):(96,1)"),
    "column_major": ("(64,96):(1,64)", "(64,96):(1,64)"),
    "transposed": ("(64,64):(64,1)", "(64,64):(1,64)"),
    "nested": ("((4,16),(8,8)):((16,512),(1,64))", "(64,64):(1,64)"),
    "strided_rows": ("(32,64):(128,1)", "(32,64):(64,1)"),
    "one_d": ("1000:1", "1000:1"),
    "three_d": ("(3,20,48):(960,48,1)", "(3,20,48):(1,3,60)"),
    "masked": ("(50,70):(70,1)", "(50,70):(1,50)"),
}
SMALL_TILES = {1: "64", 2: "16,32", 3: "2,8,16"}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("pipeline", PIPELINES)
def test_oracle_cases(case, pipeline):
    src, dst = CASES[case]
    rank = len(views.modes(cute.parse_layout(src)))
    spec = pipeline.replace("tile", f"tile{{tile={SMALL_TILES[rank]} threads=64}}", 1)
    oracle_preserves(copy_program(src, dst), spec)
    numpy_oracle(src, dst, spec)


@pytest.mark.parametrize("ty", ["f16", "f64", "i8"])
def test_oracle_element_types(ty):
    after = oracle_preserves(
        copy_program("(32,64):(64,1)", "(32,64):(1,32)", ty), "tile{tile=16,16 threads=64},distribute,vectorize"
    )
    assert "layout.convert_layout" in str(after)


@pytest.mark.parametrize("name", ["memcpy_1d", "transpose", "strided_rows"])
def test_oracle_examples_shrunk(name):
    text = (EXAMPLES / f"{name}.mlir").read_text()
    text = text.replace("1048576", "8192").replace("1024", "128").replace("512", "64")
    oracle_preserves(text, "tile{threads=128},distribute,vectorize")


@pytest.mark.parametrize("name", ["gluon_memcpy_2d", "gluon_in_out_layouts"])
def test_oracle_gluon_examples(name):
    oracle_preserves((EXAMPLES / f"{name}.mlir").read_text(), "distribute,vectorize")


def smem_stage() -> ModuleOp:
    """16x32 tiles of a 64x64 copied through a column-major shared tile."""
    p = tilec.Program("stage")
    a = p.view(p.pointer("p", "f32", align=16), "(64,64):(64,1)").named("a")
    b = p.view(p.pointer("q", "f32", align=16), "(64,64):(64,1)").named("b")
    with p.launch(grid=(4, 2, 1), threads=64) as k:
        ta = p.tile(a, [k.bx, k.by], [16, 32]).named("ta")
        tb = p.tile(b, [k.bx, k.by], [16, 32]).named("tb")
        s = p.alloc("(16,32):(1,16)", "f32", "smem").named("s")
        p.copy(ta, s)
        p.copy(s, tb)
    return p.module


def test_oracle_smem_staging():
    after = oracle_preserves(smem_stage(), "distribute,vectorize")
    assert "layout.copy_async" in str(after)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_oracle_random_copies(data):
    """Random same-shape layouts (permuted compact strides, maybe padded), random tile
    and thread options: every stage of tile,distribute,vectorize preserves the copy."""
    rank = data.draw(st.integers(1, 3))
    shape = [data.draw(st.integers(1, 40 if rank < 3 else 12)) for _ in range(rank)]

    def layout():
        order = data.draw(st.permutations(range(rank)))
        pad = data.draw(st.sampled_from([0, 0, 1, 4]))
        stride, acc = [0] * rank, 1
        for k in order:
            stride[k] = acc
            acc *= shape[k] + (pad if k == order[0] else 0)
        if rank == 1:
            return f"{shape[0]}:{stride[0]}"
        return f"({','.join(map(str, shape))}):({','.join(map(str, stride))})"

    ty = data.draw(st.sampled_from(["f32", "f16", "f64", "i8"]))
    tile = ",".join(str(data.draw(st.sampled_from([t for t in (1, 2, 4, 8, 16, 32) if t <= n] or [1])))
                    for n in shape)
    threads = data.draw(st.sampled_from([32, 64, 128]))
    src, dst = layout(), layout()
    text = copy_program(src, dst, ty, align=16)
    for stage in PIPELINES:
        oracle_preserves(text, stage.replace("tile", f"tile{{tile={tile} threads={threads}}}", 1))
    numpy_oracle(src, dst, PIPELINES[-1].replace("tile", f"tile{{tile={tile} threads={threads}}}", 1), ty)


# ----------------------------------------------------------------------------- reference executor


@pytest.mark.parametrize("case", sorted(CASES))
def test_executor_cases(case):
    src, dst = CASES[case]
    rank = len(views.modes(cute.parse_layout(src)))
    pipeline = f"tile{{tile={SMALL_TILES[rank]} threads=64}},distribute,vectorize"
    executor_preserves(copy_program(src, dst), pipeline)
    numpy_oracle(src, dst, pipeline, seed=1)


def test_executor_smem_staging():
    executor_preserves(smem_stage(), "distribute,vectorize")


@pytest.mark.parametrize("name", ["memcpy_1d", "transpose", "strided_rows"])
def test_executor_examples_shrunk(name):
    text = (EXAMPLES / f"{name}.mlir").read_text()
    text = text.replace("1048576", "8192").replace("1024", "128").replace("512", "64")
    executor_preserves(text, "tile{threads=128},distribute,vectorize")


@pytest.mark.parametrize("name", ["gluon_memcpy_2d", "gluon_in_out_layouts"])
def test_executor_gluon_examples(name):
    executor_preserves((EXAMPLES / f"{name}.mlir").read_text(), "distribute,vectorize")


@pytest.mark.parametrize("ty", ["f16", "f64", "i8"])
def test_executor_element_types(ty):
    pipeline = "tile{tile=16,16 threads=64},distribute,vectorize"
    executor_preserves(copy_program("(32,64):(64,1)", "(32,64):(1,32)", ty), pipeline)
    numpy_oracle("(32,64):(64,1)", "(32,64):(1,32)", pipeline, ty)


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_executor_random_copies(data):
    """Random copies as in test_oracle_random_copies, through the reference executor."""
    rank = data.draw(st.integers(1, 3))
    shape = [data.draw(st.integers(1, 24 if rank < 3 else 8)) for _ in range(rank)]
    stride_sets = []
    for _ in range(2):
        order = data.draw(st.permutations(range(rank)))
        stride, acc = [0] * rank, 1
        for k in order:
            stride[k] = acc
            acc *= shape[k]
        stride_sets.append(stride)

    def fmt(stride):
        if rank == 1:
            return f"{shape[0]}:{stride[0]}"
        return f"({','.join(map(str, shape))}):({','.join(map(str, stride))})"

    ty = data.draw(st.sampled_from(["f32", "f16", "f64", "i8"]))
    tile = ",".join(str(data.draw(st.sampled_from([t for t in (1, 2, 4, 8, 16) if t <= n] or [1])))
                    for n in shape)
    threads = data.draw(st.sampled_from([32, 64]))
    text = copy_program(fmt(stride_sets[0]), fmt(stride_sets[1]), ty, align=16)
    pipeline = f"tile{{tile={tile} threads={threads}}},distribute,vectorize"
    executor_preserves(text, pipeline)
    numpy_oracle(fmt(stride_sets[0]), fmt(stride_sets[1]), pipeline, ty)


# Every masking path of tile + distribute, against the independent oracle: tiles that the
# tensor's extents do not divide (k*T-1, k*T+1), tiles the threads do not divide (the
# second bound of MaskMap.also), square and non-square, transposes and plain copies.
MASKING_CASES = [
    ("(50,70):(70,1)", "(50,70):(1,50)", "24,40", 64),      # neither extents nor threads divide
    ("(47,47):(47,1)", "(47,47):(1,47)", "12,20", 96),      # 96 threads: 3 warps
    ("(33,65):(65,1)", "(33,65):(65,1)", "16,32", 128),     # 2*16+1 x 2*32+1
    ("(31,63):(63,1)", "(31,63):(63,1)", "16,32", 128),     # 2*16-1 x 2*32-1
    ("(32,64):(64,1)", "(32,64):(1,32)", "16,16", 64),      # exact, square tiles
    ("(33,65):(65,1)", "(33,65):(65,1)", "31,33", 64),      # odd tile
    ("257:1", "257:1", "64", 64),                           # 1-D, 4*64+1
]


@pytest.mark.parametrize("src, dst, tile, threads", MASKING_CASES)
@pytest.mark.parametrize("ty", ["f32", "f16"])
def test_masking_paths_against_numpy(src, dst, tile, threads, ty):
    numpy_oracle(src, dst, f"tile{{tile={tile} threads={threads}}},distribute,vectorize", ty)


def test_option_tile_pads_a_static_extent_to_its_power_of_two():
    """An option tile may pad a static extent to the next power of two, as the pass's own
    tile does (the strided set's case 11: 5 tiled by 8); past it, the error stays."""
    pipeline = "tile{tile=8,16 threads=64},distribute,vectorize"
    oracle_preserves(copy_program("(5,64):(1,5)", "(5,64):(64,1)"), pipeline)
    numpy_oracle("(5,64):(1,5)", "(5,64):(64,1)", pipeline)
    from tilec.support.diagnostics import TilecError

    with pytest.raises(TilecError, match="does not fit the views' shape"):
        run_pipeline(copy_program("(5,64):(1,5)", "(5,64):(64,1)"), "tile{tile=16,16 threads=64}")
