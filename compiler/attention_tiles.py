"""The tile sizes of the flash-attention forward (compiler/attention.py) from the head
dim and the element type: `tile_config`, a rule over the shared-memory and register
budgets of one block per Hopper multiprocessor (docs/attention.md, "Tile sizes").

The budgets, per block (one block per multiprocessor):

- shared memory (227 KiB on sm_90, `Target.smem_per_block`): Q's tile and O's tile
  (`bm x D` each, O staged for its TMA store) and `stages` K and V tiles (`bn x D`
  each), in the element type, plus `SMEM_RESERVE` for the mbarriers and alignment:

      smem(bm, bn, stages) = (2 bm D + 2 stages bn D) * elem + SMEM_RESERVE

- registers: a consumer thread holds its warpgroup's 64 rows of O (64 D f32 over 128
  threads: D / 2 registers) and of S (bn / 2; P, rounded and packed two to a
  register, replaces S as it is made), and `REGISTER_OVERHEAD` more (the row max and
  sum, the masks' limits, indices, addresses, descriptors):

      needed(D, bn) = D / 2 + bn / 2 + REGISTER_OVERHEAD

  ptxas allots each thread of a block of `threads` threads 65536 / threads registers,
  rounded down to 8, at most the consumers' `setmaxnreg` (240): 168 for two consumer
  warpgroups and the producer (384 threads), 240 for one (256 threads).
  `REGISTER_OVERHEAD` = 40 is what the measurements fix: D = 128, bn = 128 needs
  64 + 64 + 40 = 168 and compiles to 168 registers without spills; D = 256, bn = 64 on
  two consumer warpgroups needs 200 > 168 and spills (12 bytes, with O in Q's buffer
  so that it fits the shared memory); on one it compiles to 240 without spills
  (tests/unit/test_attention.py).

`tile_config` takes the first candidate, in the order of preference, that fits both:
two consumer warpgroups before one (bm = 128, then 64: two warpgroups share the
multiprocessor's tensor cores and hide each other's softmax), then the wider KV block
(bn = 128, then 64: fewer steps, each wgmma longer), with `STAGES` = 2 stages (the
producer fills one stage while the consumers read the other; the two-stage ring is
the schedule measured on the H200). In bf16 / f16:

    D =  64: bm 128, bn 128 (100 KiB, 136 registers of 168)
    D = 128: bm 128, bn 128 (196 KiB, 168 of 168)
    D = 256: bm  64, bn  64 (196 KiB, 200 of 240): at bm = 128 the shared memory
             (260 KiB at bn = 64) and the registers (200 > 168) are both over

FlashAttention-3 runs D = 256 as 128 x 80 tiles on two consumer warpgroups (wgmma
N = 80, its O staged in V's buffer); tilec's layouts are linear layouts over
powers of two, so a KV block is 64 or 128 wide, and at 128 x 64 neither budget holds.
"""

from __future__ import annotations

from dataclasses import dataclass

ELEMENT_BYTES = {"bf16": 2, "f16": 2}
REGISTER_FILE = 65536
"""32-bit registers of a Hopper multiprocessor, shared by the threads of its one block."""
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


def registers_per_thread(warpgroups: int) -> int:
    """What ptxas allots each thread of a block of `warpgroups` consumer warpgroups and
    the producer's: 65536 / threads rounded down to 8, at most `CONSUMER_REGS`.

        registers_per_thread(2) == 168 and registers_per_thread(1) == 240
    """
    threads = 128 * (warpgroups + 1)
    return min(CONSUMER_REGS, REGISTER_FILE // threads // 8 * 8)


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


def fits(head_dim: int, dtype: str, bm: int, bn: int, stages: int, smem_limit: int | None = None) -> bool:
    """Whether `(bm, bn, stages)` fits the shared memory (`smem_limit`: the sm_90
    block's) and the registers (the module docstring)."""
    if smem_limit is None:
        from tilec.support.target import target

        smem_limit = target("sm_90a").smem_per_block
    return (smem_bytes(head_dim, dtype, bm, bn, stages) <= smem_limit
            and registers_needed(head_dim, bn) <= registers_per_thread(bm // 64))


def fits_blocks(head_dim: int, dtype: str, bm: int, bn: int, stages: int, blocks: int) -> bool:
    """Whether `blocks` blocks of `(bm, bn, stages)` fit one sm_90a multiprocessor's
    shared memory together (`Target.resident_blocks`)."""
    from tilec.support.target import target

    return target("sm_90a").resident_blocks(smem_bytes(head_dim, dtype, bm, bn, stages)) >= blocks


def tile_config(head_dim: int, dtype: str = "bf16") -> TileConfig:
    """The first of (bm, bn) = (128, 128), (128, 64), (64, 128), (64, 64) that fits
    (`fits`), with `STAGES` stages (the module docstring); a ValueError where none does.

        tile_config(128) == TileConfig(128, 128, 2) and tile_config(256).bm == 64
    """
    if dtype not in ELEMENT_BYTES:
        raise ValueError(f"attention: dtype {dtype!r} is not one of {tuple(ELEMENT_BYTES)}")
    for wgs in WARPGROUPS:
        for bn in KV_BLOCKS:
            if fits(head_dim, dtype, 64 * wgs, bn, STAGES):
                return TileConfig(64 * wgs, bn, STAGES)
    raise ValueError(f"attention: no tiles fit head dim {head_dim} in {dtype} (shared memory and registers)")
