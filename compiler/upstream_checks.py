"""Checks that xDSL's verifiers of upstream ops leave out, where tilec would fail on
the unchecked value (each found by the fuzzer).

`check_upstream_ops(root)` raises a located TilecError at the first op breaking one:

- `arith.cmpi` / `arith.cmpf`: the `predicate` property indexes xDSL's list of
  predicates (printing, lowering and the CPU reference executor read it), so it must
  be in range; xDSL 0.74 accepts any integer in the generic form.
- `arith.cmpi` / `arith.cmpf` / `arith.select` on tensors: xDSL's short form types the
  result of a comparison of tensors as one `i1`; a distributed tensor takes
  `layout.cmpi` / `layout.cmpf` / `layout.select` (compiler/messages.py says so).
- every result that is a distributed tensor (a builtin `tensor` whose encoding is a
  distributed layout): its extents are powers of two, as in Gluon (the layouts' linear
  forms need it; without this check the first pass or run to ask for one refused it).
- `func.func` / `gpu.func`: the index-width promise `tilec.index_bits`
  (support/index_width.py) is 32 or 64.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, gpu
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from tilec.dialects.encoding import DistributedEncoding
from tilec.dialects.linear import _is_pow2, next_pow2
from tilec.support.diagnostics import TilecError
from tilec.support.index_width import promised_index_bits

from .messages import tensor_hint

_PREDICATES: dict[type[Operation], list[str]] = {
    arith.CmpiOp: list(arith.CMPI_COMPARISON_OPERATIONS),
    arith.CmpfOp: list(arith.CMPF_COMPARISON_OPERATIONS),
}


def _check_distributed_shape(op: Operation) -> None:
    for r in op.results:
        t = r.type
        if isinstance(t, TensorType) and isinstance(t.encoding, DistributedEncoding):
            for n in t.get_shape():
                if n > 0 and not _is_pow2(n):
                    raise TilecError(
                        f"the distributed tensor {t} has an extent that is not a power of two ({n}): "
                        "distributed tensors have power-of-two extents, as in Gluon; take a masked tile "
                        f"of the next power of two, e.g. {next_pow2(n)} for {n}, and mask the rest", op=op)


def check_upstream_ops(root: Operation) -> None:
    for op in root.walk():
        _check_distributed_shape(op)
        if isinstance(op, func.FuncOp | gpu.FuncOp):
            promised_index_bits(op)
        if isinstance(op, arith.CmpiOp | arith.CmpfOp | arith.SelectOp) and any(
                isinstance(v.type, TensorType) for v in op.operands):
            raise TilecError(f"'{op.name}' {tensor_hint(op.name)}", op=op)
        names = _PREDICATES.get(type(op))
        if names is not None:
            p = op.predicate.value.data  # type: ignore[attr-defined]
            if not 0 <= p < len(names):
                raise TilecError(f"predicate {p} is out of range: [0, {len(names)}) ({', '.join(names)})", op=op)
