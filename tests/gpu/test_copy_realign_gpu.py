"""The realign strategy (passes/_realign_tile.py) as `tilec.copy_` reaches it (the plan
states the misalignments, the `copy-strategy` pass chooses it) on the GPU: bit for
bit against PyTorch's `copy_`, outputs poisoned first, every element size, rows
starting at every byte offset in both views (heads, tails, rows shorter than 16
bytes), several outer modes and a broadcast one, 64-bit offsets; and the strided
set's cases it takes, made small.

    python -m pytest -m "gpu or torch" tests/gpu/test_copy_realign_gpu.py
"""

from __future__ import annotations

import pytest
from helpers.torch_gpu import torch_cuda

pytestmark = [pytest.mark.gpu, pytest.mark.torch]

DTYPES = ["int8", "bool", "uint8", "int16", "bfloat16", "float16", "int32", "float32", "int64", "float64"]


def _random(torch, dtype, n, gen):
    t = getattr(torch, dtype)
    if dtype == "bool":
        return torch.rand(n, generator=gen, device="cuda") > 0.5
    if t.is_floating_point:
        return (torch.randn(n, generator=gen, device="cuda") * 100).to(t)
    info = torch.iinfo(t)
    return torch.randint(info.min, info.max, (n,), generator=gen, device="cuda", dtype=t)


def _bits(torch, x):
    size = x.element_size()
    view = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    return x.view(torch.uint8) if x.dtype == torch.bool else x.view(view)


def _copy_and_check(torch, kernels, dst_base, dst, src):
    from tilec.tensor_copy import copy_

    dst_base.view(torch.uint8).fill_(0x4D)  # poison, bytes around dst included
    want = dst_base.clone()
    want_view = want.as_strided(dst.shape, dst.stride(), dst.storage_offset())
    want_view.copy_(src)
    copy_(dst, src, kernels=kernels)
    torch.cuda.synchronize()
    assert torch.equal(_bits(torch, dst_base), _bits(torch, want)), (dst.shape, dst.stride(), src.stride())


def _sweep_rows(torch, dtype, seed, lengths, dst_offsets, step):
    """Copies 7 rows of each length in `lengths`, read at source step `step` from every
    element offset of a 16-byte chunk, into destinations starting at `dst_offsets`, with
    pitches that shift each row differently; checks each (`_copy_and_check`) and returns
    the kernels compiled."""
    from tilec.copy_kernels import CopyKernels

    gen = torch.Generator(device="cuda").manual_seed(seed)
    kernels = CopyKernels(disk=False)
    v = 16 // torch.empty(0, dtype=getattr(torch, dtype)).element_size()
    base = _random(torch, dtype, 1 << 16, gen)
    out = torch.empty(1 << 16, dtype=getattr(torch, dtype), device="cuda")
    for n in lengths:
        for so in range(v):
            for do in dst_offsets:
                rows, sp, dp = 7, step * n + 1 + so % 3, n + (do % 2) + 2
                src = base.as_strided((rows, n), (sp, step), so)
                dst = out.as_strided((rows, n), (dp, 1), do)
                _copy_and_check(torch, kernels, out, dst, src)
    return kernels


@pytest.fixture
def always(routes):

    routes(realign="always")


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_shift_head_and_tail_matches_torch(always, dtype):
    """Rows of 1..40 and 203 elements, src and dst starting at every element offset
    of a 16-byte chunk, src and dst pitches that shift each row differently."""
    torch = torch_cuda()
    v = 16 // torch.empty(0, dtype=getattr(torch, dtype)).element_size()
    lengths = (1, 2, 3, v - 1, v, v + 1, 2 * v + 3, 40, 203)
    kernels = _sweep_rows(torch, dtype, 21, lengths, range(0, v, 1 if v <= 4 else 3), step=1)
    assert {k.index_bits for k in kernels._entries if k.aligned_pointers} == {32}


@pytest.mark.parametrize("tuning", [{}, {"realign_prefetch": 4, "div32": 1}, {"realign_prefetch": 3},
                                    {"realign_prefetch": 5, "realign_chunks": 2}, {"realign_prefetch": 6},
                                    {"realign_prefetch": 6, "realign_bytes": 16},
                                    {"realign_prefetch": 6, "realign_bytes": 16, "realign_chunks": 2},
                                    {"realign_prefetch": 7, "realign_bytes": 16}],
                         ids=["default", "ends_div32", "bulk", "ends_late_2", "edges", "edges_16", "edges_16_2",
                              "rowask_16"])
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_outer_modes_broadcasts_and_64_bit_offsets(routes, dtype, monkeypatch, tuning):
    """Rank 3 and 4 (the strided set's 04, 16, 34, 46 made small), a broadcast outer mode,
    a flat dst from sliced rows (19), and the same with 64-bit offsets; by default, with
    the bulk prefetches of each row's ends and 32-bit multiply-high divisions
    (`realign_prefetch=4`, `div32=1`), with those of the pseudo-sectors' chunks (3), and
    with the ends asked after the loads, two chunks a thread (5, `realign_chunks=2`), and
    with a row's real partial sectors only (6), 8-byte elements in 16-byte chunks
    (`realign_bytes=16`) with one and two chunks a thread, and those sectors by one ask a
    row (7)."""
    from tilec.copy_kernels import CopyKernels
    from tilec.passes import _realign_tile

    routes(realign="always", **tuning)
    torch = torch_cuda()
    gen = torch.Generator(device="cuda").manual_seed(4)
    t = getattr(torch, dtype)
    for limit in (_realign_tile.INDEX32_LIMIT, 1000):
        monkeypatch.setattr(_realign_tile, "INDEX32_LIMIT", limit)
        kernels = CopyKernels(disk=False)
        base = _random(torch, dtype, 1 << 19, gen)
        out = torch.empty(1 << 19, dtype=t, device="cuda")
        # 04: (5, 7, 9, 775) contiguous -> rows of 775 at a pitch of 776, outer pitches padded
        src = base[: 5 * 7 * 9 * 775].view(5, 7, 9, 775)
        dst = out.as_strided((5, 7, 9, 775), (7 * 10 * 776 + 3, 10 * 776, 776, 1), 3)
        _copy_and_check(torch, kernels, out, dst, src)
        # 34: (3, 31, 5, 56) -> pitch 59
        src = base[: 3 * 31 * 5 * 56].view(3, 31, 5, 56)
        dst = out.as_strided((3, 31, 5, 56), (31 * 297 + 1, 297, 59, 1), 5)
        _copy_and_check(torch, kernels, out, dst, src)
        # 19: rows of a sliced src into a flat dst
        src = base.as_strided((11, 4801), (9602 + 1, 1), 4)
        dst = out[1 : 1 + 11 * 4801].view(11, 4801)
        _copy_and_check(torch, kernels, out, dst, src)
        # 46 with an outer mode: rows of 5 at a pitch of 10 (8-byte chunks for int64)
        src = base[: 7 * 301 * 5].view(7, 301, 5)
        dst = out.as_strided((7, 301, 5), (302 * 10 + 3, 10, 1), 22)
        _copy_and_check(torch, kernels, out, dst, src)
        # a row broadcast along an outer mode, into padded rows
        src = base.as_strided((13, 6, 301), (0, 305, 1), 7)
        dst = out.as_strided((13, 6, 301), (6 * 303, 303, 1), 1)
        _copy_and_check(torch, kernels, out, dst, src)
        assert {(k.aligned_pointers, k.index_bits) for k in kernels._entries} == {(True, 32 if limit > 1000 else 64)}


def test_strided_set_patterns_take_the_realign_strategy():
    """The cost model takes the strided set's misaligned-row cases (made small)."""
    from tilec.copy_plan import Operand, plan_copy

    # 46: int64 rows of 5 at a pitch of 10 (dst 16-byte aligned rows), src flat
    p = plan_copy(Operand(4096 + 176, "int64", (20001, 5), (10, 1)), Operand(8192, "int64", (20001, 5), (5, 1)))
    assert p.key.aligned_pointers


@pytest.mark.parametrize("dtype", ["int8", "float16", "float32", "int64"])
def test_a_program_that_states_its_misalignments_matches_torch(dtype):
    """A `tilec.Program` whose views' pointers are 16-byte aligned pointers moved by
    their misalignments (run-time index arguments) compiles the realign strategy
    through `-p default` (the kernel `copy_` compiles for the same views) and copies
    bit for bit, every misalignment of both views, the bytes around dst poisoned."""
    import tilec
    from tilec import Program
    from tilec.dialects.layout import CopyOp

    torch = torch_cuda()
    short = {"int8": "i8", "float16": "f16", "float32": "f32", "int64": "i64"}[dtype]
    t = getattr(torch, dtype)
    e = torch.empty(0, dtype=t).element_size()
    rows, n, sp, dp = 37, 301, 305, 303
    p = Program("rows")
    s, d = p.pointer("src", short, align=16), p.pointer("dst", short, align=16)
    a = p.view(p.addptr(s, p.index("smis")), f"({rows},{n}):({sp},1)")
    b = p.view(p.addptr(d, p.index("dmis")), f"({rows},{n}):({dp},1)")
    p.insert(CopyOp(a.ssa, b.ssa))
    from helpers.canonical_copies import _read_choice

    assert _read_choice(p.module.clone(), "default")[0] == "realign"
    kernel = tilec.compile(p)
    gen = torch.Generator(device="cuda").manual_seed(3)
    base = _random(torch, dtype, rows * sp + 64, gen)
    out = torch.empty(rows * dp + 64, dtype=t, device="cuda")
    v = 16 // e
    for smis in range(0, v, max(1, v // 4)):
        for dmis in range(0, v, max(1, v // 3)):
            out.view(torch.uint8).fill_(0x4D)
            want = out.clone()
            want.as_strided((rows, n), (dp, 1), dmis).copy_(base.as_strided((rows, n), (sp, 1), smis))
            kernel(base, out, smis, dmis)
            torch.cuda.synchronize()
            assert torch.equal(_bits(torch, out), _bits(torch, want)), (smis, dmis)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
@pytest.mark.parametrize("forced", [False, True])
def test_step_two_rows_match_torch(routes, dtype, forced):
    """Rows read at a source step of 2 (`_copy_cost.REALIGN_STEPS`: 1-byte rows longer than
    64 elements by the rule, every integer row of 1 or 2 bytes with `realign=always`):
    each 16-byte chunk from its 32-byte window, rows of 1..203 elements, the source
    starting at every element of a chunk, destination offsets and pitches that shift
    each row differently."""
    if forced:
        routes(realign="always")
    torch = torch_cuda()
    e = torch.empty(0, dtype=getattr(torch, dtype)).element_size()
    v = 16 // e
    lengths = (1, 3, v, 2 * v + 3, 56, 203) if forced else (65, 203, 1000)
    kernels = _sweep_rows(torch, dtype, 40, lengths, (0, 3, 5), step=2)
    taken = {k.src_strides[-1] for k in kernels._entries if k.aligned_pointers}
    assert taken == ({2} if forced or e == 1 else set())


@pytest.mark.parametrize("dtype", ["int8", "int16"])
@pytest.mark.parametrize("limit", ["32", "64"])
def test_flat_step_two_rows_and_64_bit_ids_match_torch(routes, monkeypatch, dtype, limit):
    """The flat form over short rows read at a step of 2 (`realign_flat=1`: a chunk of the
    compact destination from its row's window and the next row's) and 64-bit kernels'
    ids divided as multiplications (`magic64=1`, the row form's element tests in 32 bits),
    the 64-bit kernels forced by a low offset limit: rows of a chunk to 64 elements (the
    strided set's 07 and 43 made small), rows starting at every element of a chunk, an
    outer mode, and rows read at a step of 1 and 2 through the row form."""
    from tilec.copy_kernels import CopyKernels
    from tilec.passes import _realign_tile

    if limit == "64":
        monkeypatch.setattr(_realign_tile, "INDEX32_LIMIT", 1000)
    routes(realign="always", realign_flat=1, magic64=1)
    torch = torch_cuda()
    gen = torch.Generator(device="cuda").manual_seed(41)
    kernels = CopyKernels(disk=False)
    e = torch.empty(0, dtype=getattr(torch, dtype)).element_size()
    v = 16 // e
    base = _random(torch, dtype, 1 << 16, gen)
    out = torch.empty(1 << 16, dtype=getattr(torch, dtype), device="cuda")
    for n in (v, v + 1, 31, 56, 64):
        for so in range(v):
            for do in (0, 3, 5):
                outer, rows, pitch = 3, 7, 2 * n + 1 + so % 5
                src = base.as_strided((outer, rows, n), (rows * pitch + 9, pitch, 2), so)
                dst = out[do : do + outer * rows * n].view(outer, rows, n)
                _copy_and_check(torch, kernels, out, dst, src)
    # the row form (a padded destination) at steps of 2 and 1
    src = base.as_strided((5, 7, 40), (700, 93, 2), 3)
    _copy_and_check(torch, kernels, out, out.as_strided((5, 7, 40), (7 * 43, 43, 1), 1), src)
    src = base.as_strided((5, 7, 40), (700, 93, 1), 3)
    _copy_and_check(torch, kernels, out, out.as_strided((5, 7, 40), (7 * 43, 43, 1), 1), src)
    bits = {k.index_bits for k in kernels._entries if k.aligned_pointers}
    assert bits == {64 if limit == "64" else 32}
    assert any(k.dst_flat and k.src_strides[-1] == 2 for k in kernels._entries)


@pytest.mark.parametrize("dtype", ["int16", "float32"])
def test_rows_classed_up_to_256_elements_match_torch(always, dtype):
    """copy_'s realign key classes rows of 65-256 2- and 4-byte elements by 128 and 256
    (`copy_key.REALIGN_ROW_CLASS`), where the rule takes the ends' bulk prefetches and 2
    chunks a thread for rows of 257-1024 bytes (`_realign_tile.row_rule`): rows at the
    classes' edges and between, at every element offset of a chunk in the source and
    several in the destination, each row shifted differently."""
    torch = torch_cuda()
    kernels = _sweep_rows(torch, dtype, 45, (65, 100, 128, 129, 200, 256), range(0, 16 // 2, 3), step=1)
    assert {k.small_extents[-1] for k in kernels._entries if k.aligned_pointers} == {128, 256}


@pytest.mark.parametrize("dtype", ["int8", "bfloat16", "float32", "int64"])
@pytest.mark.parametrize("run, lanes, elems", [(4, 1, 0), (8, 1, 0), (2, 4, 0), (8, 1, 1), (4, 2, 1)])
def test_run_form_matches_torch(routes, dtype, run, lanes, elems):
    """The run form (`realign_run=K`, `realign_lanes=L`, `realign_elems=E`: K chunks of a row
    a thread, the row's coordinates once): rows of 1..203 elements from every element of a
    chunk into padded destinations (`_sweep_rows`), and broadcasts into compact destinations
    (the strided set's 38 made small: rows of 37 and 123, the dst starting at 0, 3 and 5)."""
    routes(realign="always", realign_run=run, realign_lanes=lanes, realign_elems=elems)
    torch = torch_cuda()
    v = 16 // torch.empty(0, dtype=getattr(torch, dtype)).element_size()
    kernels = _sweep_rows(torch, dtype, 47, (1, v - 1, v + 1, 3 * v + 3, 203), range(0, v, 3), step=1)
    gen = torch.Generator(device="cuda").manual_seed(48)
    base = _random(torch, dtype, 1 << 16, gen)
    out = torch.empty(1 << 16, dtype=getattr(torch, dtype), device="cuda")
    for n in (37, 123):
        for do in (0, 3, 5):
            src = base[1 : 1 + 5 * n].view(1, 5, 1, n).expand(7, 5, 3, n)
            dst = out[do : do + 7 * 5 * 3 * n].view(7, 5, 3, n)
            _copy_and_check(torch, kernels, out, dst, src)
    assert any(k.aligned_pointers and k.dst_flat for k in kernels._entries)
