/* stage_cache.c -- whether staging through a ring of pinned slots small
   enough to stay in the host's last-level cache moves more than the 8
   slots of 8 MiB of gt_context.h.  Staged, each byte crosses the host's
   memory three times: the CPU reads the source, writes the slot, the
   copy engine reads the slot (downloads: the engine writes the slot, the
   CPU reads it and writes the result).  The traces had 50-62 GB/s in all
   whatever the threads or GPUs, as a memory-bound host would; a slot the
   cache still holds when the engine (or the CPU) comes back to it would
   spare one or two of the three.
   Per GPU, 512 MiB up from a source no cache holds, down into existing
   memory, or both at once; rings of slot bytes x slots, the CPU's stores
   plain or streaming; one GPU, then two at once.
     make -C bench stage_cache && bench/stage_cache  */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "gt_copy.h"
#include "host_bench.h"

#define BYTES (512 * MB)
#define WINDOWS 6
#define MAX_SLOTS 32

typedef struct
{
  int gpu, up, threads, stream;
  size_t slot_bytes;
  int slots;
  gt_workers *w;
  cudaStream_t s;
  cudaEvent_t ev[MAX_SLOTS];
  char *ring, *dev, *cold, *host;
  size_t window;
  double secs;
} lane;

static void
copy (lane *l, void *dst, const void *src)
{
  copy_job j = { dst, src, l->slot_bytes / 4, l->slot_bytes / 4,
                 l->slot_bytes / 4, 1, 4, 0, l->stream };
  gt_copy (l->w, &j, l->threads);
}

/* As gt_stage.c moves it: up, copy into a slot then queue its DMA; down,
   queue the DMA into a slot and copy it out when the slot comes round.  */
static void *
run (void *arg)
{
  lane *l = (lane *) arg;
  CHECK (cudaSetDevice (l->gpu));
  char *host = l->up ? l->cold + (l->window++ % WINDOWS) * BYTES : l->host;
  size_t pending[MAX_SLOTS];
  for (int i = 0; i < MAX_SLOTS; i++)
    pending[i] = (size_t) -1;
  gt_copy_hot (l->w, l->threads, 1);
  const double t0 = now ();
  for (size_t off = 0, q = 0; off < BYTES; off += l->slot_bytes, q++)
    {
      const int sl = (int) (q % l->slots);
      char *slot = l->ring + sl * l->slot_bytes;
      CHECK (cudaEventSynchronize (l->ev[sl]));
      if (l->up)
        {
          copy (l, slot, host + off);
          CHECK (cudaMemcpyAsync (l->dev + off, slot, l->slot_bytes,
                                  cudaMemcpyHostToDevice, l->s));
        }
      else
        {
          if (pending[sl] != (size_t) -1)
            copy (l, host + pending[sl], slot);
          pending[sl] = off;
          CHECK (cudaMemcpyAsync (slot, l->dev + off, l->slot_bytes,
                                  cudaMemcpyDeviceToHost, l->s));
        }
      CHECK (cudaEventRecord (l->ev[sl], l->s));
    }
  if (!l->up)
    for (size_t q = BYTES / l->slot_bytes;
         q < BYTES / l->slot_bytes + l->slots; q++)
      {
        const int sl = (int) (q % l->slots);
        CHECK (cudaEventSynchronize (l->ev[sl]));
        copy (l, host + pending[sl], l->ring + sl * l->slot_bytes);
      }
  CHECK (cudaStreamSynchronize (l->s));
  l->secs = now () - t0;
  gt_copy_hot (l->w, l->threads, 0);
  return NULL;
}

static void
lane_init (lane *l, int gpu, int up)
{
  memset (l, 0, sizeof *l);
  l->gpu = gpu;
  l->up = up;
  lane_stream (gpu, &l->s, l->ev, MAX_SLOTS);
  l->w = gt_workers_new ();
  CHECK (cudaHostAlloc ((void **) &l->ring, 64 * MB, cudaHostAllocPortable));
  l->dev = device_filled (BYTES, 1);
  if (up)
    l->cold = filled ((size_t) WINDOWS * BYTES, 2);
  else
    l->host = filled (BYTES, 3);
}

/* GB/s in all of the lanes given at once (bytes / time until the last
   ends), median of 5.  */
static double
measure (lane **ls, int n)
{
  double all[5];
  for (int rep = 0; rep < 5; rep++)
    all[rep] = (double) n * BYTES / run_together (run, (void **) ls, n) / 1e9;
  return median (all, 5);
}

int
main (void)
{
  int gpus = 0;
  CHECK (cudaGetDeviceCount (&gpus));
  gpus = gpus > 2 ? 2 : gpus;
  lane up[2], down[2];
  for (int g = 0; g < gpus; g++)
    {
      lane_init (&up[g], g, 1);
      lane_init (&down[g], g, 0);
    }
  const struct { size_t bytes; int slots; } rings[] = {
    { 8 * MB, 8 }, { 2 * MB, 8 }, { 1 * MB, 8 }, { 1 * MB, 4 },
    { MB / 2, 8 }, { MB / 4, 16 } };
  /* a lane's copy threads (both directions at once: half each, as a
     call's in and out share its threads) */
  const int threads[] = { 12, 8 };
  printf ("512 MiB a lane, GB/s in all, median of 5; up: from a source no"
          " cache holds; down: into existing memory\n");
  printf ("gpus threads ring          up:plain  up:stream  down:plain"
          "  down:stream  both(up plain, down stream)\n");
  for (int g = 1; g <= gpus; g++)
    for (int t = 0; t < 2; t++)
      for (size_t r = 0; r < sizeof rings / sizeof rings[0]; r++)
        {
          double v[5];
          lane *a[4];
          for (int i = 0; i < 2; i++)
            for (int k = 0; k < gpus; k++)
              {
                lane *l = i ? &down[k] : &up[k];
                l->slot_bytes = rings[r].bytes;
                l->slots = rings[r].slots;
                l->threads = threads[t];
              }
          for (int mode = 0; mode < 4; mode++)
            {
              for (int k = 0; k < g; k++)
                {
                  a[k] = mode < 2 ? &up[k] : &down[k];
                  a[k]->stream = mode % 2;
                }
              v[mode] = measure (a, g);
            }
          for (int k = 0; k < g; k++)
            {
              up[k].stream = 0;
              down[k].stream = 1;
              up[k].threads = down[k].threads = threads[t] / 2;
              a[k] = &up[k];
              a[g + k] = &down[k];
            }
          v[4] = measure (a, 2 * g);
          printf ("%4d %7d %5zu KiB x %2d  %8.1f  %9.1f  %10.1f  %11.1f"
                  "  %8.1f\n", g, threads[t],
                  rings[r].bytes >> 10, rings[r].slots, v[0], v[1], v[2],
                  v[3], v[4]);
        }
  return 0;
}
