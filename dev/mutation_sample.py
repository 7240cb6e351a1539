"""Mutation score of the test suite on a seeded sample of mutants (cosmic-ray), over
the whole product tree.

    python dev/mutation_sample.py [--count 60] [--seed 0] [--timeout 300] [--out DIR] [--areas api,passes]
    python dev/mutation_sample.py --retest OLD/report.json [--out DIR]
    python dev/mutation_sample.py --list [--areas ...]      # the files and tests, nothing run

Run it in a checkout whose files may be changed (cosmic-ray writes each mutant into the
source file, runs the tests, and restores it): a spare `git worktree` with its own
`pip install -e '.[dev,mutation]'`. It mutates every module of the product's AREAS
(`dialects/`, `passes/` with the lowering, `compiler/` with the CUDA target,
`runtime/reference/`, `api/`), keeps a seeded random sample of `--count` of
cosmic-ray's mutants (drawn per area in proportion to its mutants, at least one from
each area that has any), runs on each the tests of the area the mutant lies in (a
mutant is killed when they fail or time out), and prints the kill rate per area and
every survivor (file, line, operator, diff). The session database and a JSON report are
left in `--out`.

Each mutant's test script finds the mutated file itself (`git diff --name-only`: the one
file cosmic-ray has changed) and runs the selection of its area (`AREAS`: pytest files,
stopping at the first failure, then lit folders). Dialects feed every pass, so their
selection includes the passes'.

`--retest REPORT` runs this checkout's tests on the mutants that survived in an earlier
report (each applied with `cosmic-ray apply`, then the file restored): how a score
improves when tests are added, without re-running the mutants already killed.
docs/testing.md records the latest score and explains each survivor.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Area:
    """A folder of the product, and the tests that guard it."""

    folder: str
    pytest: tuple[str, ...]
    lit: tuple[str, ...] = ()


_PASS_TESTS = (
    "tests/unit/test_passes_equivalence.py",
    "tests/unit/test_nonidempotent.py",
    "tests/unit/test_lower_to_gpu.py",
    "tests/unit/test_launch_checks.py",
    "tests/unit/test_remove_layout_conversions.py",
    "tests/unit/test_lower_convert_layout.py",
    "tests/unit/test_shuffle_lowering.py",
    "tests/unit/test_reduce_lowering.py",
    "tests/unit/test_reduce_region.py",
    "tests/unit/test_scan_lowering.py",
    "tests/unit/test_gather.py",
    "tests/unit/test_masked_load_store.py",
    "tests/unit/test_scf_distributed.py",
    "tests/unit/test_software_pipeline.py",
    "tests/unit/test_warp_specialize_pass.py",
    "tests/unit/test_gather_strategy.py",
    "tests/unit/test_realign_strategy.py",
    "tests/unit/test_canonicalize.py",
    "tests/unit/test_axis_info.py",
    "tests/unit/test_cost_and_bounds.py",
)
_PASS_LIT = (
    "tests/filecheck/copy-strategy",
    "tests/filecheck/tile",
    "tests/filecheck/distribute",
    "tests/filecheck/vectorize",
    "tests/filecheck/order-grid",
    "tests/filecheck/remove-layout-conversions",
    "tests/filecheck/lower-convert-layout",
    "tests/filecheck/lower-to-gpu",
    "tests/filecheck/cuda",
    "tests/filecheck/software-pipeline",
    "tests/filecheck/warp-specialize",
    "tests/filecheck/pack-rows",
    "tests/filecheck/chunk-rows",
    "tests/filecheck/choose-warps",
    "tests/filecheck/reread-order",
    "tests/filecheck/coalesce",
    "tests/filecheck/expand-iterators",
    "tests/filecheck/tma",
    "tests/filecheck/vectorize-element-loops",
    "tests/filecheck/accelerate-matmul",
)

AREAS: dict[str, Area] = {
    "dialects": Area(
        "dialects",
        (
            "tests/unit/test_cute_layout.py",
            "tests/unit/test_cute_properties.py",
            "tests/unit/test_linear_layout.py",
            "tests/unit/test_distributed_layouts.py",
            "tests/unit/test_mma_layouts.py",
            "tests/unit/test_dtypes.py",
            "tests/unit/test_swizzled_views.py",
            "tests/unit/test_wgmma.py",
            "tests/unit/test_wgmma_lowering.py",
            "tests/unit/test_check_ulps.py",
            *_PASS_TESTS,
        ),
        ("tests/filecheck/dialect", *_PASS_LIT),
    ),
    "passes": Area("passes", _PASS_TESTS, _PASS_LIT),
    "compiler": Area(
        "compiler",
        (
            "tests/unit/test_cuda_emitter.py",
            "tests/unit/test_cuda_fingerprints.py",
            "tests/unit/test_cuda_wgmma.py",
            "tests/unit/test_kernel_builder.py",
            "tests/unit/test_layout_query.py",
            "tests/unit/test_launch_checks.py",
            "tests/unit/test_attention.py",
            "tests/unit/test_software_pipeline.py",
            "tests/unit/test_index_bounds.py",
            "tests/unit/test_cost_and_bounds.py",
        ),
        ("tests/filecheck/cuda", "tests/filecheck/driver"),
    ),
    "runtime/reference": Area(
        "runtime/reference",
        (
            "tests/unit/test_reference_gpu.py",
            "tests/unit/test_reference_layout.py",
            "tests/unit/test_passes_equivalence.py",
            "tests/unit/test_element_access.py",
            "tests/unit/test_tma.py",
            "tests/unit/test_pointer_tensors.py",
            "tests/unit/test_realign_strategy.py",
            "tests/unit/test_matrix_moves.py",
            "tests/unit/test_reduce_region.py",
            "tests/unit/test_scan_region.py",
            "tests/unit/test_gather.py",
        ),
    ),
    "api": Area(
        "api",
        (
            "tests/unit/test_tensor_copy.py",
            "tests/unit/test_copy_overlap.py",
            "tests/unit/test_copy_routes.py",
            "tests/unit/test_copy_fast_paths.py",
            "tests/unit/test_copy_gather.py",
            "tests/unit/test_copy_box.py",
            "tests/unit/test_copy_realign.py",
            "tests/unit/test_copy_period.py",
            "tests/unit/test_canonical_copies_cpu.py",
            "tests/unit/test_api.py",
            "tests/unit/test_autotune.py",
            "tests/unit/test_gemm_ragged.py",
            "tests/unit/test_gemm_split_k.py",
            "tests/unit/test_jit.py",
            "tests/unit/test_specialize.py",
            "tests/unit/test_host_tensor.py",
            "tests/unit/test_matmul_launch.py",
            "tests/unit/test_attention_host.py",
        ),
    ),
}
"""The product's folders a sample draws from, and each one's test selection."""


def mutated_files(areas: list[str]) -> dict[str, list[str]]:
    """Every module of each area (recursively; `__init__.py` files left out), by area."""
    return {
        name: sorted(
            str(p.relative_to(ROOT))
            for p in (ROOT / AREAS[name].folder).rglob("*.py")
            if p.name != "__init__.py" and "__pycache__" not in p.parts
        )
        for name in areas
    }


def area_of(path: str) -> str:
    """The area whose folder holds `path` (the longest folder that is a prefix)."""
    hits = [n for n, a in AREAS.items() if path.startswith(a.folder + "/")]
    if not hits:
        raise ValueError(f"{path} lies in no area")
    return max(hits, key=lambda n: len(AREAS[n].folder))


def test_command(area: str, py: str = sys.executable, lit: str | None = None, select: str = "") -> str:
    """The tests a mutant of `area` runs (those of its selection that exist here):
    pytest with `py` (`select`: extra pytest options), then `lit` (default: the one
    next to `py`)."""
    a = AREAS[area]
    pytest_files = [t for t in a.pytest if (ROOT / t).exists()]
    lit_dirs = [t for t in a.lit if (ROOT / t).exists()]
    cmd = f"{py} -m pytest -x -q -p no:cacheprovider {select}{' '.join(pytest_files)}"
    if lit_dirs:
        cmd += f" && {lit or Path(py).parent / 'lit'} -q {' '.join(lit_dirs)}"
    return cmd


def write_test_script(out: Path) -> Path:
    """The shell script each mutant runs: the selection of the area of the file that
    differs from git's HEAD (none: every area's, as for the unmutated baseline), with
    at most 25 hypothesis inputs per budgeted test (TILEC_HYPOTHESIS_MAX)."""
    script = out / "run-tests.sh"
    cases = "\n".join(f"  {AREAS[n].folder}/*) {test_command(n)} ;;" for n in sorted(AREAS, key=lambda n: -len(AREAS[n].folder)))
    every = " && ".join(f"( {test_command(n)} )" for n in AREAS)
    script.write_text(
        f"set -e\ncd {ROOT}\nexport TILEC_HYPOTHESIS_MAX=25\n"
        "changed=$(git diff --name-only -- '*.py' | head -n 1)\n"
        f'case "$changed" in\n{cases}\n  *) {every} ;;\nesac\n'
    )
    return script


def config_text(timeout: float, script: Path, files: list[str]) -> str:
    modules = ", ".join(json.dumps(m) for m in files)
    return f"""[cosmic-ray]
module-path = [{modules}]
timeout = {timeout}
excluded-modules = []
test-command = {json.dumps(f"bash {script}")}

[cosmic-ray.distributor]
name = "local"
"""


def quotas(counts: dict[str, int], count: int) -> dict[str, int]:
    """How many of `count` mutants to draw from each area, in proportion to its
    `counts` (largest remainders), at least one from each area that has any (while
    `count` allows)."""
    total = sum(counts.values())
    if total <= count:
        return dict(counts)
    share = {n: count * c / total for n, c in counts.items()}
    out = {n: int(share[n]) for n in counts}
    for n in counts:
        if counts[n] and not out[n] and sum(out.values()) < count:
            out[n] = 1
    for n in sorted(counts, key=lambda n: share[n] - int(share[n]), reverse=True):
        if sum(out.values()) >= count:
            break
        if out[n] < counts[n] and out[n] == int(share[n]):
            out[n] += 1
    return out


def draw(items_by_area: dict[str, list], count: int, seed: int) -> list:
    """A seeded sample of `count` items, drawn per area by `quotas`."""
    rng = random.Random(seed)
    want = quotas({n: len(v) for n, v in items_by_area.items()}, count)
    kept = []
    for n in sorted(items_by_area):
        kept += rng.sample(items_by_area[n], want[n])
    return kept


def sample(session: Path, count: int, seed: int) -> dict[str, int]:
    """Keep a seeded sample of `count` of the session's work items (`draw`); returns
    how many there were per area."""
    from cosmic_ray.work_db import WorkDB, use_db

    with use_db(str(session), WorkDB.Mode.open) as db:
        items = sorted(db.work_items, key=lambda w: w.job_id)
        by_area: dict[str, list] = {}
        for w in items:
            by_area.setdefault(area_of(str(w.mutations[0].module_path)), []).append(w)
        kept = draw(by_area, count, seed)
        db.clear()
        db.add_work_items(kept)
    return {n: len(v) for n, v in by_area.items()}


def report(session: Path) -> dict:
    from cosmic_ray.work_db import WorkDB, use_db

    with use_db(str(session), WorkDB.Mode.open) as db:
        rows = []
        for item, result in db.completed_work_items:
            m = item.mutations[0]
            rows.append({
                "file": str(m.module_path),
                "line": m.start_pos[0],
                "operator": m.operator_name,
                "occurrence": m.occurrence,
                "outcome": result.test_outcome.value,
                "diff": result.diff,
            })
    killed = sum(r["outcome"] == "killed" for r in rows)
    return {"mutants": len(rows), "killed": killed, "rows": rows}


def retest(old_report: Path, out: Path, timeout: float) -> int:
    """Apply each survivor of `old_report` here, run the tests, restore the file."""
    old = json.loads(old_report.read_text())
    script = write_test_script(out)
    rows = []
    for r in old["rows"]:
        if r["outcome"] == "killed":
            continue
        path = ROOT / r["file"]
        original = path.read_bytes()
        try:
            subprocess.run(["cosmic-ray", "apply", r["file"], r["operator"], str(r["occurrence"])],
                           cwd=ROOT, check=True, capture_output=True)
            try:
                ok = subprocess.run(["bash", str(script)], capture_output=True, timeout=timeout).returncode == 0
            except subprocess.TimeoutExpired:
                ok = False
        finally:
            path.write_bytes(original)
        rows.append({**r, "outcome": "survived" if ok else "killed"})
        print(f"{'SURVIVED' if ok else 'killed  '} {r['file']}:{r['line']} {r['operator']} #{r['occurrence']}", flush=True)
    killed_before = old["killed"]
    killed_now = killed_before + sum(r["outcome"] == "killed" for r in rows)
    (out / "retest.json").write_text(json.dumps({"mutants": old["mutants"], "killed": killed_now, "rows": rows}, indent=1))
    print(f"killed {killed_now} of {old['mutants']} ({100 * killed_now / max(1, old['mutants']):.0f}%; "
          f"{killed_before} before these tests)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--retest", type=Path, help="an earlier report.json: re-run its survivors")
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--areas", default=",".join(AREAS), help=f"comma-separated, of: {', '.join(AREAS)}")
    ap.add_argument("--list", action="store_true", help="print the files and each area's tests; run nothing")
    ap.add_argument("--out", type=Path, default=ROOT / "mutation-out")
    args = ap.parse_args()
    areas = [a for a in args.areas.split(",") if a]
    unknown = [a for a in areas if a not in AREAS]
    if unknown:
        ap.error(f"unknown areas {unknown}; expected some of {', '.join(AREAS)}")
    files = mutated_files(areas)
    if args.list:
        for n in areas:
            print(f"{n}: {len(files[n])} files; tests: {test_command(n)}")
            print("".join(f"  {f}\n" for f in files[n]), end="")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    if args.retest:
        return retest(args.retest, args.out, args.timeout)
    cfg = args.out / "cosmic-ray.toml"
    session = args.out / "session.sqlite"
    script = write_test_script(args.out)
    flat = [f for n in areas for f in files[n]]
    cfg.write_text(config_text(args.timeout, script, flat))
    # cosmic-ray counts a failing test run as a killed mutant: the unmutated code must pass.
    if subprocess.run(["bash", str(script)], capture_output=True).returncode != 0:
        print(f"the tests fail without any mutation: bash {script}", file=sys.stderr)
        return 1
    session.unlink(missing_ok=True)
    subprocess.run(["cosmic-ray", "init", str(cfg), str(session)], cwd=ROOT, check=True)
    per_area = sample(session, args.count, args.seed)
    total = sum(per_area.values())
    print(f"{total} mutants in {len(flat)} files ({per_area}); running a sample of "
          f"{min(args.count, total)} (seed {args.seed})", flush=True)
    subprocess.run(["cosmic-ray", "exec", str(cfg), str(session)], cwd=ROOT, check=True)
    rep = report(session)
    rep.update(total=total, per_area=per_area, seed=args.seed, files=flat,
               tests={n: test_command(n) for n in areas})
    (args.out / "report.json").write_text(json.dumps(rep, indent=1))
    print(f"killed {rep['killed']} of {rep['mutants']} ({100 * rep['killed'] / max(1, rep['mutants']):.0f}%)")
    for n in areas:
        rows = [r for r in rep["rows"] if area_of(r["file"]) == n]
        print(f"  {n}: killed {sum(r['outcome'] == 'killed' for r in rows)} of {len(rows)}")
    for r in rep["rows"]:
        if r["outcome"] != "killed":
            print(f"SURVIVED {r['file']}:{r['line']} {r['operator']} #{r['occurrence']}\n{r['diff']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
