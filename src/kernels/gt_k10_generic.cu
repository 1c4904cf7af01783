/* Kernel 10: a register-tiled product for any real element type, correct
   on every architecture built.  The double path runs it where kernel 9
   does not: the strips beside kernel 9's tiles, vectors and small
   products, and whole products on GPUs without FP64 tensor cores.

   64 x 64 tiles of C, 256 threads of 4 x 4 elements each (rows ty + 16 r,
   columns tx + 16 c: neighbouring threads take neighbouring rows, so the
   warp's shared reads of A are consecutive and its reads of B a broadcast
   of four words), k in steps of 16 through shared memory.  Loads are
   element by element and guarded, so any leading dimension and alignment
   will do.  */

#include "gt_kernels.h"
#include "gt_launch.cuh"

#define K10_T 64
#define K10_BK 16
#define K10_THREADS 256

template <typename T>
__global__ void __launch_bounds__ (K10_THREADS)
k10_generic (const T *__restrict__ A, size_t lda, const T *__restrict__ B,
             size_t ldb, T *__restrict__ C, size_t ldc, long long m,
             long long n, long long k, long long tiles_n)
{
  __shared__ T As[K10_BK][K10_T + 1];   /* [p][i] */
  __shared__ T Bs[K10_BK][K10_T + 1];   /* [p][j] */
  const int tid = threadIdx.x, tx = tid / 16, ty = tid % 16;
  const long long m0 = (long long) blockIdx.x * K10_T;
  for (long long bn = blockIdx.y; bn < tiles_n; bn += gridDim.y)
    {
      const long long n0 = bn * K10_T;
      T acc[4][4];
#pragma unroll
      for (int r = 0; r < 4; r++)
#pragma unroll
        for (int c = 0; c < 4; c++)
          acc[r][c] = 0;
      for (long long p0 = 0; p0 < k; p0 += K10_BK)
        {
#pragma unroll
          for (int e = tid; e < K10_T * K10_BK; e += K10_THREADS)
            {
              const int i = e % K10_T, pa = e / K10_T;   /* down A's column */
              const int pb = e % K10_BK, j = e / K10_BK; /* down B's column */
              As[pa][i] = m0 + i < m && p0 + pa < k
                          ? A[(m0 + i) + (size_t) (p0 + pa) * lda] : (T) 0;
              Bs[pb][j] = n0 + j < n && p0 + pb < k
                          ? B[(p0 + pb) + (size_t) (n0 + j) * ldb] : (T) 0;
            }
          __syncthreads ();
#pragma unroll
          for (int p = 0; p < K10_BK; p++)
            {
              T a[4], b[4];
#pragma unroll
              for (int r = 0; r < 4; r++)
                a[r] = As[p][ty + 16 * r];
#pragma unroll
              for (int c = 0; c < 4; c++)
                b[c] = Bs[p][tx + 16 * c];
#pragma unroll
              for (int r = 0; r < 4; r++)
#pragma unroll
                for (int c = 0; c < 4; c++)
                  acc[r][c] += a[r] * b[c];
            }
          __syncthreads ();
        }
#pragma unroll
      for (int c = 0; c < 4; c++)
#pragma unroll
        for (int r = 0; r < 4; r++)
          {
            const long long i = m0 + ty + 16 * r, j = n0 + tx + 16 * c;
            if (i < m && j < n)
              C[i + (size_t) j * ldc] = acc[r][c];
          }
    }
}

template <typename T>
static cudaError_t
k10_launch (const T *A, size_t lda, const T *B, size_t ldb, T *C, size_t ldc,
            size_t m, size_t n, size_t k, cudaStream_t s)
{
  if (m == 0 || n == 0)
    return cudaSuccess;
  const long long tiles_m = gt_ceil_div (m, K10_T);
  const long long tiles_n = gt_ceil_div (n, K10_T);
  if (tiles_m > GT_GRID_X_MAX)
    return cudaErrorInvalidValue;
  const dim3 grid ((unsigned) tiles_m,
                   (unsigned) gt_min_ll (tiles_n, GT_GRID_YZ_MAX));
  k10_generic<T><<<grid, K10_THREADS, 0, s>>> (A, lda, B, ldb, C, ldc, m, n,
                                               k, tiles_n);
  return cudaGetLastError ();
}

extern "C" cudaError_t
gt_k10_row_launch (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  if (p->type == GT_DOUBLE)
    return k10_launch<double> ((const double *) a->A, a->lda,
                               (const double *) a->B, a->ldb,
                               (double *) a->C, a->ldc, a->m, a->n, a->k, s);
  return k10_launch<float> ((const float *) a->A, a->lda,
                            (const float *) a->B, a->ldb, (float *) a->C,
                            a->ldc, a->m, a->n, a->k, s);
}
