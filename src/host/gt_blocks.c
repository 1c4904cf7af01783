/* gt_blocks.c -- a product on one device, in blocks of C where the device
   cannot hold all of it at once.

   The pipeline (gt_host.c) keeps A, B and C of a call in device memory.
   Where that does not fit (another process holds the memory, the GPU is
   small, or the product is larger than the whole device), C is cut into
   blocks of whole columns first: A stays whole and is sent again for each
   block, B and C are each sent once.  Only where A itself leaves no room
   are rows cut too, and then B is sent again for each band of rows.  A
   block keeps the host matrices' leading dimensions (gt_product_block),
   so nothing is copied to make it.  */

#include <stdio.h>
#include "gt_product.h"

/* Blocks are cut on multiples of this (the widest kernel tile), so every
   block but the last runs on whole tiles; where memory is so short that
   even that does not fit, on multiples of BLOCK_MIN.  */
#define BLOCK_STEP 256
#define BLOCK_MIN 64
/* Left free for the CUDA runtime, the kernels' scratch of device-pointer
   calls and other allocations of this process.  */
#define MARGIN_BYTES ((size_t) 96 << 20)

static size_t
step_down (size_t x)
{
  if (x > BLOCK_STEP)
    return x / BLOCK_STEP * BLOCK_STEP;
  return x > BLOCK_MIN ? x / BLOCK_MIN * BLOCK_MIN : x;
}

static size_t
block_bytes (const gt_product *p, size_t mb, size_t nb)
{
  const gt_product q = gt_product_block (p, 0, 0, mb, nb);
  return gt_product_device_bytes (&q);
}

/* Device bytes a block may take: what is free (the context's own buffer
   was freed by the failed allocation), less a margin, and no more than
   the test limit.  */
static size_t
block_budget (const gt_context *ctx)
{
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo (&free_b, &total_b) != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  size_t b = free_b > MARGIN_BYTES ? free_b - MARGIN_BYTES : 0;
  if (ctx->opt.device_limit && b > ctx->opt.device_limit)
    b = ctx->opt.device_limit;
  return b;
}

/* The widest nb <= n whose block (mb rows) fits budget: bytes grow with
   nb almost in proportion, so one estimate and a few steps down.  */
static size_t
widest_fit (const gt_product *p, size_t mb, size_t budget)
{
  size_t n1 = p->n < BLOCK_STEP ? p->n : BLOCK_STEP;
  size_t b1 = block_bytes (p, mb, n1);
  if (b1 > budget && n1 > BLOCK_MIN)
    b1 = block_bytes (p, mb, n1 = BLOCK_MIN);
  if (b1 > budget)
    return 0;
  const size_t n2 = p->n < 2 * BLOCK_STEP ? p->n : 2 * BLOCK_STEP;
  const size_t b2 = block_bytes (p, mb, n2);
  const size_t per = n2 > n1 && b2 > b1 ? (b2 - b1) / (n2 - n1) + 1 : 1;
  size_t nb = n1 + (budget - b1) / per;
  nb = step_down (nb < p->n ? nb : p->n);
  while (nb > n1 && block_bytes (p, mb, nb) > budget)
    nb = step_down (nb - (nb > BLOCK_STEP ? BLOCK_STEP : BLOCK_MIN));
  return nb < n1 ? n1 : nb;
}

/* Block sizes (*mb, *nb) that fit budget: all rows where a band of
   BLOCK_STEP columns fits beside A, else bands of rows halved until one
   does.  Nonzero when even the smallest block does not fit.  */
static int
choose_blocks (const gt_product *p, size_t budget, size_t *mb, size_t *nb)
{
  size_t rows = p->m;
  for (;;)
    {
      const size_t cols = widest_fit (p, rows, budget);
      if (cols > 0)
        {
          /* the same number of blocks, as even as the steps allow */
          const size_t blocks = (p->n + cols - 1) / cols;
          size_t even = (p->n + blocks - 1) / blocks;
          const size_t step = cols >= BLOCK_STEP ? BLOCK_STEP : BLOCK_MIN;
          even = (even + step - 1) / step * step;
          *nb = even < cols ? even : cols;
          *mb = rows;
          return 0;
        }
      if (rows <= BLOCK_MIN)
        return 1;
      rows = step_down ((rows + 1) / 2);
    }
}

static gt_status blocked (gt_context *ctx, const gt_product *p,
                          gt_interrupt_fn interrupted, int depth);

/* The blocks in turn.  A block whose plan needs more scratch than the
   block chosen for the fit (the last, narrower ones) is cut again.  */
static gt_status
run_blocks (gt_context *ctx, const gt_product *p, size_t mb, size_t nb,
            gt_interrupt_fn interrupted, int depth)
{
  gt_status st = GT_OK;
  for (size_t i0 = 0; st == GT_OK && i0 < p->m; i0 += mb)
    for (size_t j0 = 0; st == GT_OK && j0 < p->n; j0 += nb)
      {
        const size_t h = p->m - i0 < mb ? p->m - i0 : mb;
        const size_t w = p->n - j0 < nb ? p->n - j0 : nb;
        gt_product q = gt_product_block (p, i0, j0, h, w);
        if (i0 == 0 && j0 == 0 && mb == p->m)
          {
            /* the first block's helpers fault in all of C: the blocks
               after it find it ready */
            q.fault_from = p->fault_from;
            q.fault_bytes = p->fault_bytes;
          }
        st = gt_product_run (ctx, &q, interrupted);
        if (st == GT_ERR_NO_MEMORY && depth < 2)
          st = blocked (ctx, &q, interrupted, depth + 1);
      }
  return st;
}

/* p in blocks that fit what the device has free now.  */
static gt_status
blocked (gt_context *ctx, const gt_product *p, gt_interrupt_fn interrupted,
         int depth)
{
  const size_t whole = gt_product_device_bytes (p);
  const size_t budget = block_budget (ctx);
  size_t mb, nb;
  if (choose_blocks (p, budget, &mb, &nb))
    return gt_fail (GT_ERR_NO_MEMORY, "out of device memory: the product "
                    "needs %.1f MiB, and even its smallest block does not "
                    "fit the %.1f MiB free", whole / 1048576.0,
                    budget / 1048576.0);
  if (ctx->opt.trace)
    fprintf (stderr, "gpu_tiled: %.1f MiB do not fit %.1f MiB: blocks of "
             "%zux%zu\n", whole / 1048576.0, budget / 1048576.0, mb, nb);
  return run_blocks (ctx, p, mb, nb, interrupted, depth);
}

static int
always_interrupted (void)
{
  return 1;
}

gt_status
gt_device_product (int device, const gt_product *p,
                   gt_interrupt_fn interrupted)
{
  gt_context *ctx;
  gt_status st;
  if ((st = gt_ctx_get (device, &ctx)) != GT_OK
      || (st = gt_ctx_pinned (ctx)) != GT_OK)
    return st;
  if (ctx->opt.test_interrupt)
    {
      interrupted = always_interrupted;
      if (ctx->opt.test_interrupt > 0)
        ctx->opt.test_interrupt--;
    }
  st = gt_product_run (ctx, p, interrupted);
  if (st == GT_ERR_NO_MEMORY)
    ctx->memory_retries++;
  /* A band of a split whose buffer is still there ran out of memory after
     the others may have begun copying its part of A from it: the blocks
     would write over it.  It goes back to gt_multi_product, which runs it
     again once every band has ended.  */
  if (st == GT_ERR_NO_MEMORY && p->shared_a && ctx->dev)
    return st;
  return st == GT_ERR_NO_MEMORY ? blocked (ctx, p, interrupted, 0) : st;
}
