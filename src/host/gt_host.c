/* gt_host.c -- C = A*B for host matrices: the pipeline of a host call.

   The host path streams through pinned staging slots (gt_stage.c): host
   threads copy a piece of an operand into a slot while the copy engine
   moves the previous piece to the device.  B and C go in column panels
   (contiguous in column-major storage), so the kernels run while the rest
   of B is still arriving and C comes back panel by panel; panel 0 is itself
   computed in pieces of k, each as soon as its columns of A and rows of B
   are there:
       A, B0 piece 0 | A, B0 piece 1 | ... | B panel 1 | B panel 2, C panel 0 ...
   (where B is locked, B's panel 0 whole first, then A's pieces alone:
   piece_b_first).
   On the device A and B get leading dimensions rounded up to 16 bytes, so
   the fast kernels read them in 16-byte pieces whatever m and k are; the
   host threads write that layout straight into the slots.  The smallest
   products skip the copy engine (small_product).  The stages: layout,
   buffers, the first panel, the other panels, the trace, the abort.  */

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

/* What one call works with.  Lengths in elements, sizes in bytes.  */
typedef struct
{
  gt_type type;                 /* of C */
  size_t es;                    /* bytes per element of C */
  size_t es_a, es_b;            /* of A and B on the device */
  size_t hs_a, hs_b;            /* of A and B on the host (2 es_x: doubles
                                   to be rounded to singles in the copy) */
  const char *A, *B;
  char *C;
  size_t m, n, k;
  size_t hla, hlb, hlc;         /* leading dimensions on the host */
  int tile;
  int share;                    /* devices working at once */
  char *fault_from;             /* new output to fault in */
  size_t fault_bytes;
  gt_shared_a *shared_a;        /* A handed between devices, or NULL */
  int a_part;                   /* the part of it staged here */
  size_t a_got[GT_MAX_DEVICES]; /* each part's bytes of A here so far */
  uint64_t a_host;              /* bit i: the rest of part i comes through
                                   the host */
  size_t a_own_end;             /* this band's own part staged up to here */
  size_t lda, ldb;              /* on the device */
  size_t w, panels;             /* panel width, panels */
  size_t full_panels, tail_w;   /* panels of w columns, then of tail_w
                                   (gt_panel_tail), the last one what is
                                   left */
  size_t side;                  /* panels run side by side on this many
                                   streams, each with scratch of work_one
                                   bytes (0: all on ctx->comp) */
  size_t work_one;
  gt_plan plan_full, plan_tail, plan_last; /* of those widths */
  size_t kc;                    /* panel 0's pieces of k (0: one pass) */
  gt_plan piece_plan, piece_last;
  size_t rows;                  /* or its blocks of rows of A (0: none) */
  size_t head;                  /* panels those blocks compute (>= 1) */
  gt_plan rows_plan, rows_last;
  size_t a_bytes, b_bytes, c_bytes, work;
  size_t planes_bytes, planes_ld;   /* A's planes (complex products) */
  size_t total;                 /* A, B and C on the host */
  char *dA, *dB, *dC, *dP;      /* dP: A's planes, or dA */
  void *dW;
  /* Gauss's three products: a device word the panels set where an operand
     holds what they cannot take (gt_gemm_args.checks), read once at the
     end (a band sharing A with other devices: NULL, each panel waits) */
  int *dK;
  int wait;                     /* no word: each panel waits (the rerun) */
  int again;                    /* the word was set: run it again */
  int panel0_out;               /* panel 0's blocks of rows went out as
                                   they were done */
  int straight;                 /* C locked: copies out straight */
  int b_straight;               /* B locked (as a_straight) */
  int b_first;                  /* panel 0 in pieces: its B whole first */
  int a_straight;               /* A locked: its uploads may go straight
                                   (gt_stage.c's rule: one plain copy or
                                   columns of 32 KiB or more) */
  size_t w_given;               /* panels this wide (0: the plan's) */
  int probe_mask;               /* the operands' probe: what this run
                                   has not yet said it read
                                   (gt_probe_read_done) */
} gt_call;

static size_t
round_up (size_t x, size_t to)
{
  return (x + to - 1) / to * to;
}

/* Whether the call's three products leave their operands' checks in a
   device word (gt_call.dK) rather than waiting in each panel.  */
static int
defers_checks (const gt_call *c)
{
  return (c->plan_full.three || c->plan_tail.three || c->plan_last.three)
         && !c->shared_a
         && !c->wait;
}

/* The last of the parts of `step` that n is cut into.  */
static size_t
last_part (size_t n, size_t step)
{
  return n - (n - 1) / step * step;
}

static size_t
larger (size_t a, size_t b)
{
  return a > b ? a : b;
}

/* Host threads for one of `share` devices working at once: the cores
   divided between them, at most `want`.  */
static int
shared_threads (int want, int share)
{
  if (share <= 1)
    return want;
  const long per = sysconf (_SC_NPROCESSORS_ONLN) / share;
  return per < 1 ? 1 : (per < want ? (int) per : want);
}

/* A product of one panel (mid-sized: its kernel fills the GPU once) is
   computed in pieces too from this many bytes of A, B and C on, where its
   pieces run its own kernel (gt_plan_pieces_alike; kernel 11's would run
   on kernel 9): the kernel then overlaps the copies in instead of
   following them.  From 8 MiB on, 1024^3 single lost as much as it
   gained (its pieces ran on kernel 4 instead of the whole product's
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

/* Streamed calls below this many bytes (A, B and C on the host) copy
   into the slots with streaming stores, in pieces of GT_MID_PIECE_BYTES
   instead of a slot.  The copy engine reads a slot that the copy threads
   have just written with memcpy at about half the rate it reads one that
   later copies have passed over or that streaming stores wrote (as if
   lines still in the copying cores' caches slowed it), and a mid-sized
   call waits out that transfer after its last copy in.  Larger calls hide
   it behind their kernels and lose by the stores.  Smaller pieces start
   the copy engine sooner and bring C out in pieces behind its transfers;
   pieces of 1 MiB lost at some shapes (bench/RESULTS.md, "Mid-sized
   calls").  */
#define GT_MID_MAX_BYTES ((size_t) 64 << 20)
#define GT_MID_PIECE_BYTES ((size_t) 2 << 20)

/* Products of fewer bytes (A, B and C on the host) whose operands fit a
   staging slot go on one stream (small_product).  */
#define GT_SMALL_MAX_BYTES ((size_t) 4 << 20)

/* The host's copies through the staging slots, for the plan layer's
   judgement of the first panel's pieces (gt_plan_pieces_pay).  */
#define PIECES_HOST_RATE 47e9

/* The first panel waits for all of A, which is most of the time before
   the GPU can start.  So it is computed in pieces of k instead: piece i
   needs only columns of A and rows of B in that piece, and the pieces
   carry their sums from one to the next (gt_gemm_piece: the same bits as
   one pass over k, or its accuracy: gt_plan.h).  The piece of kc columns
   (a multiple of GT_PIECE_K, at least 4 pieces, each piece of A a slot
   or `least` columns, whichever is more; a quarter of k where that is
   less, down to `floor`), or 0.  */
static size_t
piece_of (const gt_call *c, size_t least, size_t floor)
{
  least = round_up (least, GT_PIECE_K);
  size_t kc = GT_SLOT_BYTES / c->es_a / c->lda;
  if (kc < least)
    kc = least;
  if (kc > c->k / 4)
    kc = c->k / 4;
  if (kc < floor)
    return 0;
  kc = kc / GT_PIECE_K * GT_PIECE_K;
  return kc < 4 * GT_PIECE_K ? 0 : kc;
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
     or kernel 11's own, whichever is predicted to end first.  A comes in
     at the host's rate: all of it, where it is staged (the staging is
     shared by every band of a split); where A goes straight from its lock
     and is shared, a band's own part over its own link while the others'
     parts cross theirs and come over as peer copies.  */
  if (c->panels >= 2)
    {
      const size_t kc11 = c->plan_full.kernel == GT_K11_OZAKI
                          ? piece_of (c, GT_K11_PIECE_MIN_K,
                                      GT_K11_PIECE_MIN_K)
                          : 0;
      const int parts = c->shared_a && c->a_straight
                        ? gt_shared_a_parts (c->shared_a) : 1;
      const double a_seconds = (double) c->m * c->k * c->hs_a
                               / (parts * PIECES_HOST_RATE);
      const int head = gt_plan_head_pieces (&c->plan_full, c->m, c->w, c->k,
                                            kc, kc11, a_seconds);
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
  const int pays = gt_plan_pieces_pay (&c->plan_full, c->m, c->w, c->n, c->k,
                                       c->total / PIECES_HOST_RATE);
  /* A complex plan's pieces leave their operands' checks in the call's
     word (the pieces cannot wait on them), and go only where the GPU has
     time to spare for their own passes.  A product of one panel takes
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

/* Where panel 0 has no pieces of k (complex plans, but for Gauss's three
   on kernel 9 where pieces pay; tall real products whose C goes out
   straight), it is computed in blocks of rows of A instead, each as soon
   as its rows are there (first_panel_in_rows): returns their height, or 0
   where they would not pay (as first_panel_piece: a product too small,
   or a band sharing A).  */
static size_t
first_panel_rows (const gt_context *ctx, const gt_call *c)
{
  if (c->kc || c->side || c->shared_a || c->total < GT_PIECES_ONE_PANEL_MIN
      || (ctx && ctx->opt.no_ksplit))
    return 0;
  const size_t h = gt_panel_rows (&c->plan_full, c->m, tall_straight (c));
  /* a column of a block fits a slot (gt_stage_upload_rows) */
  return h * c->es_a <= GT_SLOT_BYTES ? h : 0;
}

/* The columns of C that panel 0's blocks of rows compute: panel 0's
   width (c->w), or a head of several panels.  */
static size_t
head_cols (const gt_call *c)
{
  return c->head * c->w < c->n ? c->head * c->w : c->n;
}

/* A head's blocks of rows: twice as tall as panel 0's alone (a quarter of
   A where that has 8), each column's part of a block copied in larger
   pieces (bench/RESULTS.md, "A head of panels in blocks of rows"), as
   long as a column of a block fits a slot; 0 where the plan takes no
   blocks of rows.  */
static size_t
head_rows (const gt_call *c)
{
  const size_t h = gt_panel_rows (&c->plan_full, c->m, 1);
  if (!h)
    return 0;
  if (2 * h < c->m && 2 * h * c->es_a <= GT_SLOT_BYTES)
    return 2 * h;
  return h * c->es_a <= GT_SLOT_BYTES ? h : 0;
}

/* Where the panels after the first are kernel-bound, a head of several
   full panels in blocks of A's rows, each block run as it comes, keeps
   the GPU busy while A comes in (gt_head_rule.c): their count, or 0 (a
   plan that takes blocks of rows: head_rows).
   Not beside panels side by side, for a band sharing A (its A comes in
   parts from several places) or without pieces (GPU_TILED_NO_KSPLIT);
   GPU_TILED_HEAD forces a count.  */
static size_t
head_panels (const gt_context *ctx, const gt_call *c)
{
  const long forced = ctx ? ctx->opt.head : -1;
  if (c->side || c->shared_a || (ctx && ctx->opt.no_ksplit)
      || forced == 0 || forced == 1 || c->full_panels < 2
      || c->total < GT_PIECES_ONE_PANEL_MIN)
    return 0;
  const size_t most = c->full_panels;
  if (forced > 1)
    return (size_t) forced < most ? (size_t) forced : most;
  const gt_head_case h = {
    c->w, c->n, most,
    gt_plan_head_gpu_seconds (&c->plan_full, c->m, c->n, c->k),
    c->m * c->k * c->hs_a / PIECES_HOST_RATE,
    c->k * c->n * c->hs_b / PIECES_HOST_RATE,
    c->m * c->n * c->es / PIECES_HOST_RATE };
  return gt_head_panels (&h);
}

/* The plans of first_panel_in_rows' blocks, the scratch they need, and
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

/* A streamed product under GT_MID_MAX_BYTES that would go in one panel
   goes in panels side by side (gt_panel_side), each on its own stream:
   comp and ctx->side.  From GT_PIECES_ONE_PANEL_MIN on, that is instead
   of its first panel in pieces of k (bench/RESULTS.md, "Panels side by
   side").  real_a, real_b: as call_layout's.  */
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
  if (say >= 0)
    return say;
  return c->b_straight && c->hs_b == c->es_b
         && gt_stage_may_go_straight (c->k * c->es_b, c->w,
                                      c->hlb * c->es_b, c->ldb * c->es_b);
}

/* Panel 0's way: a head of several panels in blocks of rows
   (head_panels) where its blocks' plans allow, else its pieces of k
   (first_panel_piece) or its own blocks of rows (first_panel_rows), or
   one pass.  */
static void
first_panel_layout (const gt_context *ctx, gt_call *c)
{
  c->kc = 0;
  c->b_first = 0;
  const size_t rows = head_rows (c);
  c->head = rows ? head_panels (ctx, c) : 0;
  c->rows = c->head ? rows : 0;
  if (c->rows)
    rows_layout (c);
  if (c->rows)
    return;
  c->head = 1;
  int k11 = 0;
  c->kc = first_panel_piece (ctx, c, &k11);
  c->b_first = c->kc && piece_b_first (ctx, c);
  if (c->kc && c->panels == 1)   /* A's planes only ever a piece's */
    c->planes_bytes = gt_plan_a_bytes (&c->plan_full, c->m, c->kc);
  if (c->kc)
    {
      const size_t last = last_part (c->k, c->kc);
      c->piece_plan = k11 ? gt_plan_piece_k11 (c->m, c->w, c->kc)
                          : gt_plan_piece (&c->plan_full, c->m, c->w, c->kc);
      c->piece_last = k11 ? gt_plan_piece_k11 (c->m, c->w, last)
                          : gt_plan_piece (&c->plan_full, c->m, c->w, last);
      c->work = larger (c->work, larger (c->piece_plan.work_bytes,
                                         c->piece_last.work_bytes));
    }
  c->rows = first_panel_rows (ctx, c);
  if (c->rows)
    rows_layout (c);
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
  c->w = c->w_given ? c->w_given
         : gt_panel_width (c->type, c->m, c->n, c->k, c->tile, GT_MAX_PANELS);
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
  if (defers_checks (c))
    c->work = round_up (c->work, 256) + 256;   /* the checks word last */
  c->a_bytes = round_up (c->lda * c->k * c->es_a, 256);
  c->b_bytes = round_up (c->ldb * c->n * c->es_b, 256);
  c->c_bytes = round_up (c->m * c->n * c->es, 256);
  return GT_OK;
}

/* call_layout's: a tall product whose C goes out straight and whose
   first panel runs in blocks of rows (no pieces of k) takes all of
   C in that one panel, so that every block's rows of C go out beside
   the next rows of A coming in, instead of the other panels' C after all
   of A (B, a quarter of A at most, is all there first).  */
static int
one_panel_of_rows (const gt_call *c)
{
  return tall_straight (c) && c->rows && c->panels > 1 && !c->w_given;
}

static gt_status
call_layout (const gt_context *ctx, gt_call *c)
{
  gt_status st = layout_panels (ctx, c);
  if (st != GT_OK || !one_panel_of_rows (c))
    return st;
  gt_call whole = *c;
  whole.w_given = c->n;
  whole.side = 0;
  st = layout_panels (ctx, &whole);
  if (st == GT_OK && whole.rows && !whole.kc)
    *c = whole;
  return GT_OK;
}

/* Buffers in the context's device memory (layout below).  With the
   poison option, any element of C that no kernel writes comes back NaN
   instead of a stale value (every path queues its kernels on ctx->comp,
   after this, or on side streams that wait for it: side_join).  */
static gt_status
call_buffers (gt_context *ctx, gt_call *c)
{
  gt_status st = gt_ctx_device_buffer (ctx, &ctx->dev, &ctx->dev_bytes,
                                       c->a_bytes + c->planes_bytes
                                       + c->b_bytes + c->c_bytes + c->work,
                                       "gpu_tiled_mtimes");
  if (st != GT_OK)
    return st;
  /* A | B | A's planes | C | scratch: B right after A, as small_product's
     one copy of both has it */
  c->dA = (char *) ctx->dev;
  c->dB = c->dA + c->a_bytes;
  c->dP = c->planes_bytes ? c->dB + c->b_bytes : c->dA;
  c->dC = c->dB + c->b_bytes + c->planes_bytes;
  c->dW = c->dC + c->c_bytes;
  if (defers_checks (c))
    {
      c->dK = (int *) ((char *) c->dW + c->work - 256);
      cudaError_t err = cudaMemsetAsync (c->dK, 0, sizeof (int), ctx->comp);
      if (err != cudaSuccess)
        return gt_fail_cuda (err, "clearing the operands' checks");
    }
  if (ctx->opt.poison)
    {
      cudaError_t err = cudaMemsetAsync (c->dC, 0xff, c->c_bytes, ctx->comp);
      if (err != cudaSuccess)
        return gt_fail_cuda (err, "poisoning the output");
    }
  return GT_OK;
}

/* The planes of `rows` rows of A for plan p, from A on the device (at A,
   ld lda), queued on ctx->comp into c->dP; g then points at them (A real:
   nothing to do).  */
static cudaError_t
block_planes (gt_context *ctx, const gt_call *c, const gt_plan *p,
              const void *A, size_t rows, gt_gemm_args *g)
{
  if (!gt_plan_a_bytes (p, rows, c->k))
    return cudaSuccess;
  g->A = c->dP;
  g->lda = gt_plan_a_ld (p, rows);
  return gt_plan_prepare_a (p, A, c->lda, c->dP, rows, c->k, ctx->comp);
}

/* A's planes for a complex product, from A on the device (at A, ld
   lda), queued on ctx->comp; g then points at them.  */
static cudaError_t
prepare_planes (gt_context *ctx, const gt_call *c, const void *A,
                gt_gemm_args *g)
{
  return block_planes (ctx, c, &c->plan_full, A, c->m, g);
}

/* Products whose operands fit a staging slot: one copy in, the kernel and
   one copy out, all on one stream, which saves the hand-offs between the
   streams of the pipeline (microseconds that small products notice); the
   smallest skip the copies and run on the pinned memory itself
   (opt.zerocopy_max).  */
static gt_status
small_product_copied (gt_context *ctx, const gt_call *c, int threads)
{
  char *pa = (char *) ctx->pinned, *pb = pa + c->a_bytes;
  char *pc = (char *) ctx->pinned + GT_SLOT_BYTES;
  copy_job ja = { pa, c->A, c->lda, c->hla, c->m, c->k, c->es_a, c->hs_a };
  copy_job jb = { pb, c->B, c->ldb, c->hlb, c->k, c->n, c->es_b, c->hs_b };
  /* on the copy threads, around the caches (see GT_MID_MAX_BYTES) */
  ja.stream = jb.stream = threads > 1;
  gt_copy (ctx->workers, &ja, threads);
  gt_copy (ctx->workers, &jb, threads);
  gt_gemm_args g = { c->dA, c->lda, c->dB, c->ldb, c->dC, c->m,
                     c->m, c->n, c->k, c->dW };
  cudaError_t err = cudaSuccess;
  const int zerocopy = c->total <= ctx->opt.zerocopy_max;
  if (zerocopy)
    {
      /* the device's addresses of the same pinned bytes */
      g.A = ctx->pinned_dev;
      g.B = ctx->pinned_dev + c->a_bytes;
      g.C = ctx->pinned_dev + GT_SLOT_BYTES;
      if (ctx->opt.poison)
        memset (pc, 0xff, c->m * c->n * c->es);
    }
  else
    err = cudaMemcpyAsync (c->dA, pa, c->a_bytes + c->ldb * c->n * c->es_b,
                           cudaMemcpyHostToDevice, ctx->comp);
  if (err == cudaSuccess)
    err = prepare_planes (ctx, c, g.A, &g);
  if (err == cudaSuccess)
    err = gt_gemm_run (&c->plan_full, &g, ctx->comp);
  if (err == cudaSuccess && !zerocopy)
    err = cudaMemcpyAsync (pc, c->dC, c->m * c->n * c->es,
                           cudaMemcpyDeviceToHost, ctx->comp);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (ctx->comp);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "running the product");
  copy_job jc = { c->C, pc, c->hlc, c->m, c->m, c->n, c->es, 0 };
  gt_copy (ctx->workers, &jc, threads);
  return GT_OK;
}

/* The copies of a small product on the copy threads where one operand
   or the result takes a thread long enough (GT_COPY_PARALLEL_MIN_BYTES),
   spinning meanwhile (and lingering after it, gt_copy_linger).  The
   largest copy decides, as gt_copy splits each copy by its own bytes: a
   product whose copies are all smaller would wake the helpers for
   nothing.  */
static gt_status
small_product (gt_context *ctx, const gt_call *c)
{
  const size_t largest = larger (c->m * c->k * c->es_a,
                                 larger (c->k * c->n * c->es_b,
                                         c->m * c->n * c->es));
  const int threads = largest >= GT_COPY_PARALLEL_MIN_BYTES
                      ? shared_threads (ctx->opt.copy_threads, c->share) : 1;
  if (threads > 1)
    gt_copy_hot (ctx->workers, threads, 1);
  const gt_status st = small_product_copied (ctx, c, threads);
  if (threads > 1)
    gt_copy_hot (ctx->workers, threads, 0);
  return st;
}

/* C is new memory: its first touch costs page faults (the kernel zeroes
   each page; on a 16-core VM about 1.4 ms per 64 MiB).  Helper threads
   take them from the start, in huge pages where the kernel allows, while
   the copies in and the kernels run; the copies out write behind them
   without waiting (a page the helpers have not reached yet is faulted in
   by the copy itself).  */
static void
prefault_output (gt_context *ctx, const gt_call *c, gt_stager *sg,
                 int threads)
{
  const size_t bytes = c->fault_bytes;
  if (sg->threads <= 1 || bytes < GT_PREFAULT_MIN_BYTES)
    return;
  /* a band of a split: gt_multi_product advised all of C before the bands
     began (the advice changes the mapping, and so waits for every fault
     in flight on it: 6-8 ms of the second band's 17-21 at 8192^3 single
     on two H200s, behind the first band's) */
  if (c->share <= 1)
    gt_advise_huge (c->fault_from, bytes);
  sg->prefaulting = shared_threads (threads, c->share);
  gt_prefault_start (ctx->workers, c->fault_from, bytes, sg->prefaulting);
}

/* Copy threads and prefault helpers of a streamed call: the options'
   (12 + 4 on 16 cores), or where C is new memory and 60% or more of the
   bytes moved, two of the copy threads' cores given to the prefault: its
   faults, not the copies, then bound the call; squares lost with that
   split, so they keep the options' (bench/RESULTS.md, "Thread splits").  */
static void
call_threads (const gt_context *ctx, const gt_call *c, int *copy, int *fault)
{
  *copy = ctx->opt.copy_threads;
  *fault = ctx->opt.prefault_threads;
  if (ctx->opt.threads_given || c->share > 1 || *copy <= 4
      || !c->fault_bytes || 5 * c->m * c->n * c->es < 3 * c->total)
    return;
  *copy -= 2;
  *fault += 2;
}

/* The operands of the block of C of columns j0.. (w of them) on the
   device, with k from k0 (kk of it).  */
static gt_gemm_args
device_block (const gt_call *c, size_t j0, size_t w, size_t k0, size_t kk)
{
  gt_gemm_args g = { c->dA + k0 * c->lda * c->es_a, c->lda,
                     c->dB + (j0 * c->ldb + k0) * c->es_b, c->ldb,
                     c->dC + j0 * c->m * c->es, c->m, c->m, w, kk, c->dW,
                     c->dK, 0 };
  if (c->planes_bytes)   /* all of k of a complex product: A's planes */
    {
      g.A = c->dP;
      g.lda = c->planes_ld;
    }
  return g;
}

/* The bytes of A's first k1 columns on the device (the padding after
   the last column is neither written nor handed on).  */
static size_t
a_bytes_upto (const gt_call *c, size_t k1)
{
  return k1 * c->lda * c->es_a;
}

/* Part i of a shared A (another band's) up to column e: peer copies of
   what that band has queued, until it hands on no more, on ctx->peer,
   ctx->comp waiting for them; then through the host on ctx->up.  The
   peer copies have a stream of their own because each waits for the other
   band's upload: on ctx->up that wait held this band's own uploads back
   behind it, and the two bands took their parts in lockstep
   (bench/RESULTS.md, "Peer copies beside the uploads").  */
static gt_status
a_part_in (gt_context *ctx, gt_call *c, gt_stager *sg, int i, size_t e,
           gt_interrupt_fn interrupted)
{
  const size_t need = a_bytes_upto (c, e);
  if (need <= c->a_got[i])
    return GT_OK;
  if (!((c->a_host >> i) & 1u))
    {
      int fetched = 0;
      cudaError_t err = gt_shared_a_fetch (c->shared_a, i, ctx->device,
                                           c->dA, need, &c->a_got[i],
                                           ctx->peer, &fetched);
      if (err == cudaSuccess && fetched)
        err = cudaEventRecord (ctx->peer_in, ctx->peer);
      if (err == cudaSuccess && fetched)
        err = cudaStreamWaitEvent (ctx->comp, ctx->peer_in, 0);
      if (err != cudaSuccess)
        return gt_fail_cuda (err, "copying A from another device");
      if (fetched)
        return GT_OK;
      c->a_host |= (uint64_t) 1 << i;
    }
  gt_status st = gt_stage_upload (sg, c->dA, c->lda, c->es_a, c->A, c->hs_a,
                                  c->hla, c->m,
                                  c->a_got[i] / (c->lda * c->es_a), e,
                                  interrupted);
  if (st == GT_OK)
    c->a_got[i] = need;
  return st;
}

/* A's columns [k0, k1) queued: on ctx->up through the host, or where A
   is shared between devices, this band's own columns among them being
   there already (own_a_upto) and the others' progress set up
   (own_a_begin), the others' parts from their devices on ctx->peer, which
   ctx->comp waits for (a_part_in).  */
static gt_status
a_columns_in (gt_context *ctx, gt_call *c, gt_stager *sg, size_t k0,
              size_t k1, gt_interrupt_fn interrupted)
{
  if (!c->shared_a)
    return gt_stage_upload (sg, c->dA, c->lda, c->es_a, c->A, c->hs_a, c->hla,
                            c->m, k0, k1, interrupted);
  gt_status st = GT_OK;
  for (int i = 0; st == GT_OK && i < gt_shared_a_parts (c->shared_a); i++)
    {
      size_t p0, p1;
      gt_shared_a_columns (c->shared_a, i, &p0, &p1);
      if (i != c->a_part && p0 < k1 && p1 > k0)
        st = a_part_in (ctx, c, sg, i, k1 < p1 ? k1 : p1, interrupted);
    }
  return st;
}

/* A band hands its own part of a shared A on in this many pieces: the
   others wait for the first piece, not the whole part (a quarter of A's
   half at 8192^3 single on two GPUs: 1 ms of staging), at the cost of a
   lock and an event record a piece.  */
#define GT_SHARE_CHUNKS 4

/* Where each part of a shared A stands before this band stages any.  */
static void
own_a_begin (gt_call *c)
{
  size_t p0, p1;
  for (int i = 0; i < gt_shared_a_parts (c->shared_a); i++)
    {
      gt_shared_a_columns (c->shared_a, i, &p0, &p1);
      c->a_got[i] = a_bytes_upto (c, p0);
    }
  gt_shared_a_columns (c->shared_a, c->a_part, &p0, &p1);
  c->a_own_end = p0;
}

/* This band's own part of a shared A up to column k1 through the host,
   the other bands told that it is there by a mark with an event of its
   own (the last is used again once they run out).  */
static gt_status
own_a_upto (gt_context *ctx, gt_call *c, gt_stager *sg, size_t k1,
            gt_interrupt_fn interrupted)
{
  size_t p0, p1;
  gt_shared_a_columns (c->shared_a, c->a_part, &p0, &p1);
  if (k1 > p1)
    k1 = p1;
  if (k1 <= c->a_own_end)
    return GT_OK;
  gt_status st = gt_stage_upload (sg, c->dA, c->lda, c->es_a, c->A, c->hs_a,
                                  c->hla, c->m, c->a_own_end, k1,
                                  interrupted);
  if (st != GT_OK)
    return st;
  c->a_own_end = k1;
  cudaError_t err = gt_shared_a_advance (c->shared_a, c->a_part, ctx->device,
                                         c->dA, a_bytes_upto (c, k1),
                                         k1 == p1, ctx->a_done, ctx->up);
  return err == cudaSuccess ? GT_OK : gt_fail_cuda (err, "handing A on");
}

/* A band's own part of a shared A, all of it: through the host, the
   other bands told after each chunk.  */
static gt_status
own_a_in (gt_context *ctx, gt_call *c, gt_stager *sg,
          gt_interrupt_fn interrupted)
{
  size_t p0, p1;
  gt_shared_a_columns (c->shared_a, c->a_part, &p0, &p1);
  const size_t step = (p1 - p0 + GT_SHARE_CHUNKS - 1) / GT_SHARE_CHUNKS;
  gt_status st = GT_OK;
  for (size_t k0 = p0; st == GT_OK && k0 < p1; k0 += step)
    st = own_a_upto (ctx, c, sg, k0 + step, interrupted);
  return st;
}

/* All of A queued (see a_columns_in).  */
static gt_status
whole_a (gt_context *ctx, gt_call *c, gt_stager *sg,
         gt_interrupt_fn interrupted)
{
  return a_columns_in (ctx, c, sg, 0, c->k, interrupted);
}

/* ctx->comp waits for what ctx->up has queued so far, through ev.  */
static cudaError_t
comp_after_up (gt_context *ctx, cudaEvent_t ev)
{
  cudaError_t err = cudaEventRecord (ev, ctx->up);
  return err == cudaSuccess ? cudaStreamWaitEvent (ctx->comp, ev, 0) : err;
}

/* B's rows of panel 0's piece [k0, k1) in.  */
static gt_status
piece_rows_in (gt_call *c, gt_stager *sg, size_t k0, size_t k1,
               gt_interrupt_fn interrupted)
{
  return gt_stage_upload_rows (sg, c->dB, c->ldb, c->es_b, c->B, c->hs_b,
                               c->hlb, k0, k1, 0, c->w, interrupted);
}

/* Panel 0's piece [k0, k1) in: A's columns and B's rows (rows_in: they
   are in already).  */
static gt_status
piece_in (gt_context *ctx, gt_call *c, gt_stager *sg, size_t k0, size_t k1,
          int rows_in, gt_interrupt_fn interrupted)
{
  gt_status st = a_columns_in (ctx, c, sg, k0, k1, interrupted);
  return st == GT_OK && !rows_in ? piece_rows_in (c, sg, k0, k1, interrupted)
                                 : st;
}

/* Where this band's first panel's pieces lie in a shared A
   (gt_order.h).  */
static gt_piece_layout
piece_layout (const gt_call *c)
{
  gt_piece_layout l = { c->k, c->kc, 0, { 0 }, 0, 0 };
  if (c->shared_a)
    {
      l.parts = gt_shared_a_parts (c->shared_a);
      l.own = c->a_part;
      for (int i = 0; i < l.parts; i++)
        gt_shared_a_columns (c->shared_a, i, &l.bounds[i], &l.bounds[i + 1]);
    }
  return l;
}

/* Whether every band of the split takes this band's pieces
   (gt_piece_orders).  */
static int
bands_agree (void *arg)
{
  const gt_call *c = (const gt_call *) arg;
  return gt_shared_a_kc_agree (c->shared_a, c->kc);
}

/* Columns [*k0, *k1) of A in piece `piece` of panel 0 (the last may be
   shorter).  */
static void
piece_cols (const gt_call *c, size_t piece, size_t *k0, size_t *k1)
{
  *k0 = piece * c->kc;
  *k1 = *k0 + c->kc < c->k ? *k0 + c->kc : c->k;
}

/* Piece `piece` of panel 0 in: where it is one of this band's own, A's
   columns of its part up to the piece's end first (the last own piece:
   all the rest of the part), handed on to the other bands (rows_in: B's
   rows are in already).  */
static gt_status
piece_stage (gt_context *ctx, gt_call *c, gt_stager *sg,
             const gt_piece_order *o, size_t piece, int rows_in,
             gt_interrupt_fn interrupted)
{
  size_t k0, k1;
  piece_cols (c, piece, &k0, &k1);
  gt_status st = GT_OK;
  if (gt_piece_own (o, piece))
    st = own_a_upto (ctx, c, sg, piece + 1 == o->j1 ? c->k : k1,
                     interrupted);
  return st == GT_OK ? piece_in (ctx, c, sg, k0, k1, rows_in, interrupted)
                      : st;
}

/* Host work inside a launch (gt_gemm_args.idle): a lost device is not
   reset there (gt_fail_cuda), as the launch still holds its records and
   handles and finds the error itself.  Returns whether the caller is to
   reset it after the launch (resets were not deferred already).  */
static int
inside_launch (void (*work) (void *), void *arg)
{
  const int was = gt_ctx_defer_resets (1);
  work (arg);
  gt_ctx_defer_resets (was);
  return !was;
}

/* The next piece in, as host work while kernel 11's piece waits for its
   scan's choice (gt_gemm_args.idle; as upload_while_waiting): all of one
   of the band's own pieces (or any, where A is not shared), and of
   another band's piece B's rows only, where A's pieces are large
   (rows_ahead): its A comes after the launch, as that band's copies
   could keep the host waiting, and the peer copy's wait, queued on
   ctx->comp inside the launch, would hold back the launch's own
   kernel.  B's rows there keep the link busy between the
   band's own parts of A (bench/RESULTS.md, "B's rows of another band's
   piece").  The piece is chosen here, inside the launch, so that a band
   of a split asks the others about their pieces (gt_piece_orders) no
   sooner than it must.  */
typedef struct
{
  gt_context *ctx;
  gt_call *c;
  gt_stager *sg;
  gt_piece_orders *po;
  size_t i, last;               /* the i-th piece, after piece `last` */
  gt_interrupt_fn interrupted;
  int done, reset_after;
  int rows_in;                  /* of another band's piece: B's rows only */
  gt_status st;
} piece_ahead;

/* Another band's piece's B rows go in during the wait only where A's
   pieces are large: there the band's link idles between its own parts
   of A, while the scan (whose wait grows with A's piece, not with B's
   rows) waits long enough for the rows' host copy; with smaller pieces
   the copy outlasted the wait and held the launch back
   (bench/RESULTS.md, "B's rows of another band's piece").  */
#define ROWS_AHEAD_MIN_BYTES ((size_t) 64 << 20)

static int
rows_ahead (const gt_call *c)
{
  return c->m * c->kc * c->hs_a >= ROWS_AHEAD_MIN_BYTES;
}

static void
stage_piece_ahead (void *arg)
{
  piece_ahead *a = (piece_ahead *) arg;
  const gt_piece_order *o = &a->po->step;   /* own pieces: either order's */
  const size_t piece = gt_piece_orders_next (a->po, a->i, a->last);
  if (a->c->shared_a && !gt_piece_own (o, piece))
    {
      if (a->c->b_first || !rows_ahead (a->c))
        return;
      size_t k0, k1;
      piece_cols (a->c, piece, &k0, &k1);
      a->rows_in = 1;
      a->st = piece_rows_in (a->c, a->sg, k0, k1, a->interrupted);
      return;
    }
  a->done = 1;
  a->st = piece_stage (a->ctx, a->c, a->sg, o, piece, a->c->b_first,
                       a->interrupted);
}

static void
stage_ahead (void *arg)
{
  piece_ahead *a = (piece_ahead *) arg;
  if (!a->done)
    a->reset_after = inside_launch (stage_piece_ahead, a);
}

/* Panel 0 piece by piece of k, as A arrives (see first_panel_piece);
   where A is complex, each piece on the planes of its own columns of A
   (made in A's planes' place; A's planes for the other panels are made
   after the last piece).  The pieces carry their sums in whatever order
   they run: the first run starts them, the last writes C.  Events are
   reused: a wait takes the event as it is when queued.  */
static gt_status
first_panel_in_pieces (gt_context *ctx, gt_call *c, gt_stager *sg,
                       gt_interrupt_fn interrupted)
{
  const gt_piece_layout l = piece_layout (c);
  gt_piece_orders po;
  gt_piece_orders_make (&l, &po, c->shared_a ? bands_agree : NULL, c);
  const gt_piece_order *o = &po.step;   /* its own pieces: either order's */
  const size_t count = o->count;
  gt_status st = c->b_first ? gt_stage_upload (sg, c->dB, c->ldb, c->es_b,
                                               c->B, c->hs_b, c->hlb, c->k,
                                               0, c->w, interrupted)
                             : GT_OK;
  if (st == GT_OK && c->shared_a && o->j1 == o->j0)
    st = own_a_in (ctx, c, sg, interrupted);
  const int waits = gt_plan_waits (&c->piece_plan);
  piece_ahead ahead = { ctx, c, sg, &po, 0, 0, interrupted, 0, 0, 0, GT_OK };
  size_t piece = 0;
  for (size_t i = 0; st == GT_OK && i < count; i++)
    {
      piece = gt_piece_orders_next (&po, i, piece);
      if (!(i > 0 && ahead.done))   /* not staged during the last wait */
        st = piece_stage (ctx, c, sg, o, piece,
                          c->b_first || (i > 0 && ahead.rows_in),
                          interrupted);
      if (st != GT_OK)
        return st;
      size_t k0, k1;
      piece_cols (c, piece, &k0, &k1);
      const gt_plan *pp = k1 - k0 == c->kc ? &c->piece_plan : &c->piece_last;
      gt_gemm_args g = device_block (c, 0, c->w, k0, k1 - k0);
      const piece_ahead next = { ctx, c, sg, &po, i + 1, piece, interrupted,
                                 0, 0, 0, GT_OK };
      ahead = next;
      if (waits && i + 1 < count)
        {
          g.idle = stage_ahead;
          g.idle_arg = &ahead;
        }
      cudaError_t err = comp_after_up (ctx, ctx->panel_in[i % GT_MAX_PANELS]);
      if (err == cudaSuccess && c->planes_bytes)
        err = gt_plan_prepare_a (&c->plan_full,
                                 c->dA + k0 * c->lda * c->es_a, c->lda,
                                 c->dP, c->m, k1 - k0, ctx->comp);
      const int mk = gt_mark_begin (sg, 'K', 0, ctx->comp);
      if (err == cudaSuccess)
        err = gt_gemm_piece (pp, i == 0, i + 1 == count, &g, ctx->comp);
      gt_mark_end (sg, mk, ctx->comp);
      st = err == cudaSuccess ? ahead.st
                              : gt_fail_cuda (err, "running the kernel");
      if (ahead.reset_after && st != GT_OK)
        gt_ctx_reset_lost ();
    }
  if (st != GT_OK)
    return st;
  cudaError_t err = cudaEventRecord (ctx->panel_out[0], ctx->comp);
  return err == cudaSuccess ? GT_OK : gt_fail_cuda (err, "running the kernel");
}

/* Rows [r0, r1) of C (all of its rows: 0, m) on their way out.  */
static gt_block_out
c_rows (const gt_call *c, size_t r0, size_t r1)
{
  gt_block_out o = { c->C + r0 * c->es, c->dC + r0 * c->es, c->hlc, c->m,
                     c->es, r1 - r0 };
  return o;
}

/* Panel 0 block by block of A's rows, as A arrives (see
   first_panel_rows): B's panel first, which every block needs, then each
   block of rows of A and its product; where A is complex, on the block's
   own planes, made where A's go (queued on ctx->comp before A's are
   made, after the last block).  Events are reused as in
   first_panel_in_pieces.  */
static gt_status
first_panel_in_rows (gt_context *ctx, gt_call *c, gt_stager *sg,
                     gt_interrupt_fn interrupted)
{
  const size_t w = head_cols (c);
  gt_status st = gt_stage_upload (sg, c->dB, c->ldb, c->es_b, c->B, c->hs_b,
                                  c->hlb, c->k, 0, w, interrupted);
  for (size_t r0 = 0, i = 0; st == GT_OK && r0 < c->m; r0 += c->rows, i++)
    {
      const size_t r1 = r0 + c->rows < c->m ? r0 + c->rows : c->m, h = r1 - r0;
      st = gt_stage_upload_rows (sg, c->dA, c->lda, c->es_a, c->A, c->hs_a,
                                 c->hla, r0, r1, 0, c->k, interrupted);
      if (st != GT_OK)
        return st;
      const gt_plan *pp = h == c->rows ? &c->rows_plan : &c->rows_last;
      gt_gemm_args g = { c->dA + r0 * c->es_a, c->lda, c->dB, c->ldb,
                         c->dC + r0 * c->es, c->m, h, w, c->k, c->dW,
                         c->dK, 0 };
      cudaError_t err = comp_after_up (ctx, ctx->panel_in[i % GT_MAX_PANELS]);
      if (err == cudaSuccess)
        err = block_planes (ctx, c, pp, g.A, h, &g);
      if (err == cudaSuccess)
        err = gt_gemm_run (pp, &g, ctx->comp);
      /* C's rows straight out while the next rows of A come in, where C
         is locked (staged, the two directions at once move less than one
         after the other on the hosts measured; bench/RESULTS.md) */
      if (err == cudaSuccess && sg->direct)
        err = cudaEventRecord (ctx->panel_out[i % GT_MAX_PANELS], ctx->comp);
      if (err != cudaSuccess)
        return gt_fail_cuda (err, "running the kernel");
      if (sg->direct)
        {
          const gt_block_out o = c_rows (c, r0, r1);
          st = gt_stage_download (sg, &o, 0, w,
                                  ctx->panel_out[i % GT_MAX_PANELS]);
          c->panel0_out = 1;
        }
    }
  if (st != GT_OK)
    return st;
  cudaError_t err = cudaSuccess;
  for (size_t p = 0; p < c->head && err == cudaSuccess; p++)
    err = cudaEventRecord (ctx->panel_out[p], ctx->comp);
  return err == cudaSuccess ? GT_OK : gt_fail_cuda (err, "running the kernel");
}

/* A's planes for the panels run whole, once all of A is there
   (panel_in[0] is free: the first panel's own event is recorded later,
   and panel 0 in pieces or blocks of rows has used it already).  */
static gt_status
planes_of_a (gt_context *ctx, gt_call *c)
{
  if (!c->planes_bytes)
    return GT_OK;
  gt_gemm_args g;
  cudaError_t err = comp_after_up (ctx, ctx->panel_in[0]);
  if (err == cudaSuccess)
    err = prepare_planes (ctx, c, c->dA, &g);
  return err == cudaSuccess ? GT_OK
                            : gt_fail_cuda (err, "making the planes of A");
}

/* Columns [*j0, *j1) of panel p.  */
static void
panel_cols (const gt_call *c, size_t p, size_t *j0, size_t *j1)
{
  const int tail = p >= c->full_panels;
  *j0 = tail ? c->full_panels * c->w + (p - c->full_panels) * c->tail_w
             : p * c->w;
  const size_t w = tail ? c->tail_w : c->w;
  *j1 = *j0 + w < c->n ? *j0 + w : c->n;
}

/* The plan of a panel of w columns.  */
static const gt_plan *
panel_plan (const gt_call *c, size_t w)
{
  return w == c->w ? &c->plan_full
         : w == c->tail_w ? &c->plan_tail : &c->plan_last;
}

/* B's columns [j0, j1) of the band queued, `after` recorded after them
   on ctx->up: the probe may take them once they are in, while the run
   reads the rest (gt_probe_read_part).  */
static void
read_part (const gt_call *c, size_t j0, size_t j1, cudaEvent_t after)
{
  if (c->probe_mask && j1 > j0)
    gt_probe_read_part (c->probe_mask, c->B + j0 * c->hlb * c->hs_b,
                        ((j1 - j0 - 1) * c->hlb + c->k) * c->hs_b, after);
}

/* Panel p of B in, and the event that says it is there.  */
static gt_status
upload_panel (gt_context *ctx, const gt_call *c, gt_stager *sg, size_t p,
              gt_interrupt_fn interrupted)
{
  size_t j0, j1;
  panel_cols (c, p, &j0, &j1);
  gt_status st = gt_stage_upload (sg, c->dB, c->ldb, c->es_b, c->B, c->hs_b,
                                  c->hlb, c->k, j0, j1, interrupted);
  if (st != GT_OK)
    return st;
  cudaError_t err = cudaEventRecord (ctx->panel_in[p], ctx->up);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "ordering streams");
  read_part (c, j0, j1, ctx->panel_in[p]);
  return GT_OK;
}

/* GPU_TILED_TRACE: events around each panel's run on ctx->comp, so that
   the trace tells the panels' GPU time from the gaps between them.  */
typedef struct
{
  int on;
  size_t first, count;
  cudaEvent_t ev[2 * GT_MAX_PANELS];
} panel_timer;

static void
timer_begin (panel_timer *t, const gt_context *ctx, size_t first, size_t end)
{
  t->on = ctx->opt.trace && end > first && end - first <= GT_MAX_PANELS;
  t->first = first;
  t->count = 0;
  while (t->on && t->count < 2 * (end - first))
    if (cudaEventCreate (&t->ev[t->count]) == cudaSuccess)
      t->count++;
    else
      t->on = 0;
}

static void
timer_mark (panel_timer *t, cudaStream_t s, size_t p, int end)
{
  if (t->on)
    cudaEventRecord (t->ev[2 * (p - t->first) + end], s);
}

static void
timer_end (panel_timer *t, gt_stager *sg)
{
  float ms;
  /* panels side by side end in any order */
  for (size_t i = 0; t->on && i < t->count; i++)
    t->on = cudaEventSynchronize (t->ev[i]) == cudaSuccess;
  if (t->on)
    {
      for (size_t i = 0; i + 1 < t->count; i += 2)
        if (cudaEventElapsedTime (&ms, t->ev[i], t->ev[i + 1]) == cudaSuccess)
          sg->gpu_panels += 1e-3 * ms;
      float span = 0;
      for (size_t i = 1; i < t->count; i += 2)
        if (cudaEventElapsedTime (&ms, t->ev[0], t->ev[i]) == cudaSuccess
            && ms > span)
          span = ms;
      sg->gpu_span += 1e-3 * span;
    }
  for (size_t i = 0; i < t->count; i++)
    cudaEventDestroy (t->ev[i]);
  cudaGetLastError ();
}

/* The stream of panel p's kernel: ctx->comp, or for panels side by side
   comp and the side streams in turn.  */
static cudaStream_t
panel_stream (const gt_context *ctx, const gt_call *c, size_t p)
{
  const size_t i = c->side ? p % c->side : 0;
  return i ? ctx->side[i - 1] : ctx->comp;
}

/* Panels side by side: the side streams start after what comp has
   queued (the poisoned C), or (to_comp) comp goes on after what the side
   streams have queued, so that every later kernel of the context follows
   the panels, as on one stream.  */
static gt_status
side_join (gt_context *ctx, const gt_call *c, int to_comp)
{
  cudaError_t err = cudaSuccess;
  for (size_t i = 1; i < c->side && err == cudaSuccess; i++)
    {
      cudaStream_t from = to_comp ? ctx->side[i - 1] : ctx->comp;
      cudaStream_t to = to_comp ? ctx->comp : ctx->side[i - 1];
      err = cudaEventRecord (ctx->side_mark, from);
      if (err == cudaSuccess)
        err = cudaStreamWaitEvent (to, ctx->side_mark, 0);
    }
  return err == cudaSuccess ? GT_OK : gt_fail_cuda (err, "ordering streams");
}

/* The next panel of B in, as host work the plan may do while it waits on
   the GPU (gt_gemm_args.idle), or after the launch.  */
typedef struct
{
  gt_context *ctx;
  const gt_call *c;
  gt_stager *sg;
  size_t p;                     /* the panel (none: c->panels) */
  gt_interrupt_fn interrupted;
  int done;
  gt_status st;
  double seconds;               /* spent inside the launch */
  int reset_after;              /* a lost device's reset waits for the
                                   launch's end: the caller's to do */
} next_upload;

static void
upload_next (void *arg)
{
  next_upload *u = (next_upload *) arg;
  if (u->done)
    return;
  u->done = 1;
  if (u->p < u->c->panels)
    u->st = upload_panel (u->ctx, u->c, u->sg, u->p, u->interrupted);
}

/* The next panel in, then an operand whose uploads have ended probed
   (gt_probe_now), while the GPU scans; in the last launch, this run's
   parts of B first.  */
static void
upload_and_probe (void *arg)
{
  next_upload *u = (next_upload *) arg;
  upload_next (u);
  if (u->st != GT_OK)
    return;
  /* the last launch: no upload left for B's probe to slow */
  if (u->p >= u->c->panels)
    gt_probe_parts_now (u->ctx->workers, u->sg->threads);
  gt_probe_now (0, u->ctx->workers, u->sg->threads);
}

static void
upload_while_waiting (void *arg)
{
  next_upload *u = (next_upload *) arg;
  const double t0 = gt_now ();
  u->reset_after = inside_launch (upload_and_probe, u);
  u->seconds += gt_now () - t0;
}

/* Panel p's product queued on its stream once its panel of B is there,
   keeping what kernel 11 made of A where the panel before ran the same
   way (gt_gemm_args.a_kept); next: the next panel's copies in, before
   the launch, or during it where the launch waits for the GPU (kernel
   11's scans: gt_plan_waits).  */
static gt_status
run_panel (gt_context *ctx, const gt_call *c, gt_stager *sg, size_t p,
           size_t p_first, panel_timer *timer, next_upload *next)
{
  size_t j0, j1, b0, b1;
  panel_cols (c, p, &j0, &j1);
  const gt_plan *plan = panel_plan (c, j1 - j0);
  gt_gemm_args g = device_block (c, j0, j1 - j0, 0, c->k);
  if (gt_plan_waits (plan))
    {
      g.idle = upload_while_waiting;
      g.idle_arg = next;
    }
  else
    {
      upload_next (next);
      if (next->st != GT_OK)
        return next->st;
    }
  if (c->side)
    g.work = (char *) c->dW + p % c->side * c->work_one;
  else if (p > p_first)
    {
      panel_cols (c, p - 1, &b0, &b1);
      g.a_kept = gt_plan_keeps_a (panel_plan (c, b1 - b0));
    }
  cudaStream_t s = panel_stream (ctx, c, p);
  cudaError_t err = cudaStreamWaitEvent (s, ctx->panel_in[p], 0);
  const double t0 = gt_now ();
  timer_mark (timer, s, p, 0);
  const int mk = gt_mark_begin (sg, 'K', 0, s);
  if (err == cudaSuccess)
    err = gt_gemm_run (plan, &g, s);
  gt_mark_end (sg, mk, s);
  timer_mark (timer, s, p, 1);
  sg->t_launch += gt_now () - t0 - next->seconds;
  if (err == cudaSuccess)
    err = cudaEventRecord (ctx->panel_out[p], s);
  return err == cudaSuccess ? GT_OK : gt_fail_cuda (err, "running the kernel");
}

/* Whether panel p went out already: one of panel 0's head, whose
   blocks of rows went out one by one.  */
static int
panel_out_already (const gt_call *c, size_t p)
{
  return p < c->head && c->panel0_out;
}

/* Panel p of C out, once its product is done (unless it went out
   already).  */
static gt_status
download_panel (const gt_context *ctx, const gt_call *c, gt_stager *sg,
                size_t p)
{
  if (panel_out_already (c, p))
    return GT_OK;
  size_t j0, j1;
  panel_cols (c, p, &j0, &j1);
  const gt_block_out o = c_rows (c, 0, c->m);
  return gt_stage_download (sg, &o, j0, j1, ctx->panel_out[p]);
}

/* Panels p_first.. (A already sent): each panel of B in one panel ahead
   of its kernel, then the kernel, and the panels done before it out (at
   most two a launch); then the rest out.  Where the kernel's launch
   waits for the GPU (kernel 11, for its scans' choice) the next panel's
   copies in go during that wait instead (bench/RESULTS.md, "The host's
   work beside kernel 11's wait").  */
static gt_status
other_panels (gt_context *ctx, const gt_call *c, gt_stager *sg,
              size_t p_first, gt_interrupt_fn interrupted)
{
  gt_status st = p_first < c->panels
                 ? upload_panel (ctx, c, sg, p_first, interrupted) : GT_OK;
  if (st == GT_OK)
    st = side_join (ctx, c, 0);
  panel_timer timer;
  timer_begin (&timer, ctx, p_first, c->panels);
  size_t out = 0;               /* the first panel not yet sent out */
  for (size_t p = p_first; st == GT_OK && p < c->panels; p++)
    {
      next_upload next = { ctx, c, sg, p + 1, interrupted, 0, GT_OK, 0, 0 };
      st = run_panel (ctx, c, sg, p, p_first, &timer, &next);
      if (next.reset_after && (st != GT_OK || next.st != GT_OK))
        gt_ctx_reset_lost ();
      if (st == GT_OK)
        {
          upload_next (&next);   /* where the launch did not call it */
          st = next.st;
        }
      /* the panels before p out, two copies at most a launch: a head's
         panels, all done at once, would otherwise all go (the host
         waiting for staged copies) before the next launch; where a head
         pays, two panels' copies out take less than one panel's kernel
         (gt_head_rule.c).  Panels whose rows went out already count
         none.  */
      for (int now = 0; st == GT_OK && out < p && now < 2; out++)
        {
          now += !panel_out_already (c, out);
          st = download_panel (ctx, c, sg, out);
        }
    }
  for (; st == GT_OK && out < c->panels; out++)
    st = download_panel (ctx, c, sg, out);
  if (st == GT_OK)
    st = side_join (ctx, c, 1);
  timer.on = timer.on && st == GT_OK;
  timer_end (&timer, sg);
  return st;
}

static void
trace_call (const gt_call *c, const gt_stager *sg, double t_start,
            double t_buffers, double t_setup)
{
  const double t_end = gt_now (), gb = 1e-9;
  /* the device and the clock's times (ms, modulo 1000 s) put a split's
     bands side by side */
  fprintf (stderr, "gpu_tiled: %s %zux%zux%zu: %.3f ms (device %d, "
           "%.3f-%.3f; set-up %.3f, of "
           "which plans and buffers %.3f; host "
           "copies in %.3f ms, %.1f GB/s, and %.1f MB straight from locked "
           "operands; out %.3f ms, %.1f GB/s, and "
           "%.1f MB straight into locked memory (%zu stale pages); "
           "prefault left at the end %.3f ms; waits for the GPU %.3f ms; "
           "panels' launches %.3f ms; the panels run whole on the GPU "
           "%.3f ms of %.3f), "
           "%zu panels (%zu side by side), first in pieces of k = %zu or "
           "blocks of %zu rows (of %zu panels), %d + %d threads\n",
           gt_type_name (c->type), c->m, c->k, c->n,
           1e3 * (t_end - t_start), sg->ctx->device,
           1e3 * fmod (t_start, 1000.0), 1e3 * fmod (t_end, 1000.0),
           1e3 * (t_setup - t_start),
           1e3 * (t_buffers - t_start), 1e3 * sg->t_in,
           sg->t_in > 0 ? gb * sg->bytes_in / sg->t_in : 0.0,
           1e-6 * sg->bytes_in_direct, 1e3 * sg->t_out,
           sg->t_out > 0 ? gb * sg->bytes_out / sg->t_out : 0.0,
           1e-6 * sg->bytes_direct, sg->stale_pages, 1e3 * sg->t_fault,
           1e3 * sg->t_wait, 1e3 * sg->t_launch,
           1e3 * sg->gpu_panels, 1e3 * sg->gpu_span,
           c->panels, c->side, c->kc, c->rows, c->head,
           sg->threads, sg->prefaulting);
}

/* After a failure: leave nothing in flight that could touch the slots or
   buffers.  */
static void
abort_call (gt_context *ctx)
{
  if (!ctx->ready)
    return;
  cudaStreamSynchronize (ctx->up);
  cudaStreamSynchronize (ctx->peer);
  cudaStreamSynchronize (ctx->comp);
  for (int i = 0; i < GT_SIDE_STREAMS; i++)
    cudaStreamSynchronize (ctx->side[i]);
  cudaStreamSynchronize (ctx->down);
  cudaGetLastError ();
}

/* GPU_TILED_TEST_FAIL: this device fails here, A's copies (and a first
   panel in pieces, its kernels) under way, no result copied out yet
   (once).  */
static gt_status
test_failure (gt_context *ctx)
{
  if (ctx->opt.test_fail != ctx->device)
    return GT_OK;
  ctx->opt.test_fail = -1;
  if (ctx->opt.test_fail_memory)
    return gt_fail (GT_ERR_NO_MEMORY, "device %d out of memory in the "
                                      "middle of the call "
                                      "(GPU_TILED_TEST_FAIL)", ctx->device);
  return gt_fail (GT_ERR_CUDA, "device %d failed in the middle of the call "
                               "(GPU_TILED_TEST_FAIL)", ctx->device);
}

/* The run's last upload of operand (0: A, 1: B) queued: the operands'
   probe may read it once the uploads are done (gt_probe_later.c).
   Returns the event recorded after them, or NULL.  */
static cudaEvent_t
read_done (gt_context *ctx, gt_call *c, int operand)
{
  if (!c->probe_mask)
    return NULL;
  cudaEvent_t ev = operand ? ctx->up_done : ctx->a_up_done;
  if (cudaEventRecord (ev, ctx->up) != cudaSuccess)
    {
      cudaGetLastError ();   /* said at the run's end instead */
      return NULL;
    }
  gt_probe_read_done (&c->probe_mask, operand, ev);
  return ev;
}

/* The streamed pipeline: first panel, other panels, results out.  */
static gt_status
streamed_product (gt_context *ctx, gt_call *c, gt_stager *sg,
                  gt_interrupt_fn interrupted)
{
  if (c->shared_a)
    own_a_begin (c);
  /* a band's own part of a shared A first, but where panel 0 goes in
     pieces of k, which stage it piece by piece */
  gt_status st = c->shared_a && !c->kc ? own_a_in (ctx, c, sg, interrupted)
                                       : GT_OK;
  size_t p_first = 0;
  if (st == GT_OK && c->kc)
    {
      st = first_panel_in_pieces (ctx, c, sg, interrupted);
      p_first = 1;
    }
  else if (st == GT_OK && c->rows)
    {
      st = first_panel_in_rows (ctx, c, sg, interrupted);
      p_first = c->head;
    }
  else if (st == GT_OK)
    st = whole_a (ctx, c, sg, interrupted);
  if (st == GT_OK)
    {
      /* the B of panels 0 to p_first - 1, where it went in with the
         pieces or blocks (else upload_panel says it) */
      cudaEvent_t ev = read_done (ctx, c, 0);
      size_t j0, j1;
      if (p_first && ev)
        {
          panel_cols (c, p_first - 1, &j0, &j1);
          read_part (c, 0, j1, ev);
        }
    }
  /* A's planes for the panels the first panel's pieces or blocks did not
     compute (those made planes of their own columns or rows) */
  if (st == GT_OK && p_first < c->panels)
    st = planes_of_a (ctx, c);
  if (st == GT_OK)
    st = test_failure (ctx);
  if (st == GT_OK)
    st = other_panels (ctx, c, sg, p_first, interrupted);
  if (st == GT_OK)
    {
      read_done (ctx, c, 1);
      /* the operands not probed yet, beside what the GPU has left */
      gt_probe_now (1, ctx->workers, sg->threads);
    }
  if (st == GT_OK)
    st = gt_stage_drain (sg);
  if (sg->prefaulting)
    {
      const double t0 = gt_now ();
      gt_prefault_wait (ctx->workers);
      sg->t_fault = gt_now () - t0;
    }
  return st;
}

/* The bytes of an element of an operand of type t in a product of type c,
   on the device: c's precision, real or complex as t is.  */
static size_t
device_size (gt_type c, gt_type t)
{
  const size_t real = gt_type_size (gt_type_real (c));
  return gt_type_real (t) == t ? real : 2 * real;
}

static void
call_init (gt_call *c, const gt_product *p)
{
  memset (c, 0, sizeof *c);
  c->type = p->type;
  c->es = gt_type_size (p->type);
  c->es_a = device_size (p->type, p->A.type);
  c->es_b = device_size (p->type, p->B.type);
  c->hs_a = gt_type_size (p->A.type);
  c->hs_b = gt_type_size (p->B.type);
  c->A = (const char *) p->A.data;
  c->B = (const char *) p->B.data;
  c->C = (char *) p->C;
  c->m = p->m;
  c->n = p->n;
  c->k = p->k;
  c->hla = p->lda;
  c->hlb = p->ldb;
  c->hlc = p->ldc;
  c->tile = p->tile;
  c->share = p->share > 1 ? p->share : 1;
  c->fault_from = p->fault_from;
  c->fault_bytes = p->fault_bytes;
  c->shared_a = p->shared_a;
  c->a_part = p->a_part;
  c->straight = p->c_locked;
  c->a_straight = p->a_locked;
  c->b_straight = p->b_locked;
}

static size_t
call_device_bytes (const gt_call *c)
{
  return c->a_bytes + c->planes_bytes + c->b_bytes + c->c_bytes + c->work;
}

size_t
gt_product_device_bytes (const gt_product *p)
{
  gt_call c;
  call_init (&c, p);
  return call_layout (NULL, &c) == GT_OK ? call_device_bytes (&c)
                                         : (size_t) -1;
}

/* The operands' checks of Gauss's three products (gt_call.dK), once the
   product has run: set, the product runs again, each panel waiting for
   its operands' flags and taking the four products where they are set
   (c->again).  */
static gt_status
read_checks (gt_context *ctx, gt_call *c)
{
  int seen = 0;
  cudaError_t err = cudaMemcpyAsync (&seen, c->dK, sizeof seen,
                                     cudaMemcpyDeviceToHost, ctx->comp);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (ctx->comp);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "reading the operands' checks");
  c->again = seen != 0;
  return GT_OK;
}

/* gt_product_run's work (see there); wait: each panel of Gauss's three
   products waits for its operands' flags; *again: they did not, and a
   flag was set.  */
static gt_status
product_run (gt_context *ctx, const gt_product *p,
             gt_interrupt_fn interrupted, int wait, int *again)
{
  const double t_start = gt_now ();
  gt_call c;
  call_init (&c, p);
  c.probe_mask = gt_probe_reads_begin ();   /* waits while a probe runs */
  c.wait = wait;
  gt_status st = call_layout (ctx, &c);
  if (c.shared_a)   /* before any wait for another band */
    gt_shared_a_say_kc (c.shared_a, c.a_part, st == GT_OK ? c.kc : 0);
  if (st != GT_OK || (st = call_buffers (ctx, &c)) != GT_OK)
    {
      gt_probe_read_done (&c.probe_mask, -1, NULL);
      return st;
    }
  const double t_buffers = gt_now ();
  gt_stager sg;
  memset (&sg, 0, sizeof sg);
  sg.ctx = ctx;
  sg.direct = p->c_locked;
  sg.whole = c_rows (&c, 0, c.m);
  sg.whole_cols = c.n;
  if (p->a_locked)
    {
      sg.in_lo[0] = c.A;
      sg.in_hi[0] = c.A + ((c.k - 1) * c.hla + c.m) * c.hs_a;
    }
  if (p->b_locked)
    {
      sg.in_lo[1] = c.B;
      sg.in_hi[1] = c.B + ((c.n - 1) * c.hlb + c.k) * c.hs_b;
    }
  if (c.panels == 1 && c.total < GT_SMALL_MAX_BYTES
      && c.a_bytes + c.b_bytes <= GT_SLOT_BYTES && c.c_bytes <= GT_SLOT_BYTES)
    {
      st = small_product (ctx, &c);
      if (ctx->opt.trace)
        fprintf (stderr, "gpu_tiled: %s %zux%zux%zu: %.3f ms (one stream%s)\n",
                 gt_type_name (c.type), c.m, c.k, c.n,
                 1e3 * (gt_now () - t_start),
                 c.total <= ctx->opt.zerocopy_max ? ", zero-copy" : "");
    }
  else
    {
      int copy_t, fault_t;
      call_threads (ctx, &c, &copy_t, &fault_t);
      sg.threads = c.total >= GT_SMALL_MAX_BYTES
                   ? shared_threads (copy_t, c.share) : 1;
      if (c.total < GT_MID_MAX_BYTES)
        {
          sg.piece = GT_MID_PIECE_BYTES;
          sg.stream_in = 1;
        }
      prefault_output (ctx, &c, &sg, fault_t);
      gt_copy_hot (ctx->workers, sg.threads, 1);
      if (ctx->opt.trace > 1)
        gt_timeline_begin (&sg);
      const double t_setup = gt_now ();
      st = streamed_product (ctx, &c, &sg, interrupted);
      if (st == GT_OK && c.dK)
        st = read_checks (ctx, &c);
      gt_copy_hot (ctx->workers, sg.threads, 0);
      if (st == GT_OK && c.side > 1 && !wait)
        ctx->side_products++;
      if (st == GT_OK && c.kc && !wait)
        ctx->piece_products++;
      if (st == GT_OK && c.head > 1 && !wait)
        ctx->head_products++;
      if (ctx->opt.trace)
        trace_call (&c, &sg, t_start, t_buffers, t_setup);
      gt_timeline_print (&sg);
    }
  if (st != GT_OK)
    abort_call (ctx);
  *again = st == GT_OK && c.again;
  /* nothing of this run's in flight now */
  gt_probe_read_done (&c.probe_mask, -1, NULL);
  return st;
}

gt_status
gt_product_run (gt_context *ctx, const gt_product *p,
                gt_interrupt_fn interrupted)
{
  int again = 0;
  gt_status st = product_run (ctx, p, interrupted, 0, &again);
  /* an operand held Inf or NaN, or parts whose sum overflows: C is
     written again, each panel choosing three or four products by its
     operands' flags (rare; the common case never waits on the device in
     the middle of its pipeline) */
  if (st == GT_OK && again)
    st = product_run (ctx, p, interrupted, 1, &again);
  /* A band whose part of a shared A was not all handed on (another
     path, a failure): the other devices take the rest of it from the
     host, without waiting for this band to end (a no-op where all of it
     was handed on).  */
  if (p->shared_a)
    gt_shared_a_abandon (p->shared_a, p->a_part, 0);
  return st;
}
