/* host_register.c -- whether page-locking an operand in place can beat
   staging it: cudaHostRegister and cudaHostUnregister of existing memory
   (as an Octave operand is) split over threads, each taking its share in
   chunks, alone and with the copy engine reading the chunks already
   locked.  Staging through pinned slots reaches about 50 GB/s on the
   benchmark host (bench/host_duplex); one thread locks about 20-27 GB/s.
     make -C bench host_register && bench/host_register  */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "host_bench.h"

#define BYTES (512 * MB)

typedef struct
{
  char *base;
  size_t begin, end, chunk;
  int lock;            /* 1 register, 0 unregister */
  unsigned flags;
  volatile int *done;  /* chunks locked so far, per chunk index */
} share;

static void *
work (void *arg)
{
  const share *s = (const share *) arg;
  for (size_t off = s->begin; off < s->end; off += s->chunk)
    {
      const size_t len = s->end - off < s->chunk ? s->end - off : s->chunk;
      if (s->lock)
        {
          CHECK (cudaHostRegister (s->base + off, len, s->flags));
          if (s->done)
            __atomic_store_n (&s->done[off / s->chunk], 1, __ATOMIC_RELEASE);
        }
      else
        CHECK (cudaHostUnregister (s->base + off));
    }
  return NULL;
}

/* Seconds for `threads` threads to (un)lock all of base, each a
   contiguous share in chunks.  */
static double
run (char *base, int threads, size_t chunk, int lock, unsigned flags,
     volatile int *done)
{
  pthread_t th[16];
  share sh[16];
  const size_t per = BYTES / threads / chunk * chunk;
  const double t0 = now ();
  for (int i = 0; i < threads; i++)
    {
      sh[i] = (share) { base, i * per, i + 1 < threads ? (i + 1) * per
                                                       : BYTES,
                        chunk, lock, flags, done };
      pthread_create (&th[i], NULL, work, &sh[i]);
    }
  for (int i = 0; i < threads; i++)
    pthread_join (th[i], NULL);
  return now () - t0;
}

int
main (void)
{
  char *host = malloc (BYTES), *dev;
  memset (host, 1, BYTES);
  CHECK (cudaMalloc ((void **) &dev, BYTES));
  cudaStream_t s;
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  printf ("512 MiB of existing memory, GB/s (median of 3)\n");
  printf ("threads  chunk MiB  flags      lock  unlock\n");
  const int ths[] = { 1, 2, 4, 8 };
  const size_t chunks[] = { 8, 64 };
  for (int f = 0; f < 2; f++)
    for (int c = 0; c < 2; c++)
      for (int t = 0; t < 4; t++)
        {
          double l[3], u[3];
          const unsigned flags = f ? cudaHostRegisterReadOnly
                                   : cudaHostRegisterDefault;
          for (int r = 0; r < 3; r++)
            {
              l[r] = run (host, ths[t], chunks[c] * MB, 1, flags, NULL);
              u[r] = run (host, ths[t], chunks[c] * MB, 0, 0, NULL);
            }
          printf ("%7d  %9zu  %-9s %5.1f  %6.1f\n", ths[t], chunks[c],
                  f ? "read-only" : "default", BYTES / median (l, 3) / 1e9,
                  BYTES / median (u, 3) / 1e9);
        }

  /* Locking on 4 threads while the copy engine takes each chunk as soon
     as it is locked, then unlocking: the whole upload's rate.  */
  const size_t chunk = 8 * MB, nchunks = BYTES / chunk;
  volatile int *done = calloc (nchunks, sizeof (int));
  for (int r = 0; r < 3; r++)
    {
      memset ((void *) done, 0, nchunks * sizeof (int));
      const double t0 = now ();
      pthread_t th[4];
      share sh[4];
      const size_t per = BYTES / 4;
      for (int i = 0; i < 4; i++)
        {
          sh[i] = (share) { host, i * per, (i + 1) * per, chunk, 1,
                            cudaHostRegisterReadOnly, done };
          pthread_create (&th[i], NULL, work, &sh[i]);
        }
      /* chunks in the order the threads lock them: round robin over the
         four shares */
      for (size_t q = 0; q < nchunks; q++)
        {
          const size_t idx = (q % 4) * (nchunks / 4) + q / 4;
          while (!__atomic_load_n (&done[idx], __ATOMIC_ACQUIRE))
            ;
          CHECK (cudaMemcpyAsync (dev + idx * chunk, host + idx * chunk,
                                  chunk, cudaMemcpyHostToDevice, s));
        }
      for (int i = 0; i < 4; i++)
        pthread_join (th[i], NULL);
      CHECK (cudaStreamSynchronize (s));
      const double t1 = now ();
      run (host, 4, chunk, 0, 0, NULL);
      const double t2 = now ();
      printf ("lock on 4 threads + DMA behind: %.1f GB/s to the device, "
              "%.1f GB/s with the unlock\n", BYTES / (t1 - t0) / 1e9,
              BYTES / (t2 - t0) / 1e9);
    }
  return 0;
}
