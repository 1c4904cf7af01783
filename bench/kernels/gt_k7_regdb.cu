/* Kernel 7: register double buffering.  A 128x128 block tile, 256 threads
   each holding 8x8 of C, BK = 8, two shared stages.  Two changes from the
   register tile of kernels 3-5 (gt_tile.cuh):

   - The fragments are double-buffered in registers: the shared reads for
     step k+1 are issued before the FMAs of step k, so their latency hides
     behind 64 FMAs instead of stalling the warp (the profile of kernel 4
     showed warps waiting on shared loads).
   - B is transposed on its way to shared memory (Bs[k][n], rows padded to
     132 floats so the transposing stores are conflict-free), so a thread
     reads its 8 columns of B for one k as two float4s, as it reads A:
     4 shared loads per 64 FMAs.  Global loads therefore go through
     registers (issued at the start of a stage, stored at its end) instead
     of cp.async.

   Operands need not be aligned: unaligned ones are read element by
   element.  The dispatcher does not pick this kernel; the benchmark
   measures it as a step (bench/RESULTS.md).  */

#include "gt_bench_kernels.h"
#include "gt_launch.cuh"

#define K7_BM 128
#define K7_BN 128
#define K7_BK 8
#define K7_LDB (K7_BN + 4)

/* A thread's share of filling a stage: 4 rows of A in one column, and 4
   rows of k in one column of B.  Counters are 32-bit (the launcher
   refuses k >= 2^31) to keep the loader within the register budget.  */
struct k7_loader
{
  const float *a, *b;      /* this thread's next A and B pieces */
  int a_rows;              /* rows of A at and after this thread's 4 */
  int ka_left, kb_left;    /* k left from this thread's next A column and
                              first B row (<= 0: past the end, or the
                              thread's rows or column are outside) */
  float4 ra, rb;           /* the staged stage */

  __device__ __forceinline__ void
  fetch (size_t a_step, bool va, bool vb)
  {
    ra = gt_ldg4 (a, ka_left > 0 ? a_rows : 0, va);
    rb = gt_ldg4 (b, kb_left, vb);
    /* Pointers of threads outside the matrix move too but are never
       read through.  */
    a += a_step;
    b += K7_BK;
    ka_left -= K7_BK;
    kb_left -= K7_BK;
  }
};

/* MINB: resident blocks per SM the registers are capped for: 2 caps them
   at 128 (ptxas: 4 bytes spilled), 1 leaves the compiler its 155.  One
   piece of 110 lines, as the step it measures was written: the register
   double buffer spans the whole loop.  */
template <int MINB>
__global__ void __launch_bounds__ (256, MINB)
k7_regdb (const float *__restrict__ A, size_t lda,
          const float *__restrict__ B, size_t ldb,
          float *__restrict__ C, size_t ldc,
          long long m, long long n, long long k, bool va, bool vb, bool vc)
{
  __shared__ __align__ (16) float As[2][K7_BK][K7_BM];
  __shared__ __align__ (16) float Bs[2][K7_BK][K7_LDB];
  const int tid = threadIdx.x;
  const long long m0 = (long long) blockIdx.x * K7_BM;
  const long long n0 = (long long) blockIdx.y * K7_BN;

  /* Loading: A by k row (tid / 32) and 4 rows of m; B by column (tid / 2)
     and 4 rows of k.  */
  const int la_k = tid / 32, la_m = (tid % 32) * 4;
  const int lb_n = tid / 2, lb_k = (tid % 2) * 4;
  k7_loader ld;
  const long long rows = m - (m0 + la_m);
  ld.a_rows = rows > 4 ? 4 : (int) (rows > 0 ? rows : 0);
  ld.a = ld.a_rows > 0 ? A + (m0 + la_m) + (size_t) la_k * lda : A;
  ld.ka_left = ld.a_rows > 0 ? (int) k - la_k : 0;
  const bool b_in = n0 + lb_n < n;
  ld.b = b_in ? B + lb_k + (size_t) (n0 + lb_n) * ldb : B;
  ld.kb_left = b_in ? (int) k - lb_k : 0;
  const size_t a_step = K7_BK * lda;

  /* Computing: 8 warps as 2 (m) x 4 (n), warp tiles of 64 x 32; a lane
     holds rows wm + lm*4 + {0..3, 32..35} and columns
     wn + ln*4 + {0..3, 16..19}.  */
  const int warp = tid / 32, lane = tid % 32;
  const int wm = (warp % 2) * 64, wn = (warp / 2) * 32;
  const int rm = wm + (lane % 8) * 4, rn = wn + (lane / 8) * 4;

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; i++)
#pragma unroll
    for (int j = 0; j < 8; j++)
      acc[i][j] = 0.0f;
  float a[2][8], b[2][8];

  const int nt = (int) ((k + K7_BK - 1) / K7_BK);
  ld.fetch (a_step, va, vb);
  *reinterpret_cast<float4 *> (&As[0][la_k][la_m]) = ld.ra;
  Bs[0][lb_k][lb_n] = ld.rb.x;
  Bs[0][lb_k + 1][lb_n] = ld.rb.y;
  Bs[0][lb_k + 2][lb_n] = ld.rb.z;
  Bs[0][lb_k + 3][lb_n] = ld.rb.w;
  __syncthreads ();

#define K7_FRAG(buf, kk, r)                                                 \
  do {                                                                      \
    gt_lds4 (&a[r][0], &As[buf][kk][rm]);                                   \
    gt_lds4 (&a[r][4], &As[buf][kk][rm + 32]);                              \
    gt_lds4 (&b[r][0], &Bs[buf][kk][rn]);                                   \
    gt_lds4 (&b[r][4], &Bs[buf][kk][rn + 16]);                              \
  } while (0)

  K7_FRAG (0, 0, 0);
  for (int t = 0; t < nt; t++)
    {
      const int cur = t & 1;
      const bool more = t + 1 < nt;
      if (more)
        ld.fetch (a_step, va, vb);   /* lands while this stage is multiplied */
#pragma unroll
      for (int kk = 0; kk < K7_BK; kk++)
        {
          if (kk < K7_BK - 1)
            K7_FRAG (cur, kk + 1, (kk + 1) & 1);
          else if (more)
            {
              /* The other stage was last read before the barrier of the
                 previous stage's end, so it is free to fill.  */
              *reinterpret_cast<float4 *> (&As[cur ^ 1][la_k][la_m]) = ld.ra;
              Bs[cur ^ 1][lb_k][lb_n] = ld.rb.x;
              Bs[cur ^ 1][lb_k + 1][lb_n] = ld.rb.y;
              Bs[cur ^ 1][lb_k + 2][lb_n] = ld.rb.z;
              Bs[cur ^ 1][lb_k + 3][lb_n] = ld.rb.w;
              __syncthreads ();
              K7_FRAG (cur ^ 1, 0, 0);
            }
          const int r = kk & 1;
#pragma unroll
          for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < 8; j++)
              acc[i][j] = fmaf (a[r][i], b[r][j], acc[i][j]);
        }
    }
#undef K7_FRAG

  /* Row group g (0, 1) of 4 rows at rm + 32 g; column j at rn + j for
     j < 4, rn + 12 + j after.  */
#pragma unroll
  for (int j = 0; j < 8; j++)
    {
      const long long col = n0 + rn + (j < 4 ? j : 12 + j);
      if (col >= n)
        continue;
#pragma unroll
      for (int g = 0; g < 2; g++)
        {
          const long long row = m0 + rm + 32 * g;
          gt_store_col4 (C + row + (size_t) col * ldc, m - row, vc,
                         acc[4 * g][j], acc[4 * g + 1][j], acc[4 * g + 2][j],
                         acc[4 * g + 3][j]);
        }
    }
}

extern "C" cudaError_t
gt_k7_regdb (int min_blocks, const float *A, size_t lda, const float *B,
             size_t ldb, float *C, size_t ldc, size_t m, size_t n, size_t k,
             cudaStream_t s)
{
  if (min_blocks != 1 && min_blocks != 2)
    return cudaErrorInvalidValue;
  if (m == 0 || n == 0)
    return cudaSuccess;
  const long long tiles_m = gt_ceil_div (m, K7_BM);
  const long long tiles_n = gt_ceil_div (n, K7_BN);
  if (tiles_m > GT_GRID_X_MAX || tiles_n > GT_GRID_YZ_MAX
      || k > (size_t) GT_GRID_X_MAX)
    return cudaErrorInvalidValue;
  dim3 grid ((unsigned) tiles_m, (unsigned) tiles_n);
  const bool va = gt_aligned16 (A, lda), vb = gt_aligned16 (B, ldb);
  const bool vc = gt_aligned16 (C, ldc);
  if (min_blocks == 2)
    k7_regdb<2><<<grid, 256, 0, s>>> (A, lda, B, ldb, C, ldc, m, n, k, va,
                                      vb, vc);
  else
    k7_regdb<1><<<grid, 256, 0, s>>> (A, lda, B, ldb, C, ldc, m, n, k, va,
                                      vb, vc);
  return cudaGetLastError ();
}
