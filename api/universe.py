"""tilec's plugin for xDSL's tools (`xdsl-opt` and the others): the `layout` and `cuda`
dialects and tilec's passes, registered through the `xdsl.universe` entry point in
pyproject.toml, so that

    xdsl-opt copy.mlir -p tile,distribute

parses tilec programs and runs tilec's passes (and `-t cuda` prints GPU-level IR as CUDA). xDSL loads this module only when one of its
tools starts; `import tilec` does not import it. tilec's `canonicalize` (which replaces
xDSL's pass of that name in tilec's pipelines) is not registered: xDSL's own is used.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe

from tilec.passes import tilec_passes


def _layout() -> Dialect:
    from tilec.dialects.layout import Layout

    return Layout


def _cuda() -> Dialect:
    from tilec.dialects.cuda import Cuda

    return Cuda


def _factory(cls: type[ModulePass]) -> Callable[[], type[ModulePass]]:
    return lambda: cls


def _passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {cls.name: _factory(cls) for cls in tilec_passes()}


def _cuda_target():
    from tilec.compiler.cuda import CudaTarget

    return CudaTarget


TILEC_UNIVERSE = Universe(all_dialects={"layout": _layout, "cuda": _cuda}, all_passes=_passes(),
                          all_targets={"cuda": _cuda_target})
"""The dialects, passes and the `cuda` target (`xdsl-opt -t cuda`) tilec adds to xDSL's tools."""
