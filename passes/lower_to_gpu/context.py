"""The shared context of `lower-to-gpu` while it lowers one `layout.launch`.

`LoweringContext` is what every op family reads and writes, and all it may read of
the others (the op families are separate classes and functions, kernel.py):

- `b`: the `IndexBuilder` of the kernel body (where ops go, folding and reuse of index
  arithmetic);
- `values`: the `LoweredValues` of the launch (lowered_values.py), each lowering's
  operands and results by kind;
- `launch`, the thread id `tid` and thread count `nthreads` (rebased inside a
  `layout.warp_specialize` region by `region_threads`, with `role_threads` its size,
  roles.py);
- the kernel's signature: `args` (launch value -> kernel argument), `ptr_types`
  (pointer argument -> memref type) and `tma_maps` (TMA op -> its tensor map argument);
- `lower(op)`: the driver, which lowers a nested op through the dispatch table (regions
  of scf, reduce/scan combiners, warp_specialize) and locates errors at the op.

`OpFamily` is the base of the op families' classes: a handle on the context.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import IndexType, StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue

from tilec.dialects import cuda, layout
from tilec.dialects.errors import LayoutError
from tilec.support.diagnostics import TilecError
from tilec.support.locations import get_loc

from .._gpu_builder import DynamicIndex, IndexBuilder, IndexValue
from .base import _check_registers, _fail
from .lowered_values import LoweredValues, LoweringKindError


class LoweringContext:
    """The state of one kernel's lowering that the op families share (module doc)."""

    def __init__(self, entry: Block, launch: layout.LaunchOp, args: dict, ptr_types: dict,
                 tma_maps: dict[Operation, SSAValue]):
        self.b = IndexBuilder(entry)
        self.launch = launch
        self.values = LoweredValues(self._resolve)
        self.args = args
        self.ptr_types = ptr_types
        self.tma_maps = tma_maps
        self.role_threads: int | None = None
        """Threads of the warp_specialize region being lowered (None: the whole block)."""
        self.warpgroup_index: IndexValue | None = None
        """In a warp_specialize region run apart: the thread's warpgroup among the region's."""
        self._lowering_of: Callable[[Operation], Callable[[Operation], None] | None] = lambda op: None
        b = self.b
        bid = [b.add(gpu.BlockIdOp(gpu.DimensionAttr(d))).results[0] for d in (gpu.DimensionEnum.X, gpu.DimensionEnum.Y, gpu.DimensionEnum.Z)]
        tid_op = b.add(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X)))
        tid = tid_op.results[0]
        self._prelude_end = tid_op
        bid[0].name_hint, bid[1].name_hint, bid[2].name_hint, tid.name_hint = "bx", "by", "bz", "tid"
        ba = launch.body.block.args
        for a, v in zip(ba, [*bid, tid]):
            self.values.set_index(a, DynamicIndex(b, v))
        self.tid: IndexValue = DynamicIndex(b, tid)
        self.nthreads: int = launch.num_threads

    @contextmanager
    def region_threads(self, first: int, n: int, apart: int = 0) -> Iterator[None]:
        """Lower as in a block of the `n` threads from thread `first` on (a
        warp_specialize region, roles.py): `tid` rebased, `nthreads` and `role_threads` n.
        `apart` > 0 (a region run apart by its `apart` warpgroups of `n` threads each):
        `tid` rebased to the thread's warpgroup, `warpgroup_index` that warpgroup's index."""
        saved = (self.tid, self.nthreads, self.role_threads, self.warpgroup_index)
        tid = saved[0] - first if first else saved[0]
        if apart:
            self.warpgroup_index = self.b.div_(tid, n)
            tid = self.b.rem_(tid, n)
        self.tid = tid
        self.nthreads = self.role_threads = n
        try:
            yield
        finally:
            self.tid, self.nthreads, self.role_threads, self.warpgroup_index = saved

    def install(self, lowering_of: Callable[[Operation], Callable[[Operation], None] | None]) -> None:
        """The dispatch: op -> its lowering bound to its family (kernel.py), or None."""
        self._lowering_of = lowering_of

    # -------------------------------------------------------------- values
    def _resolve(self, v: SSAValue) -> None:
        """Lower a value used before the kernel lowering saw its definition: a kernel
        argument, or a pure op of the host function."""
        if v in self.args:
            a = self.args[v]
            if isinstance(a.type, TensorType) and a.type.encoding is not None:
                raise TilecError(
                    f"a distributed tensor ({a.type}) cannot come into a launch from its host "
                    "function: registers live inside one kernel; load it there (layout.load)")
            if isinstance(a.type, IndexType):
                self.values.set_index(v, DynamicIndex(self.b, a))
            else:
                self.values.set_scalar(v, a)
            return
        owner = v.owner
        if isinstance(owner, Operation) and owner.parent_op() is not None and not self._in_launch(owner):
            # a pure op of the host function (view or constant): lower it once, at the
            # top of the kernel, so that its value is defined wherever it is used next
            # (not in the branch of an scf.if that first used it)
            with self.b.at_top(self._prelude_end):
                self.lower(owner)
            return
        raise TilecError(f"value {v.name_hint or ''} has no lowering", op=owner if isinstance(owner, Operation) else None)

    def _in_launch(self, op: Operation) -> bool:
        p = op
        while p is not None:
            if p is self.launch:
                return True
            p = p.parent_op()
        return False

    def ssa(self, v: SSAValue) -> SSAValue:
        """The SSA value of a scalar or index operand (an index constant materialised)."""
        return self.b.ssa(self.values.scalar_or_index(v))

    # -------------------------------------------------------------- emitting
    def comment(self, text: str) -> cuda.CommentOp:
        """A `cuda.comment` at the current point (the cuda target prints `// text`)."""
        return self.b.add(cuda.CommentOp(text))

    def in_loop(self, op: Operation) -> bool:
        """Whether `op` is inside an scf.for or scf.while of the launch."""
        p = op.parent_op()
        while p is not None and p is not self.launch:
            if isinstance(p, scf.ForOp | scf.WhileOp):
                return True
            p = p.parent_op()
        return False

    # -------------------------------------------------------------- driver
    def run(self) -> None:
        for op in list(self.launch.body.block.ops):
            self.lower(op)

    def lower(self, op: Operation) -> None:
        """Lower `op` with the lowering of its type (or of its dialect: arith, math);
        errors about its operands are located at it."""
        _check_registers(op)
        loc = get_loc(op)
        saved, saved_src = self.b.loc_attr, self.b.src_location
        if isinstance(op, layout.CopyOp | layout.CopyAsyncOp | layout.LoadOp | layout.StoreOp):
            self.b.loc_attr = StringAttr(loc) if loc else None
        # the reference executor's errors at GPU level (mbarriers, TMA, races, bounds) name
        # the op written: the ops it lowers to take its location (the CUDA is unchanged)
        self.b.src_location = op.location
        try:
            fn = self._lowering_of(op)
            if fn is None:
                raise _fail(op, f"'{op.name}' is not supported by lower-to-gpu")
            fn(op)
        except TilecError as e:
            if e.op is None and e.loc is None:  # about this op's operands: located here
                raise TilecError(e.message, op=op) from None
            raise
        except LoweringKindError as e:
            if not getattr(e, "located", False):  # the innermost op being lowered
                e = LoweringKindError(f"lower-to-gpu internal error while lowering '{op.name}'"
                                      f"{' at ' + loc if loc else ''}: {e}")
                e.located = True  # type: ignore[attr-defined]
            raise e from None
        except LayoutError as e:
            # what the user wrote: located at the op; anything else is a bug in tilec
            raise _fail(op, str(e)) from None
        finally:
            self.b.loc_attr, self.b.src_location = saved, saved_src


class OpFamily:
    """The lowering of one op family: its methods marked `@lowers(OpType, ...)` lower
    those ops, reading and writing only the shared `LoweringContext` (context.py) and
    their own state. kernel.py makes one instance per kernel and dispatches to it."""

    def __init__(self, ctx: LoweringContext):
        self.ctx = ctx

    @property
    def b(self) -> IndexBuilder:
        """The context's builder."""
        return self.ctx.b

    @property
    def values(self) -> LoweredValues:
        """The context's lowered values."""
        return self.ctx.values
