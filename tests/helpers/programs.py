"""Text of small test programs shared by the lowering tests."""

from __future__ import annotations

from collections.abc import Sequence


def blocked_attr(spt, tpw, wpc, order) -> str:
    """`#layout.blocked<...>` text of a blocked layout's four lists."""
    return (
        f"#layout.blocked<{{sizePerThread = {list(spt)}, threadsPerWarp = {list(tpw)}, "
        f"warpsPerCTA = {list(wpc)}, order = {list(order)}}}>"
    )


def conversion_program(shape: Sequence[int], src_enc: str, dst_enc: str, et: str, threads: int) -> str:
    """@cvt: one block of `threads` loads a row-major tile of `shape` in layout
    `src_enc`, converts it to `dst_enc` and stores it (buffers %p -> %q)."""
    dims = "x".join(map(str, shape))
    strides, acc = [], 1
    for s in reversed(shape):
        strides.insert(0, acc)
        acc *= s
    cute = f"({','.join(map(str, shape))}):({','.join(map(str, strides))})"
    view = f"!layout.tensor<{et}, #layout.cute<{cute}>, gmem>"
    ts, td = f"tensor<{dims}x{et}, {src_enc}>", f"tensor<{dims}x{et}, {dst_enc}>"
    return f"""
func.func @cvt(%p: !layout.ptr<{et}>, %q: !layout.ptr<{et}>) {{
  %a = layout.view %p : !layout.ptr<{et}> -> {view}
  %b = layout.view %q : !layout.ptr<{et}> -> {view}
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : {view} -> {ts}
    %w = layout.convert_layout %v : {ts} -> {td}
    layout.store %w, %b : {td}, {view}
  }}
  func.return
}}
"""


def one_block_program(
    name: str, et: str, src_view: str, dst_view: str, threads: int, body: str,
    *, twice: bool = False, preamble: str = "",
) -> str:
    """@name(%src, %dst): views %a of %src and %b of %dst (pointers to `et`), and one
    block of `threads` that runs `body` (which may use %a, %b and %c1). With `twice`, the
    body runs in an `scf.for` of two iterations (induction variable %it), so buffers and
    registers are reused across iterations. `preamble` (attribute and type aliases) goes
    before the function."""
    if twice:
        body = f"""
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    scf.for %it = %c0 to %c2 step %c1 {{{body}
    }}"""
    return f"""{preamble}
func.func @{name}(%src: !layout.ptr<{et}>, %dst: !layout.ptr<{et}>) {{
  %a = layout.view %src : !layout.ptr<{et}> -> {src_view}
  %b = layout.view %dst : !layout.ptr<{et}> -> {dst_view}
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads({threads}) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):{body}
  }}
  func.return
}}
"""
