/* gt_lock_choice.h -- whether a product's operands are locked in place or
   staged (gt_lock_choice.c; internal to the host layer).

   Locked, an operand is read straight by the copy engine, but each call
   first probes every page of it (gt_locked_probe, about 2.5 us per MB);
   staged, the copy threads copy it through the slots.  Which is faster
   depends on the host: where its memory system, not the link, bounds the
   staging (several GPUs staging at once, or a slow host), locking wins
   by up to a quarter of the call; elsewhere the probe costs more than it
   saves (bench/RESULTS.md).  So by default each product that comes back
   (gt_choice_key) is timed both ways and goes on the faster;
   GPU_TILED_LOCK_OPERANDS=1 locks always, =0 never.  */

#ifndef GT_LOCK_CHOICE_H
#define GT_LOCK_CHOICE_H

#include <stddef.h>

/* Timed samples of each way before a product's choice; calls of the
   locked way that give no sample (nothing to lock yet, the lock taken,
   an operand found stale, a lock refused) before the staged way is
   chosen without them; the calls a choice holds before it is timed
   again; the products remembered.  */
#define GT_CHOICE_SAMPLES 3
#define GT_CHOICE_MISSES 8
#define GT_CHOICE_REVISIT 256
#define GT_CHOICE_KEYS 32

/* A product: the classes of C, A and B, which operands could be locked
   (bit 0 A, bit 1 B), the shape and the devices (gt_mtimes_host's
   device, or where the call may split, a number for the set).  */
typedef struct
{
  int type, a_type, b_type, lockable, devices;
  size_t m, n, k;
} gt_choice_key;

/* A call begins: 1 where its operands may be locked this call, 0 where
   they are staged.  Caller's thread, one call at a time.  */
int gt_lock_choice_begin (const gt_choice_key *key);

/* The call begun last ended after `seconds` (its whole time, the probe
   included).  probed: an operand was locked and probed (the call went
   the locked way); fresh: it took a new lock or gave one up (a lock
   costs far more than a call: that time is no sample); ok: it ended
   well.  */
void gt_lock_choice_end (double seconds, int probed, int fresh, int ok);

/* gt_reset: the choices are forgotten, GPU_TILED_LOCK_OPERANDS read
   again at the next call (gt_operands_lock_mode and gt_operands_chosen
   in gpu_tiled.h tell the mode and the choices).  */
void gt_lock_choice_forget (void);

#endif
