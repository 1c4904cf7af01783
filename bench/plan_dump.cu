/* plan_dump.cu -- prints the default path's plan for many shapes, one line
   each, so that two builds' dispatchers can be compared with diff (on the
   GPU, or here with the fallback facts of a 132-SM Hopper).
     plan_dump --costs "m,k,n;..."   each registry row's proposal for each
   shape, in predicted microseconds, kernel 11's own prediction (8 moduli)
   and the plan chosen: what to look at when the dispatcher chooses
   wrongly.
     plan_dump --types "m,k,n;..."   the plan of each other type for each
   shape (complex: four products in one, or three).
     plan_dump --panels "m,k,n;..."  each type's panel width of a product
   streamed from the host, and its panels.  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "gt_plan.h"
#include "gt_costs.h"
static void pr (size_t m, size_t k, size_t n, int rp)
{
  const gt_plan p = gt_plan_for (GT_SINGLE, m, n, k, 0, rp);
  const int cfg = p.kernel == GT_K4_ASYNC || p.kernel == GT_K5_SPLITK
                  ? p.k4_config : (p.kernel == GT_K8_WIDE ? p.k8_mode : 0);
  printf ("%zu %zu %zu r%d: kernel %d cfg %d tile %d splits %d work %zu edges %d %d tail %d %d\n",
          m, k, n, rp, p.kernel, cfg, p.tile, p.splits, p.work_bytes, p.edge_rows, p.edge_cols, p.tail,
          p.tail ? p.tail_splits : 0);
}
/* The next shape "m,k,n" of a spec "m,k,n;m,k,n;...": 0 after the last.  */
static int next_shape (const char **s, size_t *m, size_t *k, size_t *n)
{
  if (!*s || !**s || sscanf (*s, "%zu,%zu,%zu", m, k, n) != 3)
    return 0;
  *s = strchr (*s, ';') ? strchr (*s, ';') + 1 : NULL;
  return 1;
}
static const char *const type_names[GT_TYPE_COUNT] = { "s", "d", "c", "z" };
static void costs (size_t m, size_t k, size_t n)
{
  int count;
  const gt_kernel_row *rows = gt_registry_rows (&count);
  const int rp = 0;
  printf ("%zu %zu %zu:", m, k, n);
  const unsigned shape = m == 1 || n == 1 ? GT_SHAPE_VECTOR : GT_SHAPE_MATRIX;
  for (int i = 0; i < count; i++)
    if (rows[i].propose && (rows[i].shapes & shape)
        && gt_row_serves (&rows[i], GT_SINGLE)
        && (!rows[i].usable || rows[i].usable ()))
      {
        gt_plan p = gt_plan_make (GT_SINGLE, rows[i].id);
        const double c = rows[i].propose (&p, m, n, k, rp);
        if (c < HUGE_VAL)
          printf (" %s %.1f", rows[i].name, c * gt_cost_seconds (rp) * 1e6);
        else
          printf (" %s -", rows[i].name);
      }
  const gt_plan p = gt_plan_for (GT_SINGLE, m, n, k, 0, rp);
  printf ("; k11 predicts %.1f; chosen kernel %d\n", gt_k11_seconds (m, n, k) * 1e6, p.kernel);
}
static void types (size_t m, size_t k, size_t n)
{
  for (int t = GT_DOUBLE; t < GT_TYPE_COUNT; t++)
    {
      const gt_plan p = gt_plan_for ((gt_type) t, m, n, k, 0, 0);
      printf ("%zu %zu %zu %s: kernel %d%s%s%s splits %d%s work %zu tail %d\n", m, k, n,
              type_names[t], p.kernel, p.three ? " three" : p.complex_a ? " four" : "",
              p.k9_tile ? " small" : "", p.streamk ? " stream" : "", p.splits,
              p.cluster > 0 ? " cluster" : "",
              p.work_bytes, p.tail);
    }
}
static void panels (size_t m, size_t k, size_t n)
{
  for (int t = GT_SINGLE; t < GT_TYPE_COUNT; t++)
    {
      /* the host layer's rule: under 64 MiB, one panel goes side by side */
      const size_t bytes = (m * k + k * n + m * n) * gt_type_size ((gt_type) t);
      const size_t w = gt_panel_width ((gt_type) t, m, n, k, 0, 64,
                                       bytes >= ((size_t) 64 << 20));
      printf ("%zu %zu %zu %s: panels of %zu, %zu\n", m, k, n, type_names[t], w,
              (n + w - 1) / w);
    }
}
int main (int argc, char **argv)
{
  static const struct { const char *flag; void (*each) (size_t, size_t, size_t); } modes[] = {
    { "--costs", costs }, { "--types", types }, { "--panels", panels } };
  for (size_t i = 0; argc == 3 && i < sizeof modes / sizeof modes[0]; i++)
    if (!strcmp (argv[1], modes[i].flag))
      {
        size_t m, k, n;
        for (const char *s = argv[2]; next_shape (&s, &m, &k, &n);)
          modes[i].each (m, k, n);
        return 0;
      }
  static const size_t v[] = {1,2,7,31,64,127,128,129,255,256,500,777,1000,1024,1409,1536,2048,2049,3000,4096,4097,5000,8192,16384};
  const int nv = sizeof v / sizeof v[0];
  static const size_t extra[][3] = {{65536,64,64},{64,65536,64},{128,65536,128},{1,4096,4096},{4096,4096,1},{3000,700,5000},
    {1665,768,2499},{2901,768,1409},{2571,600,1646},{2497,600,1687},{1797,1024,2313},{1174,2048,3109},{1285,2048,3109},{1433,2048,2863},
    {1544,2048,2863},{1507,2048,3150},{3001,2048,3100},{2500,2048,3074},{2574,2048,2541},{2574,2048,4099},{2049,1000,1031},{1100,4001,1300},
    {1537,17,1411},{1280,2048,1280},{777,3001,555},{300,5000,260},{1000,1999,1000},{513,2500,129},{1536,2048,1536},{640,4097,3456},
    {1280,2048,1800},{1408,2049,1664},{2048,2049,3001},{2047,1999,3001},{1409,1024,2945},{1412,2048,2817},{1537,2048,2817},{2068,1024,2053},
    {2439,1024,2573},{1029,1024,3976},{1000,100000,1000},{10000,1000,10000},{2000,20000,2000},{100000,256,256},{256,100000,256},{6144,4096,6144}};
  for (int rp = 0; rp < 2; rp++)
    {
      for (int a = 0; a < nv; a++) for (int b = 0; b < nv; b++) for (int c = 0; c < nv; c++)
        pr (v[a], v[b], v[c], rp);
      for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
        pr (extra[i][0], extra[i][1], extra[i][2], rp);
    }
  return 0;
}
