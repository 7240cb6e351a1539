"""Index arithmetic for `lower-to-gpu`: a builder that appends `arith` ops to a block,
folds constants, reuses identical computations (no redundant index math), and the
`DynamicIndex` wrapper that lets the shared layout arithmetic of `dialects/views.py`
(written with Python operators) run on SSA values.

Values are `IndexValue = int | DynamicIndex`: Python ints (and bools, for conditions)
are compile-time constants and fold; a `DynamicIndex` is an index known only at run
time: an SSA value of type `index` (or `i1` for conditions)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from math import gcd

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, i1
from xdsl.ir import Attribute, Block, Operation, SSAValue

from tilec.dialects import views
from tilec.support.locations import copy_loc_from

index = IndexType()


class IndexBuilder:
    """Appends ops at the end of `block`; constants go to the start of `entry`."""

    def __init__(self, entry: Block, loc: str | None = None):
        self.entry = entry
        self.block = entry
        self.before: Operation | None = None
        self.consts: dict[tuple[int, Attribute], SSAValue] = {}
        self.memo: dict[tuple, SSAValue] = {}
        self.divisor: dict[SSAValue, int] = {}
        self.ranks: dict[SSAValue, int] = {}
        self.loc_attr = None
        self.src_location: Attribute | None = None
        """The source op's location (an xDSL `FileLineColLoc`), given to the ops added
        that have none: errors about them (the reference executor's) point at the op
        the user wrote. Unlike `loc_attr` (a `tilec.loc` attribute, which the CUDA
        printer prints as a comment) it leaves the CUDA as it was."""
        self.cache_hint: str | None = None
        """The L2 eviction priority (`layout.load`'s `cache`) that the global loads and
        stores added now carry, as their `cache` attribute (the CUDA printer's hint)."""
        self.arith = views.IndexArith(self.add_, self.mul_, self.div_, self.rem_, self.sub_, self.min_, self.max_)
        """The view arithmetic's operations as IR (dialects/views.py)."""

    # ------------------------------------------------------------------ insertion
    def add(self, op: Operation) -> Operation:
        if self.loc_attr is not None and "tilec.loc" not in op.attributes:
            op.attributes["tilec.loc"] = self.loc_attr
        if self.src_location is not None:
            copy_loc_from(self.src_location, op)
        if self.before is not None:
            self.block.insert_op_before(op, self.before)
        else:
            self.block.add_op(op)
        return op

    @contextmanager
    def at(self, block: Block) -> Iterator[None]:
        """Emit into a nested block; values computed there are forgotten afterwards."""
        saved = (self.block, self.before, dict(self.memo))
        self.block, self.before = block, None
        try:
            yield
        finally:
            self.block, self.before, self.memo = saved

    @contextmanager
    def hinting(self, hint: str | None) -> Iterator[None]:
        """Give the global accesses added meanwhile the L2 eviction priority `hint` (`cache_hint`)."""
        saved, self.cache_hint = self.cache_hint, hint
        try:
            yield
        finally:
            self.cache_hint = saved

    @contextmanager
    def at_top(self, after: Operation) -> Iterator[None]:
        """Emit into the entry block right after `after` (and after what was emitted
        there before), whatever nested block is being built: for values that every
        region of the kernel uses. Values computed elsewhere are not reused there."""
        saved = (self.block, self.before, self.memo)
        self.block, self.before, self.memo = self.entry, after.next_op, {}
        try:
            yield
        finally:
            self.block, self.before, self.memo = saved

    def const(self, v: int, t: Attribute = index) -> SSAValue:
        key = (int(v), t)
        if key not in self.consts:
            op = arith.ConstantOp(IntegerAttr(int(v), t))
            if self.entry.first_op is not None:
                self.entry.insert_op_before(op, self.entry.first_op)
            else:
                self.entry.add_op(op)
            self.consts[key] = op.result
            self.divisor[op.result] = abs(int(v)) or 1 << 30
        return self.consts[key]

    def ssa(self, x: IndexValue) -> SSAValue:
        if isinstance(x, DynamicIndex):
            return x.value
        if isinstance(x, bool):
            return self.const(int(x), i1)
        if isinstance(x, int):
            return self.const(x)
        return x  # type: ignore[return-value]

    def _bin(self, cls, a: IndexValue, b: IndexValue, commutative: bool = False) -> DynamicIndex:
        sa, sb = self.ssa(a), self.ssa(b)
        if commutative and self._rank(sa) > self._rank(sb):
            sa, sb = sb, sa
        key = (cls, sa, sb)
        if key in self.memo:
            return DynamicIndex(self, self.memo[key])
        op = self.add(_binary(cls, sa, sb))
        self.memo[key] = op.results[0]
        return DynamicIndex(self, op.results[0])

    def _rank(self, v: SSAValue) -> int:
        """A number per SSA value, in the order values are first seen here: operands of
        commutative ops are ordered by it, so that `a + b` and `b + a` share one op and
        the output is the same from run to run (object ids are not)."""
        return self.ranks.setdefault(v, len(self.ranks))

    def div_of(self, x: IndexValue) -> int:
        """A known divisor of x (1 when nothing is known)."""
        if isinstance(x, DynamicIndex):
            return self.divisor.get(x.value, 1)
        if isinstance(x, int):
            return abs(x) or 1 << 30
        return 1

    # ------------------------------------------------------------------ arithmetic
    def add_(self, a: IndexValue, b: IndexValue) -> IndexValue:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(a, int) and a == 0:
            return b
        if isinstance(b, int) and b == 0:
            return a
        r = self._bin(arith.AddiOp, a, b, True)
        self.divisor.setdefault(r.value, gcd(self.div_of(a), self.div_of(b)))
        return r

    def sub_(self, a: IndexValue, b: IndexValue) -> IndexValue:
        if isinstance(a, int) and isinstance(b, int):
            return a - b
        if isinstance(b, int) and b == 0:
            return a
        return self._bin(arith.SubiOp, a, b)

    def mul_(self, a: IndexValue, b: IndexValue) -> IndexValue:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if isinstance(a, int):
            a, b = b, a
        if isinstance(b, int):
            if b == 0:
                return 0
            if b == 1:
                return a
        r = self._bin(arith.MuliOp, a, b, True)
        self.divisor.setdefault(r.value, min(self.div_of(a) * self.div_of(b), 1 << 30))
        return r

    def div_(self, a: IndexValue, b: IndexValue) -> IndexValue:
        if isinstance(a, int) and isinstance(b, int):
            return a // b
        if isinstance(b, int) and b == 1:
            return a
        if isinstance(b, int) and b > 0 and b & (b - 1) == 0:
            return self.shr_(a, b.bit_length() - 1)
        return self._bin(arith.DivUIOp, a, b)

    def rem_(self, a: IndexValue, b: IndexValue) -> IndexValue:
        if isinstance(a, int) and isinstance(b, int):
            return a % b
        if isinstance(b, int) and b == 1:
            return 0
        if isinstance(b, int) and b > 0 and b & (b - 1) == 0:
            return self.and_(a, b - 1)
        return self._bin(arith.RemUIOp, a, b)

    def min_(self, a: IndexValue, b: IndexValue) -> IndexValue:
        if isinstance(a, int) and isinstance(b, int):
            return min(a, b)
        return self._bin(arith.MinSIOp, a, b)

    def max_(self, a: IndexValue, b: IndexValue) -> IndexValue:
        if isinstance(a, int) and isinstance(b, int):
            return max(a, b)
        return self._bin(arith.MaxSIOp, a, b)

    def and_(self, a: IndexValue, b: IndexValue) -> IndexValue:
        if isinstance(a, int) and isinstance(b, int):
            return a & b
        if isinstance(a, int):
            a, b = b, a
        if isinstance(b, int) and b == 0:
            return 0
        return self._bin(arith.AndIOp, a, b, True)

    def or_(self, a: IndexValue, b: IndexValue) -> IndexValue:
        if isinstance(a, int) and isinstance(b, int):
            return a | b
        if isinstance(a, int) and a == 0:
            return b
        if isinstance(b, int) and b == 0:
            return a
        return self._bin(arith.OrIOp, a, b, True)

    def xor_(self, a: IndexValue, b: IndexValue) -> IndexValue:
        if isinstance(a, int) and isinstance(b, int):
            return a ^ b
        if isinstance(a, int) and a == 0:
            return b
        if isinstance(b, int) and b == 0:
            return a
        return self._bin(arith.XOrIOp, a, b, True)

    def shr_(self, a: IndexValue, n: int) -> IndexValue:
        if isinstance(a, int):
            return a >> n
        if n == 0:
            return a
        return self._bin(arith.ShRUIOp, a, n)

    def shl_(self, a: IndexValue, n: int) -> IndexValue:
        if isinstance(a, int):
            return a << n
        if n == 0:
            return a
        return self.mul_(a, 1 << n)

    def lt_(self, a: IndexValue, b: IndexValue) -> IndexValue:
        """a < b (signed), an i1 IndexValue (a Python bool when constant)."""
        if isinstance(a, int) and isinstance(b, int):
            return a < b
        sa, sb = self.ssa(a), self.ssa(b)
        key = ("slt", sa, sb)
        if key not in self.memo:
            self.memo[key] = self.add(arith.CmpiOp(sa, sb, "slt")).results[0]
        return DynamicIndex(self, self.memo[key])

    def land(self, a: IndexValue, b: IndexValue) -> IndexValue:
        if a is True:
            return b
        if b is True:
            return a
        if a is False or b is False:
            return False
        sa, sb = self.ssa(a), self.ssa(b)
        if sa is sb:
            return a
        return self._bin(arith.AndIOp, a, b, True)

    def eq_(self, a: IndexValue, c: IndexValue) -> IndexValue:
        """a == c, an i1 IndexValue (a Python bool when constant)."""
        if isinstance(a, int) and isinstance(c, int):
            return a == c
        sa, sc = self.ssa(a), self.ssa(c)
        key = ("eq", sa, sc)
        if key not in self.memo:
            self.memo[key] = self.add(arith.CmpiOp(sa, sc, "eq")).results[0]
        return DynamicIndex(self, self.memo[key])

    def eq0(self, a: IndexValue) -> IndexValue:
        if isinstance(a, int):
            return a == 0
        sa = self.ssa(a)
        key = ("eq0", sa)
        if key not in self.memo:
            self.memo[key] = self.add(arith.CmpiOp(sa, self.const(0), "eq")).results[0]
        return DynamicIndex(self, self.memo[key])


_properties: dict[type, dict] = {}


def _binary(cls: type[arith.SignlessIntegerBinaryOperation], a: SSAValue, b: SSAValue) -> Operation:
    """The op `cls(a, b)` (same operands, result type, properties; no attributes), built
    with `Operation.create` instead of IRDL's generic argument handling (3x faster;
    the IR is verified after the pass as always)."""
    props = _properties.get(cls)
    if props is None:
        assert issubclass(cls, arith.SignlessIntegerBinaryOperation)
        probe = cls(a, b)
        props = _properties[cls] = dict(probe.properties)
        probe.erase()
    return cls.create(operands=(a, b), result_types=(a.type,), properties=dict(props))


class DynamicIndex:
    """An index known only at run time: an SSA value of type `index` (or `i1`) with
    Python operators that emit (folded, memoized) arith through its `builder`."""

    __slots__ = ("builder", "value")

    def __init__(self, builder: IndexBuilder, value: SSAValue):
        self.builder, self.value = builder, value

    def __add__(self, o):
        return self.builder.add_(self, o)

    __radd__ = __add__

    def __sub__(self, o):
        return self.builder.sub_(self, o)

    def __rsub__(self, o):
        return self.builder.sub_(o, self)

    def __mul__(self, o):
        return self.builder.mul_(self, o)

    __rmul__ = __mul__

    def __floordiv__(self, o):
        return self.builder.div_(self, o)

    def __rfloordiv__(self, o):
        return self.builder.div_(o, self)

    def __mod__(self, o):
        return self.builder.rem_(self, o)

    def __rmod__(self, o):
        return self.builder.rem_(o, self)

    def __xor__(self, o):
        return self.builder.xor_(self, o)

    __rxor__ = __xor__

    def __or__(self, o):
        return self.builder.or_(self, o)

    __ror__ = __or__

    def __and__(self, o):
        if isinstance(self.value.type, IntegerType) and self.value.type.width.data == 1:
            return self.builder.land(self, o)
        return self.builder.and_(self, o)

    def __rand__(self, o):
        if isinstance(self.value.type, IntegerType) and self.value.type.width.data == 1:
            return self.builder.land(o, self)
        return self.builder.and_(o, self)

    def __lt__(self, o):
        return self.builder.lt_(self, o)

    def __gt__(self, o):
        return self.builder.lt_(o, self)

    def __hash__(self):
        return hash(self.value)

    def __eq__(self, o):  # identity of the SSA value
        return isinstance(o, DynamicIndex) and o.value is self.value


IndexValue = int | DynamicIndex
"""An index value of the lowering: a compile-time int (or bool, for a condition), which
folds, or a `DynamicIndex`."""
