// __gpu_tiled_mtimes__.cc -- Octave glue for gpu_tiled_mtimes: Octave
// matrices to plain pointers and back; the work is in gpu_tiled.h.

// PKG_ADD: autoload ("__gpu_tiled_mtimes__", "__gpu_tiled__.oct");
// PKG_DEL: autoload ("__gpu_tiled_mtimes__", "__gpu_tiled__.oct", "remove");

#include <memory>
#include <octave/oct.h>
#include <octave/quit.h>
#include <octave/version.h>
#include "gpu_tiled.h"

// The result array.  FloatMatrix (m, n) zero-fills on one thread, which at
// n = 4096 costs more than the whole product on the GPU; from Octave 7 on an
// Array can adopt a buffer, which the library then writes in full.
#if OCTAVE_MAJOR_VERSION >= 7
struct result
{
  float *data;
  octave_idx_type m, n;
  result (octave_idx_type m_, octave_idx_type n_)
    : data (std::allocator<float> ().allocate (m_ * n_)), m (m_), n (n_) { }
  ~result () { if (data) std::allocator<float> ().deallocate (data, m * n); }
  octave_value release ()
  {
    Array<float> a (data, dim_vector (m, n));
    data = nullptr;
    return octave_value (FloatNDArray (a));
  }
};
#else
struct result
{
  FloatMatrix C;
  float *data;
  result (octave_idx_type m, octave_idx_type n)
    : C (m, n), data (C.fortran_vec ()) { }
  octave_value release () { return octave_value (C); }
};
#endif

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

  result C (m, n);   // freed on every error path by its destructor
  const gt_status st = gt_mtimes_host (A.data (), B.data (), C.data,
                                       m, n, k, tile, interrupted);
  if (st == GT_ERR_INTERRUPTED)
    octave_quit ();
  if (st != GT_OK)
    error ("gpu_tiled_mtimes: %s", gt_error_text ());
  return ovl (C.release ());
}
