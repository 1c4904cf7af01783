/* gt_crossover.c -- where a product given no tile runs best: on the GPU,
   or on the host by the caller's own product (Octave's *), for products
   so small that the trip to the GPU costs more than the whole product on
   the host.

   Both sides are measured, once per element type of C, at the first
   product of that type small enough to ask about (HOST_MAX_BYTES): the
   GPU's time of a whole call by this library, and the host's time through
   the caller's timer, each at three square sizes: 4, 256, and where
   the straight lines through those two cross.  Through the three points
   two lines of two segments each:
     host: time against flops        GPU: time against bytes
   (at these sizes the GPU's time is the trip, not the kernel).  A product
   runs on the host where its host line is below its GPU line.  */

#include <stdlib.h>
#include <string.h>
#include "gpu_tiled.h"
#include "gt_plan.h"
#include "gt_product.h"
#include "gt_stage.h"

/* Larger products always go to the GPU, unmeasured: at 16 MiB of
   operands the GPU's trip is a few milliseconds, and a host product of
   that many bytes takes longer.  */
#define HOST_MAX_BYTES ((size_t) 16 << 20)
/* The two square sizes measured, and the calls timed at each (the
   median, after calls not timed): a tiny product gives each side's fixed
   cost, the larger one its rate.  (A fixed cost fitted through 64 and 256
   came out at 100 us for the host's complex double product, whose rate
   at 64 is below its rate at 256, and sent 5 x 4 products to the GPU.)
   Once 256^3 products went on the copy threads, some processes timed
   the GPU there at a small fraction of its rate (the median of 3 after
   one call), each copy waiting for a helper the system had not run yet,
   and sent products far above the crossover to the CPU.  The helpers no
   longer hold a copy up that way (run_parts in gt_copy.c); the median of
   more calls guards against what else slows a few (bench/RESULTS.md,
   "Mid-sized calls").  */
#define SIZE_SMALL 4
#define SIZE_LARGE 256
/* The third size: where the lines through the two above cross, within
   these.  Lines through 4 and 256 alone were off by up to 2x near the
   crossover (complex 128^3: bench/RESULTS.md, "Panels side by side").  */
#define SIZE_MIDDLE_MIN 16
#define SIZE_MIDDLE_MAX 192
#define WARM_CALLS 2
#define TIMED_CALLS 5

typedef struct
{
  int state;   /* 0: not measured; 1: measured; -1: off (GPU always) */
  gt_crossover_info info;
  double flops[3], bytes[3];   /* of the squares measured (info.sizes) */
} crossover;

static crossover xo[GT_TYPE_COUNT];

static size_t
product_bytes (gt_type c, gt_type ta, gt_type tb, size_t m, size_t n,
               size_t k)
{
  return m * k * gt_type_size (ta) + k * n * gt_type_size (tb)
         + m * n * gt_type_size (c);
}

/* The median of TIMED_CALLS times (sorted in place).  */
static double
median (double *t)
{
  for (int i = 1; i < TIMED_CALLS; i++)
    for (int j = i; j > 0 && t[j - 1] > t[j]; j--)
      {
        const double x = t[j];
        t[j] = t[j - 1];
        t[j - 1] = x;
      }
  return t[TIMED_CALLS / 2];
}

/* Seconds of a whole n x n x n call of type c on the GPU (median), or a
   negative value where the GPU cannot run it.  */
static double
gpu_seconds (gt_type c, size_t n)
{
  const size_t es = gt_type_size (c), bytes = n * n * es;
  char *buf = malloc (3 * bytes);
  if (!buf)
    return -1;
  /* values in [-1, 1), never zeros: A and B, as reals of C's precision */
  const int dbl = c == GT_DOUBLE || c == GT_COMPLEX_DOUBLE;
  const size_t count = 2 * bytes / (dbl ? sizeof (double) : sizeof (float));
  unsigned x = 12345;
  for (size_t i = 0; i < count; i++)
    {
      x = x * 1103515245u + 12345u;
      const double v = (double) ((x >> 8) & 0xffff) / 32768.0 - 1.0 + 1e-6;
      if (dbl)
        ((double *) buf)[i] = v;
      else
        ((float *) buf)[i] = (float) v;
    }
  gt_operand A = { buf, c }, B = { buf + bytes, c };
  double t[WARM_CALLS + TIMED_CALLS];
  for (int i = 0; i < WARM_CALLS + TIMED_CALLS; i++)
    {
      const double t0 = gt_now ();
      if (gt_mtimes_host (c, A, B, buf + 2 * bytes, n, n, n, GT_TILE_DEFAULT,
                          GT_DEVICES_ALL, NULL) != GT_OK)
        {
          free (buf);
          return -1;
        }
      t[i] = gt_now () - t0;
    }
  free (buf);
  return median (t + WARM_CALLS);
}

static double
host_seconds (gt_type c, size_t n, gt_host_timer timer, void *arg)
{
  double t[WARM_CALLS + TIMED_CALLS];
  for (int i = 0; i < WARM_CALLS + TIMED_CALLS; i++)
    if ((t[i] = timer (c, n, arg)) < 0)
      return -1;
  return median (t + WARM_CALLS);
}

/* Time at v on the line through the measured points (x ascending, t
   their times): the segment v falls in, the top one beyond the largest
   point.  A segment that timing noise made fall takes the rate of its
   upper point from zero instead.  */
static double
through (const double *x, const double *t, double v)
{
  const int j = v > x[1];
  const double dx = x[j + 1] - x[j], dt = t[j + 1] - t[j];
  const double slope = dx > 0 && dt > 0 ? dt / dx : t[j + 1] / x[j + 1];
  return t[j] + (v - x[j]) * slope;
}

static double
host_line (const crossover *x, double flops)
{
  return through (x->flops, x->info.host_s, flops);
}

static double
gpu_line (const crossover *x, double bytes)
{
  return through (x->bytes, x->info.gpu_s, bytes);
}

/* The square size where the lines of type c cross (the host's below
   it), between 1 and 2^16.  */
static double
square_crossing (const crossover *x, gt_type c)
{
  const double es = (double) gt_type_size (c);
  double lo = 1, hi = 1 << 16;
  for (int it = 0; it < 60; it++)
    {
      const double mid = 0.5 * (lo + hi);
      if (host_line (x, gt_flops (c, mid, mid, mid))
          < gpu_line (x, 3 * mid * mid * es))
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

/* Both sides' times of type c at square size n into point p; 0, or -1
   where either cannot be measured.  */
static int
measure_point (crossover *x, gt_type c, int p, double n, gt_host_timer timer,
               void *arg)
{
  const double g = gpu_seconds (c, (size_t) n);
  gt_ctx_rest_helpers ();   /* the GPU's copy helpers off the cores */
  const double h = g < 0 ? -1 : host_seconds (c, (size_t) n, timer, arg);
  if (h < 0)
    return -1;
  x->info.sizes[p] = n;
  x->info.host_s[p] = h;
  x->info.gpu_s[p] = g;
  x->flops[p] = gt_flops (c, n, n, n);
  x->bytes[p] = 3 * n * n * (double) gt_type_size (c);
  return 0;
}

/* The lines of type c: both sides at the two outer sizes, then again
   where the lines through those cross, so that the products near the
   crossover are judged by times taken near them; state -1 where the GPU
   cannot be measured (the call itself will say why) or the timer
   failed.  */
static void
measure (gt_type c, gt_host_timer timer, void *arg)
{
  crossover *x = &xo[c];
  x->state = -1;
  if (measure_point (x, c, 0, SIZE_SMALL, timer, arg) < 0
      || measure_point (x, c, 2, SIZE_LARGE, timer, arg) < 0)
    return;
  /* the middle point first on the straight line of the outer two */
  x->info.sizes[1] = x->info.sizes[2];
  x->info.host_s[1] = x->info.host_s[2];
  x->info.gpu_s[1] = x->info.gpu_s[2];
  x->flops[1] = x->flops[2];
  x->bytes[1] = x->bytes[2];
  double mid = (double) (long) (square_crossing (x, c) + 0.5);
  mid = mid < SIZE_MIDDLE_MIN ? SIZE_MIDDLE_MIN
        : mid > SIZE_MIDDLE_MAX ? SIZE_MIDDLE_MAX : mid;
  if (measure_point (x, c, 1, mid, timer, arg) < 0)
    return;
  gt_crossover_info *i = &x->info;
  i->host_fixed_s = i->host_s[0];
  i->host_flops_per_s = 1 / ((host_line (x, 2 * x->flops[2])
                              - i->host_s[2]) / x->flops[2]);
  i->gpu_fixed_s = i->gpu_s[0];
  i->gpu_bytes_per_s = 1 / ((gpu_line (x, 2 * x->bytes[2]) - i->gpu_s[2])
                            / x->bytes[2]);
  i->square_n = square_crossing (x, c);
  i->measured = 1;
  x->state = 1;
}

int
gt_runs_on_host (gt_type c, gt_type ta, gt_type tb, size_t m, size_t n,
                 size_t k, gt_host_timer timer, void *arg)
{
  if ((unsigned) c >= GT_TYPE_COUNT || !timer)
    return 0;
  const size_t bytes = product_bytes (c, ta, tb, m, n, k);
  crossover *x = &xo[c];
  if (bytes > HOST_MAX_BYTES || x->state < 0)
    return 0;
  if (x->state == 0)
    {
      if (gt_option_crossover_off ())
        {
          x->state = -1;
          return 0;
        }
      measure (c, timer, arg);
      if (x->state < 0)
        return 0;
    }
  if (host_line (x, gt_flops (c, m, n, k)) >= gpu_line (x, (double) bytes))
    return 0;
  x->info.host_products++;
  gt_ctx_rest_helpers ();   /* the host's product gets the cores */
  return 1;
}

void
gt_crossover_get (gt_type c, gt_crossover_info *info)
{
  memset (info, 0, sizeof *info);
  if ((unsigned) c < GT_TYPE_COUNT)
    *info = xo[c].info;
}

void
gt_crossover_forget (void)
{
  memset (xo, 0, sizeof xo);
}
