/* bench_kernels.cu -- times every gpu_tiled kernel against cuBLAS FP32, and
   the package's default path for double, complex single and complex
   double against cuBLAS DGEMM, CGEMM and ZGEMM.

   For each shape (m x k times k x n, column-major as in Octave) and each
   kernel: random zero-mean inputs, a poisoned output, the relative
   Frobenius error against an fp64 cuBLAS product of the same inputs, then
   warm-up runs and the median of timed runs (CUDA events), rotating
   between input sets when one set would sit in L2.  cuBLAS runs in the
   same process with pedantic math (no TF32).

   On Hopper the single rows end with kernel 11's (--only k11 keeps
   them): k11_nN, the emulated product with the N moduli its scan chooses,
   then its stages alone (k11_nN_scan, _slice, _products, _combine) and
   cuBLAS's INT8 GEMM on the same residue planes (cublas_int8, and
   cublas_int8_xN: N of them); the products' and INT8 rows' TFLOP/s are
   INT8 TOPS, and every vs_cublas there is cuBLAS SGEMM's time over the
   row's.

   After a shape's single rows come, each on fresh inputs of its type,
   cublas_d and default_d (cublasDgemm; gt_mtimes_device with GT_DOUBLE),
   cublas_c and default_c (cublasCgemm; complex single), cublas_z and
   default_z (cublasZgemm; complex double).  vs_cublas of default_X is
   against cublas_X of the same run, the two timed in turn, run by run; a
   complex product counts 8 m n k flops.  Their rel_err: complex single against cuBLAS ZGEMM of the inputs
   widened to double.  Double and complex double against cuBLAS DGEMM and
   ZGEMM of the same inputs: both products are some 1e-15 off the exact
   one, so there rel_err is the DIFFERENCE between the two, not the error
   of either (cublas_d and cublas_z: 0 while cuBLAS is deterministic);
   their note "exact" is each one's own error, against a double-double
   product on 4096 sampled elements.  A
   type the library does not serve on this GPU or build
   (GT_ERR_UNSUPPORTED) gets its default_X row printed as skipped, with no
   CSV row and no failure.

     bench_kernels [--check] [--digest] [--csv FILE] [--device NAME]
                   [--reps N] [--only NAME,...] [--shapes m,k,n;m,k,n;...]

   --check runs small awkward shapes once per kernel and type and exits
   non-zero on any error (for compute-sanitizer); --digest prints a hash of
   each result, to compare two builds bit for bit.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "gpu_tiled.h"
#include "gt_bench_kernels.h"
#include "gt_k11_ozaki.h"
#include "oz_cublas.h"
extern "C" {
#include "host/gt_options.h"
}

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

/* The two hashed draws of element i (one pair for fill_randn in float
   and in double alike).  */
__device__ void
randn_hashes (size_t i, unsigned seed, unsigned *h1, unsigned *h2)
{
  *h1 = hash32 ((unsigned) i * 2u + seed * 0x9e3779b9u);
  *h2 = hash32 (*h1 ^ 0x85ebca6bu ^ (unsigned) (i >> 32));
}

/* Standard normal values (Box-Muller on a hashed counter), in float or
   in double: doubles use the whole mantissa (singles widened would make
   every product of two inputs exact in double, and a kernel that rounds
   its products short would pass unseen).  */
template <typename T>
__global__ void
fill_randn (T *x, size_t n, unsigned seed)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    {
      unsigned h1, h2;
      randn_hashes (i, seed, &h1, &h2);
      if constexpr (sizeof (T) == sizeof (float))
        {
          float u1 = (h1 + 1.0f) / 4294967296.0f, u2 = h2 / 4294967296.0f;
          x[i] = sqrtf (-2.0f * logf (u1)) * cospif (2.0f * u2);
        }
      else
        {
          double u1 = (h1 + 1.0) / 4294967296.0, u2 = h2 / 4294967296.0;
          x[i] = sqrt (-2.0 * log (u1)) * cospi (2.0 * u2);
        }
    }
}

__global__ void
to_double (const float *x, double *y, size_t n)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    y[i] = x[i];
}

/* sums[0] += (c - r)^2, sums[1] += r^2, sums[2] += count of non-finite c;
   over reals, so complex (re, im) pairs give the complex Frobenius norms */
template <typename T>
__global__ void
diff_norms (const T *c, const double *r, size_t n, double *sums)
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

/* Error-free sums and products: (hi, lo) pairs carry some 106 bits.  */
__device__ void
dd_add (double &hi, double &lo, double x)
{
  const double s = hi + x, bb = s - hi;
  const double e = (hi - (s - bb)) + (x - bb);
  lo += e;
  hi = s;
}

__device__ void
dd_fma (double &hi, double &lo, double a, double b)
{
  const double p = a * b, e = fma (a, b, -p);
  dd_add (hi, lo, p);
  lo += e;
}

/* For the samples' elements (i = hashed row, j = hashed column) of a
   double or complex double product (`parts` 1 or 2 reals an element, ld =
   rows), sums[0] += |c - exact|^2 and sums[1] += |exact|^2, the exact
   product in double-double: the error of c itself, where the rel_err of
   the double types is its difference from cuBLAS.  */
__global__ void
dd_sample_err (const double *A, const double *B, const double *C, size_t m,
               size_t n, size_t k, int parts, int samples, double *sums)
{
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= samples)
    return;
  const size_t i = hash32 (2 * t + 77) % m, j = hash32 (2 * t + 78) % n;
  double rh = 0, rl = 0, ih = 0, il = 0;
  for (size_t l = 0; l < k; l++)
    {
      const double *a = A + (i + l * m) * parts, *b = B + (l + j * k) * parts;
      dd_fma (rh, rl, a[0], b[0]);
      if (parts == 2)
        {
          dd_fma (rh, rl, -a[1], b[1]);
          dd_fma (ih, il, a[0], b[1]);
          dd_fma (ih, il, a[1], b[0]);
        }
    }
  const double *c = C + (i + j * m) * parts;
  const double er = (c[0] - rh) - rl, ei = parts == 2 ? (c[1] - ih) - il : 0;
  const double xr = rh + rl, xi = ih + il;
  atomicAdd (&sums[0], er * er + ei * ei);
  atomicAdd (&sums[1], xr * xr + xi * xi);
}

static unsigned
grid_for (size_t n)
{
  size_t b = (n + 255) / 256;
  return (unsigned) (b > 4096 ? 4096 : (b ? b : 1));
}

/* Complex types hold two reals per element.  */
static size_t
reals_per (gt_type t)
{
  return t == GT_COMPLEX_SINGLE || t == GT_COMPLEX_DOUBLE ? 2 : 1;
}

/* Types whose reals are floats (the others' are doubles).  */
static int
float_reals (gt_type t)
{
  return t == GT_SINGLE || t == GT_COMPLEX_SINGLE;
}

/* n random reals, in the precision of the type's parts.  */
static void
fill_reals (gt_type t, void *x, size_t n, unsigned seed)
{
  if (float_reals (t))
    fill_randn<<<grid_for (n), 256>>> ((float *) x, n, seed);
  else
    fill_randn<double><<<grid_for (n), 256>>> ((double *) x, n, seed);
  CK (cudaGetLastError ());
}

/* ---- the run: options and what every shape shares ---- */

typedef struct
{
  int check, digest, reps;
  const char *csv, *device, *only, *spec;
} options;

typedef struct
{
  options o;
  char device[256];             /* --device, or the GPU's name */
  char date[32];
  size_t l2_bytes;
  FILE *out;                    /* --csv */
  cudaStream_t stream;
  cudaEvent_t e0, e1;
  double *sums;                 /* diff_norms' three sums */
} bench_env;

static cublasHandle_t blas;

/* Zero on success; 2 (the exit status) after printing the usage.  */
static int
parse_args (int argc, char **argv, options *o)
{
  int own_shapes = 0;
  memset (o, 0, sizeof *o);
  o->reps = 21;
  o->spec = "4096,4096,4096;8192,8192,8192;256,256,256;"
    "512,512,512;1000,1000,1000;2048,2048,2048;4097,4097,4097;"
    "3000,700,5000;65536,64,64;64,65536,64;128,65536,128;1,4096,4096;"
    "4096,4096,1;"
    /* mid-sized and k-heavy */
    "1409,3000,777;1536,2048,1536;1280,2048,1800;640,4096,3456;"
    "3001,2048,3100;2048,8192,2048;2000,20000,2000;1000,100000,1000;"
    "10000,1000,10000;6144,4096,6144";
  for (int i = 1; i < argc; i++)
    {
      if (!strcmp (argv[i], "--check"))
        o->check = 1;
      else if (!strcmp (argv[i], "--digest"))
        o->digest = 1;
      else if (!strcmp (argv[i], "--csv") && i + 1 < argc)
        o->csv = argv[++i];
      else if (!strcmp (argv[i], "--device") && i + 1 < argc)
        o->device = argv[++i];
      else if (!strcmp (argv[i], "--reps") && i + 1 < argc)
        o->reps = atoi (argv[++i]);
      else if (!strcmp (argv[i], "--only") && i + 1 < argc)
        o->only = argv[++i];
      else if (!strcmp (argv[i], "--shapes") && i + 1 < argc)
        {
          o->spec = argv[++i];
          own_shapes = 1;
        }
      else
        {
          fprintf (stderr, "usage: %s [--check] [--digest] [--csv FILE]"
                   " [--device NAME] [--reps N] [--only NAME,...]"
                   " [--shapes m,k,n;...]\n", argv[0]);
          return 2;
        }
    }
  if (o->check && !own_shapes)
    o->spec = "1,1,1;2,3,5;7,11,13;31,33,29;65,17,63;129,127,131;"
      "257,300,255;1,300,257;257,300,1;1,1000,1;5,2000,7;200,4100,100;"
      "130,3,260;4,8,12";
  return 0;
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

/* cuBLAS, the events, the CSV and the table's header.  */
static void
open_env (bench_env *b, const options *o)
{
  memset (b, 0, sizeof *b);
  b->o = *o;
  struct cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));
  time_t now = time (NULL);
  strftime (b->date, sizeof b->date, "%Y-%m-%d", gmtime (&now));
  snprintf (b->device, sizeof b->device, "%s",
            o->device ? o->device : prop.name);
  b->l2_bytes = prop.l2CacheSize;
  CB (cublasCreate (&blas));
  CB (cublasSetMathMode (blas, CUBLAS_PEDANTIC_MATH));
  b->stream = 0;
  CK (cudaEventCreate (&b->e0));
  CK (cudaEventCreate (&b->e1));
  CK (cudaMalloc (&b->sums, 3 * sizeof (double)));
  b->out = o->csv ? fopen (o->csv, "w") : NULL;
  if (b->out)
    fprintf (b->out,
             "device,date,kernel,m,n,k,ms,tflops,vs_cublas,rel_err\n");
  printf ("%s, %d SMs, L2 %d MiB; %s\n", prop.name, prop.multiProcessorCount,
          prop.l2CacheSize >> 20, b->date);
  printf ("%-14s %6s %6s %6s %10s %9s %8s %10s\n", "kernel", "m", "n", "k",
          "ms", "TFLOP/s", "vs_cublas", "rel_err");
}

static void
close_env (bench_env *b)
{
  if (b->out)
    fclose (b->out);
  cublasDestroy (blas);
  CK (cudaEventDestroy (b->e0));
  CK (cudaEventDestroy (b->e1));
  CK (cudaFree (b->sums));
  /* the library's scratch and streams, so that a leak check sees none */
  gt_reset ();
}

/* Enough input sets (at most 8) that one timed run never finds its
   inputs in L2; one under --check.  */
static int
input_sets (const bench_env *b, size_t set_bytes)
{
  if (b->o.check)
    return 1;
  const int sets = (int) ((3.0 * b->l2_bytes) / set_bytes) + 1;
  return sets > 8 ? 8 : sets;
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

/* ---- timing, errors and the rows, for every type ---- */

/* One run of a row on input set `set`, queued on stream s.  */
typedef void (*run_fn) (void *row, int set, cudaStream_t s);

static int
cmp_float (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

/* Rows that medians_in_turn times together.  */
#define IN_TURN_MAX 2

/* The medians of --reps timed runs (CUDA events) of each of `count`
   rows, run in turn, run by run, the order rotated each run, after
   warm-up runs of each, rotating between `sets` input sets: so that rows
   compared see the same clocks and temperature.  */
static void
medians_in_turn (const bench_env *b, run_fn run, void *const *rows,
                 int count, int sets, float *ms)
{
  const int warm = 3;
  float t[IN_TURN_MAX][101];
  if (count < 1 || count > IN_TURN_MAX)
    {
      fprintf (stderr, "medians_in_turn: %d rows\n", count);
      exit (2);
    }
  const int n = b->o.reps > 101 ? 101 : (b->o.reps < 1 ? 1 : b->o.reps);
  for (int r = 0; r < warm; r++)
    for (int j = 0; j < count; j++)
      run (rows[j], r % sets, b->stream);
  for (int r = 0; r < n; r++)
    for (int i = 0; i < count; i++)
      {
        const int j = (r + i) % count;
        CK (cudaEventRecord (b->e0, b->stream));
        run (rows[j], r % sets, b->stream);
        CK (cudaEventRecord (b->e1, b->stream));
        CK (cudaEventSynchronize (b->e1));
        CK (cudaEventElapsedTime (&t[j][r], b->e0, b->e1));
      }
  for (int j = 0; j < count; j++)
    {
      qsort (t[j], n, sizeof (float), cmp_float);
      ms[j] = t[j][n / 2];
    }
}

/* The median of --reps timed runs of one row (medians_in_turn).  */
static float
median_ms (const bench_env *b, run_fn run, void *row, int sets)
{
  float ms;
  medians_in_turn (b, run, &row, 1, sets, &ms);
  return ms;
}

/* Relative Frobenius error of C (`reals` reals of the type's precision)
   against ref; *nonfinite: its NaN and Inf.  */
static double
rel_error (const bench_env *b, const void *C, gt_type t, const double *ref,
           size_t reals, int *nonfinite)
{
  CK (cudaMemset (b->sums, 0, 3 * sizeof (double)));
  if (float_reals (t))
    diff_norms<<<grid_for (reals), 256>>> ((const float *) C, ref, reals,
                                           b->sums);
  else
    diff_norms<<<grid_for (reals), 256>>> ((const double *) C, ref, reals,
                                           b->sums);
  CK (cudaGetLastError ());
  double h[3];
  CK (cudaMemcpy (h, b->sums, sizeof h, cudaMemcpyDeviceToHost));
  *nonfinite = (int) h[2];
  return h[1] > 0 ? sqrt (h[0] / h[1]) : sqrt (h[0]);
}

/* FNV-1a over C's bytes: --digest prints one per variant and shape, so
   that two builds' results can be compared bit for bit with diff.  */
static void
print_digest (const char *name, const void *C, size_t bytes, size_t m,
              size_t n, size_t k)
{
  unsigned char *h = (unsigned char *) malloc (bytes ? bytes : 1);
  CK (cudaMemcpy (h, C, bytes, cudaMemcpyDeviceToHost));
  unsigned long long x = 1469598103934665603ULL;
  for (size_t i = 0; i < bytes; i++)
    {
      x ^= h[i];
      x *= 1099511628211ULL;
    }
  free (h);
  printf ("digest %-14s %6zu %6zu %6zu %016llx\n", name, m, n, k, x);
}

/* A row of the table and of the CSV.  flops: per multiply-add (2 real,
   8 complex); ms 0 (--check) prints rates of 0; note follows the row.  */
static void
print_row (const bench_env *b, const char *name, size_t m, size_t n,
           size_t k, double ms, double flops, double cublas_ms, double err,
           int bad, const char *note)
{
  const double tflops = ms > 0 ? flops * m * n * k / (ms * 1e9) : 0.0;
  const double ratio = ms > 0 ? cublas_ms / ms : 0.0;
  printf ("%-14s %6zu %6zu %6zu %10.4f %9.2f %8.3f %10.2e%s%s\n", name, m,
          n, k, ms, tflops, ratio, err, bad ? "  FAIL" : "", note);
  if (b->out)
    fprintf (b->out, "%s,%s,%s,%zu,%zu,%zu,%.5f,%.3f,%.4f,%.3e\n",
             b->device, b->date, name, m, n, k, ms, tflops, ratio, err);
}

/* ---- single: every kernel and variant ---- */

typedef struct
{
  char name[32];
  int use_cublas;
  gt_plan plan;
} variant;
/* The most variants of one type and shape.  */
#define MAX_VARIANTS 48

typedef struct
{
  size_t m, n, k;
  int sets;
  float *A[8], *B[8], *C;
  double *ref;
  void *work;
  size_t work_bytes;
} problem;

/* The inputs (sets as input_sets says), room for C and the fp64 cuBLAS
   reference of set 0.  */
static void
make_problem (problem *p, const bench_env *b, const size_t *shape, int si)
{
  memset (p, 0, sizeof *p);
  p->m = shape[0]; p->k = shape[1]; p->n = shape[2];
  const size_t a_n = p->m * p->k, b_n = p->k * p->n, c_n = p->m * p->n;
  p->sets = input_sets (b, (a_n + b_n) * sizeof (float));
  for (int s = 0; s < p->sets; s++)
    {
      CK (cudaMalloc (&p->A[s], a_n * sizeof (float) + 16));
      CK (cudaMalloc (&p->B[s], b_n * sizeof (float) + 16));
      fill_randn<<<grid_for (a_n), 256>>> (p->A[s], a_n, 1000 * si + 2 * s);
      fill_randn<<<grid_for (b_n), 256>>> (p->B[s], b_n,
                                           1000 * si + 2 * s + 1);
      CK (cudaGetLastError ());
    }
  CK (cudaMalloc (&p->C, c_n * sizeof (float) + 16));
  CK (cudaMalloc (&p->ref, c_n * sizeof (double) + 16));
  double *Ad, *Bd;
  const double one = 1.0, zero = 0.0;
  CK (cudaMalloc (&Ad, a_n * sizeof (double) + 16));
  CK (cudaMalloc (&Bd, b_n * sizeof (double) + 16));
  to_double<<<grid_for (a_n), 256>>> (p->A[0], Ad, a_n);
  to_double<<<grid_for (b_n), 256>>> (p->B[0], Bd, b_n);
  CB (cublasDgemm (blas, CUBLAS_OP_N, CUBLAS_OP_N, (int) p->m, (int) p->n,
                   (int) p->k, &one, Ad, (int) p->m, Bd, (int) p->k, &zero,
                   p->ref, (int) p->m));
  CK (cudaDeviceSynchronize ());
  CK (cudaFree (Ad));
  CK (cudaFree (Bd));
}

static void
free_problem (problem *p)
{
  for (int s = 0; s < p->sets; s++)
    {
      CK (cudaFree (p->A[s]));
      CK (cudaFree (p->B[s]));
    }
  CK (cudaFree (p->C));
  CK (cudaFree (p->ref));
  if (p->work)
    CK (cudaFree (p->work));
}

/* A plan of one kernel: `variant` is its configuration (kernels 4/5),
   mode (8) or blocks per SM (7), GT_CHOOSE to let the dispatcher pick;
   splits 0 likewise.  */
static gt_plan
fixed (int kernel, int splits, int variant, const problem *p, int repack)
{
  gt_plan want = gt_plan_make (GT_SINGLE, kernel);
  want.splits = splits;
  want.k4_config = kernel == GT_K4_ASYNC || kernel == GT_K5_SPLITK
                   || kernel == GT_K12_THIN ? variant : GT_CHOOSE;
  want.k8_mode = kernel == GT_K8_WIDE ? variant : GT_CHOOSE;
  want.min_blocks = kernel == GT_K7_REGDB ? variant : GT_CHOOSE;
  want.cluster = kernel == GT_K6_GEMV ? variant : GT_CHOOSE;
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
    case GT_K12_THIN:
      return gt_k12_thin (plan->k4_config, A, p->m, B, p->k, p->C, p->m,
                          p->m, p->n, p->k, p->work, s);
    case GT_K7_REGDB:
      return gt_k7_regdb (plan->min_blocks, A, p->m, B, p->k, p->C, p->m,
                          p->m, p->n, p->k, s);
    default:
      return gt_gemm_run (plan, &g, s);
    }
}

/* Kernel 9's variants: its own choice, k split 2, 4, 8 ways, and under
   --check the tail split on any shape.  Returns the new count.  */
static int
list_k9 (variant *vs, int nv, const problem *p, int repack, int check)
{
  strcpy (vs[nv].name, "k9_dmma");
  vs[nv++].plan = fixed (GT_K9_DMMA, 0, GT_CHOOSE, p, repack);
  for (int sp = 2; sp <= 8; sp *= 2)
    {
      snprintf (vs[nv].name, sizeof vs[nv].name, "k9_split%d", sp);
      vs[nv++].plan = fixed (GT_K9_DMMA, sp, GT_CHOOSE, p, repack);
    }
  if (check)
    {
      /* the tail split on any shape: the bottom half of the last column
         of tiles split 4 ways over k, the rest in one launch (all of C
         where it is one column of tiles) */
      gt_plan t9 = fixed (GT_K9_DMMA, 0, GT_CHOOSE, p, repack);
      t9.tail = (int) ((p->m + 255) / 256);
      t9.tail_splits = 4;
      t9.work_bytes = gt_k9_tail_work_bytes (t9.tail, 4, p->m, p->n, p->k);
      strcpy (vs[nv].name, "k9_tail");
      vs[nv++].plan = t9;
    }
  return nv;
}

/* The single variants --only keeps, cuBLAS first (its time is the
   yardstick); vs has room for MAX_VARIANTS.  Returns their count.  */
static int
list_variants (variant *vs, const problem *p, int repack, const options *o)
{
  int nv = 0;
  memset (vs, 0, MAX_VARIANTS * sizeof *vs);
  strcpy (vs[nv].name, "cublas"); vs[nv++].use_cublas = 1;
  /* the default path right after it: a long sweep warms the GPU into its
     power limit (H200, 8192^3: kernel 9 1.10x cuBLAS timed first, 1.05x
     timed after the other 30 variants) */
  strcpy (vs[nv].name, "default");
  vs[nv++].plan = gt_plan_for (GT_SINGLE, p->m, p->n, p->k, 0, repack);
  const int tiles[3] = { 8, 16, 32 };
  for (int t = 0; t < 3; t++)
    {
      snprintf (vs[nv].name, sizeof vs[nv].name, "k1_tile%d", tiles[t]);
      vs[nv++].plan = gt_plan_for (GT_SINGLE, p->m, p->n, p->k, tiles[t], 0);
    }
  strcpy (vs[nv].name, "k2_regblock");
  vs[nv++].plan = fixed (GT_K2_REGBLOCK, 0, GT_CHOOSE, p, 0);
  strcpy (vs[nv].name, "k3_vector");
  vs[nv++].plan = fixed (GT_K3_VECTOR, 0, GT_CHOOSE, p, 0);
  for (int c = 0; c < GT_K4_CONFIG_COUNT; c++)
    {
      snprintf (vs[nv].name, sizeof vs[nv].name, "k4_cfg%d", c);
      vs[nv++].plan = fixed (GT_K4_ASYNC, 1, c, p, repack);
    }
  if (p->k <= GT_K12_KMAX)
    for (int c = 0; c < GT_K12_CONFIG_COUNT; c++)
      {
        snprintf (vs[nv].name, sizeof vs[nv].name, "k12_cfg%d", c);
        vs[nv].plan = fixed (GT_K12_THIN, 1, c, p, repack);
        vs[nv++].plan.work_bytes = gt_k12_work_bytes (p->m, p->k, repack);
      }
  strcpy (vs[nv].name, "k5_splitk");
  vs[nv++].plan = fixed (GT_K5_SPLITK, 0, GT_CHOOSE, p, repack);
  /* the same pieces through device memory and gt_k5_reduce, where the
     plan above adds them within a cluster */
  {
    gt_plan want = gt_plan_make (GT_SINGLE, GT_K5_SPLITK);
    want.splits = 0;
    want.cluster = 0;
    strcpy (vs[nv].name, "k5_partials");
    vs[nv++].plan = gt_plan_fixed (&want, p->m, p->n, p->k, repack);
  }
  if (p->m == 1 || p->n == 1)
    {
      strcpy (vs[nv].name, "k6_gemv");
      vs[nv++].plan = fixed (GT_K6_GEMV, 0, GT_CHOOSE, p, 0);
      /* k split other ways than the cost model's; and n == 1 with the
         pieces added within a cluster (Hopper) */
      static const int k6_splits[] = { 1, 4, 8, 16, 32, 64 };
      for (int i = 0; i < 6; i++)
        {
          const int sp = k6_splits[i];
          snprintf (vs[nv].name, sizeof vs[nv].name, "k6_gemv_s%d", sp);
          vs[nv++].plan = fixed (GT_K6_GEMV, sp, 0, p, 0);
        }
      for (int sp = 2; sp <= 8; sp *= 2)
        {
          snprintf (vs[nv].name, sizeof vs[nv].name, "k6_cluster_s%d", sp);
          vs[nv++].plan = fixed (GT_K6_GEMV, sp, 1, p, 0);
        }
    }
  for (int minb = 1; minb <= 2; minb++)
    {
      snprintf (vs[nv].name, sizeof vs[nv].name, "k7_regdb_b%d", minb);
      vs[nv++].plan = fixed (GT_K7_REGDB, 0, minb, p, 0);
    }
  const int k8_cfgs[] = { 0, 1, 3, 7, 11, 15, 31 };
  for (int c = 0; c < 7; c++)
    {
      snprintf (vs[nv].name, sizeof vs[nv].name, "k8_wide_c%d", k8_cfgs[c]);
      vs[nv++].plan = fixed (GT_K8_WIDE, 0, k8_cfgs[c], p, repack);
    }
  if (gt_k9_usable ())
    nv = list_k9 (vs, nv, p, repack, o->check);
  int kept = 0;
  for (int v = 0; v < nv; v++)
    if (selected (o->only, vs[v].name))
      vs[kept++] = vs[v];
  return kept;
}

/* The scratch of the largest plan kept, and under --check that of the
   accumulation check whatever --only kept.  */
static void
alloc_work (problem *p, const variant *vs, int nv, int repack, int check)
{
  for (int v = 0; v < nv; v++)
    if (vs[v].plan.work_bytes > p->work_bytes)
      p->work_bytes = vs[v].plan.work_bytes;
  const size_t acc_work = fixed (GT_K4_ASYNC, 1, GT_CFG_64x64_K32, p,
                                 repack).work_bytes;
  if (check && acc_work > p->work_bytes)
    p->work_bytes = acc_work;
  if (p->work_bytes)
    CK (cudaMalloc (&p->work, p->work_bytes));
}

/* One run of a single variant: (variant, problem) for median_ms.  */
typedef struct
{
  const variant *v;
  problem *p;
} single_row_run;

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

static void
run_single_row (void *row, int set, cudaStream_t s)
{
  const single_row_run *r = (const single_row_run *) row;
  run_variant (r->v, r->p, set, s);
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

/* What follows a variant's row: the plan of kernels 4 and up.  */
static const char *
plan_note (const variant *v)
{
  static char note[160];
  note[0] = 0;
  const gt_plan *p = &v->plan;
  if (!v->use_cublas && p->kernel >= GT_K4_ASYNC)
    snprintf (note, sizeof note, "  (kernel %d %s %d splits %d%s)",
              p->kernel, p->kernel == GT_K8_WIDE ? "mode" : "cfg",
              p->kernel == GT_K8_WIDE ? p->k8_mode
              : p->kernel <= GT_K5_SPLITK || p->kernel == GT_K12_THIN
              ? p->k4_config : 0,
              p->splits, edge_note (p));
  return note;
}

/* A single variant's row: correctness on poisoned output, then (unless
   --check) the timing.  *cublas_ms: set by the cuBLAS row, read by the
   others.  Returns 1 on a failure.  */
static int
single_row (const bench_env *b, const variant *v, problem *p,
            double *cublas_ms)
{
  const size_t c_n = p->m * p->n;
  CK (cudaMemset (p->C, 0xff, c_n * sizeof (float)));
  run_variant (v, p, 0, b->stream);
  CK (cudaDeviceSynchronize ());
  int nonfinite = 0;
  const double err = rel_error (b, p->C, GT_SINGLE, p->ref, c_n,
                                &nonfinite);
  /* FP32 sums over k: a few eps * sqrt(k) typically; allow far more,
     while TF32 (~1e-3) or an unwritten element fails.  */
  const int bad = nonfinite > 0 || !(err < 1e-4);
  if (b->o.digest)
    print_digest (v->name, p->C, c_n * sizeof (float), p->m, p->n, p->k);
  float med = 0.0f;
  if (!b->o.check)
    {
      single_row_run r = { v, p };
      med = median_ms (b, run_single_row, &r, p->sets);
      if (v->use_cublas)
        *cublas_ms = med;
    }
  print_row (b, v->name, p->m, p->n, p->k, med, 2.0, *cublas_ms, err, bad,
             plan_note (v));
  return bad;
}

/* ---- kernel 11: its stages, its INT8 product and cuBLAS's ---- */

typedef struct
{
  problem *p;
  gt_oz_work *w;
  int stage;   /* 0 whole, 1 scan, 2 slice, 3 products, 4 combine,
                  5 cuBLAS INT8 on one plane, 6 as many as moduli */
  int32_t *c32;
} k11_run;

static void
run_k11 (void *row, int set, cudaStream_t s)
{
  const k11_run *r = (const k11_run *) row;
  problem *p = r->p;
  const float *A = p->A[set], *B = p->B[set];
  switch (r->stage)
    {
    case 0: CK (gt_oz_run (r->w, A, p->m, B, p->k, p->C, p->m, s)); break;
    case 1: CK (gt_oz_scan (r->w, A, p->m, B, p->k, s)); break;
    case 2: CK (gt_oz_slice (r->w, A, p->m, B, p->k, s)); break;
    case 3: CK (gt_oz_products (r->w, s)); break;
    case 4: CK (gt_oz_combine (r->w, p->C, p->m, s)); break;
    default:
      for (int l = 0; l < (r->stage == 5 ? 1 : r->w->moduli); l++)
        CB (oz_cublas_int8 (blas, r->w, r->c32));
    }
}

/* Kernel 11 with the number of moduli its scan chooses for these inputs
   (8 where it declines), whole and stage by stage, then cuBLAS's INT8
   GEMM on the same planes, once and as many times as there are moduli.
   TFLOP/s of the products and INT8 rows are their INT8 TOPS; vs_cublas
   is cuBLAS SGEMM's time over the row's.  Returns 1 on a failure.  */
static int
k11_rows (const bench_env *b, problem *p, double cublas_ms)
{
  if (!gt_k11_usable () || b->o.check || p->m < 2 || p->n < 2
      || p->k > GT_OZ_MAX_K || !selected (b->o.only, "k11"))
    return 0;
  gt_oz_work w;
  gt_oz_layout (&w, GT_OZ_MAX_USED, p->m, p->n, p->k, NULL);
  void *work;
  int32_t *c32;
  CK (cudaMalloc (&work, w.bytes));
  gt_oz_layout (&w, GT_OZ_MAX_USED, p->m, p->n, p->k, work);
  CK (cudaMalloc (&c32, w.mp * w.np * sizeof (int32_t)));
  int moduli;
  CK (gt_oz_scan (&w, p->A[0], p->m, p->B[0], p->k, b->stream));
  CK (cudaMemcpy (&moduli, w.choice, sizeof moduli, cudaMemcpyDeviceToHost));
  gt_oz_layout (&w, moduli ? moduli : 8, p->m, p->n, p->k, work);
  k11_run r = { p, &w, 0, c32 };
  CK (cudaMemset (p->C, 0xff, p->m * p->n * sizeof (float)));
  run_k11 (&r, 0, b->stream);
  CK (cudaDeviceSynchronize ());
  int nonfinite = 0;
  const double err = rel_error (b, p->C, GT_SINGLE, p->ref, p->m * p->n,
                                &nonfinite);
  const int bad = nonfinite > 0 || !(err < 1e-4);
  static const char *const stage[] = { "", "_scan", "_slice", "_products",
                                       "_combine" };
  const double int8_flops = 2.0 * w.mp * w.np * w.kp
                            / ((double) p->m * p->n * p->k);
  for (int st = 0; st <= 6; st++)
    {
      char name[32];
      if (st <= 4)
        snprintf (name, sizeof name, "k11_n%d%s", w.moduli, stage[st]);
      else
        snprintf (name, sizeof name, st == 5 ? "cublas_int8" : "cublas_int8_x%d",
                  w.moduli);
      r.stage = st;
      const double ms = median_ms (b, run_k11, &r, p->sets);
      const double flops = st == 0 ? 2.0
                           : st == 3 || st == 6 ? w.moduli * int8_flops
                           : st == 5 ? int8_flops : 0.0;
      print_row (b, name, p->m, p->n, p->k, ms, flops, cublas_ms,
                 st == 0 ? err : 0.0, st == 0 && bad,
                 st == 0 && !moduli ? "  (the scan declines: 8 forced)" : "");
    }
  CK (cudaFree (work));
  CK (cudaFree (c32));
  return bad;
}

/* ---- single: the --check bit comparisons ---- */

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

/* Kernel 8's stream-K continues a tile cut between two blocks from the
   first block's partial sums: the bits of the kernel with a block per
   tile.  whole, parts: room for C on the host.  Returns 1 where they
   differ.  */
static int
stream_k_differs (problem *p, int repack, float *whole, float *parts,
                  cudaStream_t s)
{
  const size_t c_bytes = p->m * p->n * sizeof (float);
  int same = 1;
  for (int sk = 0; sk < 2; sk++)
    {
      const int mode = GT_K8_DEFAULT_MODE | GT_K8_K16 | GT_K8_BM256
                       | (sk ? GT_K8_STREAMK : 0);
      const gt_plan pk = fixed (GT_K8_WIDE, 1, mode, p, repack);
      if (pk.work_bytes > p->work_bytes)
        break;
      CK (cudaMemset (p->C, 0xff, c_bytes));
      CK (bench_run (&pk, p->A[0], p->B[0], p, s));
      CK (cudaMemcpy (sk ? parts : whole, p->C, c_bytes,
                      cudaMemcpyDeviceToHost));
      if (sk)
        {
          same = memcmp (whole, parts, c_bytes) == 0;
          printf ("%-14s %6zu %6zu %6zu  stream-K: %s\n", "k8_stream", p->m,
                  p->n, p->k, same ? "same bits as a block per tile"
                                   : "DIFFERENT  FAIL");
        }
    }
  return !same;
}

/* --check: kernel 4 over pieces of k, each added to C, and kernel 9, its
   double sums carried from piece to piece in scratch; kernel 8's
   stream-K.  Returns the failures.  */
static int
check_bits (problem *p, int repack, cudaStream_t s)
{
  const size_t c_n = p->m * p->n;
  float *whole = (float *) malloc (c_n * sizeof (float));
  float *parts = (float *) malloc (c_n * sizeof (float));
  const size_t kc = (p->k / 3 + 31) / 32 * 32;   /* >= 32 */
  int failures = 0;
  const gt_plan one = fixed (GT_K4_ASYNC, 1, GT_CFG_64x64_K32, p, repack);
  failures += pieces_differ ("k4_accumulate", p, &one, repack, kc, p->work,
                             whole, parts, s);
  if (gt_k9_usable ())
    {
      const gt_plan w9 = fixed (GT_K9_DMMA, 0, GT_CHOOSE, p, repack);
      void *part = NULL;
      CK (cudaMalloc (&part, c_n * sizeof (double)));
      failures += pieces_differ ("k9_pieces", p, &w9, repack, kc, part,
                                 whole, parts, s);
      CK (cudaFree (part));
    }
  failures += stream_k_differs (p, repack, whole, parts, s);
  free (whole);
  free (parts);
  return failures;
}

/* Every single variant at one shape (and under --check the bit
   comparisons).  Returns the failures.  */
static int
bench_single (const bench_env *b, const size_t *shape, int si)
{
  problem p;
  make_problem (&p, b, shape, si);
  variant vs[MAX_VARIANTS];
  const int repack = gt_needs_repack (GT_SINGLE, p.A[0], p.m, p.B[0], p.k);
  const int nv = list_variants (vs, &p, repack, &b->o);
  alloc_work (&p, vs, nv, repack, b->o.check);
  double cublas_ms = 0.0;
  int failures = 0;
  for (int v = 0; v < nv; v++)
    failures += single_row (b, &vs[v], &p, &cublas_ms);
  failures += k11_rows (b, &p, cublas_ms);
  if (b->o.check && p.k >= 3 && p.m > 0 && p.n > 0)
    failures += check_bits (&p, repack, b->stream);
  free_problem (&p);
  return failures;
}

/* ---- double, complex single, complex double: the default path ---- */

/* Row names' suffixes, flops per multiply-add, and the rel_err a right
   result stays under, by gt_type.  Double: two FP64 products some
   eps * sqrt(k) apart (~1e-14 at k = 65536), while a product taken
   through single (~1e-7) fails; complex single: as single.  */
static const char *const type_suffix[GT_TYPE_COUNT] = { "", "_d", "_c",
                                                        "_z" };
static const double type_flops[GT_TYPE_COUNT] = { 2.0, 2.0, 8.0, 8.0 };
static const double type_limit[GT_TYPE_COUNT] = { 1e-4, 1e-12, 1e-4,
                                                  1e-12 };

/* One type's problem: complex elements are (re, im) pairs
   (cuFloatComplex, cuDoubleComplex), ld = rows.  */
typedef struct
{
  gt_type type;
  size_t m, n, k;
  int sets;
  void *A[8], *B[8], *C;
  double *ref;                  /* complex: (re, im) pairs */
} typed_problem;

/* C = A*B by cuBLAS's routine of the type (pedantic math, set on the
   handle).  */
static void
cublas_typed (gt_type t, const void *A, const void *B, void *C, size_t m,
              size_t n, size_t k)
{
  if (m == 0 || n == 0)
    return;
  const int im = (int) m, in = (int) n, ik = (int) k;
  if (t == GT_DOUBLE)
    {
      const double one = 1.0, zero = 0.0;
      CB (cublasDgemm (blas, CUBLAS_OP_N, CUBLAS_OP_N, im, in, ik, &one,
                       (const double *) A, im, (const double *) B, ik,
                       &zero, (double *) C, im));
    }
  else if (t == GT_COMPLEX_SINGLE)
    {
      const cuComplex one = make_cuComplex (1.0f, 0.0f),
                      zero = make_cuComplex (0.0f, 0.0f);
      CB (cublasCgemm (blas, CUBLAS_OP_N, CUBLAS_OP_N, im, in, ik, &one,
                       (const cuComplex *) A, im, (const cuComplex *) B, ik,
                       &zero, (cuComplex *) C, im));
    }
  else
    {
      const cuDoubleComplex one = make_cuDoubleComplex (1.0, 0.0),
                            zero = make_cuDoubleComplex (0.0, 0.0);
      CB (cublasZgemm (blas, CUBLAS_OP_N, CUBLAS_OP_N, im, in, ik, &one,
                       (const cuDoubleComplex *) A, im,
                       (const cuDoubleComplex *) B, ik, &zero,
                       (cuDoubleComplex *) C, im));
    }
}

/* The reference of set 0 (see the header): complex single widened to
   double for ZGEMM, the double types by their own cuBLAS routine.  */
static void
make_reference (typed_problem *tp)
{
  if (tp->type != GT_COMPLEX_SINGLE)
    {
      cublas_typed (tp->type, tp->A[0], tp->B[0], tp->ref, tp->m, tp->n,
                    tp->k);
      CK (cudaDeviceSynchronize ());
      return;
    }
  /* (re, im) float pairs widen to double pairs element by element */
  const size_t a_r = 2 * tp->m * tp->k, b_r = 2 * tp->k * tp->n;
  double *Ad, *Bd;
  CK (cudaMalloc (&Ad, a_r * sizeof (double) + 16));
  CK (cudaMalloc (&Bd, b_r * sizeof (double) + 16));
  to_double<<<grid_for (a_r), 256>>> ((const float *) tp->A[0], Ad, a_r);
  to_double<<<grid_for (b_r), 256>>> ((const float *) tp->B[0], Bd, b_r);
  CK (cudaGetLastError ());
  cublas_typed (GT_COMPLEX_DOUBLE, Ad, Bd, tp->ref, tp->m, tp->n, tp->k);
  CK (cudaDeviceSynchronize ());
  CK (cudaFree (Ad));
  CK (cudaFree (Bd));
}

/* Fresh inputs of the type, rotated between sets like the single ones
   (8192^3 complex double: one set, A, B and C 1 GiB each), room for C
   and the reference.  */
static void
make_typed (typed_problem *tp, const bench_env *b, gt_type t,
            const size_t *shape, int si)
{
  memset (tp, 0, sizeof *tp);
  tp->type = t;
  tp->m = shape[0]; tp->k = shape[1]; tp->n = shape[2];
  const size_t es = gt_type_size (t), parts = reals_per (t);
  const size_t a_n = tp->m * tp->k, b_n = tp->k * tp->n, c_n = tp->m * tp->n;
  tp->sets = input_sets (b, (a_n + b_n) * es);
  for (int s = 0; s < tp->sets; s++)
    {
      /* seeds apart from the single inputs' 1000 * si + 0..15 */
      const unsigned seed = 1000 * si + 100 * (int) t + 2 * s;
      CK (cudaMalloc (&tp->A[s], a_n * es + 16));
      CK (cudaMalloc (&tp->B[s], b_n * es + 16));
      fill_reals (t, tp->A[s], a_n * parts, seed);
      fill_reals (t, tp->B[s], b_n * parts, seed + 1);
    }
  CK (cudaMalloc (&tp->C, c_n * es + 16));
  CK (cudaMalloc (&tp->ref, c_n * parts * sizeof (double) + 16));
  make_reference (tp);
}

static void
free_typed (typed_problem *tp)
{
  for (int s = 0; s < tp->sets; s++)
    {
      CK (cudaFree (tp->A[s]));
      CK (cudaFree (tp->B[s]));
    }
  CK (cudaFree (tp->C));
  CK (cudaFree (tp->ref));
}

/* The relative error of tp->C (double or complex double, from set 0)
   against the exact product, on 4096 sampled elements.  */
static double
dd_error (const bench_env *b, const typed_problem *tp)
{
  const int samples = 4096;
  if (tp->m == 0 || tp->n == 0)
    return 0.0;
  CK (cudaMemset (b->sums, 0, 3 * sizeof (double)));
  dd_sample_err<<<samples / 256, 256>>> (
    (const double *) tp->A[0], (const double *) tp->B[0],
    (const double *) tp->C, tp->m, tp->n, tp->k, (int) reals_per (tp->type),
    samples, b->sums);
  CK (cudaGetLastError ());
  double h[3];
  CK (cudaMemcpy (h, b->sums, sizeof h, cudaMemcpyDeviceToHost));
  return h[1] > 0 ? sqrt (h[0] / h[1]) : sqrt (h[0]);
}

/* One run of cublas_X (use_cublas) or default_X, for median_ms.  */
typedef struct
{
  int use_cublas;
  typed_problem *tp;
} typed_row_run;

/* default_X is the package's path for device pointers, queued on s like
   cuBLAS; it keeps its scratch in the library between calls.  */
static gt_status
run_typed (const typed_row_run *r, int set, cudaStream_t s)
{
  const typed_problem *tp = r->tp;
  if (r->use_cublas)
    {
      cublas_typed (tp->type, tp->A[set], tp->B[set], tp->C, tp->m, tp->n,
                    tp->k);
      return GT_OK;
    }
  return gt_mtimes_device (tp->type, tp->A[set], tp->m, tp->B[set], tp->k,
                           tp->C, tp->m, tp->m, tp->n, tp->k,
                           GT_TILE_DEFAULT, GT_DEVICE_DEFAULT, (void *) s);
}

/* A failure while timing follows a correct run of the same call: as
   unexpected as a CUDA error, so it ends the run as CK does.  */
static void
run_typed_row (void *row, int set, cudaStream_t s)
{
  if (run_typed ((const typed_row_run *) row, set, s) != GT_OK)
    {
      fprintf (stderr, "gt_mtimes_device: %s\n", gt_error_text ());
      exit (2);
    }
}

/* A typed row's correctness, on poisoned output: its error and its note
   (the double-double error of double reals).  */
typedef struct
{
  char name[32];
  typed_row_run run;
  int selected, served, bad;
  double err;
  char note[48];
  float ms;
} typed_result;

/* The row cublas_X or default_X (use_cublas), if --only keeps it: one
   run on poisoned output and its error; a type this GPU or build does not
   serve is printed and skipped (no failure).  */
static void
typed_check (const bench_env *b, typed_problem *tp, int use_cublas,
             typed_result *res)
{
  const gt_type t = tp->type;
  memset (res, 0, sizeof *res);
  snprintf (res->name, sizeof res->name, "%s%s",
            use_cublas ? "cublas" : "default", type_suffix[t]);
  res->selected = selected (b->o.only, res->name);
  if (!res->selected)
    return;
  const size_t c_n = tp->m * tp->n;
  CK (cudaMemset (tp->C, 0xff, c_n * gt_type_size (t)));
  const typed_row_run r = { use_cublas, tp };
  res->run = r;
  const gt_status st = run_typed (&r, 0, b->stream);
  if (st != GT_OK)
    {
      const int skip = st == GT_ERR_UNSUPPORTED;
      printf ("%-14s %6zu %6zu %6zu  %s: %s\n", res->name, tp->m, tp->n,
              tp->k, skip ? "skipped" : "FAIL", gt_error_text ());
      res->bad = !skip;
      return;
    }
  res->served = 1;
  CK (cudaDeviceSynchronize ());
  int nonfinite = 0;
  res->err = rel_error (b, tp->C, t, tp->ref, c_n * reals_per (t),
                        &nonfinite);
  res->bad = nonfinite > 0 || !(res->err <= type_limit[t]);
  if (!float_reals (t))
    snprintf (res->note, sizeof res->note, "  exact %.2e", dd_error (b, tp));
  if (b->o.digest)
    print_digest (res->name, tp->C, c_n * gt_type_size (t), tp->m, tp->n,
                  tp->k);
}

/* cublas_X and default_X as --only keeps them: correctness, then (unless
   --check) the times, in turn where both are kept; *cublas_ms: cuBLAS's
   time (0 where not timed).  Returns the failures.  */
static int
typed_rows (const bench_env *b, typed_problem *tp, double *cublas_ms)
{
  typed_result x[2];   /* cuBLAS, the default path */
  for (int j = 0; j < 2; j++)
    typed_check (b, tp, j == 0, &x[j]);
  if (!b->o.check && x[0].served && x[1].served)
    {
      /* in turn: one after the other, the second saw the clocks the first
         left (bench/RESULTS.md, "cuBLAS in turn") */
      void *rows[IN_TURN_MAX] = { &x[0].run, &x[1].run };
      float ms[IN_TURN_MAX];
      medians_in_turn (b, run_typed_row, rows, 2, tp->sets, ms);
      x[0].ms = ms[0];
      x[1].ms = ms[1];
    }
  else if (!b->o.check)
    for (int j = 0; j < 2; j++)
      if (x[j].served)
        x[j].ms = median_ms (b, run_typed_row, &x[j].run, tp->sets);
  *cublas_ms = x[0].ms;
  for (int j = 0; j < 2; j++)
    if (x[j].served)
      print_row (b, x[j].name, tp->m, tp->n, tp->k, x[j].ms,
                 type_flops[tp->type], x[0].ms, x[j].err, x[j].bad,
                 x[j].note);
  return x[0].bad + x[1].bad;
}

/* Kernel 9 with k split N ways (k9_d_splitN), N ways within a cluster
   (k9_d_clusterN), by stream-K (k9_d_stream), the same on its small
   tiles (k9s_d_splitN, k9s_d_clusterN, k9s_d_stream), and kernel 10
   (k10_d; on a vector side k10_d_splitN, k10_d_clusterN) on doubles, as
   --only names
   them: what the double plans of small and thin shapes are chosen
   from.  */
typedef struct
{
  typed_problem *tp;
  gt_plan plan;
  void *work;
} fixed_typed_run;

static void
run_fixed_typed (void *row, int set, cudaStream_t s)
{
  const fixed_typed_run *r = (const fixed_typed_run *) row;
  const typed_problem *tp = r->tp;
  const gt_gemm_args g = { tp->A[set], tp->m, tp->B[set], tp->k, tp->C,
                           tp->m, tp->m, tp->n, tp->k, r->work };
  CK (gt_gemm_run (&r->plan, &g, s));
}

static int
double_variants (const bench_env *b, typed_problem *tp, double cublas_ms)
{
  int failures = 0;
  for (const char *o = b->o.only; o && *o;
       o = strchr (o, ',') ? strchr (o, ',') + 1 : NULL)
    {
      char name[32];
      const size_t len = strcspn (o, ",");
      if (len >= sizeof name)
        continue;
      memcpy (name, o, len);
      name[len] = 0;
      gt_plan want = gt_plan_make (GT_DOUBLE, GT_K9_DMMA);
      int n = 0;
      /* k9s_: the small tiles */
      const int small = !strncmp (name, "k9s_", 4);
      if (small)
        want.k9_tile = GT_K9_SMALL_TILE;
      if (sscanf (name, small ? "k9s_d_split%d" : "k9_d_split%d", &n) == 1
          && n >= 1)
        want.splits = n;
      else if (sscanf (name, small ? "k9s_d_cluster%d" : "k9_d_cluster%d",
                       &n) == 1 && n >= 1)
        {
          want.splits = n;
          want.cluster = 1;
        }
      else if (!strcmp (name, small ? "k9s_d_stream" : "k9_d_stream"))
        want.streamk = 1;
      else if (!strcmp (name, "k10_d"))
        want = gt_plan_make (GT_DOUBLE, GT_K10_GENERIC);
      else if (sscanf (name, "k10_d_split%d", &n) == 1 && n >= 1)
        {
          want = gt_plan_make (GT_DOUBLE, GT_K10_GENERIC);
          want.splits = n;
        }
      else if (sscanf (name, "k10_d_cluster%d", &n) == 1 && n >= 1)
        {
          want = gt_plan_make (GT_DOUBLE, GT_K10_GENERIC);
          want.splits = n;
          want.cluster = 1;
        }
      else
        continue;
      if (!gt_registry_row (want.kernel))
        continue;
      fixed_typed_run r = { tp, gt_plan_fixed (&want, tp->m, tp->n, tp->k,
                                               0), NULL };
      if (r.plan.work_bytes)
        CK (cudaMalloc (&r.work, r.plan.work_bytes));
      const size_t c_n = tp->m * tp->n;
      CK (cudaMemset (tp->C, 0xff, c_n * sizeof (double)));
      run_fixed_typed (&r, 0, b->stream);
      CK (cudaDeviceSynchronize ());
      int nonfinite = 0;
      const double err = rel_error (b, tp->C, GT_DOUBLE, tp->ref, c_n,
                                    &nonfinite);
      const int bad = nonfinite > 0 || !(err <= type_limit[GT_DOUBLE]);
      if (b->o.digest)
        print_digest (name, tp->C, c_n * sizeof (double), tp->m, tp->n,
                      tp->k);
      const float med = b->o.check ? 0.0f
                        : median_ms (b, run_fixed_typed, &r, tp->sets);
      /* a cluster this device cannot have goes through the reduce */
      const int reduced = want.kernel == GT_K10_GENERIC && want.cluster
                          && r.plan.splits
                             > gt_k10_cluster_max (GT_DOUBLE, tp->m, tp->n);
      print_row (b, name, tp->m, tp->n, tp->k, med, 2.0, cublas_ms, err, bad,
                 reduced ? "through the reduce" : "");
      failures += bad;
      if (r.work)
        CK (cudaFree (r.work));
    }
  return failures;
}

/* cublas_X then default_X of one type at one shape, on inputs made only
   when --only keeps one of them and freed before the next type's.
   Returns the failures.  */
static int
bench_typed (const bench_env *b, gt_type t, const size_t *shape, int si)
{
  char cu[32], df[32];
  snprintf (cu, sizeof cu, "cublas%s", type_suffix[t]);
  snprintf (df, sizeof df, "default%s", type_suffix[t]);
  const int variants = t == GT_DOUBLE && b->o.only
                       && (strstr (b->o.only, "k9_d_")
                           || strstr (b->o.only, "k9s_d_")
                           || strstr (b->o.only, "k10_d"));
  if (!selected (b->o.only, cu) && !selected (b->o.only, df) && !variants)
    return 0;
  typed_problem tp;
  make_typed (&tp, b, t, shape, si);
  double cublas_ms = 0.0;
  int failures = typed_rows (b, &tp, &cublas_ms);
  if (variants)
    failures += double_variants (b, &tp, cublas_ms);
  free_typed (&tp);
  return failures;
}

int
main (int argc, char **argv)
{
  options o;
  if (parse_args (argc, argv, &o))
    return 2;
  /* the options as the plug-in reads them: GPU_TILED_EMULATE=off, the
     default path without kernel 11; =always, with it wherever it can run */
  gt_options opt;
  gt_options_read (&opt);
  size_t shapes[64][3];
  const int nshapes = parse_shapes (o.spec, shapes, 64);
  bench_env b;
  open_env (&b, &o);
  int failures = 0;
  for (int si = 0; si < nshapes; si++)
    {
      failures += bench_single (&b, shapes[si], si);
      for (int t = GT_DOUBLE; t < GT_TYPE_COUNT; t++)
        failures += bench_typed (&b, (gt_type) t, shapes[si], si);
      fflush (stdout);
    }
  close_env (&b);
  printf ("%s: %d failures\n", o.check ? "check" : "bench", failures);
  return failures ? 1 : 0;
}
