"""The text syntax shared by the view ops whose result type the algebra decides
(dialects/layout.py's view ops, dialects/layout_iter.py's iterators), and the nested
coordinates `[(%a, %b), %c]` of `layout.slice`, `layout.read` and `layout.write`
(`print_nested`, `nested_item`), and the operands-then-types form `%a, %b {attrs} : A, B`
of the ops whose parser infers their result type (`print_operands_types`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import OptPropertyDef
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from . import views
from .errors import LayoutError
from .layout_attrs import TensorViewType


class InferredViewResult:
    """Text syntax of the view ops whose result type the algebra decides (Mojo's
    `tile_type()`): `layout.OP %src[coords] | , %tid {props} : SRC [-> RESULT]`. The
    result type may be left out; it is then `result_type(source type, properties)`,
    the type the verifier would accept. Printing always writes it."""

    SYNTAX: ClassVar[str] = ""  # "", "coords" ([%i, %j]) or "tid" (, %tid)

    @classmethod
    def result_type(cls, st: TensorViewType, props: dict[str, Attribute]) -> TensorViewType:
        raise NotImplementedError

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        if self.SYNTAX == "coords":
            printer.print_string("[")
            printer.print_list(self.coords, printer.print_operand)
            printer.print_string("]")
        elif self.SYNTAX == "tid":
            printer.print_string(", ")
            printer.print_operand(self.tid)
        printer.print_op_attributes({**self.properties, **self.attributes})
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser):
        src = parser.parse_unresolved_operand()
        extra: list[UnresolvedOperand] = []
        if cls.SYNTAX == "coords":
            extra = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        elif cls.SYNTAX == "tid":
            parser.parse_punctuation(",")
            extra = [parser.parse_unresolved_operand()]
        start = parser.pos
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        st = parser.parse_type()
        names = cls.get_irdl_definition().properties
        props = {k: v for k, v in attrs.items() if k in names}
        others = {k: v for k, v in attrs.items() if k not in names}
        if parser.parse_optional_punctuation("->") is not None:
            rt = parser.parse_type()
        else:
            missing = [n for n, d in names.items() if n not in props and not _optional_prop(d)]
            if missing:
                parser.raise_error(f"{cls.name} needs {', '.join(missing)}", start, parser.pos)
            if not isinstance(st, TensorViewType):
                parser.raise_error(f"{cls.name} takes a !layout.tensor, got {st}", start, parser.pos)
            try:
                rt = cls.result_type(st, props)
            except (LayoutError, VerifyException) as e:
                parser.raise_error(f"{cls.name}: no result type follows from {st}: {e}", start, parser.pos)
        operands = [parser.resolve_operand(src, st)] + [parser.resolve_operand(o, IndexType()) for o in extra]
        if cls.SYNTAX == "coords":
            operands = [operands[0], operands[1:]]
        return cls.build(operands=operands, properties=props, attributes=others, result_types=[rt])


def _optional_prop(definition) -> bool:
    return isinstance(definition, OptPropertyDef)


def print_nested(printer: Printer, profile: Sequence[int], leaf: Callable[[], None]) -> None:
    """`[x, (y, z)]`: the nested coordinate `profile` describes (each node's arity in
    preorder, 0 for a leaf, as `views.count_roots` reads it), each leaf printed by the
    next call of `leaf`."""
    arities = iter(profile)

    def node() -> None:
        arity = next(arities)
        if not arity:
            leaf()
            return
        printer.print_string("(")
        for i in range(arity):
            printer.print_string(", " if i else "")
            node()
        printer.print_string(")")

    printer.print_string("[")
    for i in range(views.count_roots(profile)):
        printer.print_string(", " if i else "")
        node()
    printer.print_string("]")


def nested_item(parser: Parser, profile: list[int], leaf: Callable[[], None], what: str) -> Callable[[], None]:
    """The parser of one item of a nested coordinate: a leaf (parsed by `leaf`) or
    `(item, item, ...)`; each node's arity is appended to `profile` in preorder (0 for a
    leaf: what `print_nested` prints back). A nest not closed is an error naming `what`."""

    def one() -> None:
        if parser.parse_optional_punctuation("(") is not None:
            at = len(profile)
            profile.append(0)
            while True:
                one()
                profile[at] += 1
                if parser.parse_optional_punctuation(")") is not None:
                    return
                parser.parse_punctuation(",", f" or ')' in a nested {what}")
        profile.append(0)
        leaf()

    return one


def print_operands_types(printer: Printer, op: Operation, operands: Sequence[SSAValue],
                         types: Sequence[Attribute], result_type: Attribute | None = None) -> None:
    """Prints ` %a, %b {attrs} : A, B` (`op`'s attributes, none where it has none), and
    ` -> R` after it where `result_type` is given: the custom syntax of the ops whose
    result type their parser infers from the types written (`layout.addptr`,
    `layout.iter_get`, ...)."""
    printer.print_string(" ")
    printer.print_list(operands, printer.print_operand)
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_list(types, printer.print_attribute)
    if result_type is not None:
        printer.print_string(" -> ")
        printer.print_attribute(result_type)
