/* gt_options.h -- the GPU_TILED_* environment options, read once when a
   device context is set up (the first call on that device, and the first
   after gpu_tiled_reset), never inside a call.  A test that sets one calls
   gpu_tiled_reset () after setenv for it to take effect.  */

#ifndef GT_OPTIONS_H
#define GT_OPTIONS_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  /* GPU_TILED_TRACE (any value): one line per host call on stderr, with
     where its time went; 2: and after it, the streamed call's timeline
     (each host copy and wait by the host's clock, each transfer and each
     kernel of a panel run whole by events on its stream; at most
     GT_TIMELINE_MAX marks) */
  int trace;
  /* GPU_TILED_THREADS: copy threads, the caller included (default:
     gt_copy_default_threads) */
  int copy_threads;
  /* GPU_TILED_PREFAULT_THREADS: helpers faulting in new output memory
     (default: gt_prefault_default_threads) */
  int prefault_threads;
  /* either of the two set: every call takes them as they are */
  int threads_given;
  /* GPU_TILED_ZEROCOPY_MAX (bytes of A, B and C together): products up to
     this run on the pinned staging memory itself; 0 never */
  size_t zerocopy_max;
  /* GPU_TILED_SPIN_US: microseconds the copy helpers go on spinning after
     a call before they sleep, so that a loop's next call finds them awake
     (0: sleep at once; default 2000, at most 10^6) */
  unsigned long spin_us;
  /* GPU_TILED_EMULATE: "off", single products never on kernel 11 (the
     INT8 tensor cores); "always", wherever it can run (tests); otherwise
     where it is predicted faster.  Handed to the plan layer
     (gt_plan_set_emulation), not kept here.  */
  /* Test hooks.  GPU_TILED_DEVICE_LIMIT (bytes): device allocations above
     it fail as if the device were full.  GPU_TILED_NO_KSPLIT: the first
     panel is not computed in pieces of k.  GPU_TILED_POISON: device
     results start as NaN, so unwritten elements show.
     GPU_TILED_TEST_INTERRUPT=N: every interrupt check of the next N host
     calls answers yes (any other value: of every call).
     GPU_TILED_TEST_FAIL=D: the next streamed host call's work on device
     D fails once A's copies (and, where the first panel runs in pieces of
     k, its kernels) are queued, as a device failing in the middle of a
     call would (once per set-up of that device); D:memory, the same point
     reports the device out of memory (one device goes on in blocks; a
     band of a split gives up its part of A and runs again elsewhere).  */
  size_t device_limit;   /* 0: none */
  int no_ksplit;
  /* GPU_TILED_HEAD=N: the first N panels go as one head in blocks of A's
     rows where a head may (head_panels' product), else in panel 0's
     pieces of k where those may (pieces_head's); 0 or 1: never; unset:
     as predicted.  */
  long head;             /* -1: as predicted */
  int b_first;           /* GPU_TILED_B_FIRST: panel 0's B whole before
                            A's pieces: 1 always, 0 never, -1 where B is
                            locked */
  int poison;
  int test_interrupt;    /* calls left to interrupt; -1 every one */
  int test_fail;         /* the device to fail; -1 none */
  int test_fail_memory;  /* ... as out of memory */
} gt_options;

void gt_options_read (gt_options *o);

/* GPU_TILED_TRACE's level, the one reading of it for every layer that
   traces (gt_options_read, gt_locked.c, gt_lock_choice.c): 0 where it is
   unset, empty or 0; 2 for the timeline; else 1.  */
static inline int
gt_trace_level (void)
{
  const char *v = getenv ("GPU_TILED_TRACE");
  return !v || !*v || !strcmp (v, "0") ? 0 : !strcmp (v, "2") ? 2 : 1;
}

/* The options that steer no one device, asked by the code they steer at
   its first use after gt_reset.  GPU_TILED_CROSSOVER=off: every product
   runs on the GPU, none on the caller's host product (gt_crossover.c).
   GPU_TILED_SPLIT=always: every product wide enough is split over the
   devices, whether or not it pays (gt_multi.c; for the tests).  Read
   where they act, as these: GPU_TILED_RESULT_HEAP (gt_heap.c),
   GPU_TILED_LOCK_RESULTS and GPU_TILED_TEST_STALE (gt_locked.c),
   GPU_TILED_LOCK_OPERANDS (gt_lock_choice.c).  */
int gt_option_crossover_off (void);
int gt_option_split_always (void);
/* GPU_TILED_SPIN_US: how long idle helper threads spin (yielding their
   cores) before they sleep, in microseconds; read where a context is set
   up, and by the split's band threads (gt_multi.c) at their first use
   after gt_reset.  */
unsigned long gt_option_spin_us (void);

#endif
