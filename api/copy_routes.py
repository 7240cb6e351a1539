"""Which kernels `plan_copy` may route a copy to, beyond the measured rules: a value
in force for a `with` block, for tests that pin each kernel and for benchmarks that
compare them. Nothing in the product changes it; the default is the rules.

    with forced_routes(gather="always"):   # every eligible copy takes the gather kernel
        copy_numpy(dst, src)

A route's setting is "auto" (its rule: the `copy-strategy` pass's cost model for the
gather strategy, passes/_copy_cost.py; `copy_realign.prefer_realign`,
`copy_box.box_shape`), "always" (every copy eligible for the kernel takes it; not for
the box kernel, whose rule is its eligibility) or "never". The gather route is the
`copy-strategy` pass's option `gather=` in the kernel's pipeline
(`copy_kernels.kernel_pipeline`); the others are the plan's.
The setting is context-local (a `contextvars.ContextVar`): it holds for the thread or
task that entered the block, until the block is left.

A `CopyKernels` remembers the plan of each copy structure it has seen: compare routes
with a fresh `CopyKernels(disk=False)` per setting."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields, replace

SETTINGS = ("auto", "always", "never")


@dataclass(frozen=True)
class Routes:
    """The setting of each route (module doc)."""

    gather: str = "auto"
    realign: str = "auto"
    box: str = "auto"

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            allowed = ("auto", "never") if f.name == "box" else SETTINGS
            if value not in allowed:
                raise ValueError(f"copy route {f.name}={value!r}: expected one of {', '.join(allowed)}")


_ROUTES: ContextVar[Routes] = ContextVar("tilec_copy_routes", default=Routes())


def current_routes() -> Routes:
    """The routes in force here (the rules, outside any `forced_routes` block)."""
    return _ROUTES.get()


@contextmanager
def forced_routes(**settings: str) -> Iterator[Routes]:
    """The routes in force with `settings` (`gather=`, `realign=`, `box=`) changed,
    for the `with` block."""
    routes = replace(_ROUTES.get(), **settings)
    token = _ROUTES.set(routes)
    try:
        yield routes
    finally:
        _ROUTES.reset(token)
