/* gt_heap.h -- the host layer's side of result memory (gt_heap.c; the
   glue's side is gt_result_heap_begin in gpu_tiled.h).  */

#ifndef GT_HEAP_H
#define GT_HEAP_H

#include <stddef.h>

/* Nonzero where every one of a sample of the pages of a result's
   [p, p + bytes) is in memory: a result the heap had freed before, whose
   first touch costs no page faults (so nothing is faulted in ahead of the
   copies out); such results are counted (gt_result_heap_reused).  */
int gt_result_resident (const void *p, size_t bytes);

/* A share of the host's memory: its pages / share, in bytes, at most
   `most` (0 where the system does not say).  */
size_t gt_host_memory_share (size_t share, size_t most);

/* Nonzero where GPU_TILED_RESULT_HEAP set the budget (a value, not
   empty), as read with it.  */
int gt_result_heap_given (void);

/* gt_reset: GPU_TILED_RESULT_HEAP is read again at the next result.  */
void gt_heap_forget (void);

#endif
