/* gt_copy.c -- host-memory helpers of the host path: a copier that
   splits each copy between the calling thread and helper threads, and
   helpers that fault in new output memory while the GPU works.  */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "gt_copy.h"

/* Part `part` of `parts` of a job: contiguous jobs split by bytes, pitched
   ones by columns.  */
void
gt_copy_part (const copy_job *j, int part, int parts)
{
  if (j->dld == j->rows && j->sld == j->rows)
    {
      const size_t n = j->rows * j->cols;
      size_t per = (n + parts - 1) / parts;
      per = (per + 15) / 16 * 16;   /* whole 64-byte lines */
      const size_t b = per * part < n ? per * part : n;
      const size_t e = b + per < n ? b + per : n;
      if (e > b)
        memcpy (j->dst + b, j->src + b, (e - b) * sizeof (float));
      return;
    }
  const size_t per = (j->cols + parts - 1) / parts;
  const size_t b = per * part < j->cols ? per * part : j->cols;
  const size_t e = b + per < j->cols ? b + per : j->cols;
  for (size_t c = b; c < e; c++)
    memcpy (j->dst + c * j->dld, j->src + c * j->sld,
            j->rows * sizeof (float));
}

static void *
helper_main (void *arg)
{
  copier *cp = (copier *) arg;
  pthread_mutex_lock (&cp->mu);
  const int me = ++cp->pending;   /* 1..helpers, counted in by start */
  unsigned long seen = cp->gen;
  if (cp->pending == cp->helpers)
    pthread_cond_signal (&cp->done);
  for (;;)
    {
      while (cp->gen == seen && !cp->quit)
        pthread_cond_wait (&cp->work, &cp->mu);
      if (cp->quit)
        break;
      seen = cp->gen;
      const copy_job job = cp->job;
      pthread_mutex_unlock (&cp->mu);
      gt_copy_part (&job, me, cp->helpers + 1);
      pthread_mutex_lock (&cp->mu);
      if (--cp->pending == 0)
        pthread_cond_signal (&cp->done);
    }
  pthread_mutex_unlock (&cp->mu);
  return NULL;
}

int
gt_thread_count (void)
{
  const char *env = getenv ("GPU_TILED_THREADS");
  long n = env ? strtol (env, NULL, 10) : 0;
  if (n <= 0)
    {
      n = sysconf (_SC_NPROCESSORS_ONLN);
      if (n > 8)
        n = 8;
    }
  if (n < 1)
    n = 1;
  return n > MAX_THREADS ? MAX_THREADS : (int) n;
}

void
gt_copier_start (copier *cp, int threads)
{
  memset (cp, 0, sizeof *cp);
  pthread_mutex_init (&cp->mu, NULL);
  pthread_cond_init (&cp->work, NULL);
  pthread_cond_init (&cp->done, NULL);
  cp->helpers = 0;
  int want = threads - 1;
  pthread_mutex_lock (&cp->mu);
  cp->helpers = want;   /* helper_main reads it for its share */
  int made = 0;
  for (; made < want; made++)
    if (pthread_create (&cp->th[made], NULL, helper_main, cp) != 0)
      break;
  cp->helpers = made;
  while (cp->pending < cp->helpers)
    pthread_cond_wait (&cp->done, &cp->mu);
  cp->pending = 0;
  pthread_mutex_unlock (&cp->mu);
}

void
gt_copier_stop (copier *cp)
{
  pthread_mutex_lock (&cp->mu);
  cp->quit = 1;
  pthread_cond_broadcast (&cp->work);
  pthread_mutex_unlock (&cp->mu);
  for (int i = 0; i < cp->helpers; i++)
    pthread_join (cp->th[i], NULL);
  pthread_cond_destroy (&cp->work);
  pthread_cond_destroy (&cp->done);
  pthread_mutex_destroy (&cp->mu);
}

void
gt_copier_run (copier *cp, const copy_job *job)
{
  if (cp == NULL || cp->helpers == 0
      || job->rows * job->cols * sizeof (float) < PARALLEL_MIN_BYTES)
    {
      gt_copy_part (job, 0, 1);
      return;
    }
  pthread_mutex_lock (&cp->mu);
  cp->job = *job;
  cp->pending = cp->helpers;
  cp->gen++;
  pthread_cond_broadcast (&cp->work);
  pthread_mutex_unlock (&cp->mu);
  gt_copy_part (job, 0, cp->helpers + 1);
  pthread_mutex_lock (&cp->mu);
  while (cp->pending > 0)
    pthread_cond_wait (&cp->done, &cp->mu);
  pthread_mutex_unlock (&cp->mu);
}

/* ---- prefault: fault in the (new) output while the GPU works ---- */

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif



/* Faults in one region of the output without changing its contents
   (MADV_POPULATE_WRITE), or by writing zeros where the kernel lacks it;
   either way it ends before the first result is copied there.  */
static void
prefault_region (const prefaulter *pf, int part)
{
  const size_t page = 4096;
  const size_t per = (pf->len / pf->parts + page - 1) / page * page;
  uintptr_t b = (uintptr_t) pf->begin + per * part;
  uintptr_t e = b + per;
  const uintptr_t end = (uintptr_t) pf->begin + pf->len;
  if (e > end)
    e = end;
  b = (b + page - 1) / page * page;
  e = e / page * page;
  if (e <= b)
    return;
  if (madvise ((void *) b, e - b, MADV_POPULATE_WRITE) != 0)
    for (uintptr_t p = b; p < e; p += page)
      *(volatile char *) p = 0;
}

static void *
prefault_main (void *arg)
{
  const prefault_arg *a = (const prefault_arg *) arg;
  prefaulter *pf = a->pf;
  pthread_mutex_lock (&pf->mu);
  while (!pf->go)
    pthread_cond_wait (&pf->cv, &pf->mu);
  pthread_mutex_unlock (&pf->mu);
  prefault_region (pf, a->part);
  return NULL;
}

void
gt_prefault_start (prefaulter *pf, void *begin, size_t len, int parts)
{
  pf->begin = (char *) begin;
  pf->len = len;
  pf->parts = parts;
  pf->started = 0;
  pf->go = 0;
  pthread_mutex_init (&pf->mu, NULL);
  pthread_cond_init (&pf->cv, NULL);
  for (int i = 0; i < parts; i++)
    {
      pf->args[i].pf = pf;
      pf->args[i].part = i;
      if (pthread_create (&pf->th[i], NULL, prefault_main, &pf->args[i])
          != 0)
        break;
      pf->started++;
    }
  pthread_mutex_lock (&pf->mu);
  pf->go = 1;
  pthread_cond_broadcast (&pf->cv);
  pthread_mutex_unlock (&pf->mu);
  /* Regions no thread could be started for are done here.  */
  for (int i = pf->started; i < parts; i++)
    prefault_region (pf, i);
}

void
gt_prefault_finish (prefaulter *pf)
{
  for (int i = 0; i < pf->started; i++)
    pthread_join (pf->th[i], NULL);
  pf->started = 0;
  pthread_cond_destroy (&pf->cv);
  pthread_mutex_destroy (&pf->mu);
}
