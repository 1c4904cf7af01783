/* gt_costs.h -- the default path's cost models (internal to the plan
   layer).  Each gt_cost_* is a registry row's `propose`: it fills *p with
   its kernel's best plan for the shape (p->type set by the caller) and
   returns the cost, in flops of one SM, or HUGE_VAL where it has none.  */

#ifndef GT_COSTS_H
#define GT_COSTS_H

#include "gt_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of n elements of type, rounded up to 256 so that the parts of a
   scratch stay aligned.  */
static inline size_t
gt_bytes_256 (gt_type type, size_t n)
{
  return (n * gt_type_size (type) + 255) / 256 * 256;
}


double gt_cost_k4 (gt_plan *p, size_t m, size_t n, size_t k, int repack);
double gt_cost_k6 (gt_plan *p, size_t m, size_t n, size_t k, int repack);
double gt_cost_k8 (gt_plan *p, size_t m, size_t n, size_t k, int repack);
double gt_cost_k9 (gt_plan *p, size_t m, size_t n, size_t k, int repack);
double gt_cost_k10 (gt_plan *p, size_t m, size_t n, size_t k, int repack);
double gt_cost_k11 (gt_plan *p, size_t m, size_t n, size_t k, int repack);
/* Kernel 11's predicted seconds with 8 moduli, and the seconds of one
   unit of the costs (for bench/plan_dump --costs).  */
double gt_k11_seconds (size_t m, size_t n, size_t k);
/* A piece of k of kernel 11 (gt_k11_piece), its sums' trips included.  */
double gt_k11_piece_seconds (size_t m, size_t n, size_t kc);
double gt_cost_seconds (int repack);

/* The ints at src[0] .. src[count - 1] (device memory, count <= 4) in
   out, read after what stream s has queued: the plan layer's waits on the
   device (gt_emulate.cu's mailbox, one per device).  */
cudaError_t gt_plan_read_back (const int *const *src, int count, int *out,
                               cudaStream_t s);

/* Gauss's three products of a complex plan (gt_run.cu): in its scratch, a
   flag at 0, B's planes at *b_off, the products at *p_off, and the real
   plan's own scratch from the offset returned; large enough also for the
   four products in one that replace the three where an operand holds Inf,
   NaN or parts whose sum overflows.  */
size_t gt_three_layout (gt_type real, size_t m, size_t n, size_t k,
                        size_t *b_off, size_t *p_off);
/* Where the three products' planes of A (m x 3k, leading dimension ld,
   from gt_plan_prepare_a) keep their flag: in the 256 bytes after them.  */
int *gt_three_a_flag (gt_type real, const void *planes, size_t ld, size_t k);
/* The plan of that m x 2n x 2k product (gt_dispatch.cu).  */
gt_plan gt_plan_four (gt_type real, size_t m, size_t n, size_t k);

/* The cost of passes over memory that move `bytes`, in `launches`
   launches.  */
double gt_cost_passes (double bytes, int launches);

/* Kernels 4/5 with the configuration and splits fixed where only_cfg >= 0
   and only_splits > 0; *cost (where not NULL) gets the plan's cost.  */
gt_plan gt_cost_choose_k4 (gt_type type, size_t m, size_t n, size_t k,
                           int only_cfg, int only_splits, int repack,
                           double *cost);
/* Kernel 6 with the splits fixed where only_splits > 0.  */
gt_plan gt_cost_choose_k6 (gt_type type, size_t m, size_t n, size_t k,
                           int only_splits);

/* The plan for a strip of C beside kernel 8's or 9's tiles, and its cost
   (where cost is not NULL).  */
gt_plan gt_plan_strip (gt_type type, size_t m, size_t n, size_t k,
                       int repack, double *cost);

#ifdef __cplusplus
}
#endif

#endif
