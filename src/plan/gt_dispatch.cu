/* The dispatcher: the plan for a product.  It walks the registry
   (gt_registry.cu) and takes the cheapest proposal of the kernels that
   serve the element type and run on this device; it also owns what the
   host pipeline must know of the kernels (the panel width, the alignment
   the fast kernels want).  */

#include <math.h>
#include <stdint.h>
#include "gt_costs.h"
#include "gt_facts.h"
#include "gt_launch.cuh"

#ifndef GT_BUILD_ARCHS
#define GT_BUILD_ARCHS "unknown"
#endif

extern "C" const char *
gt_build_archs (void)
{
  return GT_BUILD_ARCHS;
}

extern "C" gt_plan
gt_plan_make (gt_type type, int kernel)
{
  gt_plan p;
  p.kernel = kernel;
  p.type = type;
  p.complex_a = 0;
  p.complex_b = 0;
  p.three = 0;
  p.tile = 0;
  p.k4_config = GT_CHOOSE;
  p.k8_mode = GT_CHOOSE;
  p.min_blocks = GT_CHOOSE;
  p.splits = 1;
  p.cluster = GT_CHOOSE;
  p.work_bytes = 0;
  p.edge_rows = 0;
  p.edge_cols = 0;
  p.tail = 0;
  p.tail_splits = 1;
  p.repacked = 0;
  p.k9_tile = 0;
  p.streamk = 0;
  return p;
}

/* The registry row of a plan's kernel where it serves the plan's type.  */
static const gt_kernel_row *
serving_row (int kernel, gt_type type)
{
  const gt_kernel_row *r = gt_registry_row (kernel);
  return r && gt_row_serves (r, type) ? r : NULL;
}

extern "C" gt_type
gt_type_real (gt_type type)
{
  return type == GT_COMPLEX_SINGLE ? GT_SINGLE
         : type == GT_COMPLEX_DOUBLE ? GT_DOUBLE : type;
}

extern "C" int
gt_type_served (gt_type type)
{
  type = gt_type_real (type);
  int count;
  const gt_kernel_row *rows = gt_registry_rows (&count);
  for (int i = 0; i < count; i++)
    if (gt_row_serves (&rows[i], type))
      return 1;
  return 0;
}

/* The cheapest of the rows' proposals, first row first on a tie; vector
   shapes (m or n 1) go to the rows made for them.  *cost_out: its cost.  */
static gt_plan
cheapest_but (int skip, gt_type type, size_t m, size_t n, size_t k,
              int repack, double *cost_out)
{
  const unsigned shape = m == 1 || n == 1 ? GT_SHAPE_VECTOR : GT_SHAPE_MATRIX;
  int count;
  const gt_kernel_row *rows = gt_registry_rows (&count);
  gt_plan best = gt_plan_make (type, 0);
  double best_cost = HUGE_VAL;
  for (int i = 0; i < count; i++)
    {
      const gt_kernel_row *r = &rows[i];
      if (r->id == skip || !r->propose || !(r->shapes & shape)
          || !gt_row_serves (r, type) || (r->usable && !r->usable ()))
        continue;
      gt_plan p = gt_plan_make (type, r->id);
      const double cost = r->propose (&p, m, n, k, repack);
      if (cost < best_cost || best.kernel == 0)
        {
          best = p;
          best_cost = cost;
        }
    }
  *cost_out = best_cost;
  return best;
}

static gt_plan
cheapest (gt_type type, size_t m, size_t n, size_t k, int repack,
          double *cost_out)
{
  return cheapest_but (0, type, m, n, k, repack, cost_out);
}

/* The four products in one that replace Gauss's three where an operand
   holds Inf or NaN: not on kernel 11, which would decline such operands
   and whose scratch for the 2k-long product the plan would have to hold
   besides its own.  */
extern "C" gt_plan
gt_plan_four (gt_type real, size_t m, size_t n, size_t k)
{
  double cost;
  return cheapest_but (GT_K11_OZAKI, real, m, 2 * n, 2 * k, 0, &cost);
}

static gt_plan
plan_real (gt_type type, size_t m, size_t n, size_t k, int tile, int repack)
{
  if (tile != GT_TILE_DEFAULT)
    {
      gt_plan p = gt_plan_make (type, serving_row (GT_K1_CLASSIC, type)
                                      ? GT_K1_CLASSIC : 0);
      p.tile = tile;
      return p;
    }
  double cost;
  return cheapest (type, m, n, k, repack, &cost);
}

/* The planes' passes of a complex product (both complex), in elements of
   the real type moved: four products in one read A (2mk) and write its
   expanded planes (4mk), read and write B's (2kn each way) and C's (2mn);
   three write three planes of A and of B from two and read three of C.  */
static double
planes_passes (int three, size_t m, size_t n, size_t k)
{
  const double mk = (double) m * k, kn = (double) k * n, mn = (double) m * n;
  return three ? 5.0 * (mk + kn + mn) : 6.0 * mk + 4.0 * kn + 4.0 * mn;
}

/* A complex product as real products of the planes: [Ar -Ai; Ai Ar]
   times [Br; Bi] where both are complex, [Ar; Ai] B where B is real,
   A [Br Bi] where A is real (the 4 real products of the complex product in
   one, or 2 where an operand is real); or, both complex, three m x n x k
   products (Gauss's, gt_planes.cu) where their cost and their passes' is
   below the four's: 25% fewer flops, in three launches of a quarter of
   the tiles each.  three: -1 chooses, 0 and 1 say which.  The plan is the
   real product's, with the planes of B and the product in its scratch
   before the real plan's own: [B planes][P][work].  The real product is
   planned for aligned operands (repack 0): the planes are, and so is
   every real operand the callers pass (the host path's, padded to 16
   bytes); gt_mtimes_device makes complex plans only where both operands
   become planes.  */
static gt_plan
plan_complex (gt_type c, int ca, int cb, size_t m, size_t n, size_t k,
              int tile, int repack, int three)
{
  const gt_type r = gt_type_real (c);
  if (ca && cb && !repack && tile == GT_TILE_DEFAULT && (m == 1 || n == 1))
    {
      /* a vector side: kernel 10 reads the complex matrix as it is (in
         whole elements: 16-byte aligned, which repack says it is not) */
      gt_plan p = gt_plan_make (c, GT_K10_GENERIC);
      gt_cost_k10 (&p, m, n, k, repack);
      return p;
    }
  const size_t es = gt_type_size (r);
  const size_t m2 = ca ? 2 * m : m, k2 = ca && cb ? 2 * k : k;
  const size_t n2 = !ca ? 2 * n : n;
  gt_plan p;
  int use_three = 0;
  if (ca && cb && tile == GT_TILE_DEFAULT && three != 0)
    {
      double c3, c4 = HUGE_VAL;
      p = cheapest (r, m, n, k, 0, &c3);
      use_three = p.kernel != 0;
      if (three < 0 && p.kernel)
        {
          const gt_plan p4 = cheapest (r, m2, n2, k2, 0, &c4);
          c3 = 3.0 * c3 + gt_cost_passes (es * planes_passes (1, m, n, k), 5);
          c4 += gt_cost_passes (es * planes_passes (0, m, n, k), 3);
          if (!(c3 < c4))
            {
              p = p4;
              use_three = 0;
            }
        }
    }
  else
    p = plan_real (r, m2, n2, k2, tile, 0);
  if (p.kernel == 0)
    return gt_plan_make (c, 0);
  p.type = c;
  p.complex_a = ca;
  p.complex_b = cb;
  p.three = use_three;
  if (use_three)
    {
      /* room for the four in one as well (gt_run.cu: run_three) */
      size_t b_off, p_off;
      const size_t own = gt_three_layout (r, m, n, k, &b_off, &p_off);
      const gt_plan four = gt_plan_four (r, m, n, k);
      /* kernel 11 keeps each of the three A's, and scans the three B's
         before it slices any (gt_run.cu: run_three) */
      const size_t real = p.work_bytes + (p.kernel == GT_K11_OZAKI
                          ? (GT_A_SLOTS - 1) * gt_k11_place_bytes (m, n, k)
                          : 0);
      p.work_bytes = own + (four.work_bytes > real ? four.work_bytes : real);
      return p;
    }
  const size_t b_planes = cb ? gt_bytes_256 (r, gt_ld_16 (es, k2) * n2) : 0;
  p.work_bytes += b_planes + gt_bytes_256 (r, gt_ld_16 (es, m2) * n2);
  return p;
}

/* Recent plans, per host thread.  A plan runs every kernel's cost model
   (microseconds on Hopper, where kernels 9 and 11 are costed too), and
   scripts multiply the same shapes again and again.  A plan depends on
   its arguments, the device's facts and the emulation setting; the
   generation moves on when the last two may have changed
   (gt_plans_forget).  `mix` tells complex plans apart: which operands are
   complex, and the three products' choice asked for.  */
#define PLAN_MEMO 8
typedef struct
{
  unsigned generation;   /* 0: empty */
  int device, tile, repack, mix;
  gt_type type;
  size_t m, n, k;
  gt_plan plan;
} plan_memo;
static __thread plan_memo memo[PLAN_MEMO];
static __thread unsigned memo_next;
static unsigned generation = 1;

extern "C" void
gt_plans_forget (void)
{
  __atomic_add_fetch (&generation, 1, __ATOMIC_RELEASE);
}

static int
mix_of (int ca, int cb, int three)
{
  return (ca ? 1 : 0) | (cb ? 2 : 0) | ((three + 1) << 2);
}

/* The plan (plan_real for mix 0, plan_complex otherwise), made for the
   current device or taken from the recent ones.  */
static gt_plan
remembered (gt_type type, int mix, size_t m, size_t n, size_t k, int tile,
            int repack)
{
  int dev = -1;
  gt_current_device (&dev);
  const unsigned gen = __atomic_load_n (&generation, __ATOMIC_ACQUIRE);
  for (int i = 0; i < PLAN_MEMO; i++)
    {
      const plan_memo *e = &memo[i];
      if (e->generation == gen && e->device == dev && e->type == type
          && e->mix == mix && e->m == m && e->n == n && e->k == k
          && e->tile == tile && e->repack == repack)
        return e->plan;
    }
  const int outer = gt_planning_begin (dev);
  const gt_plan p
    = mix ? plan_complex (type, mix & 1, (mix >> 1) & 1, m, n, k, tile,
                          repack, (mix >> 2) - 1)
          : plan_real (type, m, n, k, tile, repack);
  const int facts_read = gt_device_props_current () != NULL;
  gt_planning_end (outer);
  if (!facts_read)   /* made on the fallback facts: ask again next time */
    return p;
  plan_memo *e = &memo[memo_next++ % PLAN_MEMO];
  e->generation = gen;
  e->device = dev;
  e->tile = tile;
  e->repack = repack;
  e->mix = mix;
  e->type = type;
  e->m = m;
  e->n = n;
  e->k = k;
  e->plan = p;
  return p;
}

extern "C" gt_plan
gt_plan_mixed (gt_type c, int real_a, int real_b, size_t m, size_t n,
               size_t k, int tile, int repack)
{
  const gt_type r = gt_type_real (c);
  if (r == c || (real_a && real_b))
    return gt_plan_for (r, m, n, k, tile, repack);
  return remembered (c, mix_of (!real_a, !real_b, -1), m, n, k, tile,
                     repack);
}

extern "C" gt_plan
gt_plan_panel (const gt_plan *full, size_t m, size_t n, size_t k, int tile)
{
  /* (repack 1 keeps a one-column last panel off kernel 10's complex
     vector path, which would read A's planes as interleaved A) */
  if (full->complex_a || full->complex_b)
    return remembered (full->type, mix_of (full->complex_a, full->complex_b,
                                           full->three),
                       m, n, k, tile, 1);
  return gt_plan_for (full->type, m, n, k, tile, 0);
}

extern "C" size_t
gt_plan_a_ld (const gt_plan *p, size_t m)
{
  const size_t es = gt_type_size (gt_type_real (p->type));
  return !p->complex_a ? 0 : gt_ld_16 (es, p->three ? m : 2 * m);
}

/* (three products: and their flag, gt_three_a_flag) */
extern "C" size_t
gt_plan_a_bytes (const gt_plan *p, size_t m, size_t k)
{
  const size_t cols = p->three ? 3 * k : p->complex_b ? 2 * k : k;
  return p->complex_a
         ? gt_bytes_256 (gt_type_real (p->type), gt_plan_a_ld (p, m) * cols)
           + (p->three ? 256 : 0)
         : 0;
}

extern "C" cudaError_t
gt_plan_prepare_a (const gt_plan *p, const void *A, size_t lda,
                   void *planes, size_t m, size_t k, cudaStream_t s)
{
  if (!p->complex_a)
    return cudaSuccess;
  if (p->three)   /* all of k as one piece: its flag cleared first */
    {
      const void *all;
      return gt_plan_prepare_a_piece (p, A, lda, planes, m, k, 0, k, 1, &all,
                                      s);
    }
  const int mode = p->complex_b ? GT_PLANES_EXPAND : GT_PLANES_ROWS;
  return gt_planes_split (gt_type_real (p->type), mode, A, lda, planes,
                          gt_plan_a_ld (p, m), m, k, NULL, s);
}

extern "C" int
gt_plan_pieces_fill_planes (const gt_plan *p)
{
  return p->complex_a && p->three;
}

extern "C" cudaError_t
gt_plan_prepare_a_piece (const gt_plan *p, const void *A, size_t lda,
                         void *planes, size_t m, size_t k, size_t k0,
                         size_t kc, int first, const void **piece,
                         cudaStream_t s)
{
  if (!gt_plan_pieces_fill_planes (p) || k0 + kc > k)
    return cudaErrorInvalidValue;
  const gt_type r = gt_type_real (p->type);
  const size_t ld = gt_plan_a_ld (p, m);
  int *flag = gt_three_a_flag (r, planes, ld, k);
  char *at = (char *) planes + k0 * ld * gt_type_size (r);
  *piece = at;
  const cudaError_t err = first ? cudaMemsetAsync (flag, 0, sizeof (int), s)
                                : cudaSuccess;
  return err != cudaSuccess
         ? err
         : gt_planes_split_apart (r, GT_PLANES_COLS | GT_PLANES_SUM, A, lda,
                                  at, ld, m, kc, k, flag, s);
}

extern "C" gt_plan
gt_plan_for (gt_type type, size_t m, size_t n, size_t k, int tile,
             int repack)
{
  if ((unsigned) type >= GT_TYPE_COUNT)
    return gt_plan_make (type, 0);
  if (gt_type_real (type) != type)
    return gt_plan_mixed (type, 0, 0, m, n, k, tile, repack);
  return remembered (type, 0, m, n, k, tile, repack);
}

extern "C" gt_plan
gt_plan_fixed (const gt_plan *want, size_t m, size_t n, size_t k,
               int repack)
{
  gt_plan p = *want;
  const int splits = want->splits > 0 ? want->splits : 0;
  switch (want->kernel)
    {
    case GT_K4_ASYNC:
      p = gt_cost_choose_k4 (want->type, m, n, k, want->k4_config, 1, repack,
                             NULL);
      break;
    case GT_K5_SPLITK:
      p = gt_cost_choose_k4 (want->type, m, n, k, want->k4_config, splits,
                             repack, NULL);
      p.kernel = GT_K5_SPLITK;
      break;
    case GT_K6_GEMV:
      p = gt_cost_choose_k6 (want->type, m, n, k, splits);
      break;
    case GT_K7_REGDB:
      p.min_blocks = want->min_blocks == 1 ? 1 : 2;
      break;
    case GT_K8_WIDE:
      if (p.k8_mode < 0)
        p.k8_mode = GT_K8_DEFAULT_MODE;
      p.work_bytes = gt_k8_work_bytes (p.k8_mode, m, n, k, repack);
      break;
    case GT_K9_DMMA:
      p.splits = splits > 1 ? splits : 1;
      p.k9_tile = want->type == GT_DOUBLE
                  && want->k9_tile == GT_K9_SMALL_TILE ? GT_K9_SMALL_TILE : 0;
      /* copied first only where starts are off 16 bytes: odd leading
         dimensions are read as they are (gt_needs_repack's 2) */
      p.repacked = want->type == GT_DOUBLE && repack == 1;
      p.streamk = want->type == GT_DOUBLE && want->streamk > 0;
      if (p.streamk)
        p.splits = 1;
      p.work_bytes = gt_k9_row_work (&p, m, n, k, repack);
      break;
    case GT_K10_GENERIC:
      /* a vector side's pieces of k, added within a cluster where asked
         (and the device can): doubles only, the type it was measured
         and sanitized with */
      p.splits = splits > 1 ? splits : 1;
      p.cluster = want->cluster > 0 && want->type == GT_DOUBLE
                  && (m == 1 || n == 1);
      p.work_bytes = gt_k10_row_work (&p, m, n, k, repack);
      break;
    default:
      break;
    }
  if (want->cluster != GT_CHOOSE
      && (p.kernel == GT_K5_SPLITK || p.kernel == GT_K6_GEMV
          || p.kernel == GT_K9_DMMA))
    {
      p.cluster = want->cluster;
      const gt_kernel_row *r = gt_registry_row (p.kernel);
      if (r && r->work_bytes)
        p.work_bytes = r->work_bytes (&p, m, n, k, repack);
    }
  return p;
}

extern "C" int
gt_needs_repack (gt_type type, const void *A, size_t lda, const void *B,
                 size_t ldb)
{
  const size_t es = gt_type_size (type);
  if ((uintptr_t) A % 16 != 0 || (uintptr_t) B % 16 != 0)
    return 1;
  if (gt_ld_16 (es, lda) == lda && gt_ld_16 (es, ldb) == ldb)
    return 0;
  /* doubles whose odd leading dimensions kernel 9 reads as they are */
  return type == GT_DOUBLE ? 2 : 1;
}

/* A parts-th of n (columns, or rows) in whole tiles of kernel 8's 128.  */
static size_t
tiles_part (size_t n, size_t parts)
{
  return gt_ceil_div (gt_ceil_div (n, parts), GT_K8_TILE_N) * GT_K8_TILE_N;
}

/* Whether a real product goes in eighths of n at most, not in the wider
   panels that fill kernel 8's resident blocks: off kernel 11, a panel
   that fills the GPU only half costs little (these products wait on the
   link), while narrower panels start the copies of C out sooner and
   shorten the last panel, which nothing overlaps (bench/RESULTS.md,
   "Real products in eighths": double 3000^3 in 0.85 of the time of the
   wider panels, split double 2048^3 0.84).  Not where an eighth is under
   one tile of columns (256x100000x256 double in two panels of 128 took
   1.21x as long as in one), nor on kernel 11, which pays a fixed cost a
   run, nor where an eighth's plan splits k (kernel 5: so few tiles that
   the panel pays a reduction of its own; and its sums part from those of
   panel 0's pieces of k, which the wider panel's plan keeps).  */
static int
real_in_eighths (gt_type type, size_t m, size_t n, size_t k, int tile,
                 size_t eighth)
{
  return n / 8 >= GT_K8_TILE_N
         && gt_plan_for (type, m, n, k, tile, 0).kernel != GT_K11_OZAKI
         && gt_plan_for (type, m, eighth, k, tile, 0).kernel != GT_K5_SPLITK;
}

/* Panel width of a real product: as many of kernel 8's column tiles as
   fill its resident blocks without passing them, since one tile more
   costs a whole round (4096 rows: 1024 columns, 256 of 264 slots; 1152
   made 288 tiles and sent the panel to kernel 4); at least n / parts, so
   the first kernel starts early without panels starving the GPU; where
   narrow, at most that too for the real products real_in_eighths takes;
   at most max_panels panels.  Products under 32 MiB, vectors and the
   classic kernel go in one panel.  */
static size_t
panel_width (gt_type type, size_t m, size_t n, size_t k, int tile,
             size_t max_panels, size_t parts, int narrow)
{
  const size_t bytes = (m * k + k * n + m * n) * gt_type_size (type);
  if (tile != GT_TILE_DEFAULT || m == 1 || n == 1 || bytes < (32u << 20)
      || max_panels < 2)
    return n;
  const gt_facts *f = gt_facts_current ();
  const size_t tn = GT_K8_TILE_N;
  const size_t tiles_m = gt_ceil_div (m, tn);
  const size_t fit = (size_t) f->k8_occupancy * (size_t) f->sms / tiles_m;
  size_t w = (fit ? fit : 1) * tn;
  if (w < n / parts)
    w = gt_ceil_div (n / parts, tn) * tn;
  const size_t part = tiles_part (n, parts);
  if (narrow && w > part && real_in_eighths (type, m, n, k, tile, part))
    w = part;
  if (gt_ceil_div (n, w) > (long long) max_panels)
    w = tiles_part (n, max_panels);
  return w < n ? w : n;
}

/* Complex products: their planes' real product.  Where that runs on
   kernel 11, in quarters of n rather than eighths where an eighth is 256
   to 895 columns: each of kernel 11's runs pays a fixed cost (scans, the
   wait for their choice, some twenty launches for Gauss's three), so at
   4096^3 eighths of 512 columns made each panel's plan kernel 9's
   instead, and the call took 1.25-1.3x as long as in quarters on kernel
   11; from 2560^3 to 6144^3 quarters were 0.95-1.00 of eighths.  From
   7168 columns the eighths' shorter last panel, which nothing overlaps,
   wins: 7168^3 and 8192^3 in eighths 0.90-0.95 of quarters
   (bench/RESULTS.md, "Complex singles in quarters from 2048 columns").
   Real singles keep eighths: their first panel runs in pieces as A
   arrives (kernel 9's, or kernel 11's own).  */
extern "C" size_t
gt_panel_width (gt_type type, size_t m, size_t n, size_t k, int tile,
                size_t max_panels, int narrow)
{
  const gt_type r = gt_type_real (type);
  if (r == type)
    return panel_width (r, m, n, k, tile, max_panels, 8, narrow);
  size_t parts = 8;
  if (tile == GT_TILE_DEFAULT && m > 1 && n / 8 >= 256 && n / 8 < 896
      && gt_plan_for (type, m, n, k, tile, 0).kernel == GT_K11_OZAKI)
    parts = 4;
  return panel_width (r, 2 * m, n, 2 * k, tile, max_panels, parts, 0);
}

/* Eighths of n, at least two column tiles, where panels of w columns are
   a third of n or wider, m is 1024 or more and an eighth's plan is
   neither kernel 11's nor one that splits k (kernel 5: as
   real_in_eighths); else w.  The host layer asks only for complex
   products whose panel 0 takes no pieces of k: these wait on the link,
   and the last panel's kernel and copy out, which follow all of B,
   shorten with the panel (bench/RESULTS.md, "Complex panels in eighths":
   complex double 2048^3 in 0.82 of the time, split over two GPUs 0.74;
   where panels were already a fifth of n, 3000^3, eighths lost 3%).  The
   eighth's plan may take Gauss's four products where the wider one took
   three (2048^3).  Products of fewer than 1024 rows were not measured.  */
extern "C" size_t
gt_panel_eighths (gt_type type, size_t m, size_t n, size_t k, int tile,
                  size_t w)
{
  const size_t tn = GT_K8_TILE_N;
  size_t e = tiles_part (n, 8);
  if (e < 2 * tn)
    e = 2 * tn;
  if (tile != GT_TILE_DEFAULT || m < 8 * tn || 3 * w < n || e >= w
      || 2 * e > n)
    return w;
  const gt_plan p = gt_plan_for (type, m, e, k, tile, 0);
  return p.kernel && p.kernel != GT_K11_OZAKI && p.kernel != GT_K5_SPLITK
         ? e : w;
}

/* At most this many sub-panels: each is a run and a copy out of its own.  */
#define GT_TAIL_PARTS 4

extern "C" size_t
gt_panel_tail (const gt_plan *whole, size_t m, size_t w_last, size_t others,
               size_t max_panels)
{
  if (others == 0 || whole->kernel == GT_K11_OZAKI)
    return w_last;
  /* the narrowest width in whole 128-column tiles whose 128 x 128 tiles
     fill the SMs once, and no narrower than a quarter */
  const size_t tn = GT_K8_TILE_N, tiles_m = gt_ceil_div (m, tn);
  const size_t sms = (size_t) gt_facts_current ()->sms;
  size_t wt = gt_ceil_div (sms, tiles_m) * tn;
  const size_t quarter = tiles_part (w_last, GT_TAIL_PARTS);
  if (wt < quarter)
    wt = quarter;
  if (wt >= w_last || others + gt_ceil_div (w_last, wt) > max_panels)
    return w_last;
  return wt;
}

extern "C" size_t
gt_panel_rows (const gt_plan *whole, size_t m, int straight, size_t blocks,
               int out_bound)
{
  const int complex = whole->complex_a || whole->complex_b;
  /* kernel 11 scans and slices all of B's panel again in every run,
     which blocks of rows pay once a block: that pays only where C's
     copy out is the longer way, which the blocks start sooner
     (bench/RESULTS.md, "Complex single's first panel in blocks of rows
     where C is the larger") */
  if (!(complex || straight)
      || (whole->kernel == GT_K11_OZAKI && !(complex && out_bound)))
    return 0;
  const size_t h = tiles_part (m, blocks);
  return m >= 2 * GT_K8_TILE_N && h < m ? h : 0;
}

/* A product under 64 MiB fills few of the SMs (1024^3 single: 64 tiles
   of 128 x 128 on 132 SMs), so a panel of a quarter of its columns takes
   about as long as the whole: panels queued on one stream added up, while
   panels side by side on their own streams overlap, and let each kernel
   start once its panel of B is there and each panel of C go out while
   the others run.  */
extern "C" size_t
gt_panel_side (gt_type c, int real_a, int real_b, size_t m, size_t n,
               size_t k, int tile, size_t parts)
{
  const size_t tn = GT_K8_TILE_N;
  if (tile != GT_TILE_DEFAULT || m < 2 || k < 1 || parts < 2 || n < 2 * tn)
    return n;
  const size_t w = tiles_part (n, parts);
  if (w >= n)
    return n;
  const size_t last = n - (gt_ceil_div (n, w) - 1) * w;
  /* the plans the host layer will run: the last panel's from the
     others' (gt_plan_panel keeps their choice of Gauss's three) */
  const gt_plan a = gt_plan_mixed (c, real_a, real_b, m, w, k, tile, 0);
  const gt_plan b = last == w ? a : gt_plan_panel (&a, m, last, k, tile);
  return a.kernel && b.kernel && a.kernel != GT_K11_OZAKI
         && b.kernel != GT_K11_OZAKI ? w : n;
}

extern "C" void
gt_kernels_forget (void)
{
  gt_plans_forget ();
  int count;
  const gt_kernel_row *rows = gt_registry_rows (&count);
  for (int i = 0; i < count; i++)
    if (rows[i].forget)
      rows[i].forget ();
}
