/* gt_locked_probe.c -- whether a locked operand's pages are still the
   process's (see gt_locked_probe in gt_locked.h).

   A lock holds the pages that were there when it was taken; where the
   process's page at an address was replaced since (an array freed and
   another made at the same address, a heap trimmed), an upload through
   the lock reads the old page, and nothing tells of it.  A result's copy
   can check itself afterwards (gt_locked_mark), but an upload's cannot:
   what it read shows only on the device.  So before the uploads, the
   device writes a word of each page through the lock (one 2-D copy of
   4-byte rows a page apart), and the host reads the words it sees: a
   word that did not arrive is a page the lock no longer holds.  Each
   word is saved first and put back after, so the operand is as it was
   before the uploads begin.  The host's two passes touch a line of every
   page, which costs a TLB walk and a miss each; they run on the copy
   threads.  */

#include <stdint.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "gpu_tiled.h"
#include "gt_locked.h"

#define STEP ((uintptr_t) GT_LOCKED_STEP)   /* as gt_locked_mark's */
#define TOKEN 0xa5a5a5a5u            /* what the device writes; a page
                                        that held it already is counted
                                        as not the lock's (a needless
                                        staging, once in 2^32) */
#define TOKEN_WORDS ((size_t) 1 << 16)   /* rows of one probe copy */
#define PARALLEL_MIN ((size_t) 1024)     /* words, for the copy threads */

static uint32_t *tokens[GT_MAX_DEVICES];   /* TOKEN_WORDS of TOKEN each */

typedef struct
{
  char *first;        /* the first page boundary after p: word 1 */
  char *p;            /* word 0 */
  size_t words;
  uint32_t *saved;
  int put_back;       /* 0: save; 1: count and put back */
  size_t missed;      /* added to by each part */
} probe_pass;

static volatile uint32_t *
word (const probe_pass *q, size_t i)
{
  return (volatile uint32_t *) (i ? q->first + (i - 1) * STEP : q->p);
}

static void
pass_part (void *arg, int part, int parts)
{
  probe_pass *q = (probe_pass *) arg;
  const size_t per = (q->words + parts - 1) / parts;
  const size_t b = per * part, e = b + per < q->words ? b + per : q->words;
  size_t missed = 0;
  for (size_t i = b; i < e; i++)
    if (!q->put_back)
      q->saved[i] = *word (q, i);
    else
      {
        missed += *word (q, i) != TOKEN || q->saved[i] == TOKEN;
        *word (q, i) = q->saved[i];
      }
  if (missed)
    __atomic_fetch_add (&q->missed, missed, __ATOMIC_RELAXED);
}

/* The device's tokens written through the lock into every word of q.  */
static cudaError_t
probe_copy (const probe_pass *q, int device)
{
  if (!tokens[device])
    {
      cudaError_t err = cudaMalloc ((void **) &tokens[device],
                                    TOKEN_WORDS * sizeof (uint32_t));
      if (err == cudaSuccess)
        err = cudaMemset (tokens[device], 0xa5,
                          TOKEN_WORDS * sizeof (uint32_t));
      if (err != cudaSuccess)
        {
          cudaFree (tokens[device]);
          tokens[device] = NULL;
          return err;
        }
    }
  cudaError_t err = cudaMemcpy ((void *) q->p, tokens[device],
                                sizeof (uint32_t), cudaMemcpyDeviceToHost);
  for (size_t i = 1; i < q->words && err == cudaSuccess; i += TOKEN_WORDS)
    {
      const size_t n = q->words - i < TOKEN_WORDS ? q->words - i
                                                  : TOKEN_WORDS;
      err = cudaMemcpy2D ((void *) word (q, i), STEP, tokens[device],
                          sizeof (uint32_t), sizeof (uint32_t), n,
                          cudaMemcpyDeviceToHost);
    }
  return err;
}

size_t
gt_locked_probe (const char *p, size_t bytes, int device, gt_workers *w,
                 int threads)
{
  if (device < 0 || device >= GT_MAX_DEVICES || bytes < sizeof (uint32_t)
      || (uintptr_t) p % sizeof (uint32_t))
    return (size_t) -1;
  probe_pass q = { NULL, (char *) p, 1, NULL, 0, 0 };
  const uintptr_t first = ((uintptr_t) p / STEP + 1) * STEP;
  const uintptr_t end = (uintptr_t) p + bytes - sizeof (uint32_t);
  q.first = (char *) first;
  if (first <= end)
    q.words += (end - first) / STEP + 1;
  q.saved = (uint32_t *) malloc (q.words * sizeof *q.saved);
  if (!q.saved)
    return (size_t) -1;
  const int t = q.words >= PARALLEL_MIN ? threads : 1;
  gt_copy_parts (w, t, pass_part, &q);
  const cudaError_t err = probe_copy (&q, device);
  /* put back whether or not the copy ran (where it failed midway, the
     words it wrote are restored too) */
  q.put_back = 1;
  gt_copy_parts (w, t, pass_part, &q);
  free (q.saved);
  if (err != cudaSuccess)
    {
      cudaGetLastError ();
      return (size_t) -1;
    }
  return q.missed;
}

void
gt_locked_probe_forget (int lost)
{
  for (int d = 0; d < GT_MAX_DEVICES; d++)
    if (tokens[d])
      {
        int cur;
        if (d != lost && cudaGetDevice (&cur) == cudaSuccess)
          {
            cudaSetDevice (d);
            cudaFree (tokens[d]);
            cudaSetDevice (cur);
          }
        cudaGetLastError ();
        tokens[d] = NULL;
      }
}
