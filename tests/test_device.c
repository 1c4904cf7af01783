/* test_device.c -- gt_mtimes_device on the GPU, against the host path and
   a double product on the CPU, with leading dimensions larger than the row
   counts (aligned to 16 bytes and not), on a stream of its own.  Every
   element of C inside the product must be written and every one outside it
   (the padding rows) left alone.  Without a usable GPU the test skips and
   says why.  Prints its checks and "N passed, N failed, N skipped".  */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "gpu_tiled.h"

static int passed, failed;

static void
check (int ok, const char *what)
{
  printf ("  %-58s %s\n", what, ok ? "ok" : "FAILED");
  ok ? passed++ : failed++;
}

/* zero-mean values, fresh for every call */
static void
fill (float *x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    x[i] = (float) rand () / RAND_MAX - 0.5f;
}

/* ||C - A*B||_F <= 4 k eps ||A||_F ||B||_F, with A*B summed in double;
   C has leading dimension ldc.  */
static int
close_to_product (const float *A, const float *B, const float *C, size_t m,
                  size_t n, size_t k, size_t ldc)
{
  double err = 0, na = 0, nb = 0;
  for (size_t i = 0; i < m * k; i++)
    na += (double) A[i] * A[i];
  for (size_t i = 0; i < k * n; i++)
    nb += (double) B[i] * B[i];
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < m; i++)
      {
        double r = 0;
        for (size_t p = 0; p < k; p++)
          r += (double) A[i + p * m] * B[p + j * k];
        const double d = C[i + j * ldc] - r;
        err += d * d;
      }
  return sqrt (err) <= 4.0 * k * 1.1920929e-7 * sqrt (na) * sqrt (nb);
}

/* One product through gt_mtimes_device with padded leading dimensions
   and through gt_mtimes_host; 1 where both are right and the padding of
   C untouched.  */
static int
device_product (size_t m, size_t k, size_t n, size_t pa, size_t pb,
                size_t pc, int tile, cudaStream_t s)
{
  const size_t lda = m + pa, ldb = k + pb, ldc = m + pc;
  float *A = malloc (m * k * sizeof *A), *B = malloc (k * n * sizeof *B);
  float *Ap = malloc (lda * k * sizeof *A), *Bp = malloc (ldb * n * sizeof *B);
  float *C = malloc (ldc * n * sizeof *C), *H = malloc (m * n * sizeof *H);
  float *dA, *dB, *dC;
  fill (A, m * k);
  fill (B, k * n);
  fill (Ap, lda * k);   /* padding holds junk the kernels must not use */
  fill (Bp, ldb * n);
  for (size_t j = 0; j < k; j++)
    memcpy (Ap + j * lda, A + j * m, m * sizeof *A);
  for (size_t j = 0; j < n; j++)
    memcpy (Bp + j * ldb, B + j * k, k * sizeof *B);
  int ok = cudaMalloc ((void **) &dA, lda * k * sizeof *A) == cudaSuccess
           && cudaMalloc ((void **) &dB, ldb * n * sizeof *B) == cudaSuccess
           && cudaMalloc ((void **) &dC, ldc * n * sizeof *C) == cudaSuccess;
  ok = ok && cudaMemcpy (dA, Ap, lda * k * sizeof *A,
                         cudaMemcpyHostToDevice) == cudaSuccess
       && cudaMemcpy (dB, Bp, ldb * n * sizeof *B,
                      cudaMemcpyHostToDevice) == cudaSuccess
       && cudaMemset (dC, 0xff, ldc * n * sizeof *C) == cudaSuccess;   /* NaN */
  ok = ok && gt_mtimes_device (GT_SINGLE, dA, lda, dB, ldb, dC, ldc, m, n, k,
                               tile, GT_DEVICE_DEFAULT, s) == GT_OK
       && cudaStreamSynchronize (s) == cudaSuccess
       && cudaMemcpy (C, dC, ldc * n * sizeof *C,
                      cudaMemcpyDeviceToHost) == cudaSuccess;
  if (!ok)
    printf ("    %s\n", gt_error_text ());
  for (size_t j = 0; ok && j < n; j++)
    for (size_t i = 0; i < ldc; i++)
      {
        const int inside = i < m;
        if (inside == isnan (C[i + j * ldc]))   /* unwritten, or written */
          ok = 0;
      }
  ok = ok && close_to_product (A, B, C, m, n, k, ldc);
  const gt_operand ha = { A, GT_SINGLE }, hb = { B, GT_SINGLE };
  ok = ok && gt_mtimes_host (GT_SINGLE, ha, hb, H, m, n, k, tile,
                             GT_DEVICE_DEFAULT, NULL) == GT_OK
       && close_to_product (A, B, H, m, n, k, m);
  cudaFree (dA);
  cudaFree (dB);
  cudaFree (dC);
  free (A); free (B); free (Ap); free (Bp); free (C); free (H);
  return ok;
}

static void
shapes (cudaStream_t s)
{
  /* m, k, n, padding of lda, ldb, ldc (4 and 8: still 16-byte aligned) */
  static const size_t cases[][6] = {
    { 1, 1, 1, 3, 5, 7 }, { 37, 41, 29, 4, 8, 4 }, { 129, 127, 131, 1, 2, 3 },
    { 1, 300, 257, 2, 3, 1 }, { 257, 300, 1, 5, 1, 2 },
    { 300, 700, 500, 4, 4, 8 }, { 513, 33, 1025, 3, 3, 3 },
    { 1100, 1001, 1300, 4, 8, 12 }, { 2049, 517, 1031, 7, 1, 5 },
  };
  char what[96];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      const size_t *c = cases[i];
      snprintf (what, sizeof what, "%zux%zux%zu, ld + %zu, %zu, %zu",
                c[0], c[1], c[2], c[3], c[4], c[5]);
      check (device_product (c[0], c[1], c[2], c[3], c[4], c[5], 0, s),
             what);
    }
  for (int tile = 8; tile <= 32; tile *= 2)
    {
      snprintf (what, sizeof what, "67x45x33, ld + 3, 2, 1, tile %d", tile);
      check (device_product (67, 45, 33, 3, 2, 1, tile, s), what);
    }
}

/* x[i] of a matrix of type t as a double (the real or imaginary part,
   part 0 or 1), and the other way.  */
static double
get (const void *x, gt_type t, size_t i, int part)
{
  const int cx = t >= GT_COMPLEX_SINGLE;
  if (!cx && part)
    return 0.0;
  const size_t j = cx ? 2 * i + part : i;
  return t == GT_SINGLE || t == GT_COMPLEX_SINGLE ? ((const float *) x)[j]
                                                  : ((const double *) x)[j];
}

static void
put (void *x, gt_type t, size_t i, int part, double v)
{
  const size_t j = t >= GT_COMPLEX_SINGLE ? 2 * i + part : i;
  if (t == GT_SINGLE || t == GT_COMPLEX_SINGLE)
    ((float *) x)[j] = (float) v;
  else
    ((double *) x)[j] = v;
}

/* ||C - A*B||_F <= 8 k eps ||A||_F ||B||_F for matrices of type t with
   leading dimensions lda, ldb, ldc, summed in double (complex: both
   parts); every element of C's padding still NaN.  */
static int
typed_close (gt_type t, const void *A, size_t lda, const void *B, size_t ldb,
             const void *C, size_t ldc, size_t m, size_t n, size_t k)
{
  const int cx = t >= GT_COMPLEX_SINGLE;
  const double eps = t == GT_SINGLE || t == GT_COMPLEX_SINGLE
                     ? 1.1920929e-7 : 2.220446e-16;
  double err = 0, na = 0, nb = 0;
  for (size_t p = 0; p < k; p++)
    for (size_t i = 0; i < m; i++)
      na += pow (get (A, t, i + p * lda, 0), 2) + pow (get (A, t, i + p * lda, 1), 2);
  for (size_t j = 0; j < n; j++)
    for (size_t p = 0; p < k; p++)
      nb += pow (get (B, t, p + j * ldb, 0), 2) + pow (get (B, t, p + j * ldb, 1), 2);
  int pad_ok = 1;
  for (size_t j = 0; j < n; j++)
    {
      for (size_t i = m; i < ldc; i++)
        pad_ok &= isnan (get (C, t, i + j * ldc, 0));
      for (size_t i = 0; i < m; i++)
        {
          double re = 0, im = 0;
          for (size_t p = 0; p < k; p++)
            {
              const double ar = get (A, t, i + p * lda, 0);
              const double ai = get (A, t, i + p * lda, 1);
              const double br = get (B, t, p + j * ldb, 0);
              const double bi = get (B, t, p + j * ldb, 1);
              re += ar * br - ai * bi;
              im += ar * bi + ai * br;
            }
          err += pow (get (C, t, i + j * ldc, 0) - re, 2)
                 + (cx ? pow (get (C, t, i + j * ldc, 1) - im, 2) : 0.0);
        }
    }
  const double bound = 8.0 * k * eps * sqrt (na) * sqrt (nb);
  if (!pad_ok || !(sqrt (err) <= bound))
    printf ("    error %.3g, bound %.3g, padding %s\n", sqrt (err), bound,
            pad_ok ? "kept" : "written");
  return pad_ok && sqrt (err) <= bound;
}

/* One product of type t through gt_mtimes_device, leading dimensions
   padded by 3 (A), 2 (B) and 5 (C) elements, or (pad 0) none, as Octave
   stores its matrices.  */
static int
typed_product (gt_type t, size_t m, size_t k, size_t n, int pad,
               cudaStream_t s)
{
  const size_t es = gt_type_size (t), lda = m + (pad ? 3 : 0);
  const size_t ldb = k + (pad ? 2 : 0), ldc = m + (pad ? 5 : 0);
  void *A = malloc (lda * k * es), *B = malloc (ldb * n * es);
  void *C = malloc (ldc * n * es);
  for (size_t i = 0; i < lda * k; i++)
    for (int part = 0; part < 1 + (t >= GT_COMPLEX_SINGLE); part++)
      put (A, t, i, part, (double) rand () / RAND_MAX - 0.5);
  for (size_t i = 0; i < ldb * n; i++)
    for (int part = 0; part < 1 + (t >= GT_COMPLEX_SINGLE); part++)
      put (B, t, i, part, (double) rand () / RAND_MAX - 0.5);
  void *dA, *dB, *dC;
  int ok = cudaMalloc (&dA, lda * k * es) == cudaSuccess
           && cudaMalloc (&dB, ldb * n * es) == cudaSuccess
           && cudaMalloc (&dC, ldc * n * es) == cudaSuccess
           && cudaMemcpy (dA, A, lda * k * es, cudaMemcpyHostToDevice) == 0
           && cudaMemcpy (dB, B, ldb * n * es, cudaMemcpyHostToDevice) == 0
           && cudaMemset (dC, 0xff, ldc * n * es) == cudaSuccess
           && gt_mtimes_device (t, dA, lda, dB, ldb, dC, ldc, m, n, k, 0,
                                GT_DEVICE_DEFAULT, s) == GT_OK
           && cudaStreamSynchronize (s) == cudaSuccess
           && cudaMemcpy (C, dC, ldc * n * es, cudaMemcpyDeviceToHost) == 0;
  if (!ok)
    printf ("    %s\n", gt_error_text ());
  ok = ok && typed_close (t, A, lda, B, ldb, C, ldc, m, n, k);
  cudaFree (dA);
  cudaFree (dB);
  cudaFree (dC);
  free (A);
  free (B);
  free (C);
  return ok;
}

static void
typed_shapes (cudaStream_t s)
{
  static const size_t cases[][3] = {
    { 1, 1, 1 }, { 37, 41, 29 }, { 129, 127, 131 }, { 1, 300, 257 },
    { 257, 300, 1 }, { 300, 270, 350 },
  };
  const gt_type types[] = { GT_DOUBLE, GT_COMPLEX_SINGLE, GT_COMPLEX_DOUBLE };
  char what[96];
  for (int t = 0; t < 3; t++)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      {
        snprintf (what, sizeof what, "%s %zux%zux%zu, ld + 3, 2, 5",
                  gt_type_name (types[t]), cases[i][0], cases[i][1],
                  cases[i][2]);
        check (typed_product (types[t], cases[i][0], cases[i][1],
                              cases[i][2], 1, s), what);
      }
  /* doubles with odd leading dimensions (odd m, k or both): kernel 9
     reads every other column shifted */
  static const size_t odd[][3] = {
    { 1409, 200, 777 }, { 1408, 201, 769 }, { 1409, 201, 777 },
    { 301, 517, 259 },
  };
  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
    {
      snprintf (what, sizeof what, "double %zux%zux%zu, ld = rows",
                odd[i][0], odd[i][1], odd[i][2]);
      check (typed_product (GT_DOUBLE, odd[i][0], odd[i][1], odd[i][2], 0,
                            s), what);
    }
}

static void
refusals (void)
{
  float *d = NULL;
  if (cudaMalloc ((void **) &d, 64 * sizeof *d) != cudaSuccess)
    {
      check (0, "scratch for the argument checks");
      return;
    }
  check (gt_mtimes_device (GT_SINGLE, d, 3, d, 4, d, 4, 4, 4, 4, 0,
                           GT_DEVICE_DEFAULT, NULL) == GT_ERR_ARG,
         "lda smaller than m is refused");
  check (gt_mtimes_device (GT_SINGLE, d, 4, d, 4, d, 4, 4, 4, 4, 7,
                           GT_DEVICE_DEFAULT, NULL) == GT_ERR_ARG,
         "tile 7 is refused");
  check (gt_mtimes_device ((gt_type) 7, d, 4, d, 4, d, 4, 2, 2, 2, 0,
                           GT_DEVICE_DEFAULT, NULL) == GT_ERR_ARG,
         "an unknown element type is refused");
  check (gt_mtimes_device (GT_SINGLE, d, 4, d, 4, d, 4, 4, 4, 4, 0,
                           GT_MAX_DEVICES, NULL) == GT_ERR_ARG,
         "a device ordinal past the limit is refused");
  cudaFree (d);
}

/* Sizes whose bytes wrap a size_t are refused before anything is read or
   written (the operands here are a few elements: no GPU is needed).  */
static void
size_refusals (void)
{
  double x[4] = { 0 };   /* room for any type's few elements */
  const gt_operand a = { x, GT_SINGLE }, d = { x, GT_DOUBLE };
  const size_t big = (size_t) 1 << 32;
  check (gt_mtimes_host (GT_SINGLE, a, a, x, big, big, 1, 0,
                         GT_DEVICE_DEFAULT, NULL) == GT_ERR_ARG,
         "host: a 2^32 x 1 times 1 x 2^32 result is refused");
  check (gt_mtimes_host (GT_DOUBLE, d, d, x, 2, 2, (size_t) 1 << 61, 0,
                         GT_DEVICE_DEFAULT, NULL) == GT_ERR_ARG,
         "host: operands of 2^62 doubles are refused");
  check (gt_mtimes_device (GT_SINGLE, x, big, x, 1, x, big, big, big, 1, 0,
                           GT_DEVICE_DEFAULT, NULL) == GT_ERR_ARG,
         "device: a result whose bytes wrap is refused");
  check (gt_mtimes_device (GT_COMPLEX_DOUBLE, x, (size_t) 1 << 40, x,
                           (size_t) 1 << 20, x, (size_t) 1 << 40,
                           (size_t) 1 << 40, 1, (size_t) 1 << 20, 0,
                           GT_DEVICE_DEFAULT, NULL) == GT_ERR_ARG,
         "device: leading dimensions whose bytes wrap are refused");
}

int
main (void)
{
  size_refusals ();
  gt_info info;
  gt_device_info (GT_DEVICE_DEFAULT, &info);
  if (!info.usable)
    {
      printf ("  skipped, no usable GPU: %s\n%d passed, %d failed, 1 skipped\n",
              info.reason, passed, failed);
      return failed != 0;
    }
  printf ("  GPU: %s\n", info.name);
  srand (12345u ^ (unsigned) getpid ());
  cudaStream_t s;
  if (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking) != cudaSuccess)
    {
      check (0, "creating a stream");
      printf ("%d passed, %d failed, 0 skipped\n", passed, failed);
      return 1;
    }
  shapes (s);
  typed_shapes (s);
  refusals ();
  cudaStreamDestroy (s);
  gt_reset ();
  printf ("%d passed, %d failed, 0 skipped\n", passed, failed);
  return failed != 0;
}
