/* gt_bench_kernels.h -- the steps that only the benchmark builds: kernels
   2, 3 and 7 (bench/kernels).  Their plans come from gt_plan_fixed; the
   benchmark launches them itself, the plug-in's registry has no row for
   them.  Column-major as everywhere: C = A*B, A m x k, B k x n.  */

#ifndef GT_BENCH_KERNELS_H
#define GT_BENCH_KERNELS_H

#include "gt_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t gt_k2_regblock (const float *A, size_t lda,
                            const float *B, size_t ldb, float *C, size_t ldc,
                            size_t m, size_t n, size_t k, cudaStream_t s);
cudaError_t gt_k3_vector (const float *A, size_t lda,
                          const float *B, size_t ldb, float *C, size_t ldc,
                          size_t m, size_t n, size_t k, cudaStream_t s);
/* min_blocks: the blocks per SM its registers are capped for (1 or 2).  */
cudaError_t gt_k7_regdb (int min_blocks, const float *A, size_t lda,
                         const float *B, size_t ldb, float *C, size_t ldc,
                         size_t m, size_t n, size_t k, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
