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
   --direct: downloads straight into existing memory locked once
   beforehand (cudaHostRegister, as a loop's result memory could stay
   locked from call to call), beside uploads staged as the package
   stages them; a word of each 4 KiB page set before the DMA and read
   after it, by the package's own check (gt_locked_mark,
   gt_locked_unwritten: whether the page the CPU sees is the one locked;
   the device buffers hold bytes 1, never its mark), and the
   rate of locking itself; then uploads straight from locked memory too,
   alone and beside the straight downloads (what locked operands move),
   and the package's probe of a locked operand (gt_locked_probe).
     make -C bench stage_cache && bench/stage_cache [--direct]  */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cuda_runtime_api.h>
#include "gt_copy.h"
#include "gt_locked.h"
#include "host_bench.h"
#include "gt_kernels.h"

/* The plan layer's door to the probe's token kernel, without the rest of
   the plan layer.  */
cudaError_t
gt_plan_write_tokens (void *word0, void *first, size_t step, size_t b,
                      size_t e, unsigned token, cudaStream_t s)
{
  return gt_tokens_write (word0, first, step, b, e, token, s);
}

#define BYTES (512 * MB)
#define WINDOWS 6
#define MAX_SLOTS 32

typedef struct
{
  int gpu, up, threads, stream, direct;
  size_t slot_bytes;
  int slots;
  gt_workers *w;
  cudaStream_t s;
  cudaEvent_t ev[MAX_SLOTS];
  char *ring, *dev, *cold, *host;
  size_t window;
  double secs;
  size_t stale;
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
  char *host = l->up && !l->direct
               ? l->cold + (l->window++ % WINDOWS) * BYTES : l->host;
  size_t pending[MAX_SLOTS];
  for (int i = 0; i < MAX_SLOTS; i++)
    pending[i] = (size_t) -1;
  gt_copy_hot (l->w, l->threads, 1);
  const double t0 = now ();
  if (l->direct && !l->up)
    gt_locked_mark (host, BYTES);
  for (size_t off = 0, q = 0; off < BYTES; off += l->slot_bytes, q++)
    {
      const int sl = (int) (q % l->slots);
      char *slot = l->ring + sl * l->slot_bytes;
      CHECK (cudaEventSynchronize (l->ev[sl]));
      if (l->up && l->direct)   /* straight from memory locked once */
        CHECK (cudaMemcpyAsync (l->dev + off, host + off, l->slot_bytes,
                                cudaMemcpyHostToDevice, l->s));
      else if (l->up)
        {
          copy (l, slot, host + off);
          CHECK (cudaMemcpyAsync (l->dev + off, slot, l->slot_bytes,
                                  cudaMemcpyHostToDevice, l->s));
        }
      else if (l->direct)
        CHECK (cudaMemcpyAsync (host + off, l->dev + off, l->slot_bytes,
                                cudaMemcpyDeviceToHost, l->s));
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
  if (!l->up && !l->direct)
    for (size_t q = BYTES / l->slot_bytes;
         q < BYTES / l->slot_bytes + l->slots; q++)
      {
        const int sl = (int) (q % l->slots);
        CHECK (cudaEventSynchronize (l->ev[sl]));
        copy (l, host + pending[sl], l->ring + sl * l->slot_bytes);
      }
  CHECK (cudaStreamSynchronize (l->s));
  if (l->direct && !l->up)
    l->stale = gt_locked_unwritten (host, BYTES);
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

/* Uploads staged (12 threads, 8 x 8 MiB) beside downloads staged (the
   package's way, 12 threads; both: 6 each) or straight into locked
   memory (no threads), one GPU then two; GB/s in all, median of 5.  */
static int
direct_main (int gpus)
{
  lane up[2], down[2], direct[2], up_direct[2];
  for (int g = 0; g < gpus; g++)
    {
      lane_init (&up[g], g, 1);
      lane_init (&down[g], g, 0);
      lane_init (&direct[g], g, 0);
      direct[g].direct = 1;
      /* an upload's source locked once (as an operand of a loop could
         be; nothing here checks it) */
      lane_init (&up_direct[g], g, 0);
      up_direct[g].up = up_direct[g].direct = 1;
      CHECK (cudaHostRegister (up_direct[g].host, BYTES,
                               cudaHostRegisterPortable
                               | cudaHostRegisterMapped));
      up_direct[g].slot_bytes = 8 * MB;
      up_direct[g].slots = 8;
      const double t0 = now ();
      CHECK (cudaHostRegister (direct[g].host, BYTES,
                               cudaHostRegisterPortable));
      printf ("gpu %d: 512 MiB of existing memory locked at %.1f GB/s\n",
              g, BYTES / (now () - t0) / 1e9);
    }
  for (int g = 0; g < gpus; g++)
    {
      up[g].slot_bytes = down[g].slot_bytes = direct[g].slot_bytes = 8 * MB;
      up[g].slots = down[g].slots = direct[g].slots = 8;
      down[g].stream = 1;
    }
  printf ("gpus  up:staged  down:staged  down:direct  both:staged"
          "  up staged + down direct  up:direct  both direct  (GB/s in all)\n");
  for (int g = 1; g <= gpus; g++)
    {
      double v[7];
      lane *a[4];
      for (int mode = 0; mode < 7; mode++)
        {
          int n = 0;
          for (int k = 0; k < g; k++)
            {
              const int both = mode == 3 || mode == 4;
              up[k].threads = down[k].threads = both ? 6 : 12;
              if (mode == 0 || both)
                a[n++] = &up[k];
              if (mode == 1 || mode == 3)
                a[n++] = &down[k];
              if (mode == 2 || mode == 4 || mode == 6)
                a[n++] = &direct[k];
              if (mode >= 5)
                a[n++] = &up_direct[k];
            }
          v[mode] = measure (a, n);
          for (int k = 0; k < g; k++)
            if (direct[k].stale)
              printf ("gpu %d: %zu pages not written\n", k, direct[k].stale);
        }
      printf ("%4d  %9.1f  %11.1f  %11.1f  %11.1f  %11.1f  %20.1f  %11.1f\n",
              g, v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
    }
  /* 16 pages dropped under the lock, as malloc_trim or a shrinking heap
     could: the CPU then sees new pages there, the engine writes the old;
     the check must find exactly those 16.  */
  char *drop = (char *) ((size_t) (direct[0].host + 64 * MB) & ~(size_t) 4095);
  if (madvise (drop, 16 * 4096, MADV_DONTNEED))
    perror ("madvise");
  run (&direct[0]);
  printf ("16 pages dropped under the lock: %zu pages not written\n",
          direct[0].stale);
  /* A locked operand's check, as the package makes it before each call
     (gt_locked_probe: a word of each page saved, written from the device
     through the lock, read, put back), on one thread and on the copy
     threads; with no page replaced, none may be missed.  */
  {
    CHECK (cudaSetDevice (0));
    for (int t = 1; t <= 12; t += 11)
      for (int by_kernel = 0; by_kernel < 2; by_kernel++)
        {
          double secs[5];
          size_t missed = 0;
          for (int rep = 0; rep < 5; rep++)
            {
              const double t0 = now ();
              missed += gt_locked_probe (up_direct[0].host, BYTES, 0,
                                         up_direct[0].w, t, by_kernel);
              secs[rep] = now () - t0;
            }
          printf ("operand probe, 512 MiB (%zu pages), %d thread%s, tokens "
                  "by %s: %.3f ms, %zu missed\n",
                  (size_t) BYTES / GT_LOCKED_STEP, t, t > 1 ? "s" : "",
                  by_kernel ? "a kernel" : "copies", 1e3 * median (secs, 5),
                  missed);
        }
    gt_locked_probe_forget (-1);
  }
  /* the check's own cost, one GPU's 512 MiB */
  const double t0 = now ();
  gt_locked_mark (direct[0].host, BYTES);
  const double t1 = now ();
  const size_t left = gt_locked_unwritten (direct[0].host, BYTES);
  printf ("marking 512 MiB's pages %.3f ms, reading them %.3f ms (%zu)\n",
          (t1 - t0) * 1e3, (now () - t1) * 1e3, left);
  return 0;
}

int
main (int argc, char **argv)
{
  int gpus = 0;
  CHECK (cudaGetDeviceCount (&gpus));
  gpus = gpus > 2 ? 2 : gpus;
  if (argc > 1 && !strcmp (argv[1], "--direct"))
    return direct_main (gpus);
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
