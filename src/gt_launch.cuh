/* gt_launch.cuh -- small device and launch helpers shared by the kernels.  */

#ifndef GT_LAUNCH_CUH
#define GT_LAUNCH_CUH

#include <cuda_runtime.h>

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

/* A matrix the kernels can move in 16-byte pieces: its base 16-byte
   aligned and every column too (leading dimension a multiple of 4).  */
static inline bool
gt_aligned16 (const void *p, size_t ld)
{
  return ((size_t) p % 16) == 0 && ld % 4 == 0;
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
