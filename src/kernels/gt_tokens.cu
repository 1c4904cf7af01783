/* The locked-operand probe's tokens, written by a kernel through the
   lock (host memory the device maps) rather than by copies: a copy to
   the host queues on the copy engine behind the copies of C out already
   under way, while the kernel's stores go out as soon as it runs (see
   host/gt_locked_probe.c).  Word 0 is at word0; word i > 0 at first +
   (i - 1) * step.  */

#include <stdint.h>
#include "gt_kernels.h"

#define TOKEN_THREADS 256

__global__ void
tokens_write (uint32_t *word0, char *first, size_t step, size_t b, size_t e,
              uint32_t token)
{
  const size_t i = b + blockIdx.x * (size_t) TOKEN_THREADS + threadIdx.x;
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
  const size_t blocks = (e - b + TOKEN_THREADS - 1) / TOKEN_THREADS;
  if (blocks > (size_t) GT_GRID_X_MAX)
    return cudaErrorInvalidValue;
  tokens_write<<<(unsigned) blocks, TOKEN_THREADS, 0, s>>> (
    (uint32_t *) word0, (char *) first, step, b, e, (uint32_t) token);
  return cudaGetLastError ();
}
