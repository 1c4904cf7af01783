/* test_band_threads.c -- the threads that run a split's further bands,
   kept from call to call (src/host/gt_band_threads.c): each run on its
   slot's own thread, the same thread call after call, the caller's wait
   ending only once the run has returned (at once and after the thread
   has gone to sleep), and the threads ended and made again.  Needs no
   GPU (the headers need the CUDA runtime's, CUDA_INC).  Prints "N
   passed, N failed".  */

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "gt_stage.h"
#include "gt_band_threads.h"
#include "test_check.h"

/* gt_stage.c's clock, which the library links (this test does not) */
double
gt_now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

typedef struct
{
  long ran_on;       /* the thread's id (pthread_t values are reused) */
  atomic_int runs;
  int sleep_us;
  atomic_int done;   /* set last thing in the run */
} job;

static void
run (void *arg)
{
  job *j = (job *) arg;
  if (j->sleep_us)
    usleep (j->sleep_us);
  j->ran_on = syscall (SYS_gettid);
  atomic_fetch_add (&j->runs, 1);
  atomic_store (&j->done, 1);
}

/* Runs on slots 1 and 2 at once, waited for; nonzero where both ran
   once, on threads not the caller's, and were done when the waits
   ended.  */
static int
both (job *a, job *b)
{
  const long me = syscall (SYS_gettid);
  atomic_store (&a->done, 0);
  atomic_store (&b->done, 0);
  const int ra = atomic_load (&a->runs), rb = atomic_load (&b->runs);
  if (gt_band_start (1, run, a) || gt_band_start (2, run, b))
    return 0;
  gt_band_wait (1);
  gt_band_wait (2);
  return atomic_load (&a->done) && atomic_load (&b->done)
         && atomic_load (&a->runs) == ra + 1
         && atomic_load (&b->runs) == rb + 1
         && a->ran_on != me && b->ran_on != me && a->ran_on != b->ran_on;
}

int
main (void)
{
  static job a, b;
  check (both (&a, &b), "two runs on two threads of their own");
  const long first = a.ran_on;
  int ok = 1;
  for (int i = 0; i < 20000 && ok; i++)
    ok = both (&a, &b) && a.ran_on == first;
  check (ok, "20000 more, back to back: slot 1's the same thread");
  a.sleep_us = 20000;
  check (both (&a, &b), "a run of 20 ms: the wait ends after it");
  a.sleep_us = 0;
  usleep (50000);   /* past the threads' spin: asleep */
  check (both (&a, &b) && a.ran_on == first,
         "after the threads went to sleep: woken, the same thread");
  gt_band_threads_stop ();
  check (both (&a, &b) && a.ran_on != first,
         "after gt_band_threads_stop: a new thread");
  gt_band_threads_stop ();
  gt_band_threads_stop ();
  check (1, "stopped twice: returns");
  check (gt_band_start (0, run, &a) != 0, "slot 0 (the caller's) refused");
  return checks_done ();
}
