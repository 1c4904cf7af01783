/* test_head_rule.c -- how many first panels go as one head in blocks of
   A's rows (src/host/gt_head_rule.c), at the shapes measured
   (bench/RESULTS.md, "A head of panels in blocks of rows").  Prints one
   line per check and "N passed, N failed".  */

#include <math.h>
#include <stdio.h>
#include "gt_head_rule.h"
#include "test_check.h"

#define HOST_RATE 47e9      /* gt_host.c's PIECES_HOST_RATE */
#define THREE_RATE 75e12    /* gt_run.cu's kernel rate of Gauss's three */

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

/* A real double product in panels of w columns whose panel 0 goes in
   pieces of kc on kernel 9 (gt_run.cu's K9_PIECES_RATE, every SM busy),
   its A over one link (parts 1) or its own part of parts.  */
#define K9_RATE 50e12
static double rows_m;
static double
k9_piece (const void *arg, size_t cols)
{
  return 2.0 * rows_m * cols * *(const double *) arg / K9_RATE;
}

static gt_pieces_head_case
real_double (double m, double k, double n, size_t w, const double *kc,
             int parts)
{
  const size_t panels = (size_t) ((n + w - 1) / w);
  rows_m = m;
  const gt_pieces_head_case h = {
    w, (size_t) n, panels - 1, (size_t) (k / *kc),
    2.0 * m * n * k / K9_RATE, m * k * 8 / (parts * HOST_RATE),
    k * n * 8 / HOST_RATE, m * n * 8 / HOST_RATE, k9_piece, kc };
  return h;
}

static void
pieces_checks (void)
{
  static const double kc = 512;
  gt_pieces_head_case h = real_double (8192, 8192, 8192, 512, &kc, 1);
  size_t p = gt_pieces_head_panels (&h);
  printf ("# double 8192^3 in panels of 512: a head of %zu, %.2f of none\n",
          p, gt_pieces_head_end (&h, p) / gt_pieces_head_end (&h, 1));
  check (p >= 2 && p < h.most, "double 8192^3, pieces: a head, not all");
  check (gt_pieces_head_end (&h, p) < 0.95 * gt_pieces_head_end (&h, 1),
         "... predicted to end 5% sooner than panel 0 alone");
  /* C goes out after the head: a head so large that the other panels'
     kernels no longer cover C's copies ends later */
  check (gt_pieces_head_end (&h, h.most) > gt_pieces_head_end (&h, p),
         "... and sooner than a head of all full panels");

  /* a band of a split over two devices: half the columns, its own half
     of A over its link */
  h = real_double (8192, 8192, 4096, 512, &kc, 2);
  p = gt_pieces_head_panels (&h);
  printf ("# a band of 4096 columns: a head of %zu, %.2f of none\n", p,
          gt_pieces_head_end (&h, p) / gt_pieces_head_end (&h, 1));
  check (p >= 2, "a band of double 8192^3 over two devices: a head");

  h = real_double (4096, 4096, 4096, 512, &kc, 1);
  check (gt_pieces_head_panels (&h) == 1,
         "double 4096^3 (kernel near its copies): none");
  h = real_double (10000, 1000, 10000, 512, &kc, 1);
  check (gt_pieces_head_panels (&h) == 1,
         "10000x1000x10000 (C outweighs the kernel): none");
  h = real_double (8192, 8192, 8192, 512, &kc, 1);
  h.most = 1;
  check (gt_pieces_head_panels (&h) == 1, "one full panel: none");
}

int
main (void)
{
  pieces_checks ();
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
  return checks_done ();
}
