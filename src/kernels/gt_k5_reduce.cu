/* Kernel 5's second half: add the split-k partial products in split order
   (deterministic, unlike atomics) with every SM streaming them.  */

#include "gt_kernels.h"
#include "gt_launch.cuh"

__global__ void
k5_reduce (int splits, const float *__restrict__ partial, long long rows,
           long long cols, float *__restrict__ C, size_t ldc)
{
  const size_t total = (size_t) rows * (size_t) cols;
  for (size_t e = (size_t) blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (size_t) gridDim.x * blockDim.x)
    {
      /* 0 + the sum: the bits of a sum started from 0 (a -0 sum is +0) */
      C[e % rows + (e / rows) * ldc]
        = 0.0f + gt_sum_in_order (partial + e, splits, total);
    }
}

extern "C" cudaError_t
gt_k5_reduce (int splits, const float *partial, size_t rows, size_t cols,
              float *C, size_t ldc, cudaStream_t s)
{
  const long long total = (long long) rows * (long long) cols;
  if (total == 0)
    return cudaSuccess;
  const int threads = 256;
  const long long blocks = gt_min_ll (gt_ceil_div (total, threads), 8192);
  k5_reduce<<<(unsigned) blocks, threads, 0, s>>> (splits, partial, rows,
                                                   cols, C, ldc);
  return cudaGetLastError ();
}

extern "C" cudaError_t
gt_check_kernel_image (void)
{
  struct cudaFuncAttributes attr;
  return cudaFuncGetAttributes (&attr, (const void *) k5_reduce);
}
