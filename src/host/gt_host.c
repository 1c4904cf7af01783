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
   gt_layout.c's piece_b_first).
   On the device A and B get leading dimensions rounded up to 16 bytes, so
   the fast kernels read them in 16-byte pieces whatever m and k are; the
   host threads write that layout straight into the slots.  The smallest
   products skip the copy engine (small_product).  The stages: the
   layout (gt_layout.c), the buffers (here), the first panel
   (gt_first_panel.c), the other panels (gt_panels.c), the trace and the
   abort (here); gt_call.h holds what they share.  */

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
    err = gt_prepare_planes (ctx, c, g.A, &g);
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

typedef struct
{
  gt_context *ctx;
  gt_call *c;
  gt_stager *sg;
} end_probe;

static void
probe_at_end (void *arg)
{
  end_probe *e = (end_probe *) arg;
  read_done (e->ctx, e->c, 1);
  /* beside the GPU's last panels this probe is the band's time, not the
     call's (gt_probe_seconds_taken): left out, it made the band look
     faster; the waits before it stay the call's */
  const double before = gt_probe_seconds_taken ();
  const int mk = gt_mark_begin (e->sg, 'p', 0, NULL);
  gt_mark_end_host (e->sg, mk, gt_probe_now (1, e->ctx->workers,
                                             e->sg->threads));
  gt_probe_seconds_taken ();
  gt_probe_seconds_add (before);
}

/* The streamed pipeline: first panel, other panels, results out.  */
static gt_status
streamed_product (gt_context *ctx, gt_call *c, gt_stager *sg,
                  gt_interrupt_fn interrupted)
{
  if (c->shared_a)
    gt_own_a_begin (c);
  /* a band's own part of a shared A first, but where panel 0 goes in
     pieces of k, which stage it piece by piece, or A is made ahead as it
     arrives (gt_a_as_in stages it part by part) */
  gt_status st = c->shared_a && !c->kc && !c->a_as_in
                 ? gt_own_a_in (ctx, c, sg, interrupted) : GT_OK;
  size_t p_first = 0;
  if (st == GT_OK && c->a_as_in)
    st = gt_a_as_in (ctx, c, sg, interrupted);
  else if (st == GT_OK && c->kc)
    {
      st = gt_first_panel_in_pieces (ctx, c, sg, interrupted);
      p_first = c->head;
    }
  else if (st == GT_OK && c->rows)
    {
      st = gt_first_panel_in_rows (ctx, c, sg, interrupted);
      p_first = c->head;
    }
  else if (st == GT_OK)
    st = gt_whole_a (ctx, c, sg, interrupted);
  if (st == GT_OK)
    {
      /* the B of panels 0 to p_first - 1, where it went in with the
         pieces or blocks (else gt_upload_panel says it) */
      cudaEvent_t ev = read_done (ctx, c, 0);
      size_t j0, j1;
      if (p_first && ev)
        {
          panel_cols (c, p_first - 1, &j0, &j1);
          gt_read_part (c, 0, j1, ev);
        }
    }
  /* A's planes for the panels the first panel's pieces or blocks did not
     compute (those made planes of their own columns or rows), but where
     the pieces made them in the layout of all of k */
  if (st == GT_OK && p_first < c->panels && !c->planes_by_pieces
      && !c->a_as_in)
    st = gt_planes_of_a (ctx, c, sg);
  if (st == GT_OK)
    st = test_failure (ctx);
  if (st == GT_OK)
    {
      /* the operands not probed yet, beside what the GPU has left (before
         the wait for the last panels, which left the probe of a split
         band's parts of B after its last kernel: bench/RESULTS.md, "A
         made ahead") */
      end_probe probe = { ctx, c, sg };
      st = gt_other_panels (ctx, c, sg, p_first, interrupted, probe_at_end,
                            &probe);
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
  return gt_call_layout (NULL, &c) == GT_OK ? call_device_bytes (&c)
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

/* A streamed product's ways counted for gpu_tiled_info (once a product:
   not in a run again that waits for the operands' flags).  */
static void
count_ways (gt_context *ctx, const gt_call *c)
{
  ctx->side_products += c->side > 1;
  ctx->piece_products += c->kc != 0;
  ctx->rows_products += c->rows && c->head <= 1;
  ctx->head_products += c->head > 1;
  ctx->eighths_products += c->eighths != 0;
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
  gt_status st = gt_call_layout (ctx, &c);
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
      if (st == GT_OK && !wait)
        count_ways (ctx, &c);
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
  gt_status st = product_run (ctx, p, interrupted, p->wait, &again);
  /* an operand held Inf or NaN, or parts whose sum overflows: C is
     written again, each panel choosing three or four products by its
     operands' flags (rare; the common case never waits on the device in
     the middle of its pipeline) */
  if (st == GT_OK && again && p->shared_a && p->again)
    *p->again = 1;   /* other bands may still copy A from this device */
  else if (st == GT_OK && again)
    st = product_run (ctx, p, interrupted, 1, &again);
  /* A band whose part of a shared A was not all handed on (another
     path, a failure): the other devices take the rest of it from the
     host, without waiting for this band to end (a no-op where all of it
     was handed on).  */
  if (p->shared_a)
    gt_shared_a_abandon (p->shared_a, p->a_part, 0);
  return st;
}
