"""The whole-tensor program of one copy pattern (a `CopyKey`), as IR text.

    text = copy_program(key)     # func.func @tilec_copy(%src, %dst, %n0.., %ss.., %ds..)

Both views have run-time (`?`) extents; a stride is written in the layout where the key
fixes it (0 for a broadcast mode, 1 for a contiguous one) and is an index argument
otherwise, so one program serves every shape and stride of the pattern. The index
arguments come in `CopyPlan.args` order: the extents, the src strides left `?`, the dst
strides left `?`. `uint8` and `bool` are stored as `i8`; when the dtypes differ the copy
carries `convert = "<src dtype>-><dst dtype>"` (dialects/layout.py, `layout.copy`),
PyTorch's conversion between them. When the key fixes small extents, the copy pins the
tile that the `tile` pass's heuristic picks for them (`tile_choice`). A key whose index
arithmetic fits in 32 bits (`CopyKey.index_bits`) gives the function the promise
`tilec.index_bits = 32`.
"""

from __future__ import annotations

from tilec.dialects.conversions import STORAGE

from .copy_key import FUNCTION, CopyKey, index_arg_names, needs_conversion
from .copy_tile import _layout, copy_tile

__all__ = ["FUNCTION", "copy_program", "index_arg_names", "needs_conversion", "tile_choice"]


def tile_choice(key: CopyKey) -> tuple[tuple[int, ...] | None, int]:
    """(tile, threads per block) for the key (`copy_tile.copy_tile`); `(None, 0)`
    when the `tile` pass decides alone (and for the gather kernel, which has no
    tiled copy)."""
    if key.gather or key.box or key.realign:
        return None, 0
    return copy_tile(key)


def _divisible(rank: int, strides: tuple[int | None, ...], divisors: tuple[int, ...]) -> str:
    """The view's `divisible` promise: 1 for each extent, the key's divisor for each
    run-time stride; empty when nothing is promised."""
    divs = [divisors[i] if divisors else 1 for i, s in enumerate(strides) if s is None]
    if all(d == 1 for d in divs):
        return ""
    return f" {{divisible = array<i64: {', '.join(map(str, [1] * rank + divs))}>}}"


def copy_program(key: CopyKey) -> str:
    """IR text of the copy `key` describes (module doc; the gather kernel of
    copy_gather.py where `key.gather`, the realign kernel of copy_realign.py where
    `key.realign`)."""
    if key.gather:
        from .copy_gather import gather_program

        return gather_program(key)
    if key.box:
        from .copy_box import box_program

        return box_program(key)
    if key.realign:
        from .copy_realign import realign_program

        return realign_program(key)
    st, dt = STORAGE[key.src_dtype], STORAGE[key.dst_dtype]
    rank = key.rank
    names = [f"%{n}" for n in index_arg_names(key)]
    extents = names[:rank]
    nss = sum(1 for s in key.src_strides if s is None)
    ss, ds = names[rank : rank + nss], names[rank + nss :]
    sptr = f"!layout.ptr<{st}, align {key.src_align}>"
    dptr = f"!layout.ptr<{dt}, align {key.dst_align}>"
    sview = f"!layout.tensor<{st}, #layout.cute<{_layout(key.src_strides)}>, gmem>"
    dview = f"!layout.tensor<{dt}, #layout.cute<{_layout(key.dst_strides)}>, gmem>"
    params = ", ".join(
        [f"%src: {sptr}", f"%dst: {dptr}"] + [f"{v}: index" for v in extents + ss + ds]
    )
    props = []
    if needs_conversion(key.src_dtype, key.dst_dtype):
        props.append(f'convert = "{key.src_dtype}->{key.dst_dtype}"')
    tile, _ = tile_choice(key)
    if tile is not None:
        props.append(f"tile = array<i64: {', '.join(map(str, tile))}>")
    attrs = f" {{{', '.join(props)}}}" if props else ""
    sdiv = _divisible(rank, key.src_strides, key.src_divisors)
    ddiv = _divisible(rank, key.dst_strides, key.dst_divisors)
    fattrs = " attributes {tilec.index_bits = 32 : i64}" if key.index_bits == 32 else ""
    return (
        f"func.func @{FUNCTION}({params}){fattrs} {{\n"
        f"  %a = layout.view %src({', '.join(extents + ss)}){sdiv} : {sptr} -> {sview}\n"
        f"  %b = layout.view %dst({', '.join(extents + ds)}){ddiv} : {dptr} -> {dview}\n"
        f"  layout.copy %a, %b{attrs} : {sview}, {dview}\n"
        "  func.return\n"
        "}\n"
    )
