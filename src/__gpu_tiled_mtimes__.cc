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

// Arguments that are not two real full 2-D non-scalar single matrices of
// conforming sizes (and a TILE of 8, 16 or 32 when given) are not handled:
// C is empty and DONE false, and gpu_tiled_mtimes checks them itself and
// says what is wrong.  That keeps the common call to one function call.
static bool
usable_operand (const octave_value& x)
{
  return x.is_single_type () && ! x.iscomplex () && ! x.issparse ()
         && x.ndims () == 2 && x.numel () != 1;
}

DEFUN_DLD (__gpu_tiled_mtimes__, args, ,
           "-*- texinfo -*-\n\
@deftypefn  {} {[@var{C}, @var{done}] =} __gpu_tiled_mtimes__ (@var{A}, @var{B})\n\
@deftypefnx {} {[@var{C}, @var{done}] =} __gpu_tiled_mtimes__ (@var{A}, @var{B}, @var{tile})\n\
Private: use @code{gpu_tiled_mtimes}.  @var{done} is false, and nothing\n\
computed, unless @var{A} and @var{B} are real full 2-D non-scalar single\n\
matrices with columns (@var{A}) == rows (@var{B}) and @var{tile}, if\n\
given, is 8, 16 or 32.\n\
@end deftypefn")
{
  const int nargin = args.length ();
  if (nargin < 2 || nargin > 3)
    print_usage ();
  const octave_value_list not_done = ovl (Matrix (), false);
  const octave_value &a = args(0), &b = args(1);
  if (! usable_operand (a) || ! usable_operand (b)
      || a.columns () != b.rows ())
    return not_done;
  int tile = GT_TILE_DEFAULT;
  if (nargin == 3)
    {
      const octave_value &t = args(2);
      if (! t.isnumeric () || t.iscomplex () || t.numel () != 1)
        return not_done;
      const double v = t.double_value ();
      if (v != 8 && v != 16 && v != 32)
        return not_done;
      tile = static_cast<int> (v);
    }

  const FloatMatrix A = a.float_matrix_value ();
  const FloatMatrix B = b.float_matrix_value ();
  const octave_idx_type m = A.rows (), k = A.cols (), n = B.cols ();
  result C (m, n);   // freed on every error path by its destructor
  const gt_status st = gt_mtimes_host (GT_SINGLE, A.data (), B.data (),
                                       C.data, m, n, k, tile,
                                       GT_DEVICE_DEFAULT, interrupted);
  if (st == GT_ERR_INTERRUPTED)
    octave_quit ();   // throws Octave's interrupt when Ctrl-C caused it
  if (st != GT_OK)
    error ("gpu_tiled_mtimes: %s", gt_error_text ());
  return ovl (C.release (), true);
}
