/* gt_crossover.c -- where a product given no tile runs best: on the GPU,
   or on the host by the caller's own product (Octave's *), for products
   so small that the trip to the GPU costs more than the whole product on
   the host, and for large vector products, which the host reads once at
   its memory's rate.

   Both sides are measured, once per element type of C, at the first
   product of that type small enough to ask about (HOST_MAX_BYTES): the
   GPU's time of a whole call by this library, and the host's time through
   the caller's timer, each at square sizes from 4 to 256.  Through each
   side's points a line of straight segments:
     host: time against flops        GPU: time against bytes
   (at these sizes the GPU's time is the trip, not the kernel).  A product
   runs on the host where its host line is below its GPU line.

   Vector products over HOST_MAX_BYTES are chosen on their own calls
   instead, timed by the caller (gt_vector_timed): the host's rate for
   them depends on its BLAS's kernel for the shape (OpenBLAS's single
   64x10^6x1 took 55 ms, 1x10^6x64 3.3), not on a line through squares.  */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_tiled.h"
#include "gt_plan.h"
#include "gt_product.h"
#include "gt_stage.h"

/* Larger products go to the GPU, unmeasured (but vector products): at
   16 MiB of operands the GPU's trip is a few milliseconds, and a host
   product of that many bytes takes longer.  */
#define HOST_MAX_BYTES ((size_t) 16 << 20)
/* The square sizes measured, and the calls timed at each (the median,
   after calls not timed).  Two sizes, 4 and 256, with straight lines
   through them, were off by up to 2x near the crossover: the host's
   product runs on one core up to some size and on all of them past it,
   with a fixed cost of its own from there (single 96^3 took 50 us where
   the line said 30), so its time is not one line in flops
   (bench/RESULTS.md, "The crossover from a table").  Each side's time is
   therefore the line through all of its points, which costs the first
   small product of a class some 10 to 40 ms once.
   Once 256^3 products went on the copy threads, some processes timed
   the GPU there at a small fraction of its rate (the median of 3 after
   one call), each copy waiting for a helper the system had not run yet,
   and sent products far above the crossover to the CPU.  The helpers no
   longer hold a copy up that way (run_parts in gt_copy.c); the median of
   more calls guards against what else slows a few (bench/RESULTS.md,
   "Mid-sized calls").  */
static const double sizes[GT_CROSSOVER_POINTS] = { 4, 32, 64, 96, 128, 160,
                                                   192, 256 };
#define WARM_CALLS 2
#define TIMED_CALLS 5

typedef struct
{
  int state;   /* 0: not measured; 1: measured; -1: off (GPU always) */
  gt_crossover_info info;
  double flops[GT_CROSSOVER_POINTS];   /* of the squares measured */
  double bytes[GT_CROSSOVER_POINTS];
} crossover;

static crossover xo[GT_TYPE_COUNT];

/* A vector product's choice of side, per type of C, kind and size band,
   apart from the squares' points (which a measurement replaces whole):
   the calls timed on each side, each side's best rate, and the calls
   since the side not preferred last ran (passed) against the gap after
   which it runs again, its calls still due in such a retry (more), and
   the calls of a retry whose rates the next gap is still to take (due).  */
typedef struct
{
  unsigned long long gpu_calls, host_calls;
  double gpu_bytes_per_s, host_bytes_per_s;
  unsigned passed, gap, more, due;
  int preferred_host;
} vector_choice;

/* Size bands of a power of two of bytes from HOST_MAX_BYTES, the last
   taking all larger: a rate found at one size (a host product that fits
   the CPU's caches, a GPU call whose fixed costs a large one spreads)
   does not decide for another.  */
#define VECTOR_BANDS 24

static vector_choice vec[GT_TYPE_COUNT][GT_VECTOR_KINDS][VECTOR_BANDS];
/* the band of each kind's last call, which gt_crossover_get reports */
static int vec_last[GT_TYPE_COUNT][GT_VECTOR_KINDS];

/* The band of a product of `bytes` over HOST_MAX_BYTES.  */
static int
vector_band (double bytes)
{
  int b = 0;
  for (double x = bytes / (2.0 * HOST_MAX_BYTES);
       x >= 1 && b < VECTOR_BANDS - 1; x /= 2)
    b++;
  return b;
}

/* The product's bytes, in double: sizes whose bytes would wrap a size_t
   (refused later by gt_mtimes_host) count as too large for the host.  */
static double
product_bytes (gt_type c, gt_type ta, gt_type tb, size_t m, size_t n,
               size_t k)
{
  return (double) m * k * gt_type_size (ta)
         + (double) k * n * gt_type_size (tb)
         + (double) m * n * gt_type_size (c);
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
  /* never 0: the lines' rates divide by times */
  return t[TIMED_CALLS / 2] > 1e-9 ? t[TIMED_CALLS / 2] : 1e-9;
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

/* Seconds per unit of x past the last of the measured points (x
   ascending, t their times): the last segment's, or where timing noise
   made it fall, the last point's from zero.  */
static double
beyond (const double *x, const double *t)
{
  const int last = GT_CROSSOVER_POINTS - 1;
  const double dt = t[last] - t[last - 1];
  return dt > 0 ? dt / (x[last] - x[last - 1]) : t[last] / x[last];
}

/* Time at v on the line through the measured points (x ascending, t
   their times): between two points, the straight line through them; past
   the last, at the rate `beyond` gives; before the first, the first
   time.  */
static double
through (const double *x, const double *t, double v)
{
  const int last = GT_CROSSOVER_POINTS - 1;
  if (v <= x[0])
    return t[0];
  if (v > x[last])
    return t[last] + (v - x[last]) * beyond (x, t);
  int j = 0;
  while (v > x[j + 1])
    j++;
  return t[j] + (v - x[j]) * (t[j + 1] - t[j]) / (x[j + 1] - x[j]);
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

/* The first square size, in steps of one, whose host line is not below its
   GPU line (2^16 at most), for the report.  */
static double
square_crossing (const crossover *x, gt_type c)
{
  const double es = (double) gt_type_size (c);
  double n = 1;
  while (n < 65536 && host_line (x, gt_flops (c, n, n, n))
                      < gpu_line (x, 3 * n * n * es))
    n++;
  return n;
}

/* Every point of type c, the GPU's first: Octave's threads, left
   spinning by a host product, had slowed the GPU's calls at the next size
   twofold (complex 96^3: bench/RESULTS.md, "The crossover from a
   table"), and the host's side is timed with the copy helpers at rest.
   State -1, and nothing of it kept, where a point cannot be measured
   (the GPU: the call itself will say why; or the timer failed).  */
static void
measure (gt_type c, gt_host_timer timer, void *arg)
{
  crossover y;
  memset (&y, 0, sizeof y);
  const double es = (double) gt_type_size (c);
  gt_crossover_info *i = &y.info;
  xo[c].state = -1;
  for (int p = 0; p < GT_CROSSOVER_POINTS; p++)
    {
      const double n = sizes[p];
      i->sizes[p] = n;
      y.flops[p] = gt_flops (c, n, n, n);
      y.bytes[p] = 3 * n * n * es;
      if ((i->gpu_s[p] = gpu_seconds (c, (size_t) n)) < 0)
        return;
    }
  gt_ctx_rest_helpers ();   /* the GPU's copy helpers off the cores */
  for (int p = 0; p < GT_CROSSOVER_POINTS; p++)
    if ((i->host_s[p] = host_seconds (c, (size_t) sizes[p], timer, arg))
        < 0)
      return;
  i->host_fixed_s = i->host_s[0];
  i->host_flops_per_s = 1 / beyond (y.flops, i->host_s);
  i->gpu_fixed_s = i->gpu_s[0];
  i->gpu_bytes_per_s = 1 / beyond (y.bytes, i->gpu_s);
  i->square_n = square_crossing (&y, c);
  i->measured = 1;
  i->host_products = xo[c].info.host_products;   /* vector products' */
  y.state = 1;
  xo[c] = y;
}

/* A vector product over HOST_MAX_BYTES: the host reads its large
   operand (or writes its large result) once, at the rate of its memory,
   which may beat the link to the GPU (single 1x10^6x64 took 3.3 ms by
   Octave's * and 6.2 on an H200's host: bench/RESULTS.md, "Vector
   products on the faster side").  Its kind, or -1 for other products.  */
static int
vector_kind (size_t m, size_t n, size_t k)
{
  return m == 1 ? 0 : n == 1 ? 1 : k == 1 ? 2 : -1;
}

/* GPU calls of a kind before the host's trial: the first of a process
   pays for the GPU path's first use (buffers, the operands' locks; an
   H200's first two calls of complex single 1x10^6x64 took 44 and 34 ms,
   later ones 11).  */
#define VECTOR_GPU_TRIALS 2
/* The side not preferred runs again after this many calls of the other,
   then after twice as many each time it loses again: a side timed while
   cold, or slowed by the other's threads still on the cores (Octave's
   BLAS spins a while after its product), gets its rate again, and the
   calls it costs fade over a loop.  The gap starts again where the
   preference changes.  */
#define VECTOR_RETRY_GAP 4
#define VECTOR_RETRY_MAX_GAP 4096
/* After that first retry, which mends a rate taken cold, the gap is also
   long enough that the slower side's calls add at most this share to
   the faster side's: an H200's host, whose GPU took 2.5 times as long
   as Octave's * at single 1x10^6x64, lost 1.27 of * over the four calls
   around a retry after 8 (bench/RESULTS.md, "Vector products' retries
   by their cost").  */
#define VECTOR_RETRY_SHARE 0.02
/* Calls of a retry of the GPU, back to back: its first after calls of *
   shares the cores with the BLAS's threads still spinning and finds its
   operands' locks to be made again or checked afresh (an H200's double
   64x10^6x1 retried singly took 15-42 ms against 10.3 in a run of GPU
   calls, and lost to *'s 18).  The host's retry is one call.  */
#define VECTOR_GPU_RETRY_CALLS 2

/* The gap after a retry that the preferred side won again, from the
   rates with the retry's: twice the last, and at least the calls over
   which the slower side's extra time (calls of it a retry) is
   VECTOR_RETRY_SHARE of theirs; at most VECTOR_RETRY_MAX_GAP.  */
static unsigned
next_gap (const vector_choice *v, int calls)
{
  const double fast = fmax (v->gpu_bytes_per_s, v->host_bytes_per_s);
  const double slow = fmin (v->gpu_bytes_per_s, v->host_bytes_per_s);
  double g = 2.0 * v->gap;
  if (slow > 0)
    g = fmax (g, ceil (calls * (fast / slow - 1) / VECTOR_RETRY_SHARE));
  else
    g = VECTOR_RETRY_MAX_GAP;
  return g < VECTOR_RETRY_MAX_GAP ? (unsigned) g : VECTOR_RETRY_MAX_GAP;
}

static int
vector_on_host (vector_choice *v)
{
  if (gt_option_crossover_off () || v->gpu_calls < VECTOR_GPU_TRIALS)
    return 0;
  if (v->host_calls == 0)
    return 1;
  const int host = v->host_bytes_per_s > v->gpu_bytes_per_s;
  if (host != v->preferred_host || v->gap == 0)
    {
      v->preferred_host = host;
      v->gap = VECTOR_RETRY_GAP;
      v->passed = 0;
      v->more = 0;
      v->due = 0;
    }
  if (v->more > 0)
    {
      v->more--;
      return !host;
    }
  if (v->due > 0)
    {
      v->gap = next_gap (v, (int) v->due);
      v->due = 0;
    }
  if (v->passed < v->gap)
    {
      v->passed++;
      return host;
    }
  const int calls = host ? VECTOR_GPU_RETRY_CALLS : 1;
  v->passed = 0;
  v->more = calls - 1;
  v->due = calls;
  return !host;
}

/* Each side's best call: what slows a call (the other side's threads,
   the first use) only ever adds time.  */
static void
keep_best (double *rate, double r)
{
  if (r > *rate)
    *rate = r;
}

void
gt_vector_timed (gt_type c, gt_type ta, gt_type tb, size_t m, size_t n,
                 size_t k, int on_host, double seconds)
{
  const int kind = vector_kind (m, n, k);
  if ((unsigned) c >= GT_TYPE_COUNT || kind < 0 || !(seconds > 0))
    return;
  const double bytes = product_bytes (c, ta, tb, m, n, k);
  if (bytes <= (double) HOST_MAX_BYTES)
    return;
  const int band = vector_band (bytes);
  vector_choice *v = &vec[c][kind][band];
  vec_last[c][kind] = band;
  if (on_host)
    {
      v->host_calls++;
      keep_best (&v->host_bytes_per_s, bytes / seconds);
    }
  else
    {
      v->gpu_calls++;
      keep_best (&v->gpu_bytes_per_s, bytes / seconds);
    }
}

/* A product sent to the host: counted, and the GPU's copy helpers off
   the cores, which the host's product gets.  */
static int
to_host (crossover *x)
{
  x->info.host_products++;
  gt_ctx_rest_helpers ();
  return 1;
}

int
gt_runs_on_host (gt_type c, gt_type ta, gt_type tb, size_t m, size_t n,
                 size_t k, gt_host_timer timer, void *arg)
{
  if ((unsigned) c >= GT_TYPE_COUNT || !timer)
    return 0;
  const double bytes = product_bytes (c, ta, tb, m, n, k);
  crossover *x = &xo[c];
  if (bytes > (double) HOST_MAX_BYTES)
    {
      const int kind = vector_kind (m, n, k);
      return kind >= 0 && vector_on_host (&vec[c][kind][vector_band (bytes)])
             ? to_host (x) : 0;
    }
  if (x->state < 0)
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
  if (host_line (x, gt_flops (c, m, n, k)) >= gpu_line (x, bytes))
    return 0;
  return to_host (x);
}

void
gt_crossover_get (gt_type c, gt_crossover_info *info)
{
  memset (info, 0, sizeof *info);
  if ((unsigned) c >= GT_TYPE_COUNT)
    return;
  *info = xo[c].info;
  for (int j = 0; j < GT_VECTOR_KINDS; j++)
    {
      const vector_choice *v = &vec[c][j][vec_last[c][j]];
      info->vector_gpu_calls[j] = v->gpu_calls;
      info->vector_host_calls[j] = v->host_calls;
      info->vector_gpu_bytes_per_s[j] = v->gpu_bytes_per_s;
      info->vector_host_bytes_per_s[j] = v->host_bytes_per_s;
    }
}

void
gt_crossover_forget (void)
{
  memset (xo, 0, sizeof xo);
  memset (vec, 0, sizeof vec);
  memset (vec_last, 0, sizeof vec_last);
}
