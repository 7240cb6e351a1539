"""L2 eviction priorities (`layout.load` / `layout.store` `cache`, set by
`reread-order{cache_hints}`): the CUDA they lower to compiles under NVRTC for every
access width (1, 2, 4, 8, 16 bytes) on sm_80 and sm_90, with the PTX `createpolicy` and
`.L2::cache_hint` accesses in it; on the two-pass row kernels of
examples/python/row_kernels.py the first read of the row is `evict_last`, the second
read and the outputs `evict_first`, and nothing else is hinted."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tilec.compiler.pipeline import NAMED_PIPELINES, emit, run_pipeline
from tilec.dialects.layout import LoadOp, StoreOp

sys.path.insert(0, str(Path(__file__).parents[2] / "examples" / "python"))
import row_kernels as rk  # noqa: E402

HINTS = NAMED_PIPELINES["default"].replace("choose-warps,stash-rereads,",
                                           "reread-order{cache_hints=true},choose-warps{stash_rows=false},")
"""The default pipeline with `reread-order{cache_hints}` (benchmarks/realistic_rows.py's `reread-hints`)."""

def _hinted_copy(elem: str, vector: int, in_place: bool):
    """One warp loads 32 * `vector` elements of `src` (`cache = "evict_last"`) and stores
    them to `dst`, or back to `src` when `in_place` (`cache = "evict_first"`), `vector`
    elements a thread; both pointers 16-byte aligned."""
    import tilec
    from xdsl.dialects.builtin import StringAttr

    n = 32 * vector
    p = tilec.Program("hinted")
    a = p.view(p.pointer("src", elem, align=16), f"{n}:1")
    b = p.view(p.pointer("dst", elem, align=16), f"{n}:1")
    with p.launch(threads=32):
        x = p.load(a, tilec.BlockedLayout([vector], [32], [1], [0]), vector=vector)
        p.store(x, a if in_place else b, vector=vector)
    module = p.module
    for op in module.walk():
        if isinstance(op, (LoadOp, StoreOp)):
            op.cache = StringAttr("evict_last" if isinstance(op, LoadOp) else "evict_first")
    return module

_PTX_WIDTH = {1: "u8", 2: "b16", 4: "b32", 8: "v2.b32", 16: "v4.b32"}


def _compile(cuda: str, arch: str):
    try:
        from tilec.runtime.nvrtc import compile_cuda
    except (ImportError, OSError) as e:  # pragma: no cover - environments without NVRTC
        pytest.skip(f"NVRTC unavailable: {e}")
    return compile_cuda(cuda, arch=arch)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize(("elem", "vector", "nbytes"), [("i8", 1, 1), ("f16", 1, 2), ("f32", 1, 4),
                                                          ("f32", 2, 8), ("f16", 8, 16)])
@pytest.mark.parametrize("in_place", [False, True])
def test_hinted_accesses_compile_at_every_width(elem, vector, nbytes, arch, in_place):
    """A buffer the kernel only reads is read through the non-coherent path (`.nc`, as
    its plain loads are); one it also writes (in place) is not."""
    module = _hinted_copy(elem, vector, in_place)
    run_pipeline(module, "lower-to-gpu,canonicalize")
    cuda = emit(module, "cuda")
    assert f"tilec_ld_l2<1, {0 if in_place else 1}>(" in cuda and "tilec_st_l2<0>(" in cuda
    ptx = _compile(cuda, arch).ptx
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    w = _PTX_WIDTH[nbytes]
    load = f"ld.global.L2::cache_hint.{w}" if in_place else f"ld.global.nc.L2::cache_hint.{w}"
    assert load in ptx and f"st.global.L2::cache_hint.{w}" in ptx
    assert "createpolicy.fractional.L2::evict_last.b64" in ptx
    assert "createpolicy.fractional.L2::evict_first.b64" in ptx


def _hints(program) -> list[tuple[str, str | None]]:
    """(op kind, its `cache`) of each global load and store, in program order, after the
    passes up to `coalesce` (which rebuilds the accesses) under HINTS."""
    module = program.module.clone()
    upto = HINTS[: HINTS.index("coalesce") + len("coalesce")]
    run_pipeline(module, upto)
    out = []
    for o in module.walk():
        if isinstance(o, LoadOp | StoreOp) and o.view.type.memory_space == "gmem":
            out.append(("load" if isinstance(o, LoadOp) else "store", o.cache.data if o.cache else None))
    return out


@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_two_pass_rows_read_first_evict_last_then_evict_first(dtype):
    """Softmax at 50257: the first loop's load keeps its lines in L2, the second loop's
    load and store let theirs go first. RMSNorm: the weight (read by every row) is not
    hinted."""
    assert _hints(rk.softmax(50257, dtype)) == [("load", "evict_last"), ("load", "evict_first"),
                                                ("store", "evict_first")]
    assert _hints(rk.rms_norm(50257, dtype)) == [("load", "evict_last"), ("load", "evict_first"),
                                                 ("load", None), ("store", "evict_first")]


def test_one_pass_rows_are_not_hinted():
    """A row that registers hold (one read) and cumsum's loop (one pass) carry no hint."""
    for program in (rk.softmax(4096, "f16"), rk.cumsum(50257, "f32")):
        assert all(h is None for _, h in _hints(program))


@pytest.mark.parametrize(("n", "width"), [(50257, "b16"), (131072, "v4.b32")])
def test_hinted_row_kernels_compile(n, width):
    """The hinted two-pass softmax (f16: scalar accesses at unaligned rows of 50257,
    16-byte vectors at 131072) compiles for sm_90 with the hinted accesses."""
    module = rk.softmax(n, "f16").module.clone()
    run_pipeline(module, HINTS)
    cuda = emit(module, "cuda")
    ptx = _compile(cuda, "sm_90").ptx
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert re.search(rf"ld\.global\.nc\.L2::cache_hint\.{re.escape(width)}", ptx)
    assert re.search(rf"st\.global\.L2::cache_hint\.{re.escape(width)}", ptx)


PREFETCH = NAMED_PIPELINES["default"].replace(
    "choose-warps,stash-rereads,",
    "reread-order{cache_hints=true prefetch=true},choose-warps{l2_rows=true stash_rows=false},")
"""benchmarks/realistic_rows.py's `reread-l2-prefetch`."""


@pytest.mark.parametrize("kind", ["softmax", "layer_norm", "rms_norm"])
def test_two_pass_rows_prefetch_their_row_once(kind):
    """`reread-order{prefetch}`: one `layout.prefetch` of the whole re-read row (50257
    f16, 100514 bytes) before the first loop, evict_last with the hints; the norms'
    weights are not prefetched. The CUDA compiles for sm_90 with one bulk prefetch, and
    for sm_80 (no bulk copies) with none."""
    from tilec.dialects.layout import PrefetchOp
    from tilec.support.target import set_target

    program = getattr(rk, kind)(50257, "f16")
    module = program.module.clone()
    run_pipeline(module, PREFETCH[: PREFETCH.index("choose-warps")] + "choose-warps{l2_rows=true}")
    pre = [o for o in module.walk() if isinstance(o, PrefetchOp)]
    assert [(tuple(p.view.type.cute_layout.shape), p.cache.data) for p in pre] == [((1, 50257), "evict_last")]
    for arch, count in (("sm_90", 1), ("sm_80", 0)):
        module = program.module.clone()
        set_target(module, arch)
        run_pipeline(module, PREFETCH)
        cuda = emit(module, "cuda")
        assert cuda.count("tilec_prefetch_l2<1>(src + ") == count
        ptx = _compile(cuda, arch).ptx
        ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
        assert ptx.count("cp.async.bulk.prefetch.L2.global.L2::cache_hint") == count


@pytest.mark.parametrize("size", [64, 128, 256])
def test_box_prefetch_sizes_compile(size):
    """`tile{box_prefetch=N}`: a `box<flat>` copy's phase-1 `cp.async` ask the L2 prefetch
    size N (`.L2::NB`), each chunk's, and compile under NVRTC for sm_90; without the
    option, none does."""
    import tilec
    from tilec.compiler.pipeline import expand_pipeline

    def flat() -> tilec.Program:
        p = tilec.Program("flat")
        a = p.view(p.pointer("src", "i8", align=16), "(19,4000):(1,19)")
        b = p.view(p.pointer("dst", "i8", align=16), "(19,4000):(4000,1)")
        p.copy(a, b)
        return p

    # (.cg: the flat box's rule takes .ca, `_box_tile.BOX_L1`)
    pipeline = expand_pipeline("default").replace("tile,", f"tile{{box_prefetch={size} box_l1=0}},", 1)
    module = flat().module
    run_pipeline(module, pipeline)
    cuda = emit(module, "cuda")
    assert f"tilec_cp_async16<false, {size}>(" in cuda and "tilec_cp_async<16>(" not in cuda.split("extern")[-1]
    ptx = _compile(cuda, "sm_90").ptx
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert f"cp.async.cg.shared.global.L2::{size}B" in ptx
    plain = flat().module
    run_pipeline(plain, "default")
    assert not re.search(r"tilec_cp_async16<\w+, [1-9]", emit(plain, "cuda"))  # no prefetch size


@pytest.mark.parametrize("prefetch", [0, 128])
def test_box_l1_copies_compile(prefetch):
    """`tile{box_l1=1}`: a `box<flat>` copy's phase-1 `cp.async` go through L1
    (`cp.async.ca`, with the L2 prefetch size where `box_prefetch` asks one) and compile
    under NVRTC for sm_90; with `box_l1=0` they are `.cg`."""
    import tilec
    from tilec.compiler.pipeline import expand_pipeline

    def flat() -> tilec.Program:
        p = tilec.Program("flat")
        a = p.view(p.pointer("src", "i8", align=16), "(19,4000):(1,19)")
        b = p.view(p.pointer("dst", "i8", align=16), "(19,4000):(4000,1)")
        p.copy(a, b)
        return p

    extra = f" box_prefetch={prefetch}" if prefetch else ""
    pipeline = expand_pipeline("default").replace("tile,", f"tile{{box_l1=1{extra}}},", 1)
    module = flat().module
    run_pipeline(module, pipeline)
    cuda = emit(module, "cuda")
    assert f"tilec_cp_async16<true, {prefetch}>(" in cuda and "tilec_cp_async<16>(" not in cuda.split("extern")[-1]
    ptx = _compile(cuda, "sm_90").ptx
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert ("cp.async.ca.shared.global" + (f".L2::{prefetch}B" if prefetch else " ")) in ptx
    assert "cp.async.cg.shared.global" not in ptx
    plain = flat().module
    run_pipeline(plain, expand_pipeline("default").replace("tile,", "tile{box_l1=0},", 1))
    assert "tilec_cp_async16<true" not in emit(plain, "cuda")
