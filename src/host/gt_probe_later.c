/* gt_probe_later.c -- a call's probe of its locked operands, put off
   until the call's uploads have read them (see gt_locked.h).

   The probe (gt_locked_probe) tells whether the pages a lock holds are
   still the process's.  While the caller holds the operand its answer
   does not change (a page replaced under the lock stays replaced), so it
   may be asked at any moment of the call, as long as no upload reads the
   operand while the probe's tokens are in it, and the call does not
   return a result read from pages that were not the operand's.  Asked
   before the uploads, it held them all back (a probe of 268 MB took
   0.55-0.81 ms, of 1 GB 1.9-2.4 ms); asked once the uploads have read an
   operand, it runs beside the product's kernels, and where it finds a
   page not the lock's, the caller runs the product again, staged.

   Each product run says when it begins to read (gt_probe_reads_begin) and
   when it has queued its last upload of A, and of B (gt_probe_read_done,
   with an event after it): A is in after the first panel, B after the
   last.  An operand may be probed once no run reads it and the runs
   expected (one, or the bands of a split) have all queued their last
   upload of it (counted as the runs say it: a run after the first of a
   band, a rerun or a block, counts again, and may let the probe begin
   before another band has begun; that band then waits for it), after
   those uploads: by a run's thread where it would
   wait anyway (kernel 11's launch, while the GPU scans: gt_probe_now,
   not waiting), and by the last run at its end (waiting).  A probe on a
   thread of its own ran beside the uploads and copies out, and slowed
   them (bench/RESULTS.md, "The probe after the uploads").  A run that
   begins during a probe waits for it.  Where no run got to it (a run
   failed early), the caller's gt_probe_end probes, after every run.  An
   operand that is both A and B, or that shares memory with B (shallow
   slices of one array), is probed after B.

   B in parts: where each run reads bytes of B that no other run reads
   (one device; the bands of a split by columns) and B shares no memory
   with A, a run says each panel of B as its upload is queued
   (gt_probe_read_part), and at its end probes its own parts, adjacent
   ones as one: a token goes only into the part's own bytes (word 0 at
   its first byte, then each page boundary inside it), which no upload
   reads any more, while another band still reads its own.  So a band
   that ends first probes its share beside the others' last kernels,
   and B's probe after the runs takes only what no part took; probed
   whole, B waited for the last band's end.  Where the run's last launch
   waits for the GPU (kernel 11's scan), its parts whose uploads have
   ended are probed there (gt_probe_parts_now): no upload is left to
   slow, and the probe at its end, which ran past the GPU's last copy
   out, shrinks to the last panel; where another band's probe is under
   way there, it waits for that one while the GPU's work ahead of the
   launch lasts, where its caller asks (gt_panels.c: C staged, panels
   one after another), rather than leave its parts to its end.  Not
   inside the launches before it: there the parts' probes ran beside the
   next panels' uploads and slowed them (a split single 8192^3 1.04-1.06
   of the time; bench/RESULTS.md, "B probed by its bands").  A run
   probes only its own parts: a later run (a block of C) may read the
   same bytes again, but not while this run's probe of them runs
   (gt_probe_reads_begin waits for it).  */

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "gpu_tiled.h"
#include "gt_locked.h"

#define RANGES 2
#define EVENTS (4 * GT_MAX_DEVICES)
#define PARTS 256   /* of B, all runs together (four bands of 64 panels,
                       gt_context.h); past them, probed at the end */
/* A launch's wait probes at most this much (about 1 ms at the 260-280
   MB/ms measured for 1 GB): a probe of all of a 1 GB A there outlasted
   the GPU's work ahead of the launch (3.3 ms of kernel 11 at 16384^3)
   and held its products back (bench/RESULTS.md, "A made ahead").  The
   rest waits for the next launch, or the run's end.  */
#define STEP_BYTES ((size_t) 256 << 20)

enum { NONE, WAITING, PROBING, DONE };

/* Bytes of B a run read, and whether they were probed.  */
typedef struct
{
  const char *lo;
  size_t bytes;
  cudaEvent_t ev;             /* after their upload */
  unsigned run;               /* the run's (this_run) */
  int probed;
} probe_part;

typedef struct
{
  const char *p;
  size_t bytes;
  const char *from;           /* the bytes before it probed already (a
                                 range of no parts probed in steps) */
  int state;
  int reading, ended;         /* runs reading it; runs done with it */
  size_t missed;              /* pages not the lock's, (size_t) -1: the
                                 probe could not tell */
  cudaEvent_t ev[EVENTS];     /* after the runs' last uploads of it */
  int events;
  probe_part part[PARTS];     /* B's, said by gt_probe_read_part */
  int parts;
} probe_range;

static struct
{
  pthread_mutex_t mu;
  pthread_cond_t cv;
  probe_range r[RANGES];      /* 0: A's, 1: B's (unless B is A) */
  int b_range;                /* B's range: 1, or 0 where B is A */
  int device;                 /* the locks' */
  int expected;
  int probing;                /* a range is being probed */
  int b_alone;                /* B's range holds B only */
  int b_apart;                /* no two runs read the same bytes of B */
  int short_kernels;          /* gt_probe_begin's */
  unsigned runs_begun;
} g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };

/* The run under way on this thread (gt_probe_reads_begin's).  */
static __thread unsigned this_run;

static void
range_begin (probe_range *r, const void *p, size_t bytes)
{
  r->p = (const char *) p;
  r->bytes = bytes;
  r->from = r->p;
  r->state = p ? WAITING : NONE;
  r->reading = r->ended = r->events = r->parts = 0;
  r->missed = 0;
}

void
gt_probe_begin (const void *a, size_t a_bytes, int a_locked, const void *b,
                size_t b_bytes, int b_locked, int device, int short_kernels)
{
  /* A whose bytes B's uploads read too (A itself, or a slice of the same
     array), locked or not: one range with B where both are locked (one
     lock holds them), probed after B's uploads */
  const char *lo = (const char *) a, *hi = (const char *) a + a_bytes;
  const char *b_lo = (const char *) b, *b_hi = (const char *) b + b_bytes;
  const int one = lo < b_hi && b_lo < hi;
  if (!a_locked)
    a = NULL;
  if (!b_locked)
    b = NULL;
  if (a && b && one)
    {
      lo = b_lo < lo ? b_lo : lo;
      hi = b_hi > hi ? b_hi : hi;
    }
  pthread_mutex_lock (&g.mu);
  if (a)
    range_begin (&g.r[0], lo, (size_t) (hi - lo));
  else
    range_begin (&g.r[0], b, b_bytes);
  range_begin (&g.r[1], a && b && !one ? b : NULL, b_bytes);
  g.b_range = a && !one ? 1 : 0;
  g.b_alone = b && !one;
  g.b_apart = 1;
  g.device = device;
  g.short_kernels = short_kernels;
  g.expected = 1;
  pthread_mutex_unlock (&g.mu);
}

void
gt_probe_expect (int runs, int b_apart)
{
  pthread_mutex_lock (&g.mu);
  g.expected = runs > 1 ? runs : 1;
  g.b_apart = b_apart;
  pthread_mutex_unlock (&g.mu);
}

/* Seconds this thread has probed since it last asked, at a run's end
   (wait), or waited for another run's probe.  A probe inside a launch's
   wait for kernel 11's scan runs while the GPU works (where it outlasts
   the scan, its band still pays the excess); counted there, it made the
   band that ran it look faster than it was (a split single 4096^3 on
   two H200s: bands of 2048 + 2048 and 2304 + 1792 columns call by call,
   the second slower; bench/RESULTS.md, "A split band's own pieces of A
   back to back ...", run 9).  */
static __thread double probed_here;

static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

double
gt_probe_seconds_taken (void)
{
  const double s = probed_here;
  probed_here = 0;
  return s;
}

void
gt_probe_seconds_add (double seconds)
{
  probed_here += seconds;
}

/* Under g.mu: whether this thread may begin a probe (one at a time:
   side by side each took twice as long, and the probe's device tokens
   are made at its first use); wait: once the one under way ends.  */
static int
probe_turn (int wait)
{
  if (g.probing && wait)
    {
      /* another run's probe held this one up: the call's time, not the
         band's (gt_probe_seconds_taken) */
      const double t0 = now ();
      while (g.probing)
        pthread_cond_wait (&g.cv, &g.mu);
      probed_here += now () - t0;
    }
  return !g.probing;
}

int
gt_probe_reads_begin (void)
{
  int mask = 0;
  pthread_mutex_lock (&g.mu);
  probe_turn (1);   /* a run that begins during a probe waits for it */
  this_run = ++g.runs_begun ? g.runs_begun : ++g.runs_begun;
  for (int i = 0; i < RANGES; i++)
    if (g.r[i].state == WAITING)
      {
        g.r[i].reading++;
        mask |= 1 << i;
      }
  pthread_mutex_unlock (&g.mu);
  return mask;
}

void
gt_probe_read_done (int *mask, int operand, cudaEvent_t after)
{
  if (!*mask)
    return;
  pthread_mutex_lock (&g.mu);
  for (int i = 0; i < RANGES; i++)
    {
      const int of_a = i == 0, of_b = i == g.b_range;
      if (!(*mask & 1 << i) || (operand == 0 && (!of_a || of_b))
          || (operand == 1 && !of_b))
        continue;
      probe_range *r = &g.r[i];
      if (after && r->events < EVENTS)
        r->ev[r->events++] = after;
      else if (after)   /* no room: this run's uploads waited for here */
        cudaEventSynchronize (after);
      r->reading--;
      r->ended++;
      *mask &= ~(1 << i);
    }
  pthread_mutex_unlock (&g.mu);
}

void
gt_probe_read_part (int mask, const void *p, size_t bytes,
                    cudaEvent_t after)
{
  pthread_mutex_lock (&g.mu);
  probe_range *r = &g.r[g.b_range];
  if ((mask & 1 << g.b_range) && g.b_alone && g.b_apart && bytes
      && r->state == WAITING && r->parts < PARTS
      && (const char *) p >= r->p
      && (const char *) p + bytes <= r->p + r->bytes
      && (uintptr_t) p % sizeof (uint32_t) == 0)
    {
      probe_part *q = &r->part[r->parts++];
      q->lo = (const char *) p;
      q->bytes = bytes;
      q->ev = after;
      q->run = this_run;
      q->probed = 0;
    }
  pthread_mutex_unlock (&g.mu);
}

/* Whether range r's uploads have ended (wait: waited for); 0 where
   they have not yet, -1 where waiting for them failed.  */
static int
uploads_ended (const probe_range *r, int wait)
{
  for (int i = 0; i < r->events; i++)
    {
      const cudaError_t e = wait ? cudaEventSynchronize (r->ev[i])
                                 : cudaEventQuery (r->ev[i]);
      if (e == cudaErrorNotReady && !wait)
        return 0;
      if (e != cudaSuccess)
        {
          cudaGetLastError ();
          return -1;
        }
    }
  return 1;
}

/* Pages missed, added up ((size_t) -1: could not tell, for good).  */
static size_t
add_missed (size_t sum, size_t more)
{
  return sum == (size_t) -1 || more == (size_t) -1 ? (size_t) -1
                                                   : sum + more;
}

static int
by_lo (const void *x, const void *y)
{
  const char *a = ((const probe_part *) x)->lo;
  const char *b = ((const probe_part *) y)->lo;
  return (a > b) - (a < b);
}

/* Under g.mu: whether a probe's tokens go by a kernel (at_end: at a
   run's end or after the runs; else inside a launch's wait).  Copies to
   the host queue on the copy engine behind the copies of C out under
   way: at the end of a call they ran past its last copy out, inside the
   launches they held its products back (bench/RESULTS.md, "The probe's
   tokens and kernel 11's choice by a kernel").  A kernel's stores do not
   queue there, but a kernel waits for the multiprocessors, which kernel
   11's products hold while the launches wait: so by a kernel at the
   ends, and inside the launches only where the call's kernels are short
   (gt_probe_begin's short_kernels).  */
static int
tokens_by_kernel (int at_end)
{
  return at_end || g.short_kernels;
}

/* Range r's bytes from r->from up to end that no part probed, probed
   (the parts sorted); their count added to *bytes.  */
static size_t
probe_rest (probe_range *r, const char *end, gt_workers *w, int threads,
            int by_kernel, size_t *bytes)
{
  qsort (r->part, r->parts, sizeof r->part[0], by_lo);
  size_t missed = 0;
  const char *at = r->from;
  for (int i = 0; i <= r->parts; i++)
    {
      const probe_part *q = i < r->parts ? &r->part[i] : NULL;
      if (q && !q->probed)
        continue;
      const char *to = q ? q->lo : end;
      if (to > at)
        {
          missed = add_missed (missed, gt_locked_probe_told (at, to - at,
                                                             g.device, w,
                                                             threads,
                                                             by_kernel));
          *bytes += (size_t) (to - at);
        }
      if (q && q->lo + q->bytes > at)
        at = q->lo + q->bytes;
    }
  return missed;
}

/* The end of the next step of a range of no parts, up to `most` bytes
   on, at a page's start (a token lies at a step's first byte and at each
   page's start inside it); NULL: the rest in one (most 0, a range with
   parts, or the rest within most); r->from: none this time (most ends
   inside the step's first page).  */
static const char *
step_end (const probe_range *r, size_t most)
{
  const char *end = r->p + r->bytes;
  if (!most || r->parts || (size_t) (end - r->from) <= most)
    return NULL;
  const uintptr_t to = ((uintptr_t) r->from + most) & ~(uintptr_t) 4095;
  return to > (uintptr_t) r->from ? (const char *) to : r->from;
}

/* Under g.mu: range r probed once its uploads have ended (PROBING
   meanwhile, the mutex let go), but for the parts probed already, or only
   its next step of `most` bytes (0: all of it); the bytes it probed.  */
static size_t
probe_range_now (probe_range *r, gt_workers *w, int threads, int counted,
                 size_t most)
{
  size_t bytes = 0;
  const char *to = step_end (r, most);
  if (to == r->from)
    return 0;
  r->state = PROBING;
  g.probing++;
  const int by_kernel = tokens_by_kernel (counted);
  pthread_mutex_unlock (&g.mu);
  const double t0 = now ();
  const size_t missed = uploads_ended (r, 1) > 0
                        ? probe_rest (r, to ? to : r->p + r->bytes, w,
                                      threads, by_kernel, &bytes)
                        : (size_t) -1;
  if (counted)
    probed_here += now () - t0;
  pthread_mutex_lock (&g.mu);
  r->missed = add_missed (r->missed, missed);
  r->state = to && missed != (size_t) -1 ? WAITING : DONE;
  if (r->state == WAITING)
    r->from = to;
  g.probing--;
  pthread_cond_broadcast (&g.cv);
  return bytes;
}

/* Whether part q's upload has ended (wait: waited for, under g.mu: at
   a run's end, where its uploads ended long before; 0 where that failed,
   the part left to the probe after the runs).  */
static int
part_in (const probe_part *q, int wait)
{
  const cudaError_t e = wait ? cudaEventSynchronize (q->ev)
                             : cudaEventQuery (q->ev);
  if (e != cudaSuccess)
    cudaGetLastError ();   /* not ready, or failed */
  return e == cudaSuccess;
}

/* This run's parts not probed yet.  */
static int
own_open (const probe_part *q)
{
  return !q->probed && q->run == this_run;
}

/* Under g.mu: this run's parts of B probed once their uploads have ended
   (wait: waited for; else only those that have, and none while another
   probe runs), in runs of adjacent parts (a band's panels lie side by
   side: one probe, as each probe pays for its set-up and its waits; the
   parts of other runs, which blocks of C may have at the same bytes,
   passed over), one probe at a time; the bytes it probed.  */
static size_t
probe_own_parts (int wait, gt_workers *w, int threads)
{
  probe_range *r = &g.r[g.b_range];
  size_t bytes = 0;
  for (;;)
    {
      if (!probe_turn (wait) || r->state != WAITING)
        return bytes;
      /* no probe runs: the parts may move */
      qsort (r->part, r->parts, sizeof r->part[0], by_lo);
      int i = 0;
      while (i < r->parts && !(own_open (&r->part[i])
                               && part_in (&r->part[i], wait)))
        i++;
      if (i == r->parts)
        return bytes;
      const char *lo = r->part[i].lo, *hi = lo + r->part[i].bytes;
      r->part[i].probed = 1;   /* taken: no other thread probes them */
      for (int j = i + 1; j < r->parts; j++)
        {
          probe_part *q = &r->part[j];
          if (!own_open (q))
            continue;
          if (q->lo != hi || !part_in (q, wait))
            break;
          hi += q->bytes;
          q->probed = 1;
        }
      g.probing++;
      const int by_kernel = tokens_by_kernel (wait);
      pthread_mutex_unlock (&g.mu);
      const double t0 = now ();
      const size_t missed = gt_locked_probe_told (lo, (size_t) (hi - lo),
                                                  g.device, w, threads,
                                                  by_kernel);
      bytes += (size_t) (hi - lo);
      if (wait)
        probed_here += now () - t0;
      pthread_mutex_lock (&g.mu);
      r->missed = add_missed (r->missed, missed);
      g.probing--;
      pthread_cond_broadcast (&g.cv);
    }
}

/* Under g.mu: whether the event has not happened yet (an error counts
   as happened: nothing to wait for).  */
static int
still_busy (cudaEvent_t ev)
{
  const cudaError_t e = cudaEventQuery (ev);
  if (e != cudaSuccess)
    cudaGetLastError ();
  return e == cudaErrorNotReady;
}

/* The GPU's end is polled at this step: a CUDA event wakes no condition
   variable, and a step of 0.2 ms is short beside the probe of a band's
   part of B (a millisecond or more) that the wait makes room for.  */
#define WAIT_STEP_NS 200000L

/* Under g.mu: another run's probe waited for while the GPU is still busy
   with the work ahead of this launch; whether this run may probe now
   (that probe ended with the GPU still busy).  */
static int
turn_while_busy (cudaEvent_t busy)
{
  while (g.probing && still_busy (busy))
    {
      struct timespec t;
      clock_gettime (CLOCK_REALTIME, &t);
      t.tv_nsec += WAIT_STEP_NS;
      if (t.tv_nsec >= 1000000000L)
        {
          t.tv_sec++;
          t.tv_nsec -= 1000000000L;
        }
      pthread_cond_timedwait (&g.cv, &g.mu, &t);
    }
  return !g.probing && still_busy (busy);
}

/* Where another run probes as this launch begins, its own probe waits
   for that one (busy given); once the GPU's work ahead has ended, a probe
   begun here would run on past the launch's wait and hold its products
   back, so it is left to the run's end.  */
size_t
gt_probe_parts_now (gt_workers *w, int threads, cudaEvent_t busy)
{
  pthread_mutex_lock (&g.mu);
  const int may = !(busy && g.probing) || turn_while_busy (busy);
  const size_t bytes = may ? probe_own_parts (0, w, threads) : 0;
  pthread_mutex_unlock (&g.mu);
  return bytes;
}

size_t
gt_probe_now (int wait, gt_workers *w, int threads)
{
  size_t bytes = 0;
  pthread_mutex_lock (&g.mu);
  if (wait)
    bytes = probe_own_parts (1, w, threads);
  for (int i = 0; i < RANGES; i++)
    {
      if (!probe_turn (wait))
        break;
      probe_range *r = &g.r[i];
      if (!wait && bytes + 4096 > STEP_BYTES)   /* not a page left */
        break;
      if (r->state == WAITING && !r->reading && r->ended >= g.expected
          && (wait || uploads_ended (r, 0)))
        bytes += probe_range_now (r, w, threads, wait,
                                  wait ? 0 : STEP_BYTES - bytes);
    }
  pthread_mutex_unlock (&g.mu);
  return bytes;
}

int
gt_probe_end (int ok, gt_workers *w, int threads)
{
  int clean = 1;
  pthread_mutex_lock (&g.mu);
  probe_turn (1);
  for (int i = 0; i < RANGES; i++)
    {
      probe_range *r = &g.r[i];
      if (r->state == WAITING && ok)
        probe_range_now (r, w, threads, 1, 0);
      /* (a part's probe may have found pages though the product
         failed) */
      if ((r->state == DONE || r->state == WAITING) && r->missed)
        {
          clean = 0;
          gt_locked_found_stale (r->p, r->bytes, r->missed);
        }
      r->state = NONE;
    }
  pthread_mutex_unlock (&g.mu);
  return clean;
}
