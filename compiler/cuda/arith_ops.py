"""The `arith` ops: constants, integer and float arithmetic (floor/ceil division and
IEEE maximum/minimum through device helpers), comparisons, selects, casts, bitcasts."""
from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    VectorType,
)
from xdsl.ir import Operation, SSAValue

from tilec.dialects.dtypes import FLOAT_ELEMENTS
from tilec.dialects.math_functions import approximate_division, reciprocal_division

from .c_types import (
    _CMPI,
    _FP8_TYPES,
    F8_HELPER,
    _num_elements,
)
from .gpu_ops import warp_shift
from .printer import EmitterBase, emits


BINARY_OPERATORS: dict[type[Operation], tuple[str, bool]] = {
    arith.AddfOp: ("+", False), arith.AddiOp: ("+", False),
    arith.SubfOp: ("-", False), arith.SubiOp: ("-", False),
    arith.MulfOp: ("*", False), arith.MuliOp: ("*", False),
    arith.RemSIOp: ("%", False), arith.AndIOp: ("&", False), arith.OrIOp: ("|", False),
    arith.XOrIOp: ("^", False), arith.ShLIOp: ("<<", False), arith.ShRSIOp: (">>", False),
    arith.ShRUIOp: (">>", True), arith.DivUIOp: ("/", True), arith.RemUIOp: ("%", True),
}
"""The `arith` ops printed as one C operator: op -> (operator, whether its operands are
read unsigned). (`arith.divf`/`divsi` are "/" too, unless a reciprocal is meant.)"""


class ArithEmitter(EmitterBase):
    # arith

    @emits(arith.ConstantOp)
    def emit_constant(self, op: arith.ConstantOp):
        t = op.result.type
        if isinstance(t, VectorType):
            ctype = self.ctype(t, op)
            value = op.value
            if not isinstance(value, DenseIntOrFPElementsAttr):
                raise self.fail(op, f"unsupported vector constant {value}")
            elements = [
                self.literal(a, t.element_type, op) for a in value.get_attrs()
            ]
            if len(elements) == 1:
                elements *= _num_elements(t)
            name = self.define(op.result, "cst")
            self.line(f"const {ctype} {name} = {{{{{', '.join(elements)}}}}};")
            return
        self.names[op.result] = self.literal(op.value, t, op)

    def binary(self, op: Operation, c_op: str, unsigned: bool = False) -> None:
        lhs, rhs = (self.expr(v) for v in op.operands)
        result = op.results[0]
        if unsigned:
            u = self.unsigned_ctype(result.type, op)
            expr = f"({self.ctype(result.type, op)})(({u}){lhs} {c_op} ({u}){rhs})"
        else:
            expr = f"{lhs} {c_op} {rhs}"
        self.assign(op, result, expr)

    @emits(*BINARY_OPERATORS)
    def emit_binary(self, op: Operation):
        c_op, unsigned = BINARY_OPERATORS[type(op)]
        warp = self.warp_index.get(op.operands[0])
        k = warp_shift(op) if warp is not None else None
        if k is not None:  # threadIdx.x >> k from the uniform warp index (gpu_ops.py, emit_thread_id)
            u = self.unsigned_ctype(op.results[0].type, op)
            expr = f"({self.ctype(op.results[0].type, op)})(({u}){warp} >> {k - 5})" if k > 5 else warp
            self.assign(op, op.results[0], expr)
            return
        self.binary(op, c_op, unsigned)

    @emits(arith.MulUIExtendedOp)
    def emit_mului_extended(self, op: arith.MulUIExtendedOp):
        """The low and high halves of the unsigned product (`__umulhi` /
        `__umul64hi`; the low half only where used)."""
        t = op.lhs.type
        width = t.width.data if isinstance(t, IntegerType) else 64 if self.index_bits == 64 else 32
        if width not in (32, 64):
            raise self.fail(op, f"arith.mului_extended of {t}: 32- or 64-bit integers only")
        u = self.unsigned_ctype(t, op)
        a, b = (f"({u}){self.expr(v)}" for v in op.operands)
        if op.low.uses:
            self.assign(op, op.low, f"({self.ctype(t, op)})({a} * {b})")
        self.assign(op, op.high, f"({self.ctype(t, op)}){'__umulhi' if width == 32 else '__umul64hi'}({a}, {b})")

    @emits(arith.DivfOp, arith.DivSIOp)
    def emit_divf(self, op: Operation):
        if reciprocal_division(op):  # x * (1 / y): dialects/math_functions.reciprocal_division
            lhs, rhs = (self.expr(v) for v in op.operands)
            one = "1.0f" if isinstance(op.results[0].type, Float32Type) else "1.0"
            self.assign(op, op.results[0], f"{lhs} * ({one} / {rhs})")
            return
        if approximate_division(op):  # afn on f32: div.approx.ftz (math_functions.approximate_division)
            self.call(op, "div_approx_ftz", *(self.expr(v) for v in op.operands))
            return
        self.binary(op, "/")

    def call(self, op: Operation, helper: str, *args: str) -> None:
        self.helpers.add(helper)
        self.assign(op, op.results[0], f"tilec_{helper}({', '.join(args)})")

    @emits(arith.FloorDivSIOp)
    def emit_floor_div_s_i(self, op: arith.FloorDivSIOp):
        self.call(op, "floordiv", self.expr(op.lhs), self.expr(op.rhs))

    @emits(arith.CeilDivSIOp)
    def emit_ceil_div_s_i(self, op: arith.CeilDivSIOp):
        self.call(op, "ceildiv", self.expr(op.lhs), self.expr(op.rhs))

    @emits(arith.CeilDivUIOp)
    def emit_ceil_div_u_i(self, op: arith.CeilDivUIOp):
        u = self.unsigned_ctype(op.result.type, op)
        self.helpers.add("ceildivu")
        lhs, rhs = self.expr(op.lhs), self.expr(op.rhs)
        expr = f"({self.ctype(op.result.type, op)})tilec_ceildivu(({u}){lhs}, ({u}){rhs})"
        self.assign(op, op.result, expr)

    def min_max(self, op: Operation, c_op: str, unsigned: bool) -> None:
        lhs, rhs = (self.expr(v) for v in op.operands)
        a, b = lhs, rhs
        if unsigned:
            u = self.unsigned_ctype(op.results[0].type, op)
            a, b = f"({u}){lhs}", f"({u}){rhs}"
        self.assign(op, op.results[0], f"{a} {c_op} {b} ? {lhs} : {rhs}")

    @emits(arith.MinSIOp)
    def emit_min_s_i(self, op: arith.MinSIOp):
        self.min_max(op, "<", False)

    @emits(arith.MaxSIOp)
    def emit_max_s_i(self, op: arith.MaxSIOp):
        self.min_max(op, ">", False)

    @emits(arith.MinUIOp)
    def emit_min_u_i(self, op: arith.MinUIOp):
        self.min_max(op, "<", True)

    @emits(arith.MaxUIOp)
    def emit_max_u_i(self, op: arith.MaxUIOp):
        self.min_max(op, ">", True)

    @emits(arith.CmpiOp)
    def emit_cmpi(self, op: arith.CmpiOp):
        c_op, unsigned = _CMPI[op.predicate.value.data]
        lhs, rhs = self.expr(op.lhs), self.expr(op.rhs)
        if unsigned:
            u = self.unsigned_ctype(op.lhs.type, op)
            lhs, rhs = f"({u}){lhs}", f"({u}){rhs}"
        self.assign(op, op.result, f"{lhs} {c_op} {rhs}", "p")

    @emits(arith.CmpfOp)
    def emit_cmpf(self, op: arith.CmpfOp):
        a, b = self.expr(op.lhs), self.expr(op.rhs)
        self.ctype(op.lhs.type, op)
        predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
        expr = {
            "false": "false",
            "oeq": f"{a} == {b}",
            "ogt": f"{a} > {b}",
            "oge": f"{a} >= {b}",
            "olt": f"{a} < {b}",
            "ole": f"{a} <= {b}",
            "one": f"({a} < {b} || {a} > {b})",
            "ord": f"({a} == {a} && {b} == {b})",
            "ueq": f"!({a} < {b} || {a} > {b})",
            "ugt": f"!({a} <= {b})",
            "uge": f"!({a} < {b})",
            "ult": f"!({a} >= {b})",
            "ule": f"!({a} > {b})",
            "une": f"{a} != {b}",
            "uno": f"({a} != {a} || {b} != {b})",
            "true": "true",
        }[predicate]
        self.assign(op, op.result, expr, "p")

    @emits(arith.SelectOp)
    def emit_select(self, op: arith.SelectOp):
        c, a, b = (self.expr(v) for v in op.operands)
        self.assign(op, op.result, f"{c} ? {a} : {b}")

    @emits(arith.NegfOp)
    def emit_negf(self, op: arith.NegfOp):
        self.assign(op, op.result, f"-{self.expr(op.operand)}")

    def float_helper(self, op: Operation, helper: str) -> None:
        t = op.results[0].type
        ctype = self.ctype(t, op)
        a, b = (self.expr(v) for v in op.operands)
        self.helpers.add(helper)
        if isinstance(t, Float16Type | BFloat16Type):
            expr = (
                f"static_cast<{ctype}>(tilec_{helper}(static_cast<float>({a}), "
                f"static_cast<float>({b})))"
            )
        else:
            expr = f"tilec_{helper}({a}, {b})"
        self.assign(op, op.results[0], expr)

    @emits(arith.MaximumfOp)
    def emit_maximumf(self, op: arith.MaximumfOp):
        self.float_helper(op, "maximumf")

    @emits(arith.MinimumfOp)
    def emit_minimumf(self, op: arith.MinimumfOp):
        self.float_helper(op, "minimumf")

    @emits(arith.MaxnumfOp, arith.MinnumfOp)
    def emit_maxnumf(self, op: Operation):
        """`arith.maxnumf` / `minnumf`: the other operand where one is NaN, as CUDA's
        `fmaxf` / `fminf` (one `FMNMX` on f32); f64 `fmax` / `fmin`, 16-bit floats
        through float."""
        t = op.results[0].type
        name = ("fmax" if isinstance(op, arith.MaxnumfOp) else "fmin") + ("" if isinstance(t, Float64Type) else "f")
        a, b = (self.expr(v) for v in op.operands)
        if isinstance(t, Float16Type | BFloat16Type):
            self.assign(op, op.results[0],
                        f"static_cast<{self.ctype(t, op)}>({name}(static_cast<float>({a}), static_cast<float>({b})))")
        else:
            self.assign(op, op.results[0], f"{name}({a}, {b})")

    def cast(
        self, op: Operation, value: SSAValue, result: SSAValue, unsigned: bool = False
    ) -> None:
        """Conversions between integers, index and floats; `unsigned` reads an
        integer source as unsigned (extui, uitofp) or makes a float an unsigned
        integer (fptoui)."""
        src, dst = value.type, result.type
        ctype = self.ctype(dst, op)
        self.ctype(src, op)
        expr = self.expr(value)
        half = (Float16Type, BFloat16Type, *_FP8_TYPES)  # read through float
        integer = (IntegerType, IndexType)
        if isinstance(dst, _FP8_TYPES):
            # one rounding from the exact value (a double holds every source exactly
            # but 64-bit integers beyond 2^53), PyTorch's overflow: the helper
            if isinstance(src, integer):
                expr = f"({self.unsigned_ctype(src, op)}){expr}" if unsigned else expr
            elif isinstance(src, half):
                expr = f"static_cast<float>({expr})"
            helper = F8_HELPER[FLOAT_ELEMENTS[type(dst)].name]
            self.helpers.add(f"to_{helper}")
            self.assign(op, result, f"tilec_to_{helper}(static_cast<double>({expr}))")
            return
        if isinstance(src, integer):
            if unsigned:
                expr = f"({self.unsigned_ctype(src, op)}){expr}"
            if isinstance(dst, half):
                # __half and __nv_bfloat16 convert from (unsigned) long long.
                expr = f"({'unsigned ' if unsigned else ''}long long){expr}"
        elif isinstance(dst, integer):
            wide = "unsigned long long" if unsigned else "long long"
            if unsigned or isinstance(src, half):
                expr = f"static_cast<{wide}>({expr})"
        elif isinstance(src, half) and not isinstance(dst, Float32Type):
            expr = f"static_cast<float>({expr})"
        self.assign(op, result, f"static_cast<{ctype}>({expr})")

    @emits(arith.TruncFOp, arith.ExtFOp, arith.FPToSIOp, arith.SIToFPOp, arith.TruncIOp, arith.IndexCastOp)
    def emit_trunc_f(self, op: Operation):
        self.cast(op, op.operands[0], op.results[0])

    @emits(arith.FPToUIOp, arith.UIToFPOp)
    def emit_f_p_to_u_i(self, op: Operation):
        self.cast(op, op.operands[0], op.results[0], unsigned=True)

    @emits(arith.ExtSIOp)
    def emit_ext_s_i(self, op: arith.ExtSIOp):
        if isinstance(op.input.type, IntegerType) and op.input.type.width.data == 1:
            ctype = self.ctype(op.result.type, op)
            self.assign(op, op.result, f"{self.expr(op.input)} ? ({ctype})-1 : 0")
        else:
            self.cast(op, op.input, op.result)

    @emits(arith.ExtUIOp)
    def emit_ext_u_i(self, op: arith.ExtUIOp):
        self.cast(op, op.input, op.result, unsigned=True)

    @emits(arith.BitcastOp, vector.BitcastOp)
    def emit_bitcast(self, op: arith.BitcastOp | vector.BitcastOp):
        """The same bits as another type (scalars, or vectors of the same bytes)."""
        source, result = op.operands[0], op.results[0]
        ctype = self.ctype(result.type, op)
        self.ctype(source.type, op)
        self.helpers.add("bitcast")
        self.assign(op, result, f"tilec_bitcast<{ctype}>({self.expr(source)})")

