/* test_lock_choice.c -- the operands' way, locked or staged, chosen per
   product by timing (src/host/gt_lock_choice.c), with made-up times.
   Prints one line per check and "N passed, N failed".  */

#include <stdio.h>
#include <stdlib.h>
#include "gpu_tiled.h"
#include "gt_lock_choice.h"
#include "test_check.h"

/* One call of product (m, device): its way, ended after the time its way
   takes (locked, staged), as gt_mtimes_host would end it: probed where
   the way was locked and the operand could be (lockable), fresh where
   that call took the lock.  */
static int
call (size_t m, int device, double locked, double staged, int lockable,
      int fresh)
{
  const int way = gt_lock_choice_begin (GT_SINGLE, m, 512, 512, device);
  const int probed = way && lockable;
  gt_lock_choice_end (probed ? locked : staged, probed, probed && fresh, 1);
  return way;
}

/* n calls of a product whose operands lock from its second call on; the
   ways taken, one bit a call (call i: bit i) */
static unsigned
calls (int n, size_t m, double locked, double staged)
{
  unsigned ways = 0;
  for (int i = 0; i < n; i++)
    ways |= (unsigned) call (m, 0, locked, staged, i > 0, i == 1) << i;
  return ways;
}

static void
test_modes (void)
{
  setenv ("GPU_TILED_LOCK_OPERANDS", "1", 1);
  gt_lock_choice_forget ();
  check (gt_operands_lock_mode () == 1 && calls (12, 1000, 2, 1) == 0xfff,
         "GPU_TILED_LOCK_OPERANDS=1: locked always, slower or not");
  setenv ("GPU_TILED_LOCK_OPERANDS", "0", 1);
  gt_lock_choice_forget ();
  check (gt_operands_lock_mode () == 0 && calls (12, 1000, 1, 2) == 0,
         "GPU_TILED_LOCK_OPERANDS=0: staged always, faster or not");
  unsetenv ("GPU_TILED_LOCK_OPERANDS");
  gt_lock_choice_forget ();
  check (gt_operands_lock_mode () == -1, "unset: timed");
  setenv ("GPU_TILED_LOCK_OPERANDS", "yes", 1);
  gt_lock_choice_forget ();
  check (gt_operands_lock_mode () == -1, "another value: timed");
  unsetenv ("GPU_TILED_LOCK_OPERANDS");
}

static void
test_timed (void)
{
  gt_lock_choice_forget ();
  /* calls 0-1 locked (no sample: nothing to lock, then the lock), then
     locked and staged in turn to three samples each (calls 2-7) */
  const unsigned faster = calls (16, 1000, 1, 2);
  check ((faster & 0xff) == 0x57, "timing: locked twice, then in turn");
  check ((faster >> 8) == 0xff && gt_operands_chosen (1) == 1
         && gt_operands_chosen (0) == 0,
         "locked faster: locked from then on");
  const unsigned slower = calls (16, 2000, 2, 1);
  check ((slower & 0xff) == 0x57 && (slower >> 8) == 0
         && gt_operands_chosen (0) == 1,
         "locked slower: staged from then on");
  gt_lock_choice_forget ();
  check (gt_operands_chosen (0) + gt_operands_chosen (1) == 0,
         "forget: no choice left");
}

/* The median decides: one slow call of the faster way does not.  */
static void
test_median (void)
{
  gt_lock_choice_forget ();
  const double locked[] = { 0, 0, 1.0, 9.0, 1.0 };
  const double staged[] = { 1.5, 1.5, 1.5 };
  int l = 0, s = 0;
  for (int i = 0; i < 8; i++)
    {
      const int way = gt_lock_choice_begin (GT_SINGLE, 100, 100, 100, 0);
      const int probed = way && i > 0;
      const double t = probed ? locked[2 + l++ % 3] : staged[s++ % 3];
      gt_lock_choice_end (t, probed, i == 1, 1);
    }
  check (gt_operands_chosen (1) == 1, "a slow call of the locked way: "
         "still locked, by the median");
}

/* A product is its class, shape and devices; a failed call, or one that
   went staged on the locked way (its operand found stale), is no
   sample.  */
static void
test_keys (void)
{
  gt_lock_choice_forget ();
  for (int i = 0; i < 16; i++)
    {
      call (1000, 0, 1, 2, i > 0, i == 1);
      call (1000, -4, 2, 1, i > 0, i == 1);   /* the same on two devices */
    }
  check (gt_operands_chosen (1) == 1 && gt_operands_chosen (0) == 1,
         "one shape, other devices: chosen apart");
  gt_lock_choice_forget ();
  for (int i = 0; i < 16; i++)
    {
      const int way = gt_lock_choice_begin (GT_SINGLE, 7, 7, 7, 0);
      gt_lock_choice_end (1, way, 0, 0);   /* every call failed */
    }
  check (gt_operands_chosen (0) + gt_operands_chosen (1) == 0,
         "failed calls: no samples, no choice");
  for (int i = 0; i < 16; i++)
    call (8, 0, 1, 2, 0, 0);   /* never lockable: the locked way stages */
  check (gt_operands_chosen (0) + gt_operands_chosen (1) == 0
         && gt_lock_choice_begin (GT_SINGLE, 8, 512, 512, 0) == 1,
         "the locked way never locked: still trying it");
  gt_lock_choice_end (1, 0, 0, 1);
  /* nine products: the least recently used is forgotten, and timed
     again when it comes back */
  gt_lock_choice_forget ();
  for (int p = 0; p < 9; p++)
    calls (8, 100 + p, 1, 2);
  check (gt_operands_chosen (1) == 8, "eight products remembered");
  check (call (100, 0, 1, 2, 1, 0) == 1 && gt_operands_chosen (1) == 7,
         "a ninth in place of the first: the first timed again");
}

/* After GT_CHOICE_REVISIT calls the choice is timed again: a host whose
   load changed gets the other way.  */
static void
test_revisit (void)
{
  gt_lock_choice_forget ();
  calls (8, 1000, 1, 2);
  int locked = 0;
  for (int i = 0; i < GT_CHOICE_REVISIT; i++)
    locked += call (1000, 0, 1, 2, 1, 0);
  check (locked == GT_CHOICE_REVISIT && gt_operands_chosen (1) == 1,
         "the choice held for its calls");
  for (int i = 0; i < 6; i++)   /* timed again: now staged is faster */
    call (1000, 0, 3, 2, 1, 0);
  check (gt_operands_chosen (0) == 1 && call (1000, 0, 3, 2, 1, 0) == 0,
         "timed again: the other way where it is faster now");
}

int
main (void)
{
  test_modes ();
  test_timed ();
  test_median ();
  test_keys ();
  test_revisit ();
  return checks_done ();
}
