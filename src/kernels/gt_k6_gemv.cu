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

#include <cooperative_groups.h>
#include "gt_kernels.h"
#include "gt_launch.cuh"

namespace cg = cooperative_groups;

#define K6_THREADS 256
#define K6_WARPS (K6_THREADS / 32)
#define K6_ROWS 128                 /* rows per block, n == 1 */
#define K6_COLS K6_WARPS            /* columns per block, m == 1 */
#define K6_TRIP 4                   /* columns per warp per trip, n == 1 */

/* One warp's sums of its 128 rows (4 per lane) over its columns of
   [p0, p1): columns p0 + warp, then every K6_WARPS-th.  */
static __device__ float4
k6_rows_partial (const float *__restrict__ A, size_t lda,
                 const float *__restrict__ x, long long m, long long row,
                 long long p0, long long p1, int warp, bool va)
{
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
  return acc;
}

/* The block's sums of its 128 rows, warps added in order; valid in warp
   0 only.  */
static __device__ float4
k6_block_sum (float4 (*red)[32], float4 acc, int warp, int lane)
{
  red[warp][lane] = acc;
  __syncthreads ();
  if (warp == 0)
    for (int w = 1; w < K6_WARPS; w++)
      {
        const float4 v = red[w][lane];
        acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
      }
  return acc;
}

static __device__ void
k6_store_rows (float *out, long long row, long long m, float4 acc)
{
  const float r[4] = { acc.x, acc.y, acc.z, acc.w };
#pragma unroll
  for (int e = 0; e < 4; e++)
    if (row + e < m)
      out[row + e] = r[e];
}

/* in_cluster: k is split over the blocks of a thread-block cluster
   (grid.y, Hopper on), and the first block of each cluster adds the
   blocks' sums through distributed shared memory, in split order as
   gt_k5_reduce does (the same bits), so the partial sums never cross
   device memory and no second kernel is launched.  */
__global__ void __launch_bounds__ (K6_THREADS)
k6_gemv_n1 (const float *__restrict__ A, size_t lda,
            const float *__restrict__ x, float *__restrict__ y,
            long long m, long long k, long long kchunk, float *partial,
            bool va, bool in_cluster)
{
  __shared__ float4 red[K6_WARPS][32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const long long row = (long long) blockIdx.x * K6_ROWS + lane * 4;
  const long long p0 = blockIdx.y * kchunk;
  const long long p1 = p0 + kchunk < k ? p0 + kchunk : k;
  float4 acc = k6_rows_partial (A, lda, x, m, row, p0, p1, warp, va);
  acc = k6_block_sum (red, acc, warp, lane);
  if (!in_cluster)
    {
      if (warp == 0)
        k6_store_rows (gridDim.y == 1 ? y : partial + blockIdx.y * m, row,
                       m, acc);
      return;
    }
#if __CUDA_ARCH__ >= 900
  __shared__ float4 sums[32];
  cg::cluster_group cluster = cg::this_cluster ();
  if (warp == 0)
    sums[lane] = acc;
  cluster.sync ();
  if (cluster.block_rank () == 0 && warp == 0)
    {
      float4 s = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
      for (unsigned z = 0; z < cluster.num_blocks (); z++)
        {
          const float4 v = cluster.map_shared_rank (sums, z)[lane];
          s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
        }
      k6_store_rows (y, row, m, s);
    }
  cluster.sync ();   /* the others' sums stay until they are read */
#endif
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

/* The largest cluster kernel 6 can split k over on this device (0: no
   clusters: not Hopper, where the rule in gt_costs.cu was measured, or
   a build without sm_90 code).  At most 8,
   the portable size (16-block clusters ran at 0.83-0.93x cuBLAS where 8
   ran at 0.95-1.09x: bench/RESULTS.md).  */
static int k6_cluster_known[GT_MAX_DEVICES];

extern "C" int
gt_k6_cluster_max (void)
{
  return gt_cluster_max (k6_cluster_known, (const void *) k6_gemv_n1,
                         K6_THREADS, 0, 1);
}

extern "C" cudaError_t
gt_k6_gemv (int splits, int cluster, const float *A, size_t lda,
            const float *B, size_t ldb, float *C, size_t ldc, size_t m,
            size_t n, size_t k, void *work, cudaStream_t s)
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
  const bool by_rows = n == 1 && m > 1;
  const long long blocks = by_rows ? gt_ceil_div (m, K6_ROWS)
                                   : gt_ceil_div (n, K6_COLS);
  if (blocks > GT_GRID_X_MAX)
    return cudaErrorInvalidValue;
  if (cluster > 0 && by_rows && splits > 1 && splits <= gt_k6_cluster_max ())
    return gt_launch_cluster (
      k6_gemv_n1, dim3 ((unsigned) blocks, (unsigned) splits), K6_THREADS, 0,
      1, splits, s, A, lda, B, C, (long long) m, (long long) k, kchunk,
      (float *) NULL, gt_aligned16 (A, lda), true);
  if (splits > 1 && work == NULL)
    return cudaErrorInvalidValue;
  float *partial = (float *) work;
  dim3 grid ((unsigned) blocks, (unsigned) splits);
  if (by_rows)
    k6_gemv_n1<<<grid, K6_THREADS, 0, s>>> (
      A, lda, B, C, m, k, kchunk, partial,
      gt_aligned16 (A, lda), false);
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
  /* none only where the launch will take the cluster (it falls back to
     the partial sums for m == 1 and where this device cannot) */
  const int in_cluster = p->cluster > 0 && n == 1 && m > 1
                         && p->splits <= gt_k6_cluster_max ();
  return in_cluster ? 0 : gt_k6_work_bytes (p->splits, m, n);
}

extern "C" cudaError_t
gt_k6_row_launch (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  return gt_k6_gemv (p->splits, p->cluster, (const float *) a->A, a->lda,
                     (const float *) a->B, a->ldb, (float *) a->C, a->ldc,
                     a->m, a->n, a->k, a->work, s);
}
