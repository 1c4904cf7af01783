/* gt_mtimes.c -- gt_mtimes_host, the host layer's entry: the checks that
   need no device, then the product on one device or over several
   (gt_product.h names the drivers below it).  */

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gt_heap.h"
#include "gt_lock_choice.h"
#include "gt_locked.h"
#include "gt_plan.h"
#include "gt_product.h"
#include "gt_stage.h"   /* gt_now */

/* Products of m n k up to this have kernels short enough that the
   locked operands' probe writes its tokens by a kernel inside the
   launches' waits too (gt_probe_begin's short_kernels): so single 4096^3
   took 0.94-0.96 of the time with copies, 6000^3 0.97, and 8192^3 1.00-
   1.02 (0.998-1.002 with the kernel at the ends only, as now), a split
   16384^3 1.03 (bench/RESULTS.md, "The probe's tokens and kernel 11's
   choice by a kernel").  */
#define GT_PROBE_SHORT_KERNELS 2.5e11

double
gt_flops (gt_type c, size_t m, size_t n, size_t k)
{
  const double f = 2.0 * m * n * k;
  return c == GT_COMPLEX_SINGLE || c == GT_COMPLEX_DOUBLE ? 4 * f : f;
}

gt_product
gt_product_block (const gt_product *p, size_t i0, size_t j0, size_t m,
                  size_t n)
{
  gt_product q = *p;
  q.A.data = (const char *) p->A.data + i0 * gt_type_size (p->A.type);
  q.B.data = (const char *) p->B.data
             + j0 * p->ldb * gt_type_size (p->B.type);
  q.C = (char *) p->C + (i0 + j0 * p->ldc) * gt_type_size (p->type);
  q.m = m;
  q.n = n;
  q.fault_from = NULL;
  q.fault_bytes = 0;
  q.shared_a = NULL;   /* a block's A is its own rows: through the host */
  q.again = NULL;
  q.a_part = 0;
  return q;
}

/* The checks that need no device; *done where nothing is left to do.  */
static gt_status
call_trivial (gt_type type, gt_type ta, gt_type tb, void *C, size_t m,
              size_t n, size_t k, int tile, int *done)
{
  *done = 1;
  if (!gt_types_combine (type, ta, tb))
    return gt_fail (GT_ERR_ARG, "a %s product of %s and %s operands",
                    gt_type_name (type), gt_type_name (ta), gt_type_name (tb));
  gt_status st = gt_check_product (type, tile);
  if (st == GT_OK)
    st = gt_check_extent (m, k, gt_type_size (ta), "A");
  if (st == GT_OK)
    st = gt_check_extent (k, n, gt_type_size (tb), "B");
  if (st == GT_OK)
    st = gt_check_extent (m, n, gt_type_size (type), "the result");
  if (st != GT_OK || m == 0 || n == 0)
    return st;
  if (k == 0)
    {
      memset (C, 0, m * n * gt_type_size (type));
      return GT_OK;
    }
  *done = 0;
  return GT_OK;
}

/* The ordinal a product on device (an ordinal, GT_DEVICE_DEFAULT or
   GT_DEVICES_ALL) runs on first, or -1.  */
static int
first_device (int device)
{
  int devs[GT_MAX_DEVICES];
  if (device == GT_DEVICES_ALL)
    return gt_get_devices (devs, GT_MAX_DEVICES) > 0 ? devs[0] : -1;
  return gt_resolve_device (&device) == GT_OK ? device : -1;
}

/* The devices a call runs on, as one number: the device, or where the
   call may split, -1 less a mask of the set (a product timed on one set
   of devices is another product on another set; devices past the 30th
   share the mask's last bit: a key, not the set).  */
static int
devices_key (int device)
{
  int devs[GT_MAX_DEVICES];
  if (device != GT_DEVICES_ALL)
    return device;
  const int count = gt_get_devices (devs, GT_MAX_DEVICES);
  int mask = 0;
  for (int i = 0; i < count; i++)
    mask |= 1 << (devs[i] < 30 ? devs[i] : 30);
  return -1 - mask;
}

/* Whether operand X (its bytes) of a product of class c could be locked
   in place for the uploads to read straight: only where it needs no
   conversion (a double operand of a single product is rounded in the
   host copy) and is large enough to pay.  */
static int
operand_lockable (gt_type c, gt_operand X, size_t bytes, int device)
{
  return device >= 0 && bytes >= GT_LOCK_OPERAND_MIN_BYTES
         && gt_type_size (gt_type_real (X.type))
            == gt_type_size (gt_type_real (c));
}

/* The call's product: over the devices chosen, or on the one asked for.  */
static gt_status
run_product (const gt_product *p, int device, gt_interrupt_fn interrupted)
{
  return device == GT_DEVICES_ALL ? gt_multi_product (p, interrupted)
                                  : gt_device_product (device, p,
                                                       interrupted);
}

/* The probe of the operands locked for p (gt_probe_end, ok: the product
   ran); where a page was not the lock's, p's flags follow what is still
   locked, and 0.  */
static int
probe_clean (gt_product *p, int ok, int device, size_t a_bytes,
             size_t b_bytes, size_t c_bytes)
{
  int threads;
  gt_workers *w = gt_ctx_workers (device, &threads);
  if (gt_probe_end (ok, w, threads))
    return 1;
  p->a_locked = p->a_locked && gt_locked_holds (p->A.data, a_bytes);
  p->b_locked = p->b_locked && gt_locked_holds (p->B.data, b_bytes);
  p->c_locked = p->c_locked && gt_locked_holds (p->C, c_bytes);
  return 0;
}

/* A complex double A times a real double B is a real product: Octave
   stores complex elements as (re, im) pairs, so A's storage is a real
   2m x k matrix whose rows alternate A's real and imaginary parts, and
   C's a real 2m x n one of the same rows.  That product needs no planes
   of A nor a join of C, and takes every way of the real path (A's pieces
   of k as they arrive, bands sharing A).  Complex single products stay on
   the planes, whose panels were faster there (bench/RESULTS.md, "A
   complex A times a real B"); a real A times a complex B has no such
   reading (B's parts alternate down its columns).  */
static void
complex_times_real_as_real (gt_type *type, gt_operand *A, gt_operand B,
                            size_t *m)
{
  if (*type == GT_COMPLEX_DOUBLE && A->type == GT_COMPLEX_DOUBLE
      && B.type == GT_DOUBLE)
    {
      *type = GT_DOUBLE;
      A->type = GT_DOUBLE;
      *m *= 2;
    }
}

gt_status
gt_mtimes_host (gt_type type, gt_operand A, gt_operand B, void *C, size_t m,
                size_t n, size_t k, int tile, int device,
                gt_interrupt_fn interrupted)
{
  int done;
  gt_status st = call_trivial (type, A.type, B.type, C, m, n, k, tile, &done);
  if (done)
    return st;
  complex_times_real_as_real (&type, &A, B, &m);
  const double t0 = gt_now ();
  /* Operands that come back are locked first: a result's lock may then
     take in a page it shares with one of them.  Whether
     they are, for a product with one that could be, is timed
     (gt_lock_choice.h).  */
  const int dev0 = first_device (device);
  const size_t a_bytes = m * k * gt_type_size (A.type);
  const size_t b_bytes = k * n * gt_type_size (B.type);
  gt_locked_begin ();
  const int a_can = operand_lockable (type, A, a_bytes, dev0);
  const int b_can = operand_lockable (type, B, b_bytes, dev0);
  const int timed = a_can || b_can;
  const gt_choice_key key = { type, A.type, B.type, a_can | b_can << 1,
                              devices_key (device), m, n, k };
  const int allow = timed && gt_lock_choice_begin (&key);
  int a_locked = a_can && gt_locked_operand (A.data, a_bytes, dev0, allow);
  int b_locked = A.data == B.data && A.type == B.type && m * k == k * n
                   ? a_locked
                   : b_can && gt_locked_operand (B.data, b_bytes, dev0,
                                                 allow);
  /* The glue allocates C for the result: new memory to fault in, or a
     freed result's that the heap kept (gt_result_heap_begin); results
     under GT_PREFAULT_MIN_BYTES are not faulted in ahead either way */
  const size_t bytes = m * n * gt_type_size (type);
  const int there = bytes >= GT_PREFAULT_MIN_BYTES
                    && gt_result_resident (C, bytes);
  /* and such memory, when it comes back, is locked for the copies out */
  const int locked = there && gt_locked_result (C, bytes, dev0);
  if (locked)
    gt_locked_test_drop (C, bytes);
  /* a later unlock or lock of this call may have taken an operand's away
     (a stale neighbour's unlock; C's lock over its page, refused) */
  a_locked = a_locked && gt_locked_holds (A.data, a_bytes);
  b_locked = b_locked && gt_locked_holds (B.data, b_bytes);
  if (a_locked)
    gt_locked_test_replace (A.data, a_bytes);
  if (b_locked && B.data != A.data)
    gt_locked_test_replace (B.data, b_bytes);
  gt_product p = { type, A, B, C, m, n, k, m, k, m, tile, 1, (char *) C,
                   there ? 0 : bytes, locked, a_locked, b_locked, NULL, 0 };
  /* The locked operands' pages are probed once the uploads have read
     them, beside the product's last kernels; a page not the lock's
     (rare: an array freed and made again at the same address) and the
     product runs again with that operand staged.  */
  gt_probe_begin (A.data, a_bytes, a_locked, B.data, b_bytes, b_locked,
                  dev0, (double) m * n * k <= GT_PROBE_SHORT_KERNELS);
  const double t1 = gt_now ();
  st = run_product (&p, device, interrupted);
  const double t2 = gt_now ();
  if (!probe_clean (&p, st == GT_OK, dev0, a_bytes, b_bytes, bytes)
      && st == GT_OK)
    st = run_product (&p, device, interrupted);
  if (locked || a_locked || b_locked)
    gt_locked_settle (locked ? C : NULL, bytes, st == GT_OK);
  const double t3 = gt_now ();
  if (timed)
    gt_lock_choice_end (t3 - t0, a_locked || b_locked, gt_locked_fresh (),
                        st == GT_OK);
  /* the clock's times as the bands' lines give them (ms, modulo 1000 s);
     a product run again after the probe's end counts as after it.  The
     level is the one the device read at its set-up, as the bands' lines
     are: no reading of the environment in every call.  */
  const double t4 = gt_now ();
  if (gt_ctx_trace (dev0) == 2)
    fprintf (stderr, "gpu_tiled: the call's host side %.3f ms (%.3f-%.3f): "
             "%.3f before the product (locks, the result's residence), the "
             "product %.3f, %.3f after it (the probe's end, locks "
             "settled)\n", 1e3 * (t4 - t0), 1e3 * fmod (t0, 1000.0),
             1e3 * fmod (t4, 1000.0), 1e3 * (t1 - t0), 1e3 * (t2 - t1),
             1e3 * (t3 - t2));
  return st;
}
