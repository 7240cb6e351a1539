"""The whole-tensor program of one copy pattern (a `CopyKey`): typed IR (`tiled_module`),
and its text.

    module = tiled_module(key)   # func.func @tilec_copy(%src, %dst, %n0.., %ss.., %ds..)
    text = copy_program(key)     # its text

Both views have run-time (`?`) extents; a stride is written in the layout where the key
fixes it (0 for a broadcast mode, 1 for a contiguous one) and is an index argument
otherwise, so one program serves every shape and stride of the pattern. The index
arguments come in `CopyPlan.args` order: the extents, the src strides left `?`, the dst
strides left `?`. `uint8` and `bool` are stored as `i8`; when the dtypes differ the copy
carries `convert = "<src dtype>-><dst dtype>"` (dialects/layout.py, `layout.copy`),
PyTorch's conversion between them. The program states what the key knows as facts and
pins nothing: a small extent is promised at most its class (`at_most`), a run-time
stride a multiple of what the key says (`divisible`), or congruent to its stated residue
(`residue`); the `tile` pass chooses the tile
and the threads from those facts, as it does for a `tilec.Program` of the same views
(`pass_tile` is its choice, for the front end's rules that depend on it). A key whose
index arithmetic fits in 32 bits (`CopyKey.index_bits`) gives the function the promise
`tilec.index_bits = 32`.
"""

from __future__ import annotations

from tilec.dialects.conversions import STORAGE

from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Region

from .copy_key import FUNCTION, CopyKey, index_arg_names, layout_text, needs_conversion, pass_tile

__all__ = ["FUNCTION", "copy_program", "index_arg_names", "needs_conversion", "pass_tile", "tiled_module"]


def _facts(rank: int, strides: tuple[int | None, ...], divisors: tuple[int, ...],
           small: tuple[int | None, ...], exact: tuple[bool, ...], last: int = 1,
           extent_divisors: tuple[int, ...] = (), residues: tuple[tuple[int, int], ...] = (),
           ) -> tuple[list[int] | None, list[int] | None, list[int] | None]:
    """The view's promises, None where nothing is promised: `divisible` (for each
    extent its class where the extent is exactly its class, else 1, at least the key's
    `extent_divisors`, the last extent at least `last`, the key's `last_divisor`; the key's divisor
    for each run-time stride, or the modulus of its stated residue), `at_most` (each small
    extent's class, 0 for the others and the strides): `at_most = B` with `divisible = B`
    says the extent is B; and `residue` (a run-time stride's residue, the key's `residues`,
    0 for the others)."""
    small = small or (None,) * rank
    exact = exact or (False,) * rank
    cong = [residues[i] if residues and residues[i][0] > 1 else (divisors[i] if divisors else 1, 0)
            for i, s in enumerate(strides) if s is None]
    ext = [c if c and e else 1 for c, e in zip(small, exact)]
    ext = [max(x, d) for x, d in zip(ext, extent_divisors or (1,) * rank)]
    ext[-1] = max(ext[-1], last)
    bounds = [c or 0 for c in small] + [0] * len(cong)
    divisible = ext + [m for m, _ in cong]
    res = [0] * rank + [r for _, r in cong]
    return ((divisible if any(d != 1 for d in divisible) else None), (bounds if any(bounds) else None),
            (res if any(res) else None))


def _mul(ops: list, a, b):
    from xdsl.dialects import arith

    op = arith.MuliOp(a, b)
    ops.append(op)
    return op.result


def tiled_module(key: CopyKey) -> ModuleOp:
    """The tiled kernel's program of `key`, built as typed IR (module doc): one
    `layout.copy` between two views of run-time extents and strides, with the key's
    facts as the views' promises."""
    from tilec.compiler.builder_types import element_type
    from tilec.dialects import cute
    from tilec.dialects.layout import CopyOp, ViewOp
    from tilec.dialects.layout_attrs import PtrType, TensorViewType
    from tilec.support.index_width import INDEX_BITS_ATTR

    rank = key.rank
    st, dt = element_type(STORAGE[key.src_dtype]), element_type(STORAGE[key.dst_dtype])
    sptr, dptr = PtrType(st, key.src_align), PtrType(dt, key.dst_align)
    names = index_arg_names(key)
    block = Block(arg_types=[sptr, dptr] + [IndexType()] * len(names))
    for arg, name in zip(block.args, ["src", "dst", *names]):
        arg.name_hint = name
    index = list(block.args[2:])
    nss = sum(1 for s in key.src_strides if s is None)
    nds = sum(1 for s in key.dst_strides if s is None)
    extents, ss, ds = index[:rank], index[rank : rank + nss], index[rank + nss : rank + nss + nds]
    ops = []
    if key.dst_flat:
        # the dst's strides as the products of the extents: the fact that it is compact
        ds, acc = [], None
        for k in range(rank - 1, 0, -1):
            acc = extents[k] if acc is None else _mul(ops, extents[k], acc)
            ds.insert(0, acc)
        ds = [s for s, c in zip(ds, key.dst_strides) if c is None]
    ptrs = [block.args[0], block.args[1]]
    if key.aligned_pointers:
        # the pointers aligned down, moved by their misalignments: the realign facts
        from tilec.dialects.layout_ptr import AddPtrOp

        ptrs = [AddPtrOp(p, m) for p, m in zip(ptrs, index[-2:])]
        ops += ptrs
        ptrs = [p.result for p in ptrs]
    views = []
    for ptr, elem, strides, divisors, dyn, name, residues in (
        (ptrs[0], st, key.src_strides, key.src_divisors, ss, "a", key.src_residues),
        (ptrs[1], dt, key.dst_strides, key.dst_divisors, ds, "b", key.dst_residues),
    ):
        divisible, at_most, residue = _facts(rank, strides, divisors, key.small_extents, key.exact_extents,
                                             key.last_divisor, key.extent_divisors, residues)
        t = TensorViewType(elem, cute.parse_layout(layout_text(strides)), "gmem")
        view = ViewOp(ptr, t, [*extents, *dyn], divisible=divisible, at_most=at_most, residue=residue)
        view.result.name_hint = name
        views.append(view)
    convert = f"{key.src_dtype}->{key.dst_dtype}" if needs_conversion(key.src_dtype, key.dst_dtype) else None
    block.add_ops([*ops, *views, CopyOp(views[0].result, views[1].result, convert), func.ReturnOp()])
    f = func.FuncOp(FUNCTION, ([sptr, dptr] + [IndexType()] * len(names), []), Region(block))
    if key.index_bits == 32:
        f.attributes[INDEX_BITS_ATTR] = IntegerAttr(32, i64)
    return ModuleOp([f])


def copy_program(key: CopyKey) -> str:
    """IR text of the copy `key` describes (module doc): `tiled_module`'s program,
    printed, whose strategy the passes choose."""
    from tilec.compiler.pipeline import emit

    return emit(tiled_module(key))
