"""Mutation score of the test suite on a seeded sample of mutants (cosmic-ray).

    python dev/mutation_sample.py [--count 40] [--seed 0] [--timeout 240] [--out DIR]
    python dev/mutation_sample.py --retest OLD/report.json [--out DIR]

Run it in a checkout whose files may be changed (cosmic-ray writes each mutant into the
source file, runs the tests, and restores it): a spare `git worktree` with its own
`pip install -e '.[dev,mutation]'`. It mutates `passes/` (every pass and the lowering),
keeps a seeded random sample of `--count` of cosmic-ray's mutants, runs the fast test
selection below on each (a mutant is killed when it fails or times out), and prints the
kill rate and every survivor (file, line, operator, diff). The session database and a
JSON report are left in `--out`.

`--retest REPORT` runs this checkout's tests on the mutants that survived in an earlier
report (each applied with `cosmic-ray apply`, then the file restored): how a score
improves when tests are added, without re-running the mutants already killed.

The test selection per mutant is what guards the passes and the lowering: pytest on the
equivalence, oracle, non-idempotent, lowering (conversions, shuffles, reductions, scans,
gathers, masks, loops) and launch tests (stopping at the first failure), then lit on every
pass's FileCheck folder. docs/testing.md records the latest
score and explains each survivor.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MUTATED = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "passes").glob("*.py") if p.name != "__init__.py")

PYTEST = [
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
]
LIT = [
    "tests/filecheck/tile",
    "tests/filecheck/distribute",
    "tests/filecheck/vectorize",
    "tests/filecheck/order-grid",
    "tests/filecheck/remove-layout-conversions",
    "tests/filecheck/lower-convert-layout",
    "tests/filecheck/lower-to-gpu",
    "tests/filecheck/cuda",
]


def test_command() -> str:
    """The tests each mutant runs (those of the lists above that exist in this checkout)."""
    py = sys.executable
    pytest_files = [t for t in PYTEST if (ROOT / t).exists()]
    lit_dirs = [t for t in LIT if (ROOT / t).exists()]
    return (
        f"{py} -m pytest -x -q -p no:cacheprovider {' '.join(pytest_files)} && "
        f"{Path(py).parent / 'lit'} -q {' '.join(lit_dirs)}"
    )


def write_test_script(out: Path) -> Path:
    """The shell script each mutant runs: the selection above, with at most 25
    hypothesis inputs per budgeted test (TILEC_HYPOTHESIS_MAX)."""
    script = out / "run-tests.sh"
    script.write_text(f"set -e\ncd {ROOT}\nexport TILEC_HYPOTHESIS_MAX=25\n{test_command()}\n")
    return script


def config_text(timeout: float, script: Path) -> str:
    modules = ", ".join(json.dumps(m) for m in MUTATED)
    return f"""[cosmic-ray]
module-path = [{modules}]
timeout = {timeout}
excluded-modules = []
test-command = {json.dumps(f"bash {script}")}

[cosmic-ray.distributor]
name = "local"
"""


def sample(session: Path, count: int, seed: int) -> int:
    """Keep a seeded random `count` of the session's work items; returns how many there were."""
    from cosmic_ray.work_db import WorkDB, use_db

    with use_db(str(session), WorkDB.Mode.open) as db:
        items = sorted(db.work_items, key=lambda w: w.job_id)
        kept = random.Random(seed).sample(items, min(count, len(items)))
        db.clear()
        db.add_work_items(kept)
    return len(items)


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
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=240.0)
    ap.add_argument("--out", type=Path, default=ROOT / "mutation-out")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.retest:
        return retest(args.retest, args.out, args.timeout)
    cfg = args.out / "cosmic-ray.toml"
    session = args.out / "session.sqlite"
    script = write_test_script(args.out)
    cfg.write_text(config_text(args.timeout, script))
    # cosmic-ray counts a failing test run as a killed mutant: the unmutated code must pass.
    if subprocess.run(["bash", str(script)], capture_output=True).returncode != 0:
        print(f"the tests fail without any mutation: bash {script}", file=sys.stderr)
        return 1
    session.unlink(missing_ok=True)
    subprocess.run(["cosmic-ray", "init", str(cfg), str(session)], cwd=ROOT, check=True)
    total = sample(session, args.count, args.seed)
    print(f"{total} mutants in {len(MUTATED)} files; running a sample of {min(args.count, total)} (seed {args.seed})", flush=True)
    subprocess.run(["cosmic-ray", "exec", str(cfg), str(session)], cwd=ROOT, check=True)
    rep = report(session)
    rep.update(total=total, seed=args.seed, files=MUTATED, tests=test_command())
    (args.out / "report.json").write_text(json.dumps(rep, indent=1))
    print(f"killed {rep['killed']} of {rep['mutants']} ({100 * rep['killed'] / max(1, rep['mutants']):.0f}%)")
    for r in rep["rows"]:
        if r["outcome"] != "killed":
            print(f"SURVIVED {r['file']}:{r['line']} {r['operator']} #{r['occurrence']}\n{r['diff']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
