/* The policy of kernel 11 (single products emulated on the INT8 tensor
   cores, kernels/gt_k11_ozaki.cu): where it runs, what it is predicted to
   cost, and what runs instead where the scan of the operands finds that no
   affordable number of moduli promises single precision (kernel 9).  The
   kernel's file holds the mechanism; this file decides.  */

#include <math.h>
#include <string.h>
#include "gt_costs.h"
#include "gt_facts.h"
#include "gt_k11_ozaki.h"

static int emulation = GT_EMULATE_COST;
static unsigned long long emulated, declined;
static int last_moduli;

/* Measured on an H100 (bench/RESULTS.md, kernel 11): kernel 9's rate at
   8192^3, the INT8 products' rate per SM, the rate of the memory
   passes (scan, slices, residues, combine) and their fixed cost (six
   launches, the wait for the scan's choice, and what the model misses at
   mid sizes: 60 us let 1409x3000x777 onto kernel 11, 10% slower there).  */
#define K9_FLOPS 57e12
#define INT8_OPS 1.2e15
#define PASS_BYTES 1.8e12
#define FIXED_S 100e-6
/* Emulation is chosen where predicted at least this much faster.  */
#define MARGIN 1.15

extern "C" void
gt_plan_set_emulation (int mode)
{
  emulation = mode;
}

extern "C" int
gt_k11_usable (void)
{
  const gt_device_props *d = gt_device_props_current ();
  return d && d->cc_major == 9 && d->cc_minor == 0
         && strstr (gt_build_archs (), "sm_90a") != NULL
         && d->smem_block_optin >= gt_oz_smem_bytes ();
}

/* Seconds of kernel 11 with the usual 8 moduli.  */
static double
k11_seconds (size_t m, size_t n, size_t k, int sms)
{
  const int moduli = 8;
  gt_oz_work w;
  gt_oz_layout (&w, moduli, m, n, k, NULL);
  const double tiles = (double) (w.mp / GT_OZ_TILE_M) * (w.np / GT_OZ_TILE_N);
  const double rounds = ceil (tiles * moduli / sms);
  const double tile_s = 2.0 * GT_OZ_TILE_M * GT_OZ_TILE_N * w.kp
                        / (INT8_OPS / sms);
  const double bytes = 8.0 * (m * k + k * n)
                       + moduli * (double) (w.mp + w.np) * w.kp
                       + 2.0 * moduli * w.ldr * n + 4.0 * m * n;
  return rounds * tile_s + bytes / PASS_BYTES + FIXED_S;
}

/* Kernel 9's plan for the shape: what runs where the scan declines, and
   the yardstick of the cost.  */
static double
k9_plan (gt_plan *p9, size_t m, size_t n, size_t k, int repack)
{
  *p9 = gt_plan_make (GT_SINGLE, GT_K9_DMMA);
  if (!gt_k9_usable ())
    return HUGE_VAL;
  return gt_cost_k9 (p9, m, n, k, repack);
}

/* The costs' unit in seconds: kernel 9's cost of 8192^3 against its
   measured time there (its cost model then says how other shapes fare).  */
static double
seconds_per_cost (int repack)
{
  const double n = 8192;
  gt_plan p9;
  const double c = k9_plan (&p9, 8192, 8192, 8192, repack);
  return 2 * n * n * n / K9_FLOPS / c;
}

/* Scratch for the scan's largest choice, or for kernel 9 (p9, the plan it
   runs where the scan declines), whichever is more.  */
static size_t
k11_work (const gt_plan *p9, size_t m, size_t n, size_t k)
{
  gt_oz_work w;
  gt_oz_layout (&w, GT_OZ_MAX_USED, m, n, k, NULL);
  return w.bytes > p9->work_bytes ? w.bytes : p9->work_bytes;
}

extern "C" double
gt_cost_k11 (gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  if (emulation == GT_EMULATE_OFF || p->type != GT_SINGLE
      || k > GT_OZ_MAX_K || !gt_k11_usable ())
    return HUGE_VAL;
  gt_plan p9;
  const double c9 = k9_plan (&p9, m, n, k, repack);
  if (!(c9 < HUGE_VAL))
    return HUGE_VAL;
  p->work_bytes = k11_work (&p9, m, n, k);
  if (emulation == GT_EMULATE_ALWAYS)
    return 0;
  const double unit = seconds_per_cost (repack);
  const double t9 = c9 * unit;
  const double t11 = k11_seconds (m, n, k, gt_facts_current ()->sms);
  return t11 * MARGIN < t9 ? t11 / unit : HUGE_VAL;
}

extern "C" size_t
gt_k11_row_work (const gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  (void) p;
  gt_plan p9;
  k9_plan (&p9, m, n, k, repack);
  return k11_work (&p9, m, n, k);
}

/* The scan, its choice read back (the one wait inside a plan's run: the
   launches after it depend on it), then the emulated product or kernel
   9's.  */
extern "C" cudaError_t
gt_k11_row_launch (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  (void) p;
  if (a->m == 0 || a->n == 0)
    return cudaSuccess;
  gt_oz_work w;
  gt_oz_layout (&w, GT_OZ_MAX_USED, a->m, a->n, a->k, a->work);
  const float *A = (const float *) a->A, *B = (const float *) a->B;
  int moduli = 0;
  cudaError_t err = gt_oz_scan (&w, A, a->lda, B, a->ldb, s);
  if (err == cudaSuccess)
    err = cudaMemcpyAsync (&moduli, w.choice, sizeof moduli,
                           cudaMemcpyDeviceToHost, s);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize (s);
  if (err != cudaSuccess)
    return err;
  if (moduli == 0)
    {
      __atomic_fetch_add (&declined, 1, __ATOMIC_RELAXED);
      gt_plan p9;
      k9_plan (&p9, a->m, a->n, a->k,
               gt_needs_repack (GT_SINGLE, a->A, a->lda, a->B, a->ldb));
      return gt_gemm_run (&p9, a, s);
    }
  __atomic_fetch_add (&emulated, 1, __ATOMIC_RELAXED);
  __atomic_store_n (&last_moduli, moduli, __ATOMIC_RELAXED);
  gt_oz_layout (&w, moduli, a->m, a->n, a->k, a->work);
  if ((err = gt_oz_slice (&w, A, a->lda, B, a->ldb, s)) != cudaSuccess
      || (err = gt_oz_products (&w, s)) != cudaSuccess)
    return err;
  return gt_oz_combine (&w, (float *) a->C, a->ldc, s);
}

extern "C" void
gt_k11_forget (void)
{
  gt_oz_forget ();
}

extern "C" void
gt_emulation_forget (void)
{
  __atomic_store_n (&emulated, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&declined, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&last_moduli, 0, __ATOMIC_RELAXED);
}

extern "C" void
gt_emulation_get (gt_emulation_info *info)
{
  memset (info, 0, sizeof *info);
  info->products = __atomic_load_n (&emulated, __ATOMIC_RELAXED);
  info->declined = __atomic_load_n (&declined, __ATOMIC_RELAXED);
  info->last_moduli = __atomic_load_n (&last_moduli, __ATOMIC_RELAXED);
  info->mode = emulation;
  info->usable = gt_k11_usable ();
}
