/* gt_band_threads.c -- threads that run a split product's further bands,
   kept from call to call (gt_band_threads.h).  A thread made and joined
   for every call cost a split call about 0.1 ms more than one device's
   outside the bands, and began each band with none of its thread's
   recent plans (bench/RESULTS.md, "Split bands on threads kept from call
   to call").  After a run a thread yields its core for a while before it
   sleeps, as the copy helpers do (GPU_TILED_SPIN_US, gt_copy.c), since a
   loop's next split call comes within a millisecond; the caller waits
   for a band the same way.  */

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <unistd.h>
#include "gt_stage.h"
#include "gt_band_threads.h"

typedef struct
{
  pthread_t thread;
  int made;
  pid_t pid;                    /* the process that made it */
  pthread_mutex_t lock;
  pthread_cond_t cond;          /* a run given, done, or the end */
  void (*fn) (void *);
  void *arg;
  double spin_s;
  atomic_int given;             /* a run given, not yet taken */
  atomic_int busy;              /* a run given, not yet returned */
  atomic_int quit;
} slot_t;

static slot_t slots[GT_MAX_DEVICES];
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;
static atomic_int resting;      /* gt_band_rest: spin no more */

static void
slot_init (slot_t *s)
{
  pthread_mutex_init (&s->lock, NULL);
  pthread_cond_init (&s->cond, NULL);
  s->made = 0;
}

static void
slots_init (void)
{
  for (int i = 0; i < GT_MAX_DEVICES; i++)
    slot_init (&slots[i]);
}

/* Yield until *flag is `until`, for at most seconds (a slot's own
   thread, `own`: not once resting or told to quit); nonzero where it
   came.  */
static int
spin_for (atomic_int *flag, int until, double seconds, const slot_t *own)
{
  const double end = gt_now () + seconds;
  while (atomic_load (flag) != until)
    {
      if ((own && (atomic_load (&own->quit) || atomic_load (&resting)))
          || gt_now () > end)
        return 0;
      sched_yield ();
    }
  return 1;
}

static void *
slot_loop (void *arg)
{
  slot_t *s = (slot_t *) arg;
  double spin_s = 0;
  for (;;)
    {
      if (!spin_for (&s->given, 1, spin_s, s))
        {
          pthread_mutex_lock (&s->lock);
          while (!atomic_load (&s->given) && !atomic_load (&s->quit))
            pthread_cond_wait (&s->cond, &s->lock);
          pthread_mutex_unlock (&s->lock);
        }
      if (atomic_load (&s->quit) && !atomic_load (&s->given))
        return NULL;
      atomic_store (&s->given, 0);
      spin_s = s->spin_s;
      s->fn (s->arg);
      pthread_mutex_lock (&s->lock);
      atomic_store (&s->busy, 0);
      pthread_cond_broadcast (&s->cond);
      pthread_mutex_unlock (&s->lock);
    }
}

/* Slot s with a thread of this process (a forked child has none of its
   parent's threads: their slots start afresh); nonzero where none could
   be made.  */
static int
slot_ready (slot_t *s)
{
  if (s->made && s->pid == getpid ())
    return 0;
  if (s->made)
    slot_init (s);
  atomic_store (&s->given, 0);
  atomic_store (&s->busy, 0);
  atomic_store (&s->quit, 0);
  if (pthread_create (&s->thread, NULL, slot_loop, s) != 0)
    return -1;
  s->made = 1;
  s->pid = getpid ();
  return 0;
}

int
gt_band_start (int slot, void (*fn) (void *), void *arg, double spin_s)
{
  if (slot < 1 || slot >= GT_MAX_DEVICES)
    return -1;
  pthread_once (&slots_once, slots_init);
  slot_t *s = &slots[slot];
  if (slot_ready (s))
    return -1;
  atomic_store (&resting, 0);
  s->fn = fn;
  s->arg = arg;
  s->spin_s = spin_s;
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
  if (slot < 1 || slot >= GT_MAX_DEVICES)
    return;
  slot_t *s = &slots[slot];
  if (spin_for (&s->busy, 0, s->spin_s, NULL))
    return;
  pthread_mutex_lock (&s->lock);
  while (atomic_load (&s->busy))
    pthread_cond_wait (&s->cond, &s->lock);
  pthread_mutex_unlock (&s->lock);
}

void
gt_band_rest (void)
{
  atomic_store (&resting, 1);
}

void
gt_band_threads_stop (void)
{
  pthread_once (&slots_once, slots_init);
  for (int i = 1; i < GT_MAX_DEVICES; i++)
    {
      slot_t *s = &slots[i];
      if (!s->made || s->pid != getpid ()
          || pthread_equal (s->thread, pthread_self ()))
        continue;   /* none here (a forked child's), or this very band */
      pthread_mutex_lock (&s->lock);
      atomic_store (&s->quit, 1);
      pthread_cond_broadcast (&s->cond);
      pthread_mutex_unlock (&s->lock);
      pthread_join (s->thread, NULL);
      s->made = 0;
    }
}
