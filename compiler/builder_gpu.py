"""The builder's Hopper and tensor-core ops: `mma` (mma.sync / wgmma), TMA copies and
mbarriers, warp specialisation, `setmaxnreg` and named barriers. A mixin of `Program`
(compiler/kernel_builder.py's `KernelBuilding` derives from it), inserting through
`insert`, as the seeds write them (CuTe's `cute::gemm`, `SM90_TMA_LOAD`, Gluon's
`mbarrier`, `warp_specialize`):

    bar = p.mbarrier_init(1)
    p.mbarrier_arrive(bar, tx=64 * 64 * 2)
    p.tma_load(a_tile, a_smem, bar)
    p.mbarrier_wait(bar, 0)
    acc = p.mma(a_smem, b_smem, acc)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from tilec.dialects import layout_dot as ld
from tilec.dialects import layout_mma as lm
from tilec.dialects import layout_roles as lr
from tilec.dialects import layout_tma as lt
from tilec.support.diagnostics import TilecError

from .builder_locations import located


@located
class GpuBuilding:
    """Tensor-core, TMA, mbarrier and warp-role methods of `Program` (the module docstring)."""

    def mma(self, a: Any, b: Any, acc: Any, is_async: bool = False) -> Any:
        """`layout.mma`: `acc + a @ b` on tensor cores; `a`, `b` in the dot-operand
        layouts of `acc`'s `NvidiaMmaLayout` (mma.sync), or shared-memory views with a
        version-3 accumulator (Hopper's wgmma). Returns the new accumulator. With
        `is_async` (version 3 only, `{async}`) the wgmma are still in flight when it
        returns: the result goes to another mma's accumulator or to `mma_wait`.

            acc = p.mma(a_frag, b_frag, acc)
            d = p.mma(sa, sb, acc, is_async=True)
        """
        return self.insert(lm.MmaOp(a.ssa, b.ssa, acc.ssa, is_async)).results[0]  # type: ignore[attr-defined]

    def dot(self, a: Any, b: Any, acc: Any) -> Any:
        """`layout.dot`: `acc + a @ b` on distributed tensors in any layouts (Triton's
        `tl.dot`); `accelerate-matmul` lowers it to wgmma, mma.sync or an FMA loop for
        the module's target. Returns the new accumulator (in `acc`'s layout).

            acc = p.dot(p.load(a_tile, blk), p.load(b_tile, blk), acc)
        """
        return self.insert(ld.DotOp(a.ssa, b.ssa, acc.ssa)).results[0]  # type: ignore[attr-defined]

    def mma_wait(self, *accs: Any, pending: int = 0, after: Sequence[Any] = ()) -> list[Any]:
        """`layout.mma_wait {pending}`: wait until at most `pending` groups of async
        wgmma are in flight (`wgmma.wait_group`); returns `accs` as they are after it.
        `after`: f32 values computed before it that the GPU is to issue it after (the
        op's docstring: the math the mma runs under).

            (acc,) = p.mma_wait(d, pending=1)
            (o,) = p.mma_wait(pv, after=[row_sum])
        """
        op = lm.MmaWaitOp([v.ssa for v in accs], pending, [v.ssa for v in after])
        return list(self.insert(op).results)  # type: ignore[attr-defined]

    def mbarrier_init(self, count: int = 1) -> Any:
        """`layout.mbarrier_init`: a shared-memory mbarrier expecting `count` arrivals per
        phase (Gluon's `mbarrier.init`).

            bar = p.mbarrier_init(1)
        """
        return self.insert(lt.MBarrierInitOp(count)).results[0]  # type: ignore[attr-defined]

    def mbarrier_array(self, stages: int, count: int = 1) -> Any:
        """`layout.mbarrier_array`: `stages` mbarriers at once, each expecting `count`
        arrivals per phase (a pipeline's stages; `mbarrier_at` picks one at run time).

            bars = p.mbarrier_array(4)
        """
        return self.insert(lt.MBarrierArrayOp(count, stages)).results[0]  # type: ignore[attr-defined]

    def mbarrier_at(self, bars: Any, index: Any) -> Any:
        """`layout.mbarrier_at`: barrier `index` (an index, the same in every thread of
        the block) of the array `bars`.

            bar = p.mbarrier_at(bars, stage)
        """
        return self.insert(lt.MBarrierAtOp(bars.ssa, self.as_index(index))).results[0]  # type: ignore[attr-defined]

    def mbarrier_arrive(self, bar: Any, tx: int | None = None, cta: Any = None) -> None:
        """`layout.mbarrier_arrive`: one arrival on `bar`, expecting `tx` bytes of TMA
        transfers in this phase when given (`mbarrier.arrive.expect_tx`); with `cta` (a
        cluster rank, an index; a launch of clusters) on `bar` of the cluster's block of
        that rank (`mapa` + `mbarrier.arrive.shared::cluster`).

            p.mbarrier_arrive(bar, tx=64 * 64 * 2)
            p.mbarrier_arrive(empty, cta=1)     # the same barrier of block 1 of the cluster
        """
        c = None if cta is None else self.as_index(cta)  # type: ignore[attr-defined]
        self.insert(lt.MBarrierArriveOp(bar.ssa, tx, c))  # type: ignore[attr-defined]

    def cluster_rank(self) -> Any:
        """`layout.cluster_rank`: this block's rank in its thread-block cluster (an index;
        `launch(cluster=C)`).

            r = p.cluster_rank()
        """
        return self.insert(lt.ClusterRankOp()).results[0]  # type: ignore[attr-defined]

    def peer_view(self, view: Any, cta: Any) -> Any:
        """`layout.peer_view`: the shared view `view` in the shared memory of the cluster's
        block of rank `cta` (distributed shared memory; `launch(cluster=C)`): loads and
        stores of it (and of its tiles) reach that block's buffer, ordered against the
        block's own accesses by `cluster_sync`.

            theirs = p.peer_view(partial, r)
        """
        return self.insert(lt.PeerViewOp(view.ssa, self.as_index(cta))).results[0]  # type: ignore[attr-defined]

    def cluster_sync(self) -> None:
        """`layout.cluster_sync`: every thread of every block of the cluster meets, the
        mbarriers initialised before it visible to the peers after it (after the
        barriers' initialisation, and before a block exits that peers may still reach).

            p.cluster_sync()
        """
        self.insert(lt.ClusterSyncOp())  # type: ignore[attr-defined]

    def griddep_wait(self) -> None:
        """`layout.griddep_wait`: wait until the kernels this launch depends on (programmatic
        dependent launch) have completed, their memory visible; before reading what an
        earlier kernel wrote or writing what it reads or writes.

            p.griddep_wait()
        """
        self.insert(lt.GridDepWaitOp())  # type: ignore[attr-defined]

    def griddep_launch_dependents(self) -> None:
        """`layout.griddep_launch_dependents`: the stream's next kernel (a programmatic
        dependent) may start its blocks once every block has run this or exited.

            p.griddep_launch_dependents()
        """
        self.insert(lt.GridDepLaunchOp())  # type: ignore[attr-defined]

    def mbarrier_wait(self, bar: Any, phase: Any) -> None:
        """`layout.mbarrier_wait`: wait until phase `phase` (0 or 1, an index) of `bar` completes.

            p.mbarrier_wait(bar, 0)
        """
        self.insert(lt.MBarrierWaitOp(bar.ssa, self.as_index(phase)))  # type: ignore[attr-defined]

    def mbarrier_inval(self, bar: Any) -> None:
        """`layout.mbarrier_inval`: `bar` is not used again (its shared memory may be reused).

            p.mbarrier_inval(bar)
        """
        self.insert(lt.MBarrierInvalOp(bar.ssa))  # type: ignore[attr-defined]

    def tma_load(self, src: Any, dst: Any, bar: Any, multicast: int | None = None,
                 l2_promotion: int | None = None, clip: bool = False, tail: bool = False) -> None:
        """`layout.tma_load`: a TMA copy of the global tile `src` into the shared view
        `dst`, completing on `bar` (CuTe's `SM90_TMA_LOAD`; sm_90); with `multicast` (a
        mask of cluster ranks) into `dst` and on `bar` of each of those blocks of the
        cluster (`SM90_TMA_LOAD_MULTICAST`); `l2_promotion` (0, 64, 128 or 256 bytes; None:
        the default) the tensor map's L2 sector promotion; `clip`: the box no longer than a
        shorter tensor, the elements past it not written nor counted (`p.mbarrier_expect_tx`);
        `tail` (with `clip`): the outermost dimension's box the tensor's last box's (for the
        loads of that last box).

            p.tma_load(a_tile, a_smem, bar)
            p.tma_load(b_tile, b_smem, bar, multicast=0b11)
        """
        from tilec.dialects.tma import DEFAULT_L2_PROMOTION

        promotion = DEFAULT_L2_PROMOTION if l2_promotion is None else l2_promotion
        self.insert(lt.TmaLoadOp(src.ssa, dst.ssa, bar.ssa, promotion, multicast=multicast,  # type: ignore[attr-defined]
                                 clip=clip, tail=tail))

    def mbarrier_expect_tx(self, bar: Any, nbytes: Any) -> None:
        """`layout.mbarrier_expect_tx`: `nbytes` (an index) more bytes of copies expected on
        `bar`'s current phase, without an arrival (before the phase's arrival).

            p.mbarrier_expect_tx(full, rows_bytes)
        """
        self.insert(lt.MBarrierExpectTxOp(bar.ssa, self.as_index(nbytes)))  # type: ignore[attr-defined]

    def cp_async_load(self, src: Any, dst: Any, bar: Any) -> None:
        """`layout.cp_async_load`: the global tile `src` copied into the shared view `dst`
        by 16-byte `cp.async` of every thread running it (the block, or the
        warp_specialize region), each arriving once on `bar` when its copies land: `bar`'s
        count includes those threads (`mbarrier_init(1 + 128)` beside one
        `mbarrier_arrive` of a warpgroup region).

            p.cp_async_load(b_tile, b_smem, bar)
        """
        self.insert(lt.CpAsyncLoadOp(src.ssa, dst.ssa, bar.ssa))  # type: ignore[attr-defined]

    def cp_async_arrive(self, bar: Any) -> None:
        """`layout.cp_async_arrive`: every thread of the block arrives once on `bar`
        when its earlier `copy_chunk_async` copies land (`bar`'s count: the block's
        threads); read their chunks after an `mbarrier_wait` on that phase.

            p.copy_chunk_async(g, [i], s, [j], width=16)
            p.cp_async_arrive(bar)
            p.mbarrier_wait(bar, 0)
        """
        self.insert(lt.CpAsyncArriveOp(bar.ssa))  # type: ignore[attr-defined]

    def tma_store(self, src: Any, dst: Any) -> None:
        """`layout.tma_store`: a TMA copy of the shared view `src` to the global tile `dst`
        (wait for it with `tma_store_wait`).

            p.tma_store(c_smem, c_tile)
        """
        self.insert(lt.TmaStoreOp(src.ssa, dst.ssa))  # type: ignore[attr-defined]

    def tma_store_wait(self, pending: int = 0) -> None:
        """`layout.tma_store_wait`: wait until at most `pending` TMA stores are in flight.

            p.tma_store_wait(0)
        """
        self.insert(lt.TmaStoreWaitOp(pending))  # type: ignore[attr-defined]

    def warp_specialize(self, warpgroups: Sequence[int], apart: Sequence[int] = ()) -> list[Any]:
        """`layout.warp_specialize`: regions running concurrently on consecutive
        warpgroups of the block (`warpgroups[i]` of them for region i; together the
        whole 1-D block); returns one context manager per region, inside which what is
        built runs on that region's threads (Gluon's `warp_specialize`). The regions in
        `apart` run once per warpgroup, each warpgroup's as a region of its own
        (`warpgroup_index()` its index): one copy of the code for warpgroups that differ
        only in what they index.

            producer, consumer = p.warp_specialize([1, 2])
            with producer:
                p.setmaxnreg("dec", 40)
            with consumer:
                p.setmaxnreg("inc", 232)
        """
        op = lr.WarpSpecializeOp(list(warpgroups), apart=list(apart))
        self.insert(op)  # type: ignore[attr-defined]
        return [self._role(r.block) for r in op.roles]

    def warpgroup_index(self) -> Any:
        """`layout.warpgroup_index`: in a region run apart (`warp_specialize(...,
        apart=[i])`), the running warpgroup's index among the region's (an index).

            producer, consumers = p.warp_specialize([1, 3], apart=[1])
            with consumers:
                wg = p.warpgroup_index()  # 0, 1 or 2: which 64 rows of the tile
        """
        return self.insert(lr.WarpgroupIndexOp()).results[0]  # type: ignore[attr-defined]

    @contextmanager
    def _role(self, block) -> Iterator[None]:
        with self._at(block):  # type: ignore[attr-defined]
            yield

    def setmaxnreg(self, action: str, regs: int) -> None:
        """`layout.setmaxnreg`: this warpgroup's register budget raised (`"inc"`) or
        lowered (`"dec"`) to `regs` per thread (Hopper's `setmaxnreg`), inside a
        `warp_specialize` region.

            p.setmaxnreg("inc", 232)
        """
        if action not in ("inc", "dec"):
            raise TilecError(f"setmaxnreg action {action!r}: expected 'inc' or 'dec'")
        self.insert(lr.SetMaxNRegOp(action, regs))  # type: ignore[attr-defined]

    def named_barrier(self, mode: str, barrier_id: int, threads: int) -> None:
        """`layout.named_barrier`: hardware barrier `barrier_id`, whose phase completes
        when `threads` threads have arrived, reached by this warp_specialize region's
        threads: `"sync"` arrives and waits for the phase (`bar.sync`), `"arrive"`
        arrives and goes on (`bar.arrive`); how regions take turns without shared
        memory (CUTLASS's `NamedBarrier`, FlashAttention-3's pingpong).

            p.named_barrier("sync", 4, 256)    # this region's turn
            p.named_barrier("arrive", 5, 256)  # the other region's
        """
        if mode not in ("sync", "arrive"):
            raise TilecError(f"named_barrier mode {mode!r}: expected 'sync' or 'arrive'")
        self.insert(lr.NamedBarrierOp(mode, barrier_id, threads))  # type: ignore[attr-defined]
