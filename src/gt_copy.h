/* gt_copy.h -- host-memory helpers of the host path (internal): copies
   split over threads, and faulting in new output memory ahead of use.

   The helper threads are started on first use and kept between calls
   (starting fifteen threads costs about a millisecond, which a 4096^3
   product notices); gt_workers_stop ends them, and gt_reset calls it, so
   gpu_tiled_reset and unloading the plug-in leave no thread behind.  */

#ifndef GT_COPY_H
#define GT_COPY_H

#include <stddef.h>

#define MAX_THREADS 32
/* Copies below this go on the calling thread alone.  */
#define PARALLEL_MIN_BYTES ((size_t) 1 << 20)

typedef struct
{
  float *dst;
  const float *src;
  size_t dld, sld, rows, cols;   /* in floats */
} copy_job;

/* Threads to copy with, the caller included, and helpers to fault in
   new output with (see gt_copy.c).  */
int gt_thread_count (void);
int gt_prefault_threads (void);

/* While on, the copy helpers spin between jobs instead of sleeping (a
   wake-up costs as much as copying 8 MiB); a call that streams turns it
   on at its start and off at its end.  */
void gt_copy_hot (int threads, int on);

/* Runs a job to completion, split between the caller and threads - 1
   helpers (the caller alone when threads <= 1 or the job is small).  */
void gt_copy (const copy_job *job, int threads);

/* Starts `threads` helpers faulting in [begin, begin + len) without
   changing its contents, so it may be written meanwhile; gt_prefault_wait
   finishes the rest with the copy helpers and the caller.  */
void gt_prefault_start (void *begin, size_t len, int threads);
void gt_prefault_wait (void);

/* Ends every helper thread; the next call starts them again.  */
void gt_workers_stop (void);

#endif
