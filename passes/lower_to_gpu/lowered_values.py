"""What each value of a kernel becomes at the GPU level while `lower-to-gpu` lowers it.

One small frozen dataclass per kind, and `LoweredValues`, the typed map from the
`layout`-level SSA values of a launch to them (the role Triton's TritonGPUToLLVM gives
its type converter and each pattern's adaptor: a pattern reads its operands already
converted, in the form their type says):

- `LoweredIndex`: an index (or an i1 computed from indices): a compile-time int or a
  `DynamicIndex` (`_gpu_builder.py`), so that index arithmetic folds.
- `LoweredScalar`: one SSA value of the GPU level: an element, a `vector`, an i1, the
  memref of a pointer argument, an mbarrier, a tensor map.
- `RegisterTensor`: a distributed tensor: this thread's registers, one SSA value per
  register of the tensor type's linear layout, in register order (pointer tensors:
  one index offset per register, `ptr.py`).
- `View` (`view_values.py`): a view: memref, base offset, run-time layout, mask.
- `AsyncToken`: the token of a `layout.copy_async` (nothing at run time: program order
  says what a wait keeps in flight).

A lowering asks for the kind it expects (`index`, `scalar`, `registers`, `view`); a
value of another kind is a `LoweringKindError`, an internal error (a bug of tilec, not
of the program) naming the value, its defining op and both kinds; the driver adds the
op being lowered. A value not yet in the map is resolved once by the `resolve`
callback the kernel lowering gives (kernel arguments, pure ops of the host function)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import Attribute, Operation, SSAValue

from .._gpu_builder import IndexValue
from .view_values import View


@dataclass(frozen=True)
class LoweredIndex:
    """An index value: a compile-time int (or bool) or a `DynamicIndex`."""

    value: IndexValue
    KIND = "an index"


@dataclass(frozen=True)
class LoweredScalar:
    """One SSA value of the GPU level. Index values the lowering computes are
    `LoweredIndex` (so that they fold); an index scalar a combiner region receives
    from registers is a `LoweredScalar`."""

    value: SSAValue
    KIND = "a scalar"


@dataclass(frozen=True)
class RegisterTensor:
    """A distributed tensor held in registers: `registers[r]` is register r of this
    thread in the linear layout of `type` (a `TensorType` with an encoding)."""

    registers: tuple[SSAValue, ...]
    type: Attribute
    KIND = "a register tensor"


@dataclass(frozen=True)
class AsyncToken:
    """The completion token of an asynchronous copy: no run-time value."""

    KIND = "an async token"


LoweredValue = LoweredIndex | LoweredScalar | RegisterTensor | View | AsyncToken
"""What one `layout`-level SSA value is at the GPU level."""


def kind_of(x: LoweredValue) -> str:
    """The kind of `x` in words, for messages."""
    return "a view" if isinstance(x, View) else x.KIND


class LoweringKindError(Exception):
    """A lowering asked for a value in a form it does not have: a bug of `lower-to-gpu`
    (the verifiers make the program well typed), reported with what it was asked."""


class LoweredValues:
    """The lowered value of each SSA value of one launch, by kind (module doc)."""

    def __init__(self, resolve: Callable[[SSAValue], None]):
        self._values: dict[SSAValue, LoweredValue] = {}
        self._resolve = resolve
        """Called with a value not in the map: sets it (or raises)."""

    def __contains__(self, v: SSAValue) -> bool:
        return v in self._values

    # ------------------------------------------------------------------ setting
    def set(self, v: SSAValue, x: LoweredValue) -> None:
        self._values[v] = x

    def set_index(self, v: SSAValue, x: IndexValue) -> None:
        self._values[v] = LoweredIndex(x)

    def set_scalar(self, v: SSAValue, x: SSAValue) -> None:
        self._values[v] = LoweredScalar(x)

    def set_registers(self, v: SSAValue, registers) -> None:
        """`v`'s registers (its type gives their layout)."""
        self._values[v] = RegisterTensor(tuple(registers), v.type)

    def set_view(self, v: SSAValue, view: View) -> None:
        self._values[v] = view

    def set_token(self, v: SSAValue) -> None:
        self._values[v] = AsyncToken()

    # ------------------------------------------------------------------ reading
    def get(self, v: SSAValue) -> LoweredValue:
        if v not in self._values:
            self._resolve(v)
        return self._values[v]

    def _expect(self, v: SSAValue, cls, what: str):
        x = self.get(v)
        if not isinstance(x, cls):
            owner = v.owner
            by = f" (defined by '{owner.name}')" if isinstance(owner, Operation) else " (a block argument)"
            raise LoweringKindError(f"value %{v.name_hint or '?'}{by} was lowered to {kind_of(x)}, "
                                    f"but {what} was asked for")
        return x

    def index(self, v: SSAValue) -> IndexValue:
        return self._expect(v, LoweredIndex, "an index").value

    def scalar(self, v: SSAValue) -> SSAValue:
        return self._expect(v, LoweredScalar, "a scalar").value

    def scalar_or_index(self, v: SSAValue) -> SSAValue | IndexValue:
        """A scalar operand of an op that takes either (arith, conditions)."""
        return self._expect(v, LoweredScalar | LoweredIndex, "a scalar or an index").value

    def registers(self, v: SSAValue) -> tuple[SSAValue, ...]:
        return self._expect(v, RegisterTensor, "a register tensor").registers

    def view(self, v: SSAValue) -> View:
        return self._expect(v, View, "a view")
