/* gt_context.h -- what the host layer keeps between calls, one context per
   device (internal to the library).  */

#ifndef GT_CONTEXT_H
#define GT_CONTEXT_H

#include <cuda_runtime_api.h>
#include "gpu_tiled.h"
#include "gt_copy.h"
#include "gt_marks.h"
#include "gt_options.h"
#include "gt_plan.h"   /* GT_ROWS_OUT_MAX */

/* Pinned staging: GT_SLOTS slots of GT_SLOT_BYTES, reused round robin.  */
#define GT_SLOTS 8
#define GT_SLOT_BYTES ((size_t) 8 << 20)
/* Column panels of B and C in one host call.  */
#define GT_MAX_PANELS 64
/* Kernel streams beside comp, for panels run side by side.  */
#define GT_SIDE_STREAMS 3

typedef struct
{
  int ready;
  int device;                       /* CUDA ordinal */
  gt_options opt;                   /* read when the context was set up */
  gt_workers *workers;              /* copy and prefault helper threads */
  cudaStream_t up, comp, down;      /* host-to-device, kernels, back */
  cudaStream_t peer;                /* other devices' parts of a shared A */
  cudaStream_t side[GT_SIDE_STREAMS];   /* kernels beside comp's */
  cudaEvent_t side_mark;            /* orders comp and the side streams */
  cudaEvent_t slot_done[GT_SLOTS];  /* last copy through the slot ended */
  cudaEvent_t panel_in[GT_MAX_PANELS], panel_out[GT_MAX_PANELS];
  cudaEvent_t direct_done[GT_MAX_PANELS];   /* copies out straight into
                                               locked results ended */
  cudaEvent_t work_free;            /* device-pointer calls share scratch */
  cudaEvent_t a_done[GT_MARKS];     /* this band's part of a shared A
                                       queued up to each mark, for other
                                       devices' copies (gt_marks.h) */
  cudaEvent_t peer_in;              /* peer's copies queued so far, for comp */
  cudaEvent_t rows_out[GT_ROWS_OUT_MAX];   /* the last panel's blocks of C's
                                            rows written (gt_rows_out) */
  cudaEvent_t a_up_done, up_done;   /* a product's last upload of A, of
                                       anything, queued (the operands'
                                       probe waits for them) */
  void *dev;                        /* A | B | C | scratch of host calls */
  size_t dev_bytes;
  void *work;                       /* scratch of device-pointer calls */
  size_t work_bytes;
  unsigned char *pinned;            /* GT_SLOTS * GT_SLOT_BYTES */
  unsigned char *pinned_dev;        /* the same memory, device address */
  unsigned long side_products;      /* run in panels side by side (gt_info) */
  unsigned long piece_products;     /* the first panel in pieces of k
                                       (gt_info) */
  unsigned long rows_products;      /* the first panel alone in blocks
                                       of rows (gt_info) */
  unsigned long head_products;      /* a head of several panels in blocks
                                       of rows (gt_info) */
  unsigned long eighths_products;   /* complex, in eighths of n
                                       (gt_info) */
  unsigned long last_rows_products; /* the last panel's C out by blocks
                                       of rows (gt_info) */
  unsigned long memory_retries;     /* products that ran out of memory
                                       here midway and went on (gt_info) */
} gt_context;

/* The context of device (GT_DEVICE_DEFAULT or an ordinal), set up on first
   use and made the calling thread's current device.  */
gt_status gt_ctx_get (int device, gt_context **ctx);

/* The copy helpers of ordinal device's context and how many copy threads
   it takes (*threads), where the context is set up; NULL (and 1)
   otherwise.  Changes no device.  */
gt_workers *gt_ctx_workers (int device, int *threads);
/* GPU_TILED_TRACE's level as ordinal device's context read it at its
   set-up (0 where it is not set up).  Changes no device.  */
int gt_ctx_trace (int device);

/* The ordinal that device (GT_DEVICE_DEFAULT or an ordinal) stands for,
   or GT_ERR_ARG / GT_ERR_NO_DEVICE.  */
gt_status gt_resolve_device (int *device);

/* Every context's copy helpers stop spinning now (gt_copy_rest): the
   host is about to multiply on its own cores.  */
void gt_ctx_rest_helpers (void);

/* Frees the host calls' device buffer of ctx (after a failure elsewhere
   in a split product: every device gives its memory back).  */
void gt_ctx_release_buffers (gt_context *ctx);

/* Grows *buf (device memory of ctx) to at least bytes; keeps it
   otherwise.  */
gt_status gt_ctx_device_buffer (gt_context *ctx, void **buf, size_t *have,
                                size_t bytes, const char *what);

/* Allocates the pinned staging area if it is not there yet.  */
gt_status gt_ctx_pinned (gt_context *ctx);

/* The one place that turns a CUDA failure into a gt_status and the error
   text ("what: CUDA message (name)"); after an error that breaks the CUDA
   context it drops the current device's cached resources and resets it,
   so the next call starts clean.  */
gt_status gt_fail_cuda (cudaError_t err, const char *what);
/* On (1) for the host thread of a band of a split: a lost device context
   is then reset by gt_ctx_reset_lost, called once the bands have ended,
   not at once by gt_fail_cuda.  */
int gt_ctx_defer_resets (int on);   /* returns the setting before */
void gt_ctx_reset_lost (void);

/* The checks every product makes first: a known element type, a tile of
   0, 8, 16 or 32, a kernel that serves the type.  */
gt_status gt_check_product (gt_type type, int tile);

/* Whether rows x cols elements of es bytes can be addressed (their bytes
   fit a size_t); an error naming `what` where they cannot (a product
   whose sizes would wrap, as 2^32 x 1 times 1 x 2^32).  */
gt_status gt_check_extent (size_t rows, size_t cols, size_t es,
                           const char *what);

/* Sets the error text from a printf format and returns status.  */
gt_status gt_fail (gt_status status, const char *fmt, ...);

#endif
