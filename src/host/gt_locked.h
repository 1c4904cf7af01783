/* gt_locked.h -- results locked in place (gt_locked.c; internal to the
   host layer): where a loop's freed result is the next one's memory, that
   memory is page-locked once and the copies out write it straight from
   the device, each page checked afterwards.  */

#ifndef GT_LOCKED_H
#define GT_LOCKED_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "gt_copy.h"

/* Whether C's [C, C + bytes) is locked now, for a result whose pages are
   there already (gt_result_resident).  Locks it where the same range was
   one of the last four results' or eight operands' and the lock budget
   allows (gt_lock_budget; GPU_TILED_LOCK_RESULTS=0: never), as one range
   with the locked ranges it overlaps (a copy may not cross from one lock
   into another; a loop's result and the last, both alive while the new
   one is made, may share a page), after ranges whose memory is gone and,
   while over the budget, the least recently used are unlocked.  Locked
   under device (an ordinal the product runs on; -1: the current one).
   Caller's thread only, outside any product.  */
int gt_locked_result (void *C, size_t bytes, int device);

/* A call begins (before its gt_locked_operand and gt_locked_result): the
   ranges it locks or uses are not unlocked to make room for one
   another.  */
void gt_locked_begin (void);

/* Whether an operand's [p, p + bytes) is locked now, so that the uploads
   may read it straight once the call's probe (gt_probe_begin .. end
   below) finds its pages the process's: where allow (gt_lock_choice_begin's
   way for the call), locked by gt_locked_result's rule (never where
   GPU_TILED_LOCK_OPERANDS=0).  Not allow: staged, and remembered as come
   back (a lock it holds is kept).  Caller's thread, outside any product,
   before gt_locked_result.  */
int gt_locked_operand (const void *p, size_t bytes, int device, int allow);

/* An operand's range whose probe found missed pages not the lock's (or,
   (size_t) -1, could not tell): unlocked, not locked again for 16 calls,
   the pages counted, and the call's straight reads not (the product runs
   again).  Caller's thread, outside any product.  */
void gt_locked_found_stale (const void *p, size_t bytes, size_t missed);

/* gt_locked_probe under device (made current for it, then the caller's
   again), its time told where GPU_TILED_TRACE is on.  Any thread.  */
size_t gt_locked_probe_told (const void *p, size_t bytes, int device,
                             gt_workers *w, int threads, int by_kernel);

/* The call's probe of its locked operands, after its uploads
   (gt_probe_later.c).  gt_probe_begin: the operands' bytes, and whether
   each is locked (under device) and so probed; A whose bytes meet B's
   (B itself, or a slice of the same array; B locked or not) is probed
   after B's uploads, as one range with B where both are; gt_probe_expect:
   the product runs that read them (the bands of a split; 1 unless said).
   Each product run calls gt_probe_reads_begin before its first upload (it
   waits while a probe runs; returns the run's mask for the calls below),
   gt_probe_read_done once it has queued its last upload of A (operand 0)
   and of B (1), with an event recorded after it, and (-1, NULL) at its
   end for whatever it had not said; before that, gt_probe_read_part for
   each part of B whose upload it has queued (with an event after it), so
   that the run may probe that part while it reads the rest, where B
   shares no memory with A and b_apart (gt_probe_expect's: no two runs
   read the same bytes of B; a split by columns, or one run; else the
   parts are ignored).  gt_probe_now probes, on the calling thread with
   copy threads w (threads of them), this run's parts whose uploads have
   ended, then each operand that every run expected has said and none
   reads, but for the parts probed, once those uploads have ended (wait:
   waits for them; else only where they have); it returns the bytes it
   probed (the timeline's marks, GPU_TILED_TRACE=2).  gt_probe_end (ok:
   the product ran), after the product: probes what was not (not ok:
   nothing); 1 where every range's pages were the lock's, else 0, and the
   ranges that were not are unlocked (gt_locked_found_stale), so that the
   caller runs the product again with what is still locked.  begin,
   expect and end: caller's thread, outside any product.  */
void gt_probe_begin (const void *a, size_t a_bytes, int a_locked,
                     const void *b, size_t b_bytes, int b_locked, int device,
                     int short_kernels);
void gt_probe_expect (int runs, int b_apart);
int gt_probe_reads_begin (void);
void gt_probe_read_part (int mask, const void *p, size_t bytes,
                         cudaEvent_t after);
void gt_probe_read_done (int *mask, int operand, cudaEvent_t after);
size_t gt_probe_now (int wait, gt_workers *w, int threads);
/* This run's parts of B whose uploads have ended probed now, for its
   last launch's wait; the bytes probed.  Where another run's probe is
   under way it waits for that one while `busy` (an event: the GPU's work
   ahead of the launch) has not happened, and probes only where that
   probe ended first; busy NULL: does not wait, and probes nothing while
   another probe runs.  */
size_t gt_probe_parts_now (gt_workers *w, int threads, cudaEvent_t busy);
int gt_probe_end (int ok, gt_workers *w, int threads);
/* The seconds the calling thread spent probing at a run's end, or
   waiting for another run's probe (gt_probe_reads_begin, the probe's
   turn), since it last asked (a band's speed leaves them out: the probe
   is the call's, not the band's); probes inside a launch's wait, beside
   the GPU's work, are not counted.  gt_probe_seconds_add gives back
   seconds taken (a caller that leaves out a probe of its own beside the
   GPU's work, but not what went before it).  */
double gt_probe_seconds_taken (void);
void gt_probe_seconds_add (double seconds);

/* Whether the call under way (since gt_locked_begin) took a new lock.  */
int gt_locked_fresh (void);

/* Whether [p, p + bytes) lies in one locked range still: an operand
   checked by gt_locked_operand whose lock a later lock of the same call
   replaced, or whose stale neighbour's unlock took with it, is read
   through the slots (a straight copy from memory not locked, or from
   one lock into unlocked memory, is slow or refused).  */
int gt_locked_holds (const void *p, size_t bytes);

/* gt_locked_probe.c: the pages of [p, p + bytes) (4-byte aligned, locked,
   device current) that are not the lock's: a word of each page saved,
   written from device through the lock, read, and put back, chunk by
   chunk (the tokens written by copies, or by_kernel by a kernel where
   the device maps the lock, on the current device's per-thread default
   stream, which also waits for that device's legacy stream).  (size_t) -1
   where the probe could not run (its error cleared).  Nothing else may
   read the range meanwhile.  gt_locked_probe_forget frees the probe's
   device memory (lost: a lost device's, which its context's reset
   frees).  */
size_t gt_locked_probe (const char *p, size_t bytes, int device,
                        gt_workers *w, int threads, int by_kernel);
void gt_locked_probe_forget (int lost);

/* The marks' and the operands' probe's words are this far apart at most
   (a page, or less where pages are larger): every page holds one.  */
#define GT_LOCKED_STEP ((size_t) 4096)

/* Before a copy out straight into locked memory: one 32-bit word of each
   page of [p, p + bytes) (4-byte aligned, a multiple of 4) set to a value
   no product writes there (a signalling NaN; a double's half that equals
   it only costs a needless copy again).  After the copy: the pages whose
   word still holds it.  A page the copy engine wrote is the page the
   process sees; where the process's page was replaced under the lock (a
   heap trimmed and grown again, malloc_trim), the engine wrote the old
   one, and the word stays.  */
void gt_locked_mark (char *p, size_t bytes);
size_t gt_locked_unwritten (const char *p, size_t bytes);

/* A product found n such pages in C (it copied them again through the
   staging): C's range is unlocked after the call (gt_locked_settle).
   Any thread.  */
void gt_locked_stale (size_t n);

/* A product's copies went straight into C (gt_stage.c; any thread).  */
void gt_locked_went_straight (void);
/* A product's uploads read an operand straight (any thread).  */
void gt_locked_went_in (void);

/* After a product whose C or an operand was locked: counts it where it
   ended well (ok) and its copies went straight, and unlocks C's range
   (C NULL: none) where pages were stale.  Caller's thread.  */
void gt_locked_settle (void *C, size_t bytes, int ok);

/* GPU_TILED_TEST_STALE=N: the next N products that find memory locked
   drop the pages of 16 marks in the middle of C under the lock
   (madvise), as a trimmed heap would; the check must find them.  Each
   locked operand of those products has 16 pages replaced under the lock
   by copies of themselves, which the probe must find.  Caller's
   thread.  */
void gt_locked_test_drop (void *C, size_t bytes);
/* The same call's locked operand [p, p + bytes): its pages replaced,
   once the call's locks are all taken (a later lock that takes an
   operand's range in holds the new pages).  Caller's thread.  */
void gt_locked_test_replace (const void *p, size_t bytes);

/* Unlocks every range (gt_reset), forgets the operands' choices
   (gt_lock_choice_forget) and reads the options again at the next
   result; the counts start again.  gt_locked_forget_lost: a device
   context lost (current), whose own locks go with it; the others are
   unlocked under the device that locked them, the counts kept.  */
void gt_locked_forget (void);
void gt_locked_forget_lost (int device);

#endif
