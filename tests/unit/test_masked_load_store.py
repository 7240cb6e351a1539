"""`layout.load` / `layout.store` with a computed mask (a tensor of i1, Gluon's `mask=`)
and `other` (Gluon's `other=`): the reference executor reads `other` where the mask is
false and stores nothing there; the default pipeline keeps that (bit for bit on the
reference executor), and the CUDA guards each masked element."""

from __future__ import annotations

import numpy as np

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.runtime.reference import run

from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip

# a row max over the first 100 of 128 columns: columns >= 100 read -inf and are not stored
MASKED = """
#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #layout.slice<{dim = 0, parent = #b}>
!G = !layout.tensor<f32, #layout.cute<(4,128):(128,1)>, gmem>
func.func @masked(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %cols = layout.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #c>
    %n = arith.constant 100 : i32
    %ns = layout.splat %n : i32 -> tensor<128xi32, #c>
    %in1 = layout.cmpi slt, %cols, %ns : tensor<128xi32, #c>
    %in2 = layout.expand_dims %in1 {axis = 0 : i64} : tensor<128xi1, #c> -> tensor<1x128xi1, #b>
    %m = layout.broadcast %in2 : tensor<1x128xi1, #b> -> tensor<4x128xi1, #b>
    %ninf = arith.constant 0xFF800000 : f32
    %x = layout.load %a, %ninf : f32 mask %m : tensor<4x128xi1, #b> : !G -> tensor<4x128xf32, #b>
    layout.store %x, %b mask %m : tensor<4x128xi1, #b> : tensor<4x128xf32, #b>, !G
  }
  func.return
}
"""


def test_masked_load_reads_other_and_masked_store_skips():
    x = np.random.default_rng(0).standard_normal((4, 128)).astype(np.float32)
    dst = np.full((4, 128), 7.0, np.float32)
    out = run(parse_module(MASKED), {"src": x.ravel(), "dst": dst.ravel()})["dst"].reshape(4, 128)
    np.testing.assert_array_equal(out[:, :100], x[:, :100])
    np.testing.assert_array_equal(out[:, 100:], 7.0)


def test_masked_load_store_through_the_default_pipeline():
    after = assert_pass_preserves(MASKED, "default", seeds=(0, 1))
    text = emit(after, "cuda")
    assert "if (" in text  # each masked element guarded
    compile_sm90_or_skip(text)


def test_other_is_read_where_the_mask_is_false():
    text = MASKED.replace("layout.store %x, %b mask %m : tensor<4x128xi1, #b> :", "layout.store %x, %b :")
    x = np.random.default_rng(1).standard_normal((4, 128)).astype(np.float32)
    out = run(parse_module(text), {"src": x.ravel(), "dst": np.full(512, np.nan, np.float32)})["dst"].reshape(4, 128)
    assert np.isneginf(out[:, 100:]).all()
    m = parse_module(text)
    run_pipeline(m, "default")
    out2 = run(m, {"src": x.ravel(), "dst": np.full(512, np.nan, np.float32)})["dst"].reshape(4, 128)
    np.testing.assert_array_equal(out, out2)
