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

#include <cooperative_groups.h>
#include "gt_kernels.h"
#include "gt_tile.cuh"

namespace cg = cooperative_groups;

/* Per-thread state for filling stages: where the thread's chunks of the
   next stage come from (its chunks of one operand are whole rows of chunks
   apart), how much of each lies inside the matrix, and how much of the
   block's piece of k is left.  Pointers advance by one stage per load so a
   full stage costs the copies and a few adds.  */
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
  const float *a, *b;      /* the thread's first chunks of the next stage */
  const float *a_base, *b_base;   /* a mapped address for empty copies */
  size_t a_chunk, b_chunk; /* floats between a thread's chunks */
  size_t a_stage;          /* floats between stages (BK columns of A) */
  long long k_left;        /* k from the next stage to the piece's end */
  int a_bytes;             /* valid bytes of the thread's 4 rows of A */
  unsigned b_ok;           /* bit i: chunk i's column of B is inside */
  int a_dst, b_dst;        /* shared offsets (floats) of the first chunks */
  int kk, kv;

  __device__ __forceinline__
  k4_loader (const float *A, size_t lda, const float *B, size_t ldb,
             long long m, long long n, long long m0, long long n0,
             long long k_begin, long long kc)
  {
    kk = threadIdx.x / (BM / 4);
    const int mv = (threadIdx.x % (BM / 4)) * 4;
    const long long left = m - (m0 + mv);
    a_bytes = left >= 4 ? 16 : (left > 0 ? (int) left * 4 : 0);
    a_base = A;
    a = a_bytes ? A + (m0 + mv) + (k_begin + kk) * lda : A;
    a_chunk = A_KSTEP * lda;
    a_stage = a_bytes ? BK * lda : 0;
    a_dst = kk * BM + mv;
    const int j = threadIdx.x / (BK / 4);
    kv = (threadIdx.x % (BK / 4)) * 4;
    b_ok = 0;
#pragma unroll
    for (int i = 0; i < CB; i++)
      if (n0 + j + i * B_JSTEP < n)
        b_ok |= 1u << i;
    b_base = B;
    b = b_ok ? B + (k_begin + kv) + (n0 + j) * ldb : B;
    b_chunk = B_JSTEP * ldb;
    b_dst = j * BK + kv;
    k_left = kc;
  }

  /* Fill a stage with the next BK of k and step past it.  */
  __device__ __forceinline__ void
  load (float *As, float *Bs)
  {
    if (k_left >= BK)
      {
#pragma unroll
        for (int i = 0; i < CA; i++)
          gt_cp_async16_n (As + a_dst + i * A_KSTEP * BM, a + i * a_chunk,
                           a_bytes);
#pragma unroll
        for (int i = 0; i < CB; i++)
          {
            const bool in = (b_ok >> i) & 1u;
            gt_cp_async16_n (Bs + b_dst + i * B_JSTEP * BK,
                             in ? b + i * b_chunk : b_base, in ? 16 : 0);
          }
      }
    else
      {
        /* The last, partial step of k: cut each chunk at k_left.  */
#pragma unroll
        for (int i = 0; i < CA; i++)
          {
            const bool in = kk + i * A_KSTEP < k_left;
            gt_cp_async16_n (As + a_dst + i * A_KSTEP * BM,
                             in ? a + i * a_chunk : a_base,
                             in ? a_bytes : 0);
          }
        const long long left = k_left - kv;
        const int kbytes = left <= 0 ? 0 : (left >= 4 ? 16 : (int) left * 4);
#pragma unroll
        for (int i = 0; i < CB; i++)
          {
            const bool in = kbytes && ((b_ok >> i) & 1u);
            gt_cp_async16_n (Bs + b_dst + i * B_JSTEP * BK,
                             in ? b + i * b_chunk : b_base, in ? kbytes : 0);
          }
      }
    a += a_stage;
    if (b_ok)
      b += BK;
    k_left -= BK;
  }
};

/* Whether a configuration's stages can hold its whole tile of C: its
   pieces of k can then be added within a cluster.  */
template <int BM, int BN, int BK, int STAGES>
struct k4_holds_c
{
  static const bool value = BM * BN <= STAGES * (BM + BN) * BK;
};

/* Kernel 5 with its pieces of k in one cluster (grid.z, Hopper on): each
   block leaves its sums in its own stages, and the first block of the
   cluster adds the others' through distributed shared memory in split
   order, as gt_k5_reduce does (the same bits), then stores the tile.
   The partial sums never cross device memory and no second kernel is
   launched.  Laid out [element][thread] so that a warp's reads are
   consecutive words.  */
template <int TM, int TN, int NT>
static __device__ void
k4_cluster_sum (float *smem, float (&acc)[TM][TN])
{
#if __CUDA_ARCH__ >= 900
  cg::cluster_group cluster = cg::this_cluster ();
  __syncthreads ();   /* every thread is done with the stages */
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < TN; j++)
      smem[(i * TN + j) * NT + threadIdx.x] = acc[i][j];
  cluster.sync ();
  if (cluster.block_rank () == 0)
    {
#pragma unroll
      for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
          acc[i][j] = 0.0f + acc[i][j];
      for (unsigned z = 1; z < cluster.num_blocks (); z++)
        {
          const float *r = cluster.map_shared_rank (smem, z);
#pragma unroll
          for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TN; j++)
              acc[i][j] += r[(i * TN + j) * NT + threadIdx.x];
        }
    }
  cluster.sync ();   /* the others' sums stay until they are read */
#endif
}

/* MINB resident blocks per SM bound the registers (65536 / (MINB * NT)):
   left alone, the compiler hoists a whole stage's shared reads and takes
   nearly 256 registers, leaving one block per SM.  */
template <int BM, int BN, int BK, int TM, int TN, int STAGES, int MINB>
__global__ void __launch_bounds__ (gt_tile<BM, BN, BK, TM, TN>::NT, MINB)
k4_async (const float *__restrict__ A, size_t lda,
          const float *__restrict__ B, size_t ldb,
          float *__restrict__ C, size_t ldc,
          long long m, long long n, long long k, long long kchunk,
          long long tiles_n, float *work, bool vc, bool accumulate,
          bool in_cluster)
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
      k4_loader<BM, BN, BK, T::NT> ld (A, lda, B, ldb, m, n, m0, n0,
                                       k_begin, kc);
      float acc[TM][TN];
      if (accumulate)
        tile.load (C, ldc, m, n, m0, n0, vc, acc);
      else
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
                     smem + s * T::STAGE_FLOATS + T::A_FLOATS);
          gt_cp_async_commit ();
        }
      int rs = 0, ws = STAGES - 1;   /* stage read next, written next */
      for (long long t = 0; t < nt; t++)
        {
          gt_cp_async_wait<STAGES - 2> ();
          /* Stage t has landed for every thread, and every thread is done
             with stage t-1, which the next load overwrites.  */
          __syncthreads ();
          if (t + STAGES - 1 < nt)
            ld.load (smem + ws * T::STAGE_FLOATS,
                     smem + ws * T::STAGE_FLOATS + T::A_FLOATS);
          gt_cp_async_commit ();
          ws = ws + 1 == STAGES ? 0 : ws + 1;
          tile.compute (smem + rs * T::STAGE_FLOATS,
                        smem + rs * T::STAGE_FLOATS + T::A_FLOATS, acc);
          rs = rs + 1 == STAGES ? 0 : rs + 1;
        }
      gt_cp_async_wait<0> ();

      if constexpr (k4_holds_c<BM, BN, BK, STAGES>::value)
        if (in_cluster)
          {
            k4_cluster_sum<TM, TN, T::NT> (smem, acc);
            if (blockIdx.z == 0)
              tile.store (C, ldc, m, n, m0, n0, vc, acc);
            __syncthreads ();
            continue;
          }
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
      /* Fill the padding too: 16-byte copies of the last rows read it.  */
      if (i == rows - 1)
        for (size_t r = rows; r < ldd; r++)
          dst[r + j * ldd] = 0.0f;
    }
}

/* The configurations of gt_cfg_id, in order:
   BM, BN, BK, TM, TN, STAGES, MINB.  */
#define GT_K4_CONFIGS(X)                 \
  X (256, 128, 16, 16, 8, 3, 1)          \
  X (64, 64, 32, 4, 8, 3, 4)             \
  X (128, 128, 16, 8, 8, 3, 2)           \
  X (64, 64, 16, 4, 8, 4, 4)             \
  X (128, 64, 16, 8, 8, 4, 3)            \
  X (128, 64, 32, 8, 8, 3, 2)            \
  X (128, 128, 32, 8, 8, 3, 2)          \
  X (128, 64, 16, 8, 8, 3, 4)

struct k4_entry
{
  void (*fn) (const float *, size_t, const float *, size_t, float *, size_t,
              long long, long long, long long, long long, long long, float *,
              bool, bool, bool);
  int bm, bn, bk, threads, smem, min_blocks;
  bool holds_c;         /* its pieces of k can be added in a cluster */
};

#define GT_K4_ENTRY(bm, bn, bk, tm, tn, st, minb)                         \
  { k4_async<bm, bn, bk, tm, tn, st, minb>, bm, bn, bk,                   \
    gt_tile<bm, bn, bk, tm, tn>::NT,                                      \
    st * gt_tile<bm, bn, bk, tm, tn>::STAGE_FLOATS * 4, minb,             \
    k4_holds_c<bm, bn, bk, st>::value },

static const k4_entry k4_table[GT_K4_CONFIG_COUNT] = { GT_K4_CONFIGS (GT_K4_ENTRY) };

/* Shape of a configuration, for the dispatcher.  */
extern "C" void
gt_k4_shape (int cfg, int *bm, int *bn, int *bk, int *threads, int *smem)
{
  const k4_entry *e = &k4_table[cfg];
  *bm = e->bm; *bn = e->bn; *bk = e->bk; *threads = e->threads;
  *smem = e->smem;
}

/* Resident blocks per multiprocessor a configuration is built for (its
   __launch_bounds__ minimum).  */
extern "C" int
gt_k4_min_blocks (int cfg)
{
  return k4_table[cfg].min_blocks;
}

/* Resident blocks per multiprocessor for a configuration on the current
   device (0 on error).  */
extern "C" int
gt_k4_occupancy (int cfg)
{
  const k4_entry *e = &k4_table[cfg];
  return gt_blocks_per_sm ((const void *) e->fn, e->threads, e->smem);
}

/* The most pieces of k a configuration can add within a cluster on the
   current device (0: none: not Hopper, where the rule in gt_costs.cu was
   measured; a build without sm_90 code; or stages too small for its
   tile of C).  */
static int k4_cluster_known[GT_K4_CONFIG_COUNT][GT_MAX_DEVICES];

extern "C" int
gt_k4_cluster_max (int cfg)
{
  if (cfg < 0 || cfg >= GT_K4_CONFIG_COUNT || !k4_table[cfg].holds_c)
    return 0;
  const k4_entry *e = &k4_table[cfg];
  return gt_cluster_max (k4_cluster_known[cfg], (const void *) e->fn,
                         e->threads, e->smem, 2);
}

/* Scratch layout: [A repacked][B repacked][split partials], each part
   16-byte aligned (sizes are multiples of 4 floats).  */
extern "C" size_t
gt_k4_work_bytes (int splits, size_t m, size_t n, size_t k, int repack)
{
  size_t bytes = 0;
  if (repack)
    bytes += (gt_round4 (m) * k + gt_round4 (k) * n) * sizeof (float);
  if (splits > 1)
    bytes += gt_round4 ((size_t) splits * m * n) * sizeof (float);
  return bytes;
}

static int
k4_needs_repack (const float *A, size_t lda, const float *B, size_t ldb)
{
  return !gt_aligned16 (A, lda) || !gt_aligned16 (B, ldb);
}

extern "C" cudaError_t
gt_repack (const float *src, size_t lds, float *dst, size_t ldd,
           size_t rows, size_t cols, cudaStream_t s)
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
gt_k4_async (int cfg, int splits, int cluster, int accumulate,
             const float *A, size_t lda, const float *B, size_t ldb, float *C,
             size_t ldc, size_t m, size_t n, size_t k, void *work,
             cudaStream_t s)
{
  if (cfg < 0 || cfg >= GT_K4_CONFIG_COUNT || splits < 1
      || splits > GT_GRID_YZ_MAX
      || (accumulate && splits > 1))
    return cudaErrorInvalidValue;
  if (m == 0 || n == 0)
    return cudaSuccess;
  const k4_entry *e = &k4_table[cfg];
  const long long tiles_m = gt_ceil_div (m, e->bm);
  const long long tiles_n = gt_ceil_div (n, e->bn);
  if (tiles_m > GT_GRID_X_MAX)
    return cudaErrorInvalidValue;
  /* Each piece of k is whole BK steps, so 16-byte chunks stay aligned.  */
  long long kchunk = gt_ceil_div (gt_ceil_div (k, splits), e->bk) * e->bk;
  if (kchunk == 0)
    kchunk = e->bk;
  const int used = (int) gt_ceil_div (k > 0 ? k : 1, kchunk);
  char *w = (char *) work;
  cudaError_t err;
  if (k4_needs_repack (A, lda, B, ldb))
    {
      if (w == NULL)
        return cudaErrorInvalidValue;
      float *a2 = (float *) w, *b2 = a2 + gt_round4 (m) * k;
      if ((err = gt_repack (A, lda, a2, gt_round4 (m), m, k, s)) != cudaSuccess
          || (err = gt_repack (B, ldb, b2, gt_round4 (k), k, n, s))
             != cudaSuccess)
        return err;
      A = a2; lda = gt_round4 (m);
      B = b2; ldb = gt_round4 (k);
      w += (gt_round4 (m) * k + gt_round4 (k) * n) * sizeof (float);
    }
  if (e->smem > 48 * 1024
      && (err = cudaFuncSetAttribute (
            (const void *) e->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
            e->smem)) != cudaSuccess)
    return err;
  dim3 grid ((unsigned) tiles_m, (unsigned) gt_min_ll (tiles_n, GT_GRID_YZ_MAX),
             (unsigned) used);
  if (cluster > 0 && used > 1 && used <= gt_k4_cluster_max (cfg))
    /* kernel 5 with its `used` pieces of k as one cluster (grid.z) */
    return gt_launch_cluster (e->fn, grid, e->threads, (size_t) e->smem, 2,
                              used, s, A, lda, B, ldb, C, ldc, (long long) m,
                              (long long) n, (long long) k, kchunk, tiles_n,
                              (float *) NULL, gt_aligned16 (C, ldc), false,
                              true);
  if (used > 1 && work == NULL)
    return cudaErrorInvalidValue;
  e->fn<<<grid, e->threads, e->smem, s>>> (A, lda, B, ldb, C, ldc, m, n, k,
                                           kchunk, tiles_n, (float *) w,
                                           gt_aligned16 (C, ldc),
                                           accumulate != 0, false);
  err = cudaGetLastError ();
  if (err != cudaSuccess || used == 1)
    return err;
  return gt_k5_reduce (used, (const float *) w, m, n, C, ldc, s);
}

extern "C" size_t
gt_k4_row_work (const gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  /* without the partial sums only where the launch will take the
     cluster (it falls back to them where this device cannot) */
  const int in_cluster = p->cluster > 0 && p->splits > 1
                         && p->splits <= gt_k4_cluster_max (p->k4_config);
  return gt_k4_work_bytes (in_cluster ? 1 : p->splits, m, n, k, repack);
}

/* Kernels 4 and 5 (5: splits > 1, the pieces summed by gt_k5_reduce).  */
extern "C" cudaError_t
gt_k4_row_launch (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  return gt_k4_async (p->k4_config, p->splits, p->cluster, 0,
                      (const float *) a->A,
                      a->lda, (const float *) a->B, a->ldb, (float *) a->C,
                      a->ldc, a->m, a->n, a->k, a->work, s);
}
