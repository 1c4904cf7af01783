/* gt_copy.h -- host-memory helpers of the host path (internal): copies
   split over threads, and faulting in new output memory ahead of use.  */

#ifndef GT_COPY_H
#define GT_COPY_H

#include <pthread.h>
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

typedef struct
{
  pthread_mutex_t mu;
  pthread_cond_t work, done;
  pthread_t th[MAX_THREADS];
  int helpers;            /* threads besides the caller */
  unsigned long gen;      /* bumped for each job */
  int pending, quit;
  copy_job job;
} copier;

/* Threads to copy with: GPU_TILED_THREADS, else the processors, at most 8. */
int gt_thread_count (void);

/* Starts threads - 1 helpers; copier_run then splits each job between
   them and the caller.  */
void gt_copier_start (copier *cp, int threads);
void gt_copier_stop (copier *cp);
/* Runs a job to completion (on the caller alone if cp is NULL or the job
   is small).  */
void gt_copier_run (copier *cp, const copy_job *job);
/* Part `part` of `parts` of a job.  */
void gt_copy_part (const copy_job *j, int part, int parts);

struct prefaulter;

typedef struct
{
  struct prefaulter *pf;
  int part;
} prefault_arg;

typedef struct prefaulter
{
  pthread_t th[MAX_THREADS];
  prefault_arg args[MAX_THREADS];
  int parts;       /* regions of the output */
  int started;     /* helper threads running */
  char *begin;
  size_t len;
  /* Faulting holds the address-space lock that creating a thread (its
     stack is an mmap) needs exclusively: helpers start once all exist.  */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int go;
} prefaulter;

/* Starts `parts` threads faulting in [begin, begin + len) without changing
   its contents; prefault_finish waits for them.  Nothing may be written
   there until prefault_finish returns.  */
void gt_prefault_start (prefaulter *pf, void *begin, size_t len, int parts);
void gt_prefault_finish (prefaulter *pf);

#endif
