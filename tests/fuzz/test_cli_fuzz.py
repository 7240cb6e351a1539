"""Fuzzing the `tilec` command line (issue #10): every input ends in success or in one
located diagnostic with status 1 -- no traceback, no internal error, no hang.

Inputs: every prefix of each example and lit test input (truncated files), token
mutations of them (deleted / duplicated / swapped tokens, special numbers, unknown ops
and attributes, wrong types), edge numbers in place of their numbers (inputs that still
parse), token and number mutations of their generic form (properties and operands
explicit), deeply nested layouts and attributes, huge layouts, and
random pass pipelines with random (also invalid) options on valid programs, printed as
MLIR or as CUDA. A few runs go through a real `tilec` process to check exit statuses.

CI budget (2 cores): about a minute for this file. `TILEC_FUZZ_EXAMPLES=N` runs N
inputs per randomised test (and every prefix) instead.

Also: mbarrier programs with one injected defect (tests/fuzz/generate_mbarrier.py), cluster
rings (generate_cluster.py), sums through distributed shared memory (generate_dsmem.py) and
serial split-K counter programs (generate_atomic.py) with
one, which the CPU reference executor must report as a located diagnostic naming it.
"""

from __future__ import annotations

import dataclasses
import os
import random
import re
import subprocess
import sys
import zlib

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
from generate_atomic import random_invalid_split_k_kernel  # noqa: E402
from generate_cluster import random_invalid_cluster_kernel  # noqa: E402
from generate_dsmem import random_invalid_dsmem_kernel  # noqa: E402
from generate_mbarrier import random_invalid_mbarrier_kernel, random_invalid_named_barrier_kernel  # noqa: E402
from harness import (  # noqa: E402
    LOCATED,
    SPECIAL_NUMBERS,
    budget,
    check_outcome,
    corpus_files,
    extra_args,
    generic_form,
    known_bug,
    mutate,
    mutate_numbers,
    read_corpus,
    run_tilec,
)

CORPUS = read_corpus()
EXAMPLES = {k: v for k, v in CORPUS.items() if k.startswith("examples/")}



def fuzz_settings(examples: int) -> settings:
    """Reproducible hypothesis settings: the same inputs on every CI run."""
    return settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


ARGVS = [
    [],
    ["-p", "default"],
    ["-p", "default", "-t", "cuda"],
    ["-t", "cuda"],
    ["--run", "cpu"],
    ["-p", "tile"],
    ["-p", "tile,distribute,vectorize"],
    ["-p", "default", "--check-equivalence"],
    ["-p", "lower-to-gpu"],
    ["-p", "remove-layout-conversions,lower-convert-layout"],
    ["--print-op-generic"],
    ["-p", "expand-iterators"],
    ["-p", "tma"],
    ["-p", "vectorize-pointers"],
    ["-p", "lower-to-gpu", "-t", "cuda"],
]


# ------------------------------------------------------------------- truncated files

PREFIX_BUDGET = budget(1200)
"""Prefixes tried over the whole corpus (every prefix when the budget allows)."""


def _prefix_step() -> int:
    total = sum(len(t) for t in CORPUS.values())
    return max(1, total // PREFIX_BUDGET)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_prefix(name):
    """Each prefix (every `step`-th; step 1 with a large budget) parses to a module
    or a located diagnostic."""
    text = CORPUS[name]
    step = _prefix_step()
    offset = zlib.crc32(name.encode()) % step  # a different phase per file
    for i in range(offset, len(text) + 1, step):
        check_outcome(run_tilec(extra_args(text), text[:i]))


# ------------------------------------------------------------------------ mutations


@fuzz_settings(budget(170))
@given(rng=st.randoms(use_true_random=False), name=st.sampled_from(sorted(CORPUS)),
       argv=st.sampled_from(ARGVS))
def test_token_mutations(rng, name, argv):
    """Random token edits of a corpus file, through a random driver mode."""
    text = mutate(CORPUS[name], rng)
    out = run_tilec([*argv, *extra_args(text)], text)
    event(f"status {out.rc}" + (f" (known bug {known_bug(out)})" if known_bug(out) else ""))
    check_outcome(out)


@fuzz_settings(budget(50))
@given(rng=st.randoms(use_true_random=False), name=st.sampled_from(sorted(CORPUS)),
       argv=st.sampled_from(ARGVS))
def test_number_mutations(rng, name, argv):
    """Edge numbers in place of a corpus file's numbers: inputs that still parse and
    reach verifiers, passes and the executor with odd extents, swizzle bits, shapes
    of MMA instructions, thread counts (found: register tensors too large to unroll,
    a kernel's unlocated shared-memory error)."""
    text = mutate_numbers(CORPUS[name], rng)
    out = run_tilec([*argv, *extra_args(text)], text)
    event(f"status {out.rc}")
    check_outcome(out)


@fuzz_settings(budget(30))
@given(rng=st.randoms(use_true_random=False), name=st.sampled_from(sorted(CORPUS)),
       argv=st.sampled_from(ARGVS), numbers=st.booleans())
def test_generic_form_mutations(rng, name, argv, numbers):
    """Token or number edits of a corpus file's generic form, where properties and
    operands are explicit: missing properties, operand counts and property values
    that the custom syntax never lets through (found: arith.cmpi predicates out of
    range)."""
    generic = generic_form(name, CORPUS[name])
    if generic is None:
        return
    text = mutate_numbers(generic, rng) if numbers else mutate(generic, rng)
    out = run_tilec([*argv, *extra_args(text)], text)
    event(f"status {out.rc}")
    check_outcome(out)


@pytest.mark.parametrize("number", SPECIAL_NUMBERS)
@pytest.mark.parametrize("where", ["shape", "stride", "tile", "threads", "align", "grid"])
def test_special_numbers(number, where):
    """Each special number in each numeric position of a tiled copy, compiled to CUDA
    and run on the CPU."""
    shape, stride, tile, threads, align, grid = "(64,64)", "(64,1)", "32, 32", "128", "16", "2"
    if where == "shape":
        shape = f"({number},64)"
    elif where == "stride":
        stride = f"({number},1)"
    elif where == "tile":
        tile = f"{number}, 32"
    elif where == "threads":
        threads = number
    elif where == "align":
        align = number
    else:
        grid = number
    text = f"""
!G = !layout.tensor<f32, #layout.cute<{shape}:{stride}>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,32):{stride}>, gmem, masked>
func.func @f(%p: !layout.ptr<f32, align {align}>, %q: !layout.ptr<f32, align {align}>) {{
  %a = layout.view %p : !layout.ptr<f32, align {align}> -> !G
  %b = layout.view %q : !layout.ptr<f32, align {align}> -> !G
  %g = arith.constant {grid} : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %g, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {{tile = array<i64: {tile}>}} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {{tile = array<i64: {tile}>}} : !G -> !T
    layout.copy %ta, %tb : !T, !T
  }}
  func.return
}}
"""
    for argv in (["-p", "default", "-t", "cuda"], ["--run", "cpu"]):
        check_outcome(run_tilec(argv, text))


# ------------------------------------------------------------- nesting and huge sizes


def _layout_attr(layout: str) -> str:
    return f"func.func private @f() attributes {{l = #layout.cute<{layout}>}}\n"


@pytest.mark.parametrize("depth", [1, 31, 32, 33, 100, 1000, 5000])
def test_deeply_nested_layout(depth):
    """`#layout.cute<((((4))))>` nested `depth` levels: accepted up to 32 levels,
    otherwise a located parse error -- never a RecursionError traceback, even in a
    deep pytest stack."""
    nest = "(" * depth + "4" + ")" * depth
    out = run_tilec([], _layout_attr(f"{nest}:{nest}"))
    check_outcome(out)
    assert out.rc == (0 if depth <= 32 else 1), out.describe()
    if depth > 32:
        assert "layout nested deeper than 32 levels" in out.stderr


@pytest.mark.parametrize(
    "text",
    [
        "func.func private @f() attributes {l = " + "[" * 3000 + "]" * 3000 + "}\n",
        "#a = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n",
        "func.func @f() {\n" + "scf.execute_region {\n" * 1500 + "}\n" * 1500 + "func.return\n}\n",
        "!t = " + "tensor<" * 2000 + "f32" + ">" * 2000 + "\n",
        "#s = " + "#layout.slice<{dim = 0, parent = " * 1000
        + "#layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>"
        + "}>" * 1000 + "\n",
    ],
    ids=["array", "dictionary", "regions", "tensor-type", "slice-layout"],
)
def test_deeply_nested_input(text):
    out = run_tilec(["-p", "default"], text)
    check_outcome(out)
    assert out.rc == 1


@pytest.mark.parametrize(
    "shape",
    ["(1099511627776,1099511627776):(1099511627776,1)", "(1048576,1048576):(1048576,1)",
     "(1048576,1048576):(0,0)", "(4,4):(18446744073709551616,1)", "(2147483648,4):(4,1)"],
)
@pytest.mark.parametrize("argv", [["--run", "cpu"], ["-p", "default", "--check-equivalence"],
                                  ["-p", "default", "-t", "cuda"]])
def test_huge_layouts_are_refused_not_materialised(shape, argv):
    """Huge copies: refused at parse time when 64-bit indices cannot address them, by
    the CPU reference executor when too large to simulate (well within the time bound:
    nothing is allocated)."""
    text = f"""!S = !layout.tensor<f32, #layout.cute<{shape}>, gmem>
func.func @c(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {{
  %a = layout.view %src : !layout.ptr<f32> -> !S
  %b = layout.view %dst : !layout.ptr<f32> -> !S
  layout.copy %a, %b : !S, !S
  func.return
}}
"""
    out = run_tilec(argv, text)
    check_outcome(out)
    if "-t" not in argv:
        assert out.rc == 1 and ("too large" in out.stderr or "too many" in out.stderr), out.describe()
    assert out.seconds < 10, out.describe()


# ---------------------------------------------------------------- random pipelines


def _registry() -> dict[str, list[str]]:
    """Pass name -> option names, from `tilec --list-passes` and the pass classes."""
    from tilec.compiler.pipeline import available_passes

    out = run_tilec(["--list-passes"])
    assert out.rc == 0
    names = re.findall(r"^  (\S+)", out.stdout.split("Named pipelines:")[0], re.M)
    passes = available_passes()
    reg = {}
    for n in names:
        cls = passes[n]()
        fields = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()
        reg[n] = [f.name.rstrip("_").replace("_", "-") for f in fields if f.name != "name"]
    return reg


REGISTRY = _registry()
OPTION_VALUES = ["0", "1", "-1", "2", "3", "4", "8", "16", "32", "64", "128", "1024", "2048",
                 "16,16", "64,64", "1,2,3", "true", "false", "on", "off", "auto", "best",
                 "plain", "abc", "", str(2**64), "1.5"]


@fuzz_settings(budget(120))
@given(data=st.data())
def test_random_pipelines(data):
    """Random sequences of registered passes with random options (valid or not) on an
    example, to MLIR, to CUDA, or checked for equivalence on the CPU."""
    name = data.draw(st.sampled_from(sorted(EXAMPLES)), label="example")
    steps = data.draw(st.lists(st.sampled_from(sorted(REGISTRY)), min_size=1, max_size=8), label="passes")
    parts = []
    for p in steps:
        opts = REGISTRY[p]
        chosen = data.draw(st.lists(st.sampled_from(opts), max_size=2, unique=True)) if opts else []
        if data.draw(st.integers(0, 9)) == 0:
            chosen.append("nosuch-option")
        if chosen:
            kv = " ".join(f"{o}={data.draw(st.sampled_from(OPTION_VALUES))}" for o in chosen)
            parts.append(f"{p}{{{kv}}}")
        else:
            parts.append(p)
    mode = data.draw(st.sampled_from([[], ["-t", "cuda"], ["--check-equivalence"], ["--run", "cpu"]]))
    out = run_tilec(["-p", ",".join(parts), *mode], CORPUS[name])
    event(f"status {out.rc}" + (f" (known bug {known_bug(out)})" if known_bug(out) else ""))
    check_outcome(out, cli_errors=True)


# ------------------------------------------------------------- invalid mbarrier programs


@fuzz_settings(budget(30))
@given(seed=st.integers(0, 2**32 - 1))
def test_invalid_mbarrier_programs_are_located_diagnostics(seed):
    """mbarrier programs with one defect (generate_mbarrier.DEFECTS: a wrong phase
    parity, a phase that never flips, a wait on an invalidated barrier, a missing or an
    extra arrival, expect-tx bytes that differ from the copies, a stage read before its
    wait, a stage index past the array, a producer that does not wait for an empty
    stage), run on the CPU reference executor as written and after the default
    pipeline (GPU level, `cuda.mbarrier_*`): status 1 and a diagnostic that names the
    defect, located at the same op at both levels, never a traceback."""
    _check_invalid_mbarrier_program(random_invalid_mbarrier_kernel(random.Random(seed)))


@fuzz_settings(budget(12))
@given(seed=st.integers(0, 2**32 - 1))
def test_invalid_named_barrier_programs_are_located_diagnostics(seed):
    """Warp-specialised programs whose named barriers are wrong (generate_mbarrier's
    `named-*` defects: the consumers' exchange through shared memory without its first
    `bar.sync` -- a race; with a thread count other than the consumers' -- a `bar.sync`
    that never returns or arrivals past its count; a handover whose consumers never
    `bar.arrive` -- the producer's `bar.sync` never returns), as written and after the
    default pipeline (`cuda.named_barrier`): status 1 and a diagnostic naming the
    defect, located at the same op at both levels."""
    _check_invalid_mbarrier_program(random_invalid_named_barrier_kernel(random.Random(seed)))


@fuzz_settings(budget(10))
@given(seed=st.integers(0, 2**32 - 1))
def test_invalid_cluster_rings_are_located_diagnostics(seed):
    """Cluster rings with one defect (generate_cluster.DEFECTS: a consumer that forgets
    its peers, so that a peer's multicast overwrites a stage it still reads; a block
    exiting without the last cluster_sync; a peer's barrier reached before the
    cluster_sync after its initialisation; "full" barriers expecting only the block's
    own bytes; a part of B loaded past its buffer), as written and after the default pipeline: status 1 and a diagnostic
    naming the defect, located at the same op at both levels."""
    _check_invalid_mbarrier_program(random_invalid_cluster_kernel(random.Random(seed)))


@fuzz_settings(budget(12))
@given(seed=st.integers(0, 2**32 - 1))
def test_invalid_split_k_counters_are_located_diagnostics(seed):
    """Serial split-K counter programs with one defect (generate_atomic.DEFECTS: no
    release or no acquire, a cta-scope counter, the sum by a unit that is not last --
    each a data race on the partials; a counter not put back -- the second launch's
    output never written), as written and after the default pipeline: status 1 and a
    diagnostic naming the defect, located at the same op at both levels."""
    _check_invalid_mbarrier_program(random_invalid_split_k_kernel(random.Random(seed)))


@fuzz_settings(budget(8))
@given(seed=st.integers(0, 2**32 - 1))
def test_invalid_cluster_sums_are_located_diagnostics(seed):
    """Sums through distributed shared memory with one defect (generate_dsmem.DEFECTS:
    a peer rank past the cluster; the peers read before the cluster barrier that
    publishes their partials, or the next round's partials stored before the one
    after the reads -- a block barrier in its place, or arrivals on the peers'
    mbarriers; a block exiting while a peer may still read its buffer), as written
    and after the default pipeline (`cuda.map_shared_rank`): status 1 and a
    diagnostic naming the defect, located at the same op at both levels."""
    _check_invalid_mbarrier_program(random_invalid_dsmem_kernel(random.Random(seed)))


def _check_invalid_mbarrier_program(prog) -> None:
    event(prog.defect)
    where = []
    for argv in (["--run", "cpu"], ["-p", "default", "--run", "cpu"]):
        out = run_tilec(argv, prog.text, timeout=90)
        check_outcome(out)
        assert out.rc == 1 and LOCATED.search(out.stderr), f"{prog.summary}\n{out.describe()}\n{prog.text}"
        assert re.search(prog.message, out.stderr), f"{prog.summary}: expected /{prog.message}/\n{out.describe()}"
        where.append(re.search(r":(\d+:\d+): error: ", out.stderr).group(1))
    # the GPU-level error points at the op written, as the layout-level one does
    assert where[0] == where[1], f"{prog.summary}: located at {where[0]}, after the passes at {where[1]}"


# ----------------------------------------------------------------- real processes


@pytest.mark.parametrize(
    "args, text, status",
    [
        ([], EXAMPLES["examples/transpose.mlir"], 0),
        (["-p", "default", "-t", "cuda"], EXAMPLES["examples/memcpy_1d.mlir"], 0),
        ([], EXAMPLES["examples/transpose.mlir"].split("layout.copy")[0], 1),
        (["-p", "nosuch"], EXAMPLES["examples/transpose.mlir"], 1),
        (["-p", "tile{threads=abc}"], EXAMPLES["examples/transpose.mlir"], 1),
        ([], _layout_attr("(" * 1000 + "4" + ")" * 1000), 1),
        ([], "func.func @f() {\n" + "scf.execute_region {\n" * 1500 + "}\n" * 1500 + "}\n", 1),
        (["--run", "cpu"], EXAMPLES["examples/transpose.mlir"].replace("1024", "1048576"), 1),
    ],
    ids=["ok", "cuda", "truncated", "bad-pass", "bad-option", "deep-layout", "deep-regions", "huge-run"],
)
def test_exit_status_of_the_real_command(tmp_path, args, text, status):
    """The installed `tilec` script: exit status, one diagnostic line, no traceback."""
    path = tmp_path / "input.mlir"
    path.write_text(text)
    r = subprocess.run([sys.executable, "-m", "tilec.tools.tilec", str(path), *args],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == status, r.stderr
    assert "Traceback" not in r.stderr
    if status == 1:
        assert re.fullmatch(r"(.+:\d+:\d+|tilec): error: [^\n]+\n", r.stderr), r.stderr


def test_corpus_is_not_empty():
    assert len(corpus_files()) > 40 and len(EXAMPLES) >= 5
