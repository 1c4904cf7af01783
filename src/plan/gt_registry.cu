/* The kernel registry: one row per kernel of the plug-in, with the
   types it serves (complex products run on the planes of their real
   type, gt_run.cu, except those with a vector side, which kernel 10
   reads as they are).  The dispatcher
   tries the rows with a cost model in this order, the first on a tie.  A
   new kernel is its file in src/kernels (its launcher and gt_kN_row_*
   functions, declared in gt_kernels.h) and one row here; a cost model in
   gt_costs.cu where the default path is to choose it.  */

#include <stddef.h>
#include "gt_costs.h"

#define SINGLE GT_TYPE_BIT (GT_SINGLE)
#define DOUBLE GT_TYPE_BIT (GT_DOUBLE)
#define COMPLEX (GT_TYPE_BIT (GT_COMPLEX_SINGLE) | GT_TYPE_BIT (GT_COMPLEX_DOUBLE))

static const gt_kernel_row rows[] = {
  /* id, name, types, default-path shapes, usable, work_bytes, launch,
     forget, propose */
  { GT_K4_ASYNC, "k4_async", SINGLE, GT_SHAPE_MATRIX, NULL, gt_k4_row_work,
    gt_k4_row_launch, NULL, gt_cost_k4 },
  { GT_K8_WIDE, "k8_wide", SINGLE, GT_SHAPE_MATRIX, NULL, gt_k8_row_work,
    gt_k8_row_launch, gt_k8_forget, gt_cost_k8 },
  { GT_K9_DMMA, "k9_dmma", SINGLE | DOUBLE, GT_SHAPE_MATRIX, gt_k9_usable,
    gt_k9_row_work, gt_k9_row_launch, gt_k9_forget, gt_cost_k9 },
  /* after kernel 9, which it runs where its scan declines */
  { GT_K11_OZAKI, "k11_ozaki", SINGLE, GT_SHAPE_MATRIX, gt_k11_usable,
    gt_k11_row_work, gt_k11_row_launch, gt_k11_forget, gt_cost_k11 },
  { GT_K6_GEMV, "k6_gemv", SINGLE, GT_SHAPE_VECTOR, NULL, gt_k6_row_work,
    gt_k6_row_launch, NULL, gt_cost_k6 },
  /* double beside kernel 9, and everywhere without it; complex products
     with a vector side only (gt_plan_mixed plans them; complex matrices
     never reach the rows' cost models, and its launch refuses them) */
  { GT_K10_GENERIC, "k10_generic", DOUBLE | COMPLEX,
    GT_SHAPE_MATRIX | GT_SHAPE_VECTOR,
    NULL, gt_k10_row_work, gt_k10_row_launch, NULL, gt_cost_k10 },
  /* chosen by kernel 4's cost model where it splits k */
  { GT_K5_SPLITK, "k5_splitk", SINGLE, 0, NULL, gt_k4_row_work,
    gt_k4_row_launch, NULL, NULL },
  /* the tile argument's classic kernel */
  { GT_K1_CLASSIC, "k1_classic", SINGLE | DOUBLE, 0, NULL, NULL,
    gt_k1_row_launch,
    NULL, NULL },
};

extern "C" const gt_kernel_row *
gt_registry_rows (int *count)
{
  *count = (int) (sizeof rows / sizeof rows[0]);
  return rows;
}

extern "C" const gt_kernel_row *
gt_registry_row (int id)
{
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (rows[i].id == id)
      return &rows[i];
  return NULL;
}

extern "C" size_t
gt_type_size (gt_type type)
{
  static const size_t size[GT_TYPE_COUNT] = {
    sizeof (float), sizeof (double), 2 * sizeof (float), 2 * sizeof (double)
  };
  return (unsigned) type < GT_TYPE_COUNT ? size[type] : 0;
}

extern "C" const char *
gt_type_name (gt_type type)
{
  static const char *const name[GT_TYPE_COUNT] = {
    "single", "double", "complex single", "complex double"
  };
  return (unsigned) type < GT_TYPE_COUNT ? name[type] : "unknown";
}

extern "C" int
gt_types_combine (gt_type c, gt_type a, gt_type b)
{
  if ((unsigned) c >= GT_TYPE_COUNT || (unsigned) a >= GT_TYPE_COUNT
      || (unsigned) b >= GT_TYPE_COUNT)
    return 0;
  const gt_type r = gt_type_real (c);
  /* the operand types that make C of type c: c, its real type, and their
     double counterparts where c is of single precision */
  const int single = r == GT_SINGLE;
  const int complex_c = r != c;
  int ok[2];
  const gt_type t[2] = { a, b };
  for (int i = 0; i < 2; i++)
    {
      const gt_type tr = gt_type_real (t[i]);
      ok[i] = (tr == r || (single && tr == GT_DOUBLE))
              && (complex_c || tr == t[i]);
    }
  const int some_complex = gt_type_real (a) != a || gt_type_real (b) != b;
  return ok[0] && ok[1] && some_complex == complex_c;
}
