/* gt_bench_kernels.h -- the steps that only the benchmark builds: kernels
   2, 3, 7 and 12 (bench/kernels).  Their plans come from gt_plan_fixed; the
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

/* Kernel 12: k at most GT_K12_KMAX, in bands of 64 columns of C and
   strips of gt_k12_rows (cfg) rows; configurations: */
#define GT_K12_KMAX 64
enum
{
  GT_K12_128 = 0,         /* 128-row strips, 8x8 per thread, 3 stages */
  GT_K12_64 = 1,          /* 64-row strips, 4x8 per thread, 4 stages */
  GT_K12_128_S2 = 2,      /* 128-row strips, 2 stages, 4 blocks an SM */
  GT_K12_CONFIG_COUNT = 3
};
/* work: gt_k12_work_bytes (an aligned copy of A where it is not).  */
cudaError_t gt_k12_thin (int cfg, const float *A, size_t lda,
                         const float *B, size_t ldb, float *C, size_t ldc,
                         size_t m, size_t n, size_t k, void *work,
                         cudaStream_t s);
size_t gt_k12_work_bytes (size_t m, size_t k, int repack);
int gt_k12_rows (int cfg);
/* Resident blocks per SM on the current device (0: none), and the blocks
   a launch puts along the strips on a device of sms SMs.  */
int gt_k12_occupancy (int cfg);
long long gt_k12_blocks (int cfg, size_t m, size_t n, int sms);

#ifdef __cplusplus
}
#endif

#endif
