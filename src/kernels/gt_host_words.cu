/* Stores into host memory the device maps, made by a kernel rather than
   by copies: a copy to the host queues on the copy engine behind the
   copies of C out already under way (a 64 MiB panel of C takes over a
   millisecond), while a kernel's stores go out as it runs.  For small
   things the host waits for: the locked-operand probe's tokens
   (host/gt_locked_probe.c) and kernel 11's choice of moduli
   (plan/gt_emulate.cu).  */

#include <stdint.h>
#include "gt_kernels.h"

#define WORDS_THREADS 256

/* Word 0 at word0; word i > 0 at first + (i - 1) * step; [b, e).  */
__global__ void
tokens_write (uint32_t *word0, char *first, size_t step, size_t b, size_t e,
              uint32_t token)
{
  const size_t i = b + blockIdx.x * (size_t) WORDS_THREADS + threadIdx.x;
  if (i >= e)
    return;
  volatile uint32_t *w = i ? (volatile uint32_t *) (first + (i - 1) * step)
                           : word0;
  *w = token;
}

extern "C" cudaError_t
gt_tokens_write (void *word0, void *first, size_t step, size_t b, size_t e,
                 unsigned token, cudaStream_t s)
{
  if (e <= b)
    return cudaSuccess;
  const size_t blocks = (e - b + WORDS_THREADS - 1) / WORDS_THREADS;
  if (blocks > (size_t) GT_GRID_X_MAX)
    return cudaErrorInvalidValue;
  tokens_write<<<(unsigned) blocks, WORDS_THREADS, 0, s>>> (
    (uint32_t *) word0, (char *) first, step, b, e, (uint32_t) token);
  return cudaGetLastError ();
}

/* One thread a word.  */
__global__ void
words_to_host (int *dst, const int *src)
{
  const int i = threadIdx.x;
  ((volatile int *) dst)[i] = src[i];
  __threadfence_system ();
}

extern "C" cudaError_t
gt_words_to_host (int *dst, const int *src, int count, cudaStream_t s)
{
  if (count < 1 || count > WORDS_THREADS)
    return cudaErrorInvalidValue;
  words_to_host<<<1, count, 0, s>>> (dst, src);
  return cudaGetLastError ();
}
