"""Kernels from Python, in the style of the seeds' own APIs: launches, tiles, vectors,
thread fragments, shared memory, copies, distributed loads and stores, element access
and arithmetic with Python operators (`Program` in compiler/builder.py uses it).

    p = Program("initialize_tensor")
    tensor = p.view(p.pointer("buf", "f32", align=4), "(32,8):(8,1)")
    with p.launch(grid=(4, 4, 1), threads=64) as k:
        gx = k.bx * 8 + k.tid % 8
        gy = k.by * 8 + k.tid // 8
        with p.if_((gx < 32) & (gy < 8)):
            tensor[gx, gy] = tensor[gx, gy] + 1.0

A `Value` wraps an SSA value: `+ - * // %` (on index and integers: `divsi`/`remsi`, as
CuTe's and Mojo's index arithmetic on non-negative indices; on floats `addf` ...), the
comparisons `< <= > >=` and `.eq()` (an `i1`, or a tensor of them), `&`, `|` and unary
`-`; a Python int or float beside a scalar Value becomes a constant of its type, and
beside a distributed tensor it is splat to the tensor (`tensor + 1.0`), as is a scalar
Value (compiler/builder_tensors.py). Indexing a view reads or writes one element
(`layout.read` / `layout.write`, dialects/layout_access.py); indexing a GPU-level buffer
(a memref of compiler/builder_gpu_level.py) is `memref.load` / `memref.store`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    DenseIntOrFPElementsAttr,
    TensorType,
    UnitAttr,
    VectorType,
    i64,
)
from xdsl.builder import Builder
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from tilec.dialects import cute, layout
from tilec.dialects import layout_access as la
from tilec.dialects.layout_print import PrintOp
from tilec.dialects import layout_query as lq
from tilec.dialects import layout_like as ll
from tilec.dialects.layout_static_assert import StaticAssertOp
from tilec.dialects import layout_identity as lid
from tilec.dialects import layout_iter as li
from tilec.dialects import thread_ids as ti
from tilec.dialects.errors import LayoutError
from tilec.support.launch_bounds import set_cluster_dims, set_min_blocks
from tilec.dialects import layout_compute as lc
from tilec.dialects.layout_attrs import CuteLayoutAttr, PtrType, TensorViewType
from tilec.dialects.views import sliced_layout
from tilec.passes._pipeline_plan import MAX_STAGES, PERSISTENT_ATTR, STAGES_ATTR, WS_ATTR
from tilec.support.diagnostics import TilecError
from tilec.support.locations import set_loc

from .builder_locations import locate_in_built_ops, located, user_location
from .builder_gpu import GpuBuilding
from .builder_tensors import TensorBuilding, is_distributed
from .builder_types import as_layout, element_type, encoding_attr, view_layout_attr
from .pipeline import verify_module

def _element(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType | VectorType) else t


def _is_int(t: Attribute) -> bool:
    return isinstance(_element(t), IntegerType | IndexType)


def _is_pointer(t: Attribute) -> bool:
    return isinstance(_element(t), PtrType)


_INT_OPS = {"+": arith.AddiOp, "-": arith.SubiOp, "*": arith.MuliOp, "//": arith.DivSIOp, "%": arith.RemSIOp,
            "&": arith.AndIOp, "|": arith.OrIOp}
_FLOAT_OPS = {"+": arith.AddfOp, "-": arith.SubfOp, "*": arith.MulfOp, "/": arith.DivfOp}
_CMP = {"<": ("slt", "olt"), "<=": ("sle", "ole"), ">": ("sgt", "ogt"), ">=": ("sge", "oge"), "==": ("eq", "oeq"),
        "!=": ("ne", "one")}


@located
@dataclass(eq=False)
class Value:
    """An SSA value being built, with Python operators (see the module docstring)."""

    program: KernelBuilding
    ssa: SSAValue

    @property
    def type(self) -> Attribute:
        """The value's IR type (`!layout.tensor<...>`, `index`, `f32`, ...).

            print(t.type)                                # !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
        """
        return self.ssa.type

    # ------------------------------------------------------------ arithmetic
    def _other(self, x: Any) -> SSAValue:
        """`x` as an operand beside this value: a Python number becomes a constant of
        this value's type (a vector constant beside a vector: the number splat; beside a
        distributed tensor: `layout.splat`)."""
        if isinstance(x, Value):
            return x.ssa
        if isinstance(x, SSAValue):
            return x
        if is_distributed(self.type):
            return self.program._splat_like(x, self.type)
        if isinstance(self.type, VectorType):
            return self.program.insert(arith.ConstantOp(
                DenseIntOrFPElementsAttr.from_list(self.type, [x]))).results[0].ssa
        return self.program.constant(x, _element(self.type)).ssa

    def _splat(self, a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue]:
        """A scalar beside a vector of its element type becomes that vector (Mojo's
        `SIMD * Scalar`); a scalar beside a distributed tensor is splat to it (an integer
        cast to the tensor's element type first), and two distributed tensors of one
        layout broadcast their extent-1 dimensions to each other (Gluon's operators);
        other mixes are left for the op's verifier to refuse."""
        for vec, other in ((a, b), (b, a)):
            if isinstance(vec.type, VectorType) and other.type == vec.type.element_type:
                splat = self.program.insert(vector.BroadcastOp(other, vec.type)).results[0].ssa
                return (vec, splat) if vec is a else (splat, vec)
            if is_distributed(vec.type) and not isinstance(other.type, TensorType):
                splat = self.program._splat_like(Value(self.program, other), vec.type)
                return (vec, splat) if vec is a else (splat, vec)
        if is_distributed(a.type) and is_distributed(b.type) and a.type.get_shape() != b.type.get_shape():
            sa, sb = list(a.type.get_shape()), list(b.type.get_shape())
            if len(sa) == len(sb) and all(x == y or 1 in (x, y) for x, y in zip(sa, sb)):
                shape = [max(x, y) for x, y in zip(sa, sb)]
                return (self.program.broadcast(Value(self.program, a), shape).ssa,
                        self.program.broadcast(Value(self.program, b), shape).ssa)
            raise TilecError(f"shapes {sa} and {sb} do not broadcast to one shape")
        return a, b

    def _binary(self, sym: str, x: Any, swap: bool = False) -> Value:
        if sym == "+" and _is_pointer(self.type):  # ptr + offsets, offsets + ptr: Triton's addptr
            other = x if isinstance(x, Value) else Value(self.program, self._other_int(x))
            return self.program.addptr(self, other)
        if sym == "+" and isinstance(x, Value) and _is_pointer(x.type):
            return self.program.addptr(x, self)
        a, b = self._splat(self.ssa, self._other(x))
        if swap:
            a, b = b, a
        if a.type != b.type:
            raise TilecError(f"'{sym}' of {a.type} and {b.type}: convert one with .cast() first")
        table = _INT_OPS if _is_int(a.type) else _FLOAT_OPS
        if sym not in table:
            raise TilecError(f"'{sym}' is not defined on {a.type}")
        return self.program.insert(table[sym](a, b)).results[0]

    def _other_int(self, x: Any) -> SSAValue:
        return self.program.constant(int(x), "i32").ssa

    def __add__(self, x): return self._binary("+", x)
    def __radd__(self, x): return self._binary("+", x, swap=True)
    def __sub__(self, x): return self._binary("-", x)
    def __rsub__(self, x): return self._binary("-", x, swap=True)
    def __mul__(self, x): return self._binary("*", x)
    def __rmul__(self, x): return self._binary("*", x, swap=True)
    def __floordiv__(self, x): return self._binary("//", x)
    def __rfloordiv__(self, x): return self._binary("//", x, swap=True)
    def __mod__(self, x): return self._binary("%", x)
    def __rmod__(self, x): return self._binary("%", x, swap=True)
    def __truediv__(self, x): return self._binary("/", x)
    def __rtruediv__(self, x): return self._binary("/", x, swap=True)
    def __and__(self, x): return self._binary("&", x)
    def __rand__(self, x): return self._binary("&", x, swap=True)
    def __or__(self, x): return self._binary("|", x)
    def __ror__(self, x): return self._binary("|", x, swap=True)
    def __neg__(self): return self._binary("-", 0, swap=True) if _is_int(self.type) else \
        self.program.insert(arith.NegfOp(self.ssa)).results[0]

    def assign(self, x: Value) -> Value:
        """Make this Value stand for `x` from here on (its SSA value replaced): how a
        loop-carried value (`Program.range(..., carry=[acc])`) gets its next trip's
        value. The in-place operators `+=`, `-=`, `*=` assign too.

            with p.range(0, k_tiles, carry=[acc]):
                acc.assign(p.maximum(acc, x))
        """
        if not isinstance(x, Value):
            x = Value(self.program, self._other(x))
        if x.type != self.type:
            raise TilecError(f"assign a value of type {x.type} to one of type {self.type}")
        self.ssa = x.ssa
        return self

    def __iadd__(self, x): return self.assign(self._binary("+", x))
    def __isub__(self, x): return self.assign(self._binary("-", x))
    def __imul__(self, x): return self.assign(self._binary("*", x))

    def __bool__(self):
        raise TilecError("a traced value has no truth value while the kernel is built: branch on it at run "
                         "time with `with tilec.if_(cond):` (Program.if_), or make it a tilec.constexpr")

    def __index__(self):
        raise TilecError("a traced value is not a Python int while the kernel is built: loop over it at run "
                         "time with tilec.range(...) (Program.range), or make it a tilec.constexpr")

    def __iter__(self):
        raise TilecError("a traced value cannot be iterated while the kernel is built")

    def cast(self, dtype: str, unsigned: bool = False) -> Value:
        """A scalar or a distributed tensor converted to `dtype` (Mojo's `Float32(i)`,
        C's cast): index and integers by sign extension or truncation, to and from
        floats by value (round to nearest), between floats by extension or rounding;
        `unsigned` (tensors) reads the integers as unsigned (`layout.extui`, `uitofp`,
        `fptoui`).

            x = tensor[i, j].cast("f16")
            f = i.cast("f32")                            # an index as a float
            w = bytes_.cast("i32", unsigned=True)        # a tensor of i8 zero-extended
        """
        src, dst = self.type, IndexType() if dtype == "index" else element_type(dtype)
        if src == dst:
            return self
        if is_distributed(src):
            return self._cast_tensor(dst, unsigned)
        if isinstance(src, IndexType):
            if isinstance(dst, IntegerType):  # one index_cast (what AxisInfo follows), never through i64
                return self.program.insert(arith.IndexCastOp(self.ssa, dst)).results[0]
            return self.program.insert(arith.IndexCastOp(self.ssa, IntegerType(64))).results[0].cast(dtype)
        if isinstance(dst, IndexType):
            if not _is_int(src):
                raise TilecError(f"cast {src} to index: convert to an integer type first")
            return self.program.insert(arith.IndexCastOp(self.ssa, dst)).results[0]
        if _is_int(src) and _is_int(dst):
            op = arith.ExtSIOp if dst.width.data > src.width.data else arith.TruncIOp
        elif _is_int(src):
            op = arith.SIToFPOp
        elif _is_int(dst):
            op = arith.FPToSIOp
        else:
            op = arith.ExtFOp if dst.bitwidth > src.bitwidth else arith.TruncFOp
        return self.program.insert(op(self.ssa, dst)).results[0]

    def _cast_tensor(self, dst: Attribute, unsigned: bool = False) -> Value:
        """A distributed tensor converted elementwise (`layout.extsi` ..., `arith.extf`;
        `unsigned`: the integers read as unsigned, `layout.extui` / `uitofp` / `fptoui`)."""
        src: TensorType = self.type
        e, rt = src.element_type, TensorType(dst, src.get_shape(), src.encoding)
        if src.element_type == dst:
            return self
        if _is_int(e) and _is_int(dst):
            op = (lc.ExtUIOp if unsigned else lc.ExtSIOp) if dst.width.data > e.width.data else lc.TruncIOp
        elif _is_int(e):
            op = lc.UIToFPOp if unsigned else lc.SIToFPOp
        elif _is_int(dst):
            op = lc.FPToUIOp if unsigned else lc.FPToSIOp
        else:
            op = arith.ExtFOp if dst.bitwidth > e.bitwidth else arith.TruncFOp
        return self.program.insert(op(self.ssa, rt)).results[0]

    def _compare(self, sym: str, x: Any) -> Value:
        ints, floats = _CMP[sym]
        a, b = self._splat(self.ssa, self._other(x))
        if is_distributed(a.type):
            op = lc.CmpiOp(a, b, ints) if _is_int(a.type) else lc.CmpfOp(a, b, floats)
        else:
            op = arith.CmpiOp(a, b, ints) if _is_int(a.type) else arith.CmpfOp(a, b, floats)
        return self.program.insert(op).results[0]

    def __lt__(self, x): return self._compare("<", x)
    def __le__(self, x): return self._compare("<=", x)
    def __gt__(self, x): return self._compare(">", x)
    def __ge__(self, x): return self._compare(">=", x)
    def eq(self, x) -> Value:
        """`==` as an op (Python's `==` keeps its meaning of identity).

            with p.if_(k.tid.eq(0)):
                out[0] = 1.0
        """
        return self._compare("==", x)

    def ne(self, x) -> Value:
        """`!=` as an op (`arith.cmpi ne` / `cmpf one`; Python's `!=` keeps its meaning).

            with p.if_(i.ne(0)):
                p.mbarrier_arrive(empty)
        """
        return self._compare("!=", x)

    def named(self, name: str) -> Value:
        """This value with the name `name` (its SSA name hint: the `%name` the IR prints
        and the variable name of the emitted CUDA); returns the value.

            acc = p.full([128, 128], 0.0, "f32", mma, dense=True).named("zero")
        """
        self.ssa.name_hint = name
        return self

    # ------------------------------------------------------------ element access
    def _coords(self, key: Any) -> tuple[list[SSAValue], list[int]]:
        """The index operands of a coordinate and its nesting (a tuple inside the key
        indexes a nested mode: `A[(m0, m1), n]`, `layout.read`'s profile)."""
        coords: list[SSAValue] = []
        profile: list[int] = []

        def add(k: Any) -> None:
            if isinstance(k, tuple):
                profile.append(len(k))
                for x in k:
                    add(x)
                return
            profile.append(0)
            coords.append(self.program.as_index(k))

        for k in key if isinstance(key, tuple) else (key,):
            add(k)
        return coords, profile

    def _indices(self, key: Any) -> list[SSAValue]:
        return [self.program.as_index(k) for k in (key if isinstance(key, tuple) else (key,))]

    def __getitem__(self, key: Any) -> Value:
        if isinstance(self.type, MemRefType):  # a GPU-level buffer (compiler/builder_gpu_level.py)
            return self.program.insert(memref.LoadOp.get(self.ssa, self._indices(key))).results[0]
        if not isinstance(self.type, TensorViewType):
            raise TilecError(f"only views and buffers are indexed, not {self.type}")
        coords, profile = self._coords(key)
        return self.program.insert(la.ReadOp(self.ssa, coords, profile=profile)).results[0]

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(self.type, MemRefType):
            x = value.ssa if isinstance(value, Value) else self.program.constant(value, self.type.element_type).ssa
            self.program.insert(memref.StoreOp.get(x, self.ssa, self._indices(key)))
            return
        if not isinstance(self.type, TensorViewType):
            raise TilecError(f"only views and buffers are indexed, not {self.type}")
        x = value.ssa if isinstance(value, Value) else self.program.constant(value, la.element_type(self.type)).ssa
        coords, profile = self._coords(key)
        self.program.insert(la.WriteOp(x, self.ssa, coords, profile=profile))

    def load(self, width: int, *coords: Any) -> Value:
        """Mojo's `tensor.load[width](x, y)`: `width` contiguous elements from the one at
        (x, y) along the view's mode of stride 1, as a vector (`layout.read {width}`); of
        a GPU-level buffer (a memref), `vector.load` of `width` elements from offset x.

            v = A.load(4, x, y)          # A[x, y:y+4] of a row-major A, as vector<4xf32>
            w = src.load(4, i)           # src[i:i+4] of a memref<1024xf32>
        """
        if isinstance(self.type, MemRefType):
            t = VectorType(self.type.element_type, [width])
            return self.program.insert(vector.LoadOp(self.ssa, self._indices(coords), t)).results[0]
        if not isinstance(self.type, TensorViewType):
            raise TilecError(f"only views are loaded from, not {self.type}")
        cs = [self.program.as_index(c) for c in coords]
        return self.program.insert(la.ReadOp(self.ssa, cs, width=width)).results[0]

    def store(self, width: int, *coords_and_value: Any) -> None:
        """Mojo's `tensor.store[width](x, y, v)`: the vector v to `width` contiguous
        elements from (x, y) (`layout.write {width}`); to a GPU-level buffer,
        `vector.store` at offset x.

            A.store(4, x, y, A.load(4, x, y) * 2.0)
            dst.store(4, i, w)
        """
        if isinstance(self.type, MemRefType):
            *coords, value = coords_and_value
            self.program.insert(vector.StoreOp(value.ssa, self.ssa, self._indices(tuple(coords))))
            return
        if not isinstance(self.type, TensorViewType):
            raise TilecError(f"only views are stored to, not {self.type}")
        *coords, value = coords_and_value
        x = value.ssa if isinstance(value, Value) else value
        cs = [self.program.as_index(c) for c in coords]
        self.program.insert(la.WriteOp(x, self.ssa, cs, width=width))


@located
class TileIterator:
    """Mojo's `LayoutTensorIter` being built: `it.get()` is `iter[]`, `it += 1` advances it
    (in a loop, name it in `Program.range(..., carry=[it])`), `it.next(k)` is a copy `k`
    tiles on."""

    def __init__(self, program: Any, ssa: SSAValue):
        self.program = program
        self.ssa = ssa

    def get(self) -> Value:
        """Mojo's `iter[]`: the tile the iterator is at, a view.

            t = it.get()
        """
        return self.program.insert(li.IterGetOp.build(operands=[self.ssa], result_types=[self.ssa.type.tile])).results[0]

    def next(self, k: int | Value = 1) -> TileIterator:
        """Mojo's `iter.next(k)`: a new iterator `k` tiles on (this one stays).

            following = it.next(2).get()
        """
        off = [] if isinstance(k, int) and k == 1 else [self.program.as_index(k)]
        op = li.IterNextOp.build(operands=[self.ssa, off], result_types=[self.ssa.type])
        return TileIterator(self.program, self.program.insert(op).results[0].ssa)

    def __iadd__(self, k: int | Value) -> TileIterator:
        self.ssa = self.next(k).ssa
        return self


@located
@dataclass
class Launch:
    """The block and thread ids of a `layout.launch` being built."""

    bx: Value
    by: Value
    bz: Value
    tid: Value

    def thread_idx(self, dim: str) -> Value:
        """Mojo's `thread_idx.x` (`dim` "x", "y" or "z") in the block's shape.

            with p.launch(grid=(4, 4, 1), threads=(8, 8)) as k:
                tx, ty = k.thread_idx("x"), k.thread_idx("y")
        """
        return self.tid.program.insert(ti.ThreadIdxOp(dim)).results[0]

    def global_idx(self, dim: str) -> Value:
        """Mojo's `global_idx.x`: block id * block extent + thread coordinate.

            gx, gy = k.global_idx("x"), k.global_idx("y")
        """
        return self.tid.program.insert(ti.GlobalIdxOp(dim)).results[0]


@located
class KernelBuilding(TensorBuilding, GpuBuilding):
    """The kernel-level methods of `Program` (compiler/builder.py): a mixin over the
    `_builder` its subclass sets, inserting at the body being built. `Value`s hold the
    `KernelBuilding` they were made by, so this module does not know `Program`."""

    _builder: Builder

    def _put(self, op) -> None:
        """Insert `op` where the program is being built, noting the user's line that
        built it (for the errors of `Program.module`)."""
        self._builder.insert(op)
        loc = self._locs[op] = user_location()
        set_loc(op, loc)  # the op's own location: every later pass's errors name this line

    def _value(self, ssa: SSAValue) -> Value:
        return Value(self, ssa)

    def _verified(self, module: ModuleOp) -> ModuleOp:
        """`module`, the finished program, verified; an error is located at the user's
        line that built the op it names (the `module` property of each builder)."""
        try:
            verify_module(module)
        except TilecError as e:
            locate_in_built_ops(e, self._locs)
            raise
        return module

    def insert(self, op) -> Any:
        """Insert the xDSL op `op` where the program is being built; returns an object
        with `.op` and `.results` (its results as Values). For ops the builder has no
        method for.

            s = p.insert(math.SqrtOp(x.ssa)).results[0]
        """
        self._put(op)
        results = [Value(self, r) for r in op.results]  # type: ignore[arg-type]
        return _Results(op, results)

    def as_index(self, x: Any) -> SSAValue:
        """The SSA value of an index: a Value or SSA value as it is, an int as a constant.

            i = p.as_index(3)
        """
        if isinstance(x, Value):
            return x.ssa
        if isinstance(x, SSAValue):
            return x
        return self.constant(int(x), IndexType()).ssa

    def constant(self, x: int | float, t: Attribute | str = "index") -> Value:
        """A constant of type `t` (an element type name, an Attribute, or "index").

            half = p.constant(0.5, "f32")
        """
        at = IndexType() if t == "index" else element_type(t)
        attr = IntegerAttr(int(x), at) if isinstance(at, IntegerType | IndexType) else FloatAttr(float(x), at)
        return self.insert(arith.ConstantOp(attr)).results[0]

    def divui(self, a: Any, b: Any) -> Value:
        """`arith.divui`: `a // b` of two indices (or integers) read as unsigned, as the
        index arithmetic of tile schedules is (the `//` operator is signed: `divsi`).

            j = p.divui(t - pid, nprog)
        """
        return self._unsigned(arith.DivUIOp, a, b)

    def remui(self, a: Any, b: Any) -> Value:
        """`arith.remui`: `a % b` of two indices (or integers) read as unsigned.

            phase = p.remui(round_, 2)
        """
        return self._unsigned(arith.RemUIOp, a, b)

    def ceildivui(self, a: Any, b: Any) -> Value:
        """`arith.ceildivui`: `a / b` rounded up, of two indices (or integers) read as unsigned.

            blocks = p.ceildivui(n, 1024)
        """
        return self._unsigned(arith.CeilDivUIOp, a, b)

    def minui(self, a: Any, b: Any) -> Value:
        """`arith.minui`: the smaller of two indices (or integers) read as unsigned.

            kt = p.minui(i + 3, last)
        """
        return self._unsigned(arith.MinUIOp, a, b)

    def _unsigned(self, cls, a: Any, b: Any) -> Value:
        t = a.type if isinstance(a, Value) else b.type if isinstance(b, Value) else IndexType()
        if not _is_int(t) or is_distributed(t):
            raise TilecError(f"{cls.name} takes scalar indices or integers, not {t}")
        av = a.ssa if isinstance(a, Value) else self.constant(a, t).ssa
        bv = b.ssa if isinstance(b, Value) else self.constant(b, t).ssa
        return self.insert(cls(av, bv)).results[0]

    def if_else(self, cond: Value, carry: Sequence[Value] = ()) -> tuple[Any, Any]:
        """`scf.if cond { ... } else { ... }`: two context managers, for what runs where
        `cond` (an `i1`) holds and where it does not (either may stay empty).

        The Values in `carry` are the `scf.if`'s results, as `range(carry=...)` carries
        values through a loop: each branch starts from their values before the `if`,
        may `assign` them new ones, and yields what they hold at its end (a branch
        left empty yields them unchanged); after the `with` blocks they stand for the
        results.

            then, otherwise = p.if_else(first)
            with otherwise:
                p.mbarrier_wait(empty, phase)

            then, otherwise = p.if_else(even, carry=[acc])
            with then:
                acc.assign(acc + x)
            with otherwise:
                acc.assign(acc * x)
        """
        carry = list(carry)
        for c in carry:
            if not isinstance(c, Value):
                raise TilecError(f"carry= takes Values, not {type(c).__name__}")
        before = [c.ssa for c in carry]
        blocks = Block(), Block()
        op = scf.IfOp(cond.ssa, [v.type for v in before], Region(blocks[0]), Region(blocks[1]))
        self._put(op)
        for b in blocks:
            b.add_op(scf.YieldOp(*before))
        for c, r in zip(carry, op.results):
            c.ssa = r
        return self._branch(blocks[0], carry, before, op), self._branch(blocks[1], carry, before, op)

    @contextmanager
    def _branch(self, block: Block, carry: list[Value], before: list[SSAValue], op) -> Iterator[None]:
        """Build at the end of an `scf.if` branch (before its yield); the carried Values
        hold their values before the `if` inside it, its results after it."""
        for c, v in zip(carry, before):
            c.ssa = v
        try:
            with self._before_yield(block):
                yield
            for i, c in enumerate(carry):
                if c.type != before[i].type:
                    raise TilecError(f"carried value {i} of the if changed its type from {before[i].type} to {c.type}",
                                     loc=user_location())
                block.last_op.operands[i] = c.ssa
        finally:
            for c, r in zip(carry, op.results):
                c.ssa = r

    @contextmanager
    def _before_yield(self, block: Block) -> Iterator[None]:
        saved = self._builder.insertion_point
        self._builder.insertion_point = InsertPoint.before(block.last_op)
        try:
            yield
        finally:
            self._builder.insertion_point = saved

    @contextmanager
    def _at(self, block: Block) -> Iterator[None]:
        saved = self._builder.insertion_point
        self._builder.insertion_point = InsertPoint.at_end(block)
        try:
            yield
        finally:
            self._builder.insertion_point = saved

    @contextmanager
    def launch(self, grid: Sequence[int | Value] = (1, 1, 1),
               threads: int | Sequence[int] | str = 128, min_blocks: int | None = None,
               cluster: int | None = None) -> Iterator[Launch]:
        """`layout.launch grid(...) threads(n)` (or a 2-D/3-D block shape, `(8, 8)`): what
        the body builds runs per thread. Yields a `Launch`: the block ids `bx`, `by`,
        `bz` and the thread id `tid`. `threads="auto"` leaves the threads to the compiler
        (`choose-warps`): the body then uses only `#layout.auto` layouts over
        `layout.OPEN_THREADS // 32` warps and not the thread id. `min_blocks=N` compiles
        the kernel for N blocks per multiprocessor (`tilec.min_blocks`,
        support/launch_bounds.py: CUDA's `__launch_bounds__(threads, N)`). `cluster=C`
        runs the blocks in thread-block clusters of C along x (`tilec.cluster_dims`:
        CUDA's `__cluster_dims__(C, 1, 1)`; the grid's x a multiple of C).

            with p.launch(grid=(16, 16, 1), threads=256) as k:
                t = p.tile(a, [k.bx, k.by], [64, 64])
        """
        if isinstance(threads, str) and threads != "auto":
            raise TilecError(f"launch: threads is a count, a block shape or \"auto\", got {threads!r}",
                             loc=user_location())
        dims = [self.as_index(g) for g in (*grid, 1, 1)[:3]]
        op = layout.LaunchOp(dims, threads if isinstance(threads, int | str) else list(threads))
        if min_blocks is not None:
            set_min_blocks(op, min_blocks)
        if cluster is not None:
            set_cluster_dims(op, cluster)
        self._put(op)
        body = op.body.block
        names = ("bx", "by", "bz", "tid")
        for a, n in zip(body.args, names):
            a.name_hint = n
        with self._at(body):
            yield Launch(*(Value(self, a) for a in body.args))

    @contextmanager
    def if_(self, cond: Value) -> Iterator[None]:
        """`scf.if cond { ... }`: what the body builds runs where `cond` (an `i1`) holds.

            with p.if_((gx < 32) & (gy < 8)):
                tensor[gx, gy] = tensor[gx, gy] + 1.0
        """
        block = Block()
        self._put(scf.IfOp(cond.ssa, [], Region(block)))
        with self._at(block):
            yield
            self._put(scf.YieldOp())

    @contextmanager
    def range(self, lo: int | Value, hi: int | Value, step: int | Value = 1,
              carry: Sequence[TileIterator] = (), num_stages: int | None = None,
              warp_specialize: bool = False, persistent: int = 0) -> Iterator[Value]:
        """`scf.for %i = lo to hi step s { ... }`; yields %i. The iterators in `carry` are
        loop-carried, so `it += 1` in the body advances them from one trip to the next
        (Mojo's `iter += 1` in a loop); after the loop they hold their final position.
        `num_stages` (Triton's `tl.range(..., num_stages=)`) asks `software-pipeline`
        (default pipeline) to pipeline the loop that deep (`{tilec.num_stages = N}`).
        `warp_specialize=True` (Triton's `tl.range(..., warp_specialize=True)`) asks
        for the warp-specialised form of that pipeline instead (`{tilec.warp_specialize}`:
        the default pipeline's `warp-specialize{marked=true}` makes it, a producer
        warpgroup filling the ring, the block's warpgroups consuming it; the loop then
        needs `num_stages` >= 2); `persistent=P` with it, over P persistent blocks
        (`{tilec.persistent = P}`, `warp-specialize`'s `persistent` option).

            with p.range(0, 4, carry=[it]) as i:
                p.copy(it.get(), out_tile)
                it += 1
        """
        carry = list(carry)
        for c in carry:
            if not isinstance(c, Value | TileIterator):
                raise TilecError(f"carry= takes Values and tile iterators, not {type(c).__name__}",
                                 loc=user_location())
        block = Block(arg_types=[IndexType()] + [c.ssa.type for c in carry])
        loop = scf.ForOp(self.as_index(lo), self.as_index(hi), self.as_index(step), [c.ssa for c in carry],
                         Region(block))
        if num_stages is not None:
            if not (isinstance(num_stages, int) and 1 <= num_stages <= MAX_STAGES):
                raise TilecError(f"range: num_stages must be an int in [1, {MAX_STAGES}], got {num_stages!r}",
                                 loc=user_location())
            loop.attributes[STAGES_ATTR] = IntegerAttr(num_stages, i64)
        if warp_specialize:
            if num_stages is None or num_stages < 2:
                raise TilecError(f"range: warp_specialize=True needs num_stages >= 2 (the ring's depth), "
                                 f"got {num_stages!r}", loc=user_location())
            loop.attributes[WS_ATTR] = UnitAttr()
        if persistent:
            if not warp_specialize or not (isinstance(persistent, int) and persistent > 0):
                raise TilecError(f"range: persistent=P takes an int P > 0 with warp_specialize=True, "
                                 f"got {persistent!r}", loc=user_location())
            loop.attributes[PERSISTENT_ATTR] = IntegerAttr(persistent, i64)
        self._put(loop)
        for c, a in zip(carry, block.args[1:]):
            c.ssa = a
        with self._at(block):
            yield Value(self, block.args[0])
            stale = [i for i, (c, a) in enumerate(zip(carry, block.args[1:])) if isinstance(c, Value) and c.ssa is a]
            if stale:
                raise TilecError(f"loop-carried value {stale[0]} is never updated in the loop: update it in place "
                                 f"(`acc += x`, `acc.assign(f(acc))`); `acc = acc + x` makes a new value and "
                                 f"leaves the carried one as it was", loc=user_location())
            self._put(scf.YieldOp(*[c.ssa for c in carry]))
        for c, r in zip(carry, loop.results):
            c.ssa = r

    @contextmanager
    def while_(self, cond: Callable[[], Value], carry: Sequence[Value | TileIterator]) -> Iterator[None]:
        """`scf.while`: Python's `while cond(): body` with loop-carried values, as
        Triton traces a `while` (Gluon's `while i < n:`). `cond` is a function of no
        arguments returning an `i1`; it is called once, building the `before` region,
        where the Values in `carry` stand for the values entering a trip; it may
        `assign` them, and what they then hold is forwarded by `scf.condition` to the
        body and, when the condition fails, to the loop's results. The `with` body
        builds the `after` region: it updates the carried values in place (`acc += x`,
        `i += 1`, `acc.assign(...)`), and what they hold at its end enters the next
        trip. After the `with` block the carried Values stand for the results.

            i = p.constant(0)
            with p.while_(lambda: i < n, carry=[acc, i]):
                acc += p.load(p.tile(a, [i, 0], [8, 32]), enc)
                i += 1
        """
        if not callable(cond):
            raise TilecError(f"while_ takes a function that builds the condition (`lambda: i < n`), "
                             f"not {type(cond).__name__}", loc=user_location())
        carry = list(carry)
        for c in carry:
            if not isinstance(c, Value | TileIterator):
                raise TilecError(f"carry= takes Values and tile iterators, not {type(c).__name__}",
                                 loc=user_location())
        types = [c.ssa.type for c in carry]
        before, after = Block(arg_types=types), Block(arg_types=types)
        loop = scf.WhileOp([c.ssa for c in carry], types, Region(before), Region(after))
        self._put(loop)
        for c, a in zip(carry, before.args):
            c.ssa = a
        with self._at(before):
            go = cond()
            if not (isinstance(go, Value) and go.type == IntegerType(1)):
                what = go.type if isinstance(go, Value) else type(go).__name__
                raise TilecError(f"the condition of a while_ must be an i1 Value (a comparison), not {what}",
                                 loc=user_location())
            _check_carried_types("while_ condition", carry, types)
            self._put(scf.ConditionOp(go.ssa, *[c.ssa for c in carry]))
        for c, a in zip(carry, after.args):
            c.ssa = a
        with self._at(after):
            yield
            stale = [i for i, (c, a) in enumerate(zip(carry, after.args)) if isinstance(c, Value) and c.ssa is a]
            if stale:
                raise TilecError(f"loop-carried value {stale[0]} is never updated in the while_ body: update it in "
                                 f"place (`i += 1`, `acc.assign(f(acc))`); `i = i + 1` makes a new value and "
                                 f"leaves the carried one as it was", loc=user_location())
            _check_carried_types("while_ body", carry, types)
            self._put(scf.YieldOp(*[c.ssa for c in carry]))
        for c, r in zip(carry, loop.results):
            c.ssa = r

    # ------------------------------------------------------------ views
    def tile(self, view: Value, coords: Sequence[int | Value], tile: Sequence[int]) -> Value:
        """`layout.tile`: tile number `coords` of `view` in tiles of `tile` (CuTe's
        local_tile, Mojo's `tile[...]`).

            t = p.tile(a, [k.bx, k.by], [64, 64])        # a 64x64 view
        """
        return self.insert(layout.TileOp(view.ssa, [self.as_index(c) for c in coords], list(tile))).results[0]

    def tiled_iterator(self, view: Value, tile: Sequence[int], axis: int, coords: Sequence[int | Value],
                       circular: bool = False) -> TileIterator:
        """Mojo's `tensor.tiled_iterator[*tile, axis=axis](*coords)` (`layout.tiled_iterator`):
        tiles of `tile` starting at tile `coords`, stepping along `axis`.

            it = p.tiled_iterator(a, [32, 32], axis=1, coords=[i, 0])
        """
        props = {"tile": DenseArrayBase.from_list(i64, list(tile)), "axis": IntegerAttr(axis, 64)}
        return self._iterator(li.TiledIteratorOp, view, [self.as_index(c) for c in coords], props, circular)

    def buffer_iterator(self, buffer: Value, tile: str | cute.Layout, circular: bool = False) -> TileIterator:
        """Mojo's `LayoutTensorIter[dtype, tile_layout](ptr, size)` over a rank-1 view
        (`layout.buffer_iterator`).

            it = p.buffer_iterator(buf, "(4,8):(8,1)")
        """
        return self._iterator(li.BufferIteratorOp, buffer, None, {"tile": CuteLayoutAttr(as_layout(tile))}, circular)

    def _iterator(self, cls, view: Value, coords, props: dict, circular: bool) -> TileIterator:
        if circular:
            props["circular"] = UnitAttr()
        try:
            rt = cls.result_type(view.type, props)
        except LayoutError as e:
            raise TilecError(f"{cls.name}: {e}") from None
        operands = [view.ssa] if coords is None else [view.ssa, coords]
        return TileIterator(self, self.insert(cls.build(operands=operands, properties=props, result_types=[rt]))
                            .results[0].ssa)

    def partition(self, view: Value, tid: Value, tv: str | cute.Layout) -> Value:
        """CuTe's thread-value partition (`layout.partition`): thread `tid`'s values of
        `view` under the thread-value layout `tv`, which maps (thread, value) to a
        coordinate of the view (CuTe's `TiledCopy` / `TiledMMA` partitions).

            frag = p.partition(t, k.tid, "((4,8),4):((32,1),8)")
        """
        props = {"tv": CuteLayoutAttr(as_layout(tv))}
        try:
            rt = layout.PartitionOp.result_type(view.type, props)
        except LayoutError as e:
            raise TilecError(f"partition: {e}") from None
        return self.insert(layout.PartitionOp.build(operands=[view.ssa, self.as_index(tid)], properties=props,
                                                    result_types=[rt])).results[0]

    def vectorize(self, view: Value, vector: Sequence[int]) -> Value:
        """`layout.vectorize`: the view as elements of `vector`-shaped vectors (Mojo's
        `vectorize[1, 4]()`).

            v = p.vectorize(t, [1, 4])
        """
        return self.insert(layout.VectorizeOp(view.ssa, list(vector))).results[0]

    def distribute(self, view: Value, tid: Value, threads: str | cute.Layout) -> Value:
        """`layout.distribute`: thread `tid`'s fragment under the thread layout
        (Mojo's `distribute[thread_layout](thread_idx)`, CuTe's `local_partition`).

            frag = p.distribute(v, k.tid, "(8,4):(4,1)")
        """
        return self.insert(layout.DistributeOp(view.ssa, self.as_index(tid), as_layout(threads))).results[0]

    def alloc(self, layout_: Any, dtype: str = "f32", space: str = "smem") -> Value:
        """`layout.alloc`: shared (`smem`) or register (`rmem`) storage with the layout
        (CuTe text or `tilec.Layout`, or a swizzled `tilec.ComposedLayout` or its
        `#layout.composed<...>` text, as TMA and wgmma want shared memory).

            s = p.alloc("(64,64):(64,1)", "f32", "smem")
            sw = p.alloc("#layout.composed<swizzle<3,4,3> o 0 o (64,64):(64,1)>", "bf16")
        """
        t = TensorViewType(element_type(dtype), view_layout_attr(layout_), space)
        return self.insert(layout.AllocOp(t)).results[0]

    def _tiler(self, tiler) -> Attribute:
        """A tiler attribute from a layout (text or cute.Layout), by-mode extents
        (`(8, 4)`) or by-mode layouts (`("8:3", "4:2")`)."""
        if isinstance(tiler, str | cute.Layout):
            return CuteLayoutAttr(as_layout(tiler))
        items = list(tiler)
        if all(isinstance(x, int) for x in items):
            return DenseArrayBase.from_list(i64, items)
        return ArrayAttr([CuteLayoutAttr(as_layout(x)) for x in items])

    def _relayout(self, op_cls, view: Value, layout_: cute.Layout, props: dict) -> Value:
        rt = view.type.with_(layout=CuteLayoutAttr(layout_))
        return self.insert(op_cls.build(operands=[view.ssa], properties=props, result_types=[rt])).results[0]

    def divide(self, view: Value, tiler, kind: str = "logical") -> Value:
        """CuTe's `logical_divide` / `zipped_divide` / `tiled_divide` / `flat_divide`
        (`kind` "logical", "zipped", "tiled" or "flat"); the tiler is a layout, by-mode
        extents or by-mode layouts.

            d = p.divide(t, (8, 4), "zipped")            # ((8,4),(8,16)): the tile, then the rest
        """
        t = self._tiler(tiler)
        return self._relayout(layout.DivideOp, view, layout.DivideOp.divided(view.type.cute_layout, kind, t),
                              {"kind": StringAttr(kind), "tiler": t})

    def compose(self, view: Value, tiler) -> Value:
        """CuTe's `composition(tensor, tiler)`: the view's layout composed with the tiler.

            c = p.compose(t, ("8:3", "4:2"))
        """
        t = self._tiler(tiler)
        return self._relayout(layout.ComposeOp, view, layout.ComposeOp.composed(view.type.cute_layout, t),
                              {"tiler": t})

    def slice(self, view: Value, coords: Sequence) -> Value:
        """CuTe's `A(_, j)`: `"_"` keeps a mode, an int or index Value fixes it; a tuple
        indexes a nested mode (`A(make_coord(_, 1), j)` is `slice(A, [("_", 1), j])`).
        The result has one mode per `"_"`.

            row = p.slice(t, [i, "_"])                   # A(i, _)
        """
        pattern, profile, dyn = [], [], []

        def add(c) -> None:
            if isinstance(c, tuple):
                profile.append(len(c))
                for x in c:
                    add(x)
                return
            profile.append(0)
            if isinstance(c, str):
                if c != "_":
                    raise TilecError(f"a slice coordinate is an index, '_' or a tuple, not '{c}'")
                pattern.append(layout.WILDCARD)
            elif isinstance(c, int):
                pattern.append(c)
            else:
                pattern.append(layout.DYNAMIC)
                dyn.append(self.as_index(c))

        for c in coords:
            add(c)
        if not any(profile):
            profile = []
        try:
            kept = sliced_layout(view.type.cute_layout, pattern, profile)
        except LayoutError as e:
            raise TilecError(f"slice: {e}") from None
        rt = view.type.with_(layout=layout.relaid(view.type, kept))
        props = {"pattern": DenseArrayBase.from_list(i64, pattern)}
        if profile:
            props["profile"] = DenseArrayBase.from_list(i64, profile)
        op = layout.SliceOp.build(operands=[view.ssa, dyn], properties=props, result_types=[rt])
        return self.insert(op).results[0]

    def dim(self, view: Value, mode: int) -> Value:
        """Mojo's `tensor.dim(mode)` (`layout.dim`): the mode's extent at run time; for a
        masked tile, its elements inside the tensor.

            rows = p.dim(t, 0)
        """
        return self.insert(la.DimOp(view.ssa, mode)).results[0]

    def rank(self, view: Value, mode: int | None = None) -> Value:
        """CuTe's `rank(t)` / `rank<I>(t)` (`layout.rank`): the number of top-level modes
        of the view's layout (of its mode `mode`), an index known at compile time.

            r = p.rank(a)                 # (4,(2,8)):(16,(8,1)) -> 2; p.rank(a, 1) -> 2
        """
        return self.insert(lq.RankOp(view.ssa, mode)).results[0]

    def depth(self, view: Value, mode: int | None = None) -> Value:
        """CuTe's `depth(t)` / `depth<I>(t)` (`layout.depth`): the nesting depth of the
        view's shape (of mode `mode`; an integer's is 0).

            d = p.depth(a)                # (4,(2,8)) -> 2; p.depth(a, 0) -> 0
        """
        return self.insert(lq.DepthOp(view.ssa, mode)).results[0]

    def size(self, view: Value, mode: int | None = None) -> Value:
        """CuTe's `size(t)` / `size<I>(t)` (`layout.size`): the number of elements of the
        view (of mode `mode`), computed at run time when an extent is `?`. A masked tile's
        size is its tile's, as in CuTe (`dim` counts the elements inside the tensor).

            n = p.size(a)                 # (?,8) viewed with m rows -> m * 8
            m = p.size(a, 0)              # size<0>(a) -> m
        """
        return self.insert(lq.SizeOp(view.ssa, mode)).results[0]

    def cosize(self, view: Value, mode: int | None = None) -> Value:
        """CuTe's `cosize(t)` (`layout.cosize`): `1 + sum((s-1)*d)` over the leaves of the
        view's layout (of mode `mode`), the storage it reaches from its base.

            c = p.cosize(a)               # (4,8):(1,5) -> 1 + 3 + 35 = 39
        """
        return self.insert(lq.CosizeOp(view.ssa, mode)).results[0]

    def static_assert(self, condition: Value, message: str) -> None:
        """CuTe's `CUTE_STATIC_ASSERT_V(cond)`, Mojo's `comptime assert cond`
        (`layout.static_assert`): `condition` (an i1 over constants and
        `rank/depth/size/cosize` answers) must be true at compile time; a false one is
        an error at this line with `message`, as is one known only at run time.

            p.static_assert(p.rank(a).eq(2), "a is a matrix")
            p.static_assert(p.size(a, 1) % 8 < 1, "whole vectors of 8")
        """
        if not isinstance(condition, Value):
            raise TilecError(f"static_assert takes an i1 value (a comparison such as p.rank(a).eq(2)), "
                             f"not {type(condition).__name__}")
        op = StaticAssertOp(condition.ssa, message)
        self.insert(op)
        try:
            op.verify_()
        except VerifyException as e:
            err = TilecError(str(e), op=op)
            op.detach()  # the program stays valid: the caller may go on after the error
            op.erase()
            raise err from None

    def print(self, x: Value) -> None:
        """CuTe's `print_tensor(view)`, Mojo's `print(tile)` (`layout.print`): thread 0 of
        block 0 prints the view's values under a header naming its memory and layout,
        on the reference executor (stdout) and on the GPU (device printf). A distributed
        tensor prints as Gluon's `gl.device_print`: each thread of block 0 prints each
        element it holds, with its coordinate. For small tiles (at most 1024 values);
        inside a launch:

            with p.launch(grid=(2, 2, 1), threads=32) as k:
                tile = p.tile(A, (k.by, k.bx), (4, 8))
                p.print(tile)       # gmem_ptr[32b] o (4,8):(16,1):, then 4 rows of 8
        """
        self.insert(PrintOp(x.ssa))

    def make_tensor_like(self, view: Value) -> Value:
        """CuTe's `make_tensor_like(view)` (`layout.make_tensor_like`): registers of the
        view's shape, compact in its stride order (stride-0 leaves kept); inside a launch.

            r = p.make_tensor_like(tile)       # (8,4):(3,48) -> (8,4):(1,8) in rmem
        """
        return self._like(ll.MakeTensorLikeOp, view)

    def make_fragment_like(self, view: Value) -> Value:
        """CuTe's `make_fragment_like(view)` (`layout.make_fragment_like`): registers of
        the view's shape, mode 0 compact column-major, the other modes after it in their
        stride order; inside a launch.

            frag = p.make_fragment_like(thr)   # (4,8):(8,1) -> (4,8):(1,4) in rmem
        """
        return self._like(ll.MakeFragmentLikeOp, view)

    def make_identity_tensor(self, shape: Sequence[Any]) -> Value:
        """CuTe's `make_identity_tensor(shape)` (`layout.make_identity_tensor`): the view,
        of no memory, whose element at each coordinate of `shape` (ints, or index values
        for run-time extents) is that coordinate; tile, distribute and slice it as the
        data it guards, and read its coordinates with `read_coord`.

            c = p.make_identity_tensor((1000, 1003))   # (1000,1003):(1,1000), coord
        """
        static = [s if isinstance(s, int) else None for s in shape]
        dyn = [self.as_index(s) for s in shape if not isinstance(s, int)]
        return self.insert(lid.MakeIdentityTensorOp(static, dyn)).results[0]

    def read_coord(self, view: Value, *coords: Any) -> tuple[Value, ...]:
        """CuTe's `tAcA(i)` of an identity tensor's view (`layout.read_coord`): the
        coordinate its element holds, one index per mode of the identity tensor, exact
        past the shape too, so that comparing it with the shape is CuTe's `elem_less`.

            m, n = p.read_coord(tAcA, i)
            ok = (m < 1000) & (n < 1003)
        """
        op = lid.ReadCoordOp(view.ssa, [self.as_index(c) for c in coords])
        return tuple(self.insert(op).results)

    def _like(self, cls, view: Value) -> Value:
        try:
            op = cls(view.ssa)
        except LayoutError as e:
            raise TilecError(str(e)) from None
        return self.insert(op).results[0]

    def alloc_like(self, view: Value, space: str = "rmem") -> Value:
        """CuTe's `make_tensor_like(view)`: compact storage of the view's shape whose
        modes keep the view's stride order ((8,4):(3,48) -> (8,4):(1,8)).

            r = p.alloc_like(frag)                       # registers for a thread's fragment
        """
        lay = view.type.cute_layout
        t = TensorViewType(view.type.element_type, cute.make_ordered_layout(lay.shape, lay.stride), space)
        return self.insert(layout.AllocOp(t)).results[0]

    # ------------------------------------------------------------ data movement
    def copy_async(self, src: Value, dst: Value, token: bool = True) -> Value | None:
        """`layout.copy_async` (cp.async from global to shared memory); returns its token
        (for `async_wait`), or nothing with `token=False`. Each copy is one commit
        group; a pipeline waits for its groups by count, `async_wait(pending=N)`
        (CUTLASS's `cp_async_fence` / `cp_async_wait<N>`).

            tok = p.copy_async(frag_src, frag_smem)
            p.copy_async(frag_src, frag_smem, token=False)   # waited for by a pending count
        """
        op = layout.CopyAsyncOp(src.ssa, dst.ssa, token=token)
        results = self.insert(op).results
        return results[0] if token else None

    def copy_chunk_async(self, src: Value, src_coords: Sequence[Any], dst: Value, dst_coords: Sequence[Any],
                         width: int) -> None:
        """`layout.copy_chunk_async`: this thread's `width` contiguous elements (4, 8 or
        16 bytes) from the global view `src` at `src_coords` into the shared view `dst`
        at `dst_coords` (one index per mode each), asynchronously (one `cp.async`
        where both are known aligned; CuTe's copy of one `SM80_CP_ASYNC_CACHEGLOBAL`
        atom at a thread's own offsets). Each call is one commit group: read the chunk
        after `async_wait()` (and a `barrier()` for other threads).

            p.copy_chunk_async(src, [p.multiple_of(i, 16)], box, [p.multiple_of(j, 16)], 16)
            p.async_wait()
        """
        self.insert(la.CopyChunkAsyncOp(src.ssa, [self.as_index(c) for c in src_coords], dst.ssa,
                                        [self.as_index(c) for c in dst_coords], width))

    def async_wait(self, *tokens: Value, pending: int | None = None) -> None:
        """`layout.async_wait`: wait for the copies of `tokens`, or until at most
        `pending` commit groups of this thread's `copy_async` are in flight (neither
        given: for all, `pending = 0`).

            p.async_wait(tok)
            p.async_wait(pending=4)      # a 4-stage pipeline: the oldest tile has landed
        """
        if tokens and pending is not None:
            raise TilecError("async_wait takes tokens or pending=N, not both")
        self.insert(layout.AsyncWaitOp(None, [t.ssa for t in tokens]) if tokens
                    else layout.AsyncWaitOp(0 if pending is None else pending))

    def barrier(self) -> None:
        """`layout.barrier`: every thread of the block waits here (`__syncthreads`).

            p.barrier()
        """
        self.insert(layout.BarrierOp())

    def atomic_add(self, view: Value, coords: Sequence[Any], value: Any, scope: str = "gpu",
                   order: str = "relaxed") -> Value:
        """`layout.atomic_add` (dialects/layout_atomic.py): adds the i32 `value` to the
        element of the global view `view` at `coords` (one index per top-level mode, or
        one) indivisibly, each thread that runs it; the element's old value.

            old = p.atomic_add(ctr, [t], 1)                      # relaxed, gpu scope
            p.atomic_add(ctr, [t], -4, order="release")
        """
        from tilec.dialects import layout_atomic as lat

        x = value.ssa if isinstance(value, Value) else self.constant(value, "i32").ssa
        return self.insert(lat.AtomicAddOp(x, view.ssa, [self.as_index(c) for c in coords], scope, order)).results[0]

    def fence(self, scope: str = "gpu", order: str = "acq_rel") -> None:
        """`layout.fence` (dialects/layout_atomic.py): this thread's memory fence of
        `scope`; before a relaxed atomic it makes the atomic a release, after one an acquire.

            p.fence()                 # fence.acq_rel.gpu
        """
        from tilec.dialects import layout_atomic as lat

        self.insert(lat.FenceOp(scope, order))

    def load(self, view: Value, encoding: Any, shape: Sequence[int] | None = None, *, mask: Value | None = None,
             other: Any = None, vector: int | None = None) -> Value:
        """`layout.load` of a view into a distributed tensor with `encoding` (a layout
        object such as `tilec.BlockedLayout(...)`, or its text `#layout.blocked<{...}>`);
        the shape is the view's unless given. Elements outside a masked tile, and where
        `mask` (an i1 tensor) is false, are `other` (default 0; Gluon's `other=`).
        `vector` states the access width in elements (`{vector = N}`, at most 16 bytes)
        where the kernel fixes it; left out, the `vectorize` pass picks it.

            x = p.load(t, "#layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>")
            row = p.load(masked_tile, tilec.BlockedLayout([1, 4], [1, 32], [1, 2], [1, 0]), other=float("-inf"))
            o = p.load(smem_c, tilec.BlockedLayout([1, 8], [1, 32], [8, 1], [1, 0]), vector=8)   # 16-byte bf16 vectors
        """
        vt = view.type
        if not isinstance(vt, TensorViewType):
            raise TilecError(f"load() takes a view (`!layout.tensor<...>`), not {vt}")
        shape = list(shape) if shape is not None else [int(m.size()) for m in vt.cute_layout.modes()]
        rt = TensorType(vt.element_type, shape, encoding_attr(encoding))
        o = None if other is None else (other.ssa if isinstance(other, Value) else self.constant(other, vt.element_type).ssa)
        op = layout.LoadOp(view.ssa, rt, other=o, mask=mask.ssa if mask is not None else None)
        _set_vector(op, vector)
        return self.insert(op).results[0]

    def prefetch_l1(self, view: Value, encoding: Any, shape: Sequence[int] | None = None) -> None:
        """`layout.prefetch_l1`: each thread asks L1 for the elements of a global view that
        `load(view, encoding, shape)` would give it, reading nothing (a later load of them
        hits L1).

            p.prefetch_l1(p.tile(col_ahead, [bx], [128]), SliceLayout(1, mma))
        """
        vt = view.type
        if not isinstance(vt, TensorViewType):
            raise TilecError(f"prefetch_l1() takes a view (`!layout.tensor<...>`), not {vt}")
        shape = list(shape) if shape is not None else [int(m.size()) for m in vt.cute_layout.modes()]
        self.insert(layout.PrefetchL1Op(view.ssa, TensorType(vt.element_type, shape, encoding_attr(encoding))))

    def store(self, value: Value, view: Value, *, mask: Value | None = None, vector: int | None = None) -> None:
        """`layout.store`: a distributed tensor (from `load` or computed) into a view of
        its shape, where `mask` (an i1 tensor of the value's layout) holds; `vector` as
        for `load`.

            p.store(x + x, out_tile)
            p.store(o, c_tile, vector=8)
        """
        op = layout.StoreOp(value.ssa, view.ssa, mask.ssa if mask is not None else None)
        _set_vector(op, vector)
        self.insert(op)


def _check_carried_types(where: str, carry: Sequence[Value | TileIterator], types: Sequence[Attribute]) -> None:
    """Refuse a carried value whose type changed inside a region (at the user's line)."""
    for i, (c, t) in enumerate(zip(carry, types)):
        if c.ssa.type != t:
            raise TilecError(f"carried value {i} changed its type in the {where} from {t} to {c.ssa.type}",
                             loc=user_location())


def _set_vector(op, vector: int | None) -> None:
    """`{vector = N}` on a layout.load / layout.store (its verifier checks N)."""
    if vector is not None:
        op.properties["vector"] = IntegerAttr(vector, i64)


class _Results:
    """An inserted op's results as Values (`.results`), and the op (`.op`)."""

    def __init__(self, op, results: list[Value]):
        self.op = op
        self.results = results
