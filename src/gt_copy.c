/* gt_copy.c -- host-memory helpers of the host path: copies split between
   the calling thread and helper threads, and helpers that fault in new
   output memory while the GPU works.  */

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined (__SSE2__)
#include <emmintrin.h>   /* _mm_pause */
#endif
#include "gt_copy.h"

/* ---- copying ---- */

/* Part `part` of `parts` of a job: contiguous jobs split by bytes, pitched
   ones by columns.  Plain memcpy: with sources that are not cached (a real
   operand), it beat streaming stores by 30% on the upload path
   (bench/host_copy: 47 against 35 GB/s through 8 MiB slots).  */
static void
copy_part (const copy_job *j, int part, int parts)
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
    }
  else
    {
      const size_t per = (j->cols + parts - 1) / parts;
      const size_t b = per * part < j->cols ? per * part : j->cols;
      const size_t e = b + per < j->cols ? b + per : j->cols;
      for (size_t c = b; c < e; c++)
        memcpy (j->dst + c * j->dld, j->src + c * j->sld,
                j->rows * sizeof (float));
    }
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
   spin on the job counter instead (gt_copy_hot); between calls they
   sleep.  */

typedef void (*task_fn) (void *arg, int part, int parts);

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
  pthread_t th[MAX_THREADS];
  helper_arg args[MAX_THREADS];
  int helpers;              /* threads running */
  pid_t pid;                /* process that started them (a fork has none) */
  atomic_ulong gen;         /* bumped for each task, after its fields */
  unsigned long gen0;       /* gen when the helpers were started */
  atomic_int pending;       /* helpers still on the task */
  atomic_int hot;           /* spin instead of sleeping */
  atomic_int quit;
  task_fn fn;               /* the task: helper i runs part first + i */
  void *arg;
  int first, parts;
} pool;

#define POOL_INIT { .mu = PTHREAD_MUTEX_INITIALIZER,                     \
                    .work = PTHREAD_COND_INITIALIZER,                    \
                    .done = PTHREAD_COND_INITIALIZER }
static pool copy_pool = POOL_INIT, fault_pool = POOL_INIT;

static inline void
relax (void)
{
#if defined (__SSE2__)
  _mm_pause ();
#endif
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
          if (atomic_load_explicit (&p->hot, memory_order_relaxed))
            {
              relax ();
              continue;
            }
          pthread_mutex_lock (&p->mu);
          while (atomic_load (&p->gen) == seen && !atomic_load (&p->hot)
                 && !atomic_load (&p->quit))
            pthread_cond_wait (&p->work, &p->mu);
          pthread_mutex_unlock (&p->mu);
        }
      if (atomic_load (&p->quit))
        break;
      seen = g;
      p->fn (p->arg, p->first + h->index, p->parts);
      if (atomic_fetch_sub_explicit (&p->pending, 1, memory_order_acq_rel)
          == 1)
        {
          pthread_mutex_lock (&p->mu);
          pthread_cond_signal (&p->done);
          pthread_mutex_unlock (&p->mu);
        }
    }
  return NULL;
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
  atomic_store (&p->quit, 0);
  atomic_store (&p->pending, 0);
}

/* Makes `helpers` threads available (fewer if the system refuses some);
   returns how many there are.  */
static int
pool_ensure (pool *p, int helpers)
{
  if (p->pid != getpid ())
    {
      /* A child process inherits the state but not the threads.  */
      pthread_mutex_init (&p->mu, NULL);
      pthread_cond_init (&p->work, NULL);
      pthread_cond_init (&p->done, NULL);
      p->helpers = 0;
      atomic_store (&p->pending, 0);
      atomic_store (&p->quit, 0);
      p->pid = getpid ();
    }
  if (p->helpers == helpers)
    return helpers;
  pool_stop (p);
  p->pid = getpid ();
  p->gen0 = atomic_load (&p->gen);
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

/* Hands parts first .. first + helpers - 1 of a task to the helpers.  */
static void
pool_post (pool *p, task_fn fn, void *arg, int first, int parts)
{
  pool_wait (p);
  p->fn = fn;
  p->arg = arg;
  p->first = first;
  p->parts = parts;
  atomic_store (&p->pending, p->helpers);
  atomic_fetch_add_explicit (&p->gen, 1, memory_order_release);
  if (!atomic_load (&p->hot))
    pool_wake (p);
}

void
gt_copy_hot (int threads, int on)
{
  if (on && threads > 1)
    {
      pool_ensure (&copy_pool, threads - 1);
      atomic_store (&copy_pool.hot, 1);
      pool_wake (&copy_pool);
    }
  else if (!on && copy_pool.pid == getpid ())
    {
      pool_wait (&copy_pool);
      atomic_store (&copy_pool.hot, 0);
    }
}

/* Helpers that fault in new output memory: GPU_TILED_PREFAULT_THREADS,
   else a quarter of the processors.  Faulting is slow on a VM (about 1.4
   ms per 64 MiB on 16 cores); with 2 helpers on 16 cores the copies out
   caught up with them and n = 4096 took 8-20 ms, with 4 it took 5.3-5.6.  */
int
gt_prefault_threads (void)
{
  const char *env = getenv ("GPU_TILED_PREFAULT_THREADS");
  long n = env ? strtol (env, NULL, 10) : 0;
  if (n <= 0)
    n = sysconf (_SC_NPROCESSORS_ONLN) / 4;
  return n < 1 ? 1 : (n > 8 ? 8 : (int) n);
}

/* Copy threads, the caller included: GPU_TILED_THREADS, else the
   processors (at most 16) less the prefault helpers, so that neither
   preempts the other: a copy waits for its slowest part.  One core copies
   6-9 GB/s; about 8 keep up with the copy engine (bench/host_copy).  */
int
gt_thread_count (void)
{
  const char *env = getenv ("GPU_TILED_THREADS");
  long n = env ? strtol (env, NULL, 10) : 0;
  if (n <= 0)
    {
      n = sysconf (_SC_NPROCESSORS_ONLN);
      if (n > 16)
        n = 16;
      n -= gt_prefault_threads ();
    }
  if (n < 1)
    n = 1;
  return n > MAX_THREADS ? MAX_THREADS : (int) n;
}

void
gt_copy (const copy_job *job, int threads)
{
  const int helpers = threads > 1
                      && job->rows * job->cols * sizeof (float)
                         >= PARALLEL_MIN_BYTES
                      ? pool_ensure (&copy_pool, threads - 1) : 0;
  if (helpers == 0)
    {
      copy_part (job, 0, 1);
      return;
    }
  copy_job j = *job;   /* the helpers read it until pool_wait returns */
  pool_post (&copy_pool, copy_task, &j, 1, helpers + 1);
  copy_part (&j, 0, helpers + 1);
  pool_wait (&copy_pool);
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

static struct
{
  uintptr_t base, begin, end;   /* chunk 0 starts at base */
  size_t chunks;
  atomic_size_t next;
  int active;
} fault_job;

static void
prefault_task (void *arg, int part, int parts)
{
  (void) arg; (void) part; (void) parts;
  const size_t page = 4096;
  for (;;)
    {
      const size_t i = atomic_fetch_add (&fault_job.next, 1);
      if (i >= fault_job.chunks)
        return;
      uintptr_t b = fault_job.base + i * FAULT_CHUNK, e = b + FAULT_CHUNK;
      if (b < fault_job.begin)
        b = fault_job.begin;
      if (e > fault_job.end)
        e = fault_job.end;
      if (e <= b)
        continue;
      /* Neither way changes what is there, so copies may write the
         region meanwhile: a write fault makes a page present once.  */
      if (madvise ((void *) b, e - b, MADV_POPULATE_WRITE) != 0)
        for (uintptr_t q = b; q < e; q += page)
          __atomic_fetch_add ((char *) q, 0, __ATOMIC_RELAXED);
    }
}

void
gt_prefault_start (void *begin, size_t len, int threads)
{
  const uintptr_t page = 4096;
  fault_job.begin = ((uintptr_t) begin + page - 1) / page * page;
  fault_job.end = ((uintptr_t) begin + len) / page * page;
  fault_job.base = fault_job.begin / FAULT_CHUNK * FAULT_CHUNK;
  fault_job.chunks = fault_job.end > fault_job.begin
                     ? (fault_job.end - fault_job.base + FAULT_CHUNK - 1)
                       / FAULT_CHUNK : 0;
  atomic_store (&fault_job.next, 0);
  fault_job.active = 1;
  const int helpers = pool_ensure (&fault_pool, threads);
  if (helpers > 0)
    pool_post (&fault_pool, prefault_task, NULL, 0, helpers);
}

void
gt_prefault_wait (void)
{
  if (!fault_job.active)
    return;
  if (atomic_load (&fault_job.next) < fault_job.chunks)
    {
      /* Chunks left: the caller and the copy helpers join in.  */
      const int helpers = copy_pool.pid == getpid () ? copy_pool.helpers : 0;
      if (helpers > 0)
        pool_post (&copy_pool, prefault_task, NULL, 1, helpers + 1);
      prefault_task (NULL, 0, 1);
      if (helpers > 0)
        pool_wait (&copy_pool);
    }
  pool_wait (&fault_pool);
  fault_job.active = 0;
}

void
gt_workers_stop (void)
{
  gt_prefault_wait ();
  pool_stop (&copy_pool);
  pool_stop (&fault_pool);
}
