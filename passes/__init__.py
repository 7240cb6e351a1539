"""tilec's passes, one module per pass, each module named as its pass is named on the
command line (`tile` -> passes/tile.py, `remove-layout-conversions` ->
passes/remove_layout_conversions.py). `tilec_passes()` finds them, so adding a pass is
adding its file."""

from __future__ import annotations

import importlib
import pkgutil

from xdsl.passes import ModulePass


def tilec_passes() -> list[type[ModulePass]]:
    """Every ModulePass defined in a module of this package, in file-name order."""
    found: list[type[ModulePass]] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        for obj in vars(mod).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, ModulePass)
                and obj.__module__ == mod.__name__
                and getattr(obj, "name", None) == info.name.replace("_", "-")
            ):
                found.append(obj)
    return found
