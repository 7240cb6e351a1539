"""The canonical copies through both of tilec's paths, side by side in one run (guard (2)
of issue 35): `tilec.copy_` and a `tilec.Program` of the same views through
`-p default`, each against cudaMemcpy of the same bytes, PyTorch's `copy_` beside them.

    python benchmarks/canonical_copy_bench.py [--quick] [--only transpose,NHWC]
        [--timing graph|events] [--variant 'tile{tile=1,64,64}' ...]
        [--json benchmarks/results/canonical_copies.json] [--md OUT.md] [--list]

The copies are tests/helpers/canonical_copies.py's `CANONICAL` (square and odd
transposes of every element size, NHWC <-> NCHW, batched transposes, head splits,
slices, broadcasts, casts, and the box strategy's 1-byte transposes: cases 30, 35 and 42
of the strided set, `--only box`); `tests/unit/test_copy_same_kernel.py` checks on the CPU that
both paths compile the same kernel for them. Per copy: src is made as the case says
(`base[index].permute(perm)`, broadcast), dst a new C-contiguous tensor; each path's
result is checked bit for bit against PyTorch's `dst.copy_(src)` (outputs poisoned
first), then timed. `--timing graph` (the default; compute_bench.py's method, METHOD.md
of the device notes): every timed function (copy_, the Program, each `--variant`,
PyTorch, a cudaMemcpy of the same bytes) cycles through `K` copies of its tensors that
span at least 256 MiB together (a launch never finds its input in L2 from an earlier
launch: the 12.8-17 MB cases fit the 50 MiB L2 whole), 20 launches captured in one CUDA
graph (the host's launch cost stays out: tilec.copy_'s ~6 us host time is as long as
the small cases' kernels), timed interleaved in rounds; the reference is the faster of
the cudaMemcpy's graph (a memcpy node) and its queued launches. `--timing events`: the
earlier method, one tensor set, CUDA events around each of many launches queued before
one synchronisation (copy_bench.median_ms), which counts the host's launch cost where it
is longer than the kernel. `--variant PASS{OPTIONS}` (repeatable) times the Program path
again through the default pipeline with its pass of that name replaced by the given one
(an A/B of a pass option; a case the option does not fit reports the error; several
passes joined by `+`, `copy-strategy{tiles_bytes=2}+tile{tiles_lanes=8}`); `--routes
box=never` (copy_routes' settings, `NAME=VALUE,...`) holds for the whole run: copy_'s
kernels and the plans the Programs are built from (a plan without the box's facts gives
the Program its views' own pointers, so a variant can tile it);
`PASS{OPTIONS}@TEXT|TEXT2` only for the cases whose name contains TEXT or TEXT2. The Program path takes the merged views of the
plan (`copy_plan.plan_copy`) with every extent and stride static, its pointers at the
plan's first elements. `--quick` divides every extent of 1024 or more by 4 (a smoke test:
its ratios are not the table's). With `--json`, benchmarks/report.py puts the
table in docs/performance.md. With `--timing events`, a box case runs a second time,
`copy_` and the Program, with phase 1 through registers (`tile{box_stage=registers}`)
for an A/B of its cp.async staging (a second table, ratios to cudaMemcpy); with graphs,
`--variant 'tile{box_stage=registers}'` times the Program's. `--list` prints the cases and each path's kernel choice
(no GPU needed). Every row states the copy's DRAM bound (`dram_bound`: the cost model's
count of the 32-byte sectors it reads and writes, passes/_copy_cost.dram_share, as a
ratio to cudaMemcpy of the same bytes) and the table copy_'s ratio to it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import replace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from helpers.canonical_copies import SHORT, CANONICAL, CanonicalCopy, copy_choice, program_choice, program_of  # noqa: E402


def quick_case(case: CanonicalCopy) -> CanonicalCopy:
    """The case with every extent of 1024 or more divided by 4 (the first one where
    none is that long; slices keep their starts, steps and distance from the end): the
    same pattern in at most a quarter of the bytes."""
    long = [k for k, n in enumerate(case.base) if n >= 1024] or [0]

    def small(k: int, n: int) -> int:
        return n // 4 if k in long else n

    index = None
    if case.index is not None:
        index = tuple((a, small(k, n) - (n - b), c) for k, (n, (a, b, c)) in enumerate(zip(case.base, case.index)))
    shape = None
    if case.shape is not None:  # a broadcast: its long extents shrink as the base's
        shape = tuple(n // 4 if n >= 1024 else n for n in case.shape)
    return replace(case, base=tuple(small(k, n) for k, n in enumerate(case.base)), index=index, shape=shape)


def cases(quick: bool, only: str = "") -> list[CanonicalCopy]:
    out = [quick_case(c) if quick else c for c in CANONICAL]
    keys = [k for k in only.split(",") if k]
    return [c for c in out if not keys or any(k in c.name for k in keys)]


def bytes_moved(case: CanonicalCopy) -> int:
    """Bytes read + bytes written as PyTorch counts a copy: every dst element written
    once, every src element it reads once (a broadcast src's elements once each)."""
    from helpers.canonical_copies import ITEMSIZE

    n = case.num_elements
    shape, strides, _ = case.src_view()
    read = math.prod(m for m, s in zip(shape, strides) if s != 0)
    return n * ITEMSIZE[case.dst_dtype] + read * ITEMSIZE[case.src_dtype]


def choices(case: CanonicalCopy) -> dict:
    """Each path's kernel choice (strategy, tile, threads) for the case, and its DRAM
    bound (`dram_bound`), on the CPU."""
    from tilec.copy_plan import plan_copy

    plan = plan_copy(*case.operands())
    return {"copy_": list(map(_plain, copy_choice(plan))), "program": list(map(_plain, program_choice(plan))),
            "dram_bound": dram_bound(plan)}


def dram_bound(plan) -> float:
    """The most the copy can reach as a ratio to cudaMemcpy of the same bytes, by the
    cost model's count of the 32-byte sectors it reads and writes
    (passes/_copy_cost.dram_share of the plan's numbers; the target's sector): rows of
    5 bytes at a pitch of 7 read every source sector, 0.833."""
    from tilec.copy_plan import plan_facts
    from tilec.passes._copy_cost import dram_share
    from tilec.support.target import target

    return round(dram_share(plan_facts(plan), target().sector_bytes), 4)


def _plain(x):
    return list(x) if isinstance(x, tuple) else x


# ----------------------------------------------------------------------------- GPU


def _make(torch, case: CanonicalCopy, gen):
    """(base, src view, dst) on the GPU."""
    t = getattr(torch, case.src_dtype)
    if case.src_dtype in ("float16", "bfloat16", "float32", "float64"):
        base = (torch.randn(case.base, generator=gen, device="cuda") * 30).to(t)
    elif t == torch.bool:
        base = torch.randint(0, 2, case.base, generator=gen, device="cuda", dtype=torch.uint8).to(t)
    else:
        info = torch.iinfo(t)
        base = torch.randint(info.min, info.max, case.base, generator=gen, device="cuda", dtype=t)
    src = _src_of(case, base)
    dst = torch.empty(tuple(src.shape), dtype=getattr(torch, case.dst_dtype), device="cuda")
    return base, src, dst


def _src_of(case: CanonicalCopy, base):
    """The case's src view of `base`: `base[index].permute(perm)`, broadcast."""
    index = case.index or tuple((0, n, 1) for n in case.base)
    src = base[tuple(slice(*ix) for ix in index)]
    if case.perm is not None:
        src = src.permute(*case.perm)
    if case.shape is not None:
        src = src.expand(*case.shape)
    return src


def _bits(torch, x):
    return x.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()])


def _poison(torch, x):
    _bits(torch, x).fill_(77)
    return x


def _program_args(torch, src, dst, plan, base):
    """The Program's pointer arguments: flat views starting at the first elements of
    `src` and `dst` (not the plan's pointers, which a realigning or box plan moves),
    as long as the merged views reach."""
    s_item, d_item = base.element_size(), dst.element_size()
    s_off = (src.data_ptr() - base.data_ptr()) // s_item
    reach_s = 1 + sum((n - 1) * abs(s) for n, s in zip(plan.extents, plan.src_strides))
    reach_d = 1 + sum((n - 1) * abs(s) for n, s in zip(plan.extents, plan.dst_strides))
    d_off = 0
    a, b = base.reshape(-1)[s_off : s_off + reach_s], dst.reshape(-1)[d_off : d_off + reach_d]
    return _as_key_dtype(torch, a, plan.key.src_dtype), _as_key_dtype(torch, b, plan.key.dst_dtype)


_TORCH = {"i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "f16": "float16", "bf16": "bfloat16",
          "f32": "float32", "f64": "float64"}


def _as_key_dtype(torch, t, name):
    """`t` as the element type its Program declares for the key's dtype `name`
    (`program_of`: bool and uint8 pointers are int8, the bits they are)."""
    want = getattr(torch, _TORCH[SHORT[name]])
    return t if t.dtype == want else t.view(want)


def _realigned_args(torch, src, dst, plan):
    """A realign plan's Program's pointer arguments: flat views of `src`'s and `dst`'s
    storages from the plan's pointers (aligned down to 16 bytes), as far as the views
    reach in whole 16-byte chunks (within the storages), as the element types the
    Program declares (`_as_key_dtype`)."""
    out = []
    for t, ptr, strides in ((src, plan.src_ptr, plan.src_strides), (dst, plan.dst_ptr, plan.dst_strides)):
        e = t.element_size()
        start = t.storage_offset() - (t.data_ptr() - ptr) // e
        reach = (t.data_ptr() - ptr) // e + 1 + sum((n - 1) * abs(s) for n, s in zip(plan.extents, strides))
        reach = -(-reach * e // 16) * 16 // e
        reach = min(reach, t.untyped_storage().nbytes() // e - start)
        out.append(t.as_strided((reach,), (1,), start))
    return [_as_key_dtype(torch, v, name) for v, name in zip(out, (plan.key.src_dtype, plan.key.dst_dtype))]


def run_case(torch, case: CanonicalCopy, memcpy_ratio_of, gen) -> dict:
    import copy_bench

    import tilec
    from tilec.copy_plan import plan_copy

    base, src, dst = _make(torch, case, gen)
    want = torch.empty_like(dst).copy_(src)
    moved = bytes_moved(case)
    row = {"case": case.name, "bytes": moved, **choices(case)}

    def timed(fn) -> float:
        return copy_bench.tbps(moved, copy_bench.median_ms(fn))

    # tilec.copy_
    _poison(torch, dst)
    tilec.copy_(dst, src)
    torch.cuda.synchronize()
    row["copy_exact"] = bool(torch.equal(_bits(torch, dst), _bits(torch, want)))
    row["copy_tbps"] = timed(lambda: tilec.copy_(dst, src))
    # the Program of the same views
    plan = plan_copy(_operand(dst), _operand(src))
    try:
        kernel, args = _program_kernel(torch, plan, src, dst, base)
        _poison(torch, dst)
        kernel(*args)
        torch.cuda.synchronize()
        row["program_exact"] = bool(torch.equal(_bits(torch, dst), _bits(torch, want)))
        row["program_tbps"] = timed(lambda: kernel(*args))
    except Exception as e:  # report and go on: one broken case must not hide the others
        row["program_error"] = f"{type(e).__name__}: {str(e)[:200]}"
    if str(row["program"][0]).startswith("box"):
        _box_stage_ab(torch, case, row, plan, src, dst, base, want, timed)
    row["torch_tbps"] = timed(lambda: dst.copy_(src))
    mc = memcpy_ratio_of(moved)
    row["memcpy_tbps"] = mc
    for k in ("copy", "program", "copy_registers", "program_registers", "torch"):
        if f"{k}_tbps" in row:
            row[f"{k}_ratio"] = row[f"{k}_tbps"] / mc
    del base, src, dst, want
    torch.cuda.empty_cache()
    return row


ROTATE_BYTES = 256 << 20
"""Bytes (read + written) that the rotated tensor sets of one timed function span at
least (`--timing graph`): five times the 50 MiB L2."""


def run_case_graph(torch, case: CanonicalCopy, gen, variants: tuple[str, ...] = (),
                   routes: tuple[str, ...] = ()) -> dict:
    """One case timed as compute_bench.py times (module doc, `--timing graph`): copy_,
    the Program of the same views, the Program through each variant's pipeline, copy_
    under each of `routes` (`NAME=VALUE,...[@TEXT|TEXT2]`, api/copy_routes.py, where it
    applies as a variant does; a fresh `CopyKernels(disk=False)` each, named `copy
    NAME=VALUE,...`), PyTorch and a
    cudaMemcpy of the same bytes, each over its rotated sets, 20 launches per CUDA
    graph, interleaved; every path checked bit for bit on the first set first."""
    import statistics

    import compute_bench as cb
    import cupy as cp

    import tilec
    from tilec.copy_plan import plan_copy

    moved = bytes_moved(case)
    sets = max(1, math.ceil(ROTATE_BYTES / moved))
    base, src, dst = _make(torch, case, gen)
    want = torch.empty_like(dst).copy_(src)
    bases = [base] + [base.clone() for _ in range(sets - 1)]
    srcs = [src] + [_src_of(case, b) for b in bases[1:]]
    dsts = [dst] + [torch.empty_like(dst) for _ in range(sets - 1)]
    row = {"case": case.name, "bytes": moved, **choices(case), "timing": "graph", "rotated_sets": sets}
    fns = {}

    def exact(fn) -> bool:
        _poison(torch, dst)
        fn(0, None)
        torch.cuda.synchronize()
        return bool(torch.equal(_bits(torch, dst), _bits(torch, want)))

    def stream_of(s):
        return None if s is None else cp.cuda.ExternalStream(s.cuda_stream)

    fns["copy"] = lambda i, s: tilec.copy_(dsts[i], srcs[i])
    row["copy_exact"] = exact(fns["copy"])
    for r in [r.split("@")[0] for r in routes if variant_applies(r, case.name)]:
        from tilec import tensor_copy
        from tilec.copy_kernels import CopyKernels
        from tilec.copy_routes import forced_routes

        kw = {k: int(v) if v.lstrip("-").isdigit() else v for k, v in (x.split("=") for x in r.split(",") if x)}

        def routed(i, s, kw=kw, kern=CopyKernels(disk=False)):
            with forced_routes(**kw):
                tensor_copy.copy_(dsts[i], srcs[i], kernels=kern)

        try:
            row[f"copy {r}_exact"] = exact(routed)
            fns[f"copy {r}"] = routed
        except Exception as e:  # report and go on
            row[f"copy {r}_error"] = f"{type(e).__name__}: {str(e)[:200]}"
    plans = [plan_copy(_operand(d), _operand(x)) for d, x in zip(dsts, srcs)]
    args = [_program_call_args(torch, p, x, d, b) for p, x, d, b in zip(plans, srcs, dsts, bases)]
    mine = [v.split("@")[0] for v in variants if variant_applies(v, case.name)]
    for name, pipeline in [("program", "default")] + [(f"variant {v}", v) for v in mine]:
        try:
            kernel, _ = _program_kernel(torch, plans[0], src, dst, base,
                                        "default" if pipeline == "default" else variant_pipeline(pipeline))

            def fn(i, s, kernel=kernel):
                kernel(*args[i], stream=stream_of(s))

            row[f"{name}_exact"] = exact(fn)
            fns[name] = fn  # timed even where wrong: the table says NO
        except Exception as e:  # report and go on: one broken case must not hide the others
            row[f"{name}_error"] = f"{type(e).__name__}: {str(e)[:200]}"
    fns["torch"] = lambda i, s: dsts[i].copy_(srcs[i])
    half = moved // 2
    bufs = [(torch.empty(half, dtype=torch.uint8, device="cuda"), torch.empty(half, dtype=torch.uint8, device="cuda"))
            for _ in range(sets)]

    def memcpy(i, s):
        a, b = bufs[i]
        cp.cuda.runtime.memcpyAsync(b.data_ptr(), a.data_ptr(), half, cp.cuda.runtime.memcpyDeviceToDevice,
                                    0 if s is None else s.cuda_stream)

    fns["memcpy"] = memcpy
    for fn in fns.values():  # every set seen once before a graph captures it (copy_'s first sight of a set)
        for i in range(sets):
            fn(i, None)
    torch.cuda.synchronize()
    timed = cb.interleaved(fns, sets)
    queued = statistics.median(cb._event_times(memcpy, sets, 30))
    mc = copy_bench_tbps(moved, min(timed["memcpy"][0], queued))
    row["memcpy_tbps"] = mc
    row["memcpy_graph_queued_tbps"] = [copy_bench_tbps(moved, timed["memcpy"][0]), copy_bench_tbps(moved, queued)]
    for name, (ms, spread, how) in timed.items():
        if name == "memcpy":
            continue
        row[f"{name}_tbps"] = copy_bench_tbps(moved, ms)
        row[f"{name}_ratio"] = row[f"{name}_tbps"] / mc
        row[f"{name}_spread"] = round(spread, 3)
        if how != "graph":
            row[f"{name}_timing"] = how
    return row  # the tensors go with this frame; main() empties PyTorch's cache


def copy_bench_tbps(nbytes: int, ms: float) -> float:
    import copy_bench

    return copy_bench.tbps(nbytes, ms)


def _operand(t):
    """A torch tensor as a `copy_plan.Operand`."""
    from tilec.copy_plan import Operand

    return Operand(t.data_ptr(), str(t.dtype).replace("torch.", ""), tuple(t.shape), t.stride())


def _program_kernel(torch, plan, src, dst, base, pipeline: str = "default"):
    """(the compiled Program of the plan's views through `pipeline`, its arguments)."""
    import tilec

    if plan.key.aligned_pointers:
        # misaligned rows (and box copies): the Program states its pointers aligned down
        # and their misalignments, as copy_'s program does
        kernel = tilec.compile(program_of(plan), pipeline)
    else:
        kernel = tilec.compile(program_of(plan, src.data_ptr(), dst.data_ptr()), pipeline)
    return kernel, _program_call_args(torch, plan, src, dst, base)


def _program_call_args(torch, plan, src, dst, base) -> tuple:
    """The arguments of the Program of `plan`'s views (`_program_kernel`) for these
    tensors (`plan`: the plan of these tensors)."""
    if plan.key.aligned_pointers:
        return (*_realigned_args(torch, src, dst, plan), *plan.extra)
    return _program_args(torch, src, dst, plan, base)


def variant_applies(variant: str, case_name: str) -> bool:
    """Whether a `--variant PASS{OPTIONS}[@TEXT|TEXT2...]` is timed for the case named so:
    always without `@`, else where the name contains one of the texts."""
    if "@" not in variant:
        return True
    return any(t in case_name for t in variant.split("@", 1)[1].split("|"))


def variant_pipeline(spec: str) -> str:
    """The default pipeline with each pass named in `spec` (`NAME{OPTIONS}`, several
    joined by `+`: `copy-strategy{tiles_bytes=2}+tile{tiles_lanes=8}`) replaced as
    given: the pipeline of a `--variant`. ValueError where the default pipeline has no
    such pass, or has it more than once."""
    from tilec.compiler.pipeline import expand_pipeline

    passes = expand_pipeline("default").split(",")
    for one in spec.split("+"):
        name = one.split("{")[0]
        if [p.split("{")[0] for p in passes].count(name) != 1:
            raise ValueError(f"--variant {spec}: the default pipeline does not have exactly one pass {name!r}")
        passes = [one if p.split("{")[0] == name else p for p in passes]
    return ",".join(passes)


def registers_pipeline() -> str:
    """The default pipeline with the `tile` pass's box copies staging phase 1 through
    registers (`box_stage=registers`, the form before cp.async), for the A/B column."""
    return variant_pipeline("tile{box_stage=registers}")


def _box_stage_ab(torch, case, row, plan, src, dst, base, want, timed) -> None:
    """A box case again with phase 1 through registers: `copy_` under
    `forced_routes(box_stage="registers")` (a fresh `CopyKernels`) and the Program
    through `registers_pipeline`, each checked exact and timed beside the default
    (cp.async) columns."""
    import tilec
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes

    try:
        with forced_routes(box_stage="registers"):
            kernels = CopyKernels(disk=False)
            _poison(torch, dst)
            tilec.copy_(dst, src, kernels=kernels)
            torch.cuda.synchronize()
            row["copy_registers_exact"] = bool(torch.equal(_bits(torch, dst), _bits(torch, want)))
            row["copy_registers_tbps"] = timed(lambda: tilec.copy_(dst, src, kernels=kernels))
    except Exception as e:  # report and go on
        row["copy_registers_error"] = f"{type(e).__name__}: {str(e)[:200]}"
    try:
        kernel, args = _program_kernel(torch, plan, src, dst, base, registers_pipeline())
        _poison(torch, dst)
        kernel(*args)
        torch.cuda.synchronize()
        row["program_registers_exact"] = bool(torch.equal(_bits(torch, dst), _bits(torch, want)))
        row["program_registers_tbps"] = timed(lambda: kernel(*args))
    except Exception as e:  # report and go on
        row["program_registers_error"] = f"{type(e).__name__}: {str(e)[:200]}"


AB_KEYS = ("copy_registers_ratio", "copy_registers_error", "program_registers_ratio", "program_registers_error")
"""A row's keys of the box cases' A/B (`_box_stage_ab`)."""


def table(rows: list[dict]) -> str:
    lines = [
        "| case | copy_ / cudaMemcpy | Program / cudaMemcpy | copy_ / Program | DRAM bound | copy_ / bound "
        "| PyTorch / cudaMemcpy | exact | same kernel |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        prog = r.get("program_ratio")
        exact = "yes" if r.get("copy_exact") and r.get("program_exact") else "NO"
        same = "yes" if r["copy_"] == r["program"] else f"no: {r['copy_'][0]} vs {r['program'][0]}"
        prog_text = "-" if prog is None else f"{prog:.3f}"
        rel = "-" if prog is None else f"{r['copy_ratio'] / prog:.2f}"
        bound = r.get("dram_bound")
        bound_text = "-" if bound is None else f"{bound:.3f}"
        of_bound = "-" if bound is None else f"{r['copy_ratio'] / bound:.2f}"
        lines.append(
            f"| {r['case']} | {r['copy_ratio']:.3f} | {prog_text} | {rel} | {bound_text} | {of_bound} "
            f"| {r['torch_ratio']:.3f} | {exact} | {same} |"
        )
    ab = [r for r in rows if any(k in r for k in AB_KEYS)]
    if ab:  # the box cases' phase 1: cp.async (the default) against registers
        lines += ["", "| box case | copy_, cp.async | copy_, registers | Program, cp.async | Program, registers | exact |",
                  "|---|---:|---:|---:|---:|---|"]

        def ratio(r, k):
            return "-" if r.get(f"{k}_ratio") is None else f"{r[f'{k}_ratio']:.3f}"

        for r in ab:
            exact = "yes" if all(r.get(f"{k}_exact") for k in ("copy", "copy_registers", "program",
                                                                  "program_registers")) else "NO"
            lines.append(f"| {r['case']} | {ratio(r, 'copy')} | {ratio(r, 'copy_registers')} | "
                         f"{ratio(r, 'program')} | {ratio(r, 'program_registers')} | {exact} |")
    variants = [(r, k[len("variant "):-len("_ratio")]) for r in rows for k in r
                if k.startswith("variant ") and k.endswith("_ratio")]
    errors = [(r, k[len("variant "):-len("_error")]) for r in rows for k in r
              if k.startswith("variant ") and k.endswith("_error")]
    if variants or errors:  # the Program through each --variant's pipeline
        lines += ["", "| case | variant | Program / cudaMemcpy | / default Program | exact |", "|---|---|---:|---:|---|"]
        for r, v in variants:
            got, prog = r[f"variant {v}_ratio"], r.get("program_ratio")
            rel = "-" if not prog else f"{got / prog:.2f}"
            lines.append(f"| {r['case']} | `{v}` | {got:.3f} | {rel} | "
                         f"{'yes' if r.get(f'variant {v}_exact') else 'NO'} |")
        for r, v in errors:
            lines.append(f"| {r['case']} | `{v}` | {r[f'variant {v}_error'][:80]} | - | - |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="every extent of 1024 or more / 4 (a smoke test)")
    ap.add_argument("--only", default="", help="comma-separated substrings of case names")
    ap.add_argument("--json", default=None, help="write the results as JSON here")
    ap.add_argument("--md", default=None, help="write the table into this markdown file")
    ap.add_argument("--list", action="store_true", help="print the cases and both kernel choices; no GPU")
    ap.add_argument("--timing", choices=("graph", "events"), default="graph",
                    help="graph: rotated sets, CUDA graphs, interleaved (default); events: queued launches")
    ap.add_argument("--routes", default="",
                    help="NAME=VALUE,... copy_routes settings in force for the whole run (e.g. box=never): "
                         "copy_'s kernels and the plans the Programs are built from")
    ap.add_argument("--variant", action="append", default=[],
                    help="PASS{OPTIONS}[@TEXT|TEXT2]: time the Program again with the default pipeline's PASS "
                         "replaced (only for the cases whose name contains one of the texts)")
    args = ap.parse_args(argv)
    routes = dict(kv.split("=", 1) for kv in args.routes.split(",") if kv)
    from tilec.copy_routes import forced_routes

    with forced_routes(**{k: int(v) if v.isdigit() else v for k, v in routes.items()}):
        return _run(args)


def _run(args) -> int:
    """main's work under the routes it set."""
    for v in args.variant:
        variant_pipeline(v.split("@")[0])  # a misspelt pass fails here, before the GPU work
    todo = cases(args.quick, args.only)
    if args.list:
        for c in todo:
            ch = choices(c)
            print(f"{c.name}: copy_ {ch['copy_']}, program {ch['program']}, DRAM bound {ch['dram_bound']:.3f}"
                  f"{'' if ch['copy_'] == ch['program'] else '  (differ)'}")
        return 0
    sys.path.insert(0, HERE)
    import copy_bench

    try:
        import torch
    except ImportError:
        torch = None
    if copy_bench.cp is None or torch is None or not torch.cuda.is_available():
        print("canonical_copy_bench: PyTorch and CuPy with a GPU are required", file=sys.stderr)
        return 1
    memcpy: dict[int, float] = {}

    def memcpy_of(moved: int) -> float:
        # cudaMemcpy of the same bytes (one way: half of read + write), measured once per size
        if moved not in memcpy:
            memcpy[moved] = copy_bench.memcpy_tbps(moved // 2)
        return memcpy[moved]

    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    for c in todo:
        if args.timing == "graph":
            rows.append(run_case_graph(torch, c, gen, tuple(args.variant)))
            torch.cuda.empty_cache()
        else:
            rows.append(run_case(torch, c, memcpy_of, gen))
        print(json.dumps(rows[-1]), flush=True)
    text = table(rows)
    dev = torch.cuda.get_device_name(0)
    if args.json:
        from run_info import run_info

        with open(args.json, "w") as f:
            json.dump({**run_info(dev), "quick": args.quick, "timing": args.timing, "rows": rows}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(f"Device: {dev}; `python benchmarks/canonical_copy_bench.py{' --quick' if args.quick else ''}"
                    f" --timing {args.timing}`\n\n"
                    f"{text}\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
