"""Errors raised by the layout algebra.

The algebra (`tilec.dialects.cute`, `tilec.dialects.swizzle`) raises exactly one
exception type for an inadmissible operation: :class:`LayoutError`.  It derives
from :class:`ValueError`, so callers that treat bad values generically still
catch it, while the compiler's diagnostics can catch it specifically and attach
the location of the op that asked for the operation.

A message names the operation, its operands in CuTe text form and the reason,
for example::

    composition((4,6):(1,5), 5:1): shape 5 is not divisible by 4 (shape divisibility condition)

Nothing in this module imports xDSL.
"""

from __future__ import annotations

__all__ = ["LayoutError"]


class LayoutError(ValueError):
    """An inadmissible layout operation, or text that is not a layout.

    Raised for: malformed shape/stride text, incongruent shape and stride,
    out-of-range coordinates, algebra operations whose divisibility conditions
    fail, and operations that need a static value where a dynamic one (``?``)
    was given.
    """
