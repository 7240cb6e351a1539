"""Random programs around session 35's compute ops, checked on the CPU (issue #10):

* `cuda.byte_perm` (generate_compute.random_byte_perm_kernel: chains of permutations of
  input words and earlier results, random selectors): the executor against a NumPy
  model of `__byte_perm` (`byte_perm_model`, built from the pair's bytes, not the
  executor's shifts), before and after the default pipeline; the CUDA prints each
  selector and NVRTC compiles it; a selector nibble past 7 is a located diagnostic.
* `cuda.div_approx_group` (generate_compute.random_division_kernel: x / d, d a random
  `Divisor` of x inside and outside the ranges a group takes): lower-to-gpu groups
  exactly the divisions whose divisor the generator knows to lie in range
  (`Divisor.group`), and every grouped divisor, on inputs chosen to break it (NaN,
  infinities, 0, extremes, subnormals), is a number whose products of G stay within
  2^+-124; each printed group's statements, run as NumPy f32 arithmetic (`run_printed`,
  the reciprocal anywhere within 1 ulp), equal `group_model` and lie within 2^-21 of the
  executor's x / d (away from the flushed subnormals and infinity), and equal it bit
  for bit where every divisor is a power of two.
* the interleaved `box<tiles>` copy (`tiles_interleave=1`, `cuda.byte_perm` in its
  phase 1b and 2) on random small odd transposes: the whole-tensor program and the
  compiled kernel, both on the executor, equal to NumPy, nothing around dst written.

Seeds are fixed (hypothesis derandomized); TILEC_FUZZ_EXAMPLES=N for N programs a test.
"""

from __future__ import annotations

import os
import random
import re
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
from generate_compute import (  # noqa: E402
    byte_perm_model,
    draw_byte_perms,
    draw_division,
    flush_subnormals,
    group_model,
    rcp_model,
    random_byte_perm_kernel,
    random_division_kernel,
    run_generated,
)
from harness import budget, check_outcome, run_tilec  # noqa: E402
from helpers.nvrtc import compile_sm90_or_skip  # noqa: E402

FUZZ = settings(max_examples=budget(10), derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow], phases=[Phase.generate])
"""Seeds drawn, none shrunk (a seed is the whole input: a failure prints it)."""


def _equivalent(prog) -> None:
    out = run_tilec(["-p", "default", "--check-equivalence"], prog.text, timeout=90)
    check_outcome(out)
    assert out.rc == 0 and f"@{prog.function}: equivalent after" in out.stdout, \
        f"{prog.summary}\n{out.describe()}\n{prog.text}"


# ---------------------------------------------------------------------------- byte_perm


def test_byte_perm_model_is_cudas_definition():
    """The model on hand-checked words: selector 0x3210 is a, 0x7654 is b, 0x0123
    reverses a's bytes; _box_tile's 4 x 4 transpose's first stage interleaves bytes."""
    a, b = np.int32(0x33221100), np.int32(0x77665544)
    assert byte_perm_model(a, b, 0x3210) == a and byte_perm_model(a, b, 0x7654) == b
    assert byte_perm_model(a, b, 0x0123) == np.int32(0x00112233)
    assert byte_perm_model(a, b, 0x5140) == np.int32(0x55114400)


@FUZZ
@given(seed=st.integers(0, 2**32 - 1))
def test_byte_perm_programs_match_the_model(seed):
    prog = random_byte_perm_kernel(random.Random(seed))
    s = prog.spec
    words = np.random.default_rng(seed).integers(-2**31, 2**31, (s.words, s.threads), dtype=np.int64).astype(np.int32)
    vals = list(words)
    for i, j, sel in s.perms:
        vals.append(byte_perm_model(vals[i], vals[j], sel))
    want = np.stack(vals[s.words:])
    inputs = {"a": words, "o": np.zeros_like(want)}
    for pipeline in (None, "default"):
        got = run_generated(prog.text, inputs, pipeline)["o"]
        assert np.array_equal(got, want), f"{prog.summary} ({pipeline or 'as written'})"
    _equivalent(prog)
    cuda = run_tilec(["-p", "default", "-t", "cuda"], prog.text).stdout
    for _, _, sel in s.perms:
        assert f"{sel:#x}u)" in cuda, (prog.summary, sel)
    assert compile_sm90_or_skip(cuda).cubin, prog.summary


def test_byte_perm_generator_draws_every_form():
    draws = [draw_byte_perms(random.Random(s)) for s in range(200)]
    sels = {sel for d in draws for _, _, sel in d.perms}
    nibbles = {(sel >> (4 * n)) & 7 for sel in sels for n in range(4)}
    assert nibbles == set(range(8)) and {0x5140, 0x7362, 0x5410, 0x7632} <= sels
    assert any(i == j for d in draws for i, j, _ in d.perms)  # a word with itself
    assert any(i >= d.words for d in draws for i, _, _ in d.perms)  # a chain
    assert {d.words for d in draws} == {1, 2, 3, 4}


@pytest.mark.parametrize("selector", [0x8000, 0x0009, 0xF777, 0x10000, -1])
def test_byte_perm_selector_past_seven_is_a_located_diagnostic(selector):
    """A selector nibble of 8 or more (`__byte_perm`'s sign-replicate mode, which
    tilec does not model) or a selector outside 16 bits: a diagnostic at the op."""
    good = random_byte_perm_kernel(random.Random(1))
    sel = good.spec.perms[0][2]
    text = good.text.replace(f", {sel} : i32", f", {selector} : i32", 1)
    assert text != good.text
    out = run_tilec([], text)
    check_outcome(out)
    assert out.rc == 1 and "'cuda.byte_perm' selector must be four nibbles" in out.stderr, out.describe()


# ---------------------------------------------------------------------- div_approx_group

F32 = np.finfo(np.float32)
HOSTILE = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, F32.max, -F32.max, F32.tiny, -F32.tiny,
                    1e-45, -1e-45, 1e-40, 88.7, -88.7, 127.5, -127.5, 150.0, -150.0, 1e30, -1e30, 0.5, -1.0, 3.0],
                   np.float32)
"""Inputs that break a divisor's range if anything can: NaN, infinities, zeros, the
largest and smallest normal f32, subnormals, exp2's overflow and underflow edges."""


def _inputs(shape, seed: int, integers: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if integers:  # small integers: 2^(k x) of an integer k is a power of two
        return rng.integers(-40, 41, shape).astype(np.float32)
    x = (rng.standard_normal(shape) * rng.choice([1, 30, 1e3], shape)).astype(np.float32)
    flat = x.reshape(-1)
    flat[rng.permutation(flat.size)[: min(flat.size, HOSTILE.size)]] = HOSTILE[: min(flat.size, HOSTILE.size)]
    return x


STATEMENT = re.compile(r"^\s*const float (\w+) = (.+);$")
NAME = re.compile(r"\b[A-Za-z_]\w*\b")


def printed_groups(cuda: str) -> list[tuple[int, list[tuple[str, str]]]]:
    """Each `cuda.div_approx_group` of the printed CUDA as (G, its statements (name,
    C expression)): the lines around each `tilec_rcp_approx_ftz(` call, the divisors'
    pair products before it (G = 4) and the G quotients after it."""
    lines = cuda.splitlines()
    out = []
    for i, line in enumerate(lines):
        if "= tilec_rcp_approx_ftz(" not in line:
            continue
        g = 4 if STATEMENT.match(lines[i - 1]) and STATEMENT.match(lines[i - 1]).group(1).endswith("_b") else 2
        block = lines[i - 2: i + 7] if g == 4 else lines[i: i + 3]
        stmts = [STATEMENT.match(b) for b in block]
        assert all(stmts), f"not a group's statements:\n" + "\n".join(block)
        out.append((g, [(m.group(1), m.group(2)) for m in stmts]))
    return out


def run_printed(group: tuple[int, list[tuple[str, str]]], x, d, rcp_ulps: int = 0):
    """The quotients of one printed group on flat f32 arrays x, d (a multiple of G long),
    its statements run as NumPy f32 arithmetic (C's `*` and parentheses are Python's),
    `tilec_rcp_approx_ftz` as `group_model`'s reciprocal: the operands are the names
    the statements read before defining them, the divisors first (the products' lines),
    then the numerators."""
    g, stmts = group
    defined, free = set(), []
    for name, expr in stmts:
        free += [n for n in NAME.findall(expr) if n not in defined and n not in free and n != "tilec_rcp_approx_ftz"]
        defined.add(name)
    assert len(free) == 2 * g, f"operands {free} of {stmts}"
    x, d = np.asarray(x, np.float32).reshape(-1, g), np.asarray(d, np.float32).reshape(-1, g)
    env = {n: d[:, i] for i, n in enumerate(free[:g])} | {n: x[:, i] for i, n in enumerate(free[g:])}
    env["tilec_rcp_approx_ftz"] = lambda v: rcp_model(v, rcp_ulps)
    with np.errstate(all="ignore"):
        for name, expr in stmts:
            env[name] = np.asarray(eval(expr, {}, env), np.float32)  # noqa: S307 (the printed statements)
    return flush_subnormals(np.stack([env[name] for name, _ in stmts[-g:]], axis=1).reshape(-1))


def _lowered(text: str):
    """The GPU-level module of `text` (the default pipeline)."""
    from tilec.compiler.pipeline import parse_module, run_pipeline

    module = parse_module(text)
    run_pipeline(module, "default")
    return module


@settings(FUZZ, max_examples=budget(16))
@given(seed=st.integers(0, 2**32 - 1))
def test_grouped_divisions_are_proven_and_within_the_bound(seed):
    _check_division(seed)


def test_grouped_divisions_by_powers_of_two_are_exact():
    """The first seeds whose division is grouped with divisors that are powers of two
    for integer x (`Divisor.powers_of_two`): the printed arithmetic equals x / d bit for
    bit there (`_check_division`; the reciprocal of a power of two taken exact)."""
    seeds = [k for k in range(400) if _grouped(draw_division(random.Random(k))) and
             draw_division(random.Random(k)).divisor.powers_of_two][:budget(3)]
    assert seeds
    for seed in seeds:
        _check_division(seed)


def _grouped(s) -> bool:
    return s.afn and s.divisor.group() != {1} and s.registers >= max(s.divisor.group())


def _check_division(seed: int) -> None:
    """The division kernel of `seed` (module docstring): grouped where the generator's
    range allows, the divisors in range on hostile inputs, the executor's x / d, the
    printed groups' arithmetic (`run_printed`) equal to `group_model` and within 2^-21
    of x / d, exact for divisors that are powers of two."""
    from tilec.compiler.pipeline import emit
    from tilec.dialects.cuda import DIV_GROUP_PRODUCT_EXPONENT, DivApproxGroupOp
    from tilec.runtime.reference.api import run

    prog = random_division_kernel(random.Random(seed))
    s = prog.spec
    allowed = s.divisor.group() if s.afn else frozenset({1})
    module = _lowered(prog.text)
    groups = [len(op.outs) for op in module.walk() if isinstance(op, DivApproxGroupOp)]
    # the generator's own range says which G the pass may take; registers left over
    # at a thread's end form a pair, or stay alone
    # (lower-to-gpu groups a tensor's quotients where a thread holds at least G of them)
    if allowed == {1} or s.registers < min(allowed):
        assert groups == [], f"{prog.summary}: grouped {groups} a divisor not known in range"
    else:
        assert set(groups) <= allowed | {2}, f"{prog.summary}: groups {groups}, allowed {set(allowed)}"
        assert groups or s.registers < max(allowed), f"{prog.summary}: no group, allowed {set(allowed)}"
    _equivalent(prog)
    cuda = emit(module, "cuda")
    printed = printed_groups(cuda)
    assert sorted(g for g, _ in printed) == sorted(groups), prog.summary
    assert compile_sm90_or_skip(cuda).cubin, prog.summary
    if not groups:
        return
    bound = 2.0 ** (DIV_GROUP_PRODUCT_EXPONENT / max(groups))
    forms = {g: block for g, block in printed}  # one printed group of each size
    integers = s.divisor.powers_of_two
    for k in range(2):
        x = _inputs((s.rows, s.cols), seed + k, integers and k == 1)
        out = run(module, {"x": x, "y": np.zeros_like(x), "dv": np.zeros_like(x)})
        d, q = out["dv"].reshape(-1), out["y"].reshape(-1)
        # soundness of the range the pass relied on: every divisor a number in range
        assert not np.isnan(d).any() and (d >= 1 / bound).all() and (d <= bound).all(), \
            f"{prog.summary}: divisors {d.min()} .. {d.max()} outside 2^+-{DIV_GROUP_PRODUCT_EXPONENT / max(groups)}"
        with np.errstate(all="ignore"):
            want = x.reshape(-1) / d
        assert np.array_equal(q, want, equal_nan=True), prog.summary  # the executor: x / d rounded once
        # the bound where the quotient and x are normal, not within 2^-21 of the
        # smallest normal f32 (there the grouped product may round down to a flushed
        # subnormal) nor of the largest (it may round up to infinity)
        normal = (np.abs(want) >= F32.tiny * (1 + 2.0**-20)) & (np.abs(want) <= F32.max * (1 - 2.0**-21)) & \
            (np.abs(x.reshape(-1)) >= F32.tiny)
        for g, block in forms.items():
            for shift in range(g):  # partners: any divisors in range
                xs, ds = np.roll(x.reshape(-1), shift), np.roll(d, shift)
                ref, ok = np.roll(want, shift), np.roll(normal, shift)
                for ulps in (-1, 0, 1):
                    got = run_printed((g, block), xs, ds, ulps)
                    assert np.array_equal(got, group_model(xs, ds, g, ulps), equal_nan=True), \
                        f"{prog.summary}: the printed group is not the model\n{block}"
                    err = np.abs(got[ok].astype(np.float64) - ref[ok]) / np.abs(ref[ok].astype(np.float64))
                    assert (err <= 2.0**-21).all(), f"{prog.summary}: relative error {err.max():.3g} > 2^-21"
                    if integers and k == 1 and ulps == 0:
                        assert np.array_equal(got, ref, equal_nan=True), f"{prog.summary}: powers of two not exact"


def test_division_generator_draws_every_form():
    """Divisors in the ranges of fours, of pairs and of none, unknown to the range walk,
    maybe NaN, and powers of two; one to eight registers a thread."""
    draws = [draw_division(random.Random(s)) for s in range(300)]
    assert {frozenset(d.divisor.group()) for d in draws} >= {frozenset({1}), frozenset({2}), frozenset({4})}
    assert {d.divisor.clamp for d in draws} == {"num", "floor", "cap", "nan", "none", "tanh"}
    assert any(d.divisor.powers_of_two and d.divisor.group() != {1} for d in draws)
    assert {d.v for d in draws} == {1, 2, 4, 8} and {d.afn for d in draws} == {True, False}


# ------------------------------------------------------------ the interleaved tiles box


def _odd_transpose(rng: random.Random, nprng):
    """(src, dst base, dst view) of a small odd transpose of 1- or 2-byte elements,
    offsets on both sides, dst poisoned."""
    dtype = rng.choice(["int8", "uint8", "int16", "float16"])
    r, c = rng.randrange(65, 400, 2) + rng.choice([0, 1]), rng.randrange(65, 300, 2)
    so, do = rng.randrange(16), rng.randrange(16)
    flat = nprng.integers(-100, 100, so + r * c + 7).astype(dtype)
    src = flat[so: so + r * c].reshape(r, c).T
    base = np.full(do + r * c + 23, 77, dtype)
    return src, base, (lambda b: b[do: do + r * c].reshape(c, r)), f"{dtype} ({c}, {r}) from ({r}, {c}).T, +{so}/+{do}"


@settings(FUZZ, max_examples=budget(6))
@given(seed=st.integers(0, 2**32 - 1))
def test_interleaved_tiles_box_copies_odd_transposes_exactly(seed, nvrtc_available):
    from helpers.canonical_copies import key_strategy

    from tilec.copy_cpu import _operand, copy_numpy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import plan_copy
    from tilec.copy_routes import forced_routes

    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = random.Random(seed)
    src, base, view, what = _odd_transpose(rng, np.random.default_rng(seed))
    smem = rng.choice([None, 8192, 16384])
    with forced_routes(box_smem=smem, tiles_lanes=rng.choice([4, 8]), tiles_stage=16, tiles_interleave=1):
        assert key_strategy(plan_copy(_operand(view(base), None), _operand(src, None)).key) == "box<tiles>", what
        want = base.copy()
        view(want)[...] = src
        kernels = CopyKernels(arch="sm_90", disk=False)
        for compiled in (False, True):  # the program as written, then the compiled kernel
            got = base.copy()
            copy_numpy(view(got), src, kernels=kernels if compiled else None, compiled=compiled)
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), f"{what}, compiled={compiled}"
    sources = [e.kernel.source for e in kernels._entries.values()]
    assert sources and all("__byte_perm(" in text for text in sources), what
