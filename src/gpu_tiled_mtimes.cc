// gpu_tiled_mtimes.cc -- gpu_tiled_mtimes, the package's public product:
// Octave matrices to plain pointers and back; the work is in gpu_tiled.h.
//
// Compiled rather than an .m file: an .m function call alone costs about
// 12 us in Octave 7 on the benchmark host, more than the whole overhead a
// product below the CPU crossover may add (bench/RESULTS.md).  So the
// common call is one call into C++, and only arguments it does not take
// reach the checks (check_operand, check_tile), which say what is wrong
// in the words the .m version used.  Its tests are at the bottom of this
// file; the build extracts them into gpu_tiled_mtimes.cc-tst, which pkg
// installs beside the plug-in, where `test gpu_tiled_mtimes` finds them.

// PKG_ADD: autoload ("gpu_tiled_mtimes", "__gpu_tiled__.oct");
// PKG_DEL: autoload ("gpu_tiled_mtimes", "__gpu_tiled__.oct", "remove");

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <complex>
#include <exception>
#include <memory>
#include <vector>
#include <octave/oct.h>
#include <octave/ov.h>
#include <octave/parse.h>
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

#if OCTAVE_MAJOR_VERSION >= 7
// Large results come from the heap, where a loop's freed result is the
// next one's memory (gt_result_heap_begin); the bracket closes on a throw.
struct heap_bracket
{
  int began;
  explicit heap_bracket (size_t bytes) : began (gt_result_heap_begin (bytes))
  { }
  ~heap_bracket () { gt_result_heap_end (began); }
};

template <typename T>
static T *
allocate (octave_idx_type count)
{
  // bytes that would wrap (safe_numel passed the count): Octave's error
  if (static_cast<size_t> (count) > SIZE_MAX / sizeof (T))
    throw std::bad_alloc ();
  heap_bracket h (static_cast<size_t> (count) * sizeof (T));
  return std::allocator<T> ().allocate (count);
}

// The result array.  FloatMatrix (m, n) zero-fills on one thread, which at
// n = 4096 costs more than the whole product on the GPU; from Octave 7 on an
// Array can adopt a buffer, which the library then writes in full.
// release () narrows it as Octave's own operators do: a complex result
// whose imaginary parts are all zero becomes real, a 1x1 one a scalar
// (octave_value's constructors call maybe_mutate already; the call here
// says so, and costs a scan only up to the first nonzero imaginary part).
template <typename T>
struct result
{
  T *data;
  octave_idx_type m, n;
  result (octave_idx_type m_, octave_idx_type n_)
    : data (allocate<T> (m_ * n_)), m (m_), n (n_) { }
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

// A value in [-1, 1), never zero, from the generator's next state.
static double
sample_value (unsigned& seed)
{
  seed = seed * 1103515245u + 12345u;
  return ((seed >> 8) & 0xffff) / 32768.0 - 1.0 + 1e-6;
}

// An element of type T (the pointer only picks the overload).
template <typename T>
static T
sample_element (unsigned& seed, const T *)
{
  return T (sample_value (seed));
}

// Complex elements get both parts: an octave_value of a complex array whose
// imaginary parts are all zero narrows to a real one, and the crossover
// then timed a real product for a complex class (a quarter of the flops).
template <typename R>
static std::complex<R>
sample_element (unsigned& seed, const std::complex<R> *)
{
  const R re = sample_value (seed);
  return std::complex<R> (re, sample_value (seed));
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
    p[i] = sample_element (seed, static_cast<const T *> (nullptr));
  return octave_value (a);
}

static double
seconds_since (std::chrono::steady_clock::time_point t0)
{
  const std::chrono::duration<double> d
    = std::chrono::steady_clock::now () - t0;
  return d.count ();
}

// The crossover's timer (gt_host_timer): seconds of Octave's own * on
// n x n matrices of type c.  It runs inside the library's C code, which no
// exception may cross: an interrupt or out-of-memory in it is kept in
// *pending (arg), the timing fails, and the caller throws it once the
// library has returned.
static double
time_builtin_or_throw (gt_type c, size_t n)
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
  return r.is_defined () ? seconds_since (t0) : -1.0;
}

static double
time_builtin (gt_type c, size_t n, void *arg)
{
  try
    {
      return time_builtin_or_throw (c, n);
    }
  catch (...)
    {
      *static_cast<std::exception_ptr *> (arg) = std::current_exception ();
      return -1.0;
    }
}

template <typename T>
static octave_value_list
product (gt_type c, const gt_operand& A, const gt_operand& B,
         octave_idx_type m, octave_idx_type n, octave_idx_type k, int tile)
{
  // sizes whose element count wraps (2^32 x 1 times 1 x 2^32): *'s own
  // error, before anything is allocated
  dim_vector (m, n).safe_numel ();
  result<T> C (m, n);   // freed on every error path by its destructor
  const gt_status st = gt_mtimes_host (c, A, B, C.data, m, n, k, tile,
                                       GT_DEVICES_ALL, interrupted);
  if (st == GT_ERR_INTERRUPTED)
    octave_quit ();   // throws Octave's interrupt when Ctrl-C caused it
  // without a driver or a device the runtime's words alone (a device
  // query, an insufficient driver) do not say that the GPU is the problem
  if (st == GT_ERR_NO_DEVICE)
    error ("gpu_tiled_mtimes: no usable GPU: %s", gt_error_text ());
  if (st != GT_OK)
    error ("gpu_tiled_mtimes: %s", gt_error_text ());
  return ovl (C.release ());
}

// A number for a message: whole numbers as they are (100, not 1e+02;
// -0 as 0), others in as few digits as give them back exactly (8 + eps
// (8) is not shown as 8).
static std::string
shown (double v)
{
  if (octave::math::isnan (v))
    return "NaN";
  if (octave::math::isinf (v))
    return v > 0 ? "Inf" : "-Inf";
  char text[40];
  if (v == std::trunc (v) && std::fabs (v) < 1e17)
    {
      snprintf (text, sizeof text, "%.0f", v + 0.0);
      return text;
    }
  for (int digits = 1; digits <= 17; digits++)
    {
      snprintf (text, sizeof text, "%.*g", digits, v);
      if (strtod (text, nullptr) == v)
        break;
    }
  return text;
}

// A value's size as mat2str writes it ("[1 2]"): size () as Octave calls
// it, since a class may define its own (containers.Map: [Count 1]), or
// the value's own dimensions where that size () fails or is no row of
// whole numbers.
static std::string
shown_dims (const octave_value& x)
{
  std::vector<double> d;
  try
    {
      const octave_value v = octave::feval ("size", ovl (x), 1)(0);
      if (v.isnumeric () && v.isreal () && v.rows () == 1)
        {
          const NDArray a = v.array_value ();
          for (octave_idx_type i = 0; i < a.numel (); i++)
            if (octave::math::isfinite (a(i)) && a(i) >= 0
                && a(i) == std::trunc (a(i)))
              d.push_back (a(i));
          if (d.size () != static_cast<size_t> (a.numel ()))
            d.clear ();
        }
    }
  catch (const octave::execution_exception&)
    {
      // the class's size () failed: its dimensions instead
    }
  if (d.size () < 2)
    {
      d.clear ();
      const dim_vector dv = x.dims ();
      for (int i = 0; i < dv.ndims (); i++)
        d.push_back (dv(i));
    }
  std::string s = "[";
  for (size_t i = 0; i < d.size (); i++)
    s += (i ? " " : "") + shown (d[i]);
  return s + "]";
}

// An operand the fast path did not take: an error if it is not a full 2-D
// numeric, logical or char matrix (NAME: A or B).
static void
check_operand (const octave_value& x, const char *name)
{
  if (! (x.isnumeric () || x.islogical () || x.is_string ()))
    {
      const std::string what
        = x.iscell () ? "cell array" : x.isstruct () ? "struct"
          : x.is_function_handle () ? "function handle"
          : x.class_name () + " object";
      error ("gpu_tiled_mtimes: %s must be a full numeric, logical or char "
             "matrix, not a %s", name, what.c_str ());
    }
  if (x.issparse ())
    error ("gpu_tiled_mtimes: %s must be full, not sparse; use full (%s)",
           name, name);
  if (x.ndims () > 2)
    error ("gpu_tiled_mtimes: %s must be 2-D, not %d-D", name, x.ndims ());
}

static void
check_tile (const octave_value& t)
{
  if (t.is_string ())
    error ("gpu_tiled_mtimes: TILE must be 8, 16 or 32, not a string");
  if (! (t.isnumeric () && t.isreal () && t.numel () == 1))
    error ("gpu_tiled_mtimes: TILE must be 8, 16 or 32 (a real scalar), "
           "not a %s of size %s", t.class_name ().c_str (),
           shown_dims (t).c_str ());
  const double v = t.double_value ();
  if (v != 8 && v != 16 && v != 32)
    error ("gpu_tiled_mtimes: TILE must be 8, 16 or 32, not %s",
           shown (v).c_str ());
}

// Arguments the fast path leaves (see the DEFUN): what is wrong with them,
// or, for a scalar or an integer operand, what * makes of them, with *'s
// own error where it refuses.
static octave_value_list
not_handled (const octave_value_list& args)
{
  if (args.length () == 3)
    check_tile (args(2));
  const octave_value &a = args(0), &b = args(1);
  check_operand (a, "A");
  check_operand (b, "B");
  if (a.numel () == 1 || b.numel () == 1 || a.isinteger () || b.isinteger ())
    {
      try
        {
          return ovl (octave::binary_op (octave_value::op_mul, a, b));
        }
      catch (const octave::execution_exception& e)
        {
          error_with_id (e.identifier ().c_str (), "gpu_tiled_mtimes: %s",
                         e.message ().c_str ());
        }
    }
  if (a.columns () != b.rows ())
    error ("gpu_tiled_mtimes: nonconformant arguments (A is %ldx%ld, B is "
           "%ldx%ld)", (long) a.rows (), (long) a.columns (),
           (long) b.rows (), (long) b.columns ());
  error ("gpu_tiled_mtimes: cannot multiply a %s by a %s",
         a.class_name ().c_str (), b.class_name ().c_str ());
}

// TILE as given (8, 16 or 32); false for anything else, which
// not_handled reports.
static bool
tile_given (const octave_value& t, int& tile)
{
  if (! t.isnumeric () || t.iscomplex () || t.numel () != 1)
    return false;
  const double v = t.double_value ();
  if (v != 8 && v != 16 && v != 32)
    return false;
  tile = static_cast<int> (v);
  return true;
}

// The product's type, by Octave's rules: single if either operand is
// single, complex if either is complex.
static gt_type
product_type (gt_type ta, gt_type tb)
{
  const bool single = is_single_type (ta) || is_single_type (tb);
  const bool cplx = is_complex_type (ta) || is_complex_type (tb);
  return cplx ? (single ? GT_COMPLEX_SINGLE : GT_COMPLEX_DOUBLE)
              : (single ? GT_SINGLE : GT_DOUBLE);
}

// The fast path takes two full 2-D non-scalar matrices of the classes
// above with columns (A) == rows (B), and a TILE of 8, 16 or 32 when
// given; anything else goes to not_handled.
DEFUN_DLD (gpu_tiled_mtimes, args, nargout,
           "-*- texinfo -*-\n\
@deftypefn  {} {@var{C} =} gpu_tiled_mtimes (@var{A}, @var{B})\n\
@deftypefnx {} {@var{C} =} gpu_tiled_mtimes (@var{A}, @var{B}, @var{tile})\n\
Matrix product @code{@var{A} * @var{B}} on an NVIDIA GPU.\n\
\n\
@var{A} (m-by-k) and @var{B} (k-by-n) are full 2-D matrices of class\n\
single, double, logical or char, real or complex, in any combination.\n\
@var{C} is an m-by-n matrix of the class and complexity that\n\
@code{@var{A} * @var{B}} has:\n\
\n\
@itemize\n\
@item\n\
single when either operand is single (a double operand is rounded to\n\
single first, as @code{*} does), double otherwise; logical and char\n\
operands count as double;\n\
\n\
@item\n\
complex when either operand is complex, except that a complex result\n\
whose imaginary parts are all zero is real, as @code{*} returns it.\n\
@end itemize\n\
\n\
A scalar @var{A} or @var{B} scales the other operand, and empty\n\
operands give an empty result, or zeros where k is 0, real and of the\n\
class above, as @code{*} does (on the CPU: there is nothing to tile).  Integer\n\
matrices are multiplied only by scalars, as with @code{*}; where\n\
@code{*} refuses the product (two integer matrices, or an integer matrix\n\
and a non-scalar of another class) the error says what @code{*} says.\n\
NaN and Inf propagate as they do in @code{*}.\n\
\n\
@var{C} equals @code{@var{A} * @var{B}} up to rounding at the level of\n\
its class; no reduced precision (TF32) is used anywhere:\n\
\n\
@table @asis\n\
@item single\n\
summed in FP32; large products on a Hopper GPU (H100, H200) run on its\n\
double-precision tensor cores instead: the single inputs widened\n\
exactly, the sums kept in double and each element of @var{C} rounded\n\
once, which there is both faster and more accurate.\n\
\n\
@item double\n\
summed in double: on a Hopper GPU on its FP64 tensor cores, elsewhere by\n\
a register-tiled FP64 kernel.\n\
\n\
@item complex\n\
one real product of the real and imaginary planes of the operands (four\n\
real products in one, two where one operand is real), at the accuracy\n\
of its real class: each part of an element of @var{C} is a sum of real\n\
products, as in @code{*}.\n\
@end table\n\
\n\
Without @var{tile}, the fastest kernel for the shape runs: for single\n\
products a register-blocked kernel fed by an asynchronous-copy pipeline,\n\
split over k when m and n are small, and matrix-vector kernels when\n\
@var{A} has one row or @var{B} one column; for double products the FP64\n\
tensor-core kernel on Hopper and the register-tiled FP64 kernel; a\n\
complex product runs as the real product of its planes, on the kernels\n\
of its real class (a complex double @var{A} times a real double @var{B}\n\
as the real product of @var{A}'s storage, 2m rows of alternating real\n\
and imaginary parts).  With @var{tile} = 8, 16 or 32 the classic tiled\n\
kernel runs instead, for every class: a\n\
@var{tile}-by-@var{tile} thread block computes a @var{tile}-by-@var{tile}\n\
block of @var{C}, one element per thread, from tiles of @var{A} and\n\
@var{B} staged in shared memory.\n\
\n\
The operands are copied to the GPU and the result back on every call;\n\
device buffers and page-locked staging memory are kept between calls\n\
(see @code{gpu_tiled_info} and @code{gpu_tiled_reset}).\n\
\n\
Example:\n\
@example\n\
@group\n\
A = randn (2000, 3000, \"single\");\n\
B = randn (3000, 1000, \"single\");\n\
C = gpu_tiled_mtimes (A, B);        # fastest kernel\n\
C16 = gpu_tiled_mtimes (A, B, 16);  # classic 16x16 tiles\n\
norm (C - A * B, \"fro\") / norm (A * B, \"fro\")\n\
Z = gpu_tiled_mtimes (complex (randn (500), randn (500)), randn (500));\n\
class (Z), iscomplex (Z)            # double, complex\n\
@end group\n\
@end example\n\
\n\
@seealso{gpu_tiled_info, gpu_tiled_reset, mtimes}\n\
@end deftypefn\n")
{
  const int nargin = args.length ();
  if (nargin < 2)
    print_usage ();
  // as Octave says it of an .m function
  if (nargin > 3)
    error_with_id ("Octave:invalid-fun-call",
                   "gpu_tiled_mtimes: function called with too many inputs");
  if (nargout > 1)
    error_with_id ("Octave:invalid-fun-call",
                   "gpu_tiled_mtimes: function called with too many outputs");
  const octave_value &a = args(0), &b = args(1);
  gt_type ta, tb;
  if (! operand_type (a, ta) || ! operand_type (b, tb)
      || a.columns () != b.rows ())
    return not_handled (args);
  int tile = GT_TILE_DEFAULT;
  if (nargin == 3 && ! tile_given (args(2), tile))
    return not_handled (args);
  const gt_type c = product_type (ta, tb);
  const bool single = is_single_type (c);
  const octave_idx_type m = a.rows (), k = a.columns (), n = b.columns ();

  // Empty products, and zeros where k == 0, need no kernel; their
  // imaginary parts are zero, so they are real, as in *.
  if (m == 0 || n == 0 || k == 0)
    {
      const dim_vector dv (m, n);
      return ovl (single ? octave_value (FloatNDArray (dv, 0.0f))
                         : octave_value (NDArray (dv, 0.0)));
    }

  // Without a tile, products too small to pay for the trip to the GPU
  // are Octave's own (the crossover is measured: gpu_tiled_info shows it).
  std::exception_ptr pending;
  const int on_host = nargin == 2 && gt_runs_on_host (c, ta, tb, m, n, k,
                                                      time_builtin, &pending);
  if (pending)
    std::rethrow_exception (pending);
  // Vector products' calls are timed for that choice, each side's whole
  // call with its result's allocation.
  const auto t0 = std::chrono::steady_clock::now ();
  const gt_type ta0 = ta, tb0 = tb;
  auto timed = [&] (const octave_value_list& r, int host)
    {
      if (nargin == 2)
        gt_vector_timed (c, ta0, tb0, m, n, k, host, seconds_since (t0));
      return r;
    };
  if (on_host)
    return timed (ovl (octave::binary_op (octave_value::op_mul, a, b)), 1);

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
      return timed (product<float> (c, A.op, B.op, m, n, k, tile), 0);
    case GT_DOUBLE:
      return timed (product<double> (c, A.op, B.op, m, n, k, tile), 0);
    case GT_COMPLEX_SINGLE:
      return timed (product<FloatComplex> (c, A.op, B.op, m, n, k, tile), 0);
    default:
      return timed (product<Complex> (c, A.op, B.op, m, n, k, tile), 0);
    }
}

/*
%!demo
%! ## Multiply two 4096x4096 single matrices on the GPU and on the CPU,
%! ## compare the results and the times.
%! n = 4096;
%! A = randn (n, "single");  B = randn (n, "single");
%! gpu_tiled_mtimes (A(1:64,1:64), B(1:64,1:64));   # set up the GPU once
%! tic; C = gpu_tiled_mtimes (A, B); t_gpu = toc;
%! tic; R = A * B; t_cpu = toc;
%! err = norm (double (C) - double (A) * double (B), "fro") ...
%!       / (norm (double (A), "fro") * norm (double (B), "fro"));
%! printf ("n = %d: gpu_tiled_mtimes %.1f ms, built-in * %.1f ms (%.0fx)\n",
%!         n, 1e3 * t_gpu, 1e3 * t_cpu, t_cpu / t_gpu);
%! printf ("relative error against a double product: %.2g\n", err);

%!demo
%! ## A complex double product and a mixed one, against *.
%! A = complex (randn (1500), randn (1500));  B = randn (1500);
%! C = gpu_tiled_mtimes (A, B);
%! printf ("%s, complex %d: relative error %.2g\n", class (C), iscomplex (C),
%!         norm (C - A * B, "fro") / norm (A * B, "fro"));
%! C = gpu_tiled_mtimes (single (A), B);   # single: B is rounded to single
%! printf ("%s, complex %d: relative error %.2g\n", class (C), iscomplex (C),
%!         norm (double (C) - A * B, "fro") / norm (A * B, "fro"));

## Fresh random operands of a class: single, double, csingle (complex
## single), cdouble (complex double), logical, char or an integer class.
%!function X = make_operand (cls, r, c)
%!  switch (cls)
%!    case "single"
%!      X = randn (r, c, "single");
%!    case "double"
%!      X = randn (r, c);
%!    case "csingle"
%!      X = complex (randn (r, c, "single"), randn (r, c, "single"));
%!    case "cdouble"
%!      X = complex (randn (r, c), randn (r, c));
%!    case "logical"
%!      X = rand (r, c) > 0.5;
%!    case "char"
%!      X = char (randi ([32, 126], r, c));
%!    otherwise
%!      X = cast (randi ([-5, 5], r, c), cls);
%!  endswitch
%!endfunction

## ---- argument checks: these need no GPU ----
%!error <Invalid call> gpu_tiled_mtimes ()
%!error <Invalid call> gpu_tiled_mtimes (single (1))
%!error <called with too many inputs> gpu_tiled_mtimes (single (1), single (1), 8, 4)
%!error <called with too many outputs> [C, D] = gpu_tiled_mtimes (single (1), single (1))
%!test
%! ## the identifiers Octave gives these for a function of an .m file
%! id = {"", ""};
%! try
%!   gpu_tiled_mtimes (single (1), single (1), 8, 4);
%! catch err
%!   id{1} = err.identifier;
%! end_try_catch
%! try
%!   [C, D] = gpu_tiled_mtimes (single (1), single (1));
%! catch err
%!   id{2} = err.identifier;
%! end_try_catch
%! assert (id, {"Octave:invalid-fun-call", "Octave:invalid-fun-call"});
%!error <not a containers.Map of size \[0 1\]> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), containers.Map ())
%!error <A must be a full numeric, logical or char matrix, not a cell array> gpu_tiled_mtimes ({1}, single (1))
%!error <B must be a full numeric, logical or char matrix, not a cell array> gpu_tiled_mtimes (ones (2), {1, 2; 3, 4})
%!error <B must be a full numeric, logical or char matrix, not a struct> gpu_tiled_mtimes (single (1), struct ("a", 1))
%!error <A must be a full numeric, logical or char matrix, not a struct> gpu_tiled_mtimes (struct ("a", {1, 2}), ones (2))
%!error <A must be a full numeric, logical or char matrix, not a function handle> gpu_tiled_mtimes (@sin, ones (2))
%!error <B must be a full numeric, logical or char matrix, not a containers.Map object> gpu_tiled_mtimes (ones (2), containers.Map ())
%!error <A must be full, not sparse; use full \(A\)> gpu_tiled_mtimes (sparse (eye (2)), single (ones (2)))
%!error <B must be full, not sparse; use full \(B\)> gpu_tiled_mtimes (single (ones (2)), sparse (eye (2)))
%!error <A must be full, not sparse; use full \(A\)> gpu_tiled_mtimes (sparse ([1i, 0; 0, 1]), ones (2))
%!error <B must be full, not sparse; use full \(B\)> gpu_tiled_mtimes (ones (2), sparse (true (2)))
%!error <A must be full, not sparse> gpu_tiled_mtimes (sparse (2), ones (2))
%!error <A must be 2-D, not 3-D> gpu_tiled_mtimes (ones (2, 2, 2, "single"), ones (2, "single"))
%!error <B must be 2-D, not 4-D> gpu_tiled_mtimes (ones (2, "single"), ones (2, 2, 1, 2, "single"))
%!error <A must be 2-D, not 3-D> gpu_tiled_mtimes (true (2, 2, 2), ones (2))
%!error <B must be 2-D, not 3-D> gpu_tiled_mtimes (complex (ones (2)), complex (ones (2, 2, 2), 1))
%!error <B must be 2-D, not 3-D> gpu_tiled_mtimes (2, ones (2, 2, 2))
%!error <A must be 2-D, not 3-D> gpu_tiled_mtimes (int8 (ones (2, 2, 2)), 2)
%!error <A must be 2-D, not 3-D> gpu_tiled_mtimes (repmat ("ab", [1, 1, 3]), ones (2))
%!error <nonconformant arguments \(A is 2x3, B is 4x5\)> gpu_tiled_mtimes (ones (2, 3, "single"), ones (4, 5, "single"))
%!error <nonconformant arguments \(A is 1x2, B is 1x2\)> gpu_tiled_mtimes (ones (1, 2, "single"), ones (1, 2, "single"))
%!error <nonconformant arguments \(A is 2x3, B is 2x3\)> gpu_tiled_mtimes (complex (ones (2, 3)), true (2, 3))
%!error <nonconformant arguments \(A is 3x0, B is 3x0\)> gpu_tiled_mtimes (zeros (3, 0), zeros (3, 0, "single"), 8)
%!error <TILE must be 8, 16 or 32, not NaN> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), NaN)
%!error <TILE must be 8, 16 or 32, not 0> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), 0)
%!error <TILE must be 8, 16 or 32, not 7> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), 7)
%!error <TILE must be 8, 16 or 32, not 1.5> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), 1.5)
%!error <TILE must be 8, 16 or 32, not -16> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), -16)
%!error <TILE must be 8, 16 or 32, not Inf> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), Inf)
%!error <TILE must be 8, 16 or 32, not a string> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), "16")
%!error <TILE must be 8, 16 or 32 \(a real scalar\), not a double of size \[1 2\]> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), [8 16])
%!error <TILE must be 8, 16 or 32 \(a real scalar\), not a double of size \[0 0\]> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), [])
%!error <TILE must be 8, 16 or 32 \(a real scalar\), not a cell> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), {16})
%!error <TILE must be 8, 16 or 32 \(a real scalar\), not a double> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), 16i)
%!error <TILE must be 8, 16 or 32, not 7> gpu_tiled_mtimes (ones (2), complex (ones (2), 1), 7)
%!error <TILE must be 8, 16 or 32, not 8.000000000000002> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), 8 + eps (8))
%!error <TILE must be 8, 16 or 32, not 100$> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), 100)
%!error <not a double of size \[1 10\]> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), ones (1, 10))
%!error <TILE must be 8, 16 or 32 \(a real scalar\), not a logical of size \[1 1\]> gpu_tiled_mtimes (ones (2, "single"), ones (2, "single"), true)
%!error <nonconformant arguments \(A is 5x0, B is 1x1099511627776\)> gpu_tiled_mtimes (zeros (5, 0), 1:2^40)
%!error <out of memory or dimension too large> gpu_tiled_mtimes (zeros (2^32, 0, "single"), zeros (0, 2^32, "single"))
## Without a usable GPU (no driver, no device) a product says so first.
%!testif ; ! gpu_tiled_info ().usable
%! fail ("gpu_tiled_mtimes (single (rand (3)), single (rand (3)))",
%!       "gpu_tiled_mtimes: no usable GPU: ");
%! fail ("gpu_tiled_mtimes (rand (70, 3) - 0.5, rand (3, 5) - 0.5, 16)",
%!       "gpu_tiled_mtimes: no usable GPU: ");
## What the fast path leaves to the checks gives an error that names the
## function, or what * gives (a scalar or an integer operand).
%!test
%! S = ones (2, "single");
%! bad = {{ones(2, 3), S}, {S, S, 0}, {S, S, 5}, {S, S, "8"}, {S, S, [8 16]}, ...
%!        {S, S, 8i}, {ones(2, 3, "single"), S}, {single(1), S}, ...
%!        {S, 2}, {complex(1, 2), S}, {true, S}, {S, "a"}, ...
%!        {ones(2,2,2,"single"), S}, {S, ones(2,2,2)}, {{S}, S}, ...
%!        {S, struct("a", 1)}, {@sin, S}, {int32(S), S}, {S, uint8(S)}, ...
%!        {sparse(ones(2)), S}, {S, sparse(true(2))}, ...
%!        {S, sparse(complex(ones(2), 1))}, {int32(zeros(3, 0)), zeros(0, 4)}};
%! computed = 0;
%! for i = 1:numel (bad)
%!   try
%!     C = gpu_tiled_mtimes (bad{i}{:});
%!     assert (C, bad{i}{1} * bad{i}{2});
%!     computed++;
%!   catch err
%!     assert (strncmp (err.message, "gpu_tiled_mtimes: ", 18), true,
%!             sprintf ("case %d: %s", i, err.message));
%!   end_try_catch
%! endfor
%! assert (computed, 5);   # the five with a scalar operand
## Empty products of every class it multiplies need no GPU.
%!test
%! cls = {"single", "double", "csingle", "cdouble", "logical", "char"};
%! for i = 1:numel (cls)
%!   for j = 1:numel (cls)
%!     A = make_operand (cls{i}, 3, 0);  B = make_operand (cls{j}, 0, 4);
%!     C = gpu_tiled_mtimes (A, B, 16);
%!     assert (class (C), class (A * B));
%!     assert (size (C), [3, 4]);
%!     assert (all (C(:) == 0));
%!   endfor
%! endfor
%! ## ranges and diagonal matrices too
%! assert (gpu_tiled_mtimes (1:0, zeros (0, 3)), zeros (1, 3));
%! assert (gpu_tiled_mtimes (eye (2, 0, "single"), zeros (0, 3)),
%!         zeros (2, 3, "single"));

## ---- products that need no kernel: empties and scalars, checked on CPU ----
%!test
%! C = gpu_tiled_mtimes (zeros (0, 3, "single"), zeros (3, 4, "single"));
%! assert (class (C), "single");
%! assert (size (C), [0, 4]);
%!test
%! C = gpu_tiled_mtimes (zeros (3, 0, "single"), zeros (0, 4, "single"));
%! assert (class (C), "single");
%! assert (size (C), [3, 4]);
%! assert (all (C(:) == 0));
%!test
%! C = gpu_tiled_mtimes (zeros (3, 0, "single"), zeros (0, 4, "single"), 8);
%! assert (size (C), [3, 4]);
%! assert (all (C(:) == 0));
%!test
%! C = gpu_tiled_mtimes (zeros (5, 4, "single"), zeros (4, 0, "single"), 32);
%! assert (size (C), [5, 0]);
%! assert (class (C), "single");
%!test
%! A = randn (3, 4, "single");  s = single (-2.5);
%! assert (gpu_tiled_mtimes (s, A), s * A);
%! assert (gpu_tiled_mtimes (A, s, 16), A * s);
%! assert (class (gpu_tiled_mtimes (s, s)), "single");
%! assert (size (gpu_tiled_mtimes (s, zeros (0, 3, "single"))), [0, 3]);
%!test
%! ## empty and scalar operands of every class pair: the class, complexity,
%! ## size and values of *, with and without TILE
%! cls = {"single", "double", "csingle", "cdouble", "logical", "char"};
%! sizes = {[0 3], [3 4]; [3 0], [0 4]; [3 4], [4 0]; [0 0], [0 0];
%!          [1 0], [0 1]; [1 1], [3 4]; [3 4], [1 1]; [1 1], [1 1];
%!          [1 1], [0 3]; [0 3], [1 1]; [1 1], [1 4]; [4 1], [1 1]};
%! for i = 1:numel (cls)
%!   for j = 1:numel (cls)
%!     for s = 1:rows (sizes)
%!       A = make_operand (cls{i}, sizes{s, 1}(1), sizes{s, 1}(2));
%!       B = make_operand (cls{j}, sizes{s, 2}(1), sizes{s, 2}(2));
%!       R = A * B;
%!       for t = {{}, {16}}
%!         C = gpu_tiled_mtimes (A, B, t{1}{:});
%!         what = sprintf ("%s (%s) * %s (%s)", cls{i}, mat2str (size (A)),
%!                         cls{j}, mat2str (size (B)));
%!         assert (strcmp (class (C), class (R)), "%s: class %s", what, class (C));
%!         assert (iscomplex (C) == iscomplex (R), "%s: complexity", what);
%!         assert (isequal (size (C), size (R)), "%s: size", what);
%!         assert (isequal (C, R), "%s: values", what);
%!       endfor
%!     endfor
%!   endfor
%! endfor
%!test
%! ## integer matrices times scalars, and integer scalars, as *
%! cases = {{int32([1, -2; 3, 4]), 2.5}, {2.5, int8([1, 2; 3, 4])}, ...
%!          {single(0.5), uint16([1, 3; 5, 7])}, {int16(3), int16([1, 2; 3, 4])}, ...
%!          {true, uint8([1, 2, 3])}, {"a", int8([1, 2])}, {int32(7), 3}, ...
%!          {uint8([1; 2; 3]), single(2)}, {int64(2), zeros(0, 3)}, ...
%!          {zeros(2, 0, "int16"), 3}, {uint32(4), uint32(5)}};
%! for i = 1:numel (cases)
%!   [A, B] = cases{i}{:};
%!   R = A * B;
%!   for t = {{}, {32}}
%!     C = gpu_tiled_mtimes (A, B, t{1}{:});
%!     assert (class (C), class (R));
%!     assert (size (C), size (R));
%!     assert (isequal (C, R));
%!   endfor
%! endfor
%!error <gpu_tiled_mtimes: binary operator '\*' not implemented for 'int32 matrix' by 'int32 matrix' operations> gpu_tiled_mtimes (int32 (ones (2)), int32 (ones (2)))
%!error <gpu_tiled_mtimes: binary operator '\*' not implemented for 'matrix' by 'uint8 matrix' operations> gpu_tiled_mtimes (ones (2, 3), uint8 (ones (3, 2)), 8)
%!test
%! ## where * refuses an integer product, the error starts with
%! ## gpu_tiled_mtimes: and says what * says
%! cases = {{int32(ones(2)), int32(ones(2))}, {int8(ones(2, 3)), ones(3, 2)}, ...
%!          {ones(2, 3), uint16(ones(3, 2))}, {int32(ones(2)), single(ones(2))}, ...
%!          {uint8(ones(2)), complex(ones(2), 1)}, {int32(ones(2)), uint8(ones(2))}, ...
%!          {int32(2), uint8(ones(2))}, {complex(1, 2), int32(ones(2))}, ...
%!          {int16(ones(2, 3)), int16(ones(4, 5))}, {zeros(3, 0, "int32"), zeros(0, 4)}, ...
%!          {true(2), int8(ones(2))}, {"ab", int32([1; 2])}};
%! for i = 1:numel (cases)
%!   [A, B] = cases{i}{:};
%!   want = "";
%!   try
%!     A * B;
%!   catch err
%!     want = err.message;
%!   end_try_catch
%!   assert (! isempty (want));
%!   for t = {{}, {16}}
%!     got = "";
%!     try
%!       gpu_tiled_mtimes (A, B, t{1}{:});
%!     catch err
%!       got = err.message;
%!     end_try_catch
%!     assert (strncmp (got, "gpu_tiled_mtimes: ", 18), "message: %s", got);
%!     assert (! isempty (strfind (got, want)), "message: %s", got);
%!   endfor
%! endfor

## ---- GPU products, norm-wise against a double product ----
%!## the default path for tile 0, else the classic kernel
%!function C = mtimes_tile (A, B, tile)
%!  if (tile)
%!    C = gpu_tiled_mtimes (A, B, tile);
%!  else
%!    C = gpu_tiled_mtimes (A, B);
%!  endif
%!endfunction

## Rows of an m-row result to check: all of them for small products;
## for large ones (whose reference in double would cost the CPU minutes)
## the first and last 130 (every edge tile) and 256 at random.
%!function i = rows_to_check (m, k, n)
%!  if (m * k * n <= 2e8)
%!    i = 1:m;
%!  else
%!    i = unique ([1:min(m, 130), max(1, m - 129):m, randi(m, 1, 256)]);
%!  endif
%!endfunction

%!function two_calls_checked (A, B, what)
%!  ## A * B in two calls after a reset (the second with its operands
%!  ## locked under GPU_TILED_LOCK_OPERANDS=1), each against double on
%!  ## sampled rows
%!  gpu_tiled_reset ();
%!  [m, k] = size (A);
%!  for call = 1:2
%!    C = gpu_tiled_mtimes (A, B);
%!    i = rows_to_check (m, k, columns (B));
%!    err = norm (C(i, :) - A(i, :) * B, "fro");
%!    assert (err <= 4 * k * eps * norm (A(i, :), "fro") * norm (B, "fro"),
%!            "%s, call %d: error %g", what, call, err);
%!  endfor
%!endfunction

%!function C = b_first_both (A, B, g)
%!  ## A * B with panel 0's B whole first and with each piece's rows of B
%!  ## (GPU_TILED_B_FIRST 1 and 0), each the second call after a reset
%!  ## (its operands locked, read straight), panel 0 in pieces on each of
%!  ## the g devices: the same bits (only the copies' order differs), and
%!  ## every element written (C poisoned by the caller); returns that C
%!  pieces = @() sum ([gpu_tiled_info().devices.piece_products]);
%!  C = {};
%!  for first = {"0", "1"}
%!    setenv ("GPU_TILED_B_FIRST", first{1});
%!    gpu_tiled_reset ();
%!    gpu_tiled_mtimes (A, B);   # the operands seen: the next call locks them
%!    p = pieces ();
%!    C{end+1} = gpu_tiled_mtimes (A, B);
%!    assert (pieces () >= p + g);
%!    assert (gpu_tiled_info ().operands_direct >= 1);
%!  endfor
%!  assert (! any (isnan (C{2}(:))));
%!  assert (isequal (C{1}, C{2}));
%!  C = C{2};
%!endfunction

%!function check_product (m, k, n, tile)
%!  A = randn (m, k, "single");
%!  B = randn (k, n, "single");
%!  C = mtimes_tile (A, B, tile);
%!  assert (class (C), "single");
%!  assert (size (C), [m, n]);
%!  i = rows_to_check (m, k, n);
%!  A = A(i, :);
%!  R = double (A) * double (B);
%!  tol = 4 * max (k, 1) * eps ("single");
%!  err = norm (double (C(i, :)) - R, "fro");
%!  bound = tol * norm (double (A), "fro") * norm (double (B), "fro");
%!  if (! (err <= bound))
%!    error ("%dx%dx%d tile %d: error %g above %g", m, k, n, tile, err, bound);
%!  endif
%!endfunction

%!## The cleanup of a test that changed the package's settings: the named
%!## variables unset, the poison this file's tests run with (the %!shared
%!## block's) set again, every usable device again, and every device
%!## released, so that the next test begins as the file's first does.
%!function restore_defaults (varargin)
%!  for i = 1:numel (varargin)
%!    unsetenv (varargin{i});
%!  endfor
%!  setenv ("GPU_TILED_POISON", "1");
%!  gpu_tiled_devices ([]);
%!  gpu_tiled_reset ();
%!endfunction

%!shared gpu, emu, heap
%! ## unwritten elements come back NaN (options are read when the device is
%! ## set up: at the first call, and the first after gpu_tiled_reset)
%! setenv ("GPU_TILED_POISON", "1");
%! ## every product on the GPU, however small (the crossover's own tests
%! ## turn it back on)
%! setenv ("GPU_TILED_CROSSOVER", "off");
%! gpu_tiled_reset ();
%! gpu = gpu_tiled_info ().usable;
%! ## kernel 11, the INT8 tensor cores: Hopper built for sm_90a
%! emu = gpu && gpu_tiled_info ().emulation.usable;
%! ## results from the heap: glibc 2.33 or later, Octave 7 or later, malloc
%! ## not tuned by the user
%! heap = gpu && gpu_tiled_info ().result_heap > 0;

%!testif ; gpu
%! for tile = [8, 16, 32, 0]
%!   for s = [1 1 1; 2 3 5; 7 11 13; 31 33 29; 63 65 17; 97 1 89; 1 257 3; 129 127 131; 255 257 100]'
%!     check_product (s(1), s(2), s(3), tile);
%!   endfor
%! endfor
%!testif ; gpu
%! ## tile - 1, tile, tile + 1 in every dimension, for every tile
%! for tile = [8, 16, 32]
%!   for d = [tile - 1, tile, tile + 1]
%!     check_product (d, tile + 1, tile - 1, tile);
%!     check_product (tile + 1, d, tile, tile);
%!     check_product (tile, tile - 1, d, tile);
%!   endfor
%! endfor
%!testif ; gpu
%! ## default kernel around its 128x128x16, 128x64 and 64x64 tiles
%! for s = [127 129 15; 128 128 16; 129 17 127; 200 1000 300; 64 4096 64; 513 33 1025]'
%!   check_product (s(1), s(2), s(3), 0);
%! endfor
%!testif ; gpu
%! ## tall and skinny, wide, k = 1, vectors, for every tile
%! for tile = [8, 16, 32, 0]
%!   check_product (5000, 3, 2, tile);
%!   check_product (2, 3, 5000, tile);
%!   check_product (300, 1, 200, tile);
%!   check_product (1, 700, 300, tile);
%!   check_product (300, 700, 1, tile);
%!   check_product (1, 5000, 1, tile);
%!   check_product (4000, 1, 1, tile);
%! endfor
%!testif ; gpu
%! ## y = A*x with k in 8 pieces added within a cluster (Hopper: rows of 8
%! ## to 32 blocks of 128, k past 7 pieces of 128; here fewer pieces where
%! ## k's pieces round up), and just past those bounds
%! for s = [1001 1000 1; 1024 897 1; 4095 2049 1; 4096 4096 1; 896 5000 1; 4097 3000 1; 2000 896 1]'
%!   check_product (s(1), s(2), s(3), 0);
%! endfor
%!testif ; gpu
%! ## k at most 64 over many tiles: kernel 4's 128x64x16 tiles at four
%! ## blocks an SM, edges in every dimension
%! for s = [70001 50 100; 65537 63 129; 4097 16 4095; 2049 1 3001; 100001 64 65; 3001 31 2999]'
%!   check_product (s(1), s(2), s(3), 0);
%! endfor
%!testif ; gpu
%! ## the kernel issue's shapes, default path
%! for s = [256 256 256; 512 512 512; 1000 1000 1000; 2048 2048 2048; 4097 4097 4097; 3000 700 5000; 65536 64 64; 64 65536 64; 128 65536 128; 1 4096 4096; 4096 4096 1]'
%!   check_product (s(1), s(2), s(3), 0);
%! endfor
%!testif ; gpu
%! ## kernel 8 on its whole 128x128 tiles, the strips of C beside them by
%! ## the kernels for thin shapes (as planned on a GPU of 132 SMs): the last
%! ## row, the last column, 11 rows, 23 columns, 5 rows and 9 columns
%! for s = [1665 768 2499; 2901 768 1409; 2571 600 1646; 2497 600 1687; 1797 1024 2313]'
%!   check_product (s(1), s(2), s(3), 0);
%! endfor
%!testif ; gpu
%! ## kernel 8 on 256x128 tiles (k from 2048, as planned on 132 SMs): all of
%! ## C with ragged last tiles, then beside strips of 5 rows, 47 columns,
%! ## 8 rows and 47 columns, and 227 rows
%! for s = [1174 2048 3109; 1285 2048 3109; 1433 2048 2863; 1544 2048 2863; 1507 2048 3150]'
%!   check_product (s(1), s(2), s(3), 0);
%! endfor
%!testif ; gpu
%! ## stream-K over 256x128 tiles (tiles cut between blocks, continued from
%! ## the partial sums of the block before): ragged, then with strips of 2
%! ## columns, 14 rows, 14 rows and 3 columns
%! for s = [3001 2048 3100; 2500 2048 3074; 2574 2048 2541; 2574 2048 4099]'
%!   check_product (s(1), s(2), s(3), 0);
%! endfor
%!testif ; gpu
%! ## large products, kernel 9 on a Hopper GPU (128x128 tiles summed in
%! ## double): ragged last tiles in m and n, k not a multiple of its 32-k
%! ## stages nor of 8, k shorter than a stage, whole tiles
%! for s = [2049 1000 1031; 1100 4001 1300; 1537 17 1411; 1280 2048 1280]'
%!   check_product (s(1), s(2), s(3), 0);
%! endfor
%!testif ; gpu
%! ## medium products with long k, kernel 9 with k split on a Hopper GPU (the
%! ## pieces' double sums added in order): ragged everything
%! for s = [777 3001 555; 300 5000 260; 1000 1999 1000; 513 2500 129]'
%!   check_product (s(1), s(2), s(3), 0);
%! endfor
%!testif ; gpu
%! ## products whose kernel 9 tiles pass a multiple of 132 SMs by a few
%! ## (Hopper): all but those tiles in one launch, the last few with k
%! ## split and their double sums added in order; whole tiles, a ragged k,
%! ## strips of 8 columns beside the tiles
%! for s = [1536 2048 1536; 640 4097 3456; 1280 2048 1800; 1408 2049 1664]'
%!   check_product (s(1), s(2), s(3), 0);
%! endfor
%!testif ; gpu
%! ## NaN, Inf and an Inf times an exact zero in a large product land where
%! ## * puts them (B has no other exact zeros)
%! A = randn (1500, 1300, "single");  B = randn (1300, 1400, "single") + 8;
%! A(5, 7) = Inf;  A(9, 3) = -Inf;  B(11, 13) = NaN;  A(20, :) = NaN;
%! A(1400, 1000) = Inf;  B(1000, 1300) = 0;
%! C = gpu_tiled_mtimes (A, B);
%! R = A * B;
%! assert (isnan (C), isnan (R));
%! assert (isinf (C), isinf (R));
%! assert (sign (C(isinf (R))), sign (R(isinf (R))));
%! assert (isnan (C(1400, 1300)));
%!testif ; gpu
%! ## subnormal singles are multiplied exactly, not flushed to zero
%! A = randn (1200, 1100, "single") * single (1e-39);
%! B = randn (1100, 1000, "single") * single (1e30);
%! assert (nnz (abs (A) < realmin ("single") & A != 0) > 0.9 * numel (A));
%! C = gpu_tiled_mtimes (A, B);
%! R = double (A) * double (B);
%! assert (norm (double (C) - R, "fro")
%!         <= 4 * 1100 * eps ("single") * norm (double (A), "fro") * norm (double (B), "fro"));
%!testif ; gpu
%! ## large enough to stream in several panels and staging slots
%! check_product (2048, 2049, 3001, 0);
%! check_product (1027, 3000, 2051, 32);
%!testif ; gpu
%! ## the first panel runs in pieces of k as A arrives, each piece going on
%! ## from the sums of the one before (kernel 4: in C; kernel 9: doubles
%! ## in scratch): the same bits as one pass over k (m and the last piece
%! ## are not multiples of anything)
%! ## (kernel 11 off: where it takes the other panels its first one runs
%! ## on kernel 9's pieces, not its bits)
%! A = randn (2047, 1999, "single");  B = randn (1999, 3001, "single");
%! setenv ("GPU_TILED_EMULATE", "off");
%! unwind_protect
%!   gpu_tiled_reset ();   # (bands over several devices as the second call's)
%!   C1 = gpu_tiled_mtimes (A, B);
%!   setenv ("GPU_TILED_NO_KSPLIT", "1");
%!   gpu_tiled_reset ();
%!   C2 = gpu_tiled_mtimes (A, B);
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_NO_KSPLIT", "GPU_TILED_EMULATE");
%! end_unwind_protect
%! assert (isequal (C1, C2));
%! R = double (A) * double (B);
%! assert (norm (double (C1) - R, "fro")
%!         <= 4 * 1999 * eps ("single") * norm (double (A), "fro") * norm (double (B), "fro"));
%!testif ; gpu
%! ## a head of several panels (GPU_TILED_HEAD asks for 3; fewer where
%! ## fewer full panels follow) in blocks of A's rows, each block as its
%! ## rows come, then the other panels: double, complex double (Gauss's
%! ## three), real by complex, complex single and single (kernel 11 off:
%! ## its plans take no head); n wide enough for several panels of the
%! ## widest a GPU of twice an H200's SMs would plan; no size a multiple
%! ## of a tile or a panel; C poisoned, so that columns no kernel wrote show
%! ## (a rerun after a stale operand's probe counts twice)
%! d = gpu_tiled_devices ();
%! heads = @() sum ([gpu_tiled_info().devices.head_products]);
%! setenv ("GPU_TILED_HEAD", "3");
%! setenv ("GPU_TILED_EMULATE", "off");
%! unwind_protect
%!   gpu_tiled_devices (d(1));
%!   gpu_tiled_reset ();
%!   m = 2047;  k = 1999;  n = 9001;
%!   A = randn (m, k);  B = randn (k, n);
%!   Z = complex (randn (m, k), randn (m, k));
%!   W = complex (randn (k, n), randn (k, n));
%!   pairs = {A, B; Z, W; A, W; single(Z), single(W); single(A), single(B)};
%!   for p = 1:rows (pairs)
%!     X = pairs{p, 1};  Y = pairs{p, 2};
%!     h = heads ();
%!     C = gpu_tiled_mtimes (X, Y);
%!     assert (heads () > h);
%!     assert (class (C), class (X(1, :) * Y(:, 1)));
%!     assert (! any (isnan (C(:))));
%!     i = rows_to_check (m, k, n);
%!     R = double (X(i, :)) * double (Y);
%!     assert (norm (double (C(i, :)) - R, "fro")
%!             <= 4 * k * eps (class (C)) * norm (double (X(i, :)), "fro") * norm (double (Y), "fro"));
%!   endfor
%!   ## GPU_TILED_HEAD=0 takes no head (nor would the rule, at this size:
%!   ## tests/test_head_rule.c checks where it would)
%!   setenv ("GPU_TILED_HEAD", "0");
%!   gpu_tiled_reset ();
%!   C = gpu_tiled_mtimes (A, B);
%!   assert (heads (), 0);
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_HEAD", "GPU_TILED_EMULATE");
%! end_unwind_protect
%!testif ; gpu
%! ## a real double product whose panels after the first are kernel-bound
%! ## (8001x6000x3001: its kernel outweighs B's and C's copies) takes, by
%! ## the rule, a head of several panels in panel 0's pieces of k on
%! ## Hopper (kernel 9): the head's rows of B with each piece of A's
%! ## columns (the first call), or, with the operands locked (the second),
%! ## the head's B whole first, then A's columns piece by piece; then the
%! ## other panels.  GPU_TILED_HEAD=0 takes none.  C poisoned; against
%! ## double on sampled rows; one device, then, where there are two, split
%! ## over both with a head of 2 (GPU_TILED_HEAD) in each band's pieces:
%! ## by rows (n < m: each band its own rows of A), and by columns
%! ## (8191x8190x8193: bands sharing A, where the devices reach each
%! ## other, each band's own half through the host, the other's from its
%! ## device).
%! d = gpu_tiled_devices ();
%! hopper = strcmp (gpu_tiled_info ().compute_capability, "9.0");
%! heads = @() sum ([gpu_tiled_info().devices.head_products]);
%! pieces = @() sum ([gpu_tiled_info().devices.piece_products]);
%! setenv ("GPU_TILED_LOCK_OPERANDS", "1");
%! unwind_protect
%!   gpu_tiled_devices (d(1));
%!   A = randn (8001, 6000);  B = randn (6000, 3001);
%!   for forced = {"", "0"}
%!     if (isempty (forced{1}))
%!       unsetenv ("GPU_TILED_HEAD");
%!     else
%!       setenv ("GPU_TILED_HEAD", forced{1});
%!     endif
%!     two_calls_checked (A, B, ["GPU_TILED_HEAD=" forced{1}]);
%!     assert (pieces (), 2 * hopper);
%!     assert (heads (), 2 * (hopper && isempty (forced{1})));
%!   endfor
%!   if (numel (d) > 1)
%!     gpu_tiled_devices (d(1:2));
%!     setenv ("GPU_TILED_SPLIT", "always");
%!     setenv ("GPU_TILED_HEAD", "2");
%!     for s = {[], [8191 8190 8193]}
%!       if (! isempty (s{1}))
%!         clear A B;
%!         A = randn (s{1}(1), s{1}(2));  B = randn (s{1}(2), s{1}(3));
%!       endif
%!       two_calls_checked (A, B, sprintf ("split %dx%dx%d", size (A), columns (B)));
%!       assert (heads (), 4 * hopper);   # two bands, two calls
%!     endfor
%!   endif
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_HEAD", "GPU_TILED_LOCK_OPERANDS",
%!                     "GPU_TILED_SPLIT");
%! end_unwind_protect
%!testif ; heap
%! ## panel 0 in pieces of k, its B whole first (by default where B is
%! ## locked and its columns go straight: here rows of 36 KiB and 72 KiB,
%! ## a 2-D copy; GPU_TILED_B_FIRST=1) or each piece's rows of B with it
%! ## (0): only the order of the copies differs, so the same bits; single
%! ## (as the cost model plans it, and with kernel 11 off) and double (on
%! ## Hopper, where doubles have pieces), on one device and split over two
%! ## where there are two; the operands locked (a loop's: from the second
%! ## call after a reset, which is compared), C poisoned.  Single
%! ## 12289x12288x12290 runs kernel 11's own pieces on Hopper: there, with
%! ## B first, the next panel's B goes in during the last piece's wait
%! ## for its scan (with each piece's rows, after it)
%! d = gpu_tiled_devices ();
%! hopper = strcmp (gpu_tiled_info ().compute_capability, "9.0");
%! setenv ("GPU_TILED_POISON", "1");
%! setenv ("GPU_TILED_LOCK_OPERANDS", "1");
%! unwind_protect
%!   for g = unique ([1, min(2, numel (d))])
%!     gpu_tiled_devices (d(1:g));
%!     if (g > 1)
%!       setenv ("GPU_TILED_SPLIT", "always");
%!     endif
%!     for v = {{"single", "", [3001, 8999, 4999]}, ...
%!              {"single", "off", [3001, 8999, 4999]}, ...
%!              {"double", "", [3001, 8999, 4999]}, ...
%!              {"single", "", [12289, 12288, 12290]}}
%!       if (strcmp (v{1}{1}, "double") && ! hopper)
%!         continue;
%!       endif
%!       s = num2cell (v{1}{3});
%!       [m, k, n] = s{:};
%!       if (isempty (v{1}{2}))
%!         unsetenv ("GPU_TILED_EMULATE");
%!       else
%!         setenv ("GPU_TILED_EMULATE", v{1}{2});
%!       endif
%!       A = randn (m, k, v{1}{1});  B = randn (k, n, v{1}{1});
%!       C = b_first_both (A, B, g);
%!       if (m > 10000 && hopper)   # kernel 11's own pieces ran (since the
%!         assert (gpu_tiled_info ().emulation.pieces > 0);   # last reset)
%!       endif
%!       i = rows_to_check (m, k, n);
%!       R = double (A(i, :)) * double (B);
%!       assert (norm (double (C(i, :)) - R, "fro")
%!               <= 4 * k * eps (v{1}{1}) * norm (double (A(i, :)), "fro") * norm (double (B), "fro"));
%!     endfor
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_B_FIRST", "GPU_TILED_EMULATE",
%!                     "GPU_TILED_POISON", "GPU_TILED_LOCK_OPERANDS",
%!                     "GPU_TILED_SPLIT");
%! end_unwind_protect
%!testif ; emu
%! ## kernel 11's pieces of panel 0 (12289x12288x12290 single on Hopper)
%! ## also make A's planes for the other panels as A arrives, on scales
%! ## guessed from the first piece; the first panel after them slices
%! ## again the rows whose scale from the whole row differs.  Here rows
%! ## 1-97 hold their mass in the last 2048 columns (a guess from any other
%! ## piece would scale them past the moduli's range), rows 98-200 in the
%! ## first 2048 (the guess too small) and rows 201-300 tiny (2^-40), on one
%! ## device and split over two where there are two; then, on one device,
%! ## every row with its mass in the last 2048 columns (more than an eighth
%! ## of the rows guessed wrong: all of A sliced again); C poisoned; rows
%! ## 1-300 and rows_to_check's checked, each against its own norm (the
%! ## second call after a reset: its operands locked, as a loop's).
%! d = gpu_tiled_devices ();
%! m = 12289;  k = 12288;  n = 12290;
%! A = randn (m, k, "single");  B = randn (k, n, "single");
%! A(1:97, 1:k-2048) *= 2^-30;
%! A(98:200, 2049:end) *= 2^-30;
%! A(201:300, :) *= 2^-40;
%! A2 = A;  A2(301:end, 1:k-2048) *= 2^-30;
%! runs = {{A, 1}, {A2, 1}};   # {A, devices}
%! if (numel (d) > 1)
%!   runs{end+1} = {A, 2};
%! endif
%! setenv ("GPU_TILED_POISON", "1");
%! setenv ("GPU_TILED_LOCK_OPERANDS", "1");
%! unwind_protect
%!   for r = runs
%!     [X, g] = r{1}{:};
%!     gpu_tiled_devices (d(1:g));
%!     if (g > 1)
%!       setenv ("GPU_TILED_SPLIT", "always");
%!     endif
%!     gpu_tiled_reset ();
%!     gpu_tiled_mtimes (X, B);
%!     e0 = gpu_tiled_info ().emulation;
%!     C = gpu_tiled_mtimes (X, B);
%!     e = gpu_tiled_info ().emulation;
%!     assert (e.pieces > e0.pieces && e.a_ahead >= e0.a_ahead + g,
%!             "%d pieces, %d panels on A made ahead", e.pieces - e0.pieces,
%!             e.a_ahead - e0.a_ahead);
%!     ## each row against its own bound (which, summed, bounds the rows'
%!     ## norm-wise error as well)
%!     i = unique ([1:300, rows_to_check(m, k, n)]);
%!     Ai = double (X(i, :));
%!     R = Ai * double (B);
%!     nb = norm (double (B), "fro");
%!     err = sqrt (sum ((double (C(i, :)) - R) .^ 2, 2));
%!     bound = 4 * k * eps ("single") * sqrt (sum (Ai .^ 2, 2)) * nb;
%!     assert (all (err <= bound), "%d devices: rows %s", g,
%!             mat2str (i(err > bound)(1:min (end, 8))));
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_POISON", "GPU_TILED_LOCK_OPERANDS",
%!                     "GPU_TILED_SPLIT");
%! end_unwind_protect
%!testif ; gpu
%! ## where panel 0 runs on pieces of another kernel (kernel 9's: single
%! ## 4096 x 4096 x 4100 on one device) and the panels after it on kernel
%! ## 11, all of A is made ahead after the last piece, and each call's
%! ## first whole panel finds it (or, where the pieces are kernel 11's own,
%! ## made as they arrive: counted alike) and keeps its slices but where
%! ## the first call's guess of the moduli was wrong
%! d = gpu_tiled_devices ();
%! A = randn (4096, 4096, "single");  B = randn (4096, 4100, "single");
%! unwind_protect
%!   gpu_tiled_devices (d(1));
%!   gpu_tiled_reset ();
%!   for r = 1:3
%!     C = gpu_tiled_mtimes (A, B);
%!   endfor
%!   e = gpu_tiled_info ().emulation;
%!   assert (e.products == 0
%!           || (e.a_ahead >= 3 && e.kept_slices >= e.products - 1),
%!           "%d emulated panels, %d on A made ahead, %d kept its slices",
%!           e.products, e.a_ahead, e.kept_slices);
%!   R = double (A) * double (B);
%!   assert (norm (double (C) - R, "fro")
%!           <= 4 * 4096 * eps ("single") * norm (double (A), "fro")
%!              * norm (double (B), "fro"));
%! unwind_protect_cleanup
%!   restore_defaults ();
%! end_unwind_protect
%!testif ; gpu
%! ## complex singles on kernel 11 streamed in several panels (n from
%! ## 2048 to 7167: panels of a quarter of n or wider; here 4 of 2048
%! ## columns on a 132-SM Hopper), the last narrower than the others; real by
%! ## complex likewise.  The product on A's planes keeps them from panel to
%! ## panel (at this size the four real products go as one: 4 panels, the
%! ## middle two keep, the narrower last one has a scratch of its own).
%! ## Then a NaN in the second panel of B: that panel's launch declines and
%! ## runs kernel 9, so the panel after it scans A's planes afresh (one
%! ## more fresh scan than without the NaN).
%! A = complex (randn (1001, 999, "single"), randn (1001, 999, "single"));
%! B = complex (randn (999, 6500, "single"), randn (999, 6500, "single"));
%! d = gpu_tiled_devices ();
%! setenv ("GPU_TILED_EMULATE", "always");
%! unwind_protect
%!   gpu_tiled_devices (d(1));   # (one band: its panels)
%!   gpu_tiled_reset ();
%!   C = gpu_tiled_mtimes (A, B);
%!   e1 = gpu_tiled_info ().emulation;
%!   D = gpu_tiled_mtimes (real (A), B);
%!   e2 = gpu_tiled_info ().emulation;
%!   B2 = B;  B2(5, 3000) = complex (NaN, 1);
%!   E = gpu_tiled_mtimes (A, B2);
%!   e3 = gpu_tiled_info ().emulation;
%!   emulated = e3.products;
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_EMULATE");
%! end_unwind_protect
%! assert (emulated > 0);
%! assert (e1.kept_scans >= 2 && e1.kept_slices >= 2,
%!         "%d scans, %d slices kept", e1.kept_scans, e1.kept_slices);
%! assert (e2.kept_scans - e1.kept_scans >= 1);
%! fresh = @(a, b) (b.products - a.products) - (b.kept_scans - a.kept_scans);
%! assert (fresh (e2, e3), e1.products - e1.kept_scans + 1);
%! assert (class (C), "single");  assert (iscomplex (C));
%! R = double (A) * double (B);
%! assert (norm (double (C) - R, "fro")
%!         <= 4 * 999 * eps ("single") * norm (double (A), "fro") * norm (double (B), "fro"));
%! R = double (real (A)) * double (B);
%! assert (norm (double (D) - R, "fro")
%!         <= 4 * 999 * eps ("single") * norm (double (real (A)), "fro") * norm (double (B), "fro"));
%! f = all (isfinite (E));
%! assert (find (! f), 3000);
%! assert (all (isnan (E(:, 3000))));
%! R = double (A) * double (B2(:, f));
%! assert (norm (double (E(:, f)) - R, "fro") <= 4 * 999 * eps ("single")
%!         * norm (double (A), "fro") * norm (double (B2(:, f)), "fro"));
## A*B on kernel 9 (GPU_TILED_EMULATE=off) and by default on the first
## device (one band: its panels), the default's emulation counts, and
## A*B2 by default after it (where B2 is given).
%!function [R, C, e, E] = on_k9_and_default (A, B, B2)
%!  d = gpu_tiled_devices ();
%!  E = [];
%!  unwind_protect
%!    gpu_tiled_devices (d(1));
%!    setenv ("GPU_TILED_EMULATE", "off");
%!    gpu_tiled_reset ();
%!    R = gpu_tiled_mtimes (A, B);
%!    unsetenv ("GPU_TILED_EMULATE");
%!    gpu_tiled_reset ();
%!    C = gpu_tiled_mtimes (A, B);
%!    e = gpu_tiled_info ().emulation;
%!    if (nargin > 2)
%!      E = gpu_tiled_mtimes (A, B2);
%!    endif
%!  unwind_protect_cleanup
%!    restore_defaults ("GPU_TILED_EMULATE");
%!  end_unwind_protect
%!endfunction

%!testif ; emu
%! ## Gauss's three products on kernel 11 (chosen by cost at 6144^3 on a
%! ## 132-SM Hopper: 4 panels of 1536 columns), each keeping its own planes
%! ## of A from panel to panel (every panel run whole keeps all three: the
%! ## first finds what kernel 11's pieces of panel 0, three of 2048 here,
%! ## which keep nothing, made of A ahead, or, panel 0 whole, what was made
%! ## as A arrived),
%! ## against the same product on kernel 9 (GPU_TILED_EMULATE=off; this
%! ## size is too large for a double reference here); then a NaN in the
%! ## second panel of B (that panel on kernel 9, the rest as before).
%! ## Where the cost model takes another plan, only the products are
%! ## checked.
%! n = 6144;
%! A = complex (randn (n, "single"), randn (n, "single"));
%! B = complex (randn (n, "single"), randn (n, "single"));
%! B2 = B;  B2(5, 3000) = complex (NaN, 1);
%! [R, C, e1, E] = on_k9_and_default (A, B, B2);
%! B = B2;
%! if (e1.products > 0 && mod (e1.products, 3) == 0)   # the three
%!   ## A made ahead by the pieces, or as it arrived for panel 0 whole,
%!   ## whose slices are made again where the last run's moduli (its
%!   ## guess) were not its own
%!   assert (e1.a_ahead, 3);
%!   assert (e1.kept_scans, e1.products - e1.pieces);
%!   assert (e1.kept_slices >= e1.kept_scans - 3 * (e1.pieces == 0));
%! endif
%! tol = 8 * n * eps ("single") * norm (double (A), "fro") * norm (double (B(:, [1:2999, 3001:end])), "fro");
%! assert (norm (double (C) - double (R), "fro") <= tol);
%! f = all (isfinite (E));
%! assert (find (! f), 3000);
%! assert (norm (double (E(:, f)) - double (R(:, f)), "fro") <= tol);
%!testif ; emu
%! ## Gauss's three on kernel 11 (6144^3, as above) where some products'
%! ## scans decline: the real parts' mass in column 1 of A and in row 2 of
%! ## B, which no affordable number of moduli covers (Ar*Br and the
%! ## parts' sums' product decline, Ai*Bi does not).  The three are
%! ## scanned before any is sliced; a declined one runs on kernel 9 after
%! ## the others.  Against the same product on kernel 9.
%! n = 6144;
%! Ar = randn (n, "single");  Ar(:, 1) *= 2^20;
%! Br = randn (n, "single");  Br(2, :) *= 2^20;
%! A = complex (Ar, randn (n, "single"));
%! B = complex (Br, randn (n, "single"));
%! [R, C, e] = on_k9_and_default (A, B);
%! if (mod (e.products + e.declined, 3) == 0 && e.products + e.declined > 0)
%!   assert (e.declined > 0 && e.products > 0,
%!           "%d emulated, %d declined", e.products, e.declined);
%! endif
%! assert (all (isfinite (C(:))));
%! assert (norm (double (C) - double (R), "fro")
%!         <= 8 * n * eps ("single") * norm (double (A), "fro")
%!            * norm (double (B), "fro"));
%!testif ; gpu
%! ## repeated calls, shapes growing and shrinking, fresh data each time
%! for r = 1:20
%!   s = randi (300, 1, 3);
%!   check_product (s(1), s(2), s(3), [0 8 16 32](mod (r, 4) + 1));
%! endfor
%!testif ; gpu
%! ## NaN and Inf land where * puts them (B has no exact zeros)
%! for tile = [8, 16, 32, 0]
%!   A = randn (37, 41, "single");  B = randn (41, 29, "single") + 8;
%!   A(5, 7) = Inf;  A(9, 3) = -Inf;  B(11, 13) = NaN;  A(20, :) = NaN;
%!   C = mtimes_tile (A, B, tile);
%!   R = A * B;
%!   assert (isnan (C), isnan (R));
%!   assert (isinf (C), isinf (R));
%!   assert (sign (C(isinf (R))), sign (R(isinf (R))));
%!   fin = isfinite (R);
%!   assert (any (fin(:)));
%! endfor
%!testif ; gpu
%! ## an Inf times an exact zero is NaN, as in *
%! A = randn (40, 40, "single");  B = randn (40, 40, "single");
%! A(3, 4) = Inf;  B(4, 10) = 0;
%! for tile = [8, 16, 32, 0]
%!   C = mtimes_tile (A, B, tile);
%!   assert (isnan (C(3, 10)), isnan ((A * B)(3, 10)));
%!   assert (isinf (C(3, 11)));
%! endfor
%!testif ; gpu
%! ## out of device memory: a clear error, nothing kept, the next call works
%! gpu_tiled_reset ();
%! A = randn (600, 500, "single");  B = randn (500, 400, "single");
%! ## (fail requests over 100 kB: not even a block of 64 rows and columns
%! ## fits; GPU_TILED_DEVICE_LIMIT's blocks are tested below)
%! setenv ("GPU_TILED_DEVICE_LIMIT", "100000");
%! unwind_protect
%!   gpu_tiled_reset ();
%!   fail ("gpu_tiled_mtimes (A, B)", "gpu_tiled_mtimes: out of device memory: .* needs .* does not fit the .* MiB free");
%!   assert (gpu_tiled_info ().cached_device_memory, 0);
%!   check_product (60, 50, 40, 0);   # what fits still runs
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_DEVICE_LIMIT");
%! end_unwind_protect
%! check_product (600, 500, 400, 0);
%!testif ; gpu
%! ## an interrupted call (the path Ctrl-C takes) leaves the package usable
%! A = randn (1500, 1400, "single");  B = randn (1400, 1300, "single");
%! ## (the hook interrupts the next call of the device set up after it)
%! setenv ("GPU_TILED_TEST_INTERRUPT", "1");
%! unwind_protect
%!   gpu_tiled_reset ();
%!   gpu_tiled_info ();   # sets the device up, reading the hook
%! unwind_protect_cleanup
%!   unsetenv ("GPU_TILED_TEST_INTERRUPT");
%! end_unwind_protect
%! fail ("gpu_tiled_mtimes (A, B)", "gpu_tiled_mtimes: interrupted");
%! check_product (1500, 1400, 1300, 0);
%!testif ; gpu
%! ## a device that fails in the middle of a call (GPU_TILED_TEST_FAIL: once
%! ## A's copies are under way) gives a clear error, and the next call works
%! A = randn (1500, 1400, "single");  B = randn (1400, 1300, "single");
%! devs = gpu_tiled_devices ();
%! setenv ("GPU_TILED_TEST_FAIL", num2str (devs(1)));
%! unwind_protect
%!   gpu_tiled_reset ();
%!   fail ("gpu_tiled_mtimes (A, B)",
%!         sprintf ("device %d failed in the middle of the call", devs(1)));
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_TEST_FAIL");
%! end_unwind_protect
%! check_product (1500, 1400, 1300, 0);
%!testif ; gpu
%! ## single precision or better, not TF32: error at 4096 at most that of
%! ## a plain FP32 product (about 1e-6; kernel 9 on Hopper 2.5e-8)
%! A = randn (4096, "single");  B = randn (4096, "single");
%! C = gpu_tiled_mtimes (A, B);
%! i = randperm (4096, 256);   # rows sampled: the CPU's reference is slow
%! R = double (A(i, :)) * double (B);
%! rel = norm (double (C(i, :)) - R, "fro") / norm (R, "fro");
%! assert (rel < 1e-5);
## ---- every class pair on the GPU ----
## A (class ca, m x k) times B (class cb, k x n), fresh random data, for
## every tile: the class of A * B (* decides it, here on empty slices),
## its complexity and size, and norm-wise against a product in double of
## the operands as the product's class sees them.
%!function check_pair (ca, cb, m, k, n)
%!  A = make_operand (ca, m, k);
%!  B = make_operand (cb, k, n);
%!  cls = class (A([], :) * B(:, []));
%!  if (strcmp (cls, "single"))
%!    Ad = double (single (A));  Bd = double (single (B));
%!  else
%!    Ad = double (A);  Bd = double (B);
%!  endif
%!  R = Ad * Bd;
%!  bound = 4 * max (k, 1) * eps (cls) * norm (Ad, "fro") * norm (Bd, "fro");
%!  for tile = [8, 16, 32, 0]
%!    C = mtimes_tile (A, B, tile);
%!    what = sprintf ("%s * %s, %dx%dx%d tile %d", ca, cb, m, k, n, tile);
%!    assert (strcmp (class (C), cls), "%s: class %s", what, class (C));
%!    assert (iscomplex (C) == iscomplex (R), "%s: complexity", what);
%!    assert (isequal (size (C), [m, n]), "%s: size", what);
%!    err = norm (double (C) - R, "fro");
%!    assert (err <= bound, "%s: error %g above %g", what, err, bound);
%!  endfor
%!endfunction

%!testif ; gpu
%! ## every pair of classes, shapes that are not multiples of any tile
%! cls = {"single", "double", "csingle", "cdouble", "logical", "char"};
%! shapes = [1 1 1; 7 11 13; 37 41 29; 129 127 131; 1 300 257; 257 300 1;
%!           513 33 1025]';
%! for i = 1:numel (cls)
%!   for j = 1:numel (cls)
%!     for s = shapes
%!       check_pair (cls{i}, cls{j}, s(1), s(2), s(3));
%!     endfor
%!   endfor
%! endfor
%!testif ; gpu
%! ## a larger shape for each result class and each mix of a pair
%! pairs = {"single", "single"; "double", "double"; "csingle", "csingle";
%!          "cdouble", "cdouble"; "single", "double"; "double", "single";
%!          "double", "cdouble"; "cdouble", "double"; "csingle", "cdouble";
%!          "cdouble", "csingle"; "csingle", "double"; "single", "cdouble";
%!          "logical", "char"; "char", "csingle"};
%! for p = 1:rows (pairs)
%!   check_pair (pairs{p, 1}, pairs{p, 2}, 300, 700, 500);
%! endfor
%!testif ; gpu
%! ## calls of 4 to 64 MiB go through the slots in pieces of 2 MiB written
%! ## with streaming stores: pieces that end inside a column, columns
%! ## longer than a piece (600000 rows: each in pieces of rows), doubles
%! ## rounded to singles on the way, complex halves (the first six); and
%! ## such products in column panels side by side, each panel's kernel on
%! ## its own stream with its own scratch (complex: its planes of B and its
%! ## products): a last panel of one column, k of one and of seven, real
%! ## times complex, ragged shapes, products of 32 to 64 MiB
%! ## (2000x1500x2100 goes in the panels of a product that fills the GPU
%! ## instead)
%! cases = {"single", "single", 1001, 777, 1203;
%!          "double", "double", 999, 1031, 1001;
%!          "csingle", "cdouble", 601, 999, 803;
%!          "single", "single", 600000, 2, 3;
%!          "double", "single", 600000, 2, 3;
%!          "double", "single", 3, 600000, 5;
%!          "single", "single", 700, 3000, 513;
%!          "double", "single", 1500, 900, 1100;
%!          "double", "double", 640, 2000, 1025;
%!          "single", "single", 3000, 1, 700;
%!          "double", "double", 2100, 7, 1000;
%!          "single", "single", 2000, 1500, 2100;
%!          "single", "single", 1000, 3000, 3000;
%!          "double", "double", 700, 2000, 1900;
%!          "csingle", "csingle", 700, 900, 1100;
%!          "cdouble", "double", 600, 800, 900;
%!          "double", "csingle", 1500, 1200, 1300;
%!          "cdouble", "cdouble", 999, 1001, 997};
%! for c = 1:rows (cases)
%!   check_pair (cases{c, :});
%! endfor
%! ## the path is taken: a product of 24 MiB adds to the devices' count of
%! ## products side by side, one of 3 MiB does not (on one device: a
%! ## split product's bands share A and go in panels as they are)
%! gpu_tiled_devices (gpu_tiled_devices ()(1));
%! unwind_protect
%!   side = @() sum ([gpu_tiled_info().devices.side_products]);
%!   A = randn (999, 1031);  B = randn (1031, 1001);
%!   n0 = side ();
%!   C = gpu_tiled_mtimes (A, B);
%!   assert (side () - n0 >= 1);
%!   assert (norm (C - A * B, "fro")
%!           <= 4 * 1031 * eps * norm (A, "fro") * norm (B, "fro"));
%!   A = randn (300, 400);  B = randn (400, 350);
%!   n0 = side ();
%!   C = gpu_tiled_mtimes (A, B);
%!   assert (side () - n0, 0);
%! unwind_protect_cleanup
%!   restore_defaults ();
%! end_unwind_protect
%!testif ; gpu
%! ## double products whose 128x128 tiles would leave SMs idle: on a Hopper
%! ## GPU kernel 9's 64x64 tiles, whole or with k split (the pieces added
%! ## within a cluster, or by the reduce, up to 128 of them); ragged tiles
%! ## and k, every tile
%! shapes = [256 256 256; 257 300 255; 777 3001 555; 65536 64 64;
%!           65 70000 63; 513 511 509]';
%! for s = shapes
%!   check_pair ("double", "double", s(1), s(2), s(3));
%! endfor
%!testif ; gpu
%! ## doubles whose 128x128 tiles pass a multiple of 132 SMs by more than a
%! ## column of tiles (Hopper): all but the last whole columns in one
%! ## launch, those with k split; ragged rows, columns and k
%! check_pair ("double", "double", 1250, 2049, 1900);
%! ## k split three ways over tiles whose last row holds one row of C and
%! ## last column nine columns (1409x3000x777 on 132 SMs); strips beside
%! ## whole tiles, on kernel 10 or kernel 9's small tiles (3001x2048x3100,
%! ## in panels)
%! check_pair ("double", "double", 1409, 3000, 777);
%! A = randn (3001, 2048);  B = randn (2048, 3100);
%! C = gpu_tiled_mtimes (A, B);
%! i = rows_to_check (3001, 2048, 3100);
%! assert (norm (C(i, :) - A(i, :) * B, "fro")
%!         <= 4 * 2048 * eps * norm (A(i, :), "fro") * norm (B, "fro"));
%!testif ; gpu
%! ## complex products with a vector side, read as they are (kernel 10),
%! ## k split and not; a mixed one through the planes
%! check_pair ("csingle", "csingle", 3001, 5000, 1);
%! check_pair ("cdouble", "cdouble", 1, 4999, 2049);
%! check_pair ("csingle", "cdouble", 1, 77, 1);
%! check_pair ("cdouble", "cdouble", 4097, 100, 1);
%! check_pair ("csingle", "single", 2000, 3000, 1);
%!testif ; gpu
%! ## double vectors (kernel 10): x'B in one piece of k or in two added
%! ## within a cluster (Hopper; with B's columns off 16 bytes too), A x in
%! ## 8 or 4 pieces within a cluster or in 17 through the reduce; odd
%! ## lengths
%! for s = [1 4096 4096; 1 8192 8192; 1 8193 4099; 4096 4096 1; 8192 8192 1; 2048 16384 1; 1 4099 999; 4097 3001 1; 1000 1000 1]'
%!   check_pair ("double", "double", s(1), s(2), s(3));
%! endfor
%!testif ; gpu
%! ## other double matrices: ranges, diagonal and permutation matrices
%! B = randn (41, 29);
%! [~, ~, P] = lu (rand (41));
%! for X = {eye(41), single(eye(41)), P, 1:41, complex(eye(41), 0)}
%!   A = X{1};
%!   for tile = [8, 0]
%!     C = mtimes_tile (A, B, tile);
%!     R = A * B;
%!     assert (class (C), class (R));
%!     assert (iscomplex (C), iscomplex (R));
%!     assert (size (C), size (R));
%!     assert (norm (double (C) - double (R), "fro")
%!             <= 4 * 41 * eps (class (R)) * norm (double (full (A)), "fro") * norm (B, "fro"));
%!   endfor
%! endfor
%!testif ; gpu
%! ## complex operands whose product has zero imaginary parts give a real
%! ## result, as * does; a complex result stays complex
%! A = randn (37, 41);  B = randn (41, 29);
%! cases = {complex(A, 0), B; A, complex(B, 0); complex(A, 0), complex(B, 0);
%!          complex(single(A), 0), B; single(A), complex(B, 0);
%!          complex(single(A), 0), complex(B, 0); 1i * A, 1i * B;
%!          1i * single(A), 1i * B};
%! for tile = [8, 16, 32, 0]
%!   for c = 1:rows (cases)
%!     [X, Y] = cases{c, :};
%!     C = mtimes_tile (X, Y, tile);
%!     R = X * Y;
%!     assert (iscomplex (R), false);
%!     assert (iscomplex (C), false);
%!     assert (class (C), class (R));
%!     assert (norm (double (C) - double (R), "fro")
%!             <= 4 * 41 * eps (class (R)) * norm (A, "fro") * norm (B, "fro"));
%!   endfor
%!   ## imaginary parts in one row of A only: complex, zero elsewhere
%!   Ai = zeros (37, 41);  Ai(5, :) = randn (1, 41);
%!   for X = {complex(A, Ai), complex(single(A), single(Ai))}
%!     C = mtimes_tile (X{1}, B, tile);
%!     assert (iscomplex (C), true);
%!     assert (all (imag (C)([1:4, 6:end], :)(:) == 0));
%!     assert (all (imag (C)(5, :) != 0));
%!   endfor
%! endfor
%!testif ; gpu
%! ## NaN and Inf in real and imaginary parts land where * puts them (B has
%! ## no exact zeros; the shape has k > min (m, n) / 10, where * takes a
%! ## real operand of a complex product as it is).  Each part of an element
%! ## is a sum of real products of the parts, in * as here; BLAS libraries
%! ## differ on whether an Inf of a complex product comes out NaN (OpenBLAS
%! ## scales by alpha = 1 + 0i), so the parts are compared with those sums
%! ## and the elements that are not finite with * itself.
%! pairs = {"cdouble", "cdouble"; "csingle", "csingle"; "double", "cdouble";
%!          "cdouble", "double"; "single", "csingle"; "csingle", "single";
%!          "csingle", "double"; "cdouble", "csingle"; "double", "double";
%!          "single", "double"; "double", "single"};
%! for tile = [8, 16, 32, 0]
%!   for p = 1:rows (pairs)
%!     A = make_operand (pairs{p, 1}, 37, 41);
%!     B = make_operand (pairs{p, 2}, 41, 29) + 8;
%!     A(5, 7) = Inf;  A(9, 3) = -Inf;  A(20, :) = NaN;
%!     if (iscomplex (A))
%!       A(12, 4) = complex (1, Inf);  A(30, 8) = complex (-2, -Inf);
%!       A(25, 1) = complex (NaN, 1);  A(26, 2) = complex (1, NaN);
%!     endif
%!     if (iscomplex (B))   # (no exact zeros: not a real value assigned)
%!       B(11, 13) = complex (NaN, 0.5);  B(3, 25) = complex (-Inf, 0.5);
%!       B(7, 20) = complex (2, NaN);  B(9, 2) = complex (1, Inf);
%!     else
%!       B(11, 13) = NaN;  B(3, 25) = -Inf;
%!     endif
%!     C = mtimes_tile (A, B, tile);
%!     R = A * B;
%!     what = sprintf ("%s * %s tile %d", pairs{p, :}, tile);
%!     assert (strcmp (class (C), class (R)), "%s: class", what);
%!     assert (iscomplex (C) == iscomplex (R), "%s: complexity", what);
%!     assert (isequal (isfinite (C), isfinite (R)), "%s: not finite", what);
%!     ## the parts as sums of real products, in double of the operands as
%!     ## the product's class sees them
%!     if (isa (R, "single"))
%!       A = single (A);  B = single (B);
%!     endif
%!     Ar = double (real (A));  Ai = double (imag (A));
%!     Br = double (real (B));  Bi = double (imag (B));
%!     Pr = Ar * Br;  Pi = zeros (size (Pr));
%!     if (iscomplex (A) && iscomplex (B))
%!       Pr -= Ai * Bi;
%!     endif
%!     if (iscomplex (B))
%!       Pi += Ar * Bi;
%!     endif
%!     if (iscomplex (A))
%!       Pi += Ai * Br;
%!     endif
%!     parts = {real(C), Pr; imag(C), Pi};
%!     for q = 1:2
%!       [c, r] = parts{q, :};
%!       assert (isequal (isnan (c), isnan (r)), "%s: NaN in part %d", what, q);
%!       assert (isequal (isinf (c), isinf (r)), "%s: Inf in part %d", what, q);
%!       assert (isequal (sign (c(isinf (r))), sign (r(isinf (r)))),
%!               "%s: sign of Inf in part %d", what, q);
%!     endfor
%!   endfor
%! endfor
%!testif ; gpu
%! ## double products are summed in double: a single-precision path would
%! ## miss these bounds by about 1e7
%! A = randn (200);  B = randn (200);
%! Z = complex (randn (200), randn (200));  W = complex (randn (200), randn (200));
%! for tile = [8, 16, 32, 0]
%!   for p = {{A, B}, {Z, W}, {A, W}, {Z, B}}
%!     [X, Y] = p{1}{:};
%!     C = mtimes_tile (X, Y, tile);
%!     assert (class (C), "double");
%!     assert (norm (C - X * Y, "fro")
%!             <= 64 * 200 * eps * norm (X, "fro") * norm (Y, "fro"));
%!   endfor
%! endfor
## ---- products that do not fit the device, several devices, the CPU ----
## C = A * B by the default path, norm-wise against a product in double
## (of rows_to_check: rows of every band and block).
%!function check_default (A, B, what)
%!  C = gpu_tiled_mtimes (A, B);
%!  assert (class (C), class (A(1) * B(1)));
%!  assert (size (C), [rows(A), columns(B)]);
%!  check_rows (A, B, C, what);
%!endfunction

%!## C against A * B in double, norm-wise, on rows_to_check's rows
## The operands' tests: results from a heap of 4 GiB, operands always
## locked where they come back, and the splits to run (one device, and
## split over all where there are several).
%!function splits = operands_locked_splits ()
%!  splits = {""};
%!  if (numel (gpu_tiled_devices ()) > 1)
%!    splits{end+1} = "always";
%!  endif
%!  setenv ("GPU_TILED_RESULT_HEAP", "4294967296");
%!  setenv ("GPU_TILED_LOCK_OPERANDS", "1");
%!endfunction

%!function check_rows (A, B, C, what)
%!  i = rows_to_check (rows (A), columns (A), columns (B));
%!  Ai = double (A(i, :));
%!  R = Ai * double (B);
%!  bound = 4 * columns (A) * eps (class (C)) * norm (Ai, "fro") * norm (double (B), "fro");
%!  err = norm (double (C(i, :)) - R, "fro");
%!  assert (err <= bound, "%s: error %g above %g", what, err, bound);
%!endfunction

## A loop's four calls of A * B, each result freed and its memory filled
## with NaN before the next call, which the heap gives it (an element
## left unwritten shows); the sampled rows against a double product; then
## what gpu_tiled_info says and C's bytes.  From the second call on the
## result's memory is locked, and at least two products go straight.
%!function [s, bytes] = loop_straight (A, B, what)
%!  for round = 1:4
%!    C = gpu_tiled_mtimes (A, B);
%!    assert (! any (isnan (C(:))), "%s: unwritten elements", what);
%!    check_rows (A, B, C, what);
%!    elems = numel (C) * (1 + iscomplex (C));
%!    cl = class (C);
%!    clear C;
%!    X = NaN (elems, 1, cl);
%!    clear X;
%!  endfor
%!  s = gpu_tiled_info ();
%!  assert (s.results_direct >= 2, "%s: %d products written straight",
%!          what, s.results_direct);
%!  bytes = elems * (4 + 4 * strcmp (cl, "double"));
%!endfunction

## Rows i of C against the sums of real products of the parts, as * forms
## them: NaN and Inf where they put them, finite elements each within its
## own bound.
%!function check_parts (A, B, C, i, what)
%!  k = columns (A);
%!  Ar = double (real (A(i, :)));  Ai = double (imag (A(i, :)));
%!  Br = double (real (B));  Bi = double (imag (B));
%!  ## a real B's zero imaginary part multiplies nothing (Inf * 0 would be
%!  ## NaN), as * does where k is a tenth of m or n or more
%!  if (isreal (A) && isreal (B))
%!    parts = {real(C(i, :)), Ar * Br};
%!  elseif (isreal (B))
%!    parts = {real(C(i, :)), Ar * Br; imag(C(i, :)), Ai * Br};
%!  else
%!    parts = {real(C(i, :)), Ar * Br - Ai * Bi; imag(C(i, :)), Ar * Bi + Ai * Br};
%!  endif
%!  bound = 8 * k * eps (class (C)) * (double (abs (A(i, :))) * double (abs (B)));
%!  for q = 1:rows (parts)
%!    [c, r] = parts{q, :};
%!    w = sprintf ("%s, part %d", what, q);
%!    assert (isequal (isnan (c), isnan (r)), "%s: NaN", w);
%!    assert (isequal (isinf (c), isinf (r)), "%s: Inf", w);
%!    assert (isequal (sign (c(isinf (r))), sign (r(isinf (r)))),
%!            "%s: sign of Inf", w);
%!    f = isfinite (r);
%!    assert (all (abs (double (c(f)) - r(f)) <= bound(f)), "%s: values", w);
%!  endfor
%!endfunction

%!testif ; gpu
%! ## complex products large enough for three real products (Gauss's) in
%! ## place of four, in panels: norm-wise on sampled rows, also where the
%! ## imaginary parts are 1e-6 of the real ones (the three products' error
%! ## is relative to |A| |B|, not to the imaginary part); NaN and Inf land
%! ## where the sums of real products put them, whose Inf the difference
%! ## of the three would turn into NaN
%! m = 1500;  k = 1200;  n = 1300;
%! for cls = {"double", "single"}
%!   for scale = [1, 1e-6]
%!     A = complex (randn (m, k, cls{1}), scale * randn (m, k, cls{1}));
%!     B = complex (randn (k, n, cls{1}), scale * randn (k, n, cls{1}));
%!     check_default (A, B, sprintf ("complex %s, imaginary x %g", cls{1}, scale));
%!   endfor
%!   A = complex (randn (m, k, cls{1}), randn (m, k, cls{1}));
%!   B = complex (randn (k, n, cls{1}), randn (k, n, cls{1})) + 8;
%!   A(5, 7) = Inf;  A(9, 3) = -Inf;  A(20, :) = NaN;
%!   A(12, 4) = complex (1, Inf);  A(30, 8) = complex (-2, -Inf);
%!   A(25, 1) = complex (NaN, 1);
%!   ## re + im overflows where re and im times B's last row do not
%!   A(m, k) = complex (0.75 * realmax (cls{1}), 0.75 * realmax (cls{1}));
%!   B(k, :) = 1e-10 * complex (randn (1, n), randn (1, n));
%!   B(11, 13) = complex (NaN, 0.5);  B(3, 25) = complex (-Inf, 0.5);
%!   B(9, 2) = complex (1, Inf);
%!   C = gpu_tiled_mtimes (A, B);
%!   check_parts (A, B, C, [5, 9, 12, 20, 25, 30, m, randi(m, 1, 8)],
%!                sprintf ("complex %s", cls{1}));
%!   ## A finite, one part of B not, in the last panel only (3,000 columns:
%!   ## the panels before it ran three products before that was known)
%!   A = complex (randn (m, k, cls{1}), randn (m, k, cls{1}));
%!   B = complex (randn (k, 3000, cls{1}), randn (k, 3000, cls{1})) + 8;
%!   B(k - 3, 3000) = complex (Inf, 0.5);
%!   C = gpu_tiled_mtimes (A, B);
%!   check_parts (A, B, C, randi (m, 1, 16),
%!                sprintf ("complex %s, Inf in the last panel", cls{1}));
%! endfor
%! ## a last panel of one column (4,096 x 2,049 at 1,024 columns a panel on
%! ## a 132-SM GPU), on A's planes
%! check_default (complex (randn (2048), randn (2048)),
%!                complex (randn (2048, 2049), randn (2048, 2049)),
%!                "complex double, a last panel of one column");
%!testif ; gpu
%! ## a real product of one panel whose copies outweigh its kernel takes
%! ## its panel in pieces of plain kernel 9 on Hopper, as A and B arrive,
%! ## even where its whole plan is kernel 11 (singles) or kernel 9 with k
%! ## split (here 2000 x 12000 x 1700: one panel on a 132-SM Hopper; one
%! ## device, not split over several); against double on sampled rows
%! pieces = @() sum ([gpu_tiled_info().devices.piece_products]);
%! hopper = strcmp (gpu_tiled_info ().compute_capability, "9.0");
%! devs = gpu_tiled_devices ();
%! unwind_protect
%!   gpu_tiled_devices (devs(1));
%!   for cls = {"single", "double"}
%!     A = randn (2000, 12000, cls{1});  B = randn (12000, 1700, cls{1});
%!     gpu_tiled_reset ();
%!     check_default (A, B, ["one panel in pieces, " cls{1}]);
%!     assert (pieces () == hopper, "%s: %d in pieces", cls{1}, pieces ());
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ();
%! end_unwind_protect
%!testif ; gpu
%! ## a product on kernel 9 of several panels whose A comes in fast (k of
%! ## 700) takes its first panel whole, no pieces, where one of k 4500 takes
%! ## them (on Hopper); C poisoned; against double on sampled rows
%! pieces = @() sum ([gpu_tiled_info().devices.piece_products]);
%! hopper = strcmp (gpu_tiled_info ().compute_capability, "9.0");
%! devs = gpu_tiled_devices ();
%! setenv ("GPU_TILED_POISON", "1");
%! setenv ("GPU_TILED_EMULATE", "off");
%! unwind_protect
%!   gpu_tiled_devices (devs(1));
%!   for k = [700, 4500]
%!     A = randn (3000, k, "single");  B = randn (k, 5000, "single");
%!     gpu_tiled_reset ();
%!     check_default (A, B, sprintf ("3000x%dx5000", k));
%!     assert (pieces () == (hopper && k > 700), "k %d: %d in pieces", k,
%!             pieces ());
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_POISON", "GPU_TILED_EMULATE");
%! end_unwind_protect
%!testif ; gpu
%! ## Complex doubles (Gauss's three on kernel 9 on Hopper, another kernel
%! ## elsewhere: then not in pieces) where the copies outweigh the kernels
%! ## take their first panel in pieces of k (kernel 9's, each of the three
%! ## carrying its sums), with a ragged last piece: one panel, and several
%! ## (A's planes for the others made after the pieces).  Against double
%! ## on sampled rows.  Then an Inf in A's third piece and a NaN in B's
%! ## fourth: the product runs again, whole, on the flags the pieces left.
%! ## One device: bands of a split that share A take pieces by another
%! ## rule, where they have several panels whose tiles fill the GPU (the
%! ## split test below).
%! pieces = @() sum ([gpu_tiled_info().devices.piece_products]);
%! hopper = strcmp (gpu_tiled_info ().compute_capability, "9.0");   # kernel 9
%! devs = gpu_tiled_devices ();
%! unwind_protect
%!   gpu_tiled_devices (devs(1));
%!   for d = {[1000 10000 1000], [1200 9000 2900]}
%!     d = d{1};
%!     A = make_operand ("cdouble", d(1), d(2));
%!     B = make_operand ("cdouble", d(2), d(3));
%!     gpu_tiled_reset ();
%!     check_default (A, B, sprintf ("complex double %dx%dx%d", d));
%!     assert (pieces () == hopper, "%dx%dx%d: %d in pieces", d, pieces ());
%!   endfor
%!   A(10, 2100) = complex (Inf, 1);  B(3100, 7) = complex (NaN, 2);
%!   C = gpu_tiled_mtimes (A, B);
%!   check_parts (A, B, C, [10, randi(d(1), 1, 8)], "Inf and NaN in pieces");
%!   assert (pieces () == 2 * hopper, "%d in pieces", pieces ());
%! unwind_protect_cleanup
%!   restore_defaults ();
%! end_unwind_protect
%!testif ; gpu
%! ## a complex double A times a real double B runs as the real product
%! ## of A's storage, 2m rows of alternating real and imaginary parts, at a
%! ## shape whose real product takes its first panel in pieces of k on
%! ## Hopper (3000x4500x5000 on kernel 9, as above), which a product on
%! ## A's planes never does; the other pairs of a complex A and a real B (a
%! ## double operand of a single product rounded) stay on the planes, no
%! ## pieces.  C poisoned, against double on sampled rows.  Then an Inf in
%! ## A and a NaN in B, placed as * places them (no Inf * 0 from B's zero
%! ## imaginary part).  Where there are two devices, split as the split
%! ## test of real doubles (3002x7777x4097): the bands share A's storage and
%! ## take pieces.
%! pieces = @() sum ([gpu_tiled_info().devices.piece_products]);
%! hopper = strcmp (gpu_tiled_info ().compute_capability, "9.0");
%! devs = gpu_tiled_devices ();
%! setenv ("GPU_TILED_EMULATE", "off");
%! unwind_protect
%!   gpu_tiled_devices (devs(1));
%!   for p = {"csingle", "single"; "csingle", "double"; "cdouble", "single"; "cdouble", "double"}'
%!     [ca, cb] = p{:};
%!     what = sprintf ("%s * %s", ca, cb);
%!     A = make_operand (ca, 1500, 4500);  B = make_operand (cb, 4500, 5000);
%!     gpu_tiled_reset ();
%!     C = gpu_tiled_mtimes (A, B);
%!     assert (class (C), class (A(1) * B(1)));
%!     assert (iscomplex (C), "%s: not complex", what);
%!     check_rows (A, B, C, what);
%!     real_view = strcmp (ca, "cdouble") && strcmp (cb, "double");
%!     assert (pieces () == (hopper && real_view), "%s: %d in pieces", what,
%!             pieces ());
%!   endfor
%!   A(10, 3000) = complex (Inf, 1);  B(3100, 7) = NaN;
%!   check_parts (A, B, gpu_tiled_mtimes (A, B), [10, randi(1500, 1, 8)],
%!                [what ", Inf and NaN"]);
%!   if (numel (devs) > 1)
%!     gpu_tiled_devices (devs(1:2));
%!     unsetenv ("GPU_TILED_EMULATE");
%!     setenv ("GPU_TILED_SPLIT", "always");
%!     gpu_tiled_reset ();
%!     A = make_operand ("cdouble", 1501, 7777);
%!     B = make_operand ("double", 7777, 4097);
%!     check_default (A, B, "split cdouble * double");
%!     assert (pieces () > 0 || ! hopper, "split: no band in pieces");
%!   endif
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_EMULATE", "GPU_TILED_SPLIT");
%! end_unwind_protect
## complex single m x k x n on the first device alone, in kernel 11's
## pieces with each of the three products' A made ahead for the panels
## after them; then an Inf in A at ia (and a NaN in B at ib, unless
## empty): the product in pieces again, run again on their flags.
%!function three_k11_pieces_case (m, k, n, ia, ib)
%!  what = sprintf ("complex single %dx%dx%d", m, k, n);
%!  pieces = @() sum ([gpu_tiled_info().devices.piece_products]);
%!  devs = gpu_tiled_devices ();
%!  unwind_protect
%!    gpu_tiled_devices (devs(1));
%!    gpu_tiled_reset ();
%!    A = make_operand ("csingle", m, k);
%!    B = make_operand ("csingle", k, n);
%!    ahead = gpu_tiled_info ().emulation.a_ahead;
%!    check_default (A, B, what);
%!    assert (pieces (), 1);
%!    ## each of the three found its A made ahead by the pieces in panel 1
%!    assert (gpu_tiled_info ().emulation.a_ahead - ahead, 3);
%!    A(ia(1), ia(2)) = complex (Inf, 1);
%!    if (! isempty (ib))
%!      B(ib(1), ib(2)) = complex (NaN, 2);
%!    endif
%!    C = gpu_tiled_mtimes (A, B);
%!    check_parts (A, B, C, [ia(1), randi(m, 1, 8)],
%!                 [what ": Inf and NaN in pieces"]);
%!    assert (pieces (), 2);
%!  unwind_protect_cleanup
%!    restore_defaults ();
%!  end_unwind_protect
%!endfunction

%!testif ; emu
%! ## Complex singles on kernel 11 (Gauss's three) whose panels are large
%! ## take their first panel in pieces of k as A arrives, each of the
%! ## three scanned and sliced on its piece alone and carrying its sums
%! ## (here 8192 x 12288 x 4096: 6 pieces of 2048 beside 4 panels of
%! ## 1024; the rule's panel 0 whole ends 1.1 times later), each piece's
%! ## planes of A in the layout of all of k, where the panels after them
%! ## find them, and each product's A made ahead there for the panels
%! ## (one device: a band sharing A makes none); C poisoned, against
%! ## double on sampled rows.  Then an Inf in A's fifth piece and a NaN
%! ## in B's second: the product runs again on the flags the pieces left.
%! ## One device (the split's bands: the test after the next).
%! three_k11_pieces_case (8192, 12288, 4096, [10, 9000], [3000, 7]);
%!testif ; emu
%! ## Where a quarter of k falls under kernel 11's least piece (2048),
%! ## Gauss's three take panel 0 in three pieces or more (here 6001 x 6144
%! ## x 6007: three pieces of 2048), each product's A made ahead by them
%! ## as above.  Then an Inf in A's last piece: the product runs again.
%! three_k11_pieces_case (6001, 6144, 6007, [6001, 6000], []);
%!testif ; emu
%! ## Panel 0 run whole on kernel 11 (no pieces nor blocks of rows:
%! ## GPU_TILED_NO_KSPLIT) finds A made ahead as A's columns arrived, in
%! ## parts of a quarter of k or 32 MiB (here complex: three of 1024 and a
%! ## last of 928; real: two of 1536 and a last of 928), a complex A's
%! ## planes made with them: panel 0 keeps A's scan as the panels after it
%! ## do, each of Gauss's three its own (complex single), a real single's
%! ## its one.
%! ## C poisoned, against double on sampled rows; then an Inf in A's last
%! ## part and a NaN in B: placed as * places them.  One device; a split's
%! ## bands sharing A: the next test but one.
%! devs = gpu_tiled_devices ();
%! setenv ("GPU_TILED_NO_KSPLIT", "1");
%! setenv ("GPU_TILED_EMULATE", "always");
%! unwind_protect
%!   gpu_tiled_devices (devs(1));
%!   gpu_tiled_reset ();
%!   m = 6001;  k = 4000;  n = 4003;
%!   for cls = {"csingle", "single"}
%!     what = sprintf ("%s %dx%dx%d", cls{1}, m, k, n);
%!     A = make_operand (cls{1}, m, k);  B = make_operand (cls{1}, k, n);
%!     e0 = gpu_tiled_info ().emulation;
%!     check_default (A, B, what);
%!     e = gpu_tiled_info ().emulation;
%!     per = 1 + 2 * iscomplex (A);
%!     products = e.products - e0.products;
%!     assert (products >= 2 * per, "%s: %d emulated", what, products);
%!     assert (e.a_ahead - e0.a_ahead, per);
%!     ## (the last panel, narrower, may have a scratch of its own)
%!     assert (e.kept_scans - e0.kept_scans >= products - per);
%!     A(10, 3500) = Inf;  B(3000, 7) = NaN;
%!     C = gpu_tiled_mtimes (A, B);
%!     check_parts (A, B, C, [10, randi(m, 1, 8)], [what ": Inf and NaN"]);
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_NO_KSPLIT", "GPU_TILED_EMULATE");
%! end_unwind_protect
%!testif ; emu
%! ## The last panel of C of Gauss's three on kernel 11, 48 MiB or more
%! ## (here 8192 or 7001 rows of 1024 complex singles), goes out by blocks
%! ## of rows as the third product and the join write them: four blocks of
%! ## 2048 rows; of 1792, the last of 1625 (its tiles past m, its last
%! ## combine of one row).  C poisoned (an element left unwritten shows),
%! ## against double on rows at each block's edges.  Then an Inf in A: the
%! ## scans decline, and the blocks are all done at the run's end; the Inf
%! ## placed as * places it.
%! devs = gpu_tiled_devices ();
%! setenv ("GPU_TILED_EMULATE", "always");
%! last_rows = @() sum ([gpu_tiled_info().devices.last_rows_products]);
%! unwind_protect
%!   gpu_tiled_devices (devs(1));
%!   gpu_tiled_reset ();
%!   k = 2048;  n = 8192;
%!   for m = [8192, 7001]
%!     h = ceil (ceil (m / 4) / 256) * 256;
%!     edges = unique ([1, h, h + 1, 2 * h, 2 * h + 1, 3 * h, 3 * h + 1, m]);
%!     what = sprintf ("complex single %dx%dx%d", m, k, n);
%!     A = make_operand ("csingle", m, k);  B = make_operand ("csingle", k, n);
%!     n0 = last_rows ();
%!     C = gpu_tiled_mtimes (A, B);
%!     got = last_rows () - n0;
%!     assert (got == 1, "%s: %d products' last panel by rows", what, got);
%!     assert (! any (isnan (C(:))), "%s: unwritten elements", what);
%!     check_parts (A, B, C, [edges, randi(m, 1, 4)], what);
%!     A(5000, 7) = Inf;
%!     C = gpu_tiled_mtimes (A, B);
%!     assert (! any (isnan (C([1:4999, 5001:end], :)(:))),
%!             "%s: unwritten elements", what);
%!     check_parts (A, B, C, [5000, edges], [what ": Inf"]);
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_EMULATE");
%! end_unwind_protect
%!testif ; emu && numel (gpu_tiled_devices ()) > 1
%! ## Split over two devices by columns, A shared (8192 x 16384 x 8192:
%! ## each band's panels of 1024 on kernel 11): each band takes its panel
%! ## 0 in kernel 11's pieces, its own part's and the other band's in
%! ## turn, and leaves its operands' checks in a device word.  A NaN in
%! ## B's columns of the second band only, then an Inf in A (both
%! ## bands): such a band's C is written again, A not shared, once both
%! ## bands have ended.  C poisoned; against double.
%! pieces = @() sum ([gpu_tiled_info().devices.piece_products]);
%! setenv ("GPU_TILED_SPLIT", "always");
%! unwind_protect
%!   gpu_tiled_reset ();
%!   A = make_operand ("csingle", 8192, 16384);
%!   B = make_operand ("csingle", 16384, 8192);
%!   check_default (A, B, "split complex single 8192x16384x8192");
%!   assert (pieces (), 2);
%!   B(3000, 6000) = complex (NaN, 2);
%!   C = gpu_tiled_mtimes (A, B);
%!   check_parts (A, B, C, [10, randi(8192, 1, 4)], "NaN in one band's B");
%!   B(3000, 6000) = 1;  A(10, 9000) = complex (Inf, 1);
%!   C = gpu_tiled_mtimes (A, B);
%!   check_parts (A, B, C, [10, randi(8192, 1, 4)], "Inf in the shared A");
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_SPLIT");
%! end_unwind_protect
%!testif ; gpu
%! ## complex products whose k is too short for pieces take their first
%! ## panel in blocks of A's rows as they arrive (quarters of m in whole
%! ## tiles, the last shorter at m = 3001 and 4500); products of 2 or more panels
%! ## stream the last one in narrower sub-panels where those still fill
%! ## the GPU (4500 rows: 512 columns on a 132-SM Hopper, the last panel
%! ## at least 1024 wide at n = 8192); every class pair that makes a
%! ## complex product (a complex double A times a real B as the real
%! ## product of A's storage), and doubles for the sub-panels after pieces
%! ## of k
%! for s = {"double", "double", [4500 600 8192];
%!          "cdouble", "cdouble", [4500 600 8192];
%!          "double", "cdouble", [3001 1000 2816];
%!          "cdouble", "double", [3001 1000 2816];
%!          "csingle", "csingle", [3001 1000 2816];
%!          "single", "csingle", [3001 1000 2816]}'
%!   [ca, cb, d] = s{:};
%!   A = make_operand (ca, d(1), d(2));
%!   B = make_operand (cb, d(2), d(3));
%!   check_default (A, B, sprintf ("%s * %s, %dx%dx%d", ca, cb, d));
%! endfor
%! ## an Inf and a NaN in one block of rows: the product runs again, each
%! ## block waiting for its operands' flags
%! A = make_operand ("cdouble", 3001, 1000);
%! B = make_operand ("cdouble", 1000, 2816);
%! A(1000, 7) = complex (Inf, 1);  B(5, 2000) = complex (2, NaN);
%! C = gpu_tiled_mtimes (A, B);
%! check_parts (A, B, C, [1:5, 990:1010, 2990:3001], "Inf and NaN in blocks of rows");
%!testif ; gpu
%! ## complex products whose panel 0 takes no pieces of k, in panels a
%! ## third of n or wider, go in eighths of n in whole tiles, no narrower
%! ## than two (2047x1999x2049: 6 panels of 384, the last of 129), counted
%! ## in eighths_products: every class pair that makes a complex double
%! ## product, on one device and split over the devices where there are
%! ## several (bands of about 1024 columns: panels of 256), but a complex
%! ## A times a real B, a real product of A's storage; complex single
%! ## too, which on Hopper stays on kernel 11 in its wider panels (not
%! ## asserted either way: without kernel 11 it may go in eighths); C
%! ## poisoned, so that a column no panel wrote shows in every checked row
%! eighths = @() sum ([gpu_tiled_info().devices.eighths_products]);
%! splits = {""};
%! if (numel (gpu_tiled_devices ()) > 1)
%!   splits{end+1} = "always";
%! endif
%! unwind_protect
%!   for split = splits
%!     setenv ("GPU_TILED_SPLIT", split{1});
%!     gpu_tiled_reset ();
%!     for s = {"cdouble", "cdouble"; "double", "cdouble"; "cdouble", "double";
%!              "csingle", "csingle"}'
%!       [ca, cb] = s{:};
%!       what = sprintf ("%s * %s, 2047x1999x2049, split '%s'", ca, cb, split{1});
%!       A = make_operand (ca, 2047, 1999);  B = make_operand (cb, 1999, 2049);
%!       before = eighths ();
%!       check_default (A, B, what);
%!       if (strcmp (cb, "double"))   # a real product of A's storage
%!         assert (eighths () == before, "%s: in eighths", what);
%!       else
%!         assert (strcmp (ca, "csingle") || eighths () > before,
%!                 "%s: not in eighths", what);
%!       endif
%!     endfor
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_SPLIT");
%! end_unwind_protect
%!testif ; gpu
%! ## complex single products on kernel 11 whose C is 1.25 times their
%! ## operands' bytes or more take their first panel in blocks of A's rows
%! ## as they arrive (quarters of m in whole tiles: 768 at 3001, the last
%! ## 697; C 2.7 times the operands at 3001x700x5003),
%! ## counted in rows_products; the squares take it whole after all of A
%! ## (each block's run would slice B's panel again).  Every class pair
%! ## that makes a complex single product, C poisoned, one device (a
%! ## split's bands share A: no blocks of rows), every product on kernel
%! ## 11 where it can run (GPU_TILED_EMULATE=always; off it complex
%! ## products take blocks of rows either way: not asserted).
%! rows = @() sum ([gpu_tiled_info().devices.rows_products]);
%! d = gpu_tiled_devices ();
%! setenv ("GPU_TILED_EMULATE", "always");
%! unwind_protect
%!   gpu_tiled_devices (d(1));
%!   gpu_tiled_reset ();
%!   for s = {"csingle", "csingle", [3001 700 5003], true;
%!            "single", "csingle", [3001 700 5003], true;
%!            "csingle", "single", [3001 700 5003], true;
%!            "double", "csingle", [3001 700 5003], true;
%!            "csingle", "csingle", [2047 1999 2049], false}'
%!     [ca, cb, dims, want] = s{:};
%!     what = sprintf ("%s * %s, %dx%dx%d", ca, cb, dims);
%!     A = make_operand (ca, dims(1), dims(2));
%!     B = make_operand (cb, dims(2), dims(3));
%!     before = rows ();
%!     check_default (A, B, what);
%!     if (emu)
%!       assert ((rows () > before) == want, "%s: %d in blocks of rows", what,
%!               rows () - before);
%!     endif
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_EMULATE");
%! end_unwind_protect
%!testif ; gpu
%! ## a complex double A's blocks of rows go straight from its lock (the
%! ## second call after a reset, a loop's) where a column's part is 4 KiB
%! ## or more and at most 8 times as far from the next (quarters of m in
%! ## whole tiles: 512 rows at m = 1600, the last 64 rows staged; 768 at
%! ## 3001), staged in the first call: the same bits both ways, every
%! ## element written (C poisoned), against double complex.  B complex
%! ## with k of 600 (too short for pieces: blocks of rows, counted in
%! ## rows_products); in the second call a copy of B at a new address,
%! ## seen for the first time and so staged, so that the operand read
%! ## straight is A (a real B would make the product a real one of A's
%! ## storage, read straight whole).  One device (a split's bands sharing
%! ## A take no blocks of rows).
%! d = gpu_tiled_devices ();
%! rows = @() sum ([gpu_tiled_info().devices.rows_products]);
%! setenv ("GPU_TILED_LOCK_OPERANDS", "1");
%! unwind_protect
%!   gpu_tiled_devices (d(1));
%!   for s = {[1600 600 2049], [3001 600 2816]}
%!     m = s{1}(1);  k = s{1}(2);  n = s{1}(3);
%!     A = make_operand ("cdouble", m, k);  B = make_operand ("cdouble", k, n);
%!     gpu_tiled_reset ();
%!     C1 = gpu_tiled_mtimes (A, B);
%!     B2 = B + 0;
%!     C2 = gpu_tiled_mtimes (A, B2);
%!     assert (gpu_tiled_info ().operands_direct >= 1);
%!     assert (rows () >= 2, "%dx%dx%d: %d in blocks of rows", m, k, n, rows ());
%!     assert (! any (isnan (C2(:))));
%!     assert (isequal (C1, C2), "%dx%dx%d: staged and straight differ", m, k, n);
%!     check_parts (A, B, C2, unique ([1:300, m-300:m]), "A's rows straight");
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_LOCK_OPERANDS");
%! end_unwind_protect

%!testif ; gpu
%! ## tall products of every kind (A of 30000 to 70000 rows, C of 97 to 300
%! ## columns: panels of 128 columns, complex ones with their first panel
%! ## in blocks of rows): ragged rows and columns, every tile
%! for s = {"single", "single", [70001 300 200];
%!          "double", "double", [50003 257 131];
%!          "double", "single", [40001 500 100];
%!          "csingle", "csingle", [30001 200 150];
%!          "single", "cdouble", [30001 300 97]}'
%!   [ca, cb, d] = s{:};
%!   check_pair (ca, cb, d(1), d(2), d(3));
%! endfor

%!testif ; gpu
%! ## larger than the device memory allowed: blocks of whole columns of C
%! ## (A sent again for each), or where A itself does not fit, bands of
%! ## rows too; every class
%! setenv ("GPU_TILED_DEVICE_LIMIT", "40000000");
%! unwind_protect
%!   gpu_tiled_reset ();
%!   for cls = {"single", "double", "csingle", "cdouble"}
%!     A = make_operand (cls{1}, 2000, 1500);
%!     B = make_operand (cls{1}, 1500, 2500);
%!     check_default (A, B, cls{1});
%!     assert ([gpu_tiled_info().devices.cached_device_memory] <= 40e6);
%!   endfor
%!   check_default (randn (6000, 2000, "single"), randn (2000, 900, "single"),
%!                  "rows cut");
%!   check_default (randn (2000, 3000), single (randn (3000, 900)), "mixed");
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_DEVICE_LIMIT");
%! end_unwind_protect
%!testif ; gpu && numel (gpu_tiled_devices ()) > 1
%! ## split over two devices: by columns (n >= m) and by rows, every class;
%! ## both devices hold buffers afterwards (GPU_TILED_SPLIT=always: these
%! ## shapes are too small for a split to pay)
%! devs = gpu_tiled_devices ();
%! setenv ("GPU_TILED_SPLIT", "always");
%! gpu_tiled_reset ();
%! for cls = {"single", "double", "csingle", "cdouble"}
%!   check_default (make_operand (cls{1}, 2100, 1500),
%!                  make_operand (cls{1}, 1500, 3100), ["columns ", cls{1}]);
%!   check_default (make_operand (cls{1}, 3300, 1500),
%!                  make_operand (cls{1}, 1500, 1700), ["rows ", cls{1}]);
%! endfor
%! ## complex double bands (Gauss's three on kernel 9) whose k is too short
%! ## for pieces leave their checks in a device word too: an Inf in the
%! ## shared A and a NaN in B's columns of the second band, and the bands'
%! ## C is written again, A not shared
%! A = make_operand ("cdouble", 2100, 1500);
%! B = make_operand ("cdouble", 1500, 3100);
%! A(7, 800) = complex (Inf, 1);  B(20, 2900) = complex (NaN, 2);
%! check_parts (A, B, gpu_tiled_mtimes (A, B), [7, randi(2100, 1, 6)],
%!              "split complex double, Inf and NaN");
%! d = gpu_tiled_info ().devices;
%! assert ([d(devs(1:2) + 1).cached_device_memory] > 0);
%! ## twice more: bands now sized by the speeds measured
%! for i = 1:2
%!   check_default (randn (2500, 2000, "single"), randn (2000, 4500, "single"),
%!                  "measured bands");
%! endfor
%! unsetenv ("GPU_TILED_SPLIT");
%! gpu_tiled_reset ();
%!testif ; gpu && numel (gpu_tiled_devices ()) > 1
%! ## a tall product (m > n) whose split by rows would not pay (each band
%! ## would take all of B through the host) splits by columns between
%! ## devices that reach each other, A shared, by the rule's own choice
%! ## (not forced): 12000x6000x4000 single after a reset (C staged); both
%! ## devices hold buffers after it, against double on sampled rows.  Two
%! ## devices that do not reach each other run it on one.
%! devs = gpu_tiled_devices ();
%! d = gpu_tiled_info ().devices;
%! peers = (any (d(devs(1) + 1).peers == devs(2))
%!          && any (d(devs(2) + 1).peers == devs(1)));
%! unwind_protect
%!   gpu_tiled_devices (devs(1:2));
%!   gpu_tiled_reset ();
%!   check_default (randn (12000, 6000, "single"),
%!                  randn (6000, 4000, "single"), "tall, split by the rule");
%!   d = gpu_tiled_info ().devices;
%!   used = [d(devs(1:2) + 1).cached_device_memory] > 0;
%!   assert (isequal (used, [true, peers]), "devices used: %s, peers %d",
%!           mat2str (used), peers);
%! unwind_protect_cleanup
%!   restore_defaults ();
%! end_unwind_protect
%!testif ; gpu && numel (gpu_tiled_devices ()) > 1
%! ## split by columns, the bands' first panels in pieces of k on Hopper,
%! ## each band taking its own pieces and the other's (whose columns that
%! ## band hands on) in turn: k of 7777 in parts of 3888 and 3889 columns
%! ## puts a piece across the parts' boundary, and the last piece is
%! ## short; single and double, and complex double (Gauss's three on
%! ## kernel 9, in pieces where panel 0's tiles fill the GPU: 8449 rows, 67
%! ## tiles, two tiles of columns or more; k of 4100, a last piece of 4;
%! ## its checks left in a device word: an Inf in the other band's part
%! ## of A and a NaN in B, and such a band's C is written again, A not
%! ## shared); the same bits call after call (bands alike: each call
%! ## after a reset, so no speeds measured)
%! hopper = strcmp (gpu_tiled_info ().compute_capability, "9.0");
%! pieces = @() sum ([gpu_tiled_info().devices.piece_products]);
%! setenv ("GPU_TILED_SPLIT", "always");
%! unwind_protect
%!   for s = {"single", 3001, 7777; "double", 3001, 7777; "cdouble", 8449, 4100}'
%!     [cls, m, k] = s{:};
%!     gpu_tiled_reset ();
%!     A = make_operand (cls, m, k);
%!     B = make_operand (cls, k, 4097);
%!     check_default (A, B, ["bands in pieces, " cls]);
%!     assert (pieces () > 0 || ! hopper, "%s: no band in pieces", cls);
%!     gpu_tiled_reset ();
%!     C = gpu_tiled_mtimes (A, B);
%!     gpu_tiled_reset ();
%!     assert (isequal (C, gpu_tiled_mtimes (A, B)),
%!             "%s: other bits on another call", cls);
%!   endfor
%!   before = pieces ();
%!   A(10, 3000) = complex (Inf, 1);  B(3100, 7) = complex (NaN, 2);
%!   C = gpu_tiled_mtimes (A, B);
%!   check_parts (A, B, C, [10, randi(m, 1, 6)],
%!                "bands in pieces, complex double, Inf and NaN");
%!   assert (pieces () > before || ! hopper, "complex double: no pieces");
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_SPLIT");
%! end_unwind_protect
%!testif ; gpu && numel (gpu_tiled_devices ()) > 1
%! ## one of two devices fails in the middle of a split call: an error that
%! ## names it, every device's buffers freed, and the next call works
%! devs = gpu_tiled_devices ();
%! A = randn (2500, 2000, "single");  B = randn (2000, 4500, "single");
%! setenv ("GPU_TILED_SPLIT", "always");
%! setenv ("GPU_TILED_TEST_FAIL", num2str (devs(2)));
%! unwind_protect
%!   gpu_tiled_reset ();
%!   fail ("gpu_tiled_mtimes (A, B)",
%!         sprintf ("device %d failed in the middle of the call", devs(2)));
%!   d = gpu_tiled_info ().devices;
%!   assert ([d(devs(1:2) + 1).cached_device_memory], [0 0]);
%!   unsetenv ("GPU_TILED_TEST_FAIL");
%!   check_default (A, B, "after a device failed");
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_TEST_FAIL", "GPU_TILED_SPLIT");
%! end_unwind_protect
%!testif ; gpu
%! ## a device out of memory in the middle of a call (GPU_TILED_TEST_FAIL
%! ## D:memory) goes on in blocks: the product is right
%! A = randn (1500, 1400, "single");  B = randn (1400, 1300, "single");
%! devs = gpu_tiled_devices ();
%! setenv ("GPU_TILED_TEST_FAIL", sprintf ("%d:memory", devs(1)));
%! unwind_protect
%!   gpu_tiled_reset ();
%!   check_default (A, B, "out of memory in the middle of the call");
%!   assert (gpu_tiled_info ().devices(devs(1) + 1).memory_retries, 1);
%!   check_default (A, B, "the call after");
%!   assert (gpu_tiled_info ().devices(devs(1) + 1).memory_retries, 1);
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_TEST_FAIL");
%! end_unwind_protect
%!testif ; gpu && numel (gpu_tiled_devices ()) > 1
%! ## one of two devices runs out of memory in the middle of a split call,
%! ## after its part of A may have been copied from it: its band gives up
%! ## that part (the other device takes it through the host) and runs
%! ## again on the other device; the product is right, and the next call
%! ## works
%! devs = gpu_tiled_devices ();
%! setenv ("GPU_TILED_SPLIT", "always");
%! unwind_protect
%!   for c = {"single", "double"}
%!     A = randn (2500, 2000, c{1});  B = randn (2000, 4500, c{1});
%!     setenv ("GPU_TILED_TEST_FAIL", sprintf ("%d:memory", devs(2)));
%!     gpu_tiled_reset ();
%!     check_default (A, B, [c{1} ", a band out of memory midway"]);
%!     d = gpu_tiled_info ().devices;
%!     assert ([d(devs(1:2) + 1).memory_retries], [0 1]);
%!     unsetenv ("GPU_TILED_TEST_FAIL");
%!     check_default (A, B, [c{1} ", the call after"]);
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_TEST_FAIL", "GPU_TILED_SPLIT");
%! end_unwind_protect
%!testif ; gpu && numel (gpu_tiled_devices ()) > 1
%! ## each device alone, then both, give the same class and accuracy
%! devs = gpu_tiled_devices ();
%! A = complex (randn (1800, 1200), randn (1800, 1200));
%! B = randn (1200, 2600);
%! setenv ("GPU_TILED_SPLIT", "always");
%! unwind_protect
%!   for d = devs(1:2)
%!     gpu_tiled_devices (d);
%!     check_default (A, B, sprintf ("device %d", d));
%!   endfor
%!   gpu_tiled_devices ([]);
%!   gpu_tiled_reset ();
%!   check_default (A, B, "both");
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_SPLIT");
%! end_unwind_protect
%!## Seconds at v on the crossover's line through the points (x, t), as
%!## gt_crossover.c draws it: straight between points, the last segment's
%!## rate past the last point (the last point's from zero if it falls),
%!## the first time before the first
%!function y = on_line (x, t, v)
%!  if (v <= x(1))
%!    y = t(1);
%!  elseif (v <= x(end))
%!    y = interp1 (x, t, v);
%!  elseif (t(end) > t(end-1))
%!    y = t(end) + (v - x(end)) * (t(end) - t(end-1)) / (x(end) - x(end-1));
%!  else
%!    y = t(end) * v / x(end);
%!  endif
%!endfunction
%!testif ; gpu
%! ## the crossover: without a tile, tiny products run on Octave's own *
%! ## (the same bits); a tile, or a product over 16 MiB or well past the
%! ## crossover, runs on the GPU
%! unsetenv ("GPU_TILED_CROSSOVER");
%! unwind_protect
%!   gpu_tiled_reset ();
%!   cls = {"single", "double", "csingle", "cdouble"};
%!   for t = 1:4
%!     A = make_operand (cls{t}, 5, 4);  B = make_operand (cls{t}, 4, 3);
%!     assert (gpu_tiled_mtimes (A, B), A * B);
%!   endfor
%!   x = gpu_tiled_info ().crossover;
%!   assert ([x.measured], true (1, 4));
%!   assert ([x.host_products], ones (1, 4));
%!   assert (all ([x.gpu_fixed_seconds] > 0 & [x.host_flops_per_second] > 0));
%!   ## products of every class on both sides of its crossover go where
%!   ## the lines through the measured points say (skipping any the two
%!   ## lines price within 2% of each other)
%!   for t = 1:4
%!     e = x(t);
%!     assert (e.sizes([1 end]), [4 256]);
%!     assert (all (diff (e.sizes) > 0));
%!     assert (all (e.host_seconds > 0 & e.gpu_seconds > 0));
%!     es = [4 8 8 16](t);  cf = [2 2 8 8](t);
%!     for s = [0.5 0.8 1.25 2] * e.square_n
%!       mkn = max (2, round (s * [1 0.7 1.3]));
%!       bytes = es * (mkn(1:2) * mkn(2:3)' + mkn(1) * mkn(3));
%!       h = on_line (cf * e.sizes .^ 3, e.host_seconds, cf * prod (mkn));
%!       g = on_line (3 * es * e.sizes .^ 2, e.gpu_seconds, bytes);
%!       if (abs (h - g) < 0.02 * g)
%!         continue;
%!       endif
%!       h = h + Inf * (bytes > 16 * 2^20);   # never to the host
%!       A = make_operand (cls{t}, mkn(1), mkn(2));
%!       B = make_operand (cls{t}, mkn(2), mkn(3));
%!       before = gpu_tiled_info ().crossover(t).host_products;
%!       C = gpu_tiled_mtimes (A, B);
%!       on_host = gpu_tiled_info ().crossover(t).host_products - before;
%!       assert (on_host, double (h < g), sprintf ("%s %dx%dx%d", cls{t}, mkn));
%!       if (on_host)
%!         assert (C, A * B);
%!       endif
%!     endfor
%!   endfor
%!   on_host = [gpu_tiled_info().crossover.host_products];
%!   C = gpu_tiled_mtimes (A, B, 8);
%!   check_default (randn (1000, "single"), randn (1000, "single"), "1000^3");
%!   check_default (randn (1500, "single"), randn (1500, "single"), "1500^3");
%!   assert ([gpu_tiled_info().crossover.host_products], on_host);
%! unwind_protect_cleanup
%!   setenv ("GPU_TILED_CROSSOVER", "off");
%!   gpu_tiled_reset ();
%! end_unwind_protect
%!testif ; gpu
%! ## vector products over 16 MiB, the crossover on (a row times a matrix,
%! ## then a matrix times a column): each kind's first two calls on the
%! ## GPU, the third on Octave's *, the fourth on the side whose best call
%! ## moved more bytes per second (gpu_tiled_info's rates); every result
%! ## against double; a tile given: the GPU, untimed
%! unsetenv ("GPU_TILED_CROSSOVER");
%! unwind_protect
%!   gpu_tiled_reset ();
%!   for kind = 1:2
%!     for call = 1:4
%!       if (kind == 1)
%!         A = randn (1, 2^20, "single");  B = randn (2^20, 8, "single");
%!       else
%!         A = randn (2^20, 8, "single");  B = randn (8, 1, "single");
%!       endif
%!       x0 = gpu_tiled_info ().crossover(1);
%!       C = gpu_tiled_mtimes (A, B);
%!       x = gpu_tiled_info ().crossover(1);
%!       host = call == 3 || (call == 4 && x0.vector_host_bytes_per_second(kind)
%!                                        > x0.vector_gpu_bytes_per_second(kind));
%!       what = sprintf ("kind %d, call %d", kind, call);
%!       assert (x.host_products - x0.host_products == host, what);
%!       calls = [min(call, 2) + (call == 4 && ! host), ...
%!                (call >= 3) + (call == 4 && host)];
%!       assert (isequal ([x.vector_gpu_calls(kind), x.vector_host_calls(kind)],
%!                        calls), what);
%!       check_rows (A, B, C, what);
%!     endfor
%!     assert (x.vector_gpu_bytes_per_second(kind) > 0
%!             && x.vector_host_bytes_per_second(kind) > 0);
%!   endfor
%!   x0 = gpu_tiled_info ().crossover(1);
%!   C = gpu_tiled_mtimes (A, B, 32);
%!   x = gpu_tiled_info ().crossover(1);
%!   assert ([x.host_products, x.vector_gpu_calls, x.vector_host_calls],
%!           [x0.host_products, x0.vector_gpu_calls, x0.vector_host_calls]);
%!   check_rows (A, B, C, "a tile given");
%! unwind_protect_cleanup
%!   setenv ("GPU_TILED_CROSSOVER", "off");
%!   gpu_tiled_reset ();
%! end_unwind_protect
## ---- results in memory a freed result left (the result heap) ----
%!testif ; heap
%! ## Results of over 32 MiB come from the heap, and a freed one's memory is
%! ## the next one's.  A real array of Octave's own of the same bytes,
%! ## filled with NaN and freed in between, leaves NaN there (it takes the
%! ## memory the heap keeps), so an element a product leaves unwritten
%! ## shows; the sampled rows of C itself against a double product.  Each
%! ## class, and in blocks of C (a device limit).
%! setenv ("GPU_TILED_RESULT_HEAP", "1073741824");
%! unwind_protect
%!   for limit = {"", "40000000"}
%!     setenv ("GPU_TILED_DEVICE_LIMIT", limit{1});
%!     gpu_tiled_reset ();
%!     assert (gpu_tiled_info ().result_heap, 2^30);
%!     for p = {"single", 3001, 700, 3003; "double", 2101, 500, 2103;
%!              "csingle", 2101, 300, 2103; "cdouble", 1501, 300, 1503}'
%!       [cls, m, k, n] = p{:};
%!       what = sprintf ("%s %dx%dx%d, limit '%s'", cls, m, k, n, limit{1});
%!       reused = gpu_tiled_info ().result_heap_reused;
%!       for round = 1:2
%!         C = gpu_tiled_mtimes (make_operand (cls, m, k),
%!                               make_operand (cls, k, n));
%!         cl = class (C);
%!         elems = numel (C) * (1 + iscomplex (C));
%!         clear C;
%!         X = NaN (elems, 1, cl);
%!         clear X;
%!         A = make_operand (cls, m, k);  B = make_operand (cls, k, n);
%!         C = gpu_tiled_mtimes (A, B);
%!         assert (! any (isnan (C(:))), "%s: unwritten elements", what);
%!         i = rows_to_check (m, k, n);
%!         R = double (A(i, :)) * double (B);
%!         bound = 4 * k * eps (cl) * norm (double (A(i, :)), "fro") ...
%!                 * norm (double (B), "fro");
%!         err = norm (double (C(i, :)) - R, "fro");
%!         assert (err <= bound, "%s: error %g above %g", what, err, bound);
%!         clear C;
%!       endfor
%!       assert (gpu_tiled_info ().result_heap_reused > reused,
%!               "%s: no result found its memory there", what);
%!     endfor
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_RESULT_HEAP", "GPU_TILED_DEVICE_LIMIT");
%! end_unwind_protect
%!testif ; heap
%! ## A result whose memory comes back (a loop's, freed, its operands the
%! ## same) is locked from its second time on, and the GPU writes it
%! ## straight (results_direct); NaN left in the memory between calls
%! ## shows an element left unwritten.  Then, under GPU_TILED_TEST_STALE,
%! ## the first product written straight has the pages of 16 of its marks
%! ## dropped under the lock, as a trimmed heap would: the check finds
%! ## them (a page is counted once for each copy whose part of C it holds:
%! ## a block of rows, a band), all of C is copied again (the product is
%! ## right) and the range unlocked, which the next round locks again.
%! ## Column panels (the square), blocks of rows (complex, and the tall
%! ## single in one panel of them); on one device, and split over two
%! ## where there are two (bands by columns, and by rows for the tall one).
%! splits = {""};
%! if (numel (gpu_tiled_devices ()) > 1)
%!   splits{end+1} = "always";
%! endif
%! ## a budget the earlier tests' arrays leave room in (past it, results
%! ## are fresh memory each call, never locked)
%! setenv ("GPU_TILED_RESULT_HEAP", "4294967296");
%! unwind_protect
%!   for split = splits
%!     setenv ("GPU_TILED_SPLIT", split{1});
%!     for p = {"single", 3001, 700, 3003; "cdouble", 1501, 300, 1503;
%!              "single", 100000, 256, 256}'
%!       [cls, m, k, n] = p{:};
%!       A = make_operand (cls, m, k);  B = make_operand (cls, k, n);
%!       for stale = [0 1]
%!         setenv ("GPU_TILED_TEST_STALE", num2str (stale));
%!         gpu_tiled_reset ();
%!         what = sprintf ("%s %dx%dx%d, split '%s', stale %d", cls, m, k, n,
%!                         split{1}, stale);
%!         [s, bytes] = loop_straight (A, B, what);
%!         assert (s.results_locked >= bytes, "%s: its memory not locked",
%!                 what);
%!         sp = s.results_stale_pages;
%!         assert (sp >= 16 * stale && sp <= 64 * stale,
%!                 "%s: %d stale pages found", what, sp);
%!       endfor
%!     endfor
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_RESULT_HEAP", "GPU_TILED_TEST_STALE",
%!                     "GPU_TILED_SPLIT");
%! end_unwind_protect
%!testif ; heap
%! ## A real double product whose C outweighs its operands (3001x1000x2816:
%! ## C 1.45 times A and B), not tall, takes its first panel in blocks of
%! ## A's rows (rows_products) once C goes straight into its locked memory
%! ## (a loop's freed result, from the second call on), in pieces of k
%! ## before; a single one of that shape, and a double square (C half its
%! ## operands), never: exactly the calls whose C went straight.  One
%! ## device (a split would cut the product in bands of their own
%! ## shapes).  NaN left in the memory between calls shows an element left
%! ## unwritten; the sampled rows against a double product.
%! d = gpu_tiled_devices ();
%! setenv ("GPU_TILED_RESULT_HEAP", "4294967296");
%! unwind_protect
%!   gpu_tiled_devices (d(1));
%!   for p = {"double", 3001, 1000, 2816, true;
%!            "single", 3001, 1000, 2816, false;
%!            "double", 2047, 1999, 2049, false}'
%!     [cls, m, k, n, want] = p{:};
%!     what = sprintf ("%s %dx%dx%d", cls, m, k, n);
%!     A = make_operand (cls, m, k);  B = make_operand (cls, k, n);
%!     gpu_tiled_reset ();
%!     rows0 = sum ([gpu_tiled_info().devices.rows_products]);
%!     s = loop_straight (A, B, what);
%!     rows = sum ([s.devices.rows_products]) - rows0;
%!     assert (rows == want * s.results_direct,
%!             "%s: %d in blocks of rows, %d written straight", what, rows,
%!             s.results_direct);
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_RESULT_HEAP");
%! end_unwind_protect
%!testif ; heap
%! ## Under GPU_TILED_LOCK_OPERANDS=1, operands of 4 MiB or more that come
%! ## back (a loop's) are locked from their second call on, and the uploads
%! ## read them straight
%! ## (operands_direct), after a probe of their pages that writes a word
%! ## of each and puts it back: the operands must come out of every call
%! ## as they went in, and the products right.  Then, under
%! ## GPU_TILED_TEST_STALE, the first call that finds them locked has 16
%! ## pages of each replaced under the lock (by copies of themselves, as
%! ## an array made again at the same address): the probe, once the
%! ## uploads have read them, finds them, the call runs the product again
%! ## with them staged (so no product counts as read straight), and the
%! ## operands are still as they were.  Tall
%! ## (A alone that large), square double with both, single with both
%! ## between 4 and 16 MiB, the same under 64 MiB in all (a mid-sized
%! ## call, in panels side by side; a split cuts B at column 979, clear
%! ## of the replaced pages, which begin at its middle), complex single, a
%! ## product of A with itself, single times double (the double B is
%! ## rounded in the host copy: never straight), and the last result as
%! ## the next operand; on one device, and split over two where there are.
%! ## (Each shape has an operand whose device copy is one plain copy, or
%! ## rows of 32 KiB: narrower rows of a 2-D copy always go staged.)
%! splits = operands_locked_splits ();
%! unwind_protect
%!   for split = splits
%!     setenv ("GPU_TILED_SPLIT", split{1});
%!     for p = {"single", "single", 100000, 256, 256, 1;
%!              "double", "double", 3001, 800, 3003, 2;
%!              "single", "single", 3000, 700, 5001, 2;
%!              "single", "single", 2001, 1100, 2003, 2;
%!              "csingle", "csingle", 2001, 1100, 2003, 2;
%!              "double", "same", 2002, 2002, 2002, 1;
%!              "single", "double", 2004, 2200, 2008, 1}'
%!       [ca, cb, m, k, n, straight] = p{:};
%!       A = make_operand (ca, m, k);
%!       if (strcmp (cb, "same"))
%!         B = A;
%!       else
%!         B = make_operand (cb, k, n);
%!       endif
%!       ## copies of their own (A0 = A alone shares A's memory)
%!       A0 = A;  A0(1) = A0(1);  B0 = B;  B0(1) = B0(1);
%!       for stale = [0 1]
%!         setenv ("GPU_TILED_TEST_STALE", num2str (stale));
%!         gpu_tiled_reset ();
%!         what = sprintf ("%s x %s %dx%dx%d, split '%s', stale %d", ca, cb,
%!                         m, k, n, split{1}, stale);
%!         for round = 1:4
%!           C = gpu_tiled_mtimes (A, B);
%!           assert (isequal (A, A0) && isequal (B, B0),
%!                   "%s: an operand changed", what);
%!           check_rows (A0, B0, C, what);
%!           clear C;
%!         endfor
%!         s = gpu_tiled_info ();
%!         ## rounds 2-4 straight, but where a split goes by rows (m > n,
%!         ## the tall product): a band's A is a block of rows, read
%!         ## straight only where a column's part is 32 KiB or more (the
%!         ## tall product's bands, until C is locked: from round 2 where an
%!         ## earlier test left its memory in the heap, each band then takes
%!         ## blocks of 6272 rows); a range found stale is not locked again
%!         ## for 16 calls
%!         nd = s.operands_direct;
%!         assert ((stale && nd == 0)
%!                 || (! stale && (nd == 3
%!                                 || (m > n && ! isempty (split{1})))),
%!                 "%s: %d products read operands straight", what,
%!                 s.operands_direct);
%!         sp = s.operands_stale_pages;
%!         assert (sp == 16 * straight * stale, "%s: %d stale pages found",
%!                 what, sp);
%!       endfor
%!     endfor
%!     ## the last result as the next operand (A and B under 4 MiB, E a
%!     ## double, rounded in the host copy: C alone can be read straight;
%!     ## C * E wider than tall, so that a split goes by columns and each
%!     ## band reads C whole)
%!     gpu_tiled_reset ();
%!     setenv ("GPU_TILED_TEST_STALE", "0");
%!     A = make_operand ("single", 3000, 300);
%!     B = make_operand ("single", 300, 3000);
%!     E = make_operand ("double", 3000, 3100);
%!     R = double (A) * double (B);
%!     bound = 4 * 3300 * eps ("single") * norm (double (A), "fro") ...
%!             * norm (double (B), "fro") * norm (double (E), "fro");
%!     for round = 1:4
%!       C = gpu_tiled_mtimes (A, B);
%!       D = gpu_tiled_mtimes (C, E);
%!       assert (norm (double (D) - R * double (E), "fro") <= bound);
%!       clear C D;
%!     endfor
%!     assert (gpu_tiled_info ().operands_direct >= 1);
%!   endfor
%!   ## by default timed: a product that comes back runs its operands
%!   ## locked (from its second call, which locks them) and staged in
%!   ## turn, three timed calls each, then goes the faster way; the
%!   ## result is the same either way
%!   unsetenv ("GPU_TILED_LOCK_OPERANDS");
%!   gpu_tiled_reset ();
%!   A = make_operand ("single", 3000, 3000);
%!   A0 = A;  A0(1) = A0(1);
%!   for round = 1:12
%!     C = gpu_tiled_mtimes (A, A);
%!     assert (isequal (A, A0), "timed, round %d: the operand changed", round);
%!     check_rows (A0, A0, C, sprintf ("timed, round %d", round));
%!     clear C;
%!   endfor
%!   s = gpu_tiled_info ();
%!   assert (s.operands_lock, "timed");
%!   assert (s.operands_chosen_locked + s.operands_chosen_staged, 1);
%!   assert (s.operands_direct >= 3 && s.operands_direct <= 11,
%!           "timed: %d products read straight", s.operands_direct);
%!   ## GPU_TILED_LOCK_OPERANDS=0: never
%!   setenv ("GPU_TILED_LOCK_OPERANDS", "0");
%!   gpu_tiled_reset ();
%!   for round = 1:4
%!     C = gpu_tiled_mtimes (A, A);
%!     clear C;
%!   endfor
%!   s = gpu_tiled_info ();
%!   assert (s.operands_lock, "never");
%!   assert (s.operands_direct, 0);
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_LOCK_OPERANDS", "GPU_TILED_RESULT_HEAP",
%!                     "GPU_TILED_TEST_STALE", "GPU_TILED_SPLIT");
%! end_unwind_protect
%!testif ; heap
%! ## Operands that share memory: shallow slices of one array (Octave
%! ## shares a column range's data with the array), both locked from
%! ## their second call: the probe of A writes into bytes that B's uploads
%! ## read too, so it must wait for B's uploads.  The products right and
%! ## the array unchanged, call after call, on one device and split.
%! splits = operands_locked_splits ();
%! unwind_protect
%!   for split = splits
%!     setenv ("GPU_TILED_SPLIT", split{1});
%!     gpu_tiled_reset ();
%!     X = make_operand ("single", 3001, 4400);
%!     X0 = X;  X0(1) = X0(1);
%!     for round = 1:4
%!       ## columns 1001-3001 in both; then the same first element
%!       D = gpu_tiled_mtimes (X(:, 1:3001), X(:, 1001:3500));
%!       E = gpu_tiled_mtimes (X(:, 1:3001), X(:, 1:2500));
%!       what = sprintf ("split '%s', round %d", split{1}, round);
%!       assert (isequal (X, X0), "%s: the array changed", what);
%!       check_rows (X0(:, 1:3001), X0(:, 1001:3500), D, [what ", D"]);
%!       check_rows (X0(:, 1:3001), X0(:, 1:2500), E, [what ", E"]);
%!       clear D E;
%!     endfor
%!   endfor
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_LOCK_OPERANDS", "GPU_TILED_RESULT_HEAP",
%!                     "GPU_TILED_SPLIT");
%! end_unwind_protect

## ---- Kernel 11: single products on the INT8 tensor cores ----
%!## An operand of one of the accuracy table's input classes; the scaled
%!## class scales rows (A) or columns (B, by_col) by up to 2^+-40.
%!function X = emulation_operand (cls, r, c, by_col)
%!  X = randn (r, c);
%!  switch (cls)
%!    case "uniform"
%!      X = rand (r, c);
%!    case "logunif"
%!      X = 2 .^ (60 * rand (r, c) - 30) .* sign (randn (r, c));
%!    case "scaled"
%!      if (by_col)
%!        X = X .* 2 .^ randi ([-40, 40], 1, c);
%!      else
%!        X = X .* 2 .^ randi ([-40, 40], r, 1);
%!      endif
%!    case "fewhuge"
%!      i = randperm (numel (X), ceil (numel (X) / 1024));
%!      X(i) *= 2^24;
%!  endswitch
%!  X = single (X);
%!endfunction

%!## C = A * B emulated (the count of emulated products goes up by one),
%!## no worse than Octave's own single product against a double one (to
%!## 10%), or within 1.5x of the exact product rounded to single (the
%!## least error a single C can have), and norm-wise.  Where a few entries
%!## of C dwarf the rest ("fewhuge") both products sit near that least
%!## error on those few, and the first test alone fails by chance: in 150
%!## draws at 129x1000x257 the emulation's error was 0.88x Octave's at the
%!## median, over 1.10x in 3 draws (1.13x at most), and 1.28x the least
%!## error at most.
%!function check_emulated (A, B, what, in_blocks)
%!  before = gpu_tiled_info ().emulation.products;
%!  C = gpu_tiled_mtimes (A, B);
%!  e = gpu_tiled_info ().emulation;
%!  if (nargin < 4)
%!    assert (e.products == before + 1, "%s: %d emulated", what,
%!            e.products - before);
%!  else   # one emulated product per block
%!    assert (e.products > before + 1, "%s: %d emulated", what,
%!            e.products - before);
%!  endif
%!  assert (e.last_moduli >= 7 && e.last_moduli <= 10, what);
%!  R = double (A) * double (B);
%!  err = norm (double (C) - R, "fro");
%!  err_host = norm (double (A * B) - R, "fro");
%!  err_least = norm (double (single (R)) - R, "fro");
%!  assert (err <= max (1.10 * err_host, 1.5 * err_least),
%!          "%s: error %g, Octave's single * %g, R rounded to single %g",
%!          what, err, err_host, err_least);
%!  bound = 4 * columns (A) * eps ("single") * norm (double (A), "fro") ...
%!          * norm (double (B), "fro");
%!  assert (err <= bound, "%s: error %g above %g", what, err, bound);
%!endfunction

%!testif ; emu
%! ## every input class, on shapes no tile divides (GPU_TILED_EMULATE=always:
%! ## wherever kernel 11 can run, fast or not)
%! setenv ("GPU_TILED_EMULATE", "always");
%! unwind_protect
%!   gpu_tiled_reset ();
%!   for cls = {"randn", "uniform", "logunif", "scaled", "fewhuge"}
%!     for s = [300 517 433; 129 1000 257; 513 2100 97]'
%!       A = emulation_operand (cls{1}, s(1), s(2), false);
%!       B = emulation_operand (cls{1}, s(2), s(3), true);
%!       check_emulated (A, B, sprintf ("%s %dx%dx%d", cls{1}, s));
%!     endfor
%!   endfor
%!   ## a row of subnormals is scaled like any other: C's row to one unit
%!   A = randn (200, 300, "single");  B = randn (300, 150, "single");
%!   A(4, :) *= 1e-40;
%!   check_emulated (A, B, "subnormal row");
%!   C = gpu_tiled_mtimes (A, B);
%!   R = double (A) * double (B);
%!   assert (max (abs (double (C(4, :)) - R(4, :))) <= realmin ("single") * eps ("single"));
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_EMULATE");
%! end_unwind_protect

%!testif ; emu
%! ## kernel 11's scratch (the residue planes) is part of its plan: under a
%! ## device memory limit the product goes through in blocks, each
%! ## emulated, and the device holds no more than the limit
%! setenv ("GPU_TILED_EMULATE", "always");
%! setenv ("GPU_TILED_DEVICE_LIMIT", "40000000");
%! unwind_protect
%!   gpu_tiled_reset ();
%!   A = emulation_operand ("randn", 2000, 1500, false);
%!   B = emulation_operand ("randn", 1500, 2500, true);
%!   check_emulated (A, B, "2000x1500x2500 in blocks", true);
%!   assert ([gpu_tiled_info().devices.cached_device_memory] <= 40e6);
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_EMULATE", "GPU_TILED_DEVICE_LIMIT");
%! end_unwind_protect

%!testif ; emu
%! ## where the scan declines, kernel 9 runs: Inf and NaN in the operands
%! ## (placed as * places them), and columns of A and rows of B scaled
%! ## apart, which no affordable number of moduli keeps in single precision
%! setenv ("GPU_TILED_EMULATE", "always");
%! unwind_protect
%!   gpu_tiled_reset ();
%!   A = randn (200, 300, "single");  B = randn (300, 150, "single");
%!   A(3, 7) = NaN;  A(5, 9) = Inf;  B(11, 4) = -Inf;
%!   C = gpu_tiled_mtimes (A, B);
%!   R = A * B;
%!   assert (isnan (C), isnan (R));
%!   assert (C(isinf (R)), R(isinf (R)));
%!   f = isfinite (R);
%!   assert (norm (double (C(f)) - double (R(f))) <= 1e-5 * norm (double (R(f))));
%!   assert (gpu_tiled_info ().emulation.declined, 1);
%!   A = randn (300, 400, "single");  B = randn (400, 200, "single");
%!   A(:, 1) *= 2^40;  B(2, :) *= 2^40;
%!   C = gpu_tiled_mtimes (A, B);
%!   e = gpu_tiled_info ().emulation;
%!   assert ([e.products, e.declined], [0, 2]);
%!   R = double (A) * double (B);
%!   assert (norm (double (C) - R, "fro") <= norm (double (A * B) - R, "fro"));
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_EMULATE");
%! end_unwind_protect

%!testif ; emu
%! ## The first panel of a real single product whose plain kernel 9 pieces
%! ## would not keep up with A's arrival goes in kernel 11's own pieces of
%! ## k (gt_plan_head_pieces), each scanned, sliced and multiplied on its
%! ## own, their sums carried in doubles: 1999 x 12000 x 5000 under
%! ## GPU_TILED_EMULATE=always, panels of 2048 columns on a 132-SM
%! ## Hopper (the model's choice there; elsewhere it may take other
%! ## pieces), 5 pieces of 2048 of k and a last of 1760; m odd, so the
%! ## combine's last rows are a partial group.  Rows of A scaled by up to
%! ## 2^+-40 (each piece has scales of its own); each element of sampled
%! ## rows within its own bound.  Then an Inf in A's third piece and a NaN
%! ## in B's fifth: exactly those two pieces decline and run on kernel 9
%! ## with the same sums (the panels after them decline too: A's row 7).
%! ## One device.
%! sms = gpu_tiled_info ().multiprocessors;
%! devs = gpu_tiled_devices ();
%! setenv ("GPU_TILED_EMULATE", "always");
%! unwind_protect
%!   gpu_tiled_devices (devs(1));
%!   gpu_tiled_reset ();
%!   A = emulation_operand ("scaled", 1999, 12000, false);
%!   B = emulation_operand ("randn", 12000, 5000, true);
%!   C = gpu_tiled_mtimes (A, B);
%!   e1 = gpu_tiled_info ().emulation;
%!   i = [7, 1999, randi(1999, 1, 8)];
%!   check_parts (A, B, C, i, "kernel 11's pieces");
%!   if (sms == 132)
%!     assert (e1.pieces, 6);
%!   endif
%!   A(7, 4500) = Inf;  B(8500, 3) = NaN;
%!   C = gpu_tiled_mtimes (A, B);
%!   e2 = gpu_tiled_info ().emulation;
%!   check_parts (A, B, C, i, "kernel 11's pieces, Inf and NaN");
%!   pieces = e2.pieces - e1.pieces;
%!   assert (pieces, e1.pieces);
%!   if (pieces > 0)   # the emulated pieces: all but the two
%!     assert (e2.products - e1.products, pieces - 2);
%!   endif
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_EMULATE");
%! end_unwind_protect

%!testif ; emu
%! ## a product streamed in panels keeps what kernel 11 made of A from one
%! ## panel to the next: A's scan always, its slices where the next panel
%! ## chooses as many moduli (both counted).  Column 1 of A is scaled up,
%! ## and row 1 of B down in B's last 3904 columns (first order) or its
%! ## first 4096 (second order, with an A of its own: what the first kept
%! ## must not reach it), so that the panels on either side of column 4096
%! ## choose different numbers of moduli: in each call some panel slices A
%! ## again and some keeps its slices, and the calls end on different
%! ## choices.  Then an Inf in a later panel of B: that panel declines and
%! ## runs on kernel 9, which uses the scratch, so the panel after it scans
%! ## A afresh (one more fresh scan than the same call without the Inf).
%! ## Panels of 2048 columns or fewer on a 132-SM Hopper, the first of them
%! ## perhaps in pieces of k.  One device: the panels of one band.
%! d = gpu_tiled_devices ();
%! setenv ("GPU_TILED_EMULATE", "always");
%! unwind_protect
%!   gpu_tiled_devices (d(1));
%!   gpu_tiled_reset ();
%!   m = 2048;  k = 1024;  n = 8000;  h = 4096;
%!   last = zeros (1, 2);
%!   for order = 1:2
%!     A = randn (m, k, "single");  A(:, 1) *= 2^11;
%!     B = randn (k, n, "single");
%!     cols = {h+1:n, 1:h}{order};
%!     B(1, cols) *= 2^-11;
%!     e0 = gpu_tiled_info ().emulation;
%!     C = gpu_tiled_mtimes (A, B);
%!     e = gpu_tiled_info ().emulation;
%!     scans = e.kept_scans - e0.kept_scans;
%!     slices = e.kept_slices - e0.kept_slices;
%!     assert (e.products - e0.products >= 3, "%d emulated", e.products - e0.products);
%!     assert (scans >= 2 && slices >= 1 && slices < scans,
%!             "order %d: %d scans and %d slices kept", order, scans, slices);
%!     last(order) = e.last_moduli;
%!     R = double (A) * double (B);
%!     err = norm (double (C) - R, "fro");
%!     assert (err <= 1.05 * norm (double (A * B) - R, "fro"));
%!     assert (err <= 4 * k * eps ("single") * norm (double (A), "fro")
%!                    * norm (double (B), "fro"));
%!   endfor
%!   assert (last(1) != last(2), "both calls ended on %d moduli", last(1));
%!   B = randn (k, n, "single");
%!   e0 = gpu_tiled_info ().emulation;
%!   C = gpu_tiled_mtimes (A, B);
%!   e1 = gpu_tiled_info ().emulation;
%!   hi = 5000;
%!   B(7, hi) = Inf;
%!   C = gpu_tiled_mtimes (A, B);
%!   e = gpu_tiled_info ().emulation;
%!   assert (e.declined - e1.declined, 1);
%!   fresh = @(a, b) (b.products - a.products) - (b.kept_scans - a.kept_scans);
%!   assert (fresh (e1, e), fresh (e0, e1) + 1);
%!   R = A * B;
%!   assert (isnan (C), isnan (R));
%!   assert (C(isinf (R)), R(isinf (R)));
%!   f = isfinite (R);
%!   R = double (A) * double (B);
%!   assert (norm (double (C(f)) - R(f)) <= 4 * k * eps ("single")
%!           * norm (double (A), "fro") * norm (double (B(:, [1:hi-1, hi+1:n])), "fro"));
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_EMULATE", "GPU_TILED_NO_KSPLIT");
%! end_unwind_protect

%!testif ; emu
%! ## by default kernel 11 takes the products it is predicted faster on
%! ## (one device, so that the product is not split into smaller ones;
%! ## pieces of k off, which this one-panel product, whose copies outweigh
%! ## its kernel, would run on kernel 9), and GPU_TILED_EMULATE=off none
%! d = gpu_tiled_devices ();
%! setenv ("GPU_TILED_NO_KSPLIT", "1");
%! unwind_protect
%!   gpu_tiled_devices (d(1));
%!   gpu_tiled_reset ();
%!   A = randn (2048, 8192, "single");  B = randn (8192, 2048, "single");
%!   check_default (A, B, "2048x8192x2048");
%!   assert (gpu_tiled_info ().emulation.products, 1);
%!   check_default (randn (500, "single"), randn (500, "single"), "500^3");
%!   assert (gpu_tiled_info ().emulation.products, 1);
%!   setenv ("GPU_TILED_EMULATE", "off");
%!   gpu_tiled_reset ();
%!   check_default (A, B, "2048x8192x2048, off");
%!   assert (gpu_tiled_info ().emulation.products, 0);
%! unwind_protect_cleanup
%!   restore_defaults ("GPU_TILED_EMULATE", "GPU_TILED_NO_KSPLIT");
%! end_unwind_protect

%!test
%! ## texinfo help, rendered where makeinfo is installed
%! [txt, fmt] = get_help_text ("gpu_tiled_mtimes");
%! assert (fmt, "texinfo");
%! assert (! isempty (strfind (txt, "@deftypefn")));
%! if (! isempty (file_in_path (getenv ("PATH"), "makeinfo")))
%!   assert (! isempty (strfind (evalc ("help gpu_tiled_mtimes"), "gpu_tiled_mtimes (A, B)")));
%! endif
*/
