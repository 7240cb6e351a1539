"""`lower-convert-layout`: each remaining conversion becomes a register permutation, a
warp shuffle or a shared-memory round trip."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType, i64
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from tilec.compiler.locations import copy_loc
from tilec.dialects import layout
from tilec.dialects.layout_attrs import CuteLayoutAttr, TensorViewType, element_bytes
from tilec.dialects import cute

from ._layout_cost import kind_of, linear_of
from ._smem_layout import SmemChoice, SmemLayout, choose_smem_layout


def shuffles_supported() -> bool:
    """Whether `lower-to-gpu` lowers conversions marked `lowering = "shuffle"` (it says so
    with a module-level `SHUFFLE_CONVERSIONS = True`)."""
    try:
        from tilec.passes import lower_to_gpu  # type: ignore[attr-defined]
    except ImportError:
        return False
    return bool(getattr(lower_to_gpu, "SHUFFLE_CONVERSIONS", False))


@dataclass(frozen=True)
class LowerConvertLayout(ModulePass):
    """Lowers each `layout.convert_layout` by what its linear forms say moves: registers only, lanes of a warp (shuffles), or threads of the block (a shared-memory round trip with a bank-conflict-free layout).

    Decision (`linear.conversion_kind` on the layouts for the tensor's shape):

    - identity / register: the conversion stays, marked `lowering = "register"`;
      `lower-to-gpu` renames or permutes registers.
    - warp_shuffle: the conversion stays, marked `lowering = "shuffle"`, when
      `lower-to-gpu` can lower it (`shuffle=auto`, the default, asks it; `on`/`off`
      force); otherwise it goes through shared memory.
    - shared: written in the layout dialect, inside the enclosing `layout.launch`:

          %s = layout.alloc : !layout.tensor<T, SMEM, smem>      (at the top of the launch)
          layout.barrier                                          (only inside a loop)
          layout.store %v, %s {bank_conflicts = 0, vector = 4}
          layout.barrier
          %w = layout.load %s {bank_conflicts = 0, vector = 1} -> target layout

      SMEM is a padded CuTe layout (`(32,32):(33,1)`) or a swizzled
      `#layout.composed<swizzle<B,M,S> o 0 o L>`, chosen by simulating the addresses of
      the write (source layout) and of the read (target layout) over 32 banks of 4 bytes
      (`_smem_layout.bank_conflicts`): fewest conflicts first, then fewest wavefronts,
      widest vectors, smallest buffer. `bank_conflicts` on the store and load is the
      worst ways - 1 (0 = conflict-free) of that access; `vector` the registers moved per
      access. One buffer per conversion, the size of the tile plus padding.

    Anchors: Triton's ConvertLayoutOpToLLVM (shared-memory path with padding or swizzling)
    and the Linear Layouts paper (arXiv 2505.23819) on optimal swizzling.

    Options: `shuffle` = auto | on | off; `smem_layout` = best (default) | plain
    (row-major, unpadded, unswizzled: a reference lowering for tests and benchmarks).
    Preconditions: conversions are inside a `layout.launch`; shapes are powers of two for
    the conflict analysis (otherwise the buffer is row-major and unannotated)."""

    name = "lower-convert-layout"

    shuffle: str = "auto"
    smem_layout: str = "best"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        use_shuffle = {"auto": shuffles_supported(), "on": True, "off": False}.get(self.shuffle)
        if use_shuffle is None:
            raise PassFailedException(f"lower-convert-layout: shuffle must be auto, on or off, got {self.shuffle!r}")
        if self.smem_layout not in ("best", "plain"):
            raise PassFailedException(f"lower-convert-layout: smem-layout must be best or plain, got {self.smem_layout!r}")
        for cvt in [o for o in op.walk() if isinstance(o, layout.ConvertLayoutOp)]:
            src, dst = cvt.source.type, cvt.result.type
            kind = kind_of(src, dst)
            if kind in ("identity", "register"):
                cvt.attributes["lowering"] = StringAttr("register")
            elif kind == "warp_shuffle" and use_shuffle:
                cvt.attributes["lowering"] = StringAttr("shuffle")
            else:
                lower_through_smem(cvt, plain=self.smem_layout == "plain")


def smem_choice(src: TensorType, dst: TensorType, plain: bool = False) -> SmemChoice | None:
    """The shared layout for a conversion (None without linear forms)."""
    ls, ld = linear_of(src), linear_of(dst)
    if ls is None or ld is None:
        return None
    shape = tuple(src.get_shape())
    cands = [SmemLayout(shape, tuple(reversed(range(len(shape)))))] if plain else None
    return choose_smem_layout(ls, ld, shape, element_bytes(src.element_type), cands)


def lower_through_smem(cvt: layout.ConvertLayoutOp, plain: bool = False) -> None:
    launch = layout.enclosing_launch(cvt)
    if launch is None:
        raise PassFailedException("layout.convert_layout outside a layout.launch cannot use shared memory")
    src, dst = cvt.source.type, cvt.result.type
    choice = smem_choice(src, dst, plain)
    if choice is not None:
        smem_attr = choice.layout.attr()
    else:
        shape = tuple(src.get_shape())
        smem_attr = CuteLayoutAttr(cute.Layout(shape, cute.compact_row_major(shape)))
    buf_t = TensorViewType(src.element_type, smem_attr, "smem")
    alloc = layout.AllocOp(buf_t)
    Rewriter.insert_op(alloc, InsertPoint.at_start(launch.body.block))
    store = layout.StoreOp(cvt.source, alloc.result)
    load = layout.LoadOp(alloc.result, dst)
    if choice is not None:
        for access, side in ((store, choice.write), (load, choice.read)):
            access.attributes["bank_conflicts"] = IntegerAttr(side.conflicts, i64)
            if side.vector > 1:
                access.properties["vector"] = IntegerAttr(side.vector, i64)
    ops = []
    if _in_loop(cvt, launch):
        ops.append(layout.BarrierOp())
    ops += [store, layout.BarrierOp(), load]
    Rewriter.insert_op(ops, InsertPoint.before(cvt))
    copy_loc(cvt, alloc, *ops)
    cvt.result.replace_all_uses_with(load.result)
    Rewriter.erase_op(cvt)


def _in_loop(op, launch) -> bool:
    p = op.parent_op()
    while p is not None and p is not launch:
        if isinstance(p, scf.ForOp | scf.WhileOp):
            return True
        p = p.parent_op()
    return False
