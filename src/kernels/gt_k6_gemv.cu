/* Kernel 6: products with a vector side (m == 1 or n == 1).  Each matrix
   element is read once and used for two flops, so memory bandwidth is the
   limit, and a 128x128 tile would waste 127/128 of its work.  k is split
   across grid.y so that enough blocks stream the matrix; the partial sums
   go to scratch and gt_k5_reduce adds them in split order.

   n == 1 (y = A*x): a warp covers 128 rows (4 per lane, 16-byte loads down
   a column, coalesced); the 8 warps of a block take interleaved columns of
   the block's piece of k and meet in shared memory.
   m == 1 (y' = x'*B): a warp owns a column of B (contiguous in k) and
   reduces across its lanes.  */

#include "gt_kernels.h"
#include "gt_launch.cuh"

#define K6_THREADS 256
#define K6_WARPS (K6_THREADS / 32)
#define K6_ROWS 128                 /* rows per block, n == 1 */
#define K6_COLS K6_WARPS            /* columns per block, m == 1 */
#define K6_TRIP 4                   /* columns per warp per trip, n == 1 */

__global__ void __launch_bounds__ (K6_THREADS)
k6_gemv_n1 (const float *__restrict__ A, size_t lda,
            const float *__restrict__ x, float *__restrict__ y,
            long long m, long long k, long long kchunk, float *partial,
            bool va)
{
  __shared__ float4 red[K6_WARPS][32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const long long row = (long long) blockIdx.x * K6_ROWS + lane * 4;
  const long long p0 = blockIdx.y * kchunk;
  const long long p1 = p0 + kchunk < k ? p0 + kchunk : k;
  float4 acc = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
  if (va && row + 3 < m)
    {
      long long p = p0 + warp;
      /* K6_TRIP columns per trip per warp keep loads in flight (two left
         the H100 at 2 TB/s at 4096x4096).  */
      for (; p + (K6_TRIP - 1) * K6_WARPS < p1; p += K6_TRIP * K6_WARPS)
        {
          float4 v[K6_TRIP];
          float xs[K6_TRIP];
#pragma unroll
          for (int t = 0; t < K6_TRIP; t++)
            {
              v[t] = __ldg (reinterpret_cast<const float4 *>
                              (A + row + (p + t * K6_WARPS) * lda));
              xs[t] = __ldg (x + p + t * K6_WARPS);
            }
#pragma unroll
          for (int t = 0; t < K6_TRIP; t++)
            {
              acc.x = fmaf (v[t].x, xs[t], acc.x);
              acc.y = fmaf (v[t].y, xs[t], acc.y);
              acc.z = fmaf (v[t].z, xs[t], acc.z);
              acc.w = fmaf (v[t].w, xs[t], acc.w);
            }
        }
      for (; p < p1; p += K6_WARPS)
        {
          const float4 v = __ldg (reinterpret_cast<const float4 *>
                                    (A + row + p * lda));
          const float xs = __ldg (x + p);
          acc.x = fmaf (v.x, xs, acc.x); acc.y = fmaf (v.y, xs, acc.y);
          acc.z = fmaf (v.z, xs, acc.z); acc.w = fmaf (v.w, xs, acc.w);
        }
    }
  else
    for (long long p = p0 + warp; p < p1; p += K6_WARPS)
      {
        const float xs = __ldg (x + p);
        const float *a = A + row + p * lda;
        if (row < m) acc.x = fmaf (__ldg (a), xs, acc.x);
        if (row + 1 < m) acc.y = fmaf (__ldg (a + 1), xs, acc.y);
        if (row + 2 < m) acc.z = fmaf (__ldg (a + 2), xs, acc.z);
        if (row + 3 < m) acc.w = fmaf (__ldg (a + 3), xs, acc.w);
      }
  red[warp][lane] = acc;
  __syncthreads ();
  if (warp != 0)
    return;
  for (int w = 1; w < K6_WARPS; w++)
    {
      const float4 v = red[w][lane];
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
  float *out = gridDim.y == 1 ? y : partial + blockIdx.y * m;
  const float r[4] = { acc.x, acc.y, acc.z, acc.w };
#pragma unroll
  for (int e = 0; e < 4; e++)
    if (row + e < m)
      out[row + e] = r[e];
}

__global__ void __launch_bounds__ (K6_THREADS)
k6_gemv_m1 (const float *__restrict__ x, size_t incx,
            const float *__restrict__ B, size_t ldb, float *__restrict__ y,
            size_t incy, long long n, long long k, long long kchunk,
            float *partial, bool vb)
{
  const int lane = threadIdx.x % 32;
  const long long col = (long long) blockIdx.x * K6_COLS + threadIdx.x / 32;
  const long long p0 = blockIdx.y * kchunk;
  const long long p1 = p0 + kchunk < k ? p0 + kchunk : k;
  if (col >= n)
    return;
  const float *b = B + col * ldb;
  float acc = 0.0f;
  long long tail = p0;
  if (vb)
    {
      /* Whole 128-element pieces as one float4 per lane.  */
      const long long full = p0 + (p1 - p0) / 128 * 128;
      for (long long p = p0 + lane * 4; p < full; p += 128)
        {
          const float4 v = __ldg (reinterpret_cast<const float4 *> (b + p));
          acc = fmaf (v.x, __ldg (x + p * incx), acc);
          acc = fmaf (v.y, __ldg (x + (p + 1) * incx), acc);
          acc = fmaf (v.z, __ldg (x + (p + 2) * incx), acc);
          acc = fmaf (v.w, __ldg (x + (p + 3) * incx), acc);
        }
      tail = full;
    }
  for (long long q = tail + lane; q < p1; q += 32)
    acc = fmaf (__ldg (b + q), __ldg (x + q * incx), acc);
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    acc += __shfl_down_sync (0xffffffffu, acc, off);
  if (lane == 0)
    {
      if (gridDim.y == 1)
        y[col * incy] = acc;
      else
        partial[blockIdx.y * n + col] = acc;
    }
}

extern "C" size_t
gt_k6_work_bytes (int splits, size_t m, size_t n)
{
  if (splits <= 1)
    return 0;
  return (size_t) splits * (m == 1 ? n : m) * sizeof (float);
}

extern "C" cudaError_t
gt_k6_gemv (int splits, const float *A, size_t lda, const float *B,
            size_t ldb, float *C, size_t ldc, size_t m, size_t n, size_t k,
            void *work, cudaStream_t s)
{
  if (m == 0 || n == 0)
    return cudaSuccess;
  if ((m != 1 && n != 1) || splits < 1 || splits > GT_GRID_YZ_MAX)
    return cudaErrorInvalidValue;
  /* Pieces of k are whole multiples of 128 so 16-byte loads stay aligned. */
  long long kchunk = gt_ceil_div (gt_ceil_div (k, splits), 128) * 128;
  if (kchunk == 0)
    kchunk = 128;
  splits = (int) gt_ceil_div (k > 0 ? k : 1, kchunk);
  if (splits > 1 && work == NULL)
    return cudaErrorInvalidValue;
  float *partial = (float *) work;
  const bool by_rows = n == 1 && m > 1;
  const long long blocks = by_rows ? gt_ceil_div (m, K6_ROWS)
                                   : gt_ceil_div (n, K6_COLS);
  if (blocks > GT_GRID_X_MAX)
    return cudaErrorInvalidValue;
  dim3 grid ((unsigned) blocks, (unsigned) splits);
  if (by_rows)
    k6_gemv_n1<<<grid, K6_THREADS, 0, s>>> (
      A, lda, B, C, m, k, kchunk, partial,
      gt_aligned16 (A, lda));
  else
    /* m == 1; with n == 1 too this is a dot product.  x = A is a row with
       stride lda, y = C a row with stride ldc.  */
    k6_gemv_m1<<<grid, K6_THREADS, 0, s>>> (
      A, lda, B, ldb, C, ldc, n, k, kchunk, partial,
      gt_aligned16 (B, ldb));
  cudaError_t err = cudaGetLastError ();
  if (err != cudaSuccess || splits == 1)
    return err;
  return by_rows ? gt_k5_reduce (splits, partial, m, 1, C, ldc, s)
                 : gt_k5_reduce (splits, partial, 1, n, C, ldc, s);
}

extern "C" size_t
gt_k6_row_work (const gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  (void) k;
  (void) repack;
  return gt_k6_work_bytes (p->splits, m, n);
}

extern "C" cudaError_t
gt_k6_row_launch (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  return gt_k6_gemv (p->splits, (const float *) a->A, a->lda,
                     (const float *) a->B, a->ldb, (float *) a->C, a->ldc,
                     a->m, a->n, a->k, a->work, s);
}
