// __gpu_tiled_mtimes__.cc -- Octave glue for gpu_tiled_mtimes: Octave
// matrices to plain pointers and back; the work is in gpu_tiled.h.

// PKG_ADD: autoload ("__gpu_tiled_mtimes__", "__gpu_tiled__.oct");
// PKG_DEL: autoload ("__gpu_tiled_mtimes__", "__gpu_tiled__.oct", "remove");

#include <octave/oct.h>
#include <octave/quit.h>
#include "gpu_tiled.h"

// Ctrl-C sets this; the library checks it between pipeline stages.
static int
interrupted (void)
{
  return octave_interrupt_state > 0;
}

DEFUN_DLD (__gpu_tiled_mtimes__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{C} =} __gpu_tiled_mtimes__ (@var{A}, @var{B}, @var{tile})\n\
Private: use @code{gpu_tiled_mtimes}.  @var{A} and @var{B} are real full\n\
2-D single matrices with columns (@var{A}) == rows (@var{B}); @var{tile}\n\
is 0 (fastest kernel), 8, 16 or 32.\n\
@end deftypefn")
{
  if (args.length () != 3)
    print_usage ();
  const octave_value &a = args(0), &b = args(1);
  if (! a.is_single_type () || ! b.is_single_type () || a.iscomplex ()
      || b.iscomplex () || a.issparse () || b.issparse ()
      || a.ndims () != 2 || b.ndims () != 2)
    error ("gpu_tiled_mtimes: A and B must be real full 2-D single matrices");
  const int tile = args(2).xint_value ("gpu_tiled_mtimes: TILE must be an integer");
  if (! gt_tile_is_valid (tile))
    error ("gpu_tiled_mtimes: TILE must be 8, 16 or 32");

  const FloatMatrix A = a.float_matrix_value ();
  const FloatMatrix B = b.float_matrix_value ();
  const octave_idx_type m = A.rows (), k = A.cols (), n = B.cols ();
  if (B.rows () != k)
    error ("gpu_tiled_mtimes: nonconformant arguments (A is %ldx%ld, B is %ldx%ld)",
           (long) m, (long) k, (long) B.rows (), (long) n);

  FloatMatrix C (m, n);
  const gt_status st = gt_mtimes_host (A.data (), B.data (), C.fortran_vec (),
                                       m, n, k, tile, interrupted);
  if (st == GT_ERR_INTERRUPTED)
    octave_quit ();
  if (st != GT_OK)
    error ("gpu_tiled_mtimes: %s", gt_error_text ());
  return ovl (C);
}
