"""tilec.runtime.reference: the CPU reference executor, the oracle that makes every
pass testable without a GPU.

    from tilec.runtime.reference import run, random_inputs, check_equivalence
    outputs = run(module, random_inputs(module, seed=0))          # {name: array}
    report = check_equivalence(before, after, seed=0)              # bitwise
    assert report, str(report)

How it runs a program
---------------------
It is built on xDSL's interpreter framework (`xdsl.interpreter.Interpreter`, with
`@register_impls` classes of `@impl(Op)` methods, one module per dialect), with
one override of the per-op dispatch (`executor.ReferenceInterpreter`). Host
functions run op by op on scalars; each `gpu.launch_func` runs its kernel once for
*all threads of the whole grid in lockstep*: every SSA value inside a kernel is a
NumPy array over the T threads (shape `[T]`, `[T, *vector_shape]`) or a scalar when
it is uniform (`values.py`). Blocks are independent, so lockstep is one of their legal
schedules; within a block the race checks make the result independent of the
schedule. Divergent `scf.if` / `scf.for` / `scf.while` run under a mask of active
threads (`scf_impls.py`). Shared memory is one array of `[blocks x size]`, register
arrays `[threads x size]` (`memory.py`).

What it reports instead of computing (`ExecutionError`, `file:line:col` of the op, the
thread and the index)
--------------------------------------------------------------------------------------
- out-of-bounds accesses of any memref (global buffers are the arrays given);
- reads of shared or register memory never written;
- data races on shared and global memory: a read of an element another thread wrote,
  or a write that changes an element another thread read or wrote, with no barrier in
  between (or from another block);
- a barrier that some threads of a block do not reach;
- cp.async: reading (or writing) a destination before the `cuda.cp_async_wait` that
  covers its group;
- TMA and mbarriers (`tma_impls.py`): reading or writing a TMA load's destination
  before a wait saw its phase complete, a wait on the wrong phase while the current
  one is in flight, an arrival on a phase that has all its arrivals but was not seen
  complete (a barrier reused too early), expected bytes that differ from the bytes
  copied, a wait that would never return, writing a buffer a TMA store still reads;
- warp specialisation (`roles_impls.py`): the regions of a `warp_specialize` run
  concurrently (the turn passes at an mbarrier wait that cannot return yet); a wait
  inside a region on a phase it already saw complete, and every region waiting (a
  hang), are reported;
- warp shuffles in warps that are not converged;
- misaligned or over-wide (> 16 bytes) vector accesses, division by zero, shifts
  past the bit width, kernels launched with a block size other than their
  `gpu.known_block_size`.

Levels
------
The GPU level (docs/gpu-level.md: `gpu`, `arith`, `scf`, `memref`, `vector`, `cuda`)
and every level of the layout dialect (`layout_impls.py`: launch, view, alloc, tile,
vectorize, distribute, divide, partition, slice, copy, copy_async, async_wait, tma_load,
tma_store, mbarrier_*,
barrier, load, store, convert_layout, splat, arange, expand_dims, broadcast, reduce;
`arith` on distributed tensors) run alike, so a program runs before and after every
pass. `cli.py` is what `tilec FILE --run cpu` and `--check-equivalence` print.

Inputs
------
`random_inputs` sizes buffers from the IR (static memref shapes; for a layout-level
pointer, the cosize of its views), takes `index` arguments from `args=` or the
function's `tilec.args` attribute, fills what the program reads with random values
and poisons what it only writes (NaN with payload 0xDEAD, 0xDE.. for integers), so an
element a transformed program forgets to write shows in `check_equivalence`.

Write audits
------------
`with audit_writes() as audit: run(...)` records which elements of each global buffer
were written (`audit.written["%dst"]`, a bool mask) and makes writes strict: two
unordered threads writing one element is an error even with equal values. Tests use it
to check that a lowered program writes exactly the footprint of the views the program
stores to, each element once.
"""

from .api import (
    ARGS_ATTR,
    Difference,
    EquivalenceReport,
    check_equivalence,
    compare_outputs,
    entry_function,
    parse,
    poison_value,
    random_inputs,
    run,
)
from .errors import ExecutionError
from .memory import WriteAudit, audit_writes

__all__ = [
    "ARGS_ATTR",
    "Difference",
    "EquivalenceReport",
    "ExecutionError",
    "WriteAudit",
    "audit_writes",
    "check_equivalence",
    "compare_outputs",
    "entry_function",
    "parse",
    "poison_value",
    "random_inputs",
    "run",
]
