"""The text of a pointer-tensor program, line by line: what the copy kernels written
as such programs (copy_realign.py) use.

    t = PtrProgram("i32", "tensor<512xi32, #r>")
    n = t.index("n0_i", "%n0")            # an index argument in the offset type
    rows = t.arange("rid", 512, t.R, "#r")
    t.emit(f"%x = arith.muli {rows}, {t.splat('ns', n)} : {t.R}")
    body = "\n    ".join(t.lines)
"""

from __future__ import annotations


class PtrProgram:
    """The lines of one program, its offset type `it` (`i32` or `i64`) and the
    per-row tensor type `R` that `splat` makes unless told another; `indent` is put
    before each line emitted."""

    def __init__(self, it: str, R: str):
        self.it = it
        self.R = R
        self.lines: list[str] = []
        self.indent = ""

    def emit(self, line: str) -> None:
        self.lines.append(self.indent + line)

    def index(self, name: str, value: str) -> str:
        """`value` (an `index`) cast to the offset type."""
        self.emit(f"%{name} = arith.index_cast {value} : index to {self.it}")
        return f"%{name}"

    def const(self, name: str, value: int) -> str:
        self.emit(f"%{name} = arith.constant {value} : {self.it}")
        return f"%{name}"

    def splat(self, name: str, value: str, typ: str | None = None) -> str:
        """The scalar `value` (of the offset type) over a tensor of `typ` (default `R`)."""
        self.emit(f"%{name} = layout.splat {value} : {self.it} -> {typ or self.R}")
        return f"%{name}"

    def arange(self, name: str, n: int, typ: str, lay_name: str) -> str:
        """0 .. n-1 as `typ` (of the offset type, in `lay_name`): `layout.arange` makes
        i32, widened where the offsets are i64."""
        if self.it == "i32":
            self.emit(f"%{name} = layout.arange {{start = 0 : i64, end = {n} : i64}} : {typ}")
        else:
            self.emit(f"%{name}_32 = layout.arange {{start = 0 : i64, end = {n} : i64}} : tensor<{n}xi32, {lay_name}>")
            self.emit(f"%{name} = layout.extsi %{name}_32 : tensor<{n}xi32, {lay_name}> to {typ}")
        return f"%{name}"
