/* gt_panels.c -- the panels after the first (gt_call.h): each panel of
   B in one panel ahead of its kernel (during kernel 11's wait where it
   waits), its kernel, and the panels done before it out; the GPU time of
   the panels for the trace.  */

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
void
gt_read_part (const gt_call *c, size_t j0, size_t j1, cudaEvent_t after)
{
  if (c->probe_mask && j1 > j0)
    gt_probe_read_part (c->probe_mask, c->B + j0 * c->hlb * c->hs_b,
                        ((j1 - j0 - 1) * c->hlb + c->k) * c->hs_b, after);
}

gt_status
gt_upload_panel (gt_context *ctx, const gt_call *c, gt_stager *sg, size_t p,
                 gt_interrupt_fn interrupted)
{
  size_t j0, j1;
  panel_cols (c, p, &j0, &j1);
  gt_status st = b_columns_in (c, sg, j0, j1, interrupted);
  if (st != GT_OK)
    return st;
  cudaError_t err = cudaEventRecord (ctx->panel_in[p], ctx->up);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "ordering streams");
  gt_read_part (c, j0, j1, ctx->panel_in[p]);
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
    u->st = gt_upload_panel (u->ctx, u->c, u->sg, u->p, u->interrupted);
}

/* The work ahead of the last launch on the GPU, for its probe of B's
   parts to wait by (gt_probe_parts_now), or NULL.  Where C goes out
   staged, a band whose last launch found another band probing probed at
   its end, with the host's copies of its last panel still to do, and
   held them back past its last kernel (bench/RESULTS.md, "A band's
   probe in its last launch after the other's").  Where C goes out
   straight its copies are queued before that probe and run beside it,
   and a probe after a wait in the launch could only hold its products
   back; so could it where panels run side by side, the last beside the
   one before.  */
static cudaEvent_t
last_launch_busy (const next_upload *u)
{
  return !u->c->straight && !u->c->side && u->p >= 2
         ? u->ctx->panel_out[u->p - 2] : NULL;
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
  const int mk = gt_mark_begin (u->sg, 'p', 0, NULL);
  size_t bytes = 0;
  /* the last launch: no upload left for B's probe to slow */
  if (u->p >= u->c->panels)
    bytes = gt_probe_parts_now (u->ctx->workers, u->sg->threads,
                                last_launch_busy (u));
  bytes += gt_probe_now (0, u->ctx->workers, u->sg->threads);
  gt_mark_end_host (u->sg, mk, bytes);
}

static void
upload_while_waiting (void *arg)
{
  next_upload *u = (next_upload *) arg;
  const double t0 = gt_now ();
  u->reset_after = gt_inside_launch (upload_and_probe, u);
  u->seconds += gt_now () - t0;
}

/* Whether panel p went out already: one of panel 0's head, whose
   blocks of rows went out one by one.  */
static int
panel_out_already (const gt_call *c, size_t p)
{
  return p < c->head && c->panel0_out;
}

/* The last panel's C out by blocks of rows as its run writes them
   (gt_plan_rows_out), so that the first blocks' copy out runs beside the
   panel's last products: its blocks, or 0 where it goes whole.  Not for
   panels side by side, nor where the panel went out already.  */
static int
rows_out_blocks (const gt_call *c, size_t p)
{
  size_t j0, j1;
  panel_cols (c, p, &j0, &j1);
  if (c->side || p + 1 != c->panels || panel_out_already (c, p))
    return 0;
  const int blocks = gt_plan_rows_out (panel_plan (c, j1 - j0), c->m,
                                       j1 - j0);
  return blocks >= 2 && blocks <= GT_ROWS_OUT_MAX ? blocks : 0;
}

static cudaError_t
row_block_written (void *arg, int b, cudaStream_t s)
{
  const gt_context *ctx = (const gt_context *) arg;
  return cudaEventRecord (ctx->rows_out[b], s);
}

/* Panel p of C out by the blocks of rows its run wrote (rows_out_blocks).  */
static gt_status
download_rows (const gt_context *ctx, const gt_call *c, gt_stager *sg,
               size_t p, int blocks)
{
  size_t j0, j1;
  panel_cols (c, p, &j0, &j1);
  gt_status st = GT_OK;
  for (int b = 0; b < blocks && st == GT_OK; b++)
    {
      size_t r0, r1;
      gt_rows_block (c->m, blocks, b, &r0, &r1);
      const gt_block_out o = c_rows (c, r0, r1);
      st = gt_stage_download (sg, &o, j0, j1, ctx->rows_out[b]);
    }
  return st;
}

/* Panel p's product queued on its stream once its panel of B is there,
   keeping what kernel 11 made of A where the panel before ran the same
   way (gt_gemm_args.a_kept); next: the next panel's copies in, before
   the launch, or during it where the launch waits for the GPU (kernel
   11's scans: gt_plan_waits).  */
static gt_status
run_panel (gt_context *ctx, const gt_call *c, gt_stager *sg, size_t p,
           size_t p_first, panel_timer *timer, next_upload *next,
           gt_rows_out *rows)
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
  else if (c->a_ahead || c->a_after)   /* A made ahead */
    g.a_kept = gt_plan_keeps_a (plan);
  g.rows_out = rows;
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
gt_status
gt_other_panels (gt_context *ctx, const gt_call *c, gt_stager *sg,
                 size_t p_first, gt_interrupt_fn interrupted,
                 void (*at_end) (void *), void *at_end_arg)
{
  gt_status st = p_first < c->panels && !(c->next_in && p_first == c->head)
                 ? gt_upload_panel (ctx, c, sg, p_first, interrupted) : GT_OK;
  if (st == GT_OK)
    st = side_join (ctx, c, 0);
  panel_timer timer;
  timer_begin (&timer, ctx, p_first, c->panels);
  size_t out = 0;               /* the first panel not yet sent out */
  const size_t last = c->panels - 1;
  const int blocks = c->panels ? rows_out_blocks (c, last) : 0;
  gt_rows_out rows = { blocks, row_block_written, ctx, 0, 0 };
  for (size_t p = p_first; st == GT_OK && p < c->panels; p++)
    {
      next_upload next = { ctx, c, sg, p + 1, interrupted, 0, GT_OK, 0, 0 };
      st = run_panel (ctx, c, sg, p, p_first, &timer, &next,
                      p == last && blocks ? &rows : NULL);
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
    if (out == last && blocks && rows.called == blocks)
      {
        st = download_rows (ctx, c, sg, out, blocks);
        ctx->last_rows_products += st == GT_OK && rows.by_rows;
      }
    else
      st = download_panel (ctx, c, sg, out);
  if (st == GT_OK)
    st = side_join (ctx, c, 1);
  if (st == GT_OK && at_end)
    at_end (at_end_arg);
  timer.on = timer.on && st == GT_OK;
  timer_end (&timer, sg);
  return st;
}
