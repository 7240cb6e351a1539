"""Bugs the fuzzer found, each kept as a regression test now that it is fixed. A new
bug whose fix must wait is pinned here as a strict xfail (its fix then shows up as an
XPASS failure) with a matching entry in `harness.KNOWN_BUGS`.
"""

from __future__ import annotations

import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from harness import check_outcome, run_tilec  # noqa: E402

ROW_MAJOR_9x8 = """!S = !layout.tensor<f32, #layout.cute<(9,8):(8,1)>, gmem>
func.func @copy(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !S
  %b = layout.view %dst : !layout.ptr<f32> -> !S
  layout.copy %a, %b : !S, !S
  func.return
}
"""


# Fixed: masks of a distributed masked tile now include the tile's own extents.
def test_masked_tile_lowering_stays_in_bounds():
    """Equivalent after tile,distribute (layout level); after lower-to-gpu the
    reference executor reports 'memref.load': out-of-bounds access ... reads %src[72],
    outside a memref of shape [72]."""
    out = run_tilec(["-p", "tile{tile=5,1 threads=32},distribute,lower-to-gpu", "--check-equivalence"],
                    ROW_MAJOR_9x8)
    assert out.rc == 0, out.describe()


DYNAMIC_ROWS = """func.func @copy(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>, %n: index) attributes {tilec.args = {n = 15 : index}} {
  %a = layout.view %src(%n, %n) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,?):(?,1)>, gmem>
  %b = layout.view %dst(%n, %n) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(8,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(8,?):(?,1)>, gmem>, !layout.tensor<f32, #layout.cute<(8,?):(?,1)>, gmem>
  func.return
}
"""


# Fixed.
def test_dynamic_stride_tile_lowers():
    out = run_tilec(["-p", "tile,lower-to-gpu"], DYNAMIC_ROWS)
    assert out.rc == 0, out.describe()


# Fixed: lower-to-gpu skips declarations.
def test_lower_to_gpu_skips_declarations():
    out = run_tilec(["-p", "lower-to-gpu"], "func.func private @f()\n")
    assert out.rc == 0 and "internal error" not in out.stderr, out.describe()


# Fixed.
def test_tile_grid_within_cuda_limits():
    """2^31 x 2^31 i8 elements (2^62 bytes: within 64-bit indices) tiles into 2^47
    blocks along x; CUDA allows 2^31-1. tilec must refuse (status 1) or fold."""
    text = ROW_MAJOR_9x8.replace("(9,8):(8,1)", "(2147483648,2147483648):(2147483648,1)").replace("f32", "i8")
    out = run_tilec(["-p", "tile"], text)
    check_outcome(out)
    if out.rc == 0:
        grids = [int(g) for g in re.findall(r"arith.constant (\d+) : index", out.stdout)]
        assert max(grids) <= 2**31 - 1, f"grid constant {max(grids)} past CUDA's limit"


NESTED_SOURCE = """func.func @copy(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %a = layout.view %src : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(2,(3,41)):(0,(2,6))>, gmem>
  %b = layout.view %dst : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(2,123):(1,2)>, gmem>
  layout.copy %a, %b : !layout.tensor<bf16, #layout.cute<(2,(3,41)):(0,(2,6))>, gmem>, !layout.tensor<bf16, #layout.cute<(2,123):(1,2)>, gmem>
  func.return
}
"""


# Fixed: masks of a distributed masked tile now include the tile's own extents.
def test_nested_mode_tile_lowering_has_no_race():
    """Equivalent after tile,distribute; after lower-to-gpu: 'memref.store': data race on
    global memory."""
    out = run_tilec(["-p", "tile{tile=1,12 threads=32},distribute,lower-to-gpu", "--check-equivalence"],
                    NESTED_SOURCE)
    assert out.rc == 0, out.describe()


def _moved_pointer_copy() -> str:
    """A 2 x 5 bf16 copy between views of pointers moved by run-time misalignments (3 and
    0 elements, `layout.addptr` of an index: the realign strategy's form), source rows at a
    pitch of 7, destination rows abutting."""
    import tilec
    from xdsl.dialects import func
    from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerAttr

    p = tilec.Program("moved")
    src, dst = p.pointer("src", "bf16", align=16), p.pointer("dst", "bf16", align=16)
    sm, dm = p.index("smis", value=3), p.index("dmis", value=0)
    p.copy(p.view(p.addptr(src, sm), "(2,5):(7,1)"), p.view(p.addptr(dst, dm), "(2,5):(5,1)"))
    fn = next(op for op in p.module.walk() if isinstance(op, func.FuncOp))
    sizes = {"src": 16, "dst": 16}
    fn.attributes["tilec.args"] = DictionaryAttr(
        dict(fn.attributes["tilec.args"].data) | {k: IntegerAttr(v, IndexType()) for k, v in sizes.items()})
    return tilec.emit(p.module, "mlir")


# Found while writing generate.random_realign_copy (session 40), whose pipeline asks for the
# realign strategy (`copy-strategy{realign=always}`, as tilec.copy_'s plan does). The realign
# strategy rebuilds the views' `layout.addptr`s in its launch; gather, tiles and the tiled
# path read the views as they are and left the moved pointers outside the launch (the IR
# after `tile` did not verify). Fixed: `tile` makes them again inside each launch
# (passes/tile.py `_sink_moved_pointers`; lit tile/moved_pointers.mlir).
def test_default_strategy_of_moved_pointers():
    out = run_tilec(["-p", "default", "--check-equivalence"], _moved_pointer_copy())
    assert out.rc == 0, out.describe()


def test_moved_pointers_take_realign_when_asked():
    """The same copy with the realign strategy asked for: equivalent."""
    from generate import realign_pipeline

    out = run_tilec(["-p", realign_pipeline(True), "--check-equivalence"], _moved_pointer_copy())
    assert out.rc == 0 and "@moved: equivalent after" in out.stdout, out.describe()
