/* gt_device_call.c -- C = A*B for matrices already in device memory.  */

#include <stdint.h>
#include "gt_context.h"
#include "gt_plan.h"

gt_status
gt_mtimes_device (gt_type type, const void *A, size_t lda, const void *B,
                  size_t ldb, void *C, size_t ldc, size_t m, size_t n,
                  size_t k, int tile, int device, void *stream)
{
  gt_status st = gt_check_product (type, tile);
  if (st != GT_OK)
    return st;
  if (lda < (m ? m : 1) || ldb < (k ? k : 1) || ldc < (m ? m : 1))
    return gt_fail (GT_ERR_ARG, "leading dimension smaller than the rows");
  const size_t es = gt_type_size (type);
  if ((st = gt_check_extent (lda, k, es, "A")) != GT_OK
      || (st = gt_check_extent (ldb, n, es, "B")) != GT_OK
      || (st = gt_check_extent (ldc, n, es, "C")) != GT_OK)
    return st;
  gt_context *ctx;
  if ((st = gt_ctx_get (device, &ctx)) != GT_OK)
    return st;
  cudaStream_t s = (cudaStream_t) stream;
  /* complex elements are read and written whole (kernel 10's vectors,
     the planes' split and join): A, B and C aligned to them, as from
     cudaMalloc; then any leading dimension will do, and a complex product
     needs no repacking */
  const int complex = gt_type_real (type) != type;
  if (complex
      && ((uintptr_t) A % es || (uintptr_t) B % es || (uintptr_t) C % es))
    return gt_fail (GT_ERR_ARG, "complex operands must be aligned to their "
                                "elements (%zu bytes)", es);
  const int repack = complex ? 0 : gt_needs_repack (type, A, lda, B, ldb);
  const gt_plan plan = gt_plan_for (type, m, n, k, tile, repack);
  if (plan.kernel == 0)
    return gt_fail (GT_ERR_UNSUPPORTED, "no kernel for %s products",
                    gt_type_name (type));
  /* scratch: [A's planes (complex products)][the plan's] */
  const size_t planes = gt_plan_a_bytes (&plan, m, k);
  if (planes + plan.work_bytes > ctx->work_bytes)
    {
      st = gt_ctx_device_buffer (ctx, &ctx->work, &ctx->work_bytes,
                                 planes + plan.work_bytes,
                                 "gpu_tiled scratch");
      if (st != GT_OK)
        return st;
    }
  /* The scratch is shared: wait for its last user, whatever its stream. */
  gt_gemm_args g = { A, lda, B, ldb, C, ldc, m, n, k,
                     (char *) ctx->work + planes };
  cudaError_t err = cudaStreamWaitEvent (s, ctx->work_free, 0);
  if (err == cudaSuccess && planes)
    {
      err = gt_plan_prepare_a (&plan, A, lda, ctx->work, m, k, s);
      g.A = ctx->work;
      g.lda = gt_plan_a_ld (&plan, m);
    }
  if (err == cudaSuccess)
    err = gt_gemm_run (&plan, &g, s);
  if (err == cudaSuccess)
    err = cudaEventRecord (ctx->work_free, s);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "running the kernel");
  return GT_OK;
}
