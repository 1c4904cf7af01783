/* register_beside.c -- whether page-locking part of an operand in place,
   beside the copy threads that stage the rest, adds to what the host
   moves to the GPUs.  The staging copies in reach about 60 GB/s on the
   two-GPU host whether one GPU or two take them (the traces of
   bench/RESULTS.md), so they share one limit of the host; locking moves
   no bytes on the CPU, and would add its own rate if the driver's work
   does not take from that limit.
   Per GPU: STAGED bytes through 8 pinned slots of 8 MiB (12 copy
   threads, as gt_stage.c), and LOCKED bytes locked chunk by chunk, each
   chunk's DMA queued once locked and the chunk unlocked once its DMA is
   done; alone and together, on one GPU and on two.  Sources are windows
   of a buffer no cache holds, in 4 KiB pages or huge pages.
     make -C bench register_beside && bench/register_beside  */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cuda_runtime_api.h>
#include "gt_copy.h"
#include "host_bench.h"

#define SLOTS 8
#define SLOT_BYTES (8 * MB)
#define STAGED (512 * MB)
#define LOCKED (256 * MB)
#define WINDOWS 6
#define MAX_CHUNKS 64

typedef struct
{
  int gpu, lock, threads;
  size_t bytes, chunk;
  unsigned flags;
  gt_workers *w;
  cudaStream_t s;
  cudaEvent_t ev[MAX_CHUNKS];
  char *slots, *dev, *cold;
  size_t window;
  double secs, lock_secs, unlock_secs;
} lane;

static void
stage (lane *l, const char *src)
{
  gt_copy_hot (l->w, l->threads, 1);
  for (size_t off = 0, q = 0; off < l->bytes; off += SLOT_BYTES, q++)
    {
      const int sl = (int) (q % SLOTS);
      char *slot = l->slots + sl * SLOT_BYTES;
      CHECK (cudaEventSynchronize (l->ev[sl]));
      copy_job j = { slot, src + off, SLOT_BYTES / 4, SLOT_BYTES / 4,
                     SLOT_BYTES / 4, 1, 4 };
      gt_copy (l->w, &j, l->threads);
      CHECK (cudaMemcpyAsync (l->dev + off, slot, SLOT_BYTES,
                              cudaMemcpyHostToDevice, l->s));
      CHECK (cudaEventRecord (l->ev[sl], l->s));
    }
  CHECK (cudaStreamSynchronize (l->s));
  gt_copy_hot (l->w, l->threads, 0);
}

/* Lock chunk i, queue its DMA; unlock every earlier chunk whose DMA is
   done; at the end wait for and unlock the rest.  */
static void
lock_and_send (lane *l, char *src)
{
  const size_t n = l->bytes / l->chunk;
  size_t u = 0;
  for (size_t i = 0; i < n; i++)
    {
      double t = now ();
      CHECK (cudaHostRegister (src + i * l->chunk, l->chunk, l->flags));
      l->lock_secs += now () - t;
      CHECK (cudaMemcpyAsync (l->dev + i * l->chunk, src + i * l->chunk,
                              l->chunk, cudaMemcpyHostToDevice, l->s));
      CHECK (cudaEventRecord (l->ev[i], l->s));
      for (; u < i && cudaEventQuery (l->ev[u]) == cudaSuccess; u++)
        {
          t = now ();
          CHECK (cudaHostUnregister (src + u * l->chunk));
          l->unlock_secs += now () - t;
        }
    }
  for (; u < n; u++)
    {
      CHECK (cudaEventSynchronize (l->ev[u]));
      const double t = now ();
      CHECK (cudaHostUnregister (src + u * l->chunk));
      l->unlock_secs += now () - t;
    }
}

static void *
run (void *arg)
{
  lane *l = (lane *) arg;
  CHECK (cudaSetDevice (l->gpu));
  char *src = l->cold + (l->window++ % WINDOWS) * STAGED;
  l->lock_secs = l->unlock_secs = 0;
  const double t0 = now ();
  if (l->lock)
    lock_and_send (l, src);
  else
    stage (l, src);
  l->secs = now () - t0;
  return NULL;
}

static void
lane_init (lane *l, int gpu, int lock, int huge)
{
  memset (l, 0, sizeof *l);
  l->gpu = gpu;
  l->lock = lock;
  l->threads = 12;
  l->bytes = lock ? LOCKED : STAGED;
  l->chunk = 32 * MB;
  l->flags = cudaHostRegisterPortable;
  lane_stream (gpu, &l->s, l->ev, MAX_CHUNKS);
  l->w = gt_workers_new ();
  CHECK (cudaHostAlloc ((void **) &l->slots, SLOTS * SLOT_BYTES,
                        cudaHostAllocPortable));
  l->dev = device_filled (STAGED, 1);
  const size_t cold = (size_t) WINDOWS * STAGED;
  if (posix_memalign ((void **) &l->cold, 2 * MB, cold))
    exit (1);
  madvise (l->cold, cold, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  memset (l->cold, 2, cold);
}

/* The lanes given, all at once: GB/s in all (bytes / time until the last
   ends), and each kind's own, median of 5.  */
static void
measure (const char *what, lane **ls, int n)
{
  double all[5], st[5], lk[5], lock_s[5], unlock_s[5];
  for (int rep = 0; rep < 5; rep++)
    {
      const double t = run_together (run, (void **) ls, n);
      double bytes = 0, sb = 0, lb = 0, ss = 0, ltime = 0;
      lock_s[rep] = unlock_s[rep] = 0;
      for (int i = 0; i < n; i++)
        {
          bytes += ls[i]->bytes;
          if (ls[i]->lock)
            {
              lb += ls[i]->bytes;
              ltime = ls[i]->secs > ltime ? ls[i]->secs : ltime;
              lock_s[rep] += ls[i]->lock_secs;
              unlock_s[rep] += ls[i]->unlock_secs;
            }
          else
            {
              sb += ls[i]->bytes;
              ss = ls[i]->secs > ss ? ls[i]->secs : ss;
            }
        }
      all[rep] = bytes / t / 1e9;
      st[rep] = ss > 0 ? sb / ss / 1e9 : 0;
      lk[rep] = ltime > 0 ? lb / ltime / 1e9 : 0;
    }
  printf ("%-44s all %6.1f  staged %6.1f  locked %6.1f GB/s"
          "  (lock %.1f, unlock %.1f ms)\n", what, median (all, 5),
          median (st, 5), median (lk, 5), 1e3 * median (lock_s, 5),
          1e3 * median (unlock_s, 5));
}

int
main (void)
{
  int gpus = 0;
  CHECK (cudaGetDeviceCount (&gpus));
  gpus = gpus > 2 ? 2 : gpus;
  FILE *f = fopen ("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char thp[128] = "?";
  if (f && fgets (thp, sizeof thp, f))
    thp[strcspn (thp, "\n")] = 0;
  if (f)
    fclose (f);
  printf ("%d GPU(s); transparent huge pages: %s; staged %zu MiB, locked"
          " %zu MiB a GPU in chunks of 32 MiB\n", gpus, thp, STAGED / MB,
          LOCKED / MB);
  for (int huge = 0; huge < 2; huge++)
    {
      lane st[2], lk[2];
      for (int g = 0; g < gpus; g++)
        {
          lane_init (&st[g], g, 0, huge);
          lane_init (&lk[g], g, 1, huge);
        }
      const char *pg = huge ? "huge pages" : "4 KiB pages";
      char what[64];
      lane *a[4];
      for (int g = 1; g <= gpus; g++)
        {
          for (int i = 0; i < g; i++)
            a[i] = &st[i];
          snprintf (what, sizeof what, "%s, %d GPU: staged", pg, g);
          measure (what, a, g);
          for (int i = 0; i < g; i++)
            a[i] = &lk[i];
          snprintf (what, sizeof what, "%s, %d GPU: locked", pg, g);
          measure (what, a, g);
          for (int i = 0; i < g; i++)
            {
              a[i] = &st[i];
              a[g + i] = &lk[i];
            }
          snprintf (what, sizeof what, "%s, %d GPU: staged + locked", pg, g);
          measure (what, a, 2 * g);
        }
      for (int g = 0; g < gpus; g++)
        {
          lk[g].flags |= cudaHostRegisterReadOnly;
          a[g] = &lk[g];
        }
      snprintf (what, sizeof what, "%s, %d GPU: locked read-only", pg, gpus);
      measure (what, a, gpus);
      for (int g = 0; g < gpus; g++)
        a[gpus + g] = &st[g];
      snprintf (what, sizeof what, "%s, %d GPU: staged + locked r-o", pg,
                gpus);
      measure (what, a, 2 * gpus);
    }
  return 0;
}
