"""`tilec.matmul`: C = epilogue(A @ B) on PyTorch or CuPy tensors of a Hopper GPU, the
kernel and its configuration chosen from the shape and the Target by one rule.

    c = tilec.matmul(a, b)                                   # bf16/f16 (.., K) @ (K, N)
    y = tilec.matmul(x, w, bias=b, activation="silu")        # silu(x @ w + b), one kernel
    y = tilec.matmul(x, w, residual=h, out_dtype=torch.float16)
    y = tilec.matmul(x8, w8.t(), scale_a=sx, scale_b=sw)     # FP8 e4m3: (x8 @ w8.t()) sx sw, bf16
    y = tilec.matmul(x8, w8.t(), scale_a=sxb, scale_b=swb)   # block scales (M, K/128), (N/128, K/128)

The kernels are the warp-specialised, persistent TMA + wgmma programs of
api/gemm_programs.py (`gemm_hopper_ws`), built with M a run-time value: the TMA tensor
maps are encoded at launch and the grid is min(multiprocessors, tiles) computed from M,
so one compiled kernel serves every M (every token count). A kernel is compiled once
per `MatmulKey` (configuration, N, K, dtypes, epilogue, multiprocessor count) and kept
in memory (the CUDA also on disk, runtime/cache.py).

The configuration rule (`choose_config`), wave quantisation: a persistent grid of P
blocks over T tiles of `bm x bn` takes ceil(T / P) rounds, each as long as one tile's
work, 2 `bm * bn` K flops at the multiprocessor's rate times `efficiency` (the measured
throughput of the configuration's tile relative to the best one, benchmarks/NOTES.md);
in clusters the rounds are the groups over the clusters that run at once
(`cluster_slots`). The configuration of least `wave_seconds` is taken, ties to the
earlier in `CONFIGS`. So a ragged M or N whose last round of 128 x 256 tiles would
leave most multiprocessors idle takes 256 x 160, 128 x 192 or 128 x 128 tiles, and M <= 64 takes
64-row tiles. Configurations whose shared
memory exceeds the Target's are never taken. Decode sizes (M <= 128, the memory-bound
regime): the configuration of least `decode_cost` (DRAM's bound on the weight against
the busiest multiprocessor's fill of its shared memory), among the swap A/B
(`swap_config`: C^T = B^T A^T, N on the wgmma's rows, M its columns, deep rings,
persistent; B K-major) unsplit or split, otherwise the split-K tile of M's rows
(`SPLIT_K_TILES`) split, and the wave rule's pick. A split S divides each
tile's K steps among S units of work, each storing its f32 partial product into a
workspace; a second launch sums the S partials in order (deterministic) and applies
the epilogue once (`gemm_hopper_ws(split_k=S)`), or, split twice in pairs, the two
units are the blocks of a thread-block cluster and sum their partials in order
through distributed shared memory, in the same launch
(`gemm_hopper_ws(cluster_split=True)`, `cluster_splits`). M enters the rule only through its
bucket (`m_bucket`: 16, 32, 64, 128), so one kernel serves every M of a bucket.

FP8 operands (torch.float8_e4m3fn or float8_e5m2, A and B of one type) take the
configurations of `FP8_CONFIGS` (the same tiles with K steps of 128: 128-byte rows of
8-bit elements) by the same rule (split-K only for the swap), and per-tensor scales
applied to the accumulator first (`Epilogue.scale`), as `torch._scaled_mm`. Block scales
(DeepSeek-V3's: f32 per row and 128 of K of A, per 128 x 128 block of B) take
`FP8_BLOCK_CONFIGS`: each K block's product multiplied by its scales and added into
the f32 accumulator in the K loop (`gemm_hopper_ws(block_scales=True)`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any

from tilec.dialects.dtypes import DTYPES
from tilec.gemm_programs import (ACTIVATIONS, CLUSTER_SPLIT_PAD, FP8_DTYPES, INPUT_DTYPES, MAX_CLUSTER_SPLIT,
                                 OUT_DTYPES, SCALE_BLOCK, Epilogue, barriers_fit, gemm_hopper_ws)
from tilec.matmul_launch import CALLS_KEPT, OPERANDS, MatmulLauncher, structure
from tilec.runtime import raw_launch
from tilec.support.diagnostics import TilecError
from tilec.support.target import Target, target


@dataclass(frozen=True)
class GemmConfig:
    """One configuration of `gemm_hopper_ws`: a `bm x bn x bk` block tile, `stages`
    shared stages, `chunk` column chunks (0: none), the pingpong schedule, grouped tile
    order of `group` block rows; always persistent with the TMA-store epilogue.
    `efficiency`: the tile's throughput relative to the best configuration's (the rule
    of `choose_config`)."""

    name: str
    bm: int
    bn: int
    bk: int
    stages: int
    efficiency: float
    chunk: int = 0
    pingpong: bool = False
    group: int = 8
    handover: str = "drain"
    """Pingpong: when a consumer gives the other its turn at the ring (`gemm_hopper_ws(handover=)`;
    names `:ppi` "issue", `:ppl` "loop" in benchmarks/matmul_bench.py). An option: `128x128x64:5:ppl`
    measured +3.6% queued over the rule's plain kernel at 8192 x 28672 x 4096 on the H200, the
    4-stage `:pp` +3.0% (benchmarks/NOTES.md, epi38)."""
    stagger: int = 0
    """The cooperative tile's two consumer warpgroups in regions of their own, each storing
    its 64 rows, the second run ahead of the first by up to this many K steps
    (`gemm_hopper_ws(stagger=)`, named `:st<L>`): each one's epilogue under the other's
    wgmma. An option: at 8192 x 28672 x 4096 on the H200 (Nsight Compute, elapsed cycles)
    its plain kernel is 0.7-0.9% faster than the rule's, but bias + SiLU costs 6.3% (L = 1)
    and 6.1% (L = 2) over it against the rule's 6.8%: +5.3% over the rule's plain kernel,
    the epilogue not hidden (benchmarks/NOTES.md, epi38 and epi40)."""
    bias_smem: bool = False
    """The tile's bias copied into shared memory by the producer (one TMA box a tile into a
    ring of two, on the tile's first stage's "full" barrier) and loaded from there by the
    epilogue (`gemm_hopper_ws(bias_smem=True)`, named `:bsm`; 2 * bn * 2 bytes more shared
    memory; without a bias the kernel is the same). The rule's for `silu`'s staggered tile
    (`staggered`; benchmarks/NOTES.md, epi46)."""
    bias_smem_start: bool = False
    """With `bias_smem`: the staged bias as the accumulators' starting value, loaded from
    shared memory once the tile's first stage has landed, the epilogue adding none
    (`gemm_hopper_ws(bias_smem_start=True)`, named `:bss`). An option (benchmarks/NOTES.md, epi46)."""
    epilogue_turns: bool = False
    """With `stagger`: the two consumers' epilogues in turn, consumer 1's first, consumer 0
    meeting a named barrier past its K loop that consumer 1 arrives at once its tile's last
    TMA store is issued (`gemm_hopper_ws(epilogue_turns=True)`, named `:et`): their MUFU work
    not at once, consumer 0's epilogue under consumer 1's next K steps. An option, slower: at
    8192 x 28672 x 4096 on the H200 bias + `silu` `:st1:bsm:et` +1.43% per call and +1.46% queued
    over `:st1:bsm` (52 of 53 rounds slower; `:st2:bsm:et` +1.50%): one consumer's epilogue alone
    takes 3800 clocks, the two at once 5200 (clock64 stamps; benchmarks/NOTES.md, epi47)."""
    exp2_fma: int = 0
    """SiLU's exp2 on the FMA pipe in this many of every 8 elements (`gemm_hopper_ws(exp2_fma=)`,
    `Epilogue.exp2_fma`, named `:fe<k>`): `MUFU` ops an element 2 - k / 8 for 10 more
    instructions each. The rule's 2 for `silu`'s staggered tile (`staggered`): at 8192 x 28672
    x 4096 on the H200 bias + `silu` `:st1:bsm:fe2` -0.50% / -0.61% per call over `:st1:bsm` in
    two calls, `fe3` and `fe4` tie (benchmarks/NOTES.md, epi48)."""
    div_group: int = 0
    """SiLU's quotients G = 2 or 4 through one `rcp.approx`, the divisor clamped and the
    numerator floored (`gemm_hopper_ws(div_group=G)`, `Epilogue.div_group`, named `:dg<G>`):
    `MUFU` ops an element 1 + 1 / G - k / 8 with `exp2_fma` k. An option, slower: at 8192 x 28672
    x 4096 on the H200 `:st1:bsm:fe2:dg2` +0.46% and `:dg4` +1.33% per call over `:st1:bsm:fe2`
    (5 and 1 of 29 rounds faster): the instructions they add cost more than the `MUFU` ops they
    save (benchmarks/NOTES.md, epi49)."""
    one_c: bool = False
    """Pingpong: the two consumers' epilogues take turns at one C buffer
    (`gemm_hopper_ws(one_c_buffer=True)`, named `:oc`), which leaves room for 6 stages of
    128 x 128 x 64. An option: `128x128x64:6:ppl:oc` measured +5.5% queued over the rule's plain
    kernel at 8192 x 28672 x 4096 on the H200, slower than 4 stages (benchmarks/NOTES.md, epi38)."""
    split_k: int = 1
    operand_bytes: int = 2
    """Bytes of an element of A and B (1: the 8-bit floats of `FP8_CONFIGS`)."""
    block_scales: bool = False
    """FP8 with DeepSeek-style block scales (`FP8_BLOCK_CONFIGS`, `gemm_hopper_ws(block_scales=True)`)."""
    swap_ab: bool = False
    """C^T = B^T A^T (`swap_config`, `gemm_hopper_ws(swap_ab=True)`): `bm` rows of N, `bn` columns of M."""
    overlap: bool = False
    """The last column chunk's epilogue under the next tile's first K steps
    (`gemm_hopper_ws(overlap_epilogue=True)`). Not the rule's: with the kernels timed in
    turns it gained nothing at 8192 x 28672 x 4096 with bias + SiLU on the H200 (+5.7-5.9%
    over plain per call against +6.2-6.3%) and lost 3.5% at 3000 x 5000 x 7000."""
    cp_async: str = ""
    """The operands ("a", "b", "ab") the producer loads with 16-byte `cp.async` instead of
    the TMA (`gemm_hopper_ws(cp_async=...)`; names `:cpa`, `:cpb`, `:cpab` in
    benchmarks/matmul_bench.py). Not the rule's: slower than the TMA at every shape
    measured, rows 16 mod 32 bytes included (H200, benchmarks/NOTES.md)."""
    partials: int = 2
    """Block scales: the partial accumulators a consumer holds per chunk (`gemm_hopper_ws(partials=)`):
    2, each step's promotion under its own next wgmma; 1, DeepGEMM's, under the other consumer
    warpgroup's (half the registers: 128 x 256 tiles fit)."""
    fma_promote: bool = False
    """Block scales: each promotion one `math.fma` (`gemm_hopper_ws(fma_promote=True)`); an option
    until measured."""
    split_dispatch: bool = False
    """Block scales in `one_wgmma` chunks narrower than 128: the K loop built once for each way a
    tile's chunks split between its two blocks of N's scales, each tile's taken by a branch
    (`gemm_hopper_ws(split_dispatch=True)`, named `:sd`): no select of the B scale a step. An option:
    on the H200 at 8192^3 the 128 x 112 tile ran at x0.88 of the rule with it (x0.86 with the select),
    128 x 128 in chunks of 16 at x0.985 (benchmarks/NOTES.md, f8b48)."""
    rounds: int = 1
    """Block scales with two partials: the ring's rounds a trip of the consumers' K loop takes
    (`gemm_hopper_ws(rounds=)`, named `:r<N>`): the tensor cores drain once a trip. Not the
    rule's: 2 measured no faster at 8192^3 on the H200 (1170 against 1178 TFLOP/s)."""
    per_sm: int = 0
    """Swapped: 0, one block a unit of work (a tile, or a split of one); P > 0, persistent over
    P blocks a multiprocessor (`gemm_hopper_ws(persistent=sms * P)`), each walking its units with
    the ring running on across them. The other configurations are always persistent, one block a
    multiprocessor."""
    stream_k: bool = False
    """Stream-K (`gemm_hopper_ws(stream_k=True)`; named `:sk`): the full waves of tiles whole
    (data-parallel), then the blocks share the rest's K work evenly in rounds of the ring,
    the tiles shared by several blocks summed by a second launch. Swapped: persistent
    (`per_sm` > 0); unswapped: over the multiprocessors (clusters: the groups over the
    clusters), not with pingpong or the overlapped epilogue."""
    cluster: tuple[int, int] = (1, 1)
    """(cm, cn): thread-block clusters of cm block rows by cn block columns, B multicast
    along a cluster's columns, A along its rows (`gemm_hopper_ws(cluster=(cm, cn))`; swapped
    and persistent, (2, 1): two units of N's rows sharing A^T's stages; named
    `:cl<cm>` for (cm, 1), else `:cl<cm>x<cn>`, `cluster_name`): 1 / cm of B's and 1 / cn
    of A's reads from L2 per multiprocessor; persistent over `cluster_slots` clusters.
    The rule's (2, 1) where B's rows start mid-sector (`with_cluster`)."""
    box_parts: bool = False
    """With `cluster`: every stage each block loads its part of every shared box (1 / cm
    of B's, 1 / cn of A's) instead of whole boxes in turn (`gemm_hopper_ws(box_parts=True)`;
    named `:bp`)."""
    tile_parts: bool = False
    """With `cluster` (cm, 1) and `one_wgmma`: every stage each block loads its 1 / cm of the rows of
    the stage's whole B tile, one box across the column chunks, multicast (`gemm_hopper_ws(tile_parts=True)`,
    named `:tp`; cuBLAS's decode kernel's split of its 96 rows). An option until measured."""
    tile_whole: bool = False
    """With `tile_parts`: stage s's whole B tile one multicast box from block s mod cm alone, one
    weight request a stage for the cluster (`gemm_hopper_ws(tile_whole=True)`, named `:tw`). Off: H200,
    QKV in CUDA graphs, 18.06 against the rule's 18.24 us at M = 128 (x0.990), 20.00 against 19.84 at
    M = 100 (x1.008; benchmarks/NOTES.md, qkv46)."""
    serial: bool = False
    """Swapped and split: the tile's last unit to arrive sums the partials in the same kernel
    (`gemm_hopper_ws(serial=True)`: an arrival counter a tile, no second launch; named `:ser`).
    With `stream_k`: a shared tile's last block to arrive sums its partials in the same
    kernel (`gemm_hopper_ws(stream_k=True, serial=True)`, named `:sk:ser`)."""
    skip_padding: bool = False
    """The steps of a tile's last trip of the ring wholly past K load nothing and run no
    wgmma (`gemm_hopper_ws(skip_padding=True)`; named `:sp`): ceil(K / bk) steps a tile
    instead of whole trips of `stages` (3000 x 5000 x 7000: 110 of 64 instead of 112). An
    option until measured."""
    a_registers: bool = False
    """Each K step's A tile loaded once into registers (`ldmatrix`) for every column chunk's
    wgmma (`gemm_hopper_ws(a_registers=True)`, named `:ar`) instead of read from shared
    memory by each chunk's. An option until measured."""
    one_wgmma: bool = False
    """The column chunks' wgmma of a K step issued as one `wgmma.m64n{bn}k16` a warpgroup
    (`gemm_hopper_ws(one_wgmma=True)`, named `:ow`): A read from shared memory once a step
    instead of once a chunk; the accumulators, the epilogue and the C buffer stay the
    chunks'. An option: it measured even with the chunks' own wgmma on the H200 (rag36,
    3000 x 5000 x 7000 in pairs: 575 / 625 TFLOP/s against 580 / 629; benchmarks/NOTES.md)."""
    aligned_rows: bool = False
    """The wave rule weighs the tile only where the operands' and C's rows are whole 32-byte
    sectors (`misaligned_rows` empty, N a multiple of 16): not a kernel parameter but a fact of where the tile was measured
    to win (`CONFIGS`' 192 x 160: 1.02 of cuBLAS at 4000^3 and 1.00 at 3000 x 14336 x 4096,
    against 0.93 and 0.87 where B's rows start mid-sector, 4000 / 1000 x 7000 x 4096, and
    0.64 at 3000 x 5000 x 7000, where 128 x 256 and 256 x 160 took 1.06 / 0.94 / 0.96). The 0.64 is the
    L2: at Nsight's base clock the same kernel takes 661 thousand cycles at 3000 x 5000 x 7000 against
    456 at 3008 x 5008 x 7008 (the same tiles), 40% more L2 sectors (a 64-byte box row starting
    mid-sector reads 3, a 128-byte one 5), the L2 at 85% of its peak, the tensor pipe at 62%
    (benchmarks/NOTES.md, tile43)."""
    consumer_rows: int = 64
    """The rows of the tile each consumer warpgroup owns (`gemm_hopper_ws(consumer_rows=)`, named
    `:w128`): 64, `bm / 64` consumer warpgroups; 128, `bm / 128` of them, each issuing a K step's
    wgmma for each of its two m64 row blocks (cuBLAS's 256 x 160 and 256 x 128 in two consumer
    warpgroups). `CONFIGS`' 256 x 160 tile (measured there); 20% fewer L2 bytes than the 128 x
    192 tile in pairs at 3000 x 5000 x 7000 (benchmarks/NOTES.md, wg38)."""
    consumers_apart: bool = False
    """The consumer warpgroups one region run apart (`gemm_hopper_ws(consumers_apart=True)`,
    named `:ap`; the 192-row tile's always are): each its rows of the tile, its rows of the C
    buffer and its TMA stores meeting its own 128 threads, not the consumers' together (the
    256 x 160 tile's epilogue meets both warpgroups at each of its 5 chunks: Nsight's barrier
    stall 11.3 against cuBLAS's 6.4 at 3000 x 5000 x 7000, benchmarks/NOTES.md gemm40). An
    option, off: on the H200 at 3000 x 5000 x 7000 in pairs it moved nothing (466.4 against 467.4
    thousand cycles at the base clock, the barrier stall 11.05 against 11.27; in turns 0.975 / 0.955
    of cuBLAS against 0.978 / 0.947; benchmarks/NOTES.md, tile43): the stall is each warpgroup's
    wait for the one C buffer's previous TMA store, not the other warpgroup. With `stagger` the
    two staggered consumers one region (the lag's wait and arrival branches on the index): one
    copy of the consumer's code, the rule's for `silu`'s staggered tile (`staggered`; -0.66% per
    call at 16384 x 4096 x 4096, a tie at 8192 x 28672 x 4096; benchmarks/NOTES.md, epi50)."""
    rolled_chunks: bool = False
    """The tile's epilogue one trip of a loop over its column chunks (`gemm_hopper_ws(rolled_chunks=True)`,
    named `:rc`): one copy of a chunk's epilogue code, the chunks' accumulators moved down a trip
    (64 moves a thread for 128-column chunks of 64 rows). An option, off: at 8192 x 28672 x 4096
    on the H200 bias + `silu` `:st1:bsm:fe2:rc` +0.33% per call over `:st1:bsm:fe2` (8 of 33
    rounds faster), `:ap:rc` ties `:ap` (benchmarks/NOTES.md, epi50)."""
    chunk_buffers: bool = False
    """With column chunks and the TMA epilogue: a C buffer for each chunk
    (`gemm_hopper_ws(chunk_buffers=True)`, named `:cb`), so a tile's chunks are written to
    shared memory without waiting for the TMA store of the chunk before (one wait a tile).
    An option until measured."""
    c_ring: int = 0
    """With the TMA epilogue: C's stores through a ring of this many C buffers of `c_width`
    columns and `c_height` rows (`gemm_hopper_ws(c_ring=R)`, named `:cr<R>`; 0: one buffer,
    `chunk_buffers`: one a store part), each part written once the store R parts before has read
    its buffer (`tma_store_wait {pending = R - 1}`): R - 1 stores may still read while a part is
    written. The wave rule's where `C_RING_TILES` says so (`with_c_ring`: the 192 x 160 tile's
    three whole chunk buffers, 4000^3 1.062 / 1.047 of cuBLAS on the H200 against 1.017 / 1.015);
    elsewhere an option."""
    c_width: int = 0
    """The columns of each C buffer (`gemm_hopper_ws(c_width=W)`, named `:cw<W>`; 0: the
    chunk's): each chunk stored as `chunk / W` column parts (split from the accumulator's
    registers, no data moving), so `:cr2:cw16` is a ring of two 256 x 16 buffers in the
    bytes of one 256 x 32 chunk's. An option: on the 256 x 160 tile within the rounds' spread
    on the H200 (3000 x 5000 x 7000 0.991 / 0.970 of cuBLAS against the rule's 0.984 / 0.969,
    gate_up at M = 2048 1.034 / 1.025 against 1.023 / 1.014; benchmarks/NOTES.md, cbuf44)."""
    c_height: int = 0
    """The rows of each C buffer, of a consumer region's (`gemm_hopper_ws(c_height=H)`, named
    `:ch<H>`; 0: all of them): each chunk stored as row parts of H (the rows' top bits
    register bits: 256 rows of two 128-row consumers split once, a region's 128 run apart
    once), then column parts of `c_width`; `half_stores` is `:cr2:ch128` on 256 rows. An
    option (measured within the spread, as `c_width`)."""
    c_early: bool = False
    """With `c_ring` >= 2: each part's wait for the buffer the next part writes moved before the part's own
    TMA store (`gemm_hopper_ws(c_early=True)`, named `:ce`): one meeting of the consumers a part (the store's)
    instead of two, the previous store's read under the part's writes. An option until measured."""
    half_stores: bool = False
    """With `consumer_rows` 128 on 256 rows: each column chunk's C stored as its two row halves
    through two C buffers of 128 rows (`gemm_hopper_ws(half_stores=True)`, named `:hs`), one
    half's shared-memory writes under the other's TMA store, in the bytes of one chunk's buffer
    (the C ring's `:cr2:ch128`). An option: in turns on the H200 at 3000 x 5000 x 7000 0.995 /
    0.976 of cuBLAS against the rule's 0.984 / 0.969, within the rounds' spread (cbuf44)."""
    cluster_split: bool = False
    """Swapped and split S <= 8 ways, one block a unit (`per_sm` 0): a tile's S units run as
    the blocks of one thread-block cluster and are summed through distributed shared memory
    (`gemm_hopper_ws(cluster_split=True)`: no workspace, no counters, no second launch;
    named `:csplit`)."""
    global_partials: bool = False
    """With `cluster_split`: the units' f32 partials go through a workspace in global memory
    (mostly L2) instead of shared memory, whose bytes the ring takes instead
    (`gemm_hopper_ws(global_partials=True)`; named `:gp`, `cluster_splits`)."""

    pdl: bool = False
    """Programmatic dependent launch (`gemm_hopper_ws(pdl=True)`, named `:pdl`): the kernel
    lets the stream's next kernel start its blocks early and waits for the previous one
    before anything touches global memory; launched with the attribute. An option until
    measured (`PDL`; H200, QKV at M = 128 queued 18.9 us against 19.9)."""
    pdl_weight: bool = False
    """With `pdl`: the weight's first ring of stages loaded before the wait for the previous
    kernel (`gemm_hopper_ws(pdl_weight=True)`, named `:pdlw`; in clusters of cm x 1, the halves'
    pairs, each block's share of the weight's multicast boxes): the weight must not be
    written by the kernels before it on the stream. An option: slower than `pdl` alone on the
    halves' QKV kernel on the H200 (M = 128, CUDA graphs: 17.66 us against 16.80; after an
    elementwise kernel 22.06 against 20.74; benchmarks/NOTES.md, qkv45)."""

    pdl_late: bool = False
    """With `pdl` (and `pdl_weight`): the dependents let in by the producer after its last loads
    instead of at the start (`gemm_hopper_ws(pdl_late=True)`, named `:pdll`). An option until measured."""

    l2_ahead: int = 0
    """Swapped: the producer asks L2 for the weight's rows of the trip this many trips
    ahead (`gemm_hopper_ws(l2_ahead=D)`, named `:l2p<D>`). An option: measured twice as
    slow on the H200 (QKV at M = 128 35.9 us with D = 2 against 19.9; benchmarks/NOTES.md)."""

    scale_prefetch: bool = False
    """Block scales: each trip of the K loop asks L1 for the scales 8 K blocks ahead (the next
    32-byte sector of a row's; `gemm_hopper_ws(scale_prefetch=True)`, named `:pf`), so that no
    step's scale loads wait for L2. An option until measured."""

    l2_promotion: int = 0
    """The L2 sector promotion of the producer's TMA loads in bytes (0: the default, 128;
    `gemm_hopper_ws(l2_promotion=)`, named `:pr<B>`). An option until measured."""

    small_stages: int = 0
    """Swapped: the small operand (A^T) in a ring of this many stages of its own beside the
    weight's ring of `stages` (`gemm_hopper_ws(small_stages=R)`, named `:sr<R>`), so that the
    weight's bytes in flight are not tied to A^T's. An option until measured."""

    small_prefetch: bool = False
    """With `small_stages` (persistent): the blocks ask L2 for A's rows before their walks
    (`gemm_hopper_ws(small_prefetch=True)`, named `:srp`). An option until measured."""

    b_first: bool = False
    """Each stage's B loads (the weight where not swapped) issued before A's
    (`gemm_hopper_ws(b_first=True)`, named `:bf`). An option until measured."""

    k_rotate: bool = False
    """Each tile's K steps from (block column x stages) mod K's steps on, round the end, so that
    the block columns of a wave read the weight's rows at different K offsets
    (`gemm_hopper_ws(k_rotate=True)`, named `:kr`). Off: H200, QKV in CUDA graphs over 4
    weights, 100 rounds in turns, the halves' rule x0.992 (with `:tw` x0.965) at M = 128 but
    x1.075 / x1.094 at M = 100 / 72, slower in 98-100 of the 100 rounds, L2-warm too; one kernel
    serves M 65-128 (benchmarks/NOTES.md, q12847; dec44)."""

    k_rotate_step: int = 0
    """With `k_rotate`, the K steps a block column rotates by (0: the stages;
    `gemm_hopper_ws(k_rotate_step=S)`, named `:kr<S>`): at 1 QKV's 64 block columns start at 64
    different K steps of the weight's rows instead of `:kr`'s 8. Off: H200, QKV in graphs, steps 1
    / 4 / 32 x1.004 / x0.997 / x0.992 of the halves' rule at M = 128, x1.05-1.18 at 100 and 72
    (benchmarks/NOTES.md, q12847)."""

    arrive_last: bool = False
    """The producer's arrival expecting a stage's bytes after the stage's loads, not before
    (`gemm_hopper_ws(arrive_last=True)`, named `:al`; cuBLAS's order). An option: on the rule's 256 x 160 tile
    in pairs at 3000 x 5000 x 7000 it ties the rule on the H200 (x0.999 / x0.998 per call / queued, each of 44
    rounds against the rule's; benchmarks/NOTES.md, pair45)."""

    b_panels: bool = False
    """With `one_wgmma` and B MN-major: B's stage tile read as 128-byte swizzled panels (64 columns of 16-bit
    elements) and one box of the chunk left (the 256 x 160 tile: two boxes of 64 columns and one of 32 instead of
    five of 32), so that a row of B's tile is fewer boxes and, where B's rows start mid-sector, fewer wasted
    sectors; the wgmma one m64n128 over the panels and one m64n32 over the rest a row block and K step
    (`gemm_hopper_ws(b_panels=True)`, named `:wb`). An option, off: H200 in turns x0.938 of the rule at 3000 x
    5000 x 7000 and x0.935 at 4000^3 (rows whole sectors): the split wgmma reads A twice a K step; and the
    misaligned boxes it thins are not the rule's gap to cuBLAS (benchmarks/NOTES.md, b3k46)."""

    b_fill: bool = False
    """With `b_panels` (the 256 x 160 tile: two panels and a chunk of 32 left): the chunk left loaded into the first
    32 columns of a third 128-byte panel of the stage's one B buffer (its 64-byte box rows land 128 bytes apart:
    the copy engine pads a box narrower than its swizzle row, `TmaGeometry.pad`), so that one m64n160k16 reads B's
    three panels; B's stage 64 x 192 (24 KiB) in 3 boxes, cuBLAS's stage (`gemm_hopper_ws(b_fill=True)`, named
    `:wbf`, with 3 stages to fit the C ring: `256x160x64:3:c32:ow:w128:sp:cl1x2:bp:wbf`). An option, off: H200 in
    turns at 3000 x 5000 x 7000 x1.001 / x1.001 of the rule per call / queued, with a second C buffer (`:cr2`)
    x1.009 / x1.004 (middle halves 0.998-1.024 / 0.999-1.020: within the spread); the 192 x 160 tile at 4000^3
    x0.932 / x0.911, gate_up 2048 x 28672 x 4096 x0.978 / x0.976 (benchmarks/NOTES.md, b3k50)."""

    raster_n: bool = False
    """The persistent walk's groups along N (`gemm_hopper_ws(raster_n=True)`, named `:rn`; CUTLASS's raster
    along N): consecutive tiles (clusters) walk along `group` block columns, then to the next block row,
    instead of down `group` block rows. An option, off: on the H200 it moves neither the L2's requests nor its
    fabric traffic, and in turns per call / queued it ties or loses (3000 x 5000 x 7000 in pairs: `:rn` x0.993 /
    x0.981 of the rule, `:rn:g16` x1.004 / x0.998; 4000^3 x0.991 / x0.995; 8192 x 7000 x 7000 `:rn:g16` x0.996 /
    x0.998; benchmarks/NOTES.md, b3k49)."""

    b_box: bool = False
    """With `one_wgmma` chunks, B K-major and no cluster: B's stage tile loaded as one TMA box of `bn` rows
    instead of a box a chunk (`gemm_hopper_ws(b_box=True)`, named `:b1`): the decode halves' stage two
    loads (A's and the weight's 96 rows) instead of four, as cuBLAS's kernel issues them (dec40). The halves
    take it where `HALVES_B_BOX` says so."""

    clip_small: bool = False
    """Swapped: after a block's first trip, A^T's box clipped to M's rows (`layout.tma_load
    {clip}`, its run-time bytes expected by `layout.mbarrier_expect_tx`), so that the TMA asks
    for no row past M (`gemm_hopper_ws(clip_small=True)`, named `:clip`): at M below the
    bucket's columns the rows past M are not filled with zeros every step. Unswapped (A's boxes
    each block's own: the decode halves), the last block row's A box alike (`{clip, tail}`:
    M's rows left, (M - 1) mod bm + 1)."""

    def kwargs(self, sms: int) -> dict[str, Any]:
        """`gemm_hopper_ws`'s keyword arguments (`_kwargs`) with `pdl`, `pdl_weight`,
        `l2_ahead`, `scale_prefetch`, `l2_promotion`, `small_stages`, `small_prefetch`, `b_first`,
        `k_rotate`, `k_rotate_step`, `arrive_last`, `b_panels`, `b_fill`, `b_box` and `raster_n`."""
        kw = self._kwargs(sms)
        if self.scale_prefetch:
            kw["scale_prefetch"] = True
        if self.l2_promotion:
            kw["l2_promotion"] = self.l2_promotion
        if self.small_stages:
            kw["small_stages"] = self.small_stages
        if self.small_prefetch:
            kw["small_prefetch"] = True
        if self.b_first:
            kw["b_first"] = True
        if self.k_rotate:
            kw["k_rotate"] = True
        if self.k_rotate_step:
            kw["k_rotate_step"] = self.k_rotate_step
        if self.arrive_last:
            kw["arrive_last"] = True
        if self.b_panels:
            kw["b_panels"] = True
        if self.b_fill:
            kw["b_fill"] = True
        if self.b_box:
            kw["b_box"] = True
        if self.raster_n:
            kw["raster_n"] = True
        if self.pdl:
            kw["pdl"] = True
        if self.pdl_weight:
            kw["pdl_weight"] = True
        if self.pdl_late:
            kw["pdl_late"] = True
        if self.l2_ahead:
            kw["l2_ahead"] = self.l2_ahead
        return kw

    def _kwargs(self, sms: int) -> dict[str, Any]:
        """`gemm_hopper_ws`'s keyword arguments, persistent over `sms` blocks (swapped:
        over `sms * per_sm`, or one block a unit where `per_sm` is 0)."""
        if self.swap_ab:
            return {"bm": self.bm, "bn": self.bn, "bk": self.bk, "stages": self.stages, "swap_ab": True,
                    **({"block_scales": True} if self.block_scales else {}),
                    **({"split_k": self.split_k} if self.split_k > 1 else {}),
                    **({"serial": True} if self.serial else {}),
                    **({"cluster_split": True} if self.cluster_split else {}),
                    **({"global_partials": True} if self.global_partials else {}),
                    **({"stream_k": True} if self.stream_k else {}),
                    **({"cluster": self.cluster} if self.cluster != (1, 1) else {}),
                    **({"clip_small": True} if self.clip_small else {}),
                    **({"persistent": self._persistent(sms)} if self.per_sm else {})}
        size = self.cluster[0] * self.cluster[1]
        blocks = sms if size == 1 else size * cluster_slots(size, sms, self.smem_bytes())
        kw: dict[str, Any] = {"bm": self.bm, "bn": self.bn, "bk": self.bk, "stages": self.stages,
                              "group": self.group, "persistent": blocks, "tma_epilogue": self.split_k == 1}
        if self.split_k > 1:
            kw["split_k"] = self.split_k
        if self.serial:
            kw["serial"] = True
        if self.chunk:
            kw["chunk"] = self.chunk
        if self.pingpong:
            kw["pingpong"] = True
            if self.handover != "drain":
                kw["handover"] = self.handover
            if self.one_c:
                kw["one_c_buffer"] = True
        if self.overlap:
            kw["overlap_epilogue"] = True
        if self.stagger:
            kw["stagger"] = self.stagger
        if self.bias_smem:
            kw["bias_smem"] = True
        if self.bias_smem_start:
            kw["bias_smem_start"] = True
        if self.epilogue_turns:
            kw["epilogue_turns"] = True
        if self.exp2_fma:
            kw["exp2_fma"] = self.exp2_fma
        if self.div_group:
            kw["div_group"] = self.div_group
        if self.block_scales:
            kw["block_scales"] = True
            if self.partials != 2:
                kw["partials"] = self.partials
            if self.fma_promote:
                kw["fma_promote"] = True
            if self.rounds > 1:
                kw["rounds"] = self.rounds
            if self.split_dispatch:
                kw["split_dispatch"] = True
        if self.cp_async:
            kw["cp_async"] = self.cp_async
        if self.stream_k:
            kw["stream_k"] = True
        if size > 1:
            kw["cluster"] = self.cluster
        if self.box_parts:
            kw["box_parts"] = True
        if self.tile_parts:
            kw["tile_parts"] = True
        if self.tile_whole:
            kw["tile_whole"] = True
        if self.skip_padding:
            kw["skip_padding"] = True
        if self.a_registers:
            kw["a_registers"] = True
        if self.one_wgmma:
            kw["one_wgmma"] = True
        if self.consumer_rows != 64:
            kw["consumer_rows"] = self.consumer_rows
        if self.half_stores:
            kw["half_stores"] = True
        if self.consumers_apart:
            kw["consumers_apart"] = True
        if self.rolled_chunks:
            kw["rolled_chunks"] = True
        if self.chunk_buffers:
            kw["chunk_buffers"] = True
        if self.c_ring:
            kw["c_ring"] = self.c_ring
        if self.c_width:
            kw["c_width"] = self.c_width
        if self.c_height:
            kw["c_height"] = self.c_height
        if self.c_early:
            kw["c_early"] = True
        if self.clip_small:
            kw["clip_small"] = True
        return kw

    def _persistent(self, sms: int) -> int:
        """The blocks of a swapped persistent grid: `per_sm` a multiprocessor, or with
        `cluster` the blocks of the clusters the device runs at once (`cluster_slots`)."""
        size = self.cluster[0] * self.cluster[1]
        return sms * self.per_sm if size == 1 else size * cluster_slots(size, sms, self.smem_bytes())

    def workspace(self, m: int, n: int, sms: int) -> int:
        """The f32 elements of the workspace a call of M x N on `sms` multiprocessors
        takes: split-K's S partial products of M x N (none summed in a cluster through
        shared memory), stream-K's two `bm x bn` slots a block (`gemm_hopper_ws`), else none."""
        if self.stream_k:  # two slots a block of the grid
            return 2 * (sms * self.per_sm if self.swap_ab else self.kwargs(sms)["persistent"]) * self.bm * self.bn
        return self.split_k * m * n if self.split_k > 1 and not (self.cluster_split and not self.global_partials) else 0

    def counters(self, m: int, n: int, sms: int = 0) -> int:
        """The i32 arrival counters and flags a call of M x N on `sms` multiprocessors takes
        (`serial`: one counter a tile, then one flag a unit: S + 1 a tile; with `stream_k`
        one flag a workspace slot, then one counter a tile of the tail: three a block of
        the grid), else 0."""
        if not self.serial:
            return 0
        if self.stream_k:  # a counter a tile of the tail: fewer than the grid's blocks
            return self.workspace(m, n, sms) // (2 * self.bm * self.bn)
        tiles = -(-n // self.bm) * -(-m // self.bn) if self.swap_ab else -(-m // self.bm) * -(-n // self.bn)
        return tiles * (self.split_k + 1)

    def smem_bytes(self) -> int:
        """Shared memory of the ring (`operand_bytes` elements) and the C buffers
        (16-bit elements), each buffer 1024-byte aligned: the barriers cost a kilobyte
        beside each stage, or one in all with chunks (they come after the buffers,
        `gemm_hopper_ws`); `cluster_split`: the f32 partial (`bm x bn`, padded), the
        barriers after it (`global_partials`: the barriers alone); `b_fill`: B's stage whole 128-byte panels."""
        panel = 128 // self.operand_bytes
        bn = -(-self.bn // panel) * panel if self.b_fill else self.bn
        ring = self.stages * (self.bm + bn) * self.bk * self.operand_bytes
        if self.small_stages:  # A^T's ring of its own, the barriers after the buffers
            ring = (self.stages * self.bm + self.small_stages * self.bn) * self.bk * self.operand_bytes
        if self.cluster_split:
            partial = 0 if self.global_partials else (self.bm + CLUSTER_SPLIT_PAD) * self.bn * 4
            return ring + partial + 16 * 2 * (self.stages + self.small_stages)
        if self.small_stages:
            return ring + 1024
        cbufs = 2 if self.pingpong and not self.one_c else 1
        inline = not self.chunk and barriers_fit(self.bm, self.bn, self.bk, self.stages, self.operand_bytes,
                                                 0 if self.swap_ab or self.split_k > 1 else cbufs)
        barriers = 1024 * self.stages if inline else 1024
        if self.swap_ab or self.split_k > 1:  # no C buffer: C is stored from the registers
            return ring + barriers
        # the C ring's buffers: of a store part each (`width` x `height` of a consumer region's rows)
        wgs = self.bm // self.consumer_rows
        region = self.consumer_rows if self.consumers_apart or self.stagger or wgs & (wgs - 1) else self.bm
        width = self.c_width or self.chunk or self.bn
        height = region // 2 if self.half_stores else self.c_height or region
        buffers = (self.bn // width) * (region // height) if self.chunk_buffers else (
            2 if self.half_stores else self.c_ring or 1)
        bias = 2 * self.bn * 2 if self.bias_smem else 0  # `bias_smem`'s ring (16-bit elements)
        return ring + barriers + bias + cbufs * buffers * self.bm * width * 2 * height // region


CONFIGS = (
    GemmConfig("128x256x64:4:c128", 128, 256, 64, 4, efficiency=1.0, chunk=128),
    GemmConfig("128x192x64:5:c64", 128, 192, 64, 5, efficiency=0.97, chunk=64),
    GemmConfig("128x128x64:4:pp", 128, 128, 64, 4, efficiency=0.85, pingpong=True),
    GemmConfig("64x256x64:4:c128", 64, 256, 64, 4, efficiency=0.7, chunk=128),
    GemmConfig("256x160x64:4:c32:ow:w128:sp", 256, 160, 64, 4, efficiency=0.99, chunk=32, one_wgmma=True,
               consumer_rows=128, skip_padding=True),
    GemmConfig("192x160x64:4:c32:ow", 192, 160, 64, 4, efficiency=0.95, chunk=32, one_wgmma=True,
               aligned_rows=True),
)
"""The configurations `tilec.matmul` chooses from. 128 x 256 in two chunks of 128 is
`BEST_WS` (750 TFLOP/s at 4096 on the H200, benchmarks/NOTES.md); 128 x 192 in three
chunks of 64 (wgmma's N must be a power of two for the accumulator's linear layout, so
a 192-column tile is chunks of 64, each wgmma.m64n64 reading A again) is 3/4 of the work
a tile, so its whole rounds are fewer tile-times where 128 x 256's last round is mostly
empty. In 5 stages (217 KiB: 200 KiB of ring in flight, as 128 x 256's 4 stages hold 192)
it measured 0.97 of 128 x 256's throughput (H200, rag35: 3000 x 5000 x 7000 in pairs,
box parts, 649 TFLOP/s queued / 583 per call against 614 / 555; in 4 stages 0.91: 618
against 628, and 655 against 673 alone at 3000 x 5008 x 7008; measured again by rag36, 7
rounds: 580 / 629 against `128x256x64:4:c128:cl2`'s 550 / 579, 0.971 per call, 1.00 queued:
kept at 0.97, as above 0.984 8192^3 would move to it unmeasured; one m64n192k16 a K step,
`:ow`, ran even with the three m64n64k16); 128 x 256 in chunks of 64
ran at 0.99 of chunks of 128 at 4000^3 (701 against 706 queued), so the ring's depth,
not wgmma's N of 64, was the 4 stages' loss. The 128 x 128 pingpong measured 635 at 4096
(0.85; 494 against 128 x 192's 520 queued at 2176^3); the 64-row tile (one consumer
warpgroup) is an estimate, taken where M <= 64 leaves half of a 128-row tile empty.

256 x 160 in two consumer warpgroups of 128 rows (`consumer_rows`, cuBLAS's tile at 3000 x
5000 x 7000), one m64n160k16 a row block and step (`one_wgmma` over chunks of 32), the padded
steps of a tile's last trip skipped (`skip_padding`), at 0.99: H200 (benchmarks/NOTES.md,
session 38), in turns against the configuration the rule took before it, per call / queued:
3000 x 5000 x 7000 (pairs sharing A, `with_cluster`) 625 / 656 against 613 / 652 (and 602 /
681 against 572 / 646, 612 / 644 against 603 / 643 in two earlier runs), 8192 x 14336 x 4096
701 / 720 against 128 x 256's 655 / 678 (1.07 / 1.03 of cuBLAS), 4000 x 14336 x 4096 693 / 725
against 636 / 691, 4000 x 28672 x 4096 (B K-major) 701 / 698 against 658 / 669, 8192 x 7000
x 7000 689 / 686 against 641 / 658, 3000 x 3072 x 1024 353 / 559 against 313 / 455, 2048 x
5000 x 4096 608 / 732 against the pingpong's 438 / 492; within 1% slower at 2048 x 7000 x
7000 (603 / 647 against 609 / 652) and 3000 x 7000 x 1024 (B K-major, 449 / 607 against the
pingpong's 455 / 615). It comes last, so the tiles before it keep their ties; at 0.99 it
takes 172 of 1152 shapes of a sweep of M 256-16384, N and K 1000-28672.

192 x 160 in three consumer warpgroups of 64 rows, one region run apart (cuBLAS's tile at
4000^3; one m64n160k16 a consumer and K step), at 0.95: H200 (benchmarks/NOTES.md, tile41), in
turns against the rule's 128 x 256 and cuBLAS at 4000^3, per call / queued of cuBLAS: 1.030 /
1.011 against 0.988 / 0.994, and 1.016 / 1.012 against 0.975 / 0.995 in a second call (Nsight
at the base clock: 213.5 against 221.3 us); its chunks through three C buffers by rule
(`C_RING_TILES`, 213 KiB): 1.062 / 1.047 against 1.017 / 1.015 with one (cbuf44). Its quantisation wins where its 30720 elements a
tile round fit better than 32768 (4000^3: 525 tiles in 4 rounds, against 512 in 4 of 128 x
256's); 0.95 takes it there (above 0.9375). Where an operand's rows start mid-sector it lost in
every shape measured (4000 x 7000 x 4096 0.93 of cuBLAS against 128 x 256's 1.06 in pairs, 1000
x 7000 x 4096 0.87 in pairs against 0.94, 3000 x 5000 x 7000 0.64 against 256 x 160's 0.96), so
it is weighed only where the operands' and C's rows are whole sectors (`aligned_rows`): 3000 x 14336 x
4096 1.00 against 0.97 / 0.96 (H200, session 42, one run)."""


FP8_CONFIGS = (
    GemmConfig("f8:128x256x128:4:c128", 128, 256, 128, 4, efficiency=1.0, chunk=128, operand_bytes=1),
    GemmConfig("f8:128x128x128:4:pp", 128, 128, 128, 4, efficiency=0.85, pingpong=True, operand_bytes=1),
    GemmConfig("f8:64x256x128:4:c128", 64, 256, 128, 4, efficiency=0.7, chunk=128, operand_bytes=1),
)
"""The configurations of FP8 operands: `CONFIGS`' tiles with K steps of 128 (the same
bytes per stage row as bf16's 64, a 128-byte swizzle), their efficiencies assumed the
same as bf16's until measured (benchmarks/matmul_bench.py's fp8 rows)."""


FP8_BLOCK_CONFIGS = (
    GemmConfig("f8b:128x128x128:4", 128, 128, 128, 4, efficiency=1.0, operand_bytes=1, block_scales=True,
               fma_promote=True),
    GemmConfig("f8b:64x128x128:4", 64, 128, 128, 4, efficiency=0.7, operand_bytes=1, block_scales=True,
               fma_promote=True),
)
"""The configurations of block-scaled FP8 (`choose_config(..., block_scales=True)`):
one K step of 128 is one K block of the scales. Each consumer warpgroup holds a main
accumulator of its 64 x 128 and two partials (a step's wgmma run into one while the
previous step's is promoted: 192 registers a thread), so the tiles are at most 128
columns; the pingpong schedule's 128 x 128 a warpgroup would need 384 registers. With
one partial (`GemmConfig.partials` = 1, DeepGEMM's schedule) 128 x 256 in chunks of
128 fits the same 192 registers without spills under `--fmad=false`, but measured
slower on the H200 (0.74-0.80 of `_scaled_mm` queued against this 128 x 128's
0.84-0.88, benchmarks/NOTES.md): it is not a configuration here. Both promote with one
`math.fma` an element (`fma_promote`): on the H200 the 128 x 128 ran at 0.94 / 0.88 of
`_scaled_mm` per call at 4096^3 / 8192^3 with it against 0.87 / 0.81 with a multiply and
an add (session 32); both kernels compile without spills. The efficiencies are
estimates until measured (benchmarks/matmul_bench.py's block-scaled rows, `--fp8`)."""


SPLIT_K_TILES = (
    GemmConfig("64x128x64:4", 64, 128, 64, 4, efficiency=0.0, group=1),
    GemmConfig("128x128x64:4", 128, 128, 64, 4, efficiency=0.0, group=1),
)
"""The split-K tiles of the decode sizes (`choose_config`), their `split_k` set per
shape: 64 x 128 (one consumer warpgroup) for M <= 64, 128 x 128 (two) for M 65-128,
so that a unit loads its columns of B once for all of M's rows; persistent, the f32
partial products reduced by a second launch."""

MAX_SPLIT_K = 16
"""The most ways `choose_config` splits K. Calls of a structure seen before keep the
configuration chosen then: after changing it, `forget_cached_calls()`."""

DECODE_MAX_M = 128
"""The decode sizes (the memory-bound regime): up to this M, `choose_config` takes the
configuration of least `decode_cost` (split-K and the swap among them)."""

M_BUCKETS = (16, 32, 64, 96, 128)
"""The decode rule sees M only through the least of these that holds it (`decode_cost`'s
partial products), so one kernel serves every M of a bucket. 65-96 a bucket of its own: there
Llama's QKV takes the clipped swap (its A^T's 96 rows tie the halves' bytes by the cost, the swap
taken), at 97-128 the halves; H200, CUDA graphs of QKV in turns, 80 rounds (benchmarks/NOTES.md,
dec49): the clipped swap x0.816 / x0.910 / x0.959 of the halves at M = 72 / 88 / 96 (18.53 /
18.79 / 18.87 us against 22.72 / 20.66 / 19.67), faster in every round; per call x1.17 / x1.05
faster at 72 / 96; at 128 the swap is x1.061 of the halves (so not the bucket's kernel there)."""


def m_bucket(m: int) -> int:
    """The least of `M_BUCKETS` that holds M (M <= `DECODE_MAX_M`)."""
    return next(b for b in M_BUCKETS if b >= m)


def unit_steps(c: GemmConfig, k: int) -> int:
    """The K steps of `c.bk` one unit of work of `c` takes: all of K's (S = 1), else a
    split's, ceil(ceil(K / bk) / S) rounded up to the ring's `stages` (the program's
    `nk`; the last split's steps past K add zeros)."""
    def cdiv(a: int, b: int) -> int:
        return -(-a // b)

    steps = cdiv(k, c.bk)
    return steps if c.split_k == 1 else cdiv(cdiv(steps, c.split_k), c.stages) * c.stages


SERIAL_SPLIT_K = False
"""Whether the decode rule's splits sum their partials in the kernel (`GemmConfig.serial`:
the tile's last unit to arrive, through an arrival counter a tile; no second launch) rather
than by a second launch (`_split_k_reduce`). Same bits either way. Off: on the H200 (session
33, CUDA graphs) the in-kernel sum took as long as the second launch or up to 0.9 us longer
(the last unit's read-back runs after the rest), and its counters, one buffer a kernel and
device, are not safe for calls of one kernel running at once on two streams; `:ser` keeps
it as an option (faster per call where the host's second launch shows: O M = 128 29.5 us
against 35.0)."""


def splits(c: GemmConfig, k: int, most: int | None = None) -> list[GemmConfig]:
    """`c` split S = 2 .. `most` (default `MAX_SPLIT_K`) ways (named
    `<c.name>:splitK<S>`, with `:ser` where `SERIAL_SPLIT_K`: summed in the kernel),
    each S whose every split has K steps of its own: (S - 1) unit steps < ceil(K / bk)."""
    out, steps = [], -(-k // c.bk)
    for split in range(2, (MAX_SPLIT_K if most is None else most) + 1):
        d = dataclasses.replace(c, split_k=split, serial=SERIAL_SPLIT_K,
                                name=f"{c.name}:splitK{split}" + (":ser" if SERIAL_SPLIT_K else ""))
        if (split - 1) * unit_steps(d, k) < steps:
            out.append(d)
    return out


CLUSTER_SPLIT_K = True
"""Whether the decode rule's candidates include the swapped splits summed in a cluster
(`cluster_splits`, `GemmConfig.cluster_split`, of `CLUSTER_SPLIT_ROWS` rows, in
clusters of at most `CLUSTER_SPLIT_MOST` blocks) whose clusters all run at once (units
at most the `sms // S` clusters' blocks: a later round of these non-persistent blocks
pays the ring's start and the sum's tail again; H200, QKV at M = 128 split twice: 192
blocks, 23.0 us against 19.6 whole). H200, CUDA graphs (benchmarks/NOTES.md, dec44):
split twice in clusters against twice by a second launch, O at M = 128 12.9 against
14.8 us, M = 64 11.4-11.8 against 13.0; down at M = 128 34.6 against 37.1-37.4, M = 64
32.5 against 34.4-34.7 (0.91 of memcpy)."""

CLUSTER_SPLIT_ROWS = (64, 128)
"""The rows of N a unit of the decode rule's cluster splits takes (`swap_config`'s
`rows`). 128-row units read A^T half as often and, at M <= 64, hold twice the weight's
bytes in flight (4 stages of 128 x 128); their sum comes after the rest (64 KiB of
partials a block at M = 128: `Target.sm_sum_bytes_per_s`). H200 (benchmarks/NOTES.md,
dec35): QKV at M = 64 split twice in pairs 16.6 us against 18.0 in 64-row units whole
(the rule's now); at M = 128 20.3 against 19.6 whole (4 stages of 64 of K: the same
6.3 MB of the weight in flight, then the sum), O 17.2 against 12.9 (32 tiles: 64 SMs)."""

CLUSTER_SPLIT_MOST = 2
"""The largest cluster of the decode rule's cluster splits: two blocks, a TPC's two
multiprocessors, so all `sms / 2` clusters are resident at once; larger clusters must
fit a GPC's free multiprocessors, which the Target does not describe. H200, O at M =
128 split 4 ways in clusters of 4 (64 tiles of 64 rows: 256 blocks) 23.0 us, in 128-row
units (128 blocks) 23.1, against 12.9 split twice."""


def cluster_splits(c: GemmConfig, k: int, most: int = MAX_CLUSTER_SPLIT, tgt: Target | None = None
                   ) -> list[GemmConfig]:
    """The swapped `c` split S = 2, 4, .. ways as the S blocks of a thread-block cluster
    summed through distributed shared memory (`gemm_hopper_ws(cluster_split=True)`,
    one cluster a tile: not persistent; named `<c.name>:splitK<S>:csplit` without its
    `:p<P>`): each S of `splits` up to `most` (at most `MAX_CLUSTER_SPLIT`) that divides
    `bm / 4`; after each, where the shared memory of `tgt` (default sm_90a's) holds more
    stages of `c`'s ring without the partial (`deepest_ring`), the same split with its
    partials through global memory and that ring (`GemmConfig.global_partials`, named
    `<bm>x<bn>x<bk>:<stages>:swapAB:splitK<S>:csplit:gp`) whose splits each have K steps
    of their own."""
    if not c.swap_ab:
        return []
    head = ":".join(f for f in c.name.split(":") if not (f[:1] == "p" and f[1:].isdigit()))
    out, steps, deep = [], -(-k // c.bk), deepest_ring(c, tgt)
    for d in splits(c, k, min(most, MAX_CLUSTER_SPLIT)):
        if c.bm % (4 * d.split_k):
            continue
        out.append(dataclasses.replace(d, serial=False, per_sm=0, cluster_split=True,
                                       name=f"{head}:splitK{d.split_k}:csplit"))
        gp = dataclasses.replace(out[-1], stages=deep, global_partials=True,
                                 name=f"{c.bm}x{c.bn}x{c.bk}:{deep}:swapAB:splitK{d.split_k}:csplit:gp")
        if deep > c.stages and (d.split_k - 1) * unit_steps(gp, k) < steps:
            out.append(gp)
    return out


def deepest_ring(c: GemmConfig, tgt: Target | None = None) -> int:
    """The most stages of `c`'s ring (at most `SWAP_AB_MAX_STAGES`) that `tgt`'s shared
    memory (default sm_90a's) holds beside their barriers and nothing else: a cluster
    split's with its partials through global memory (H200: 7 of 32 KiB at M = 128 in
    units of 128 rows, against 4 beside a partial of 64 KiB)."""
    tgt = tgt or target("sm_90a")
    stage = (c.bm + c.bn) * c.bk * c.operand_bytes + 16 * 2
    return min(SWAP_AB_MAX_STAGES, tgt.smem_per_block // stage)


SWAP_AB_MAX_M = 128
"""Swap A/B is considered up to this M (`choose_config`): M rides the wgmma's N. At M =
128 the swap's 64-row units of N double the units of the 128 x 128 split-K tile (H200,
CUDA graphs of 20 calls: Llama's QKV 18.7 us against 28.6, O split twice 11.8 against
20.7, down split twice 37.9 against 46.4; dev/experiments/decode_timing.py)."""

SWAP_AB_MAX_M_8BIT = 64
"""The same bound for 8-bit operands (per-tensor or block-scaled FP8), whose swap of 128
columns has not been measured: to 64 as before."""

SWAP_AB_COLUMNS = (16, 32, 64, 128)
"""The wgmma N of the swapped kernels: the least of these that holds M (one kernel per
bucket: M 1-16, 17-32, 33-64, 65-128)."""

SWAP_AB_MAX_STAGES = 8
"""The most stages of a swapped configuration's ring (its K loop is unrolled by them)."""

SWAP_AB_ROWS = (64, 256)
"""The rows of N a swapped unit of 16-bit operands may take (`swap_config`'s `rows`), the
decode rule's candidates (8-bit operands: 64). 256 rows (four consumer warpgroups) load
A^T once per 256 rows of the weight: H200, Llama's gate_up at M = 64, 60.8 us (0.94 of
memcpy) against 67.2 at 64 rows; where their units are few they lose by the cost (QKV at
M = 64: 31.3 us against 18.1). 128 rows are not candidates: at every measured shape one
of the two others was as fast or faster (gate_up at M = 64: 60.5; down at M = 128 split:
40.2 against 36.8), and the cost ranks their splits above the measured (benchmarks/NOTES.md)."""

STREAM_K = False
"""Whether the decode rule's candidates include the swapped configurations' stream-K, its
shared tiles summed in the kernel by their last block (`GemmConfig.stream_k` with
`serial`, `:sk:ser`; 16-bit operands, where K may be split): not yet. H200
(benchmarks/NOTES.md): stream-K with the fixup launch balanced the SMs' work but nowhere
beat the rule's (split or whole units): gate_up at M = 64 67.1 us against 67.2 whole, O
at M = 128 15.7 against 15.0 split twice, QKV at M = 128 21.5 against 19.8; summed in the
kernel no faster (dec36: QKV at M = 128 22.0 against 19.5 whole, O 15.6 against 12.7 in
pairs): the shared tiles' last blocks sum after everything else, at a third of the fill's
rate, and that tail takes more than the balance saves (`decode_cost` says 19.1)."""

PDL = False
"""Whether the decode rule's configuration launches as a programmatic dependent, the
dependents let in after the producer's last loads (`GemmConfig.pdl` with `pdl_late`,
named `:pdll`; H200, Llama's four projections back to back at M = 16: 117.8 us a layer
against 118.8, where the trigger at the start, `:pdl`, took 140.8; dec38). With the
trigger at the start (`GemmConfig.pdl`, named `:pdl`: `griddepcontrol`, the launch attribute; the kernel's
launch, start and barriers' initialisation under the previous kernel's tail, nothing of
it touching global memory before that kernel completes). Off: H200 (benchmarks/NOTES.md,
dec37), queued in CUDA graphs, QKV at M = 128 18.9 us against 19.9, O 12.2 against 12.9,
O and down at M = 16 and 64 1.0-1.3 us faster, QKV at M = 64 1.7 slower, and Llama's four
projections back to back at M = 16 21% slower (139.4 us a layer against 115.1). `GemmConfig.pdl_weight` (the weight's first stages
loaded before the wait: 18.6 and 12.5, even) needs the caller's promise that no earlier
kernel on the stream writes the weight, and stays an option. The halves' QKV kernel at M = 128
/ 100 (qkv45, CUDA graphs in turns): the same GEMM back to back 16.79 / 18.42 us with `:pdll`
against 18.00 / 19.46 (0.988 / 0.902 of cuBLAS), but each call after an elementwise kernel
writing A (a decode step's order: the GEMM after a norm) 20.64 / 21.89 against 20.15 / 21.39,
slower: still off."""

DECODE_L2_PROMOTION = 0
"""The L2 sector promotion (bytes) of the decode rule's TMA loads where the weight is K-major, of
16 bits, and its K step is fewer bytes (`GemmConfig.l2_promotion`, named `:pr<B>`; 0: the default, 128): each
request of a weight row then brings the row's next step into L2 too (the halves' and 256-row
swaps' 128-byte steps; not the 256-byte steps of the 64-row swaps). Off: H200, the decode table
in CUDA graphs (benchmarks/NOTES.md, dec40), 256 on the halves within the spread (QKV at M = 128
18.4 us against 18.5, M = 100 19.5 against 19.8), on the 256-row swaps up to 1.8% slower (gate_up
at M = 1-64), on every swap's configuration up to 7% slower (QKV at M = 64 17.2 against 16.1)."""

DECODE_CLIP = True
"""Whether the decode rule's swapped configuration (16-bit operands, one block a unit's loads:
no cluster multicast, stream-K or ring of its own) clips A^T's box to M after a block's
first trip (`GemmConfig.clip_small`, named `:clip`): the TMA then fills no row of M's
bucket past M with zeros each K step. H200, the decode table in turns with cuBLAS
(benchmarks/NOTES.md, dec41): Llama's down projection at M = 100 33.9 us against 42.9 (1.11
of cuBLAS against 0.88; the zero fill of 28 rows a step was the cost); at M = 1 and 128 and
on gate_up within the spread (qkv M = 1 15.5 against 15.9, down M = 1 30.9 against 30.6)."""

HALVES_CLIP = False
"""Whether the decode rule's halves (`halves_configs`, where `DECODE_CLIP` says so) clip the last
block row's A box to M's rows left after a block's first trip (`GemmConfig.clip_small` unswapped,
named `:clip`: `layout.tma_load {clip, tail}`, (M - 1) mod 64 + 1 rows), so that the TMA fills
no row past M with zeros each K step (28 of 64 at M = 100, 56 at 72). Off: one kernel serves M's
bucket 65-128 and the clipped kernel is slower at its top. H200, QKV in CUDA graphs, 100 rounds in
turns (benchmarks/NOTES.md, q10048): x0.814 of the halves at M = 72, x0.877 at 80, x0.992 at 100,
but x1.047 at 120 and x1.045 at 128 (no clipped branch taken there: the producer's doubled code)."""

SWAP_AB_MIN_STAGES = 4
"""The fewest stages a swapped configuration of more than 64 rows takes before halving its K
step (`swap_config`)."""

SWAP_AB_FINE_STEPS = False
"""Whether `swap_config` halves its K step (to 128 bytes at least) while the doubled stages
stay within `SWAP_AB_MAX_STAGES`: the same ring's bytes in stages half as large (M = 128 in
64-row units: 8 stages of 64 of K instead of 4 of 128; M = 33-64 likewise). Off until
measured over the buckets it moves (H200, QKV at M = 128: `k64:s8` 18.9 us against 20.0,
one run; `k32:s16` 25.5; benchmarks/NOTES.md, session 38's merged tree)."""

def swap_config(m: int, fp8: bool = False, block_scales: bool = False, tgt: Target | None = None,
                rows: int = 64, fine: bool | None = None) -> GemmConfig:
    """The swapped configuration of an M <= `SWAP_AB_MAX_M` (`gemm_hopper_ws(swap_ab=True)`):
    64 rows of N, the least of `SWAP_AB_COLUMNS` columns that holds M, K steps of
    256 bytes (128 elements of 16 bits, 256 of 8 bits; with block scales 128, one K
    block of the scales a step), as many stages as fit `tgt`'s shared memory
    (default sm_90a's) up to `SWAP_AB_MAX_STAGES`, a power of two (K's steps are then
    a whole number of rounds of the ring wherever K is a multiple of 1024), persistent
    over one block a multiprocessor (`per_sm`, named `:p1`): deep rings, which take
    the multiprocessor's shared memory (16-bit at M <= 16: 8 stages of 20 KiB).
    H200, Llama's projections at M = 1 and 16: 0.88-0.98 of a cudaMemcpy of the
    weight's bytes unsplit, against 0.71-0.96 with 8 stages of 64 elements split
    (benchmarks/NOTES.md).

    `rows` (64, 128 or 256; 16-bit operands): the rows of N a unit takes, one consumer
    warpgroup per 64 sharing each stage of A^T (which the units then read from L2
    once per `rows` rows of the weight instead of once per 64); where fewer than
    `SWAP_AB_MIN_STAGES` stages of 256-byte rows fit, K steps of 128 bytes (128 x 128
    at M = 128: 4 stages of 64 elements; 256 rows: 4 of 64 at M 33-128).

    `fine` (default `SWAP_AB_FINE_STEPS`): then the K step halved, to 128 bytes at least,
    while the doubled stages stay within `SWAP_AB_MAX_STAGES` (the same ring's bytes in
    finer stages; not with block scales, whose step is a scale block)."""
    tgt = tgt or target("sm_90a")
    fine = SWAP_AB_FINE_STEPS if fine is None else fine
    bn = next(c for c in SWAP_AB_COLUMNS if c >= m)
    eb = 1 if fp8 or block_scales else 2
    bk = 128 if block_scales else 256 // eb

    def fit(bk: int) -> int:
        stages = SWAP_AB_MAX_STAGES
        while stages > 2 and stages * (rows + bn) * bk * eb + 1024 * stages > tgt.smem_per_block:
            stages //= 2
        return stages

    stages = fit(bk)
    if stages < SWAP_AB_MIN_STAGES and rows > 64 and not block_scales:
        bk //= 2
        stages = fit(bk)
    while fine and not block_scales and bk * eb >= 256 and fit(bk // 2) >= 2 * stages:
        bk, stages = bk // 2, 2 * stages
    prefix = "f8b:" if block_scales else "f8:" if fp8 else ""
    return GemmConfig(f"{prefix}{rows}x{bn}x{bk}:{stages}:swapAB:p1", rows, bn, bk, stages, efficiency=0.0, group=1,
                      operand_bytes=eb, block_scales=block_scales, swap_ab=True, per_sm=1)


DECODE_HALVES = True
"""Whether the decode rule's candidates at M = 65-128 (B K-major, 16-bit operands) include
`halves_configs`: the unswapped tile of 64 rows of M (M's two halves) by `HALVES_COLUMNS`
columns of N (the two blocks of a column each loading the weight's boxes, the L2 serving
them twice: `HALVES_CLUSTER`), a deep ring of 64-element K steps: cuBLAS's decode schedule at Llama's QKV (H200,
Nsight Compute: `nvjet_sm90_tst_96x64_64x10_1x2`, 128 blocks of 64 x 96 in pairs, 10 stages
of 20 KiB). Every multiprocessor fills its shared memory at about the same rate there (75-80
GB/s; the fill is the time, not the tensor cores: the swapped kernel without its wgmma ran
as long), so the fewest bytes into the busiest one wins: (64 + 96) K a block over 128 blocks
against the swap's (64 + 128) K over 96. H200, CUDA graphs (benchmarks/NOTES.md, dec39), M =
128: QKV 18.0 us against the swap's 19.2 (cuBLAS 16.6); with 10 stages 32.4 against 34.0 at
12288 x 4096 (the wave rule's pingpong), 20.0 against 26.0 at 5120 x 5120 and 32.0 against
37.1 at 11008 x 4096 (256-row swaps split 4 and 2 ways): the four shapes of Llama's and the
sweep's that the rule moves."""

HALVES_CLUSTER = (1, 1)
"""The cluster of `halves_configs`' tiles: (1, 1), none (each block its own weight boxes, the L2
serving each weight tile to both block rows, a block's stage released by its own consumer alone);
(2, 1), M's two block rows sharing the weight's stages (`:cl2`, each block loads its share and
multicasts it: a shared stage is refilled only after both blocks release it); (2, 2), two block
columns too, sharing the tokens' A boxes (`:cl2x2`); (1, 2), two block columns sharing the tokens'
A boxes, each block its own weight boxes (`:cl1x2`). H200, QKV in CUDA graphs, rounds in turns
(benchmarks/NOTES.md, dec49): (1, 1) at M = 128 17.55 us against 18.35 in pairs (x0.956 [0.945,
0.987], faster in every one of 60 rounds), again x0.964 at M = 128, x0.961 at 112 and x0.964 at
11008 x 4096, M = 128 (50 of 50 rounds each); (2, 2) 36.97 against 18.47 (x2.0: clusters of
4 blocks of 173 KiB do not all fit at once, two waves)."""

HALVES_B_BOX = True
"""Whether `halves_configs`' tiles with column chunks and no cluster load the weight's stage as one
TMA box of `bn` rows (`GemmConfig.b_box`, named `:b1`): two loads a stage (A's 64 rows, the weight's 96)
instead of four, as cuBLAS's decode kernel issues them. H200, CUDA graphs over 4 weights in turns with
the three-box kernel (benchmarks/NOTES.md, dec50): QKV at M = 128 x0.974 [0.96, 0.99] (30 of 30 rounds)
and x0.980 [0.95, 1.00] (50 of 50), 17.59 us against 17.97; M = 112 x0.983 (47 of 50); M = 100 x1.003
[0.97, 1.02] (16 of 50: even); 11008 x 4096 at M = 128 x0.970 (50 of 50). Per call (5 rounds) x0.94 /
x0.996 / x1.011 at M = 128 / 112 / 100. At 10 stages it did not help (18.14 us against 18.07)."""

HALVES_COLUMNS = (64, 96, 128)
"""The columns of N a `halves_configs` tile may take (96: one wgmma of n96 over 32-column
chunks, `one_wgmma`)."""

HALVES_L2_PROMOTION = 256
"""The L2 sector promotion (bytes) of the TMA loads of `halves_configs`' tiles with column chunks
(the only ones the rule picks: 64 x 96): each 128-byte K step of a weight row brings the row's
next step into L2 (`GemmConfig.l2_promotion`, `:pr256`). H200, QKV in CUDA graphs over 4 weight
copies, every reading since dec40 the same way: M = 128 18.3 / 18.4 / 17.9 us against 18.8 /
18.5 / 18.2, M = 100 19.5 / 19.2 against 19.8 / 19.4 (benchmarks/NOTES.md, dec40, fold43). The
swaps keep 128 (`DECODE_L2_PROMOTION`: slower there)."""

HALVES_MAX_STAGES = 8
"""The most stages of a `halves_configs` ring (64-element K steps). A power of two keeps K's steps
whole rounds of the ring wherever K is a multiple of 512; any other count (10: 200 KiB, the most
of 64 x 96 beside its C buffers) takes the last trip's steps past K skipped (`skip_padding`,
`:sp`). H200, QKV at M = 128 in pairs (`HALVES_CLUSTER` (2, 1)): 8 stages of 64 x 96 (160 KiB)
18.0 us, 10 with the last trip's padding skipped 18.5, 11 with box parts 19.9 (benchmarks/NOTES.md,
dec39); fewer are slower as the bytes a block holds in flight (all but the stage the consumer
holds) fall: 6 stages 20.1, 4 24.4, 4 of K 128 19.1, 2 of K 128 37.0 (dec44)."""


def halves_configs(tgt: Target | None = None) -> list[GemmConfig]:
    """The decode tiles of M's halves (`DECODE_HALVES`): for each of `HALVES_COLUMNS`, 64 x
    bn x 64, M's two block rows in `HALVES_CLUSTER`'s clusters (the pair sharing B's stages:
    (2, 1)), the most stages that fit `tgt`'s shared memory (default sm_90a's), `HALVES_MAX_STAGES`
    halved until they fit (the pair shares their column chunks' boxes whole; a count not a power
    of two with `skip_padding`, `:sp`; with chunks and no cluster, the weight's stage one box where
    `HALVES_B_BOX`, `:b1`), with column
    chunks a C buffer each (`chunk_buffers`: H200, QKV at M = 128, 19.04 us against 19.71 in
    Nsight, 1.022 / 0.973 of cuBLAS per call / queued against 1.005 / 0.951, benchmarks/NOTES.md,
    fold43) and the weight's loads with `HALVES_L2_PROMOTION`; named as
    benchmarks/matmul_bench.py's `parse_config` reads them (`64x96x64:8:c32:ow:cl2:cb:pr256`)."""
    tgt = tgt or target("sm_90a")
    out = []
    for bn in HALVES_COLUMNS:
        chunk = 32 if bn % 64 else 0
        stages = HALVES_MAX_STAGES
        while True:
            cl = "" if HALVES_CLUSTER == (1, 1) else ":" + cluster_name(HALVES_CLUSTER)
            skip = bool(stages & (stages - 1))  # not a power of two: the last trip's steps past K skipped
            box = HALVES_B_BOX and bool(chunk) and HALVES_CLUSTER == (1, 1)
            flags = ((f":c{chunk}:ow" if chunk else "") + cl + (f":cb:pr{HALVES_L2_PROMOTION}" if chunk else "")
                     + (":sp" if skip else "") + (":b1" if box else ""))
            c = GemmConfig(f"64x{bn}x64:{stages}{flags}", 64, bn, 64, stages, efficiency=0.0, chunk=chunk,
                           one_wgmma=bool(chunk), cluster=HALVES_CLUSTER, chunk_buffers=bool(chunk),
                           l2_promotion=HALVES_L2_PROMOTION if chunk else 0, skip_padding=skip, b_box=box)
            if c.smem_bytes() <= tgt.smem_per_block or stages <= 2:
                break
            stages //= 2
        out.append(c)
    return out


def units(c: GemmConfig, m: int, n: int) -> int:
    """The units of work of `c` for an M x N output: its tiles (swapped: N's rows; M's
    columns are one tile at decode sizes) times `c.split_k`."""
    tiles = -(-n // c.bm) if c.swap_ab else -(-m // c.bm) * -(-n // c.bn)
    return tiles * c.split_k


def stream_k_schedule(c: GemmConfig, m: int, n: int, k: int, sms: int) -> tuple[int, int, int, int, int]:
    """Stream-K's schedule of `c` (`c.stream_k`) for M x N x K on `sms` multiprocessors,
    as `gemm_hopper_ws(stream_k=True)` computes it: (tiles, trips a tile (rounds of the
    ring, ceil(ceil(K / bk) / stages)), blocks G (min(sms * per_sm (unswapped: sms),
    tiles * trips)), span (a block's trips of the shared tiles, ceil(tail * trips / G),
    at least 1), waves (the full waves of tiles each block takes whole, tiles // G: the
    shared tiles, the tail, are the last tiles - waves G)); swapped, the tiles are N's
    rows times M's bucket's columns; in clusters (`c.cluster`) of cm x cn blocks, the
    "tiles" are the groups of cm x cn tiles and the "blocks" the clusters (min(groups,
    `cluster_slots`)), as the program shares them."""
    cm, cn = c.cluster
    if c.swap_ab:
        mb = min(m_bucket(m), m) if m <= DECODE_MAX_M else m
        tiles = -(-n // c.bm) * -(-mb // c.bn)
    else:
        tiles = -(-(-(-m // c.bm)) // cm) * -(-(-(-n // c.bn)) // cn)
    trips = -(-(-(-k // c.bk)) // c.stages)
    if cm * cn > 1:
        blocks = min(cluster_slots(cm * cn, sms, c.smem_bytes()), tiles)
    else:
        blocks = min(sms * (c.per_sm if c.swap_ab else 1), tiles * trips)
    waves = tiles // blocks
    return tiles, trips, blocks, max(1, -(-(tiles - waves * blocks) * trips // blocks)), waves


def shared_segments(tiles: int, trips: int, span: int) -> int:
    """Stream-K's partial segments: over the tiles that several blocks share (the
    blocks t trips / span .. (t trips + trips - 1) / span of tile t differ), the
    blocks sharing each (each writes its partial, the fixup reads it)."""
    out = 0
    for t in range(tiles):
        b0, b1 = t * trips // span, (t * trips + trips - 1) // span
        out += b1 - b0 + 1 if b1 > b0 else 0
    return out


def most_sharers(tiles: int, trips: int, span: int) -> int:
    """Stream-K's most blocks sharing one of `tiles` tiles of `trips` trips, each block
    `span` trips in order (`shared_segments`' blocks of a tile); 0 where none is shared."""
    most = 0
    for t in range(tiles):
        b0, b1 = t * trips // span, (t * trips + trips - 1) // span
        most = max(most, b1 - b0 + 1 if b1 > b0 else 0)
    return most


def decode_cost(c: GemmConfig, m: int, n: int, k: int, sms: int, tgt: Target | None = None) -> float:
    """The decode rule's cost of configuration `c` for M x N x K on `sms`
    multiprocessors (memory-bound), in seconds from `tgt`'s rates (default sm_90a's,
    the H200's): the longest of

    - DRAM delivering the units' bytes (`Target.dram_bytes_per_s`): the weight once
      (a unit's `bm` rows of N swapped, else `bn` columns of B, over the K of its
      `unit_steps`), the weight's at most at the rate its bytes in flight allow by
      Little's law (`ring_rate`: the resident blocks' rings' bytes of the weight over
      `Target.dram_latency_s`);
    - the busiest multiprocessor filling its shared memory (`sm_fill_bytes_per_s`):
      ceil(units / sms) units, each its bytes of the weight and of the small operand
      (M's bucket `m_bucket(M)` rows of A, at most the tile's, over the same K, which
      every unit reads again from L2);
    - the busiest multiprocessor's tensor cores (`sm_mma_flops_per_s`, twice it for
      8-bit operands) on its units' whole tiles (`bm x bn`, M's columns past M
      included);

    split units also write and read back their f32 partial (a tile of M's bucket's
    rows, columns swapped, at most), in DRAM's and the busiest's bytes, and pay one
    `kernel_gap_s` for the reduction's launch; summed in the kernel (`c.serial`) they
    pay no launch, each unit writes its partial, and the S partials of a tile read back
    by its last unit after everything else come after the longest (H200: QKV at M = 128
    in 256-row units split 4 ways took 37.2 us serial against 25.7 by a second launch:
    512 KiB read by one multiprocessor at the end). Summed in a cluster (`c.cluster_split`)
    they write no partial to memory and pay no launch: the units run as whole clusters
    (rounds of `sms // S` clusters), and each block's sum of its share of the tile (the
    S partials' `bm / S` rows: one partial's bytes, at `Target.sm_sum_bytes_per_s`)
    comes after the longest; through global memory (`c.global_partials`) the unit's
    store of its partial comes first and each partial is written back to DRAM once
    (H200: QKV at M = 128 in 128-row pairs of 7 stages 22.6 us, against 20.3 with 4
    stages and the partials in shared memory). Stream-K (`c.stream_k`,
    `stream_k_schedule`): the busiest block takes `span` trips of the ring (`stages` K
    steps of the weight's and the small operand's rows) and writes at most two
    partials; the shared tiles' partial segments (`shared_segments`) are written and
    read back; the fixup's launch costs `kernel_gap_s`, or, summed in the kernel
    (`c.serial`: no launch), each partial goes to DRAM once (read back from L2 soon
    after) and the last block's store of its partial and read of the tile's
    (`most_sharers` of them), at `Target.sm_sum_bytes_per_s`, come after the longest
    (H200, QKV at M = 128: 22.0 us measured, 20.5 by this cost, 19.5 whole)."""
    tgt = tgt or target("sm_90a")
    mb = m_bucket(m) if m <= DECODE_MAX_M else m
    weight, small = (c.bm, min(c.bn, mb)) if c.swap_ab else (c.bn, min(c.bm, mb))
    partial = 2 * small * weight * 4
    mma = tgt.sm_mma_flops_per_s * (2 if c.operand_bytes == 1 else 1)
    if c.stream_k:
        tiles, trips, blocks, span, waves = stream_k_schedule(c, m, n, k, sms)
        trip = c.stages * c.bk
        tail = tiles - waves * blocks
        rate = ring_rate(c, blocks, weight, c.stages, tgt)
        # the partials written and read back (summed in the kernel: read from L2 soon after,
        # written back to DRAM once)
        dram = (tiles * weight * min(k, trips * trip) * c.operand_bytes / rate
                + shared_segments(tail, trips, span) * partial // (2 if c.serial else 1) / tgt.dram_bytes_per_s)
        busy = waves * trips + (span if tail else 0)
        busiest = c.per_sm * (busy * (weight + small) * trip * c.operand_bytes + 2 * partial)
        flops = c.per_sm * busy * 2 * c.bm * c.bn * trip
        if c.serial:  # summed in the kernel: the last block's store of its partial and read of the tile's, after the rest
            sums = ((most_sharers(tail, trips, span) + 1) * partial // 2
                    / (tgt.sm_sum_bytes_per_s or tgt.sm_fill_bytes_per_s))
            return max(dram, busiest / tgt.sm_fill_bytes_per_s, flops / mma) + sums
        gaps = 1
    else:
        span = min(k, unit_steps(c, k) * c.bk)
        count = units(c, m, n)
        # the partials' bytes: written and read back (a cluster's through global memory: written
        # back from L2 once, read from L2 by the sum); none through shared memory
        partial = (partial // 2 if c.global_partials else 0) if c.cluster_split else partial if c.split_k > 1 else 0
        resident = min(count, sms // c.split_k * c.split_k if c.cluster_split
                       else sms * c.per_sm if c.swap_ab and c.per_sm else sms)
        # unswapped tiles of M's rows share each block column's weight (through L2, or a cluster's
        # multicast): DRAM reads it, and the resident blocks hold it in flight, once a column
        mtiles = 1 if c.swap_ab else -(-min(mb, m) // c.bm)
        rate = ring_rate(c, max(1, resident // mtiles), weight, min(c.stages, unit_steps(c, k)), tgt)
        # the weight once: the steps past K a split's rounding adds read nothing
        dram = (count // c.split_k // mtiles * weight * min(k, c.split_k * span) * c.operand_bytes / rate
                + count * partial / tgt.dram_bytes_per_s)
        rounds = -(-count // sms)
        if c.cluster_split:  # whole clusters at once; the sum after the rest, a tile's partial a block
            rounds = -(-count // (sms // c.split_k * c.split_k))
            busiest = rounds * (weight + small) * span * c.operand_bytes
            # (through global memory: its own partial stored first)
            tail = ((2 if c.global_partials else 1) * small * weight * 4
                    / (tgt.sm_sum_bytes_per_s or tgt.sm_fill_bytes_per_s))
        elif c.serial:  # each unit writes its partial; one tile's S come back to the last unit
            busiest = rounds * ((weight + small) * span * c.operand_bytes + partial // 2)
            tail = c.split_k * partial // 2 / tgt.sm_fill_bytes_per_s
        else:
            busiest = rounds * ((weight + small) * span * c.operand_bytes + partial)
            tail = 0.0
        flops = rounds * 2 * c.bm * c.bn * span
        gaps = 1 if c.split_k > 1 and not (c.serial or c.cluster_split) else 0
        return max(dram, busiest / tgt.sm_fill_bytes_per_s, flops / mma) + tail + gaps * tgt.kernel_gap_s
    return max(dram, busiest / tgt.sm_fill_bytes_per_s, flops / mma) + gaps * tgt.kernel_gap_s


def ring_rate(c: GemmConfig, blocks: int, weight: int, stages: int, tgt: Target) -> float:
    """The bytes per second DRAM delivers the weight to `blocks` resident blocks of `c`,
    each with `stages` stages of its ring holding `weight` rows (or columns) of the weight
    by `c.bk` in flight: `tgt.dram_bytes_per_s`, or, by Little's law, those bytes in
    flight over `tgt.dram_latency_s` where fewer (the latency unknown: the bandwidth).
    H200 (benchmarks/NOTES.md), Llama's QKV at M = 64 in 96 units of 64 rows: 4 stages
    (64 KiB of the weight in flight a block, 6.3 MB in all) 18.0 us, 2 stages 35.8
    (at 2.2 us a load: 17.6 and 35.2); down at M = 1 in 64 units, 8 stages of 16 KiB:
    60 GB/s a block (30.5 us, 0.98 of memcpy)."""
    if not tgt.dram_latency_s:
        return tgt.dram_bytes_per_s
    return min(tgt.dram_bytes_per_s, blocks * stages * weight * c.bk * c.operand_bytes / tgt.dram_latency_s)


def fill_bytes(c: GemmConfig, m: int, n: int, k: int) -> int:
    """All the bytes `c`'s units load into shared memory for M x N x K (the weight once,
    the small operand once per unit, M's bucket's rows): the decode rule's tie-break,
    fewer first (`_decode_config`; H200, Llama's gate_up at M = 64, DRAM-bound either
    way: swapped units of 256 rows of N, 1.25 bytes a byte of the weight, 60.8 us
    against 67.2 for 64 rows, 2 bytes a byte)."""
    mb = m_bucket(m) if m <= DECODE_MAX_M else m
    weight, small = (c.bm, min(c.bn, mb)) if c.swap_ab else (c.bn, min(c.bm, mb))
    tiles = units(c, m, n) // c.split_k
    return tiles * (weight + small) * k * c.operand_bytes


def choose_config(m: int, n: int, sms: int | None = None, tgt: Target | None = None, k: int | None = None,
                  fp8: bool = False, block_scales: bool = False, b_kmajor: bool = False,
                  activation: str | None = None) -> GemmConfig:
    """The configuration of an M x N (x K) output on `sms` multiprocessors (None: the
    Target's `multiprocessors`; `tilec.matmul` passes the device's count) of `tgt`
    (default sm_90a).

    The wave rule (the module docstring) from `CONFIGS` (`FP8_CONFIGS` for 8-bit
    operands, `FP8_BLOCK_CONFIGS` for block-scaled ones). Decode sizes (M <=
    `DECODE_MAX_M`, K given; the memory-bound regime): the configuration of least
    `decode_cost` (the slower of DRAM delivering the weight and the busiest
    multiprocessor filling its shared memory; ties to the earlier), among, in this order:

    - with B K-major (`b_kmajor`: a `torch.nn.Linear` weight) and M <= `SWAP_AB_MAX_M`
      (`SWAP_AB_MAX_M_8BIT` for 8-bit operands), for each of `SWAP_AB_ROWS` rows of N
      a unit (8-bit operands: 64):
      the swapped configuration (`swap_config`, C^T = B^T A^T: the weight's rows ride
      the wgmma's 64 rows, M its N; a deep ring, persistent), unsplit, then split S =
      2, 3, ... ways (`splits`; 16-bit and per-tensor FP8 operands), then stream-K
      where `STREAM_K` says so; with 16-bit operands, where `CLUSTER_SPLIT_K` says so,
      the units of `CLUSTER_SPLIT_ROWS` rows split in clusters of up to
      `CLUSTER_SPLIT_MOST` blocks (`cluster_splits`) whose clusters all run at once;
    - otherwise, with 16-bit operands: the split-K tile of M's rows (`SPLIT_K_TILES`:
      64 x 128 for M <= 64, 128 x 128 to 128) split S = 2, 3, ... ways;
    - the wave rule's configuration.

    So K is split only where the units of work are too few to keep DRAM busy (fewer
    than about DRAM's bandwidth over one multiprocessor's fill rate: 1 / 2.75 of
    132 H200 SMs' worth of bytes each, or, with their rings, fewer bytes in flight than
    DRAM's bandwidth times its latency: `ring_rate`) and K is
    long enough to pay for the partials and the reduction's launch: Llama's QKV (N =
    6144, K = 4096) at M = 1 on 132 SMs takes the swap unsplit (96 units), 2048 x 8192
    the swap split twice in pairs (32 units of 64 rows), QKV at M = 64 48 tiles of 128
    rows split twice in pairs (96 blocks of 128 KiB of the weight in flight: 64-row
    units whole hold 64 KiB, 6.3 MB over 96 SMs, 2.9 TB/s by Little's law), at M = 128
    the swap of 128 columns (96 units), O at M = 128 the swap split twice in pairs
    (A^T's bytes twice the weight's),
    gate_up (N = 28672) at every M the swap of 256 rows of N (112 units, DRAM-bound
    as the 64-row swap and the 128 x 256 tile, with fewer bytes into shared memory:
    the tie-break, `fill_bytes`), 4096^3 the wave rule. Among configurations of
    equal cost a swap is taken (its tiles have no rows past M), then the one of fewer
    `fill_bytes`, then the earlier. The
    rule reads M only through `m_bucket` (and the tiles of its rows), so one kernel
    serves every M of a bucket. An `activation` with special-function work an element
    (`MUFU_ACTIVATIONS`) staggers the wave rule's cooperative 128-row tile (`staggered`)."""
    tgt = tgt or target("sm_90a")
    sms = sms or tgt.multiprocessors
    if not sms:
        raise TilecError(f"choose_config: the multiprocessors of {tgt.arch} are not known; pass sms")
    if k is None or m > DECODE_MAX_M:
        return staggered(_wave(m, n, sms, tgt, fp8, block_scales, k, b_kmajor, past_decode=True), activation)
    return _decode_config(m_bucket(m), n, k, sms, tgt, fp8, block_scales, b_kmajor, MAX_SPLIT_K)


MUFU_ACTIVATIONS = ("silu", "silu_tanh")
"""The activations whose epilogue is bound by its special-function (`MUFU`) work: SiLU's two
`MUFU` an element (`silu_tanh`'s one) with the tensor cores idle cost the cooperative 128 x 256
tile 4100 (2050) clocks of a ~70000-clock tile at K = 4096 (benchmarks/NOTES.md, epi40)."""


def staggered(c: GemmConfig, activation: str | None) -> GemmConfig:
    """`c` with its two consumer warpgroups staggered by one K step (`GemmConfig.stagger`
    1) where the epilogue's `activation` does `MUFU` work (`MUFU_ACTIVATIONS`) and `c` is
    the cooperative unclustered 128 x 256 tile of 16-bit operands with whole trips (no
    pingpong, split-K, stream-K, swap, block scales, skipped steps); else `c`. Measured on
    an H200 at 8192 x 28672 x 4096 in Nsight Compute's cycles (benchmarks/NOTES.md, epi40):
    bias + `silu` 1.1-1.5% fewer than the rule's unstaggered kernel in two runs, bias +
    `silu_tanh` 1.4%, each one's epilogue running under the other's wgmma. For `silu` also
    the bias staged in shared memory by the producer (`GemmConfig.bias_smem`, `:bsm`; the
    same kernel without a bias): in turns on an H200 at 8192 x 28672 x 4096 (benchmarks/
    NOTES.md, epi46) bias + `silu` -1.02% per call [quartiles -1.24, -0.72] and -0.89% queued
    [-1.63, -0.51] against the bias loaded from global memory in the epilogue (a second
    call: -0.52% / -1.39%); `silu_tanh` within the spread (-0.35% / -0.20%), so not there.
    And for `silu` the exp2 of 2 of every 8 elements on the FMA pipe (`GemmConfig.exp2_fma`,
    `:fe2`; benchmarks/NOTES.md, epi48): -0.50% [-0.79, +0.09] then -0.61% [-1.05, -0.27] per
    call (37 of 40 rounds) and -0.24% / -0.52% [-1.57, -0.02] queued over `:st1:bsm`; 3 and
    4 of 8 tie. And for `silu` the two consumers one region run apart (`GemmConfig.consumers_apart`,
    `:ap`: one copy of the consumer's code, 2272 SASS instructions against 3968; benchmarks/
    NOTES.md, epi50): at 16384 x 4096 x 4096 -0.66% [-1.05, -0.15] per call (94 of 112 rounds)
    and -0.76% [-1.01, -0.28] queued over `:st1:bsm:fe2`, at 8192 x 28672 x 4096 -0.12%
    [-0.57, +0.29] and -0.19% [-0.58, +0.23] per call in two calls (55 of 89 rounds); NVRTC's
    source half the size."""
    if (activation not in MUFU_ACTIVATIONS or (c.bm, c.bn) != (128, 256) or c.pingpong or c.split_k > 1 or c.stream_k
            or c.swap_ab or c.block_scales or c.operand_bytes != 2 or c.cluster != (1, 1) or c.skip_padding
            or c.overlap or c.cp_async or c.a_registers or c.one_wgmma or c.stages < 3 or c.stagger):
        return c
    if activation == "silu":  # and its bias staged in shared memory (the docstring)
        return dataclasses.replace(c, stagger=1, bias_smem=True, exp2_fma=2, consumers_apart=True,
                                   name=f"{c.name}:st1:bsm:fe2:ap")
    return dataclasses.replace(c, stagger=1, name=f"{c.name}:st1")


SECTOR_BYTES = 32
"""The bytes of a sector of L2: a row whose stride is not a multiple of it starts every
other row mid-sector, and each row segment a tile's load reads touches one sector more."""
C_BYTES = 2
"""Bytes of C's elements as the wave rule weighs its rows (`GemmConfig.aligned_rows`): 16-bit
outputs, the rule's measured case."""


def misaligned_rows(n: int, k: int | None, operand_bytes: int, b_kmajor: bool) -> str:
    """The operands ("a", "b") of a K x N product whose row stride in bytes is not a
    multiple of `SECTOR_BYTES` (a divisibility fact of the call's strides: A's K, B's N,
    or K where B is K-major); K None: B's alone."""
    out = ""
    if k is not None and k * operand_bytes % SECTOR_BYTES:
        out += "a"
    b_row = k if b_kmajor else n
    if b_row is not None and b_row * operand_bytes % SECTOR_BYTES:
        out += "b"
    return out


def cluster_name(cluster: tuple[int, int]) -> str:
    """The flag of `GemmConfig.cluster` in a configuration's name: `cl<cm>` for (cm, 1),
    else `cl<cm>x<cn>`."""
    cm, cn = cluster
    return f"cl{cm}" if cn == 1 else f"cl{cm}x{cn}"


def cluster_slots(size: int, sms: int, smem: int) -> int:
    """The clusters of `size` blocks (one a multiprocessor: `smem` bytes of shared memory,
    384 threads) a persistent grid takes: those the current device runs at once
    (`raw_launch.resident_clusters`: a cluster's blocks share a GPC, and an H100's GPCs
    hold 14 to 18 multiprocessors, so clusters of 4 leave some idle); `sms // size`
    where there is no device (compiling for one elsewhere)."""
    from tilec.runtime import raw_launch

    device = raw_launch.current_device() if raw_launch.available() else None
    if device is None:
        return sms // size
    return min(sms // size, raw_launch.resident_clusters(device, size, CLUSTER_THREADS, smem))


CLUSTER_THREADS = 384
"""The threads of a block of the clustered configurations (two consumer warpgroups and the producer's)."""


def with_cluster(c: GemmConfig, m: int, n: int, k: int | None, sms: int, b_kmajor: bool) -> GemmConfig:
    """`c` in 2-block clusters sharing A or B (`GemmConfig.cluster` (1, 2) or (2, 1), named
    `<c.name>:cl2`) where B's rows start mid-sector (`misaligned_rows` names "b") and
    the pairs fit: a 16-bit, unswapped, unsplit configuration (neither pingpong,
    cp.async nor the overlapped epilogue) in column chunks, whose stages' boxes the
    pair shares equally (`cluster_loads`: whole boxes in turn where the stages hold an
    even count of B's boxes, else each block its half of every box, `box_parts`, named
    `:cl2:bp`, where B's boxes are one 128-byte swizzle wide), and no more waves of pairs over the
    resident clusters (`cluster_slots`) than of tiles over the multiprocessors (an odd
    row of tiles costs a row past M). Measured on the H200 (benchmarks/NOTES.md): at
    3000 x 5000 x 7000 (both operands' rows 16 mod 32 bytes) 580-602 TFLOP/s against
    475-505 without; B's alone (3000 x 5000 x 7040) 587-600 against 557-575; at 32-byte
    rows slower (619 against 640 at 3000 x 5008 x 7008, 607 against 630 at 4000^3), and
    where only A's rows are misaligned (3000 x 5056 x 7000) every cluster was slower
    than none (601 with pairs sharing B, 587 with pairs sharing A, 604 with 2 x 2, 606
    with 4 x 1, against 615). A tile of consumer warpgroups of 128 rows (`consumer_rows`)
    pairs along N sharing A (`GemmConfig.cluster` (1, 2), each block half of A's boxes,
    `:cl1x2:bp`) where A's rows start mid-sector, under the same test of waves: its 256
    rows read A once a pair (3000 x 5000 x 7000, 256 x 160: 601-612 TFLOP/s against 589-595
    in pairs sharing B, wg38). Clusters of 4 sharing A as well (2 x 2) or B four ways (4
    x 1) were within the noise of the pairs at 3000 x 5000 x 7000 (587-618 and 596-611
    against 580-601), on 30 clusters of an H200's 132 multiprocessors (120 of them), so
    the rule keeps the pairs. Block-scaled FP8's 128 x 128 tile in pairs sharing B was
    slower at 8192^3 (1142-1151 TFLOP/s against 1211, whole boxes or `box_parts`), so
    block scales stay alone."""
    if (c.swap_ab or c.split_k > 1 or c.pingpong or c.cp_async or c.overlap or c.block_scales
            or c.operand_bytes != 2 or not c.chunk):
        return c
    # whole boxes in turn need an even count of B's boxes over the stages; else each block its
    # half of every box (`box_parts`: B's boxes one 128-byte swizzle wide, halves of 8 rows)
    parts = c.stages * (c.bn // c.chunk) % 2 == 1
    if parts and (max(c.bk, c.bk if b_kmajor else c.chunk) * c.operand_bytes > 128
                  or (c.chunk if b_kmajor else c.bk) % 16):
        return c
    misaligned = misaligned_rows(n, k, c.operand_bytes, b_kmajor)
    share_a = c.consumer_rows == 128 and "a" in misaligned  # pairs along N, each block half of A's boxes
    if (not share_a and "b" not in misaligned) or (share_a and c.bk * c.operand_bytes > 128):
        return c
    slots = cluster_slots(2, sms, c.smem_bytes())
    gm, gn = -(-m // c.bm), -(-n // c.bn)
    groups = gm * -(-gn // 2) if share_a else -(-gm // 2) * gn
    if not slots or -(-groups // slots) > -(-(gm * gn) // sms):
        return c
    if share_a:
        return dataclasses.replace(c, cluster=(1, 2), box_parts=True, name=f"{c.name}:{cluster_name((1, 2))}:bp")
    return dataclasses.replace(c, cluster=(2, 1), box_parts=parts,
                               name=f"{c.name}:{cluster_name((2, 1))}" + (":bp" if parts else ""))


SKIP_PADDING = True
"""Whether the wave rule's pick skips the steps of a tile's last trip of the ring wholly past
K (`with_skip_padding`): on. H200 (benchmarks/NOTES.md, gemm40): at 4000^3 (62.5 K steps of
64 in trips of 4: 64 steps run, 63 with `:sp`) `128x256x64:4:c128:sp` takes 284.7 / 285.6
thousand cycles against 288.4 at Nsight's fixed base clock (-1.1% to -1.3%, two runs); in
turns with cuBLAS 0.987 / 0.991 of it per call / queued against 0.980 / 0.983 (7 rounds), and
0.982 / 0.980 against 0.973 / 0.967 (11 rounds, the rule with it), 0.955 / 0.998 against 0.966 /
0.985 (5 rounds); at 3000 x 14336 x 4000 (65 steps in trips of 5 for 63) `128x192x64:5:c64:sp`
693 / 737 TFLOP/s per call / queued against 647 / 670."""


def with_skip_padding(c: GemmConfig, k: int | None) -> GemmConfig:
    """`c` with the steps of its tiles' last trip wholly past K skipped (`skip_padding`,
    named `<c.name>:sp`) where `SKIP_PADDING` says so, K is known and not whole trips of
    the ring, and `c` may take it (16-bit operands, unswapped, unsplit, no stream-K,
    pingpong, overlapped epilogue or cp.async). The rule's choice of tile is made
    before (`wave_seconds` of the tiles as `CONFIGS` names them), so this moves no shape
    to another tile: 4000^3 `128x256x64:4:c128:sp` (63 steps instead of 64); a K of whole
    trips (4096, 14336 in 4 stages of 64) emits the same CUDA with or without it."""
    if (not SKIP_PADDING or k is None or c.skip_padding or c.operand_bytes != 2 or c.swap_ab or c.split_k > 1
            or c.stream_k or c.block_scales or c.pingpong or c.stagger or c.overlap or c.cp_async
            or -(-k // c.bk) % c.stages == 0):
        return c
    return dataclasses.replace(c, skip_padding=True, name=f"{c.name}:sp")


C_RING_TILES = {(192, 160): 3}
"""(bm, bn) -> the C buffers the wave rule's tile of that shape stores its column chunks through
(`with_c_ring`, `GemmConfig.c_ring`). The 192 x 160 tile's 4 stages (189 KiB with one 192 x 32
buffer) leave room for three: H200 in turns at 4000^3 (benchmarks/NOTES.md, cbuf44), of cuBLAS per
call / queued, one buffer 1.017 / 1.015, two 1.046 / 1.036, three **1.062 / 1.047** (608 / 713 ->
635 / 736 TFLOP/s); again (ring44, each round against the rule's same round) one buffer x0.988 /
x0.992 of three at 4000^3 (three ahead in 9 / 10 of 12 rounds) and x0.989 / x0.987 at 3000 x
14336 x 4096 (6 / 7 of 8); four (225 KiB) x1.003 / x0.996 and x0.997 / x0.994: three kept. In
pairs sharing B (`:cl2:cr3`) x0.80 at 4000^3; at 3000 x 5000 x 7000, against the 256 x 160 tile's rule there,
x0.987 / x0.977 (sharing A, `:cl1x2:bp:cr3`, x0.90 / x0.88; pair45). The 256 x 160 tile's 4 stages leave no room for a
second 256 x 32 buffer; its rings within the one buffer's bytes (`:cr2:cw16`, `:hs`, ...) measured
within the rounds' spread (3000 x 5000 x 7000 0.984-0.995 / 0.966-0.976 against the rule's 0.984 /
0.969): options; whole buffers for a stage (3 stages, `:cr2`-`:cr4`) x0.93-0.94 there (3 stages
alone x0.95), x1.03 / x1.05 at gate_up M = 2048 with two (in 5 / 4 of 6 rounds): not taken."""


def with_c_ring(c: GemmConfig, tgt: Target) -> GemmConfig:
    """`c` with the C ring `C_RING_TILES` gives its tile (`c_ring` R whole chunk buffers,
    named `<c.name>:cr<R>`), or the deepest fewer that fits `tgt`'s shared memory (none at
    one buffer: `c`), where `c` has column chunks and the TMA epilogue and states no ring
    of its own."""
    ring = C_RING_TILES.get((c.bm, c.bn), 0)
    if not c.chunk or c.swap_ab or c.split_k > 1 or c.pingpong or c.overlap or c.chunk_buffers or c.half_stores or (
            c.c_ring or c.c_width or c.c_height):
        return c
    while ring > 1 and dataclasses.replace(c, c_ring=ring).smem_bytes() > tgt.smem_per_block:
        ring -= 1
    return dataclasses.replace(c, c_ring=ring, name=f"{c.name}:cr{ring}") if ring > 1 else c


STREAM_K_TAIL = False
"""Whether the wave rule weighs its pick's stream-K tail (`with_stream_k_tail`): off. H200
(benchmarks/NOTES.md, wave44): slower at every measured shape, 563 TFLOP/s against 584
whole at 3000 x 5008 x 7008 (where `wave_seconds` says 3.7% faster), 548 against 555 in
pairs at 3000 x 5000 x 7000, 515 against 586 at 4000^3: the cost does not see the last
round's tiles running faster on a partly idle GPU, the segments' ring restarts and
partial stores, or the fixup after the last block."""


def wave_seconds(c: GemmConfig, m: int, n: int, k: int, sms: int, tgt: Target | None = None) -> float:
    """The wave rule's time of `c` (unswapped, unsplit) for M x N x K on `sms`
    multiprocessors of `tgt` (default sm_90a's): a tile's time is its 2 bm bn K' flops
    (K' = K's steps rounded up to whole trips of the ring, as the program runs them) at
    the multiprocessor's rate (`sm_mma_flops_per_s`) times `c.efficiency`; with
    `c.skip_padding` (whole tiles) K' is ceil(K / bk) steps. Whole tiles:
    ceil(tiles / sms) of them (clusters: groups over the resident clusters, as
    `stream_k_schedule` counts them). Stream-K (`c.stream_k`, `stream_k_schedule`): the full
    waves' tiles and the busiest block's `span` trips of the tail (a trip 1 / trips of a
    tile), then the shared tiles' partial segments (`shared_segments`, `bm x bn` f32 each)
    written and read back at DRAM's rate and the fixup's launch (`kernel_gap_s`)."""
    tgt = tgt or target("sm_90a")
    trips = -(-(-(-k // c.bk)) // c.stages)
    tile = 2 * c.bm * c.bn * trips * c.stages * c.bk / (tgt.sm_mma_flops_per_s * c.efficiency)
    tiles, trips, blocks, span, waves = stream_k_schedule(dataclasses.replace(c, stream_k=True), m, n, k, sms)
    if not c.stream_k:
        steps = -(-k // c.bk) if c.skip_padding else trips * c.stages
        return -(-tiles // blocks) * tile * steps / (trips * c.stages)
    tail = tiles - waves * blocks
    if not tail:
        return waves * tile
    partials = 2 * shared_segments(tail, trips, span) * c.cluster[0] * c.cluster[1] * c.bm * c.bn * 4
    return waves * tile + span * tile / trips + partials / tgt.dram_bytes_per_s + tgt.kernel_gap_s


STREAM_K_TAIL_BLOCK_SCALED = True
"""Whether the wave rule weighs the stream-K tail (`with_stream_k_tail`) of block-scaled FP8
configurations (two partials): on, where K is at least `STREAM_K_TAIL_MIN_K_BLOCK_SCALED` and the
last round holds at most `1 / STREAM_K_TAIL_ROUND_SHARE_BLOCK_SCALED` of the blocks. H200
(benchmarks/NOTES.md, fp839, fp840), in turns with whole tiles: faster at 8192^3 in four runs (with
groups of 16 +0-2% per call, +2-10% queued, +2-4% sustained), at 16384 x 8192 x 8192 (+1.2% /
+2.5% / +0.2%) and 8192 x 8192 x 16384 (+1.8% / +3.8% / +2.3%), all with a last round of 4-8 tiles
of 132; slower where the model alone took it: 4-9% per call at 8192 x 8192 x 2048 (the same 4 tiles,
a quarter of the K: the tail's fixed costs), 4096 x 7168 x 7168 and 2048 x 7168 x 18432 (last rounds
of 76 and 104 tiles), 30% at 300 x 7168 x 2112: `wave_seconds` does not see the stream-K kernel's
own costs, so the tail is weighed only where its saving is a long tile's idle round."""

STREAM_K_TAIL_MIN_K_BLOCK_SCALED = 8192
"""The least K at which block-scaled FP8 weighs its stream-K tail (`STREAM_K_TAIL_BLOCK_SCALED`):
8192 x 8192 x 2048 (4 tiles in the last round, as 8192^3) lost 4-9% per call with it."""

STREAM_K_TAIL_ROUND_SHARE_BLOCK_SCALED = 8
"""Block-scaled FP8 weighs its stream-K tail only where the last round's tiles are at most
1 / 8 of the blocks (8192^3: 4 of 132; 2048 x 7168 x 18432's 104 of 132 lost 8% per call)."""


def with_stream_k_tail(c: GemmConfig, m: int, n: int, k: int | None, sms: int, tgt: Target) -> GemmConfig:
    """`c` with its last round's tiles shared along K (`GemmConfig.stream_k`, named
    `<c.name>:sk`) where `STREAM_K_TAIL` says so (block-scaled FP8:
    `STREAM_K_TAIL_BLOCK_SCALED`: K long, the last round nearly idle), K is known, `c` may take it (16-bit or block-scaled with
    two partials, unswapped, unsplit, no pingpong, overlapped epilogue, skipped padding or
    128-row consumers; clusters or not) and
    its `wave_seconds` are fewer than the whole tiles' (ties to whole tiles). Estimate
    (sm_90a, 128 x 256 x 64 in 4 stages): 3000 x 5008 x 7008 (480 tiles: 3.64 waves)
    315 us against 327 whole; 4000^3 (512 tiles, 16 trips a tile: the tail saves one
    trip of 16) 203 against 187, whole."""
    if (k is None or c.swap_ab or c.split_k > 1 or c.pingpong or c.overlap or c.skip_padding or c.consumer_rows != 64
            or (not STREAM_K_TAIL_BLOCK_SCALED if c.block_scales else not STREAM_K_TAIL or c.operand_bytes != 2)
            or (c.block_scales and c.partials != 2)):
        return c
    if c.block_scales:  # only a long tile's nearly idle last round (`STREAM_K_TAIL_BLOCK_SCALED`)
        tiles, _, blocks, _, waves = stream_k_schedule(dataclasses.replace(c, stream_k=True), m, n, k, sms)
        last = tiles - waves * blocks
        if k < STREAM_K_TAIL_MIN_K_BLOCK_SCALED or last * STREAM_K_TAIL_ROUND_SHARE_BLOCK_SCALED > blocks:
            return c
    sk = dataclasses.replace(c, stream_k=True, name=f"{c.name}:sk")
    return sk if wave_seconds(sk, m, n, k, sms, tgt) < wave_seconds(c, m, n, k, sms, tgt) else c


L2_GROUP_BLOCK_SCALED = True
"""Whether the wave rule sizes block-scaled FP8's grouped order by the L2 bytes of its walk
(`with_l2_group`): on. H200 (benchmarks/NOTES.md, fp839): at 8192^3 groups of 16 read 27% fewer
DRAM bytes (460 MB against 631) in the same kernel time under Nsight; in turns with groups of 8
over 3 rounds, at 8192^3 and 4096 x 7168 x 7168, even to +1.4% per call, +1% queued and +1.2% /
+2.5% sustained (medians)."""

L2_GROUPS = (8, 16)
"""The group sizes (block rows) `with_l2_group` weighs: 32 measured 2-5% slower at 8192^3 (where
`walk_dram_bytes` refuses it too), and not yet measured where the model takes it."""


def walk_dram_bytes(c: GemmConfig, m: int, n: int, k: int, sms: int, group: int, tgt: Target) -> float | None:
    """The bytes of A and B that the persistent walk of `c` (one block a multiprocessor,
    no clusters) in grouped order of `group` block rows reads from DRAM, through an L2 of
    half `tgt.l2_bytes` (the H100's and H200's L2 is two partitions, and the operands'
    panels are read by multiprocessors on both sides); None where a round's panels do not
    stay in it. A block row's panel of A is bm x K, a block column's of B bn x K; a round
    of `sms` consecutive tiles spans r = min(group, gm) block rows and sms / r columns. All
    of A and B in L2: each read once. Else each group of r rows keeps its A panels while
    its columns pass: A read once, and B once where all of it stays beside those panels,
    else once a group (gm / r times). 8192^3 block-scaled (1 MiB panels, B 64 MiB): group 8
    reads 64 + 8 x 64 = 576 MiB, 16 reads 320, 32 none (a round's 37 MiB of panels do not
    stay); dev/experiments/gemm_l2_walk_model.py's LRU model of the same walk: 691, 417,
    1181 MiB. 4096^3 (32 MiB of A and B, B 16 MiB beside 4 MiB of A's panels): 32 MiB at any
    group."""
    gm, gn = -(-m // c.bm), -(-n // c.bn)
    pa, pb = c.bm * k * c.operand_bytes, c.bn * k * c.operand_bytes
    a, b, cap = gm * pa, gn * pb, tgt.l2_bytes / 2
    if a + b <= cap:
        return float(a + b)
    rows = min(group, gm)
    if rows * pa + min(gn, -(-sms // rows)) * pb > cap:
        return None
    return float(a + (b if b + rows * pa <= cap else b * -(-gm // rows)))


def with_l2_group(c: GemmConfig, m: int, n: int, k: int | None, sms: int, tgt: Target) -> GemmConfig:
    """`c` (block-scaled FP8, where `L2_GROUP_BLOCK_SCALED` says so; unswapped, unsplit, no
    clusters, K known) walked in the grouped order of `L2_GROUPS` whose `walk_dram_bytes`
    are fewest (ties to `c.group`, then to the smaller), named `<c.name>:g<G>` where it
    changes: 8192^3 groups of 16 block rows (320 MiB of DRAM reads against 576 with 8);
    4096^3 and 8192 x 8192 x 2048 keep 8 (A and B read once at any group)."""
    if (not (L2_GROUP_BLOCK_SCALED and c.block_scales) or k is None or c.swap_ab or c.split_k > 1
            or c.cluster != (1, 1) or c.group <= 1):
        return c
    costs = [(walk_dram_bytes(c, m, n, k, sms, g, tgt), g != c.group, g) for g in (c.group, *L2_GROUPS)]
    best = min((x for x in costs if x[0] is not None), default=None)
    if best is None or best[2] == c.group:
        return c
    return dataclasses.replace(c, group=best[2], name=f"{c.name}:g{best[2]}")


@functools.lru_cache(maxsize=1024)
def _decode_config(m: int, n: int, k: int, sms: int, tgt: Target, fp8: bool, block_scales: bool, b_kmajor: bool,
                   most: int) -> GemmConfig:
    """`choose_config`'s decode rule at M's bucket `m` (the tiles of M's rows, the swap's
    columns and the partials are those of the bucket's largest M), splits up to `most`;
    cached: a call of `tilec.matmul` pays for the candidates once per shape."""
    taken = _wave(m, n, sms, tgt, fp8, block_scales)
    candidates = []
    if b_kmajor and m <= (SWAP_AB_MAX_M_8BIT if fp8 or block_scales else SWAP_AB_MAX_M):
        for rows in SWAP_AB_ROWS if not (fp8 or block_scales) else (64,):
            swap = swap_config(m, fp8, block_scales, tgt, rows)
            candidates += [swap] + (splits(swap, k, most) if not block_scales else [])
            if STREAM_K and most > 1 and not (fp8 or block_scales):  # summed in the kernel
                candidates.append(dataclasses.replace(swap, stream_k=True, serial=True, name=f"{swap.name}:sk:ser"))
        if CLUSTER_SPLIT_K and most > 1 and not (fp8 or block_scales):
            for rows in CLUSTER_SPLIT_ROWS:  # one round of clusters: all of a GEMM's at once
                swapped = swap_config(m, fp8, block_scales, tgt, rows)
                candidates += [c for c in cluster_splits(swapped, k, min(most, CLUSTER_SPLIT_MOST), tgt)
                               if units(c, m, n) <= sms // c.split_k * c.split_k]
        if DECODE_HALVES and m > 64 and not (fp8 or block_scales):  # M's halves in pairs sharing the weight
            candidates += halves_configs(tgt)
    elif not fp8:
        candidates += splits(SPLIT_K_TILES[m > SPLIT_K_TILES[0].bm], k, most)
    candidates.append(taken)
    fits = [c for c in candidates if c.smem_bytes() <= tgt.smem_per_block]
    # ties to a swap (no tile rows past M), then to fewer bytes into shared memory, then to the earlier
    best = min(fits, key=lambda c: (decode_cost(c, m, n, k, sms, tgt), not c.swap_ab, fill_bytes(c, m, n, k)))
    swap_clips = best.swap_ab and not (best.stream_k or best.small_stages or best.cluster != (1, 1))
    halves_clip = HALVES_CLIP and not best.swap_ab and best in halves_configs(tgt) and best.cluster[1] == 1
    if DECODE_CLIP and not (fp8 or block_scales) and (swap_clips or halves_clip):
        best = dataclasses.replace(best, clip_small=True, name=f"{best.name}:clip")
    if (b_kmajor and not (fp8 or block_scales) and DECODE_L2_PROMOTION > best.bk * best.operand_bytes
            and not best.l2_promotion):  # (the halves' own: `HALVES_L2_PROMOTION`)
        best = dataclasses.replace(best, l2_promotion=DECODE_L2_PROMOTION, name=f"{best.name}:pr{DECODE_L2_PROMOTION}")
    return dataclasses.replace(best, pdl=True, pdl_late=True, name=f"{best.name}:pdll") if PDL else best


def _wave(m: int, n: int, sms: int, tgt: Target, fp8: bool, block_scales: bool, k: int | None = None,
          b_kmajor: bool = False, past_decode: bool = False) -> GemmConfig:
    """The wave rule (the module docstring): among the configurations of `CONFIGS`
    (`FP8_CONFIGS`, `FP8_BLOCK_CONFIGS`) that fit the Target's shared memory, each in
    2-block clusters where `with_cluster` takes them and with its stream-K tail where
    `with_stream_k_tail` takes it (`past_decode`: `choose_config` past the decode
    sizes), the one of least `wave_seconds`: whole rounds of its tiles over the blocks
    that run at once (clusters: its groups over the resident clusters, `cluster_slots`),
    each a tile's MMA work (K's steps rounded up to whole trips of the ring; K None: a K
    of whole trips of every configuration's) at the multiprocessor's rate times the
    tile's `efficiency`; ties to the
    earlier. So every tile shape is weighed by the same facts (M, N, K, the
    multiprocessors, the cluster slots), not per shape: 3000 x 5000 x 7000 (both
    operands' rows 16 mod 32 bytes) takes 256 x 160 in pairs sharing A (192 groups in 3
    rounds of 66 clusters, 110 K steps at 0.99) over 128 x 192 in pairs (324 groups in 5
    rounds, each 3/8 of the work, 110 K steps in 5 stages at 0.97) and 128 x 256's 240 in 4
    rounds of 112 steps, 4000^3 128 x 256 (512 tiles in 4 rounds;
    128 x 192: 672 in 6), 2176^2 128 x 192 (204 tiles in 2 rounds, against 128 x 256's
    153 in 2 and the pingpong's 289 in 3)."""
    best, best_cost = None, 0.0
    configs = FP8_BLOCK_CONFIGS if block_scales else FP8_CONFIGS if fp8 else CONFIGS
    # K None: a K of whole trips of every configuration's ring, so none pays for padding
    kk = math.lcm(*(c.bk * c.stages for c in configs)) if k is None else k
    for c in configs:
        if c.smem_bytes() > tgt.smem_per_block or (c.aligned_rows and (
                misaligned_rows(n, k, c.operand_bytes, b_kmajor) or n * C_BYTES % SECTOR_BYTES)):
            continue
        c = with_c_ring(c, tgt)
        if past_decode:
            c = with_stream_k_tail(with_l2_group(with_cluster(c, m, n, k, sms, b_kmajor), m, n, k, sms, tgt),
                                   m, n, k, sms, tgt)
        cost = wave_seconds(c, m, n, kk, sms, tgt)
        if best is None or cost < best_cost:
            best, best_cost = c, cost
    if best is None:
        raise TilecError(f"no GEMM configuration fits the {tgt.smem_per_block} bytes of shared memory of {tgt.arch}")
    return with_skip_padding(best, k) if past_decode else best


@dataclass(frozen=True)
class MatmulKey:
    """What one compiled kernel is specialised on (M is not: it is an argument)."""

    config: GemmConfig
    n: int
    k: int
    dtype: str
    epilogue: Epilogue
    sms: int
    b_kmajor: bool = False
    index_bits: int = 64
    """32 when every offset the kernel computes fits in 32 bits for the call's M
    (`index_bits`): the program then promises `tilec.index_bits = 32`."""
    scale_a_mn: bool = False
    """Block scales: A's given MN-major (`gemm_hopper_ws(scale_a_mn_major=True)`)."""


def index_bits(m: int, n: int, k: int, config: GemmConfig) -> int:
    """32 when every element offset a kernel of `config` computes for these sizes fits a
    signed 32-bit integer (rows up to M rounded up to the block tile, since edge tiles
    address past M; B's N x K; split-K's partial products), else 64. A kernel is
    specialised on it, as on divisibility: one 32-bit kernel serves every M below the
    bound. 64-bit offsets cost the consumers registers (the 4000^3 kernel ran at 0.78 of
    cuBLAS with them on an H200)."""
    rows = -(-m // config.bm) * config.bm + config.bm
    worst = max(rows * max(n, k), n * k, config.split_k * rows * n)
    return 32 if worst < 2**31 else 64


def matmul_program(key: MatmulKey):
    """The verified module of `key`: `gemm_hopper_ws` with a run-time M; its arguments
    are `pa`, `pb`, `pc`, then `pbias`, `pres`, `pscale_a`, `pscale_b` as the epilogue
    uses them, then `m`. With `key.index_bits == 32` its function promises 32-bit offsets."""
    module = gemm_hopper_ws(None, key.n, key.k, dtype=key.dtype, epilogue=key.epilogue, b_kmajor=key.b_kmajor,
                            **key.config.kwargs(key.sms), **({"scale_a_mn_major": True} if key.scale_a_mn else {}))
    if key.index_bits == 32:
        from xdsl.dialects import func

        from tilec.support.index_width import promise_index_bits

        for op in module.walk():
            if isinstance(op, func.FuncOp):
                promise_index_bits(op, 32)
    return module


_kernels: dict[MatmulKey, Any] = {}


def matmul_kernel(key: MatmulKey) -> Any:
    """The compiled kernel of `key`, built and compiled on first use."""
    kernel = _kernels.get(key)
    if kernel is None:
        from tilec.compiling import compile_program

        kernel = _kernels[key] = compile_program(matmul_program(key), "default", fresh=True)
    return kernel


_FLOAT_DTYPES = {d.name: d.element.name for d in DTYPES.values() if d.is_float}
"""PyTorch's and NumPy's (CuPy's) float dtype names -> tilec's element names."""


def _dtype_name(x: Any) -> str | None:
    """The tilec name of a tensor's or dtype's element type (None: unsupported)."""
    if isinstance(x, type):  # numpy.float16 (CuPy's too)
        import numpy as np

        x = np.dtype(x)
    x = getattr(x, "dtype", x)
    name = str(x).removeprefix("torch.")
    if name in INPUT_DTYPES:  # tilec's own names: "bf16", "f16", "f8E4M3FN", "f8E5M2"
        return name
    return _FLOAT_DTYPES.get(name)


def _is_torch(x: Any) -> bool:
    return type(x).__module__.startswith("torch")


def _on_gpu(x: Any) -> bool:
    if _is_torch(x):
        return bool(x.is_cuda)
    return hasattr(x, "__cuda_array_interface__")


def _strides(x: Any) -> list[int]:
    """Strides in elements (CuPy's and NumPy's are in bytes)."""
    return list(x.stride()) if _is_torch(x) else [s // x.itemsize for s in x.strides]


def _row_major(x: Any, strides: list[int] | None = None, shape: Any = None) -> bool:
    """C-contiguous (or `shape` with `strides` is)."""
    strides = _strides(x) if strides is None else strides
    shape = x.shape if shape is None else shape
    expect = 1
    for size, stride in reversed(list(zip(shape, strides))):
        if size != 1 and stride != expect:
            return False
        expect *= size
    return True


def _address(x: Any) -> int:
    return int(x.data_ptr()) if _is_torch(x) else int(x.data.ptr)


def _sms(x: Any) -> int:
    """The multiprocessors of the device `x` is on."""
    if _is_torch(x):
        import torch

        return torch.cuda.get_device_properties(x.device).multi_processor_count
    import cupy

    return cupy.cuda.Device(x.device.id).attributes["MultiProcessorCount"]


def _empty(like: Any, shape: tuple[int, ...], dtype: str) -> Any:
    if _is_torch(like):
        import torch

        types = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
        return torch.empty(shape, device=like.device, dtype=types[dtype])
    import cupy

    with cupy.cuda.Device(like.device.id):
        return cupy.empty(shape, dtype=cupy.float32 if dtype == "f32" else cupy.float16)


def _operand(name: str, x: Any, shape: tuple[int, ...], dtype: str, transposed_ok: bool = False) -> bool:
    """Check an operand: on the GPU, of `shape` and `dtype`, row-major (or, where
    `transposed_ok`, the transpose of a row-major matrix: returns True then),
    16-byte aligned."""
    if not _on_gpu(x):
        raise TilecError(f"tilec.matmul: {name} must be a CUDA tensor (PyTorch or CuPy)")
    if tuple(x.shape) != shape:
        raise TilecError(f"tilec.matmul: {name} has shape {tuple(x.shape)}, expected {shape}")
    if _dtype_name(x) != dtype:
        raise TilecError(f"tilec.matmul: {name} is {x.dtype}, expected {dtype}")
    transposed = transposed_ok and not _row_major(x) and _row_major(x, _strides(x)[::-1], tuple(x.shape)[::-1])
    if not (transposed or _row_major(x)):
        what = "row-major or the transpose of a row-major matrix" if transposed_ok else "row-major (contiguous)"
        raise TilecError(f"tilec.matmul: {name} must be {what}; make it so with .contiguous()")
    if _address(x) % 16:
        raise TilecError(f"tilec.matmul: {name}'s data must be 16-byte aligned (the TMA's requirement)")
    return transposed


def _scale(name: str, s: Any, like: Any) -> Any:
    """A per-tensor scale as a one-element f32 tensor on a's device: a Python number,
    or an f32 PyTorch tensor of one element (0-d) on the GPU."""
    import torch

    if isinstance(s, int | float):
        return torch.tensor([float(s)], dtype=torch.float32, device=like.device)
    if not _is_torch(s) or s.numel() != 1 or s.dtype != torch.float32 or not s.is_cuda:
        raise TilecError(f"tilec.matmul: {name} must be a float or a one-element float32 CUDA tensor (0-d)")
    return s.reshape(1)


def _per_tensor(s: Any) -> bool:
    """A per-tensor scale: a Python number or a tensor of one element."""
    return isinstance(s, int | float) or getattr(s, "numel", lambda: 0)() == 1


def _block_scale(name: str, s: Any, shape: tuple[int, ...]) -> Any:
    """A block scale: an f32 PyTorch CUDA tensor of `shape`, row-major (or, for a 2-D
    `scale_a`, MN-major: `_mn_major`)."""
    import torch

    if not _is_torch(s) or not s.is_cuda or s.dtype != torch.float32:
        raise TilecError(f"tilec.matmul: block scale {name} must be a float32 CUDA tensor of shape {shape}")
    if tuple(s.shape) != shape:
        raise TilecError(f"tilec.matmul: block scale {name} has shape {tuple(s.shape)}, expected {shape} "
                         f"(one scale per {SCALE_BLOCK} of K{' and 128 of N' if name == 'scale_b' else ' per row'})")
    if not _row_major(s) and not (name == "scale_a" and _mn_major(s)):
        raise TilecError(f"tilec.matmul: block scale {name} must be row-major (contiguous)"
                         f"{' or, 2-D, MN-major (its transpose contiguous)' if name == 'scale_a' else ''}; "
                         "make it so with .contiguous()")
    return s


def _mn_major(s: Any) -> bool:
    """A 2-D (M, K/128) scale whose transpose is row-major (each K block's M scales
    contiguous, DeepGEMM's layout of the activations' scales) and not row-major itself."""
    return s.dim() == 2 and s.shape[0] > 1 and s.shape[1] > 1 and _row_major(s.t())


def matmul(a: Any, b: Any, *, bias: Any = None, activation: str | None = None, residual: Any = None,
           out_dtype: Any = None, out: Any = None, scale_a: Any = None, scale_b: Any = None) -> Any:
    """`epilogue(a @ b)` in one kernel on a Hopper GPU: `a` (..., K) row-major and `b`
    (K, N) row-major or the transpose of a row-major N x K (`w.t()` of a
    `torch.nn.Linear` weight: B K-major), bf16 or f16 PyTorch (or f16 CuPy) tensors on
    the GPU, K and N multiples of 8; f32 accumulation; then `+ bias` (N elements),
    `activation` ("relu", "gelu", "silu"; "silu_tanh": SiLU with one `tanh.approx` an
    element, its error up to 2^-11.98 |z| absolute, docs/matmul.md), `+ residual` (of the output's shape), one
    rounding to `out_dtype` (bf16 or f16: a PyTorch or NumPy dtype, or "bf16" / "f16";
    default a's). Bias and residual have the output's dtype. Returns the output
    (..., N), or writes `out` (row-major, the output's shape and dtype) and returns it.
    The kernel is chosen by `choose_config` and compiled once per `MatmulKey`: a new M
    compiles nothing.

    FP8: `a` and `b` torch.float8_e4m3fn (or both float8_e5m2) PyTorch tensors, `b`
    the transpose of a row-major N x K (K-major, as `torch._scaled_mm` takes it), K
    and N multiples of 16, `scale_a` and `scale_b` (floats or one-element f32 CUDA
    tensors) required: the accumulator is multiplied by `scale_a * scale_b` before
    the rest of the epilogue; `out_dtype` default bf16. Block scales (DeepSeek-V3's,
    unless both scales have one element): `scale_a` f32 of shape (..., ceil(K / 128))
    (a's leading dimensions: one scale per row and 128 of K), `scale_b` f32 of shape
    (ceil(N / 128), ceil(K / 128)) (one per 128 x 128 block of w), both row-major (a 2-D
    `scale_a` may also be MN-major, strides (1, M), DeepGEMM's layout: a kernel that reads
    it so, `gemm_hopper_ws(scale_a_mn_major=True)`): each
    128 of K's product is multiplied by its scales and summed in f32
    (`FP8_BLOCK_CONFIGS`, `gemm_hopper_ws(block_scales=True)`).

        y = tilec.matmul(x, w, bias=b, activation="gelu")
        y = tilec.matmul(x8, w8.t(), scale_a=sx, scale_b=sw)
        y = tilec.matmul(x8, w8.t(), scale_a=sx_blocks, scale_b=sw_blocks)   # (M, K/128), (N/128, K/128)

    A call of PyTorch tensors whose structure was seen before (dtypes, shapes,
    strides, alignments, devices, epilogue: api/matmul_launch.py) launches the
    launches prepared by the first call: nothing chosen, checked or computed again.
    """
    if type(a) in _fast_types and type(b) in _fast_types:
        try:
            fast = _fast.get(structure(a, b, bias, activation, residual, out_dtype, out, scale_a, scale_b))
        except TypeError:  # something unhashable: the general path says what
            fast = None
        if fast is not None:
            result = fast(a, b, bias, residual, out, scale_a, scale_b)
            if result is not None:
                return result
    dtype = _dtype_name(a)
    if dtype not in INPUT_DTYPES:
        raise TilecError(f"tilec.matmul: a is {getattr(a, 'dtype', type(a).__name__)}; "
                         "expected bf16, f16, float8_e4m3fn or float8_e5m2")
    fp8 = dtype in FP8_DTYPES
    if fp8 != (scale_a is not None and scale_b is not None) or (scale_a is None) != (scale_b is None):
        raise TilecError("tilec.matmul: scale_a and scale_b go with FP8 operands, both of them"
                         if not fp8 else "tilec.matmul: FP8 operands need scale_a and scale_b (per-tensor scales)")
    if len(a.shape) < 1 or len(b.shape) != 2:
        raise TilecError(f"tilec.matmul: a (..., K) and b (K, N), got {tuple(a.shape)} and {tuple(b.shape)}")
    *lead, k = (int(s) for s in a.shape)
    kb, n = (int(s) for s in b.shape)
    if kb != k:
        raise TilecError(f"tilec.matmul: a's K ({k}) is not b's ({kb})")
    q = 16 if fp8 else 8
    if k % q or n % q or k < 1 or n < 1:
        raise TilecError(f"tilec.matmul: K ({k}) and N ({n}) must be positive multiples of {q} "
                         "(16-byte rows for the TMA)")
    m = 1
    for s in lead:
        m *= s
    odt = _dtype_name(out_dtype) if out_dtype is not None else ("bf16" if fp8 else dtype)
    if odt not in OUT_DTYPES:
        raise TilecError(f"tilec.matmul: out_dtype {out_dtype}: expected bf16 or f16")
    if activation is not None and activation not in ACTIVATIONS:
        raise TilecError(f"tilec.matmul: activation {activation!r}: expected one of {', '.join(ACTIVATIONS)} or None")
    _operand("a", a, (*lead, k), dtype)
    b_kmajor = _operand("b", b, (k, n), dtype, transposed_ok=True)
    if fp8 and not b_kmajor:
        raise TilecError("tilec.matmul: FP8 b must be the transpose of a row-major (N, K) matrix (w.t(), K-major), "
                         "as torch._scaled_mm takes it")
    if bias is not None:
        _operand("bias", bias, (n,), odt)
    if residual is not None:
        _operand("residual", residual, (*lead, n), odt)
    out_given = out is not None
    if out is None:
        out = _empty(a, (*lead, n), odt)
    else:
        _operand("out", out, (*lead, n), odt)
    block = fp8 and not (_per_tensor(scale_a) and _per_tensor(scale_b))
    scale_a_mn = False
    if block:
        kblocks = -(-k // SCALE_BLOCK)
        scale_a = _block_scale("scale_a", scale_a, (*lead, kblocks))
        scale_b = _block_scale("scale_b", scale_b, (-(-n // SCALE_BLOCK), kblocks))
        scale_a_mn = not _row_major(scale_a)
    if m == 0:
        return out
    sms = _sms(a)
    config = choose_config(m, n, sms, k=k, fp8=fp8, block_scales=block, b_kmajor=b_kmajor, activation=activation)
    epilogue = Epilogue(bias=bias is not None, activation=activation, residual=residual is not None, out_dtype=odt,
                        scale=fp8 and not block)
    kernel = matmul_kernel(MatmulKey(config, n, k, dtype, epilogue, sms, b_kmajor, index_bits(m, n, k, config),
                                     scale_a_mn))
    given = {"a": a, "b": b, "out": out, "bias": bias, "residual": residual, "scale_a": scale_a,
             "scale_b": scale_b}
    names = ["a", "b", "out"] + [x for x in ("bias", "residual") if given[x] is not None]
    args = [a, b.T if b_kmajor else b, out] + [x for x in (bias, residual) if x is not None]
    if fp8:
        names += ["scale_a", "scale_b"]
        # MN-major scales of A go as their (K/128, M) row-major storage
        args += [scale_a.t() if scale_a_mn else scale_a, scale_b] if block else [
            _scale("scale_a", scale_a, a), _scale("scale_b", scale_b, a)]
    workspace = config.workspace(m, n, sms)
    if workspace:  # the partial products of split-K or stream-K
        args.append(_empty(a, (workspace,), "f32"))
    counters = config.counters(m, n, sms)
    if counters:  # counters zero on entry, left zero by the kernel: one buffer a kernel serves every call
        args.append(_counters(a, counters, kernel))
    flat = [x.reshape(-1) for x in args]
    if _is_torch(a) and _is_torch(b) and raw_launch.available():
        _launch_torch(kernel, flat, m, names, given, workspace, (a, b, bias, activation, residual, out_dtype,
                                                               given["out"] if out_given else None, scale_a, scale_b))
    else:
        kernel(*flat, m, stream=_stream(a))
    return out


_fast: dict[tuple, Any] = {}
"""The cached calls of PyTorch tensors, by `matmul_launch.structure` (api/matmul_launch.py)."""
_fast_types: set[type] = set()
"""The tensor types a cached call was prepared for (the fast path asks nothing else for a key)."""


def forget_cached_calls() -> None:
    """Drop the prepared launchers of cached calls (api/matmul_launch.py): a cached call
    launches the configuration its first call chose, so whoever changes the rule
    (`MAX_SPLIT_K`, a forced `choose_config`) calls this for the change to apply to
    structures seen before. The compiled kernels stay."""
    _fast.clear()


def _launch_torch(kernel: Any, flat: list[Any], m: int, names: list[str], given: dict[str, Any], workspace: int,
                  call: tuple) -> None:
    """Launch a call of torch tensors through its prepared launches (`Kernel.prepare`)
    and keep them as the fast path of the call's structure (`call`: the arguments the
    key is made of), where PyTorch gives its current device and raw stream."""
    import torch

    raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw_stream is None or getattr(torch._C, "_cuda_getDevice", None) is None:  # pragma: no cover - old PyTorch
        kernel(*flat, m, stream=_stream(flat[0]))
        return
    a = call[0]
    concrete = kernel.specialization(*flat, m) if hasattr(kernel, "specialization") else kernel
    # the call's own tensors and the workspace are per-call slots; a number's scale is fixed
    free = [i for i, name in enumerate(names) if not isinstance(given[name], int | float)]
    if workspace:
        free.append(len(flat) - 1 - (len(flat) > len(names) + 1))
    prepared = concrete.prepare([*flat, m], free)
    device = a.get_device()
    prepared(raw_stream(device), [flat[i].data_ptr() for i in free])
    keep = tuple(flat[i] for i in range(len(names)) if i not in free)
    sources = tuple(OPERANDS.index(names[i]) for i in free if i < len(names))
    out = given["out"]
    launcher = MatmulLauncher(prepared, sources, workspace, tuple(out.shape), out.dtype, device, a.device, keep)
    if len(_fast) >= CALLS_KEPT:
        _fast.clear()
    try:
        _fast[structure(*call)] = launcher.fast_path(torch)
    except TypeError:  # unhashable (an activation of a list checked already: not here in practice)
        return
    _fast_types.update((type(a), type(call[1])))


_COUNTERS: dict[Any, Any] = {}
"""The zeroed i32 arrival counters (and flags) of serial split-K (`GemmConfig.serial`), per
device and kernel (a kernel's tile t has its counter and flags at the same slots for every
M; another kernel's flags would lie on its counters): every call leaves the counters zero,
so one buffer serves all calls of the kernel that do not run at the same time (calls on
two streams at once would share them)."""

_COUNTERS_KEPT: list[Any] = []
"""Counter buffers `_COUNTERS` has outgrown: prepared calls may still point at them."""


def _counters(like: Any, count: int, kernel: Any) -> Any:
    """At least `count` zeroed i32 counters for `kernel` on `like`'s device (grown, never
    shrunk; the smaller ones kept: prepared calls point at them)."""
    key = ("torch", like.get_device(), id(kernel)) if _is_torch(like) else (
        type(like).__module__, getattr(getattr(like, "device", None), "id", 0), id(kernel))
    have = _COUNTERS.get(key)
    if have is None or have.shape[0] < count:
        if _is_torch(like):
            import torch

            have = torch.zeros(max(count, 1024), dtype=torch.int32, device=like.device)
        else:  # CuPy's (or NumPy's, for stand-ins)
            import importlib

            xp = importlib.import_module(type(like).__module__.split(".")[0])
            have = xp.zeros(max(count, 1024), dtype=xp.int32)
        if key in _COUNTERS:
            _COUNTERS_KEPT.append(_COUNTERS[key])
        _COUNTERS[key] = have
    return have


def _stream(x: Any) -> Any:
    """The current stream of `x`'s framework (PyTorch's), or None (CuPy's current)."""
    if _is_torch(x):
        import torch

        return torch.cuda.current_stream(x.device)
    return None
