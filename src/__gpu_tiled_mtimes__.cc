// __gpu_tiled_mtimes__.cc -- Octave glue for gpu_tiled_mtimes: Octave
// matrices to plain pointers and back; the work is in gpu_tiled.h.

// PKG_ADD: autoload ("__gpu_tiled_mtimes__", "__gpu_tiled__.oct");
// PKG_DEL: autoload ("__gpu_tiled_mtimes__", "__gpu_tiled__.oct", "remove");

#include <chrono>
#include <memory>
#include <octave/oct.h>
#include <octave/ov.h>
#include <octave/quit.h>
#include <octave/version.h>
#include "gpu_tiled.h"

// The Octave array of each element type (and, before Octave 7, the matrix
// that allocates the result).
template <typename T> struct octave_array;
template <> struct octave_array<float>
{ typedef FloatNDArray nd; typedef FloatMatrix matrix; };
template <> struct octave_array<double>
{ typedef NDArray nd; typedef Matrix matrix; };
template <> struct octave_array<FloatComplex>
{ typedef FloatComplexNDArray nd; typedef FloatComplexMatrix matrix; };
template <> struct octave_array<Complex>
{ typedef ComplexNDArray nd; typedef ComplexMatrix matrix; };

// The result array.  FloatMatrix (m, n) zero-fills on one thread, which at
// n = 4096 costs more than the whole product on the GPU; from Octave 7 on an
// Array can adopt a buffer, which the library then writes in full.
// release () narrows it as Octave's own operators do: a complex result
// whose imaginary parts are all zero becomes real, a 1x1 one a scalar
// (octave_value's constructors call maybe_mutate already; the call here
// says so, and costs a scan only up to the first nonzero imaginary part).
#if OCTAVE_MAJOR_VERSION >= 7
template <typename T>
struct result
{
  T *data;
  octave_idx_type m, n;
  result (octave_idx_type m_, octave_idx_type n_)
    : data (std::allocator<T> ().allocate (m_ * n_)), m (m_), n (n_) { }
  ~result () { if (data) std::allocator<T> ().deallocate (data, m * n); }
  octave_value release ()
  {
    const typename octave_array<T>::nd a (Array<T> (data, dim_vector (m, n)));
    data = nullptr;
    octave_value v (a);
    v.maybe_mutate ();
    return v;
  }
};
#else
template <typename T>
struct result
{
  typename octave_array<T>::matrix C;
  T *data;
  result (octave_idx_type m, octave_idx_type n)
    : C (m, n), data (C.fortran_vec ()) { }
  octave_value release ()
  {
    octave_value v (C);
    v.maybe_mutate ();
    return v;
  }
};
#endif

// Ctrl-C sets this; the library checks it between pipeline stages.
static int
interrupted (void)
{
  return octave_interrupt_state > 0;
}

// One operand as the library takes it: the Octave array that holds its
// data (the argument's own, shared; or a conversion of a logical, char,
// range or diagonal matrix) and its element type.  Only the array of that
// type is made: an empty Octave array allocates, and a small product
// notices every allocation.  (std::unique_ptr, not std::optional: the
// glue builds as C++11 for the oldest Octave the package takes.)
struct operand
{
  std::unique_ptr<NDArray> d;
  std::unique_ptr<FloatNDArray> f;
  std::unique_ptr<ComplexNDArray> z;
  std::unique_ptr<FloatComplexNDArray> fz;
  gt_operand op;
};

static bool
is_complex_type (gt_type t)
{
  return t == GT_COMPLEX_SINGLE || t == GT_COMPLEX_DOUBLE;
}

static bool
is_single_type (gt_type t)
{
  return t == GT_SINGLE || t == GT_COMPLEX_SINGLE;
}

// The element type of a full 2-D non-scalar operand of a class that the
// library multiplies (single, double, complex of either; logical and char
// count as double), or false.
static bool
operand_type (const octave_value& x, gt_type& t)
{
  if (x.issparse () || x.ndims () != 2 || x.numel () == 1)
    return false;
  switch (x.builtin_type ())
    {
    case btyp_float:         t = GT_SINGLE; return true;
    case btyp_double:
    case btyp_bool:
    case btyp_char:          t = GT_DOUBLE; return true;
    case btyp_float_complex: t = GT_COMPLEX_SINGLE; return true;
    case btyp_complex:       t = GT_COMPLEX_DOUBLE; return true;
    default:                 return false;
    }
}

// Fills p with x's data as type t.  Single, double and complex matrices
// are handed over as they are (no copy); logical and char matrices are
// converted once, to the precision of the product, exactly.
static void
take_operand (const octave_value& x, gt_type t, operand& p)
{
  p.op.type = t;
  switch (t)
    {
    case GT_SINGLE:
      if (x.is_string ())
        p.f.reset (new FloatNDArray (x.char_array_value ()));
      else
        p.f.reset (new FloatNDArray (x.float_array_value ()));
      p.op.data = p.f->data ();
      break;
    case GT_DOUBLE:
      if (x.is_string ())
        p.d.reset (new NDArray (x.char_array_value ()));
      else
        p.d.reset (new NDArray (x.array_value ()));
      p.op.data = p.d->data ();
      break;
    case GT_COMPLEX_SINGLE:
      p.fz.reset (new FloatComplexNDArray (x.float_complex_array_value ()));
      p.op.data = p.fz->data ();
      break;
    default:
      p.z.reset (new ComplexNDArray (x.complex_array_value ()));
      p.op.data = p.z->data ();
      break;
    }
}

// An n x n matrix of type t with values in [-1, 1), never zero: what the
// crossover times the built-in product on.
template <typename T>
static octave_value
sample_matrix (octave_idx_type n, unsigned seed)
{
  typename octave_array<T>::nd a (dim_vector (n, n));
  T *p = a.fortran_vec ();
  for (octave_idx_type i = 0; i < n * n; i++)
    {
      seed = seed * 1103515245u + 12345u;
      p[i] = T (((seed >> 8) & 0xffff) / 32768.0 - 1.0 + 1e-6);
    }
  return octave_value (a);
}

// The crossover's timer (gt_host_timer): seconds of Octave's own * on
// n x n matrices of type c.
static double
time_builtin (gt_type c, size_t n, void *)
{
  octave_value a, b;
  switch (c)
    {
    case GT_SINGLE:
      a = sample_matrix<float> (n, 1);  b = sample_matrix<float> (n, 2);
      break;
    case GT_DOUBLE:
      a = sample_matrix<double> (n, 1);  b = sample_matrix<double> (n, 2);
      break;
    case GT_COMPLEX_SINGLE:
      a = sample_matrix<FloatComplex> (n, 1);
      b = sample_matrix<FloatComplex> (n, 2);
      break;
    default:
      a = sample_matrix<Complex> (n, 1);  b = sample_matrix<Complex> (n, 2);
      break;
    }
  const auto t0 = std::chrono::steady_clock::now ();
  octave_value r = octave::binary_op (octave_value::op_mul, a, b);
  const std::chrono::duration<double> d
    = std::chrono::steady_clock::now () - t0;
  return r.is_defined () ? d.count () : -1.0;
}

template <typename T>
static octave_value_list
product (gt_type c, const gt_operand& A, const gt_operand& B,
         octave_idx_type m, octave_idx_type n, octave_idx_type k, int tile)
{
  result<T> C (m, n);   // freed on every error path by its destructor
  const gt_status st = gt_mtimes_host (c, A, B, C.data, m, n, k, tile,
                                       GT_DEVICES_ALL, interrupted);
  if (st == GT_ERR_INTERRUPTED)
    octave_quit ();   // throws Octave's interrupt when Ctrl-C caused it
  if (st != GT_OK)
    error ("gpu_tiled_mtimes: %s", gt_error_text ());
  return ovl (C.release (), true);
}

// What the .m file takes over (made only then: it allocates).
static octave_value_list
not_done (void)
{
  return ovl (Matrix (), false);
}

// Arguments that are not two full 2-D non-scalar matrices of the classes
// above with columns (A) == rows (B) (and a TILE of 8, 16 or 32 when
// given) are not handled: C is empty and DONE false, and gpu_tiled_mtimes
// checks them itself and says what is wrong, or computes what needs no
// kernel (scalars).  That keeps the common call to one function call.
DEFUN_DLD (__gpu_tiled_mtimes__, args, ,
           "-*- texinfo -*-\n\
@deftypefn  {} {[@var{C}, @var{done}] =} __gpu_tiled_mtimes__ (@var{A}, @var{B})\n\
@deftypefnx {} {[@var{C}, @var{done}] =} __gpu_tiled_mtimes__ (@var{A}, @var{B}, @var{tile})\n\
Private: use @code{gpu_tiled_mtimes}.  @var{done} is false, and nothing\n\
computed, unless @var{A} and @var{B} are full 2-D non-scalar matrices of\n\
class single, double, logical or char, real or complex, with\n\
columns (@var{A}) == rows (@var{B}), and @var{tile}, if given, is 8, 16\n\
or 32.  @var{C} has the class, complexity and size of\n\
@code{@var{A} * @var{B}}.\n\
@end deftypefn")
{
  const int nargin = args.length ();
  if (nargin < 2 || nargin > 3)
    print_usage ();
  const octave_value &a = args(0), &b = args(1);
  gt_type ta, tb;
  if (! operand_type (a, ta) || ! operand_type (b, tb)
      || a.columns () != b.rows ())
    return not_done ();
  int tile = GT_TILE_DEFAULT;
  if (nargin == 3)
    {
      const octave_value &t = args(2);
      if (! t.isnumeric () || t.iscomplex () || t.numel () != 1)
        return not_done ();
      const double v = t.double_value ();
      if (v != 8 && v != 16 && v != 32)
        return not_done ();
      tile = static_cast<int> (v);
    }

  // The product's type, by Octave's rules: single if either operand is
  // single, complex if either is complex.
  const bool single = is_single_type (ta) || is_single_type (tb);
  const bool cplx = is_complex_type (ta) || is_complex_type (tb);
  const gt_type c = cplx ? (single ? GT_COMPLEX_SINGLE : GT_COMPLEX_DOUBLE)
                         : (single ? GT_SINGLE : GT_DOUBLE);
  const octave_idx_type m = a.rows (), k = a.columns (), n = b.columns ();

  // Empty products, and zeros where k == 0, need no kernel; their
  // imaginary parts are zero, so they are real, as in *.
  if (m == 0 || n == 0 || k == 0)
    {
      const dim_vector dv (m, n);
      return ovl (single ? octave_value (FloatNDArray (dv, 0.0f))
                         : octave_value (NDArray (dv, 0.0)), true);
    }

  // Without a tile, products too small to pay for the trip to the GPU
  // are Octave's own (the crossover is measured: gpu_tiled_info shows it).
  if (nargin == 2 && gt_runs_on_host (c, ta, tb, m, n, k, time_builtin,
                                      nullptr))
    return ovl (octave::binary_op (octave_value::op_mul, a, b), true);

  // Logical and char operands are converted in the precision of the
  // product (exactly: 0, 1 and character codes).
  if (b.islogical () || b.is_string ())
    tb = single ? GT_SINGLE : GT_DOUBLE;
  if (a.islogical () || a.is_string ())
    ta = single ? GT_SINGLE : GT_DOUBLE;
  // Otherwise each operand goes with its own type: the library rounds a
  // double operand of a single product to single in its host copy, and
  // takes a real operand of a complex product as it is (gt_types_combine).
  operand A, B;
  take_operand (a, ta, A);
  take_operand (b, tb, B);

  switch (c)
    {
    case GT_SINGLE:
      return product<float> (c, A.op, B.op, m, n, k, tile);
    case GT_DOUBLE:
      return product<double> (c, A.op, B.op, m, n, k, tile);
    case GT_COMPLEX_SINGLE:
      return product<FloatComplex> (c, A.op, B.op, m, n, k, tile);
    default:
      return product<Complex> (c, A.op, B.op, m, n, k, tile);
    }
}
