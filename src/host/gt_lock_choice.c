/* gt_lock_choice.c -- operands locked or staged, chosen per product by
   timing both ways (gt_lock_choice.h).

   The last GT_CHOICE_KEYS products are remembered.  Until a product has
   GT_CHOICE_SAMPLES timed calls each way, its calls go locked, staged,
   staged, locked, locked, staged ... (in pairs: two products of one key
   in one loop each get both ways; the locked way first, as its first
   calls cannot lock yet: an operand is locked only where it comes back,
   and the call that locks is no sample); once one way has its samples,
   the other's calls follow.  Then the way with the faster best call
   goes on, for GT_CHOICE_REVISIT calls, when both are timed again (the
   host's load may have changed).  The best, not the median: slow calls
   only add time, and a way's first calls pay for what the calls before
   them left (a lock taken, a result's memory coming back, the other
   way's pages in the caches); by the median a split 4096^3 once went
   staged at 1.6 times the locked way's time (bench/RESULTS.md, "The
   operands' way by the best call").  A product whose locked way gives
   no sample in GT_CHOICE_MISSES calls goes staged.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_tiled.h"
#include "gt_lock_choice.h"
#include "gt_options.h"

typedef struct
{
  gt_choice_key key;
  int in_use;
  unsigned long used;  /* LRU */
  double t[2][GT_CHOICE_SAMPLES];   /* [staged, locked] */
  int got[2];
  int trial;           /* calls of the timing so far */
  int misses;          /* locked-way calls that gave no sample */
  int choice;          /* -1 timing, else the way */
  unsigned long since; /* calls since the choice */
} product;

static int mode = -2;  /* -2 not read since a reset */
static int trace;      /* GPU_TILED_TRACE: each choice told */
static product products[GT_CHOICE_KEYS];
static unsigned long tick;
static product *now;   /* the call under way's, NULL: not timed */
static int now_way;

/* GPU_TILED_LOCK_OPERANDS: 1 always, 0 never, -1 timed (unset, or any
   other value).  */
static int
mode_of_env (void)
{
  const char *o = getenv ("GPU_TILED_LOCK_OPERANDS");
  return o && (o[0] == '0' || o[0] == '1') && !o[1] ? o[0] - '0' : -1;
}

/* The mode the calls go by (read at the first call after a reset); what
   it will be where no call has read it yet.  */
int
gt_operands_lock_mode (void)
{
  return mode != -2 ? mode : mode_of_env ();
}

static int
same_key (const gt_choice_key *a, const gt_choice_key *b)
{
  return a->type == b->type && a->a_type == b->a_type
         && a->b_type == b->b_type && a->lockable == b->lockable
         && a->devices == b->devices && a->m == b->m && a->n == b->n
         && a->k == b->k;
}

/* A product's entry, made (in place of the least recently used) where
   it is new.  */
static product *
find (const gt_choice_key *key)
{
  product *old = &products[0];
  for (int i = 0; i < GT_CHOICE_KEYS; i++)
    {
      product *p = &products[i];
      if (p->in_use && same_key (&p->key, key))
        return p;
      if (!p->in_use || (old->in_use && p->used < old->used))
        old = p;
    }
  memset (old, 0, sizeof *old);
  old->key = *key;
  old->in_use = 1;
  old->choice = -1;
  return old;
}

/* The way of a timing's next call.  */
static int
next_way (product *p)
{
  if (p->got[0] >= GT_CHOICE_SAMPLES)
    return 1;
  if (p->got[1] >= GT_CHOICE_SAMPLES)
    return 0;
  return (p->trial++ + 1) / 2 % 2 == 0;
}

int
gt_lock_choice_begin (const gt_choice_key *key)
{
  if (mode == -2)
    {
      mode = mode_of_env ();
      trace = gt_trace_level () > 0;
    }
  now = NULL;
  if (mode >= 0)
    return mode;
  product *p = find (key);
  p->used = ++tick;
  if (p->choice >= 0 && ++p->since > GT_CHOICE_REVISIT)
    {
      p->choice = -1;
      p->got[0] = p->got[1] = p->trial = p->misses = 0;
    }
  if (p->choice >= 0)
    return p->choice;
  now = p;
  now_way = next_way (p);
  return now_way;
}

static double
best (const double *t, int count)
{
  double b = t[0];
  for (int i = 1; i < count; i++)
    b = t[i] < b ? t[i] : b;
  return b;
}

static void
choose (product *p, int way)
{
  p->choice = way;
  p->since = 0;
}

/* Both ways timed: the faster best call's.  */
_Static_assert (GT_CHOICE_SAMPLES == 3, "the trace below tells three");
static void
choose_timed (product *p)
{
  const double s = best (p->t[0], GT_CHOICE_SAMPLES);
  const double l = best (p->t[1], GT_CHOICE_SAMPLES);
  choose (p, l < s);
  if (trace)
    fprintf (stderr, "gpu_tiled: %zux%zux%zu operands %s: best locked "
             "%.3f ms (of %.3f %.3f %.3f), staged %.3f ms (of %.3f %.3f "
             "%.3f), %d misses\n", p->key.m, p->key.k, p->key.n,
             l < s ? "locked" : "staged", 1e3 * l, 1e3 * p->t[1][0],
             1e3 * p->t[1][1], 1e3 * p->t[1][2], 1e3 * s, 1e3 * p->t[0][0],
             1e3 * p->t[0][1], 1e3 * p->t[0][2], p->misses);
}

void
gt_lock_choice_end (double seconds, int probed, int fresh, int ok)
{
  product *p = now;
  now = NULL;
  if (!p || !ok)
    return;
  /* a locked-way call that did not lock (an operand not yet come back,
     found stale, or refused) went the staged way: no sample of either */
  if (fresh || probed != now_way)
    {
      if (now_way && ++p->misses >= GT_CHOICE_MISSES)
        {
          choose (p, 0);
          if (trace)
            fprintf (stderr, "gpu_tiled: %zux%zux%zu operands staged: "
                     "the locked way gave no sample in %d calls\n",
                     p->key.m, p->key.k, p->key.n, p->misses);
        }
      return;
    }
  int *got = &p->got[now_way];
  if (*got < GT_CHOICE_SAMPLES)
    p->t[now_way][(*got)++] = seconds;
  if (p->got[0] >= GT_CHOICE_SAMPLES && p->got[1] >= GT_CHOICE_SAMPLES)
    choose_timed (p);
}

unsigned long
gt_operands_chosen (int locked)
{
  unsigned long c = 0;
  for (int i = 0; i < GT_CHOICE_KEYS; i++)
    c += products[i].in_use && products[i].choice == locked;
  return c;
}

void
gt_lock_choice_forget (void)
{
  memset (products, 0, sizeof products);
  mode = -2;
  now = NULL;
  tick = 0;
}
