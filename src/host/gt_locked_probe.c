/* gt_locked_probe.c -- whether a locked operand's pages are still the
   process's (see gt_locked_probe in gt_locked.h).

   A lock holds the pages that were there when it was taken; where the
   process's page at an address was replaced since (an array freed and
   another made at the same address, a heap trimmed), an upload through
   the lock reads the old page, and nothing tells of it.  A result's copy
   can check itself afterwards (gt_locked_mark), but an upload's cannot:
   what it read shows only on the device.  So once the uploads are done
   (gt_probe_later.c says when), the device writes a word of each page
   through the lock (where the caller asks and the device maps the lock,
   a kernel's stores; else 2-D copies of 4-byte rows a page apart, which
   queue on the copy engine behind copies to the host under way; on the
   calling thread's per-thread stream of the current device), and the
   host reads the words it sees: a word that did not arrive is a page the
   lock no longer holds, and the product runs again staged.  Each word is
   saved first and put back after, so the operand is as it was.  The
   host's two passes touch a line of every page, which costs a TLB walk
   and a miss each; they run on the copy threads, chunk by chunk, beside
   the device's writes into another chunk (two probes at once, each on
   threads of its own, took twice as long each: bench/RESULTS.md, "Peer
   copies beside the uploads").  */

#include <stdint.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include "gpu_tiled.h"
#include "gt_locked.h"
#include "gt_plan.h"

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
  size_t b, e;        /* this pass's words */
  int put_back;       /* 0: save; 1: count and put back */
  size_t missed;      /* added to by each part */
  char *d0, *dfirst;  /* p and first as the device sees them, where a
                         kernel writes the tokens (NULL: copies do) */
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
  size_t b, e;
  gt_copy_share (q->e - q->b, part, parts, &b, &e);
  size_t missed = 0;
  for (size_t i = q->b + b; i < q->b + e; i++)
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

/* Words [b, e) saved (put_back 0) or counted and put back (1), on the copy
   threads where there are enough of them.  */
static void
pass (probe_pass *q, size_t b, size_t e, int put_back, gt_workers *w,
      int threads)
{
  q->b = b;
  q->e = e;
  q->put_back = put_back;
  gt_copy_parts (w, e - b >= PARALLEL_MIN ? threads : 1, pass_part, q);
}

/* The device's tokens, TOKEN_WORDS of them.  */
static cudaError_t
tokens_of (int device)
{
  if (tokens[device])
    return cudaSuccess;
  cudaError_t err = cudaMalloc ((void **) &tokens[device],
                                TOKEN_WORDS * sizeof (uint32_t));
  if (err == cudaSuccess)
    err = cudaMemset (tokens[device], 0xa5, TOKEN_WORDS * sizeof (uint32_t));
  if (err != cudaSuccess)
    {
      cudaFree (tokens[device]);
      tokens[device] = NULL;
    }
  return err;
}

/* The device's tokens written through the lock into words [b, e) of q,
   queued on stream s: by a kernel where q says so, else by copies.  */
static cudaError_t
probe_copy (const probe_pass *q, int device, size_t b, size_t e,
            cudaStream_t s)
{
  if (q->d0)
    return gt_plan_write_tokens (q->d0, q->dfirst, STEP, b, e, TOKEN, s);
  cudaError_t err = cudaSuccess;
  if (b == 0)
    err = cudaMemcpyAsync ((void *) q->p, tokens[device], sizeof (uint32_t),
                           cudaMemcpyDeviceToHost, s);
  for (size_t i = b ? b : 1; i < e && err == cudaSuccess; i += TOKEN_WORDS)
    {
      const size_t n = e - i < TOKEN_WORDS ? e - i : TOKEN_WORDS;
      err = cudaMemcpy2DAsync ((void *) word (q, i), STEP, tokens[device],
                               sizeof (uint32_t), sizeof (uint32_t), n,
                               cudaMemcpyDeviceToHost, s);
    }
  return err;
}

/* The words in chunks, so that the host's passes over one chunk run while
   the device writes the tokens of another: a chunk saved, its writes
   queued, the next saved meanwhile, then once they are done the next
   chunk's writes queued and this one put back meanwhile.  Two chunks at
   least where the copy threads have work; TOKEN_WORDS at most.  */
static size_t
chunk_words (size_t words)
{
  if (words < 2 * PARALLEL_MIN)
    return words;
  size_t chunks = (words + TOKEN_WORDS - 1) / TOKEN_WORDS;
  if (chunks < 2)
    chunks = 2;
  return (words + chunks - 1) / chunks;
}

/* q's words as the device sees them, for a kernel to write the tokens
   (q->d0 NULL where the device does not map the lock: copies then).  */
static void
device_words (probe_pass *q)
{
  void *d = NULL;
  if (cudaHostGetDevicePointer (&d, q->p, 0) != cudaSuccess || !d)
    {
      cudaGetLastError ();
      return;
    }
  q->d0 = (char *) d;
  q->dfirst = q->d0 + (q->first - q->p);
}

size_t
gt_locked_probe (const char *p, size_t bytes, int device, gt_workers *w,
                 int threads, int by_kernel)
{
  if (device < 0 || device >= GT_MAX_DEVICES || bytes < sizeof (uint32_t)
      || (uintptr_t) p % sizeof (uint32_t))
    return (size_t) -1;
  probe_pass q = { NULL, (char *) p, 1, NULL, 0, 0, 0, 0, NULL, NULL };
  const uintptr_t first = ((uintptr_t) p / STEP + 1) * STEP;
  const uintptr_t end = (uintptr_t) p + bytes - sizeof (uint32_t);
  q.first = (char *) first;
  if (first <= end)
    q.words += (end - first) / STEP + 1;
  q.saved = (uint32_t *) malloc (q.words * sizeof *q.saved);
  if (!q.saved)
    return (size_t) -1;
  if (by_kernel)
    device_words (&q);
  const cudaStream_t s = cudaStreamPerThread;
  const size_t per = chunk_words (q.words);
  cudaError_t err = tokens_of (device);
  pass (&q, 0, per, 0, w, threads);
  if (err == cudaSuccess)
    err = probe_copy (&q, device, 0, per, s);
  for (size_t b = 0; b < q.words; b += per)
    {
      const size_t e = b + per < q.words ? b + per : q.words;
      const size_t e1 = e + per < q.words ? e + per : q.words;
      if (e < q.words)
        pass (&q, e, e1, 0, w, threads);
      /* a failed copy leaves the chunks after it uncopied; every chunk
         saved is put back whether or not its copy ran, once nothing
         queued can write to it any more */
      const cudaError_t done = cudaStreamSynchronize (s);
      if (err == cudaSuccess)
        err = done;
      if (err == cudaSuccess && e < q.words)
        err = probe_copy (&q, device, e, e1, s);
      pass (&q, b, e, 1, w, threads);
    }
  const size_t missed = q.missed;
  free (q.saved);
  if (err != cudaSuccess)
    {
      cudaGetLastError ();
      return (size_t) -1;
    }
  return missed;
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
