/* test_head_rule.c -- how many first panels go as one head in blocks of
   A's rows, or in pieces of k (src/host/gt_head_rule.c), at the shapes
   measured (bench/RESULTS.md, "A head of panels in blocks of rows", "A
   head of panels in pieces of k").  Prints one
   line per check and "N passed, N failed".  */

#include <math.h>
#include "gt_head_rule.h"
#include "test_check.h"

#define HOST_RATE 47e9      /* gt_host.c's PIECES_HOST_RATE */
#define THREE_RATE 75e12    /* gt_run.cu's kernel rate of Gauss's three */
#define K9_RATE 50e12       /* and of kernel 9's real products */

/* A real double product, its head in pieces of k on kernel 9.  */
static gt_head_case
real_double (double m, double k, double n, size_t w)
{
  const size_t panels = (size_t) ((n + w - 1) / w);
  const gt_head_case h = { w, (size_t) n, panels - 1,
                           2.0 * m * n * k / K9_RATE,
                           m * k * 8 / HOST_RATE, k * n * 8 / HOST_RATE,
                           m * n * 8 / HOST_RATE };
  return h;
}

/* A complex double product streamed in panels of w columns, its kernel
   time as the plan layer predicts it (or none: gpu 0).  */
static gt_head_case
complex_double (double m, double k, double n, size_t w, int gpu)
{
  const size_t panels = (size_t) ((n + w - 1) / w);
  const gt_head_case h = { w, (size_t) n, panels - 1,
                           gpu ? 8.0 * m * n * k / THREE_RATE : 0,
                           m * k * 16 / HOST_RATE, k * n * 16 / HOST_RATE,
                           m * n * 16 / HOST_RATE };
  return h;
}

int
main (void)
{
  gt_head_case h = complex_double (8192, 8192, 8192, 1024, 1);
  size_t p = gt_head_panels (&h);
  const double panel_gpu = (double) h.w / h.n * h.gpu_seconds;
  check (p >= 2 && p <= h.most, "complex double 8192^3: a head");
  check (fabs (p * panel_gpu - h.a_seconds) <= panel_gpu,
         "... whose GPU time is A's copies' within a panel");
  check (gt_head_end (&h, p) < 0.95 * gt_head_end (&h, 1),
         "... predicted to end 5% sooner than panel 0 alone");
  check (gt_head_end (&h, h.most) > gt_head_end (&h, p),
         "... and sooner than a head of all full panels");

  h = complex_double (8192, 8192, 8192, 1024, 0);
  check (gt_head_panels (&h) == 0, "a plan that takes none (real): none");
  h = complex_double (4096, 4096, 4096, 512, 1);
  check (gt_head_panels (&h) == 0,
         "complex double 4096^3 (kernel near its copies): none");
  h = complex_double (10000, 1000, 10000, 1024, 1);
  check (h.gpu_seconds > 2.2 * h.a_seconds && gt_head_panels (&h) == 0,
         "10000x1000x10000: C outweighs the kernel: none");

  /* 16384^3 in panels of 1024: A's copies match the GPU time of about
     three panels */
  h = complex_double (16384, 16384, 16384, 1024, 1);
  check (gt_head_panels (&h) == 3, "complex double 16384^3, panels of 1024: 3");
  h.most = 3;
  check (gt_head_panels (&h) == 3, "... with 3 full panels to take: 3");
  h.most = 2;
  check (gt_head_panels (&h) == 0, "... with 2 (under 5% sooner): none");
  h.most = 1;
  check (gt_head_panels (&h) == 0, "one full panel: none");

  /* the kernel's share around the bound, A's and C's times alike */
  const gt_head_case below = { 1024, 8192, 7, 2.1, 1.0, 1.0, 1.0 };
  const gt_head_case above = { 1024, 8192, 7, 2.3, 1.0, 1.0, 1.0 };
  check (gt_head_panels (&below) == 0 && gt_head_panels (&above) >= 2,
         "kernel 2.1 times its copies: none; 2.3 times: a head");

  /* heads in pieces of k: the measured shapes, panels as planned on a
     132-SM Hopper (bench/plan_dump --panels) */
  static const struct
  {
    double m, k, n;
    size_t w, panels;
    const char *what;
  } shapes[] = {
    { 8192, 8192, 8192, 1024, 3, "double 8192^3: a head of 3 in pieces" },
    { 12288, 12288, 12288, 1536, 2, "double 12288^3: 2 of 8 panels" },
    { 8001, 6000, 3001, 384, 3,
      "double 8001x6000x3001 (the GPU test's): 3 of 8, under 0.4" },
    { 8001, 4500, 3001, 384, 3,
      "double 8001x4500x3001 (1.00 of the time, run 6): 3 of 8" },
    { 6000, 6000, 6000, 768, 0,
      "double 6000^3 (kernel 1.4 times B's copies): none" },
    { 6001, 5000, 5003, 640, 0, "double 6001x5000x5003: none" },
    { 4096, 4096, 4096, 512, 0,
      "double 4096^3 (kernel near B's copies): none" },
    { 2000, 20000, 2000, 256, 0, "double 2000x20000x2000: none" },
    { 16384, 16384, 16384, 2048, 0,
      "double 16384^3 in eighths: 2 panels' GPU time near A's: none" },
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    {
      h = real_double (shapes[i].m, shapes[i].k, shapes[i].n, shapes[i].w);
      check (gt_pieces_head_panels (&h) == shapes[i].panels, shapes[i].what);
    }
  h = real_double (8192, 8192, 8192, 1024);
  check (gt_head_end (&h, 4) < gt_head_end (&h, 3),
         "8192^3: the model alone would take 4, which lost");
  h = real_double (8001, 6000, 3001, 384);
  check (h.gpu_seconds > 1.25 * h.c_seconds,
         "8001x6000x3001: its kernel clear of C's copies");
  h = real_double (10000, 1000, 10000, 1024);
  check (h.gpu_seconds > 1.75 * h.b_seconds && gt_pieces_head_panels (&h) == 0,
         "double 10000x1000x10000: C outweighs the kernel: none");
  h = real_double (8192, 8192, 8192, 1024);
  h.gpu_seconds = 0;
  check (gt_pieces_head_panels (&h) == 0, "a plan that takes none: none");
  return checks_done ();
}
