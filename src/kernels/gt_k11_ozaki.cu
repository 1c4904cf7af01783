/* gt_k11_ozaki.cu -- kernel 11: single products on the INT8
   tensor cores by residues (see gt_k11_ozaki.h for the scheme).  Four
   stages: scan (row and column norms), slice (scaled integers' residues,
   A transposed), products (one INT8 wgmma GEMM per modulus, reduced mod p
   in its epilogue), combine (CRT in double, scaled back).  sm_90a only:
   wgmma and TMA.  */

#include <cuda.h>
#include <cudaTypedefs.h>
#include <math.h>
#include "gt_k11_ozaki.h"
#include "gt_plan.h"   /* gt_device_props_current */

/* Pairwise coprime; N moduli are the first N.  One list for the host,
   the scan's choice on the device and the epilogues' constant moduli.  */
static constexpr int oz_moduli[GT_OZ_MAX_MODULI] =
  { 256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217 };
__constant__ int oz_moduli_dev[GT_OZ_MAX_MODULI] =
  { oz_moduli[0], oz_moduli[1], oz_moduli[2], oz_moduli[3], oz_moduli[4],
    oz_moduli[5], oz_moduli[6], oz_moduli[7], oz_moduli[8], oz_moduli[9],
    oz_moduli[10], oz_moduli[11] };

/* 2^e as a double, for -1022 <= e <= 1023 (row and column scales stay
   within a few hundred).  */
__device__ __forceinline__ double
oz_pow2 (int e)
{
  return __longlong_as_double ((long long) (1023 + e) << 52);
}

#define OZ_STAGES 4
#define OZ_THREADS 384   /* one producer warpgroup, two consumers */
#define OZ_GROUP 8       /* columns of tiles per band (rasterization) */
#define OZ_STAGE_BYTES ((GT_OZ_TILE_M + GT_OZ_TILE_N) * GT_OZ_TILE_K)
/* the stages, the epilogue's staging, the stages' barriers, then the
   ring of tile numbers (two and their two barriers each) */
#define OZ_RING 2
/* Each consumer's residues of one tile (64 columns by 256 rows of C) go
   out through shared memory in two halves of 128 rows: rows of 128 bytes
   padded to 144, so that the two-byte stores of a warp fall in 32 banks
   and each row leaves as eight 16-byte stores along a column of C.  */
#define OZ_EPI_ROW 144
#define OZ_EPI_BYTES (2 * 64 * OZ_EPI_ROW)
static_assert (OZ_EPI_ROW % 16 == 0 && OZ_EPI_ROW >= 128,
               "a staged row holds 128 bytes, read 16 at a time");
#define OZ_SMEM_BYTES (OZ_STAGES * OZ_STAGE_BYTES + OZ_EPI_BYTES + 1024 \
                       + 2 * OZ_STAGES * 8 + 2 * OZ_RING * 8 + OZ_RING * 4)
static_assert (GT_OZ_TILE_K == 128, "one 128-byte swizzle row per stage");
static_assert (GT_OZ_TILE_N == 128, "two consumer warpgroups of 64 rows");
static_assert (GT_OZ_TILE_M == 256, "wgmma m64n256k32");

static size_t
round_up (size_t x, size_t to)
{
  return (x + to - 1) / to * to;
}

static size_t
carve (size_t *at, size_t bytes)
{
  const size_t here = *at;
  *at = round_up (here + bytes, 1024);
  return here;
}

/* After B's column and row sums: its Inf/NaN flag, the three totals of
   oz_choose, its count of blocks done and the products' tile counter, a
   double's room each.  After A's sums: its Inf/NaN flag.  */
#define OZ_B_SUMS_EXTRA 6
#define OZ_A_SUMS_EXTRA 1

/* A's part of the scratch (its sums, exponents and planes) depends on m
   and k alone (its planes are sized for at least GT_OZ_MAX_USED moduli):
   the panels of one product, which differ in n, find it where the
   previous panel left it (gt_oz_scan_kept, gt_oz_slice_chosen's a_have).
   B's part follows, then the planes of B and C.  */
static size_t
a_part_layout (gt_oz_work *w, int moduli, size_t m, size_t k, char *p)
{
  const int a_moduli = moduli > GT_OZ_MAX_USED ? moduli : GT_OZ_MAX_USED;
  size_t at = 0;
  w->a_sums_bytes = (m + k + OZ_A_SUMS_EXTRA) * sizeof (double);
  const size_t as = carve (&at, w->a_sums_bytes);
  const size_t ae = carve (&at, m * sizeof (int));
  const size_t af = carve (&at, (m + 1) * sizeof (unsigned));
  const size_t a = carve (&at, a_moduli * round_up (m, GT_OZ_TILE_M)
                               * round_up (k, GT_OZ_TILE_K));
  double *da = (double *) (p ? p + as : NULL);
  w->a_sums = da;
  w->a_sumsq = da;
  w->a_col_sumsq = da ? da + m : NULL;
  w->a_bad = (unsigned *) (da ? da + m + k : NULL);
  w->a_exp = (int *) (p ? p + ae : NULL);
  w->a_fix = (unsigned *) (p ? p + af : NULL);
  w->a_planes = (int8_t *) (p ? p + a : NULL);
  return at;
}

extern "C" size_t
gt_oz_a_part_bytes (int moduli, size_t m, size_t k)
{
  gt_oz_work w;
  return a_part_layout (&w, moduli, m, k, NULL);
}

/* B's scan part: its sums and the choice, which its scan makes, and its
   exponents, which its slices make (B's and C's planes apart from it:
   Gauss's three products each scan into a part of their own before any
   of them is sliced).  */
static size_t
scan_part_layout (gt_oz_work *w, size_t n, size_t k, char *p)
{
  size_t at = 0;
  w->b_sums_bytes = (n + k + OZ_B_SUMS_EXTRA) * sizeof (double);
  const size_t bs = carve (&at, w->b_sums_bytes);
  const size_t be = carve (&at, n * sizeof (int));
  const size_t ch = carve (&at, 2 * sizeof (int) + sizeof (double));
  double *db = (double *) (p ? p + bs : NULL);
  w->b_sums = db;
  w->b_sumsq = db;
  w->b_row_sumsq = db ? db + n : NULL;
  w->b_bad = (unsigned *) (db ? db + n + k : NULL);
  w->totals = db ? db + n + k + 1 : NULL;
  w->arrived = (unsigned *) (db ? db + n + k + 4 : NULL);
  w->next_tile = (unsigned *) (db ? db + n + k + 5 : NULL);
  w->b_exp = (int *) (p ? p + be : NULL);
  w->choice = (int *) (p ? p + ch : NULL);
  w->ratio = (double *) (p ? p + ch + 8 : NULL);
  return at;
}

extern "C" size_t
gt_oz_scan_part_bytes (size_t n, size_t k)
{
  gt_oz_work w;
  return scan_part_layout (&w, n, k, NULL);
}

extern "C" void
gt_oz_layout_split (gt_oz_work *w, int moduli, size_t m, size_t n, size_t k,
                    void *a_base, void *scan_base, void *planes_base)
{
  w->moduli = moduli;
  w->m = m;  w->n = n;  w->k = k;
  w->mp = round_up (m, GT_OZ_TILE_M);
  w->np = round_up (n, GT_OZ_TILE_N);
  w->kp = round_up (k, GT_OZ_TILE_K);
  w->ldr = round_up (m, 16);
  const size_t a_bytes = a_part_layout (w, moduli, m, k, (char *) a_base);
  const size_t scan_bytes = scan_part_layout (w, n, k, (char *) scan_base);
  /* the scan's results stay where they are when the layout is made again
     for the number of moduli the scan chose (up to GT_OZ_MAX_USED: A's
     planes have room for that many) */
  size_t at = 0;
  const size_t b = carve (&at, moduli * w->np * w->kp);
  const size_t c = carve (&at, moduli * w->ldr * n);
  w->bytes = a_bytes + scan_bytes + at;
  char *p = (char *) planes_base;
  w->b_planes = (int8_t *) (p ? p + b : NULL);
  w->c_planes = (uint8_t *) (p ? p + c : NULL);
}

extern "C" void
gt_oz_layout (gt_oz_work *w, int moduli, size_t m, size_t n, size_t k,
              void *base)
{
  char *p = (char *) base;
  const size_t a = gt_oz_a_part_bytes (moduli, m, k);
  const size_t scan = gt_oz_scan_part_bytes (n, k);
  gt_oz_layout_split (w, moduli, m, n, k, p, p ? p + a : NULL,
                      p ? p + a + scan : NULL);
}

/* log2 of the product of the first N moduli.  */
static double
log2_modulus (int moduli)
{
  double l = 0;
  for (int i = 0; i < moduli; i++)
    l += log2 ((double) oz_moduli[i]);
  return l;
}

/* |A'B'(i,j)| <= ||A'(i,:)|| ||B'(:,j)|| <= 2^(2 gamma) must stay below
   M/2; the 2^-0.01 keeps the rounding of log2 on the safe side.  */
extern "C" double
gt_oz_gamma (int moduli)
{
  return 0.5 * (log2_modulus (moduli) - 1.0) - 0.01;
}

/* ---- scan: sums of squares of every row and column of A and B -------- */

#define SCAN_THREADS 256
#define SCAN_RPT 4        /* rows per thread, SCAN_THREADS apart */
#define SCAN_CHUNK 8      /* columns loaded together */
#define SCAN_BLOCKS 1024  /* about as many blocks as fill every SM a few
                             times over */

/* X (rows x cols, column-major): each thread SCAN_RPT rows over its
   block's columns, SCAN_RPT * SCAN_CHUNK loads in flight.  A column's
   sum of the thread's rows is added across the warp by shuffles (once per
   SCAN_RPT rows: the shuffles, not the loads, bounded the scan with one
   row per thread), across warps in shared memory, then one atomic per
   column per block and one per row per block.  A row's sum is Inf or NaN
   where the row holds one.  */
__global__ void __launch_bounds__ (SCAN_THREADS)
oz_scan (const float *X, size_t ld, size_t rows, size_t cols,
         size_t cols_per_block, double *row_sumsq, double *col_sumsq,
         unsigned *bad)
{
  __shared__ double part[SCAN_THREADS / 32][SCAN_CHUNK];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const size_t r0 = blockIdx.x * (size_t) (SCAN_THREADS * SCAN_RPT)
                    + threadIdx.x;
  const size_t c_begin = blockIdx.y * cols_per_block;
  const size_t c_end = min (cols, c_begin + cols_per_block);
  double s[SCAN_RPT];
#pragma unroll
  for (int q = 0; q < SCAN_RPT; q++)
    s[q] = 0;
  for (size_t c0 = c_begin; c0 < c_end; c0 += SCAN_CHUNK)
    {
      float v[SCAN_RPT][SCAN_CHUNK];
#pragma unroll
      for (int q = 0; q < SCAN_RPT; q++)
#pragma unroll
        for (int c = 0; c < SCAN_CHUNK; c++)
          {
            const size_t r = r0 + q * SCAN_THREADS;
            v[q][c] = r < rows && c0 + c < c_end ? X[r + (c0 + c) * ld]
                                                  : 0.0f;
          }
#pragma unroll
      for (int c = 0; c < SCAN_CHUNK; c++)
        {
          double col = 0;
#pragma unroll
          for (int q = 0; q < SCAN_RPT; q++)
            {
              const double x2 = (double) v[q][c] * v[q][c];
              s[q] += x2;
              col += x2;
            }
          for (int o = 16; o > 0; o /= 2)
            col += __shfl_down_sync (0xffffffffu, col, o);
          if (lane == 0)
            part[warp][c] = col;
        }
      __syncthreads ();
      if (threadIdx.x < SCAN_CHUNK && c0 + threadIdx.x < c_end)
        {
          double t = 0;
          for (int w = 0; w < SCAN_THREADS / 32; w++)
            t += part[w][threadIdx.x];
          atomicAdd (&col_sumsq[c0 + threadIdx.x], t);
        }
      __syncthreads ();
    }
  unsigned nonfinite = 0;
#pragma unroll
  for (int q = 0; q < SCAN_RPT; q++)
    {
      const size_t r = r0 + q * SCAN_THREADS;
      if (r < rows)
        {
          nonfinite |= !isfinite (s[q]);
          atomicAdd (&row_sumsq[r], s[q]);
        }
    }
  if (__any_sync (0xffffffffu, nonfinite) && lane == 0)
    atomicOr (bad, 1u);
}

static void
oz_scan_launch (const float *X, size_t ld, size_t rows, size_t cols,
                double *row_sumsq, double *col_sumsq, unsigned *bad,
                cudaStream_t s)
{
  if (rows == 0 || cols == 0)
    return;
  const size_t gx = (rows + SCAN_THREADS * SCAN_RPT - 1)
                    / (SCAN_THREADS * SCAN_RPT);
  const size_t chunks = (cols + SCAN_CHUNK - 1) / SCAN_CHUNK;
  size_t gy = SCAN_BLOCKS / gx;
  gy = gy < 1 ? 1 : gy > chunks ? chunks : gy;
  const size_t per_block = (chunks + gy - 1) / gy * SCAN_CHUNK;
  gy = (cols + per_block - 1) / per_block;
  oz_scan<<<dim3 ((unsigned) gx, (unsigned) gy), SCAN_THREADS, 0, s>>> (
    X, ld, rows, cols, per_block, row_sumsq, col_sumsq, bad);
}

/* Rounding each scaled entry to an integer errs by at most 1/2 in units
   where its row's (column's) norm is 2^gamma; as independent uniform
   errors they give ||E||_F ~ sqrt(2/12) 2^-gamma ||A||_F ||B||_F.  SGEMM
   rounds at least each product a(i,h) b(h,j) (its sums only add), so its
   error is at least ~ u/sqrt(3) sqrt(sum_h ||A(:,h)||^2 ||B(h,:)||^2)
   with u = 2^-24.  N moduli are enough where the first is at most half
   the second; the fewest such N from GT_OZ_MIN_MODULI to GT_OZ_MAX_USED
   is chosen, 0 where none is (or where A or B holds Inf or NaN).  */
#define CHOOSE_THREADS 256
#define CHOOSE_BLOCKS 264

/* x summed over the block, in thread 0.  */
__device__ __forceinline__ double
oz_block_sum (double x, double *part)
{
  for (int o = 16; o > 0; o /= 2)
    x += __shfl_down_sync (0xffffffffu, x, o);
  __syncthreads ();
  if (threadIdx.x % 32 == 0)
    part[threadIdx.x / 32] = x;
  __syncthreads ();
  x = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < CHOOSE_THREADS / 32; w++)
      x += part[w];
  return x;
}

/* Many blocks sum the three totals (one block alone took 50 us at
   k = 100000, waiting on each load); the last block to finish chooses.  */
__global__ void __launch_bounds__ (CHOOSE_THREADS)
oz_choose (gt_oz_work w, double g7)
{
  __shared__ double part[CHOOSE_THREADS / 32];
  __shared__ int last;
  double a = 0, b = 0, x = 0;
  const size_t first = blockIdx.x * (size_t) CHOOSE_THREADS + threadIdx.x;
  const size_t stride = gridDim.x * (size_t) CHOOSE_THREADS;
  for (size_t i = first; i < w.m; i += stride)
    a += w.a_sumsq[i];
  for (size_t j = first; j < w.n; j += stride)
    b += w.b_sumsq[j];
  for (size_t h = first; h < w.k; h += stride)
    x += w.a_col_sumsq[h] * w.b_row_sumsq[h];
  a = oz_block_sum (a, part);
  b = oz_block_sum (b, part);
  x = oz_block_sum (x, part);
  if (threadIdx.x == 0)
    {
      atomicAdd (&w.totals[0], a);
      atomicAdd (&w.totals[1], b);
      atomicAdd (&w.totals[2], x);
      __threadfence ();
      last = atomicAdd (w.arrived, 1u) == gridDim.x - 1;
    }
  __syncthreads ();
  if (!last || threadIdx.x != 0)
    return;
  __threadfence ();
  a = atomicAdd (&w.totals[0], 0.0);
  b = atomicAdd (&w.totals[1], 0.0);
  x = atomicAdd (&w.totals[2], 0.0);
  const double floor_sgemm = exp2 (-24.0) / sqrt (3.0) * sqrt (x);
  const double est7 = 0.41 * exp2 (-g7) * sqrt (a) * sqrt (b);
  /* each modulus past 7 adds about log2(p)/2 bits to gamma */
  int n = 0;
  for (int c = GT_OZ_MIN_MODULI; c <= GT_OZ_MAX_USED && !n; c++)
    {
      double est = est7;
      for (int l = GT_OZ_MIN_MODULI; l < c; l++)
        est *= rsqrt ((double) oz_moduli_dev[l]);
      if (est <= 0.5 * floor_sgemm)
        n = c;
    }
  w.choice[0] = *w.a_bad || *w.b_bad ? 0 : n;
  w.choice[1] = 0;
  w.ratio[0] = floor_sgemm > 0 ? est7 / floor_sgemm : 0;
}

extern "C" int
gt_oz_moduli_for (double ratio7)
{
  for (int c = GT_OZ_MIN_MODULI; c <= GT_OZ_MAX_USED; c++)
    {
      double est = ratio7;
      for (int l = GT_OZ_MIN_MODULI; l < c; l++)
        est /= sqrt ((double) oz_moduli[l]);
      if (est <= 0.5)
        return c;
    }
  return 0;
}

extern "C" cudaError_t
gt_oz_scan_kept (const gt_oz_work *w, const float *B, size_t ldb,
                 cudaStream_t s)
{
  cudaMemsetAsync (w->b_sums, 0, w->b_sums_bytes, s);
  oz_scan_launch (B, ldb, w->k, w->n, w->b_row_sumsq, w->b_sumsq, w->b_bad,
                  s);
  size_t most = w->m > w->n ? w->m : w->n;
  most = most > w->k ? most : w->k;
  size_t blocks = (most + 4 * CHOOSE_THREADS - 1) / (4 * CHOOSE_THREADS);
  blocks = blocks > CHOOSE_BLOCKS ? CHOOSE_BLOCKS : blocks;
  oz_choose<<<(unsigned) blocks, CHOOSE_THREADS, 0, s>>> (
    *w, gt_oz_gamma (GT_OZ_MIN_MODULI));
  return cudaGetLastError ();
}

extern "C" cudaError_t
gt_oz_scan (const gt_oz_work *w, const float *A, size_t lda, const float *B,
            size_t ldb, cudaStream_t s)
{
  cudaMemsetAsync (w->a_sums, 0, w->a_sums_bytes, s);
  oz_scan_launch (A, lda, w->m, w->k, w->a_sumsq, w->a_col_sumsq, w->a_bad,
                  s);
  return gt_oz_scan_kept (w, B, ldb, s);
}

/* ---- slice: residues of the scaled integers --------------------------- */

typedef struct
{
  int moduli;          /* N, or 0: the scan's choice, read on the device */
  const int *choice;
  int a_have;          /* the moduli A's planes hold already (0: none):
                          where the choice is that many, A is not sliced */
  int a_guessed;       /* A's planes were sliced on guessed scales: the
                          rows whose scale proves otherwise are redone */
  float p[GT_OZ_MAX_MODULI];
  double inv_p[GT_OZ_MAX_MODULI];
  double room[GT_OZ_MAX_MODULI + 1]; /* of N moduli: 2^gamma - sqrt(k)/2,
                                        room for the norm before rounding
                                        each entry to an integer */
} oz_slice_consts;

/* The number of moduli the slices are for: as given, or as the scan
   chose (0: it declined, and nothing is sliced).  */
__device__ __forceinline__ int
oz_slice_moduli (const oz_slice_consts &c)
{
  return c.moduli ? c.moduli : *c.choice;
}

/* The scale of a row (column) with this sum of squares: the largest e with
   2^e ||x|| <= room, so that rounding adds at most sqrt(k)/2 to the norm.
   0 for a zero row.  */
__device__ int
oz_exponent (double sumsq, double room)
{
  if (!(sumsq > 0) || isinf (sumsq))   /* zero, NaN, Inf: never used */
    return 0;
  const double norm = sqrt (sumsq);
  int e = (int) floor (log2 (room / norm));
  while (ldexp (norm, e) > room)
    e--;
  return e;
}

/* 1.5 * 2^52: added to an integer x of |x| < 2^51, a double whose low
   word is x (two's complement); rounds to an integer where added to any
   |x| < 2^51.  It stands for rint and the conversions to and from integers,
   which run at a quarter of the FP64 rate.  */
#define OZ_MAGIC 6755399441055744.0

/* v mod p in [-p/2, p/2] as int8 (p/2 = 128 for p = 256 wraps to -128,
   the same residue): v - p rint(v/p), exact for integers |v| < 2^51.  */
__device__ __forceinline__ int8_t
oz_residue (double v, double p, double inv_p)
{
  const double q = fma (v, inv_p, OZ_MAGIC) - OZ_MAGIC;
  return (int8_t) __double2loint (fma (-p, q, v) + OZ_MAGIC);
}

/* Four neighbouring scaled values along k, rounded to integers: as
   doubles, and as the low words of their sums with OZ_MAGIC (the
   integers' low 32 bits).  */
typedef struct
{
  double v[4];
  int lo[4];
} oz_four;

/* x * scale rounded, into f's slot q.  */
__device__ __forceinline__ void
oz_scaled (oz_four &f, int q, float x, double scale)
{
  const double s = (double) x * scale + OZ_MAGIC;
  f.lo[q] = __double2loint (s);
  f.v[q] = s - OZ_MAGIC;
}

static_assert (oz_moduli[0] == 256, "modulus 0's residues are low bytes");

/* Residues mod modulus l of four scaled values.  Modulus 0 is 256, whose
   residue in [-128, 127] is the integer's low byte (oz_residue's 128
   wraps to the same -128).  */
__device__ __forceinline__ char4
oz_residues4 (const oz_four &f, const oz_slice_consts *c, int l)
{
  char4 r;
  if (l == 0)
    {
      r.x = (int8_t) f.lo[0];
      r.y = (int8_t) f.lo[1];
      r.z = (int8_t) f.lo[2];
      r.w = (int8_t) f.lo[3];
      return r;
    }
  r.x = oz_residue (f.v[0], c->p[l], c->inv_p[l]);
  r.y = oz_residue (f.v[1], c->p[l], c->inv_p[l]);
  r.z = oz_residue (f.v[2], c->p[l], c->inv_p[l]);
  r.w = oz_residue (f.v[3], c->p[l], c->inv_p[l]);
  return r;
}

/* The scales of A's rows and B's columns for the chosen moduli, each
   once (2^a_exp[i], 2^b_exp[j]; the slices read them): A's where its
   planes are not the ones kept (c.a_have).  Apart from the slices, whose
   blocks would otherwise each work out their rows' scales while the
   others wait.  */
__global__ void __launch_bounds__ (256)
oz_exponents (gt_oz_work w, oz_slice_consts c)
{
  const int nm = oz_slice_moduli (c);
  const size_t t = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
  if (nm == 0)
    return;
  if (t < w.m)
    {
      if (nm != c.a_have)
        w.a_exp[t] = oz_exponent (w.a_sumsq[t], c.room[nm]);
      else if (c.a_guessed)
        {
          const int e = oz_exponent (w.a_sumsq[t], c.room[nm]);
          if (e != w.a_exp[t])
            {
              w.a_exp[t] = e;
              w.a_fix[1 + atomicAdd (&w.a_fix[0], 1u)] = (unsigned) t;
            }
        }
    }
  else if (t - w.m < w.n)
    w.b_exp[t - w.m] = oz_exponent (w.b_sumsq[t - w.m], c.room[nm]);
}

#define SLICE_I 32
#define SLICE_H 64
#define SLICE_ROW 68   /* bytes per row in shared memory: 17 words, so that
                          32 rows' words fall in 32 banks */
#define SLICE_A_THREADS 256   /* SLICE_I rows by 8 groups of four of k */
static_assert (SLICE_A_THREADS / SLICE_I * 4 * 2 == SLICE_H,
               "each thread two groups of four of k");

/* Blocks of the slices resident per SM, which bounds their registers:
   more warps to keep the loads in flight than the unrolled loops' own
   choice (64 registers, 4 blocks) leaves.  */
#define OZ_SLICE_BLOCKS 6

/* The moduli counts the slices are compiled for, their loops over the
   moduli unrolled, the moduli's constants read from fixed places (the
   scan chooses 8 or 9 for most inputs); other counts take NM = 0, the
   count read at run time.  The same arithmetic either way.  */
#define OZ_SLICE_CASES(body)                                              \
  switch (nm)                                                             \
    {                                                                     \
    case 7: body (7); break;                                              \
    case 8: body (8); break;                                              \
    case 9: body (9); break;                                              \
    case 10: body (10); break;                                            \
    default: body (0);                                                    \
    }

/* A (m x k, column-major) to planes of rows (i at i * kp), through shared
   memory so that reads run along i and writes along k.  Each thread packs
   four residues of one row into a word.  */
template <int NM>
__device__ __forceinline__ void
oz_slice_a_moduli (const float *A, size_t lda, const gt_oz_work &w,
                   const oz_slice_consts &c, int nm_run, size_t h_base,
                   int8_t (*t)[SLICE_I][SLICE_ROW])
{
  const int nm = NM ? NM : nm_run;
  const size_t i0 = blockIdx.x * (size_t) SLICE_I;
  const size_t h0 = h_base + blockIdx.y * (size_t) SLICE_H;
  const int ti = threadIdx.x % SLICE_I, th = threadIdx.x / SLICE_I;
  const size_t i = i0 + ti;
  const double scale = i < w.m ? oz_pow2 (w.a_exp[i]) : 1.0;
#pragma unroll
  for (int g = 0; g < SLICE_H / 32; g++)
    {
      const int hh = th * 4 + g * 32;
      oz_four f;
#pragma unroll
      for (int q = 0; q < 4; q++)
        {
          const size_t h = h0 + hh + q;
          oz_scaled (f, q, (i < w.m && h < w.k) ? A[i + h * lda] : 0.0f,
                     scale);
        }
#pragma unroll
      for (int l = 0; l < nm; l++)
        *(char4 *) &t[l][ti][hh] = oz_residues4 (f, &c, l);
    }
  __syncthreads ();
  const size_t plane = w.mp * w.kp;
#pragma unroll
  for (int q = threadIdx.x; q < SLICE_I * SLICE_H / 4; q += SLICE_A_THREADS)
    {
      const int row = q / (SLICE_H / 4), col = q % (SLICE_H / 4) * 4;
      int8_t *to = w.a_planes + (i0 + row) * w.kp + h0 + col;
#pragma unroll
      for (int l = 0; l < nm; l++)
        *(int *) (to + l * plane) = *(const int *) &t[l][row][col];
    }
}

/* Where more than an eighth of the rows' guessed scales were wrong (A
   ahead, gt_oz_a_guess), all of A is sliced again rather than those rows
   alone: oz_fix_rows reads a row's entries lda apart, a sector for each
   4 bytes, about 8 times the bytes of the whole slice's per row.  */
__device__ __forceinline__ int
oz_fix_all (const gt_oz_work &w, const oz_slice_consts &c)
{
  return c.a_guessed && w.a_fix[0] > w.m / 8;
}

/* Columns of A from h_base (all of them: 0).  */
__global__ void __launch_bounds__ (SLICE_A_THREADS, OZ_SLICE_BLOCKS)
oz_slice_a (const float *A, size_t lda, gt_oz_work w, oz_slice_consts c,
            size_t h_base)
{
  __shared__ __align__ (16) int8_t t[GT_OZ_MAX_MODULI][SLICE_I][SLICE_ROW];
  const int nm = oz_slice_moduli (c);
  if (nm == 0 || (nm == c.a_have && !oz_fix_all (w, c)))
    return;
#define OZ_SLICE_A(N) oz_slice_a_moduli<N> (A, lda, w, c, nm, h_base, t)
  OZ_SLICE_CASES (OZ_SLICE_A)
#undef OZ_SLICE_A
}

/* Row i of A sliced whole, along k (its entries lie lda apart: a row at
   a time, for the few rows whose guessed scale was wrong).  */
template <int NM>
__device__ __forceinline__ void
oz_fix_row_moduli (const float *A, size_t lda, const gt_oz_work &w,
                   const oz_slice_consts &c, int nm_run, size_t i)
{
  const int nm = NM ? NM : nm_run;
  const double scale = oz_pow2 (w.a_exp[i]);
  const size_t plane = w.mp * w.kp;
  for (size_t h = 4 * threadIdx.x; h < w.kp; h += 4 * blockDim.x)
    {
      oz_four f;
#pragma unroll
      for (int q = 0; q < 4; q++)
        oz_scaled (f, q, h + q < w.k ? A[i + (h + q) * lda] : 0.0f, scale);
      int8_t *to = w.a_planes + i * w.kp + h;
#pragma unroll
      for (int l = 0; l < nm; l++)
        *(char4 *) (to + l * plane) = oz_residues4 (f, &c, l);
    }
}

/* The rows oz_exponents listed (a_fix), where A's planes were kept.  */
__global__ void __launch_bounds__ (SLICE_A_THREADS)
oz_fix_rows (const float *A, size_t lda, gt_oz_work w, oz_slice_consts c)
{
  const int nm = oz_slice_moduli (c);
  if (nm == 0 || nm != c.a_have || oz_fix_all (w, c))
    return;
  const unsigned count = w.a_fix[0];
  for (unsigned r = blockIdx.x; r < count; r += gridDim.x)
    {
      const size_t i = w.a_fix[1 + r];
#define OZ_FIX_ROW(N) oz_fix_row_moduli<N> (A, lda, w, c, nm, i)
      OZ_SLICE_CASES (OZ_FIX_ROW)
#undef OZ_FIX_ROW
    }
}

#define SLICE_B_COLS 8     /* a warp per column */
#define SLICE_B_K 1024     /* of k per warp */

/* B (k x n) to planes of columns (j at j * kp): a warp per column and
   SLICE_B_K of k, four of k per lane at a time.  */
template <int NM>
__device__ __forceinline__ void
oz_slice_b_moduli (const float *B, size_t ldb, const gt_oz_work &w,
                   const oz_slice_consts &c, int nm_run, size_t j)
{
  const int nm = NM ? NM : nm_run;
  const double scale = j < w.n ? oz_pow2 (w.b_exp[j]) : 1.0;
  const size_t h1 = (blockIdx.y + 1) * (size_t) SLICE_B_K;
  const size_t end = h1 < w.kp ? h1 : w.kp, plane = w.np * w.kp;
  for (size_t h = blockIdx.y * (size_t) SLICE_B_K + 4 * (threadIdx.x % 32);
       h < end; h += 4 * 32)
    {
      oz_four f;
#pragma unroll
      for (int q = 0; q < 4; q++)
        oz_scaled (f, q, (j < w.n && h + q < w.k) ? B[h + q + j * ldb] : 0.0f,
                   scale);
      int8_t *to = w.b_planes + j * w.kp + h;
#pragma unroll
      for (int l = 0; l < nm; l++)
        *(char4 *) (to + l * plane) = oz_residues4 (f, &c, l);
    }
}

__global__ void __launch_bounds__ (32 * SLICE_B_COLS, OZ_SLICE_BLOCKS)
oz_slice_b (const float *B, size_t ldb, gt_oz_work w, oz_slice_consts c)
{
  const size_t j = blockIdx.x * (size_t) SLICE_B_COLS + threadIdx.x / 32;
  const int nm = oz_slice_moduli (c);
  if (nm == 0 || j >= w.np)
    return;
#define OZ_SLICE_B(N) oz_slice_b_moduli<N> (B, ldb, w, c, nm, j)
  OZ_SLICE_CASES (OZ_SLICE_B)
#undef OZ_SLICE_B
}

static oz_slice_consts
oz_consts (const gt_oz_work *w, int moduli, int a_have, int a_guessed)
{
  oz_slice_consts c;
  c.moduli = moduli;
  c.choice = w->choice;
  c.a_have = a_have;
  c.a_guessed = a_guessed;
  for (int l = 0; l < GT_OZ_MAX_MODULI; l++)
    {
      c.p[l] = (float) oz_moduli[l];
      c.inv_p[l] = 1.0 / oz_moduli[l];
    }
  c.room[0] = 0;
  for (int n = 1; n <= GT_OZ_MAX_MODULI; n++)
    c.room[n] = exp2 (gt_oz_gamma (n)) - 0.5 * sqrt ((double) w->k);
  return c;
}

/* Blocks of oz_fix_rows: each redoes one row at a time.  */
#define FIX_BLOCKS 512

static cudaError_t
oz_slice_launch (const gt_oz_work *w, int moduli, int a_have, int a_guessed,
                 const float *A, size_t lda, const float *B, size_t ldb,
                 cudaStream_t s)
{
  const oz_slice_consts c = oz_consts (w, moduli, a_have, a_guessed);
  if (a_guessed)
    cudaMemsetAsync (w->a_fix, 0, sizeof (unsigned), s);
  const size_t scales = w->m + w->n;
  oz_exponents<<<(unsigned) ((scales + 255) / 256), 256, 0, s>>> (*w, c);
  const dim3 ga ((unsigned) (w->mp / SLICE_I), (unsigned) (w->kp / SLICE_H));
  oz_slice_a<<<ga, SLICE_A_THREADS, 0, s>>> (A, lda, *w, c, 0);
  if (a_guessed)
    oz_fix_rows<<<(unsigned) (w->m < FIX_BLOCKS ? w->m : FIX_BLOCKS),
                  SLICE_A_THREADS, 0, s>>> (A, lda, *w, c);
  static_assert (GT_OZ_TILE_N % SLICE_B_COLS == 0, "whole blocks of columns");
  const dim3 gb ((unsigned) (w->np / SLICE_B_COLS),
                 (unsigned) ((w->kp + SLICE_B_K - 1) / SLICE_B_K));
  oz_slice_b<<<gb, 32 * SLICE_B_COLS, 0, s>>> (B, ldb, *w, c);
  return cudaGetLastError ();
}

extern "C" cudaError_t
gt_oz_slice (const gt_oz_work *w, const float *A, size_t lda, const float *B,
             size_t ldb, cudaStream_t s)
{
  return oz_slice_launch (w, w->moduli, 0, 0, A, lda, B, ldb, s);
}

extern "C" cudaError_t
gt_oz_slice_chosen (const gt_oz_work *w, const float *A, size_t lda,
                    const float *B, size_t ldb, int a_have, int a_guessed,
                    cudaStream_t s)
{
  return oz_slice_launch (w, 0, a_have, a_guessed && a_have, A, lda, B, ldb,
                          s);
}

/* ---- A ahead of its panels (gt_oz_a_scan_part and the two after it) -- */

extern "C" cudaError_t
gt_oz_a_scan_part (const gt_oz_work *w, const float *A, size_t lda,
                   size_t k0, size_t k1, int first, cudaStream_t s)
{
  if (k0 > k1 || k1 > w->k)
    return cudaErrorInvalidValue;
  if (first)
    cudaMemsetAsync (w->a_sums, 0, w->a_sums_bytes, s);
  oz_scan_launch (A + k0 * lda, lda, w->m, k1 - k0, w->a_sumsq,
                  w->a_col_sumsq + k0, w->a_bad, s);
  return cudaGetLastError ();
}

__global__ void __launch_bounds__ (256)
oz_guess (gt_oz_work w, double sumsq_scale, double room)
{
  const size_t t = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
  if (t < w.m)
    w.a_exp[t] = oz_exponent (w.a_sumsq[t] * sumsq_scale, room);
}

extern "C" cudaError_t
gt_oz_a_guess (const gt_oz_work *w, int moduli, double sumsq_scale,
               cudaStream_t s)
{
  if (moduli < 1 || moduli > GT_OZ_MAX_USED)
    return cudaErrorInvalidValue;
  if (w->m == 0)
    return cudaSuccess;
  const oz_slice_consts c = oz_consts (w, moduli, 0, 0);
  oz_guess<<<(unsigned) ((w->m + 255) / 256), 256, 0, s>>> (
    *w, sumsq_scale, c.room[moduli]);
  return cudaGetLastError ();
}

extern "C" cudaError_t
gt_oz_a_slice_part (const gt_oz_work *w, int moduli, const float *A,
                    size_t lda, size_t k0, size_t k1, cudaStream_t s)
{
  static_assert (GT_OZ_A_PART % SLICE_H == 0, "parts of whole blocks");
  static_assert (GT_OZ_TILE_K % SLICE_H == 0, "the padding whole blocks");
  /* the last part also writes the padding of k with zeros */
  const size_t h1 = k1 == w->k ? w->kp : k1;
  if (moduli < 1 || moduli > GT_OZ_MAX_USED || k0 % GT_OZ_A_PART
      || k0 >= h1 || h1 > w->kp || (h1 - k0) % SLICE_H)
    return cudaErrorInvalidValue;
  const oz_slice_consts c = oz_consts (w, moduli, 0, 0);
  const dim3 ga ((unsigned) (w->mp / SLICE_I),
                 (unsigned) ((h1 - k0) / SLICE_H));
  oz_slice_a<<<ga, SLICE_A_THREADS, 0, s>>> (A, lda, *w, c, k0);
  return cudaGetLastError ();
}

/* ---- combine: the CRT, scaled back ------------------------------------ */

typedef struct
{
  int moduli;
  double q[GT_OZ_MAX_MODULI];  /* (M/p) ((M/p)^-1 mod p), rounded */
  double M, inv_M;
} oz_crt_consts;


/* A byte as a double without a conversion instruction.  */
__device__ __forceinline__ double
oz_byte (unsigned char b)
{
  return __hiloint2double (0x43300000, b) - 4503599627370496.0;   /* 2^52 */
}

/* Four neighbouring rows of one column per thread (ldr is a multiple of
   16, so their residues are one 4-byte word per plane).  A piece of k
   (sums_in, sums_out: m x n doubles, leading dimension m, perhaps the
   same) adds the sums so far before the one rounding to single, or
   leaves its sums there instead of writing C.  */
__global__ void __launch_bounds__ (256)
oz_combine (gt_oz_work w, oz_crt_consts c, float *C, size_t ldc,
            const double *sums_in, double *sums_out, size_t r0, size_t r1)
{
  const size_t plane = w.ldr * w.n;
  const size_t i = r0 + 4 * (blockIdx.x * (size_t) blockDim.x + threadIdx.x);
  if (i >= r1)
    return;
  const int rows = (int) min ((size_t) 4, r1 - i);
  double ea[4];
  for (int q = 0; q < 4; q++)
    ea[q] = oz_pow2 (q < rows ? -w.a_exp[i + q] : 0);
  for (size_t j = blockIdx.y; j < w.n; j += gridDim.y)
    {
      const uint8_t *r = w.c_planes + i + j * w.ldr;
      double acc[4] = { 0, 0, 0, 0 };
#pragma unroll
      for (int l = 0; l < GT_OZ_MAX_MODULI; l++)
        if (l < c.moduli)
          {
            const uchar4 x = *(const uchar4 *) (r + l * plane);
            acc[0] = fma (c.q[l], oz_byte (x.x), acc[0]);
            acc[1] = fma (c.q[l], oz_byte (x.y), acc[1]);
            acc[2] = fma (c.q[l], oz_byte (x.z), acc[2]);
            acc[3] = fma (c.q[l], oz_byte (x.w), acc[3]);
          }
      const double eb = oz_pow2 (-w.b_exp[j]);
      for (int q = 0; q < rows; q++)
        {
          const double v = fma (-c.M, rint (acc[q] * c.inv_M), acc[q]);
          const size_t e = i + q + j * w.m;
          const double t = sums_in ? fma (v * ea[q], eb, sums_in[e])
                                   : v * ea[q] * eb;
          if (sums_out)
            sums_out[e] = t;
          else
            C[i + q + j * ldc] = (float) t;
        }
    }
}

/* Rows [r0, r1) of the combine (r0 a multiple of 4: a thread's four
   rows are one word of each residue plane).  */
static cudaError_t
combine_rows (const gt_oz_work *w, const double *sums_in, double *sums_out,
              float *C, size_t ldc, size_t r0, size_t r1, cudaStream_t s)
{
  if (r0 > r1 || r1 > w->m)
    return cudaErrorInvalidValue;
  if (r0 == r1 || w->n == 0)   /* (an empty last block too) */
    return cudaSuccess;
  if (r0 % 4)
    return cudaErrorInvalidValue;
  typedef unsigned __int128 u128;
  oz_crt_consts c;
  c.moduli = w->moduli;
  u128 M = 1;
  for (int l = 0; l < w->moduli; l++)
    M *= (u128) oz_moduli[l];
  for (int l = 0; l < w->moduli; l++)
    {
      const unsigned p = (unsigned) oz_moduli[l];
      const u128 Mp = M / p;
      const unsigned r = (unsigned) (Mp % p);
      unsigned inv = 1;
      while ((r * inv) % p != 1)
        inv++;
      c.q[l] = (double) ((Mp * inv) % M);
    }
  c.M = (double) M;
  c.inv_M = 1.0 / c.M;
  const dim3 grid ((unsigned) ((r1 - r0 + 1023) / 1024),
                   (unsigned) (w->n < 8192 ? w->n : 8192));
  oz_combine<<<grid, 256, 0, s>>> (*w, c, C, ldc, sums_in, sums_out, r0, r1);
  return cudaGetLastError ();
}

extern "C" cudaError_t
gt_oz_combine_sums (const gt_oz_work *w, const double *sums_in,
                    double *sums_out, float *C, size_t ldc, cudaStream_t s)
{
  return combine_rows (w, sums_in, sums_out, C, ldc, 0, w->m, s);
}

extern "C" cudaError_t
gt_oz_combine_rows (const gt_oz_work *w, float *C, size_t ldc, size_t r0,
                    size_t r1, cudaStream_t s)
{
  return combine_rows (w, NULL, NULL, C, ldc, r0, r1, s);
}

extern "C" cudaError_t
gt_oz_combine (const gt_oz_work *w, float *C, size_t ldc, cudaStream_t s)
{
  return gt_oz_combine_sums (w, NULL, NULL, C, ldc, s);
}

/* ---- products: INT8 wgmma, TMA, one producer and two consumers -------- */

/* wgmma, setmaxnreg and TMA exist on sm_90a only: other targets build the
   kernel empty, and gt_k11_usable keeps it from being run there.  */
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define OZ_WGMMA 1
#else
#define OZ_WGMMA 0
#endif

#if OZ_WGMMA
__device__ __forceinline__ uint32_t
oz_smem (const void *p)
{
  return (uint32_t) __cvta_generic_to_shared (p);
}

/* wgmma's view of a K-major tile of 128-byte rows, swizzled by 128 bytes
   as TMA wrote it: 8-row groups 1024 bytes apart.  */
__device__ __forceinline__ uint64_t
oz_desc (const void *p)
{
  return (uint64_t) ((oz_smem (p) & 0x3FFFF) >> 4) | (1ull << 16)
         | ((uint64_t) (1024 >> 4) << 32) | (1ull << 62);
}

__device__ __forceinline__ void
oz_mbar_init (uint64_t *b, unsigned count)
{
  asm volatile ("mbarrier.init.shared::cta.b64 [%0], %1;"
                :: "r" (oz_smem (b)), "r" (count) : "memory");
}

__device__ __forceinline__ void
oz_mbar_expect (uint64_t *b, unsigned bytes)
{
  asm volatile ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                :: "r" (oz_smem (b)), "r" (bytes) : "memory");
}

__device__ __forceinline__ void
oz_mbar_arrive (uint64_t *b)
{
  asm volatile ("mbarrier.arrive.shared::cta.b64 _, [%0];"
                :: "r" (oz_smem (b)) : "memory");
}

__device__ __forceinline__ void
oz_mbar_wait (uint64_t *b, unsigned parity)
{
  asm volatile ("{\n.reg .pred P1;\nWAIT_%=:\n"
                "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
                "@P1 bra.uni DONE_%=;\nbra.uni WAIT_%=;\nDONE_%=:\n}"
                :: "r" (oz_smem (b)), "r" (parity) : "memory");
}

__device__ __forceinline__ void
oz_tma_load (void *dst, const CUtensorMap *map, uint64_t *bar, int k,
             int row)
{
  asm volatile ("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier"
                "::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
                :: "r" (oz_smem (dst)), "l" ((uint64_t) map),
                   "r" (oz_smem (bar)), "r" (k), "r" (row) : "memory");
}

#define OZ_R8(i) "+r" (d[i]), "+r" (d[i + 1]), "+r" (d[i + 2]), \
  "+r" (d[i + 3]), "+r" (d[i + 4]), "+r" (d[i + 5]), "+r" (d[i + 6]), \
  "+r" (d[i + 7])

/* d (64 x 256 of int32 over the warpgroup) += a (64 x 32) b (32 x 256)^T,
   or = where accumulate is 0.  */
__device__ __forceinline__ void
oz_wgmma (int (&d)[128], uint64_t a, uint64_t b, int accumulate)
{
  asm volatile (
    "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
    "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {"
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "
    "%30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "
    "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, "
    "%58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
    "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "
    "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, "
    "%100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "
    "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, "
    "%122, %123, %124, %125, %126, %127}, %128, %129, p;\n}"
    : OZ_R8 (0), OZ_R8 (8), OZ_R8 (16), OZ_R8 (24), OZ_R8 (32), OZ_R8 (40),
      OZ_R8 (48), OZ_R8 (56), OZ_R8 (64), OZ_R8 (72), OZ_R8 (80),
      OZ_R8 (88), OZ_R8 (96), OZ_R8 (104), OZ_R8 (112), OZ_R8 (120)
    : "l" (a), "l" (b), "r" (accumulate));
}

#endif

typedef struct
{
  uint8_t *r;          /* residue planes (c_planes), or NULL */
  size_t ldr, plane;
  int32_t *c;          /* the int32 product itself (benchmark) */
  size_t ldc;
  size_t m, n, mp, np;
  int k_tile0;         /* the first tile of k read (a part of k) */
  int k_tiles;
  int i_tile0;         /* the first tile of rows (a block of C's rows) */
  int i_tiles;         /* tiles of rows from it (0 with i_tile0 0: all,
                          mp / GT_OZ_TILE_M) */
  int accumulate;      /* residues added mod p to those in r */
  int tiles;           /* of all planes together */
  unsigned *next;      /* the tile counter, zero at launch and after */
} oz_gemm_out;

/* Tile t of a launch: its plane z and the corner (i0, j0) of C.  Tiles go
   in bands of OZ_GROUP columns of tiles, down the rows within a band: the
   tiles in flight at once then read a few rows of A's tiles and a few
   columns of B's, which stay in L2, not all of A.  */
typedef struct
{
  int z;
  size_t i0, j0;
} oz_tile;

__device__ __forceinline__ oz_tile
oz_tile_at (const oz_gemm_out &o, int t)
{
  const int tiles_i = o.i_tiles;
  const int tiles_j = (int) (o.np / GT_OZ_TILE_N);
  oz_tile r;
  r.z = t / (tiles_i * tiles_j);
  const int x = t - r.z * tiles_i * tiles_j;
  const int band = x / (OZ_GROUP * tiles_i);
  const int width = min (OZ_GROUP, tiles_j - band * OZ_GROUP);
  const int in_band = x - band * OZ_GROUP * tiles_i;
  r.i0 = (size_t) (o.i_tile0 + in_band / width) * GT_OZ_TILE_M;
  r.j0 = (size_t) (band * OZ_GROUP + in_band % width) * GT_OZ_TILE_N;
  return r;
}

#if OZ_WGMMA
/* x mod P in [0, P), P a constant: |x| < 2^31 - P (k <= GT_OZ_MAX_K), so
   x + K, K the least multiple of P from 2^31, is below 2^32 and the
   unsigned remainder (a multiply and a shift) needs no sign fix.  */
static_assert (128LL * 128 * GT_OZ_MAX_K + 256 < (1LL << 31),
               "a product's sum stays P below 2^31 (oz_mod)");

template <int P>
__device__ __forceinline__ unsigned
oz_mod (int x)
{
  constexpr unsigned K = ((1u << 31) + P - 1) / P * P;
  return ((unsigned) x + K) % P;
}

/* Four residues in [0, P) each (bytes) added mod P: with b' = P - b,
   a + b is a - b' where a >= b', else a + b, below P either way, so that
   no byte overflows (P = 256: the bytes' own wrap).  */
template <int P>
__device__ __forceinline__ unsigned
oz_add_mod4 (unsigned a, unsigned b)
{
  if (P == 256)
    return __vadd4 (a, b);
  const unsigned bp = __vsub4 (0x01010101u * P, b);
  const unsigned ge = __vcmpgeu4 (a, bp);
  return (ge & __vsub4 (a, bp)) | (~ge & __vadd4 (a, b));
}

template <int P>
__device__ __forceinline__ uint4
oz_add_mod (uint4 a, uint4 b)
{
  return make_uint4 (oz_add_mod4<P> (a.x, b.x), oz_add_mod4<P> (a.y, b.y),
                     oz_add_mod4<P> (a.z, b.z), oz_add_mod4<P> (a.w, b.w));
}

__device__ __forceinline__ void
oz_bar (int id)
{
  asm volatile ("bar.sync %0, 128;" :: "r" (id) : "memory");
}

/* Residues in [0, P) of one consumer's 64 x 256 share of a tile (P a
   constant, so that % is a multiply), through its part of shared memory
   (stage): each half of 128 rows of C written there two neighbouring
   rows at a time, as the accumulators hold them, then out along the
   columns of C 16 bytes a thread.  Bytes past m in a column's last 16
   land in its padding (ldr, a multiple of 16).  Stored straight from
   the accumulators, the pairs filled a quarter of each sector and the
   stores' address arithmetic held the tensor cores up longer.  */
template <int P>
__device__ __forceinline__ void
oz_store_residues (const int (&d)[128], const oz_gemm_out &o, size_t i0,
                   size_t j0, uint8_t *plane, uint8_t *stage, int bar)
{
  const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
  uint8_t *mine = stage + (warp * 16 + (lane >> 2)) * OZ_EPI_ROW
                  + 2 * (lane & 3);
#pragma unroll
  for (int half = 0; half < 2; half++)
    {
#pragma unroll
      for (int r = half * 64; r < half * 64 + 64; r += 2)
        *(unsigned short *) (mine + 8 * ((r >> 1) & 1) * OZ_EPI_ROW
                             + 8 * ((r >> 2) - half * 16))
          = (unsigned short) (oz_mod<P> (d[r]) | oz_mod<P> (d[r + 1]) << 8);
      oz_bar (bar);
#pragma unroll
      for (int q = 0; q < 4; q++)
        {
          const int c = t + q * 128, row = c / 8, col = c % 8 * 16;
          const size_t i = i0 + half * 128 + col, j = j0 + row;
          if (i < o.m && j < o.n)
            {
              uint4 v = *(const uint4 *) (stage + row * OZ_EPI_ROW + col);
              uint4 *at = (uint4 *) (plane + i + j * o.ldr);
              if (o.accumulate)
                v = oz_add_mod<P> (v, *at);
              *at = v;
            }
        }
      oz_bar (bar);
    }
}

__device__ __forceinline__ void
oz_store_int32 (const int (&d)[128], const oz_gemm_out &o, size_t i0,
                size_t j0)
{
  const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int r = 0; r < 128; r += 2)
    {
      const size_t j = j0 + warp * 16 + (lane >> 2) + 8 * ((r >> 1) & 1);
      const size_t i = i0 + 8 * (r >> 2) + 2 * (lane & 3);
      if (j < o.n && i < o.m)
        *(int2 *) (o.c + i + j * o.ldc) = make_int2 (d[r], d[r + 1]);
    }
}

/* Consumer cw's share: its 64 columns from j0, its part of the staging
   and its named barrier (1 or 2; 0 is __syncthreads').  */
__device__ __forceinline__ void
oz_epilogue (const int (&d)[128], const oz_gemm_out &o, int z, size_t i0,
             size_t j0, uint8_t *staging, int cw)
{
  if (!o.r)
    {
      oz_store_int32 (d, o, i0, j0);
      return;
    }
  uint8_t *plane = o.r + z * o.plane;
  uint8_t *stage = staging + cw * 64 * OZ_EPI_ROW;
  const int bar = 1 + cw;
#define OZ_STORE(l) \
  oz_store_residues<oz_moduli[l]> (d, o, i0, j0, plane, stage, bar)
  switch (z)
    {
    case 0: OZ_STORE (0); break;
    case 1: OZ_STORE (1); break;
    case 2: OZ_STORE (2); break;
    case 3: OZ_STORE (3); break;
    case 4: OZ_STORE (4); break;
    case 5: OZ_STORE (5); break;
    case 6: OZ_STORE (6); break;
    case 7: OZ_STORE (7); break;
    case 8: OZ_STORE (8); break;
    case 9: OZ_STORE (9); break;
    case 10: OZ_STORE (10); break;
    case 11: OZ_STORE (11); break;
    }
#undef OZ_STORE
}
static_assert (GT_OZ_MAX_MODULI == 12, "one epilogue case per modulus");

#endif

#if OZ_WGMMA
/* The ring through which the producer tells the consumers which tile
   comes next (o.tiles or more: none).  */
typedef struct
{
  int *tile;
  uint64_t *full, *empty;
} oz_ring;

/* The block's next tile after its first (blockIdx.x), from the launch's
   counter, so that blocks that run faster take more tiles: with a fixed
   share each, the slowest SM's share was the time of the whole.  Each
   block takes one number that is past the last tile, so the counter is
   asked o.tiles times in all; the last to ask sets it back to zero for
   the next launch.  */
__device__ __forceinline__ int
oz_next_tile (const oz_gemm_out &o)
{
  const unsigned c = atomicAdd (o.next, 1u);
  if (c == (unsigned) o.tiles - 1)
    atomicExch (o.next, 0u);
  return (int) (gridDim.x + c);
}

/* The producer: one thread of warpgroup 0 takes each tile of the block in
   turn, passes its number on, and loads its k tiles of A's and B's planes
   by TMA into the next free stages: the next tile's first stages load
   while the consumers store the last one's.  The next tile's number is
   asked for OZ_STAGES loads before the last, so that the counter's
   round trip does not hold up those first stages.  */
__device__ __forceinline__ void
oz_produce (const CUtensorMap *map_a, const CUtensorMap *map_b,
            const oz_gemm_out &o, uint8_t *s_a, uint8_t *s_b,
            uint64_t *full, uint64_t *empty, const oz_ring &ring)
{
  const int ask_at = o.k_tiles > OZ_STAGES ? o.k_tiles - OZ_STAGES : 0;
  int s = 0, phase = 0;
  int t = blockIdx.x;
  for (int u = 0;; u++)
    {
      const int slot = u % OZ_RING;
      oz_mbar_wait (&ring.empty[slot], ((u / OZ_RING) & 1) ^ 1);
      ring.tile[slot] = t;
      oz_mbar_arrive (&ring.full[slot]);
      if (t >= o.tiles)
        return;
      const oz_tile at = oz_tile_at (o, t);
      const int row_a = (int) (at.z * o.mp + at.i0);
      const int row_b = (int) (at.z * o.np + at.j0);
      for (int kt = 0; kt < o.k_tiles; kt++)
        {
          if (kt == ask_at)
            t = oz_next_tile (o);
          oz_mbar_wait (&empty[s], phase ^ 1);
          oz_mbar_expect (&full[s], OZ_STAGE_BYTES);
          const int k_at = (o.k_tile0 + kt) * GT_OZ_TILE_K;
          oz_tma_load (s_a + s * GT_OZ_TILE_M * GT_OZ_TILE_K, map_a,
                       &full[s], k_at, row_a);
          oz_tma_load (s_b + s * GT_OZ_TILE_N * GT_OZ_TILE_K, map_b,
                       &full[s], k_at, row_b);
          if (++s == OZ_STAGES)
            {
              s = 0;
              phase ^= 1;
            }
        }
    }
}

/* A consumer warpgroup (cw 0 or 1: its 64 rows of B's tile) over all of
   k of one tile, one group of wgmmas in flight: a stage is released once
   the group after it has been issued and it has completed, the last once
   all have.  s and phase go on from tile to tile, as the producer's do.  */
__device__ __forceinline__ void
oz_consume (int (&d)[128], int cw, const oz_gemm_out &o, const uint8_t *s_a,
            const uint8_t *s_b, uint64_t *full, uint64_t *empty, int &s,
            int &phase)
{
  for (int kt = 0; kt < o.k_tiles; kt++)
    {
      oz_mbar_wait (&full[s], phase);
      const uint64_t da = oz_desc (s_b + s * GT_OZ_TILE_N * GT_OZ_TILE_K
                                   + cw * 64 * GT_OZ_TILE_K);
      const uint64_t db = oz_desc (s_a + s * GT_OZ_TILE_M * GT_OZ_TILE_K);
#pragma unroll
      for (int r = 0; r < 128; r++)
        asm volatile ("" : "+r" (d[r]) :: "memory");
      asm volatile ("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int kk = 0; kk < GT_OZ_TILE_K / 32; kk++)
        oz_wgmma (d, da + 2 * kk, db + 2 * kk, kt > 0 || kk > 0);
      asm volatile ("wgmma.commit_group.sync.aligned;" ::: "memory");
#pragma unroll
      for (int r = 0; r < 128; r++)
        asm volatile ("" : "+r" (d[r]) :: "memory");
      asm volatile ("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      if (kt > 0 && threadIdx.x % 128 == 0)
        oz_mbar_arrive (&empty[s == 0 ? OZ_STAGES - 1 : s - 1]);
      if (++s == OZ_STAGES)
        {
          s = 0;
          phase ^= 1;
        }
    }
  asm volatile ("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
  for (int r = 0; r < 128; r++)
    asm volatile ("" : "+r" (d[r]) :: "memory");
  if (threadIdx.x % 128 == 0)
    oz_mbar_arrive (&empty[s == 0 ? OZ_STAGES - 1 : s - 1]);
}
#endif

/* 256 x 128 tiles of C, one modulus each, as many as the block takes from
   o.next (one block per SM, persistent).  In wgmma's terms the planes
   of B (128 rows j, two consumers of 64) are its A operand and the planes
   of A (256 rows i) its B operand, so a thread's neighbouring accumulators
   are neighbouring rows of column-major C.  */
__global__ void __launch_bounds__ (OZ_THREADS, 1)
oz_gemm (const __grid_constant__ CUtensorMap map_a,
         const __grid_constant__ CUtensorMap map_b, oz_gemm_out o)
{
#if OZ_WGMMA
  extern __shared__ uint8_t smem_raw[];
  uint8_t *smem = (uint8_t *) (((uintptr_t) smem_raw + 1023) & ~(uintptr_t) 1023);
  uint8_t *s_a = smem;                                   /* 256 x 128 */
  uint8_t *s_b = smem + OZ_STAGES * GT_OZ_TILE_M * GT_OZ_TILE_K; /* 128 x 128 */
  uint8_t *staging = smem + OZ_STAGES * OZ_STAGE_BYTES;   /* OZ_EPI_BYTES */
  uint64_t *full = (uint64_t *) (staging + OZ_EPI_BYTES);
  uint64_t *empty = full + OZ_STAGES;
  oz_ring ring;
  ring.full = empty + OZ_STAGES;
  ring.empty = ring.full + OZ_RING;
  ring.tile = (int *) (ring.empty + OZ_RING);
  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0)
    {
      for (int s = 0; s < OZ_STAGES; s++)
        {
          oz_mbar_init (&full[s], 1);
          oz_mbar_init (&empty[s], 2);
        }
      for (int r = 0; r < OZ_RING; r++)
        {
          oz_mbar_init (&ring.full[r], 1);
          oz_mbar_init (&ring.empty[r], (OZ_THREADS - 128) / 32);
        }
      asm volatile ("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
  __syncthreads ();
  if (wg == 0)
    {
      asm volatile ("setmaxnreg.dec.sync.aligned.u32 40;");
      if (threadIdx.x == 0)
        oz_produce (&map_a, &map_b, o, s_a, s_b, full, empty, ring);
      return;
    }
  asm volatile ("setmaxnreg.inc.sync.aligned.u32 232;");
  int d[128];
  int s = 0, phase = 0;
  for (int u = 0;; u++)
    {
      const int slot = u % OZ_RING;
      oz_mbar_wait (&ring.full[slot], (u / OZ_RING) & 1);
      const int t = *(volatile int *) &ring.tile[slot];
      __syncwarp ();
      if (threadIdx.x % 32 == 0)
        oz_mbar_arrive (&ring.empty[slot]);
      if (t >= o.tiles)
        break;
      const oz_tile at = oz_tile_at (o, t);
      oz_consume (d, wg - 1, o, s_a, s_b, full, empty, s, phase);
      oz_epilogue (d, o, at.z, at.i0, at.j0 + (wg - 1) * 64, staging, wg - 1);
    }
#else
  (void) map_a;
  (void) map_b;
  (void) o;
#endif
}

static PFN_cuTensorMapEncodeTiled_v12000
oz_encoder (void)
{
  static PFN_cuTensorMapEncodeTiled_v12000 fn;
  if (!fn)
    {
      void *p = NULL;
      cudaDriverEntryPointQueryResult q;
      if (cudaGetDriverEntryPointByVersion ("cuTensorMapEncodeTiled", &p,
                                            12000, cudaEnableDefault, &q)
            == cudaSuccess && q == cudaDriverEntryPointSuccess)
        fn = (PFN_cuTensorMapEncodeTiled_v12000) p;
    }
  return fn;
}

/* rows x kp int8, K contiguous, read in boxes of 128 bytes by box_rows.  */
static int
oz_map (CUtensorMap *map, const void *p, size_t rows, size_t kp,
        unsigned box_rows)
{
  PFN_cuTensorMapEncodeTiled_v12000 enc = oz_encoder ();
  if (!enc)
    return 0;
  cuuint64_t dim[2] = { kp, rows };
  cuuint64_t stride[1] = { kp };
  cuuint32_t box[2] = { GT_OZ_TILE_K, box_rows };
  cuuint32_t estride[2] = { 1, 1 };
  return enc (map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, (void *) p, dim, stride,
              box, estride, CU_TENSOR_MAP_INTERLEAVE_NONE,
              CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/* Devices whose oz_gemm may ask for OZ_SMEM_BYTES (bit per ordinal; past
   63 it is set on every launch).  */
static unsigned long long oz_ready;

extern "C" size_t
gt_oz_smem_bytes (void)
{
  return OZ_SMEM_BYTES;
}

extern "C" void
gt_oz_forget (void)
{
  oz_ready = 0;
}

static cudaError_t
oz_gemm_launch (const int8_t *a_planes, size_t mp, const int8_t *b_planes,
                size_t np, size_t kp, int planes, const oz_gemm_out *o,
                cudaStream_t s)
{
  const gt_device_props *d = gt_device_props_current ();
  if (!d)
    return cudaErrorInvalidDevice;
  const int dev = d->device;
  const unsigned long long bit = dev < 64 ? 1ull << dev : 0;
  if (!(__atomic_load_n (&oz_ready, __ATOMIC_RELAXED) & bit))
    {
      cudaError_t e = cudaFuncSetAttribute (
        oz_gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, OZ_SMEM_BYTES);
      if (e != cudaSuccess)
        return e;
      __atomic_fetch_or (&oz_ready, bit, __ATOMIC_RELAXED);
    }
  CUtensorMap ma, mb;
  if (!oz_map (&ma, a_planes, planes * mp, kp, GT_OZ_TILE_M)
      || !oz_map (&mb, b_planes, planes * np, kp, GT_OZ_TILE_N))
    return cudaErrorInvalidValue;
  oz_gemm_out on = *o;
  if (on.i_tiles == 0)
    on.i_tiles = (int) (mp / GT_OZ_TILE_M);
  if (on.i_tile0 < 0 || on.i_tiles < 0
      || (size_t) (on.i_tile0 + on.i_tiles) * GT_OZ_TILE_M > mp)
    return cudaErrorInvalidValue;
  on.tiles = on.i_tiles * (int) (np / GT_OZ_TILE_N) * planes;
  if (on.tiles == 0)
    return cudaSuccess;
  oz_gemm<<<(unsigned) (on.tiles < d->sms ? on.tiles : d->sms), OZ_THREADS,
            OZ_SMEM_BYTES, s>>> (ma, mb, on);
  return cudaGetLastError ();
}

extern "C" cudaError_t
gt_oz_products (const gt_oz_work *w, cudaStream_t s)
{
  return gt_oz_products_part (w, 0, w->k, 0, s);
}

/* The products of C's rows [r0, r1) (r0 a multiple of GT_OZ_TILE_M; r1
   too, or m) over k's padded columns [k0, kend) (multiples of
   GT_OZ_TILE_K), into w's residue planes (accumulate: added mod p).  */
static cudaError_t
products_launch (const gt_oz_work *w, size_t r0, size_t r1, size_t k0,
                 size_t kend, int accumulate, cudaStream_t s)
{
  const size_t rend = r1 == w->m ? w->mp : r1;
  if (r0 % GT_OZ_TILE_M || rend % GT_OZ_TILE_M || r0 > rend || rend > w->mp
      || k0 % GT_OZ_TILE_K || kend % GT_OZ_TILE_K || k0 >= kend
      || kend > w->kp)
    return cudaErrorInvalidValue;
  oz_gemm_out o = {};
  o.r = w->c_planes;
  o.ldr = w->ldr;
  o.plane = w->ldr * w->n;
  o.m = w->m;  o.n = w->n;  o.mp = w->mp;  o.np = w->np;
  o.i_tile0 = (int) (r0 / GT_OZ_TILE_M);
  o.i_tiles = (int) ((rend - r0) / GT_OZ_TILE_M);
  o.k_tile0 = (int) (k0 / GT_OZ_TILE_K);
  o.k_tiles = (int) ((kend - k0) / GT_OZ_TILE_K);
  o.accumulate = accumulate;
  o.next = w->next_tile;
  return oz_gemm_launch (w->a_planes, w->mp, w->b_planes, w->np, w->kp,
                         w->moduli, &o, s);
}

extern "C" cudaError_t
gt_oz_products_rows (const gt_oz_work *w, size_t r0, size_t r1,
                     cudaStream_t s)
{
  if (r0 == r1 && r1 <= w->m)   /* an empty block (the last ones may be) */
    return cudaSuccess;
  return products_launch (w, r0, r1, 0, w->kp, 0, s);
}

extern "C" cudaError_t
gt_oz_products_part (const gt_oz_work *w, size_t k0, size_t k1,
                     int accumulate, cudaStream_t s)
{
  return products_launch (w, 0, w->m, k0, k1 == w->k ? w->kp : k1,
                          accumulate, s);
}

/* The benchmark's INT8 product has no scratch: its tile counter is this
   (one per device; the benchmark runs one product at a time).  */
__device__ unsigned oz_bench_next_tile;

extern "C" cudaError_t
gt_oz_int8_gemm (const int8_t *At, const int8_t *Bt, int32_t *C, size_t ldc,
                 size_t m, size_t n, size_t kp, cudaStream_t s)
{
  oz_gemm_out o = {};
  cudaError_t e = cudaGetSymbolAddress ((void **) &o.next,
                                        oz_bench_next_tile);
  if (e != cudaSuccess)
    return e;
  o.c = C;
  o.ldc = ldc;
  o.m = m;  o.n = n;  o.mp = m;  o.np = n;
  o.k_tiles = (int) (kp / GT_OZ_TILE_K);
  return oz_gemm_launch (At, m, Bt, n, kp, 1, &o, s);
}

extern "C" cudaError_t
gt_oz_run (const gt_oz_work *w, const float *A, size_t lda, const float *B,
           size_t ldb, float *C, size_t ldc, cudaStream_t s)
{
  cudaError_t e;
  if ((e = gt_oz_scan (w, A, lda, B, ldb, s)) != cudaSuccess
      || (e = gt_oz_slice (w, A, lda, B, ldb, s)) != cudaSuccess
      || (e = gt_oz_products (w, s)) != cudaSuccess
      || (e = gt_oz_combine (w, C, ldc, s)) != cudaSuccess)
    return e;
  return cudaSuccess;
}

