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
  ok = ok && gt_mtimes_host (GT_SINGLE, A, B, H, m, n, k, tile,
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
  check (gt_mtimes_device (GT_DOUBLE, d, 4, d, 4, d, 4, 2, 2, 2, 0,
                           GT_DEVICE_DEFAULT, NULL) == GT_ERR_UNSUPPORTED,
         "double: not supported yet, said so");
  check (gt_mtimes_device (GT_SINGLE, d, 4, d, 4, d, 4, 4, 4, 4, 0,
                           GT_MAX_DEVICES, NULL) == GT_ERR_ARG,
         "a device ordinal past the limit is refused");
  cudaFree (d);
}

int
main (void)
{
  gt_info info;
  gt_device_info (GT_DEVICE_DEFAULT, &info);
  if (!info.usable)
    {
      printf ("  skipped, no usable GPU: %s\n0 passed, 0 failed, 1 skipped\n",
              info.reason);
      return 0;
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
  refusals ();
  cudaStreamDestroy (s);
  gt_reset ();
  printf ("%d passed, %d failed, 0 skipped\n", passed, failed);
  return failed != 0;
}
