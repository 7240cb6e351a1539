"""Checks that xDSL's verifiers of upstream ops leave out, where tilec would fail on
the unchecked value (each found by the fuzzer).

`check_upstream_ops(root)` raises a located TilecError at the first op breaking one:

- `arith.cmpi` / `arith.cmpf`: the `predicate` property indexes xDSL's list of
  predicates (printing, lowering and the CPU reference executor read it), so it must
  be in range; xDSL 0.74 accepts any integer in the generic form.
- `func.func` / `gpu.func`: the index-width promise `tilec.index_bits`
  (support/index_width.py) is 32 or 64.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, gpu
from xdsl.ir import Operation

from tilec.support.diagnostics import TilecError
from tilec.support.index_width import promised_index_bits

_PREDICATES: dict[type[Operation], list[str]] = {
    arith.CmpiOp: list(arith.CMPI_COMPARISON_OPERATIONS),
    arith.CmpfOp: list(arith.CMPF_COMPARISON_OPERATIONS),
}


def check_upstream_ops(root: Operation) -> None:
    for op in root.walk():
        if isinstance(op, func.FuncOp | gpu.FuncOp):
            promised_index_bits(op)
        names = _PREDICATES.get(type(op))
        if names is not None:
            p = op.predicate.value.data  # type: ignore[attr-defined]
            if not 0 <= p < len(names):
                raise TilecError(f"predicate {p} is out of range: [0, {len(names)}) ({', '.join(names)})", op=op)
