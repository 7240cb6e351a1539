"""The interface every distributed-layout attribute implements.

A distributed layout (the encoding of a builtin ``tensor<...>`` in registers) is one
attribute class that answers three questions, so that verifiers, passes, the
reference executor and ``tilec show-layout`` treat every kind of layout (blocked,
slice, linear, MMA accumulator, dot operand, ...) alike:

* :meth:`DistributedEncoding.encoding_rank`: the rank of the tensors it applies to;
* :meth:`DistributedEncoding.linear_layout`: its linear layout for a tensor shape
  (``register, lane, warp, block`` -> ``dim0, dim1, ...``, as Triton's
  ``toLinearLayout``); equality of layouts, conversion kinds and ownership are
  computed from it;
* :meth:`DistributedEncoding.thread_count`: the threads of a block it spans.

``layout_attrs.DistributedLayoutAttr`` is this class, so ``isinstance(attr,
DistributedLayoutAttr)`` accepts every encoding that implements it.  Errors are
``VerifyException`` (a verifier reports them at the op that uses the layout).

Nothing here imports the attribute modules (they import this one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class DistributedEncoding:
    """Mixin of the xDSL attributes that are distributed layouts."""

    def encoding_rank(self) -> int:  # pragma: no cover - every encoding overrides it
        """Rank of the tensors this layout applies to."""
        raise NotImplementedError

    def linear_layout(self, shape: Sequence[int]) -> Any:  # pragma: no cover
        """The :class:`~tilec.dialects.linear.LinearLayout` of a tensor of ``shape``."""
        raise NotImplementedError

    def thread_count(self) -> int:  # pragma: no cover
        """Threads of a block the layout spans (32 x warps for a full warp)."""
        raise NotImplementedError

    def algebra(self) -> Any:  # pragma: no cover
        """The pure-Python layout object (``BlockedLayout``, ``NvidiaMmaLayout``, ...)
        that ``SliceLayout`` and the renderers take as a parent."""
        raise NotImplementedError


class AlgebraEncoding(DistributedEncoding):
    """A distributed-layout attribute whose `data` is its pure-Python layout object
    (`BlockedLayout`, `NvidiaMmaLayout`, `DotOperandLayout`): its rank, linear layout and
    threads are that object's `rank`, `to_linear(shape)` and `threads_per_cta`, and
    `algebra()` is the object itself."""

    def encoding_rank(self) -> int:
        return self.data.rank  # type: ignore[attr-defined]

    def linear_layout(self, shape: Sequence[int]) -> Any:
        return self.data.to_linear(list(shape))  # type: ignore[attr-defined]

    def thread_count(self) -> int:
        return self.data.threads_per_cta  # type: ignore[attr-defined]

    def algebra(self) -> Any:
        return self.data  # type: ignore[attr-defined]
