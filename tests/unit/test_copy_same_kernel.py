"""Guard (1) of issue 35: for every canonical copy (tests/helpers/canonical_copies.py),
the kernel `tilec.copy_` compiles for a pair of views is the kernel the default pipeline
compiles for a `tilec.Program` of the same views: the same strategy, the same tile and
the same threads per block, read from the IR after the `tile` pass."""

import pytest
from helpers.canonical_copies import CANONICAL, copy_choice, program_choice

from tilec.copy_plan import plan_copy

DIVERGES: dict[str, str] = {
    "columns 1:-1 float32": "copy_ routes it to the realign kernel, which no pass chooses",
}
"""Canonical copies whose two kernels still differ, and why (each an expected failure)."""


def _params():
    for case in CANONICAL:
        marks = [pytest.mark.xfail(reason=DIVERGES[case.name], strict=True)] if case.name in DIVERGES else []
        yield pytest.param(case, id=case.name.replace(" ", "_"), marks=marks)


@pytest.mark.parametrize("case", list(_params()))
def test_copy_compiles_the_kernel_of_the_program_of_the_same_views(case):
    plan = plan_copy(*case.operands())
    assert copy_choice(plan) == program_choice(plan)


def test_every_element_size_has_square_and_odd_transposes():
    sizes = {1, 2, 4, 8}
    for kind in ("8192x8192", "8191x8209"):
        got = {int(c.src_dtype[-2:]) // 8 if c.src_dtype[-2:].isdigit() else 1
               for c in CANONICAL if c.name.startswith("transpose ") and kind in c.name}
        assert got == sizes, kind
