"""`layout.load` / `layout.store` with a computed mask (a tensor of i1, Gluon's `mask=`)
and `other` (Gluon's `other=`): the reference executor reads `other` where the mask is
false and stores nothing there; the default pipeline keeps that (bit for bit on the
reference executor), and the CUDA guards each masked element."""

from __future__ import annotations

import numpy as np

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.runtime.reference import run

from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip

def masked(store_mask: bool = True):
    """The first 100 of 128 columns of a 4x128 tile: columns >= 100 read -inf and (with
    `store_mask`) are not stored (a module built with `tilec.Program`)."""
    import tilec

    lay = tilec.BlockedLayout([1, 4], [1, 32], [4, 1], [1, 0])
    p = tilec.Program("masked")
    a, b = (p.view(p.pointer(n, "f32", align=16), "(4,128):(128,1)") for n in ("src", "dst"))
    with p.launch(threads=128):
        cols = p.arange(0, 128, tilec.SliceLayout(0, lay))
        m = p.broadcast(p.expand_dims(cols < 100, 0), [4, 128])
        x = p.load(a, lay, mask=m, other=float("-inf"))
        p.store(x, b, mask=m if store_mask else None)
    return p.module


MASKED = masked()
"""The masked program (tests/gpu/test_compute_gpu.py runs it on a GPU)."""


def test_masked_load_reads_other_and_masked_store_skips():
    x = np.random.default_rng(0).standard_normal((4, 128)).astype(np.float32)
    dst = np.full((4, 128), 7.0, np.float32)
    out = run(masked(), {"src": x.ravel(), "dst": dst.ravel()})["dst"].reshape(4, 128)
    np.testing.assert_array_equal(out[:, :100], x[:, :100])
    np.testing.assert_array_equal(out[:, 100:], 7.0)


def test_masked_load_store_through_the_default_pipeline():
    after = assert_pass_preserves(masked(), "default", seeds=(0, 1))
    text = emit(after, "cuda")
    assert "if (" in text  # each masked element guarded
    compile_sm90_or_skip(text)


def test_other_is_read_where_the_mask_is_false():
    x = np.random.default_rng(1).standard_normal((4, 128)).astype(np.float32)
    out = run(masked(store_mask=False), {"src": x.ravel(), "dst": np.full(512, np.nan, np.float32)})["dst"].reshape(4, 128)
    assert np.isneginf(out[:, 100:]).all()
    m = masked(store_mask=False)
    run_pipeline(m, "default")
    out2 = run(m, {"src": x.ravel(), "dst": np.full(512, np.nan, np.float32)})["dst"].reshape(4, 128)
    np.testing.assert_array_equal(out, out2)
