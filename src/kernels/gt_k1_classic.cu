/* Kernel 1: the classic shared-memory tiled product, one element of C per
   thread (the tile = 8, 16, 32 choices of gpu_tiled_mtimes).

   Column-major mapping: threadIdx.x runs down a column of C, so a warp's
   loads of A (A[i + p*lda], i fastest) and of B (B[p + j*ldb], p fastest)
   and its stores of C are contiguous.  Shared layout As[p][i], Bs[j][p]:
   in the inner loop a warp reads As[p][tx] (consecutive words) and
   Bs[ty][p] (one word per ty, ty*TILE + p lands in distinct banks for the
   two or four ty values a warp holds at TILE 16 or 8), so no read or store
   conflicts without padding (for floats; doubles take two banks each).
   Templated on the element type: the tile argument runs this kernel for
   single and double, and for complex types on their real and imaginary
   planes (plan/gt_run.cu).  */

#include "gt_kernels.h"
#include "gt_launch.cuh"

template <typename T, int TILE>
__global__ void __launch_bounds__ (TILE * TILE)
k1_classic (const T *__restrict__ A, size_t lda,
            const T *__restrict__ B, size_t ldb,
            T *__restrict__ C, size_t ldc,
            long long m, long long n, long long k, long long tiles_n)
{
  __shared__ T As[TILE][TILE];  /* [p][i] */
  __shared__ T Bs[TILE][TILE];  /* [j][p] */
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long i = (long long) blockIdx.x * TILE + tx;

  /* gridDim.y is capped at GT_GRID_YZ_MAX: loop over the remaining column
     tiles.  */
  for (long long bn = blockIdx.y; bn < tiles_n; bn += gridDim.y)
    {
      const long long j = bn * TILE + ty;
      T acc = 0;
      for (long long p0 = 0; p0 < k; p0 += TILE)
        {
          const long long pa = p0 + ty, pb = p0 + tx;
          /* Loads skip L1 (.cg): the tile in shared memory is the reuse,
             and L1 fills would share the data banks with the tile.  */
          As[ty][tx] = (i < m && pa < k) ? __ldcg (A + i + pa * lda) : (T) 0;
          Bs[ty][tx] = (j < n && pb < k) ? __ldcg (B + pb + j * ldb) : (T) 0;
          __syncthreads ();
#pragma unroll
          for (int p = 0; p < TILE; p++)
            acc += As[p][tx] * Bs[ty][p];
          __syncthreads ();
        }
      if (i < m && j < n)
        C[i + j * ldc] = acc;
    }
}

template <typename T, int TILE>
static cudaError_t
launch_k1 (const T *A, size_t lda, const T *B, size_t ldb, T *C, size_t ldc,
           size_t m, size_t n, size_t k, cudaStream_t s)
{
  const long long tiles_m = gt_ceil_div (m, TILE);
  const long long tiles_n = gt_ceil_div (n, TILE);
  dim3 grid ((unsigned) tiles_m, (unsigned) gt_min_ll (tiles_n, GT_GRID_YZ_MAX));
  dim3 block (TILE, TILE);
  k1_classic<T, TILE><<<grid, block, 0, s>>> (A, lda, B, ldb, C, ldc,
                                              m, n, k, tiles_n);
  return cudaGetLastError ();
}

template <typename T>
static cudaError_t
k1_tile (int tile, const T *A, size_t lda, const T *B, size_t ldb, T *C,
         size_t ldc, size_t m, size_t n, size_t k, cudaStream_t s)
{
  if (m == 0 || n == 0)
    return cudaSuccess;
  if (gt_ceil_div (m, 8) > GT_GRID_X_MAX)
    return cudaErrorInvalidValue;
  switch (tile)
    {
    case 8:  return launch_k1<T, 8> (A, lda, B, ldb, C, ldc, m, n, k, s);
    case 16: return launch_k1<T, 16> (A, lda, B, ldb, C, ldc, m, n, k, s);
    case 32: return launch_k1<T, 32> (A, lda, B, ldb, C, ldc, m, n, k, s);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t
gt_k1_classic (int tile, const float *A, size_t lda, const float *B,
               size_t ldb, float *C, size_t ldc, size_t m, size_t n,
               size_t k, cudaStream_t s)
{
  return k1_tile<float> (tile, A, lda, B, ldb, C, ldc, m, n, k, s);
}

extern "C" cudaError_t
gt_k1_row_launch (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  if (p->type == GT_DOUBLE)
    return k1_tile<double> (p->tile, (const double *) a->A, a->lda,
                            (const double *) a->B, a->ldb, (double *) a->C,
                            a->ldc, a->m, a->n, a->k, s);
  return k1_tile<float> (p->tile, (const float *) a->A, a->lda,
                         (const float *) a->B, a->ldb, (float *) a->C, a->ldc,
                         a->m, a->n, a->k, s);
}
