/* test_crossover.c -- tests of the crossover between the host's product
   and the GPU (src/host/gt_crossover.c) against sides whose times are
   known: a GPU and a host product modelled on a virtual clock, linked in
   place of the library's.  They need no GPU.  Prints "N passed, N
   failed".  */

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gpu_tiled.h"
#include "gt_context.h"
#include "gt_options.h"
#include "gt_product.h"
#include "gt_stage.h"
#include "test_check.h"


/* ---- the sides, as models ---- */

static double now_s;          /* the virtual clock */
static int gpu_fails_at;      /* a square size whose GPU call fails */
static int crossover_off;
/* the GPU: fixed + bytes / rate, and at 256^3 (drop_256) a time below
   the one at 192^3, as timing noise can make it */
static double gpu_fixed = 20e-6, gpu_rate = 20e9;
static int drop_256;
/* the host: one rate up to 64^3, a faster one past it (OpenBLAS's
   threads), shifted by host_shift there */
static double host_fixed = 1e-6, host_rate1 = 30e9, host_rate2 = 60e9;
static double host_shift;

static double
gpu_model (gt_type c, size_t m, size_t n, size_t k)
{
  const double es = (double) gt_type_size (c);
  const double bytes = es * ((double) m * k + (double) k * n
                             + (double) m * n);
  double t = gpu_fixed + bytes / gpu_rate;
  if (drop_256 && m == 256 && n == 256 && k == 256)
    t = gpu_model (c, 192, 192, 192) * 0.9;
  return t;
}

static double
host_model (gt_type c, size_t m, size_t n, size_t k)
{
  const double f = gt_flops (c, m, n, k), f64 = gt_flops (c, 64, 64, 64);
  return f <= f64 ? host_fixed + f / host_rate1
                  : host_fixed + f64 / host_rate1 + (f - f64) / host_rate2
                    + host_shift;
}

/* The library's functions that gt_crossover.c calls.  */
double
gt_now (void)
{
  return now_s;
}

double
gt_flops (gt_type c, size_t m, size_t n, size_t k)
{
  const double f = 2.0 * m * n * k;
  return c == GT_COMPLEX_SINGLE || c == GT_COMPLEX_DOUBLE ? 4 * f : f;
}

size_t
gt_type_size (gt_type t)
{
  static const size_t size[] = { 4, 8, 8, 16 };
  return (unsigned) t < 4 ? size[t] : 0;
}

void
gt_ctx_rest_helpers (void)
{
}

int
gt_option_crossover_off (void)
{
  return crossover_off;
}

gt_status
gt_mtimes_host (gt_type c, gt_operand A, gt_operand B, void *C, size_t m,
                size_t n, size_t k, int tile, int device,
                gt_interrupt_fn interrupted)
{
  (void) A, (void) B, (void) C, (void) tile, (void) device;
  (void) interrupted;
  if ((int) n == gpu_fails_at)
    return GT_ERR_CUDA;
  now_s += gpu_model (c, m, n, k);
  return GT_OK;
}

static double
timer (gt_type c, size_t n, void *arg)
{
  (void) arg;
  return host_model (c, n, n, n);
}

/* ---- the tests ---- */

static void
reset (void)
{
  gt_crossover_forget ();
  gpu_fails_at = 0;
  crossover_off = 0;
  drop_256 = 0;
  host_shift = 0;
}

/* Products of every type, square and not, on both sides of the
   crossover: each where its model is faster, where the two differ by
   more than a fifth (the lines are straight between measured sizes).  */
static void
test_decisions (void)
{
  reset ();
  static const size_t shapes[][3] = {
    { 8, 8, 8 }, { 30, 20, 40 }, { 48, 48, 48 }, { 64, 64, 64 },
    { 80, 70, 90 }, { 100, 100, 100 }, { 150, 40, 200 }, { 200, 200, 200 },
    { 300, 300, 300 }, { 1000, 16, 16 }, { 16, 1000, 16 }, { 600, 600, 9 }
  };
  int wrong = 0, compared = 0, host = 0;
  for (int c = 0; c < GT_TYPE_COUNT; c++)
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
      {
        const size_t m = shapes[i][0], k = shapes[i][1], n = shapes[i][2];
        const double h = host_model (c, m, n, k), g = gpu_model (c, m, n, k);
        const int on_host = gt_runs_on_host (c, c, c, m, n, k, timer, NULL);
        if (fabs (h - g) < 0.2 * (h < g ? h : g))
          continue;
        compared++;
        wrong += on_host != (h < g);
        host += on_host;
      }
  printf ("    %d of %d products compared went to the host\n", host,
          compared);
  check (compared > 20 && wrong == 0 && host > 0 && host < compared,
         "each product goes to the faster side");
}

/* What gpu_tiled_info reports: the sizes and both sides' times there,
   the fixed costs, the rate past 256^3, a square crossover between two
   measured sizes.  */
static void
test_info (void)
{
  reset ();
  gt_runs_on_host (GT_DOUBLE, GT_DOUBLE, GT_DOUBLE, 4, 4, 4, timer, NULL);
  gt_crossover_info i;
  gt_crossover_get (GT_DOUBLE, &i);
  int ok = i.measured == 1 && i.sizes[0] == 4
           && i.sizes[GT_CROSSOVER_POINTS - 1] == 256;
  for (int p = 0; ok && p < GT_CROSSOVER_POINTS; p++)
    {
      const size_t n = (size_t) i.sizes[p];
      ok = (p == 0 || i.sizes[p] > i.sizes[p - 1])
           && fabs (i.host_s[p] - host_model (GT_DOUBLE, n, n, n)) < 1e-12
           && fabs (i.gpu_s[p] - gpu_model (GT_DOUBLE, n, n, n)) < 1e-12;
    }
  check (ok, "the points measured are the sides' times");
  check (fabs (i.host_fixed_s - host_model (GT_DOUBLE, 4, 4, 4)) < 1e-12
         && fabs (i.gpu_fixed_s - gpu_model (GT_DOUBLE, 4, 4, 4)) < 1e-12
         && fabs (i.host_flops_per_s / host_rate2 - 1) < 1e-9
         && fabs (i.gpu_bytes_per_s / gpu_rate - 1) < 1e-9,
         "fixed costs at 4^3 and the rates past 256^3");
  const double n = i.square_n;
  check (n > 4 && n < 256
         && host_model (GT_DOUBLE, n - 1, n - 1, n - 1)
            < gpu_model (GT_DOUBLE, n - 1, n - 1, n - 1) * 1.2
         && host_model (GT_DOUBLE, n + 1, n + 1, n + 1) * 1.2
            > gpu_model (GT_DOUBLE, n + 1, n + 1, n + 1),
         "the square crossover sits where the sides cross");
}

/* A GPU line whose last segment falls goes on from its last point at
   that point's rate from zero (it had gone on from the point before).
   The host's line past 256^3 is exact (one straight line there), and its
   time for the product sits between the two readings of the GPU's.  */
static void
test_falling_last_segment (void)
{
  reset ();
  drop_256 = 1;
  const gt_type c = GT_SINGLE;
  const double es = 4, x6 = 3 * 192.0 * 192 * es, x7 = 3 * 256.0 * 256 * es;
  const double t6 = gpu_model (c, 192, 192, 192);
  const double t7 = gpu_model (c, 256, 256, 256);
  const size_t n = 400;
  const double v = 3.0 * n * n * es;
  const double right = t7 * v / x7, wrong = t6 + (v - x6) * t7 / x7;
  /* the host's line through 192 and 256 (and past) meets mid at n */
  const double mid = 0.5 * (right + wrong);
  const double f = gt_flops (c, n, n, n), f64 = gt_flops (c, 64, 64, 64);
  const double save_rate2 = host_rate2;
  host_rate2 = 1e13;
  host_shift = mid - (f - f64) / host_rate2 - host_fixed - f64 / host_rate1;
  gt_runs_on_host (c, c, c, 4, 4, 4, timer, NULL);
  gt_crossover_info i;
  gt_crossover_get (c, &i);
  check (fabs (i.gpu_bytes_per_s / (x7 / t7) - 1) < 1e-9,
         "falling last segment: the rate of the last point");
  check (gt_runs_on_host (c, c, c, n, n, n, timer, NULL) == (mid < right),
         "falling last segment: the line from the last point");
  host_rate2 = save_rate2;
  host_shift = 0;
}

/* A GPU call that fails while measuring: every product of that type to
   the GPU (whose call then says why), and nothing of the measurement
   kept; the option off: every product to the GPU; over 16 MiB: never
   the host, however fast.  */
static void
test_off (void)
{
  reset ();
  gpu_fails_at = 128;
  gt_crossover_info i;
  const int a = gt_runs_on_host (GT_SINGLE, GT_SINGLE, GT_SINGLE, 4, 4, 4,
                                 timer, NULL);
  gt_crossover_get (GT_SINGLE, &i);
  int zeros = i.measured == 0 && i.square_n == 0;
  for (int p = 0; p < GT_CROSSOVER_POINTS; p++)
    zeros = zeros && i.sizes[p] == 0 && i.gpu_s[p] == 0;
  check (a == 0 && zeros, "a failed measurement: GPU, nothing kept");
  reset ();
  crossover_off = 1;
  check (!gt_runs_on_host (GT_DOUBLE, GT_DOUBLE, GT_DOUBLE, 4, 4, 4, timer,
                           NULL),
         "GPU_TILED_CROSSOVER=off: the GPU");
  reset ();
  const double save = host_rate2;
  host_rate2 = 1e18;   /* a host far faster than any GPU */
  check (gt_runs_on_host (GT_SINGLE, GT_SINGLE, GT_SINGLE, 1000, 1000, 1000,
                          timer, NULL)
         && !gt_runs_on_host (GT_SINGLE, GT_SINGLE, GT_SINGLE, 1200, 1200,
                              1200, timer, NULL),
         "over 16 MiB: the GPU, however fast the host");
  host_rate2 = save;
}

/* count calls of a single product m x k x n given no tile, each timed
   as the caller times it: the host's host_s, the GPU's gpu_cold_s for
   its first two calls and gpu_s after; sides gets where each ran ('G',
   'H').  */
static void
vector_calls (size_t m, size_t n, size_t k, double host_s, double gpu_cold_s,
              double gpu_s, int count, char *sides)
{
  int gpu = 0;
  for (int i = 0; i < count; i++)
    {
      const int h = gt_runs_on_host (GT_SINGLE, GT_SINGLE, GT_SINGLE, m, n,
                                     k, timer, NULL);
      gt_vector_timed (GT_SINGLE, GT_SINGLE, GT_SINGLE, m, n, k, h,
                       h ? host_s : gpu++ < 2 ? gpu_cold_s : gpu_s);
      sides[i] = h ? 'H' : 'G';
    }
  sides[count] = 0;
}

/* The indices of the side c ('G', 'H') in sides, at most `most` of them,
   in at; their count returned.  */
static int
side_at (const char *sides, char c, int *at, int most)
{
  int n = 0;
  for (int i = 0; sides[i] && n < most; i++)
    if (sides[i] == c)
      at[n++] = i;
  return n;
}

/* Whether side c ran at exactly the calls want[0 .. count-1] (the first
   count of its calls, and no more of them), printed under `what`.  */
static int
ran_at (const char *sides, char c, const int *want, int count,
        const char *what)
{
  int at[16];
  const int n = side_at (sides, c, at, 16);
  printf ("    %s: %c at", what, c);
  for (int j = 0; j < n; j++)
    printf (" %d", at[j]);
  printf ("\n");
  int ok = n == count;
  for (int j = 0; ok && j < count; j++)
    ok = at[j] == want[j];
  return ok;
}

/* Vector products over 16 MiB: per kind, two calls on the GPU, one on
   the host, then the side of the best rate, the other again after 4
   calls (the GPU for two calls), then after twice as many each time, or
   after as many as make its extra time 2% of theirs where that is more
   (from the rates with the retry's), at most 4096; a GPU timed cold
   found faster when it runs again; other large products on the GPU
   however slow; each kind apart; the option off; what gpu_tiled_info
   reports; a reset forgets.  */
static void
test_vectors (void)
{
  static char sides[4200];
  reset ();
  /* 1 x 2^22 x 8 single: B of 128 MiB */
  const size_t k = (size_t) 1 << 22;
  const double bytes = 4.0 * (k + 8.0 * k + 8);
  vector_calls (1, 8, k, 1e-3, 1.05e-3, 1.05e-3, 36, sides);
  printf ("    host a little faster: %s\n", sides);
  check (strcmp (sides, "GGHHHHHGG" "HHHHHHHHGG" "HHHHHHHHHHHHHHHHG") == 0,
         "a row times a matrix, the host 5% faster: trials, then the host, "
         "the GPU again (two calls) after 4, 8 and 16");
  reset ();
  vector_calls (1, 8, k, 1e-3, 2e-3, 2e-3, 120, sides);
  const int twice[] = { 0, 1, 7, 8, 109, 110 };
  check (ran_at (sides, 'G', twice, 6, "host twice as fast"),
         "the host twice as fast: the GPU again after 4, then after 100 "
         "(its two calls' extra time 2% of the host's)");
  gt_crossover_info i;
  gt_crossover_get (GT_SINGLE, &i);
  check (i.vector_gpu_calls[0] == 6 && i.vector_host_calls[0] == 114
         && fabs (i.vector_host_bytes_per_s[0] / (bytes / 1e-3) - 1) < 1e-12
         && fabs (i.vector_gpu_bytes_per_s[0] / (bytes / 2e-3) - 1) < 1e-12
         && i.host_products == 114,
         "the vector calls and best rates reported");
  /* which side runs again when, from each side's times (host_s; the
     GPU's gpu_cold_s for its first two calls, gpu_s after) */
  static const struct
  {
    double host_s, gpu_cold_s, gpu_s;
    int count;
    char side;
    int at[8], n;
    const char *what, *message;
  } retries[] = {
    { 10e-3, 40e-3, 5e-3, 70, 'H', { 2, 3, 4, 5, 6, 12, 63 }, 7,
      "GPU slow at first",
      "a GPU slow in its first calls: the GPU once it runs again, the "
      "host again after 4, then after 50 (its one call's extra time 2% "
      "of the GPU's)" },
    /* the gap after a retry from the rates with the retry's */
    { 10e-3, 40e-3, 11.25e-3, 55, 'G', { 0, 1, 7, 8, 22, 23, 50, 51 }, 8,
      "GPU cold, then 12.5% slower",
      "a GPU cold at first and then 12.5% slower: again after 4, then "
      "after 13 and 26 (the retry's rate, not the cold one)" },
    { 1e-3, 100e-3, 100e-3, 4110, 'G', { 0, 1, 7, 8, 4105, 4106 }, 6,
      "GPU 100 times slower",
      "a GPU 100 times slower: again after 4, then after 4096 at most" },
  };
  for (size_t r = 0; r < sizeof retries / sizeof retries[0]; r++)
    {
      reset ();
      vector_calls (1, 8, k, retries[r].host_s, retries[r].gpu_cold_s,
                    retries[r].gpu_s, retries[r].count, sides);
      check (ran_at (sides, retries[r].side, retries[r].at, retries[r].n,
                     retries[r].what),
             retries[r].message);
    }
  /* a slower call later (the other side's threads still spinning) does
     not lower a side's rate */
  reset ();
  gt_vector_timed (GT_SINGLE, GT_SINGLE, GT_SINGLE, 1, 8, k, 0, 1e-3);
  gt_vector_timed (GT_SINGLE, GT_SINGLE, GT_SINGLE, 1, 8, k, 0, 4e-3);
  gt_vector_timed (GT_SINGLE, GT_SINGLE, GT_SINGLE, 1, 8, k, 1, 3e-3);
  gt_vector_timed (GT_SINGLE, GT_SINGLE, GT_SINGLE, 1, 8, k, 1, 9e-3);
  gt_crossover_get (GT_SINGLE, &i);
  check (fabs (i.vector_gpu_bytes_per_s[0] / (bytes / 1e-3) - 1) < 1e-12
         && fabs (i.vector_host_bytes_per_s[0] / (bytes / 3e-3) - 1) < 1e-12,
         "each side's best call kept");
  /* a matrix times a column, an outer product: their own trials */
  reset ();
  char col[8], outer[8];
  vector_calls (1, 8, k, 1e-3, 2e-3, 2e-3, 4, sides);
  vector_calls (k, 1, 8, 1e-3, 2e-3, 2e-3, 4, col);
  vector_calls (2048, 4096, 1, 1e-3, 2e-3, 2e-3, 4, outer);
  gt_crossover_get (GT_SINGLE, &i);
  check (strcmp (col, "GGHH") == 0 && strcmp (outer, "GGHH") == 0
         && i.vector_gpu_calls[1] == 2 && i.vector_gpu_calls[2] == 2,
         "each kind of vector product: trials of its own");
  /* another size band: trials of its own, whatever the first found */
  reset ();
  vector_calls (1, 8, k, 1e-3, 2e-3, 2e-3, 6, sides);
  vector_calls (1, 8, 8 * k, 1e-3, 2e-3, 2e-3, 4, col);
  gt_crossover_get (GT_SINGLE, &i);
  check (strcmp (sides, "GGHHHH") == 0 && strcmp (col, "GGHH") == 0
         && i.vector_gpu_calls[0] == 2 && i.vector_host_calls[0] == 2,
         "a size band 8 times larger: trials of its own, reported");
  /* vector products sent to the host before the first small product's
     measurement stay counted */
  reset ();
  vector_calls (1, 8, k, 1e-3, 2e-3, 2e-3, 4, sides);
  gt_runs_on_host (GT_SINGLE, GT_SINGLE, GT_SINGLE, 4, 4, 4, timer, NULL);
  gt_crossover_get (GT_SINGLE, &i);
  check (i.measured && i.host_products >= 2,
         "vector products on the host stay counted after a measurement");
  /* not vectors, or small: never timed, never the host */
  reset ();
  vector_calls (2, 8, k, 1e-9, 1, 1, 6, sides);
  gt_crossover_get (GT_SINGLE, &i);
  check (strcmp (sides, "GGGGGG") == 0
         && i.vector_gpu_calls[0] + i.vector_gpu_calls[1]
            + i.vector_gpu_calls[2] == 0,
         "two rows times a matrix over 16 MiB: the GPU, not timed");
  gt_vector_timed (GT_SINGLE, GT_SINGLE, GT_SINGLE, 1, 8, 1024, 0, 1e-3);
  gt_crossover_get (GT_SINGLE, &i);
  check (i.vector_gpu_calls[0] == 0, "a small vector product: not kept");
  /* the option off: the GPU */
  reset ();
  crossover_off = 1;
  vector_calls (1, 8, k, 1e-9, 1, 1, 6, sides);
  check (strcmp (sides, "GGGGGG") == 0,
         "GPU_TILED_CROSSOVER=off: vector products on the GPU");
  crossover_off = 0;
  vector_calls (1, 8, k, 1e-3, 2e-3, 2e-3, 4, sides);
  reset ();
  gt_crossover_get (GT_SINGLE, &i);
  check (i.vector_gpu_calls[0] == 0 && i.vector_host_calls[0] == 0
         && i.vector_host_bytes_per_s[0] == 0,
         "a reset forgets the vector calls");
}

int
main (void)
{
  test_decisions ();
  test_info ();
  test_falling_last_segment ();
  test_off ();
  test_vectors ();
  return checks_done ();
}
