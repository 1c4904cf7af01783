/* host_bench.h -- what the host-side benchmarks (host_copy, host_duplex,
   host_register), bench_multi and hmm_probe share: a CUDA call checked, a
   monotonic clock, a median.  */

#ifndef HOST_BENCH_H
#define HOST_BENCH_H

#include <stdio.h>
#include <stdlib.h>
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

/* The median of v[0 .. n-1] (sorts v).  */
static inline double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return v[n / 2];
}

#endif
