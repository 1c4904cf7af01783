/* gather_rows -- blocks of A's rows into device memory, three ways: the
   question behind the next step for the squares' first phase
   (bench/RESULTS.md, "Double vectors in fewer pieces ...", What is
   left): can a block of h rows of a column-major A (each column's part
   h x 4 bytes, 2-16 KiB) cross the link near its rate, where the copy
   engine's 2-D copies of such rows and the host's gathers did not?

     memcpy2d  cudaMemcpy2DAsync of each block from the lock (the copy
               engine, one row of the 2-D copy a column's part)
     gather    a kernel on `sms` blocks reading each block straight from
               the lock (mapped memory), a warp per column's part, 8
               loads of 16 bytes a lane in flight, then the stores
     whole     all of A in one cudaMemcpyAsync from the lock: the link's
               rate for the same bytes

   A is malloc'd and locked as the package locks an operand
   (cudaHostRegister, mapped).  Each way copies all of A, block by block
   in order, timed with events around all blocks; median of `reps`.
   Each way's blocks are then compared with the host's.

     bench/gather_rows [--m 8192] [--k 8192] [--rows 512,1024,2048,4096]
                       [--sms 8,16,32] [--reps 11]

   Single precision (4-byte elements); m and h multiples of 4.  Not part
   of the plug-in.  */

#include <stdint.h>
#include "host_bench.h"

#define GATHER_THREADS 256
#define GATHER_UNROLL 8

/* Rows [r0, r0 + h) of the m x k column-major A (ld4 = m / 4 float4s a
   column, src already at row r0) into dst, h x k with leading dimension h
   (h4 = h / 4): warp w takes columns w, w + warps, ...; a lane loads up
   to GATHER_UNROLL float4s of its column's part before it stores any, so
   that enough reads of host memory are in flight to cover the link's
   latency.  */
__global__ void __launch_bounds__ (GATHER_THREADS)
gather_rows (const float4 *__restrict__ src, size_t ld4, size_t h4, size_t k,
             float4 *__restrict__ dst)
{
  const size_t warps = (size_t) gridDim.x * GATHER_THREADS / 32;
  const size_t w = ((size_t) blockIdx.x * GATHER_THREADS + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  for (size_t j = w; j < k; j += warps)
    {
      const float4 *s = src + j * ld4;
      float4 *d = dst + j * h4;
      for (size_t i0 = 0; i0 < h4; i0 += 32 * GATHER_UNROLL)
        {
          float4 v[GATHER_UNROLL];
#pragma unroll
          for (int u = 0; u < GATHER_UNROLL; u++)
            {
              const size_t i = i0 + u * 32 + lane;
              if (i < h4)
                v[u] = s[i];
            }
#pragma unroll
          for (int u = 0; u < GATHER_UNROLL; u++)
            {
              const size_t i = i0 + u * 32 + lane;
              if (i < h4)
                d[i] = v[u];
            }
        }
    }
}

/* Comma-separated sizes into out (at most max); returns their count.  */
static int
parse_list (const char *s, size_t *out, int max)
{
  int n = 0;
  while (s && *s && n < max)
    {
      out[n++] = (size_t) strtoull (s, NULL, 10);
      s = strchr (s, ',');
      if (s)
        s++;
    }
  return n;
}

typedef struct
{
  size_t m, k, rows[8], sms[8];
  int nrows, nsms, reps;
} options;

static void
parse_args (int argc, char **argv, options *o)
{
  o->m = 8192;
  o->k = 8192;
  o->nrows = parse_list ("512,1024,2048,4096", o->rows, 8);
  o->nsms = parse_list ("8,16,32", o->sms, 8);
  o->reps = 11;
  for (int i = 1; i + 1 < argc; i += 2)
    {
      if (!strcmp (argv[i], "--m"))
        o->m = (size_t) atoll (argv[i + 1]);
      else if (!strcmp (argv[i], "--k"))
        o->k = (size_t) atoll (argv[i + 1]);
      else if (!strcmp (argv[i], "--rows"))
        o->nrows = parse_list (argv[i + 1], o->rows, 8);
      else if (!strcmp (argv[i], "--sms"))
        o->nsms = parse_list (argv[i + 1], o->sms, 8);
      else if (!strcmp (argv[i], "--reps"))
        o->reps = atoi (argv[i + 1]);
      else
        {
          fprintf (stderr, "usage: %s [--m M] [--k K] [--rows H,...] "
                   "[--sms N,...] [--reps R]\n", argv[0]);
          exit (2);
        }
    }
  if (o->m % 4 || o->m == 0 || o->k == 0 || o->reps < 1)
    {
      fprintf (stderr, "m a positive multiple of 4, k and reps positive\n");
      exit (2);
    }
}

/* One way of copying all of A in blocks of h rows: 0 memcpy2d, 1 gather
   (on `sms` blocks), 2 whole.  */
typedef struct
{
  int way;
  size_t m, k, h, sms;
  const float *A;          /* host, locked */
  const float *A_dev;      /* the same memory, as the device sees it */
  float *D;                /* device: the blocks one after another */
  cudaStream_t s;
} copy_run;

static void
copy_all (const copy_run *r)
{
  const size_t m = r->m, k = r->k, h = r->h;
  if (r->way == 2)
    {
      CHECK (cudaMemcpyAsync (r->D, r->A, m * k * sizeof (float),
                              cudaMemcpyHostToDevice, r->s));
      return;
    }
  for (size_t r0 = 0; r0 < m; r0 += h)
    {
      const size_t hh = r0 + h <= m ? h : m - r0;
      float *dst = r->D + r0 * k;
      if (r->way == 0)
        CHECK (cudaMemcpy2DAsync (dst, hh * sizeof (float), r->A + r0,
                                  m * sizeof (float), hh * sizeof (float), k,
                                  cudaMemcpyHostToDevice, r->s));
      else
        {
          gather_rows<<<(unsigned) r->sms, GATHER_THREADS, 0, r->s>>> (
            (const float4 *) (r->A_dev + r0), m / 4, hh / 4, k,
            (float4 *) dst);
          CHECK (cudaGetLastError ());
        }
    }
}

/* The median of reps timed copies of all of A, in GB/s.  */
static double
rate (const copy_run *r, int reps)
{
  cudaEvent_t a, b;
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  double *gbs = (double *) malloc (reps * sizeof (double));
  copy_all (r);   /* warm-up */
  for (int i = 0; i < reps; i++)
    {
      CHECK (cudaEventRecord (a, r->s));
      copy_all (r);
      CHECK (cudaEventRecord (b, r->s));
      CHECK (cudaEventSynchronize (b));
      float ms;
      CHECK (cudaEventElapsedTime (&ms, a, b));
      gbs[i] = 1e-6 * r->m * r->k * sizeof (float) / ms;
    }
  qsort (gbs, reps, sizeof (double), cmp_double);
  const double med = gbs[reps / 2];
  free (gbs);
  CHECK (cudaEventDestroy (a));
  CHECK (cudaEventDestroy (b));
  return med;
}

/* Whether the device's blocks of h rows hold A's (all of them).  */
static int
blocks_right (const copy_run *r)
{
  const size_t m = r->m, k = r->k, h = r->h;
  float *back = (float *) malloc (m * k * sizeof (float));
  CHECK (cudaStreamSynchronize (r->s));
  CHECK (cudaMemcpy (back, r->D, m * k * sizeof (float),
                     cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (size_t r0 = 0; r0 < m; r0 += h)
    {
      const size_t hh = r0 + h <= m ? h : m - r0;
      for (size_t j = 0; j < k; j++)
        bad += memcmp (back + r0 * k + j * hh, r->A + r0 + j * m,
                       hh * sizeof (float)) != 0;
    }
  free (back);
  return bad == 0;
}

/* One line of the CSV: the device's blocks cleared, the rate, then the
   check of the blocks that the timed copies left (in one call's
   arguments the order of the two would be the compiler's: the first GPU
   run checked the blocks before they were copied, and every way but the
   gather read 0).  */
static void
report (const char *way, const copy_run *r, int reps)
{
  /* blocks another way left must not pass for this way's */
  CHECK (cudaMemset (r->D, 0xff, r->m * r->k * sizeof (float)));
  CHECK (cudaDeviceSynchronize ());   /* the copies go on r->s */
  const double gbs = rate (r, reps);
  const int right = blocks_right (r);
  printf ("%s,%zu,%zu,%.1f,%d\n", way, r->h, r->sms, gbs, right);
}

int
main (int argc, char **argv)
{
  options o;
  parse_args (argc, argv, &o);
  const size_t bytes = o.m * o.k * sizeof (float);
  float *A = (float *) filled (bytes, 0);
  for (size_t i = 0; i < o.m * o.k; i++)
    A[i] = (float) (i % 1000003);
  CHECK (cudaSetDevice (0));
  CHECK (cudaHostRegister (A, bytes, cudaHostRegisterMapped));
  float *A_dev, *D;
  CHECK (cudaHostGetDevicePointer ((void **) &A_dev, A, 0));
  CHECK (cudaMalloc ((void **) &D, bytes));
  cudaStream_t s;
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  cudaDeviceProp prop;
  CHECK (cudaGetDeviceProperties (&prop, 0));
  printf ("# %s; A %zu x %zu single (%.0f MiB), locked; median of %d\n",
          prop.name, o.m, o.k, bytes / (double) MB, o.reps);
  printf ("way,rows,sms,GB/s,right\n");
  copy_run r = { 2, o.m, o.k, o.m, 0, A, A_dev, D, s };
  report ("whole", &r, o.reps);   /* one block of all m rows: A's layout */
  for (int i = 0; i < o.nrows; i++)
    {
      r.h = o.rows[i];
      if (r.h % 4 || r.h == 0)
        continue;
      r.way = 0;
      r.sms = 0;
      report ("memcpy2d", &r, o.reps);
      r.way = 1;
      for (int j = 0; j < o.nsms; j++)
        {
          r.sms = o.sms[j];
          report ("gather", &r, o.reps);
        }
    }
  CHECK (cudaFree (D));
  CHECK (cudaHostUnregister (A));
  free (A);
  return 0;
}
