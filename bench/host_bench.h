/* host_bench.h -- what the host-side benchmarks (host_copy, host_duplex,
   host_register, stage_cache, register_beside), bench_multi and hmm_probe
   share: a CUDA call checked, a monotonic clock, a median, a lane's
   stream and events, threads started together.  */

#ifndef HOST_BENCH_H
#define HOST_BENCH_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>

#define MB ((size_t) 1 << 20)
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf (stderr, "%s: %s\n", #x, cudaGetErrorString (e_)); exit (1); } } while (0)

static inline double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static inline int
cmp_double (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* On device gpu: a non-blocking stream and n events without timing, as
   each lane of the staging probes (host_duplex, stage_cache,
   register_beside) orders its slots with.  */
static inline void
lane_stream (int gpu, cudaStream_t *s, cudaEvent_t *ev, int n)
{
  CHECK (cudaSetDevice (gpu));
  CHECK (cudaStreamCreateWithFlags (s, cudaStreamNonBlocking));
  for (int i = 0; i < n; i++)
    CHECK (cudaEventCreateWithFlags (&ev[i], cudaEventDisableTiming));
}

/* bytes of host memory, every byte `value` (so every page is there).  */
static inline char *
filled (size_t bytes, int value)
{
  char *p = (char *) malloc (bytes);
  if (!p)
    {
      fprintf (stderr, "out of host memory (%zu bytes)\n", bytes);
      exit (1);
    }
  memset (p, value, bytes);
  return p;
}

/* bytes of device memory on the current device, every byte `value`.  */
static inline char *
device_filled (size_t bytes, int value)
{
  char *p;
  CHECK (cudaMalloc ((void **) &p, bytes));
  CHECK (cudaMemset (p, value, bytes));
  return p;
}

/* Seconds for fn to run on each of args[0 .. n-1] at once, one thread
   each (n <= 8).  */
static inline double
run_together (void *(*fn) (void *), void **args, int n)
{
  pthread_t th[8];
  const double t0 = now ();
  for (int i = 0; i < n; i++)
    pthread_create (&th[i], NULL, fn, args[i]);
  for (int i = 0; i < n; i++)
    pthread_join (th[i], NULL);
  return now () - t0;
}

/* The median of v[0 .. n-1] (sorts v).  */
static inline double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return v[n / 2];
}

#endif
