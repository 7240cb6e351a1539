"""The tile sizes of the flash-attention forward (compiler/attention.py) from the head
dim and the element type: `tile_config`, a rule over the shared-memory and register
budgets of the blocks resident on a Hopper multiprocessor (docs/attention.md, "Tile
sizes").

The budgets, per block, `blocks` blocks per multiprocessor:

- shared memory (228 KiB a multiprocessor on sm_90, shared by its blocks, each taking 1
  KiB besides its own: `Target.resident_blocks`; 227 KiB at most a block): Q's tile and
  O's tile (`bm x D` each, O staged for its TMA store) and `stages` K and V tiles
  (`bn x D` each), in the element type, plus `SMEM_RESERVE` for the mbarriers and
  alignment:

      smem(bm, bn, stages) = (2 bm D + 2 stages bn D) * elem + SMEM_RESERVE

- registers: a consumer thread holds its warpgroup's 64 rows of O (64 D f32 over 128
  threads: D / 2 registers) and of S (bn / 2; P, rounded and packed two to a
  register, replaces S as it is made), and `REGISTER_OVERHEAD` more (the row max and
  sum, the masks' limits, indices, addresses, descriptors):

      needed(D, bn) = D / 2 + bn / 2 + REGISTER_OVERHEAD

  (the plain loop; the overlapped one also keeps P_j, bn / 4, while S_j+1 is made:
  `overlap_registers_needed`). The budget is the consumers' `setmaxnreg inc`
  (`consumer_registers`): the block's registers at entry (65536 / (blocks x threads),
  rounded down to 8: 168 for two consumer warpgroups and the producer, 384 threads, at
  one block; 80 at two) less the producer's 24, shared by the consumer warpgroups, at
  most 240: 240 for one block of two consumer warpgroups, 104 for two such blocks, 232
  for two blocks of one. `REGISTER_OVERHEAD` = 40 is what the measurements fix: D = 64,
  bn = 64 at two blocks needs 32 + 32 + 40 = 104 and compiles without spills in its
  104; its overlapped loop (120) spills.

`tile_config` takes, of the candidates that fit both budgets (bm = 128 or 64: two
consumer warpgroups or one; bn = 128 or 64; 1 to `MAX_BLOCKS` blocks per
multiprocessor; `STAGES` = 2 stages), the one with the most consumer warpgroups
resident per multiprocessor (blocks x warpgroups: one block's softmax, Q load and
epilogue run under another's wgmma, FlashAttention-2's occupancy), then the fewest
blocks (warpgroups of one block share each K and V tile: half the loads of two blocks
of one), then the wider KV block (fewer steps, each wgmma longer). In bf16 / f16:

    D =  64: bm 128, bn  64, 2 blocks (68 KiB each, 104 registers of 104): 4 warpgroups
             (bn = 128 at two blocks needs 136; one block of 128 x 128 has 2)
    D = 128: bm 128, bn 128, 1 block (196 KiB, 168 of 240): 2 warpgroups, as two blocks
             of 64 x 64 (100 KiB each), which the fewer blocks win
    D = 256: bm  64, bn  64, 1 block (196 KiB, 200 of 240): at bm = 128 the shared
             memory is over (260 KiB at bn = 64)

On the H200 (session 32, B16 H16 S1024 D64, one call of two rounds, TFLOP/s per call /
queued): 2 blocks of 128 x 64 373 / 418 and 361 / 416, one block of 128 x 128 (the rule
before) 334 / 383 and 323 / 380, 3 blocks of 64 x 64 339 / 391, 2 of 64 x 128 343 / 396
(benchmarks/NOTES.md). FlashAttention-3 runs D = 256 as 128 x 80 tiles on two consumer
warpgroups (wgmma N = 80, its O staged in V's buffer); tilec's layouts are linear
layouts over powers of two, so a KV block is 64 or 128 wide.
"""

from __future__ import annotations

from dataclasses import dataclass

ELEMENT_BYTES = {"bf16": 2, "f16": 2}
REGISTER_FILE = 65536
"""32-bit registers of a Hopper multiprocessor, shared by the threads of its blocks."""
CONSUMER_REGS = 240
"""The consumer warpgroups' `setmaxnreg inc` (attention_fwd's `consumer_regs`): no
thread is allotted more."""
REGISTER_OVERHEAD = 40
"""Registers of a consumer thread besides O's and S's (the module docstring)."""
SMEM_RESERVE = 4096
"""Shared memory kept for the mbarriers and the tiles' 1024-byte alignment (2072
bytes in the persistent kernels of D = 128 and 256: tests/unit/test_attention_tiles.py)."""
STAGES = 2
WARPGROUPS = (2, 1)
KV_BLOCKS = (128, 64)
MAX_BLOCKS = 4
"""The most blocks per multiprocessor `tile_config` considers."""


@dataclass(frozen=True)
class TileConfig:
    """One block's tiles: `bm` query rows (64 per consumer warpgroup), KV blocks of
    `bn` rows, a ring of `stages` K / V stages."""

    bm: int
    bn: int
    stages: int
    blocks: int = 1
    """Blocks resident per multiprocessor (`attention_fwd`'s `min_blocks`)."""

    @property
    def warpgroups(self) -> int:
        """The consumer warpgroups (one per 64 query rows)."""
        return self.bm // 64


def consumer_registers(warpgroups: int, blocks: int = 1, producer_regs: int = 24) -> int:
    """The consumers' `setmaxnreg inc` in a block of `warpgroups` consumer warpgroups and
    the producer's, `blocks` blocks per multiprocessor: the block's registers at entry
    (65536 / (blocks x threads) per thread, rounded down to 8, at most 248) less the
    producer's `producer_regs`, shared by the consumers (rounded down to 8), at most
    `CONSUMER_REGS`: `setmaxnreg inc` waits until the block's pool holds what it asks.

        consumer_registers(2) == 240 and consumer_registers(1, blocks=2) == 232
    """
    threads = 128 * (warpgroups + 1)
    entry = min(248, REGISTER_FILE // (blocks * threads) // 8 * 8)
    return min(CONSUMER_REGS, (entry * threads - 128 * producer_regs) // (128 * warpgroups) // 8 * 8)


def registers_needed(head_dim: int, bn: int) -> int:
    """A consumer thread's registers: O's D / 2, S's bn / 2 and `REGISTER_OVERHEAD`."""
    return head_dim // 2 + bn // 2 + REGISTER_OVERHEAD


def smem_bytes(head_dim: int, dtype: str, bm: int, bn: int, stages: int) -> int:
    """The block's shared memory: Q's and O's `bm x D` tiles, `stages` K and V
    `bn x D` tiles, and `SMEM_RESERVE`."""
    return (2 * bm * head_dim + 2 * stages * bn * head_dim) * ELEMENT_BYTES[dtype] + SMEM_RESERVE


def overlap_registers_needed(head_dim: int, bn: int) -> int:
    """`registers_needed` of the overlapped loop: P_j (bn / 4, packed) kept besides."""
    return registers_needed(head_dim, bn) + bn // 4


def fits(head_dim: int, dtype: str, bm: int, bn: int, stages: int, blocks: int = 1) -> bool:
    """Whether `blocks` blocks of `(bm, bn, stages)` fit one sm_90a multiprocessor: their
    shared memory (`fits_blocks`) and a consumer's registers in its share
    (`consumer_registers`; the module docstring)."""
    return (fits_blocks(head_dim, dtype, bm, bn, stages, blocks)
            and registers_needed(head_dim, bn) <= consumer_registers(bm // 64, blocks))


def fits_blocks(head_dim: int, dtype: str, bm: int, bn: int, stages: int, blocks: int) -> bool:
    """Whether `blocks` blocks of `(bm, bn, stages)` fit one sm_90a multiprocessor's
    shared memory together (`Target.resident_blocks`; one block: the block's limit)."""
    from tilec.support.target import target

    t = target("sm_90a")
    smem = smem_bytes(head_dim, dtype, bm, bn, stages)
    return smem <= t.smem_per_block and t.resident_blocks(smem) >= blocks


def tile_config(head_dim: int, dtype: str = "bf16") -> TileConfig:
    """Of the candidates that fit (`fits`: bm 128 or 64, bn 128 or 64, 1 to
    `MAX_BLOCKS` blocks per multiprocessor, `STAGES` stages), the one with the most
    consumer warpgroups resident per multiprocessor, then the fewest blocks, then the
    wider KV block (the module docstring); a ValueError where none fits.

        tile_config(64) == TileConfig(128, 64, 2, blocks=2)
        tile_config(128) == TileConfig(128, 128, 2) and tile_config(256).bm == 64
    """
    if dtype not in ELEMENT_BYTES:
        raise ValueError(f"attention: dtype {dtype!r} is not one of {tuple(ELEMENT_BYTES)}")
    fitting = [(wgs * blocks, -blocks, bn, TileConfig(64 * wgs, bn, STAGES, blocks))
               for wgs in WARPGROUPS for bn in KV_BLOCKS for blocks in range(1, MAX_BLOCKS + 1)
               if fits(head_dim, dtype, 64 * wgs, bn, STAGES, blocks)]
    if not fitting:
        raise ValueError(f"attention: no tiles fit head dim {head_dim} in {dtype} (shared memory and registers)")
    return max(fitting, key=lambda c: c[:3])[3]
