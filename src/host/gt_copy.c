/* gt_copy.c -- host-memory helpers of the host path: copies split between
   the calling thread and helper threads, and helpers that fault in new
   output memory while the GPU works.  Every thread and all the state
   belong to a gt_workers, one per device context.  */

#define _DEFAULT_SOURCE   /* madvise under -std=c11 as well */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined (__SSE2__)
#include <emmintrin.h>   /* _mm_pause, streaming stores */
#endif
#include "gt_copy.h"

/* ---- copying ---- */

/* Part `part` of `parts` of a converting job (doubles to floats), split by
   columns, or by elements where it is one column.  */
static void
convert_part (const copy_job *j, int part, int parts)
{
  const size_t per_elem = j->elem / sizeof (float);   /* 1, or 2: complex */
  const size_t cols = j->cols > 1 ? j->cols : (size_t) parts;
  const size_t len = j->cols > 1 ? j->rows * per_elem
                                 : (j->rows * per_elem + parts - 1) / parts;
  size_t b, e;
  gt_copy_share (cols, part, parts, &b, &e);
  for (size_t c = b; c < e; c++)
    {
      float *d = (float *) j->dst + (j->cols > 1 ? c * j->dld * per_elem
                                                 : c * len);
      const double *s = (const double *) j->src
                        + (j->cols > 1 ? c * j->sld * per_elem : c * len);
      size_t n = len;
      if (j->cols <= 1 && c * len + n > j->rows * per_elem)
        n = c * len < j->rows * per_elem ? j->rows * per_elem - c * len : 0;
      for (size_t i = 0; i < n; i++)
        d[i] = (float) s[i];
    }
}

/* n bytes from src to dst, dst's whole 16-byte pieces with streaming
   stores (the caller fences).  */
static void
copy_stream (unsigned char *dst, const unsigned char *src, size_t n)
{
#if defined (__SSE2__)
  size_t head = (16 - ((uintptr_t) dst & 15)) & 15;
  head = head < n ? head : n;
  memcpy (dst, src, head);
  dst += head;
  src += head;
  n -= head;
  size_t i = 0;
  for (; i + 64 <= n; i += 64)
    {
      const __m128i a = _mm_loadu_si128 ((const __m128i *) (src + i));
      const __m128i b = _mm_loadu_si128 ((const __m128i *) (src + i + 16));
      const __m128i c = _mm_loadu_si128 ((const __m128i *) (src + i + 32));
      const __m128i d = _mm_loadu_si128 ((const __m128i *) (src + i + 48));
      _mm_stream_si128 ((__m128i *) (dst + i), a);
      _mm_stream_si128 ((__m128i *) (dst + i + 16), b);
      _mm_stream_si128 ((__m128i *) (dst + i + 32), c);
      _mm_stream_si128 ((__m128i *) (dst + i + 48), d);
    }
  for (; i + 16 <= n; i += 16)
    _mm_stream_si128 ((__m128i *) (dst + i),
                      _mm_loadu_si128 ((const __m128i *) (src + i)));
  memcpy (dst + i, src + i, n - i);
#else
  memcpy (dst, src, n);
#endif
}

/* Part `part` of `parts` of a job: contiguous jobs split by bytes, pitched
   ones by columns.  Into the staging slots, plain memcpy for calls of
   64 MiB or more, whose kernels hide the copy engine's slower reads of
   freshly written slots (streaming stores cost those calls more);
   j->stream for smaller calls (see GT_MID_MAX_BYTES in gt_call.h).  Out
   of them into a result (j->stream), streaming stores: a plain store
   first reads each line of the destination (memory that no cache holds:
   a fresh result, faulted in ahead by the prefault helpers): one more
   pass over the result's memory, on hosts whose memory bandwidth bounds
   the call.  */
static void
copy_bytes (const copy_job *j, unsigned char *dst, const unsigned char *src,
            size_t n)
{
  if (j->stream)
    copy_stream (dst, src, n);
  else
    memcpy (dst, src, n);
}

static void
copy_part (const copy_job *j, int part, int parts)
{
  unsigned char *dst = (unsigned char *) j->dst;
  const unsigned char *src = (const unsigned char *) j->src;
  if (j->selem && j->selem != j->elem)
    convert_part (j, part, parts);
  else if (j->dld == j->rows && j->sld == j->rows)
    {
      const size_t n = j->rows * j->cols * j->elem;
      size_t per = (n + parts - 1) / parts;
      per = (per + 63) / 64 * 64;   /* whole 64-byte lines */
      const size_t b = per * part < n ? per * part : n;
      const size_t e = b + per < n ? b + per : n;
      if (e > b)
        copy_bytes (j, dst + b, src + b, e - b);
    }
  else
    {
      size_t b, e;
      gt_copy_share (j->cols, part, parts, &b, &e);
      const size_t dpitch = j->dld * j->elem, spitch = j->sld * j->elem;
      for (size_t c = b; c < e; c++)
        copy_bytes (j, dst + c * dpitch, src + c * spitch, j->rows * j->elem);
    }
#if defined (__SSE2__)
  if (j->stream)
    _mm_sfence ();   /* before the part is reported done */
#endif
}

static void
copy_task (void *arg, int part, int parts)
{
  copy_part ((const copy_job *) arg, part, parts);
}

/* ---- persistent helper threads ---- */

/* Handing a job to sleeping threads costs about 85 us on a 16-core VM
   (bench/host_copy: each wake-up is a futex call and a reschedule), as
   long as copying 8 MiB.  So while a call is streaming, the copy helpers
   spin on the job counter instead (gt_copy_hot), and after it they go on
   spinning for a short while (gt_copy_linger), so that the next call of
   a loop finds them awake, as OpenMP runtimes keep theirs; then they
   sleep.  While they linger they yield the core at every turn: a
   product of the host's BLAS right after a call (Octave's *) otherwise
   waited for cores they held, and 128^3 single took 2 ms instead of
   50 us (bench/RESULTS.md, "Panels side by side").  */

typedef void (*task_fn) (void *arg, int part, int parts);

/* A task's generation carries the number of helpers that run it (the
   pool's active count when it was posted) in its low bits, so that a
   helper that does not run a task and falls behind (it holds no one up)
   reads the count of the task it saw, not of one posted since.  */
#define GEN_SHIFT 6
#define GEN_RUNNERS ((1ul << GEN_SHIFT) - 1)
_Static_assert (GT_COPY_MAX_THREADS <= (1 << GEN_SHIFT), "runners in gen");

struct pool;

typedef struct
{
  struct pool *p;
  int index;
} helper_arg;

typedef struct pool
{
  pthread_mutex_t mu;
  pthread_cond_t work, done;
  pthread_t th[GT_COPY_MAX_THREADS];
  helper_arg args[GT_COPY_MAX_THREADS];
  int helpers;              /* threads running */
  atomic_int active;        /* of them, those that take tasks and spin
                               (pool_ensure): fewer than run where a call
                               wants fewer, without stopping the rest */
  pid_t pid;                /* process that started them (a fork has none) */
  atomic_ulong gen;         /* bumped for each task, after its fields;
                               the low bits: its runners (GEN_SHIFT) */
  unsigned long gen0;       /* gen when the helpers were started */
  atomic_int pending;       /* parts of the task not yet done */
  atomic_int hot;           /* spin instead of sleeping */
  atomic_ulong linger_until;   /* and until then (ns, gt_now_ns), idle */
  unsigned long linger_ns;     /* how long after a call */
  atomic_int quit;
  /* The task: whoever is free takes its next part (run_parts), the
     caller too, so that a helper that the system has not run yet holds
     no one up (on a loaded host its time slice is milliseconds).  */
  _Atomic (task_fn) fn;
  _Atomic (void *) arg;
  /* the claim word: the task's generation (bits 32-63), its parts
     (16-31) and its next part (0-15) */
  _Atomic uint64_t claim;
} pool;

/* A region being faulted in (see the prefault section).  */
typedef struct
{
  uintptr_t base, begin, end;   /* chunk 0 starts at base */
  size_t chunks;
  atomic_size_t next;
  int active;
} fault_job;

struct gt_workers
{
  pool copy, fault;
  fault_job fj;
};

static inline void
relax (void)
{
#if defined (__SSE2__)
  _mm_pause ();
#endif
}

static unsigned long
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (unsigned long) t.tv_sec * 1000000000ul + (unsigned long) t.tv_nsec;
}

/* Whether an idle helper (index i) should still spin: it is active, and
   the pool is hot (2) or a call ended less than its linger ago (1).  */
static int
spinning (pool *p, int i)
{
  if (i >= atomic_load_explicit (&p->active, memory_order_relaxed))
    return 0;
  if (atomic_load_explicit (&p->hot, memory_order_relaxed))
    return 2;
  const unsigned long until
    = atomic_load_explicit (&p->linger_until, memory_order_relaxed);
  return until != 0 && now_ns () < until;
}

static uint64_t
claim_tag (unsigned long gen)
{
  return (uint64_t) (gen >> GEN_SHIFT) & 0xffffffffu;
}

/* Runs parts of the task of generation g while any is left untaken.  The
   claim word says whether g is still the task: a helper that comes late,
   after the caller finished g and posted another, takes nothing (fn and
   arg may then be the next task's; they are called only for a part of g
   taken in the claim word, and g's fields stay until all its parts are
   done).  */
static void
run_parts (pool *p, unsigned long g)
{
  const task_fn fn = atomic_load_explicit (&p->fn, memory_order_relaxed);
  void *const arg = atomic_load_explicit (&p->arg, memory_order_relaxed);
  uint64_t c = atomic_load_explicit (&p->claim, memory_order_acquire);
  for (;;)
    {
      const int parts = (int) ((c >> 16) & 0xffff), i = (int) (c & 0xffff);
      if ((c >> 32) != claim_tag (g) || i >= parts)
        return;
      if (!atomic_compare_exchange_weak_explicit (&p->claim, &c, c + 1,
                                                  memory_order_acq_rel,
                                                  memory_order_acquire))
        continue;
      fn (arg, i, parts);
      if (atomic_fetch_sub_explicit (&p->pending, 1, memory_order_acq_rel)
          == 1)
        {
          pthread_mutex_lock (&p->mu);
          pthread_cond_signal (&p->done);
          pthread_mutex_unlock (&p->mu);
        }
      c = atomic_load_explicit (&p->claim, memory_order_acquire);
    }
}

static void *
helper_main (void *arg)
{
  const helper_arg *h = (const helper_arg *) arg;
  pool *p = h->p;
  /* A task may be posted before this thread first runs: count from the
     generation the pool was started at, not from what gen is now.  */
  unsigned long seen = p->gen0;
  for (;;)
    {
      unsigned long g;
      while ((g = atomic_load_explicit (&p->gen, memory_order_acquire))
             == seen && !atomic_load (&p->quit))
        {
          const int spin = spinning (p, h->index);
          if (spin)
            {
              if (spin > 1)
                relax ();
              else
                sched_yield ();
              continue;
            }
          pthread_mutex_lock (&p->mu);
          while (atomic_load (&p->gen) == seen
                 && !(atomic_load (&p->hot)
                      && h->index < atomic_load (&p->active))
                 && !atomic_load (&p->quit))
            pthread_cond_wait (&p->work, &p->mu);
          pthread_mutex_unlock (&p->mu);
        }
      if (atomic_load (&p->quit))
        break;
      seen = g;
      if (h->index >= (int) (g & GEN_RUNNERS))   /* not this task's */
        continue;
      run_parts (p, g);
    }
  return NULL;
}

/* Returns 0, or -1 with nothing left to destroy.  */
static int
pool_init (pool *p)
{
  atomic_init (&p->gen, 0);
  atomic_init (&p->pending, 0);
  atomic_init (&p->claim, 0);
  atomic_init (&p->fn, NULL);
  atomic_init (&p->arg, NULL);
  atomic_init (&p->active, 0);
  atomic_init (&p->hot, 0);
  atomic_init (&p->linger_until, 0);
  p->linger_ns = 0;
  atomic_init (&p->quit, 0);
  p->helpers = 0;
  p->pid = getpid ();
  if (pthread_mutex_init (&p->mu, NULL) != 0)
    return -1;
  if (pthread_cond_init (&p->work, NULL) == 0)
    {
      if (pthread_cond_init (&p->done, NULL) == 0)
        return 0;
      pthread_cond_destroy (&p->work);
    }
  pthread_mutex_destroy (&p->mu);
  return -1;
}

/* After pool_stop.  */
static void
pool_destroy (pool *p)
{
  /* In a fork that never used the pool they may be in a parent thread's
     state; leave them.  */
  if (p->pid != getpid ())
    return;
  pthread_cond_destroy (&p->done);
  pthread_cond_destroy (&p->work);
  pthread_mutex_destroy (&p->mu);
}

static void
pool_wake (pool *p)
{
  pthread_mutex_lock (&p->mu);
  pthread_cond_broadcast (&p->work);
  pthread_mutex_unlock (&p->mu);
}

static void
pool_stop (pool *p)
{
  if (p->helpers == 0 || p->pid != getpid ())
    {
      p->helpers = 0;
      return;
    }
  atomic_store (&p->quit, 1);
  pool_wake (p);
  for (int i = 0; i < p->helpers; i++)
    pthread_join (p->th[i], NULL);
  p->helpers = 0;
  atomic_store (&p->active, 0);
  atomic_store (&p->quit, 0);
  atomic_store (&p->pending, 0);
}

/* Makes `helpers` threads take the pool's tasks (fewer if the system
   refuses some, and never more than the caller makes GT_COPY_MAX_THREADS
   with); returns how many do.  Where more run, the others stay, asleep,
   for a later call that wants them: a pool that stops and starts its
   threads costs about 1 ms, which calls that alternate between counts
   (a product's split of copy and prefault threads) would pay every
   time.  */
static int
pool_ensure (pool *p, int helpers)
{
  if (helpers < 0)
    helpers = 0;
  if (helpers > GT_COPY_MAX_THREADS - 1)
    helpers = GT_COPY_MAX_THREADS - 1;
  if (p->pid != getpid ())
    {
      /* A child process inherits the state but not the threads.  */
      pthread_mutex_init (&p->mu, NULL);
      pthread_cond_init (&p->work, NULL);
      pthread_cond_init (&p->done, NULL);
      p->helpers = 0;
      atomic_store (&p->active, 0);
      atomic_store (&p->pending, 0);
      /* no part of the parent's last task left to take */
      atomic_store (&p->claim, claim_tag (atomic_load (&p->gen)) << 32);
      atomic_store (&p->quit, 0);
      p->pid = getpid ();
    }
  if (p->helpers >= helpers)
    {
      /* those made active may be asleep while the pool is hot */
      if (atomic_exchange (&p->active, helpers) < helpers)
        pool_wake (p);
      return helpers;
    }
  pool_stop (p);
  p->gen0 = atomic_load (&p->gen);
  /* before they start: one that found itself inactive would sleep through
     the tasks of a hot pool */
  atomic_store (&p->active, helpers);
  int made = 0;
  for (; made < helpers; made++)
    {
      p->args[made].p = p;
      p->args[made].index = made;
      if (pthread_create (&p->th[made], NULL, helper_main, &p->args[made])
          != 0)
        break;
    }
  p->helpers = made;
  atomic_store (&p->active, made);
  return made;
}

static void
pool_wait (pool *p)
{
  if (atomic_load_explicit (&p->hot, memory_order_relaxed))
    {
      while (atomic_load_explicit (&p->pending, memory_order_acquire) > 0)
        relax ();
      return;
    }
  pthread_mutex_lock (&p->mu);
  while (atomic_load_explicit (&p->pending, memory_order_acquire) > 0)
    pthread_cond_wait (&p->done, &p->mu);
  pthread_mutex_unlock (&p->mu);
}

/* Posts a task of `parts` parts (at most 0xffff) to the active helpers;
   the caller may take parts too (run_parts with the generation returned)
   before pool_wait.  */
static unsigned long
pool_post (pool *p, task_fn fn, void *arg, int parts)
{
  pool_wait (p);
  atomic_store_explicit (&p->fn, fn, memory_order_relaxed);
  atomic_store_explicit (&p->arg, arg, memory_order_relaxed);
  atomic_store (&p->pending, parts);
  const unsigned long runners = (unsigned long) atomic_load (&p->active);
  const unsigned long g = (((atomic_load_explicit (&p->gen,
                                                   memory_order_relaxed)
                             >> GEN_SHIFT) + 1) << GEN_SHIFT) | runners;
  atomic_store_explicit (&p->claim,
                         claim_tag (g) << 32 | (uint64_t) parts << 16,
                         memory_order_relaxed);
  atomic_store_explicit (&p->gen, g, memory_order_release);
  if (!atomic_load (&p->hot))
    pool_wake (p);
  return g;
}

void
gt_copy_hot (gt_workers *w, int threads, int on)
{
  pool *p = &w->copy;
  if (on && threads > 1)
    {
      pool_ensure (p, threads - 1);
      atomic_store (&p->hot, 1);
      pool_wake (p);
    }
  else if (!on && p->pid == getpid ())
    {
      pool_wait (p);
      atomic_store (&p->linger_until,
                    p->linger_ns ? now_ns () + p->linger_ns : 0ul);
      atomic_store (&p->hot, 0);
    }
}

void
gt_copy_linger (gt_workers *w, unsigned long microseconds)
{
  w->copy.linger_ns = microseconds * 1000ul;
}

void
gt_copy_rest (gt_workers *w)
{
  if (w && w->copy.pid == getpid ())
    atomic_store (&w->copy.linger_until, 0ul);
}

/* Default helpers to fault in new output with (the caller may take a
   count from GPU_TILED_PREFAULT_THREADS instead): a quarter of the
   processors, at most 4.  Faulting is slow on a VM (about 1.4 ms per 64
   MiB on 16 cores); with 2 helpers on 16 cores the copies out caught up
   with them and n = 4096 took 8-20 ms, with 4 it took 5.3-5.6.  On a
   32-core host 4 helpers and 12 copy threads beat 8 and 8 by 16% at
   single 8192^3 and 16384^3 (bench/RESULTS.md, "Kernel 11 keeps A").  */
int
gt_prefault_default_threads (void)
{
  const long n = sysconf (_SC_NPROCESSORS_ONLN) / 4;
  return n < 1 ? 1 : (n > 4 ? 4 : (int) n);
}

/* Default copy threads, the caller included (the caller may take a count
   from GPU_TILED_THREADS instead): the processors (at most 16) less the
   prefault helpers, so that neither preempts the other: a copy waits for
   its slowest part.  One core copies 6-9 GB/s; about 8 keep up with the
   copy engine (bench/host_copy).  */
int
gt_copy_default_threads (int prefault_threads)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  if (n > 16)
    n = 16;
  n -= prefault_threads;
  if (n < 1)
    n = 1;
  return n > GT_COPY_MAX_THREADS ? GT_COPY_MAX_THREADS : (int) n;
}

void
gt_copy (gt_workers *w, const copy_job *job, int threads)
{
  const int helpers = threads > 1
                      && job->rows * job->cols * job->elem
                         >= GT_COPY_PARALLEL_MIN_BYTES
                      ? pool_ensure (&w->copy, threads - 1) : 0;
  if (helpers == 0)
    {
      copy_part (job, 0, 1);
      return;
    }
  copy_job j = *job;   /* the helpers read it until pool_wait returns */
  run_parts (&w->copy, pool_post (&w->copy, copy_task, &j, helpers + 1));
  pool_wait (&w->copy);
}

void
gt_copy_parts (gt_workers *w, int threads,
               void (*fn) (void *arg, int part, int parts), void *arg)
{
  const int helpers = w && threads > 1 ? pool_ensure (&w->copy, threads - 1)
                                       : 0;
  if (helpers == 0)
    {
      fn (arg, 0, 1);
      return;
    }
  run_parts (&w->copy, pool_post (&w->copy, fn, arg, helpers + 1));
  pool_wait (&w->copy);
}

/* ---- prefault: fault in the (new) output while the GPU works ---- */

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The region in 2 MiB chunks (huge pages where the kernel gives them),
   taken in turn by whoever is free: the prefault helpers from the start,
   and in gt_prefault_wait the caller and the copy helpers too, so the
   wait is short even when the copies kept the memory bus busy.  */
#define FAULT_CHUNK ((uintptr_t) 2 << 20)

static void
prefault_task (void *arg, int part, int parts)
{
  fault_job *f = (fault_job *) arg;
  (void) part; (void) parts;
  const size_t page = 4096;
  for (;;)
    {
      const size_t i = atomic_fetch_add (&f->next, 1);
      if (i >= f->chunks)
        return;
      uintptr_t b = f->base + i * FAULT_CHUNK, e = b + FAULT_CHUNK;
      if (b < f->begin)
        b = f->begin;
      if (e > f->end)
        e = f->end;
      if (e <= b)
        continue;
      /* Neither way changes what is there, so copies may write the
         region meanwhile: a write fault makes a page present once.  An
         older kernel (before 5.14) refuses MADV_POPULATE_WRITE.  */
      if (madvise ((void *) b, e - b, MADV_POPULATE_WRITE) != 0)
        for (uintptr_t q = b; q < e; q += page)
          __atomic_fetch_add ((char *) q, 0, __ATOMIC_RELAXED);
    }
}

void
gt_advise_huge (void *begin, size_t len)
{
  const uintptr_t huge = (uintptr_t) 2 << 20;
  const uintptr_t b = ((uintptr_t) begin + huge - 1) / huge * huge;
  const uintptr_t e = ((uintptr_t) begin + len) / huge * huge;
  if (e > b)
    madvise ((void *) b, e - b, MADV_HUGEPAGE);
}

void
gt_prefault_start (gt_workers *w, void *begin, size_t len, int threads)
{
  fault_job *f = &w->fj;
  const uintptr_t page = 4096;
  gt_prefault_wait (w);   /* the helpers may still read the last region */
  f->begin = ((uintptr_t) begin + page - 1) / page * page;
  f->end = ((uintptr_t) begin + len) / page * page;
  f->base = f->begin / FAULT_CHUNK * FAULT_CHUNK;
  f->chunks = f->end > f->begin
              ? (f->end - f->base + FAULT_CHUNK - 1) / FAULT_CHUNK : 0;
  atomic_store (&f->next, 0);
  f->active = 1;
  const int helpers = pool_ensure (&w->fault, threads);
  if (helpers > 0)
    pool_post (&w->fault, prefault_task, f, helpers);
}

void
gt_prefault_wait (gt_workers *w)
{
  fault_job *f = &w->fj;
  if (!f->active)
    return;
  const pid_t me = getpid ();
  if (atomic_load (&f->next) < f->chunks)
    {
      /* Chunks left: the caller and the copy helpers join in.  */
      const int helpers = w->copy.pid == me ? w->copy.helpers : 0;
      if (helpers > 0)
        {
          run_parts (&w->copy, pool_post (&w->copy, prefault_task, f,
                                          helpers + 1));
          pool_wait (&w->copy);
        }
      else
        prefault_task (f, 0, 1);
    }
  /* A fork started mid-prefault has no helpers to wait for.  The parts
     that no fault helper took yet, the caller takes (no chunk is left
     for them).  */
  if (w->fault.pid == me)
    {
      run_parts (&w->fault, atomic_load_explicit (&w->fault.gen,
                                                  memory_order_acquire));
      pool_wait (&w->fault);
    }
  f->active = 0;
}

/* ---- lifetime ---- */

gt_workers *
gt_workers_new (void)
{
  gt_workers *w = (gt_workers *) calloc (1, sizeof *w);
  if (!w)
    return NULL;
  atomic_init (&w->fj.next, 0);
  if (pool_init (&w->copy) != 0)
    {
      free (w);
      return NULL;
    }
  if (pool_init (&w->fault) != 0)
    {
      pool_destroy (&w->copy);
      free (w);
      return NULL;
    }
  return w;
}

void
gt_workers_stop (gt_workers *w)
{
  if (!w)
    return;
  gt_prefault_wait (w);
  pool_stop (&w->copy);
  pool_stop (&w->fault);
}

void
gt_workers_free (gt_workers *w)
{
  if (!w)
    return;
  gt_workers_stop (w);
  pool_destroy (&w->copy);
  pool_destroy (&w->fault);
  free (w);
}

int
gt_workers_running (const gt_workers *w)
{
  if (!w)
    return 0;
  const pid_t me = getpid ();
  return (w->copy.pid == me ? w->copy.helpers : 0)
         + (w->fault.pid == me ? w->fault.helpers : 0);
}
