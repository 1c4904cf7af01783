/* gt_copy.h -- host-memory helpers of the host path (internal): copies
   split over threads, and faulting in new output memory ahead of use.

   Each device context owns one gt_workers, its helper threads, so two
   contexts driven from two host threads never wait on each other; one
   gt_workers is used by one host thread at a time.  The threads are
   started on first use and kept between calls (starting fifteen threads
   costs about a millisecond, which a 4096^3 product notices);
   gt_workers_stop ends them, and resetting or freeing the context does,
   so gpu_tiled_reset and unloading the plug-in leave no thread behind.  */

#ifndef GT_COPY_H
#define GT_COPY_H

#include <stddef.h>

/* Most threads on one copy, the caller included.  */
#define GT_COPY_MAX_THREADS 32
/* Copies below this many bytes go on the calling thread alone: one core
   copies 6-9 GB/s, and the helpers, spinning while a call runs, take a
   part within microseconds; below it the hand-off costs about what it
   saves (bench/RESULTS.md, "Mid-sized calls").  */
#define GT_COPY_PARALLEL_MIN_BYTES ((size_t) 64 << 10)

typedef struct
{
  void *dst;
  const void *src;
  size_t dld, sld, rows, cols;   /* in elements */
  size_t elem;                   /* bytes per element of dst */
  /* bytes per element of src: 0 or elem for a plain copy, 2 elem where
     src holds doubles that dst takes rounded to floats (an Octave double
     operand of a single product: converted here, in the copy, as Octave
     would convert it, not in a pass of its own) */
  size_t selem;
  /* nonzero: dst written with streaming stores, which skip reading its
     lines first (a copy out of the staging slots into a result; into the
     slots for calls under 64 MiB and for small products on the copy
     threads); plain copies only: a copy that converts stores as it
     converts */
  int stream;
} copy_job;

typedef struct gt_workers gt_workers;

/* No thread is started until first use; NULL if out of memory.  */
gt_workers *gt_workers_new (void);
/* Stops w's threads and frees it; NULL is fine.  */
void gt_workers_free (gt_workers *w);
/* Ends w's threads, after any prefault in flight; the next use starts
   them again.  NULL is fine.  */
void gt_workers_stop (gt_workers *w);
/* Helper threads of w running now, copy and prefault together.  */
int gt_workers_running (const gt_workers *w);

/* Default helpers to fault in new output with, and threads to copy with
   (the caller included) beside that many prefault helpers; see
   gt_copy.c.  */
int gt_prefault_default_threads (void);
int gt_copy_default_threads (int prefault_threads);

/* While on, the copy helpers spin between jobs instead of sleeping (a
   wake-up costs as much as copying 8 MiB); a call that streams turns it
   on at its start and off at its end.  */
void gt_copy_hot (gt_workers *w, int threads, int on);

/* After gt_copy_hot (off), the helpers go on spinning for this long
   before they sleep (default 0: at once), so that a loop's next call finds
   them awake.  */
void gt_copy_linger (gt_workers *w, unsigned long microseconds);
/* Ends that spin now: the caller is about to use the cores itself (a
   product on the host).  NULL is fine.  */
void gt_copy_rest (gt_workers *w);

/* Runs a job to completion, cut into `threads` parts, each taken by
   whichever thread is free, the caller included (the caller alone when
   threads <= 1 or the job is under GT_COPY_PARALLEL_MIN_BYTES).  */
void gt_copy (gt_workers *w, const copy_job *job, int threads);

/* Part `part` of `parts` of [0, n), as the parts of gt_copy and
   gt_copy_parts share their work: [*b, *e), empty where the parts
   outnumber n.  */
static inline void
gt_copy_share (size_t n, int part, int parts, size_t *b, size_t *e)
{
  const size_t per = (n + parts - 1) / parts;
  *b = per * part < n ? per * part : n;
  *e = *b + per < n ? *b + per : n;
}

/* Runs fn (arg, part, parts) for part 0 .. parts - 1 on the copy threads
   and the caller, as gt_copy runs a job's parts (the caller alone where
   threads <= 1 or w is NULL); returns when all are done.  */
void gt_copy_parts (gt_workers *w, int threads,
                    void (*fn) (void *arg, int part, int parts), void *arg);

/* Asks for huge pages over the 2 MiB pages inside [begin, begin + len).
   It changes the mapping, so it waits for every fault in flight on it:
   once per region, before anything faults it in.  */
void gt_advise_huge (void *begin, size_t len);

/* Starts `threads` helpers faulting in [begin, begin + len) without
   changing its contents, so it may be written meanwhile; gt_prefault_wait
   finishes the rest with the copy helpers and the caller.  */
void gt_prefault_start (gt_workers *w, void *begin, size_t len, int threads);
void gt_prefault_wait (gt_workers *w);

#endif
