/* gt_stage.h -- the staging slots of a host call (internal to the host
   layer): host threads copy a piece of an operand into a pinned slot while
   the copy engine moves the previous piece to the device, and results come
   back through the same slots.  Matrices are column-major; a leading
   dimension counts elements.  es: bytes of an element on the device;
   src_es: on the host, es or (doubles rounded to floats in the copy)
   2 es.  Host matrices have their own leading dimension (hld): a block
   of a larger matrix has its rows hld elements apart.  */

#ifndef GT_STAGE_H
#define GT_STAGE_H

#include "gt_context.h"

/* GPU_TILED_TRACE=2: the call's timeline, host copies and waits by the
   host's clock, transfers and kernels by events on their streams.  */
#define GT_TIMELINE_MAX 1024
typedef struct
{
  char what;           /* h: copy in, o: copy out, w: wait, p: the
                          locked operands' probe (or a wait for another
                          band's), U, D, K, P (another band's part of A,
                          from its device: from the peer stream's wait
                          for it), A (A's planes) */
  size_t bytes;
  double t0, t1;       /* host: when it began and ended, or was queued */
  cudaEvent_t a, b;    /* device marks: around it on its stream */
} gt_mark;

typedef struct
{
  int n, dropped;
  double t_ref;        /* host time of ref */
  cudaEvent_t ref;
  gt_mark m[GT_TIMELINE_MAX];
} gt_timeline;

/* A block of results on its way out: rows x columns from src on the
   device (leading dimension dld) to dst on the host (hld); es bytes an
   element.  */
typedef struct
{
  char *dst;
  const char *src;
  size_t hld, dld, es, rows;
} gt_block_out;

typedef struct
{
  gt_context *ctx;
  gt_timeline *tl;  /* NULL unless GPU_TILED_TRACE=2 */
  int threads;      /* copy threads, the caller included */
  int next;
  int stream_in;    /* copies into the slots with streaming stores */
  size_t piece;     /* bytes of a piece of gt_stage_upload and
                       gt_stage_download (0: a slot) */
  int prefaulting;  /* helpers faulting in the output (0: none) */
  /* seconds spent, for the trace */
  double t_in, t_out, t_wait, t_fault;   /* t_fault: at the end */
  double t_launch;   /* in the panels' launches (kernel 11 waits there) */
  double gpu_panels, gpu_span;   /* the panels run whole (not in pieces of
                                    k or blocks of rows) on the GPU: their
                                    runs' sum (over the span where panels
                                    run side by side), first start to
                                    last end */
  size_t bytes_in, bytes_out;
  /* C locked in place (gt_locked.h): each download goes out straight, one
     copy, and is checked once it is done (gt_stage_drain at the latest);
     where a page was stale, all of C (whole: all its columns, the call's
     C block) goes again through the slots at gt_stage_drain */
  int direct;
  gt_block_out whole;
  size_t whole_cols;
  int n_direct, n_checked, restaged;
  struct
  {
    gt_block_out o;
    size_t c_begin, c_end;
  } direct_out[GT_MAX_PANELS];
  size_t bytes_direct, stale_pages;
  /* operands locked in place and checked (gt_locked_operand): uploads
     from inside [in_lo[i], in_hi[i]) that need no conversion go straight,
     one 2-D copy each, not through the slots */
  const char *in_lo[2], *in_hi[2];
  size_t bytes_in_direct;
  /* a slot holding device results not yet copied out: the copy to make
     (dst NULL: none) */
  copy_job out[GT_SLOTS];
} gt_stager;

/* A monotonic clock in seconds.  */
double gt_now (void);

/* Whether an upload of `height` rows of `width` bytes, `spitch` apart on
   the host and `dpitch` on the device, may go straight from a locked
   operand (where it lies in one): one plain copy, or rows wide enough for
   the copy engine's 2-D copies.  */
int gt_stage_may_go_straight (size_t width, size_t height, size_t spitch,
                              size_t dpitch);

/* Host columns [c_begin, c_end) of src (rows x *, leading dimension hld)
   to device dst (leading dimension ld), through the slots on ctx->up.  */
gt_status gt_stage_upload (gt_stager *st, char *dst, size_t ld, size_t es,
                           const char *src, size_t src_es, size_t hld,
                           size_t rows, size_t c_begin, size_t c_end,
                           gt_interrupt_fn interrupted);

/* Rows [r0, r1) of host columns [c_begin, c_end) of src (leading
   dimension hld) to the same rows of device dst (leading dimension ld): a
   piece of k of a panel of B.  */
gt_status gt_stage_upload_rows (gt_stager *st, char *dst, size_t ld,
                                size_t es, const char *src, size_t src_es,
                                size_t hld, size_t r0, size_t r1,
                                size_t c_begin, size_t c_end,
                                gt_interrupt_fn interrupted);
/* Rows [r0, r1) of all k columns of A (as gt_stage_upload_rows): a block
   of A's rows, which goes straight from a lock from narrower parts than
   B's rows do.  */
gt_status gt_stage_upload_a_rows (gt_stager *st, char *dst, size_t ld,
                                  size_t es, const char *src, size_t src_es,
                                  size_t hld, size_t r0, size_t r1, size_t k,
                                  gt_interrupt_fn interrupted);

/* Columns [c_begin, c_end) of block o back to the host, once `ready`
   has happened on ctx->down.  The host side of each piece is copied when
   its slot is next needed, or by gt_stage_drain.  Where st->direct, one
   copy straight into o->dst instead, checked when it is done.  */
gt_status gt_stage_download (gt_stager *st, const gt_block_out *o,
                             size_t c_begin, size_t c_end,
                             cudaEvent_t ready);

/* The timeline (st->tl): begun on an idle stream, marks, printed and
   freed at the end.  gt_mark_begin returns the mark's index, or -1.  */
void gt_timeline_begin (gt_stager *st);
int gt_mark_begin (gt_stager *st, char what, size_t bytes,
                   cudaStream_t stream);
void gt_mark_end (gt_stager *st, int i, cudaStream_t stream);
/* A mark begun with no stream ended with the bytes it moved; dropped
   where it moved none in under 20 us.  */
void gt_mark_end_host (gt_stager *st, int i, size_t bytes);
void gt_timeline_print (gt_stager *st);

/* Waits for every slot and copies out what they hold, oldest first.  */
gt_status gt_stage_drain (gt_stager *st);

#endif
