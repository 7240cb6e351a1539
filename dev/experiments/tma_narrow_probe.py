"""What the TMA writes into shared memory for a box narrower than its swizzle row (issue 39, b3k50): one
block loads one box of a 16-bit tensor whose element (r, c) holds r * 256 + c + 1 into an 8 KiB shared buffer
filled with 0xFFFF first, then copies the buffer out raw; the host finds where each 16-byte chunk of the box
landed. Cases: a 32 x 8 box (64-byte rows) under the 128-byte swizzle as a 2-d map, the controls 64 x 8 under
the 128-byte swizzle and 32 x 8 under the 64-byte one (rows one swizzle row wide), and the 32 x 8 box padded by a
3-d map's dimension of extent 1 with box 2 (b3k50's first encoding of a padded box, which overran its panels). Each load expects the
box's bytes; the wait gives up after 2^22 polls (a count the copy engine never completes shows as done 0).
Prints a line a case: done, the bytes written (not 0xFFFF), and each box row's chunk offsets in bytes.

    python dev/experiments/tma_narrow_probe.py
"""

from __future__ import annotations

import numpy as np

SOURCE = r"""
extern "C" __global__ void probe(const void* map, unsigned short* out, int tx, int rank) {
  __shared__ __align__(1024) unsigned short buf[4096];
  __shared__ __align__(8) unsigned long long bar;
  const int t = threadIdx.x;
  for (int i = t; i < 4096; i += blockDim.x) buf[i] = 0xFFFF;
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar), s = (unsigned)__cvta_generic_to_shared(buf);
  if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (t == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(tx) : "memory");
    if (rank == 2)
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %3}], [%2];"
                   :: "r"(s), "l"(map), "r"(b), "r"(0) : "memory");
    else
      asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %3, %3}], [%2];"
                   :: "r"(s), "l"(map), "r"(b), "r"(0) : "memory");
  }
  unsigned done = 0;
  for (int i = 0; i < (1 << 22) && !done; ++i)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(b) : "memory");
  __syncthreads();
  for (int i = t; i < 4096; i += blockDim.x) out[i] = buf[i];
  if (t == 0) out[4096] = done;
}
"""

CASES = [  # (name, dims, element strides of dims 1.., box, swizzle bytes, expected bytes); the 3-d one last
    ("2d 32x8 sw128", (80, 8), (80,), (32, 8), 128, 512),
    ("2d 64x8 sw128", (80, 8), (80,), (64, 8), 128, 1024),
    ("2d 32x8 sw64", (80, 8), (80,), (32, 8), 64, 512),
    ("3d 32x2x8 sw128 (a padding dimension)", (80, 1, 8), (80, 80), (32, 2, 8), 128, 1024),
]


def main() -> int:
    import cupy as cp

    from tilec.runtime.tensor_map import TensorMapRequest, encode

    src = cp.asarray((np.arange(8)[:, None] * 256 + np.arange(80)[None, :] + 1).astype(np.uint16))
    kernel = cp.RawKernel(SOURCE, "probe", options=("-std=c++17",))
    for name, dims, strides, box, swizzle, tx in CASES:
        blob = encode(TensorMapRequest(src.data, dims, strides, box, swizzle, 2))
        tmap = cp.asarray(np.frombuffer(blob, np.uint8))
        out = cp.zeros(4097, cp.uint16)
        kernel((1,), (128,), (tmap, out, np.int32(tx), np.int32(len(dims))))
        cp.cuda.Device().synchronize()
        raw = cp.asnumpy(out)
        buf, done = raw[:4096], int(raw[4096])
        where = {int(v): i * 2 for i, v in enumerate(buf) if v != 0xFFFF}
        rows = []
        for r in range(box[-1]):
            rows.append("/".join(str(where.get(r * 256 + c + 1, "-")) for c in range(0, box[0], 8)))
        print(f"{name}: done {done}, bytes written {2 * int((buf != 0xFFFF).sum())} (zeros {2 * int((buf == 0).sum())}),"
              f" last byte {2 * int(np.nonzero(buf != 0xFFFF)[0].max()) + 1 if (buf != 0xFFFF).any() else -1};"
              f" row chunks at " + " ".join(rows), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
