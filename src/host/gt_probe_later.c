/* gt_probe_later.c -- a call's probe of its locked operands, put off
   until the call's uploads have read them (see gt_locked.h).

   The probe (gt_locked_probe) tells whether the pages a lock holds are
   still the process's.  While the caller holds the operand its answer
   does not change (a page replaced under the lock stays replaced), so it
   may be asked at any moment of the call, as long as no upload reads the
   operand while the probe's tokens are in it, and the call does not
   return a result read from pages that were not the operand's.  Asked
   before the uploads, it held them all back (a probe of 268 MB took
   0.55-0.81 ms, of 1 GB 1.9-2.4 ms); asked once every product run of the
   call has queued its last upload, it runs beside the last kernels and
   the copies out, and where it finds a page not the lock's, the caller
   runs the product again, staged.

   So each product run says when it begins to read (gt_probe_reads_begin)
   and when it has queued its last upload (gt_probe_reads_end, with an
   event after it).  The probe begins once no run is reading and the runs
   expected (one, or the bands of a split) have all queued their last
   uploads, on the thread of the last of them, after those uploads' events;
   a run that begins meanwhile waits for it.  Where that never came about
   (a run failed early), the caller's gt_probe_end probes, after every
   run.  The calls of one product come from its bands' threads, so the
   state is under a mutex; gt_probe_begin and gt_probe_end are the
   caller's, before any band starts and after all have ended.  */

#include <pthread.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "gpu_tiled.h"
#include "gt_locked.h"

#define RANGES 2
#define EVENTS (4 * GT_MAX_DEVICES)

enum { WAITING, PROBING, DONE };

static struct
{
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int ranges;                 /* to probe in this call (0: none) */
  const char *p[RANGES];
  size_t bytes[RANGES];
  size_t missed[RANGES];      /* pages not the lock's, (size_t) -1: the
                                 probe could not tell */
  int device;                 /* the locks' */
  int expected, reading, ended;
  int state;
  cudaEvent_t ev[EVENTS];     /* after the runs' last uploads */
  int events;
} g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };

static void
add_range (const void *p, size_t bytes)
{
  for (int i = 0; i < g.ranges; i++)
    if (g.p[i] == (const char *) p && g.bytes[i] == bytes)
      return;
  g.p[g.ranges] = (const char *) p;
  g.bytes[g.ranges++] = bytes;
}

void
gt_probe_begin (const void *a, size_t a_bytes, const void *b,
                size_t b_bytes, int device)
{
  g.ranges = 0;
  if (a)
    add_range (a, a_bytes);
  if (b)
    add_range (b, b_bytes);
  g.device = device;
  g.expected = 1;
  g.reading = g.ended = 0;
  g.state = WAITING;
  g.events = 0;
}

void
gt_probe_expect (int runs)
{
  g.expected = runs > 1 ? runs : 1;
}

/* Under g.mu, state PROBING: the uploads waited for, then each range
   probed, outside the mutex (runs that end meanwhile only count).  */
static void
probe_here (gt_workers *w, int threads)
{
  const int events = g.events;
  pthread_mutex_unlock (&g.mu);
  int waited = 1;
  for (int i = 0; i < events; i++)
    waited &= cudaEventSynchronize (g.ev[i]) == cudaSuccess;
  for (int i = 0; i < g.ranges; i++)
    g.missed[i] = waited ? gt_locked_probe_told (g.p[i], g.bytes[i],
                                                 g.device, w, threads)
                         : (size_t) -1;
  if (!waited)
    cudaGetLastError ();
  pthread_mutex_lock (&g.mu);
  g.state = DONE;
  pthread_cond_broadcast (&g.cv);
}

void
gt_probe_reads_begin (void)
{
  if (!g.ranges)
    return;
  pthread_mutex_lock (&g.mu);
  while (g.state == PROBING)
    pthread_cond_wait (&g.cv, &g.mu);
  g.reading++;
  pthread_mutex_unlock (&g.mu);
}

void
gt_probe_reads_end (cudaEvent_t after, gt_workers *w, int threads)
{
  if (!g.ranges)
    return;
  pthread_mutex_lock (&g.mu);
  if (after && g.events < EVENTS)
    g.ev[g.events++] = after;
  else if (after)   /* no room: this run's uploads waited for here */
    cudaEventSynchronize (after);
  g.reading--;
  g.ended++;
  if (g.state == WAITING && !g.reading && g.ended >= g.expected)
    {
      g.state = PROBING;
      probe_here (w, threads);
    }
  pthread_mutex_unlock (&g.mu);
}

int
gt_probe_end (int ok, gt_workers *w, int threads)
{
  if (!g.ranges)
    return 1;
  pthread_mutex_lock (&g.mu);
  while (g.state == PROBING)
    pthread_cond_wait (&g.cv, &g.mu);
  if (g.state == WAITING && ok)
    {
      g.state = PROBING;
      probe_here (w, threads);
    }
  int clean = 1;
  for (int i = 0; g.state == DONE && i < g.ranges; i++)
    if (g.missed[i])
      {
        clean = 0;
        gt_locked_found_stale (g.p[i], g.bytes[i], g.missed[i]);
      }
  g.ranges = 0;
  pthread_mutex_unlock (&g.mu);
  return clean;
}
