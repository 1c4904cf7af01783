/* gt_k11_ozaki.h -- kernel 11: single products emulated on
   the INT8 tensor cores by the Chinese remainder theorem (Ozaki scheme II).

   Each row i of A is scaled by 2^ea[i] and each column j of B by 2^eb[j]
   and rounded to integers A', B', with ||A'(i,:)||_2 and ||B'(:,j)||_2 at
   most 2^gamma, so every |A'B'(i,j)| < M/2 (Cauchy-Schwarz) where M is the
   product of the moduli.  A'B' is found from its residues mod each modulus
   p: the residues of A' and B' (int8, |r| <= 128) are multiplied exactly
   on the tensor cores (int32 sums; k <= GT_OZ_MAX_K keeps them exact),
   reduced mod p, and the residues of all moduli put together by the CRT in
   double.  C = A'B' scaled back, rounded once to single.

   Column-major as everywhere: A m x k (lda), B k x n (ldb), C m x n (ldc).
   The planes of A are A' mod p transposed (row i of A contiguous along k),
   those of B are B' mod p (columns as they are): both K-major, as the INT8
   tensor cores read them.  */

#ifndef GT_K11_OZAKI_H
#define GT_K11_OZAKI_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GT_OZ_MAX_MODULI 12
/* The scan chooses from these (gt_oz_scan).  */
#define GT_OZ_MIN_MODULI 7
#define GT_OZ_MAX_USED 10
/* k at most this: 128 * 128 * k stays below 2^31 with k padded to 128.  */
#define GT_OZ_MAX_K 130944
/* Tile of the INT8 product: 256 rows of C (A's planes) by 128 columns (B's
   planes), 128 of k per pipeline stage.  */
#define GT_OZ_TILE_M 256
#define GT_OZ_TILE_N 128
#define GT_OZ_TILE_K 128

/* The scratch of one product, carved from one allocation by
   gt_oz_layout.  */
typedef struct
{
  int moduli;          /* N, the first N of the table */
  size_t m, n, k;
  size_t mp, np, kp;   /* padded to the tiles */
  size_t ldr;          /* leading dimension of the residue planes of C */
  int8_t *a_planes;    /* N planes mp x kp, row i at i * kp (room for at
                          least GT_OZ_MAX_USED planes) */
  int8_t *b_planes;    /* N planes np x kp, column j at j * kp */
  uint8_t *c_planes;   /* N planes of C's residues, ldr x n, in [0, p) */
  double *a_sums;      /* A's sums below, a_sums_bytes together */
  size_t a_sums_bytes;
  double *b_sums;      /* B's sums and the choice's, b_sums_bytes */
  size_t b_sums_bytes;
  double *a_sumsq;     /* m: sum of squares of each row of A */
  double *a_col_sumsq; /* k: of each column of A */
  unsigned *a_bad;     /* nonzero where A holds Inf or NaN */
  unsigned *a_fix;     /* m + 1: how many rows' guessed scales were wrong
                          (gt_oz_slice_chosen's a_guessed), then those rows */
  double *b_sumsq;     /* n: of each column of B */
  double *b_row_sumsq; /* k: of each row of B */
  unsigned *b_bad;     /* nonzero where B holds Inf or NaN */
  double *totals;      /* ||A||_F^2, ||B||_F^2, sum_h of the products of
                          A's column and B's row sums */
  unsigned *arrived;   /* blocks of the choice done */
  unsigned *next_tile; /* the products' tile counter: zero between launches */
  int *a_exp;          /* m: row i of A is scaled by 2^a_exp[i] */
  int *b_exp;          /* n: column j of B by 2^b_exp[j] */
  int *choice;         /* the scan's choice of moduli, 0: none will do */
  double *ratio;       /* its estimate for 7 moduli over SGEMM's floor */
  size_t bytes;        /* all of it */
} gt_oz_work;

/* Fill w's sizes and pointers for a product into `base` (NULL: sizes only,
   w->bytes then says what to allocate).  */
void gt_oz_layout (gt_oz_work *w, int moduli, size_t m, size_t n, size_t k,
                   void *base);
/* The same with A's part (its sums, exponents and planes: the bytes
   gt_oz_a_part_bytes gives, which depend on m and k alone) at a_base,
   B's scan part (its sums, exponents and the scan's choice:
   gt_oz_scan_part_bytes, which depend on n and k alone) at scan_base and
   the planes of B and C at planes_base (w->bytes still counts all three),
   so that several products on one scratch can each keep an A of their
   own, and each be scanned before the first of them is sliced.  */
void gt_oz_layout_split (gt_oz_work *w, int moduli, size_t m, size_t n,
                         size_t k, void *a_base, void *scan_base,
                         void *planes_base);
size_t gt_oz_a_part_bytes (int moduli, size_t m, size_t k);
size_t gt_oz_scan_part_bytes (size_t n, size_t k);

/* gamma of N moduli: the bits of each operand's scaled rows and columns
   (log2 of their 2-norm bound).  */
double gt_oz_gamma (int moduli);

/* The stages, each queued on s.  The scan also chooses the number of
   moduli into w->choice (device memory): the caller reads it, sets
   w->moduli (gt_oz_layout again) or runs another kernel where it is 0.  */
cudaError_t gt_oz_scan (const gt_oz_work *w, const float *A, size_t lda,
                        const float *B, size_t ldb, cudaStream_t s);
/* The choice oz_choose makes where its estimate for 7 moduli over
   SGEMM's floor is ratio7 (w->ratio), made on the host: 0 where no
   number of moduli up to GT_OZ_MAX_USED will do.  */
int gt_oz_moduli_for (double ratio7);
/* The scan of B alone, and the choice, with A's sums where an earlier scan
   of the same A on a layout of the same base, m and k left them: the
   panels of one product after the first.  */
cudaError_t gt_oz_scan_kept (const gt_oz_work *w, const float *B, size_t ldb,
                             cudaStream_t s);
cudaError_t gt_oz_slice (const gt_oz_work *w, const float *A, size_t lda,
                         const float *B, size_t ldb, cudaStream_t s);
/* A ahead of its panels, part by part of k as it arrives (the pieces of
   a first panel): its columns [k0, k1) of the whole A scanned into A's
   sums (first: the sums cleared before), and sliced into A's planes for
   `moduli` moduli with scales guessed from the first part alone
   (gt_oz_a_guess, after the first part's scan: its sums of squares times
   sumsq_scale, k over that part's length).  k0 and the part's length are
   multiples of GT_OZ_A_PART (the last part may end at k).  A panel then
   runs on them with gt_oz_slice_chosen's a_have = moduli and a_guessed:
   where the scan chooses that many moduli, the rows whose scale from the
   whole row differs from the guess are sliced again (the rest as the
   whole slices would have made them), else all of A is.  */
#define GT_OZ_A_PART 64
cudaError_t gt_oz_a_scan_part (const gt_oz_work *w, const float *A,
                               size_t lda, size_t k0, size_t k1, int first,
                               cudaStream_t s);
cudaError_t gt_oz_a_guess (const gt_oz_work *w, int moduli,
                           double sumsq_scale, cudaStream_t s);
cudaError_t gt_oz_a_slice_part (const gt_oz_work *w, int moduli,
                                const float *A, size_t lda, size_t k0,
                                size_t k1, cudaStream_t s);

/* The slices for the number of moduli the scan chose, read on the device
   (nothing where it chose 0), with w laid out for GT_OZ_MAX_USED: queued
   (the first product's of a launch) before the host has read the choice,
   so that the GPU slices while the host waits for it.  The products and
   the combine then run on the same layout with w->moduli set to the
   choice.  a_have: the number of moduli
   A's planes (and exponents) already hold for this A, 0 for none; where
   the choice is that number, A is not sliced again, except its rows
   whose scales were guessed wrong where a_guessed (gt_oz_a_guess).  */
cudaError_t gt_oz_slice_chosen (const gt_oz_work *w, const float *A,
                                size_t lda, const float *B, size_t ldb,
                                int a_have, int a_guessed, cudaStream_t s);
cudaError_t gt_oz_products (const gt_oz_work *w, cudaStream_t s);
/* The products over k's part [k0, k1) alone (multiples of GT_OZ_TILE_K,
   or k1 = k), their residues stored, or where accumulate added mod p to
   those already there: the residues of a product found part by part of
   k on the same scales and planes are the whole product's, bit for bit
   (the pieces of a first panel on the panel's scales; bench/ozaki_bench
   checks it).  */
cudaError_t gt_oz_products_part (const gt_oz_work *w, size_t k0, size_t k1,
                                 int accumulate, cudaStream_t s);
cudaError_t gt_oz_combine (const gt_oz_work *w, float *C, size_t ldc,
                           cudaStream_t s);
/* The products and the combine of C's rows [r0, r1) alone (r0 a multiple
   of GT_OZ_TILE_M; r1 too, or m; an empty block does nothing): C's rows
   out block by block as they are done (gt_gemm_args.rows_out).  Each
   block's residues and values are the whole product's, bit for bit.  */
cudaError_t gt_oz_products_rows (const gt_oz_work *w, size_t r0, size_t r1,
                                 cudaStream_t s);
cudaError_t gt_oz_combine_rows (const gt_oz_work *w, float *C, size_t ldc,
                                size_t r0, size_t r1, cudaStream_t s);
/* The combine of a piece of k: the sums so far (sums_in, NULL: none)
   added, and the total left in sums_out (m x n doubles, leading
   dimension m; may be sums_in), or, where sums_out is NULL, rounded once
   into C (the last piece).  */
cudaError_t gt_oz_combine_sums (const gt_oz_work *w, const double *sums_in,
                                double *sums_out, float *C, size_t ldc,
                                cudaStream_t s);

/* Shared memory the products ask for per block; gt_oz_forget: after a
   device reset (the kernel's attribute is set again).  */
size_t gt_oz_smem_bytes (void);
void gt_oz_forget (void);

/* All four stages with w->moduli as it is (the scan's choice is not read:
   the benchmark's way to force a number of moduli).  */
cudaError_t gt_oz_run (const gt_oz_work *w, const float *A, size_t lda,
                       const float *B, size_t ldb, float *C, size_t ldc,
                       cudaStream_t s);

/* The INT8 product alone, for the benchmark against cuBLAS: C (int32,
   ldc, column-major m x n) = A^T B with A k x m and B k x n, both K-major
   int8 with leading dimension kp (a multiple of 128, zero past k), m a
   multiple of 256 and n of 128.  */
cudaError_t gt_oz_int8_gemm (const int8_t *At, const int8_t *Bt, int32_t *C,
                             size_t ldc, size_t m, size_t n, size_t kp,
                             cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
