/* gt_first_panel.c -- A in, with the first panel of C computed as it
   arrives (gt_call.h): in pieces of k (A's columns, B's rows or, where B
   is locked, its panel whole first) or in blocks of A's rows (a head of
   several panels among them); in a split, a band's own part of a shared
   A through the host and the others' parts from their devices.  */

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

/* The planes of `rows` rows of A for plan p, from A on the device (at A,
   ld lda), queued on ctx->comp into c->dP; g then points at them (A real:
   nothing to do).  */
cudaError_t
gt_block_planes (gt_context *ctx, const gt_call *c, const gt_plan *p,
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
cudaError_t
gt_prepare_planes (gt_context *ctx, const gt_call *c, const void *A,
                   gt_gemm_args *g)
{
  return gt_block_planes (ctx, c, &c->plan_full, A, c->m, g);
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
      const int mk = gt_mark_begin (sg, 'P', need - c->a_got[i], ctx->peer);
      cudaError_t err = gt_shared_a_fetch (c->shared_a, i, ctx->device,
                                           c->dA, need, &c->a_got[i],
                                           ctx->peer, &fetched);
      gt_mark_end (sg, mk, ctx->peer);
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
   (gt_own_a_begin), the others' parts from their devices on ctx->peer, which
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
void
gt_own_a_begin (gt_call *c)
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
gt_status
gt_own_a_in (gt_context *ctx, gt_call *c, gt_stager *sg,
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
gt_status
gt_whole_a (gt_context *ctx, gt_call *c, gt_stager *sg,
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

/* A complex A's planes of its columns [k0, k1) in the layout of all of
   k (gt_plan_prepare_a_piece; first: the non-finite flag cleared), on
   ctx->comp; *piece: those columns' A for a product.  */
static cudaError_t
planes_of_columns (gt_context *ctx, const gt_call *c, size_t k0, size_t k1,
                   int first, const void **piece)
{
  return gt_plan_prepare_a_piece (&c->plan_full,
                                  c->dA + k0 * c->lda * c->es_a, c->lda,
                                  c->dP, c->m, c->k, k0, k1 - k0, first,
                                  piece, ctx->comp);
}

/* A's columns [k0, k1), there on the device, made ahead for panel 0 run
   whole (c->a_as_in; panels of c->w, as the layout took them): a complex
   A's planes of them, then kernel 11's scan and slices of them in panel
   0's places of A.  ctx->comp waits for ctx->up's copies (a shared A's
   peer copies it waits for already: a_part_in); panel_in[0] is free
   until panel 0's B.  */
static gt_status
a_part_ahead (gt_context *ctx, gt_call *c, gt_stager *sg, size_t k0,
              size_t k1, int first, int last)
{
  const gt_gemm_args panel = device_block (c, 0, c->w, 0, c->k);
  cudaError_t err = comp_after_up (ctx, ctx->panel_in[0]);
  const int mk = gt_mark_begin (sg, 'A', (k1 - k0) * c->lda * c->es_a,
                                ctx->comp);
  const void *planes;
  if (err == cudaSuccess && c->planes_bytes)
    err = planes_of_columns (ctx, c, k0, k1, first, &planes);
  if (err == cudaSuccess)
    err = gt_plan_a_as_in (&c->plan_full, &panel, k0, k1, first, last,
                           ctx->comp);
  gt_mark_end (sg, mk, ctx->comp);
  return err == cudaSuccess ? GT_OK
                            : gt_fail_cuda (err, "making A ahead");
}

/* All of A queued, made ahead for panel 0 part by part as it comes
   (c->a_as_in, a_part_ahead): the band's own part of a shared A first, in
   parts of c->a_as_in through the host, the others told after each; then
   the other parts, each whole, from their devices.  */
gt_status
gt_a_as_in (gt_context *ctx, gt_call *c, gt_stager *sg,
            gt_interrupt_fn interrupted)
{
  size_t p0 = 0, p1 = c->k;
  const int parts = c->shared_a ? gt_shared_a_parts (c->shared_a) : 0;
  if (c->shared_a)
    gt_shared_a_columns (c->shared_a, c->a_part, &p0, &p1);
  gt_status st = GT_OK;
  size_t made = 0;
  for (size_t k0 = p0; st == GT_OK && k0 < p1; k0 += c->a_as_in)
    {
      const size_t k1 = k0 + c->a_as_in < p1 ? k0 + c->a_as_in : p1;
      st = c->shared_a ? own_a_upto (ctx, c, sg, k1, interrupted)
                       : a_columns_in (ctx, c, sg, k0, k1, interrupted);
      if (st == GT_OK)
        st = a_part_ahead (ctx, c, sg, k0, k1, made == 0,
                           made + k1 - k0 == c->k);
      made += k1 - k0;
    }
  for (int i = 0; st == GT_OK && i < parts; i++)
    if (i != c->a_part)
      {
        gt_shared_a_columns (c->shared_a, i, &p0, &p1);
        st = a_columns_in (ctx, c, sg, p0, p1, interrupted);
        if (st == GT_OK)
          st = a_part_ahead (ctx, c, sg, p0, p1, 0, made + p1 - p0 == c->k);
        made += p1 - p0;
      }
  return st;
}

/* B's rows of panel 0's piece [k0, k1) in.  */
static gt_status
piece_rows_in (gt_call *c, gt_stager *sg, size_t k0, size_t k1,
               gt_interrupt_fn interrupted)
{
  return gt_stage_upload_rows (sg, c->dB, c->ldb, c->es_b, c->B, c->hs_b,
                               c->hlb, k0, k1, 0, head_cols (c), interrupted);
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
  size_t k0, k1, p0, p1;
  piece_cols (c, piece, &k0, &k1);
  gt_status st = GT_OK;
  if (gt_piece_own (o, piece))
    {
      gt_shared_a_columns (c->shared_a, c->a_part, &p0, &p1);
      st = own_a_upto (ctx, c, sg, gt_own_piece_end (o, c->kc, p1, piece),
                       interrupted);
    }
  return st == GT_OK ? piece_in (ctx, c, sg, k0, k1, rows_in, interrupted)
                      : st;
}

/* Host work inside a launch (gt_gemm_args.idle): a lost device is not
   reset there (gt_fail_cuda), as the launch still holds its records and
   handles and finds the error itself.  Returns whether the caller is to
   reset it after the launch (resets were not deferred already).  */
int
gt_inside_launch (void (*work) (void *), void *arg)
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
  int pre;                      /* own_piece_ahead recorded the next
                                   piece's panel_in before its upload */
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

/* Whether some other band's part of A comes through the host (its
   device could not hand it on) rather than from that device.  */
static int
others_by_host (const gt_call *c)
{
  return (c->a_host & ~((uint64_t) 1 << c->a_part)) != 0;
}

/* Where the piece launching is one of the band's own and the next is
   another band's whose B rows need not come (b_first), the band's own
   next piece of A goes in during the wait instead, where A's columns go
   straight (one copy queued, not the host's copies): its own uploads
   otherwise waited for the other band's piece's launch, 0.2 ms apart
   with the link idle (a split 16384^3 single band; bench/RESULTS.md,
   "Row blocks at the link's rate ...", run 6).  ctx->panel_in of the
   next piece is recorded on ctx->up first (*pre), so that the other
   band's piece, whose A comes from its device, need not wait for this
   upload (gt_first_panel_in_pieces).  */
static gt_status
own_piece_ahead (gt_context *ctx, gt_call *c, gt_stager *sg,
                 const gt_piece_order *o, size_t i, int *pre,
                 gt_interrupt_fn interrupted)
{
  size_t p0, p1;
  gt_shared_a_columns (c->shared_a, c->a_part, &p0, &p1);
  const size_t end = gt_own_next_end (o, c->kc, p1, c->a_own_end);
  if (!end)
    return GT_OK;
  cudaError_t err = cudaEventRecord (ctx->panel_in[i % GT_MAX_PANELS],
                                     ctx->up);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "ordering streams");
  *pre = 1;
  return own_a_upto (ctx, c, sg, end, interrupted);
}

static void
stage_piece_ahead (void *arg)
{
  piece_ahead *a = (piece_ahead *) arg;
  const gt_piece_order *o = &a->po->step;   /* own pieces: either order's */
  const size_t piece = gt_piece_orders_next (a->po, a->i, a->last);
  if (a->c->shared_a && !gt_piece_own (o, piece))
    {
      if (a->c->b_first && a->c->a_cols_straight
          && gt_piece_own (o, a->last))
        {
          a->st = own_piece_ahead (a->ctx, a->c, a->sg, o, a->i, &a->pre,
                                   a->interrupted);
          return;
        }
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
    a->reset_after = gt_inside_launch (stage_piece_ahead, a);
}

/* The B of the panel after panel 0 in during the last piece's wait for
   kernel 11's scan (as stage_ahead for the pieces): otherwise the link
   idled from A's last part to the launch's return, and that panel's
   kernel then waited for its B after the last piece (0.8-1.7 ms at
   16384^3 single; bench/RESULTS.md, "The next panel's B in the last
   piece's wait").  Only where B's columns go straight
   (c->b_cols_straight), so that the upload is one copy queued, not the
   host's copies, which would hold the last piece's products back.  */
typedef struct
{
  gt_context *ctx;
  gt_call *c;
  gt_stager *sg;
  gt_interrupt_fn interrupted;
  int reset_after;
  gt_status st;
} panel_ahead;

static void
upload_panel_ahead (void *arg)
{
  panel_ahead *a = (panel_ahead *) arg;
  a->st = gt_upload_panel (a->ctx, a->c, a->sg, a->c->head, a->interrupted);
  a->c->next_in = a->st == GT_OK;
}

static void
next_panel_ahead (void *arg)
{
  panel_ahead *a = (panel_ahead *) arg;
  if (a->c->next_in || a->st != GT_OK)   /* tried already */
    return;
  a->reset_after = gt_inside_launch (upload_panel_ahead, a);
}

/* The head's panels (panel 0 alone, or c->head of them) marked done on
   ctx->comp, where its pieces or blocks of rows ran.  */
static cudaError_t
head_done (gt_context *ctx, const gt_call *c)
{
  cudaError_t err = cudaSuccess;
  for (size_t p = 0; p < c->head && err == cudaSuccess; p++)
    err = cudaEventRecord (ctx->panel_out[p], ctx->comp);
  return err;
}

/* After panel 0's pieces of kernel 9 (c->a_after), once its C is marked
   ready to go out: all of A made ahead for the panels on kernel 11, while
   the next panel's B, queued after A, comes in.  */
static cudaError_t
a_after_pieces (gt_context *ctx, const gt_call *c, gt_stager *sg)
{
  if (!c->a_after)
    return cudaSuccess;
  const gt_gemm_args whole = device_block (c, 0, c->w, 0, c->k);
  const int mk = gt_mark_begin (sg, 'K', 0, ctx->comp);
  const cudaError_t err = gt_plan_a_whole (&whole, ctx->comp);
  gt_mark_end (sg, mk, ctx->comp);
  return err;
}

/* A complex A's planes for the piece of columns [k0, k1) (first: the
   first piece run), queued on ctx->comp: in the layout of all of k,
   which g then reads from k0 on (c->planes_by_pieces), or the piece's
   own in A's planes' place; a real A: nothing to do.  */
static cudaError_t
piece_planes (gt_context *ctx, const gt_call *c, size_t k0, size_t k1,
              int first, gt_gemm_args *g)
{
  if (c->planes_by_pieces)
    {
      g->a_planes_k = c->k;
      g->a_planes_k0 = k0;
      return planes_of_columns (ctx, c, k0, k1, first, &g->A);
    }
  if (c->planes_bytes)
    return gt_plan_prepare_a (&c->plan_full, c->dA + k0 * c->lda * c->es_a,
                              c->lda, c->dP, c->m, k1 - k0, ctx->comp);
  return cudaSuccess;
}

/* Panel 0 piece by piece of k, as A arrives (see first_panel_piece);
   where A is complex, each piece on the planes of its own columns of A,
   made where the planes of all of k put them where the panels are more
   than one (c->planes_by_pieces: the other panels find A's planes made),
   else in A's planes' place.  The pieces carry their sums in whatever order
   they run: the first run starts them, the last writes C.  Events are
   reused: a wait takes the event as it is when queued.  */
gt_status
gt_first_panel_in_pieces (gt_context *ctx, gt_call *c, gt_stager *sg,
                          gt_interrupt_fn interrupted)
{
  const gt_piece_layout l = piece_layout (c);
  gt_piece_orders po;
  gt_piece_orders_make (&l, &po, c->shared_a ? bands_agree : NULL, c);
  const gt_piece_order *o = &po.step;   /* its own pieces: either order's */
  const size_t count = o->count;
  gt_status st = c->b_first ? b_columns_in (c, sg, 0, head_cols (c),
                                             interrupted)
                             : GT_OK;
  if (st == GT_OK && c->shared_a && o->j1 == o->j0)
    st = gt_own_a_in (ctx, c, sg, interrupted);
  const int waits = gt_plan_waits (&c->piece_plan);
  piece_ahead ahead = { ctx, c, sg, &po, 0, 0, interrupted, 0, 0, 0, 0,
                        GT_OK };
  panel_ahead early = { ctx, c, sg, interrupted, 0, GT_OK };
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
      gt_gemm_args g = device_block (c, 0, head_cols (c), k0, k1 - k0);
      g.work = (char *) c->dW + c->a_ahead;
      const int pre = i > 0 && ahead.pre && !others_by_host (c);
      const piece_ahead next = { ctx, c, sg, &po, i + 1, piece, interrupted,
                                 0, 0, 0, 0, GT_OK };
      ahead = next;
      if (waits && i + 1 < count)
        {
          g.idle = stage_ahead;
          g.idle_arg = &ahead;
        }
      else if (waits && c->b_cols_straight && c->head < c->panels)
        {
          g.idle = next_panel_ahead;
          g.idle_arg = &early;
        }
      /* where the band's own next piece went ahead, this other band's
         piece waits for what went before it only (own_piece_ahead) */
      cudaEvent_t in = ctx->panel_in[i % GT_MAX_PANELS];
      cudaError_t err = pre ? cudaStreamWaitEvent (ctx->comp, in, 0)
                            : comp_after_up (ctx, in);
      if (err == cudaSuccess)
        err = piece_planes (ctx, c, k0, k1, i == 0, &g);
      const int mk = gt_mark_begin (sg, 'K', 0, ctx->comp);
      if (err == cudaSuccess)
        err = gt_gemm_piece (pp, i == 0, i + 1 == count, &g, ctx->comp);
      if (err == cudaSuccess && c->a_ahead)
        {
          const gt_gemm_args whole = device_block (c, 0, c->w, 0, c->k);
          err = gt_plan_a_ahead (&c->plan_full, &whole, k0, k1, i == 0,
                                 i + 1 == count, ctx->comp);
        }
      gt_mark_end (sg, mk, ctx->comp);
      st = err == cudaSuccess ? ahead.st
                              : gt_fail_cuda (err, "running the kernel");
      if (st == GT_OK)
        st = early.st;
      if ((ahead.reset_after || early.reset_after) && st != GT_OK)
        gt_ctx_reset_lost ();
    }
  if (st != GT_OK)
    return st;
  cudaError_t err = head_done (ctx, c);
  if (err == cudaSuccess)
    err = a_after_pieces (ctx, c, sg);
  return err == cudaSuccess ? GT_OK : gt_fail_cuda (err, "running the kernel");
}

/* The end of the block of A's rows from r0 (the last block shorter).  */
static size_t
block_end (const gt_call *c, size_t r0)
{
  return r0 + c->rows < c->m ? r0 + c->rows : c->m;
}

/* The block of A's rows from r0 in.  */
static gt_status
block_in (gt_call *c, gt_stager *sg, size_t r0, gt_interrupt_fn interrupted)
{
  return gt_stage_upload_a_rows (sg, c->dA, c->lda, c->es_a, c->A, c->hs_a,
                                 c->hla, r0, block_end (c, r0), c->k,
                                 interrupted);
}

/* The next block of A's rows in, as host work while kernel 11's run of
   a block waits for its scan's choice (gt_gemm_args.idle; as
   stage_ahead for the pieces): otherwise the link idles from a block's
   copy to its launch's return, which follows the GPU's work queued
   before the scan.  */
typedef struct
{
  gt_call *c;
  gt_stager *sg;
  size_t r0;
  gt_interrupt_fn interrupted;
  int done, reset_after;
  gt_status st;
} block_ahead;

static void
upload_block_ahead (void *arg)
{
  block_ahead *a = (block_ahead *) arg;
  a->st = block_in (a->c, a->sg, a->r0, a->interrupted);
  a->done = 1;
}

static void
next_block_ahead (void *arg)
{
  block_ahead *a = (block_ahead *) arg;
  if (!a->done)
    a->reset_after = gt_inside_launch (upload_block_ahead, a);
}

/* Block i's rows [r0, r0 + h) of panel 0 run on ctx->comp after what
   ctx->up has queued (its rows of A), on the block's own planes where A
   is complex; *ahead (next_block_ahead) may bring the next block in
   during the run's wait; C's rows straight out after it where C is
   locked.  */
static gt_status
block_run (gt_context *ctx, gt_call *c, gt_stager *sg, size_t i, size_t r0,
           size_t h, block_ahead *ahead)
{
  const size_t w = head_cols (c);
  const gt_plan *pp = h == c->rows ? &c->rows_plan : &c->rows_last;
  gt_gemm_args g = { c->dA + r0 * c->es_a, c->lda, c->dB, c->ldb,
                     c->dC + r0 * c->es, c->m, h, w, c->k, c->dW,
                     c->dK, 0 };
  if (r0 + h < c->m && gt_plan_waits (pp))
    {
      g.idle = next_block_ahead;
      g.idle_arg = ahead;
    }
  cudaError_t err = comp_after_up (ctx, ctx->panel_in[i % GT_MAX_PANELS]);
  if (err == cudaSuccess)
    err = gt_block_planes (ctx, c, pp, g.A, h, &g);
  if (err == cudaSuccess)
    err = gt_gemm_run (pp, &g, ctx->comp);
  /* C's rows straight out while the next rows of A come in, where C
     is locked (staged, the two directions at once move less than one
     after the other on the hosts measured; bench/RESULTS.md) */
  if (err == cudaSuccess && sg->direct)
    err = cudaEventRecord (ctx->panel_out[i % GT_MAX_PANELS], ctx->comp);
  gt_status st = err == cudaSuccess ? ahead->st
                                    : gt_fail_cuda (err, "running the kernel");
  if (ahead->reset_after && st != GT_OK)
    gt_ctx_reset_lost ();
  if (st == GT_OK && sg->direct)
    {
      const gt_block_out o = c_rows (c, r0, r0 + h);
      st = gt_stage_download (sg, &o, 0, w,
                              ctx->panel_out[i % GT_MAX_PANELS]);
      c->panel0_out = 1;
    }
  return st;
}

/* Panel 0 block by block of A's rows, as A arrives (see
   first_panel_rows): B's panel first, which every block needs, then each
   block of rows of A and its product; where A is complex, on the block's
   own planes, made where A's go (queued on ctx->comp before A's are
   made, after the last block).  Events are reused as in
   gt_first_panel_in_pieces.  */
gt_status
gt_first_panel_in_rows (gt_context *ctx, gt_call *c, gt_stager *sg,
                        gt_interrupt_fn interrupted)
{
  gt_status st = b_columns_in (c, sg, 0, head_cols (c), interrupted);
  block_ahead ahead = { c, sg, 0, interrupted, 0, 0, GT_OK };
  for (size_t r0 = 0, i = 0; st == GT_OK && r0 < c->m; r0 += c->rows, i++)
    {
      const size_t h = block_end (c, r0) - r0;
      if (!ahead.done)
        st = block_in (c, sg, r0, interrupted);
      if (st != GT_OK)
        return st;
      const block_ahead next = { c, sg, r0 + h, interrupted, 0, 0, GT_OK };
      ahead = next;
      st = block_run (ctx, c, sg, i, r0, h, &ahead);
    }
  if (st != GT_OK)
    return st;
  const cudaError_t err = head_done (ctx, c);
  return err == cudaSuccess ? GT_OK : gt_fail_cuda (err, "running the kernel");
}

/* A's planes for the panels run whole, once all of A is there
   (panel_in[0] is free: the first panel's own event is recorded later,
   and panel 0 in pieces or blocks of rows has used it already); an 'A'
   mark on the timeline.  */
gt_status
gt_planes_of_a (gt_context *ctx, gt_call *c, gt_stager *sg)
{
  if (!c->planes_bytes)
    return GT_OK;
  gt_gemm_args g;
  cudaError_t err = comp_after_up (ctx, ctx->panel_in[0]);
  const int mk = gt_mark_begin (sg, 'A', c->planes_bytes, ctx->comp);
  if (err == cudaSuccess)
    err = gt_prepare_planes (ctx, c, c->dA, &g);
  gt_mark_end (sg, mk, ctx->comp);
  return err == cudaSuccess ? GT_OK
                            : gt_fail_cuda (err, "making the planes of A");
}
