/* host_duplex.c -- whether the host can stage an upload and a download at
   the same time faster than one after the other, as an end-to-end call
   would need to come near max(bytes in, bytes out) / 55 GB/s.  Each
   direction has its own pinned slots, stream, copy threads and host
   thread; the upload reads a source no cache holds, the download writes
   an existing buffer or new memory (as a fresh Octave result is, faulted
   in by helpers).  With --gpus 2, both directions of two GPUs at once,
   as a product split over two GPUs stages them.
     make -C bench host_duplex && bench/host_duplex [--gpus 2]  */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "gt_copy.h"
#include "host_bench.h"

#define SLOTS 8
#define SLOT_BYTES (8 * MB)
#define BYTES (256 * MB)      /* each direction, each run */
#define COLD (2048 * MB)      /* the upload's source, walked in windows */

/* the download's copies out of the slots with streaming stores */
static int stream_down;

typedef struct
{
  int up;                 /* 1: host -> device, 0: device -> host */
  int gpu;
  int threads, fresh, prefault;
  gt_workers *w;
  cudaStream_t s;
  cudaEvent_t ev[SLOTS];
  char *slots, *dev, *host, *cold;
  size_t window;
  double secs;
} direction;

/* One direction's 256 MiB through its slots, as gt_stage.c moves it: the
   upload copies into a slot then queues its DMA; the download queues the
   DMA into a slot and copies it out when the slot is next needed.  */
static void *
run (void *arg)
{
  direction *d = (direction *) arg;
  CHECK (cudaSetDevice (d->gpu));
  char *host = d->host;
  if (d->up)
    host = d->cold + (d->window++ % (COLD / BYTES)) * BYTES;
  else if (d->fresh)
    {
      host = malloc (BYTES);
      if (d->prefault)
        gt_prefault_start (d->w, host, BYTES, d->prefault);
    }
  gt_copy_hot (d->w, d->threads, 1);
  const double t0 = now ();
  size_t pending[SLOTS];
  for (int i = 0; i < SLOTS; i++)
    pending[i] = (size_t) -1;
  for (size_t off = 0, q = 0; off < BYTES; off += SLOT_BYTES, q++)
    {
      const int sl = (int) (q % SLOTS);
      char *slot = d->slots + sl * SLOT_BYTES;
      CHECK (cudaEventSynchronize (d->ev[sl]));
      if (d->up)
        {
          copy_job j = { slot, host + off, SLOT_BYTES / 4, SLOT_BYTES / 4,
                         SLOT_BYTES / 4, 1, 4 };
          gt_copy (d->w, &j, d->threads);
          CHECK (cudaMemcpyAsync (d->dev + off, slot, SLOT_BYTES,
                                  cudaMemcpyHostToDevice, d->s));
        }
      else
        {
          if (pending[sl] != (size_t) -1)
            {
              copy_job j = { host + pending[sl], slot, SLOT_BYTES / 4,
                             SLOT_BYTES / 4, SLOT_BYTES / 4, 1, 4, 0,
                             stream_down };
              gt_copy (d->w, &j, d->threads);
            }
          pending[sl] = off;
          CHECK (cudaMemcpyAsync (slot, d->dev + off, SLOT_BYTES,
                                  cudaMemcpyDeviceToHost, d->s));
        }
      CHECK (cudaEventRecord (d->ev[sl], d->s));
    }
  if (!d->up)   /* drain, oldest first */
    for (size_t q = BYTES / SLOT_BYTES; q < BYTES / SLOT_BYTES + SLOTS; q++)
      {
        const int sl = (int) (q % SLOTS);
        CHECK (cudaEventSynchronize (d->ev[sl]));
        copy_job j = { host + pending[sl], d->slots + sl * SLOT_BYTES,
                       SLOT_BYTES / 4, SLOT_BYTES / 4, SLOT_BYTES / 4, 1, 4, 0,
                       stream_down };
        gt_copy (d->w, &j, d->threads);
      }
  CHECK (cudaStreamSynchronize (d->s));
  d->secs = now () - t0;
  gt_copy_hot (d->w, d->threads, 0);
  if (!d->up && d->fresh)
    {
      if (d->prefault)
        gt_prefault_wait (d->w);
      free (host);
    }
  return NULL;
}

static void
direction_init (direction *d, int up, int dev)
{
  memset (d, 0, sizeof *d);
  d->up = up;
  d->gpu = dev;
  lane_stream (dev, &d->s, d->ev, SLOTS);
  d->w = gt_workers_new ();
  CHECK (cudaHostAlloc ((void **) &d->slots, SLOTS * SLOT_BYTES,
                        cudaHostAllocPortable));
  d->dev = device_filled (BYTES, 1);
  if (up)
    d->cold = filled (COLD, 2);
  else
    d->host = filled (BYTES, 3);
}

/* GB/s of each direction and of both (bytes moved / time until the later
   one ends), median of 5; up or down threads 0: that direction idle.  */
static void
measure (direction *u, direction *d, int ut, int dt, int fresh,
         int prefault)
{
  double ru[5], rd[5], rb[5];
  u->threads = ut;
  d->threads = dt;
  d->fresh = fresh;
  d->prefault = prefault;
  for (int rep = 0; rep < 5; rep++)
    {
      pthread_t th;
      const double t0 = now ();
      if (dt)
        pthread_create (&th, NULL, run, d);
      if (ut)
        run (u);
      if (dt)
        pthread_join (th, NULL);
      const double t = now () - t0;
      ru[rep] = ut ? BYTES / u->secs / 1e9 : 0;
      rd[rep] = dt ? BYTES / d->secs / 1e9 : 0;
      rb[rep] = ((ut ? BYTES : 0) + (dt ? BYTES : 0)) / t / 1e9;
    }
  const double mu = median (ru, 5), md = median (rd, 5), mb = median (rb, 5);
  printf ("%4d %4d  %-14s %6.1f %6.1f %6.1f\n", ut, dt,
          !dt ? "-" : !fresh ? "existing" : prefault ? "new+prefault"
                                                      : "new",
          mu, md, mb);
}

/* Both directions of two GPUs at once, each with `threads` copy threads
   (and the downloads `prefault` helpers where fresh): GB/s in all, and
   up and down in all, median of 5.  */
static void
measure_two (direction *dirs, int threads, int fresh, int prefault)
{
  double rt[5], ru[5], rd[5];
  for (int i = 0; i < 4; i++)
    {
      dirs[i].threads = threads;
      dirs[i].fresh = fresh;
      dirs[i].prefault = dirs[i].up ? 0 : prefault;
    }
  for (int rep = 0; rep < 5; rep++)
    {
      void *args[4] = { &dirs[0], &dirs[1], &dirs[2], &dirs[3] };
      const double t = run_together (run, args, 4);
      double up = 0, slowest_up = 0, slowest_down = 0;
      for (int i = 0; i < 4; i++)
        {
          double *slowest = dirs[i].up ? &slowest_up : &slowest_down;
          if (dirs[i].secs > *slowest)
            *slowest = dirs[i].secs;
          up += dirs[i].up;
        }
      ru[rep] = up * BYTES / slowest_up / 1e9;
      rd[rep] = (4 - up) * BYTES / slowest_down / 1e9;
      rt[rep] = 4.0 * BYTES / t / 1e9;
    }
  printf ("%4d x 4  %-14s %6.1f %6.1f %6.1f\n", threads,
          !fresh ? "existing" : prefault ? "new+prefault" : "new",
          median (ru, 5), median (rd, 5), median (rt, 5));
}

static int
two_gpus (void)
{
  int n = 0;
  CHECK (cudaGetDeviceCount (&n));
  if (n < 2)
    {
      fprintf (stderr, "host_duplex: --gpus 2 needs two GPUs (%d)\n", n);
      return 1;
    }
  direction dirs[4];
  for (int i = 0; i < 4; i++)
    direction_init (&dirs[i], i % 2 == 0, i / 2);
  printf ("two GPUs, 256 MiB each way each GPU, threads per direction;"
          " GB/s in all, median of 5\n");
  printf ("threads   destination        up   down    all\n");
  const int threads[][2] = { { 4, 0 }, { 6, 0 }, { 8, 0 }, { 4, 2 },
                             { 6, 2 } };
  for (int i = 0; i < 5; i++)
    {
      measure_two (dirs, threads[i][0], 0, 0);
      measure_two (dirs, threads[i][0], 1, threads[i][1]);
    }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 3 && !strcmp (argv[1], "--gpus") && !strcmp (argv[2], "2"))
    return two_gpus ();
  direction u, d;
  direction_init (&u, 1, 0);
  direction_init (&d, 0, 0);
  printf ("256 MiB each way through 8 slots of 8 MiB, GB/s, median of 5\n");
  printf ("  up down  destination        up   down   both\n");
  const int alone[] = { 8, 12, 16 };
  for (int i = 0; i < 3; i++)
    measure (&u, &d, alone[i], 0, 0, 0);
  for (int i = 0; i < 3; i++)
    {
      measure (&u, &d, 0, alone[i], 0, 0);
      measure (&u, &d, 0, alone[i], 1, 0);
    }
  measure (&u, &d, 0, 12, 1, 4);
  const int split[][3] = { { 8, 8, 0 }, { 6, 6, 4 }, { 8, 4, 4 },
                           { 10, 6, 0 }, { 6, 6, 0 } };
  for (int i = 0; i < 5; i++)
    {
      measure (&u, &d, split[i][0], split[i][1], 0, 0);
      measure (&u, &d, split[i][0], split[i][1], 1, split[i][2]);
    }
  printf ("the download's copies with streaming stores\n");
  stream_down = 1;
  for (int i = 0; i < 3; i++)
    {
      measure (&u, &d, 0, alone[i], 0, 0);
      measure (&u, &d, 0, alone[i], 1, 4);
    }
  for (int i = 0; i < 3; i++)
    {
      measure (&u, &d, split[i][0], split[i][1], 0, 0);
      measure (&u, &d, split[i][0], split[i][1], 1, split[i][2]);
    }
  return 0;
}
