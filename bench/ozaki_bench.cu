/* ozaki_bench -- kernel 11 (bench/kernels/gt_k11_ozaki.cu) against cuBLAS
   in the same run: our INT8 GEMM against cuBLAS's (bits and TOPS), each
   stage of the emulated single product, the whole of it, cuBLAS SGEMM and
   the default path (kernel 9 on Hopper); and accuracy per input class,
   relative Frobenius error against cuBLAS DGEMM of the same inputs.

     ozaki_bench [--moduli 6,7,8] [--reps 15] [--csv FILE] [--device NAME]
                 [--accuracy-only] [--shapes m,k,n;m,k,n...]

   Times: CUDA events, median of reps after 3 warm-ups.  */

#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <algorithm>
#include "gt_plan.h"
#include "gt_k11_ozaki.h"
#include "oz_cublas.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf (stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString (e_)); \
  exit (1); } } while (0)
#define CB(x) do { cublasStatus_t e_ = (x); if (e_ != CUBLAS_STATUS_SUCCESS) { \
  fprintf (stderr, "%s:%d cublas %d\n", __FILE__, __LINE__, (int) e_); \
  exit (1); } } while (0)

enum { RANDN, UNIFORM, LOGUNIFORM, SCALED, HUGE_FEW, SPECIALS, CLASSES };
static const char *class_name[CLASSES] =
  { "randn", "uniform01", "logunif2^30", "rowcol2^40", "fewhuge", "naninf" };

__device__ unsigned long long
mix (unsigned long long x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__device__ double
unit (unsigned long long h)
{
  return ((h >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Element (r, c) of a rows x cols column-major matrix of the class; `line`
   is the index whose scale the class varies (rows of A, columns of B).  */
__global__ void
fill (float *x, size_t rows, size_t cols, int cls, unsigned seed, int by_col)
{
  const size_t n = rows * cols;
  for (size_t e = blockIdx.x * (size_t) blockDim.x + threadIdx.x; e < n;
       e += (size_t) gridDim.x * blockDim.x)
    {
      const unsigned long long h1 = mix (e * 2 + ((unsigned long long) seed << 40));
      const unsigned long long h2 = mix (h1);
      const double g = sqrt (-2 * log (unit (h1))) * cos (6.283185307179586 * unit (h2));
      const size_t line = by_col ? e / rows : e % rows;
      double v = g;
      switch (cls)
        {
        case UNIFORM: v = unit (h1); break;
        case LOGUNIFORM:
          v = exp2 (-30 + 60 * unit (h1)) * ((h2 & 1) ? 1 : -1);
          break;
        case SCALED:
          v = g * exp2 (floor (-40 + 81 * unit (mix (line + ((unsigned long long) seed << 32)))));
          break;
        case HUGE_FEW:
          if ((h2 & 1023) == 0)
            v = g * 16777216.0;
          break;
        case SPECIALS:
          if ((h2 & 4095) == 1) v = NAN;
          else if ((h2 & 4095) == 2) v = INFINITY;
          else if ((h2 & 63) == 3) v = g * 1e-40;
          break;
        }
      x[e] = (float) v;
    }
}

__global__ void
widen (const float *x, double *y, size_t n)
{
  for (size_t e = blockIdx.x * (size_t) blockDim.x + threadIdx.x; e < n;
       e += (size_t) gridDim.x * blockDim.x)
    y[e] = x[e];
}

/* sums[0] += sum (c - ref)^2, sums[1] += sum ref^2 over finite refs.  */
__global__ void
error_sums (const float *c, const double *ref, size_t n, double *sums)
{
  __shared__ double s0[256], s1[256];
  double a = 0, b = 0;
  for (size_t e = blockIdx.x * (size_t) blockDim.x + threadIdx.x; e < n;
       e += (size_t) gridDim.x * blockDim.x)
    {
      const double d = (double) c[e] - ref[e];
      a += d * d;
      b += ref[e] * ref[e];
    }
  s0[threadIdx.x] = a;  s1[threadIdx.x] = b;
  __syncthreads ();
  for (int w = 128; w > 0; w /= 2)
    {
      if ((int) threadIdx.x < w)
        {
          s0[threadIdx.x] += s0[threadIdx.x + w];
          s1[threadIdx.x] += s1[threadIdx.x + w];
        }
      __syncthreads ();
    }
  if (threadIdx.x == 0)
    {
      atomicAdd (&sums[0], s0[0]);
      atomicAdd (&sums[1], s1[0]);
    }
}

static double
rel_error (const float *c, const double *ref, size_t n, double *sums)
{
  double h[2];
  CK (cudaMemset (sums, 0, 2 * sizeof (double)));
  error_sums<<<1024, 256>>> (c, ref, n, sums);
  CK (cudaMemcpy (h, sums, sizeof h, cudaMemcpyDeviceToHost));
  return sqrt (h[0] / h[1]);
}

template <class F>
static double
time_ms (int reps, F f)
{
  cudaEvent_t a, b;
  CK (cudaEventCreate (&a));
  CK (cudaEventCreate (&b));
  for (int r = 0; r < 3; r++)
    f ();
  std::vector<float> t;
  for (int r = 0; r < reps; r++)
    {
      CK (cudaEventRecord (a));
      f ();
      CK (cudaEventRecord (b));
      CK (cudaEventSynchronize (b));
      float ms;
      CK (cudaEventElapsedTime (&ms, a, b));
      t.push_back (ms);
    }
  CK (cudaGetLastError ());
  std::sort (t.begin (), t.end ());
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return t[t.size () / 2];
}

typedef struct
{
  size_t m, k, n;
} shape;

static FILE *csv;
static const char *device_name = "gpu";

static void
row (const shape &s, const char *name, const char *input, double ms,
     double ops, double err)
{
  printf ("%6zu %6zu %6zu  %-22s %-12s %10.4f ms %9.1f T/s  err %.3e\n",
          s.m, s.k, s.n, name, input, ms, ms > 0 ? ops / ms * 1e-9 : 0.0, err);
  if (csv)
    fprintf (csv, "%s,%zu,%zu,%zu,%s,%s,%.6f,%.3f,%.4e\n", device_name, s.m,
             s.k, s.n, name, input, ms, ms > 0 ? ops / ms * 1e-9 : 0.0, err);
}

/* Our INT8 GEMM against cuBLAS's on one plane of random residues: the
   same bits, and the time of each.  */
static void
int8_rows (cublasHandle_t blas, const shape &s, int reps, const gt_oz_work *w,
           const std::vector<int> &moduli)
{
  const size_t m = w->mp, n = w->np, kp = w->kp;
  int32_t *c1, *c2;
  CK (cudaMalloc (&c1, m * n * 4));
  CK (cudaMalloc (&c2, m * n * 4));
  auto ours = [&] { CK (gt_oz_int8_gemm (w->a_planes, w->b_planes, c1, m, m, n, kp, 0)); };
  auto theirs = [&] { CB (oz_cublas_int8 (blas, w, c2)); };
  ours ();
  theirs ();
  CK (cudaDeviceSynchronize ());
  std::vector<int32_t> h1 (m * n), h2 (m * n);
  CK (cudaMemcpy (h1.data (), c1, m * n * 4, cudaMemcpyDeviceToHost));
  CK (cudaMemcpy (h2.data (), c2, m * n * 4, cudaMemcpyDeviceToHost));
  size_t diff = 0;
  for (size_t e = 0; e < m * n; e++)
    diff += h1[e] != h2[e];
  const double ops = 2.0 * m * n * kp;
  row (s, "int8_ours", "residues", time_ms (reps, ours), ops, (double) diff);
  row (s, "int8_cublas", "residues", time_ms (reps, theirs), ops, 0);
  /* As many GEMMs back to back as the emulation runs (GEMMul8's way),
     so that both are timed over the same sustained load.  */
  for (int nm : moduli)
    {
      char name[64];
      snprintf (name, sizeof name, "int8_cublas_x%d", nm);
      row (s, name, "residues", time_ms (reps, [&] {
             for (int l = 0; l < nm; l++)
               theirs ();
           }), nm * ops, 0);
    }
  cudaFree (c1);
  cudaFree (c2);
}

/* The products in pieces of PIECE_K of k on the planes w holds (the
   first stored, the others added mod p: gt_oz_products_part): its time,
   and whether the residues of C's m rows are the whole product's, bit for
   bit (the row's name says "same" or "DIFFER").  */
#define PIECE_K 2048

static void
pieces_row (const shape &s, const char *in, int reps, const gt_oz_work *w,
            int nm)
{
  if (s.k < 2 * PIECE_K)
    return;
  const size_t bytes = (size_t) nm * w->ldr * s.n;
  std::vector<uint8_t> whole (bytes), parts (bytes);
  auto pieces = [&] {
    for (size_t k0 = 0; k0 < s.k; k0 += PIECE_K)
      CK (gt_oz_products_part (w, k0, std::min (k0 + PIECE_K, s.k), k0 > 0,
                               0));
  };
  CK (gt_oz_products (w, 0));
  CK (cudaMemcpy (whole.data (), w->c_planes, bytes, cudaMemcpyDeviceToHost));
  CK (cudaMemset (w->c_planes, 0x5a, bytes));   /* nothing left over */
  pieces ();
  CK (cudaMemcpy (parts.data (), w->c_planes, bytes, cudaMemcpyDeviceToHost));
  size_t differ = 0;
  for (size_t z = 0; z < (size_t) nm; z++)
    for (size_t j = 0; j < s.n; j++)
      {
        const size_t at = z * w->ldr * s.n + j * w->ldr;
        differ += memcmp (&whole[at], &parts[at], s.m) != 0;
      }
  char name[80];
  snprintf (name, sizeof name, "k11_n%d_products_pieces%d_%s", nm, PIECE_K,
            differ ? "DIFFER" : "same");
  row (s, name, in, time_ms (reps, pieces), 2.0 * nm * w->mp * w->np * w->kp,
       0);
}

/* Every row of one shape: accuracy per input class, and for randn the
   times of each variant, stage and INT8 product.  One piece (about 100
   lines): each class's rows share its operands, its DGEMM reference, the
   scratch and the timing lambdas, which pieces would pass by the dozen.  */
static void
bench_shape (cublasHandle_t blas, const shape &s,
             const std::vector<int> &moduli, int reps, int accuracy_only,
             double *sums)
{
  const size_t an = s.m * s.k, bn = s.k * s.n, cn = s.m * s.n;
  float *A, *B, *C;
  double *Ad, *Bd, *ref;
  CK (cudaMalloc (&A, an * 4));
  CK (cudaMalloc (&B, bn * 4));
  CK (cudaMalloc (&C, cn * 4));
  CK (cudaMalloc (&Ad, an * 8));
  CK (cudaMalloc (&Bd, bn * 8));
  CK (cudaMalloc (&ref, cn * 8));
  int maxn = std::max (GT_OZ_MAX_USED,
                       *std::max_element (moduli.begin (), moduli.end ()));
  gt_oz_work w;
  gt_oz_layout (&w, maxn, s.m, s.n, s.k, NULL);
  void *work;
  CK (cudaMalloc (&work, w.bytes));
  const gt_plan dplan = gt_plan_for (GT_SINGLE, s.m, s.n, s.k, 0,
                                     gt_needs_repack (GT_SINGLE, A, s.m, B, s.k));
  void *dwork = NULL;
  if (dplan.work_bytes)
    CK (cudaMalloc (&dwork, dplan.work_bytes));
  gt_gemm_args g = { A, s.m, B, s.k, C, s.m, s.m, s.n, s.k, dwork };
  const float f1 = 1, f0 = 0;
  const double d1 = 1, d0 = 0;
  const double flops = 2.0 * s.m * s.n * s.k;
  for (int cls = 0; cls < CLASSES; cls++)
    {
      if (!accuracy_only && cls > RANDN)
        break;
      fill<<<1024, 256>>> (A, s.m, s.k, cls, 11 + cls, 0);
      fill<<<1024, 256>>> (B, s.k, s.n, cls, 23 + cls, 1);
      widen<<<1024, 256>>> (A, Ad, an);
      widen<<<1024, 256>>> (B, Bd, bn);
      CB (cublasDgemm (blas, CUBLAS_OP_N, CUBLAS_OP_N, (int) s.m, (int) s.n,
                       (int) s.k, &d1, Ad, (int) s.m, Bd, (int) s.k, &d0,
                       ref, (int) s.m));
      auto sgemm = [&] {
        CB (cublasSgemm (blas, CUBLAS_OP_N, CUBLAS_OP_N, (int) s.m,
                         (int) s.n, (int) s.k, &f1, A, (int) s.m, B,
                         (int) s.k, &f0, C, (int) s.m));
      };
      auto dflt = [&] { CK (gt_gemm_run (&dplan, &g, 0)); };
      const char *in = class_name[cls];
      sgemm ();
      const double e_s = rel_error (C, ref, cn, sums);
      dflt ();
      const double e_d = rel_error (C, ref, cn, sums);
      const int timed = cls == RANDN && !accuracy_only;
      row (s, "cublas_sgemm", in, timed ? time_ms (reps, sgemm) : 0, flops, e_s);
      char name[64];
      snprintf (name, sizeof name, "default_k%d", dplan.kernel);
      row (s, name, in, timed ? time_ms (reps, dflt) : 0, flops, e_d);
      /* the scan's own choice, then each number of moduli asked for */
      gt_oz_layout (&w, GT_OZ_MAX_USED, s.m, s.n, s.k, work);
      int choice;
      double ratio;
      auto automatic = [&] {
        CK (gt_oz_scan (&w, A, s.m, B, s.k, 0));
        CK (cudaMemcpy (&choice, w.choice, sizeof choice, cudaMemcpyDeviceToHost));
        if (!choice)
          {
            CK (gt_gemm_run (&dplan, &g, 0));
            return;
          }
        gt_oz_layout (&w, choice, s.m, s.n, s.k, work);
        CK (gt_oz_slice (&w, A, s.m, B, s.k, 0));
        CK (gt_oz_products (&w, 0));
        CK (gt_oz_combine (&w, C, s.m, 0));
        gt_oz_layout (&w, GT_OZ_MAX_USED, s.m, s.n, s.k, work);
      };
      automatic ();
      CK (cudaMemcpy (&ratio, w.ratio, sizeof ratio, cudaMemcpyDeviceToHost));
      const double e_a = rel_error (C, ref, cn, sums);
      snprintf (name, sizeof name, "k11_auto_n%d_r%.2g", choice, ratio);
      row (s, name, in, timed ? time_ms (reps, automatic) : 0, flops, e_a);
      for (int nm : moduli)
        {
          gt_oz_layout (&w, nm, s.m, s.n, s.k, work);
          auto run = [&] { CK (gt_oz_run (&w, A, s.m, B, s.k, C, s.m, 0)); };
          run ();
          const double e_o = rel_error (C, ref, cn, sums);
          snprintf (name, sizeof name, "k11_ozaki_n%d", nm);
          row (s, name, in, timed ? time_ms (reps, run) : 0, flops, e_o);
          if (!timed)
            continue;
          snprintf (name, sizeof name, "k11_n%d_scan", nm);
          row (s, name, in, time_ms (reps, [&] { CK (gt_oz_scan (&w, A, s.m, B, s.k, 0)); }), 0, 0);
          snprintf (name, sizeof name, "k11_n%d_slice", nm);
          row (s, name, in, time_ms (reps, [&] { CK (gt_oz_slice (&w, A, s.m, B, s.k, 0)); }), 0, 0);
          snprintf (name, sizeof name, "k11_n%d_products", nm);
          row (s, name, in, time_ms (reps, [&] { CK (gt_oz_products (&w, 0)); }),
               2.0 * nm * w.mp * w.np * w.kp, 0);
          snprintf (name, sizeof name, "k11_n%d_combine", nm);
          row (s, name, in, time_ms (reps, [&] { CK (gt_oz_combine (&w, C, s.m, 0)); }), 0, 0);
          pieces_row (s, in, reps, &w, nm);
        }
      if (timed)
        int8_rows (blas, s, reps, &w, moduli);
    }
  CK (cudaDeviceSynchronize ());
  cudaFree (A); cudaFree (B); cudaFree (C); cudaFree (Ad); cudaFree (Bd);
  cudaFree (ref); cudaFree (work); cudaFree (dwork);
}

static std::vector<shape>
parse_shapes (const char *arg)
{
  std::vector<shape> v;
  while (arg && *arg)
    {
      shape s;
      if (sscanf (arg, "%zu,%zu,%zu", &s.m, &s.k, &s.n) != 3)
        break;
      v.push_back (s);
      arg = strchr (arg, ';');
      if (arg)
        arg++;
    }
  return v;
}

int
main (int argc, char **argv)
{
  std::vector<int> moduli = { 6, 7, 8 };
  int reps = 15, accuracy_only = 0;
  std::vector<shape> shapes = { { 1024, 1024, 1024 }, { 1000, 1000, 1000 },
                                { 4096, 4096, 4096 }, { 8192, 8192, 8192 } };
  for (int a = 1; a < argc; a++)
    {
      if (!strcmp (argv[a], "--moduli") && a + 1 < argc)
        {
          moduli.clear ();
          for (char *p = argv[++a]; *p;)
            {
              moduli.push_back ((int) strtol (p, &p, 10));
              if (*p == ',') p++;
            }
        }
      else if (!strcmp (argv[a], "--reps") && a + 1 < argc)
        reps = atoi (argv[++a]);
      else if (!strcmp (argv[a], "--csv") && a + 1 < argc)
        csv = fopen (argv[++a], "w");
      else if (!strcmp (argv[a], "--device") && a + 1 < argc)
        device_name = argv[++a];
      else if (!strcmp (argv[a], "--shapes") && a + 1 < argc)
        shapes = parse_shapes (argv[++a]);
      else if (!strcmp (argv[a], "--accuracy-only"))
        accuracy_only = 1;
    }
  setvbuf (stdout, NULL, _IOLBF, 0);
  if (csv)
    fprintf (csv, "device,m,k,n,variant,input,ms,tops,error\n");
  cublasHandle_t blas;
  CB (cublasCreate (&blas));
  double *sums;
  CK (cudaMalloc (&sums, 2 * sizeof (double)));
  for (const shape &s : shapes)
    bench_shape (blas, s, moduli, reps, accuracy_only, sums);
  if (csv)
    fclose (csv);
  return 0;
}
