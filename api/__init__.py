"""tilec: a compiler for GPU data movement.

The public Python API. Everything here is a thin re-export of ``tilec.compiler`` and
``tilec.runtime`` so that ``import tilec; tilec.compile(text)`` works.
"""

__version__ = "0.1.0"
