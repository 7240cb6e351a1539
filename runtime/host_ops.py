"""What the ops of a host function compute, by op name, and a host function as plain
data (a recipe) that runs without xDSL.

    program = RecipeProgram(recipe)          # recipe: HostProgram(func).recipe
    launches = program.run([src, dst, 1000])  # the same launches as HostProgram.run

`runtime/host.py` builds its steps from these tables; a recipe is the JSON-able list of
those steps, so a kernel read back from a disk cache (runtime/cache.py's `LaunchEntry`) computes its
grids and arguments without importing xDSL or parsing IR. Values are kept as signed
integers of the op's width, as in host.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tilec.support.diagnostics import TilecError


@dataclass(frozen=True)
class Launch:
    """One `gpu.launch_func` as run: kernel name, sizes and argument values."""

    kernel: str
    """The kernel's symbol name (`@mod::@name` -> `name`)."""
    module: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple[Any, ...]
    dynamic_shared_bytes: int = 0


def signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if bits > 1 and value >> (bits - 1) else value


def unsigned(value: int, bits: int) -> int:
    return value & ((1 << bits) - 1)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _binary(fn: Callable[[int, int, int], int], divides: bool = False):
    """An arith op on two signless integers of `bits` bits (values kept signed);
    `op` (an xDSL op or None) only locates the division-by-zero error."""

    def run(op: Any, a: int, b: int, bits: int) -> int:
        if divides and b == 0:
            raise TilecError("division by zero in the host function", op=op)
        if bits == 1:
            return fn(a & 1, b & 1, bits) & 1
        return signed(fn(a, b, bits), bits)

    return run


BINARY: dict[str, Callable[[Any, int, int, int], int]] = {
    "arith.addi": _binary(lambda a, b, n: a + b),
    "arith.subi": _binary(lambda a, b, n: a - b),
    "arith.muli": _binary(lambda a, b, n: a * b),
    "arith.divsi": _binary(lambda a, b, n: _trunc_div(a, b), divides=True),
    "arith.divui": _binary(lambda a, b, n: unsigned(a, n) // unsigned(b, n), divides=True),
    "arith.remsi": _binary(lambda a, b, n: a - b * _trunc_div(a, b), divides=True),
    "arith.remui": _binary(lambda a, b, n: unsigned(a, n) % unsigned(b, n), divides=True),
    "arith.floordivsi": _binary(lambda a, b, n: a // b, divides=True),
    "arith.ceildivsi": _binary(lambda a, b, n: -((-a) // b), divides=True),
    "arith.ceildivui": _binary(lambda a, b, n: -((-unsigned(a, n)) // unsigned(b, n)), divides=True),
    "arith.minsi": _binary(lambda a, b, n: min(a, b)),
    "arith.maxsi": _binary(lambda a, b, n: max(a, b)),
    "arith.minui": _binary(lambda a, b, n: a if unsigned(a, n) <= unsigned(b, n) else b),
    "arith.maxui": _binary(lambda a, b, n: a if unsigned(a, n) >= unsigned(b, n) else b),
    "arith.andi": _binary(lambda a, b, n: a & b),
    "arith.ori": _binary(lambda a, b, n: a | b),
    "arith.xori": _binary(lambda a, b, n: a ^ b),
    "arith.shli": _binary(lambda a, b, n: a << b if 0 <= b < n else 0),
    "arith.shrsi": _binary(lambda a, b, n: a >> min(b, n - 1) if b >= 0 else 0),
    "arith.shrui": _binary(lambda a, b, n: unsigned(a, n) >> b if 0 <= b < n else 0),
}
"""Binary arith ops by name: (op or None, a, b, bits) -> result."""

CMPI: list[Callable[[int, int, int], bool]] = [
    lambda a, b, n: a == b,
    lambda a, b, n: a != b,
    lambda a, b, n: a < b,
    lambda a, b, n: a <= b,
    lambda a, b, n: a > b,
    lambda a, b, n: a >= b,
    lambda a, b, n: unsigned(a, n) < unsigned(b, n),
    lambda a, b, n: unsigned(a, n) <= unsigned(b, n),
    lambda a, b, n: unsigned(a, n) > unsigned(b, n),
    lambda a, b, n: unsigned(a, n) >= unsigned(b, n),
]
"""`arith.cmpi` by predicate number."""


def check_launch_size(dims: Sequence[Any], op: Any = None) -> None:
    for n in dims:
        if not isinstance(n, int) or n < 1:
            raise TilecError(f"launch size must be a positive integer, got {n}", op=op)


Step = Callable[[list[Any], list[Launch]], None]
"""One step of a host program: reads and writes the numbered value slots, may append a launch."""


def recipe_step(s: list, op: Any = None) -> Step:
    """The step that runs the recipe step `s` (the forms `RecipeProgram` lists); `op`
    (the xDSL op it came from, or None for a recipe read back from disk) locates the
    errors it raises."""
    kind = s[0]
    if kind == "const":
        _, out, value = s

        def const(v: list[Any], _: list[Launch]) -> None:
            v[out] = value

        return const
    if kind == "bin":
        _, name, out, a, b, bits = s
        fn = BINARY[name]

        def binary(v: list[Any], _: list[Launch]) -> None:
            v[out] = fn(op, v[a], v[b], bits)

        return binary
    if kind == "cmpi":
        _, pred, out, a, b, bits = s
        cmp = CMPI[pred]

        def cmpi(v: list[Any], _: list[Launch]) -> None:
            v[out] = int(cmp(v[a], v[b], bits))

        return cmpi
    if kind == "select":
        _, out, c, a, b = s

        def select(v: list[Any], _: list[Launch]) -> None:
            v[out] = v[a] if v[c] else v[b]

        return select
    if kind == "cast":
        _, how, out, a, bits = s
        conv = signed if how == "signed" else unsigned

        def cast(v: list[Any], _: list[Launch]) -> None:
            v[out] = conv(v[a], bits)

        return cast
    if kind == "launch":
        _, kernel, module, sizes, shared, args = s

        def launch(v: list[Any], launches: list[Launch]) -> None:
            dims = [v[i] for i in sizes]
            check_launch_size(dims, op)
            launches.append(
                Launch(
                    kernel,
                    module,
                    (dims[0], dims[1], dims[2]),
                    (dims[3], dims[4], dims[5]),
                    tuple(v[i] for i in args),
                    v[shared] if shared is not None else 0,
                )
            )

        return launch
    raise TilecError(f"host recipe: unknown step {kind!r}")


class StepProgram:
    """A host function as steps over numbered value slots (the arguments first), and
    the one loop that runs them: `HostProgram` (runtime/host.py) makes the steps from
    IR, `RecipeProgram` from a recipe."""

    name: str
    arg_widths: list[int | None]
    """Bits of each integer argument; None for a buffer (passed through untouched)."""
    slot_count: int
    steps: list[Step]

    def run(self, args: Sequence[Any]) -> list[Launch]:
        """The launches for `args` (any objects for buffers, ints for integers)."""
        if len(args) != len(self.arg_widths):
            raise TilecError(f"'{self.name}' takes {len(self.arg_widths)} arguments, got {len(args)}")
        values: list[Any] = [None] * self.slot_count
        for i, (value, width) in enumerate(zip(args, self.arg_widths)):
            values[i] = signed(int(value), width) if width is not None else value
        launches: list[Launch] = []
        for step in self.steps:
            step(values, launches)
        return launches


class RecipeProgram(StepProgram):
    """A host function from its recipe (`HostProgram.recipe`): the same `run`, no
    xDSL. A recipe is a dict: `name`, `arg_widths` (bits per argument, None for
    buffers), `slots` (how many values) and `steps`, each a list:
    `["const", out, value]`, `["bin", name, out, a, b, bits]`,
    `["cmpi", predicate, out, a, b, bits]`, `["select", out, c, a, b]`,
    `["cast", "signed" | "unsigned", out, a, bits]` and
    `["launch", kernel, module, [6 size slots], shared slot or None, [arg slots]]`."""

    def __init__(self, recipe: dict):
        self.name = recipe["name"]
        self.arg_widths = list(recipe["arg_widths"])
        self.slot_count = int(recipe["slots"])
        self.steps = [recipe_step(s) for s in recipe["steps"]]
