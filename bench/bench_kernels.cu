/* bench_kernels.cu -- times every gpu_tiled kernel against cuBLAS FP32.

   For each shape (m x k times k x n, column-major as in Octave) and each
   kernel: random zero-mean inputs, a poisoned output, the relative
   Frobenius error against an fp64 cuBLAS product of the same inputs, then
   warm-up runs and the median of timed runs (CUDA events), rotating
   between input sets when one set would sit in L2.  cuBLAS SGEMM runs in
   the same process with pedantic math (no TF32).

     bench_kernels [--check] [--digest] [--csv FILE] [--device NAME]
                   [--reps N] [--only NAME,...] [--shapes m,k,n;m,k,n;...]

   --check runs small awkward shapes once per kernel and exits non-zero on
   any error (for compute-sanitizer); --digest prints a hash of each
   result, to compare two builds bit for bit.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "gt_bench_kernels.h"

#define CK(call)                                                          \
  do {                                                                    \
    cudaError_t e_ = (call);                                              \
    if (e_ != cudaSuccess)                                                \
      {                                                                   \
        fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
                 cudaGetErrorString (e_));                                \
        exit (2);                                                         \
      }                                                                   \
  } while (0)
#define CB(call)                                                          \
  do {                                                                    \
    cublasStatus_t s_ = (call);                                           \
    if (s_ != CUBLAS_STATUS_SUCCESS)                                      \
      {                                                                   \
        fprintf (stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__,       \
                 __LINE__, #call, (int) s_);                              \
        exit (2);                                                         \
      }                                                                   \
  } while (0)

/* ---- inputs and checks on the device ---- */

__device__ unsigned
hash32 (unsigned x)
{
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/* Standard normal values (Box-Muller on a hashed counter).  */
__global__ void
fill_randn (float *x, size_t n, unsigned seed)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    {
      unsigned h1 = hash32 ((unsigned) i * 2u + seed * 0x9e3779b9u);
      unsigned h2 = hash32 (h1 ^ 0x85ebca6bu ^ (unsigned) (i >> 32));
      float u1 = (h1 + 1.0f) / 4294967296.0f, u2 = h2 / 4294967296.0f;
      x[i] = sqrtf (-2.0f * logf (u1)) * cospif (2.0f * u2);
    }
}

__global__ void
to_double (const float *x, double *y, size_t n)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    y[i] = x[i];
}

/* sums[0] += (c - r)^2, sums[1] += r^2, sums[2] += count of non-finite c */
__global__ void
diff_norms (const float *c, const double *r, size_t n, double *sums)
{
  double d = 0.0, q = 0.0, bad = 0.0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    {
      const double e = (double) c[i] - r[i];
      d += e * e;
      q += r[i] * r[i];
      bad += isfinite (c[i]) ? 0.0 : 1.0;
    }
  atomicAdd (&sums[0], d);
  atomicAdd (&sums[1], q);
  atomicAdd (&sums[2], bad);
}

static unsigned
grid_for (size_t n)
{
  size_t b = (n + 255) / 256;
  return (unsigned) (b > 4096 ? 4096 : (b ? b : 1));
}

/* ---- what runs ---- */

typedef struct
{
  char name[32];
  int use_cublas;
  gt_plan plan;
} variant;

typedef struct
{
  size_t m, n, k;
  int sets;
  float *A[8], *B[8], *C;
  double *ref;
  void *work;
  size_t work_bytes;
} problem;

static cublasHandle_t blas;

/* A plan of one kernel: `variant` is its configuration (kernels 4/5),
   mode (8) or blocks per SM (7), GT_CHOOSE to let the dispatcher pick;
   splits 0 likewise.  */
static gt_plan
fixed (int kernel, int splits, int variant, const problem *p, int repack)
{
  gt_plan want = gt_plan_make (GT_SINGLE, kernel);
  want.splits = splits;
  want.k4_config = kernel == GT_K4_ASYNC || kernel == GT_K5_SPLITK
                   ? variant : GT_CHOOSE;
  want.k8_mode = kernel == GT_K8_WIDE ? variant : GT_CHOOSE;
  want.min_blocks = kernel == GT_K7_REGDB ? variant : GT_CHOOSE;
  return gt_plan_fixed (&want, p->m, p->n, p->k, repack);
}

/* The plug-in's kernels through the registry; the steps only the
   benchmark builds (2, 3, 7) directly.  */
static cudaError_t
bench_run (const gt_plan *plan, const float *A, const float *B,
           const problem *p, cudaStream_t s)
{
  const gt_gemm_args g = { A, p->m, B, p->k, p->C, p->m, p->m, p->n, p->k,
                           p->work };
  switch (plan->kernel)
    {
    case GT_K2_REGBLOCK:
      return gt_k2_regblock (A, p->m, B, p->k, p->C, p->m, p->m, p->n, p->k,
                             s);
    case GT_K3_VECTOR:
      return gt_k3_vector (A, p->m, B, p->k, p->C, p->m, p->m, p->n, p->k, s);
    case GT_K7_REGDB:
      return gt_k7_regdb (plan->min_blocks, A, p->m, B, p->k, p->C, p->m,
                          p->m, p->n, p->k, s);
    default:
      return gt_gemm_run (plan, &g, s);
    }
}

/* The product planned as `whole` run once, then in pieces of kc of k run
   in order by gt_gemm_piece with scratch `work` (kernel 4: pieces of its
   own configuration, each added to C; others: gt_plan_piece), as the
   host path runs its first panel: the bits must be those of one pass.
   one, parts: room for C on the host.  Prints the outcome; returns 1
   where the bits differ.  */
static int
pieces_differ (const char *name, problem *p, const gt_plan *whole,
               int repack, size_t kc, void *work, float *one, float *parts,
               cudaStream_t s)
{
  const size_t c_bytes = p->m * p->n * sizeof (float);
  CK (cudaMemset (p->C, 0xff, c_bytes));
  const gt_gemm_args all = { p->A[0], p->m, p->B[0], p->k, p->C, p->m,
                             p->m, p->n, p->k, p->work };
  CK (gt_gemm_run (whole, &all, s));
  CK (cudaMemcpy (one, p->C, c_bytes, cudaMemcpyDeviceToHost));
  CK (cudaMemset (p->C, 0xff, c_bytes));
  for (size_t k0 = 0; k0 < p->k; k0 += kc)
    {
      const size_t k1 = k0 + kc < p->k ? k0 + kc : p->k;
      gt_plan want = gt_plan_make (GT_SINGLE, GT_K4_ASYNC);
      want.k4_config = whole->k4_config;
      const gt_plan pc = whole->kernel == GT_K4_ASYNC
        ? gt_plan_fixed (&want, p->m, p->n, k1 - k0, repack)
        : gt_plan_piece (whole, p->m, p->n, k1 - k0);
      const gt_gemm_args g = { p->A[0] + k0 * p->m, p->m, p->B[0] + k0,
                               p->k, p->C, p->m, p->m, p->n, k1 - k0, work };
      CK (gt_gemm_piece (&pc, k0 == 0, k1 == p->k, &g, s));
    }
  CK (cudaMemcpy (parts, p->C, c_bytes, cudaMemcpyDeviceToHost));
  const int same = memcmp (one, parts, c_bytes) == 0;
  printf ("%-14s %6zu %6zu %6zu  pieces of k = %zu: %s\n", name, p->m,
          p->n, p->k, kc, same ? "same bits as one pass" : "DIFFERENT  FAIL");
  return !same;
}

static void
run_variant (const variant *v, problem *p, int set, cudaStream_t s)
{
  const float one = 1.0f, zero = 0.0f;
  if (v->use_cublas)
    {
      if (p->m == 0 || p->n == 0)
        return;
      CB (cublasSgemm (blas, CUBLAS_OP_N, CUBLAS_OP_N, (int) p->m,
                       (int) p->n, (int) p->k, &one, p->A[set],
                       (int) p->m, p->B[set], (int) p->k, &zero, p->C,
                       (int) p->m));
      return;
    }
  CK (bench_run (&v->plan, p->A[set], p->B[set], p, s));
}

/* FNV-1a over C's bytes: --digest prints one per variant and shape, so
   that two builds' results can be compared bit for bit with diff.  */
static void
print_digest (const char *name, const problem *p)
{
  const size_t bytes = p->m * p->n * sizeof (float);
  unsigned char *h = (unsigned char *) malloc (bytes ? bytes : 1);
  CK (cudaMemcpy (h, p->C, bytes, cudaMemcpyDeviceToHost));
  unsigned long long x = 1469598103934665603ULL;
  for (size_t i = 0; i < bytes; i++)
    {
      x ^= h[i];
      x *= 1099511628211ULL;
    }
  free (h);
  printf ("digest %-14s %6zu %6zu %6zu %016llx\n", name, p->m, p->n, p->k,
          x);
}

static double
rel_error (problem *p, double *sums, int *nonfinite)
{
  const size_t mn = p->m * p->n;
  CK (cudaMemset (sums, 0, 3 * sizeof (double)));
  diff_norms<<<grid_for (mn), 256>>> (p->C, p->ref, mn, sums);
  CK (cudaGetLastError ());
  double h[3];
  CK (cudaMemcpy (h, sums, sizeof h, cudaMemcpyDeviceToHost));
  *nonfinite = (int) h[2];
  return h[1] > 0 ? sqrt (h[0] / h[1]) : sqrt (h[0]);
}

/* Kernel 8/9 plans that leave strips of C to other kernels say so, and
   kernel 9 plans that split the last round's tiles over k.  */
static const char *
edge_note (const gt_plan *p)
{
  static char note[96];
  note[0] = 0;
  if (p->edge_rows || p->edge_cols)
    snprintf (note, sizeof note, ", edges %d rows %d cols", p->edge_rows,
              p->edge_cols);
  if (p->tail)
    snprintf (note + strlen (note), sizeof note - strlen (note),
              ", last %d tiles split %d", p->tail, p->tail_splits);
  return note;
}

/* --only: a comma-separated list of variant names.  */
static int
selected (const char *only, const char *name)
{
  if (!only)
    return 1;
  const size_t len = strlen (name);
  for (const char *s = only; *s; )
    {
      const char *e = strchr (s, ',');
      const size_t n = e ? (size_t) (e - s) : strlen (s);
      if (n == len && !strncmp (s, name, n))
        return 1;
      s += n + (e != NULL);
    }
  return 0;
}

static int
cmp_float (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

static int
parse_shapes (const char *spec, size_t (*shapes)[3], int max)
{
  int count = 0;
  const char *s = spec;
  while (*s && count < max)
    {
      unsigned long long m, k, n;
      int used = 0;
      if (sscanf (s, "%llu,%llu,%llu%n", &m, &k, &n, &used) != 3)
        break;
      shapes[count][0] = m; shapes[count][1] = k; shapes[count][2] = n;
      count++;
      s += used;
      while (*s == ';' || *s == ' ')
        s++;
    }
  return count;
}

int
main (int argc, char **argv)
{
  int check = 0, reps = 21, own_shapes = 0, digest = 0;
  const char *csv = NULL, *device = NULL, *only = NULL;
  const char *spec = "4096,4096,4096;8192,8192,8192;256,256,256;"
    "512,512,512;1000,1000,1000;2048,2048,2048;4097,4097,4097;"
    "3000,700,5000;65536,64,64;64,65536,64;128,65536,128;1,4096,4096;"
    "4096,4096,1";
  for (int i = 1; i < argc; i++)
    {
      if (!strcmp (argv[i], "--check"))
        check = 1;
      else if (!strcmp (argv[i], "--digest"))
        digest = 1;
      else if (!strcmp (argv[i], "--csv") && i + 1 < argc)
        csv = argv[++i];
      else if (!strcmp (argv[i], "--device") && i + 1 < argc)
        device = argv[++i];
      else if (!strcmp (argv[i], "--reps") && i + 1 < argc)
        reps = atoi (argv[++i]);
      else if (!strcmp (argv[i], "--only") && i + 1 < argc)
        only = argv[++i];
      else if (!strcmp (argv[i], "--shapes") && i + 1 < argc)
        {
          spec = argv[++i];
          own_shapes = 1;
        }
      else
        {
          fprintf (stderr, "usage: %s [--check] [--csv FILE] [--device NAME]"
                   " [--reps N] [--only NAME,...] [--shapes m,k,n;...]\n", argv[0]);
          return 2;
        }
    }
  if (check && !own_shapes)
    spec = "1,1,1;2,3,5;7,11,13;31,33,29;65,17,63;129,127,131;"
      "257,300,255;1,300,257;257,300,1;1,1000,1;5,2000,7;200,4100,100;"
      "130,3,260;4,8,12";

  size_t shapes[64][3];
  const int nshapes = parse_shapes (spec, shapes, 64);
  struct cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));
  char date[32];
  time_t now = time (NULL);
  strftime (date, sizeof date, "%Y-%m-%d", gmtime (&now));
  if (!device)
    device = prop.name;
  CB (cublasCreate (&blas));
  CB (cublasSetMathMode (blas, CUBLAS_PEDANTIC_MATH));
  cudaStream_t stream = 0;
  cudaEvent_t e0, e1;
  CK (cudaEventCreate (&e0));
  CK (cudaEventCreate (&e1));
  double *sums;
  CK (cudaMalloc (&sums, 3 * sizeof (double)));
  FILE *out = csv ? fopen (csv, "w") : NULL;
  if (out)
    fprintf (out, "device,date,kernel,m,n,k,ms,tflops,vs_cublas,rel_err\n");
  printf ("%s, %d SMs, L2 %d MiB; %s\n", prop.name, prop.multiProcessorCount,
          prop.l2CacheSize >> 20, date);
  printf ("%-14s %6s %6s %6s %10s %9s %8s %10s\n", "kernel", "m", "n", "k",
          "ms", "TFLOP/s", "vs_cublas", "rel_err");
  int failures = 0;

  for (int si = 0; si < nshapes; si++)
    {
      problem p;
      memset (&p, 0, sizeof p);
      p.m = shapes[si][0]; p.k = shapes[si][1]; p.n = shapes[si][2];
      const size_t a_n = p.m * p.k, b_n = p.k * p.n, c_n = p.m * p.n;
      const size_t set_bytes = (a_n + b_n) * sizeof (float);
      /* Enough sets that one timed run never finds its inputs in L2.  */
      p.sets = check ? 1 : (int) ((3.0 * prop.l2CacheSize) / set_bytes) + 1;
      if (p.sets > 8)
        p.sets = 8;
      for (int s = 0; s < p.sets; s++)
        {
          CK (cudaMalloc (&p.A[s], a_n * sizeof (float) + 16));
          CK (cudaMalloc (&p.B[s], b_n * sizeof (float) + 16));
          fill_randn<<<grid_for (a_n), 256>>> (p.A[s], a_n, 1000 * si + 2 * s);
          fill_randn<<<grid_for (b_n), 256>>> (p.B[s], b_n,
                                               1000 * si + 2 * s + 1);
          CK (cudaGetLastError ());
        }
      CK (cudaMalloc (&p.C, c_n * sizeof (float) + 16));
      CK (cudaMalloc (&p.ref, c_n * sizeof (double) + 16));
      {
        double *Ad, *Bd;
        const double one = 1.0, zero = 0.0;
        CK (cudaMalloc (&Ad, a_n * sizeof (double) + 16));
        CK (cudaMalloc (&Bd, b_n * sizeof (double) + 16));
        to_double<<<grid_for (a_n), 256>>> (p.A[0], Ad, a_n);
        to_double<<<grid_for (b_n), 256>>> (p.B[0], Bd, b_n);
        CB (cublasDgemm (blas, CUBLAS_OP_N, CUBLAS_OP_N, (int) p.m,
                         (int) p.n, (int) p.k, &one, Ad, (int) p.m, Bd,
                         (int) p.k, &zero, p.ref, (int) p.m));
        CK (cudaDeviceSynchronize ());
        CK (cudaFree (Ad));
        CK (cudaFree (Bd));
      }

      /* The variants: cuBLAS first (its time is the yardstick).  */
      variant vs[40];
      int nv = 0;
      memset (vs, 0, sizeof vs);
      const int repack = gt_needs_repack (GT_SINGLE, p.A[0], p.m, p.B[0],
                                          p.k);
      strcpy (vs[nv].name, "cublas"); vs[nv++].use_cublas = 1;
      /* the default path right after it: a long sweep warms the GPU into
         its power limit (H200, 8192^3: kernel 9 1.10x cuBLAS timed first,
         1.05x timed after the other 30 variants) */
      strcpy (vs[nv].name, "default");
      vs[nv++].plan = gt_plan_for (GT_SINGLE, p.m, p.n, p.k, 0, repack);
      const int tiles[3] = { 8, 16, 32 };
      for (int t = 0; t < 3; t++)
        {
          snprintf (vs[nv].name, sizeof vs[nv].name, "k1_tile%d", tiles[t]);
          vs[nv++].plan = gt_plan_for (GT_SINGLE, p.m, p.n, p.k, tiles[t], 0);
        }
      strcpy (vs[nv].name, "k2_regblock");
      vs[nv++].plan = fixed (GT_K2_REGBLOCK, 0, GT_CHOOSE, &p, 0);
      strcpy (vs[nv].name, "k3_vector");
      vs[nv++].plan = fixed (GT_K3_VECTOR, 0, GT_CHOOSE, &p, 0);
      for (int c = 0; c < GT_K4_CONFIG_COUNT; c++)
        {
          snprintf (vs[nv].name, sizeof vs[nv].name, "k4_cfg%d", c);
          vs[nv++].plan = fixed (GT_K4_ASYNC, 1, c, &p, repack);
        }
      strcpy (vs[nv].name, "k5_splitk");
      vs[nv++].plan = fixed (GT_K5_SPLITK, 0, GT_CHOOSE, &p, repack);
      if (p.m == 1 || p.n == 1)
        {
          strcpy (vs[nv].name, "k6_gemv");
          vs[nv++].plan = fixed (GT_K6_GEMV, 0, GT_CHOOSE, &p, 0);
        }
      for (int minb = 1; minb <= 2; minb++)
        {
          snprintf (vs[nv].name, sizeof vs[nv].name, "k7_regdb_b%d", minb);
          vs[nv++].plan = fixed (GT_K7_REGDB, 0, minb, &p, 0);
        }
      const int k8_cfgs[] = { 0, 1, 3, 7, 11, 15, 31 };
      for (int c = 0; c < 7; c++)
        {
          snprintf (vs[nv].name, sizeof vs[nv].name, "k8_wide_c%d", k8_cfgs[c]);
          vs[nv++].plan = fixed (GT_K8_WIDE, 0, k8_cfgs[c], &p, repack);
        }
      if (gt_k9_usable ())
        {
          strcpy (vs[nv].name, "k9_dmma");
          vs[nv++].plan = fixed (GT_K9_DMMA, 0, GT_CHOOSE, &p, repack);
          for (int sp = 2; sp <= 8; sp *= 2)
            {
              snprintf (vs[nv].name, sizeof vs[nv].name, "k9_split%d", sp);
              vs[nv++].plan = fixed (GT_K9_DMMA, sp, GT_CHOOSE, &p,
                                     repack);
            }
          if (check)
            {
              /* the tail split on any shape: the bottom half of the last
                 column of tiles split 4 ways over k, the rest in one
                 launch (all of C where it is one column of tiles) */
              gt_plan t9 = fixed (GT_K9_DMMA, 0, GT_CHOOSE, &p, repack);
              t9.tail = (int) ((p.m + 255) / 256);
              t9.tail_splits = 4;
              t9.work_bytes = gt_k9_tail_work_bytes (t9.tail, 4, p.m, p.n,
                                                     p.k);
              strcpy (vs[nv].name, "k9_tail");
              vs[nv++].plan = t9;
            }
        }
      int kept = 0;
      for (int v = 0; v < nv; v++)
        if (selected (only, vs[v].name))
          vs[kept++] = vs[v];
      nv = kept;
      for (int v = 0; v < nv; v++)
        if (vs[v].plan.work_bytes > p.work_bytes)
          p.work_bytes = vs[v].plan.work_bytes;
      /* and the scratch of the accumulation check below, whatever --only
         kept */
      const size_t acc_work = fixed (GT_K4_ASYNC, 1, GT_CFG_64x64_K32, &p, repack).work_bytes;
      if (check && acc_work > p.work_bytes)
        p.work_bytes = acc_work;
      if (p.work_bytes)
        CK (cudaMalloc (&p.work, p.work_bytes));

      double cublas_ms = 0.0;
      for (int v = 0; v < nv; v++)
        {
          /* correctness on poisoned output */
          CK (cudaMemset (p.C, 0xff, c_n * sizeof (float)));
          run_variant (&vs[v], &p, 0, stream);
          CK (cudaDeviceSynchronize ());
          int nonfinite = 0;
          const double err = rel_error (&p, sums, &nonfinite);
          /* FP32 sums over k: a few eps * sqrt(k) typically; allow far
             more, while TF32 (~1e-3) or an unwritten element fails.  */
          const int bad = nonfinite > 0 || !(err < 1e-4);
          failures += bad;
          if (digest)
            print_digest (vs[v].name, &p);

          float med = 0.0f;
          if (!check)
            {
              const int warm = 3;
              float t[101];
              const int n = reps > 101 ? 101 : (reps < 1 ? 1 : reps);
              for (int r = 0; r < warm; r++)
                run_variant (&vs[v], &p, r % p.sets, stream);
              for (int r = 0; r < n; r++)
                {
                  CK (cudaEventRecord (e0, stream));
                  run_variant (&vs[v], &p, r % p.sets, stream);
                  CK (cudaEventRecord (e1, stream));
                  CK (cudaEventSynchronize (e1));
                  CK (cudaEventElapsedTime (&t[r], e0, e1));
                }
              qsort (t, n, sizeof (float), cmp_float);
              med = t[n / 2];
              if (vs[v].use_cublas)
                cublas_ms = med;
            }
          const double tflops = med > 0 ? 2.0 * p.m * p.n * p.k / (med * 1e9)
                                        : 0.0;
          const double ratio = med > 0 ? cublas_ms / med : 0.0;
          printf ("%-14s %6zu %6zu %6zu %10.4f %9.2f %8.3f %10.2e%s",
                  vs[v].name, p.m, p.n, p.k, med, tflops, ratio, err,
                  bad ? "  FAIL" : "");
          if (!vs[v].use_cublas && vs[v].plan.kernel >= GT_K4_ASYNC)
            printf ("  (kernel %d %s %d splits %d%s)", vs[v].plan.kernel,
                    vs[v].plan.kernel == GT_K8_WIDE ? "mode" : "cfg",
                    vs[v].plan.kernel == GT_K8_WIDE ? vs[v].plan.k8_mode
                    : (vs[v].plan.kernel <= GT_K5_SPLITK
                       ? vs[v].plan.k4_config : 0),
                    vs[v].plan.splits, edge_note (&vs[v].plan));
          printf ("\n");
          if (out)
            fprintf (out, "%s,%s,%s,%zu,%zu,%zu,%.5f,%.3f,%.4f,%.3e\n",
                     device, date, vs[v].name, p.m, p.n, p.k, med, tflops,
                     ratio, err);
        }
      if (check && p.k >= 3 && p.m > 0 && p.n > 0)
        {
          /* Kernel 4 over pieces of k, each added to C, and kernel 9,
             its double sums carried from piece to piece in scratch.  */
          float *whole = (float *) malloc (c_n * sizeof (float));
          float *parts = (float *) malloc (c_n * sizeof (float));
          const size_t kc = (p.k / 3 + 31) / 32 * 32;   /* >= 32 */
          const gt_plan one = fixed (GT_K4_ASYNC, 1, GT_CFG_64x64_K32, &p,
                                     repack);
          failures += pieces_differ ("k4_accumulate", &p, &one, repack, kc,
                                     p.work, whole, parts, stream);
          if (gt_k9_usable ())
            {
              const gt_plan w9 = fixed (GT_K9_DMMA, 0, GT_CHOOSE, &p,
                                        repack);
              void *part = NULL;
              CK (cudaMalloc (&part, p.m * p.n * sizeof (double)));
              failures += pieces_differ ("k9_pieces", &p, &w9, repack, kc,
                                         part, whole, parts, stream);
              CK (cudaFree (part));
            }
          /* Kernel 8's stream-K continues a tile cut between two blocks
             from the first block's partial sums: the bits of the kernel
             with a block per tile.  */
          int sk_same = 1;
          for (int sk = 0; sk < 2; sk++)
            {
              const int mode = GT_K8_DEFAULT_MODE | GT_K8_K16 | GT_K8_BM256
                               | (sk ? GT_K8_STREAMK : 0);
              const gt_plan pk = fixed (GT_K8_WIDE, 1, mode, &p, repack);
              if (pk.work_bytes > p.work_bytes)
                break;
              CK (cudaMemset (p.C, 0xff, c_n * sizeof (float)));
              CK (bench_run (&pk, p.A[0], p.B[0], &p, stream));
              CK (cudaMemcpy (sk ? parts : whole, p.C, c_n * sizeof (float),
                              cudaMemcpyDeviceToHost));
              if (sk)
                {
                  sk_same = memcmp (whole, parts, c_n * sizeof (float)) == 0;
                  printf ("%-14s %6zu %6zu %6zu  stream-K: %s\n",
                          "k8_stream", p.m, p.n, p.k,
                          sk_same ? "same bits as a block per tile"
                                  : "DIFFERENT  FAIL");
                }
            }
          failures += !sk_same;
          free (whole);
          free (parts);
        }
      fflush (stdout);
      for (int s = 0; s < p.sets; s++)
        {
          CK (cudaFree (p.A[s]));
          CK (cudaFree (p.B[s]));
        }
      CK (cudaFree (p.C));
      CK (cudaFree (p.ref));
      if (p.work)
        CK (cudaFree (p.work));
    }
  if (out)
    fclose (out);
  cublasDestroy (blas);
  printf ("%s: %d failures\n", check ? "check" : "bench", failures);
  return failures ? 1 : 0;
}
