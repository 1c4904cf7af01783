/* The dispatcher: picks a kernel, tile configuration and k split for a
   shape, and runs a plan.  The choice is a small cost model: for each
   configuration and split, the rounds of resident blocks on the busiest SM
   times the work of a round, plus the bytes the split's partial sums add.  */

#include <math.h>
#include "gt_gemm.h"
#include "gt_launch.cuh"

#ifndef GT_BUILD_ARCHS
#define GT_BUILD_ARCHS "unknown"
#endif

extern "C" void gt_k4_shape (int cfg, int *bm, int *bn, int *bk,
                             int *threads, int *smem);
extern "C" int gt_k4_occupancy (int cfg);
extern "C" int gt_k4_min_blocks (int cfg);

extern "C" const char *
gt_build_archs (void)
{
  return GT_BUILD_ARCHS;
}

#define GT_MAX_DEVICES 64

/* Kernel 8 on 256x128 tiles: both operands by cp.async, 16-k stages.  */
#define K8_WIDE_MODE (GT_K8_DEFAULT_MODE | GT_K8_K16 | GT_K8_BM256)

typedef struct
{
  int known;
  int sms;
  int occupancy[GT_CFG_COUNT];
  int k8_occupancy;
  int k8_k16_fits;      /* 16-k stages keep kernel 8's blocks per SM */
  int k8_wide_occupancy; /* kernel 8's 256x128 tiles (0: they do not fit) */
  int k9_usable;        /* kernel 9 runs here (Hopper) */
} device_facts;

static device_facts facts[GT_MAX_DEVICES];

static const device_facts *
current_facts (void)
{
  /* Without a device to ask: an H100/H200's SMs, and the blocks per SM
     each configuration is built for.  */
  static device_facts fallback;
  if (!fallback.known)
    {
      fallback.sms = 132;
      for (int c = 0; c < GT_CFG_COUNT; c++)
        fallback.occupancy[c] = gt_k4_min_blocks (c);
      fallback.k8_occupancy = 2;
      fallback.k8_k16_fits = 1;
      fallback.k8_wide_occupancy = 1;
      fallback.k9_usable = 0;
      fallback.known = 1;
    }
  int dev = 0;
  if (cudaGetDevice (&dev) != cudaSuccess || dev < 0 || dev >= GT_MAX_DEVICES)
    return &fallback;
  device_facts *f = &facts[dev];
  if (!f->known)
    {
      if (cudaDeviceGetAttribute (&f->sms, cudaDevAttrMultiProcessorCount,
                                  dev) != cudaSuccess || f->sms <= 0)
        return &fallback;
      for (int c = 0; c < GT_CFG_COUNT; c++)
        {
          f->occupancy[c] = gt_k4_occupancy (c);
          if (f->occupancy[c] <= 0)
            f->occupancy[c] = gt_k4_min_blocks (c);
        }
      f->k8_occupancy = gt_k8_occupancy (GT_K8_DEFAULT_MODE);
      if (f->k8_occupancy <= 0)
        f->k8_occupancy = 2;
      /* 48 KiB of shared memory per block: two fit on an SM of 100 KiB
         or more, one on smaller ones, where 8-k stages are kept.  */
      f->k8_k16_fits = gt_k8_occupancy (GT_K8_DEFAULT_MODE | GT_K8_K16)
                       >= f->k8_occupancy;
      f->k8_wide_occupancy = gt_k8_occupancy (K8_WIDE_MODE);
      f->k9_usable = gt_k9_usable ();
      f->known = 1;
    }
  return f;
}

/* Relative throughput of one resident block set of each configuration
   (smaller tiles reuse each loaded word less); 0 keeps a configuration
   out of the default choice.  */
/* From H200 measurements at 4096^3 and 8192^3 (bench/RESULTS.md): where
   64x64x32 and 128x64x32 tiles need the same rounds of full SMs, the
   latter ran 2.3-3.7% faster (2048^3, 4096^3, 8192^3).  */
static const double cfg_efficiency[GT_CFG_COUNT] = { 0.86, 1.0, 0.93, 0.93,
                                                      0.98, 1.025, 0.94 };

/* Kernel 8 (128x128 tiles, 16x8 per thread) against the same unit, on
   full grids: H200, 2048^3-8192^3, B's transposition included, 1.18-1.19
   times kernel 4's 64x64x32 tiles (bench/RESULTS.md).  */
#define K8_EFFICIENCY 1.18

/* Rough machine balance for the cost model, which counts in flops of one
   SM: what an SM computes while the chip moves one byte (FP32 rate of an
   SM over device bandwidth), and while a kernel launch goes by.  */
#define FLOP_PER_SM_PER_BYTE 0.15
#define FLOP_PER_SM_PER_LAUNCH 1.5e6
/* Kernel 8's extra passes (B transposed, an unaligned A repacked) per
   byte moved: about 3.3 TB/s measured, in the same flop units.  */
#define K8_FLOP_PER_SM_PER_BYTE 0.08
/* Split-k partial sums never take more scratch than this.  */
#define MAX_SPLIT_BYTES ((size_t) 256 << 20)

static size_t
cap_splits (size_t k, int bk)
{
  size_t s = k / (size_t) (4 * bk);   /* at least 4 k steps per split */
  return s < 1 ? 1 : (s > 256 ? 256 : s);
}

/* Kernel 8's mode for a product: 16-k stages from k = 4096 (H200, same
   run: 1.2% faster at 4096^3, 2.8% at 8192^3, but 1.1% slower at
   2048^3 and level at 3000x700x5000).  */
static int
k8_mode (size_t k)
{
  return k >= 4096 && current_facts ()->k8_k16_fits
         ? GT_K8_DEFAULT_MODE | GT_K8_K16 : GT_K8_DEFAULT_MODE;
}

/* The tile families of kernels 8 and 9: rows of C per block, blocks per
   SM, efficiency against kernel 4's 64x64x32 tiles on full grids.  */
typedef struct
{
  int kernel;           /* GT_K8_WIDE or GT_K9_DMMA */
  int mode;
  int rows;
  int occupancy;
  double efficiency;
  int streamk;          /* blocks share the tiles' k stages evenly */
} k8_family;

/* 256x128 tiles of one block per SM against two 128x128 blocks (H200,
   same run, 16-k stages both): 0.7% faster at 4096^3, 2.2% at 8192^3,
   2% at 2048^3; 1.5% slower at 3000x700x5000 (k = 700), so they are
   offered from k = 2048.  Their warps share one block's barriers, and
   the instruction cache holds one stretch of the loop per scheduler
   (Nsight Compute: no-instruction stalls 0.07 against 0.18).  */
#define K8_WIDE_EFFICIENCY (K8_EFFICIENCY * 1.01)

/* Stream-K against its share of the tiles (H200, same run as 256x128
   tiles a block each: 4096^3 took 3.96 rounds' time for 3.88 rounds of
   tiles, 8192^3 15.88 for 15.52): about 2% slower per tile with every SM
   busy to the end, plus the tiles cut between two blocks, stored and
   read back once.  */
#define K8_STREAMK_SLOWER 1.02
#define K8_STREAMK_ROUNDS 0.01

/* Kernel 9 against the same unit: H200, 4096^3 and 8192^3, 1.12 times
   kernel 8's 256x128 tiles (bench/RESULTS.md).  */
#define K9_EFFICIENCY (K8_WIDE_EFFICIENCY * 1.12)

/* Kernel 9 split over k: each block does kc of k (a multiple of 32) plus
   the filling of its two stages, and the pieces' sums cross device memory
   twice as doubles before a second kernel adds them.  Splits up to 8, each
   piece at least 256 long.  H200, same run: it wins where few tiles meet
   a long k (1024x4096x1024: 2 splits 0.88x cuBLAS, kernel 5 0.82x) and
   loses to kernel 5 on the rest of the medium shapes tried (1000^3 0.94
   against 0.96, 777x3001x555 0.63 against 0.73, 256^3 1.12 against
   1.63), as this cost has it.  */
#define K9_MAX_SPLITS 8
#define K9_FILL_K 64.0
static double
k9_split_cost (size_t m, size_t n, size_t k, int sp)
{
  const device_facts *f = current_facts ();
  long long kc;
  const double z = (double) gt_k9_split_k (sp, k, &kc);
  if (z < 2 || kc < 256)
    return HUGE_VAL;
  const double tiles = (double) gt_ceil_div (m, 128)
                       * (double) gt_ceil_div (n, 128);
  const double rounds = ceil (tiles * z / f->sms);
  return rounds * 128.0 * 128.0 * (kc + K9_FILL_K) / K9_EFFICIENCY
         + 16.0 * z * m * n * FLOP_PER_SM_PER_BYTE
         + 2.0 * FLOP_PER_SM_PER_LAUNCH;
}

/* Kernel 9 on all but the last round's tiles, those with k split
   (gt_k9_dmma_tail): where the tiles pass a multiple of the SMs by a few,
   as 8192^3's 4096 tiles on 132 SMs (31 rounds and 4 tiles), the last
   round costs every SM a whole tile's time for the work of a few.  Split
   so that the tail's pieces fill the SMs once, from a k long enough that
   the round saved outweighs the pieces' sums crossing device memory.
   H200, same runs: 8192^3 1.13x cuBLAS against 1.10x (4 tiles split 26
   ways: 51 us in place of a 0.6 ms round), 1536x2048x1536 1.36x against
   0.87x, 640x4096x3456 1.15x against 0.65x.  Cost in the units of
   k8_cost (m, n: the whole tiles, without strips); *tail 0 where it does
   not apply.  */
#define K9_TAIL_MIN_K 2048
static double
k9_tail_cost (size_t m, size_t n, size_t k, int *tail, int *splits)
{
  const device_facts *f = current_facts ();
  const long long tm = gt_ceil_div (m, 128), tn = gt_ceil_div (n, 128);
  const long long tiles = tm * tn, full = tiles / f->sms;
  const long long r = tiles - full * f->sms;
  double best = HUGE_VAL;
  *tail = 0;
  *splits = 1;
  if (k < K9_TAIL_MIN_K || full < 1 || r < 1 || r > tm)
    return best;
  const size_t rows = m - (size_t) (tm - r) * 128;
  const size_t cols = n - (size_t) (tn - 1) * 128;
  /* the whole rounds, then the tail as a split product of its own after
     them (one launch more) */
  const double main_cost = (double) full * 128.0 * 128.0
                           * (double) (gt_ceil_div (k, 8) * 8)
                           / K9_EFFICIENCY
                           + FLOP_PER_SM_PER_LAUNCH;
  for (long long sp = 2; sp <= f->sms / r && sp <= 64; sp++)
    {
      const double split = k9_split_cost (rows, cols, k, (int) sp);
      if (split == HUGE_VAL)   /* pieces under 256: more splits, shorter */
        break;
      const double cost = main_cost + split;
      if (cost < best)
        {
          best = cost;
          *tail = (int) r;
          *splits = (int) sp;
        }
    }
  return best;
}

/* The families worth trying for k; returns how many were written.  */
static int
k8_families (size_t k, k8_family fam[4])
{
  const device_facts *f = current_facts ();
  int nf = 0;
  fam[nf].kernel = GT_K8_WIDE;
  fam[nf].mode = k8_mode (k);
  fam[nf].rows = 128;
  fam[nf].occupancy = f->k8_occupancy;
  fam[nf].efficiency = K8_EFFICIENCY;
  fam[nf++].streamk = 0;
  if (k >= 2048 && f->k8_wide_occupancy > 0)
    for (int sk = 0; sk < 2; sk++)
      {
        fam[nf].kernel = GT_K8_WIDE;
        fam[nf].mode = K8_WIDE_MODE | (sk ? GT_K8_STREAMK : 0);
        fam[nf].rows = 256;
        fam[nf].occupancy = f->k8_wide_occupancy;
        fam[nf].efficiency = K8_WIDE_EFFICIENCY;
        fam[nf++].streamk = sk;
      }
  if (f->k9_usable)
    {
      fam[nf].kernel = GT_K9_DMMA;
      fam[nf].mode = 0;
      fam[nf].rows = 128;
      fam[nf].occupancy = 1;
      fam[nf].efficiency = K9_EFFICIENCY;
      fam[nf++].streamk = 0;
    }
  return nf;
}

/* Kernel 8 or 9 of a family on an m x n x k product, in the units of
   choose_gemm.  */
static double
k8_cost (const k8_family *fam, size_t m, size_t n, size_t k, int repack)
{
  const device_facts *f = current_facts ();
  const double tiles = (double) gt_ceil_div (m, fam->rows)
                       * (double) gt_ceil_div (n, 128);
  const double per_sm = ceil (tiles / f->sms);
  const double occ = fam->occupancy;
  /* Whole rounds: a block alone on its SM (4 warps) takes about as long
     as two side by side (H200, 4097^3: the 33 tiles of a fifth round
     took 0.92 of a full round).  Stream-K needs a tile per resident
     block at least (the kernel falls back to a block per tile below).  */
  double rounds = ceil (per_sm / occ);
  if (fam->streamk)
    {
      if (tiles < (double) f->sms * occ)
        return HUGE_VAL;
      rounds = tiles / (f->sms * occ) * K8_STREAMK_SLOWER + K8_STREAMK_ROUNDS;
    }
  /* its advantage holds once the busiest SM is full */
  const double eff = per_sm >= occ ? fam->efficiency : 1.0;
  const double kc = (double) gt_ceil_div (k, 8) * 8;
  /* kernel 8's passes over B (transposed) and an unaligned A */
  const double moved = fam->kernel == GT_K9_DMMA
                       ? 0.0 : 8.0 * k * n + (repack ? 8.0 * m * k : 0.0);
  return rounds * occ * fam->rows * 128.0 * kc / eff
         + moved * K8_FLOP_PER_SM_PER_BYTE + FLOP_PER_SM_PER_LAUNCH;
}

/* Kernels 4/5; *cost gets the winner's cost in flops of one SM.  */
static gt_plan
choose_gemm (size_t m, size_t n, size_t k, int only_cfg, int only_splits,
             int repack, double *cost_out)
{
  const device_facts *f = current_facts ();
  gt_plan best = { GT_K4_ASYNC, 0, 0, 1, 0, 0, 0 };
  double best_cost = HUGE_VAL;
  for (int c = 0; c < GT_CFG_COUNT; c++)
    {
      if (only_cfg >= 0 ? c != only_cfg : cfg_efficiency[c] == 0.0)
        continue;
      int bm, bn, bk, threads, smem;
      gt_k4_shape (c, &bm, &bn, &bk, &threads, &smem);
      const double tiles = (double) gt_ceil_div (m, bm)
                           * (double) gt_ceil_div (n, bn);
      size_t max_s = cap_splits (k, bk);
      while (max_s > 1 && max_s * m * n * sizeof (float) > MAX_SPLIT_BYTES)
        max_s /= 2;
      for (size_t s = 1; s <= max_s; s = s < 4 ? s + 1 : s * 2)
        {
          if (only_splits > 0 && (int) s != only_splits)
            continue;
          const double kc = (double) gt_ceil_div (gt_ceil_div (k, s), bk) * bk;
          /* Rounds of resident blocks on the busiest SM: blocks finish at
             different times, so a full SM works through its share
             continuously; an SM with fewer blocks than fit is as slow as
             a full round (latency-bound).  */
          const double per_sm = ceil (tiles * s / f->sms);
          const double occ = f->occupancy[c];
          const double rounds = per_sm <= occ ? 1.0 : per_sm / occ;
          /* time of a round on one SM, in flop units; the 128x64x32
             advantage was measured on full grids only */
          const double eff = rounds > 1.0 ? cfg_efficiency[c]
                                          : fmin (cfg_efficiency[c], 1.0);
          double cost = rounds * occ * (double) bm * bn * kc / eff;
          if (s > 1)   /* partials written, read back, and the reduce launch */
            cost += (double) s * m * n * 8.0 * FLOP_PER_SM_PER_BYTE
                    + FLOP_PER_SM_PER_LAUNCH;
          if (cost < best_cost)
            {
              best_cost = cost;
              best.cfg = c;
              best.splits = (int) s;
            }
        }
    }
  if (best.splits > 1)
    best.kernel = GT_K5_SPLITK;
  best.work_bytes = gt_k4_work_bytes (best.splits, m, n, k, repack);
  if (cost_out)
    *cost_out = best_cost;
  return best;
}

static gt_plan
choose_gemv (size_t m, size_t n, size_t k, int only_splits)
{
  const device_facts *f = current_facts ();
  gt_plan p = { GT_K6_GEMV, 0, 0, 1, 0, 0, 0 };
  const size_t blocks = (n == 1 && m > 1) ? gt_ceil_div (m, 128)
                                          : gt_ceil_div (n, 8);
  size_t s = 1;
  if (only_splits > 0)
    s = (size_t) only_splits;
  else
    {
      /* Aim for eight blocks per SM, each with at least 128 of k.  */
      const size_t want = (size_t) f->sms * 8;
      const size_t most = k / 128 < 1 ? 1 : k / 128;
      s = blocks >= want ? 1 : gt_ceil_div (want, blocks);
      if (s > most)
        s = most;
      if (s > 65535)
        s = 65535;
    }
  p.splits = (int) s;
  p.work_bytes = gt_k6_work_bytes (p.splits, m, n);
  return p;
}

/* A vector product streams its matrix once.  */
static double
gemv_cost (size_t m, size_t n, size_t k, const gt_plan *p)
{
  const double bytes = 4.0 * (double) k * (double) (m == 1 ? n : m);
  return bytes * FLOP_PER_SM_PER_BYTE
         + (p->splits > 1 ? 2.0 : 1.0) * FLOP_PER_SM_PER_LAUNCH;
}

/* The plan for a strip of C beside kernel 8's grid: what gt_plan_for
   would pick, kernel 8 aside.  */
static gt_plan
edge_plan (size_t m, size_t n, size_t k, int repack, double *cost)
{
  if (m == 1 || n == 1)
    {
      const gt_plan p = choose_gemv (m, n, k, 0);
      if (cost)
        *cost = gemv_cost (m, n, k, &p);
      return p;
    }
  return choose_gemm (m, n, k, -1, 0, repack, cost);
}

/* The default for a matrix product: kernels 4/5, or kernel 8 or 9 over
   all of C, or over their whole tiles only (kernel 8: 128x128, or 256x128
   of one block per SM where k is long enough; kernel 9 on Hopper:
   128x128).  A tiled kernel pays for its ragged last row or column of
   tiles with a whole round when the tile count just passes a multiple of
   the resident slots (4097^3: 33x33 tiles, 4.1 rounds on 264 slots);
   covering the whole tiles only, it leaves the strips over to a kernel
   made for thin shapes.  */
static gt_plan
choose_default (size_t m, size_t n, size_t k, int repack)
{
  double best_cost;
  gt_plan best = choose_gemm (m, n, k, -1, 0, repack, &best_cost);
  k8_family fam[4];
  const int nf = k8_families (k, fam);
  for (int fi = 0; fi < nf; fi++)
    {
      const size_t rows = (size_t) fam[fi].rows;
      const size_t em = m % rows, en = n % 128;
      /* t: bit 0 leaves the last em rows out, bit 1 the last en columns */
      for (int t = 0; t < 4; t++)
        {
          const size_t er = (t & 1) ? em : 0, ec = (t & 2) ? en : 0;
          if ((t & 1 && (em == 0 || m < rows))
              || (t & 2 && (en == 0 || n < 128)))
            continue;
          const size_t cm = m - er, cn = n - ec;
          double cost = k8_cost (&fam[fi], cm, cn, k, repack);
          double c_rows = 0.0, c_cols = 0.0;
          size_t work = fam[fi].kernel == GT_K9_DMMA
                        ? 0 : gt_k8_work_bytes (fam[fi].mode, cm, cn, k,
                                                repack);
          if (er)
            {
              const gt_plan e = edge_plan (er, n, k, repack, &c_rows);
              work = e.work_bytes > work ? e.work_bytes : work;
            }
          if (ec)
            {
              const gt_plan e = edge_plan (cm, ec, k, repack, &c_cols);
              work = e.work_bytes > work ? e.work_bytes : work;
            }
          int tail = 0, tail_splits = 1;
          if (fam[fi].kernel == GT_K9_DMMA)
            {
              int tl, ts;
              const double ct = k9_tail_cost (cm, cn, k, &tl, &ts);
              if (ct < cost)
                {
                  cost = ct;
                  tail = tl;
                  tail_splits = ts;
                  const size_t tw = gt_k9_tail_work_bytes (tl, ts, cm, cn, k);
                  work = tw > work ? tw : work;
                }
            }
          cost += c_rows + c_cols;
          if (cost < best_cost)
            {
              best_cost = cost;
              best.kernel = fam[fi].kernel;
              best.cfg = fam[fi].mode;
              best.splits = 1;
              best.work_bytes = work;
              best.edge_rows = (int) er;
              best.edge_cols = (int) ec;
              best.tail = tail;
              best.tail_splits = tail_splits;
            }
        }
    }
  /* Kernel 9 with k split where its tiles leave SMs idle.  */
  if (current_facts ()->k9_usable)
    for (int sp = 2; sp <= K9_MAX_SPLITS; sp *= 2)
      {
        const double cost = k9_split_cost (m, n, k, sp);
        if (cost < best_cost)
          {
            best_cost = cost;
            best.kernel = GT_K9_DMMA;
            best.cfg = 0;
            best.splits = sp;
            best.work_bytes = gt_k9_work_bytes (sp, m, n, k);
            best.edge_rows = 0;
            best.edge_cols = 0;
            best.tail = 0;
            best.tail_splits = 1;
          }
      }
  return best;
}

extern "C" gt_plan
gt_plan_kernel (int kernel, int cfg, int splits, size_t m, size_t n,
                size_t k, int repack)
{
  gt_plan p = { kernel, 0, 0, 1, 0, 0, 0 };
  switch (kernel)
    {
    case GT_K4_ASYNC:
      p = choose_gemm (m, n, k, cfg, 1, repack, NULL);
      break;
    case GT_K5_SPLITK:
      p = choose_gemm (m, n, k, cfg, splits, repack, NULL);
      p.kernel = GT_K5_SPLITK;
      break;
    case GT_K7_REGDB:
      p.cfg = cfg == 1 ? 1 : 2;
      break;
    case GT_K8_WIDE:
      p.cfg = cfg < 0 ? GT_K8_DEFAULT_MODE : cfg;
      p.work_bytes = gt_k8_work_bytes (p.cfg, m, n, k, repack);
      break;
    case GT_K6_GEMV:
      p = choose_gemv (m, n, k, splits);
      break;
    case GT_K9_DMMA:
      p.splits = splits > 1 ? splits : 1;
      p.work_bytes = gt_k9_work_bytes (p.splits, m, n, k);
      break;
    default:
      break;
    }
  return p;
}

extern "C" gt_plan
gt_plan_for (size_t m, size_t n, size_t k, int tile, int repack)
{
  gt_plan p = { GT_K1_CLASSIC, tile, 0, 1, 0, 0, 0 };
  if (tile != 0)
    return p;
  if (m == 1 || n == 1)
    return choose_gemv (m, n, k, 0);
  return choose_default (m, n, k, repack);
}

/* Kernel 8 or 9 on the whole tiles, then the strips beside them, one after
   the other on the stream (they share the scratch).  The strips' plans are
   made again here as choose_default made them: the operands' alignment is
   the whole product's, since the strips start at multiples of 128.  */
static cudaError_t
run_tiles (const gt_plan *p, const float *A, size_t lda, const float *B,
           size_t ldb, float *C, size_t ldc, size_t m, size_t n, size_t k,
           void *work, cudaStream_t s)
{
  const size_t er = (size_t) p->edge_rows, ec = (size_t) p->edge_cols;
  if (er > m || ec > n)
    return cudaErrorInvalidValue;
  const size_t cm = m - er, cn = n - ec;
  cudaError_t err;
  if (p->kernel == GT_K9_DMMA && p->tail > 0)
    err = gt_k9_dmma_tail (p->tail, p->tail_splits, A, lda, B, ldb, C, ldc,
                           cm, cn, k, work, s);
  else if (p->kernel == GT_K9_DMMA)
    err = gt_k9_dmma (A, lda, B, ldb, C, ldc, cm, cn, k, s);
  else
    err = gt_k8_wide (p->cfg, A, lda, B, ldb, C, ldc, cm, cn, k, work, s);
  const int repack = gt_k4_needs_repack (A, lda, B, ldb);
  if (err == cudaSuccess && er)
    {
      const gt_plan e = edge_plan (er, n, k, repack, NULL);
      err = gt_gemm_run (&e, A + cm, lda, B, ldb, C + cm, ldc, er, n, k,
                         work, s);
    }
  if (err == cudaSuccess && ec && cm)
    {
      const gt_plan e = edge_plan (cm, ec, k, repack, NULL);
      err = gt_gemm_run (&e, A, lda, B + cn * ldb, ldb, C + cn * ldc, ldc,
                         cm, ec, k, work, s);
    }
  return err;
}

extern "C" cudaError_t
gt_gemm_run (const gt_plan *p, const float *A, size_t lda, const float *B,
             size_t ldb, float *C, size_t ldc, size_t m, size_t n, size_t k,
             void *work, cudaStream_t s)
{
  switch (p->kernel)
    {
    case GT_K1_CLASSIC:
      return gt_k1_classic (p->tile, A, lda, B, ldb, C, ldc, m, n, k, s);
    case GT_K2_REGBLOCK:
      return gt_k2_regblock (A, lda, B, ldb, C, ldc, m, n, k, s);
    case GT_K3_VECTOR:
      return gt_k3_vector (A, lda, B, ldb, C, ldc, m, n, k, s);
    case GT_K4_ASYNC:
    case GT_K5_SPLITK:
      return gt_k4_async (p->cfg, p->splits, 0, A, lda, B, ldb, C, ldc, m, n,
                          k, work, s);
    case GT_K6_GEMV:
      return gt_k6_gemv (p->splits, A, lda, B, ldb, C, ldc, m, n, k, work,
                         s);
    case GT_K7_REGDB:
      return gt_k7_regdb (p->cfg, A, lda, B, ldb, C, ldc, m, n, k, s);
    case GT_K9_DMMA:
      if (p->splits > 1)
        return p->edge_rows || p->edge_cols
               ? cudaErrorInvalidValue
               : gt_k9_dmma_split (p->splits, A, lda, B, ldb, C, ldc, m, n,
                                   k, work, s);
      return run_tiles (p, A, lda, B, ldb, C, ldc, m, n, k, work, s);
    case GT_K8_WIDE:
      return run_tiles (p, A, lda, B, ldb, C, ldc, m, n, k, work, s);
    default:
      return cudaErrorInvalidValue;
    }
}

extern "C" int
gt_plan_accumulates (const gt_plan *p)
{
  return p->kernel == GT_K4_ASYNC && p->splits == 1;
}

extern "C" cudaError_t
gt_gemm_accumulate (const gt_plan *p, const float *A, size_t lda,
                    const float *B, size_t ldb, float *C, size_t ldc,
                    size_t m, size_t n, size_t k, void *work, cudaStream_t s)
{
  if (!gt_plan_accumulates (p))
    return cudaErrorInvalidValue;
  return gt_k4_async (p->cfg, 1, 1, A, lda, B, ldb, C, ldc, m, n, k, work,
                      s);
}

extern "C" gt_plan
gt_plan_piece (const gt_plan *whole, size_t m, size_t n, size_t kc)
{
  if (whole->kernel == GT_K9_DMMA)
    {
      gt_plan p = { GT_K9_DMMA, 0, 0, 1, m * n * sizeof (double), 0, 0 };
      return p;
    }
  return gt_plan_kernel (GT_K4_ASYNC, -1, 1, m, n, kc, 0);
}

extern "C" cudaError_t
gt_gemm_piece (const gt_plan *p, int first, int last, const float *A,
               size_t lda, const float *B, size_t ldb, float *C, size_t ldc,
               size_t m, size_t n, size_t k, void *work, cudaStream_t s)
{
  if (p->kernel == GT_K9_DMMA)
    {
      if (!(first && last) && !work)
        return cudaErrorInvalidValue;
      double *part = (double *) work;
      return gt_k9_dmma_part (A, lda, B, ldb, C, ldc, m, n, k,
                              first ? NULL : part, last ? NULL : part, s);
    }
  return first ? gt_gemm_run (p, A, lda, B, ldb, C, ldc, m, n, k, work, s)
               : gt_gemm_accumulate (p, A, lda, B, ldb, C, ldc, m, n, k,
                                     work, s);
}
