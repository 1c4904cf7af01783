/* oz_cublas.h -- cuBLAS's INT8 GEMM on kernel 11's first residue planes,
   the yardstick of its INT8 product in bench_kernels and ozaki_bench:
   C (int32, mp x np, column-major) = A^T B over the planes' padded kp.  */

#ifndef OZ_CUBLAS_H
#define OZ_CUBLAS_H

#include <cublas_v2.h>
#include "gt_k11_ozaki.h"

static inline cublasStatus_t
oz_cublas_int8 (cublasHandle_t blas, const gt_oz_work *w, int32_t *c)
{
  const int one = 1, zero = 0;
  return cublasGemmEx (blas, CUBLAS_OP_T, CUBLAS_OP_N, (int) w->mp,
                       (int) w->np, (int) w->kp, &one, w->a_planes,
                       CUDA_R_8I, (int) w->kp, w->b_planes, CUDA_R_8I,
                       (int) w->kp, &zero, c, CUDA_R_32I, (int) w->mp,
                       CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
}

#endif
