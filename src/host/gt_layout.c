/* gt_layout.c -- a host call's layout (gt_call.h): leading dimensions,
   panels of C and their plans, and the first panel's way: in pieces of k
   as A arrives, in blocks of A's rows, or a head of several panels in
   blocks of rows; the scratch and device bytes that follow.  */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "gt_plan.h"
#include "gt_product.h"
#include "gt_locked.h"
#include "gt_order.h"
#include "gt_head_rule.h"
#include "gt_stage.h"
#include "gt_call.h"

static size_t
round_up (size_t x, size_t to)
{
  return (x + to - 1) / to * to;
}

/* The last of the parts of `step` that n is cut into.  */
static size_t
last_part (size_t n, size_t step)
{
  return n - (n - 1) / step * step;
}

/* A product of one panel (mid-sized: its kernel fills the GPU once) is
   computed in pieces too from this many bytes of A, B and C on, where its
   pieces run its own kernel (gt_plan_pieces_alike; a real product on
   kernel 11 would run kernel 9's): the kernel then overlaps the copies in
   instead of following them.  From 8 MiB on, 1024^3 single lost as much
   as it gained (its pieces ran on kernel 4 instead of the whole product's
   kernel 5); 2048^3 double gained 5-15% (bench/RESULTS.md).  Not for a
   band of a split sharing A (so measured when one band handed all of A
   on; not measured since A is shared in parts).  Its pieces' sums take
   m x n doubles of scratch beside C.  */
#define GT_PIECES_ONE_PANEL_MIN ((size_t) 32 << 20)
/* and in pieces of at least this much k: a piece is a round of kernel 9
   (the pieces' kernel for doubles and for kernel 11's singles), which
   costs about kc + 110 of k, and its sums make a trip through device
   memory; 8192^3 double went in 64 pieces of 128 (a slot of A each).  */
#define GT_FIRST_PIECE_MIN_K 512

/* The host's copies through the staging slots, for the plan layer's
   judgement of the first panel's pieces (gt_plan_pieces_pay).  */
#define PIECES_HOST_RATE 47e9

/* The first panel waits for all of A, which is most of the time before
   the GPU can start.  So it is computed in pieces of k instead: piece i
   needs only columns of A and rows of B in that piece, and the pieces
   carry their sums from one to the next (gt_gemm_piece: the same bits as
   one pass over k, or its accuracy: gt_plan.h).  The piece of kc columns
   (a multiple of GT_PIECE_K, each piece of A a slot or `least` columns,
   whichever is more; at most a quarter of k, down to `floor`, or, where
   a quarter falls under `floor` and A is not cut into bands' parts, the
   plan's own most, gt_plan_piece_max_k: a third of k for Gauss's three
   on kernel 11), or 0.  */
static size_t
piece_of (const gt_call *c, size_t least, size_t floor)
{
  least = round_up (least, GT_PIECE_K);
  size_t kc = GT_SLOT_BYTES / c->es_a / c->lda;
  if (kc < least)
    kc = least;
  size_t most = c->k / 4;
  if (most < floor && !c->shared_a)
    {
      const size_t own = gt_plan_piece_max_k (&c->plan_full, c->k);
      most = own > most ? own : most;
    }
  if (kc > most)
    kc = most;
  if (kc < floor)
    return 0;
  kc = kc / GT_PIECE_K * GT_PIECE_K;
  return kc < 4 * GT_PIECE_K ? 0 : kc;
}

/* A's arrival at the host's rate: all of it, where it is staged (the
   staging is shared by every band of a split); where A goes straight from
   its lock and is shared, a band's own part over its own link while the
   others' parts cross theirs and come over as peer copies.  */
static double
a_in_seconds (const gt_call *c)
{
  const int parts = c->shared_a && c->a_straight
                    ? gt_shared_a_parts (c->shared_a) : 1;
  return (double) c->m * c->k * c->hs_a / (parts * PIECES_HOST_RATE);
}

static int out_bound (const gt_call *c);

/* A band of a split sharing A whose plan is Gauss's three on kernel 9:
   its GPU has nothing to run until all of A is there (no blocks of A's
   rows, which would come from several places), so with two panels or
   more its panel 0 goes in pieces as A's parts arrive, however the
   copies compare with the kernels, where the panel's tiles fill the GPU
   (gt_plan_band_pieces; complex double 8192^3 split: 0.92 of the time),
   and not where they do not, even where the copies outweigh the kernels
   (2000x20000x2000 split lost 1.225 in pieces: bench/RESULTS.md,
   "Complex double's bands in pieces").  */
static int
band_three (const gt_call *c)
{
  return c->shared_a && c->plan_full.three
         && c->plan_full.kernel == GT_K9_DMMA;
}

/* Panel 0's pieces (see piece_of), or 0 where pieces would not pay;
   *k11: kernel 11's own pieces (gt_plan_head_pieces).  In a split by
   columns the bands' pieces may differ (their plans' least pieces, their
   widths and panels, which gt_plan_head_pieces weighs);
   gt_shared_a_kc_agree tells each band whether they do.  */
static size_t
first_panel_piece (const gt_context *ctx, const gt_call *c, int *k11)
{
  *k11 = 0;
  if (c->side || (ctx && ctx->opt.no_ksplit)
      || !gt_plan_has_pieces (&c->plan_full))
    return 0;
  const size_t plan_least = gt_plan_piece_min_k (&c->plan_full, c->k);
  const size_t kc = piece_of (c, larger (GT_FIRST_PIECE_MIN_K, plan_least),
                              plan_least);
  /* Kernel 11's real products: the panel whole, plain kernel 9's pieces
     or kernel 11's own, whichever is predicted to end first, A coming in
     as a_in_seconds says; its complex ones (Gauss's three): their own
     pieces or the panel whole, the first piece's columns of A and a
     panel's B at the host's rate too.  */
  /* complex plans on kernel 11 whose C outweighs their operands keep
     panel 0's blocks of rows (first_panel_rows), measured there; their
     pieces were not */
  if (c->plan_full.three && c->plan_full.kernel == GT_K11_OZAKI
      && out_bound (c))
    return 0;
  if (c->panels >= 2)
    {
      const size_t kc11 = c->plan_full.kernel == GT_K11_OZAKI
                          ? piece_of (c, GT_K11_PIECE_MIN_K,
                                      GT_K11_PIECE_MIN_K)
                          : 0;
      const double a_first = (double) c->m * kc * c->hs_a
                             / PIECES_HOST_RATE;
      const double b_panel = (double) c->k * c->w * c->hs_b
                             / PIECES_HOST_RATE;
      const int head = gt_plan_head_pieces (&c->plan_full, c->m, c->w, c->k,
                                            kc, kc11, a_in_seconds (c),
                                            a_first, b_panel);
      if (head == GT_HEAD_WHOLE)
        return 0;
      if (head == GT_HEAD_K11_PIECES)
        {
          *k11 = 1;
          return kc11;
        }
    }
  if (!kc)
    return 0;
  const int pays
    = band_three (c)
      ? c->panels >= 2 && gt_plan_band_pieces (&c->plan_full, c->m, c->w)
      : gt_plan_pieces_pay (&c->plan_full, c->m, c->w, c->n, c->k,
                            c->total / PIECES_HOST_RATE);
  /* A complex plan's pieces leave their operands' checks in the call's
     word (the pieces cannot wait on them), and go only where the GPU has
     time to spare for their own passes, or would wait for all of A
     (band_three).  A product of one panel takes
     pieces where they run its own kernel, or where the GPU has that time
     to spare.  */
  if ((c->planes_bytes && (!defers_checks (c) || !pays))
      || (c->panels < 2
          && (c->total < GT_PIECES_ONE_PANEL_MIN || c->shared_a
              || !(gt_plan_pieces_alike (&c->plan_full) || pays))))
    return 0;
  return kc;
}

/* C goes out straight and the product is tall (n at most m/4): its first
   panel in blocks of rows pays for real plans too, and takes all of C
   (first_panel_rows, one_panel_of_rows).  */
static int
tall_straight (const gt_call *c)
{
  return c->straight && c->n * 4 <= c->m;
}

/* Blocks of A's rows: eighths of m for a tall product, whose blocks'
   rows of C go out straight as they are done (all of C in this one
   panel), each block's product still filling most of the GPU and the
   last, which follows all of A, an eighth of the time; quarters for the
   others (complex plans), whose A's blocks of rows come straight from its
   lock faster in taller blocks (a column's part twice as wide): complex
   double 1500^3 to 6000^3 took 0.87-0.90 of the time in eighths
   (bench/RESULTS.md, "Blocks of A's rows straight from the lock"); an
   eighth where a quarter's column would not fit a slot.  A head's blocks
   are twice an eighth (head_rows).  */
#define GT_ROW_BLOCKS_TALL 8
#define GT_ROW_BLOCKS 4

/* The taller of two heights of blocks of A's rows whose column fits a
   slot (gt_stage_upload_rows): `taller` (0: none), else h, else 0.  */
static size_t
rows_fitting (const gt_call *c, size_t taller, size_t h)
{
  if (taller && taller * c->es_a <= GT_SLOT_BYTES)
    return taller;
  return h * c->es_a <= GT_SLOT_BYTES ? h : 0;
}

/* C's bytes at least 1.25 times the operands' (as they cross the link):
   the copy out is the longer way by a margin.  Complex single on kernel
   11 gained from blocks of rows where C was 1.45 to 5 times the operands,
   lost or gained nothing where it was their size or less (bench/RESULTS.md,
   "Complex single's first panel in blocks of rows where C is the
   larger").  */
static int
out_bound (const gt_call *c)
{
  const size_t in = c->m * c->k * c->es_a + c->k * c->n * c->es_b;
  return 4 * (c->m * c->n * c->es) >= 5 * in;
}

/* A real double product whose C goes out straight and outweighs its
   operands (out_bound), not tall: panel 0 in quarters of A's rows, not
   in pieces of k, so that C's first rows go out while A still comes in.
   Doubles took 0.81-0.97 of the time (3001x1000x2816, 3000x700x5000,
   10000x1000x10000); singles 0.94-1.16 (bench/RESULTS.md, "Operands
   locked beyond the result heap's budget; real doubles' first panel in
   blocks of rows").  */
static int
rows_for_real (const gt_call *c)
{
  return c->type == GT_DOUBLE && c->straight && out_bound (c)
         && !tall_straight (c);
}

/* Where panel 0 has no pieces of k (complex plans, but for Gauss's three
   where pieces pay, and kernel 11's where C is not out_bound; tall real
   products whose C goes out straight; real doubles,
   rows_for_real, asked before pieces), it is
   computed in blocks of rows of A instead, each as soon
   as its rows are there (gt_first_panel_in_rows): returns their height, or 0
   where they would not pay (as first_panel_piece: a product too small,
   or a band sharing A).  */
static size_t
first_panel_rows (const gt_context *ctx, const gt_call *c)
{
  if (c->kc || c->side || c->shared_a || c->total < GT_PIECES_ONE_PANEL_MIN
      || (ctx && ctx->opt.no_ksplit))
    return 0;
  /* not kernel 11's tall ones (one panel of blocks, each slicing all of
     B again: not measured) */
  const int tall = tall_straight (c), out = out_bound (c) && !tall;
  const int real = rows_for_real (c);
  const size_t e = gt_panel_rows (&c->plan_full, c->m, tall || real,
                                  GT_ROW_BLOCKS_TALL, out);
  const size_t q = tall ? 0 : gt_panel_rows (&c->plan_full, c->m, real,
                                             GT_ROW_BLOCKS, out);
  return rows_fitting (c, q, e);
}

/* A head's blocks of rows: twice an eighth of A's, in whole tiles (an
   eighth where that does not fit a slot), each column's
   part of a block copied in larger pieces (bench/RESULTS.md, "A head of
   panels in blocks of rows"), as long as a column of a block fits a
   slot; 0 where the plan takes no blocks of rows.  */
static size_t
head_rows (const gt_call *c)
{
  const size_t h = gt_panel_rows (&c->plan_full, c->m, 1,
                                  GT_ROW_BLOCKS_TALL, 0);
  return h ? rows_fitting (c, 2 * h < c->m ? 2 * h : 0, h) : 0;
}

/* A head's count of full panels, for either way of running it: the one
   GPU_TILED_HEAD forces, else `rule`'s from the call's copies (A's as
   a_in_seconds) and the plan layer's kernel time gpu; 0 (none) beside
   panels side by side, with fewer than two full panels, or for a band
   sharing A where not `shared` (blocks of rows: a block's rows of A
   would come from several places).  */
static size_t
head_count (const gt_context *ctx, const gt_call *c, double gpu,
            size_t (*rule) (const gt_head_case *), int shared)
{
  const long forced = ctx ? ctx->opt.head : -1;
  if (c->side || (c->shared_a && !shared) || forced == 0 || forced == 1
      || c->full_panels < 2)
    return 0;
  const size_t most = c->full_panels;
  if (forced > 1)
    return (size_t) forced < most ? (size_t) forced : most;
  const gt_head_case h = {
    c->w, c->n, most, gpu, a_in_seconds (c),
    c->k * c->n * c->hs_b / PIECES_HOST_RATE,
    c->m * c->n * c->es / PIECES_HOST_RATE };
  return rule (&h);
}

/* Where the panels after the first are kernel-bound, a head of several
   full panels in blocks of A's rows, each block run as it comes, keeps
   the GPU busy while A comes in (gt_head_rule.c): their count, or 0 (a
   plan that takes blocks of rows: head_rows).  Not without pieces
   (GPU_TILED_NO_KSPLIT) or under GT_PIECES_ONE_PANEL_MIN (head_count
   says where else).  */
static size_t
head_panels (const gt_context *ctx, const gt_call *c)
{
  if ((ctx && ctx->opt.no_ksplit) || c->total < GT_PIECES_ONE_PANEL_MIN)
    return 0;
  return head_count (ctx, c, gt_plan_head_gpu_seconds (&c->plan_full, c->m,
                                                       c->n, c->k),
                     gt_head_panels, 0);
}

/* Where panel 0 goes in pieces of k on plain kernel 9 and the panels
   after it are kernel-bound, a head of several full panels in those
   pieces: the head's B first, then each piece of A's columns (whole
   columns, straight from a lock: nothing gathered, unlike blocks of
   rows) runs against the head's rows of B, so the GPU works on the
   head's share of the product while A comes in (gt_head_rule.c).  The
   count, or 1 (panel 0 alone): only for plans the plan layer gives a
   kernel time for (head_count says where else).  */
static size_t
pieces_head (const gt_context *ctx, const gt_call *c)
{
  const double gpu = gt_plan_pieces_head_gpu_seconds (&c->plan_full, c->m,
                                                      c->n, c->k);
  const size_t p = gpu > 0 ? head_count (ctx, c, gpu, gt_pieces_head_panels, 1)
                           : 0;
  return p > 1 ? p : 1;
}

/* The plans of gt_first_panel_in_rows' blocks, the scratch they need, and
   their planes of A, which go where A's are made after them.  None where
   a block has no plan, or where a head's block would run kernel 11 (a
   block's plan is chosen for its own shape: kernel 11 would scan the
   head's B again in every block, which the head is not to pay).  */
static void
rows_layout (gt_call *c)
{
  const size_t last = last_part (c->m, c->rows);
  const size_t w = head_cols (c);
  c->rows_plan = gt_plan_panel (&c->plan_full, c->rows, w, c->k, c->tile);
  c->rows_last = gt_plan_panel (&c->plan_full, last, w, c->k, c->tile);
  if (c->rows_plan.kernel == 0 || c->rows_last.kernel == 0
      || (c->head > 1 && (c->rows_plan.kernel == GT_K11_OZAKI
                          || c->rows_last.kernel == GT_K11_OZAKI)))
    {
      c->rows = 0;
      return;
    }
  c->work = larger (c->work, larger (c->rows_plan.work_bytes,
                                     c->rows_last.work_bytes));
  c->planes_bytes = larger (c->planes_bytes,
                            larger (gt_plan_a_bytes (&c->rows_plan, c->rows,
                                                     c->k),
                                    gt_plan_a_bytes (&c->rows_last, last,
                                                     c->k)));
}

/* c's blocks of A's rows `rows` high (0: none) with their plans
   (rows_layout, which gives them up where a block has no plan): whether
   c takes them.  */
static int
take_rows (gt_call *c, size_t rows)
{
  c->rows = rows;
  if (c->rows)
    rows_layout (c);
  return c->rows != 0;
}

/* A streamed product under GT_MID_MAX_BYTES that would go in one panel
   goes in panels side by side (gt_panel_side), each on its own stream:
   comp and ctx->side.  From GT_PIECES_ONE_PANEL_MIN on, that is instead
   of its first panel in pieces of k (bench/RESULTS.md, "Panels side by
   side").  real_a, real_b: as gt_call_layout's.  */
static void
side_layout (gt_call *c, int real_a, int real_b)
{
  const size_t parts = GT_SIDE_STREAMS + 1;
  if (c->w != c->n || c->total < GT_SMALL_MAX_BYTES
      || c->total >= GT_MID_MAX_BYTES || c->shared_a)
    return;
  const size_t w = gt_panel_side (c->type, real_a, real_b, c->m, c->n, c->k,
                                  c->tile, parts);
  if (w < c->n)
    {
      c->w = w;
      c->side = parts;
    }
}

/* Whether cols columns of `rows` elements of an operand go straight
   from its lock in one copy: locked, not rounded from doubles (its host
   element size hs that on the device, es), and one plain copy or
   columns wide enough (gt_stage_may_go_straight); hld and ld: its
   leading dimensions on the host and the device.  */
static int
columns_straight (int locked, size_t hs, size_t es, size_t rows,
                  size_t cols, size_t hld, size_t ld)
{
  return locked && hs == es
         && gt_stage_may_go_straight (rows * es, cols, hld * es, ld * es);
}

/* Whether B's panel goes straight from its lock in one copy.  */
static int
b_columns_straight (const gt_call *c)
{
  return columns_straight (c->b_straight, c->hs_b, c->es_b, c->k, c->w,
                           c->hlb, c->ldb);
}

/* Whether panel 0's pieces take its B whole, in columns, before A's
   first piece, instead of each piece's rows of B with it: where B is
   locked and its columns go straight, in one copy at the link's rate,
   where the pieces' rows went through the host's copies (rows of 2 KiB
   at single 8192^3: 1 MiB a piece at 20 GB/s on the link, and the host's
   gathers between A's parts: bench/RESULTS.md, "Panel 0's B whole
   first").  Not where B's columns would be staged anyway (rounded from
   doubles, or a 2-D copy of narrow rows): all of the panel would then
   go through the host before A's first piece.  GPU_TILED_B_FIRST=0 or 1
   says never or always.  */
static int
piece_b_first (const gt_context *ctx, const gt_call *c)
{
  const int say = ctx ? ctx->opt.b_first : -1;
  return say >= 0 ? say : b_columns_straight (c);
}

/* The first `ahead` bytes of the scratch (0: none) for A made ahead
   during panel 0's pieces, whose own scratch goes after them.  */
static void
take_a_ahead (gt_call *c, size_t ahead)
{
  c->a_ahead = round_up (ahead, 256);
  c->work = larger (c->work, c->a_ahead
                             + larger (c->piece_plan.work_bytes,
                                       c->piece_last.work_bytes));
}

/* Panel 0's way: a head of several panels in blocks of rows
   (head_panels) where its blocks' plans allow, else its pieces of k
   (first_panel_piece) or its own blocks of rows (first_panel_rows; tried
   before pieces for real doubles: rows_for_real), or one pass.  */
static void
first_panel_layout (const gt_context *ctx, gt_call *c)
{
  c->kc = 0;
  c->a_ahead = 0;
  c->a_after = 0;
  c->b_first = 0;
  c->b_cols_straight = 0;
  c->a_cols_straight = 0;
  const size_t rows = head_rows (c);
  c->head = rows ? head_panels (ctx, c) : 0;
  if (take_rows (c, c->head ? rows : 0))
    return;
  c->head = 1;
  int k11 = 0;
  c->a_cols_straight = columns_straight (c->a_straight, c->hs_a, c->es_a,
                                        c->m, c->k, c->hla, c->lda);
  if (rows_for_real (c) && take_rows (c, first_panel_rows (ctx, c)))
    return;
  c->kc = first_panel_piece (ctx, c, &k11);
  if (c->kc && !k11)
    c->head = pieces_head (ctx, c);
  c->b_first = c->kc && piece_b_first (ctx, c);
  c->b_cols_straight = c->b_first && b_columns_straight (c);
  if (c->kc && c->panels == 1)   /* A's planes only ever a piece's */
    c->planes_bytes = gt_plan_a_bytes (&c->plan_full, c->m, c->kc);
  if (c->kc)
    {
      const size_t last = last_part (c->k, c->kc);
      const size_t hw = head_cols (c);
      c->piece_plan = k11 ? gt_plan_piece_k11 (c->m, hw, c->kc)
                          : gt_plan_piece (&c->plan_full, c->m, hw, c->kc);
      c->piece_last = k11 ? gt_plan_piece_k11 (c->m, hw, last)
                          : gt_plan_piece (&c->plan_full, c->m, hw, last);
      const size_t ahead = !c->side && !c->planes_bytes && c->panels > 1
                           ? gt_plan_a_ahead_bytes (&c->plan_full, c->m, c->w,
                                                    c->k, c->kc)
                           : 0;
      take_a_ahead (c, k11 ? ahead : 0);
      /* kernel 9's pieces: all of A made ahead after them, in the first
         bytes of the scratch, which then holds the panels' own work, for
         panel 1 on the full panels' plan (a narrower last one's may not
         keep A); not in a band of a split sharing A, where it lost
         (bench/RESULTS.md, "A made ahead after kernel 9's pieces") */
      c->a_after = !k11 && !c->shared_a && ahead && c->full_panels >= 2
                   && ahead <= c->plan_full.work_bytes;
    }
  take_rows (c, first_panel_rows (ctx, c));
}

/* Gauss's three on kernel 11 make each product's A ahead during panel 0's
   pieces, on the planes those pieces make (c->planes_by_pieces), in its
   place of the panels' scratch, so that the first whole panel neither
   scans nor slices A again (gt_plan_a_ahead); the pieces' scratch goes
   after those places.  Not in a band sharing A: its pieces keep its GPU
   busy already, where one GPU's pieces wait for A's link (bench/RESULTS.md,
   "A's planes made by the three's pieces").  */
static void
three_a_ahead_layout (gt_call *c)
{
  if (!c->planes_by_pieces || c->shared_a || c->side)
    return;
  const size_t ahead = gt_plan_a_ahead_bytes (&c->plan_full, c->m, c->w,
                                              c->k, c->kc);
  if (ahead)
    take_a_ahead (c, ahead);
}

/* Whether A made ahead may start a part at column k0 (whole parts of
   GT_OZ_A_PART).  */
static int
ahead_starts (const gt_call *c, size_t k0)
{
  return k0 == 0 || gt_plan_a_ahead_bytes (&c->plan_full, c->m, c->w, c->k,
                                           k0) > 0;
}

/* Panel 0 run whole (no pieces, no blocks of rows) on a plan that keeps
   A (kernel 11: real singles and Gauss's three): A made ahead for it as
   A's columns arrive (gt_a_as_in), in parts of a quarter of k (in a band
   sharing A, of its own part; the other parts whole after it), so that
   the GPU scans and slices A, and makes a complex A's planes, while the
   rest of A is on its way, instead of in panel 0 after all of it.  Each
   part A_AS_IN_PART_MIN bytes or more but the last, which may be less,
   and two parts at least: where A
   comes in faster than that, the parts' launches cost more than they hide
   (complex single 2048^3 took 4.6% longer in quarters of 8 MiB, 4096^3 in
   quarters of 32 MiB 0.5% less, a band of 8192^3 over two in its own
   quarters of 64 MiB 2.6-3.6% less: bench/RESULTS.md, "A made ahead as it
   arrives").  Not where a shared A's parts do not start on whole parts of
   A made ahead.  */
#define A_AS_IN_PARTS 4
#define A_AS_IN_PART_MIN ((size_t) 32 << 20)
static void
a_as_in_layout (gt_call *c)
{
  c->a_as_in = 0;
  if (c->kc || c->rows || c->side || c->panels < 2)
    return;
  size_t p0 = 0, p1 = c->k;
  if (c->shared_a)
    {
      for (int i = 0; i < gt_shared_a_parts (c->shared_a); i++)
        {
          gt_shared_a_columns (c->shared_a, i, &p0, &p1);
          if (!ahead_starts (c, p0))
            return;
        }
      gt_shared_a_columns (c->shared_a, c->a_part, &p0, &p1);
    }
  const size_t least = (A_AS_IN_PART_MIN + c->m * c->hs_a - 1)
                       / (c->m * c->hs_a);
  const size_t step = round_up (larger ((p1 - p0 + A_AS_IN_PARTS - 1)
                                        / A_AS_IN_PARTS, least), 256);
  if (step >= p1 - p0)
    return;
  const size_t ahead = gt_plan_a_ahead_bytes (&c->plan_full, c->m, c->w,
                                              c->k, step);
  if (!ahead)
    return;
  c->a_as_in = step;
  take_a_ahead (c, ahead);
}

/* Layout: leading dimensions, panels, plans and the device bytes.  */
static gt_status
layout_panels (const gt_context *ctx, gt_call *c)
{
  const int real_a = c->es_a < c->es, real_b = c->es_b < c->es;
  c->lda = gt_ld_16 (c->es_a, c->m);
  c->ldb = gt_ld_16 (c->es_b, c->k);
  c->total = c->m * c->k * c->hs_a + c->k * c->n * c->hs_b
             + c->m * c->n * c->es;
  /* not narrower where one panel would run as panels side by side */
  c->w = c->w_given ? c->w_given
         : gt_panel_width (c->type, c->m, c->n, c->k, c->tile, GT_MAX_PANELS,
                           c->total >= GT_MID_MAX_BYTES);
  if (!c->w_given)
    side_layout (c, real_a, real_b);
  c->full_panels = (c->n + c->w - 1) / c->w - 1;
  c->plan_full = gt_plan_mixed (c->type, real_a, real_b, c->m, c->w, c->k,
                                c->tile, 0);
  const size_t w_last = c->n - c->full_panels * c->w;
  c->tail_w = c->side ? w_last
              : gt_panel_tail (&c->plan_full, c->m, w_last, c->full_panels,
                               GT_MAX_PANELS);
  const size_t tails = (w_last + c->tail_w - 1) / c->tail_w;
  const size_t w_end = last_part (w_last, c->tail_w);
  c->panels = c->full_panels + tails;
  /* one plan costs every kernel's model */
  c->plan_tail = c->tail_w == c->w ? c->plan_full
                 : gt_plan_panel (&c->plan_full, c->m, c->tail_w, c->k,
                                  c->tile);
  c->plan_last = w_end == c->w ? c->plan_full
                 : w_end == c->tail_w ? c->plan_tail
                 : gt_plan_panel (&c->plan_full, c->m, w_end, c->k, c->tile);
  if (c->plan_full.kernel == 0 || c->plan_tail.kernel == 0
      || c->plan_last.kernel == 0)
    return gt_fail (GT_ERR_UNSUPPORTED, "no kernel for %s products",
                    gt_type_name (c->type));
  c->work = larger (c->plan_full.work_bytes,
                    larger (c->plan_tail.work_bytes, c->plan_last.work_bytes));
  if (c->side)
    {
      if (c->side > c->panels)
        c->side = c->panels;
      c->work_one = round_up (c->work, 256);
      c->work = c->side * c->work_one;
    }
  c->planes_bytes = gt_plan_a_bytes (&c->plan_full, c->m, c->k);
  c->planes_ld = gt_plan_a_ld (&c->plan_full, c->m);
  first_panel_layout (ctx, c);
  c->planes_by_pieces = c->kc && c->panels > 1 && c->planes_bytes
                        && gt_plan_pieces_fill_planes (&c->plan_full);
  three_a_ahead_layout (c);
  a_as_in_layout (c);
  if (defers_checks (c))
    c->work = round_up (c->work, 256) + 256;   /* the checks word last */
  c->a_bytes = round_up (c->lda * c->k * c->es_a, 256);
  c->b_bytes = round_up (c->ldb * c->n * c->es_b, 256);
  c->c_bytes = round_up (c->m * c->n * c->es, 256);
  return GT_OK;
}

/* gt_call_layout's: a tall product whose C goes out straight and whose
   first panel runs in blocks of rows (no pieces of k) takes all of
   C in that one panel, so that every block's rows of C go out beside
   the next rows of A coming in, instead of the other panels' C after all
   of A (B, a quarter of A at most, is all there first).  */
static int
one_panel_of_rows (const gt_call *c)
{
  return tall_straight (c) && c->rows && c->panels > 1 && !c->w_given;
}

/* gt_call_layout's: the width of the narrower panels of a complex
   product streamed in panels whose panel 0 takes no pieces of k (blocks
   of A's rows, or one pass), where gt_panel_eighths gives them; 0 where
   it keeps the panels as they are.  */
static size_t
complex_eighths (const gt_call *c)
{
  if (c->w_given || c->side || c->kc || c->total < GT_MID_MAX_BYTES
      || gt_type_real (c->type) == c->type
      || c->plan_full.kernel == GT_K11_OZAKI)
    return 0;
  const size_t e = gt_panel_eighths (c->type, c->m, c->n, c->k, c->tile,
                                     c->w);
  return e < c->w ? e : 0;
}

/* A layout of panels `w` wide in place of c's where it lays out and
   keep(the new one) says so: 1 where it took its place.  */
static int
relayout (const gt_context *ctx, gt_call *c, size_t w,
          int (*keep) (const gt_call *))
{
  gt_call other = *c;
  other.w_given = w;
  other.side = 0;
  if (layout_panels (ctx, &other) != GT_OK || !keep (&other))
    return 0;
  *c = other;
  return 1;
}

static int
rows_not_pieces (const gt_call *c)
{
  return c->rows && !c->kc;
}

static int
no_pieces_off_k11 (const gt_call *c)
{
  return !c->kc && c->plan_full.kernel != GT_K11_OZAKI;
}

gt_status
gt_call_layout (const gt_context *ctx, gt_call *c)
{
  gt_status st = layout_panels (ctx, c);
  if (st != GT_OK)
    return st;
  if (one_panel_of_rows (c))
    relayout (ctx, c, c->n, rows_not_pieces);
  else
    {
      const size_t e = complex_eighths (c);
      if (e)
        c->eighths = relayout (ctx, c, e, no_pieces_off_k11);
    }
  return GT_OK;
}
