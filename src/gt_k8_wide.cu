/* Kernel 8: 16x8 per thread with the register banks in mind.

   Nsight Compute on kernels 4 and 7 against cuBLAS at 4096^3 (H200,
   bench/RESULTS.md) put the gap in "dispatch stall": an FFMA whose two
   register sources that do not come from the operand reuse cache sit in
   the same register bank (register number mod 2) waits a cycle.  In
   kernel 7, 67% of the FFMAs had such a pair (tools/ffma-banks reads it
   from the cubin); cuBLAS's SGEMM shows almost no dispatch stall.

   So this kernel keeps kernel 7's register double buffering and
   transposed B, and changes two things:

   - 16x8 of C per thread (a 128x128 block tile of 128 threads, two
     blocks per SM at up to 255 registers): 24 shared reads feed 128 FMAs
     instead of 16 for 64, and each FMA's two bank-sensitive sources are
     an accumulator and one fragment value.
   - The FMAs of one k step go column by column of the thread's tile
     (b[j] from the reuse cache), and the accumulators of a column are
     named so that the compiler keeps each one in place: acc[j][i], with
     the 16 rows of column j consecutive.  Rows from one 16-byte shared
     read sit in consecutive registers, so a[i] and acc[j][i] alternate
     banks together... unless the compiler offsets them by one; which
     order avoids the pairs is measured, not assumed (ffma-banks).

   Operands need not be aligned: unaligned ones are read element by
   element.  */

#include "gt_gemm.h"
#include "gt_launch.cuh"

#define K8_BM 128
#define K8_BN 128
#define K8_BK 8
#define K8_THREADS 128

/* A thread's share of filling a stage: 8 rows of A in one column of k,
   and 8 rows of k in one column of B.  Counters are 32-bit (the launcher
   refuses k >= 2^31).  */
struct k8_loader
{
  const float *a, *b;      /* this thread's next A and B pieces */
  int a_rows;              /* rows of A at and after this thread's 8 */
  int ka_left, kb_left;    /* k left from this thread's next A column and
                              first B row (<= 0: past the end, or the
                              thread's rows or column are outside) */
  float4 ra0, ra1, rb0, rb1;

  __device__ __forceinline__ static void
  get4 (float4 &v, const float *p, int have, bool vec)
  {
    v = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
    if (vec && have >= 4)
      v = __ldg (reinterpret_cast<const float4 *> (p));
    else
      {
        if (have > 0) v.x = __ldg (p);
        if (have > 1) v.y = __ldg (p + 1);
        if (have > 2) v.z = __ldg (p + 2);
        if (have > 3) v.w = __ldg (p + 3);
      }
  }

  /* ASYNC_A: A's 8 rows go straight to shared memory (cp.async, zero
     fill past the edges) instead of through ra0/ra1.  */
  template <bool ASYNC_A>
  __device__ __forceinline__ void
  fetch (size_t a_step, bool va, bool vb, float *as)
  {
    const int ar = ka_left > 0 ? a_rows : 0;
    if (ASYNC_A)
      {
        const int b0 = ar >= 4 ? 16 : (ar > 0 ? 4 * ar : 0);
        const int b1 = ar >= 8 ? 16 : (ar > 4 ? 4 * (ar - 4) : 0);
        gt_cp_async16_n (as, a, b0);
        gt_cp_async16_n (as + 4, b1 ? a + 4 : a, b1);
        gt_cp_async_commit ();
      }
    else
      {
        get4 (ra0, a, ar, va);
        get4 (ra1, a + 4, ar - 4, va);
      }
    get4 (rb0, b, kb_left, vb);
    get4 (rb1, b + 4, kb_left - 4, vb);
    /* Pointers of threads outside the matrix move too but are never
       read through.  */
    a += a_step;
    b += K8_BK;
    ka_left -= K8_BK;
    kb_left -= K8_BK;
  }
};

template <int ORDER, bool ASYNC_A>
__global__ void __launch_bounds__ (K8_THREADS, 2)
k8_wide (const float *__restrict__ A, size_t lda,
         const float *__restrict__ B, size_t ldb,
         float *__restrict__ C, size_t ldc,
         long long m, long long n, long long k, bool va, bool vb, bool vc)
{
  __shared__ __align__ (16) float As[2][K8_BK][K8_BM];
  __shared__ __align__ (16) float Bs[2][K8_BK][K8_BN];
  const int tid = threadIdx.x;
  const long long m0 = (long long) blockIdx.x * K8_BM;
  const long long n0 = (long long) blockIdx.y * K8_BN;

  /* Loading: A by k row (tid / 16) and 8 rows of m; B by column (tid)
     and all 8 rows of k.  */
  const int la_k = tid / 16, la_m = (tid % 16) * 8;
  const int lb_n = tid;
  k8_loader ld;
  const long long rows = m - (m0 + la_m);
  ld.a_rows = rows > 8 ? 8 : (int) (rows > 0 ? rows : 0);
  ld.a = ld.a_rows > 0 ? A + (m0 + la_m) + (size_t) la_k * lda : A;
  ld.ka_left = ld.a_rows > 0 ? (int) k - la_k : 0;
  const bool b_in = n0 + lb_n < n;
  ld.b = b_in ? B + (size_t) (n0 + lb_n) * ldb : B;
  ld.kb_left = b_in ? (int) k : 0;
  const size_t a_step = K8_BK * lda;

  /* Computing: 4 warps as 2 (m) x 2 (n), warp tiles of 64 x 64; a lane
     holds rows wm + lm*4 + 16g + {0..3} (g < 4) and columns
     wn + ln*4 + 32h + {0..3} (h < 2).  */
  const int warp = tid / 32, lane = tid % 32;
  const int wm = (warp % 2) * 64, wn = (warp / 2) * 64;
  const int rm = wm + (lane % 4) * 4, rn = wn + (lane / 4) * 4;

  float acc[8][16];        /* acc[j][i]: column j, row i of the thread */
#pragma unroll
  for (int j = 0; j < 8; j++)
#pragma unroll
    for (int i = 0; i < 16; i++)
      acc[j][i] = 0.0f;
  float a[2][16], b[2][8];

  const int nt = (int) ((k + K8_BK - 1) / K8_BK);
#define K8_STORE(buf)                                                       \
  do {                                                                      \
    if (ASYNC_A)                                                            \
      gt_cp_async_wait<0> ();                                               \
    else                                                                    \
      {                                                                     \
        *reinterpret_cast<float4 *> (&As[buf][la_k][la_m]) = ld.ra0;        \
        *reinterpret_cast<float4 *> (&As[buf][la_k][la_m + 4]) = ld.ra1;    \
      }                                                                     \
    Bs[buf][0][lb_n] = ld.rb0.x; Bs[buf][1][lb_n] = ld.rb0.y;               \
    Bs[buf][2][lb_n] = ld.rb0.z; Bs[buf][3][lb_n] = ld.rb0.w;               \
    Bs[buf][4][lb_n] = ld.rb1.x; Bs[buf][5][lb_n] = ld.rb1.y;               \
    Bs[buf][6][lb_n] = ld.rb1.z; Bs[buf][7][lb_n] = ld.rb1.w;               \
  } while (0)
#define K8_FRAG(buf, kk, r)                                                 \
  do {                                                                      \
    _Pragma ("unroll")                                                      \
    for (int g = 0; g < 4; g++)                                             \
      {                                                                     \
        const float4 v =                                                    \
          *reinterpret_cast<const float4 *> (&As[buf][kk][rm + 16 * g]);    \
        a[r][4 * g] = v.x; a[r][4 * g + 1] = v.y;                           \
        a[r][4 * g + 2] = v.z; a[r][4 * g + 3] = v.w;                       \
      }                                                                     \
    _Pragma ("unroll")                                                      \
    for (int h = 0; h < 2; h++)                                             \
      {                                                                     \
        const float4 v =                                                    \
          *reinterpret_cast<const float4 *> (&Bs[buf][kk][rn + 32 * h]);    \
        b[r][4 * h] = v.x; b[r][4 * h + 1] = v.y;                           \
        b[r][4 * h + 2] = v.z; b[r][4 * h + 3] = v.w;                       \
      }                                                                     \
  } while (0)

  ld.fetch<ASYNC_A> (a_step, va, vb, &As[0][la_k][la_m]);
  K8_STORE (0);
  __syncthreads ();
  K8_FRAG (0, 0, 0);
  for (int t = 0; t < nt; t++)
    {
      const int cur = t & 1;
      const bool more = t + 1 < nt;
      if (more)
        ld.fetch<ASYNC_A> (a_step, va, vb, &As[cur ^ 1][la_k][la_m]);
                           /* lands while this stage is multiplied */
#pragma unroll
      for (int kk = 0; kk < K8_BK; kk++)
        {
          if (kk < K8_BK - 1)
            K8_FRAG (cur, kk + 1, (kk + 1) & 1);
          else if (more)
            {
              /* The other stage was last read before the barrier of the
                 previous stage's end, so it is free to fill.  */
              K8_STORE (cur ^ 1);
              __syncthreads ();
              K8_FRAG (cur ^ 1, 0, 0);
            }
          const int r = kk & 1;
          if (ORDER == 0)
            {
#pragma unroll
              for (int j = 0; j < 8; j++)
#pragma unroll
                for (int i = 0; i < 16; i++)
                  acc[j][i] = fmaf (a[r][i], b[r][j], acc[j][i]);
            }
          else if (ORDER == 1)
            {
#pragma unroll
              for (int i = 0; i < 16; i++)
#pragma unroll
                for (int j = 0; j < 8; j++)
                  acc[j][i] = fmaf (a[r][i], b[r][j], acc[j][i]);
            }
          else if (ORDER == 3)
            {
#pragma unroll
              for (int i = 0; i < 16; i++)
#pragma unroll
                for (int jj = 0; jj < 8; jj++)
                  {
                    const int j = (i & 1) ? 7 - jj : jj;
                    acc[j][i] = fmaf (a[r][i], b[r][j], acc[j][i]);
                  }
            }
          else if (ORDER == 4)
            {
              /* 2x2 blocks */
#pragma unroll
              for (int j = 0; j < 8; j += 2)
#pragma unroll
                for (int i = 0; i < 16; i += 2)
                  {
                    acc[j][i] = fmaf (a[r][i], b[r][j], acc[j][i]);
                    acc[j][i + 1] = fmaf (a[r][i + 1], b[r][j], acc[j][i + 1]);
                    acc[j + 1][i + 1] = fmaf (a[r][i + 1], b[r][j + 1], acc[j + 1][i + 1]);
                    acc[j + 1][i] = fmaf (a[r][i], b[r][j + 1], acc[j + 1][i]);
                  }
            }
          else
            {
              /* Zig-zag: down a column, back up the next, so that
                 consecutive FMAs share a or b.  */
#pragma unroll
              for (int j = 0; j < 8; j++)
#pragma unroll
                for (int ii = 0; ii < 16; ii++)
                  {
                    const int i = (j & 1) ? 15 - ii : ii;
                    acc[j][i] = fmaf (a[r][i], b[r][j], acc[j][i]);
                  }
            }
        }
    }
#undef K8_FRAG
#undef K8_STORE

  /* Row group g of 4 rows at rm + 16 g; column j at rn + j for j < 4,
     rn + 28 + j after.  */
#pragma unroll
  for (int j = 0; j < 8; j++)
    {
      const long long col = n0 + rn + (j < 4 ? j : 28 + j);
      if (col >= n)
        continue;
#pragma unroll
      for (int g = 0; g < 4; g++)
        {
          const long long row = m0 + rm + 16 * g;
          float *d = C + row + (size_t) col * ldc;
          if (vc && row + 3 < m)
            *reinterpret_cast<float4 *> (d) =
              make_float4 (acc[j][4 * g], acc[j][4 * g + 1],
                           acc[j][4 * g + 2], acc[j][4 * g + 3]);
          else
#pragma unroll
            for (int r = 0; r < 4; r++)
              if (row + r < m)
                d[r] = acc[j][4 * g + r];
        }
    }
}

extern "C" cudaError_t
gt_k8_wide (int order, const float *A, size_t lda, const float *B,
            size_t ldb, float *C, size_t ldc, size_t m, size_t n, size_t k,
            cudaStream_t s)
{
  if (m == 0 || n == 0)
    return cudaSuccess;
  const long long tiles_m = gt_ceil_div (m, K8_BM);
  const long long tiles_n = gt_ceil_div (n, K8_BN);
  if (tiles_m > 0x7fffffffLL || tiles_n > 65535 || k > 0x7fffffffULL)
    return cudaErrorInvalidValue;
  dim3 grid ((unsigned) tiles_m, (unsigned) tiles_n);
  const bool va = gt_aligned16 (A, lda), vb = gt_aligned16 (B, ldb);
  const bool vc = gt_aligned16 (C, ldc);
  /* order & 7: the FMA order; order & 8: A by cp.async (aligned A only).  */
#define K8_CASE(o, as)                                                      \
  k8_wide<o, as><<<grid, K8_THREADS, 0, s>>> (A, lda, B, ldb, C, ldc, m, n, \
                                              k, va, vb, vc)
  const bool async_a = (order & 8) && va;
  switch ((order & 7) + (async_a ? 8 : 0))
    {
    case 0: K8_CASE (0, false); break;
    case 3: K8_CASE (3, false); break;
    case 4: K8_CASE (4, false); break;
    case 8: K8_CASE (0, true); break;
    case 11: K8_CASE (3, true); break;
    case 12: K8_CASE (4, true); break;
    default: return cudaErrorInvalidValue;
    }
#undef K8_CASE
  return cudaGetLastError ();
}
