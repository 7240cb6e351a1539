"""The realign, gather and tiled kernels `tilec.copy_` compiles stay as lean as they were
measured fast: their SASS instructions per 16 bytes a thread moves within a budget
(`runtime/nvrtc.cubin_instructions`, NVRTC for sm_90, no disassembler), and their
global accesses 16-byte vectors (PTX). 2026-11-29 both regressed unseen: the realign
kernel of int8 rows loaded `i8x16` structs that NVVM split into bytes (328 SASS
instructions a thread against 224 on 11-26; 0.91 -> 0.52 of cudaMemcpy), and the
gather kernel stored a compact dst element by element for a row length not a multiple
of 4 (1.21 -> 0.41). The cases are the canonical set's (tests/helpers/canonical_copies.py),
which benchmarks/canonical_copy_bench.py measures."""

from __future__ import annotations

import re

import pytest

from helpers.canonical_copies import CANONICAL, copy_choice
from tilec.compiling import compile_program
from tilec.copy_kernels import kernel_pipeline
from tilec.copy_plan import plan_copy
from tilec.copy_program import FUNCTION, copy_program
from tilec.copy_routes import forced_routes
from tilec.runtime.nvrtc import compile_cuda, cubin_instructions

# (case name, strategy, bytes a thread moves, SASS budget per 16 bytes, 16-byte loads, 16-byte stores)
BUDGETS = [
    # one 16-byte chunk a thread: two aligned loads, funnel shifts, one store (200 now,
    # 224 on 11-26, 328 regressed)
    ("realign int8 columns 1: of 8192x8195", "realign", 16, 240, 2, 1),
    # two runs of four int32 a thread, each one vector store (168 for 32 bytes)
    ("gather int32 column broadcast 2532x6882", "gather", 32, 96, 0, 2),
    # two runs of four bytes a thread, each one 4-byte store behind one test (128 now; 160
    # when copy_'s key did not state that the element count is a multiple of the run,
    # 2026-11-30: each run stored byte by byte behind four tests); with the box strategy
    # off (a `box<span>` copy by default: BOX_BUDGETS)
    ("gather uint8 rows of 5 at a pitch of 7", "gather", 8, 280, 0, 2),
    # a 1 x 64 x 128 tile, 64 bytes a thread (the full tile's and the edge's 16-byte
    # accesses: 8 each in the PTX): 272 now, 328 when the exact short extents were
    # run-time values in its masks and block coordinates (the Program's: 240)
    ("NHWC->NCHW float16", "tiled", 64, 72, 8, 8),
]


# The box kernels (a loop over a block's chunks, whose count the static SASS does not
# show: the whole kernel's instructions, phase 1's unrolled cp.async loop included), and
# their one 16-byte store in the PTX: (case name, strategy, SASS budget of the kernel).
BOX_BUDGETS = [
    # phase 2 per 16-byte chunk: 16 LDS.U8, 16 address adds, 12 PRMT, one STG.E.128 (about
    # 3 instructions a byte, against the gather's 15); 1056 now
    ("gather uint8 rows of 5 at a pitch of 7", "box<span>", 1100),
    # the slots' pitch step and phase 2's run stride constants, copy_'s key stating its
    # strides' residues (copy_key.ROWS_RESIDUES): 928 now (976 with rows_residues=0, the
    # mod-16 table looked up in the kernel, passes/_box_banks.rows_steps; 1128 with
    # box_slot32=1's two tables at run-time strides, rows_orders32: measured slower)
    ("box rows int8 37x17 in 1691 steps", "box<rows>", 1000),
]


def _plan(name: str):
    case = next(c for c in CANONICAL if c.name == name)
    return plan_copy(*case.operands())


@pytest.mark.parametrize("name,strategy,nbytes,budget,loads,stores", BUDGETS,
                         ids=[b[0].split()[0] + str(i) for i, b in enumerate(BUDGETS)])
def test_copy_kernel_within_budget(name, strategy, nbytes, budget, loads, stores, nvrtc_available):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    with forced_routes(box="never" if strategy == "gather" else "auto"):
        plan = _plan(name)
        _check_budget(plan, strategy, nbytes, budget, loads, stores)


@pytest.mark.parametrize("name,strategy,budget", BOX_BUDGETS, ids=[b[1] for b in BOX_BUDGETS])
def test_box_kernel_within_budget(name, strategy, budget, nvrtc_available):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    plan = _plan(name)
    assert copy_choice(plan)[0] == strategy
    kernel = compile_program(copy_program(plan.key), kernel_pipeline(plan.key, "default"), function=FUNCTION)
    result = compile_cuda(kernel.source, arch="sm_90")
    (count,) = cubin_instructions(result.cubin).values()
    assert count <= budget, f"{count} SASS instructions"
    assert len(re.findall(r"st\.global\.v4", result.ptx)) == 1


def _check_budget(plan, strategy, nbytes, budget, loads, stores):
    assert copy_choice(plan)[0] == strategy
    kernel = compile_program(copy_program(plan.key), kernel_pipeline(plan.key, "default"), function=FUNCTION)
    result = compile_cuda(kernel.source, arch="sm_90")
    (count,) = cubin_instructions(result.cubin).values()
    assert count * 16 / nbytes <= budget, f"{count} SASS instructions for {nbytes} bytes a thread"
    assert len(re.findall(r"ld\.global(\.nc)?\.v4", result.ptx)) == loads
    assert len(re.findall(r"st\.global\.v4", result.ptx)) == stores


def test_cubin_instructions_counts_text_sections(nvrtc_available):
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    source = 'extern "C" __global__ void k(int* p) { p[threadIdx.x] = 1; }\n'
    counts = cubin_instructions(compile_cuda(source, arch="sm_90").cubin)
    assert set(counts) == {"k"} and 4 <= counts["k"] <= 32
    assert cubin_instructions(b"not an elf") == {}
