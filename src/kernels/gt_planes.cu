/* The real and imaginary planes of complex products.  A complex product
   runs as one real product of planes (plan/gt_run.cu): with A and B
   complex, [Ar -Ai; Ai Ar] (2m x 2k) times [Br; Bi] (2k x n) is
   [Cr; Ci]; with B real, [Ar; Ai] B; with A real, A [Br Bi] is [Cr Ci].
   Or, both complex, as three (Gauss's): T1 = Ar Br, T2 = Ai Bi,
   T3 = (Ar + Ai)(Br + Bi), Cr = T1 - T2, Ci = T3 - T1 - T2.
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
   cols + c) = re; GT_PLANES_COLS: dst(i, c) = re, dst(i, cols + c) = im,
   with GT_PLANES_SUM also dst(i, 2 cols + c) = re + im, with
   GT_PLANES_EXPAND also dst(rows + i, c) = -im, dst(rows + i, cols + c) =
   re.  With SUM, *flag (where not NULL) is set where a part or their sum
   is not finite.  The planes side by side (COLS) lie `apart` columns
   apart: cols, or the whole k where these are a piece of its columns.  */
template <typename T>
__global__ void
planes_split (const typename k_pair<T>::t *__restrict__ src, size_t lds,
              T *__restrict__ dst, size_t ldd, long long rows,
              long long cols, long long apart, int mode, int *flag)
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
        {
          d[(size_t) apart * ldd] = v.y;
          if (mode & GT_PLANES_SUM)
            {
              const T sum = v.x + v.y;
              d[(size_t) 2 * apart * ldd] = sum;
              if (flag && !(isfinite (v.x) && isfinite (v.y)
                            && isfinite (sum)))
                *flag = 1;
            }
          else if (mode & GT_PLANES_EXPAND)
            {
              d[rows] = -v.y;
              d[(size_t) apart * ldd + rows] = v.x;
            }
        }
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

/* C (rows x cols complex) from Gauss's three products, T1, T2 and T3 side
   by side in P (rows x 3 cols).  Where one of them is not finite, the
   difference of Inf (or of products that overflow where re + im does)
   need not be `*`'s imaginary part: there it is summed as four products
   would, Ai Br + Ar Bi over the planes of A (rows x 2 k, ld lda) and B
   (k x 2 cols, ld ldb), k multiply-adds for each such element.  The real
   part, T1 - T2, is the four products' sum as it is.  unfinished (a
   device word, or NULL): the planes hold only the last piece of k of the
   product, so such an element sets the word instead (its caller runs the
   product again, whole).  */
template <typename T>
__global__ void
planes_join3 (const T *__restrict__ P, size_t ldp, const T *__restrict__ Ap,
              size_t lda, const T *__restrict__ Bp, size_t ldb, long long k,
              typename k_pair<T>::t *__restrict__ C, size_t ldc,
              long long rows, long long cols, int *unfinished)
{
  const long long total = rows * cols;
  for (long long e = (long long) blockIdx.x * blockDim.x + threadIdx.x;
       e < total; e += (long long) gridDim.x * blockDim.x)
    {
      const long long i = e % rows, c = e / rows;
      const T *p = P + i + (size_t) c * ldp;
      const T t1 = p[0], t2 = p[(size_t) cols * ldp],
              t3 = p[(size_t) 2 * cols * ldp];
      typename k_pair<T>::t v;
      v.x = t1 - t2;
      v.y = t3 - t1 - t2;
      const bool finite = isfinite (t1) && isfinite (t2) && isfinite (t3);
      if (!finite && unfinished)
        *unfinished = 1;
      else if (!finite)
        {
          const T *ar = Ap + i, *ai = Ap + i + (size_t) k * lda;
          const T *br = Bp + (size_t) c * ldb;
          const T *bi = Bp + (size_t) (cols + c) * ldb;
          T im = 0;
          for (long long l = 0; l < k; l++)
            im = fma (ai[(size_t) l * lda], br[l],
                      fma (ar[(size_t) l * lda], bi[l], im));
          v.y = im;
        }
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
gt_planes_split_apart (gt_type real, int mode, const void *src, size_t lds,
                       void *dst, size_t ldd, size_t rows, size_t cols,
                       size_t apart, int *flag, cudaStream_t s)
{
  if (rows == 0 || cols == 0)
    return cudaSuccess;
  if (apart < cols)
    return cudaErrorInvalidValue;
  const unsigned blocks = planes_blocks (rows, cols);
  if (real == GT_DOUBLE)
    planes_split<double><<<blocks, 256, 0, s>>> (
      (const double2 *) src, lds, (double *) dst, ldd, rows, cols, apart,
      mode, flag);
  else
    planes_split<float><<<blocks, 256, 0, s>>> (
      (const float2 *) src, lds, (float *) dst, ldd, rows, cols, apart,
      mode, flag);
  return cudaGetLastError ();
}

extern "C" cudaError_t
gt_planes_split (gt_type real, int mode, const void *src, size_t lds,
                 void *dst, size_t ldd, size_t rows, size_t cols, int *flag,
                 cudaStream_t s)
{
  return gt_planes_split_apart (real, mode, src, lds, dst, ldd, rows, cols,
                                cols, flag, s);
}

__global__ void
planes_flag_or (int *dst, const int *src)
{
  if (*src)
    *dst = 1;
}

extern "C" cudaError_t
gt_planes_flag_or (int *dst, const int *src, cudaStream_t s)
{
  planes_flag_or<<<1, 1, 0, s>>> (dst, src);
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

extern "C" cudaError_t
gt_planes_join3 (gt_type real, const void *P, size_t ldp, const void *Ap,
                 size_t lda, const void *Bp, size_t ldb, size_t k, void *C,
                 size_t ldc, size_t rows, size_t cols, int *unfinished,
                 cudaStream_t s)
{
  if (rows == 0 || cols == 0)
    return cudaSuccess;
  const unsigned blocks = planes_blocks (rows, cols);
  if (real == GT_DOUBLE)
    planes_join3<double><<<blocks, 256, 0, s>>> (
      (const double *) P, ldp, (const double *) Ap, lda, (const double *) Bp,
      ldb, (long long) k, (double2 *) C, ldc, rows, cols, unfinished);
  else
    planes_join3<float><<<blocks, 256, 0, s>>> (
      (const float *) P, ldp, (const float *) Ap, lda, (const float *) Bp,
      ldb, (long long) k, (float2 *) C, ldc, rows, cols, unfinished);
  return cudaGetLastError ();
}
