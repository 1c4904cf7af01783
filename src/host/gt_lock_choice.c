/* gt_lock_choice.c -- operands locked or staged, chosen per product by
   timing both ways (gt_lock_choice.h).

   A product is known by its class, shape and devices; the last
   CHOICE_KEYS are remembered.  Until a product has GT_CHOICE_SAMPLES
   timed calls each way, its calls alternate (the locked way first: its
   first calls cannot lock yet, an operand is locked only where it comes
   back, and the call that locks is no sample); then the way with the
   smaller median goes on, for GT_CHOICE_REVISIT calls, when both are
   timed again (the host's load may have changed).  Alternating, rather
   than one way's calls then the other's, keeps a drift of the host's
   clocks or load out of the comparison.  */

#include <stdlib.h>
#include <string.h>
#include "gpu_tiled.h"
#include "gt_lock_choice.h"

#define CHOICE_KEYS 8

typedef struct
{
  int type, device;
  size_t m, n, k;      /* m 0: a free entry */
  unsigned long used;  /* LRU */
  double t[2][GT_CHOICE_SAMPLES];   /* [staged, locked] */
  int got[2];
  int choice;          /* -1 timing, else the way */
  unsigned long since; /* calls since the choice */
} product;

static int mode = -2;  /* -2 not read since a reset */
static product keys[CHOICE_KEYS];
static unsigned long tick;
static product *now;   /* the call under way's, NULL: not timed */
static int now_way;

static void
read_mode (void)
{
  if (mode != -2)
    return;
  const char *o = getenv ("GPU_TILED_LOCK_OPERANDS");
  mode = o && !o[1] && (o[0] == '0' || o[0] == '1') ? o[0] - '0' : -1;
}

int
gt_operands_lock_mode (void)
{
  read_mode ();
  return mode;
}

/* The entry of a product, made (in place of the least recently used)
   where it is new.  */
static product *
find (int type, size_t m, size_t n, size_t k, int device)
{
  product *old = &keys[0];
  for (int i = 0; i < CHOICE_KEYS; i++)
    {
      product *p = &keys[i];
      if (p->m == m && p->n == n && p->k == k && p->type == type
          && p->device == device)
        return p;
      if (p->used < old->used)
        old = p;
    }
  memset (old, 0, sizeof *old);
  old->type = type;
  old->device = device;
  old->m = m;
  old->n = n;
  old->k = k;
  old->choice = -1;
  return old;
}

int
gt_lock_choice_begin (int type, size_t m, size_t n, size_t k, int device)
{
  read_mode ();
  now = NULL;
  if (mode >= 0)
    return mode;
  product *p = find (type, m, n, k, device);
  p->used = ++tick;
  if (p->choice >= 0 && ++p->since > GT_CHOICE_REVISIT)
    {
      p->choice = -1;
      p->got[0] = p->got[1] = 0;
    }
  if (p->choice >= 0)
    return p->choice;
  now = p;
  now_way = p->got[1] <= p->got[0];
  return now_way;
}

static int
by_value (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *t, int count)
{
  qsort (t, count, sizeof *t, by_value);
  return count % 2 ? t[count / 2] : 0.5 * (t[count / 2 - 1] + t[count / 2]);
}

void
gt_lock_choice_end (double seconds, int probed, int fresh, int ok)
{
  product *p = now;
  now = NULL;
  /* a locked-way call that did not lock (an operand not yet come back,
     or found stale) went the staged way: no sample of either */
  if (!p || !ok || fresh || probed != now_way)
    return;
  int *got = &p->got[now_way];
  if (*got < GT_CHOICE_SAMPLES)
    p->t[now_way][(*got)++] = seconds;
  if (p->got[0] < GT_CHOICE_SAMPLES || p->got[1] < GT_CHOICE_SAMPLES)
    return;
  p->choice = median (p->t[1], GT_CHOICE_SAMPLES)
              < median (p->t[0], GT_CHOICE_SAMPLES);
  p->since = 0;
}

unsigned long
gt_operands_chosen (int locked)
{
  unsigned long c = 0;
  for (int i = 0; i < CHOICE_KEYS; i++)
    c += keys[i].m && keys[i].choice == locked;
  return c;
}

void
gt_lock_choice_forget (void)
{
  memset (keys, 0, sizeof keys);
  mode = -2;
  now = NULL;
  tick = 0;
}
