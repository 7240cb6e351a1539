"""The specialisation key of a `tilec.copy_` kernel, and what follows from the key
alone: the dtypes it takes, the kernel's function name and index arguments, whether
it converts. (copy_plan.py computes keys, copy_program.py writes their programs; all
of them import this module and none of them is imported here.)"""

from __future__ import annotations

from dataclasses import dataclass

from tilec.dialects.dtypes import DTYPES

ITEMSIZE: dict[str, int] = {d.name: d.itemsize for d in DTYPES.values()}
"""The dtypes `tilec.copy_` takes, with their sizes in bytes."""

MAX_RANK = 8
SMALL_EXTENT = 64
"""Extents up to this are specialised by their power-of-two ceiling (the tile along
such a mode is no longer than that: a 256-wide tile over 5 elements would idle most of
its threads); larger ones are run-time values only."""
REALIGN_ROW_CLASS = 256
"""A realign copy's rows of 2- and 4-byte elements up to this many elements are specialised
by their power-of-two ceiling too (128 or 256 past `SMALL_EXTENT`) where the realign
rule reads it (`copy_plan._realign_plan`, `_realign_tile.row_rule`: the ends' prefetch
and 2 chunks a thread): at most two kernels more a pattern and element size (rows of
65-128 and 129-256 elements; longer rows keep the one kernel). The `realign_rows` route
sets it (64: no class past `SMALL_EXTENT`). H200, in turns against 64: the strided set's 16
0.829 -> 0.842, padded rows of 70-254 2- and 4-byte elements x1.009-x1.075, every other
realign case of the set the same kernel (benchmarks/NOTES.md, s1645)."""
VECTOR_BYTES = 16
"""Pointers aligned to this many bytes are specialised as such (wider accesses)."""
ROWS_RESIDUES = True
"""A `box<rows>` copy's kernel is specialised on its source step modulo 32 and its
destination run step modulo 16 (`CopyKey.src_residues`, `dst_residues`; the residues
`passes/_box_tile.rows_residues` reads), so that its slot layout is the constants a
Program of the same views gets, not tables looked up at run time: at most 512 kernels a
pattern, one per residue pair in use. The `rows_residues` route sets it (0: one kernel,
the tables; benchmarks/NOTES.md, rows49)."""


@dataclass(frozen=True)
class CopyKey:
    """What a compiled copy kernel is specialised on (everything else is a run-time
    value): the two dtypes, the merged rank, the class of each mode's stride in each
    view (`0`, `1` or `None` for any other value, bound at run time; a box plan fixes
    the strides equal to a short extent to their values, `copy_plan.may_box`), each
    pointer's alignment (`VECTOR_BYTES` or the element size), each mode's extent
    class (its power-of-two ceiling when at most `SMALL_EXTENT`, else `None`; a box
    plan's are the short extents themselves), and
    the 16-byte divisibility of each run-time stride (as Triton specialises on
    divisibility by 16)."""

    src_dtype: str
    dst_dtype: str
    src_strides: tuple[int | None, ...]
    dst_strides: tuple[int | None, ...]
    src_align: int
    dst_align: int
    small_extents: tuple[int | None, ...] = ()
    src_divisors: tuple[int, ...] = ()
    dst_divisors: tuple[int, ...] = ()
    """Per mode, what a run-time stride is a multiple of: `VECTOR_BYTES` / element
    size when the stride is a whole number of 16-byte units, else 1 (1 for strides the
    key fixes, too)."""
    src_order: tuple[int, ...] = ()
    """The src's modes that move (stride not 0), fastest first (smallest |stride|):
    the tile choice folds modes in the order that lengthens contiguous runs. (The
    dst's order is known without it: merged modes are sorted by dst stride, the
    last mode fastest.)"""
    exact_extents: tuple[bool, ...] = ()
    """Per mode, whether a small extent is exactly its class in `small_extents` (the
    program promises it whole, `at_most` and `divisible`): in a tiled plan where the
    extent is a power of two (a tile of it has no edge), in a box plan every short
    extent (its class is the extent itself, the box rule reads it)."""
    last_divisor: int = 1
    """What the last merged extent is a multiple of, into a compact dst: for a short one
    (at most `SMALL_EXTENT`) the largest power of two up to `VECTOR_BYTES` that divides
    it, for a longer one where the src broadcasts `VECTOR_BYTES` (16) or 1 (as Triton
    specialises integers on divisibility by 16); else 1 (only where the gather strategy
    reads it, so that other patterns keep one kernel). The program promises it
    (`divisible`), so that the gather's runs are known to be whole src vectors
    (`_copy_cost.vector_runs`), as a Program's static extent shows them."""
    extent_divisors: tuple[int, ...] = ()
    """Per mode of a tiled plan, what its extent is a multiple of where a view moves
    vectors along it (its stride 1 in src or dst) and the key does not state the
    extent exactly: `VECTOR_BYTES` / the smaller element size where that divides it,
    else 1 (as Triton specialises integers on divisibility by 16); () where every
    mode's is 1. The program promises it (`divisible`), so that a tile at the edge of
    such a mode is masked a vector at a time, as a Program's static extent shows it
    (`tilec.copy_` and the Program of the same views then compile the same masks)."""
    dst_flat: bool = False
    """The dst is compact over all merged modes (row-major, the last mode fastest): the
    program computes its strides as the products of the extents, a fact the
    `copy-strategy` pass reads (passes/_copy_cost.py)."""
    aligned_pointers: bool = False
    """The program states each view's pointer as the pointer aligned down to
    `VECTOR_BYTES` moved by its misalignment (`layout.addptr` of the index arguments
    `smis`, `dmis`, in elements): the facts of the realign strategy, and of the box
    strategy's vectors, which the `copy-strategy` pass then chooses
    (passes/_copy_cost.py; the plan states them where that model takes the copy for
    either, `copy_plan.may_realign`, `copy_plan.may_box`)."""

    index_bits: int = 64
    """32 where every index value the tiled kernel computes fits in 32 bits
    (`copy_plan.index_bits`: the offsets of every element its tiles cover, masked
    ones included, and the extents; for a realign program the realign strategy's
    offsets and chunk indices, `copy_plan.index_bits`): the program promises `tilec.index_bits = 32`
    (support/index_width.py) and the kernel computes offsets in 32 bits; 64 otherwise.
    The gather strategy's flat indices count too (`copy_plan.index_bits`)."""
    src_residues: tuple[tuple[int, int], ...] = ()
    dst_residues: tuple[tuple[int, int], ...] = ()
    """Per mode, (modulus, residue) a run-time stride is congruent to ((1, 0): nothing;
    () where no mode's is stated): a `box<rows>` plan's source step and destination run
    step (`ROWS_RESIDUES`). The program promises it (`divisible` and `residue`)."""
    gather_fill: int = 0
    """N > 0 where the plan takes the copy whole to the gather strategy's fill form
    (`copy_plan.fills`: the route `gather_fill`, or its rule): the kernel's pipeline
    asks it of both passes (`gather_fill=N`, N threads a multiprocessor; passes/_fill_tile.py);
    0 none."""

    @property
    def rank(self) -> int:
        return len(self.dst_strides)


FUNCTION = "tilec_copy"


def needs_conversion(src_dtype: str, dst_dtype: str) -> bool:
    """Whether a copy between the dtypes changes bits (int8 <-> uint8 and bool ->
    uint8/int8 do not: the same bytes)."""
    if src_dtype == dst_dtype:
        return False
    same_bits = {("int8", "uint8"), ("uint8", "int8"), ("bool", "uint8"), ("bool", "int8")}
    return (src_dtype, dst_dtype) not in same_bits


def index_arg_names(key: CopyKey) -> list[str]:
    """Names of the program's index arguments, in `CopyPlan.args` order: `n<k>` the
    extents, `ss<k>` and `ds<k>` the src and dst strides bound at run time, then
    `REALIGN_ARGS` where `key.aligned_pointers`."""
    return (
        [f"n{i}" for i in range(key.rank)]
        + [f"ss{i}" for i, s in enumerate(key.src_strides) if s is None]
        + [f"ds{i}" for i, s in enumerate(key.dst_strides) if s is None]
        + (list(REALIGN_ARGS) if key.aligned_pointers else [])
    )


REALIGN_ARGS = ("smis", "dmis")
"""The index arguments of a realign program after the strides (`CopyPlan.extra`): the
two pointers' misalignments, in elements below 16 bytes."""


def layout_text(strides: tuple[int | None, ...]) -> str:
    """The CuTe text of a layout of run-time extents and these strides (`None`:
    run-time)."""
    shape = ",".join("?" for _ in strides)
    stride = ",".join("?" if s is None else str(s) for s in strides)
    if len(strides) == 1:
        return f"{shape}:{stride}"
    return f"({shape}):({stride})"


def pass_tile(key: CopyKey) -> tuple[int, ...]:
    """The tile the `tile` pass chooses for the tiled program of `key` (its heuristic
    on the facts the program states: `passes/tile.heuristic_tile`)."""
    from tilec.dialects import cute
    from tilec.passes.tile import heuristic_tile

    extents = tuple(cute.DYN if n is None else n for n in (key.small_extents or (None,) * key.rank))
    sl = cute.parse_layout(layout_text(key.src_strides))
    dl = cute.parse_layout(layout_text(key.dst_strides))
    return heuristic_tile(sl, dl, extents, ITEMSIZE[key.src_dtype], aligned=_vector_aligned(key))


def _vector_aligned(key: CopyKey) -> bool:
    """Whether both views of the program allow 16-byte vectors, as the `tile` pass
    reads it: 16-byte aligned pointers and every run-time stride promised a multiple
    of 16 bytes."""
    for align, strides, divs, dtype in (
        (key.src_align, key.src_strides, key.src_divisors, key.src_dtype),
        (key.dst_align, key.dst_strides, key.dst_divisors, key.dst_dtype),
    ):
        if align % VECTOR_BYTES:
            return False
        for s, d in zip(strides, divs or (1,) * len(strides)):
            if s is None and (d * ITEMSIZE[dtype]) % VECTOR_BYTES:
                return False
    return True
