/* Kernel 2: 2-D register blocking.  A 64x64 block of C per 256 threads,
   4x4 elements per thread held in registers, so each shared word read
   feeds 4 multiply-adds instead of 1.  Scalar loads, one shared buffer.
   A thread's rows are tm + 16r and columns tn + 16c: a warp's shared reads
   of As[p][tm + 16r] are consecutive and those of Bs[tn + 16c][p] touch
   two words in two banks.  */

#include "gt_bench_kernels.h"
#include "gt_launch.cuh"

#define K2_BM 64
#define K2_BN 64
#define K2_BK 8

__global__ void __launch_bounds__ (256)
k2_regblock (const float *__restrict__ A, size_t lda,
             const float *__restrict__ B, size_t ldb,
             float *__restrict__ C, size_t ldc,
             long long m, long long n, long long k, long long tiles_n)
{
  __shared__ float As[K2_BK][K2_BM];  /* [p][i] */
  __shared__ float Bs[K2_BN][K2_BK];  /* [j][p] */
  const int tid = threadIdx.x, tm = tid % 16, tn = tid / 16;
  const long long m0 = (long long) blockIdx.x * K2_BM;

  for (long long bn = blockIdx.y; bn < tiles_n; bn += gridDim.y)
    {
      const long long n0 = bn * K2_BN;
      float acc[4][4] = {};
      for (long long p0 = 0; p0 < k; p0 += K2_BK)
        {
#pragma unroll
          for (int q = 0; q < 2; q++)
            {
              const int e = tid + 256 * q;
              const int ai = e % K2_BM, ap = e / K2_BM;
              const long long gi = m0 + ai, gp = p0 + ap;
              As[ap][ai] = (gi < m && gp < k) ? A[gi + gp * lda] : 0.0f;
              const int bp = e % K2_BK, bj = e / K2_BK;
              const long long hp = p0 + bp, hj = n0 + bj;
              Bs[bj][bp] = (hp < k && hj < n) ? B[hp + hj * ldb] : 0.0f;
            }
          __syncthreads ();
#pragma unroll
          for (int p = 0; p < K2_BK; p++)
            {
              float a[4], b[4];
#pragma unroll
              for (int r = 0; r < 4; r++)
                a[r] = As[p][tm + 16 * r];
#pragma unroll
              for (int c = 0; c < 4; c++)
                b[c] = Bs[tn + 16 * c][p];
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
            const long long i = m0 + tm + 16 * r, j = n0 + tn + 16 * c;
            if (i < m && j < n)
              C[i + j * ldc] = acc[r][c];
          }
    }
}

extern "C" cudaError_t
gt_k2_regblock (const float *A, size_t lda, const float *B, size_t ldb,
                float *C, size_t ldc, size_t m, size_t n, size_t k,
                cudaStream_t s)
{
  if (m == 0 || n == 0)
    return cudaSuccess;
  const long long tiles_n = gt_ceil_div (n, K2_BN);
  dim3 grid ((unsigned) gt_ceil_div (m, K2_BM),
             (unsigned) gt_min_ll (tiles_n, GT_GRID_YZ_MAX));
  k2_regblock<<<grid, 256, 0, s>>> (A, lda, B, ldb, C, ldc, m, n, k,
                                     tiles_n);
  return cudaGetLastError ();
}
