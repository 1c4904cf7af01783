/* test_copy.c -- tests of the host path's copy and prefault helpers
   (src/host/gt_copy.c); they need no GPU.  Prints "N passed, N failed".  */

#define _GNU_SOURCE   /* fork, pthread_barrier_t, CPU affinity */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "gt_copy.h"
#include "test_check.h"

/* Element sizes: single, double, complex double.  */
#define F sizeof (float)
#define D sizeof (double)
#define Z (2 * sizeof (double))

/* Source bytes: well mixed, so a byte copied from the wrong place shows,
   and never 0xff, the destination's poison.  */
static unsigned char
value (size_t i)
{
  uint64_t x = (uint64_t) i * 0x9e3779b97f4a7c15u;
  x ^= x >> 31;
  x *= 0xd6e8feb86659fd93u;
  x ^= x >> 32;
  return (unsigned char) (x % 255);
}

/* pitched_ok's copies with streaming stores (copy_job.stream), as the
   copies out of the staging slots into a result are made */
static int stream_stores;

/* A rows x cols copy of `elem`-byte elements from leading dimension sld to
   dld, the destination offset by `shift` elements (so not 16-byte aligned
   when shift * elem % 16 != 0); every destination element outside the
   copy must keep its poison.  */
static int
pitched_ok (gt_workers *w, size_t elem, size_t rows, size_t cols,
            size_t sld, size_t dld, size_t shift, int threads)
{
  const size_t ns = sld * cols + 8, nd = dld * cols + shift + 8;
  unsigned char *src = malloc (ns * elem), *dst = malloc (nd * elem);
  if (!src || !dst)
    {
      free (src);
      free (dst);
      return 0;
    }
  for (size_t i = 0; i < ns * elem; i++)
    src[i] = value (i);
  memset (dst, 0xff, nd * elem);
  copy_job j = { dst + shift * elem, src, dld, sld, rows, cols, elem, 0,
                 stream_stores };
  gt_copy (w, &j, threads);
  int ok = 1;
  for (size_t i = 0; i < nd && ok; i++)
    {
      const size_t e = i - shift, c = e / dld, r = e % dld;
      const unsigned char *d = dst + i * elem;
      if (i >= shift && c < cols && r < rows)
        ok = memcmp (d, src + (r + c * sld) * elem, elem) == 0;
      else
        for (size_t b = 0; b < elem; b++)
          ok &= d[b] == 0xff;
    }
  free (src);
  free (dst);
  return ok;
}

/* Copies `bytes` in five pieces into new memory while `prefault` helpers
   fault it in, the copy helpers spinning.  */
static int
faulting_copy_ok (gt_workers *w, size_t bytes, int prefault, int threads)
{
  const size_t n = bytes / F;
  float *src = malloc (n * F), *dst = malloc (n * F);
  if (!src || !dst)
    {
      free (src);
      free (dst);
      return 0;
    }
  for (size_t i = 0; i < n; i++)
    src[i] = (float) value (i) - 127.0f;
  gt_prefault_start (w, dst, n * F, prefault);
  gt_copy_hot (w, threads, 1);
  for (size_t off = 0; off < n; off += n / 5)
    {
      const size_t len = n - off < n / 5 ? n - off : n / 5;
      copy_job j = { dst + off, src + off, len, len, len, 1, F };
      gt_copy (w, &j, threads);
    }
  gt_prefault_wait (w);
  gt_copy_hot (w, threads, 0);
  const int ok = memcmp (dst, src, n * F) == 0;
  free (src);
  free (dst);
  return ok;
}

/* One of two host threads, each with gt_workers of its own, copying at
   the same time.  */
typedef struct
{
  gt_workers *w;
  int threads, prefault;
  pthread_barrier_t *start;
  int ok;
} racer;

static void *
race (void *arg)
{
  racer *r = (racer *) arg;
  pthread_barrier_wait (r->start);
  int ok = 1;
  for (int rep = 0; rep < 6; rep++)
    {
      const size_t elem = rep % 3 == 0 ? F : (rep % 3 == 1 ? D : Z);
      ok &= pitched_ok (r->w, elem, 1023, 300, 1023, 1030, rep % 2,
                        r->threads)
            && pitched_ok (r->w, elem, 1000, 300, 1000, 1000, 0, r->threads)
            && faulting_copy_ok (r->w, (size_t) 16 << 20, r->prefault,
                                 r->threads);
    }
  /* Each has exactly the helpers it asked for: nothing shared.  */
  r->ok = ok && gt_workers_running (r->w) == r->threads - 1 + r->prefault;
  return NULL;
}

static int
two_contexts_ok (void)
{
  pthread_barrier_t start;
  pthread_barrier_init (&start, NULL, 2);
  racer r[2] = { { gt_workers_new (), 4, 2, &start, 0 },
                 { gt_workers_new (), 7, 3, &start, 0 } };
  pthread_t th[2];
  int made = 0;
  if (r[0].w && r[1].w)
    for (; made < 2; made++)
      if (pthread_create (&th[made], NULL, race, &r[made]) != 0)
        break;
  if (made == 1)   /* the barrier needs both: stand in for the second */
    pthread_barrier_wait (&start);
  for (int i = 0; i < made; i++)
    pthread_join (th[i], NULL);
  pthread_barrier_destroy (&start);
  gt_workers_free (r[0].w);
  gt_workers_free (r[1].w);
  return made == 2 && r[0].ok && r[1].ok;
}

/* Threads of this process, or -1 where /proc cannot tell.  */
static int
threads_now (void)
{
  FILE *f = fopen ("/proc/self/status", "r");
  char line[256];
  int n = -1;
  while (f && fgets (line, sizeof line, f))
    if (sscanf (line, "Threads: %d", &n) == 1)
      break;
  if (f)
    fclose (f);
  return n;
}

static void
test_copies (gt_workers *w)
{
  int ok = 1;
  for (int t = 1; t <= 8; t *= 2)
    ok &= pitched_ok (w, F, 1000, 600, 1000, 1000, 0, t)
          && pitched_ok (w, F, 1000, 600, 1000, 1000, 1, t);
  check (ok, "contiguous copies, 1-8 threads, aligned and not");

  ok = 1;
  for (int t = 1; t <= 8; t *= 2)
    ok &= pitched_ok (w, F, 1023, 700, 1023, 1024, 0, t)
          && pitched_ok (w, F, 5, 300000, 5, 8, 0, t)
          && pitched_ok (w, F, 777, 3, 777, 780, 3, t);
  check (ok, "pitched copies (odd rows, padded ld), 1-8 threads");

  ok = 1;
  for (int t = 1; t <= 8; t *= 2)
    ok &= pitched_ok (w, D, 1000, 600, 1000, 1000, 0, t)
          && pitched_ok (w, D, 1000, 600, 1000, 1000, 1, t)
          && pitched_ok (w, D, 1023, 700, 1023, 1030, 0, t)
          && pitched_ok (w, D, 777, 300, 777, 780, 3, t);
  check (ok, "doubles, contiguous and pitched, 1-8 threads");

  ok = 1;
  for (int t = 1; t <= 8; t *= 2)
    ok &= pitched_ok (w, Z, 999, 333, 999, 999, 0, t)
          && pitched_ok (w, Z, 999, 333, 999, 999, 1, t)
          && pitched_ok (w, Z, 513, 400, 513, 520, 0, t)
          && pitched_ok (w, Z, 3, 100000, 3, 5, 1, t);
  check (ok, "complex doubles (16 bytes), contiguous and pitched");

  ok = 1;
  for (int t = 2; t <= 8; t += 3)
    ok &= pitched_ok (w, 12, 1001, 333, 1001, 1001, 0, t)
          && pitched_ok (w, 12, 1001, 333, 1001, 1003, 1, t);
  check (ok, "12-byte elements (contiguous parts split elements)");

  /* every start of the destination against 16 bytes, heads and tails of
     every length, contiguous and by columns */
  stream_stores = 1;
  ok = 1;
  for (int t = 1; t <= 8; t *= 2)
    for (size_t shift = 0; shift < 16; shift++)
      ok &= pitched_ok (w, 1, 1000, 300, 1000, 1000, shift, t)
            && pitched_ok (w, 1, 37 + shift, 200, 37 + shift, 53, shift, t)
            && pitched_ok (w, F, 1023, 300, 1023, 1024, shift % 4, t)
            && pitched_ok (w, D, 5, 3000, 5, 7, shift % 2, t)
            && pitched_ok (w, Z, 17, 500, 17, 17, shift % 2, t);
  stream_stores = 0;
  check (ok, "streaming stores: every alignment, contiguous and pitched");
}

static void
test_workers (gt_workers *w)
{
  gt_workers_stop (w);
  int ok = pitched_ok (w, F, 1000, 600, 1000, 1000, 0, 8);
  gt_workers_stop (w);
  gt_workers_stop (w);
  ok &= pitched_ok (w, F, 1000, 600, 1000, 1000, 0, 3)
        && pitched_ok (w, F, 1000, 600, 1000, 1000, 0, 8);
  check (ok, "helpers stop, restart and change count");

  gt_workers_stop (w);
  ok = pitched_ok (w, F, 1000, 600, 1000, 1000, 0, 8)
       && gt_workers_running (w) == 7;
  unsigned char *p = malloc ((size_t) 8 << 20);
  gt_prefault_start (w, p, (size_t) 8 << 20, 5);
  gt_prefault_wait (w);
  ok &= gt_workers_running (w) == 7 + 5;
  gt_workers_stop (w);
  ok &= gt_workers_running (w) == 0;
  gt_workers_stop (w);
  ok &= gt_workers_running (w) == 0;
  free (p);
  check (ok, "running: copy and prefault helpers, 0 after stop");

  /* half the threshold in elements: twice it in floats, half in chars */
  const size_t tcols = GT_COPY_PARALLEL_MIN_BYTES / 2 / 100;
  gt_workers_stop (w);
  ok = pitched_ok (w, 1, 100, tcols, 100, 100, 0, 8)
       && gt_workers_running (w) == 0
       && pitched_ok (w, F, 100, tcols, 100, 100, 0, 8)
       && gt_workers_running (w) == 7;
  check (ok, "the parallel threshold counts bytes, not elements");

  gt_copy_hot (w, 8, 1);
  ok = 1;
  for (int r = 0; r < 20; r++)
    ok &= pitched_ok (w, F, 1023, 300, 1023, 1024, r % 4, 8);
  gt_copy_hot (w, 8, 0);
  ok &= pitched_ok (w, F, 1023, 300, 1023, 1024, 0, 8);
  gt_copy_hot (w, 6, 1);   /* a new count while spinning, then stop spinning */
  ok &= pitched_ok (w, F, 1023, 300, 1023, 1024, 0, 6);
  gt_workers_stop (w);
  ok &= pitched_ok (w, F, 1023, 300, 1023, 1024, 0, 6);
  gt_copy_hot (w, 6, 0);
  check (ok, "spinning helpers (a call's hot phase) copy the same");

  /* Fewer helpers than run take a call's copies (a call whose threads
     go to the prefault instead); the others stay, asleep, and take tasks
     again when a later call wants them, also while the pool spins.  */
  gt_workers_stop (w);
  ok = pitched_ok (w, F, 1023, 300, 1023, 1024, 0, 10)
       && gt_workers_running (w) == 9;
  gt_copy_hot (w, 4, 1);
  for (int r = 0; r < 10; r++)
    ok &= pitched_ok (w, F, 1023, 300, 1023, 1024, r % 4, 4);
  ok &= pitched_ok (w, F, 1023, 300, 1023, 1024, 1, 10)    /* more, hot */
        && pitched_ok (w, F, 1023, 300, 1023, 1024, 2, 3);
  gt_copy_hot (w, 4, 0);
  ok &= gt_workers_running (w) == 9
        && pitched_ok (w, F, 1023, 300, 1023, 1024, 3, 10)
        && faulting_copy_ok (w, (size_t) 24 << 20, 6, 10)
        && faulting_copy_ok (w, (size_t) 24 << 20, 2, 8)
        && faulting_copy_ok (w, (size_t) 24 << 20, 4, 12)
        && gt_workers_running (w) == 11 + 6;
  check (ok, "fewer helpers than run copy the same; the rest stay");

  /* Counts alternating from task to task, as calls with and without the
     output-heavy split do: a helper left out of one task must not take
     the next one's count for its own (each copy checked on return).  */
  ok = 1;
  for (int r = 0; r < 400 && ok; r++)
    ok = pitched_ok (w, F, 1023, 300, 1023, 1024, r % 4,
                     r % 3 == 0 ? 10 : r % 3 == 1 ? 3 : 7);
  check (ok, "helper counts alternating from copy to copy");

  /* Lingering: after a call the helpers spin on for a while, then sleep;
     copies are the same either way, and a stop ends them mid-linger.  */
  gt_copy_linger (w, 20000);
  gt_copy_hot (w, 8, 1);
  ok = pitched_ok (w, F, 1023, 300, 1023, 1024, 1, 8);
  gt_copy_hot (w, 8, 0);
  ok &= pitched_ok (w, F, 1023, 300, 1023, 1024, 2, 8);   /* lingering */
  usleep (40000);
  ok &= pitched_ok (w, F, 1023, 300, 1023, 1024, 3, 8);   /* asleep */
  gt_copy_hot (w, 8, 1);
  gt_copy_hot (w, 8, 0);
  gt_copy_rest (w);                                         /* asleep now */
  gt_copy_rest (NULL);
  ok &= pitched_ok (w, F, 1023, 300, 1023, 1024, 1, 8);
  gt_copy_hot (w, 8, 1);
  gt_copy_hot (w, 8, 0);
  gt_workers_stop (w);
  ok &= gt_workers_running (w) == 0;
  gt_copy_linger (w, 0);
  check (ok, "lingering helpers copy the same, rest and stop when told");
}

static void
test_prefault (gt_workers *w)
{
  const size_t len = (size_t) 24 << 20;
  unsigned char *p = malloc (len);
  for (size_t i = 0; i < len; i += 4096)
    p[i] = (unsigned char) (i >> 12);
  unsigned char *fresh = malloc (len);
  gt_prefault_start (w, p, len, 8);
  gt_prefault_wait (w);
  gt_prefault_start (w, fresh, len, 5);
  gt_prefault_wait (w);
  gt_prefault_wait (w);
  int ok = 1;
  for (size_t i = 0; i < len; i += 4096)
    ok &= p[i] == (unsigned char) (i >> 12);
  memset (fresh, 7, len);
  check (ok && fresh[len - 1] == 7,
         "prefault keeps contents, new memory stays usable");
  free (p);
  free (fresh);

  /* Copies may write the region while the helpers fault it in.  */
  ok = 1;
  for (int r = 0; r < 3; r++)
    ok &= faulting_copy_ok (w, (size_t) 40 << 20, 2, 6);
  check (ok, "copies into memory the helpers are faulting in");
}

/* pitched_ok called `depth` frames deeper, so that successive copies'
   jobs lie at different addresses: a helper that ran a part of a newer
   task with an older task's job (or the other way round) would copy into
   the wrong place, or leave part of a copy undone.  */
static int
deep_copy_ok (gt_workers *w, int depth, size_t cols, size_t shift,
              int threads)
{
  volatile unsigned char pad[192];
  pad[0] = (unsigned char) depth;
  if (depth > 0)
    return deep_copy_ok (w, depth - 1, cols, shift, threads)
           && pad[0] == (unsigned char) depth;
  return pitched_ok (w, F, 61, cols, 64, 61, shift, threads);
}

/* Many small copies on more threads than the host has cores, the pool
   hot, lingering and asleep in turn, jobs at varying depths of the stack
   and, between them, prefaults that the caller waits for at once (their
   chunks go to the copy pool as another task): helpers come late to
   tasks the caller has already finished (it takes every part no helper
   took), and must take nothing of them.  Each copy must still be whole
   and each prefault leave its memory as it was.  */
static void
test_late_helpers (gt_workers *w)
{
  const size_t fault_bytes = (size_t) 6 << 20;
  unsigned char *fm = malloc (fault_bytes);
  int ok = fm != NULL;
  if (fm)
    memset (fm, 0x5a, fault_bytes);
  gt_copy_linger (w, 50);
  for (int i = 0; i < 3000 && ok; i++)
    {
      const int threads = 2 + i % 15, mode = i % 3;
      if (mode == 0)
        gt_copy_hot (w, threads, 1);
      const size_t cols = GT_COPY_PARALLEL_MIN_BYTES / F / 61 + 1
                          + (size_t) (i % 7);
      ok = deep_copy_ok (w, i % 5, cols, (size_t) (i % 5), threads);
      if (i % 4 == 1)
        {
          gt_prefault_start (w, fm + (i % 3) * 4096, fault_bytes - 8192,
                             1 + i % 4);
          gt_prefault_wait (w);
          ok &= fm[0] == 0x5a && fm[fault_bytes / 2] == 0x5a
                && fm[fault_bytes - 1] == 0x5a;
        }
      if (mode == 0)
        gt_copy_hot (w, threads, 0);
      else if (mode == 2)
        gt_copy_rest (w);
    }
  gt_copy_linger (w, 0);
  free (fm);
  check (ok, "copies and prefaults whole with helpers late to their tasks");
}

/* A host BLAS after a call: a thread per core meeting at a barrier
   round after round, spinning and yielding as OpenBLAS's threads wait
   for each other.  */
typedef struct
{
  atomic_int go;        /* every thread started: their count is set */
  atomic_int arrived;
  int threads, rounds;
} rounds_job;

static void *
rounds_main (void *arg)
{
  rounds_job *j = (rounds_job *) arg;
  while (!atomic_load (&j->go))
    sched_yield ();
  for (int r = 1; r <= j->rounds; r++)
    {
      atomic_fetch_add (&j->arrived, 1);
      while (atomic_load (&j->arrived) < r * j->threads)
        sched_yield ();
    }
  return NULL;
}

static double
rounds_seconds (int threads, int rounds)
{
  rounds_job j = { 0, 0, threads, rounds };
  pthread_t t[64];
  struct timespec a, b;
  clock_gettime (CLOCK_MONOTONIC, &a);
  int started = 0;
  while (started < threads && started < 64
         && pthread_create (&t[started], NULL, rounds_main, &j) == 0)
    started++;
  j.threads = started;   /* fewer where a thread could not start */
  atomic_store (&j.go, 1);
  for (int i = 0; i < started; i++)
    pthread_join (t[i], NULL);
  clock_gettime (CLOCK_MONOTONIC, &b);
  return (double) (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec);
}

/* Helpers lingering after a call leave the cores to threads that need
   them: Octave's * after a call waited out their linger (2 ms), as they
   held the cores.  On one core, so that each thread of the rounds shares
   its core with spinning helpers: the rounds take about as long as with
   the helpers asleep, not the linger (3 s).  */
static void
test_linger_yields (gt_workers *w)
{
  const char *what = "helpers lingering after a call leave the cores to others";
  cpu_set_t all, one;
  int cpu = sched_getcpu ();
  if (pthread_getaffinity_np (pthread_self (), sizeof all, &all) != 0)
    CPU_ZERO (&all);
  for (int i = 0; (cpu < 0 || !CPU_ISSET (cpu, &all)) && i < CPU_SETSIZE;
       i++)
    if (CPU_ISSET (i, &all))
      cpu = i;
  CPU_ZERO (&one);
  if (cpu >= 0)
    CPU_SET (cpu, &one);
  if (cpu < 0 || !CPU_ISSET (cpu, &all)
      || pthread_setaffinity_np (pthread_self (), sizeof one, &one) != 0)
    {
      printf ("  %-58s skipped (no CPU affinity)\n", what);
      return;
    }
  int ok = 1;
  /* helpers started from here on run on that core too */
  gt_workers_stop (w);
  const int rounds = 2000;
  const double asleep = rounds_seconds (2, rounds);
  gt_copy_linger (w, 3000000);
  gt_copy_hot (w, 3, 1);
  ok &= pitched_ok (w, F, 1023, 300, 1023, 1024, 1, 3);
  gt_copy_hot (w, 3, 0);
  const double lingering = rounds_seconds (2, rounds);
  gt_copy_linger (w, 0);
  gt_workers_stop (w);
  pthread_setaffinity_np (pthread_self (), sizeof all, &all);
  ok &= lingering < 4 * asleep + 0.3;
  if (!ok)
    printf ("  (rounds: %.3f s with helpers lingering, %.3f s asleep)\n",
            lingering, asleep);
  check (ok, what);
}

int
main (void)
{
  const int threads_before = threads_now ();
  const int pf = gt_prefault_default_threads ();
  const int ct = gt_copy_default_threads (pf);
  check (pf >= 1 && pf <= 8 && ct >= 1 && ct <= GT_COPY_MAX_THREADS
         && ct <= 16 && gt_copy_default_threads (1000) == 1,
         "default thread counts in range");

  gt_workers *w = gt_workers_new ();
  check (w && gt_workers_running (w) == 0, "new workers start no thread");
  if (!w)
    return checks_done ();   /* (the check above failed) */
  test_copies (w);
  test_workers (w);
  test_prefault (w);
  test_late_helpers (w);
  test_linger_yields (w);

  check (two_contexts_ok (), "two workers copy from two host threads at once");

  fflush (stdout);
  const pid_t child = fork ();
  if (child == 0)
    _exit (gt_workers_running (w) == 0
           && pitched_ok (w, F, 1000, 600, 1000, 1000, 0, 8)
           && gt_workers_running (w) == 7 ? 0 : 1);
  int status = 1;
  waitpid (child, &status, 0);
  check (child > 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0,
         "a forked child copies with threads of its own");

  gt_workers_stop (NULL);
  gt_workers_free (NULL);
  check (gt_workers_running (NULL) == 0, "stop and free take NULL");

  gt_workers_free (w);
  check (threads_now () == threads_before,
         "freeing the workers leaves no thread behind");
  return checks_done ();
}
