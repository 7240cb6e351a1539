"""The first `tilec.copy_` in a new process: cold (empty disk cache), then warm.

    python benchmarks/first_call.py [--runs 3]

Each run is a new Python process sharing one fresh `$TILEC_CACHE_DIR`: it imports torch
and tilec (timed apart), makes two CUDA tensors (a transpose of 512 x 768 f32), and
times `tilec.copy_` up to the end of the copy (`torch.cuda.synchronize`). The first run
compiles and fills the disk cache; the later ones find it there. Goal (issue 20): a
warm first call under 0.2 s beyond the imports. Each line also says whether the call
imported xDSL or CuPy.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import torch
import tilec
torch.cuda.init()
x = torch.randn(512, 768, device="cuda").t()
y = torch.empty(768, 512, device="cuda")
torch.cuda.synchronize()
t1 = time.perf_counter()
tilec.copy_(y, x)
torch.cuda.synchronize()
t2 = time.perf_counter()
ok = bool(torch.equal(y, x))
print(json.dumps({"imports_s": t1 - t0, "first_call_s": t2 - t1, "exact": ok,
                  "xdsl": "xdsl" in sys.modules, "cupy": "cupy" in sys.modules}))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TILEC_CACHE_DIR=cache)
        for i in range(args.runs):
            out = subprocess.run([sys.executable, "-c", CHILD], check=False, env=env, capture_output=True, text=True)
            if out.returncode:
                print(out.stderr[-2000:])
                return 1
            row = json.loads(out.stdout.strip().splitlines()[-1])
            row["run"] = "cold" if i == 0 else "warm"
            rows.append(row)
            print(
                f"{row['run']:5s} imports {row['imports_s']:.3f} s  first copy_ {row['first_call_s']:.3f} s  "
                f"exact {row['exact']}  imported xdsl {row['xdsl']} cupy {row['cupy']}",
                flush=True,
            )
    return 0 if all(r["exact"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
