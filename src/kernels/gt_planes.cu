/* The real and imaginary planes of complex products.  A complex product
   runs as one real product of planes (plan/gt_run.cu): with A and B
   complex, [Ar -Ai; Ai Ar] (2m x 2k) times [Br; Bi] (2k x n) is
   [Cr; Ci]; with B real, [Ar; Ai] B; with A real, A [Br Bi] is [Cr Ci].
   These kernels make the planes from interleaved (re, im) matrices and
   interleave the product back.  Memory-bound: one read and one write of
   each element, i fastest so both sides coalesce.  */

#include "gt_kernels.h"
#include "gt_launch.cuh"

template <typename T> struct k_pair;
template <> struct k_pair<float> { typedef float2 t; };
template <> struct k_pair<double> { typedef double2 t; };

/* dst from src (rows x cols complex, leading dimension lds in complex
   elements): GT_PLANES_ROWS: dst(i, c) = re, dst(rows + i, c) = im, and
   with GT_PLANES_EXPAND also dst(i, cols + c) = -im, dst(rows + i,
   cols + c) = re; GT_PLANES_COLS: dst(i, c) = re, dst(i, cols + c) = im.  */
template <typename T>
__global__ void
planes_split (const typename k_pair<T>::t *__restrict__ src, size_t lds,
              T *__restrict__ dst, size_t ldd, long long rows,
              long long cols, int mode)
{
  const long long total = rows * cols;
  for (long long e = (long long) blockIdx.x * blockDim.x + threadIdx.x;
       e < total; e += (long long) gridDim.x * blockDim.x)
    {
      const long long i = e % rows, c = e / rows;
      const typename k_pair<T>::t v = src[i + (size_t) c * lds];
      T *d = dst + i + (size_t) c * ldd;
      d[0] = v.x;
      if (mode & GT_PLANES_COLS)
        d[(size_t) cols * ldd] = v.y;
      else
        {
          d[rows] = v.y;
          if (mode & GT_PLANES_EXPAND)
            {
              d[(size_t) cols * ldd] = -v.y;
              d[(size_t) cols * ldd + rows] = v.x;
            }
        }
    }
}

/* C (rows x cols complex, leading dimension ldc) from the planes of P:
   GT_PLANES_ROWS: (P(i, c), P(rows + i, c)); GT_PLANES_COLS: (P(i, c),
   P(i, cols + c)).  */
template <typename T>
__global__ void
planes_join (const T *__restrict__ P, size_t ldp,
             typename k_pair<T>::t *__restrict__ C, size_t ldc,
             long long rows, long long cols, int mode)
{
  const long long total = rows * cols;
  for (long long e = (long long) blockIdx.x * blockDim.x + threadIdx.x;
       e < total; e += (long long) gridDim.x * blockDim.x)
    {
      const long long i = e % rows, c = e / rows;
      const T *p = P + i + (size_t) c * ldp;
      typename k_pair<T>::t v;
      v.x = p[0];
      v.y = (mode & GT_PLANES_COLS) ? p[(size_t) cols * ldp] : p[rows];
      C[i + (size_t) c * ldc] = v;
    }
}

static unsigned
planes_blocks (size_t rows, size_t cols)
{
  const gt_device_props *d = gt_device_props_current ();
  return (unsigned) gt_min_ll (gt_ceil_div ((long long) (rows * cols), 256),
                               (long long) (d ? d->sms : 1) * 32);
}

extern "C" cudaError_t
gt_planes_split (gt_type real, int mode, const void *src, size_t lds,
                 void *dst, size_t ldd, size_t rows, size_t cols,
                 cudaStream_t s)
{
  if (rows == 0 || cols == 0)
    return cudaSuccess;
  const unsigned blocks = planes_blocks (rows, cols);
  if (real == GT_DOUBLE)
    planes_split<double><<<blocks, 256, 0, s>>> (
      (const double2 *) src, lds, (double *) dst, ldd, rows, cols, mode);
  else
    planes_split<float><<<blocks, 256, 0, s>>> (
      (const float2 *) src, lds, (float *) dst, ldd, rows, cols, mode);
  return cudaGetLastError ();
}

extern "C" cudaError_t
gt_planes_join (gt_type real, int mode, const void *P, size_t ldp, void *C,
                size_t ldc, size_t rows, size_t cols, cudaStream_t s)
{
  if (rows == 0 || cols == 0)
    return cudaSuccess;
  const unsigned blocks = planes_blocks (rows, cols);
  if (real == GT_DOUBLE)
    planes_join<double><<<blocks, 256, 0, s>>> (
      (const double *) P, ldp, (double2 *) C, ldc, rows, cols, mode);
  else
    planes_join<float><<<blocks, 256, 0, s>>> (
      (const float *) P, ldp, (float2 *) C, ldc, rows, cols, mode);
  return cudaGetLastError ();
}
