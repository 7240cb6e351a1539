"""The CUDA tilec emits, byte for byte, for every example, every lit input that
reaches `-t cuda` and every benchmark case, against the fingerprints recorded in
tests/data/cuda_fingerprints.json (tools/cuda_fingerprints.py).

A refactoring must leave every fingerprint as it was; a change meant to change the
emitted CUDA re-records them (`python -m tilec.tools.cuda_fingerprints --update`) in
its own commit, with its own measurement."""

import json

from tilec.tools import cuda_fingerprints


def test_emitted_cuda_is_byte_identical_to_the_record():
    recorded = json.loads(cuda_fingerprints.RECORD.read_text())
    now = cuda_fingerprints.fingerprints()
    assert len(recorded) >= 60  # the examples, the lit inputs and the benchmark cases
    assert sorted(now) == sorted(recorded), "the set of fingerprinted programs changed"
    changed = [k for k in recorded if now[k] != recorded[k]]
    assert not changed, f"emitted CUDA changed for: {changed}"
