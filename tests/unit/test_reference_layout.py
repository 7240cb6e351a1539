"""The CPU reference executor on the layout dialect: whole-tensor copies, block tiles,
thread fragments, distributed values; planted bugs reported; passes checked with
`assert_pass_preserves`."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for helpers

from helpers.equivalence import assert_pass_preserves, parse  # noqa: E402

from tilec.runtime.reference import (  # noqa: E402
    ExecutionError,
    check_equivalence,
    random_inputs,
    run,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_text(text: str, seed: int = 0, **kw):
    m = parse(text, "test.mlir")
    inputs = random_inputs(m, seed, **kw)
    return inputs, run(m, inputs)


def expect_error(text: str, *fragments: str, **kw) -> ExecutionError:
    m = parse(text, "test.mlir")
    inputs = random_inputs(m, 0, **kw)
    with pytest.raises(ExecutionError) as info:
        run(m, inputs)
    for f in fragments:
        assert f in str(info.value), str(info.value)
    return info.value


def line_of(text: str, fragment: str) -> int:
    return next(i + 1 for i, line in enumerate(text.split("\n")) if fragment in line)


# ------------------------------------------------------------------ whole-tensor level

TRANSPOSE_64 = """
!Src = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!Dst = !layout.tensor<f32, #layout.cute<(64,64):(1,64)>, gmem>
func.func @transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Src
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Dst
  layout.copy %a, %b : !Src, !Dst
  func.return
}
"""


def test_whole_tensor_transpose():
    inputs, out = run_text(TRANSPOSE_64)
    assert inputs["src"].shape == (4096,)
    assert np.isnan(inputs["dst"]).all()  # output poisoned
    assert np.array_equal(out["dst"], inputs["src"].reshape(64, 64).T.reshape(-1))


def test_strided_rows_buffer_sizes_come_from_the_views():
    m = parse((EXAMPLES / "strided_rows.mlir").read_text())
    inputs = random_inputs(m, 0)
    assert inputs["src"].shape == (511 * 1024 + 512,)  # cosize of (512,512):(1024,1)
    assert inputs["dst"].shape == (512 * 512,)
    out = run(m, inputs)
    src = np.concatenate([inputs["src"], np.zeros(512, np.float32)]).reshape(512, 1024)
    assert np.array_equal(out["dst"].reshape(512, 512), src[:, :512])


DYNAMIC = """
!G = !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(4,4):(?,1)>, gmem, masked>
func.func @copy(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>, %m: index, %n: index, %gx: index, %gy: index) attributes {tilec.args = {m = 5 : index, n = 7 : index, gx = 2 : index, gy = 2 : index}} {
  %a = layout.view %src(%m, %n, %n) : !layout.ptr<f32> -> !G
  %b = layout.view %dst(%m, %n, %n) : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%gx, %gy, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 4, 4>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 4, 4>} : !G -> !T
    layout.copy %ta, %tb : !T, !T
  }
  func.return
}
"""


def test_dynamic_extents_are_bound_from_arguments():
    inputs, out = run_text(DYNAMIC)
    assert inputs["src"].shape == (35,) and (inputs["m"], inputs["n"]) == (5, 7)
    assert np.array_equal(out["dst"], inputs["src"])
    inputs, out = run_text(DYNAMIC, args={"m": 3, "n": 2, "gx": 1, "gy": 1})
    assert inputs["src"].shape == (6,)
    assert np.array_equal(out["dst"], inputs["src"])


def test_a_grid_too_small_leaves_elements_unwritten():
    m = parse(DYNAMIC)
    inputs = random_inputs(m, 0, args={"gy": 1})
    out = run(m, inputs)
    dst = out["dst"].reshape(5, 7)
    assert np.array_equal(dst[:, :4], inputs["src"].reshape(5, 7)[:, :4])
    assert np.isnan(dst[:, 4:]).all()  # still the poison


def test_copy_to_a_view_that_repeats_an_address_is_ambiguous():
    text = """
!S = !layout.tensor<f32, #layout.cute<(4,4):(4,1)>, gmem>
!D = !layout.tensor<f32, #layout.cute<(4,4):(0,1)>, gmem>
func.func @f(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !S
  %b = layout.view %dst : !layout.ptr<f32> -> !D
  layout.copy %a, %b : !S, !D
  func.return
}
"""
    expect_error(text, "maps two elements to element", "the result would depend on the order")


# each block copies its 4x4 tile of src into its own 4 elements of dst, through a
# view whose rows all map to those 4 (stride 0): legal only where the rows are equal
REPEATING_TILES = """
!S = !layout.tensor<f32, #layout.cute<(2,4,4):(16,4,1)>, gmem>
!D = !layout.tensor<f32, #layout.cute<(2,4,4):(4,0,1)>, gmem>
!TS = !layout.tensor<f32, #layout.cute<(1,4,4):(16,4,1)>, gmem>
!TD = !layout.tensor<f32, #layout.cute<(1,4,4):(4,0,1)>, gmem>
func.func @f(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !S
  %b = layout.view %dst : !layout.ptr<f32> -> !D
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %c0, %c0] {tile = array<i64: 1, 4, 4>} : !S -> !TS
    %tb = layout.tile %b[%bx, %c0, %c0] {tile = array<i64: 1, 4, 4>} : !D -> !TD
    layout.copy %ta, %tb : !TS, !TD
  }
  func.return
}
"""


@pytest.mark.parametrize("conflicting", [0, 1])
def test_a_repeated_address_is_checked_in_every_block(conflicting):
    """Blocks whose tiles repeat an address: a block that writes equal values to it is
    fine, and one that writes different values is reported, whichever block it is."""
    m = parse(REPEATING_TILES, "test.mlir")
    src = np.tile(np.arange(4, dtype=np.float32), 8)  # every tile's rows equal
    out = run(m, {"src": src, "dst": np.zeros(8, np.float32)})
    np.testing.assert_array_equal(out["dst"], np.tile(np.arange(4, dtype=np.float32), 2))
    src[16 * conflicting + 9] = -1  # row 2 of one block's tile
    with pytest.raises(ExecutionError, match=f"maps two elements to element {4 * conflicting + 1} of %dst"):
        run(m, {"src": src, "dst": np.zeros(8, np.float32)})


# ------------------------------------------------------------------------- block level

STAGE = """
!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,64):(256,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, smem>
func.func @stage(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c8, %c4, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 64>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s : !T, !S
    layout.copy %s, %tb : !S, !T
  }
  func.return
}
"""


def test_block_level_copies_are_redundant_and_race_free():
    # Every thread copies the whole tile in and out: no barrier is needed, as each
    # thread reads what it (also) wrote.
    inputs, out = run_text(STAGE)
    assert np.array_equal(out["q"], inputs["p"])


def test_tile_coordinate_out_of_range():
    text = STAGE.replace("%c8 = arith.constant 8", "%c8 = arith.constant 9")
    e = expect_error(text, "tile coordinate 8 of mode 0 is out of range")
    assert e.location == f"test.mlir:{line_of(text, 'layout.tile %a')}:5"


MASKED = """
#blocked = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(?,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem, masked>
func.func @masked(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index, %gx: index) attributes {tilec.args = {m = 100 : index, gx = 2 : index}} {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%gx, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 64, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 64, 64>} : !G -> !T
    %v = layout.load %ta {vector = 4 : i64} : !T -> tensor<64x64xf32, #blocked>
    layout.store %v, %tb {vector = 4 : i64} : tensor<64x64xf32, #blocked>, !T
  }
  func.return
}
"""


def test_masked_edge_tiles():
    inputs, out = run_text(MASKED)
    assert inputs["src"].shape == (6400,)
    assert np.array_equal(out["dst"], inputs["src"])


def test_masked_tile_exactly_full():
    inputs, out = run_text(MASKED, args={"m": 128, "gx": 2})
    assert np.array_equal(out["dst"], inputs["src"])


# ------------------------------------------------------------------------ thread level

MOJO = """
!G = !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,128):(512,1)>, gmem>
!TV = !layout.tensor<f32, #layout.cute<(32,32):(512,4)>, gmem, vec #layout.cute<(1,4):(512,1)>>
!F = !layout.tensor<f32, #layout.cute<(4,1):(4096,128)>, gmem, vec #layout.cute<(1,4):(512,1)>>
func.func @mojo_copy(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c16 = arith.constant 16 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c16, %c4, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 128>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 128>} : !G -> !T
    %va = layout.vectorize %ta {vector = array<i64: 1, 4>} : !T -> !TV
    %vb = layout.vectorize %tb {vector = array<i64: 1, 4>} : !T -> !TV
    %fa = layout.distribute %va, %tid {threads = #layout.cute<(8,32):(32,1)>} : !TV -> !F
    %fb = layout.distribute %vb, %tid {threads = #layout.cute<(8,32):(32,1)>} : !TV -> !F
    layout.copy %fa, %fb : !F, !F
  }
  func.return
}
"""


def test_distribute_and_vectorize():
    inputs, out = run_text(MOJO)
    assert np.array_equal(out["dst"], inputs["src"])


def test_vector_access_needs_an_aligned_pointer():
    text = MASKED.replace("align 16", "align 4")
    expect_error(text, "16-byte vector access of %src, whose start is aligned to only 4 bytes")


def test_copy_of_vectors_from_an_unaligned_pointer_is_done_element_wise():
    inputs, out = run_text(MOJO.replace("align 16", "align 4"))
    assert np.array_equal(out["dst"], inputs["src"])


def test_copy_async_needs_aligned_vectors():
    expect_error(copy_async().replace("align 16", "align 4"), "whose start is aligned to only 4 bytes")


def test_thread_id_beyond_the_thread_layout():
    text = MOJO.replace("threads(256)", "threads(512)")
    expect_error(text, "thread id 256 is not below the 256 threads")


COPY_ASYNC = """
!G = !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,128):(512,1)>, gmem>
!TV = !layout.tensor<f32, #layout.cute<(32,32):(512,4)>, gmem, vec #layout.cute<(1,4):(512,1)>>
!F = !layout.tensor<f32, #layout.cute<(4,1):(4096,128)>, gmem, vec #layout.cute<(1,4):(512,1)>>
!S = !layout.tensor<f32, #layout.cute<(32,128):(128,1)>, smem>
!SV = !layout.tensor<f32, #layout.cute<(32,32):(128,4)>, smem, vec #layout.cute<(1,4):(128,1)>>
!SF = !layout.tensor<f32, #layout.cute<(4,1):(1024,128)>, smem, vec #layout.cute<(1,4):(128,1)>>
func.func @cp_async(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c16 = arith.constant 16 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c16, %c4, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 128>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 128>} : !G -> !T
    %va = layout.vectorize %ta {vector = array<i64: 1, 4>} : !T -> !TV
    %vb = layout.vectorize %tb {vector = array<i64: 1, 4>} : !T -> !TV
    %vs = layout.vectorize %s {vector = array<i64: 1, 4>} : !S -> !SV
    %fa = layout.distribute %va, %tid {threads = #layout.cute<(8,32):(32,1)>} : !TV -> !F
    %fb = layout.distribute %vb, %FROM {threads = #layout.cute<(8,32):(32,1)>} : !TV -> !F
    %fs = layout.distribute %vs, %tid {threads = #layout.cute<(8,32):(32,1)>} : !SV -> !SF
    layout.copy_async %fa, %fs : !F, !SF
    layout.async_wait {pending = 0 : i64}
    layout.barrier
    %gs = layout.distribute %vs, %FROM {threads = #layout.cute<(8,32):(32,1)>} : !SV -> !SF
    layout.copy %gs, %fb : !SF, !F
  }
  func.return
}
"""


def copy_async(reader: str = "%tid", wait: bool = True, barrier: bool = True) -> str:
    text = COPY_ASYNC.replace("%FROM", reader)
    if not wait:
        text = text.replace("    layout.async_wait {pending = 0 : i64}\n", "")
    if not barrier:
        text = text.replace("    layout.barrier\n", "")
    return text


def test_copy_async():
    inputs, out = run_text(copy_async())
    assert np.array_equal(out["dst"], inputs["src"])


def test_copy_async_read_before_wait():
    expect_error(copy_async(wait=False), "while a cp.async is still writing it")


def test_copy_async_read_by_another_thread_needs_a_barrier():
    # Thread t writes back (to its place) the fragment that thread 255 - t copied in.
    text = copy_async(reader="%other", barrier=False).replace(
        "    %s = layout.alloc : !S\n",
        "    %s = layout.alloc : !S\n    %c255 = arith.constant 255 : index\n"
        "    %other = arith.subi %c255, %tid : index\n",
    )
    expect_error(text, "data race on shared memory", "no barrier in between")
    with_barrier = copy_async(reader="%other").replace(
        "    %s = layout.alloc : !S\n",
        "    %s = layout.alloc : !S\n    %c255 = arith.constant 255 : index\n"
        "    %other = arith.subi %c255, %tid : index\n",
    )
    inputs, out = run_text(with_barrier)
    assert np.array_equal(out["dst"], inputs["src"])


# ------------------------------------------------------------------ distributed values

IN_OUT = """
#in = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
#out = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]}>
!Gi = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!Go = !layout.tensor<f32, #layout.cute<(256,256):(1,256)>, gmem>
!Ti = !layout.tensor<f32, #layout.cute<(32,32):(256,1)>, gmem>
!To = !layout.tensor<f32, #layout.cute<(32,32):(1,256)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(32,32):(33,1)>, smem>
func.func @transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Gi
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Go
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c8, %c8, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 32>} : !Gi -> !Ti
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 32>} : !Go -> !To
    %s = layout.alloc : !S
    %v = layout.load %ta : !Ti -> tensor<32x32xf32, #in>
    layout.store %v, %s : tensor<32x32xf32, #in>, !S
    layout.barrier
    %w = layout.load %s : !S -> tensor<32x32xf32, #out>
    layout.store %w, %tb : tensor<32x32xf32, #out>, !To
  }
  func.return
}
"""


def test_thread_level_transpose_through_shared_memory():
    inputs, out = run_text(IN_OUT)
    assert np.array_equal(out["dst"], inputs["src"].reshape(256, 256).T.reshape(-1))


def test_thread_level_transpose_performance():
    """256x256 f32 transpose at the thread level: 64 blocks of 256 threads, 4 elements
    per thread, through shared memory with a barrier (target: < 2 s)."""
    m = parse(IN_OUT)
    inputs = random_inputs(m, 0)
    run(m, inputs)  # warm-up: caches of layout evaluations
    start = time.perf_counter()
    out = run(m, inputs)
    elapsed = time.perf_counter() - start
    print(f"\nreference executor: layout-level 256x256 transpose (64 blocks x 256 threads) in {elapsed:.3f} s")
    assert np.array_equal(out["dst"], inputs["src"].reshape(256, 256).T.reshape(-1))
    assert elapsed < 4.0


def test_missing_barrier_between_layouts_is_a_race():
    text = IN_OUT.replace("    layout.barrier\n", "")
    e = expect_error(text, "data race on shared memory", "%s[", "no barrier in between")
    assert e.location == f"test.mlir:{line_of(text, 'layout.load %s')}:5"


def test_convert_layout_and_elementwise():
    text = IN_OUT.replace(
        """    %s = layout.alloc : !S
    %v = layout.load %ta : !Ti -> tensor<32x32xf32, #in>
    layout.store %v, %s : tensor<32x32xf32, #in>, !S
    layout.barrier
    %w = layout.load %s : !S -> tensor<32x32xf32, #out>
""",
        """    %v = layout.load %ta : !Ti -> tensor<32x32xf32, #in>
    %two = arith.constant 2.0 : f32
    %t = layout.splat %two : f32 -> tensor<32x32xf32, #in>
    %x = arith.mulf %v, %t : tensor<32x32xf32, #in>
    %w = layout.convert_layout %x : tensor<32x32xf32, #in> -> tensor<32x32xf32, #out>
""",
    )
    inputs, out = run_text(text)
    assert np.array_equal(out["dst"], (2 * inputs["src"]).reshape(256, 256).T.reshape(-1))


def test_vector_of_non_contiguous_registers():
    # #out holds a column per thread: registers are 256 elements apart in !Gi.
    text = IN_OUT.replace(
        "%v = layout.load %ta : !Ti -> tensor<32x32xf32, #in>",
        "%v = layout.load %ta {vector = 4 : i64} : !Ti -> tensor<32x32xf32, #out>",
    ).replace("layout.store %v, %s : tensor<32x32xf32, #in>", "layout.store %v, %s : tensor<32x32xf32, #out>")
    expect_error(text, "not contiguous vector access")


REDUCE = """
#bl = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#sl = #layout.slice<{dim = 1, parent = #bl}>
!G = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>
!R = !layout.tensor<f32, #layout.cute<16:1>, gmem>
func.func @rowsum(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !R
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a {vector = 4 : i64} : !G -> tensor<16x32xf32, #bl>
    %s = layout.reduce %v {axis = 1 : i64, kind = "$kind"} : tensor<16x32xf32, #bl> -> tensor<16xf32, #sl>
    layout.store %s, %b : tensor<16xf32, #sl>, !R
  }
  func.return
}
"""


@pytest.mark.parametrize("kind", ["add", "max", "min", "mul"])
def test_reduce(kind):
    inputs, out = run_text(REDUCE.replace("$kind", kind))
    x = inputs["src"].reshape(16, 32).astype(np.float64)
    want = {"add": x.sum(1), "max": x.max(1), "min": x.min(1), "mul": x.prod(1)}[kind]
    np.testing.assert_allclose(out["dst"], want, rtol=1e-4, atol=1e-6)


def test_reduce_order_is_the_gpu_order():
    # Registers of a thread first (in order), then a butterfly over the lane bits.
    inputs, out = run_text(REDUCE.replace("$kind", "add"))
    x = inputs["src"].reshape(16, 32, order="C")
    # lane bits along dim 1 are bits 2..4 of the column (threadsPerWarp[1] = 8)
    part = x.reshape(16, 8, 4)
    acc = part[:, :, 0]
    for r in range(1, 4):
        acc = acc + part[:, :, r]
    for bit in (1, 2, 4):
        idx = np.arange(8) ^ bit
        acc = acc + acc[:, idx]
    assert np.array_equal(out["dst"], acc[:, 0])


# --------------------------------------------------------------- equivalence of passes


@pytest.mark.parametrize(
    "example", ["transpose.mlir", "strided_rows.mlir", "gluon_memcpy_2d.mlir", "gluon_in_out_layouts.mlir"]
)
@pytest.mark.parametrize("pipeline", ["tile", "tile,distribute", "tile,distribute,vectorize"])
def test_passes_preserve_the_examples(example, pipeline):
    text = (EXAMPLES / example).read_text()
    assert_pass_preserves(text, pipeline, seeds=(0,))


def test_assert_pass_preserves_catches_a_wrong_transformation():
    def wrong_pass(module):
        # "Simplify" the destination view to row-major: no longer a transpose.
        return parse(TRANSPOSE_64.replace("(64,64):(1,64)", "(64,64):(64,1)"))

    with pytest.raises(AssertionError, match="buffer %dst differs at flat index 1:"):
        assert_pass_preserves(TRANSPOSE_64, wrong_pass)


def test_assert_pass_preserves_returns_the_transformed_module():
    after = assert_pass_preserves(STAGE, "distribute", seeds=(0, 1))
    assert "layout.distribute" in str(after) and "layout.barrier" in str(after)


def test_check_equivalence_across_levels():
    before = parse(TRANSPOSE_64)
    small = IN_OUT
    for a, b in [("(256,256):(256,1)", "(64,64):(64,1)"), ("(256,256):(1,256)", "(64,64):(1,64)"),
                 ("(32,32):(256,1)", "(32,32):(64,1)"), ("(32,32):(1,256)", "(32,32):(1,64)"),
                 ("%c8 = arith.constant 8", "%c8 = arith.constant 2")]:
        small = small.replace(a, b)
    after = parse(small)
    assert check_equivalence(before, after, seed=3)


# ------------------------------------------------------------------- the other view ops

VIEW_OPS = """
!A = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
!Z = !layout.tensor<f32, #layout.cute<((4,8),(16,8)):((64,1),(256,8))>, gmem>
!L = !layout.tensor<f32, #layout.cute<4096:1>, gmem>
!R = !layout.tensor<f32, #layout.cute<64:1>, gmem>
func.func @views(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>, %row: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !A
  %z = layout.divide %a {kind = "zipped", tiler = array<i64: 4, 8>} : !A -> !Z
  %b = layout.view %dst : !layout.ptr<f32> -> !L
  layout.copy %z, %b : !Z, !L
  %c5 = arith.constant 5 : index
  %r = layout.slice %a[%c5, _] : !A -> !R
  %o = layout.view %row : !layout.ptr<f32> -> !R
  layout.copy %r, %o : !R, !R
  func.return
}
"""


def test_divide_and_slice():
    inputs, out = run_text(VIEW_OPS)
    src = inputs["src"]
    want = src.reshape(16, 4, 8, 8).transpose(2, 0, 3, 1).reshape(-1)  # (tc, tr, c0, r0)
    assert np.array_equal(out["dst"], want)
    assert np.array_equal(out["row"], src[5 * 64 : 6 * 64])


# CuTe's slicing examples (Tensor guide): A = ((3,2),(2,5,2)):((4,1),(2,13,100)).
NESTED_SLICES = """
!A = !layout.tensor<f32, #layout.cute<((3,2),(2,5,2)):((4,1),(2,13,100))>, gmem>
!OE = !layout.tensor<f32, #layout.cute<(3,5):(1,3)>, gmem>
!OF = !layout.tensor<f32, #layout.cute<(2,2,2):(1,2,4)>, gmem>
!OB = !layout.tensor<f32, #layout.cute<((2,5,2)):((1,2,10))>, gmem>
func.func @slices(%src: !layout.ptr<f32>, %de: !layout.ptr<f32>, %df: !layout.ptr<f32>, %db: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !A
  %e = layout.slice %a[(_, 1), (0, _, 1)] : !A -> !layout.tensor<f32, #layout.cute<(3,5):(4,13)>, gmem>
  %f = layout.slice %a[(2, _), (_, 3, _)] : !A -> !layout.tensor<f32, #layout.cute<(2,2,2):(1,2,100)>, gmem>
  %b = layout.slice %a[2, _] : !A -> !layout.tensor<f32, #layout.cute<((2,5,2)):((2,13,100))>, gmem>
  %oe = layout.view %de : !layout.ptr<f32> -> !OE
  %of = layout.view %df : !layout.ptr<f32> -> !OF
  %ob = layout.view %db : !layout.ptr<f32> -> !OB
  layout.copy %e, %oe : !layout.tensor<f32, #layout.cute<(3,5):(4,13)>, gmem>, !OE
  layout.copy %f, %of : !layout.tensor<f32, #layout.cute<(2,2,2):(1,2,100)>, gmem>, !OF
  layout.copy %b, %ob : !layout.tensor<f32, #layout.cute<((2,5,2)):((2,13,100))>, gmem>, !OB
  func.return
}
"""


def test_nested_slice_coordinates_as_cute():
    """Each element by hand from the guide's strides: E = A(make_coord(_,1),
    make_coord(0,_,1)) is (3,5):(4,13) at offset 1*1 + 1*100; F = A(make_coord(2,_),
    make_coord(_,3,_)) is (2,2,2):(1,2,100) at offset 2*4 + 3*13; B = A(2,_) at offset
    2*4 (the linear index 2 of mode (3,2) is (2,0))."""
    inputs, out = run_text(NESTED_SLICES)
    src = inputs["src"]
    e = [src[101 + 4 * i + 13 * j] for j in range(5) for i in range(3)]
    f = [src[8 + 39 + a + 2 * b + 100 * c] for c in range(2) for b in range(2) for a in range(2)]
    bb = [src[8 + 2 * a + 13 * b + 100 * c] for c in range(2) for b in range(5) for a in range(2)]
    assert np.array_equal(out["de"], np.array(e, dtype=src.dtype))
    assert np.array_equal(out["df"], np.array(f, dtype=src.dtype))
    assert np.array_equal(out["db"], np.array(bb, dtype=src.dtype))


PARTITION = """
!V = !layout.tensor<f32, #layout.cute<128:1>, gmem>
!P = !layout.tensor<f32, #layout.cute<4:$stride>, gmem>
!Q = !layout.tensor<f32, #layout.cute<4:1>, gmem>
func.func @partition(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !V
  %b = layout.view %dst : !layout.ptr<f32> -> !V
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %p = layout.partition %a, %tid {tv = #layout.cute<(32,4):(1,32)>} : !V -> !P
    %q = layout.partition %b, %tid {tv = #layout.cute<(32,4):(4,1)>} : !V -> !Q
    layout.copy %p, %q : !P, !Q
  }
  func.return
}
""".replace("$stride", "32")


def test_partition():
    inputs, out = run_text(PARTITION)
    # thread t, value v: dst[4t + v] = src[t + 32v]
    assert np.array_equal(out["dst"], inputs["src"].reshape(4, 32).T.reshape(-1))


ARANGE = """
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#s0 = #layout.slice<{dim = 0, parent = #b}>
!D = !layout.tensor<i32, #layout.cute<(32,16):(16,1)>, gmem>
func.func @iota(%dst: !layout.ptr<i32>) {
  %d = layout.view %dst : !layout.ptr<i32> -> !D
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %r = layout.arange {start = 0 : i64, end = 16 : i64} : tensor<16xi32, #s0>
    %e = layout.expand_dims %r {axis = 0 : i64} : tensor<16xi32, #s0> -> tensor<1x16xi32, #b>
    %bc = layout.broadcast %e : tensor<1x16xi32, #b> -> tensor<32x16xi32, #b>
    layout.store %bc, %d : tensor<32x16xi32, #b>, !D
  }
  func.return
}
"""


def test_arange_expand_dims_broadcast():
    inputs, out = run_text(ARANGE)
    sentinel = inputs["dst"][0]
    assert sentinel not in range(16)  # poisoned before the run
    assert np.array_equal(out["dst"].reshape(32, 16), np.tile(np.arange(16, dtype=np.int32), (32, 1)))


def test_every_op_of_the_dialects_has_an_implementation():
    from tilec.dialects.cuda import Cuda
    from tilec.dialects.layout import Layout
    from tilec.runtime.reference.api import _functions

    implemented = set()
    for fns in _functions():
        implemented |= {op for op, _ in fns._impls()}
    missing = [op.name for d in (Layout, Cuda) for op in d.operations if op not in implemented]
    assert not missing, f"the reference executor cannot run {missing}"
