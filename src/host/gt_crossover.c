/* gt_crossover.c -- where a product given no tile runs best: on the GPU,
   or on the host by the caller's own product (Octave's *), for products
   so small that the trip to the GPU costs more than the whole product on
   the host.

   Both sides are measured, once per element type of C, at the first
   product of that type small enough to ask about (HOST_MAX_BYTES): the
   GPU's time of a whole call by this library, and the host's time through
   the caller's timer, each at two square sizes.  From them two lines:
     host: fixed + flops / rate      GPU: fixed + bytes / rate
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
#define WARM_CALLS 2
#define TIMED_CALLS 5

typedef struct
{
  int state;   /* 0: not measured; 1: measured; -1: off (GPU always) */
  gt_crossover_info info;
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

/* Both lines for type c; state -1 where the GPU cannot be measured (the
   call itself will say why) or the timer failed.  */
static void
measure (gt_type c, gt_host_timer timer, void *arg)
{
  crossover *x = &xo[c];
  const double n1 = SIZE_SMALL, n2 = SIZE_LARGE;
  const double es = (double) gt_type_size (c);
  const double g1 = gpu_seconds (c, SIZE_SMALL);
  const double g2 = g1 < 0 ? -1 : gpu_seconds (c, SIZE_LARGE);
  gt_ctx_rest_helpers ();   /* the GPU's copy helpers off the cores */
  const double h1 = g2 < 0 ? -1 : host_seconds (c, SIZE_SMALL, timer, arg);
  const double h2 = h1 < 0 ? -1 : host_seconds (c, SIZE_LARGE, timer, arg);
  if (h2 < 0)
    {
      x->state = -1;
      return;
    }
  gt_crossover_info *i = &x->info;
  const double f1 = gt_flops (c, n1, n1, n1), f2 = gt_flops (c, n2, n2, n2);
  const double b1 = 3 * n1 * n1 * es, b2 = 3 * n2 * n2 * es;
  i->host_fixed_s = h1;
  i->host_flops_per_s = h2 > h1 ? (f2 - f1) / (h2 - h1) : f2 / h2;
  i->gpu_fixed_s = g1;
  i->gpu_bytes_per_s = g2 > g1 ? (b2 - b1) / (g2 - g1) : b2 / g2;
  i->measured = 1;
  x->state = 1;
  /* the square size where the lines cross, for the report */
  double lo = 1, hi = 1 << 16;
  for (int it = 0; it < 60; it++)
    {
      const double mid = 0.5 * (lo + hi);
      const double h = i->host_fixed_s + gt_flops (c, mid, mid, mid)
                                         / i->host_flops_per_s;
      const double g = i->gpu_fixed_s + 3 * mid * mid * es
                                        / i->gpu_bytes_per_s;
      if (h < g)
        lo = mid;
      else
        hi = mid;
    }
  i->square_n = lo;
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
  const gt_crossover_info *i = &x->info;
  const double host = i->host_fixed_s + gt_flops (c, m, n, k)
                                        / i->host_flops_per_s;
  const double gpu = i->gpu_fixed_s + bytes / i->gpu_bytes_per_s;
  if (host >= gpu)
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
