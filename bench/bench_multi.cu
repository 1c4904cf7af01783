/* bench_multi.cu -- the default path split over every GPU of the host,
   operands already resident, against one GPU doing the whole product.

   Each GPU holds A (m x k) and its band of columns of B and C, as the host
   layer's split does (gt_multi.c); all GPUs start together on their own
   streams, each from its own host thread, and the time is the wall time
   until the last one ends.  The one-GPU row is device 0 on the whole
   product, from a thread of its own likewise; the two are run in turn
   (median of the timed runs of each, after warm-ups).  The split result is checked against the one-GPU result
   (relative Frobenius difference: the bands' plans may cut k otherwise).

     bench_multi [--type single|double|csingle|cdouble] [--reps N]
                 [--csv FILE] [--device NAME] [--shapes m,k,n;...]

   Rows (the CSV of bench_kernels): default_1gpu, default_Ngpu; vs_cublas
   holds the speed-up over default_1gpu; rel_err the difference.  */

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime.h>
#include "gpu_tiled.h"
#include "host_bench.h"

#define CK(call)                                                        \
  do {                                                                  \
    cudaError_t e_ = (call);                                            \
    if (e_ != cudaSuccess)                                              \
      {                                                                 \
        fprintf (stderr, "%s:%d: %s\n", __FILE__, __LINE__,             \
                 cudaGetErrorString (e_));                              \
        exit (2);                                                       \
      }                                                                 \
  } while (0)

#define MAX_GPUS 8
#define BAND_STEP 256

__global__ void
fill (float *x, size_t n, unsigned seed)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    {
      unsigned h = (unsigned) i * 2654435761u ^ seed * 0x9e3779b9u;
      h ^= h >> 15; h *= 0x846ca68bu; h ^= h >> 16;
      x[i] = (h & 0xffffff) / 8388608.0f - 1.0f + 1e-7f;
    }
}

__global__ void
widen (const float *x, double *y, size_t n)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    y[i] = x[i] * 1.000000059604644775390625;
}

/* n elements of type t, zero-mean, on the current device */
static void *
operand (gt_type t, size_t n, unsigned seed)
{
  const size_t reals = n * gt_type_size (t) / sizeof (float);
  void *p;
  CK (cudaMalloc (&p, n * gt_type_size (t)));
  if (t == GT_SINGLE || t == GT_COMPLEX_SINGLE)
    fill<<<1024, 256>>> ((float *) p, reals, seed);
  else
    {
      float *tmp;
      CK (cudaMalloc (&tmp, reals / 2 * sizeof (float)));
      fill<<<1024, 256>>> (tmp, reals / 2, seed);
      widen<<<1024, 256>>> (tmp, (double *) p, reals / 2);
      CK (cudaDeviceSynchronize ());
      CK (cudaFree (tmp));
    }
  return p;
}

typedef struct
{
  int dev;
  cudaStream_t s;
  void *A, *B, *C;
  size_t j0, n;
} band;

/* A band's host thread, as the host layer's split gives each device its
   own (gt_multi.c): a call may wait inside (kernel 11 for its scans'
   choice, Gauss's three for their check of the operands), and one thread
   launching every band in turn would start the next band only after that
   wait.  The run starts at the first barrier; the second follows its
   stream's end.  */
typedef struct
{
  gt_type t;
  const band *b;
  size_t m, k;
  pthread_barrier_t *start, *done;
} band_worker;

static void *
band_run (void *arg)
{
  const band_worker *w = (const band_worker *) arg;
  CK (cudaSetDevice (w->b->dev));
  pthread_barrier_wait (w->start);
  if (gt_mtimes_device (w->t, w->b->A, w->m, w->b->B, w->k, w->b->C, w->m,
                        w->m, w->b->n, w->k, 0, w->b->dev, w->b->s) != GT_OK)
    {
      fprintf (stderr, "gt_mtimes_device: %s\n", gt_error_text ());
      exit (2);
    }
  CK (cudaStreamSynchronize (w->b->s));
  pthread_barrier_wait (w->done);
  return NULL;
}

/* Wall seconds of one run of every band at once, each from its own host
   thread (made before the clock starts).  */
static double
run_bands (gt_type t, const band *b, int g, size_t m, size_t k)
{
  pthread_barrier_t start, done;
  pthread_barrier_init (&start, NULL, g + 1);
  pthread_barrier_init (&done, NULL, g + 1);
  pthread_t th[MAX_GPUS];
  band_worker w[MAX_GPUS];
  for (int i = 0; i < g; i++)
    {
      const band_worker wi = { t, &b[i], m, k, &start, &done };
      w[i] = wi;
      if (pthread_create (&th[i], NULL, band_run, &w[i]) != 0)
        {
          fprintf (stderr, "pthread_create failed\n");
          exit (2);
        }
    }
  pthread_barrier_wait (&start);
  const double t0 = now ();
  pthread_barrier_wait (&done);
  const double seconds = now () - t0;
  for (int i = 0; i < g; i++)
    pthread_join (th[i], NULL);
  pthread_barrier_destroy (&start);
  pthread_barrier_destroy (&done);
  return seconds;
}

/* Median wall seconds of device 0 alone (*t1) and of the g bands (*tg),
   run in turn, the order swapped each run (2 warm-up runs of each first):
   both see the clocks and temperature that a run of one after the other
   would drift between.  */
static void
time_pair (gt_type t, const band *one, const band *b, int g, size_t m,
           size_t k, int reps, double *t1, double *tg)
{
  double ts[2][64];
  for (int r = -2; r < reps; r++)
    for (int i = 0; i < 2; i++)
      {
        const int j = ((r & 1) + i) % 2;
        const double sec = j == 0 ? run_bands (t, one, 1, m, k)
                                  : run_bands (t, b, g, m, k);
        if (r >= 0)
          ts[j][r] = sec;
      }
  *t1 = median (ts[0], reps);
  *tg = median (ts[1], reps);
}

/* Relative Frobenius difference of the reals x and y (n of them).  */
static double
rel_diff (gt_type t, const void *x, const void *y, size_t n)
{
  const int dbl = t == GT_DOUBLE || t == GT_COMPLEX_DOUBLE;
  double d = 0, r = 0;
  for (size_t i = 0; i < n; i++)
    {
      const double a = dbl ? ((const double *) x)[i] : ((const float *) x)[i];
      const double b = dbl ? ((const double *) y)[i] : ((const float *) y)[i];
      d += (a - b) * (a - b);
      r += b * b;
    }
  return sqrt (d / r);
}

/* One shape: device 0 alone and g devices at once, in turn.  */
static void
bench_shape (gt_type t, int g, size_t m, size_t k, size_t n, int reps,
             FILE *csv, const char *device, const char *date)
{
  const size_t es = gt_type_size (t);
  const double flops = 2.0 * m * n * k * (t >= GT_COMPLEX_SINGLE ? 4 : 1);
  band b[MAX_GPUS];
  CK (cudaSetDevice (0));
  void *A = operand (t, m * k, 1), *B = operand (t, k * n, 2), *C;
  CK (cudaMalloc (&C, m * n * es));
  band one = { 0, 0, A, B, C, 0, n };
  CK (cudaStreamCreate (&one.s));
  /* bands: widths cut on BAND_STEP, the last takes the rest */
  size_t j0 = 0;
  for (int i = 0; i < g; i++)
    {
      b[i].dev = i;
      b[i].j0 = j0;
      b[i].n = i == g - 1 ? n - j0 : (n / g + BAND_STEP / 2) / BAND_STEP
                                      * BAND_STEP;
      j0 += b[i].n;
      CK (cudaSetDevice (i));
      CK (cudaStreamCreate (&b[i].s));
      CK (cudaMalloc (&b[i].A, m * k * es));
      CK (cudaMalloc (&b[i].B, k * b[i].n * es));
      CK (cudaMalloc (&b[i].C, m * b[i].n * es));
      CK (cudaMemcpyPeer (b[i].A, i, A, 0, m * k * es));
      CK (cudaMemcpyPeer (b[i].B, i, (char *) B + b[i].j0 * k * es, 0,
                          k * b[i].n * es));
    }
  double t1, tg;
  time_pair (t, &one, b, g, m, k, reps, &t1, &tg);
  char *h1 = (char *) malloc (m * n * es), *hg = (char *) malloc (m * n * es);
  CK (cudaSetDevice (0));
  CK (cudaMemcpy (h1, C, m * n * es, cudaMemcpyDeviceToHost));
  for (int i = 0; i < g; i++)
    {
      CK (cudaSetDevice (i));
      CK (cudaMemcpy (hg + b[i].j0 * m * es, b[i].C, m * b[i].n * es,
                      cudaMemcpyDeviceToHost));
      CK (cudaFree (b[i].A));
      CK (cudaFree (b[i].B));
      CK (cudaFree (b[i].C));
      CK (cudaStreamDestroy (b[i].s));
    }
  const int dbl = t == GT_DOUBLE || t == GT_COMPLEX_DOUBLE;
  const double diff = rel_diff (t, hg, h1, m * n * es / (dbl ? 8 : 4));
  free (h1);
  free (hg);
  CK (cudaSetDevice (0));
  CK (cudaFree (A));
  CK (cudaFree (B));
  CK (cudaFree (C));
  CK (cudaStreamDestroy (one.s));
  const char *tn[] = { "", "_d", "_c", "_z" };
  printf ("%-16s %6zu %6zu %6zu %10.3f ms %8.2f TFLOP/s\n", "default_1gpu", m,
          n, k, 1e3 * t1, flops / t1 / 1e12);
  printf ("%-16s %6zu %6zu %6zu %10.3f ms %8.2f TFLOP/s  %.3fx one GPU, "
          "difference %.2g\n", "default_Ngpu", m, n, k, 1e3 * tg,
          flops / tg / 1e12, t1 / tg, diff);
  if (csv)
    {
      fprintf (csv, "%s,%s,default%s_1gpu,%zu,%zu,%zu,%.5f,%.3f,1.0000,0\n",
               device, date, tn[t], m, n, k, 1e3 * t1, flops / t1 / 1e12);
      fprintf (csv, "%s,%s,default%s_%dgpu,%zu,%zu,%zu,%.5f,%.3f,%.4f,%.3e\n",
               device, date, tn[t], g, m, n, k, 1e3 * tg, flops / tg / 1e12,
               t1 / tg, diff);
    }
}

int
main (int argc, char **argv)
{
  const char *spec = "4096,4096,4096;8192,8192,8192;16384,16384,16384";
  const char *csv_name = NULL, *device = "gpu", *type = "single";
  int reps = 7;
  for (int i = 1; i < argc; i++)
    {
      if (!strcmp (argv[i], "--shapes") && i + 1 < argc)
        spec = argv[++i];
      else if (!strcmp (argv[i], "--csv") && i + 1 < argc)
        csv_name = argv[++i];
      else if (!strcmp (argv[i], "--device") && i + 1 < argc)
        device = argv[++i];
      else if (!strcmp (argv[i], "--type") && i + 1 < argc)
        type = argv[++i];
      else if (!strcmp (argv[i], "--reps") && i + 1 < argc)
        reps = atoi (argv[++i]);
      else
        {
          fprintf (stderr, "usage: %s [--type single|double|csingle|cdouble]"
                   " [--reps N] [--csv FILE] [--device NAME] "
                   "[--shapes m,k,n;...]\n", argv[0]);
          return 2;
        }
    }
  if (reps < 1 || reps > 64)
    reps = 7;
  const gt_type t = !strcmp (type, "double") ? GT_DOUBLE
                    : !strcmp (type, "csingle") ? GT_COMPLEX_SINGLE
                    : !strcmp (type, "cdouble") ? GT_COMPLEX_DOUBLE
                    : GT_SINGLE;
  int g = 0;
  CK (cudaGetDeviceCount (&g));
  if (g > MAX_GPUS)
    g = MAX_GPUS;
  printf ("%d GPUs, %s\n", g, gt_type_name (t));
  char date[16];
  const time_t now_t = time (NULL);
  strftime (date, sizeof date, "%Y-%m-%d", gmtime (&now_t));
  FILE *csv = NULL;
  if (csv_name)
    {
      csv = fopen (csv_name, "a");
      if (csv && ftell (csv) == 0)
        fprintf (csv, "device,date,kernel,m,n,k,ms,tflops,vs_cublas,"
                 "rel_err\n");
    }
  for (const char *p = spec; p && *p;)
    {
      size_t m, k, n;
      if (sscanf (p, "%zu,%zu,%zu", &m, &k, &n) != 3)
        break;
      bench_shape (t, g, m, k, n, reps, csv, device, date);
      p = strchr (p, ';');
      p = p ? p + 1 : NULL;
    }
  if (csv)
    fclose (csv);
  return 0;
}
