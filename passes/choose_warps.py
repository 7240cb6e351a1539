"""The `choose-warps` pass: the block's warps of a launch that left them to the compiler (`threads(auto)`)."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Attribute
from xdsl.passes import ModulePass

from tilec.dialects.auto_layout import MAX_WARPS, AutoLayoutAttr
from tilec.dialects.encoding import DistributedEncoding
from tilec.dialects.layout import OPEN_THREADS, LaunchOp, LoadOp, StoreOp
from tilec.dialects.layout_attrs import element_bytes
from tilec.dialects.layout_ptr import PtrLoadOp, PtrStoreOp, pointee
from tilec.support.diagnostics import TilecError
from tilec.support.target import Target, target_of

from ._analysis import is_pow2, pow2_floor
from ._rereads import rereads
from .coalesce import _root_auto, _substitute, _values
from .stash_rereads import SCRATCH, window_stash_bytes

WARP = 32
SMALL_BLOCK_WARPS = 4
"""Up to this many warps a thread holds at least `bytes` bytes of the tile; past it, twice as many."""


MIN_WARPS = 2
"""An SM holds at most 32 blocks: blocks of one warp would leave half its 64 warps empty."""


def default_warps(tile_bytes: int, bytes_per_thread: int = 32, max_warps: int = 16) -> int:
    """The warps of a block whose largest tile (load or store) is `tile_bytes` bytes: the
    most (a power of two, MIN_WARPS (2) to `max_warps`) such that each thread holds at least
    `bytes_per_thread` bytes of the tile (two 16-byte vectors at the default 32), and at
    least twice that once the block has more than SMALL_BLOCK_WARPS (4) warps.

    At a few elements per thread a row kernel is bound by each thread's fixed work (its
    index arithmetic, the masked edge, a row reduction's steps across the warps, which
    grow with the warps), not by memory: fewer threads with more bytes each reach the
    memory limit sooner (H200, f16 softmax at M = 16384: N = 768 0.73 -> 0.86 of
    cudaMemcpy at 2 warps instead of 4, N = 3072 0.91 -> 1.00 at 4 instead of 8). So

        tile bytes   <= 2 KiB  4 KiB  8 KiB  16 KiB  32 KiB  64 KiB
        warps               2      4      4       8      16      16

    (a row of 1024 f16 gets 2 warps, 1024 f32 4, 4096 f16 4, 4096 f32 8, 8192 f16 8,
    8192 f32 16)."""
    w = pow2_floor(max(1, tile_bytes // (WARP * bytes_per_thread)))
    if w > SMALL_BLOCK_WARPS:
        w = max(SMALL_BLOCK_WARPS, pow2_floor(max(1, tile_bytes // (WARP * 2 * bytes_per_thread))))
    return min(max_warps, max(MIN_WARPS, w))


@dataclass(frozen=True)
class ChooseWarpsPass(ModulePass):
    """Choose the threads of every `threads(auto)` launch from the bytes of its tiles (`default_warps`'s rule).

    A program may leave the block's threads to the compiler, `layout.launch ...
    threads(auto)`, as it leaves its layouts (`#layout.auto` over OPEN_THREADS / 32
    warps): such a launch observes no thread count (the verifier checks that its thread
    id is unused), so where every distributed tensor in it has a `#layout.auto` layout
    (or a slice of one) any count computes the same. This pass gives it W warps by one rule on the bytes per
    thread (`default_warps`): with B the bytes of the launch's largest tensor loaded or
    stored (`layout.load` / `layout.store` / `layout.ptr_load` / `layout.ptr_store`:
    elements times the element's bytes), W is the most warps (a power of two, at least
    2, at most `max-warps`) that leave each thread at least `bytes` bytes of it, and at
    least 2 x `bytes` once W passes 4 (more warps cost each row reduction a wider step
    across them; an SM holds at most 32 blocks, so a block has at least 2 warps):

        tile bytes   <= 2 KiB  4 KiB  8 KiB  16 KiB  32 KiB  64 KiB
        warps               2      4      4       8      16      16

    The launch then has 32 W threads and every `#layout.auto` in it W warps; `coalesce`
    lays the tile out over them. A launch with no load or store keeps OPEN_THREADS. The
    pass runs after `chunk-rows` (a long row's tile is then a chunk) and `pack-rows` (which
    packs short rows to `bytes` bytes per thread of an OPEN_THREADS block, so a packed
    tile keeps 4 warps). The choice shows in `--print-between-passes` as the launch's
    `threads(32 W)` and the layouts' `warps = W`. A launch with its threads written is
    never changed: an explicit count wins; so is an open launch with a layout written in
    it (or made by an earlier pass, `distribute`'s): it keeps OPEN_THREADS, now written.

    With `l2_rows`, a launch whose loop over a row's chunks reads again the chunks an
    earlier loop read (`_rereads`: a two-pass softmax or norm, R bytes of row read twice)
    gets more warps where its rows in flight would not fit in half the target's L2: W
    doubles (to at most 32) while P x (T / 32 W) x R > L2 / 2, with P the target's
    multiprocessors and T the threads each holds (`Target`: an H100/H200 132, 2048, 50
    MiB). Fewer, larger blocks have fewer rows in flight, so the second read finds more
    of each row in L2 (rows of 50257 f16: W = 32, 264 rows, 26 MB), with as many bytes
    in flight per multiprocessor. (Registers only lower the blocks resident.) A target
    whose L2 or multiprocessors are unknown keeps the bytes rule.

    With `stash_rows` (the default), a launch that `stash-rereads` (after this pass, as in
    the default pipeline) will give window
    stashes of S bytes (`stash_rereads.window_stash_bytes`: a two-pass row read once
    into shared memory) gets more warps: its blocks resident per multiprocessor are
    bound by shared memory to B = smem_per_sm // (S + 2 KiB + 1 KiB) (`Target.resident_blocks`), and
    W becomes threads_per_sm / (32 B) (at most `max-warps`, and at most the tile's bytes
    over 32 x 16: each thread keeps a whole 16-byte vector of it) where that is more, so
    that the multiprocessor's threads are used for the two passes over the stash (rows
    of 50257 in chunks of 4096, f32: B = 1, f16: B = 2, both W = 16). Measured on an
    H200 (M = 16384) 16 warps beat 32: layer norm f32 0.59 of cudaMemcpy against 0.54,
    f16 0.45 against 0.40, RMSNorm f16 0.64 against 0.61 (f32 0.73 / 0.74): past 16 a
    row reduction's step across the warps costs more than the threads gain.

    Options:
      bytes=B        bytes of the tile each thread holds at least (default 32).
      max-warps=W    the most warps a block gets by the bytes rule (default 16), a power of two.
      l2_rows        the L2 rule above for rows read twice (default false: unmeasured on a
                     GPU; benchmarks/realistic_rows.py `--variants l2-rows` compares).
      stash_rows     the shared-memory rule above for rows `stash-rereads` will stash
                     (default true: the default pipeline runs `stash-rereads` after this
                     pass; `--variants no-stash` turns both off).
      stash_partial  that rule also for the rows `stash-rereads{partial=true}` will stash
                     the first chunks of (default false, as that option's).
    """

    name = "choose-warps"

    bytes: int = 32
    max_warps: int = 16
    l2_rows: bool = False
    stash_rows: bool = True
    stash_partial: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.bytes < 1 or not is_pow2(self.max_warps) or self.max_warps > MAX_WARPS:
            raise TilecError(f"choose-warps: bytes={self.bytes} must be positive and max-warps={self.max_warps} "
                             f"a power of two in [1, {MAX_WARPS}]")
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp) and o.is_open]:
            tile = max((_access_bytes(o) for o in launch.walk()), default=0)
            warps = OPEN_THREADS // WARP
            if tile and _all_auto(launch):
                warps = default_warps(tile, self.bytes, self.max_warps)
                if self.l2_rows:
                    warps = l2_row_warps(launch, warps, target_of(op))
                if self.stash_rows:
                    warps = stash_row_warps(launch, warps, target_of(op), tile, self.max_warps, self.stash_partial)
            _set_warps(launch, warps)


def stash_row_warps(launch: LaunchOp, warps: int, tgt: Target, tile: int, max_warps: int = 16,
                    partial: bool = False) -> int:
    """`warps`, or more where `stash-rereads` (with `partial`, `stash-rereads{partial=true}`)
    will give `launch` window stashes of S bytes (`window_stash_bytes`): the blocks resident per multiprocessor are then
    B = `tgt.resident_blocks(S + SCRATCH)` (the multiprocessor's shared memory, 1 KiB
    of it reserved per block; at least 1), and the block gets the warps that fill the
    multiprocessor's threads at B blocks, threads_per_sm / (32 B), at most `max_warps`
    and at most as many as leave each thread a whole vector (`vector_bytes`) of the
    `tile` bytes (more would narrow `coalesce`'s vectors)."""
    stash = window_stash_bytes(launch, partial=partial)
    if not stash:
        return warps
    blocks = max(1, tgt.resident_blocks(stash + SCRATCH))
    fill = tgt.threads_per_sm // (WARP * blocks)
    whole = tile // (WARP * tgt.vector_bytes)
    return max(warps, min(max_warps, pow2_floor(max(1, min(fill, whole)))))


def l2_row_warps(launch: LaunchOp, warps: int, tgt: Target) -> int:
    """`warps`, doubled (to at most MAX_WARPS) while the rows that `launch` reads twice
    (`rereads`), one per resident block, would take more than half of `tgt`'s L2."""
    rows = max((r.row_bytes for r in rereads(launch)), default=0)
    if not rows or not tgt.l2_bytes or not tgt.multiprocessors:
        return warps
    while warps < MAX_WARPS and tgt.multiprocessors * (tgt.threads_per_sm // (WARP * warps)) * rows > tgt.l2_bytes // 2:
        warps *= 2
    return warps


def _all_auto(launch: LaunchOp) -> bool:
    """Whether every distributed tensor in `launch` has a `#layout.auto` layout (or a slice of one)."""
    for o in launch.walk():
        for v in _values(o):
            enc = getattr(v.type, "encoding", None)
            if isinstance(enc, DistributedEncoding) and _root_auto(enc) is None:
                return False
    return True


def _access_bytes(o) -> int:
    """Bytes of the tensor a load or store moves (0 for any other op)."""
    if isinstance(o, LoadOp | StoreOp):
        t = o.result.type if isinstance(o, LoadOp) else o.value.type
        return prod(t.get_shape()) * element_bytes(o.view.type.element_type)
    if isinstance(o, PtrLoadOp | PtrStoreOp):
        t = o.ptrs.type
        return prod(t.get_shape()) * element_bytes(pointee(t))
    return 0


def _set_warps(launch: LaunchOp, warps: int) -> None:
    """`launch` with 32 `warps` threads, written (no longer open), its `#layout.auto`s over `warps`."""
    chosen: dict[AutoLayoutAttr, Attribute] = {}
    for o in launch.walk():
        for v in _values(o):
            if isinstance(v.type, TensorType) and (a := _root_auto(v.type.encoding)) is not None:
                chosen[a] = AutoLayoutAttr(a.rank.data, warps)
    _substitute(launch, chosen)
    launch.properties["threads"] = IntegerAttr(WARP * warps, i64)
    del launch.properties["open_threads"]
