/* test_band_threads.c -- the threads that run a split's further bands,
   kept from call to call (src/host/gt_band_threads.c): each run on its
   slot's own thread, the same thread call after call, sleeping between
   runs and spinning; the caller's wait ending only once the run has
   returned; the spin ended by gt_band_rest; the threads ended and made
   again, and made afresh in a forked child.  Needs no GPU (the headers
   need the CUDA runtime's, CUDA_INC).  Prints "N passed, N failed".  */

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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

/* Runs on slots 1 and 2 at once, each thread spinning spin_s after it,
   waited for; nonzero where both ran once, on threads not the caller's,
   and were done when the waits ended.  */
static int
both (job *a, job *b, double spin_s)
{
  const long me = syscall (SYS_gettid);
  atomic_store (&a->done, 0);
  atomic_store (&b->done, 0);
  const int ra = atomic_load (&a->runs), rb = atomic_load (&b->runs);
  if (gt_band_start (1, run, a, spin_s) || gt_band_start (2, run, b, spin_s))
    return 0;
  gt_band_wait (1);
  gt_band_wait (2);
  return atomic_load (&a->done) && atomic_load (&b->done)
         && atomic_load (&a->runs) == ra + 1
         && atomic_load (&b->runs) == rb + 1
         && a->ran_on != me && b->ran_on != me && a->ran_on != b->ran_on;
}

/* n calls back to back; nonzero where each was right, slot 1's on
   thread `on`.  */
static int
many (job *a, job *b, int n, double spin_s, long on)
{
  int ok = 1;
  for (int i = 0; i < n && ok; i++)
    ok = both (a, b, spin_s) && a->ran_on == on;
  return ok;
}

/* The process's CPU seconds over the next `seconds` (the caller asleep).  */
static double
cpu_over (double seconds)
{
  struct timespec t0, t1;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t0);
  usleep ((useconds_t) (seconds * 1e6));
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t1);
  return (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
}

int
main (void)
{
  static job a, b;
  check (both (&a, &b, 0), "two runs on two threads of their own");
  const long first = a.ran_on;
  check (many (&a, &b, 2000, 0, first),
         "2000 more, each thread asleep between: the same thread");
  check (many (&a, &b, 2000, 2e-3, first),
         "2000 more, each thread spinning between");
  a.sleep_us = 20000;
  check (both (&a, &b, 0), "a run of 20 ms: the wait ends after it");
  a.sleep_us = 0;
  check (both (&a, &b, 5.0), "a run, then 5 s of spin after it");
  check (cpu_over (0.1) > 0.025, "... the spinning threads take the cores");
  gt_band_rest ();
  usleep (20000);
  check (cpu_over (0.1) < 0.01, "gt_band_rest: the threads asleep");
  check (both (&a, &b, 0) && a.ran_on == first, "... and woken by a run");
  pid_t child = fork ();
  if (child == 0)
    {
      alarm (20);   /* a child whose wait hangs fails */
      _exit (both (&a, &b, 0) && a.ran_on != first ? 0 : 1);
    }
  int status = -1;
  waitpid (child, &status, 0);
  check (WIFEXITED (status) && WEXITSTATUS (status) == 0,
         "in a forked child: runs on threads of its own");
  check (both (&a, &b, 0) && a.ran_on == first,
         "... and the parent's threads unchanged");
  gt_band_threads_stop ();
  check (both (&a, &b, 0) && a.ran_on != first,
         "after gt_band_threads_stop: a new thread");
  gt_band_threads_stop ();
  gt_band_threads_stop ();
  check (1, "stopped twice: returns");
  check (gt_band_start (0, run, &a, 0) != 0, "slot 0 (the caller's) refused");
  return checks_done ();
}
