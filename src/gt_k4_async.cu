/* Kernels 4 and 5: the register tile of gt_tile.cuh fed by a STAGES-deep
   cp.async pipeline (global to shared without passing through registers,
   STAGES-1 stages in flight while one is multiplied).  With splits > 1
   (kernel 5) blockIdx.z takes one piece of k and writes its partial
   product to scratch; gt_k5_reduce then adds the pieces in split order,
   so the result does not depend on scheduling.

   Every copy is a 16-byte cp.async whose source size is cut at the matrix
   edge (the rest of the 16 bytes is zero-filled), so edges cost no extra
   instructions and outside elements read as zero.  That needs A and B
   16-byte aligned with leading dimensions a multiple of 4; the launcher
   repacks an operand into scratch when it is not.  */

#include "gt_gemm.h"
#include "gt_tile.cuh"

/* Per-thread state for filling stages: where the thread's first chunk of
   each operand comes from (its other chunks are whole rows of chunks
   further on), and how much of each lies inside the matrix.  */
template <int BM, int BN, int BK, int NT>
struct k4_loader
{
  static constexpr int CA = BM * BK / 4 / NT;   /* A chunks per thread */
  static constexpr int CB = BN * BK / 4 / NT;   /* B chunks per thread */
  static_assert (CA * NT == BM * BK / 4 && CB * NT == BN * BK / 4,
                 "whole chunks per thread");
  static_assert (NT % (BM / 4) == 0 && NT % (BK / 4) == 0,
                 "a thread's chunks share their row offset");
  static constexpr int A_KSTEP = NT / (BM / 4);   /* k rows between chunks */
  static constexpr int B_JSTEP = NT / (BK / 4);   /* columns between chunks */
  const float *a, *b;
  size_t lda, ldb;
  int a_bytes;       /* valid bytes of the thread's 4 rows of A */
  unsigned b_ok;     /* bit i: chunk i's column of B is inside */

  __device__ __forceinline__
  k4_loader (const float *A, size_t lda_, const float *B, size_t ldb_,
             long long m, long long n, long long m0, long long n0,
             long long k_begin)
    : lda (lda_), ldb (ldb_)
  {
    const int kk = threadIdx.x / (BM / 4), mv = (threadIdx.x % (BM / 4)) * 4;
    const long long left = m - (m0 + mv);
    a_bytes = left >= 4 ? 16 : (left > 0 ? (int) left * 4 : 0);
    a = a_bytes ? A + (m0 + mv) + (k_begin + kk) * lda : A;
    const int j = threadIdx.x / (BK / 4), kv = (threadIdx.x % (BK / 4)) * 4;
    b_ok = 0;
#pragma unroll
    for (int i = 0; i < CB; i++)
      if (n0 + j + i * B_JSTEP < n)
        b_ok |= 1u << i;
    b = b_ok ? B + (k_begin + kv) + (n0 + j) * ldb : B;
  }

  /* Fill a stage with step t of this block's piece of k (kc long).  */
  __device__ __forceinline__ void
  load (float *As, float *Bs, long long t, long long kc) const
  {
    const long long p0 = t * BK;
    const int kk = threadIdx.x / (BM / 4), mv = (threadIdx.x % (BM / 4)) * 4;
    const float *a_t = a + p0 * lda;
#pragma unroll
    for (int i = 0; i < CA; i++)
      {
        const bool in = a_bytes && p0 + kk + i * A_KSTEP < kc;
        gt_cp_async16_n (As + (kk + i * A_KSTEP) * BM + mv,
                         in ? a_t + i * A_KSTEP * lda : a, in ? a_bytes : 0);
      }
    const int j = threadIdx.x / (BK / 4), kv = (threadIdx.x % (BK / 4)) * 4;
    const long long left = kc - (p0 + kv);
    const int kbytes = left <= 0 ? 0 : (left >= 4 ? 16 : (int) left * 4);
#pragma unroll
    for (int i = 0; i < CB; i++)
      {
        const bool in = kbytes && ((b_ok >> i) & 1u);
        gt_cp_async16_n (Bs + (j + i * B_JSTEP) * BK + kv,
                         in ? b + p0 + i * B_JSTEP * ldb : b,
                         in ? kbytes : 0);
      }
  }
};

/* MINB resident blocks per SM bound the registers (65536 / (MINB * NT)):
   left alone, the compiler hoists a whole stage's shared reads and takes
   nearly 256 registers, leaving one block per SM.  */
template <int BM, int BN, int BK, int TM, int TN, int STAGES, int MINB>
__global__ void __launch_bounds__ (gt_tile<BM, BN, BK, TM, TN>::NT, MINB)
k4_async (const float *__restrict__ A, size_t lda,
          const float *__restrict__ B, size_t ldb,
          float *__restrict__ C, size_t ldc,
          long long m, long long n, long long k, long long kchunk,
          long long tiles_n, float *work, bool vc)
{
  typedef gt_tile<BM, BN, BK, TM, TN> T;
  extern __shared__ float4 smem4[];
  float *smem = reinterpret_cast<float *> (smem4);
  const T tile;
  const long long m0 = (long long) blockIdx.x * BM;
  const long long k_begin = blockIdx.z * kchunk;
  const long long k_end = k_begin + kchunk < k ? k_begin + kchunk : k;
  const long long kc = k_end > k_begin ? k_end - k_begin : 0;
  const long long nt = (kc + BK - 1) / BK;

  for (long long bn = blockIdx.y; bn < tiles_n; bn += gridDim.y)
    {
      const long long n0 = bn * BN;
      const k4_loader<BM, BN, BK, T::NT> ld (A, lda, B, ldb, m, n, m0, n0,
                                             k_begin);
      float acc[TM][TN];
#pragma unroll
      for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
          acc[i][j] = 0.0f;

      /* Prologue: STAGES-1 stages in flight (empty groups keep the
         wait_group count uniform).  */
#pragma unroll
      for (int s = 0; s < STAGES - 1; s++)
        {
          if (s < nt)
            ld.load (smem + s * T::STAGE_FLOATS,
                     smem + s * T::STAGE_FLOATS + T::A_FLOATS, s, kc);
          gt_cp_async_commit ();
        }
      for (long long t = 0; t < nt; t++)
        {
          gt_cp_async_wait<STAGES - 2> ();
          /* Stage t has landed for every thread, and every thread is done
             with stage t-1, which the next load overwrites.  */
          __syncthreads ();
          const long long pre = t + STAGES - 1;
          if (pre < nt)
            {
              const int ps = (int) (pre % STAGES);
              ld.load (smem + ps * T::STAGE_FLOATS,
                       smem + ps * T::STAGE_FLOATS + T::A_FLOATS, pre, kc);
            }
          gt_cp_async_commit ();
          const int cs = (int) (t % STAGES);
          tile.compute (smem + cs * T::STAGE_FLOATS,
                        smem + cs * T::STAGE_FLOATS + T::A_FLOATS, acc);
        }
      gt_cp_async_wait<0> ();

      if (gridDim.z == 1)
        tile.store (C, ldc, m, n, m0, n0, vc, acc);
      else
        tile.store (work + blockIdx.z * (size_t) m * (size_t) n, (size_t) m,
                    m, n, m0, n0, m % 4 == 0, acc);
      /* The next column tile reuses the stages.  */
      __syncthreads ();
    }
}

/* Copies a rows x cols matrix to leading dimension ldd (a multiple of 4)
   so kernel 4 can move it in 16-byte pieces.  */
__global__ void
k4_repack (const float *__restrict__ src, size_t lds, float *__restrict__ dst,
           size_t ldd, long long rows, long long cols)
{
  const size_t total = (size_t) rows * (size_t) cols;
  for (size_t e = (size_t) blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (size_t) gridDim.x * blockDim.x)
    {
      const size_t i = e % rows, j = e / rows;
      dst[i + j * ldd] = src[i + j * lds];
    }
}

/* The configurations of gt_cfg_id, in order:
   BM, BN, BK, TM, TN, STAGES, MINB.  */
#define GT_K4_CONFIGS(X)                 \
  X (256, 128, 16, 16, 8, 3, 1)          \
  X (128, 256, 16, 16, 8, 3, 1)          \
  X (128, 128, 16, 8, 8, 3, 2)           \
  X (64, 64, 16, 4, 8, 4, 4)             \
  X (128, 128, 16, 16, 8, 4, 2)

struct k4_entry
{
  void (*fn) (const float *, size_t, const float *, size_t, float *, size_t,
              long long, long long, long long, long long, long long, float *,
              bool);
  int bm, bn, bk, threads, smem;
};

#define GT_K4_ENTRY(bm, bn, bk, tm, tn, st, minb)                         \
  { k4_async<bm, bn, bk, tm, tn, st, minb>, bm, bn, bk,                   \
    gt_tile<bm, bn, bk, tm, tn>::NT,                                      \
    st * gt_tile<bm, bn, bk, tm, tn>::STAGE_FLOATS * 4 },

static const k4_entry k4_table[GT_CFG_COUNT] = { GT_K4_CONFIGS (GT_K4_ENTRY) };

static bool
aligned16 (const void *p, size_t ld)
{
  return ((size_t) p % 16) == 0 && ld % 4 == 0;
}

static size_t
round4 (size_t x)
{
  return (x + 3) / 4 * 4;
}

/* Shape of a configuration, for the dispatcher.  */
extern "C" void
gt_k4_shape (int cfg, int *bm, int *bn, int *bk, int *threads, int *smem)
{
  const k4_entry *e = &k4_table[cfg];
  *bm = e->bm; *bn = e->bn; *bk = e->bk; *threads = e->threads;
  *smem = e->smem;
}

/* Resident blocks per multiprocessor for a configuration (0 on error).  */
extern "C" int
gt_k4_occupancy (int cfg)
{
  const k4_entry *e = &k4_table[cfg];
  int blocks = 0;
  if (cudaFuncSetAttribute ((const void *) e->fn,
                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                            e->smem) != cudaSuccess
      || cudaOccupancyMaxActiveBlocksPerMultiprocessor (
           &blocks, (const void *) e->fn, e->threads, e->smem)
           != cudaSuccess)
    return 0;
  return blocks;
}

/* Scratch layout: [A repacked][B repacked][split partials], each part
   16-byte aligned (sizes are multiples of 4 floats).  */
extern "C" size_t
gt_k4_work_bytes (int splits, size_t m, size_t n, size_t k, int repack)
{
  size_t bytes = 0;
  if (repack)
    bytes += (round4 (m) * k + round4 (k) * n) * sizeof (float);
  if (splits > 1)
    bytes += round4 ((size_t) splits * m * n) * sizeof (float);
  return bytes;
}

extern "C" int
gt_k4_needs_repack (const float *A, size_t lda, const float *B, size_t ldb)
{
  return !aligned16 (A, lda) || !aligned16 (B, ldb);
}

static cudaError_t
repack (const float *src, size_t lds, float *dst, size_t ldd, size_t rows,
        size_t cols, cudaStream_t s)
{
  const long long total = (long long) rows * (long long) cols;
  if (total == 0)
    return cudaSuccess;
  const long long blocks = gt_min_ll (gt_ceil_div (total, 256), 8192);
  k4_repack<<<(unsigned) blocks, 256, 0, s>>> (src, lds, dst, ldd, rows,
                                               cols);
  return cudaGetLastError ();
}

extern "C" cudaError_t
gt_k4_async (int cfg, int splits, const float *A, size_t lda,
             const float *B, size_t ldb, float *C, size_t ldc, size_t m,
             size_t n, size_t k, void *work, cudaStream_t s)
{
  if (cfg < 0 || cfg >= GT_CFG_COUNT || splits < 1 || splits > 65535)
    return cudaErrorInvalidValue;
  if (m == 0 || n == 0)
    return cudaSuccess;
  const k4_entry *e = &k4_table[cfg];
  const long long tiles_m = gt_ceil_div (m, e->bm);
  const long long tiles_n = gt_ceil_div (n, e->bn);
  if (tiles_m > 0x7fffffffLL)
    return cudaErrorInvalidValue;
  /* Each piece of k is whole BK steps, so 16-byte chunks stay aligned.  */
  long long kchunk = gt_ceil_div (gt_ceil_div (k, splits), e->bk) * e->bk;
  if (kchunk == 0)
    kchunk = e->bk;
  const int used = (int) gt_ceil_div (k > 0 ? k : 1, kchunk);
  char *w = (char *) work;
  cudaError_t err;
  if (gt_k4_needs_repack (A, lda, B, ldb))
    {
      if (w == NULL)
        return cudaErrorInvalidValue;
      float *a2 = (float *) w, *b2 = a2 + round4 (m) * k;
      if ((err = repack (A, lda, a2, round4 (m), m, k, s)) != cudaSuccess
          || (err = repack (B, ldb, b2, round4 (k), k, n, s)) != cudaSuccess)
        return err;
      A = a2; lda = round4 (m);
      B = b2; ldb = round4 (k);
      w += (round4 (m) * k + round4 (k) * n) * sizeof (float);
    }
  if (used > 1 && work == NULL)
    return cudaErrorInvalidValue;
  if (e->smem > 48 * 1024
      && (err = cudaFuncSetAttribute (
            (const void *) e->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
            e->smem)) != cudaSuccess)
    return err;
  dim3 grid ((unsigned) tiles_m, (unsigned) gt_min_ll (tiles_n, 65535),
             (unsigned) used);
  e->fn<<<grid, e->threads, e->smem, s>>> (A, lda, B, ldb, C, ldc, m, n, k,
                                           kchunk, tiles_n, (float *) w,
                                           aligned16 (C, ldc));
  err = cudaGetLastError ();
  if (err != cudaSuccess || used == 1)
    return err;
  return gt_k5_reduce (used, (const float *) w, m, n, C, ldc, s);
}
