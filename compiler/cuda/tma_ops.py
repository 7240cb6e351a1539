"""TMA copies and mbarriers (dialects/cuda_tma.py) as inline PTX.

A `!cuda.tensor_map` kernel parameter is `const __grid_constant__ tilec_tensor_map`:
the 128-byte, 64-byte aligned `CUtensorMap` the runtime encodes on the host, passed by
value (NVRTC has no cuda.h, so the struct is declared here). Its generic address is
what `cp.async.bulk.tensor` takes. Shared addresses are 32-bit (`__cvta_generic_to_shared`).
Box coordinates are 32-bit signed, dimension 0 first."""

from __future__ import annotations

from tilec.dialects import cuda_tma

from .device_helpers import DEVICE_HELPERS
from .printer import EmitterBase, emits

TENSOR_MAP_CTYPE = "tilec_tensor_map"

DEVICE_HELPERS["tensor_map"] = """\
// CUtensorMap (cuda.h): 128 opaque bytes, 64-byte aligned, passed by value.
struct alignas(64) tilec_tensor_map { unsigned long long opaque[16]; };"""

DEVICE_HELPERS["mbarrier"] = """\
__device__ __forceinline__ unsigned tilec_smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void tilec_mbarrier_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(tilec_smem_addr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void tilec_mbarrier_arrive_expect_tx(unsigned long long* bar, unsigned tx) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
               :: "r"(tilec_smem_addr(bar)), "r"(tx) : "memory");
}
__device__ __forceinline__ void tilec_mbarrier_wait(unsigned long long* bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile("{\\n .reg .pred p;\\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\\n"
                 " selp.u32 %0, 1, 0, p;\\n}"
                 : "=r"(done) : "r"(tilec_smem_addr(bar)), "r"(parity) : "memory");
  } while (!done);
}
__device__ __forceinline__ void tilec_mbarrier_inval(unsigned long long* bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(tilec_smem_addr(bar)) : "memory");
}"""

DEVICE_HELPERS["mbarrier_expect_tx"] = """\
// cuda.mbarrier_expect_tx: a run-time count of bytes expected on the phase, no arrival
__device__ __forceinline__ void tilec_mbarrier_expect_tx(unsigned long long* bar, unsigned tx) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;"
               :: "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))), "r"(tx) : "memory");
}"""

DEVICE_HELPERS["cp_async_mbarrier"] = """\
// cuda.cp_async_mbarrier_arrive: an arrival on bar once this thread's cp.async copies land
__device__ __forceinline__ void tilec_cp_async_mbarrier_arrive(unsigned long long* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];"
               :: "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))) : "memory");
}"""

DEVICE_HELPERS["bulk_group"] = """\
__device__ __forceinline__ void tilec_fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void tilec_bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void tilec_bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(N) : "memory");
}"""


DEVICE_HELPERS["mbarrier_cluster"] = """\
// thread-block clusters: this block's rank, the cluster barrier, an arrival on a peer's mbarrier
__device__ __forceinline__ unsigned tilec_cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void tilec_cluster_sync() {
  asm volatile("fence.mbarrier_init.release.cluster;\\n"
               "barrier.cluster.arrive.release.aligned;\\n"
               "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void tilec_mbarrier_arrive_cluster(unsigned long long* bar, unsigned cta) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(tilec_smem_addr(bar)), "r"(cta));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" :: "r"(remote) : "memory");
}"""


DEVICE_HELPERS["map_shared_rank"] = """\
// cuda.map_shared_rank: a shared buffer's generic address in the cluster's block of rank cta
template <typename T>
__device__ __forceinline__ T* tilec_map_shared_rank(T* p, unsigned cta) {
  unsigned long long d;
  asm("mapa.u64 %0, %1, %2;" : "=l"(d) : "l"(p), "r"(cta));
  return reinterpret_cast<T*>(d);
}"""

class TmaEmitter(EmitterBase):
    def _coord_list(self, coords) -> list[str]:
        return [f"(int)({self.expr(c)})" for c in coords]

    def _mbarrier(self, fn: str, op, *args: str) -> None:
        """`tilec_<fn>(bar, args...);` on `op`'s mbarrier (its device helpers come along)."""
        self.helpers.add("mbarrier")
        bar = f"reinterpret_cast<unsigned long long*>({self.expr(op.bar)})"
        self.line(f"tilec_{fn}({', '.join([bar, *args])});")

    def _shared_at(self, buffer, element_offset: int) -> str:
        """The shared address of `buffer` moved by `element_offset` elements."""
        return self.expr(buffer) + (f" + {element_offset}" if element_offset else "")

    @emits(cuda_tma.MBarrierInitOp)
    def emit_mbarrier_init(self, op: cuda_tma.MBarrierInitOp):
        self._mbarrier("mbarrier_init", op, f"{op.count.value.data}u")

    @emits(cuda_tma.MBarrierArriveExpectTxOp)
    def emit_mbarrier_arrive(self, op: cuda_tma.MBarrierArriveExpectTxOp):
        if op.cta is not None:
            self.helpers.update(("mbarrier", "mbarrier_cluster"))
            self._mbarrier("mbarrier_arrive_cluster", op, f"(unsigned)({self.expr(op.cta)})")
            return
        self._mbarrier("mbarrier_arrive_expect_tx", op, f"{op.tx.value.data}u")

    @emits(cuda_tma.MBarrierExpectTxOp)
    def emit_mbarrier_expect_tx(self, op: cuda_tma.MBarrierExpectTxOp):
        self.helpers.add("mbarrier_expect_tx")
        self._mbarrier("mbarrier_expect_tx", op, f"(unsigned)({self.expr(op.bytes)})")

    @emits(cuda_tma.ClusterRankOp)
    def emit_cluster_rank(self, op: cuda_tma.ClusterRankOp):
        self.helpers.update(("mbarrier", "mbarrier_cluster"))
        self.assign(op, op.result, f"({self.index_ctype})tilec_cluster_rank()", "crank")

    @emits(cuda_tma.ClusterSyncOp)
    def emit_cluster_sync(self, op: cuda_tma.ClusterSyncOp):
        self.helpers.update(("mbarrier", "mbarrier_cluster"))
        self.line("tilec_cluster_sync();")

    @emits(cuda_tma.GridDepWaitOp)
    def emit_griddep_wait(self, op: cuda_tma.GridDepWaitOp):
        self.line('asm volatile("griddepcontrol.wait;" ::: "memory");')

    @emits(cuda_tma.GridDepLaunchOp)
    def emit_griddep_launch(self, op: cuda_tma.GridDepLaunchOp):
        self.line('asm volatile("griddepcontrol.launch_dependents;" ::: "memory");')

    @emits(cuda_tma.MapSharedRankOp)
    def emit_map_shared_rank(self, op: cuda_tma.MapSharedRankOp):
        t = self.buffer(op.mem, op)
        elem = self.element_ctype(t.element_type, op)
        self.helpers.add("map_shared_rank")
        name = self.define(op.result, op.result.name_hint or "peer")
        self.line(f"{elem}* const {name} = tilec_map_shared_rank({self.expr(op.mem)}, (unsigned)({self.expr(op.cta)}));")

    @emits(cuda_tma.CpAsyncMBarrierArriveOp)
    def emit_cp_async_mbarrier_arrive(self, op: cuda_tma.CpAsyncMBarrierArriveOp):
        self.helpers.add("cp_async_mbarrier")
        self.line(f"tilec_cp_async_mbarrier_arrive(reinterpret_cast<unsigned long long*>({self.expr(op.bar)}));")

    @emits(cuda_tma.MBarrierWaitOp)
    def emit_mbarrier_wait(self, op: cuda_tma.MBarrierWaitOp):
        self._mbarrier("mbarrier_wait", op, f"(unsigned)({self.expr(op.parity)}) & 1u")

    @emits(cuda_tma.MBarrierInvalOp)
    def emit_mbarrier_inval(self, op: cuda_tma.MBarrierInvalOp):
        self._mbarrier("mbarrier_inval", op)

    @emits(cuda_tma.TmaLoadOp)
    def emit_tma_load(self, op: cuda_tma.TmaLoadOp):
        self.helpers.add("mbarrier")
        n = len(op.coords)
        cs = self._coord_list(op.coords)
        ins = [
            f'"r"(tilec_smem_addr({self._shared_at(op.dst, op.element_offset)}))',
            f'"l"(reinterpret_cast<unsigned long long>(&{self.expr(op.tensor_map)}))',
            f'"r"(tilec_smem_addr({self.expr(op.bar)}))',
            *(f'"r"({c})' for c in cs),
        ]
        coords = ", ".join(f"%{3 + i}" for i in range(n))
        mc, mask = "", ""
        if op.multicast_mask is not None:  # the ctaMask, a 16-bit operand
            mc, mask = ".multicast::cluster", f", %{3 + n}"
            ins.append(f'"h"((unsigned short){op.multicast_mask})')
        self.line(
            f'asm volatile("cp.async.bulk.tensor.{n}d.shared::cluster.global.tile'
            f'.mbarrier::complete_tx::bytes{mc} [%0], [%1, {{{coords}}}], [%2]{mask};"'
        )
        self.line(f'             :: {", ".join(ins)} : "memory");')

    @emits(cuda_tma.TmaStoreOp)
    def emit_tma_store(self, op: cuda_tma.TmaStoreOp):
        self.helpers.add("mbarrier")
        n = len(op.coords)
        cs = self._coord_list(op.coords)
        ins = [
            f'"l"(reinterpret_cast<unsigned long long>(&{self.expr(op.tensor_map)}))',
            f'"r"(tilec_smem_addr({self._shared_at(op.src, op.element_offset)}))',
            *(f'"r"({c})' for c in cs),
        ]
        coords = ", ".join(f"%{2 + i}" for i in range(n))
        self.line(
            f'asm volatile("cp.async.bulk.tensor.{n}d.global.shared::cta.tile.bulk_group [%0, {{{coords}}}], [%1];"'
        )
        self.line(f'             :: {", ".join(ins)} : "memory");')

    @emits(cuda_tma.BulkCommitOp)
    def emit_bulk_commit(self, op: cuda_tma.BulkCommitOp):
        self.helpers.add("bulk_group")
        self.line("tilec_bulk_commit_group();")

    @emits(cuda_tma.BulkWaitReadOp)
    def emit_bulk_wait(self, op: cuda_tma.BulkWaitReadOp):
        self.helpers.add("bulk_group")
        self.line(f"tilec_bulk_wait_group_read<{op.pending.value.data}>();")

    @emits(cuda_tma.FenceProxyAsyncOp)
    def emit_fence_proxy_async(self, op: cuda_tma.FenceProxyAsyncOp):
        self.helpers.add("bulk_group")
        self.line("tilec_fence_proxy_async();")
