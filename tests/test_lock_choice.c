/* test_lock_choice.c -- the operands' way, locked or staged, chosen per
   product by timing (src/host/gt_lock_choice.c), with made-up products.
   Prints one line per check and "N passed, N failed".  */

#include <stdio.h>
#include <stdlib.h>
#include "gpu_tiled.h"
#include "gt_lock_choice.h"
#include "test_check.h"

/* A made-up product: its key, whether its operand can be locked, and
   the time of a call each way (locked: times[] in turn where given).
   As in gt_mtimes_host, its operand comes back from its second call, the
   first call of the locked way after that takes the lock (no sample),
   and the later ones are probed and read it straight.  */
typedef struct
{
  gt_choice_key key;
  int lockable, seen, locked, next;
  double t_locked, t_staged;
  const double *times;
  int n_times;
} sim;

static sim
product (size_t m, int devices, int b_type, double t_locked, double t_staged)
{
  sim s = { { GT_SINGLE, GT_SINGLE, b_type, 1, devices, m, 512, 512 },
            1, 0, 0, 0, t_locked, t_staged, NULL, 0 };
  return s;
}

/* One call: its way (1 locked), ended as gt_mtimes_host ends it.  */
static int
call (sim *s)
{
  const int way = gt_lock_choice_begin (&s->key);
  const int probed = way && s->lockable && s->seen;
  const int fresh = probed && !s->locked;
  s->locked |= probed;
  s->seen = 1;
  double t = s->t_staged;
  if (probed)
    t = s->times ? s->times[s->next++ % s->n_times] : s->t_locked;
  gt_lock_choice_end (t, probed, fresh, 1);
  return way;
}

/* n calls; the ways taken, one bit a call (call i: bit i).  */
static unsigned
calls (sim *s, int n)
{
  unsigned ways = 0;
  for (int i = 0; i < n; i++)
    ways |= (unsigned) call (s) << i;
  return ways;
}

static void
test_modes (void)
{
  sim s = product (1000, 0, GT_SINGLE, 2, 1);
  setenv ("GPU_TILED_LOCK_OPERANDS", "1", 1);
  gt_lock_choice_forget ();
  check (gt_operands_lock_mode () == 1 && calls (&s, 12) == 0xfff,
         "GPU_TILED_LOCK_OPERANDS=1: locked always, slower or not");
  setenv ("GPU_TILED_LOCK_OPERANDS", "0", 1);
  gt_lock_choice_forget ();
  s = product (1000, 0, GT_SINGLE, 1, 2);
  check (gt_operands_lock_mode () == 0 && calls (&s, 12) == 0,
         "GPU_TILED_LOCK_OPERANDS=0: staged always, faster or not");
  const char *timed[] = { NULL, "yes", "", "10" };
  int all = 1;
  for (int i = 0; i < 4; i++)
    {
      set_env ("GPU_TILED_LOCK_OPERANDS", timed[i]);
      gt_lock_choice_forget ();
      all &= gt_operands_lock_mode () == -1;
    }
  check (all, "unset, empty or another value: timed");
  setenv ("GPU_TILED_LOCK_OPERANDS", "1", 1);
  check (gt_operands_lock_mode () == 1, "the mode told before a call reads "
         "what the variable says now");
  unsetenv ("GPU_TILED_LOCK_OPERANDS");
  gt_lock_choice_forget ();
}

static void
test_timed (void)
{
  gt_lock_choice_forget ();
  /* locked (nothing to lock yet), staged twice, locked twice (the first
     takes the lock), staged (its third sample), locked twice */
  sim fast = product (1000, 0, GT_SINGLE, 1, 2);
  const unsigned faster = calls (&fast, 16);
  check ((faster & 0xff) == 0xd9, "timing: in pairs, the locked way first");
  check ((faster >> 8) == 0xff && gt_operands_chosen (1) == 1
         && gt_operands_chosen (0) == 0,
         "locked faster: locked from then on");
  sim slow = product (2000, 0, GT_SINGLE, 2, 1);
  const unsigned slower = calls (&slow, 16);
  check ((slower & 0xff) == 0xd9 && (slower >> 8) == 0
         && gt_operands_chosen (0) == 1,
         "locked slower: staged from then on");
  gt_lock_choice_forget ();
  check (gt_operands_chosen (0) + gt_operands_chosen (1) == 0,
         "forget: no choice left");
}

/* A product whose locked way's calls take locked[0..2] in turn and
   staged ones t_staged, timed: whether it went locked.  */
static int
timed_locked (size_t m, const double *locked, double t_staged)
{
  sim s = product (m, 0, GT_SINGLE, 0, t_staged);
  s.times = locked;
  s.n_times = 3;
  const unsigned long before = gt_operands_chosen (1);
  calls (&s, 8);
  return gt_operands_chosen (1) > before;
}

/* The best call decides: slow calls of the faster way do not, however
   many of its samples they are.  */
static void
test_best (void)
{
  gt_lock_choice_forget ();
  static const double slow_twice[] = { 1.0, 9.0, 9.0 };
  check (timed_locked (100, slow_twice, 1.5),
         "two slow calls of the locked way: still locked, by its best");
  static const double even[] = { 2.0, 2.0, 2.0 };
  check (!timed_locked (101, even, 0.5) && gt_operands_chosen (0) == 1,
         "the staged way's best faster: staged");
}

/* Products apart: by devices, by an operand's class; two of one key in
   one loop each get both ways.  */
static void
test_keys (void)
{
  gt_lock_choice_forget ();
  sim one = product (1000, 0, GT_SINGLE, 1, 2);
  sim two = product (1000, -4, GT_SINGLE, 2, 1);
  for (int i = 0; i < 16; i++)
    {
      call (&one);
      call (&two);
    }
  check (gt_operands_chosen (1) == 1 && gt_operands_chosen (0) == 1,
         "one shape, other devices: chosen apart");
  gt_lock_choice_forget ();
  sim s = product (1000, 0, GT_SINGLE, 1, 2);
  sim d = product (1000, 0, GT_DOUBLE, 2, 1);   /* B rounded: A alone */
  d.key.lockable = 1;
  for (int i = 0; i < 16; i++)
    {
      call (&s);
      call (&d);
    }
  check (gt_operands_chosen (1) == 1 && gt_operands_chosen (0) == 1,
         "A * B and A * (a double) in turn: chosen apart");
  gt_lock_choice_forget ();
  sim p = product (3000, 0, GT_SINGLE, 1, 1);
  sim q = p;
  unsigned wp = 0, wq = 0;
  for (int i = 0; i < 3; i++)
    {
      wp |= 1u << call (&p);
      wq |= 1u << call (&q);
    }
  check (wp == 3 && wq == 3, "two products of one key in turn: each both "
         "ways");
}

/* No sample from a failed call; a locked way that never locks (a lock
   refused, operands found stale) is given up.  */
static void
test_misses (void)
{
  gt_lock_choice_forget ();
  sim s = product (7, 0, GT_SINGLE, 1, 2);
  for (int i = 0; i < 16; i++)
    {
      const int way = gt_lock_choice_begin (&s.key);
      gt_lock_choice_end (1, way, 0, 0);   /* every call failed */
    }
  check (gt_operands_chosen (0) + gt_operands_chosen (1) == 0,
         "failed calls: no samples, no choice");
  sim never = product (8, 0, GT_SINGLE, 1, 2);
  never.lockable = 0;
  int locked = 0;
  for (int i = 0; i < 32; i++)
    locked += call (&never);
  check (gt_operands_chosen (0) == 1 && locked == GT_CHOICE_MISSES,
         "a locked way that never locks: staged after its misses");
}

/* The least recently used product is forgotten, and timed again when it
   comes back.  */
static void
test_lru (void)
{
  gt_lock_choice_forget ();
  sim p[GT_CHOICE_KEYS + 1];
  for (int i = 0; i <= GT_CHOICE_KEYS; i++)
    {
      p[i] = product (100 + i, 0, GT_SINGLE, 1, 2);
      calls (&p[i], 8);
    }
  check (gt_operands_chosen (1) == GT_CHOICE_KEYS,
         "as many products as remembered");
  p[0].seen = p[0].locked = 1;
  check (call (&p[0]) == 1 && gt_operands_chosen (1) == GT_CHOICE_KEYS - 1,
         "one more in place of the first: the first timed again");
}

/* After GT_CHOICE_REVISIT calls the choice is timed again: a host whose
   load changed gets the other way.  */
static void
test_revisit (void)
{
  gt_lock_choice_forget ();
  sim s = product (1000, 0, GT_SINGLE, 1, 2);
  calls (&s, 8);
  int locked = 0;
  for (int i = 0; i < GT_CHOICE_REVISIT; i++)
    locked += call (&s);
  check (locked == GT_CHOICE_REVISIT && gt_operands_chosen (1) == 1,
         "the choice held for its calls");
  s.t_locked = 3;
  calls (&s, 6);   /* timed again: now staged is faster */
  check (gt_operands_chosen (0) == 1 && call (&s) == 0,
         "timed again: the other way where it is faster now");
}

int
main (void)
{
  test_modes ();
  test_timed ();
  test_best ();
  test_keys ();
  test_misses ();
  test_lru ();
  test_revisit ();
  return checks_done ();
}
