"""TMA copies and mbarriers: the geometry check (dialects/tma.py), the CPU reference
executor's semantics (zero fill and clipping at the tensor's edge, swizzled shared
tiles) and its misuse reports at the layout level and after `lower-to-gpu` (a wait on
the wrong phase, a read of a TMA destination before its wait, a barrier reused before
its phase completes, wrong expected bytes, a write of a buffer a TMA store still reads,
an arrival with no barrier), the `tma` pass's choices, and the host's tensor-map
requests."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers.tma_programs import persistent_round_trip, persistent_transpose, round_trip, transpose

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, i64
from xdsl.rewriter import InsertPoint, Rewriter

import tilec
from tilec.compiler.pipeline import run_pipeline
from tilec.dialects import cute
from tilec.dialects.swizzle import ComposedLayout
from tilec.dialects.tma import TmaGeometry, box_offsets, swizzle_of_bytes, tma_geometry
from tilec.runtime.reference import ExecutionError, check_equivalence, random_inputs, run

# ------------------------------------------------------------------ geometry


def L(text: str) -> cute.Layout:
    return cute.parse_layout(text) if hasattr(cute, "parse_layout") else cute.Layout.parse(text)


def test_geometry_row_major_tile():
    g = tma_geometry(cute.Layout((256, 256), (256, 1)), (64, 32), 4, 16, {}, cute.Layout((64, 32), (32, 1)))
    assert g == TmaGeometry(order=(1, 0), box=(32, 64), swizzle_bytes=0, element_bytes=4)
    assert g.box_bytes == 64 * 32 * 4 and g.smem_align == 128


def test_geometry_column_major_view_and_swizzle():
    # dst viewed column-major over (i, j): dimension 0 is mode 0
    sw = ComposedLayout(swizzle_of_bytes(128, 4), 0, cute.Layout((32, 32), (1, 32)))
    g = tma_geometry(cute.Layout((100, 64), (1, 100)), (32, 32), 4, 16, {}, sw)
    assert isinstance(g, TmaGeometry)
    assert g.order == (0, 1) and g.swizzle_bytes == 128 and g.smem_align == 1024


@pytest.mark.parametrize(
    "args,why",
    [
        (((256, 256), (256, 1), (64, 64), 4, 8), "base is aligned to 8 bytes"),
        (((256, 255), (255, 1), (64, 64), 4, 16), "not a multiple of 16"),
        (((256, 256), (1, 256), (64, 64), 4, 16), "not the box stored compact"),
        (((256, 256), (256, 2), (64, 64), 4, 16), "no mode of the view has stride 1"),
    ],
)
def test_geometry_refusals(args, why):
    shape, stride, tile, eb, align = args
    smem = cute.Layout(tile, (tile[1], 1))
    g = tma_geometry(cute.Layout(shape, stride), tile, eb, align, {}, smem)
    assert isinstance(g, str) and why in g, g


def test_geometry_dynamic_stride_needs_divisibility_promise():
    lay = cute.Layout((cute.DYN, cute.DYN), (cute.DYN, 1))
    smem = cute.Layout((32, 32), (32, 1))
    assert "dynamic and not promised" in tma_geometry(lay, (32, 32), 4, 16, {}, smem)
    assert isinstance(tma_geometry(lay, (32, 32), 4, 16, {0: 4}, smem), TmaGeometry)


@pytest.mark.parametrize(("panel", "stride"), [(6144, 6144), (2048, 0), (6100, None)])
def test_geometry_of_boxes_apart_in_a_wider_buffer_s_panels(panel, stride):
    """A 32-row chunk of a K-major B stage of 96 rows and K steps of 128 bf16 (two 128-byte
    swizzle panels, each all 96 rows: 6144 elements apart): two boxes of 64 x 32 that far
    apart (`copy_stride`); panels of the chunk's own 32 rows are compact (0); a panel
    stride off the swizzle's 1024-byte repeat is refused (dec44)."""
    smem = ComposedLayout(swizzle_of_bytes(128, 2), 0, cute.Layout(((64, 2), 32), ((1, panel), 64)))
    g = tma_geometry(cute.Layout((4096, 6144), (1, 4096)), (128, 32), 2, 16, {}, smem)
    if stride is None:
        assert isinstance(g, str) and "not the box stored compact" in g, g
        return
    assert g == TmaGeometry((0, 1), (64, 32), 128, 2, copies=2, copy_stride=stride)
    assert g.copy_elements == (stride or 64 * 32) and g.total_bytes == 128 * 32 * 2
    off = box_offsets(g.box, g.order, 128, 2, 2, stride)  # view modes (K, rows)
    assert np.array_equal(off[:64], box_offsets(g.box, g.order, 128, 2))
    assert np.array_equal(off[64:], off[:64] + (stride or 64 * 32))


def test_box_offsets_match_the_128_byte_swizzle():
    # 16-byte chunk c of 128-byte row r goes to chunk c ^ (r % 8) (f16: 8 per chunk)
    off = box_offsets((64, 8), (1, 0), 128, 2)  # view modes (rows, cols) = (8, 64)
    for r in range(8):
        for c in range(8):
            assert off[r, c * 8] == r * 64 + ((c ^ r) * 8)


# ------------------------------------------------------------------ reference semantics


def _run(program, pipeline: str | None = None, seed: int = 0):
    """Random inputs and the outputs of `program` (a module, cloned)."""
    m = program.clone()
    if pipeline:
        run_pipeline(m, pipeline)
    inputs = random_inputs(m, seed)
    return inputs, run(m, inputs)


@pytest.mark.parametrize("pipeline", ["tma", "default", "tile,order-grid,tma,distribute,vectorize,lower-to-gpu"])
@pytest.mark.parametrize(
    "args,smem",
    [
        ((250, 300, 64, 64), None),
        ((96, 160, 32, 32), "#layout.composed<swizzle<3,2,3> o 0 o (32,32):(32,1)>"),
        (
            (130, 200, 64, 64, "f16"),
            "#layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 64]>",
        ),
    ],
)
def test_round_trip_copies_exactly(args, smem, pipeline):
    inputs, out = _run(round_trip(*args, smem=smem), pipeline)
    m, n = args[:2]
    assert np.array_equal(
        out["dst"].view(np.uint8)[: m * n * out["dst"].itemsize],
        inputs["src"].view(np.uint8)[: m * n * out["dst"].itemsize],
    )


def test_tma_pass_is_equivalent_on_edges_and_dynamic_extents():
    for before in (round_trip(250, 300, 64, 64), round_trip(77, 52, 32, 32, dynamic=True), transpose(96, 64)):
        after = before.clone()
        run_pipeline(after, "default")
        report = check_equivalence(before, after, seed=1)
        assert report, str(report)


def test_edge_box_zero_fills_shared_memory():
    """A box past the tensor's end reads zeros into shared memory (then stores clip)."""
    m = round_trip(40, 48, 32, 32, out="regs")
    run_pipeline(m, "tma")
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    assert np.array_equal(out["dst"], inputs["src"])


@pytest.mark.parametrize("level", ["layout", "default"])
def test_tma_store_of_an_edge_box_reads_only_what_it_stores(level):
    """A masked ordinary copy into shared memory (the source's rows 504 bytes apart: no
    TMA load) and a TMA store of the tile (the destination's 512: TMA) at the tensor's
    end: the store clips the box's columns past the end, so it does not read them, and
    the masked copy left them unwritten; the executor reported "read of uninitialised
    shared memory" for them (found by tests/fuzz/generate_coarsen.py: f32 1 x 126 in
    tiles of 1 x 32)."""
    p = tilec.Program("k")
    a = p.view(p.pointer("src", "f32", align=16), "(2,126):(126,1)")
    b = p.view(p.pointer("dst", "f32", align=16), "(2,126):(128,1)")
    with p.launch(grid=(4, 2, 1), threads=32) as k:
        s = p.alloc("(1,32):(32,1)", "f32", "smem")
        p.copy(p.tile(a, [k.by, k.bx], [1, 32]), s)
        p.barrier()
        p.copy(s, p.tile(b, [k.by, k.bx], [1, 32]))
    m = p.module
    run_pipeline(m, "tma" if level == "layout" else "default")
    assert "tma_store" in str(m) and "tma_load" not in str(m)
    inputs = random_inputs(m, 0)
    out = run(m, {k: v.copy() for k, v in inputs.items()})
    want = inputs["dst"].copy()
    rows = np.arange(2)[:, None]
    want[rows * 128 + np.arange(126)] = inputs["src"][rows * 126 + np.arange(126)]
    assert np.array_equal(out["dst"], want)


def box_past_the_end(misuse: str | None = None):
    """@k: block `by` (of 2) TMA-loads tile [0, 2 by] of a 64 x 128 f32 `src` in tiles
    of 64 x 64, unmasked (64 divides both modes): block 1's lies wholly past the end
    (the last round of a TMA ring loads such a box). Its arrival expects the whole
    box's 16384 bytes; the shared tile is then copied into `dst`'s tile [0, by] and
    TMA-stored into `far`'s tile [0, 2 by] (block 1's: wholly outside). `misuse`
    "copy": the tile past the end is read by an ordinary `layout.copy` instead of the
    TMA; "both": it is TMA-loaded and also copied."""
    p = tilec.Program("k")
    views = [p.view(p.pointer(name, "f32", align=16), "(64,128):(128,1)").named(name) for name in ("src", "dst", "far")]
    src, dst, far = views
    with p.launch(grid=(1, 2, 1), threads=64) as k:
        kt = (k.by * p.constant(2).named("c2")).named("kt")
        ta = p.tile(src, [k.bx, kt], [64, 64]).named("ta")
        s = p.alloc("(64,64):(64,1)", "f32", "smem").named("s")
        if misuse == "copy":
            p.copy(ta, s)
        else:
            bar = p.mbarrier_init(1).named("bar")
            p.mbarrier_arrive(bar, tx=64 * 64 * 4)
            p.tma_load(ta, s, bar)
            p.mbarrier_wait(bar, p.constant(0).named("c0"))
            if misuse == "both":
                p.copy(ta, s)
            p.copy(s, p.tile(dst, [k.bx, k.by], [64, 64]).named("td"))
            p.tma_store(s, p.tile(far, [k.bx, kt], [64, 64]).named("tf"))
            p.tma_store_wait(0)
            p.mbarrier_inval(bar)
    return p.module


@pytest.mark.parametrize("level", ["layout", "lower-to-gpu"])
def test_box_wholly_past_the_end_loads_zeros_and_counts_its_bytes(level):
    """An unmasked tile used only by TMA copies is a box origin: wholly past the end,
    `layout.tma_load` fills the shared tile with zeros and its bytes complete the
    mbarrier's phase (the wait expecting the whole box passes), and `layout.tma_store`
    writes nothing, as the hardware does (before and after `lower-to-gpu`)."""
    m = box_past_the_end()
    if level != "layout":
        run_pipeline(m, level)
    inputs = random_inputs(m, 0)
    out = run(m, inputs)
    src, far = inputs["src"].reshape(64, 128), inputs["far"].reshape(64, 128)
    assert np.array_equal(out["dst"].reshape(64, 128)[:, :64], src[:, :64])
    assert not out["dst"].reshape(64, 128)[:, 64:].any()
    assert np.array_equal(out["far"].reshape(64, 128), np.hstack([src[:, :64], far[:, 64:]]))


@pytest.mark.parametrize("misuse", ["copy", "both"])
def test_ordinary_copy_of_a_tile_past_the_end_is_reported(misuse):
    """Only the TMA masks a box: a tile past the end that an ordinary `layout.copy`
    reads (alone or besides a TMA load) is still an error at the `layout.tile`."""
    m = box_past_the_end(misuse)
    with pytest.raises(ExecutionError, match="tile coordinate 2 of mode 1 is out of range: tiles of 64 of a mode "
                                             "of 128 elements") as info:
        run(m, random_inputs(m, 0))
    assert f"{__file__}:" in str(info.value)


# ------------------------------------------------------------------ misuse


def tma_kernel(phase: int = 0, tx: int = 16384, arrive: bool = True, read_before_wait: bool = False,
               arrive_again: bool = False, loads: int = 1, wait: bool = True, store: bool = True,
               write_during_store: bool = False, divergent_arrive: bool = False):
    """@k: each block of 64 threads moves its 64x64 tile of a 128x128 f32 through shared
    memory with a TMA load (completing on one mbarrier: one arrival expecting `tx`
    bytes, a wait on parity `phase`) and a TMA store, waited, and invalidates the
    barrier. The other arguments break it: `arrive` (False: no arrival),
    `read_before_wait` (the shared tile copied out before the wait), `arrive_again`
    (a second arrival right after the load), `loads` (TMA loads into the tile),
    `wait` (False: no wait), `store` (False: no TMA store and no store wait),
    `write_during_store` (the shared tile rewritten before the store wait);
    `divergent_arrive`: the body is only an arrival by the first 32 threads."""
    p = tilec.Program("k")
    a = p.view(p.pointer("src", "f32", align=16), "(128,128):(128,1)").named("a")
    b = p.view(p.pointer("dst", "f32", align=16), "(128,128):(128,1)").named("b")
    c1, c0 = p.constant(1).named("c1"), p.constant(0).named("c0")
    with p.launch(grid=(2, 2, 1), threads=64) as k:
        ta = p.tile(a, [k.bx, k.by], [64, 64]).named("ta")
        tb = p.tile(b, [k.bx, k.by], [64, 64]).named("tb")
        s = p.alloc("(64,64):(64,1)", "f32", "smem").named("s")
        bar = p.mbarrier_init(1).named("bar")
        if divergent_arrive:
            with p.if_(p.insert(arith.CmpiOp(k.tid.ssa, p.constant(32).ssa, "ult")).results[0].named("lt")):
                p.mbarrier_arrive(bar, tx=tx)
        else:
            _tma_round_trip(p, ta, tb, s, bar, c1 if phase else c0, tx, arrive, read_before_wait, arrive_again,
                            loads, wait, store, write_during_store)
    return p.module


def _tma_round_trip(p, ta, tb, s, bar, phase, tx, arrive, read_before_wait, arrive_again, loads, wait, store,
                    write_during_store) -> None:
    """`tma_kernel`'s body but for the divergent arrival (its docstring)."""
    if arrive:
        p.mbarrier_arrive(bar, tx=tx)
    for _ in range(loads):
        p.tma_load(ta, s, bar)
    if arrive_again:
        p.mbarrier_arrive(bar, tx=tx)
    if read_before_wait:
        p.copy(s, tb)
    if wait:
        p.mbarrier_wait(bar, phase)
    if store:
        p.tma_store(s, tb)
        if write_during_store:
            p.copy(ta, s)
        p.tma_store_wait(0)
    p.mbarrier_inval(bar)


MISUSE = {
    "wrong phase": ({"phase": 1}, "wait on phase parity 1", "the wait returns at once"),
    "read before wait": ({"read_before_wait": True}, "while a TMA load is still writing it"),
    "reused before complete": ({"arrive_again": True}, "reused before its phase completes"),
    "expects fewer bytes": ({"tx": 8192}, "expects 8192 bytes", "copy 16384"),
    "expects more bytes": ({"tx": 32768}, "expects 32768 bytes", "the wait would never return"),
    "no arrival": ({"arrive": False}, "the wait would never return", "missing 1 of its 1 arrivals"),
    "write during store": ({"write_during_store": True}, "while a TMA store is still reading it"),
    "inval in flight": ({"wait": False, "store": False}, "invalidated while its phase 0 is in flight"),
    "two loads in flight": ({"loads": 2}, "which an earlier TMA load is still writing"),
}


def test_correct_use_runs():
    inputs, out = _run(tma_kernel())
    assert np.array_equal(out["dst"], inputs["src"])


@pytest.mark.parametrize("level", ["layout", "gpu"])
@pytest.mark.parametrize("name", MISUSE)
def test_misuse_is_reported(name, level):
    breaks, *fragments = MISUSE[name]
    m = tma_kernel(**breaks)
    if level == "gpu":
        run_pipeline(m, "lower-to-gpu")
    with pytest.raises(ExecutionError) as info:
        run(m, random_inputs(m, 0))
    for f in fragments:
        assert f in str(info.value), str(info.value)
    assert f"{__file__}:" in str(info.value) or level == "gpu"


def test_collective_op_under_divergent_control_flow():
    with pytest.raises(ExecutionError, match="is block-collective, but only 32 of the 64 threads"):
        _run(tma_kernel(divergent_arrive=True))


# ------------------------------------------------------------------ the pass's choices


@pytest.mark.parametrize(
    "module,chosen",
    [
        (round_trip(256, 256, 64, 64), True),
        (round_trip(256, 256, 64, 64, align=8), False),  # base not 16-byte aligned
        (round_trip(250, 300, 64, 64), True),  # edge boxes: zero fill and clipping, no masks
        (round_trip(256, 256, 64, 2), False),  # 8-byte rows of the box
        (round_trip(256, 256, 32, 32, smem="#layout.cute<(32,32):(33,1)>"), False),  # padded smem
    ],
)
def test_tma_pass_choice(module, chosen):
    m = module.clone()
    run_pipeline(m, "tma")
    names = [o.name for o in m.walk()]
    assert ("layout.tma_load" in names) == chosen
    assert ("layout.tma_store" in names) == chosen
    assert ("layout.copy" in names) == (not chosen)


def test_tma_pass_needs_a_target_with_tma():
    m = round_trip(256, 256, 64, 64)
    from tilec.support.target import set_target

    set_target(m, "sm_80")
    run_pipeline(m, "tma")
    assert "layout.tma_load" not in [o.name for o in m.walk()]


# ------------------------------------------------------------------ host side


def test_host_function_makes_tensor_map_requests():
    import tilec
    from tilec.runtime.tensor_map import TensorMapRequest

    kernel = tilec.compile(round_trip(77, 52, 32, 32, dynamic=True), arch="sm_90")

    class Buf:
        def __init__(self, ptr):
            self.ptr = ptr

    (launch,) = kernel.host_program.run([Buf(0x1000), Buf(0x2000), 77, 52])
    maps = [a for a in launch.args if isinstance(a, TensorMapRequest)]
    assert [(r.dims, r.strides, r.box, r.swizzle, r.element_bytes) for r in maps] == [
        ((52, 77), (52,), (32, 32), 0, 4)
    ] * 2
    assert launch.grid == (3, 2, 1)
    assert kernel.uses_tma and kernel.arg_specs[0].alignment == 16


def test_tensor_map_request_checks():
    from tilec.runtime.tensor_map import TensorMapRequest, check_request
    from tilec.support.diagnostics import TilecError

    class Buf:
        ptr = 0x1004

    with pytest.raises(TilecError, match="aligned to 16 bytes"):
        check_request(TensorMapRequest(Buf(), (64, 64), (64,), (32, 32), 0, 4))
    Buf.ptr = 0x1000
    with pytest.raises(TilecError, match="multiples of 16 bytes"):
        check_request(TensorMapRequest(Buf(), (63, 64), (63,), (32, 32), 0, 4))


# ------------------------------------------------------------------ the ring (tma{stages=N})


def _ring_pipeline(stages: int) -> str:
    from tilec.compiler.pipeline import NAMED_PIPELINES

    return NAMED_PIPELINES["default"].replace(",tma,", f",tma{{stages={stages}}},")


@pytest.mark.parametrize(
    "args,kw",
    [
        ((64, 96, 32, 32), {"blocks": 2}),  # 6 tiles: 3 per block
        ((64, 160, 32, 32), {"blocks": 3}),  # 10 tiles: 4, 3, 3 per block
        ((64, 128, 32, 32), {"blocks": 2, "group": 2}),  # grouped tile order
        ((128, 64, 64, 32), {"blocks": 4, "threads": 64}),  # as many blocks as tiles
    ],
)
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_ring_is_equivalent(args, kw, stages):
    before = persistent_transpose(*args, **kw)
    for pipeline in (f"tma{{stages={stages}}}", _ring_pipeline(stages)):
        after = before.clone()
        run_pipeline(after, pipeline)
        names = [o.name for o in after.walk()]
        assert names.count("layout.mbarrier_init") + names.count("cuda.mbarrier_init") == stages
        report = check_equivalence(before, after, seed=2)
        assert report, str(report)
    m, n = args[:2]
    inputs, out = _run(before, f"tma{{stages={stages}}}")
    assert np.array_equal(out["dst"].reshape(n, m), inputs["src"].reshape(m, n).T)


@pytest.mark.parametrize("stages", [2, 3])
def test_ring_through_one_buffer(stages):
    """In and out of the same buffer: the stages hold both sides, and since the load
    ahead refills the buffer of the tile stored just before, the store wait takes
    pending = 0; with pending = 1 the executor reports the overwrite."""
    before = persistent_round_trip(128, 128, 32, 64, blocks=2)  # 4 tiles per block
    after = before.clone()
    run_pipeline(after, f"tma{{stages={stages}}}")
    ring = str(after)
    assert ring.count("layout.alloc") == stages and "pending = 1" not in ring
    report = check_equivalence(before, after, seed=3)
    assert report, str(report)
    bad = after.clone()
    for wait in [o for o in bad.walk() if o.name == "layout.tma_store_wait"][:2]:
        assert wait.properties["pending"].value.data == 0
        wait.properties["pending"] = IntegerAttr(1, i64)
    with pytest.raises(ExecutionError, match="while a TMA store is still reading it"):
        run(bad, random_inputs(bad, 0))


def _ring(stages: int = 2) -> ModuleOp:
    m = persistent_transpose(64, 96, 32, 32, blocks=2)
    run_pipeline(m, f"tma{{stages={stages}}}")
    return m


def _waits_on_full(m: ModuleOp) -> list:
    """The waits on the barrier printed `%full` (the first of the ring's `full` barriers)."""
    full = next(r for o in m.walk() for r in o.results if r.name_hint == "full")
    return [o for o in m.walk() if o.name == "layout.mbarrier_wait" and o.operands[0] is full]


def _every_wait_on_parity_0(m: ModuleOp) -> None:
    """Every wait on the ring's `full` barriers on parity 0 (a constant before the loop)."""
    loop = next(o for o in m.walk() if isinstance(o, scf.ForOp))
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    zero.result.name_hint = "c0w"
    Rewriter.insert_op(zero, InsertPoint.before(loop))
    for wait in _waits_on_full(m):
        assert wait.operands[1].name_hint == "parity"
        wait.operands = (wait.operands[0], zero.result)


def _store_waits_pending_2(m: ModuleOp) -> None:
    for wait in [o for o in m.walk() if o.name == "layout.tma_store_wait"]:
        if wait.properties["pending"].value.data == 1:
            wait.properties["pending"] = IntegerAttr(2, i64)


def _no_wait_on_full(m: ModuleOp) -> None:
    for wait in _waits_on_full(m):
        wait.detach()
        wait.erase()


RING_MISUSE = {
    # every wait on parity 0: the second round's wait returns at once
    "wrong phase": (_every_wait_on_parity_0, "wait on phase parity 0"),
    # the out buffer written again while its store of two tiles ago may still read it
    "store buffer reused": (_store_waits_pending_2, "TMA store is still reading"),
    # the tile read before its barrier says it has landed
    "read before wait": (_no_wait_on_full, "while a TMA load is still writing it"),
}


@pytest.mark.parametrize("level", ["layout", "gpu"])
@pytest.mark.parametrize("name", RING_MISUSE)
def test_ring_misuse_is_reported(name, level):
    mutate, fragment = RING_MISUSE[name]
    good = _ring()
    m = good.clone()
    mutate(m)
    assert str(m) != str(good), "the mutation must change the ring"
    if level == "gpu":
        run_pipeline(m, "lower-to-gpu")
    with pytest.raises(ExecutionError) as info:
        run(m, random_inputs(m, 0))
    assert fragment in str(info.value), str(info.value)


@pytest.mark.parametrize(
    "args,variant,why",
    [
        ((64, 90), None, "masked"),  # 90 columns: the last tiles are masked
        ((64, 96), "two copies", "2 global-to-shared copies"),
        ((64, 96), "branchy index", "not pure index arithmetic"),
        ((64, 96), "read before", "used outside the loop"),
    ],
)
def test_ring_refusals(args, variant, why):
    """Loops the ring does not take are left as they are, with the reason."""
    from xdsl.dialects import scf

    from tilec.dialects.layout import LaunchOp
    from tilec.passes._tma_ring import ring_loop

    m = persistent_transpose(*args, 32, 32, blocks=2, variant=variant)
    m2 = m.clone()
    (launch,) = [o for o in m.walk() if isinstance(o, LaunchOp)]
    (loop,) = [o for o in launch.body.block.ops if isinstance(o, scf.ForOp)]
    reason = ring_loop(launch, loop, 2)
    assert reason is not None and why in reason, reason
    run_pipeline(m2, "tma{stages=2}")
    assert "layout.mbarrier_init" not in str(m2) and "layout.copy" in str(m2)
