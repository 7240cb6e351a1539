"""The gather strategy of a whole-tensor copy (`#layout.copy_strategy<gather>`,
passes/_gather_tile.py) as `tilec.copy_` reaches it, without a GPU: which copies the
`copy-strategy` pass gives it (its cost model on the facts copy_ states), and the kernels
on the CPU reference executor against NumPy, bit for bit, with the elements around dst
untouched: run lengths that wrap the last mode at every point, carries through several
modes, broadcast and stepped sources, padded destinations, 32- and 64-bit offsets,
conversions."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.canonical_copies import copy_choice, program_choice
from helpers.operands import operand

from tilec import copy_plan
from tilec.copy_cpu import copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy


@pytest.fixture
def always(routes):
    routes(gather="always")


def op(shape, strides=None, dtype="int32", ptr=0):
    return operand(shape, strides, dtype, ptr)


def strategy(dst, src=None) -> str:
    """The strategy of the kernel copy_ compiles for (dst, src) or a plan, checked equal
    to the Program's."""
    plan = plan_copy(dst, src) if src is not None else dst
    got = copy_choice(plan)
    assert got == program_choice(plan)
    return got[0]


def test_the_cost_model_takes_short_odd_runs_into_compact_dsts():
    # a 17 x 19 transpose inside 323-element blocks (24 of the strided set)
    assert strategy(op((50, 17, 19), ptr=4096), op((50, 17, 19), (323, 1, 17), ptr=64)) == "gather"
    # a power-of-two run, a long transpose, a src wider than the dst: tiled
    assert strategy(op((50, 17, 16)), op((50, 17, 16), (272, 1, 17))) == "tiled"
    assert strategy(op((5000, 300)), op((5000, 300), (1, 5000))) == "tiled"
    assert strategy(op((50, 17, 19), dtype="int8"), op((50, 17, 19), (323, 1, 17), dtype="int64")) == "tiled"
    # rows of 5 into a padded dst (46 of the strided set): not compact, never a gather
    # (the realign strategy's, passes/_realign_tile.py)
    padded = plan_copy(op((9000, 5), (10, 1), dtype="int64", ptr=4096), op((9000, 5), dtype="int64"))
    assert copy_choice(padded)[0] == "realign"


def test_broadcasts_take_the_gather_strategy():
    # 02 and 08 of the strided set: long rows, a column
    assert strategy(op((4456, 41440), dtype="int16", ptr=4096), op((1, 41440), dtype="int16")) == "gather"
    assert strategy(op((2532, 6882), ptr=4096), op((2532, 1), ptr=64)) == "gather"
    # 38 (rows of 1123 bf16: no destination row starts on a vector, rows >= 512 bytes) takes the
    # realign strategy's run form instead (`_copy_cost.run_broadcast`, tests/unit/test_copy_realign_run.py)
    assert strategy(op((185, 5, 257, 1123), dtype="bfloat16"), op((1, 5, 1, 1123), dtype="bfloat16")) == "realign"
    # 1-byte broadcasts: where each run is a vector of an aligned src only
    ones = plan_copy(op((4456, 41440), dtype="uint8"), op((1, 41440), dtype="uint8", ptr=4096))
    assert ones.key.last_divisor == 16 and ones.key.src_align == 16 and strategy(ones) == "gather"
    misaligned = plan_copy(op((4456, 41440), dtype="uint8"), op((1, 41440), dtype="uint8", ptr=4099))
    assert copy_choice(misaligned)[0] == "realign"
    # a padded dst, a src wider than the dst: never a gather
    padded = plan_copy(op((4456, 41440), (41444, 1), dtype="int16"), op((1, 41440), dtype="int16"))
    assert copy_choice(padded)[0] != "gather"
    assert strategy(op((4456, 41440), dtype="int16"), op((1, 41440), dtype="int32")) == "tiled"


def test_forced_gather_takes_a_padded_dst(always):
    plan = plan_copy(op((9000, 5), (10, 1), dtype="int64", ptr=4096), op((9000, 5), dtype="int64"))
    assert not plan.key.dst_flat and copy_choice(plan)[0] == "gather"


def test_gather_offsets_are_32_bits_where_they_fit():
    small = plan_copy(op((1000, 259), dtype="int16", ptr=4096), op((1, 259), dtype="int16", ptr=2))
    assert small.key.index_bits == 32
    big = plan_copy(op((3, 5), dtype="int16", ptr=4096), op((3, 5), (0, 2**30), dtype="int16"))
    assert big.key.index_bits == 64


kernels_seen: list = []


def _check(dst_shape, src, dst_base, window, compiled, kernels):
    """Copy `src` into `dst_base[window]` viewed as `dst_shape`; nothing else moves."""
    want = dst_base.copy()
    want[window] = np.broadcast_to(src, dst_shape).reshape(want[window].shape)
    dst = dst_base[window].reshape(dst_shape)
    if compiled:
        kernels_seen.append((copy_plan.Operand(dst.__array_interface__["data"][0], dst.dtype.name, dst.shape,
                                               tuple(x // dst.itemsize for x in dst.strides)),
                             copy_plan.Operand(src.__array_interface__["data"][0], src.dtype.name, src.shape,
                                               tuple(x // src.itemsize for x in src.strides))))
    copy_numpy(dst, src, compiled=compiled, kernels=kernels)
    assert np.array_equal(dst_base, want)


@pytest.mark.parametrize("compiled", [False, True])
def test_gather_copies_match_numpy(always, compiled, nvrtc_available):
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(20)
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    for dtype in ("int8", "int16", "int32", "int64"):
        info = np.iinfo(dtype)

        def rand(shape, info=info, dtype=dtype):
            return rng.integers(info.min, info.max, size=shape, dtype=dtype)

        # a transpose of two short odd modes in blocks (runs wrap the last mode anywhere)
        base = rand((7, 5, 19, 17))
        src = base.transpose(0, 1, 3, 2)
        out = np.full((7 * 5 * 17 * 19 + 5,), 7, dtype)
        _check(src.shape, src, out, slice(3, 3 + src.size), compiled, kernels)
        # the same written into a contiguous 4-D dst: carries through three modes
        _check(src.shape, src, np.full(src.shape, 7, dtype), (slice(None),) * 4, compiled, kernels)
        # into a padded, offset dst (offsets computed for both views)
        pad = np.full((7 * 5 * 17 + 2, 23), 7, dtype)
        _check((7, 5, 17, 19), src, pad, (slice(1, 596), slice(2, 21)), compiled, kernels)
        # a broadcast row, and a stepped, offset, permuted source
        row = rand((1, 37))
        _check((41, 37), row, np.full((41, 37), 7, dtype), (slice(None), slice(None)), compiled, kernels)
        base = rand((13, 30, 11))
        src = base[2:11:3, 1::2, :].transpose(2, 0, 1)  # (11, 3, 15)
        _check(src.shape, src, np.full(src.shape, 7, dtype), (slice(None),) * 3, compiled, kernels)
    if compiled:
        assert kernels._entries and all(copy_choice(plan_copy(*ops))[0] == "gather" for ops in kernels_seen)


def test_gather_with_64_bit_offsets_matches_numpy(monkeypatch, nvrtc_available, routes):
    """The 64-bit variant, forced by a lower limit (real 2**31 offsets need GiBs)."""
    routes(gather="always")
    monkeypatch.setattr(copy_plan, "INDEX32_LIMIT", 100)
    rng = np.random.default_rng(64)
    base = rng.integers(-128, 127, size=(6, 21, 9), dtype=np.int8)
    src = base.transpose(0, 2, 1)
    dst = np.full(src.shape, 7, np.int8)
    assert plan_copy(op(dst.shape, dtype="int8"), op(src.shape, (189, 1, 9), dtype="int8")).key.index_bits == 64
    for compiled in (False, True) if nvrtc_available else (False,):
        dst[...] = 7
        copy_numpy(dst, src, compiled=compiled, kernels=CopyKernels(arch="sm_90", disk=False) if compiled else None)
        assert np.array_equal(dst, src)


@pytest.mark.parametrize(
    "sd, dd",
    [
        ("uint8", "float64"),
        ("float32", "bfloat16"),
        ("float64", "float16"),
        ("int32", "float16"),
        ("float32", "uint8"),
        ("float16", "bool"),
        ("int64", "int8"),
        ("bool", "int16"),
        ("int8", "int64"),
    ],
)
def test_converting_gathers_match_numpy(always, sd, dd, nvrtc_available):
    """Conversions in registers between the gather and the store (conversion_steps),
    on a 17 x 19 transpose in blocks, against `convert_values` (PyTorch's rules)."""
    from tilec.dialects.conversions import convert_values

    hold = {"bfloat16": np.uint16, "bool": np.uint8}
    rng = np.random.default_rng(len(sd) * 7 + len(dd))
    if sd in ("float16", "float32", "float64"):
        base = np.clip(rng.standard_normal((3, 19, 17)) * 60, -120, 120).astype(sd)
        base.flat[::29] = 0
    elif sd == "bool":
        base = (rng.random((3, 19, 17)) > 0.5).astype(np.uint8)
    else:
        info = np.iinfo(sd)
        base = rng.integers(info.min, info.max, size=(3, 19, 17), dtype=sd)
    src = base.transpose(0, 2, 1)
    want = convert_values(np.ascontiguousarray(src), sd, dd).view(hold.get(dd, dd))
    for compiled in (False, True) if nvrtc_available else (False,):
        dst = np.full(src.shape, 7, hold.get(dd, dd))
        kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
        copy_numpy(dst, src, src_dtype=sd, dst_dtype=dd, compiled=compiled, kernels=kernels)
        assert np.array_equal(dst, want), (sd, dd, compiled)




def test_gather_host_function_has_a_recipe(nvrtc_available):
    """The gather strategy's host function (the grid over the flat dst) is a recipe,
    so its kernel goes to the disk cache and a new process launches it without xDSL."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    from tilec.passes._copy_cost import GATHER_RUNS_PER_THREAD, GATHER_THREADS
    from tilec.runtime.host_ops import RecipeProgram

    plan = plan_copy(op((50, 17, 19), ptr=4096), op((50, 17, 19), (323, 1, 17), ptr=64))
    assert copy_choice(plan)[0] == "gather"
    entry = CopyKernels(arch="sm_90", disk=False).get(plan.key)
    host = entry.kernel.host_program
    assert host.recipe is not None
    rng = np.random.default_rng(2)
    block = GATHER_THREADS * GATHER_RUNS_PER_THREAD * 4  # int32 vectors of 4 (19: class 32)
    for _ in range(5):
        args = ["s", "d", *(int(v) for v in rng.integers(1, 5000, size=len(plan.args)))]
        launches = host.run(args)
        assert RecipeProgram(host.recipe).run(args) == launches and len(launches) == 1
        n = args[2] * args[3] * args[4]
        assert launches[0].grid[0] == -(-n // block)


def test_canonical_gathers_compile_with_nvrtc(monkeypatch):
    """The CUDA of every canonical copy that copy_ gives the gather strategy (and of a
    converting and a 64-bit one) compiles for sm_90 under NVRTC. (Rows of 5 at a pitch
    of 7 are a `box<span>` copy now: test_copy_box, test_copy_kernel_budget.)"""
    from helpers.canonical_copies import CANONICAL
    from helpers.nvrtc import compile_sm90_or_skip

    plans = [plan_copy(*c.operands()) for c in CANONICAL]
    plans = [p for p in plans if copy_choice(p)[0] == "gather"]
    assert len(plans) == 4
    plans.append(plan_copy(op((3, 17, 19), dtype="bfloat16"), op((3, 17, 19), (323, 1, 17), dtype="float32")))
    monkeypatch.setattr(copy_plan, "INDEX32_LIMIT", 100)  # 64-bit offsets
    plans.append(plan_copy(op((3, 17, 19), dtype="int16"), op((3, 17, 19), (323, 1, 17), dtype="int16")))
    assert plans[-1].key.index_bits == 64 and copy_choice(plans[-1])[0] == "gather"
    kernels = CopyKernels(arch="sm_90", disk=False)
    for plan in plans:
        source = kernels.get(plan.key).kernel.source
        assert "__global__" in source
        compile_sm90_or_skip(source)


def test_fast_divisor_is_exact_for_32_bit_ids():
    """The magic multiplier the host computes (`_gather_tile.fast_divisor`: m = (2**62 -
    1) / d + 1) gives x / d as the high half of 4 x * m for every id below 2**31 and
    every divisor below 2**31: the edges of each divisor's quotients, powers of two and
    their neighbours, random pairs."""
    from tilec.passes._gather_tile import FAST_DIVISOR_SHIFT

    rng = np.random.default_rng(62)
    top = (1 << 31) - 1
    divisors = {1, 2, 3, 5, 7, 50176, 3136, top, top - 1, *(1 << k for k in range(31)), *((1 << k) + 1 for k in range(31)),
                *((1 << k) - 1 for k in range(2, 32)), *(int(d) for d in rng.integers(1, top, 200))}
    for d in divisors:
        m = ((1 << FAST_DIVISOR_SHIFT) - 1) // d + 1
        assert m <= 1 << 62
        xs = {0, 1, d - 1, d, d + 1, top, top - top % d, top - top % d - 1, *(int(x) for x in rng.integers(0, top, 50))}
        for x in xs:
            if 0 <= x <= top:
                assert (4 * x * m) >> 64 == x // d, (x, d)


def test_magic_divmod64_is_exact_for_64_bit_ids_after_one_correction():
    """`_gather_tile.magic_divmod64` (the `tile` pass's `magic64=1`: kernels of 64-bit
    offsets): with the same m = ceil(2**62 / d), the high half of 4 x * m is x / d or one
    more for every 0 <= x < 2**62 and d >= 1; where x - q d < 0 the quotient is one less
    and the remainder d more. The kernel's arithmetic in 64-bit words (wrapping), at the
    edges of each divisor's quotients, near 2**62 and random pairs."""
    from tilec.passes._gather_tile import FAST_DIVISOR_SHIFT

    rng = np.random.default_rng(64)
    word = (1 << 64) - 1
    top = (1 << 62) - 1

    def signed(v: int) -> int:
        v &= word
        return v - (1 << 64) if v >> 63 else v

    divisors = {1, 2, 3, 5, 7, 56, 20070, 117, (1 << 31) - 1, 1 << 31, (1 << 31) + 1, (1 << 40) + 3, top, top - 1,
                *(1 << k for k in range(62)), *((1 << k) + 1 for k in range(62)),
                *(int(d) for d in rng.integers(1, 1 << 62, 100, dtype=np.int64)),
                *(int(d) for d in rng.integers(1, 1 << 20, 100))}
    for d in divisors:
        m = ((1 << FAST_DIVISOR_SHIFT) - 1) // d + 1
        xs = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, top, top - top % d, top - top % d - 1,
              *(int(x) for x in rng.integers(0, top, 30, dtype=np.int64))}
        for x in xs:
            if not 0 <= x <= top:
                continue
            q = (((x << 2) & word) * m) >> 64
            r = signed(x - q * d)
            if r < 0:
                q, r = q - 1, r + d
            assert (q, r) == divmod(x, d), (x, d)


def test_narrow32_rule_takes_runs_of_8_elements():
    """`_gather_tile.narrow32_rule`: 32-bit gathers take the narrow element form where a run
    is 8 elements (2-byte elements: the strided set's 38, 13, 25 faster on the H200), not
    runs of 16 (1-byte: 14, 20 slower), 4 or 2 (within the spread or slower: 44)."""
    from tilec.passes._gather_tile import NARROW32_RUN, narrow32_rule

    assert NARROW32_RUN == 8
    assert narrow32_rule(8)
    assert not any(narrow32_rule(v) for v in (1, 2, 4, 16))


def test_inbounds_rule_is_off_as_measured():
    """`_gather_tile.inbounds_rule`: no run length takes the unmasked loads by default (the
    H200, the strided set's gathers in turns: 38 x0.996, 13 x0.976, 25 x0.980, 07 x0.978,
    the rest within the spread; benchmarks/NOTES.md, gat44)."""
    from tilec.passes._gather_tile import INBOUNDS_RUN, inbounds_rule

    assert INBOUNDS_RUN is None
    assert not any(inbounds_rule(v) for v in (1, 2, 4, 8, 16))


def test_divmod32_is_exact_for_32_bit_ids():
    """`_gather_tile.divmod32` (the `tile` pass's `div32=1`): with `_gather_tile.magic`'s
    pair (m = ceil(2**s / d), s = 31 + ceil(log2 d)), m is below 2**32 and the high half of
    the 32-bit product (2 x) m, shifted right by s - 31, is x / d for every 0 <= x < 2**31
    and 1 <= d < 2**31: at the edges of each divisor's quotients, near 2**31 and random pairs."""
    from tilec.passes._gather_tile import magic

    rng = np.random.default_rng(32)
    top = (1 << 31) - 1
    divisors = {1, 2, 3, 5, 7, 1123, 257, 20070, top, top - 1, *(1 << k for k in range(31)),
                *((1 << k) + 1 for k in range(31)), *((1 << k) - 1 for k in range(2, 32)),
                *(int(d) for d in rng.integers(1, top, 200))}
    for d in divisors:
        m, s = magic(d)
        assert m < 1 << 32, d
        xs = {0, 1, d - 1, d, d + 1, 2 * d - 1, top, top - top % d, top - top % d - 1,
              *(int(x) for x in rng.integers(0, top, 50))}
        for x in xs:
            if 0 <= x <= top:
                assert ((2 * x * m) >> 32) >> (s - 31) == x // d, (x, d)


@pytest.mark.parametrize("compiled", [False, True])
def test_gathers_by_run_time_extents_match_numpy(compiled, nvrtc_available):
    """NCHW -> NHWC of 3 channels (copy_'s C=3 case): the ids divided by the run-time
    H x W through its magic pair (32-bit ids: `divmod32`, `__umulhi` on the CUDA target),
    at odd extents, a power of two and one past it."""
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(3)
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    for n, h, w in ((2, 17, 23), (3, 8, 16), (2, 1, 129), (1, 40, 41)):
        x = rng.standard_normal((n, 3, h, w)).astype(np.float32)
        src = x.transpose(0, 2, 3, 1)
        base = np.full(n * h * w * 3 + 8, 7.0, np.float32)
        want = base.copy()
        want[4 : 4 + src.size] = src.reshape(-1)
        copy_numpy(base[4 : 4 + src.size].reshape(n, h, w, 3), src, kernels=kernels, compiled=compiled)
        assert np.array_equal(base, want)
    if compiled:
        sources = [e.kernel.source for e in kernels._entries.values()]
        assert any("__umulhi(" in x for x in sources) and not any("__umul64hi(" in x for x in sources)


def test_inbounds_gathers_match_numpy(routes, monkeypatch, nvrtc_available):
    """The `tile` pass's `inbounds=1` (route `inbounds`): the compiled kernels' loads
    unmasked, each source offset in bounds by construction (a run past the end read as
    the last element, the last row's wrapped elements from the row itself), on the
    executor bit for bit: a broadcast of rows of 37 bf16 (38 of the strided set made
    small), a transpose whose runs wrap anywhere into a padded dst, run-time extents
    (`divmod32`) and 64-bit offsets; the loads of each kernel carry no mask."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(gather="always", inbounds=1)
    rng = np.random.default_rng(44)
    kernels = CopyKernels(arch="sm_90", disk=False)
    row = rng.integers(-(2**15), 2**15, size=(1, 5, 1, 37), dtype=np.int16)
    _check((3, 5, 4, 37), row, np.full((3, 5, 4, 37), 7, np.int16), (slice(None),) * 4, True, kernels)
    src = rng.integers(-(2**15), 2**15, size=(7, 5, 19, 17), dtype=np.int16).transpose(0, 1, 3, 2)
    _check(src.shape, src, np.full(src.shape, 7, np.int16), (slice(None),) * 4, True, kernels)
    pad = np.full((7 * 5 * 17 + 2, 23), 7, np.int16)
    _check((7, 5, 17, 19), src, pad, (slice(1, 596), slice(2, 21)), True, kernels)
    x = rng.standard_normal((2, 3, 17, 23)).astype(np.float32).transpose(0, 2, 3, 1)
    _check(x.shape, x, np.full(x.shape, 7.0, np.float32), (slice(None),) * 4, True, kernels)
    monkeypatch.setattr(copy_plan, "INDEX32_LIMIT", 100)
    _check(src.shape, src, np.full(src.shape, 7, np.int16), (slice(None),) * 4, True, kernels)
    sources = [e.kernel.source.splitlines() for e in kernels._entries.values()]
    assert len(sources) == 5
    for lines in sources:  # each source load outside any branch on a mask
        loads = [k for k, line in enumerate(lines) if "= src[" in line]
        assert loads and not any(lines[k - 1].strip().startswith("if (") for k in loads)


def test_gather_bytes_gathers_match_numpy(routes, monkeypatch, nvrtc_available):
    """The `tile` pass's `gather_bytes=32` (route `gather_bytes`, pc49): a gather run one
    whole 32-byte destination sector, two 16-byte stores a run, on the executor bit for
    bit: 47's kind made small (uint8 -> float64 rows of 17 from a transposed source), an
    int16 -> float32 permute into rows of 19 within a padded dst and 64-bit offsets; a run
    holds 4 f64 (`gather_vector`), stored as 16-byte vectors into the compact dsts."""
    from tilec.passes._copy_cost import gather_vector

    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(gather="always", gather_bytes=32)
    rng = np.random.default_rng(49)
    kernels = CopyKernels(arch="sm_90", disk=False)
    src = rng.integers(0, 256, size=(17, 301), dtype=np.uint8).T
    _check(src.shape, src, np.full(src.shape, 7.0, np.float64), (slice(None),) * 2, True, kernels)
    x = rng.integers(-(2**15), 2**15, size=(7, 19, 23), dtype=np.int16).transpose(0, 2, 1)
    pad = np.full((7 * 23 + 3, 21), 7.0, np.float32)
    _check((7, 23, 19), x, pad, (slice(2, 163), slice(1, 20)), True, kernels)
    monkeypatch.setattr(copy_plan, "INDEX32_LIMIT", 100)
    _check(src.shape, src, np.full(src.shape, 7.0, np.float64), (slice(None),) * 2, True, kernels)
    assert len(kernels._entries) == 3
    assert sum("f64x2" in e.kernel.source for e in kernels._entries.values()) == 2  # the compact dsts' stores
    facts = type("F", (), {"dst_bytes": 8, "modes": [type("M", (), {"bound": 17})()]})()
    tgt = type("T", (), {"vector_bytes": 16})()
    assert (gather_vector(facts, tgt), gather_vector(facts, tgt, 32)) == (2, 4)
