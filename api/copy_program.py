"""The whole-tensor program of one copy pattern (a `CopyKey`), as IR text.

    text = copy_program(key)     # func.func @tilec_copy(%src, %dst, %n0.., %ss.., %ds..)

Both views have run-time (`?`) extents; a stride is written in the layout where the key
fixes it (0 for a broadcast mode, 1 for a contiguous one) and is an index argument
otherwise, so one program serves every shape and stride of the pattern. The index
arguments come in `CopyPlan.args` order: the extents, the src strides left `?`, the dst
strides left `?`. `uint8` and `bool` are stored as `i8`; when the dtypes differ the copy
carries `convert = "<src dtype>-><dst dtype>"` (dialects/layout.py, `layout.copy`),
PyTorch's conversion between them. The program states what the key knows as facts and
pins nothing: a small extent is promised at most its class (`at_most`), a run-time
stride a multiple of what the key says (`divisible`); the `tile` pass chooses the tile
and the threads from those facts, as it does for a `tilec.Program` of the same views
(`pass_tile` is its choice, for the front end's rules that depend on it). A key whose
index arithmetic fits in 32 bits (`CopyKey.index_bits`) gives the function the promise
`tilec.index_bits = 32`.
"""

from __future__ import annotations

from tilec.dialects.conversions import STORAGE

from .copy_key import FUNCTION, CopyKey, index_arg_names, layout_text, needs_conversion, pass_tile

__all__ = ["FUNCTION", "copy_program", "index_arg_names", "needs_conversion", "pass_tile"]


def _facts(rank: int, strides: tuple[int | None, ...], divisors: tuple[int, ...],
           small: tuple[int | None, ...]) -> str:
    """The view's promises: `divisible` (1 for each extent, the key's divisor for each
    run-time stride) and `at_most` (each small extent's class, 0 for the others and
    the strides); empty where nothing is promised."""
    divs = [divisors[i] if divisors else 1 for i, s in enumerate(strides) if s is None]
    bounds = [c or 0 for c in (small or (None,) * rank)] + [0] * len(divs)
    props = []
    if any(d != 1 for d in divs):
        props.append(f"divisible = array<i64: {', '.join(map(str, [1] * rank + divs))}>")
    if any(bounds):
        props.append(f"at_most = array<i64: {', '.join(map(str, bounds))}>")
    return f" {{{', '.join(props)}}}" if props else ""


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
    sview = f"!layout.tensor<{st}, #layout.cute<{layout_text(key.src_strides)}>, gmem>"
    dview = f"!layout.tensor<{dt}, #layout.cute<{layout_text(key.dst_strides)}>, gmem>"
    params = ", ".join(
        [f"%src: {sptr}", f"%dst: {dptr}"] + [f"{v}: index" for v in extents + ss + ds]
    )
    props = []
    if needs_conversion(key.src_dtype, key.dst_dtype):
        props.append(f'convert = "{key.src_dtype}->{key.dst_dtype}"')
    attrs = f" {{{', '.join(props)}}}" if props else ""
    sdiv = _facts(rank, key.src_strides, key.src_divisors, key.small_extents)
    ddiv = _facts(rank, key.dst_strides, key.dst_divisors, key.small_extents)
    fattrs = " attributes {tilec.index_bits = 32 : i64}" if key.index_bits == 32 else ""
    return (
        f"func.func @{FUNCTION}({params}){fattrs} {{\n"
        f"  %a = layout.view %src({', '.join(extents + ss)}){sdiv} : {sptr} -> {sview}\n"
        f"  %b = layout.view %dst({', '.join(extents + ds)}){ddiv} : {dptr} -> {dview}\n"
        f"  layout.copy %a, %b{attrs} : {sview}, {dview}\n"
        "  func.return\n"
        "}\n"
    )
