/* gt_call.h -- one host call's working state (gt_call) and the stages
   of its pipeline, shared by the files of the host layer that run a call
   (internal to it; gt_product.h is the door to the rest):
     gt_layout.c       the layout: panels, their plans, the first panel's
                       way (pieces of k, blocks of rows, a head of panels)
     gt_host.c         the buffers, the small products, the call itself
                       (gt_product_run) and its trace
     gt_first_panel.c  A in, with the first panel (or a head of panels)
                       computed as it arrives; A shared by a split's bands;
                       A's planes (complex plans)
     gt_panels.c       the other panels: B in, kernels, C out
   Octave stores matrices column-major: element (i,j) of an m-row matrix
   is at i + j*m; B and C go in panels of whole columns.  */

#ifndef GT_CALL_H
#define GT_CALL_H

#include <stdint.h>
#include "gt_plan.h"
#include "gt_product.h"
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
  size_t a_ahead;               /* the pieces also make A ahead for the
                                   other panels, or A's parts for panel 0
                                   whole as they arrive (a_as_in), in the
                                   scratch's first bytes, this many
                                   (gt_plan_a_ahead, gt_plan_a_as_in); the
                                   pieces' own scratch after (0: not) */
  int a_after;                  /* other pieces (kernel 9's): all of A made
                                   ahead there after the last
                                   (gt_plan_a_whole) */
  size_t a_as_in;               /* or panel 0 whole, A made ahead for it
                                   as A's columns arrive, in parts of this
                                   many (0: not; gt_a_as_in) */
  size_t rows;                  /* or its blocks of rows of A (0: none) */
  size_t head;                  /* panels those blocks compute (>= 1) */
  gt_plan rows_plan, rows_last;
  size_t a_bytes, b_bytes, c_bytes, work;
  size_t planes_bytes, planes_ld;   /* A's planes (complex products) */
  int planes_by_pieces;         /* panel 0's pieces make A's planes in the
                                   layout of all of k, each its own
                                   columns: the panels after them find them
                                   made (gt_plan_prepare_a_piece) */
  size_t total;                 /* A, B and C on the host */
  char *dA, *dB, *dC, *dP;      /* dP: A's planes, or dA */
  void *dW;
  /* Gauss's three products: a device word the panels set where an operand
     holds what they cannot take (gt_gemm_args.checks), read once at the
     end (NULL where defers_checks says not: each panel waits) */
  int *dK;
  int wait;                     /* no word: each panel waits (the rerun) */
  int again;                    /* the word was set: run it again */
  int panel0_out;               /* panel 0's blocks of rows went out as
                                   they were done */
  int straight;                 /* C locked: copies out straight */
  int b_straight;               /* B locked (as a_straight) */
  int b_first;                  /* panel 0 in pieces: its B whole first */
  int b_cols_straight;          /* and its columns go straight (B locked,
                                   one plain copy or wide columns) */
  int a_cols_straight;          /* A's columns go straight (likewise) */
  int next_in;                  /* the B of panel `head` (the one after
                                   panel 0's pieces) went in during the
                                   last piece's wait */
  int a_straight;               /* A locked: its uploads may go straight
                                   (gt_stage.c's rules: one plain copy,
                                   columns of 32 KiB or more, or a block
                                   of A's rows, gt_stage_upload_a_rows) */
  size_t w_given;               /* panels this wide (0: the plan's) */
  int eighths;                  /* laid out again in a complex product's
                                   eighths (gt_panel_eighths) */
  int probe_mask;               /* the operands' probe: what this run
                                   has not yet said it read
                                   (gt_probe_read_done) */
} gt_call;

/* Whether the call's three products leave their operands' checks in a
   device word (gt_call.dK) rather than waiting in each panel: a band of
   a split sharing A only on kernels 9 and 11 (whose panel 0 may go in
   pieces, which cannot wait), its C written again by gt_multi.c where
   they are set (gt_product.again).  */
static inline int
defers_checks (const gt_call *c)
{
  return (c->plan_full.three || c->plan_tail.three || c->plan_last.three)
         && (!c->shared_a || c->plan_full.kernel == GT_K11_OZAKI
             || c->plan_full.kernel == GT_K9_DMMA)
         && !c->wait;
}

static inline size_t
larger (size_t a, size_t b)
{
  return a > b ? a : b;
}

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

/* The columns of C that panel 0's blocks of rows compute: panel 0's
   width (c->w), or a head of several panels.  */
static inline size_t
head_cols (const gt_call *c)
{
  return c->head * c->w < c->n ? c->head * c->w : c->n;
}

/* The operands of the block of C of columns j0.. (w of them) on the
   device, with k from k0 (kk of it).  */
static inline gt_gemm_args
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

/* Rows [r0, r1) of C (all of its rows: 0, m) on their way out.  */
static inline gt_block_out
c_rows (const gt_call *c, size_t r0, size_t r1)
{
  gt_block_out o = { c->C + r0 * c->es, c->dC + r0 * c->es, c->hlc, c->m,
                     c->es, r1 - r0 };
  return o;
}

/* B's columns [j0, j1), all of k, in through the stager (straight where
   B is locked and they may go so): a panel of B, or panel 0's or a
   head's B before A's pieces or blocks of rows.  */
static inline gt_status
b_columns_in (const gt_call *c, gt_stager *sg, size_t j0, size_t j1,
              gt_interrupt_fn interrupted)
{
  return gt_stage_upload (sg, c->dB, c->ldb, c->es_b, c->B, c->hs_b, c->hlb,
                          c->k, j0, j1, interrupted);
}

/* Columns [*j0, *j1) of panel p.  */
static inline void
panel_cols (const gt_call *c, size_t p, size_t *j0, size_t *j1)
{
  const int tail = p >= c->full_panels;
  *j0 = tail ? c->full_panels * c->w + (p - c->full_panels) * c->tail_w
             : p * c->w;
  const size_t w = tail ? c->tail_w : c->w;
  *j1 = *j0 + w < c->n ? *j0 + w : c->n;
}

/* gt_layout.c: the call's layout (leading dimensions, panels, plans, the
   first panel's way, the device bytes), or an error where no kernel can
   take its panels; ctx NULL: as the defaults would lay it out (the
   device-memory estimate, gt_product_device_bytes).  */
gt_status gt_call_layout (const gt_context *ctx, gt_call *c);

/* gt_first_panel.c: A's planes (complex plans) for a block of `rows`
   rows of A, made where A's planes go, and g pointed at them; the same
   for all of A (gt_prepare_planes).  */
cudaError_t gt_block_planes (gt_context *ctx, const gt_call *c,
                             const gt_plan *p, const void *A, size_t rows,
                             gt_gemm_args *g);
cudaError_t gt_prepare_planes (gt_context *ctx, const gt_call *c,
                               const void *A, gt_gemm_args *g);

/* gt_first_panel.c: a band's own part of a shared A (where each part
   stands before it stages any; all of its own part), all of A, host work
   inside a launch (returns whether the caller resets a lost device after
   it), the first panel in pieces of k or in blocks of A's rows, and A's
   planes for the panels run whole.  */
void gt_own_a_begin (gt_call *c);
gt_status gt_own_a_in (gt_context *ctx, gt_call *c, gt_stager *sg,
                       gt_interrupt_fn interrupted);
gt_status gt_whole_a (gt_context *ctx, gt_call *c, gt_stager *sg,
                      gt_interrupt_fn interrupted);
int gt_inside_launch (void (*work) (void *), void *arg);
gt_status gt_first_panel_in_pieces (gt_context *ctx, gt_call *c,
                                    gt_stager *sg,
                                    gt_interrupt_fn interrupted);
gt_status gt_first_panel_in_rows (gt_context *ctx, gt_call *c, gt_stager *sg,
                                  gt_interrupt_fn interrupted);
gt_status gt_planes_of_a (gt_context *ctx, gt_call *c, gt_stager *sg);
gt_status gt_a_as_in (gt_context *ctx, gt_call *c, gt_stager *sg,
                      gt_interrupt_fn interrupted);

/* gt_panels.c: B's columns [j0, j1) read, for the locked operands' probe,
   once `after` has happened; the panels from p_first on (A sent), and
   at_end (NULL: none) once all of them are queued and every copy out,
   before the host waits for the GPU's last panels.  */
void gt_read_part (const gt_call *c, size_t j0, size_t j1,
                   cudaEvent_t after);
gt_status gt_other_panels (gt_context *ctx, const gt_call *c, gt_stager *sg,
                           size_t p_first, gt_interrupt_fn interrupted,
                           void (*at_end) (void *), void *at_end_arg);
/* Panel p of B in, ctx->panel_in[p] recorded after it.  */
gt_status gt_upload_panel (gt_context *ctx, const gt_call *c, gt_stager *sg,
                           size_t p, gt_interrupt_fn interrupted);

#endif
