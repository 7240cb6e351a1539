"""The builder's distributed tensors (Gluon's register tensors): splat, arange, full,
expand_dims, broadcast, reduce, scan, convert_layout, where, elementwise math and
pointer tensors (addptr, ptr_load, ptr_store, multiple_of). A mixin of `Program`
(compiler/kernel_builder.py's `KernelBuilding` derives from it), inserting through
`insert`; a layout is a Python object (`tilec.BlockedLayout(...)`), its text or its
attribute (compiler/builder_types.py's `encoding_attr`).

    L = tilec.BlockedLayout([1, 4], [1, 32], [1, 2], [1, 0])
    x = p.load(tile, L, other=float("-inf"))
    mx = p.reduce(x, 1, "max")                  # slice<dim=1> of L
    y = p.exp(x - p.expand_dims(mx, 1))         # broadcast by the operator

Operators on distributed tensors (compiler/kernel_builder.py's `Value`) splat a Python
number or a scalar Value to the tensor's shape and layout, broadcast extent-1 dimensions
of two tensors of the same layout, and compare with `layout.cmpi` / `layout.cmpf`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    BoolAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, SSAValue

from tilec.dialects import layout
from tilec.dialects import layout_compute as lc
from tilec.dialects import layout_ptr as lp
from tilec.dialects.encoding import DistributedEncoding
from tilec.dialects.layout_attrs import PtrType, SliceLayoutAttr
from tilec.support.diagnostics import TilecError

from .builder_locations import located
from .builder_types import encoding_attr

MATH = {"exp": math.ExpOp, "exp2": math.Exp2Op, "log": math.LogOp, "log2": math.Log2Op, "sqrt": math.SqrtOp,
        "rsqrt": math.RsqrtOp, "abs": math.AbsFOp, "sin": math.SinOp, "cos": math.CosOp, "tanh": math.TanhOp,
        "erf": math.ErfOp, "floor": math.FloorOp, "ceil": math.CeilOp}
"""The unary functions of `math` that `p.math(name, x)` builds."""


def _fastmath(flags: str | Sequence[str] | None) -> Any:
    """`#arith.fastmath<...>` of flag names ("afn", "nnan", ..., "fast", "none"); None: none given."""
    if flags is None:
        return None
    from xdsl.dialects.arith import FastMathFlag, FastMathFlagsAttr

    names = [flags] if isinstance(flags, str) else list(flags)
    if names in (["fast"], ["none"]):
        return FastMathFlagsAttr(names[0])
    known = [f.value for f in FastMathFlag]
    bad = [n for n in names if n not in known]
    if bad:
        raise TilecError(f"fastmath flag {bad[0]!r}: expected 'fast', 'none' or some of {', '.join(known)}")
    return FastMathFlagsAttr([FastMathFlag(n) for n in names])


def is_distributed(t: Attribute) -> bool:
    """Whether `t` is a distributed tensor type (`tensor<...xT, #layout...>`)."""
    return isinstance(t, TensorType) and isinstance(t.encoding, DistributedEncoding)


def _dist_type(x: Any, what: str) -> TensorType:
    t = getattr(x, "type", None)
    if not is_distributed(t):
        raise TilecError(f"{what} takes a distributed tensor (a value of layout.load, arange, splat, ...), "
                         f"not {t if t is not None else type(x).__name__}")
    return t  # type: ignore[return-value]


@located
class TensorBuilding:
    """Distributed-tensor methods of `Program` (the module docstring)."""

    def _ssa_of(self, x: Any, t: Attribute | None = None) -> SSAValue:
        """A Value's SSA value; a Python number as a constant of type `t`."""
        if hasattr(x, "ssa"):
            return x.ssa
        if isinstance(x, SSAValue):
            return x
        if t is None:
            raise TilecError(f"expected a value built in this kernel, got {x!r}")
        return self.constant(x, t).ssa  # type: ignore[attr-defined]

    def splat(self, x: Any, shape: Sequence[int], layout_: Any, dtype: str | None = None) -> Any:
        """`layout.splat`: a distributed tensor of `shape` in `layout_` with every element
        `x` (a scalar Value, a pointer, or a Python number of type `dtype`, default f32).

            ones = p.splat(1.0, [128], L)                 # tensor<128xf32, #L>
            ptrs = p.splat(src, [128], L)                 # a tensor of pointers
        """
        if hasattr(x, "ssa") or isinstance(x, SSAValue):
            v = self._ssa_of(x)
        else:
            v = self.constant(x, dtype or ("i32" if isinstance(x, int) and not isinstance(x, bool) else "f32")).ssa  # type: ignore[attr-defined]
        et = PtrType(v.type.element_type) if isinstance(v.type, PtrType) else v.type
        return self.insert(layout.SplatOp.build(operands=[v], result_types=[  # type: ignore[attr-defined]
            TensorType(et, list(shape), encoding_attr(layout_))])).results[0]

    def full(self, shape: Sequence[int], value: float, dtype: str, layout_: Any, dense: bool = False) -> Any:
        """Gluon's `gl.full(shape, value, dtype, layout)`: a constant tensor (`layout.splat`
        of the scalar; `dense`: one `arith.constant dense<value>`, as MLIR writes an
        accumulator's zeros).

            acc = p.full([64, 64], 0.0, "f32", L)
            zero = p.full([128, 256], 0.0, "f32", mma, dense=True)
        """
        if not dense:
            return self.splat(value, shape, layout_, dtype)
        from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

        from .builder_types import element_type

        t = TensorType(element_type(dtype), list(shape), encoding_attr(layout_))
        return self.insert(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [value]))).results[0]  # type: ignore[attr-defined]

    def arange(self, start: int, end: int, layout_: Any) -> Any:
        """Gluon's `gl.arange(start, end, layout)` (`layout.arange`): the i32 values
        `start .. end-1` as a 1-D distributed tensor (`end - start` a power of two).

            offs = p.arange(0, 128, tilec.BlockedLayout([1], [32], [4], [0]))
        """
        t = TensorType(i32, [end - start], encoding_attr(layout_))
        return self.insert(layout.ArangeOp.build(  # type: ignore[attr-defined]
            properties={"start": IntegerAttr(start, 64), "end": IntegerAttr(end, 64)}, result_types=[t])).results[0]

    def expand_dims(self, x: Any, axis: int) -> Any:
        """Gluon's `gl.expand_dims(x, axis)` (`layout.expand_dims`): a dimension of extent
        1 inserted at `axis`; `x`'s layout must be a slice along `axis` (as a reduction
        along `axis` leaves it), and the result has the slice's parent layout.

            row_max = p.expand_dims(p.reduce(x, 1, "max"), 1)   # [M] -> [M, 1]
        """
        t = _dist_type(x, "expand_dims")
        enc = t.encoding
        if not isinstance(enc, SliceLayoutAttr) or enc.dim.data != axis:
            raise TilecError(f"expand_dims along {axis} takes a tensor whose layout is a slice along {axis} "
                             f"(#layout.slice<{{dim = {axis}, ...}}>), got {enc}")
        shape = list(t.get_shape())
        rt = TensorType(t.element_type, shape[:axis] + [1] + shape[axis:], enc.parent)
        return self.insert(layout.ExpandDimsOp.build(  # type: ignore[attr-defined]
            operands=[x.ssa], properties={"axis": IntegerAttr(axis, 64)}, result_types=[rt])).results[0]

    def broadcast(self, x: Any, shape: Sequence[int]) -> Any:
        """`layout.broadcast`: extent-1 dimensions of `x` repeated to `shape` (same layout;
        the operators broadcast by themselves).

            full_rows = p.broadcast(row_max, [4, 1024])
        """
        t = _dist_type(x, "broadcast")
        if list(t.get_shape()) == list(shape):
            return x
        rt = TensorType(t.element_type, list(shape), t.encoding)
        return self.insert(layout.BroadcastOp.build(operands=[x.ssa], result_types=[rt])).results[0]  # type: ignore[attr-defined]

    def reduce(self, x: Any, axis: int, kind: Any = "add") -> Any:
        """Gluon's `gl.reduce` / `gl.sum` / `gl.max`: `x` reduced along `axis` with `kind`
        ("add", "mul", "max", "min": `layout.reduce`), or with a combiner function
        (`layout.reduce_region`, Gluon's `reduce(x, axis, combine_fn)`): `x` is then a
        tensor or a tuple of tensors of one shape and layout, and `kind(accs, news)`
        takes two lists of scalar Values (one element of each tensor) and returns the
        combined list; it must be associative and commutative. The results' layout is
        the slice of `x`'s along `axis`.

            s = p.reduce(x, 1, "add")                  # [4, 1024] -> [4]
            m, i = p.reduce((x, idx), 1, argmax)       # def argmax(a, b): ... return [v, j]
        """
        if callable(kind):
            return self._region(lc.ReduceRegionOp, x, axis, kind, reduce=True)
        t = _dist_type(x, "reduce")
        shape = list(t.get_shape())
        if not 0 <= axis < len(shape):
            raise TilecError(f"reduce along axis {axis} of a rank-{len(shape)} tensor")
        if kind not in layout.REDUCE_KINDS:
            raise TilecError(f"reduce kind {kind!r}: expected one of {', '.join(layout.REDUCE_KINDS)} or a function")
        rt = TensorType(t.element_type, shape[:axis] + shape[axis + 1:], SliceLayoutAttr(IntAttr(axis), t.encoding))
        return self.insert(layout.ReduceOp.build(  # type: ignore[attr-defined]
            operands=[x.ssa], properties={"axis": IntegerAttr(axis, 64), "kind": StringAttr(kind)},
            result_types=[rt])).results[0]

    def scan(self, x: Any, axis: int, kind: Any = "add", reverse: bool = False) -> Any:
        """Triton's `cumsum` / `associative_scan`: the inclusive scan of `x` along `axis`
        with `kind` ("add", "mul", "max", "min": `layout.scan`) or with a combiner
        function as `reduce` takes (`layout.scan_region`; associative, earlier elements
        on the left); the results have the operands' types.

            c = p.scan(x, 1, "add")                    # running sums along each row
            m, i = p.scan((x, idx), 1, running_argmax)
        """
        if callable(kind):
            return self._region(lc.ScanRegionOp, x, axis, kind, reduce=False, reverse=reverse)
        t = _dist_type(x, "scan")
        props: dict[str, Attribute] = {"axis": IntegerAttr(axis, 64), "kind": StringAttr(kind)}
        if reverse:
            props["reverse"] = BoolAttr(True, IntegerType(1))
        return self.insert(lc.ScanOp.build(operands=[x.ssa], properties=props, result_types=[t])).results[0]  # type: ignore[attr-defined]

    def _region(self, cls, x: Any, axis: int, combine: Any, *, reduce: bool, reverse: bool = False) -> Any:
        """A `reduce_region` / `scan_region` whose combiner `combine` builds."""
        from xdsl.ir import Block, Region

        xs = list(x) if isinstance(x, tuple | list) else [x]
        ts = [_dist_type(v, "reduce" if reduce else "scan") for v in xs]
        elems = [t.element_type for t in ts]
        if reduce:
            rts = [TensorType(t.element_type, [n for i, n in enumerate(t.get_shape()) if i != axis],
                              SliceLayoutAttr(IntAttr(axis), t.encoding)) for t in ts]
        else:
            rts = list(ts)
        block = Block(arg_types=elems + elems)
        props: dict[str, Attribute] = {"axis": IntegerAttr(axis, 64)}
        if reverse:
            props["reverse"] = BoolAttr(True, IntegerType(1))
        op = cls.build(operands=[[v.ssa for v in xs]], properties=props, result_types=[rts], regions=[Region(block)])
        self._put(op)  # type: ignore[attr-defined]
        args = [self._value(a) for a in block.args]  # type: ignore[attr-defined]
        with self._at(block):  # type: ignore[attr-defined]
            out = combine(args[:len(xs)], args[len(xs):])
            out = list(out) if isinstance(out, tuple | list) else [out]
            if len(out) != len(xs):
                raise TilecError(f"the combiner returned {len(out)} values for {len(xs)} operands")
            self._put(lc.YieldOp.build(operands=[[self._ssa_of(v, e) for v, e in zip(out, elems)]]))  # type: ignore[attr-defined]
        results = [self._value(r) for r in op.results]  # type: ignore[attr-defined]
        return results[0] if not isinstance(x, tuple | list) else tuple(results)

    def convert_layout(self, x: Any, layout_: Any, assert_trivial: bool = False) -> Any:
        """Gluon's `gl.convert_layout(x, layout, assert_trivial)`
        (`layout.convert_layout`): the same tensor in another distributed layout.

            y = p.convert_layout(x, tilec.BlockedLayout([4, 1], [8, 4], [1, 2], [0, 1]))
        """
        t = _dist_type(x, "convert_layout")
        op = layout.ConvertLayoutOp(x.ssa, TensorType(t.element_type, t.get_shape(), encoding_attr(layout_)))
        if assert_trivial:
            op.properties["assert_trivial"] = IntegerAttr(1, 1)
        return self.insert(op).results[0]  # type: ignore[attr-defined]

    def where(self, cond: Any, a: Any, b: Any) -> Any:
        """Gluon's `gl.where(cond, a, b)`: `a` where `cond` holds, else `b`, elementwise
        (`layout.select`; `arith.select` on scalars); a number beside a tensor is splat.

            y = p.where(offs < n, x, 0.0)
        """
        if is_distributed(cond.type):
            t = a.type if hasattr(a, "type") and is_distributed(a.type) else b.type
            if not is_distributed(t):
                raise TilecError("where on a tensor condition takes at least one tensor value")
            av, bv = (self._splat_like(v, t) for v in (a, b))
            return self.insert(lc.SelectOp(cond.ssa, av, bv)).results[0]  # type: ignore[attr-defined]
        t = a.type if hasattr(a, "type") else b.type if hasattr(b, "type") else None
        av, bv = self._ssa_of(a, t), self._ssa_of(b, t)
        return self.insert(arith.SelectOp(cond.ssa, av, bv)).results[0]  # type: ignore[attr-defined]

    def _splat_like(self, v: Any, t: TensorType) -> SSAValue:
        """`v` as an operand of type `t`: a tensor as it is, a number or scalar splat."""
        if hasattr(v, "type") and is_distributed(v.type):
            return v.ssa
        if hasattr(v, "ssa") and v.type != t.element_type:
            v = v.cast(str(t.element_type))
        return self.splat(v, t.get_shape(), t.encoding, str(t.element_type)).ssa

    def math(self, name: str, x: Any, fastmath: str | Sequence[str] | None = None) -> Any:
        """An elementwise function of `math` on a float scalar or tensor: "exp", "exp2",
        "log", "log2", "sqrt", "rsqrt", "abs", "sin", "cos", "tanh", "erf", "floor",
        "ceil". `fastmath` gives MLIR's fast-math flags ("afn": an approximate
        function, as Triton's `exp2` is `ex2.approx`; "fast": all of them).

            e = p.math("exp", x - m)
            e2 = p.math("exp2", d, fastmath="afn")
        """
        if name not in MATH:
            raise TilecError(f"math function {name!r}: expected one of {', '.join(MATH)}")
        return self.insert(MATH[name](x.ssa, _fastmath(fastmath))).results[0]  # type: ignore[attr-defined]

    def fma(self, a: Any, b: Any, c: Any, fastmath: str | Sequence[str] | None = None) -> Any:
        """`math.fma`: `a * b + c` elementwise with one rounding, on float scalars or
        tensors of one type (a number beside a tensor is splat); `fastmath` as `math`.

            y = p.fma(xn, w, b)                        # layer norm's scale and shift
        """
        t = next((v.type for v in (a, b, c) if hasattr(v, "type")), None)
        if t is None:
            raise TilecError("fma takes at least one value built in this kernel")
        ops = [self._splat_like(v, t) if is_distributed(t) else self._ssa_of(v, t) for v in (a, b, c)]
        op = math.FmaOp(*ops)
        if (flags := _fastmath(fastmath)) is not None:  # a property (xDSL's constructor makes it an attribute)
            op.properties["fastmath"] = flags
        return self.insert(op).results[0]  # type: ignore[attr-defined]

    def div(self, a: Any, b: Any, fastmath: str | Sequence[str] | None = None) -> Any:
        """`arith.divf`: `a / b` elementwise on float scalars or tensors of one type (a
        number beside a tensor is splat), as `a / b` on Values, with MLIR's fast-math
        flags: "arcp" computes `a * (1 / b)` (each step rounded, on every backend), "afn"
        alone the hardware's approximate quotient on f32 (PTX `div.approx.ftz.f32`: one
        special-function op, 2 ulp; dialects/math_functions.approximate_division).

            s = p.div(y, e + 1.0, fastmath="afn")   # SiLU's y / (1 + e^-y)
        """
        t = next((v.type for v in (a, b) if hasattr(v, "type")), None)
        if t is None:
            raise TilecError("div takes at least one value built in this kernel")
        lhs, rhs = (self._splat_like(v, t) if is_distributed(t) else self._ssa_of(v, t) for v in (a, b))
        op = arith.DivfOp(lhs, rhs)
        if (flags := _fastmath(fastmath)) is not None:
            op.properties["fastmath"] = flags
        return self.insert(op).results[0]  # type: ignore[attr-defined]

    def maximum(self, a: Any, b: Any, propagate_nan: bool = True) -> Any:
        """Elementwise maximum (`arith.maximumf`: NaN if either is; with
        `propagate_nan=False` `arith.maxnumf`: the other operand where one is NaN, as
        Triton's `tl.maximum` by default; `maxsi` on integers).

            m = p.maximum(x, 0.0)                      # ReLU
        """
        return self._minmax(a, b, arith.MaximumfOp if propagate_nan else arith.MaxnumfOp, arith.MaxSIOp)

    def minimum(self, a: Any, b: Any, propagate_nan: bool = True) -> Any:
        """Elementwise minimum (`arith.minimumf`; with `propagate_nan=False`
        `arith.minnumf`; `minsi` on integers).

            m = p.minimum(x, 1.0)
        """
        return self._minmax(a, b, arith.MinimumfOp if propagate_nan else arith.MinnumfOp, arith.MinSIOp)

    def _minmax(self, a: Any, b: Any, fop, iop) -> Any:
        t = a.type
        bv = self._splat_like(b, t) if is_distributed(t) else self._ssa_of(b, t)
        e = t.element_type if isinstance(t, TensorType) else t
        op = iop if isinstance(e, IntegerType | IndexType) else fop
        return self.insert(op(a.ssa, bv)).results[0]  # type: ignore[attr-defined]

    def permute(self, x: Any, order: Sequence[int], layout_: Any) -> Any:
        """Gluon's `gl.permute(x, order)` (`layout.permute`; `trans` is order [1, 0]):
        dim d of the result is dim `order[d]` of `x`, in `layout_` (x's layout with its
        dimensions permuted alike: no data moves).

            t = p.permute(x, [1, 0], tilec.BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1]))
        """
        t = _dist_type(x, "permute")
        shape = [t.get_shape()[i] for i in order]
        from xdsl.dialects.builtin import DenseArrayBase, i64

        return self.insert(lc.PermuteOp.build(  # type: ignore[attr-defined]
            operands=[x.ssa], properties={"order": DenseArrayBase.from_list(i64, list(order))},
            result_types=[TensorType(t.element_type, shape, encoding_attr(layout_))])).results[0]

    def reshape(self, x: Any, shape: Sequence[int], layout_: Any) -> Any:
        """Gluon's `gl.reshape(x, shape)` (`layout.reshape`): the elements in row-major
        order with another shape, in `layout_` (each thread keeps its elements).

            flat = p.reshape(x, [512], tilec.BlockedLayout([4], [32], [4], [0]))
        """
        t = _dist_type(x, "reshape")
        return self.insert(lc.ReshapeOp.build(  # type: ignore[attr-defined]
            operands=[x.ssa], result_types=[TensorType(t.element_type, list(shape), encoding_attr(layout_))])).results[0]

    def join(self, a: Any, b: Any, layout_: Any) -> Any:
        """Gluon's `gl.join(a, b)` (`layout.join`): a new minor dimension of 2, `a` then
        `b`, in `layout_` (that dimension in register bit 0).

            j = p.join(x, y, tilec.BlockedLayout([1, 2], [32, 1], [4, 1], [1, 0]))
        """
        t = _dist_type(a, "join")
        rt = TensorType(t.element_type, [*t.get_shape(), 2], encoding_attr(layout_))
        return self.insert(lc.JoinOp.build(operands=[a.ssa, b.ssa], result_types=[rt])).results[0]  # type: ignore[attr-defined]

    def split(self, x: Any, layout_: Any) -> tuple[Any, Any]:
        """Gluon's `gl.split(x)` (`layout.split`): the two halves of a minor dimension of
        2, each in `layout_`.

            a, b = p.split(j, tilec.BlockedLayout([1], [32], [4], [0]))
        """
        t = _dist_type(x, "split")
        half = TensorType(t.element_type, list(t.get_shape())[:-1], encoding_attr(layout_))
        r = self.insert(lc.SplitOp(x.ssa, half)).results  # type: ignore[attr-defined]
        return r[0], r[1]

    def gather(self, src: Any, index: Any, axis: int) -> Any:
        """Gluon's `gl.gather(src, index, axis)` (`layout.gather`): src's elements picked
        along `axis` by `index`; the result has the index's shape and layout.

            g = p.gather(x, idx, 1)
        """
        t, it = _dist_type(src, "gather"), _dist_type(index, "gather")
        return self.insert(lc.GatherOp.build(  # type: ignore[attr-defined]
            operands=[src.ssa, index.ssa], properties={"axis": IntegerAttr(axis, 64)},
            result_types=[TensorType(t.element_type, it.get_shape(), it.encoding)])).results[0]

    def funnel_shift(self, lo: Any, hi: Any, shift: Any, result: tuple[Sequence[int], str, Any] | None = None) -> Any:
        """`layout.funnel_shift`: each row (last dimension) of the result is the window
        `lo ++ hi` of that row shifted left by `shift` elements (an i32 tensor in the
        slice of the rows' layout along the last dimension, one shift per row;
        dialects/layout_funnel.py). `result` = (shape, dtype, layout) where the result
        is not of the operands' type (words in, bytes out).

            w = p.funnel_shift(lo, hi, sh)
        """
        from tilec.dialects.layout_funnel import FunnelShiftOp

        from .builder_types import element_type

        rt = None if result is None else TensorType(element_type(result[1]), list(result[0]), encoding_attr(result[2]))
        return self.insert(FunnelShiftOp(lo.ssa, hi.ssa, shift.ssa, rt)).results[0]  # type: ignore[attr-defined]

    # ------------------------------------------------------------ pointer tensors
    def addptr(self, ptr: Any, offsets: Any) -> Any:
        """Triton's `ptr + offsets` (`layout.addptr`): a pointer or pointer tensor moved by
        integer offsets in elements; a scalar pointer beside a tensor of offsets is splat
        first (what `ptr + offs` does with the operator).

            ptrs = p.addptr(src, offs)                 # tensor<128x!layout.ptr<f32>, #L>
        """
        pv, ov = ptr.ssa, offsets.ssa
        if isinstance(pv.type, PtrType) and is_distributed(ov.type):
            ot = ov.type
            pv = self.splat(ptr, ot.get_shape(), ot.encoding).ssa
        return self.insert(lp.AddPtrOp(pv, ov)).results[0]  # type: ignore[attr-defined]

    def ptr_load(self, ptrs: Any, mask: Any = None, other: Any = None) -> Any:
        """Gluon's `gl.load(ptrs, mask, other)` (`layout.ptr_load`): the element each
        pointer points to, `other` (default 0) where `mask` is false.

            x = p.ptr_load(ptrs, mask=offs < n, other=0.0)
        """
        t = _dist_type(ptrs, "ptr_load")
        e = t.element_type.element_type
        o = None if other is None else self._ssa_of(other, e)
        op = lp.PtrLoadOp.build(operands=[ptrs.ssa, [o] if o is not None else [], [mask.ssa] if mask is not None else []],
                                result_types=[TensorType(e, t.get_shape(), t.encoding)])
        return self.insert(op).results[0]  # type: ignore[attr-defined]

    def ptr_store(self, ptrs: Any, value: Any, mask: Any = None) -> None:
        """Gluon's `gl.store(ptrs, value, mask)` (`layout.ptr_store`): each element of
        `value` (a tensor, or a number splat) to its pointer, where `mask` holds.

            p.ptr_store(out_ptrs, x, mask=offs < n)
        """
        t = _dist_type(ptrs, "ptr_store")
        e = t.element_type.element_type
        v = self._splat_like(value, TensorType(e, t.get_shape(), t.encoding))
        self.insert(lp.PtrStoreOp(v, ptrs.ssa, mask.ssa if mask is not None else None))  # type: ignore[attr-defined]

    def multiple_of(self, x: Any, divisor: int) -> Any:
        """Triton's `tl.multiple_of(x, d)` (`layout.multiple_of`): the integer `x`,
        promised to be a multiple of `divisor` (a power of two).

            n16 = p.multiple_of(n, 16)
        """
        return self.insert(lp.MultipleOfOp(x.ssa, divisor)).results[0]  # type: ignore[attr-defined]
