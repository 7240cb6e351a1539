"""The mutation sample of dev/mutation_sample.py, run in parallel on a machine with many
cores that has no cosmic-ray.

    python dev/mutation_batch.py export --count 64 --seed 25 --out DIR   # here: cosmic-ray draws and writes the mutants
    python dev/mutation_batch.py run DIR/mutants.json --jobs 48 [--timeout 420] [--out DIR2]
    python dev/mutation_batch.py retarget DIR/mutants.json --areas compiler --out NEW.json   # diffs onto today's files
    python dev/mutation_batch.py boot [TREE]   # TREE/.boot: import TREE as tilec without an install

`export` draws the same seeded sample as mutation_sample.py (cosmic-ray's mutants of the
product's AREAS, `draw` per area) and writes each mutant as data: its file, line,
operator, occurrence, the mutated file's whole text and the diff (mutants.json). Nothing
is run and every file is restored.

`run` needs only Python, pytest, hypothesis, lit and filecheck (no installed tilec): it
copies this checkout once per worker (without .git), makes each copy importable as
`tilec` on its own (a `sitecustomize` that maps tilec's packages to the copy's folders,
as the editable install's `package-dir` does, and `tilec` / `filecheck` commands in the
copy's bin/), and runs, per mutant, the test selection of its area
(`mutation_sample.test_command`, with `-m "not gpu"` as on CI's machine) after writing
the mutated text into the copy, then restores the file. A mutant is killed when its
tests fail or run past `--timeout`. First, one unmutated run per area checks the
setting: a selection that fails without a mutation makes the whole run invalid (exit 1).
The report (report.json) has mutation_sample's format, so `mutation_sample.py --retest`
reads it.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutation_sample import AREAS, ROOT, area_of, config_text, mutated_files, sample, test_command  # noqa: E402

PACKAGES = {
    "tilec": "api",
    "tilec.support": "support",
    "tilec.compiler": "compiler",
    "tilec.dialects": "dialects",
    "tilec.passes": "passes",
    "tilec.runtime": "runtime",
    "tilec.tools": "tools",
}
"""pyproject.toml's package-dir: the top-level packages and the folders they live in."""

_SITECUSTOMIZE = '''# Written by dev/mutation_batch.py: import tilec from this copy ({root}).
import importlib.util, os, sys
_ROOT = {root!r}
_MAP = {packages!r}
class _CopyFinder:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name not in _MAP:
            return None
        folder = os.path.join(_ROOT, _MAP[name])
        return importlib.util.spec_from_file_location(
            name, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])
sys.meta_path.insert(0, _CopyFinder)
'''

_TOOL = '''#!{python}
# Written by dev/mutation_batch.py: the `{name}` console script.
import sys
from {module} import {func}
sys.exit({func}())
'''


def export(count: int, seed: int, out: Path) -> int:
    """Draw the sample with cosmic-ray (as mutation_sample.py does) and write each mutant's
    text into out/mutants.json; the checkout is left as it was."""
    from cosmic_ray.work_db import WorkDB, use_db

    out.mkdir(parents=True, exist_ok=True)
    files = mutated_files(list(AREAS))
    flat = [f for n in AREAS for f in files[n]]
    cfg, session = out / "cosmic-ray.toml", out / "session.sqlite"
    cfg.write_text(config_text(300.0, out / "unused.sh", flat))
    session.unlink(missing_ok=True)
    subprocess.run(["cosmic-ray", "init", str(cfg), str(session)], cwd=ROOT, check=True)
    per_area = sample(session, count, seed)
    with use_db(str(session), WorkDB.Mode.open) as db:
        items = sorted(db.work_items, key=lambda w: w.job_id)
    rows = []
    for w in items:
        m = w.mutations[0]
        rel = str(m.module_path)
        path = ROOT / rel
        original = path.read_bytes()
        try:
            subprocess.run(["cosmic-ray", "apply", rel, m.operator_name, str(m.occurrence)],
                           cwd=ROOT, check=True, capture_output=True)
            text = path.read_text()
            diff = subprocess.run(["git", "diff", "--", rel], cwd=ROOT, capture_output=True, text=True).stdout
        finally:
            path.write_bytes(original)
        rows.append({"file": rel, "line": m.start_pos[0], "operator": m.operator_name,
                     "occurrence": m.occurrence, "area": area_of(rel), "text": text, "diff": diff})
    doc = {"seed": seed, "total": sum(per_area.values()), "per_area": per_area, "files": flat, "mutants": rows}
    (out / "mutants.json").write_text(json.dumps(doc))
    print(f"{len(rows)} mutants of {doc['total']} ({per_area}, seed {seed}) -> {out / 'mutants.json'}")
    return 0


def retarget(manifest: Path, out: Path, areas: list[str]) -> int:
    """The mutants of `manifest` in `areas`, re-applied (their diffs, with `patch`) to this
    checkout's files, so that an earlier sample runs against code changed since; a
    mutant whose diff no longer applies is left out (and named)."""
    doc = json.loads(manifest.read_text())
    kept = []
    for m in doc["mutants"]:
        if m["area"] not in areas:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / m["file"]
            target.parent.mkdir(parents=True)
            shutil.copy(ROOT / m["file"], target)
            proc = subprocess.run(["patch", "-s", "-p1", "-d", tmp], input=m["diff"], text=True, capture_output=True)
            if proc.returncode != 0:
                print(f"left out (no longer applies): {m['file']}:{m['line']} {m['operator']}")
                continue
            kept.append({**m, "text": target.read_text()})
    doc = {**doc, "mutants": kept}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc))
    print(f"{len(kept)} mutants of {manifest} re-applied to this checkout -> {out}")
    return 0


def make_copy(dest: Path) -> None:
    """A copy of this checkout at `dest` that imports as tilec without an install."""
    shutil.copytree(ROOT, dest, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", ".boot", ".venv", ".whl*", "__pycache__", "mutation-out*", "*.egg-info"))
    make_importable(dest)


def make_importable(tree: Path) -> Path:
    """`tree/.boot`: put it first on PYTHONPATH (and its bin/ on PATH) and `tree` imports
    as tilec, with its distribution metadata and `tilec` / `filecheck` commands, without
    an install. Returns the .boot folder."""
    boot = tree / ".boot"
    (boot / "bin").mkdir(parents=True, exist_ok=True)
    (boot / "sitecustomize.py").write_text(_SITECUSTOMIZE.format(root=str(tree), packages=PACKAGES))
    write_dist_info(boot)
    for name, module, func in (("tilec", "tilec.tools.tilec", "main"), ("filecheck", "filecheck.main", "main")):
        tool = boot / "bin" / name
        tool.write_text(_TOOL.format(python=sys.executable, name=name, module=module, func=func))
        tool.chmod(0o755)
    return boot


def write_dist_info(boot: Path) -> None:
    """A `tilec` distribution's metadata in `boot` (on the copy's sys.path): its entry
    points (console script, xDSL universe) as pyproject.toml declares them, so that
    `importlib.metadata` finds them as it does for an installed tilec."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    info = boot / "tilec-0.0.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tilec\nVersion: 0.0.0\n")
    groups = {"console_scripts": project.get("scripts", {}), **project.get("entry-points", {})}
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n" for group, eps in groups.items()))


class _DropAnnotations(ast.NodeTransformer):
    """Removes what `from __future__ import annotations` leaves unevaluated: argument
    and return annotations, and the annotation of an annotated assignment."""

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node):
        node.returns = None
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AnnAssign:
        node.annotation = ast.Constant(None)
        return self.generic_visit(node)


def annotation_only(original: str, mutated: str) -> bool:
    """Whether `mutated` differs from `original` only inside annotations of a module with
    `from __future__ import annotations` (never evaluated: an equivalent mutant)."""
    try:
        a, b = ast.parse(original), ast.parse(mutated)
    except SyntaxError:
        return False
    future = any(isinstance(n, ast.ImportFrom) and n.module == "__future__" and
                 any(x.name == "annotations" for x in n.names) for n in a.body)
    strip = _DropAnnotations()
    return future and ast.dump(a) != ast.dump(b) and ast.dump(strip.visit(a)) == ast.dump(strip.visit(b))


def run_job(copy: Path, job: dict, timeout: float) -> dict:
    """Write the mutant (none for a baseline) into `copy`, run its area's selection, restore."""
    env = dict(os.environ)
    env["PATH"] = f"{copy / '.boot' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(copy / ".boot"), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]])
    env["TILEC_CACHE_DIR"] = str(copy / ".cache")
    env["TILEC_HYPOTHESIS_MAX"] = "25"
    lit = shutil.which("lit") or "lit"
    cmd = test_command(job["area"], py=sys.executable, lit=lit, select='-m "not gpu" ')
    target = copy / job["file"] if job.get("file") else None
    original = target.read_bytes() if target else None
    start = time.monotonic()
    try:
        if target:
            target.write_text(job["text"])
        try:
            proc = subprocess.run(["bash", "-c", cmd], cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
            passed, tail, timed_out = proc.returncode == 0, (proc.stdout + proc.stderr)[-1500:], False
        except subprocess.TimeoutExpired:
            passed, tail, timed_out = False, f"timed out after {timeout:.0f} s", True
    finally:
        if target:
            target.write_bytes(original)
    equivalent = bool(target) and passed and annotation_only(original.decode(), job["text"])
    return {**{k: v for k, v in job.items() if k != "text"}, "passed": passed, "timed_out": timed_out,
            "annotation_only": equivalent,
            "seconds": round(time.monotonic() - start, 1),
            "tail": tail}


def run(manifest: Path, jobs: int, timeout: float, out: Path, baselines: bool = True) -> int:
    """Run every mutant of `manifest` (and, unless `baselines` is false because a run of the
    same tree already checked them, one baseline per area) on `jobs` workers."""
    doc = json.loads(manifest.read_text())
    out.mkdir(parents=True, exist_ok=True)
    work = [{"area": a, "baseline": True} for a in AREAS] * baselines + doc["mutants"]
    base = Path(tempfile.mkdtemp(prefix="tilec-mutants-"))
    copies = [base / f"w{i}" for i in range(min(jobs, len(work)))]
    with ThreadPoolExecutor(len(copies)) as pool:
        list(pool.map(make_copy, copies))
    free = list(copies)
    lock = threading.Lock()

    def worker(job: dict) -> dict:
        with lock:
            copy = free.pop()
        try:
            result = run_job(copy, job, timeout)
        finally:
            with lock:
                free.append(copy)
        with lock, open(out / "progress.jsonl", "a") as f:
            f.write(json.dumps({k: v for k, v in result.items() if k != "tail" or not result["passed"]}) + "\n")
        tag = "baseline" if job.get("baseline") else ("SURVIVED" if result["passed"] else "killed  ")
        print(f"{tag} {job['area']} {job.get('file', '')}:{job.get('line', '')} {job.get('operator', '')} "
              f"{result['seconds']} s", flush=True)
        return result

    with ThreadPoolExecutor(len(copies)) as pool:
        results = list(pool.map(worker, work))
    baselines = [r for r in results if r.get("baseline")]
    bad = [r for r in baselines if not r["passed"]]
    for r in bad:
        print(f"BASELINE FAILED ({r['area']}): the selection fails without a mutation\n{r['tail']}")
    rows = [{"file": r["file"], "line": r["line"], "operator": r["operator"], "occurrence": r["occurrence"],
             "outcome": ("equivalent" if r["annotation_only"] else "survived") if r["passed"] else "killed",
             "diff": r["diff"], "seconds": r["seconds"],
             "timed_out": r["timed_out"]}
            for r in results if not r.get("baseline")]
    killed = sum(r["outcome"] == "killed" for r in rows)
    equivalent = sum(r["outcome"] == "equivalent" for r in rows)
    rep = {"mutants": len(rows), "killed": killed, "equivalent_annotations": equivalent, "rows": rows, "total": doc["total"], "per_area": doc["per_area"],
           "seed": doc["seed"], "files": doc["files"], "valid": not bad,
           "baseline_seconds": {r["area"]: r["seconds"] for r in baselines},
           "tests": {n: test_command(n, py="python3", lit="lit", select='-m "not gpu" ') for n in AREAS}}
    (out / "report.json").write_text(json.dumps(rep, indent=1))
    slow = [r for r in rows if r["timed_out"]]
    if slow:
        print(f"{len(slow)} killed by the timeout (baselines: {rep['baseline_seconds']}):")
        for r in slow:
            print(f"  {r['file']}:{r['line']} {r['operator']}")
    print(f"{equivalent} survivors differ only in annotations (equivalent): killed {killed} of "
          f"{len(rows) - equivalent} that can die ({100 * killed / max(1, len(rows) - equivalent):.0f}%)")
    print(f"killed {killed} of {len(rows)} ({100 * killed / max(1, len(rows)):.0f}%), seed {doc['seed']}"
          + ("" if not bad else "  -- INVALID: a baseline failed"))
    for n in AREAS:
        mine = [r for r in rows if area_of(r["file"]) == n]
        print(f"  {n}: killed {sum(r['outcome'] == 'killed' for r in mine)} of {len(mine)}")
    for r in rows:
        if r["outcome"] != "killed":
            print(f"{r['outcome'].upper()} {r['file']}:{r['line']} {r['operator']} #{r['occurrence']}\n{r['diff']}")
    shutil.rmtree(base, ignore_errors=True)
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="draw the sample with cosmic-ray and write the mutants")
    e.add_argument("--count", type=int, default=60)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--out", type=Path, default=ROOT / "mutation-out")
    r = sub.add_parser("run", help="run an exported sample in parallel")
    r.add_argument("manifest", type=Path)
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    r.add_argument("--timeout", type=float, default=420.0)
    r.add_argument("--out", type=Path, default=None)
    r.add_argument("--no-baselines", action="store_true",
                   help="skip the unmutated runs (a run of the same tree checked them already)")
    t = sub.add_parser("retarget", help="re-apply an exported sample's mutants (some areas) to this checkout")
    t.add_argument("manifest", type=Path)
    t.add_argument("--areas", default=",".join(AREAS))
    t.add_argument("--out", type=Path, required=True)
    b = sub.add_parser("boot", help="make this checkout importable as tilec without an install (.boot/)")
    b.add_argument("tree", type=Path, nargs="?", default=ROOT)
    args = ap.parse_args()
    if args.cmd == "retarget":
        return retarget(args.manifest, args.out, args.areas.split(","))
    if args.cmd == "boot":
        print(make_importable(args.tree.resolve()))
        return 0
    if args.cmd == "export":
        return export(args.count, args.seed, args.out)
    return run(args.manifest, args.jobs, args.timeout, args.out or args.manifest.parent, not args.no_baselines)


if __name__ == "__main__":
    sys.exit(main())
