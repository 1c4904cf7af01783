/* gt_band_threads.c -- threads that run a split product's further bands,
   kept from call to call (gt_band_threads.h).  A thread made and joined
   for every call cost a split call about 0.1 ms more than one device's
   outside the bands, and began each band with none of its thread's
   recent plans (bench/RESULTS.md, "Band threads kept").  After a run a
   thread waits a little while yielding its core, as the copy helpers do
   (gt_copy.c), since a loop's next split call comes within a
   millisecond; then it sleeps.  The caller likewise waits for a band
   first by yielding, then asleep.  */

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "gt_stage.h"
#include "gt_band_threads.h"

/* How long a thread, or the caller waiting for one, yields before it
   sleeps (seconds).  */
#define SPIN_S 2e-3

typedef struct
{
  pthread_t thread;
  int made;
  pthread_mutex_t lock;
  pthread_cond_t cond;          /* a run given, done, or the end */
  void (*fn) (void *);
  void *arg;
  atomic_int given;             /* a run given, not yet taken */
  atomic_int busy;              /* a run given, not yet returned */
  atomic_int quit;
} slot_t;

static slot_t slots[GT_MAX_DEVICES];
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

static void
slots_init (void)
{
  for (int i = 0; i < GT_MAX_DEVICES; i++)
    {
      pthread_mutex_init (&slots[i].lock, NULL);
      pthread_cond_init (&slots[i].cond, NULL);
    }
}

/* Yield until *flag is `until` or SPIN_S has passed; nonzero where it
   came.  */
static int
spin_for (atomic_int *flag, int until, const atomic_int *quit)
{
  const double end = gt_now () + SPIN_S;
  while (atomic_load (flag) != until)
    {
      if ((quit && atomic_load (quit)) || gt_now () > end)
        return 0;
      sched_yield ();
    }
  return 1;
}

static void *
slot_loop (void *arg)
{
  slot_t *s = (slot_t *) arg;
  for (;;)
    {
      if (!spin_for (&s->given, 1, &s->quit))
        {
          pthread_mutex_lock (&s->lock);
          while (!atomic_load (&s->given) && !atomic_load (&s->quit))
            pthread_cond_wait (&s->cond, &s->lock);
          pthread_mutex_unlock (&s->lock);
        }
      if (atomic_load (&s->quit) && !atomic_load (&s->given))
        return NULL;
      atomic_store (&s->given, 0);
      s->fn (s->arg);
      pthread_mutex_lock (&s->lock);
      atomic_store (&s->busy, 0);
      pthread_cond_broadcast (&s->cond);
      pthread_mutex_unlock (&s->lock);
    }
}

int
gt_band_start (int slot, void (*fn) (void *), void *arg)
{
  if (slot < 1 || slot >= GT_MAX_DEVICES)
    return -1;
  pthread_once (&slots_once, slots_init);
  slot_t *s = &slots[slot];
  if (!s->made)
    {
      atomic_store (&s->quit, 0);
      if (pthread_create (&s->thread, NULL, slot_loop, s) != 0)
        return -1;
      s->made = 1;
    }
  s->fn = fn;
  s->arg = arg;
  atomic_store (&s->busy, 1);
  pthread_mutex_lock (&s->lock);
  atomic_store (&s->given, 1);
  pthread_cond_broadcast (&s->cond);
  pthread_mutex_unlock (&s->lock);
  return 0;
}

void
gt_band_wait (int slot)
{
  slot_t *s = &slots[slot];
  if (spin_for (&s->busy, 0, NULL))
    return;
  pthread_mutex_lock (&s->lock);
  while (atomic_load (&s->busy))
    pthread_cond_wait (&s->cond, &s->lock);
  pthread_mutex_unlock (&s->lock);
}

void
gt_band_threads_stop (void)
{
  pthread_once (&slots_once, slots_init);
  for (int i = 1; i < GT_MAX_DEVICES; i++)
    {
      slot_t *s = &slots[i];
      if (!s->made)
        continue;
      pthread_mutex_lock (&s->lock);
      atomic_store (&s->quit, 1);
      pthread_cond_broadcast (&s->cond);
      pthread_mutex_unlock (&s->lock);
      pthread_join (s->thread, NULL);
      s->made = 0;
    }
}
