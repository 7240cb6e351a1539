"""The canonical copies through both of tilec's paths, side by side in one run (guard (2)
of issue 35): `tilec.copy_` and a `tilec.Program` of the same views through
`-p default`, each against cudaMemcpy of the same bytes, PyTorch's `copy_` beside them.

    python benchmarks/canonical_copy_bench.py [--quick] [--only transpose,NHWC]
        [--json benchmarks/results/canonical_copies.json] [--md OUT.md] [--list]

The copies are tests/helpers/canonical_copies.py's `CANONICAL` (square and odd
transposes of every element size, NHWC <-> NCHW, batched transposes, head splits,
slices, broadcasts, casts, and the box strategy's 1-byte transposes: cases 30, 35 and 42
of the strided set, `--only box`); `tests/unit/test_copy_same_kernel.py` checks on the CPU that
both paths compile the same kernel for them. Per copy: src is made as the case says
(`base[index].permute(perm)`, broadcast), dst a new C-contiguous tensor; each path's
result is checked bit for bit against PyTorch's `dst.copy_(src)` (outputs poisoned
first), then timed with CUDA events (copy_bench.median_ms: the median of many launches
queued before one synchronisation). The Program path takes the merged views of the
plan (`copy_plan.plan_copy`) with every extent and stride static, its pointers at the
plan's first elements. `--quick` divides every extent of 1024 or more by 4 (a smoke test:
its ratios are not the table's). With `--json`, benchmarks/report.py puts the
table in docs/performance.md. A box case runs a second time, `copy_` and the Program,
with phase 1 through registers (`tile{box_stage=registers}`) for an A/B of its
cp.async staging (a second table, ratios to cudaMemcpy). `--list` prints the cases and each path's kernel choice
(no GPU needed).
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
    """Each path's kernel choice (strategy, tile, threads) for the case, on the CPU."""
    from tilec.copy_plan import plan_copy

    plan = plan_copy(*case.operands())
    return {"copy_": list(map(_plain, copy_choice(plan))), "program": list(map(_plain, program_choice(plan)))}


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
    index = case.index or tuple((0, n, 1) for n in case.base)
    src = base[tuple(slice(*ix) for ix in index)]
    if case.perm is not None:
        src = src.permute(*case.perm)
    if case.shape is not None:
        src = src.expand(*case.shape)
    dst = torch.empty(tuple(src.shape), dtype=getattr(torch, case.dst_dtype), device="cuda")
    return base, src, dst


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
    from tilec.copy_plan import Operand, plan_copy

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
    op = lambda t: Operand(t.data_ptr(), str(t.dtype).replace("torch.", ""), tuple(t.shape), t.stride())  # noqa: E731
    plan = plan_copy(op(dst), op(src))
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


def _program_kernel(torch, plan, src, dst, base, pipeline: str = "default"):
    """(the compiled Program of the plan's views through `pipeline`, its arguments)."""
    import tilec

    if plan.key.aligned_pointers:
        # misaligned rows (and box copies): the Program states its pointers aligned down
        # and their misalignments, as copy_'s program does
        kernel = tilec.compile(program_of(plan), pipeline)
        return kernel, (*_realigned_args(torch, src, dst, plan), *plan.extra)
    kernel = tilec.compile(program_of(plan, src.data_ptr(), dst.data_ptr()), pipeline)
    return kernel, _program_args(torch, src, dst, plan, base)


def registers_pipeline() -> str:
    """The default pipeline with the `tile` pass's box copies staging phase 1 through
    registers (`box_stage=registers`, the form before cp.async), for the A/B column."""
    from tilec.compiler.pipeline import expand_pipeline

    passes = expand_pipeline("default").split(",")
    assert passes.count("tile") == 1, passes
    return ",".join("tile{box_stage=registers}" if p == "tile" else p for p in passes)


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
        "| case | copy_ / cudaMemcpy | Program / cudaMemcpy | copy_ / Program | PyTorch / cudaMemcpy | exact | same kernel |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        prog = r.get("program_ratio")
        exact = "yes" if r.get("copy_exact") and r.get("program_exact") else "NO"
        same = "yes" if r["copy_"] == r["program"] else f"no: {r['copy_'][0]} vs {r['program'][0]}"
        prog_text = "-" if prog is None else f"{prog:.3f}"
        rel = "-" if prog is None else f"{r['copy_ratio'] / prog:.2f}"
        lines.append(
            f"| {r['case']} | {r['copy_ratio']:.3f} | {prog_text} | {rel} | {r['torch_ratio']:.3f} | {exact} | {same} |"
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
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="every extent of 1024 or more / 4 (a smoke test)")
    ap.add_argument("--only", default="", help="comma-separated substrings of case names")
    ap.add_argument("--json", default=None, help="write the results as JSON here")
    ap.add_argument("--md", default=None, help="write the table into this markdown file")
    ap.add_argument("--list", action="store_true", help="print the cases and both kernel choices; no GPU")
    args = ap.parse_args(argv)
    todo = cases(args.quick, args.only)
    if args.list:
        for c in todo:
            ch = choices(c)
            print(f"{c.name}: copy_ {ch['copy_']}, program {ch['program']}"
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
        rows.append(run_case(torch, c, memcpy_of, gen))
        print(json.dumps(rows[-1]), flush=True)
    text = table(rows)
    dev = torch.cuda.get_device_name(0)
    if args.json:
        from run_info import run_info

        with open(args.json, "w") as f:
            json.dump({**run_info(dev), "quick": args.quick, "rows": rows}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(f"Device: {dev}; `python benchmarks/canonical_copy_bench.py{' --quick' if args.quick else ''}`\n\n"
                    f"{text}\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
