"""A one-line progress display for long work, on a terminal only.

    with Progress(total=len(chunks)) as progress:
        for chunk in chunks:
            progress.step(f"compiling {chunk.name}")    # "[3/12] compiling ... "
            work(chunk)
            progress.clear()                             # before writing to the terminal
            print(result)

    for case in track(cases, lambda c: f"running {c.name}"):
        work(case)                                       # the body must not print

Contract:
- The line goes to `stream` (default: sys.stderr, looked up when the Progress is made)
  and only when that stream is a terminal (`stream.isatty()`); on anything else (a
  pipe, a file, a StringIO) nothing at all is written, so logs and pipes never see it.
  `enabled=` forces it either way.
- Each `step` rewrites the same line in place: a carriage return, the text, and
  spaces over whatever was longer before; it is cut to the terminal's width so that it
  never wraps (a wrapped line cannot be rewritten with `\r`).
- The line is erased by `clear()`, and always when the `with` block is left (an
  exception included), so that later output (an error message) starts on a clean
  line. Write to the terminal only after `clear()`; the next `step` draws it again.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TextIO, TypeVar

T = TypeVar("T")

__all__ = ["Progress", "track"]


class Progress:
    """`[i/total] text ...` on one terminal line, rewritten at each `step`."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool | None = None):
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            try:
                enabled = bool(isatty and isatty())
            except (ValueError, OSError):  # a closed stream
                enabled = False
        self.enabled = enabled
        self.done = 0
        self._shown = 0  # characters now on the line (0: nothing shown)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.clear()

    def line(self, text: str) -> str:
        """The text a step shows for the `done`-th of `total` items."""
        return f"[{self.done}/{self.total}] {text} ..."

    def step(self, text: str) -> None:
        """Count one more item and show `text` for it."""
        self.done += 1
        if not self.enabled:
            return
        width = max(shutil.get_terminal_size((80, 24)).columns - 1, 10)
        line = self.line(text)[:width]
        pad = " " * max(self._shown - len(line), 0)
        self._write("\r" + line + pad)
        self._shown = len(line)

    def clear(self) -> None:
        """Erase the line (nothing if nothing is shown)."""
        if self.enabled and self._shown:
            self._write("\r" + " " * self._shown + "\r")
        self._shown = 0

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a terminal gone away must not stop the work
            self.enabled = False


def track(
    items: Iterable[T],
    describe: Callable[[T], str] = str,
    total: int | None = None,
    stream: TextIO | None = None,
) -> Iterator[T]:
    """Yield `items`, showing `describe(item)` as a Progress step before each; the line
    is erased when the loop ends (or is left). `total` defaults to `len(items)`."""
    if total is None:
        items = list(items)
        total = len(items)
    with Progress(total, stream=stream) as progress:
        for item in items:
            progress.step(describe(item))
            yield item
