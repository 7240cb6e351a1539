"""The CUDA tilec emits, byte for byte, for every example, every lit input that
reaches `-t cuda` and every benchmark case, against the fingerprints recorded in
tests/data/cuda_fingerprints.json (tools/cuda_fingerprints.py); and every one of those
translation units compiles with NVRTC for sm_90.

A refactoring must leave every fingerprint as it was; a change meant to change the
emitted CUDA re-records them (`python -m tilec.tools.cuda_fingerprints --update`) in
its own commit, with its own measurement."""

import hashlib
import json

import pytest
from helpers.nvrtc import compile_sm90_or_skip

from tilec.tools import cuda_fingerprints


@pytest.fixture(scope="module")
def programs():
    return cuda_fingerprints.cuda_programs()


def test_emitted_cuda_is_byte_identical_to_the_record(programs):
    recorded = json.loads(cuda_fingerprints.RECORD.read_text())
    now = {k: hashlib.sha256(v.encode()).hexdigest() for k, v in programs.items()}
    assert len(recorded) >= 60  # the examples, the lit inputs and the benchmark cases
    assert sorted(now) == sorted(recorded), "the set of fingerprinted programs changed"
    changed = [k for k in recorded if now[k] != recorded[k]]
    assert not changed, f"emitted CUDA changed for: {changed}"


def test_every_lit_cuda_output_compiles_with_nvrtc(programs):
    lit = {k: v for k, v in programs.items() if k.startswith("lit:")}
    assert len(lit) >= 20
    for name, cuda in lit.items():
        # a `--split-input-file` run prints each part's translation unit after a `// -----`
        # line: each compiles on its own (two parts may define the same device helper)
        for part in cuda.split("\n// -----\n"):
            result = compile_sm90_or_skip(part)
            assert result.cubin, name
