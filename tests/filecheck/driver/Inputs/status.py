"""Run a command; print its stdout and stderr, then `exit status N` (lit's internal
shell has no `$?`): `%python %S/Inputs/status.py tilec ARGS | filecheck %s`."""
import subprocess
import sys

r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(r.stdout + r.stderr)
print(f"exit status {r.returncode}")
