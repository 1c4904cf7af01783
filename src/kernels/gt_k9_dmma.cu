/* Kernel 9: single inputs multiplied on the FP64 tensor cores.

   The FP32 kernels are issue-bound: one FFMA per 2 flops, plus the shared
   loads and the loop, on a pipe whose peak (67 TFLOP/s on an H100/H200)
   cuBLAS reaches 76% of.  Hopper's FP64 tensor cores have the same peak
   (mma.sync m16n8k8 on doubles: 66 TFLOP/s measured on an H200, 8 warps
   per SM), and one instruction does 2048 flops, so the issue slots are
   left free for everything else.  Every single is exactly a double, the
   products of two are exact in double, and the sums are kept in double,
   so C is the exact product rounded once per element on top of a double
   accumulation: more accurate than any FP32 kernel, and no reduced
   precision anywhere.

   The widening: done on each warp's fragments it takes 3 conversions
   per 4096 flops, and cost 11% of the tensor rate on an H200; so it is
   done once per block, on the way into shared memory (global -> registers
   as singles -> doubles in shared memory), 1 conversion per 4096 flops.
   Conversions run on the pipe FP64 shares with the tensor cores: all of a
   stage's at once, between its last products and the barrier, cost 18%
   of the kernel's time; spread in three pieces over the stage's 8-k
   steps, next to nothing.  (Integer widening, off that pipe, ran 20%
   slower: its registers spilled.)

   Block tile 128 x 128 of 512 threads, 4 x 4 warps of 32 x 32: with 16
   warps an SM always has DMMAs queued from some warp while others wait
   for their shared loads (8 warps of 64 x 32 ran at 68% of the tensor
   rate, their warps stalled on their own dependencies).  The m16n8k8
   fragments want rows g and g + 8 of a 16-row tile (g = lane / 4) and k
   t and t + 4 (t = lane % 4), each operand's doubles in consecutive
   registers; the shared layouts below give every fragment in 16-byte
   reads that land in consecutive registers, without bank conflicts.

   No block-wide barrier in the loop: with __syncthreads after each stage
   the tensor pipe idled while 16 warps gathered (H200, 4096^3: 51.4
   TFLOP/s); with split barriers, where a warp announces its stores and
   reads as done and waits only for the ones it depends on, 56.2.  */

#include <cooperative_groups.h>
#include "gt_kernels.h"
#include "gt_launch.cuh"

namespace cg = cooperative_groups;

/* The m16n8k8 shape on doubles is sm_90's, and only Hopper runs it at
   its FP32 rate; built for other targets the kernel is empty and
   gt_k9_usable says no.  */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1000
#define K9_ARCH 1
#else
#define K9_ARCH 0
#endif

#define K9_BM 128
#define K9_BN 128
#define K9_THREADS 512
/* A stage: As[k][m] (doubles, row stride K9_LDA), then Bs[p][n] (pairs of
   doubles, row stride K9_LDB pairs) where row p = 4 (k / 8) + k % 4 holds
   k and k + 4 of each column together: a B fragment is one pair.  A lane
   reads A at k row t (+ 4) and rows 2g, 2g + 1 (+ 16): 16-byte units
   t*LDA/2 + g (+ 8), distinct mod 8 over a quarter warp for LDA = 4 mod
   8; B at pair row t and column g (+ 8j): units t*LDB + g, distinct for
   LDB = 2 mod 8.  */
#define K9_LDA 132
#define K9_LDB 130

#define K9_BK 32
#define K9_A_DBL (K9_BK * K9_LDA)                     /* A's doubles */
#define K9_STAGE (K9_A_DBL + (K9_BK / 2) * K9_LDB * 2)  /* a stage's */
#define K9_SMEM ((size_t) 2 * K9_STAGE * sizeof (double))

/* Rows of tiles per band of the order in which blocks take tiles.  */
#define K9_BAND 8

/* The tile (m0, n0) of block x.  Tiles go in bands of `band` rows of
   tiles from the top, each band column by column, so that the blocks
   resident at once share a few panels of A and of B in L2 (column by
   column over all of C, each round of 132 blocks at 8192^3 read all 64
   panels of A).  The last band holds what is left, so the last tiles of
   the order are still the bottom ones of the last column
   (gt_k9_dmma_tail) where the tail is no deeper than that band; band 0:
   column by column.  */
template <int BM, int BN>
static __device__ void
k9_tile_of (long long x, long long m, long long n, int band, long long *m0,
            long long *n0)
{
  const long long tiles_m = (m + BM - 1) / BM;
  if (band <= 0 || band >= tiles_m)
    {
      *m0 = x % tiles_m * BM;
      *n0 = x / tiles_m * BN;
      return;
    }
  const long long tiles_n = (n + BN - 1) / BN;
  const long long per = (long long) band * tiles_n, b = x / per, r = x % per;
  const long long rows = tiles_m - b * band < band ? tiles_m - b * band
                                                   : band;
  *m0 = (b * band + r % rows) * BM;
  *n0 = r / rows * BN;
}

__device__ __forceinline__ void
k9_mma (double (&d)[4], const double (&a)[4], const double (&b)[2])
{
#if K9_ARCH
  asm volatile ("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
                "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]),
                  "d"(b[1]));
#endif
}

/* One thread's share of a stage, in three pieces so that the widening
   and storing spread over the stage's products: piece 0 and 1, a float4
   of A each (4 rows of m at k row tid / 32 + 16 v, rows 4 (tid % 32));
   piece 2, a run of 8 k of one column of B (column tid % 128, k from
   8 (tid / 128)), stored as pairs (k, k + 4).  Each piece is stored one
   stage after it is loaded, and its registers then take the piece of the
   stage after.  */
/* Four elements of a stage piece: a float4 (doubles go by k9_dmma_d).  */
template <typename T> struct k9_four;
template <> struct k9_four<float>
{
  float4 v;
  __device__ __forceinline__ double2 lo () const { return make_double2 (v.x, v.y); }
  __device__ __forceinline__ double2 hi () const { return make_double2 (v.z, v.w); }
  __device__ __forceinline__ double get (int i) const
  { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }
  __device__ __forceinline__ void
  load (const float *p, int have, bool vec) { v = gt_ldg4 (p, have, vec); }
};
template <typename T>
struct k9_loader
{
  const T *pa, *pb;       /* the next stage to load */
  size_t a16;             /* 16 k rows of A */
  int a_rows;             /* rows of A inside, of the thread's 4 */
  int ka_left, kb_left;   /* k left from the thread's first of the next
                             stage (B: 0 for columns outside) */
  int ka, kb;
  k9_four<T> ra[2], rb[2];

  __device__ __forceinline__ void
  init (const T *A, size_t lda, const T *B, size_t ldb, long long m,
        long long n, long long k, long long m0, long long n0)
  {
    const int tid = threadIdx.x;
    ka = tid / 32;
    const long long row = m0 + (tid % 32) * 4;
    a_rows = row < m ? (m - row > 4 ? 4 : (int) (m - row)) : 0;
    pa = a_rows > 0 ? A + row + (size_t) ka * lda : A;
    a16 = 16 * lda;
    ka_left = (int) k - ka;
    kb = (tid / K9_BN) * 8;
    const long long col = n0 + tid % K9_BN;
    pb = col < n ? B + kb + (size_t) col * ldb : B;
    kb_left = col < n ? (int) k - kb : 0;
  }

  /* Piece v (< 2) of A, or (v == 2) of B, zero past the edges; the B
     piece moves on to the next stage.  */
  __device__ __forceinline__ void
  fetch (int v, bool va, bool vb)
  {
    if (v < 2)
      ra[v].load (v ? pa + a16 : pa, ka_left > 16 * v ? a_rows : 0, va);
    else
      {
        rb[0].load (pb, kb_left > 4 ? 4 : kb_left, vb);
        rb[1].load (pb + 4, kb_left > 8 ? 4 : kb_left - 4, vb);
        pa += 2 * a16;
        pb += K9_BK;
        ka_left -= K9_BK;
        kb_left -= K9_BK;
      }
  }

  /* Piece v widened into stage st.  */
  __device__ __forceinline__ void
  put (int v, double *st) const
  {
    const int tid = threadIdx.x;
    if (v < 2)
      {
        double2 *d = reinterpret_cast<double2 *> (
          st + (ka + 16 * v) * K9_LDA + (tid % 32) * 4);
        d[0] = ra[v].lo ();
        d[1] = ra[v].hi ();
      }
    else
      {
        /* rb[0]: k .. k + 3, rb[1]: k + 4 .. k + 7 */
        double2 *d = reinterpret_cast<double2 *> (st + K9_A_DBL)
                     + (kb / 2) * K9_LDB + tid % K9_BN;
#pragma unroll
        for (int i = 0; i < 4; i++)
          d[i * K9_LDB] = make_double2 (rb[0].get (i), rb[1].get (i));
      }
  }
};

/* The products of 8 k (step ks of a stage).  The lane (g, t) of the warp
   at (wm, wn) gives 16-row tile i (< 2) its fragment rows g and g + 8
   from rows wm + 16i + 2g and + 1, and 8-column tile j (< 4) its fragment
   column g from column wn + 8j + g.  */
__device__ __forceinline__ void
k9_step (double (&acc)[2][4][4], const double *st, int ks, int wm, int wn,
         int g, int t)
{
  const double *as = st + (8 * ks + t) * K9_LDA + wm + 2 * g;
  const double2 *bs = reinterpret_cast<const double2 *> (st + K9_A_DBL)
                      + (4 * ks + t) * K9_LDB + wn + g;
  double a[2][4], b[4][2];
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int h = 0; h < 2; h++)
      {
        const double2 v = *reinterpret_cast<const double2 *> (
          as + 4 * h * K9_LDA + 16 * i);
        a[i][2 * h] = v.x;
        a[i][2 * h + 1] = v.y;
      }
#pragma unroll
  for (int j = 0; j < 4; j++)
    {
      const double2 v = bs[8 * j];
      b[j][0] = v.x;
      b[j][1] = v.y;
    }
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int j = 0; j < 4; j++)
      k9_mma (acc[i][j], a[i], b[j]);
}

__device__ __forceinline__ void
k9_acc_zero (double (&acc)[2][4][4])
{
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
      for (int c = 0; c < 4; c++)
        acc[i][j][c] = 0.0;
}

/* The lane's sums from (STORE false) or to (STORE true) p, an m x n
   matrix of doubles: accumulator c of tile (i, j) is row r0 + 16i +
   (c >> 1), column c0 + 8j + (c & 1).  */
template <bool STORE>
__device__ __forceinline__ void
k9_partial (double (&acc)[2][4][4], double *p, long long m, long long n,
            long long r0, long long c0)
{
#pragma unroll
  for (int j = 0; j < 4; j++)
#pragma unroll
    for (int c = 0; c < 4; c++)
      {
        const long long col = c0 + 8 * j + (c & 1);
#pragma unroll
        for (int i = 0; i < 2; i++)
          {
            const long long row = r0 + 16 * i + (c >> 1);
            if (row < m && col < n)
              {
                double *q = p + row + (size_t) col * m;
                if (STORE)
                  __stcg (q, acc[i][j][c]);
                else
                  acc[i][j][c] = __ldcg (q);
              }
          }
      }
}

/* Two rows of one column of C, rounded once from the double sums: one
   8- or 16-byte store where both are inside and the column is aligned.  */
__device__ __forceinline__ void
k9_store2 (float *d, bool pair, bool in0, bool in1, double v0, double v1)
{
  if (pair)
    *reinterpret_cast<float2 *> (d) = make_float2 ((float) v0, (float) v1);
  else
    {
      if (in0)
        d[0] = (float) v0;
      if (in1)
        d[1] = (float) v1;
    }
}

__device__ __forceinline__ void
k9_store2 (double *d, bool pair, bool in0, bool in1, double v0, double v1)
{
  if (pair && ((size_t) d % 16) == 0)
    *reinterpret_cast<double2 *> (d) = make_double2 (v0, v1);
  else
    {
      if (in0)
        d[0] = v0;
      if (in1)
        d[1] = v1;
    }
}

/* The lane's part of C, rounded once from its sums: rows r0 + 16i + 2g +
   r (r < 2: accumulators 2r, 2r + 1), columns c0 + 8j + 2t + c (c < 2).  */
template <typename T>
__device__ __forceinline__ void
k9_store_c (const double (&acc)[2][4][4], T *__restrict__ C, size_t ldc,
            long long m, long long n, long long r0, long long c0, int g,
            int t, bool vc, unsigned mask = 0xffu)
{
#pragma unroll
  for (int j = 0; j < 4; j++)
#pragma unroll
    for (int c = 0; c < 2; c++)
      {
        const long long col = c0 + 8 * j + 2 * t + c;
        if (col >= n)
          continue;
#pragma unroll
        for (int i = 0; i < 2; i++)
          {
            if (!((mask >> (i * 4 + j)) & 1))
              continue;
            const long long row = r0 + 16 * i + 2 * g;
            T *d = C + row + (size_t) col * ldc;
            k9_store2 (d, vc && row + 1 < m, row < m, row + 1 < m,
                       acc[i][j][c], acc[i][j][c + 2]);
          }
      }
}

/* Split barriers (mbarrier objects in shared memory): a thread arrives
   when its part of a step is done and waits only where it needs the
   others' parts.  */
__device__ __forceinline__ unsigned
k9_saddr (const void *p)
{
  return (unsigned) __cvta_generic_to_shared (p);
}

__device__ __forceinline__ void
k9_arrive (unsigned long long *bar)
{
  asm volatile ("{\n .reg .b64 st;\n"
                " mbarrier.arrive.shared::cta.b64 st, [%0];\n}\n"
                :: "r"(k9_saddr (bar)) : "memory");
}

/* `count` pairs of full and empty barriers, each phase `threads`
   arrivals (by thread 0: the caller's block barrier makes them seen).  */
__device__ __forceinline__ void
k9_init_barriers (unsigned long long *full, unsigned long long *empty,
                  int count, int threads)
{
  if (threadIdx.x == 0)
    for (int b = 0; b < count; b++)
      {
        asm volatile ("mbarrier.init.shared::cta.b64 [%0], %1;\n"
                      :: "r"(k9_saddr (&full[b])), "r"(threads));
        asm volatile ("mbarrier.init.shared::cta.b64 [%0], %1;\n"
                      :: "r"(k9_saddr (&empty[b])), "r"(threads));
      }
}

/* Until the phase of parity `parity` of *bar has completed.  */
__device__ __forceinline__ void
k9_wait (unsigned long long *bar, int parity)
{
  asm volatile ("{\n .reg .pred done;\n"
                "K9_WAIT:\n"
                " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                " @!done bra K9_WAIT;\n}\n"
                :: "r"(k9_saddr (bar)), "r"(parity) : "memory");
}

/* One block per 128 x 128 tile of C, over all of k; two stages in
   dynamic shared memory.  While stage s is multiplied, the pieces of
   stage s + 1 (loaded during s - 1) are widened and stored into the
   other stage, each after one 8-k step, and the pieces of s + 2 are
   loaded in their place.

   pin: the sums so far (m x n doubles, leading dimension m) to start
   from, instead of zero; pout: where to leave the sums, instead of
   rounding them into C (both only with PART: without, the pointers
   would hold registers through the loop).  With PART and a grid of
   several z, block z takes k from z kc (a multiple of 32) to (z + 1) kc
   and leaves its sums in the z-th m x n of pout.  One piece of 130
   lines: the split barriers (full/empty per stage) and the three pieces
   of widening are placed between the 8-k steps of one loop, and moving
   parts into functions would hide that order, which the measured rate
   depends on.  */
template <typename T, bool PART>
__global__ void __launch_bounds__ (K9_THREADS, 1)
k9_dmma (const T *__restrict__ A, size_t lda,
         const T *__restrict__ B, size_t ldb, T *__restrict__ C,
         size_t ldc, long long m, long long n, long long k, bool va, bool vb,
         bool vc, const double *__restrict__ pin, double *__restrict__ pout,
         long long kc, int band)
{
#if K9_ARCH
  if (PART && gridDim.z > 1)
    {
      /* split k: block z sums k from z kc, into its own m x n of pout */
      const long long k0 = (long long) blockIdx.z * kc;
      A += (size_t) k0 * lda;
      B += k0;
      k = k - k0 < kc ? k - k0 : kc;
      pout += (size_t) blockIdx.z * m * n;
    }
  extern __shared__ __align__ (16) double k9_smem[];
  long long m0, n0;
  k9_tile_of<K9_BM, K9_BN> (blockIdx.x, m, n, band, &m0, &n0);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp % 4) * 32, wn = (warp / 4) * 32;
  const int g = lane / 4, t = lane % 4;

  double acc[2][4][4];
  k9_acc_zero (acc);
  if (PART && pin)
    k9_partial<false> (acc, const_cast<double *> (pin), m, n,
                       m0 + wm + 2 * g, n0 + wn + 2 * t);

  k9_loader<T> ld;
  ld.init (A, lda, B, ldb, m, n, k, m0, n0);
  const int nt = (int) ((k + K9_BK - 1) / K9_BK);
  /* full[b] completes a phase when stage buffer b has been filled, empty[b]
     when it has been read; fill f of buffer b holds stage 2f + b, and its
     phases count fills.  No block-wide barrier in the loop: a warp waits
     for the others only where it reads what they stored, or stores where
     they read.  */
  __shared__ unsigned long long full[2], empty[2];
  k9_init_barriers (full, empty, 2, K9_THREADS);
  if (nt > 0)
    {
#pragma unroll
      for (int v = 0; v < 3; v++)
        ld.fetch (v, va, vb);
      __syncthreads ();   /* the barriers initialized */
#pragma unroll
      for (int v = 0; v < 3; v++)
        ld.put (v, k9_smem);
      if (nt > 1)
#pragma unroll
        for (int v = 0; v < 3; v++)
          ld.fetch (v, va, vb);
      k9_arrive (&full[0]);
    }
  for (int s = 0; s < nt; s++)
    {
      const int b = s & 1;
      const double *st = k9_smem + b * K9_STAGE;
      double *nx = k9_smem + (b ^ 1) * K9_STAGE;
      const bool more = s + 1 < nt, fill = s + 2 < nt;
      k9_wait (&full[b], (s >> 1) & 1);
#pragma unroll
      for (int ks = 0; ks < K9_BK / 8; ks++)
        {
          k9_step (acc, st, ks, wm, wn, g, t);
          if (ks < 3 && more)
            {
              /* stage s + 1 goes where stage s - 1 was read */
              if (ks == 0 && s >= 1)
                k9_wait (&empty[b ^ 1], ((s - 1) >> 1) & 1);
              ld.put (ks, nx);
              if (fill)
                ld.fetch (ks, va, vb);
              if (ks == 2)
                k9_arrive (&full[b ^ 1]);
            }
        }
      k9_arrive (&empty[b]);
    }

  if (PART && pout)
    {
      k9_partial<true> (acc, pout, m, n, m0 + wm + 2 * g, n0 + wn + 2 * t);
      return;
    }
  k9_store_c (acc, C, ldc, m, n, m0 + wm, n0 + wn, g, t, vc);
#endif
}

/* Kernel 9 on doubles.  Nothing to widen, so the copies go straight from
   global to shared memory by cp.async, holding no registers (staged
   through registers as the singles are, the doubles' pieces spilled:
   ptxas, 364 bytes); three stage buffers (201 KiB), so the copies of
   stage s + 2 go where stage s - 1 was read while stage s is multiplied,
   and each thread's copies complete on the buffer's `full` barrier
   (cp.async.mbarrier.arrive).  Same tiles, warps and fragments as
   k9_dmma, and A's shared layout; B is kept column by column, Bd[n][k]
   with a row of K9_LDK, so that a warp's copies run down two columns in
   16-byte pieces (copied in the pairs layout of the singles, each lane
   took 8 bytes of its own column: 32 sectors an instruction, and the
   kernel ran at 0.66x cuBLAS DGEMM).  A lane reads its fragment, k t
   and t + 4 of column wn + 8j + g, as two 8-byte words; K9_LDK = 4 mod 16
   puts a half warp's 16 on distinct bank pairs.  */
#define K9_D_STAGES 3
#define K9_LDK 36

/* The doubles' block shapes: WM x WN warps of 32 x 32 (each warp's
   fragments and the shared layouts as above).  4 x 4 (128 x 128, 512
   threads, one block an SM) is the large products' tile; 2 x 2 (64 x 64,
   128 threads, two blocks an SM) gives a product four times the tiles,
   for shapes whose 128 x 128 tiles leave the SMs short of work.  The row
   stride of A stays 4 mod 8 (the fragments' reads conflict-free).  */
template <int WM, int WN>
struct k9_shape
{
  static constexpr int BM = 32 * WM, BN = 32 * WN, THREADS = 32 * WM * WN;
  static constexpr int LDA = BM + 4;
  static constexpr int A_DBL = K9_BK * LDA;
  static constexpr int STAGE = A_DBL + BN * K9_LDK;
  static constexpr size_t SMEM = (size_t) K9_D_STAGES * STAGE
                                 * sizeof (double);
  /* its row in the per-device caches of the doubles' shapes */
  static constexpr int CACHE = BM == K9_BM ? 0 : 1;
  /* 16-byte copies through L1 as well: the small blocks (two an SM, and
     L1 beside their shared memory) read the operands' 8-byte copies,
     which go through L1, faster than 16-byte ones that bypass it */
  static constexpr bool L1 = THREADS < 512;
  /* k9_cluster_sum's 32 doubles a thread fit in the stages */
  static_assert (32 * THREADS <= K9_D_STAGES * STAGE, "cluster sums");
  static_assert (WN == 1 || WN == 2 || WN == 4 || WN == 8, "A's passes");
  static_assert (WM == 1 || WM == 2 || WM == 4 || WM == 8, "B's passes");
};
typedef k9_shape<4, 4> k9_large;
typedef k9_shape<2, 2> k9_small;
static_assert (k9_large::BM == K9_BM && k9_large::BN == K9_BN
               && k9_large::THREADS == K9_THREADS
               && k9_large::LDA == K9_LDA, "the singles' tile");

/* An 8- or 16-byte cp.async, the first `bytes` of it from src, the rest
   zero (bytes 0: all zero, src not read); l1: 16 bytes through L1 too.  */
__device__ __forceinline__ void
k9_cp (void *dst, const void *src, int size, int bytes, bool l1 = false)
{
#if K9_ARCH
  const unsigned d = k9_saddr (dst);
  if (size == 16 && l1)
    asm volatile ("cp.async.ca.shared.global [%0], [%1], 16, %2;\n"
                  :: "r"(d), "l"(src), "r"(bytes) : "memory");
  else if (size == 16)
    asm volatile ("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                  :: "r"(d), "l"(src), "r"(bytes) : "memory");
  else
    asm volatile ("cp.async.ca.shared.global [%0], [%1], 8, %2;\n"
                  :: "r"(d), "l"(src), "r"(bytes) : "memory");
#endif
}

/* One thread's copies of a stage, pointers moving on stage by stage (as
   k9_loader's, so that little stays live across the products): A rows
   4 (tid % RA) .. + 3, RA = BM / 4 threads to a k row, at k rows tid / RA
   + KA v (KA = THREADS / RA k rows a pass, 32 / KA passes); 16-byte
   pieces of B's columns tid / 16 + CB r (CB = THREADS / 16 columns a
   pass, BN / CB passes) at k 2 (tid % 16).  Each issue ends with the
   thread's arrival on the buffer's full barrier once its copies land.
   An operand whose leading dimension is odd (an odd m or k, as Octave
   stores it) starts every other column 8 bytes past a 16-byte boundary.
   Such a column is copied in 16-byte pieces from the boundary before it
   and kept one word further on in shared memory (A: AODD, its k rows of
   odd k: ODD bit 0; B: its odd columns, bit 1), one piece more where it
   is shifted; the fragments' reads shift with it (k9_step_d).  The modes
   are template arguments: as run-time values, their state cost the large
   blocks registers (spills) and speed on aligned operands
   (bench/RESULTS.md).  The small blocks keep odd operands in 8-byte copies
   (k9_d_odd), as they do an operand whose own start is not 16-byte
   aligned; then a thread's words are RA rows (A) or 16 k (B) apart
   instead of side by side, so that each copy instruction of a warp reads
   consecutive words.  */
template <typename S, int ODD = 0>
struct k9_d_copier
{
  static constexpr bool AODD = ODD & 1, BODD = ODD & 2;
  static constexpr int RA = S::BM / 4, KA = S::THREADS / RA, PA = K9_BK / KA;
  static constexpr int CB = S::THREADS / 16, PB = S::BN / CB;
  static_assert (PA * KA == K9_BK && PB * CB == S::BN && PB <= 32,
                 "a stage's copies");
  /* a thread's k rows (columns) all of one parity: its shift */
  static_assert ((!AODD || KA % 2 == 0) && (!BODD || CB % 2 == 0)
                 && S::BM % 2 == 0 && S::BN % 2 == 0 && K9_BK % 2 == 0,
                 "shifted copies");
  const double *pa, *pb;   /* the next stage's */
  size_t ak, bc;           /* KA k rows of A, CB columns of B */
  int a_rows;              /* rows of A inside, of the thread's 4 (6) */
  unsigned b_cols;         /* bit r: column piece r inside */
  int ka_left, kb_left;    /* k left from the thread's first */
  bool va, vb;             /* 16-byte pieces (or shifted ones) */
  bool a_extra, b_extra;   /* the piece past a shifted k row, column */

  __device__ __forceinline__ void
  init (const double *A, size_t lda, const double *B, size_t ldb,
        long long m, long long n, long long k, long long m0, long long n0,
        bool va_, bool vb_)
  {
    const int tid = threadIdx.x;
    /* aligned: rows row .. row + 3; shifted (k rows of odd k, KA even):
       from a row earlier, and the last thread of the row 2 more; else
       row, row + RA, .. row + 3 RA */
    const int shift = AODD ? (tid / RA) & 1 : 0;
    const bool whole = AODD || va_;
    const long long row = m0 - shift + (tid % RA) * (whole ? 4 : 1);
    a_extra = shift && tid % RA == RA - 1;
    const int most = a_extra ? 6 : 4;
    const long long left = m - row, apart = whole ? 1 : RA;
    a_rows = row < m ? (left > (most - 1) * apart
                          ? most : (int) ((left + apart - 1) / apart))
                     : 0;
    pa = A + (a_rows ? row : 0) + (size_t) (tid / RA) * lda;
    ak = KA * lda;
    ka_left = (int) k - tid / RA;
    const long long col = n0 + tid / 16;
    b_cols = 0;
    for (int r = 0; r < PB; r++)
      b_cols |= (col + CB * r < n ? 1u : 0u) << r;
    /* aligned: k, k + 1; shifted (odd columns, CB even): from a k
       earlier, and the last thread of the column 2 more; else k, k + 16 */
    vb = BODD || vb_;
    const int bshift = BODD ? (tid / 16) & 1 : 0;
    b_extra = bshift && tid % 16 == 15;
    const int kb = (tid % 16) * (vb ? 2 : 1) - bshift;
    pb = b_cols ? B + (size_t) col * ldb + kb : B;
    bc = CB * ldb;
    kb_left = (int) k - kb;
    va = va_;
  }

  __device__ __forceinline__ void
  issue (double *st, unsigned long long *full)
  {
    const int tid = threadIdx.x;
#pragma unroll
    for (int v = 0; v < PA; v++)
      {
        const int have = ka_left > KA * v ? a_rows : 0;
        const double *src = pa + v * ak;
        double *dst = st + (tid / RA + KA * v) * S::LDA
                      + (tid % RA) * (AODD || va ? 4 : 1);
        if (AODD || va)
          {
            k9_cp (dst, have > 0 ? src : pa, 16, have >= 2 ? 16 : 8 * have,
                   S::L1);
            k9_cp (dst + 2, have > 2 ? src + 2 : pa, 16,
                   have >= 4 ? 16 : (have > 2 ? 8 : 0), S::L1);
            if (AODD && a_extra)
              k9_cp (dst + 4, have > 4 ? src + 4 : pa, 16,
                     have >= 6 ? 16 : (have > 4 ? 8 : 0), S::L1);
          }
        else
#pragma unroll
          for (int e = 0; e < 4; e++)
            k9_cp (dst + RA * e, e < have ? src + RA * e : pa, 8,
                   e < have ? 8 : 0);
      }
    /* k of the thread's two words inside (and of the piece past them) */
    const int bk = vb ? (kb_left >= 2 ? 2 : (kb_left > 0 ? kb_left : 0))
                      : (kb_left > 16 ? 2 : (kb_left > 0 ? 1 : 0));
    const int be = kb_left >= 4 ? 2 : (kb_left > 2 ? kb_left - 2 : 0);
    double *bd = st + S::A_DBL + (tid / 16) * K9_LDK
                 + (tid % 16) * (vb ? 2 : 1);
#pragma unroll
    for (int r = 0; r < PB; r++)
      {
        const int have = (b_cols >> r) & 1 ? bk : 0;
        const double *src = pb + r * bc;
        double *dst = bd + CB * r * K9_LDK;
        if (vb)
          {
            k9_cp (dst, have ? src : pb, 16, 8 * have, S::L1);
            if (BODD && b_extra)
              {
                const int he = (b_cols >> r) & 1 ? be : 0;
                k9_cp (dst + 2, he ? src + 2 : pb, 16, 8 * he, S::L1);
              }
          }
        else
          {
            k9_cp (dst, have ? src : pb, 8, have > 0 ? 8 : 0);
            k9_cp (dst + 16, have > 1 ? src + 16 : pb, 8, have > 1 ? 8 : 0);
          }
      }
    pa += PA * ak;
    pb += K9_BK;
    ka_left -= K9_BK;
    kb_left -= K9_BK;
#if K9_ARCH
    asm volatile ("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n"
                  :: "r"(k9_saddr (full)) : "memory");
#endif
  }
};

/* k9_step with B column by column (Bd[n][K9_LDK]).  ODD as k9_d_copier's:
   bit 0, the k rows of odd k (the lanes of odd t) are a word further on,
   read 8 bytes at a time; bit 1, the odd columns (the lanes of odd g).  */
template <typename S, int ODD = 0>
__device__ __forceinline__ void
k9_step_d (double (&acc)[2][4][4], const double *st, int ks, int wm, int wn,
           int g, int t)
{
  constexpr bool AODD = ODD & 1, BODD = ODD & 2;
  const double *as = st + (8 * ks + t) * S::LDA + wm + 2 * g
                     + (AODD ? (t & 1) : 0);
  const double *bs = st + S::A_DBL + (wn + g) * K9_LDK + 8 * ks + t
                     + (BODD ? (g & 1) : 0);
  double a[2][4], b[4][2];
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int h = 0; h < 2; h++)
      if constexpr (AODD)
        {
          a[i][2 * h] = as[4 * h * S::LDA + 16 * i];
          a[i][2 * h + 1] = as[4 * h * S::LDA + 16 * i + 1];
        }
      else
        {
          const double2 v = *reinterpret_cast<const double2 *> (
            as + 4 * h * S::LDA + 16 * i);
          a[i][2 * h] = v.x;
          a[i][2 * h + 1] = v.y;
        }
  /* B's fragments one at a time, each used as it arrives: the registers
     of all four did not fit beside the accumulators (spills) */
#pragma unroll
  for (int j = 0; j < 4; j++)
    {
      b[j][0] = bs[8 * j * K9_LDK];
      b[j][1] = bs[8 * j * K9_LDK + 4];
#pragma unroll
      for (int i = 0; i < 2; i++)
        k9_mma (acc[i][j], a[i], b[j]);
    }
}

/* The pieces of k of one tile in one cluster (grid.z, doubles): each
   block leaves its sums in its own stages; block r of the cluster then
   adds, through distributed shared memory and in split order as
   k9_reduce does (the same bits), the sums of the fragments q = 4 i + j
   with q % blocks == r, and stores those: the sums never cross device
   memory, no second kernel runs, and no block reads more than a tile.
   Laid out [element][thread] so that a warp's reads are consecutive
   words.  Returns the mask of q for k9_store_c.  */
template <int THREADS>
static __device__ unsigned
k9_cluster_sum (double *smem, double (&acc)[2][4][4])
{
  unsigned mask = 0;
#if K9_ARCH
  cg::cluster_group cluster = cg::this_cluster ();
  const unsigned rank = cluster.block_rank (), z = cluster.num_blocks ();
  __syncthreads ();   /* every thread is done with the stages */
#pragma unroll
  for (int q = 0; q < 8; q++)
#pragma unroll
    for (int c = 0; c < 4; c++)
      smem[(q * 4 + c) * THREADS + threadIdx.x] = acc[q / 4][q % 4][c];
  cluster.sync ();
#pragma unroll
  for (int q = 0; q < 8; q++)
    if (q % z == rank)
      {
        mask |= 1u << q;
        for (unsigned b = 0; b < z; b++)
          {
            const double *r = cluster.map_shared_rank (smem, b);
#pragma unroll
            for (int c = 0; c < 4; c++)
              {
                const double v = r[(q * 4 + c) * THREADS + threadIdx.x];
                acc[q / 4][q % 4][c] = b ? acc[q / 4][q % 4][c] + v : v;
              }
          }
      }
  cluster.sync ();   /* the others' sums stay until they are read */
#endif
  return mask;
}

/* As k9_dmma, on doubles, in blocks of shape S; stage s is in buffer
   s % 3, its fill s / 3.  in_cluster (PART): the pieces of k of grid.z
   are one cluster's, summed by k9_cluster_sum.  Two blocks of the small
   shape share an SM (launch bounds: their registers allow it).  ODD: A
   (bit 0), B (bit 1) 16-byte aligned with an odd leading dimension
   (k9_d_copier).  */
template <bool PART, typename S, int ODD = 0>
__global__ void __launch_bounds__ (S::THREADS, S::THREADS >= 512 ? 1 : 2)
k9_dmma_d (const double *__restrict__ A, size_t lda,
           const double *__restrict__ B, size_t ldb, double *__restrict__ C,
           size_t ldc, long long m, long long n, long long k, bool va,
           bool vb, bool vc, const double *__restrict__ pin,
           double *__restrict__ pout, long long kc, int band, bool in_cluster)
{
#if K9_ARCH
  if (PART && gridDim.z > 1)
    {
      const long long k0 = (long long) blockIdx.z * kc;
      A += (size_t) k0 * lda;
      B += k0;
      k = k - k0 < kc ? k - k0 : kc;
      if (pout)
        pout += (size_t) blockIdx.z * m * n;
    }
  extern __shared__ __align__ (16) double k9_smem[];
  long long m0, n0;
  k9_tile_of<S::BM, S::BN> (blockIdx.x, m, n, band, &m0, &n0);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp % (S::BM / 32)) * 32, wn = (warp / (S::BM / 32)) * 32;
  const int g = lane / 4, t = lane % 4;
  double acc[2][4][4];
  k9_acc_zero (acc);
  if (PART && pin)
    k9_partial<false> (acc, const_cast<double *> (pin), m, n,
                       m0 + wm + 2 * g, n0 + wn + 2 * t);
  __shared__ unsigned long long full[K9_D_STAGES], empty[K9_D_STAGES];
  k9_init_barriers (full, empty, K9_D_STAGES, S::THREADS);
  __syncthreads ();   /* the barriers initialized */
  const int nt = (int) ((k + K9_BK - 1) / K9_BK);
  k9_d_copier<S, ODD> cp;
  cp.init (A, lda, B, ldb, m, n, k, m0, n0, va, vb);
  for (int s = 0; s < 2 && s < nt; s++)
    cp.issue (k9_smem + s * S::STAGE, &full[s]);
  for (int s = 0; s < nt; s++)
    {
      const int b = s % K9_D_STAGES;
      k9_wait (&full[b], (s / K9_D_STAGES) & 1);
#pragma unroll
      for (int ks = 0; ks < K9_BK / 8; ks++)
        k9_step_d<S, ODD> (acc, k9_smem + b * S::STAGE, ks, wm, wn, g, t);
      k9_arrive (&empty[b]);
      if (s + 2 < nt)
        {
          /* stage s + 2 goes where stage s - 1 was read */
          const int nb = (s + 2) % K9_D_STAGES;
          if (s >= 1)
            k9_wait (&empty[nb], ((s - 1) / K9_D_STAGES) & 1);
          cp.issue (k9_smem + nb * S::STAGE, &full[nb]);
        }
    }
  if (PART && pout)
    {
      k9_partial<true> (acc, pout, m, n, m0 + wm + 2 * g, n0 + wn + 2 * t);
      return;
    }
  const unsigned mask = PART && in_cluster
                        ? k9_cluster_sum<S::THREADS> (k9_smem, acc) : 0xffu;
  k9_store_c (acc, C, ldc, m, n, m0 + wm, n0 + wn, g, t, vc, mask);
#endif
}

/* The doubles' kernel in blocks of shape S for operands of ODD
   (k9_d_copier).  */
typedef void (*k9_d_kernel_fn) (const double *, size_t, const double *,
                                size_t, double *, size_t, long long,
                                long long, long long, bool, bool, bool,
                                const double *, double *, long long, int,
                                bool);
template <bool PART, typename S>
static k9_d_kernel_fn
k9_d_kernel (int odd)
{
  /* the small blocks are never shifted (k9_d_odd): not instantiated */
  if constexpr (S::THREADS < 512)
    return k9_dmma_d<PART, S, 0>;
  else
    {
      static const k9_d_kernel_fn fn[4] = {
        k9_dmma_d<PART, S, 0>, k9_dmma_d<PART, S, 1>,
        k9_dmma_d<PART, S, 2>, k9_dmma_d<PART, S, 3> };
      return fn[odd & 3];
    }
}

/* The kernel of input type T in blocks of shape S (the singles' only in
   k9_large), and the index of the pair in the per-device caches below:
   0 singles, 1 + 2 ODD doubles in large blocks, 2 + 2 ODD in small.  */
template <typename T, typename S, bool PART>
static const void *
k9_fn (int odd = 0)
{
  if constexpr (sizeof (T) == sizeof (double))
    return (const void *) k9_d_kernel<PART, S> (odd);
  else
    return (const void *) k9_dmma<T, PART>;
}

template <typename T, typename S>
static int
k9_which (int odd = 0)
{
  return sizeof (T) == sizeof (float) ? 0 : 1 + S::CACHE + 2 * (odd & 3);
}

/* Per device and double block shape: 1 + the most pieces of k kernel 9
   adds within a cluster, and per cluster size 1 + the blocks resident at
   once; 1 + the blocks resident on one SM (0: not asked yet).  A device
   reset forgets them.  */
static int k9_cluster_known[2][GT_MAX_DEVICES];
static int k9_slots_known[2][GT_CLUSTER_MAX + 1][GT_MAX_DEVICES];
static int k9_occupancy_known[2][GT_MAX_DEVICES];

/* Devices where each kernel (k9_which) has been allowed its shared
   memory, per PART; a device reset forgets it.  */
static unsigned char k9_attr_done[9][2][GT_MAX_DEVICES];
/* The same for the stream-K kernel, per double block shape.  */
static unsigned char k9_stream_attr_done[2][GT_MAX_DEVICES];

extern "C" void
gt_k9_forget (void)
{
  for (int d = 0; d < GT_MAX_DEVICES; d++)
    {
      for (int t = 0; t < 9; t++)
        for (int part = 0; part < 2; part++)
          __atomic_store_n (&k9_attr_done[t][part][d], 0, __ATOMIC_RELEASE);
      for (int sh = 0; sh < 2; sh++)
        {
          __atomic_store_n (&k9_stream_attr_done[sh][d], 0, __ATOMIC_RELEASE);
          __atomic_store_n (&k9_cluster_known[sh][d], 0, __ATOMIC_RELEASE);
          __atomic_store_n (&k9_occupancy_known[sh][d], 0, __ATOMIC_RELEASE);
          for (int z = 0; z <= GT_CLUSTER_MAX; z++)
            __atomic_store_n (&k9_slots_known[sh][z][d], 0,
                              __ATOMIC_RELEASE);
        }
    }
}

/* Per device: 1 + whether kernel 9 runs there (0: not asked yet).  */
static int k9_known[GT_MAX_DEVICES];

extern "C" int
gt_k9_usable (void)
{
  int dev = 0;
  const int seen = gt_device_seen (k9_known, &dev);
  if (seen < 0)
    return 0;
  if (seen)
    return seen - 1;
  /* Hopper only: its FP64 tensor cores match its FP32 rate.  (The
     A100's do too, but with the m8n8k4 shape only, not written here;
     Blackwell's have half the FP32 rate, other GPUs far less.)  The
     kernel must be built for sm_90: from other targets its body is
     empty.  */
  const gt_device_props *d = gt_device_props_current ();
  cudaFuncAttributes attr;
  const int ok = d && cudaFuncGetAttributes (
                        &attr, (const void *) k9_dmma<float, false>)
                      == cudaSuccess;
  if (!ok)
    cudaGetLastError ();
  return gt_device_remember (k9_known, dev,
                             ok && d->cc_major == 9 && attr.ptxVersion >= 90
                             && attr.ptxVersion < 100
                             && d->smem_block_optin >= K9_SMEM);
}

/* T's 16-byte pieces fit matrix p with leading dimension ld.  */
template <typename T>
static bool
k9_aligned (const T *p, size_t ld)
{
  return (size_t) p % 16 == 0 && (ld * sizeof (T)) % 16 == 0;
}

/* k9_d_copier's ODD for doubles A and B in blocks of shape S: bit 0 (A),
   bit 1 (B) where the matrix is 16-byte aligned and its leading
   dimension odd.  The large blocks only (H100): on the small ones,
   shifted A ran 7% and shifted B 16% slower than the 8-byte copies
   through L1 (the fragments' reads of shifted columns meet bank
   conflicts two ways, and eight warps an SM do not hide them).  */
template <typename S>
static int
k9_d_odd (const void *A, size_t lda, const void *B, size_t ldb)
{
  if (S::THREADS < 512)
    return 0;
  return ((size_t) A % 16 == 0 && lda % 2 ? 1 : 0)
         | ((size_t) B % 16 == 0 && ldb % 2 ? 2 : 0);
}

/* Kernel 9 on the first `tiles` tiles of C (0: all of them) on a grid of
   `splits` z (each kc of k; pout then holds one m x n of sums per z), or
   (splits 1) the whole of k; doubles in blocks of shape S.  */
template <typename T, typename S = k9_large>
static cudaError_t
k9_launch (const T *A, size_t lda, const T *B, size_t ldb, T *C, size_t ldc,
           size_t m, size_t n, size_t k, const double *pin, double *pout,
           long long splits, long long kc, long long tiles, cudaStream_t s)
{
  if (m == 0 || n == 0)
    return cudaSuccess;
  static_assert (sizeof (T) == sizeof (double) || S::BM == K9_BM,
                 "singles in large blocks only");
  const long long tiles_m = gt_ceil_div (m, S::BM);
  const long long tiles_n = gt_ceil_div (n, S::BN);
  if (tiles_m > GT_GRID_X_MAX || tiles_n > GT_GRID_X_MAX
      || tiles_m * tiles_n > GT_GRID_X_MAX || k > (size_t) GT_GRID_X_MAX
      || tiles < 0 || tiles > tiles_m * tiles_n)
    return cudaErrorInvalidValue;
  if (tiles == 0)
    tiles = tiles_m * tiles_n;
  /* bands where the tiles left out are the bottom of the last band's
     last column */
  const long long last = tiles_m - (tiles_m - 1) / K9_BAND * K9_BAND;
  const int band = tiles_m * tiles_n - tiles > last ? 0 : K9_BAND;
  if (!gt_k9_usable ())
    return cudaErrorInvalidDeviceFunction;
  const bool part = pin || pout;
  if (splits > 1 && (!pout || pin || splits > GT_GRID_YZ_MAX))
    return cudaErrorInvalidValue;
  const bool va = k9_aligned (A, lda), vb = k9_aligned (B, ldb);
  const bool vc = k9_aligned (C, ldc);
  const dim3 grid ((unsigned) tiles, 1, (unsigned) splits);
  const int dbl = sizeof (T) == sizeof (double);
  const int odd = dbl ? k9_d_odd<S> (A, lda, B, ldb) : 0;
  const void *fn = part ? k9_fn<T, S, true> (odd)
                        : k9_fn<T, S, false> (odd);
  const size_t smem = dbl ? S::SMEM : K9_SMEM;
  cudaError_t err = gt_allow_smem_once (
    fn, smem, k9_attr_done[k9_which<T, S> (odd)][part]);
  if (err != cudaSuccess)
    return err;
  if constexpr (sizeof (T) == sizeof (double))
    {
      if (part)
        k9_d_kernel<true, S> (odd)<<<grid, S::THREADS, smem, s>>> (
          A, lda, B, ldb, C, ldc, m, n, k, va, vb, vc, pin, pout, kc, band,
          false);
      else
        k9_d_kernel<false, S> (odd)<<<grid, S::THREADS, smem, s>>> (
          A, lda, B, ldb, C, ldc, m, n, k, va, vb, vc, NULL, NULL, 0, band,
          false);
    }
  else if (part)
    k9_dmma<T, true><<<grid, K9_THREADS, smem, s>>> (
      A, lda, B, ldb, C, ldc, m, n, k, va, vb, vc, pin, pout, kc, band);
  else
    k9_dmma<T, false><<<grid, K9_THREADS, smem, s>>> (
      A, lda, B, ldb, C, ldc, m, n, k, va, vb, vc, NULL, NULL, 0, band);
  return cudaGetLastError ();
}

extern "C" long long
gt_k9_split_k (int splits, size_t k, long long *kc)
{
  const long long per = gt_ceil_div ((long long) k, splits < 1 ? 1 : splits);
  *kc = gt_ceil_div (per, 32) * 32;
  return *kc > 0 ? gt_ceil_div ((long long) k, *kc) : 1;
}

extern "C" size_t
gt_k9_work_bytes (int splits, size_t m, size_t n, size_t k)
{
  long long kc;
  const long long z = gt_k9_split_k (splits, k, &kc);
  return z > 1 ? (size_t) z * m * n * sizeof (double) : 0;
}

/* C = the sum over z < splits of the m x n matrices of doubles at
   part + z m n, in z order, rounded once.  */
template <typename T>
__global__ void
k9_reduce (const double *__restrict__ part, long long splits, long long m,
           long long n, T *__restrict__ C, size_t ldc)
{
  const long long mn = m * n;
  for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x;
       i < mn; i += (long long) gridDim.x * blockDim.x)
    {
      C[i % m + (size_t) (i / m) * ldc]
        = (T) gt_sum_in_order (part + i, splits, (size_t) mn);
    }
}

/* The double block shape's index in the per-device caches (0 large, 1
   small) from a plan's k9_tile.  */
static int
k9_small_tile (int tile)
{
  return tile == GT_K9_SMALL_TILE;
}

template <typename S>
static int
k9_cluster_max_of (void)
{
  const int sh = S::CACHE;
  return gt_cluster_max (k9_cluster_known[sh],
                         (const void *) k9_dmma_d<true, S>, S::THREADS,
                         S::SMEM, 2);
}

extern "C" int
gt_k9_cluster_max (int tile)
{
  if (!gt_k9_usable ())
    return 0;
  return k9_small_tile (tile) ? k9_cluster_max_of<k9_small> ()
                              : k9_cluster_max_of<k9_large> ();
}

extern "C" int
gt_k9_in_cluster (const gt_plan *p, size_t k)
{
  long long kc;
  return p->type == GT_DOUBLE && p->cluster > 0 && p->splits > 1
         && gt_k9_split_k (p->splits, k, &kc)
              <= gt_k9_cluster_max (p->k9_tile);
}

template <typename S>
static int
k9_cluster_slots_of (int z)
{
  const int sh = S::CACHE;
  return gt_cluster_slots (k9_slots_known[sh][z],
                           (const void *) k9_dmma_d<true, S>, S::THREADS,
                           S::SMEM, 2, z);
}

extern "C" int
gt_k9_cluster_slots (int tile, int z)
{
  if (z < 2 || z > gt_k9_cluster_max (tile))
    return 0;
  return k9_small_tile (tile) ? k9_cluster_slots_of<k9_small> (z)
                              : k9_cluster_slots_of<k9_large> (z);
}

/* Blocks of the doubles' kernel in shape S resident on one SM.  */
template <typename S>
static int
k9_occupancy_of (void)
{
  const int sh = S::CACHE;
  int dev = 0;
  const int seen = gt_device_seen (k9_occupancy_known[sh], &dev);
  if (seen)
    return seen < 0 ? 0 : seen - 1;
  const void *fn = (const void *) k9_dmma_d<true, S>;
  int blocks = 0;
  unsigned char *done = k9_attr_done[k9_which<double, S> ()][1];
  if (gt_allow_smem_once (fn, S::SMEM, done) != cudaSuccess
      || cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks, fn,
                                                        S::THREADS, S::SMEM)
           != cudaSuccess)
    blocks = 0;
  cudaGetLastError ();
  return gt_device_remember (k9_occupancy_known[sh], dev, blocks);
}

extern "C" int
gt_k9_occupancy (int tile)
{
  if (!gt_k9_usable ())
    return 0;
  return k9_small_tile (tile) ? k9_occupancy_of<k9_small> ()
                              : k9_occupancy_of<k9_large> ();
}

/* Doubles with their z pieces of k in one cluster per tile.  */
template <typename S>
static cudaError_t
k9_split_cluster (long long z, long long kc, const double *A, size_t lda,
                  const double *B, size_t ldb, double *C, size_t ldc,
                  size_t m, size_t n, size_t k, cudaStream_t s)
{
  const long long tiles_m = gt_ceil_div (m, S::BM);
  const long long tiles = tiles_m * gt_ceil_div (n, S::BN);
  if (tiles > GT_GRID_X_MAX || k > (size_t) GT_GRID_X_MAX)
    return cudaErrorInvalidValue;
  const int odd = k9_d_odd<S> (A, lda, B, ldb);
  const k9_d_kernel_fn fn = k9_d_kernel<true, S> (odd);
  const cudaError_t err = gt_allow_smem_once (
    (const void *) fn, S::SMEM,
    k9_attr_done[k9_which<double, S> (odd)][1]);
  if (err != cudaSuccess)
    return err;
  return gt_launch_cluster (
    fn, dim3 ((unsigned) tiles, 1, (unsigned) z), S::THREADS, S::SMEM, 2,
    (int) z, s, A, lda, B, ldb, C, ldc, (long long) m, (long long) n,
    (long long) k, k9_aligned (A, lda), k9_aligned (B, ldb),
    k9_aligned (C, ldc), (const double *) NULL, (double *) NULL, kc,
    (int) K9_BAND, true);
}

static size_t
k9_round_256 (size_t bytes)
{
  return (bytes + 255) / 256 * 256;
}

/* Kernel 9 with k split `splits` ways; doubles with `cluster` add the
   pieces within a cluster where this device can (at most
   gt_k9_cluster_max of them), the others through work.  */
template <typename T, typename S = k9_large>
static cudaError_t
k9_split (int splits, int cluster, const T *A, size_t lda, const T *B,
          size_t ldb, T *C, size_t ldc, size_t m, size_t n, size_t k,
          void *work, cudaStream_t s)
{
  long long kc;
  const long long z = gt_k9_split_k (splits, k, &kc);
  if (z <= 1 || m == 0 || n == 0)
    return k9_launch<T, S> (A, lda, B, ldb, C, ldc, m, n, k, NULL, NULL, 1,
                            0, 0, s);
  if constexpr (sizeof (T) == sizeof (double))
    if (cluster > 0)
      {
        /* its plan has no room for partial sums (gt_k9_in_cluster) */
        if (z > k9_cluster_max_of<S> ())
          return cudaErrorInvalidConfiguration;
        return k9_split_cluster<S> (z, kc, A, lda, B, ldb, C, ldc, m, n, k,
                                    s);
      }
  if (!work)
    return cudaErrorInvalidValue;
  double *part = (double *) work;
  cudaError_t err = k9_launch<T, S> (A, lda, B, ldb, C, ldc, m, n, k, NULL,
                                     part, z, kc, 0, s);
  if (err != cudaSuccess)
    return err;
  const long long mn = (long long) m * (long long) n;
  const gt_device_props *d = gt_device_props_current ();
  const long long blocks = gt_min_ll (gt_ceil_div (mn, 256),
                                      (long long) (d ? d->sms : 1) * 16);
  k9_reduce<T><<<(unsigned) blocks, 256, 0, s>>> (part, z, (long long) m,
                                                  (long long) n, C, ldc);
  return cudaGetLastError ();
}

/* The tail: the last `tail` tiles in launch order, the bottom ones of the
   last column of tiles, or (a multiple of the tiles down a column) the
   last whole columns.  0 where they are neither.  */
static int
k9_tail_rect (int tail, size_t m, size_t n, size_t *r0, size_t *c0)
{
  const long long tiles_m = gt_ceil_div (m, K9_BM);
  const long long tiles_n = gt_ceil_div (n, K9_BN);
  if (tail <= 0 || tiles_n < 1 || tiles_m < 1)
    return 0;
  if (tail <= tiles_m)
    {
      *r0 = (size_t) (tiles_m - tail) * K9_BM;
      *c0 = (size_t) (tiles_n - 1) * K9_BN;
      return 1;
    }
  if (tail % tiles_m || tail / tiles_m >= tiles_n)
    return 0;
  *r0 = 0;
  *c0 = (size_t) (tiles_n - tail / tiles_m) * K9_BN;
  return 1;
}

extern "C" size_t
gt_k9_tail_work_bytes (int tail, int splits, size_t m, size_t n, size_t k)
{
  size_t r0, c0;
  if (!k9_tail_rect (tail, m, n, &r0, &c0))
    return 0;
  return gt_k9_work_bytes (splits, m - r0, n - c0, k);
}

template <typename T>
static cudaError_t
k9_tail (int tail, int splits, const T *A, size_t lda, const T *B,
         size_t ldb, T *C, size_t ldc, size_t m, size_t n, size_t k,
         void *work, cudaStream_t s)
{
  size_t r0, c0;
  if (m == 0 || n == 0)
    return cudaSuccess;
  if (!k9_tail_rect (tail, m, n, &r0, &c0))
    return cudaErrorInvalidValue;
  const long long tiles = gt_ceil_div (m, K9_BM) * gt_ceil_div (n, K9_BN);
  cudaError_t err = tiles > tail
    ? k9_launch<T> (A, lda, B, ldb, C, ldc, m, n, k, NULL, NULL, 1, 0,
                    tiles - tail, s)
    : cudaSuccess;
  if (err != cudaSuccess)
    return err;
  return k9_split<T> (splits, 0, A + r0, lda, B + c0 * ldb, ldb,
                      C + r0 + c0 * ldc, ldc, m - r0, n - c0, k, work, s);
}

/* ---- the single-precision entry points (the benchmark's) ---- */

extern "C" cudaError_t
gt_k9_dmma_part (const float *A, size_t lda, const float *B, size_t ldb,
                 float *C, size_t ldc, size_t m, size_t n, size_t k,
                 const double *pin, double *pout, cudaStream_t s)
{
  return k9_launch<float> (A, lda, B, ldb, C, ldc, m, n, k, pin, pout, 1, 0,
                           0, s);
}

extern "C" cudaError_t
gt_k9_dmma (const float *A, size_t lda, const float *B, size_t ldb, float *C,
            size_t ldc, size_t m, size_t n, size_t k, cudaStream_t s)
{
  return k9_launch<float> (A, lda, B, ldb, C, ldc, m, n, k, NULL, NULL, 1, 0,
                           0, s);
}

extern "C" cudaError_t
gt_k9_dmma_split (int splits, const float *A, size_t lda, const float *B,
                  size_t ldb, float *C, size_t ldc, size_t m, size_t n,
                  size_t k, void *work, cudaStream_t s)
{
  return k9_split<float> (splits, 0, A, lda, B, ldb, C, ldc, m, n, k, work,
                          s);
}

extern "C" cudaError_t
gt_k9_dmma_tail (int tail, int splits, const float *A, size_t lda,
                 const float *B, size_t ldb, float *C, size_t ldc, size_t m,
                 size_t n, size_t k, void *work, cudaStream_t s)
{
  return k9_tail<float> (tail, splits, A, lda, B, ldb, C, ldc, m, n, k, work,
                         s);
}

/* ---- the registry row: single and double ---- */

extern "C" size_t
gt_k9_repack_bytes (size_t m, size_t n, size_t k)
{
  return k9_round_256 (gt_ld_16 (8, m) * k * 8)
         + k9_round_256 (gt_ld_16 (8, k) * n * 8);
}

extern "C" size_t
gt_k9_row_work (const gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  (void) repack;
  const size_t copies = p->repacked ? gt_k9_repack_bytes (m, n, k) : 0;
#ifdef GT_K9_STREAMK
  if (p->streamk)
    return copies + gt_k9_stream_work_bytes (p->k9_tile, m, n);
#endif
  if (p->splits > 1)
    return copies + (gt_k9_in_cluster (p, k)
                     ? 0 : gt_k9_work_bytes (p->splits, m, n, k));
  return copies + (p->tail > 0
                   ? gt_k9_tail_work_bytes (p->tail, p->tail_splits, m, n, k)
                   : 0);
}

/* A (m x k) and B (k x n) to the front of the scratch with 16-byte
   columns (plans with `repacked`, doubles only); *w moves past them.  */
template <typename T>
static cudaError_t
k9_repack (const T **A, size_t *lda, const T **B, size_t *ldb, size_t m,
           size_t n, size_t k, char **w, cudaStream_t s)
{
  const size_t es = sizeof (T), la = gt_ld_16 (es, m), lb = gt_ld_16 (es, k);
  cudaError_t err = cudaMemcpy2DAsync (*w, la * es, *A, *lda * es, m * es, k,
                                       cudaMemcpyDeviceToDevice, s);
  if (err != cudaSuccess)
    return err;
  *A = (const T *) *w;
  *lda = la;
  *w += k9_round_256 (la * k * es);
  err = cudaMemcpy2DAsync (*w, lb * es, *B, *ldb * es, k * es, n,
                           cudaMemcpyDeviceToDevice, s);
  *B = (const T *) *w;
  *ldb = lb;
  *w += k9_round_256 (lb * n * es);
  return err;
}

#ifdef GT_K9_STREAMK
/* Doubles by stream-K, a step the default path does not take: defined by
   bench/kernels/gt_k9_stream.cu, which includes this file and builds it
   for the benchmark alone.  */
template <typename S>
static cudaError_t k9_stream (const double *A, size_t lda, const double *B,
                              size_t ldb, double *C, size_t ldc, size_t m,
                              size_t n, size_t k, void *work,
                              cudaStream_t s);
#endif

template <typename T>
static cudaError_t
k9_row (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  const T *A = (const T *) a->A, *B = (const T *) a->B;
  size_t lda = a->lda, ldb = a->ldb;
  T *C = (T *) a->C;
  char *w = (char *) a->work;
  if (p->repacked && sizeof (T) == 8 && a->m && a->n && a->k)
    {
      if (!w)
        return cudaErrorInvalidValue;
      const cudaError_t err = k9_repack<T> (&A, &lda, &B, &ldb, a->m, a->n,
                                            a->k, &w, s);
      if (err != cudaSuccess)
        return err;
    }
  if constexpr (sizeof (T) == sizeof (double))
    {
      if (p->streamk)
#ifdef GT_K9_STREAMK
        return k9_small_tile (p->k9_tile)
               ? k9_stream<k9_small> (A, lda, B, ldb, C, a->ldc, a->m, a->n,
                                      a->k, w, s)
               : k9_stream<k9_large> (A, lda, B, ldb, C, a->ldc, a->m, a->n,
                                      a->k, w, s);
#else
        return cudaErrorNotSupported;
#endif
      if (k9_small_tile (p->k9_tile))
        return k9_split<T, k9_small> (p->splits, p->cluster, A, lda, B, ldb, C,
                                      a->ldc, a->m, a->n, a->k, w, s);
    }
  if (p->splits > 1)
    return k9_split<T> (p->splits, p->cluster, A, lda, B, ldb, C, a->ldc,
                        a->m, a->n, a->k, w, s);
  if (p->tail > 0)
    return k9_tail<T> (p->tail, p->tail_splits, A, lda, B, ldb, C, a->ldc,
                       a->m, a->n, a->k, w, s);
  return k9_launch<T> (A, lda, B, ldb, C, a->ldc, a->m, a->n, a->k, NULL,
                       NULL, 1, 0, 0, s);
}

extern "C" cudaError_t
gt_k9_row_launch (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  return p->type == GT_DOUBLE ? k9_row<double> (p, a, s)
                              : k9_row<float> (p, a, s);
}

/* A piece of k of a kernel 9 product, its sums carried in pin/pout.  */
extern "C" cudaError_t
gt_k9_row_piece (const gt_plan *p, const gt_gemm_args *a, const double *pin,
                 double *pout, cudaStream_t s)
{
  if (p->type == GT_DOUBLE)
    return k9_launch<double> ((const double *) a->A, a->lda,
                              (const double *) a->B, a->ldb, (double *) a->C,
                              a->ldc, a->m, a->n, a->k, pin, pout, 1, 0, 0,
                              s);
  return k9_launch<float> ((const float *) a->A, a->lda,
                           (const float *) a->B, a->ldb, (float *) a->C,
                           a->ldc, a->m, a->n, a->k, pin, pout, 1, 0, 0, s);
}
