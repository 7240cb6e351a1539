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

from tilec.compiler.pipeline import parse_module, run_pipeline
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


def test_box_offsets_match_the_128_byte_swizzle():
    # 16-byte chunk c of 128-byte row r goes to chunk c ^ (r % 8) (f16: 8 per chunk)
    off = box_offsets((64, 8), (1, 0), 128, 2)  # view modes (rows, cols) = (8, 64)
    for r in range(8):
        for c in range(8):
            assert off[r, c * 8] == r * 64 + ((c ^ r) * 8)


# ------------------------------------------------------------------ reference semantics


def _run(program, pipeline: str | None = None, seed: int = 0):
    """Random inputs and the outputs of `program` (IR text, or a module: cloned)."""
    m = parse_module(program, "t.mlir") if isinstance(program, str) else program.clone()
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


# ------------------------------------------------------------------ misuse


def _tma_text(body: str) -> str:
    return f"""
!G = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, smem>
func.func @k(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {{
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%c2, %c2, %c1) threads(64) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {{tile = array<i64: 64, 64>}} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {{tile = array<i64: 64, 64>}} : !G -> !T
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {{count = 1 : i64}}
{body}
  }}
  func.return
}}
"""


GOOD = """    layout.mbarrier_arrive %bar {tx = 16384 : i64}
    layout.tma_load %ta, %s, %bar : !T, !S
    layout.mbarrier_wait %bar, %c0
    layout.tma_store %s, %tb : !S, !T
    layout.tma_store_wait {pending = 0 : i64}
    layout.mbarrier_inval %bar"""

MISUSE = {
    "wrong phase": (
        GOOD.replace("layout.mbarrier_wait %bar, %c0", "layout.mbarrier_wait %bar, %c1"),
        "wait on phase parity 1",
        "the wait returns at once",
    ),
    "read before wait": (
        GOOD.replace(
            "    layout.mbarrier_wait %bar, %c0\n",
            "    layout.copy %s, %tb : !S, !T\n    layout.mbarrier_wait %bar, %c0\n",
        ),
        "while a TMA load is still writing it",
    ),
    "reused before complete": (
        GOOD.replace(
            "    layout.tma_load %ta, %s, %bar : !T, !S\n",
            "    layout.tma_load %ta, %s, %bar : !T, !S\n    layout.mbarrier_arrive %bar {tx = 16384 : i64}\n",
        ),
        "reused before its phase completes",
    ),
    "expects fewer bytes": (GOOD.replace("tx = 16384", "tx = 8192"), "expects 8192 bytes", "copy 16384"),
    "expects more bytes": (
        GOOD.replace("tx = 16384", "tx = 32768"),
        "expects 32768 bytes",
        "the wait would never return",
    ),
    "no arrival": (
        GOOD.replace("    layout.mbarrier_arrive %bar {tx = 16384 : i64}\n", ""),
        "the wait would never return",
        "missing 1 of its 1 arrivals",
    ),
    "write during store": (
        GOOD.replace(
            "    layout.tma_store_wait {pending = 0 : i64}\n",
            "    layout.copy %ta, %s : !T, !S\n    layout.tma_store_wait {pending = 0 : i64}\n",
        ),
        "while a TMA store is still reading it",
    ),
    "inval in flight": (
        GOOD.replace("    layout.mbarrier_wait %bar, %c0\n", "").replace(
            "    layout.tma_store %s, %tb : !S, !T\n    layout.tma_store_wait {pending = 0 : i64}\n", ""
        ),
        "invalidated while its phase 0 is in flight",
    ),
    "two loads in flight": (
        GOOD.replace(
            "    layout.tma_load %ta, %s, %bar : !T, !S\n",
            "    layout.tma_load %ta, %s, %bar : !T, !S\n    layout.tma_load %ta, %s, %bar : !T, !S\n",
        ),
        "which an earlier TMA load is still writing",
    ),
}


def test_correct_use_runs():
    inputs, out = _run(_tma_text(GOOD))
    assert np.array_equal(out["dst"], inputs["src"])


@pytest.mark.parametrize("level", ["layout", "gpu"])
@pytest.mark.parametrize("name", MISUSE)
def test_misuse_is_reported(name, level):
    body, *fragments = MISUSE[name]
    m = parse_module(_tma_text(body), "t.mlir")
    if level == "gpu":
        run_pipeline(m, "lower-to-gpu")
    with pytest.raises(ExecutionError) as info:
        run(m, random_inputs(m, 0))
    for f in fragments:
        assert f in str(info.value), str(info.value)
    assert "t.mlir:" in str(info.value) or level == "gpu"


def test_collective_op_under_divergent_control_flow():
    body = """    %c32 = arith.constant 32 : index
    %lt = arith.cmpi ult, %tid, %c32 : index
    scf.if %lt {
      layout.mbarrier_arrive %bar {tx = 16384 : i64}
    }"""
    with pytest.raises(ExecutionError, match="is block-collective, but only 32 of the 64 threads"):
        _run(_tma_text(body))


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
    bad = parse_module(ring.replace("pending = 0 : i64}\n", "pending = 1 : i64}\n", 2), "t.mlir")
    with pytest.raises(ExecutionError, match="while a TMA store is still reading it"):
        run(bad, random_inputs(bad, 0))


def _ring_text(stages: int = 2) -> str:
    m = persistent_transpose(64, 96, 32, 32, blocks=2)
    run_pipeline(m, f"tma{{stages={stages}}}")
    return str(m)


RING_MISUSE = {
    # every wait on parity 0: the second round's wait returns at once
    "wrong phase": (
        lambda t: t.replace("layout.mbarrier_wait %full, %parity", "layout.mbarrier_wait %full, %c0w").replace(
            "scf.for %", "%c0w = arith.constant 0 : index\n      scf.for %", 1
        ),
        "wait on phase parity 0",
    ),
    # the out buffer written again while its store of two tiles ago may still read it
    "store buffer reused": (
        lambda t: t.replace("pending = 1 : i64", "pending = 2 : i64"),
        "TMA store is still reading",
    ),
    # the tile read before its barrier says it has landed
    "read before wait": (
        lambda t: "\n".join(x for x in t.splitlines() if "layout.mbarrier_wait %full," not in x),
        "while a TMA load is still writing it",
    ),
}


@pytest.mark.parametrize("level", ["layout", "gpu"])
@pytest.mark.parametrize("name", RING_MISUSE)
def test_ring_misuse_is_reported(name, level):
    mutate, fragment = RING_MISUSE[name]
    good = _ring_text()
    bad = mutate(good)
    assert bad != good, "the mutation must change the ring"
    m = parse_module(bad, "t.mlir")
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
