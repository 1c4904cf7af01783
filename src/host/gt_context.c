/* gt_context.c -- one context per device: set-up, cached buffers, error
   text, device query and reset.  */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gt_context.h"
#include "gt_band_threads.h"
#include "gt_copy.h"
#include "gt_heap.h"
#include "gt_locked.h"
#include "gt_plan.h"
#include "gt_product.h"

/* Indexed by device ordinal.  */
static gt_context contexts[GT_MAX_DEVICES];
/* GT_DEVICE_DEFAULT: the runtime's current device when first asked.  */
static int default_device = -1;
/* Each host thread has its own: the threads of a split product fail
   apart, and the caller reports theirs (gt_multi.c).  */
static _Thread_local char err_text[512] = "no error";

const char *
gt_error_text (void)
{
  return err_text;
}

int
gt_tile_is_valid (int tile)
{
  return tile == GT_TILE_DEFAULT || tile == 8 || tile == 16 || tile == 32;
}

gt_status
gt_check_product (gt_type type, int tile)
{
  if ((unsigned) type >= GT_TYPE_COUNT)
    return gt_fail (GT_ERR_ARG, "unknown element type %d", (int) type);
  if (!gt_tile_is_valid (tile))
    return gt_fail (GT_ERR_ARG, "tile must be 8, 16 or 32");
  if (!gt_type_served (type))
    return gt_fail (GT_ERR_UNSUPPORTED, "%s products are not supported yet",
                    gt_type_name (type));
  return GT_OK;
}

gt_status
gt_check_extent (size_t rows, size_t cols, size_t es, const char *what)
{
  if (rows && es && cols > SIZE_MAX / es / rows)
    return gt_fail (GT_ERR_ARG, "%s of %zu x %zu elements is larger than "
                    "memory can address", what, rows, cols);
  return GT_OK;
}

gt_status
gt_fail (gt_status status, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (err_text, sizeof err_text, fmt, ap);
  va_end (ap);
  return status;
}

static gt_status
status_of (cudaError_t err)
{
  switch (err)
    {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInitializationError:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorSystemNotReady:
      return GT_ERR_NO_DEVICE;
    case cudaErrorMemoryAllocation:
      return GT_ERR_NO_MEMORY;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorInvalidPtx:
    case cudaErrorInvalidKernelImage:
      return GT_ERR_NO_KERNEL;
    default:
      return GT_ERR_CUDA;
    }
}

/* Errors after which the context can run nothing more.  */
static int
is_sticky (cudaError_t err)
{
  switch (err)
    {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return 1;
    default:
      return 0;
    }
}

/* While set on this thread (a band of a product split over devices), a
   device whose CUDA context is lost is only marked in `lost`, and reset
   by gt_ctx_reset_lost once every band has ended: the other bands may
   still have copies from its memory, or waits on its events, queued.  */
static __thread int defer_resets;
static int lost[GT_MAX_DEVICES];

/* The CUDA context of dev (current) is gone: forget what lived in it and
   start over.  The helper threads and options are host things and stay.  */
static void
reset_lost (int dev)
{
  gt_context *c = &contexts[dev];
  gt_workers *w = c->workers;
  const gt_options opt = c->opt;
  memset (c, 0, sizeof *c);
  c->workers = w;
  c->opt = opt;
  gt_locked_forget_lost (dev);   /* its locks go with its context */
  cudaDeviceReset ();
  gt_kernels_forget ();
}

gt_status
gt_fail_cuda (cudaError_t err, const char *what)
{
  gt_status st = status_of (err);
  if (st == GT_ERR_NO_MEMORY)
    {
      size_t free_b = 0, total_b = 0;
      cudaMemGetInfo (&free_b, &total_b);
      cudaGetLastError ();
      gt_fail (st, "%s: out of device memory (%s; %.0f MiB free of %.0f "
               "MiB)", what, cudaGetErrorName (err), free_b / 1048576.0,
               total_b / 1048576.0);
    }
  else if (st == GT_ERR_NO_KERNEL)
    gt_fail (st, "%s: %s (%s): this build has kernels for %s only; "
             "reinstall with --with-cuda-arch naming this GPU", what,
             cudaGetErrorString (err), cudaGetErrorName (err),
             gt_build_archs ());
  else
    gt_fail (st, "%s: %s (%s)", what, cudaGetErrorString (err),
             cudaGetErrorName (err));
  int dev = -1;
  if (is_sticky (err) && cudaGetDevice (&dev) == cudaSuccess && dev >= 0
      && dev < GT_MAX_DEVICES)
    {
      if (defer_resets)
        __atomic_store_n (&lost[dev], 1, __ATOMIC_RELEASE);
      else
        reset_lost (dev);
    }
  cudaGetLastError ();
  return st;
}

int
gt_ctx_defer_resets (int on)
{
  const int was = defer_resets;
  defer_resets = on;
  return was;
}

void
gt_ctx_reset_lost (void)
{
  int dev = -1;
  const int had = cudaGetDevice (&dev) == cudaSuccess;
  for (int d = 0; d < GT_MAX_DEVICES; d++)
    if (__atomic_exchange_n (&lost[d], 0, __ATOMIC_ACQ_REL)
        && cudaSetDevice (d) == cudaSuccess)
      reset_lost (d);
  if (had)
    cudaSetDevice (dev);
  cudaGetLastError ();
}

#define TRY(call, what)                          \
  do {                                           \
    cudaError_t e_ = (call);                     \
    if (e_ != cudaSuccess)                       \
      return gt_fail_cuda (e_, what);            \
  } while (0)

/* The ordinal GT_DEVICE_DEFAULT stands for, or the error.  */
gt_status
gt_resolve_device (int *device)
{
  if (*device == GT_DEVICE_DEFAULT)
    {
      if (default_device < 0)
        {
          int count = 0;
          TRY (cudaGetDeviceCount (&count), "CUDA device query");
          if (count == 0)
            return gt_fail (GT_ERR_NO_DEVICE, "no CUDA device found");
          TRY (cudaGetDevice (&default_device), "CUDA device query");
        }
      *device = default_device;
    }
  if (*device < 0 || *device >= GT_MAX_DEVICES)
    return gt_fail (GT_ERR_ARG, "device %d is not a CUDA device ordinal "
                    "below %d", *device, (int) GT_MAX_DEVICES);
  return GT_OK;
}

/* The context's events of their own kind (not one of an array).  */
#define ONE_EVENTS (5 + GT_ROWS_OUT_MAX)
static void
one_events (gt_context *c, cudaEvent_t *e[ONE_EVENTS])
{
  e[0] = &c->side_mark;
  e[1] = &c->work_free;
  e[2] = &c->a_up_done;
  e[3] = &c->up_done;
  e[4] = &c->peer_in;
  for (int b = 0; b < GT_ROWS_OUT_MAX; b++)
    e[5 + b] = &c->rows_out[b];
}

/* The context's arrays of events of GT_MAX_PANELS.  */
_Static_assert (GT_MARKS == GT_MAX_PANELS, "a_done is one of the arrays");
#define EVENT_ARRAYS 4
static void
event_arrays (gt_context *c, cudaEvent_t *e[EVENT_ARRAYS])
{
  e[0] = c->panel_in;
  e[1] = c->panel_out;
  e[2] = c->direct_done;
  e[3] = c->a_done;
}

/* The streams and events of c, each made once; on a failure partway the
   ones made so far are left for ctx_destroy_handles.  */
static gt_status
ctx_create_handles (gt_context *c)
{
  TRY (cudaStreamCreateWithFlags (&c->up, cudaStreamNonBlocking),
       "creating streams");
  TRY (cudaStreamCreateWithFlags (&c->comp, cudaStreamNonBlocking),
       "creating streams");
  TRY (cudaStreamCreateWithFlags (&c->down, cudaStreamNonBlocking),
       "creating streams");
  TRY (cudaStreamCreateWithFlags (&c->peer, cudaStreamNonBlocking),
       "creating streams");
  for (int i = 0; i < GT_SIDE_STREAMS; i++)
    TRY (cudaStreamCreateWithFlags (&c->side[i], cudaStreamNonBlocking),
         "creating streams");
  for (int i = 0; i < GT_SLOTS; i++)
    TRY (cudaEventCreateWithFlags (&c->slot_done[i], cudaEventDisableTiming),
         "creating events");
  cudaEvent_t *arr[EVENT_ARRAYS];
  event_arrays (c, arr);
  for (int a = 0; a < EVENT_ARRAYS; a++)
    for (int i = 0; i < GT_MAX_PANELS; i++)
      TRY (cudaEventCreateWithFlags (&arr[a][i], cudaEventDisableTiming),
           "creating events");
  cudaEvent_t *one[ONE_EVENTS];
  one_events (c, one);
  for (int i = 0; i < ONE_EVENTS; i++)
    TRY (cudaEventCreateWithFlags (one[i], cudaEventDisableTiming),
         "creating events");
  return GT_OK;
}

static void
destroy_stream (cudaStream_t *s)
{
  if (*s)
    cudaStreamDestroy (*s);
  *s = NULL;
}

static void
destroy_event (cudaEvent_t *e)
{
  if (*e)
    cudaEventDestroy (*e);
  *e = NULL;
}

/* Every stream and event of c that was made (the device current).  */
static void
ctx_destroy_handles (gt_context *c)
{
  destroy_stream (&c->up);
  destroy_stream (&c->comp);
  destroy_stream (&c->down);
  destroy_stream (&c->peer);
  for (int i = 0; i < GT_SIDE_STREAMS; i++)
    destroy_stream (&c->side[i]);
  for (int i = 0; i < GT_SLOTS; i++)
    destroy_event (&c->slot_done[i]);
  cudaEvent_t *arr[EVENT_ARRAYS];
  event_arrays (c, arr);
  for (int a = 0; a < EVENT_ARRAYS; a++)
    for (int i = 0; i < GT_MAX_PANELS; i++)
      destroy_event (&arr[a][i]);
  cudaEvent_t *one[ONE_EVENTS];
  one_events (c, one);
  for (int i = 0; i < ONE_EVENTS; i++)
    destroy_event (one[i]);
  cudaGetLastError ();
}

/* A failure partway leaves no stream or event made (the helper threads
   stay, as after a reset of a lost device): the next call sets up anew.  */
static gt_status
ctx_setup (gt_context *c)
{
  gt_options_read (&c->opt);
  if (!c->workers && !(c->workers = gt_workers_new ()))
    return gt_fail (GT_ERR_NO_MEMORY, "out of host memory");
  gt_copy_linger (c->workers, c->opt.spin_us);
  TRY (gt_check_kernel_image (), "loading the kernels");
  const gt_status st = ctx_create_handles (c);
  if (st != GT_OK)
    {
      ctx_destroy_handles (c);
      return st;
    }
  c->ready = 1;
  return GT_OK;
}

gt_status
gt_ctx_get (int device, gt_context **out)
{
  *out = NULL;
  gt_status st = gt_resolve_device (&device);
  if (st != GT_OK)
    return st;
  gt_context *c = &contexts[device];
  c->device = device;
  *out = c;
  /* Asking is cheaper than setting (small products notice microseconds). */
  int current = -1;
  if (cudaGetDevice (&current) != cudaSuccess || current != device)
    TRY (cudaSetDevice (device), "CUDA device selection");
  return c->ready ? GT_OK : ctx_setup (c);
}

gt_workers *
gt_ctx_workers (int device, int *threads)
{
  *threads = 1;
  if (device < 0 || device >= GT_MAX_DEVICES || !contexts[device].ready)
    return NULL;
  *threads = contexts[device].opt.copy_threads;
  return contexts[device].workers;
}

int
gt_ctx_trace (int device)
{
  return device >= 0 && device < GT_MAX_DEVICES && contexts[device].ready
         ? contexts[device].opt.trace : 0;
}

gt_status
gt_ctx_device_buffer (gt_context *c, void **buf, size_t *have, size_t bytes,
                      const char *what)
{
  if (bytes <= *have)
    return GT_OK;
  if (*buf)
    {
      cudaDeviceSynchronize ();
      cudaFree (*buf);
      *buf = NULL;
      *have = 0;
    }
  /* The tests walk the out-of-memory path with a limit (gt_options.h).  */
  cudaError_t err = c->opt.device_limit && bytes > c->opt.device_limit
                    ? cudaErrorMemoryAllocation : cudaMalloc (buf, bytes);
  if (err != cudaSuccess)
    {
      *buf = NULL;
      cudaGetLastError ();
      size_t free_b = 0, total_b = 0;
      cudaMemGetInfo (&free_b, &total_b);
      return gt_fail (GT_ERR_NO_MEMORY,
                      "out of device memory: %s needs %.1f MiB, %.1f MiB "
                      "free of %.1f MiB (%s)", what, bytes / 1048576.0,
                      free_b / 1048576.0, total_b / 1048576.0,
                      cudaGetErrorName (err));
    }
  *have = bytes;
  return GT_OK;
}

void
gt_ctx_release_buffers (gt_context *c)
{
  if (!c->ready || cudaSetDevice (c->device) != cudaSuccess)
    {
      cudaGetLastError ();
      return;
    }
  cudaDeviceSynchronize ();
  cudaFree (c->dev);
  c->dev = NULL;
  c->dev_bytes = 0;
  cudaGetLastError ();
}

gt_status
gt_ctx_pinned (gt_context *c)
{
  if (c->pinned)
    return GT_OK;
  void *p = NULL, *d = NULL;
  cudaError_t err = cudaHostAlloc (&p, (size_t) GT_SLOTS * GT_SLOT_BYTES,
                                   cudaHostAllocPortable
                                   | cudaHostAllocMapped);
  if (err == cudaSuccess)
    {
      err = cudaHostGetDevicePointer (&d, p, 0);
      if (err != cudaSuccess)
        cudaFreeHost (p);
    }
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "allocating pinned staging memory");
  c->pinned = (unsigned char *) p;
  c->pinned_dev = (unsigned char *) d;
  return GT_OK;
}

static void
ctx_release (gt_context *c)
{
  gt_workers_free (c->workers);
  if (c->ready && cudaSetDevice (c->device) == cudaSuccess)
    {
      cudaDeviceSynchronize ();
      cudaFree (c->dev);
      cudaFree (c->work);
      cudaFreeHost (c->pinned);
      ctx_destroy_handles (c);
    }
  cudaGetLastError ();
  memset (c, 0, sizeof *c);
}

void
gt_ctx_rest_helpers (void)
{
  for (int d = 0; d < GT_MAX_DEVICES; d++)
    gt_copy_rest (contexts[d].workers);
  gt_band_rest ();
}

void
gt_reset (void)
{
  int current = -1;
  const int have_current = cudaGetDevice (&current) == cudaSuccess;
  gt_band_threads_stop ();   /* before the contexts their bands use */
  gt_locked_forget ();
  for (int d = 0; d < GT_MAX_DEVICES; d++)
    if (contexts[d].ready || contexts[d].workers)
      ctx_release (&contexts[d]);
  gt_crossover_forget ();
  gt_multi_forget ();
  gt_emulation_forget ();
  gt_heap_forget ();
  if (have_current)
    cudaSetDevice (current);
  cudaGetLastError ();
}

/* When the plug-in is unloaded, give the memory back while the runtime is
   still there.  */
__attribute__ ((destructor)) static void
gt_unload (void)
{
  gt_reset ();
}

gt_status
gt_device_info (int device, gt_info *info)
{
  memset (info, 0, sizeof *info);
  snprintf (info->build_archs, sizeof info->build_archs, "%s",
            gt_build_archs ());
  cudaDriverGetVersion (&info->driver_version);
  cudaRuntimeGetVersion (&info->runtime_version);
  if (cudaGetDeviceCount (&info->device_count) != cudaSuccess)
    info->device_count = 0;
  cudaGetLastError ();
  /* The default device is set up (its options read, as the tests'
     hooks expect); another is only asked, its context left as it is.  */
  gt_context *c = NULL;
  gt_status st = device == GT_DEVICE_DEFAULT ? gt_ctx_get (device, &c)
                                             : gt_resolve_device (&device);
  if (st == GT_OK && !c)
    {
      c = &contexts[device];
      cudaError_t e = cudaSetDevice (device);
      if (e == cudaSuccess)
        e = gt_check_kernel_image ();
      if (e != cudaSuccess)
        st = gt_fail_cuda (e, "CUDA device query");
      else if (!c->ready)
        c->device = device;
    }
  if (st != GT_OK)
    {
      snprintf (info->reason, sizeof info->reason, "%s", gt_error_text ());
      return st == GT_ERR_ARG ? st : GT_OK;
    }
  struct cudaDeviceProp prop;
  cudaError_t err = cudaGetDeviceProperties (&prop, c->device);
  if (err == cudaSuccess)
    err = cudaMemGetInfo (&info->free_bytes, &info->total_bytes);
  if (err != cudaSuccess)
    {
      gt_fail_cuda (err, "CUDA device query");
      snprintf (info->reason, sizeof info->reason, "%s", gt_error_text ());
      return GT_OK;
    }
  info->usable = 1;
  info->device = c->device;
  snprintf (info->name, sizeof info->name, "%s", prop.name);
  info->cc_major = prop.major;
  info->cc_minor = prop.minor;
  info->multiprocessors = prop.multiProcessorCount;
  info->cached_device_bytes = c->dev_bytes + c->work_bytes;
  info->cached_pinned_bytes = c->pinned ? (size_t) GT_SLOTS * GT_SLOT_BYTES
                                        : 0;
  info->memory_retries = c->memory_retries;
  info->side_products = c->side_products;
  info->piece_products = c->piece_products;
  info->rows_products = c->rows_products;
  info->head_products = c->head_products;
  info->eighths_products = c->eighths_products;
  info->last_rows_products = c->last_rows_products;
  for (int d = 0; d < info->device_count && d < GT_MAX_DEVICES; d++)
    {
      int can = 0;
      if (d != c->device
          && cudaDeviceCanAccessPeer (&can, c->device, d) == cudaSuccess
          && can)
        info->peers |= 1ULL << d;
    }
  cudaGetLastError ();
  return GT_OK;
}
