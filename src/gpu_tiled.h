/* gpu_tiled.h -- the package's C interface.

   This is the only header shared by the Octave glue (C++, no CUDA types) and
   the CUDA side (no Octave types).  Every function returns a gt_status; on
   anything but GT_OK, gt_error_text () says what went wrong in one line that
   names the CUDA error where there is one.

   All matrices are column-major, as Octave stores them: element (i,j) of a
   matrix with leading dimension ld is at p[i + j*ld].  Sizes are size_t so
   operands with more than 2^31 elements index correctly.  */

#ifndef GPU_TILED_H
#define GPU_TILED_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  GT_OK = 0,
  GT_ERR_ARG,          /* a bad argument reached the library */
  GT_ERR_NO_DEVICE,    /* no driver, no device, or driver too old */
  GT_ERR_NO_MEMORY,    /* device or pinned host memory exhausted */
  GT_ERR_NO_KERNEL,    /* no kernel image for this GPU's architecture */
  GT_ERR_CUDA,         /* any other CUDA failure */
  GT_ERR_INTERRUPTED   /* the interrupt callback asked to stop */
} gt_status;

/* Tile argument values.  0 picks the fastest kernel for the shape.  */
enum { GT_TILE_DEFAULT = 0 };

/* Nonzero when tile is 0 or one of the classic tile sizes (8, 16, 32).  */
int gt_tile_is_valid (int tile);

/* One line describing the last failure of this library.  */
const char *gt_error_text (void);

typedef struct
{
  int usable;                /* 1 when a CUDA device can run our kernels */
  char reason[256];          /* why not, when usable == 0 */
  int device;                /* CUDA device ordinal in use */
  char name[256];
  int cc_major, cc_minor;
  int multiprocessors;
  size_t total_bytes, free_bytes;
  size_t cached_device_bytes;  /* buffers kept between calls */
  size_t cached_pinned_bytes;  /* page-locked staging kept between calls */
  int driver_version, runtime_version;
  char build_archs[128];       /* architectures compiled in */
} gt_info;

/* Fills *info; never fails for lack of a device (usable says so).  */
gt_status gt_device_info (gt_info *info);

/* Called between pipeline stages of long calls; a nonzero return stops
   the call with GT_ERR_INTERRUPTED, leaving the library usable.  */
typedef int (*gt_interrupt_fn) (void);

/* C = A * B for host matrices: A is m x k, B is k x n, C is m x n, each with
   leading dimension equal to its row count.  tile is GT_TILE_DEFAULT or 8,
   16, 32.  Device buffers, streams and pinned staging are cached between
   calls.  */
gt_status gt_mtimes_host (const float *A, const float *B, float *C,
                          size_t m, size_t n, size_t k, int tile,
                          gt_interrupt_fn interrupted);

/* C = A * B for matrices already in device memory, queued on stream (a
   cudaStream_t, 0 for the legacy default stream).  The call is
   asynchronous.  */
gt_status gt_mtimes_device (const float *A, size_t lda,
                            const float *B, size_t ldb,
                            float *C, size_t ldc,
                            size_t m, size_t n, size_t k, int tile,
                            void *stream);

/* Frees every cached buffer, stream and event.  Safe to call at any time;
   the next call sets up again.  */
void gt_reset (void);

#ifdef __cplusplus
}
#endif

#endif
