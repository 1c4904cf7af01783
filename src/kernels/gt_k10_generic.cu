/* Kernel 10: a register-tiled product for any real element type, correct
   on every architecture built.  The double path runs it where kernel 9
   does not: the strips beside kernel 9's tiles, vectors and small
   products, and whole products on GPUs without FP64 tensor cores.  Its
   vector path also serves complex products with a vector side.

   64 x 64 tiles of C, 256 threads of 4 x 4 elements each (rows ty + 16 r,
   columns tx + 16 c: neighbouring threads take neighbouring rows, so the
   warp's shared reads of A are consecutive and its reads of B a broadcast
   of four words), k in steps of 16 through shared memory.  Loads are
   element by element and guarded, so any leading dimension and alignment
   will do.  */

#include <cooperative_groups.h>
#include "gt_kernels.h"
#include <stdint.h>
#include "gt_launch.cuh"

namespace cg = cooperative_groups;

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

/* A complex number as Octave stores it (real and imaginary parts
   interleaved), for the vector path below: a complex product with a
   vector side reads its matrix once as it is, where the planes of the
   matrix path would write and read it twice more.  */
template <typename R>
struct __align__ (2 * sizeof (R)) k10_complex
{
  R re, im;
  __device__ k10_complex (int zero = 0) : re (R (zero)), im (R (0)) { }
  __device__ k10_complex (R r, R i) : re (r), im (i) { }
  __device__ k10_complex &
  operator+= (const k10_complex &b)
  {
    re += b.re;
    im += b.im;
    return *this;
  }
};

template <typename R>
static __device__ k10_complex<R>
operator* (const k10_complex<R> &a, const k10_complex<R> &b)
{
  return k10_complex<R> (a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

template <typename T>
static __device__ T
k10_shfl_down (T v, int off)
{
  return __shfl_down_sync (0xffffffffu, v, off);
}

template <typename R>
static __device__ k10_complex<R>
k10_shfl_down (k10_complex<R> v, int off)
{
  return k10_complex<R> (__shfl_down_sync (0xffffffffu, v.re, off),
                         __shfl_down_sync (0xffffffffu, v.im, off));
}

/* V elements of T in one load (16 bytes for the wide layout).  */
template <typename T, int V>
struct __align__ (V * sizeof (T)) k10_pack
{
  T e[V];
};

/* n == 1: the sums of one lane's V rows from `row` over its columns of
   [p0, p1) (p0 + warp, then every 8th), in acc.  va: A 16-byte aligned
   with lda a multiple of V, so that the V rows come in one load;
   K10_TRIP columns' loads in flight (one at a time left 4,096-row
   products of 8-byte elements below a thread per row's rate).  */
#define K10_TRIP 4
#define K10_WARPS (K10_THREADS / 32)
template <typename T, int V>
static __device__ void
k10_rows_partial (const T *__restrict__ A, size_t lda,
                  const T *__restrict__ x, long long m, long long row,
                  long long p0, long long p1, int warp, bool va, T (&acc)[V])
{
  typedef k10_pack<T, V> pack;
  if (va && row + V <= m)
    {
      long long p = p0 + warp;
      for (; p + (K10_TRIP - 1) * K10_WARPS < p1; p += K10_TRIP * K10_WARPS)
        {
          pack a[K10_TRIP];
          T xs[K10_TRIP];
#pragma unroll
          for (int t = 0; t < K10_TRIP; t++)
            {
              a[t] = *reinterpret_cast<const pack *> (
                A + row + (size_t) (p + t * K10_WARPS) * lda);
              xs[t] = x[p + t * K10_WARPS];
            }
#pragma unroll
          for (int t = 0; t < K10_TRIP; t++)
#pragma unroll
            for (int e = 0; e < V; e++)
              acc[e] += a[t].e[e] * xs[t];
        }
      for (; p < p1; p += K10_WARPS)
        {
          const pack a = *reinterpret_cast<const pack *> (
            A + row + (size_t) p * lda);
          const T xs = x[p];
#pragma unroll
          for (int e = 0; e < V; e++)
            acc[e] += a.e[e] * xs;
        }
      return;
    }
  for (long long p = p0 + warp; p < p1; p += K10_WARPS)
    {
      const T xs = x[p];
#pragma unroll
      for (int e = 0; e < V; e++)
        if (row + e < m)
          acc[e] += A[row + e + (size_t) p * lda] * xs;
    }
}

/* n == 1: the block's sums of its 32 V rows (V a lane of warp 0), its 8
   warps' added in warp order; valid in warp 0 only.  */
template <typename T, int V>
static __device__ void
k10_rows_block (const T *__restrict__ A, size_t lda, const T *__restrict__ x,
                long long m, long long row, long long p0, long long p1,
                bool va, T (&acc)[V])
{
  typedef k10_pack<T, V> pack;
  /* raw storage: a __shared__ array may not have a constructor */
  __shared__ __align__ (16) unsigned char red_raw[K10_THREADS * sizeof (pack)];
  pack *red = reinterpret_cast<pack *> (red_raw);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int e = 0; e < V; e++)
    acc[e] = 0;
  k10_rows_partial (A, lda, x, m, row, p0, p1, warp, va, acc);
#pragma unroll
  for (int e = 0; e < V; e++)
    red[threadIdx.x].e[e] = acc[e];
  __syncthreads ();
  if (warp == 0)
    for (int w = 1; w < K10_WARPS; w++)
#pragma unroll
      for (int e = 0; e < V; e++)
        acc[e] += red[w * 32 + lane].e[e];
}

/* m == 1: a warp's sum of x' (a row of stride lda) times the column bc
   over [p0, p1), valid in lane 0.  With vb (the column 16-byte aligned, p0
   a multiple of V) V of the column a lane in one load, K10_TRIP such loads
   in flight (one at a time left 1 x 4096 x 4096 doubles at 0.83x cuBLAS on
   an H200); the lane that meets p1 inside its V takes the rest one by one.
   (The order of the sums, and so the bits, is not that of an unaligned
   column's.)  */
template <typename T, int V>
static __device__ T
k10_col_sum (const T *__restrict__ x, size_t lda, const T *__restrict__ bc,
             long long p0, long long p1, bool vb, int lane)
{
  typedef k10_pack<T, V> pack;
  T acc = 0;
  if (V > 1 && vb)
    {
      long long p = p0 + (long long) lane * V;
      for (; p + (K10_TRIP - 1) * 32 * V + V <= p1; p += K10_TRIP * 32 * V)
        {
          pack b[K10_TRIP];
#pragma unroll
          for (int t = 0; t < K10_TRIP; t++)
            b[t] = *reinterpret_cast<const pack *> (bc + p + t * 32 * V);
#pragma unroll
          for (int t = 0; t < K10_TRIP; t++)
#pragma unroll
            for (int e = 0; e < V; e++)
              acc += x[(size_t) (p + t * 32 * V + e) * lda] * b[t].e[e];
        }
      for (; p + V <= p1; p += 32 * V)
        {
          const pack b = *reinterpret_cast<const pack *> (bc + p);
#pragma unroll
          for (int e = 0; e < V; e++)
            acc += x[(size_t) (p + e) * lda] * b.e[e];
        }
      for (; p < p1; p++)
        acc += x[(size_t) p * lda] * bc[p];
    }
  else
    for (long long p = p0 + lane; p < p1; p += 32)
      acc += x[(size_t) p * lda] * bc[p];
#pragma unroll
  for (int off = 16; off > 0; off /= 2)
    acc += k10_shfl_down (acc, off);
  return acc;
}

/* in_cluster: the blocks of a cluster along grid.y (the pieces of k of
   the same rows or columns) leave their sums (count of them, in sums) in
   shared memory, and the first block adds them in rank order, which is
   split order, as k10_reduce does (the same bits), and writes
   out[(first + e) stride] for first + e < len: no partial sums through
   device memory and no second kernel.  Every thread of the block calls
   it.  */
template <typename T>
static __device__ void
k10_cluster_out (T *sums, int count, T *out, size_t stride, long long first,
                 long long len)
{
#if __CUDA_ARCH__ >= 900
  cg::cluster_group cluster = cg::this_cluster ();
  cluster.sync ();
  if (cluster.block_rank () == 0)
    for (int e = threadIdx.x; e < count; e += blockDim.x)
      if (first + e < len)
        {
          T sum = cluster.map_shared_rank (sums, 0)[e];
          for (unsigned z = 1; z < cluster.num_blocks (); z++)
            sum += cluster.map_shared_rank (sums, z)[e];
          out[(size_t) (first + e) * stride] = sum;
        }
  cluster.sync ();   /* the others' sums stay until they are read */
#endif
}

/* Vector sides (m == 1 or n == 1), memory-bound: each element of the
   matrix read once.  n == 1: a block per 32 V rows of A, V rows a lane
   (16 bytes, coalesced down the columns), its 8 warps on interleaved
   columns and their sums added in warp order (a thread per row over all
   its columns left 1,000 rows with 4 blocks; a warp's 32 elements a load
   left 4,096 rows below it); m == 1: a warp per column of B, its lanes
   along k, reduced by shuffles.  k is split over grid.y where the rows or
   columns alone give too few blocks; the pieces' sums go to partial and
   k10_reduce adds them in split order (deterministic, unlike atomics), or
   they are added within a cluster (in_cluster: k10_cluster_out).  */
template <typename T, int V>
__global__ void __launch_bounds__ (K10_THREADS)
k10_gemv (const T *__restrict__ A, size_t lda, const T *__restrict__ B,
          size_t ldb, T *__restrict__ C, size_t ldc, long long m,
          long long n, long long k, long long kchunk, T *__restrict__ partial,
          bool va, bool in_cluster)
{
  const long long p0 = (long long) blockIdx.y * kchunk;
  const long long p1 = p0 + kchunk < k ? p0 + kchunk : k;
  const bool split = gridDim.y > 1;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __shared__ __align__ (16) unsigned char sums_raw[32 * V * sizeof (T)];
  T *sums = reinterpret_cast<T *> (sums_raw);
  if (n == 1 && m > 1)
    {
      const long long first = (long long) blockIdx.x * 32 * V;
      const long long row = first + lane * V;
      T acc[V];
      k10_rows_block<T, V> (A, lda, B, m, row, p0, p1, va, acc);
      if (in_cluster)
        {
          if (warp == 0)
#pragma unroll
            for (int e = 0; e < V; e++)
              sums[lane * V + e] = acc[e];
          k10_cluster_out (sums, 32 * V, C, 1, first, m);
          return;
        }
      if (warp != 0)
        return;
      T *out = split ? partial + blockIdx.y * m : C;
#pragma unroll
      for (int e = 0; e < V; e++)
        if (row + e < m)
          out[row + e] = acc[e];
      return;
    }
  const long long first = (long long) blockIdx.x * K10_WARPS;
  const long long col = first + warp;
  const T acc = col < n ? k10_col_sum<T, V> (A, lda, B + (size_t) col * ldb,
                                             p0, p1, va, lane)
                        : T (0);
  if (in_cluster)
    {
      if (lane == 0)
        sums[warp] = acc;
      k10_cluster_out (sums, K10_WARPS, C, ldc, first, n);
      return;
    }
  if (col >= n || lane != 0)
    return;
  if (split)
    partial[blockIdx.y * n + col] = acc;
  else
    C[(size_t) col * ldc] = acc;
}

/* out[e * stride] = the sum over z < splits of partial[z len + e].  */
template <typename T>
__global__ void
k10_reduce (const T *__restrict__ partial, int splits, long long len,
            T *__restrict__ out, size_t stride)
{
  for (long long e = (long long) blockIdx.x * blockDim.x + threadIdx.x;
       e < len; e += (long long) gridDim.x * blockDim.x)
    out[e * stride] = gt_sum_in_order (partial + e, splits, (size_t) len);
}

/* The most blocks of k10_gemv<T, V> a cluster along grid.y may have on
   this device (0: none; gt_cluster_max), asked once per device.  */
template <typename T, int V>
static int
k10_cluster_max_of (void)
{
  static int known[GT_MAX_DEVICES];
  return gt_cluster_max (known, (const void *) k10_gemv<T, V>, K10_THREADS, 0,
                         1);
}

/* The instance of k10_gemv a vector product of m x n runs: wide (V
   elements a lane) or not, and the rows of A a block takes (n == 1).  */
template <typename T>
static int
k10_gemv_wide (size_t m, size_t n, size_t *per)
{
  const int V = GT_K10_LANE_ELEMS (sizeof (T));
  const bool rows = n == 1 && m > 1;
  const gt_device_props *d = gt_device_props_current ();
  *per = rows ? gt_k10_vector_rows (sizeof (T), m, d ? d->sms : 1)
              : K10_THREADS / 32;
  return (rows ? *per == (size_t) (32 * V) : true) && V > 1;
}

/* The kernel of that instance (wide or not), and how many of its blocks
   a cluster may have.  */
template <typename T>
struct k10_gemv_kernel
{
  typedef void (*fn) (const T *, size_t, const T *, size_t, T *, size_t,
                      long long, long long, long long, long long, T *, bool,
                      bool);
};

template <typename T>
static typename k10_gemv_kernel<T>::fn
k10_gemv_of (int wide)
{
  return wide ? k10_gemv<T, GT_K10_LANE_ELEMS (sizeof (T))> : k10_gemv<T, 1>;
}

template <typename T>
static int
k10_cluster_max (int wide)
{
  return wide ? k10_cluster_max_of<T, GT_K10_LANE_ELEMS (sizeof (T))> ()
              : k10_cluster_max_of<T, 1> ();
}

/* cluster: the pieces of k added within a cluster where this device can
   have clusters of all of them (k10_cluster_out), else in work by
   k10_reduce.  */
template <typename T>
static cudaError_t
k10_gemv_launch (int splits, int cluster, const T *A, size_t lda, const T *B,
                 size_t ldb, T *C, size_t ldc, size_t m, size_t n, size_t k,
                 void *work, cudaStream_t s)
{
  if (m == 0 || n == 0)
    return cudaSuccess;
  const int V = GT_K10_LANE_ELEMS (sizeof (T));
  long long kchunk = gt_ceil_div (k > 0 ? k : 1, splits);
  if (m == 1 && n > 1)   /* pieces a multiple of 16 bytes (m == 1) */
    kchunk = gt_ceil_div (kchunk, V) * V;
  splits = (int) gt_ceil_div (k > 0 ? k : 1, kchunk);
  const bool rows = n == 1 && m > 1;
  const long long len = rows ? m : n;
  size_t per;
  const int wide = k10_gemv_wide<T> (m, n, &per);
  const bool in_cluster = cluster > 0 && splits > 1
                          && splits <= k10_cluster_max<T> (wide);
  if (splits > GT_GRID_YZ_MAX || (splits > 1 && !in_cluster && !work))
    return cudaErrorInvalidValue;
  const dim3 grid ((unsigned) gt_ceil_div (len, per), (unsigned) splits);
  /* wide: rows: A's columns in 16 bytes a lane; m == 1: B's */
  const bool aligned
    = !wide ? (uintptr_t) A % sizeof (T) == 0
      : rows ? (uintptr_t) A % 16 == 0 && lda % V == 0
             : (uintptr_t) B % 16 == 0 && ldb % V == 0 && kchunk % V == 0;
  const typename k10_gemv_kernel<T>::fn kernel = k10_gemv_of<T> (wide);
  T *partial = in_cluster ? (T *) NULL : (T *) work;
  cudaError_t err;
  if (in_cluster)
    err = gt_launch_cluster (kernel, grid, K10_THREADS, 0, 1, splits, s, A,
                             lda, B, ldb, C, ldc, (long long) m,
                             (long long) n, (long long) k, kchunk, partial,
                             aligned, true);
  else
    {
      kernel<<<grid, K10_THREADS, 0, s>>> (A, lda, B, ldb, C, ldc, m, n, k,
                                          kchunk, partial, aligned, false);
      err = cudaGetLastError ();
    }
  if (err != cudaSuccess || splits == 1 || in_cluster)
    return err;
  const long long rb = gt_min_ll (gt_ceil_div (len, 256), 4096);
  k10_reduce<T><<<(unsigned) rb, 256, 0, s>>> ((const T *) partial, splits,
                                               len, C, rows ? 1 : ldc);
  return cudaGetLastError ();
}

/* The most pieces of k a vector product of this type and shape may add
   within a cluster on the current device (0: none).  */
extern "C" int
gt_k10_cluster_max (gt_type type, size_t m, size_t n)
{
  typedef k10_complex<float> cs;
  typedef k10_complex<double> cd;
  size_t per;
  switch (type)
    {
    case GT_DOUBLE:
      return k10_cluster_max<double> (k10_gemv_wide<double> (m, n, &per));
    case GT_COMPLEX_SINGLE:
      return k10_cluster_max<cs> (k10_gemv_wide<cs> (m, n, &per));
    case GT_COMPLEX_DOUBLE:
      return k10_cluster_max<cd> (k10_gemv_wide<cd> (m, n, &per));
    default:
      return k10_cluster_max<float> (k10_gemv_wide<float> (m, n, &per));
    }
}

extern "C" size_t
gt_k10_row_work (const gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  (void) k;
  (void) repack;
  if ((m != 1 && n != 1) || p->splits <= 1)
    return 0;
  /* none only where the launch will take the cluster (the launch may
     split k into fewer pieces than asked, never more) */
  if (p->cluster > 0 && p->splits <= gt_k10_cluster_max (p->type, m, n))
    return 0;
  return (size_t) p->splits * (m == 1 ? n : m) * gt_type_size (p->type);
}

extern "C" cudaError_t
gt_k10_row_launch (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  typedef k10_complex<float> cs;
  typedef k10_complex<double> cd;
  if (a->m == 1 || a->n == 1)
    switch (p->type)
      {
      case GT_DOUBLE:
        return k10_gemv_launch<double> (p->splits, p->cluster,
                                        (const double *) a->A, a->lda,
                                        (const double *) a->B, a->ldb,
                                        (double *) a->C, a->ldc, a->m, a->n,
                                        a->k, a->work, s);
      case GT_COMPLEX_SINGLE:
        return k10_gemv_launch<cs> (p->splits, p->cluster, (const cs *) a->A,
                                    a->lda, (const cs *) a->B, a->ldb,
                                    (cs *) a->C, a->ldc, a->m, a->n, a->k,
                                    a->work, s);
      case GT_COMPLEX_DOUBLE:
        return k10_gemv_launch<cd> (p->splits, p->cluster, (const cd *) a->A,
                                    a->lda, (const cd *) a->B, a->ldb,
                                    (cd *) a->C, a->ldc, a->m, a->n, a->k,
                                    a->work, s);
      default:
        return k10_gemv_launch<float> (p->splits, p->cluster,
                                       (const float *) a->A, a->lda,
                                       (const float *) a->B, a->ldb,
                                       (float *) a->C, a->ldc, a->m, a->n,
                                       a->k, a->work, s);
      }
  if (p->type == GT_COMPLEX_SINGLE || p->type == GT_COMPLEX_DOUBLE)
    return cudaErrorInvalidValue;   /* complex matrices go as planes */
  if (p->type == GT_DOUBLE)
    return k10_launch<double> ((const double *) a->A, a->lda,
                               (const double *) a->B, a->ldb,
                               (double *) a->C, a->ldc, a->m, a->n, a->k, s);
  return k10_launch<float> ((const float *) a->A, a->lda,
                            (const float *) a->B, a->ldb, (float *) a->C,
                            a->ldc, a->m, a->n, a->k, s);
}
