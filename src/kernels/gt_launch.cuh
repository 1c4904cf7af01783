/* gt_launch.cuh -- small device and launch helpers shared by the kernels.  */

#ifndef GT_LAUNCH_CUH
#define GT_LAUNCH_CUH

#include <cuda_runtime.h>
#include "gpu_tiled.h"
#include "gt_plan.h"

static inline long long
gt_ceil_div (long long a, long long b)
{
  return (a + b - 1) / b;
}

static inline long long
gt_min_ll (long long a, long long b)
{
  return a < b ? a : b;
}

/* x rounded up to a multiple of 4 floats: leading dimensions and scratch
   parts that keep 16-byte alignment.  */
static inline size_t
gt_round4 (size_t x)
{
  return (x + 3) / 4 * 4;
}

/* A matrix the kernels can move in 16-byte pieces: its base 16-byte
   aligned and every column too (leading dimension a multiple of 4).  */
static inline bool
gt_aligned16 (const void *p, size_t ld)
{
  return ((size_t) p % 16) == 0 && ld % 4 == 0;
}

/* Facts about a device asked once (devices below GT_MAX_DEVICES; others
   are asked each time): known[d] holds device d's fact + 1, 0 before it is asked.
   gt_device_seen puts the current device in *dev and returns known[dev],
   or -1 where there is no current device; gt_device_remember records
   the fact and returns it.  */
static inline int
gt_device_seen (const int *known, int *dev)
{
  if (!gt_current_device (dev))
    return -1;
  return *dev >= 0 && *dev < GT_MAX_DEVICES
         ? __atomic_load_n (&known[*dev], __ATOMIC_ACQUIRE) : 0;
}

static inline int
gt_device_remember (int *known, int dev, int fact)
{
  if (dev >= 0 && dev < GT_MAX_DEVICES)
    __atomic_store_n (&known[dev], fact + 1, __ATOMIC_RELEASE);
  return fact;
}

/* Resident blocks per SM of fn (threads each, smem bytes of dynamic
   shared memory, which it is allowed first) on the current device; 0
   where it cannot run or the runtime cannot say (the error cleared).  */
static inline int
gt_blocks_per_sm (const void *fn, int threads, int smem)
{
  int blocks = 0;
  if (cudaFuncSetAttribute (fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            smem) != cudaSuccess
      || cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks, fn, threads,
                                                        smem) != cudaSuccess)
    blocks = 0;
  cudaGetLastError ();
  return blocks;
}

/* Thread-block clusters (Hopper): the pieces of k of kernels 5, 6, 9 and
   10 (vectors) added within a cluster through distributed shared memory.
   gt_cluster_max: the most blocks of fn (threads each, smem bytes of
   dynamic shared memory) a cluster along grid axis `axis` (1: y, 2: z)
   may have on the current device, at most GT_CLUSTER_MAX (the portable
   size); 0 but on Hopper (cc 9, where the rules that use clusters were
   measured) and where fn has sm_90 code.  Asked once per device through
   known (gt_device_seen).  */
#define GT_CLUSTER_MAX 8
static inline int
gt_cluster_max (int *known, const void *fn, int threads, size_t smem,
                int axis)
{
  int dev = 0;
  const int seen = gt_device_seen (known, &dev);
  if (seen)
    return seen < 0 ? 0 : seen - 1;
  const gt_device_props *d = gt_device_props_current ();
  cudaFuncAttributes attr;
  int most = 0;
  if (d && d->cc_major == 9 && cudaFuncGetAttributes (&attr, fn) == cudaSuccess
      && attr.ptxVersion >= 90
      && (smem == 0
          || cudaFuncSetAttribute (fn,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int) smem) == cudaSuccess))
    {
      cudaLaunchConfig_t lc = {};
      lc.gridDim = axis == 1 ? dim3 (1, GT_CLUSTER_MAX)
                             : dim3 (1, 1, GT_CLUSTER_MAX);
      lc.blockDim = dim3 (threads);
      lc.dynamicSmemBytes = smem;
      if (cudaOccupancyMaxPotentialClusterSize (&most, fn, &lc)
          != cudaSuccess)
        most = 0;
    }
  cudaGetLastError ();
  return gt_device_remember (known, dev,
                             most > GT_CLUSTER_MAX ? GT_CLUSTER_MAX : most);
}

/* A launch of grid in clusters of `size` blocks along axis (1: y, 2: z);
   *at holds the cluster's attribute the configuration points to.  */
static inline cudaLaunchConfig_t
gt_cluster_config (dim3 grid, int threads, size_t smem, int axis, int size,
                   cudaStream_t s, cudaLaunchAttribute *at)
{
  cudaLaunchConfig_t lc = {};
  lc.gridDim = grid;
  lc.blockDim = dim3 (threads);
  lc.dynamicSmemBytes = smem;
  lc.stream = s;
  at->id = cudaLaunchAttributeClusterDimension;
  at->val.clusterDim.x = 1;
  at->val.clusterDim.y = axis == 1 ? (unsigned) size : 1;
  at->val.clusterDim.z = axis == 2 ? (unsigned) size : 1;
  lc.attrs = at;
  lc.numAttrs = 1;
  return lc;
}

/* The blocks of fn resident at once in clusters of `size` along axis
   (the clusters a device holds at once times size: a cluster's blocks
   share a GPC, so the H100's 132 SMs hold 14 clusters of 8 whole
   blocks an SM, not 16); 0 where none fit.  Asked once per device.  */
static inline int
gt_cluster_slots (int *known, const void *fn, int threads, size_t smem,
                  int axis, int size)
{
  int dev = 0;
  const int seen = gt_device_seen (known, &dev);
  if (seen)
    return seen < 0 ? 0 : seen - 1;
  cudaLaunchAttribute at;
  const cudaLaunchConfig_t lc = gt_cluster_config (
    axis == 1 ? dim3 (1, size) : dim3 (1, 1, size), threads, smem, axis,
    size, 0, &at);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters (&clusters, fn, &lc) != cudaSuccess)
    clusters = 0;
  cudaGetLastError ();
  return gt_device_remember (known, dev, clusters * size);
}

/* fn on grid in clusters of `size` blocks along axis (1: y, 2: z).  */
template <typename... P, typename... Args>
static cudaError_t
gt_launch_cluster (void (*fn) (P...), dim3 grid, int threads, size_t smem,
                   int axis, int size, cudaStream_t s, Args... args)
{
  cudaLaunchAttribute at;
  const cudaLaunchConfig_t lc = gt_cluster_config (grid, threads, smem, axis,
                                                   size, s, &at);
  const cudaError_t err = cudaLaunchKernelEx (&lc, fn, args...);
  const cudaError_t last = cudaGetLastError ();
  return err != cudaSuccess ? err : last;
}

/* The sum in z order of p[0], p[stride], ... (splits values): the
   split-k reduces' chain.  The loads go 8 ahead of the adds (one load a
   step, each waiting for the add before it, cost about 0.3 us a step on
   an H100: 128 pieces of a 64 x 64 product took 18 us), the adds in the
   same order, so the bits are those of the plain loop.  */
template <typename T>
__device__ __forceinline__ T
gt_sum_in_order (const T *__restrict__ p, long long splits, size_t stride)
{
  T sum = p[0];
  long long z = 1;
  for (; z + 8 <= splits; z += 8)
    {
      T v[8];
#pragma unroll
      for (int u = 0; u < 8; u++)
        v[u] = p[(size_t) (z + u) * stride];
#pragma unroll
      for (int u = 0; u < 8; u++)
        sum += v[u];
    }
  for (; z < splits; z++)
    sum += p[(size_t) z * stride];
  return sum;
}

/* Lets kernel fn have `bytes` of dynamic shared memory (the default limit
   is 48 KiB), once per device: done[d] marks device d done (devices past
   GT_MAX_DEVICES ask each time), and whoever resets a device clears
   done.  The call is not made before every launch: it holds up the
   host's overlapped copies.  */
static inline cudaError_t
gt_allow_smem_once (const void *fn, size_t bytes, unsigned char *done)
{
  int dev = 0;
  cudaError_t err = cudaGetDevice (&dev);
  if (err != cudaSuccess)
    return err;
  const bool cached = dev >= 0 && dev < GT_MAX_DEVICES;
  if (cached && __atomic_load_n (&done[dev], __ATOMIC_ACQUIRE))
    return cudaSuccess;
  err = cudaFuncSetAttribute (fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              (int) bytes);
  if (err == cudaSuccess && cached)
    __atomic_store_n (&done[dev], 1, __ATOMIC_RELEASE);
  return err;
}

/* The first `have` (clamped to 0..4) of the 4 floats at p, the rest
   zero: one 16-byte load when vec and all four are there.  */
__device__ __forceinline__ float4
gt_ldg4 (const float *p, int have, bool vec)
{
  float4 v = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
  if (vec && have >= 4)
    v = __ldg (reinterpret_cast<const float4 *> (p));
  else
    {
      if (have > 0) v.x = __ldg (p);
      if (have > 1) v.y = __ldg (p + 1);
      if (have > 2) v.z = __ldg (p + 2);
      if (have > 3) v.w = __ldg (p + 3);
    }
  return v;
}

/* Four consecutive floats of shared memory (16-byte aligned) into d[0..3]
   with one 16-byte load: the register fragments of the tiled kernels.  */
__device__ __forceinline__ void
gt_lds4 (float *d, const float *s)
{
  const float4 v = *reinterpret_cast<const float4 *> (s);
  d[0] = v.x; d[1] = v.y; d[2] = v.z; d[3] = v.w;
}

/* Four consecutive rows of one column of C, d pointing at the first;
   rows_left: rows of the matrix at and after it.  The C store and load
   of every register-tiled kernel: 16 bytes where the four rows are
   inside and vec (the column 16-byte aligned), else element by element,
   guarded.  */
__device__ __forceinline__ void
gt_store_col4 (float *d, long long rows_left, bool vec, float v0, float v1,
               float v2, float v3)
{
  if (vec && rows_left > 3)
    *reinterpret_cast<float4 *> (d) = make_float4 (v0, v1, v2, v3);
  else
    {
      if (rows_left > 0) d[0] = v0;
      if (rows_left > 1) d[1] = v1;
      if (rows_left > 2) d[2] = v2;
      if (rows_left > 3) d[3] = v3;
    }
}

/* The rows of the same four that are inside (rows_left as above), zero
   for the others.  */
__device__ __forceinline__ float4
gt_load_col4 (const float *d, long long rows_left, bool vec)
{
  if (vec && rows_left > 3)
    return *reinterpret_cast<const float4 *> (d);
  return make_float4 (rows_left > 0 ? d[0] : 0.0f,
                      rows_left > 1 ? d[1] : 0.0f,
                      rows_left > 2 ? d[2] : 0.0f,
                      rows_left > 3 ? d[3] : 0.0f);
}

/* cp.async (sm_80 and later).  On older GPUs the same calls become plain
   synchronous copies and the group calls nothing: a copy that has already
   finished satisfies any wait.  */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define GT_HAVE_CP_ASYNC 0
#else
#define GT_HAVE_CP_ASYNC 1
#endif

/* Copies the first `bytes` (0, 4, 8, 12 or 16) of 16 from global to shared
   memory, zero-filling the rest.  Both addresses 16-byte aligned.  */
__device__ __forceinline__ void
gt_cp_async16_n (void *smem, const void *gmem, int bytes)
{
#if GT_HAVE_CP_ASYNC
  unsigned s = (unsigned) __cvta_generic_to_shared (smem);
  asm volatile ("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                :: "r"(s), "l"(gmem), "r"(bytes));
#else
  float4 v = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
  const float *g = (const float *) gmem;
  if (bytes == 16)
    v = *(const float4 *) g;
  else
    {
      if (bytes > 0) v.x = g[0];
      if (bytes > 4) v.y = g[1];
      if (bytes > 8) v.z = g[2];
    }
  *(float4 *) smem = v;
#endif
}

__device__ __forceinline__ void
gt_cp_async_commit (void)
{
#if GT_HAVE_CP_ASYNC
  asm volatile ("cp.async.commit_group;\n" ::);
#endif
}

template <int N>
__device__ __forceinline__ void
gt_cp_async_wait (void)
{
#if GT_HAVE_CP_ASYNC
  asm volatile ("cp.async.wait_group %0;\n" :: "n"(N));
#endif
}

#endif
