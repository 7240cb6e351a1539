"""The device functions the `cuda` target prints once per translation unit, by name,
when an op needs them (`tilec_floordiv`, `tilec_cp_async`, ...)."""

from tilec.dialects.cuda import EX2_FMA_POLY, EX2_FMA_RANGE


def _ex2_fma() -> str:
    """`cuda.ex2_fma`'s helper, its constants from the dialect's (`%.9g`: an f32 read back
    exactly); each step a statement of its own (NVRTC runs with `--fmad=false`)."""
    c = [f"{x:.9g}f" for x in EX2_FMA_POLY]
    lo, hi = (f"{x:.1f}f" for x in EX2_FMA_RANGE)
    return f"""\
// cuda.ex2_fma (f32): 2^x with no MUFU op: x clamped to [{lo}, {hi}], j = round(x) in the low
// bits of t = x + 1.5 * 2^23, f = x - j exactly, 2^f by a degree-5 polynomial, j added to
// the exponent as an integer; 2^-22 relative.
__device__ __forceinline__ float tilec_ex2_fma(float x) {{
  x = fminf(fmaxf(x, {lo}), {hi});
  const float t = x + 12582912.0f;
  const float f = x - (t - 12582912.0f);
  float p = fmaf({c[4]}, f, {c[3]});
  p = fmaf(p, f, {c[2]});
  p = fmaf(p, f, {c[1]});
  p = fmaf(p, f, {c[0]});
  p = fmaf(p, f, 1.0f);
  return __uint_as_float(__float_as_uint(p) + (__float_as_uint(t) << 23));
}}"""


DEVICE_HELPERS = {
    "to_f8e4m3": """\
// one rounding to nearest even to e4m3fn; NaN beyond 464 and for infinities (PyTorch's
// conversion), every NaN 0x7F (dialects/dtypes.py)
__device__ __forceinline__ __nv_fp8_e4m3 tilec_to_f8e4m3(double x) {
  __nv_fp8_e4m3 r;
  r.__x = x != x ? (__nv_fp8_storage_t)0x7F : __nv_cvt_double_to_fp8(x, __NV_NOSAT, __NV_E4M3);
  return r;
}""",
    "to_f8e5m2": """\
// one rounding to nearest even to e5m2; infinity from 61440 up, every NaN 0x7F
__device__ __forceinline__ __nv_fp8_e5m2 tilec_to_f8e5m2(double x) {
  __nv_fp8_e5m2 r;
  r.__x = x != x ? (__nv_fp8_storage_t)0x7F : __nv_cvt_double_to_fp8(x, __NV_NOSAT, __NV_E5M2);
  return r;
}""",
    "f8e4m3_bits": """\
// the e4m3fn value of these bits (a constant)
__device__ __forceinline__ __nv_fp8_e4m3 tilec_f8e4m3_bits(unsigned char b) {
  __nv_fp8_e4m3 r;
  r.__x = b;
  return r;
}""",
    "f8e5m2_bits": """\
// the e5m2 value of these bits (a constant)
__device__ __forceinline__ __nv_fp8_e5m2 tilec_f8e5m2_bits(unsigned char b) {
  __nv_fp8_e5m2 r;
  r.__x = b;
  return r;
}""",
    "floordiv": """\
template <typename T>
__device__ __forceinline__ T tilec_floordiv(T a, T b) {
  const T q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}""",
    "ceildiv": """\
template <typename T>
__device__ __forceinline__ T tilec_ceildiv(T a, T b) {
  const T q = a / b;
  return (q * b != a && ((a < 0) == (b < 0))) ? q + 1 : q;
}""",
    "ceildivu": """\
template <typename T>
__device__ __forceinline__ T tilec_ceildivu(T a, T b) {
  return a / b + (a % b != 0 ? 1 : 0);
}""",
    "l2_hint": """\
// An access with an L2 eviction priority (layout.load / layout.store `cache`): PTX
// `createpolicy` (LAST 1: evict_last, the lines stay in L2 before others; 0: evict_first,
// they go first) and `.L2::cache_hint`. The value moves as its raw bits (1 to 16 bytes).
template <int LAST>
__device__ __forceinline__ unsigned long long tilec_l2_policy() {
  unsigned long long p;
  if (LAST) asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  else asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
template <int LAST, int NC, typename T>
__device__ __forceinline__ T tilec_ld_l2(const T* a) {
  // NC 1: a buffer the kernel never writes (`const __restrict__`), read through the
  // non-coherent path as its plain loads are (ld.global.nc)
  const unsigned long long p = tilec_l2_policy<LAST>();
  T r;
  if constexpr (sizeof(T) == 16) {
    uint4 u;
    if (NC) asm volatile("ld.global.nc.L2::cache_hint.v4.b32 {%0, %1, %2, %3}, [%4], %5;"
                         : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(a), "l"(p) : "memory");
    else asm volatile("ld.global.L2::cache_hint.v4.b32 {%0, %1, %2, %3}, [%4], %5;"
                      : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w) : "l"(a), "l"(p) : "memory");
    memcpy(&r, &u, 16);
  } else if constexpr (sizeof(T) == 8) {
    uint2 u;
    if (NC) asm volatile("ld.global.nc.L2::cache_hint.v2.b32 {%0, %1}, [%2], %3;"
                         : "=r"(u.x), "=r"(u.y) : "l"(a), "l"(p) : "memory");
    else asm volatile("ld.global.L2::cache_hint.v2.b32 {%0, %1}, [%2], %3;"
                      : "=r"(u.x), "=r"(u.y) : "l"(a), "l"(p) : "memory");
    memcpy(&r, &u, 8);
  } else if constexpr (sizeof(T) == 4) {
    unsigned u;
    if (NC) asm volatile("ld.global.nc.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(u) : "l"(a), "l"(p) : "memory");
    else asm volatile("ld.global.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(u) : "l"(a), "l"(p) : "memory");
    memcpy(&r, &u, 4);
  } else if constexpr (sizeof(T) == 2) {
    unsigned short u;
    if (NC) asm volatile("ld.global.nc.L2::cache_hint.b16 %0, [%1], %2;" : "=h"(u) : "l"(a), "l"(p) : "memory");
    else asm volatile("ld.global.L2::cache_hint.b16 %0, [%1], %2;" : "=h"(u) : "l"(a), "l"(p) : "memory");
    memcpy(&r, &u, 2);
  } else {
    static_assert(sizeof(T) == 1, "tilec_ld_l2 moves 1, 2, 4, 8 or 16 bytes");
    unsigned short u;
    if (NC) asm volatile("ld.global.nc.L2::cache_hint.u8 %0, [%1], %2;" : "=h"(u) : "l"(a), "l"(p) : "memory");
    else asm volatile("ld.global.L2::cache_hint.u8 %0, [%1], %2;" : "=h"(u) : "l"(a), "l"(p) : "memory");
    const unsigned char c = (unsigned char)u;
    memcpy(&r, &c, 1);
  }
  return r;
}
template <int LAST, typename T>
__device__ __forceinline__ void tilec_st_l2(T* a, T x) {
  const unsigned long long p = tilec_l2_policy<LAST>();
  if constexpr (sizeof(T) == 16) {
    uint4 u;
    memcpy(&u, &x, 16);
    asm volatile("st.global.L2::cache_hint.v4.b32 [%0], {%1, %2, %3, %4}, %5;"
                 :: "l"(a), "r"(u.x), "r"(u.y), "r"(u.z), "r"(u.w), "l"(p) : "memory");
  } else if constexpr (sizeof(T) == 8) {
    uint2 u;
    memcpy(&u, &x, 8);
    asm volatile("st.global.L2::cache_hint.v2.b32 [%0], {%1, %2}, %3;" :: "l"(a), "r"(u.x), "r"(u.y), "l"(p) : "memory");
  } else if constexpr (sizeof(T) == 4) {
    unsigned u;
    memcpy(&u, &x, 4);
    asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;" :: "l"(a), "r"(u), "l"(p) : "memory");
  } else if constexpr (sizeof(T) == 2) {
    unsigned short u;
    memcpy(&u, &x, 2);
    asm volatile("st.global.L2::cache_hint.b16 [%0], %1, %2;" :: "l"(a), "h"(u), "l"(p) : "memory");
  } else {
    static_assert(sizeof(T) == 1, "tilec_st_l2 moves 1, 2, 4, 8 or 16 bytes");
    unsigned char c;
    memcpy(&c, &x, 1);
    asm volatile("st.global.L2::cache_hint.u8 [%0], %1, %2;" :: "l"(a), "h"((unsigned short)c), "l"(p) : "memory");
  }
}""",
    "prefetch_sector": """\
// cuda.prefetch_global_l2 {bulk}: the 16-byte-aligned block holding *p asked of L2 by one
// bulk prefetch (sm_90), which brings its 32-byte sector from DRAM, where
// `prefetch.global.L2` brings the 128-byte line (`prefetch.global.L2` before sm_90).
__device__ __forceinline__ void tilec_prefetch_sector(const void* p) {
#if __CUDA_ARCH__ >= 900
  const unsigned long long a = (unsigned long long)p & ~15ull;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" :: "l"(a) : "memory");
#else
  asm volatile("prefetch.global.L2 [%0];" :: "l"(p));
#endif
}""",
    "prefetch_row": """\
// cuda.prefetch_global_l2 {bulk} row: the 32-byte sectors a row of `nbytes` bytes from p covers
// in part (by the real address: its first unless the row starts on a sector boundary and
// does not end inside it, its last unless it ends on one and does not start inside it),
// asked of L2 by bulk prefetches (sm_90), both by one where they are adjacent;
// `prefetch.global.L2` of each before sm_90.
__device__ __forceinline__ void tilec_prefetch_row(const void* p, unsigned long long nbytes) {
  const unsigned long long d0 = (unsigned long long)p, d1 = d0 + nbytes;
  const unsigned long long h = d0 & ~31ull, t = (d1 - 1) & ~31ull;
  const bool ph = (d0 & 31) || d1 < h + 32, pt = (d1 & 31) || d0 > t;
#if __CUDA_ARCH__ >= 900
  if (ph && pt && t == h + 32) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], 64;" :: "l"(h) : "memory");
    return;
  }
  if (ph) asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" :: "l"(h) : "memory");
  if (pt && t != h) asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" :: "l"(t) : "memory");
#else
  if (ph) asm volatile("prefetch.global.L2 [%0];" :: "l"(h));
  if (pt && t != h) asm volatile("prefetch.global.L2 [%0];" :: "l"(t));
#endif
}""",
    "prefetch_l2": """\
// cuda.prefetch_l2: the 16-byte-aligned interior of [p, p + nbytes) asked of L2 in one
// bulk prefetch (sm_90; nothing before). HINT 0: no policy; 1: evict_last; 2: evict_first
// (the policy of "l2_hint"'s tilec_l2_policy, printed before it).
template <int HINT>
__device__ __forceinline__ void tilec_prefetch_l2(const void* p, unsigned long long nbytes) {
#if __CUDA_ARCH__ >= 900
  const unsigned long long a = (unsigned long long)p;
  const unsigned long long lo = (a + 15ull) & ~15ull;
  const unsigned long long hi = (a + nbytes) & ~15ull;
  if (hi <= lo) return;
  const unsigned n = (unsigned)(hi - lo);
  if (HINT == 0) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(lo), "r"(n) : "memory");
  } else {
    const unsigned long long pol = tilec_l2_policy<HINT == 1>();
    asm volatile("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%0], %1, %2;" :: "l"(lo), "r"(n), "l"(pol) : "memory");
  }
#endif
}""",
    "maximumf": """\
// arith.maximumf: NaN if either is NaN, and max(-0, +0) = +0.
template <typename T>
__device__ __forceinline__ T tilec_maximumf(T a, T b) {
  if (a != a || b != b) return a + b;
  if (a == b) return a == 0 ? a + b : a;
  return a > b ? a : b;
}
#if __CUDA_ARCH__ >= 800
// f32 (and f16 / bf16, which go through float): PTX `max.NaN` has these semantics
// (canonical NaN if either is NaN, +0 > -0) in one instruction, with no branch.
template <>
__device__ __forceinline__ float tilec_maximumf<float>(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
#endif""",
    "minimumf": """\
// arith.minimumf: NaN if either is NaN, and min(-0, +0) = -0.
template <typename T>
__device__ __forceinline__ T tilec_minimumf(T a, T b) {
  if (a != a || b != b) return a + b;
  if (a == b) return a == 0 ? -(-a - b) : a;
  return a < b ? a : b;
}
#if __CUDA_ARCH__ >= 800
// f32: PTX `min.NaN` (canonical NaN if either is NaN, -0 < +0), one instruction.
template <>
__device__ __forceinline__ float tilec_minimumf<float>(float a, float b) {
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
#endif""",
    "ex2_approx_ftz": """\
// math.exp2 fastmath<afn> (f32): one MUFU.EX2, 2 ulp, subnormals flushed to 0.
__device__ __forceinline__ float tilec_ex2_approx_ftz(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}""",
    "ex2_fma": _ex2_fma(),
    "tanh_approx": """\
// math.tanh fastmath<afn> (f32): one MUFU.TANH, 2^-10.987 relative.
__device__ __forceinline__ float tilec_tanh_approx(float x) {
  float r;
  asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}""",
    "rcp_approx_ftz": """\
// cuda.div_approx_group's reciprocal (f32): one MUFU.RCP, 1 ulp; subnormals flushed to 0.
__device__ __forceinline__ float tilec_rcp_approx_ftz(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}""",
    "div_approx_ftz": """\
// arith.divf fastmath<afn> (f32): x * (1 / y) with one MUFU.RCP, 2 ulp for |y| in
// [2^-126, 2^126], 0 past it; subnormals flushed to 0.
__device__ __forceinline__ float tilec_div_approx_ftz(float x, float y) {
  float r;
  asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
  return r;
}""",
    "bitcast": """\
template <typename To, typename From>
__device__ __forceinline__ To tilec_bitcast(From x) {
  static_assert(sizeof(To) == sizeof(From), "bitcast between types of different sizes");
  To y;
  memcpy(&y, &x, sizeof(To));
  return y;
}""",
    "lane_id": """\
__device__ __forceinline__ unsigned tilec_lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}""",
    "pack_bf16x2": """\
// two bf16 in one 32-bit register, `lo` in the low half (an mma.sync fragment pair)
__device__ __forceinline__ unsigned tilec_pack_bf16x2(__nv_bfloat16 lo, __nv_bfloat16 hi) {
  return (unsigned)__bfloat16_as_ushort(lo) | ((unsigned)__bfloat16_as_ushort(hi) << 16);
}""",
    "pack_f16x2": """\
// two f16 in one 32-bit register, `lo` in the low half (an mma.sync fragment pair)
__device__ __forceinline__ unsigned tilec_pack_f16x2(__half lo, __half hi) {
  return (unsigned)__half_as_ushort(lo) | ((unsigned)__half_as_ushort(hi) << 16);
}""",
    "pack_s8x4": """\
// four s8 in one 32-bit register, the first in the low byte (an mma.sync fragment quad)
__device__ __forceinline__ unsigned tilec_pack_s8x4(int a, int b, int c, int d) {
  return (unsigned)(a & 0xff) | ((unsigned)(b & 0xff) << 8) | ((unsigned)(c & 0xff) << 16) |
         ((unsigned)(d & 0xff) << 24);
}""",
    "cp_async": """\
// cuda.cp_async: Bytes bytes from global to shared memory, asynchronously (sm_80+).
template <int Bytes>
__device__ __forceinline__ void tilec_cp_async(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (Bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\\n" ::"r"(s), "l"(gmem)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\\n" ::"r"(s), "l"(gmem),
                 "n"(Bytes)
                 : "memory");
  }
}
__device__ __forceinline__ void tilec_cp_async_commit() {
  asm volatile("cp.async.commit_group;\\n" ::: "memory");
}
template <int Pending>
__device__ __forceinline__ void tilec_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\\n" ::"n"(Pending) : "memory");
}""",
    "cp_async16": """\
// cuda.cp_async with l1 or a prefetch size: 16 bytes from global to shared memory,
// asynchronously, through L1 (L1: .ca, the L1 requests whole sectors, not each 16-byte
// half) or not (.cg); with Prefetch (64, 128, 256) the L2 also fetches that many bytes
// around the copy's sector from DRAM (PTX .L2::NB), with 0 no prefetch size.
#define TILEC_CP_ASYNC16(CACHE, L2) \\
  asm volatile("cp.async." CACHE ".shared.global" L2 " [%0], [%1], 16;\\n" ::"r"(s), "l"(gmem) : "memory")
#define TILEC_CP_ASYNC16_L2(CACHE) \\
  if constexpr (Prefetch == 256) TILEC_CP_ASYNC16(CACHE, ".L2::256B"); \\
  else if constexpr (Prefetch == 128) TILEC_CP_ASYNC16(CACHE, ".L2::128B"); \\
  else if constexpr (Prefetch == 64) TILEC_CP_ASYNC16(CACHE, ".L2::64B"); \\
  else TILEC_CP_ASYNC16(CACHE, "")
template <bool L1, int Prefetch>
__device__ __forceinline__ void tilec_cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (L1) {
    TILEC_CP_ASYNC16_L2("ca");
  } else {
    TILEC_CP_ASYNC16_L2("cg");
  }
}
#undef TILEC_CP_ASYNC16_L2
#undef TILEC_CP_ASYNC16""",
    "cp_async_zfill": """\
// cuda.cp_async with src_bytes: 16 bytes from global to shared memory, asynchronously;
// src_bytes 0 reads nothing and writes 16 zeros (PTX src-size). The L2 fetches the
// 128 bytes around each request, as for the TMA's loads (their L2 promotion).
__device__ __forceinline__ void tilec_cp_async_zfill(void* smem, const void* gmem, unsigned src_bytes) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\\n" ::"r"(s), "l"(gmem), "r"(src_bytes)
               : "memory");
}""",
}


