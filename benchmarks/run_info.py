"""What every benchmark's JSON output records about its run: the device, the UTC time
and the commit of the code measured (docs/performance.md is generated from them by
benchmarks/report.py).

The commit is `git rev-parse --short HEAD` (with `-dirty` when tracked files differ
from it), or TILEC_COMMIT where the tree has no git directory (a copy on the GPU
machine), else "unknown"."""

from __future__ import annotations

import datetime
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def commit() -> str:
    if os.environ.get("TILEC_COMMIT"):
        return os.environ["TILEC_COMMIT"]
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def run_info(device: str) -> dict[str, str]:
    """{"device", "date", "commit"} of this run."""
    now = datetime.datetime.now(datetime.timezone.utc)  # noqa: UP017 - Python 3.10 too
    return {"device": device, "date": now.strftime("%Y-%m-%d %H:%M UTC"), "commit": commit()}
