"""Identity tensors (dialects/layout_identity.py): the coordinate `read_coord` gives for
every element of a tiled, distributed or sliced identity tensor is the coordinate NumPy
says that element has (CuTe's: the tile's origin plus the element's place in it, past
the shape too), through the dialect's `coordinates` on NumPy; the lit programs of
tests/filecheck/lower-to-gpu/identity_tensor.mlir copy what NumPy says on the CPU
reference executor, before and after `-p default`, and their CUDA compiles under
NVRTC."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip
from xdsl.dialects import test
from xdsl.dialects.builtin import DenseArrayBase, IndexType, i64
from xdsl.utils.exceptions import VerifyException

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects import cute, layout, views
from tilec.dialects import layout_identity as li
from tilec.dialects.layout_attrs import CuteLayoutAttr
from tilec.runtime.reference import random_inputs, run

LIT = Path(__file__).parents[1] / "filecheck" / "lower-to-gpu" / "identity_tensor.mlir"


def _index():
    return test.TestOp(result_types=[IndexType()]).results[0]


def _slice(src, pattern, dyn):
    kept = views.sliced_layout(src.type.cute_layout, pattern)
    rt = src.type.with_(layout=CuteLayoutAttr(kept))
    return layout.SliceOp.build(operands=[src, dyn], properties={"pattern": DenseArrayBase.from_list(i64, pattern)},
                                result_types=[rt])


def _all_coords(read, values, t):
    """Every element's coordinate of a view of type t (element i by the linear index i)."""
    root, chain = li.identity_chain(read)
    n = int(t.cute_layout.size())
    return li.coordinates(root, chain, values.__getitem__, t, [np.arange(n)])


@pytest.mark.parametrize("bx, by", [(0, 0), (3, 2), (31, 31)])
def test_tile_then_distribute_gives_numpy_coordinates_past_the_edge(bx, by):
    """A 32x32 tile (bx, by) of a 1000x1003 identity tensor over threads (8,32):(32,1):
    thread t holds rows 32 bx + t / 32 + 8 i of column 32 by + t % 32, also where that
    lies past the matrix (the last tiles)."""
    root = li.MakeIdentityTensorOp([1000, 1003])
    cx, cy, tid = _index(), _index(), _index()
    tile = layout.TileOp(root.result, [cx, cy], [32, 32])
    thr = cute.make_layout((8, 32), (32, 1))
    frag = layout.DistributeOp(tile.results[0], tid, thr)
    t = frag.results[0].type
    assert t.is_masked and t.shape == (4, 1)
    tids = np.arange(256)
    m, n = _all_coords(frag.results[0], {cx: bx, cy: by, tid: tids[:, None]}, t)
    i = np.arange(4)
    np.testing.assert_array_equal(m, 32 * bx + (tids // 32)[:, None] + 8 * i[None, :])
    np.testing.assert_array_equal(n, np.broadcast_to(32 * by + (tids % 32)[:, None], (256, 4)))
    if bx == 31:
        assert (m >= 1000).any()  # the predicate's work: coordinates past the edge, exact


def test_slice_keeps_the_fixed_coordinate_and_counts_the_kept_mode():
    """cA(_, 5) and cA(7, _) of a 12x9 identity tensor, and a 3-D one's (_, 2, _)."""
    root = li.MakeIdentityTensorOp([12, 9])
    col = _slice(root.result, [views.WILDCARD, 5], [])
    m, n = _all_coords(col.results[0], {}, col.results[0].type)
    np.testing.assert_array_equal(m, np.arange(12))
    np.testing.assert_array_equal(n, np.full(12, 5))
    k = _index()
    row = _slice(root.result, [views.DYNAMIC, views.WILDCARD], [k])
    m, n = _all_coords(row.results[0], {k: 7}, row.results[0].type)
    np.testing.assert_array_equal(m, np.full(9, 7))
    np.testing.assert_array_equal(n, np.arange(9))
    cube = li.MakeIdentityTensorOp([3, 4, 5])
    s = _slice(cube.result, [views.WILDCARD, 2, views.WILDCARD], [])
    a, b, c = _all_coords(s.results[0], {}, s.results[0].type)
    want = np.stack(np.meshgrid(np.arange(3), np.arange(5), indexing="ij"), -1).reshape(-1, 2, order="F")
    np.testing.assert_array_equal(a, want[:, 0])
    np.testing.assert_array_equal(b, np.full(15, 2))
    np.testing.assert_array_equal(c, want[:, 1])


def test_dynamic_extents_tile_to_static_coordinates():
    """An identity tensor of run-time extents: tile (2, 1) of 16x8 holds (32 + r, 8 + s)."""
    mv, nv, cx, cy = _index(), _index(), _index(), _index()
    root = li.MakeIdentityTensorOp([None, None], [mv, nv])
    assert str(root.result.type.cute_layout) == "(?,?):(1,?)"
    tile = layout.TileOp(root.result, [cx, cy], [16, 8])
    t = tile.results[0].type
    m, n = _all_coords(tile.results[0], {cx: 2, cy: 1}, t)
    np.testing.assert_array_equal(m, 32 + np.arange(128) % 16)
    np.testing.assert_array_equal(n, 8 + np.arange(128) // 16)


@pytest.mark.parametrize("fn, args", [("ragged", {}), ("dynamic", {"m": 70, "n": 45}), ("rows", {}), ("tv", {})])
def test_predicated_copies_equal_numpy_before_and_after_default(fn, args):
    module = parse_module(LIT.read_text(), str(LIT))
    inputs = random_inputs(module, seed=1, entry=fn, args=args)
    want = np.asarray(inputs["a"])
    np.testing.assert_array_equal(run(module, inputs, fn)["b"], want)
    run_pipeline(module, "default")
    np.testing.assert_array_equal(run(module, inputs, fn)["b"], want)


def test_cuda_compiles_under_nvrtc():
    module = parse_module(LIT.read_text(), str(LIT))
    run_pipeline(module, "default")
    compile_sm90_or_skip(emit(module, "cuda"))


def _predicated_copy_program(m: int, n: int, dynamic: bool):
    """CuTe's predicated copy from Python: 32x32 tiles of an m x n row-major matrix over
    threads (8,32):(32,1), each element copied where its coordinate is inside."""
    import tilec

    p = tilec.Program("predicated")
    if dynamic:
        mi, ni = p.index("m"), p.index("n")
        a = p.view(p.pointer("a", "f32"), "(?,?):(?,1)", dynamic=[mi, ni, ni])
        b = p.view(p.pointer("b", "f32"), "(?,?):(?,1)", dynamic=[mi, ni, ni])
        bounds = (mi, ni)
    else:
        a = p.view(p.pointer("a", "f32"), f"({m},{n}):({n},1)")
        b = p.view(p.pointer("b", "f32"), f"({m},{n}):({n},1)")
        bounds = (m, n)
    with p.launch(grid=(-(-m // 32), -(-n // 32), 1), threads=256) as k:
        c = p.make_identity_tensor(bounds)
        thr = "(8,32):(32,1)"
        ta = p.distribute(p.tile(a, [k.bx, k.by], [32, 32]), k.tid, thr)
        tb = p.distribute(p.tile(b, [k.bx, k.by], [32, 32]), k.tid, thr)
        tc = p.distribute(p.tile(c, [k.bx, k.by], [32, 32]), k.tid, thr)
        with p.range(0, 4) as i:
            mm, nn = p.read_coord(tc, i)
            with p.if_((mm < bounds[0]) & (nn < bounds[1])):
                tb[i] = ta[i]
    return p.module


@pytest.mark.parametrize("dynamic", [False, True])
def test_python_builder_predicated_copy_equals_numpy(dynamic):
    m, n = 70, 45
    module = _predicated_copy_program(m, n, dynamic)
    args = {"m": m, "n": n} if dynamic else {}
    inputs = random_inputs(module, seed=3, args=args)
    np.testing.assert_array_equal(run(module, inputs)["b"], inputs["a"])
    run_pipeline(module, "default")
    np.testing.assert_array_equal(run(module, inputs)["b"], inputs["a"])
    compile_sm90_or_skip(emit(module, "cuda"))


def _decode(offsets, shape):
    """The coordinate of a column-major offset of `shape` (inside the shape)."""
    out, rest = [], np.asarray(offsets)
    for s in shape[:-1]:
        out.append(rest % s)
        rest = rest // s
    return [*out, rest]


def _data_offsets(view_value, values, t):
    """Every element's offset in a view of memory whose layout is the identity tensor's
    (column-major) through the same view ops, as the executor's layouts give them."""
    root, chain = li.identity_chain(view_value)
    lay = root.result.type.cute_layout
    off = 0
    for op in chain:
        if isinstance(op, layout.PartitionOp):
            comp = cute.composition(lay, op.tv.data)
            off = off + np.asarray(views.eval_mode(comp[0], values[op.tid]))
            lay = comp[1]
        elif isinstance(op, layout.DivideOp):
            lay = layout.DivideOp.divided(lay, op.kind.data, op.tiler)
        elif isinstance(op, layout.ComposeOp):
            lay = layout.ComposeOp.composed(lay, op.tiler)
        elif isinstance(op, layout.SliceOp):
            it = iter(op.coords)
            kept = []
            for leaf in op.leaves(lay):
                if leaf.p == views.WILDCARD:
                    kept.append(leaf.sub)
                else:
                    c = values[next(it)] if leaf.p == views.DYNAMIC else leaf.p
                    off = off + np.asarray(views.eval_mode(leaf.sub, c))
            lay = views.kept_modes(kept)
    n = int(t.cute_layout.size())
    return off + np.asarray(views.eval_layout(lay, np.arange(n)))


def _partition(src, tid, tv):
    lay = layout.PartitionOp.values_layout(src.type.cute_layout, tv)
    return layout.PartitionOp.build(operands=[src, tid], properties={"tv": CuteLayoutAttr(tv)},
                                    result_types=[src.type.with_(layout=CuteLayoutAttr(lay))])


def test_partition_divide_give_the_coordinates_a_view_of_memory_addresses():
    """Inside the shape, an element's coordinate is the one its offset in a column-major
    view of memory of the shape decodes to, through the same ops: a TV partition
    (CuTe's partition_C: thread (t0, t1) holds rows t0 + 4 v of column t1), a zipped
    divide then a slice of tile j."""
    tid, j = _index(), _index()
    root = li.MakeIdentityTensorOp([16, 8])
    part = _partition(root.result, tid, cute.make_layout(((4, 8), 4), ((1, 16), 4)))
    t = part.results[0].type
    for thread in range(32):
        got = _all_coords(part.results[0], {tid: thread}, t)
        want = _decode(_data_offsets(part.results[0], {tid: thread}, t), (16, 8))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        np.testing.assert_array_equal(got[0], thread % 4 + 4 * np.arange(4))
    tiler = DenseArrayBase.from_list(i64, [4, 2])
    div = layout.DivideOp.build(
        operands=[root.result], properties={"kind": layout.StringAttr("zipped"), "tiler": tiler},
        result_types=[root.result.type.with_(layout=CuteLayoutAttr(layout.DivideOp.divided(
            root.result.type.cute_layout, "zipped", tiler)))])
    tile_j = _slice(div.results[0], [views.WILDCARD, views.DYNAMIC], [j])
    t = tile_j.results[0].type
    for jj in range(16):
        got = _all_coords(tile_j.results[0], {j: jj}, t)
        want = _decode(_data_offsets(tile_j.results[0], {j: jj}, t), (16, 8))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    li.ReadCoordOp(tile_j.results[0], [j]).verify()


def test_a_partition_across_a_mode_at_an_offset_is_refused():
    """Values 4 apart from thread row t1 in [0, 8): rows t1 + 4 v run past row 15 into
    the next column in a view of memory, which a sum over modes cannot give: refused by
    the verifier, not computed wrong."""
    tid = _index()
    root = li.MakeIdentityTensorOp([16, 8])
    part = _partition(root.result, tid, cute.make_layout(((4, 8), 4), ((16, 1), 4)))
    read = li.ReadCoordOp(part.results[0], [tid])
    with pytest.raises(VerifyException, match="runs across a mode of the identity tensor"):
        read.verify()
