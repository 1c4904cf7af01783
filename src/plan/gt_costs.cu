/* The cost models of the default path: for each kernel the registry
   offers, its best plan for a shape and what it costs, in flops of one SM
   (for each configuration and split, the rounds of resident blocks on the
   busiest SM times the work of a round, plus the bytes the split's
   partial sums and extra passes move).  The dispatcher (gt_dispatch.cu)
   takes the cheapest.  Calibrated on an H200 (bench/RESULTS.md).  */

#include <math.h>
#include "gt_costs.h"
#include "gt_facts.h"
#include "gt_launch.cuh"

/* Kernel 8 on 256x128 tiles: both operands by cp.async, 16-k stages.  */
#define K8_WIDE_MODE (GT_K8_DEFAULT_MODE | GT_K8_K16 | GT_K8_BM256)

/* Configuration 7 (128x64x16 tiles, three stages, four blocks an SM) where
   all of k is at most 64, unsplit: H200, same runs, 65536x64x64 in 0.90-0.93
   of the 64x64x32 tiles' time (one wave of 512 tiles against two of
   1,024), 131072x64x64 and 65536x64x128 in 0.96-0.99 (bench/RESULTS.md).
   Not offered elsewhere, where it was not measured.  */
#define K4_THIN_CFG GT_CFG_128x64_B4
#define K4_THIN_K 64
#define K4_THIN_EFFICIENCY 1.03
/* Relative throughput of one resident block set of each configuration
   (smaller tiles reuse each loaded word less); 0 keeps a configuration
   out of the default choice.  */
/* From H200 measurements at 4096^3 and 8192^3 (bench/RESULTS.md): where
   64x64x32 and 128x64x32 tiles need the same rounds of full SMs, the
   latter ran 2.3-3.7% faster (2048^3, 4096^3, 8192^3).  */
static const double cfg_efficiency[GT_K4_CONFIG_COUNT] = { 0.86, 1.0, 0.93, 0.93,
                                                      0.98, 1.025, 0.94,
                                                      K4_THIN_EFFICIENCY };
/* That edge needs a long k: it comes from the stages' steady state, and
   with few stages each block's fill and its store of C (twice as large
   on 128x64 tiles) weigh more.  At 65536x64x64 (two stages) 64x64x32
   tiles ran faster than 128x64x32 ones (H100, bench/RESULTS.md).  */
#define K4_LONG_K 256

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

extern "C" double
gt_cost_passes (double bytes, int launches)
{
  return bytes * FLOP_PER_SM_PER_BYTE + launches * FLOP_PER_SM_PER_LAUNCH;
}

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
  return k >= 4096 && gt_facts_current ()->k8_k16_fits
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
  double fill;          /* k a round costs beyond its own (k9_fill) */
  int copies;           /* kernel 9 on doubles copies unaligned A and B
                           to aligned scratch first (`repacked`) */
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
#define K9_MAX_SPLITS_D 128
#define K9_FILL_K 64.0
/* Doubles, fitted to the H100's times of kernel 9 from 256^3 to 2048^3
   and 65536x64x64, k split 1 to 32 ways (bench/RESULTS.md): a round of
   tiles takes as long as kc + 110 of k in the steady state (the fill, the
   drain and the store of a tile of doubles weigh that much), and the
   pieces' sums and the second launch about a third of what the singles'
   constants say, so pieces down to 32 pay where few tiles meet any k
   (256^3: 8 pieces, 0.56x -> 0.81x cuBLAS; 1000^3: 2 pieces, 0.74x ->
   0.96x).  The singles keep their constants (their small products go to
   kernels 5 and 11).  */
#define K9_FILL_K_D 110.0
#define K9_D_PER_BYTE 0.05
#define K9_D_LAUNCH 0.5e6
/* The reduce of the pieces' sums: a chain of `splits` adds per element
   (64x65536x64 in 128 pieces: 18 us before its loads went 8 ahead).  */
#define K9_D_REDUCE_STEP 1e4

/* The z pieces' sums of an m x n product of doubles: through device
   memory, then the reduce's launch and its chain of z adds per element
   (k9_reduce: at most 16 blocks of 256 threads an SM).  */
static double
k9_d_sums_cost (double z, size_t m, size_t n)
{
  const gt_facts *f = gt_facts_current ();
  const double mn = (double) m * n;
  return 16.0 * z * mn * K9_D_PER_BYTE + K9_D_LAUNCH
         + z * ceil (mn / (f->sms * 16.0 * 256.0)) * K9_D_REDUCE_STEP;
}
/* Kernel 9 reads doubles whose start is not 16-byte aligned 8 bytes at
   a time: H100, 4097^3 as it is took 4.27 ms, copied to aligned scratch
   first 3.12 ms with the copies; but 1409x3000x777 (3 pieces, two
   rounds) 234 us as it is and 266 us copied.  The copies are taken where
   they cost less than this slowdown, a compromise of the two.  Aligned
   starts with odd leading dimensions (gt_needs_repack's 2) it reads in
   shifted 16-byte pieces on its large tiles, in 8-byte copies through L1
   on its small ones: 0-4% slower than even ones (H100, 1409x3000x777,
   1410x3001x778, 1409x3001x777 against 1410x3000x777).  */
#define K9_D_UNALIGNED 1.15
#define K9_D_ODD 1.03

static double
k9_as_is (int repack)
{
  return repack == 2 ? K9_D_ODD : K9_D_UNALIGNED;
}

/* The copies of unaligned double operands: the bytes they move (read
   and write), at kernel 8's rate for its own passes.  */
static double
k9_copies_cost (size_t m, size_t n, size_t k)
{
  return 16.0 * ((double) m * k + (double) k * n) * K8_FLOP_PER_SM_PER_BYTE;
}

static double
k9_fill (gt_type type)
{
  return type == GT_DOUBLE ? K9_FILL_K_D : 0.0;
}

/* Doubles whose pieces of k are added within a cluster (at most 8): no
   partial sums in device memory and no second launch, each block reading
   a tile's worth of its cluster's sums; but a cluster's blocks share a
   GPC, and fewer are resident at once (gt_k9_cluster_slots: H100, 512^3
   in clusters of 8 took two rounds, 0.55x cuBLAS, where 4 took one,
   0.89x).  */
#define K9_D_CLUSTER_ROUND 1.5e5
static double
k9_split_cost (gt_type type, size_t m, size_t n, size_t k, int sp,
               int cluster)
{
  const gt_facts *f = gt_facts_current ();
  const int dbl = type == GT_DOUBLE;
  long long kc;
  const double z = (double) gt_k9_split_k (sp, k, &kc);
  if (z < 2 || kc < (dbl ? 32 : 256))
    return HUGE_VAL;
  const double tiles = (double) gt_ceil_div (m, GT_K9_TILE)
                       * (double) gt_ceil_div (n, GT_K9_TILE);
  if (cluster)
    {
      const int slots = gt_k9_cluster_slots (0, (int) z);
      if (slots < z)
        return HUGE_VAL;
      const double rounds = ceil (tiles * z / slots);
      return rounds * ((double) GT_K9_TILE * GT_K9_TILE
                       * (kc + K9_FILL_K_D) / K9_EFFICIENCY
                       + K9_D_CLUSTER_ROUND)
             + FLOP_PER_SM_PER_LAUNCH;
    }
  const double rounds = ceil (tiles * z / f->sms);
  const double work = rounds * (double) GT_K9_TILE * GT_K9_TILE
                      * (kc + (dbl ? K9_FILL_K_D : K9_FILL_K)) / K9_EFFICIENCY;
  return dbl ? work + k9_d_sums_cost (z, m, n) + FLOP_PER_SM_PER_LAUNCH
             : work + 16.0 * z * m * n * FLOP_PER_SM_PER_BYTE
                 + 2.0 * FLOP_PER_SM_PER_LAUNCH;
}

/* Kernel 9's small tiles of doubles (64 x 64, 4 warps, two blocks an
   SM), fitted to the H100's times of 1 to 16 pieces at 12 shapes from
   256^3 to 4096^3 (bench/RESULTS.md): an SM's pair of blocks runs at
   0.64 of the large tiles' rate in the steady state (four times the
   bytes from L2 per flop), a round costs kc + 60 of k, and a block alone
   on its SM over a long k runs at 0.85 of its share of a pair.  They pay
   where the large tiles leave SMs idle: 256^3 in 4 pieces in clusters,
   0.90x -> 1.42x cuBLAS; 777x3001x555, 0.50x -> 0.93x.  */
#define K9_SMALL_EFFICIENCY (K9_EFFICIENCY * 0.64)
#define K9_SMALL_FILL_K 60.0
#define K9_SMALL_LONE 0.85
/* The busiest SM's share of `blocks` blocks of small tiles, each kc of
   k, spread over `sms` SMs.  */
static double
k9_small_work (double blocks, double sms, double kc)
{
  const double per = ceil (blocks / sms);
  return per * (double) GT_K9_SMALL_TILE * GT_K9_SMALL_TILE
         * (kc + K9_SMALL_FILL_K)
         / (K9_SMALL_EFFICIENCY * (per <= 1.0 ? K9_SMALL_LONE : 1.0));
}

/* Kernel 9 on the small tiles of doubles with k split sp ways (1: not
   split), the pieces added within a cluster or by the reduce.  */
static double
k9_small_cost (size_t m, size_t n, size_t k, int sp, int cluster)
{
  const gt_facts *f = gt_facts_current ();
  const double tiles = (double) gt_ceil_div (m, GT_K9_SMALL_TILE)
                       * (double) gt_ceil_div (n, GT_K9_SMALL_TILE);
  long long kc;
  const double z = (double) gt_k9_split_k (sp, k, &kc);
  if (z < 2)
    return k9_small_work (tiles, f->sms, (double) gt_ceil_div (k, 8) * 8)
           + FLOP_PER_SM_PER_LAUNCH;
  if (kc < 32)
    return HUGE_VAL;
  if (cluster)
    {
      const int slots = gt_k9_cluster_slots (GT_K9_SMALL_TILE, (int) z);
      const int occ = gt_k9_occupancy (GT_K9_SMALL_TILE);
      if (slots < z || occ < 1)
        return HUGE_VAL;
      return k9_small_work (tiles * z, (double) slots / occ, (double) kc)
             + ceil (tiles * z / slots) * K9_D_CLUSTER_ROUND
             + FLOP_PER_SM_PER_LAUNCH;
    }
  return k9_small_work (tiles * z, f->sms, (double) kc)
         + k9_d_sums_cost (z, m, n) + FLOP_PER_SM_PER_LAUNCH;
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
k9_tail_cost (gt_type type, size_t m, size_t n, size_t k, int *tail,
              int *splits)
{
  const gt_facts *f = gt_facts_current ();
  const long long tm = gt_ceil_div (m, GT_K9_TILE), tn = gt_ceil_div (n, GT_K9_TILE);
  const long long tiles = tm * tn, full = tiles / f->sms;
  const long long r = tiles - full * f->sms;
  double best = HUGE_VAL;
  *tail = 0;
  *splits = 1;
  if (k < K9_TAIL_MIN_K || full < 1 || r < 1)
    return best;
  /* more than a column's tiles: doubles take the last whole columns
     (1280x2048x1800: 150 tiles, 130 in one round and a tail of two
     columns) */
  const long long t = r <= tm ? r
                      : (type == GT_DOUBLE ? gt_ceil_div (r, tm) * tm : 0);
  if (t < 1 || t >= tiles || (t > tm && t / tm >= tn))
    return best;
  const size_t rows = t <= tm ? m - (size_t) (tm - t) * GT_K9_TILE : m;
  const size_t cols = n - (size_t) (tn - (t <= tm ? 1 : t / tm))
                          * GT_K9_TILE;
  /* the whole rounds, then the tail as a split product of its own after
     them (one launch more) */
  const double main_cost = (double) gt_ceil_div (tiles - t, f->sms)
                           * (double) GT_K9_TILE * GT_K9_TILE
                           * ((double) (gt_ceil_div (k, 8) * 8)
                              + k9_fill (type))
                           / K9_EFFICIENCY
                           + FLOP_PER_SM_PER_LAUNCH;
  for (long long sp = 2; sp <= f->sms / t && sp <= 64; sp++)
    {
      const double split = k9_split_cost (type, rows, cols, k, (int) sp, 0);
      if (split == HUGE_VAL)   /* pieces under 256: more splits, shorter */
        break;
      const double cost = main_cost + split;
      if (cost < best)
        {
          best = cost;
          *tail = (int) t;
          *splits = (int) sp;
        }
    }
  return best;
}

/* The families worth trying for k; returns how many were written.  */
static int
k8_families (gt_type type, size_t k, k8_family fam[4])
{
  const gt_facts *f = gt_facts_current ();
  int nf = 0;
  fam[nf].kernel = GT_K8_WIDE;
  fam[nf].mode = k8_mode (k);
  fam[nf].rows = GT_K8_TILE_N;
  fam[nf].occupancy = f->k8_occupancy;
  fam[nf].efficiency = K8_EFFICIENCY;
  fam[nf].fill = 0.0;
  fam[nf].copies = 0;
  fam[nf++].streamk = 0;
  if (k >= 2048 && f->k8_wide_occupancy > 0)
    for (int sk = 0; sk < 2; sk++)
      {
        fam[nf].kernel = GT_K8_WIDE;
        fam[nf].mode = K8_WIDE_MODE | (sk ? GT_K8_STREAMK : 0);
        fam[nf].rows = 256;
        fam[nf].occupancy = f->k8_wide_occupancy;
        fam[nf].efficiency = K8_WIDE_EFFICIENCY;
        fam[nf].fill = 0.0;
        fam[nf].copies = 0;
        fam[nf++].streamk = sk;
      }
  if (f->k9_usable)
    {
      fam[nf].kernel = GT_K9_DMMA;
      fam[nf].mode = 0;
      fam[nf].rows = GT_K9_TILE;
      fam[nf].occupancy = 1;
      fam[nf].efficiency = K9_EFFICIENCY;
      fam[nf].fill = k9_fill (type);
      fam[nf].copies = type == GT_DOUBLE;
      fam[nf++].streamk = 0;
    }
  return nf;
}

/* Kernel 8 or 9 of a family on an m x n x k product, in the units of
   choose_gemm.  */
static double
k8_cost (const k8_family *fam, size_t m, size_t n, size_t k, int repack)
{
  const gt_facts *f = gt_facts_current ();
  const double tiles = (double) gt_ceil_div (m, fam->rows)
                       * (double) gt_ceil_div (n, GT_K8_TILE_N);
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
  const double kc = (double) gt_ceil_div (k, 8) * 8 + fam->fill;
  /* kernel 8's passes over B (transposed) and an unaligned A; kernel 9's
     copies of unaligned doubles */
  const double passes
    = fam->kernel == GT_K9_DMMA
      ? (fam->copies && repack ? k9_copies_cost (m, n, k) : 0.0)
      : (8.0 * k * n + (repack ? 8.0 * m * k : 0.0)) * K8_FLOP_PER_SM_PER_BYTE;
  return rounds * occ * fam->rows * (double) GT_K8_TILE_N * kc / eff
         + passes + FLOP_PER_SM_PER_LAUNCH;
}

/* Kernel 5's pieces of k added within a cluster, the same bits without
   the partial sums' trip through device memory and the reduce's launch,
   where k is split 2 ways: H100, same runs, 1000^3 1.06-1.08x cuBLAS
   against 0.99-1.00x, 1024x4096x1024 0.85x against 0.83x.  With 3 or 4
   pieces the first block's adds, alone, cost more than the launch they
   save (512^3 1.22x against 1.39x, 1409x3000x777 0.75x against 0.81x;
   bench/RESULTS.md).  */
#define K5_CLUSTER_SPLITS 2

/* Kernels 4/5; *cost gets the winner's cost in flops of one SM.  */
extern "C" gt_plan
gt_cost_choose_k4 (gt_type type, size_t m, size_t n, size_t k, int only_cfg,
                   int only_splits, int repack, double *cost_out)
{
  const gt_facts *f = gt_facts_current ();
  gt_plan best = gt_plan_make (type, GT_K4_ASYNC);
  best.k4_config = 0;
  double best_cost = HUGE_VAL;
  for (int c = 0; c < GT_K4_CONFIG_COUNT; c++)
    {
      if (only_cfg >= 0 ? c != only_cfg : cfg_efficiency[c] == 0.0)
        continue;
      int bm, bn, bk, threads, smem;
      gt_k4_shape (c, &bm, &bn, &bk, &threads, &smem);
      const double tiles = (double) gt_ceil_div (m, bm)
                           * (double) gt_ceil_div (n, bn);
      size_t max_s = cap_splits (k, bk);
      while (max_s > 1 && max_s * m * n * gt_type_size (type) > MAX_SPLIT_BYTES)
        max_s /= 2;
      for (size_t s = 1; s <= max_s; s = s < 4 ? s + 1 : s * 2)
        {
          if (only_splits > 0 && (int) s != only_splits)
            continue;
          const double kc = (double) gt_ceil_div (gt_ceil_div (k, s), bk) * bk;
          const int thin = c == K4_THIN_CFG && only_cfg < 0;
          if (thin && (s > 1 || kc > K4_THIN_K))
            continue;
          /* Rounds of resident blocks on the busiest SM: blocks finish at
             different times, so a full SM works through its share
             continuously; an SM with fewer blocks than fit is as slow as
             a full round (latency-bound).  */
          const double per_sm = ceil (tiles * s / f->sms);
          const double occ = f->occupancy[c];
          const double rounds = per_sm <= occ ? 1.0 : per_sm / occ;
          /* time of a round on one SM, in flop units; the 128x64x32
             advantage was measured on full grids and long k only */
          /* a configuration kept out of the default choice (0) is
             priced as the unit where it is asked for: at 0 its cost was
             infinite and the plan fell back to configuration 0 */
          const double base = cfg_efficiency[c] > 0.0 ? cfg_efficiency[c]
                                                       : 1.0;
          const double eff = thin || (rounds > 1.0 && kc >= K4_LONG_K)
                             ? base : fmin (base, 1.0);
          double cost = rounds * occ * (double) bm * bn * kc / eff;
          if (s > 1)   /* partials written, read back, and the reduce launch */
            cost += (double) s * m * n * 8.0 * FLOP_PER_SM_PER_BYTE
                    + FLOP_PER_SM_PER_LAUNCH;
          if (cost < best_cost)
            {
              best_cost = cost;
              best.k4_config = c;
              best.splits = (int) s;
            }
        }
    }
  if (best.splits > 1)
    {
      best.kernel = GT_K5_SPLITK;
      best.cluster = best.splits == K5_CLUSTER_SPLITS
                     && best.splits <= gt_k4_cluster_max (best.k4_config);
    }
  best.work_bytes = gt_k4_row_work (&best, m, n, k, repack);
  if (cost_out)
    *cost_out = best_cost;
  return best;
}

/* y = A x with k in 8 pieces added within a cluster, not by a second
   kernel: measured on an H100 at 12 shapes against the same 8 pieces
   and the split below (bench/RESULTS.md), it wins where the rows are 8
   to 32 blocks of 128 and the split would be at most 32 ways (4096x4096:
   1.08-1.11x cuBLAS against 1.02-1.04x; 1000x1000: 1.66-1.87x against
   1.20-1.30x), and loses where more rows or a longer split give the
   pieces' kernel more blocks than 8-block clusters can (8192x8192 0.94x
   against 1.03-1.05x; 512x8192 0.78-0.84x against 1.14-1.18x).  */
#define K6_CLUSTER_SPLITS 8
static int
k6_cluster_pays (size_t m, size_t n, size_t k, size_t blocks, size_t s)
{
  return n == 1 && m > 1 && blocks >= 8 && blocks <= 32 && s <= 32
         && gt_ceil_div (k, 128) >= K6_CLUSTER_SPLITS
         && gt_k6_cluster_max () >= K6_CLUSTER_SPLITS;
}

extern "C" gt_plan
gt_cost_choose_k6 (gt_type type, size_t m, size_t n, size_t k,
                   int only_splits)
{
  const gt_facts *f = gt_facts_current ();
  gt_plan p = gt_plan_make (type, GT_K6_GEMV);
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
      if (s > (size_t) GT_GRID_YZ_MAX)
        s = (size_t) GT_GRID_YZ_MAX;
    }
  p.splits = (int) s;
  p.cluster = 0;
  if (only_splits <= 0 && k6_cluster_pays (m, n, k, blocks, s))
    {
      p.splits = K6_CLUSTER_SPLITS;
      p.cluster = 1;
    }
  p.work_bytes = gt_k6_row_work (&p, m, n, k, 0);
  return p;
}

/* A vector product streams its matrix once.  */
static double
gemv_cost (size_t m, size_t n, size_t k, const gt_plan *p)
{
  const double bytes = (double) gt_type_size (p->type) * (double) k
                       * (double) (m == 1 ? n : m);
  return bytes * FLOP_PER_SM_PER_BYTE
         + (p->splits > 1 && p->cluster <= 0 ? 2.0 : 1.0)
           * FLOP_PER_SM_PER_LAUNCH;
}


/* Kernel 10 (64x64 tiles, FP64 on the CUDA cores): about a quarter of
   kernel 4's 64x64x32 FP32 tiles per round (FP64 runs at half the FP32
   rate there, and the kernel is simpler); three blocks per SM.  A guess
   to order it after kernel 9, not a calibration.  */
#define K10_EFFICIENCY 0.25
#define K10_BLOCKS_PER_SM 3.0
static double
k10_cost (size_t m, size_t n, size_t k)
{
  const gt_facts *f = gt_facts_current ();
  const double tiles = (double) gt_ceil_div (m, 64) * gt_ceil_div (n, 64);
  const double rounds = ceil (ceil (tiles / f->sms) / K10_BLOCKS_PER_SM);
  return rounds * K10_BLOCKS_PER_SM * 64.0 * 64.0
         * (double) (gt_ceil_div (k, 16) * 16) / K10_EFFICIENCY
         + FLOP_PER_SM_PER_LAUNCH;
}

/* Kernel 10 on a vector side: k split until the blocks are eight per SM,
   each piece at least 128 long; the matrix streamed once.  Doubles on an
   H200 (bench/RESULTS.md, "Double vectors"), where the second kernel
   that adds the pieces and too many pieces of a short k cost more than
   the blocks gain: x'B takes pieces of at least 4096 of k (a warp's
   column streams 32 KiB; 1 x 4096 x 4096 in one piece 1.01-1.08x cuBLAS,
   in 3 pieces and their reduce 0.91-0.96x, 0.84x before x'B's loop kept
   four loads in flight); A x aims at four blocks per SM (4096 x 4096 in
   8 pieces); and where the pieces asked for are at most one more than a
   cluster may hold, they are added within a cluster of the largest
   power of two not above them (clusters of 3 ran below 2 and 4; at most
   8: 4096 x 4096 asks 9 and runs 8, 1.01-1.04x, where 17 pieces through
   the reduce took 0.87-0.91x), then no more than k allows.  Not measured
   between the powers (5 to 7 pieces asked take 4).  Complex vectors keep
   the rule they were measured with.  */
#define K10_D_COL_PIECE_MIN 4096
static size_t
k10_vector_splits (gt_type type, size_t m, size_t n, size_t k, size_t blocks,
                   int sms, int *cluster)
{
  const int dbl = type == GT_DOUBLE;
  const int rows = n == 1 && m > 1;
  const size_t want = (size_t) sms * (dbl && rows ? 4 : 8);
  const size_t least = dbl && !rows ? K10_D_COL_PIECE_MIN : 128;
  const size_t most = k / least < 1 ? 1 : k / least;
  const size_t raw = blocks == 0 || blocks >= want
                     ? 1 : gt_ceil_div (want, blocks);
  const size_t fits = dbl ? (size_t) gt_k10_cluster_max (type, m, n) : 0;
  size_t sp = raw;
  *cluster = 0;
  if (raw > 1 && fits >= 2 && raw <= fits + 1)
    {
      sp = 1;
      while (2 * sp <= raw && 2 * sp <= fits)
        sp *= 2;
      *cluster = 1;
    }
  while (*cluster && sp > most)   /* a power of two still */
    sp /= 2;
  if (sp > most)
    sp = most;
  if (sp > (size_t) GT_GRID_YZ_MAX)
    sp = (size_t) GT_GRID_YZ_MAX;
  if (sp < 2)
    *cluster = 0;
  return sp;
}

static double
k10_vector (gt_plan *p, size_t m, size_t n, size_t k)
{
  const gt_facts *f = gt_facts_current ();
  const size_t blocks
    = (n == 1 && m > 1)
      ? gt_ceil_div (m, gt_k10_vector_rows (gt_type_size (p->type), m,
                                            f->sms))
      : gt_ceil_div (n, 8);
  const size_t sp = k10_vector_splits (p->type, m, n, k, blocks, f->sms,
                                       &p->cluster);
  p->splits = (int) sp;
  const double bytes = (double) gt_type_size (p->type) * (double) k
                       * (double) (m == 1 ? n : m);
  return bytes * FLOP_PER_SM_PER_BYTE
         + (sp > 1 && !p->cluster ? 2.0 : 1.0) * FLOP_PER_SM_PER_LAUNCH;
}

extern "C" double
gt_cost_k10 (gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  (void) repack;
  *p = gt_plan_make (p->type, GT_K10_GENERIC);
  if (m == 1 || n == 1)
    {
      const double cost = k10_vector (p, m, n, k);
      p->work_bytes = gt_k10_row_work (p, m, n, k, 0);
      return cost;
    }
  return k10_cost (m, n, k);
}

static void k9_splits (gt_plan *p, double *best, size_t m, size_t n,
                       size_t k, int repack, int large);

/* The plan for a strip of C beside kernel 8's or 9's grid: what the
   default path would pick for it, kernels 8 and 9's large tiles aside
   (for double, kernel 10, or kernel 9's small tiles whole or with k
   split where they cost less: a thin strip over a long k).  */
extern "C" gt_plan
gt_plan_strip (gt_type type, size_t m, size_t n, size_t k, int repack,
               double *cost)
{
  if (type != GT_SINGLE)
    {
      gt_plan p = gt_plan_make (type, GT_K10_GENERIC);
      double c = gt_cost_k10 (&p, m, n, k, repack);
      if (type == GT_DOUBLE && gt_facts_current ()->k9_usable)
        k9_splits (&p, &c, m, n, k, repack, 0);
      if (cost)
        *cost = c;
      return p;
    }
  if (m == 1 || n == 1)
    {
      const gt_plan p = gt_cost_choose_k6 (type, m, n, k, 0);
      if (cost)
        *cost = gemv_cost (m, n, k, &p);
      return p;
    }
  return gt_cost_choose_k4 (type, m, n, k, -1, 0, repack, cost);
}

/* A family of kernel 8 or 9 over all of C, or over its whole tiles only,
   the strips of C left over going to gt_plan_strip.  A tiled kernel pays
   for its ragged last row or column of tiles with a whole round when the
   tile count just passes a multiple of the resident slots (4097^3: 33x33
   tiles, 4.1 rounds on 264 slots); covering the whole tiles only, it
   leaves the strips over to a kernel made for thin shapes.  *best is
   replaced by every choice cheaper than *best_cost.  */
static void
family_with_strips (const k8_family *family, gt_type type, size_t m,
                    size_t n, size_t k, int repack, gt_plan *best,
                    double *best_cost)
{
  const size_t rows = (size_t) family->rows;
  const size_t em = m % rows, en = n % GT_K8_TILE_N;
  /* t: bit 0 leaves the last em rows out, bit 1 the last en columns;
     bit 2: unaligned doubles read as they are, not copied */
  for (int t = 0; t < 8; t++)
    {
      if (t & 4 && !(family->copies && repack))
        break;
      k8_family f = *family;
      if (t & 4)
        {
          f.copies = 0;
          f.efficiency /= k9_as_is (repack);
        }
      const k8_family *fam = &f;
      const size_t er = (t & 1) ? em : 0, ec = (t & 2) ? en : 0;
      if ((t & 1 && (em == 0 || m < rows))
          || (t & 2 && (en == 0 || n < GT_K8_TILE_N)))
        continue;
      const size_t cm = m - er, cn = n - ec;
      double cost = k8_cost (fam, cm, cn, k, repack);
      double c_rows = 0.0, c_cols = 0.0;
      const int copies = fam->copies && repack;
      const size_t copied = copies ? gt_k9_repack_bytes (cm, cn, k) : 0;
      size_t work = fam->kernel == GT_K9_DMMA
                    ? copied : gt_k8_work_bytes (fam->mode, cm, cn, k, repack);
      if (er)
        {
          const gt_plan e = gt_plan_strip (type, er, n, k, repack, &c_rows);
          work = e.work_bytes > work ? e.work_bytes : work;
        }
      if (ec)
        {
          const gt_plan e = gt_plan_strip (type, cm, ec, k, repack, &c_cols);
          work = e.work_bytes > work ? e.work_bytes : work;
        }
      int tail = 0, tail_splits = 1;
      if (fam->kernel == GT_K9_DMMA)
        {
          int tl, ts;
          double ct = k9_tail_cost (type, cm, cn, k, &tl, &ts);
          if (copies)
            ct += k9_copies_cost (cm, cn, k);
          else if (t & 4)
            ct *= k9_as_is (repack);
          if (ct < cost)
            {
              cost = ct;
              tail = tl;
              tail_splits = ts;
              const size_t tw = copied
                                + gt_k9_tail_work_bytes (tl, ts, cm, cn, k);
              work = tw > work ? tw : work;
            }
        }
      cost += c_rows + c_cols;
      if (cost < *best_cost)
        {
          *best_cost = cost;
          *best = gt_plan_make (type, fam->kernel);
          best->k8_mode = fam->kernel == GT_K8_WIDE ? fam->mode : GT_CHOOSE;
          best->work_bytes = work;
          best->edge_rows = (int) er;
          best->edge_cols = (int) ec;
          best->tail = tail;
          best->tail_splits = tail_splits;
          best->repacked = copies;
        }
    }
}

/* ---- the proposals the registry lists ---- */

extern "C" double
gt_cost_k4 (gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  double cost;
  *p = gt_cost_choose_k4 (p->type, m, n, k, -1, 0, repack, &cost);
  return cost;
}

extern "C" double
gt_cost_k6 (gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  (void) repack;
  *p = gt_cost_choose_k6 (p->type, m, n, k, 0);
  return gemv_cost (m, n, k, p);
}

/* The best of the families of one kernel (8 or 9) for the shape.  */
static double
best_family (int kernel, gt_plan *p, size_t m, size_t n, size_t k,
             int repack)
{
  k8_family fam[4];
  const int nf = k8_families (p->type, k, fam);
  double best = HUGE_VAL;
  for (int fi = 0; fi < nf; fi++)
    if (fam[fi].kernel == kernel)
      family_with_strips (&fam[fi], p->type, m, n, k, repack, p, &best);
  return best;
}

/* Kernel 8's families: 128x128 tiles, and from k = 2048 256x128 tiles a
   block per tile or stream-K.  */
extern "C" double
gt_cost_k8 (gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  return best_family (GT_K8_WIDE, p, m, n, k, repack);
}

/* One of k9_splits' candidates: kernel 9 in tiles of `tile` (0: large),
   k split sp ways; v: bit 0 within a cluster (at most cmax), bit 1
   unaligned doubles read as they are (copies, gt_needs_repack's value:
   they would be copied).  *p and *best replaced where it costs less.  */
static void
k9_try_split (gt_plan *p, double *best, size_t m, size_t n, size_t k,
              int tile, int sp, int v, int copies, int cmax)
{
  const int cl = v & 1, cp = copies && !(v & 2);
  long long kc;
  /* clusters of 2, 4, 8 (512^3 in 6 took 0.70x cuBLAS, in 4 0.83x) */
  const long long z = gt_k9_split_k (sp, k, &kc);
  if ((cl && (z < 2 || z > cmax || (z & (z - 1)))) || (v & 2 && !copies))
    return;
  const double cost = (tile ? k9_small_cost (m, n, k, sp, cl)
                            : k9_split_cost (p->type, m, n, k, sp, cl))
                      * (copies && !cp ? k9_as_is (copies) : 1.0)
                      + (cp ? k9_copies_cost (m, n, k) : 0.0);
  if (!(cost < *best))
    return;
  *best = cost;
  const gt_type t = p->type;
  *p = gt_plan_make (t, GT_K9_DMMA);
  p->splits = sp;
  p->cluster = cl && z > 1;
  p->repacked = cp;
  p->k9_tile = tile ? GT_K9_SMALL_TILE : 0;
  p->work_bytes = (cl ? 0 : gt_k9_work_bytes (sp, m, n, k))
                  + (cp ? gt_k9_repack_bytes (m, n, k) : 0);
}

/* Kernel 9 with k split: on the large tiles (from 2 pieces) where `large`,
   and for doubles on the small ones (whole or split).  Doubles try every
   count to 16 (777x3001x555: 35 tiles fill the SMs three times over in 3
   pieces and 2.1 times in 8), then powers of 2; singles, which have
   kernel 5 for more, up to 8.  */
static void
k9_splits (gt_plan *p, double *best, size_t m, size_t n, size_t k,
           int repack, int large)
{
  const int dbl = p->type == GT_DOUBLE;
  const int most = dbl ? K9_MAX_SPLITS_D : K9_MAX_SPLITS;
  const int copies = dbl ? repack : 0;   /* gt_needs_repack's value */
  const int every = dbl ? 16 : 1;
  const int small = dbl && gt_k9_occupancy (GT_K9_SMALL_TILE) >= 2;
  for (int tile = large ? 0 : 1; tile <= small; tile++)
    {
      const int cmax = !dbl ? 0
                       : gt_k9_cluster_max (tile ? GT_K9_SMALL_TILE : 0);
      for (int sp = 2 - tile; sp <= most; sp = sp < every ? sp + 1 : sp * 2)
        for (int v = 0; v < 4; v++)
          k9_try_split (p, best, m, n, k, tile, sp, v, copies, cmax);
    }
}

/* Kernel 9 on its 128x128 tiles (with strips, and its last round's tiles
   split over k where that pays), or with k split where its tiles leave
   SMs idle (k9_splits).  */
extern "C" double
gt_cost_k9 (gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  double best = best_family (GT_K9_DMMA, p, m, n, k, repack);
  k9_splits (p, &best, m, n, k, repack, 1);
  return best;
}
