/* gt_host.c -- C = A*B for host matrices, and for device pointers.

   The host path streams through pinned staging slots: host threads copy a
   piece of an operand into a slot while the copy engine moves the previous
   piece to the device.  B and C go in column panels (contiguous in
   column-major storage), so the kernels run while the rest of B is still
   arriving and C comes back panel by panel; panel 0 is itself computed in
   pieces of k, each as soon as its columns of A and rows of B are there:
       A, B0 piece 0 | A, B0 piece 1 | ... | B panel 1 | B panel 2, C panel 0 ...
   On the device A and B get leading dimensions rounded up to 4, so the
   fast kernels read them in 16-byte pieces whatever m and k are; the host
   threads write that layout straight into the slots.  The smallest
   products skip the copy engine (small_product).  */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "gt_context.h"
#include "gt_copy.h"
#include "gt_gemm.h"

/* ---- staging slots ---- */

static double
now_s (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

typedef struct
{
  gt_context *ctx;
  int threads;      /* copy threads, the caller included */
  int next;
  /* seconds spent, for GPU_TILED_TRACE */
  double t_in, t_out, t_wait, t_fault;   /* t_fault: at the end */
  size_t bytes_in, bytes_out;
  int prefaulting;  /* helpers are faulting in the output */
  /* a slot holding device results not yet copied out */
  float *out_dst[GT_SLOTS];
  size_t out_len[GT_SLOTS];
} stager;

static float *
slot_ptr (const stager *st, int s)
{
  return (float *) (st->ctx->pinned + (size_t) s * GT_SLOT_BYTES);
}

static gt_status
slot_drain (stager *st, int s)
{
  const double t0 = now_s ();
  cudaError_t err = cudaEventSynchronize (st->ctx->slot_done[s]);
  const double t1 = now_s ();
  st->t_wait += t1 - t0;
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "copying between host and device");
  if (st->out_dst[s])
    {
      copy_job j = { st->out_dst[s], slot_ptr (st, s), st->out_len[s],
                     st->out_len[s], st->out_len[s], 1 };
      gt_copy (&j, st->threads);
      st->out_dst[s] = NULL;
      st->t_out += now_s () - t1;
      st->bytes_out += j.rows * sizeof (float);
    }
  return GT_OK;
}

static gt_status
slot_acquire (stager *st, int *slot)
{
  const int s = st->next;
  st->next = (st->next + 1) % GT_SLOTS;
  *slot = s;
  return slot_drain (st, s);
}

/* A piece of a column-major matrix: whole columns [c0, c0+nc), or when one
   column exceeds a slot, rows [r0, r0+nr) of column c0.  */
typedef struct
{
  size_t c0, nc, r0, nr;
} piece;

/* Pieces of columns [c_begin, c_end) of a matrix stored on the device with
   leading dimension ld (rows of data each).  Returns 0 when done.  */
static int
next_piece (piece *p, size_t rows, size_t ld, size_t c_end)
{
  const size_t slot_floats = GT_SLOT_BYTES / sizeof (float);
  if (p->nc == 0 && p->nr == 0)       /* first call: p->c0 holds c_begin */
    ;
  else if (p->nc > 0 || p->r0 + p->nr >= rows)
    {
      p->c0 += p->nc > 0 ? p->nc : 1;
      p->r0 = 0;
    }
  else
    p->r0 += p->nr;
  if (p->c0 >= c_end || rows == 0)
    return 0;
  if (ld <= slot_floats)
    {
      size_t nc = slot_floats / ld;
      if (nc > c_end - p->c0)
        nc = c_end - p->c0;
      p->nc = nc;
      p->r0 = 0;
      p->nr = rows;
    }
  else
    {
      p->nc = 0;
      p->nr = rows - p->r0 < slot_floats ? rows - p->r0 : slot_floats;
    }
  return 1;
}

/* One piece of an upload: takes a slot, copies job's block into it on
   the copy threads (job->dst is set here), then queues the DMA from the
   slot to dst on ctx->up, `height` rows of `width` bytes (dst rows
   `dpitch` bytes apart; height 1: one plain copy), and marks the slot.  */
static gt_status
slot_send (stager *st, copy_job *job, float *dst, size_t dpitch,
           size_t width, size_t height)
{
  int s;
  gt_status stt = slot_acquire (st, &s);
  if (stt != GT_OK)
    return stt;
  job->dst = slot_ptr (st, s);
  const double t0 = now_s ();
  gt_copy (job, st->threads);
  st->t_in += now_s () - t0;
  st->bytes_in += job->rows * job->cols * sizeof (float);
  cudaError_t err = height == 1
    ? cudaMemcpyAsync (dst, job->dst, width, cudaMemcpyHostToDevice,
                       st->ctx->up)
    : cudaMemcpy2DAsync (dst, dpitch, job->dst, width, width, height,
                         cudaMemcpyHostToDevice, st->ctx->up);
  if (err == cudaSuccess)
    err = cudaEventRecord (st->ctx->slot_done[s], st->ctx->up);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "copying to the device");
  return GT_OK;
}

/* Host columns [c_begin, c_end) of src (rows x *, leading dimension rows)
   to device dst (leading dimension ld), through the slots on ctx->up.  */
static gt_status
upload (stager *st, float *dst, size_t ld, const float *src, size_t rows,
        size_t c_begin, size_t c_end, gt_interrupt_fn interrupted)
{
  piece p = { c_begin, 0, 0, 0 };
  while (next_piece (&p, rows, ld, c_end))
    {
      if (interrupted && interrupted ())
        return gt_fail (GT_ERR_INTERRUPTED, "interrupted");
      const size_t nc = p.nc ? p.nc : 1;
      copy_job j = { NULL, src + p.c0 * rows + p.r0, ld, rows,
                     p.nc ? rows : p.nr, nc };
      if (!p.nc)
        j.dld = j.sld = j.rows;
      const size_t floats = p.nc ? nc * ld : p.nr;
      gt_status stt = slot_send (st, &j, dst + p.c0 * ld + p.r0, 0,
                                 floats * sizeof (float), 1);
      if (stt != GT_OK)
        return stt;
    }
  return GT_OK;
}

/* Rows [r0, r1) of host columns [c_begin, c_end) of src (rows x *) to the
   same rows of device dst (leading dimension ld): a piece of k of a panel
   of B.  Each slot takes whole columns of the block; the copy engine
   spreads them to their columns.  */
static gt_status
upload_rows (stager *st, float *dst, size_t ld, const float *src,
             size_t rows, size_t r0, size_t r1, size_t c_begin,
             size_t c_end, gt_interrupt_fn interrupted)
{
  const size_t h = r1 - r0;
  const size_t per_slot = GT_SLOT_BYTES / sizeof (float) / h;
  for (size_t c = c_begin; c < c_end; c += per_slot)
    {
      if (interrupted && interrupted ())
        return gt_fail (GT_ERR_INTERRUPTED, "interrupted");
      const size_t nc = c_end - c < per_slot ? c_end - c : per_slot;
      copy_job j = { NULL, src + c * rows + r0, h, rows, h, nc };
      gt_status stt = slot_send (st, &j, dst + c * ld + r0,
                                 ld * sizeof (float), h * sizeof (float),
                                 nc);
      if (stt != GT_OK)
        return stt;
    }
  return GT_OK;
}

/* Device columns [c_begin, c_end) of src (leading dimension rows) back to
   host dst (same layout), once `ready` has happened on ctx->down.  The
   host side of each piece is copied when its slot is next needed, or by
   drain_all.  */
static gt_status
download (stager *st, float *dst, const float *src, size_t rows,
          size_t c_begin, size_t c_end, cudaEvent_t ready)
{
  cudaError_t err = cudaStreamWaitEvent (st->ctx->down, ready, 0);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "ordering streams");
  piece p = { c_begin, 0, 0, 0 };
  while (next_piece (&p, rows, rows, c_end))
    {
      int s;
      gt_status stt = slot_acquire (st, &s);
      if (stt != GT_OK)
        return stt;
      const size_t off = p.c0 * rows + p.r0;
      const size_t floats = p.nc ? p.nc * rows : p.nr;
      err = cudaMemcpyAsync (slot_ptr (st, s), src + off,
                             floats * sizeof (float), cudaMemcpyDeviceToHost,
                             st->ctx->down);
      if (err == cudaSuccess)
        err = cudaEventRecord (st->ctx->slot_done[s], st->ctx->down);
      if (err != cudaSuccess)
        return gt_fail_cuda (err, "copying from the device");
      st->out_dst[s] = dst + off;
      st->out_len[s] = floats;
    }
  return GT_OK;
}

static gt_status
drain_all (stager *st)
{
  /* In slot order from the oldest, so results land in issue order.  */
  for (int i = 0; i < GT_SLOTS; i++)
    {
      gt_status s = slot_drain (st, (st->next + i) % GT_SLOTS);
      if (s != GT_OK)
        return s;
    }
  return GT_OK;
}

static size_t
round_up (size_t x, size_t to)
{
  return (x + to - 1) / to * to;
}

/* Panel width: as many 128-wide column tiles as fill kernel 8's resident
   blocks (two per multiprocessor) without passing them, since one tile
   more costs a whole round (4096 rows: 1024 columns, 256 of 264 slots;
   1152 made 288 tiles and sent the panel to kernel 4); at least an eighth
   of n, so the first kernel starts early without panels starving the
   GPU.  */
static size_t
panel_width (size_t m, size_t n, size_t k, int tile)
{
  const size_t bytes = (m * k + k * n + m * n) * sizeof (float);
  if (tile != GT_TILE_DEFAULT || m == 1 || n == 1 || bytes < (32u << 20))
    return n;
  int sms = 132;
  cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0);
  const size_t tiles_m = (m + 127) / 128;
  const size_t fit = 2 * (size_t) sms / tiles_m;
  size_t w = (fit ? fit : 1) * 128;
  if (w < n / 8)
    w = round_up (n / 8, 128);
  if ((n + w - 1) / w > GT_MAX_PANELS)
    w = round_up ((n + GT_MAX_PANELS - 1) / GT_MAX_PANELS, 128);
  return w < n ? w : n;
}

/* The first panel waits for all of A, which is most of the time before
   the GPU can start.  So it is computed in pieces of k instead: piece i
   needs only columns of A and rows of B in that piece, and the pieces
   carry their sums from one to the next (gt_gemm_piece: the same bits as
   one pass over k).
   Returns the piece (a multiple of 32, at least 4 pieces, each piece of A
   at most a slot), or 0 where pieces would not pay.
   GPU_TILED_NO_KSPLIT turns it off (the tests compare).  */
static size_t
first_panel_piece (size_t k, size_t lda, size_t panels)
{
  if (panels < 2 || getenv ("GPU_TILED_NO_KSPLIT"))
    return 0;
  size_t kc = GT_SLOT_BYTES / sizeof (float) / lda;
  if (kc > k / 4)
    kc = k / 4;
  kc = kc / 32 * 32;
  return kc < 128 ? 0 : kc;
}

/* Products up to this many bytes (A, B and C together) run on the
   staging memory itself: the kernel reads A and B from pinned host memory
   over PCIe and writes C there, which saves both copy-engine transfers and
   their latency (the GPU's L2 keeps what several blocks read).
   GPU_TILED_ZEROCOPY_MAX overrides it (0: never).  */
#define ZEROCOPY_MAX_BYTES ((size_t) 256 << 10)

static size_t
zerocopy_max (void)
{
  const char *env = getenv ("GPU_TILED_ZEROCOPY_MAX");
  return env ? (size_t) strtoull (env, NULL, 10) : ZEROCOPY_MAX_BYTES;
}

/* Products whose operands fit a staging slot: one copy in, the kernel and
   one copy out, all on one stream, which saves the hand-offs between the
   streams of the pipeline (microseconds that small products notice); the
   smallest skip the copies (zerocopy_max).  dB must follow dA by a_bytes in
   device memory.  */
static gt_status
small_product (gt_context *ctx, const float *A, const float *B, float *C,
               size_t m, size_t n, size_t k, size_t lda, size_t ldb,
               size_t a_bytes, float *dA, float *dB, float *dC, void *dW,
               const gt_plan *plan)
{
  float *pa = (float *) ctx->pinned;
  float *pb = (float *) (ctx->pinned + a_bytes);
  float *pc = (float *) (ctx->pinned + GT_SLOT_BYTES);
  copy_job ja = { pa, A, lda, m, m, k }, jb = { pb, B, ldb, k, k, n };
  gt_copy (&ja, 1);
  gt_copy (&jb, 1);
  cudaError_t err;
  if ((m * k + k * n + m * n) * sizeof (float) <= zerocopy_max ())
    {
      /* The device's addresses of the same pinned bytes.  */
      const size_t off_c = GT_SLOT_BYTES;
      float *ga = (float *) ctx->pinned_dev;
      float *gb = (float *) (ctx->pinned_dev + a_bytes);
      float *gc = (float *) (ctx->pinned_dev + off_c);
      if (getenv ("GPU_TILED_POISON"))
        memset (pc, 0xff, m * n * sizeof (float));
      err = gt_gemm_run (plan, ga, lda, gb, ldb, gc, m, m, n, k, dW,
                         ctx->comp);
    }
  else
    {
      err = cudaMemcpyAsync (dA, pa, a_bytes + ldb * n * sizeof (float),
                             cudaMemcpyHostToDevice, ctx->comp);
      if (err == cudaSuccess)
        err = gt_gemm_run (plan, dA, lda, dB, ldb, dC, m, m, n, k, dW,
                           ctx->comp);
      if (err == cudaSuccess)
        err = cudaMemcpyAsync (pc, dC, m * n * sizeof (float),
                               cudaMemcpyDeviceToHost, ctx->comp);
    }
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (ctx->comp);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "running the product");
  memcpy (C, pc, m * n * sizeof (float));
  return GT_OK;
}

/* GPU_TILED_TEST_INTERRUPT makes every interrupt check answer yes: the
   tests use it to walk the path Ctrl-C takes.  */
static int
always_interrupted (void)
{
  return 1;
}

gt_status
gt_mtimes_host (const float *A, const float *B, float *C, size_t m,
                size_t n, size_t k, int tile, gt_interrupt_fn interrupted)
{
  if (getenv ("GPU_TILED_TEST_INTERRUPT"))
    interrupted = always_interrupted;
  const double t_start = now_s ();
  if (!gt_tile_is_valid (tile))
    return gt_fail (GT_ERR_ARG, "tile must be 8, 16 or 32");
  if (m == 0 || n == 0)
    return GT_OK;
  if (k == 0)
    {
      memset (C, 0, m * n * sizeof (float));
      return GT_OK;
    }
  gt_context *ctx;
  gt_status st = gt_ctx_get (&ctx);
  if (st != GT_OK || (st = gt_ctx_pinned (ctx)) != GT_OK)
    return st;

  const size_t lda = round_up (m, 4), ldb = round_up (k, 4);
  const size_t w = panel_width (m, n, k, tile);
  const size_t panels = (n + w - 1) / w;
  const gt_plan plan_full = gt_plan_for (m, w, k, tile, 0);
  const gt_plan plan_last = gt_plan_for (m, n - (panels - 1) * w, k, tile, 0);
  size_t work = plan_full.work_bytes > plan_last.work_bytes
                ? plan_full.work_bytes : plan_last.work_bytes;
  const size_t kc = first_panel_piece (k, lda, panels);
  gt_plan piece_plan, last_plan;
  if (kc)
    {
      piece_plan = gt_plan_piece (&plan_full, m, w, kc);
      last_plan = gt_plan_piece (&plan_full, m, w, k - (k - 1) / kc * kc);
      if (piece_plan.work_bytes > work)
        work = piece_plan.work_bytes;
      if (last_plan.work_bytes > work)
        work = last_plan.work_bytes;
    }
  const size_t a_bytes = round_up (lda * k * sizeof (float), 256);
  const size_t b_bytes = round_up (ldb * n * sizeof (float), 256);
  const size_t c_bytes = round_up (m * n * sizeof (float), 256);
  st = gt_ctx_device_buffer (&ctx->dev, &ctx->dev_bytes,
                             a_bytes + b_bytes + c_bytes + work,
                             "gpu_tiled_mtimes");
  if (st != GT_OK)
    return st;
  float *dA = (float *) ctx->dev;
  float *dB = (float *) ((char *) ctx->dev + a_bytes);
  float *dC = (float *) ((char *) ctx->dev + a_bytes + b_bytes);
  void *dW = (char *) ctx->dev + a_bytes + b_bytes + c_bytes;
  /* Tests set GPU_TILED_POISON so any element of C that no kernel writes
     comes back NaN instead of a stale value.  Both paths below queue their
     kernels on ctx->comp, after this.  */
  if (getenv ("GPU_TILED_POISON"))
    {
      cudaError_t err = cudaMemsetAsync (dC, 0xff, c_bytes, ctx->comp);
      if (err != cudaSuccess)
        return gt_fail_cuda (err, "poisoning the output");
    }
  const size_t total = (m * k + k * n + m * n) * sizeof (float);
  if (panels == 1 && total < 4 * PARALLEL_MIN_BYTES
      && a_bytes + b_bytes <= GT_SLOT_BYTES && c_bytes <= GT_SLOT_BYTES)
    {
      st = small_product (ctx, A, B, C, m, n, k, lda, ldb, a_bytes, dA, dB,
                          dC, dW, &plan_full);
      if (getenv ("GPU_TILED_TRACE"))
        fprintf (stderr, "gpu_tiled: %zux%zux%zu: %.3f ms (one stream%s)\n",
                 m, k, n, 1e3 * (now_s () - t_start),
                 total <= zerocopy_max () ? ", zero-copy" : "");
      return st;
    }

  const int threads = total >= 4 * PARALLEL_MIN_BYTES ? gt_thread_count () : 1;
  stager sg;
  memset (&sg, 0, sizeof sg);
  /* C is new memory: its first touch costs page faults (the kernel zeroes
     each page; on this VM about 1.4 ms per 64 MiB on 16 cores).  Helper
     threads take them from the start, in huge pages where the kernel
     allows, while the copies in and the kernels run; the copies out write
     behind them without waiting (a page the helpers have not reached yet
     is faulted in by the copy itself).  */
  if (threads > 1 && m * n * sizeof (float) >= (4u << 20))
    {
      const size_t huge = (size_t) 2 << 20;
      const uintptr_t b = round_up ((uintptr_t) C, huge);
      const uintptr_t e = ((uintptr_t) (C + m * n)) / huge * huge;
      if (e > b)
        madvise ((void *) b, e - b, MADV_HUGEPAGE);
      gt_prefault_start (C, m * n * sizeof (float), gt_prefault_threads ());
      sg.prefaulting = 1;
    }
  gt_copy_hot (threads, 1);
  const double t_setup = now_s ();
  sg.ctx = ctx;
  sg.threads = threads;

  size_t p_first = 0;
  if (kc)
    {
      /* Panel 0 piece by piece of k, as A arrives (see first_panel_piece).
         Events are reused: a wait takes the event as it is when queued. */
      for (size_t k0 = 0, i = 0; st == GT_OK && k0 < k; k0 += kc, i++)
        {
          const size_t k1 = k0 + kc < k ? k0 + kc : k;
          st = upload (&sg, dA, lda, A, m, k0, k1, interrupted);
          if (st == GT_OK)
            st = upload_rows (&sg, dB, ldb, B, k, k0, k1, 0, w, interrupted);
          if (st != GT_OK)
            break;
          const gt_plan *pp = k1 - k0 == kc ? &piece_plan : &last_plan;
          cudaEvent_t in = ctx->panel_in[i % GT_MAX_PANELS];
          cudaError_t err = cudaEventRecord (in, ctx->up);
          if (err == cudaSuccess)
            err = cudaStreamWaitEvent (ctx->comp, in, 0);
          if (err == cudaSuccess)
            err = gt_gemm_piece (pp, k0 == 0, k1 == k, dA + k0 * lda, lda,
                                 dB + k0, ldb, dC, m, m, w, k1 - k0, dW,
                                 ctx->comp);
          if (err != cudaSuccess)
            st = gt_fail_cuda (err, "running the kernel");
        }
      if (st == GT_OK)
        {
          cudaError_t err = cudaEventRecord (ctx->panel_out[0], ctx->comp);
          if (err != cudaSuccess)
            st = gt_fail_cuda (err, "running the kernel");
        }
      p_first = 1;
    }
  else
    st = upload (&sg, dA, lda, A, m, 0, k, interrupted);
  for (size_t p = p_first; st == GT_OK && p < panels; p++)
    {
      const size_t j0 = p * w, j1 = j0 + w < n ? j0 + w : n;
      st = upload (&sg, dB, ldb, B, k, j0, j1, interrupted);
      if (st != GT_OK)
        break;
      const gt_plan *plan = j1 - j0 == w ? &plan_full : &plan_last;
      cudaError_t err = cudaEventRecord (ctx->panel_in[p], ctx->up);
      if (err == cudaSuccess)
        err = cudaStreamWaitEvent (ctx->comp, ctx->panel_in[p], 0);
      if (err == cudaSuccess)
        err = gt_gemm_run (plan, dA, lda, dB + j0 * ldb, ldb, dC + j0 * m, m,
                           m, j1 - j0, k, dW, ctx->comp);
      if (err == cudaSuccess)
        err = cudaEventRecord (ctx->panel_out[p], ctx->comp);
      if (err != cudaSuccess)
        {
          st = gt_fail_cuda (err, "running the kernel");
          break;
        }
      if (p > 0)
        st = download (&sg, C, dC, m, j0 - w, j0, ctx->panel_out[p - 1]);
    }
  if (st == GT_OK)
    st = download (&sg, C, dC, m, (panels - 1) * w, n,
                   ctx->panel_out[panels - 1]);
  if (st == GT_OK)
    st = drain_all (&sg);
  if (sg.prefaulting)
    {
      const double t0 = now_s ();
      gt_prefault_wait ();
      sg.t_fault = now_s () - t0;
    }
  gt_copy_hot (threads, 0);
  if (getenv ("GPU_TILED_TRACE"))
    {
      const double t_end = now_s (), gb = 1e-9;
      fprintf (stderr, "gpu_tiled: %zux%zux%zu: %.3f ms (set-up %.3f; host "
               "copies in %.3f ms, %.1f GB/s; out %.3f ms, %.1f GB/s; "
               "prefault left at the end %.3f ms; waits for the GPU "
               "%.3f ms), %zu panels, first in pieces of k = %zu, %d + %d "
               "threads\n", m, k, n,
               1e3 * (t_end - t_start), 1e3 * (t_setup - t_start),
               1e3 * sg.t_in, sg.t_in > 0 ? gb * sg.bytes_in / sg.t_in : 0.0,
               1e3 * sg.t_out,
               sg.t_out > 0 ? gb * sg.bytes_out / sg.t_out : 0.0,
               1e3 * sg.t_fault, 1e3 * sg.t_wait, panels, kc, threads,
               gt_prefault_threads ());
    }
  if (st != GT_OK && ctx->ready)
    {
      /* Leave nothing in flight that could touch the slots or buffers.  */
      cudaStreamSynchronize (ctx->up);
      cudaStreamSynchronize (ctx->comp);
      cudaStreamSynchronize (ctx->down);
      cudaGetLastError ();
    }
  return st;
}

gt_status
gt_mtimes_device (const float *A, size_t lda, const float *B, size_t ldb,
                  float *C, size_t ldc, size_t m, size_t n, size_t k,
                  int tile, void *stream)
{
  if (!gt_tile_is_valid (tile))
    return gt_fail (GT_ERR_ARG, "tile must be 8, 16 or 32");
  if (lda < (m ? m : 1) || ldb < (k ? k : 1) || ldc < (m ? m : 1))
    return gt_fail (GT_ERR_ARG, "leading dimension smaller than the rows");
  gt_context *ctx;
  gt_status st = gt_ctx_get (&ctx);
  if (st != GT_OK)
    return st;
  cudaStream_t s = (cudaStream_t) stream;
  const gt_plan plan = gt_plan_for (m, n, k, tile,
                                    gt_k4_needs_repack (A, lda, B, ldb));
  if (plan.work_bytes > ctx->work_bytes)
    {
      st = gt_ctx_device_buffer (&ctx->work, &ctx->work_bytes,
                                 plan.work_bytes, "gpu_tiled scratch");
      if (st != GT_OK)
        return st;
    }
  /* The scratch is shared: wait for its last user, whatever its stream. */
  cudaError_t err = cudaStreamWaitEvent (s, ctx->work_free, 0);
  if (err == cudaSuccess)
    err = gt_gemm_run (&plan, A, lda, B, ldb, C, ldc, m, n, k, ctx->work, s);
  if (err == cudaSuccess)
    err = cudaEventRecord (ctx->work_free, s);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "running the kernel");
  return GT_OK;
}
