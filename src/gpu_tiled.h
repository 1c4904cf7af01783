/* gpu_tiled.h -- the package's C interface.

   This is the only header shared by the Octave glue (C++, no CUDA types) and
   the library below it (no Octave types).  Every function returns a
   gt_status; on anything but GT_OK, gt_error_text () says what went wrong in
   one line that names the CUDA error where there is one.

   All matrices are column-major, as Octave stores them: element (i,j) of a
   matrix with leading dimension ld is at p[i + j*ld], counted in elements of
   the matrix's type; complex elements are (re, im) pairs stored together, as
   Octave's Complex and FloatComplex are.  Sizes are size_t so operands with
   more than 2^31 elements index correctly.  */

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
  GT_ERR_INTERRUPTED,  /* the interrupt callback asked to stop */
  GT_ERR_UNSUPPORTED   /* no kernel serves this element type (yet) */
} gt_status;

/* The element types of A, B and C (all three the same).  */
typedef enum
{
  GT_SINGLE = 0,          /* float */
  GT_DOUBLE = 1,          /* double */
  GT_COMPLEX_SINGLE = 2,  /* float re, im */
  GT_COMPLEX_DOUBLE = 3,  /* double re, im */
  GT_TYPE_COUNT = 4
} gt_type;

/* Bytes per element of a type (0 for a value that is no gt_type).  */
size_t gt_type_size (gt_type type);

/* "single", "double", "complex single", "complex double".  */
const char *gt_type_name (gt_type type);

/* Tile argument values.  0 picks the fastest kernel for the shape.  */
enum { GT_TILE_DEFAULT = 0 };

/* Device argument values: the library's default device (the CUDA
   runtime's current device when the library first needs one), every
   device of the chosen set (gt_set_devices; host calls only), or a CUDA
   device ordinal below GT_MAX_DEVICES.  */
enum { GT_DEVICE_DEFAULT = -1, GT_DEVICES_ALL = -2, GT_MAX_DEVICES = 64 };

/* Nonzero when tile is 0 or one of the classic tile sizes (8, 16, 32).  */
int gt_tile_is_valid (int tile);

/* One line describing the last failure of this library.  */
const char *gt_error_text (void);

typedef struct
{
  int usable;                /* 1 when a CUDA device can run our kernels */
  char reason[256];          /* why not, when usable == 0 */
  int device;                /* CUDA device ordinal */
  int device_count;          /* CUDA devices the driver shows */
  char name[256];
  int cc_major, cc_minor;
  int multiprocessors;
  size_t total_bytes, free_bytes;
  size_t cached_device_bytes;  /* buffers kept between calls */
  size_t cached_pinned_bytes;  /* page-locked staging kept between calls */
  unsigned long side_products;   /* products run in panels side by side
                                   (their kernels on several streams) */
  unsigned long piece_products;  /* products whose first panel ran in
                                    pieces of k as A arrived */
  unsigned long rows_products;   /* products whose first panel alone ran
                                    in blocks of A's rows as they
                                    arrived */
  unsigned long head_products;   /* products whose first panels ran as one
                                    head in blocks of A's rows as they
                                    arrived */
  unsigned long eighths_products; /* complex products in eighths of n
                                     where their panels would have been
                                     wider */
  unsigned long last_rows_products; /* products whose last panel of C
                                       went out by blocks of rows as
                                       they were written */
  unsigned long memory_retries;  /* products that ran out of this device's
                                    memory midway and went on, in blocks
                                    or (a band of a split) on another
                                    device, since it was set up */
  unsigned long long peers;    /* bit d: this device can read device d's
                                  memory directly (peer access), as a
                                  split's bands sharing A need */
  int driver_version, runtime_version;
  char build_archs[128];       /* architectures compiled in */
} gt_info;

/* Fills *info for device (GT_DEVICE_DEFAULT or an ordinal); never fails for
   lack of a device (usable says so).  */
gt_status gt_device_info (int device, gt_info *info);

/* Called between pipeline stages of long calls; a nonzero return stops
   the call with GT_ERR_INTERRUPTED, leaving the library usable.  */
typedef int (*gt_interrupt_fn) (void);

/* A host operand: its data and its element type.  */
typedef struct
{
  const void *data;
  gt_type type;
} gt_operand;

/* Nonzero when C of type c can be the product of operands of types a and
   b: each is c, or c's real counterpart (a complex product with a real
   operand), or c's double counterpart where c is single or complex
   single (the operand is rounded to single in the host copy, as Octave
   converts it); a complex c needs a complex operand.  */
int gt_types_combine (gt_type c, gt_type a, gt_type b);

/* C = A * B for host matrices: A is m x k, B is k x n, C is m x n of type
   c (see gt_types_combine), each with leading dimension equal to its row
   count.  tile is GT_TILE_DEFAULT or 8, 16, 32; device as above: with
   GT_DEVICES_ALL large products are split over the chosen devices, each
   doing a share measured by its speed in earlier calls.  Products larger
   than a device's free memory go through in blocks of C.  Device buffers,
   streams, pinned staging and helper threads are kept between calls, one
   set per device.  */
gt_status gt_mtimes_host (gt_type c, gt_operand A, gt_operand B, void *C,
                          size_t m, size_t n, size_t k, int tile,
                          int device, gt_interrupt_fn interrupted);

/* Result memory.  The caller allocates each result that gt_mtimes_host
   fills between these two calls, with the allocator that will free it.
   On glibc (2.33 or later), a result of more than 32 MiB and at most
   2 GiB then comes from the heap of the process's main thread instead
   of a fresh mapping, and the heap keeps free memory at its top up to a
   quarter more than the budget (at most 2 GiB), and all of it from a
   result over 1.5 GiB to the next result or gt_reset: a loop's freed
   result is the next one's memory, its pages already there, and the
   copies out need no page faults.  The heap grows by results only while
   it holds less than the budget (Octave's arrays of 32 MiB and less
   count); past it, results kept (not freed) are fresh mappings as
   before.  The budget: GPU_TILED_RESULT_HEAP (bytes; 0 off), by default
   a sixteenth of the host's memory, at most 4 GiB; off where the user
   tuned malloc (MALLOC_*_ or GLIBC_TUNABLES) and on other C libraries.
   Read again after gt_reset.  gt_result_heap_begin returns what
   gt_result_heap_end takes.  One caller thread.  */
int gt_result_heap_begin (size_t bytes);
void gt_result_heap_end (int began);
size_t gt_result_heap_budget (void);   /* bytes; 0 where off */
/* Results of 4 MiB or more whose memory was there already (a freed
   result's), since gt_reset.  */
unsigned long gt_result_heap_reused (void);

/* Such a result's memory, when it comes back (one of the last four
   results' ranges again, or of the last eight operands'), is page-locked and stays so: the copies out
   write it straight from the device, not through the staging.  Each
   copy checks a word of each page afterwards and copies again through
   the staging the pages whose memory changed under the lock.  Locked at
   most: gt_lock_budget's bytes; GPU_TILED_LOCK_RESULTS=0: never.
   Unlocked by gt_reset.  The bytes locked now (results and operands),
   the products written straight and the stale pages copied again, since
   gt_reset.  */
size_t gt_results_locked_bytes (void);
unsigned long gt_results_direct (void);
unsigned long gt_results_stale_pages (void);
/* The bytes that may be locked at most, results and operands together
   (0: locking off): by default an eighth of the host's memory, at most
   32 GiB, and no less than the result heap's budget; the heap's budget
   where GPU_TILED_RESULT_HEAP sets it.  */
size_t gt_lock_budget (void);

/* Operands of 4 MiB or more that need no conversion may be locked by
   the same rule (one of the last four results' ranges or of the last
   eight operands' again, under the same budget): the uploads then read
   them straight.  Once the uploads have read it, each call checks that
   every page of a locked operand is still the page the process sees (a
   word of each written from the device through the lock, read, put
   back); where one changed, the product runs again with that operand
   staged, and its range is not locked again for 16 calls.  The probe
   writes a word of each page for a moment: no other thread may read the
   operands during the call.  It costs about 2.5 us per MB, more than
   straight uploads save on some hosts and less on others
   (bench/RESULTS.md), so by default a product that comes back (the
   same classes, shape, lockable operands and devices) is timed both
   ways, three calls each, in pairs (locked, staged, staged, locked,
   ...), and goes on the faster for its next 256 calls; one whose locked
   way gives no timed call in 8 goes staged.  GPU_TILED_LOCK_OPERANDS=1
   locks always, =0 never, anything else times (gt_operands_lock_mode:
   1, 0, or -1 for timed; before the first call after gt_reset, what the
   variable says now).  The products that read an operand straight and
   the pages found changed, since gt_reset; the products timed whose
   operands go locked (gt_operands_chosen (1)) or staged (0), of the
   last 32 remembered.  */
int gt_operands_lock_mode (void);
unsigned long gt_operands_chosen (int locked);
unsigned long gt_operands_direct (void);
unsigned long gt_operands_stale_pages (void);

/* C = A * B for matrices of one type already in memory of device
   (GT_DEVICE_DEFAULT or an ordinal), queued on stream (a cudaStream_t of
   that device, 0 for its legacy default stream).  The call is
   asynchronous, except that a complex product run as three real products
   waits for its check of the operands (Inf, NaN), and a product emulated
   on the INT8 tensor cores waits for its scans' choice of moduli (work
   queued on the stream before it runs first): callers that drive several
   devices give each its own host thread.  Leading dimensions may exceed
   the row counts.  Complex operands must be aligned to their
   elements (8 or 16 bytes, as from cudaMalloc).  Complex products use
   scratch of the device's context for the planes.  */
gt_status gt_mtimes_device (gt_type type, const void *A, size_t lda,
                            const void *B, size_t ldb, void *C, size_t ldc,
                            size_t m, size_t n, size_t k, int tile,
                            int device, void *stream);

/* The devices that host calls with GT_DEVICES_ALL split products over:
   count ordinals (distinct, each a device the driver shows), or count 0
   for the default set: the default device and every other device of the
   same compute capability.  */
gt_status gt_set_devices (const int *devices, int count);

/* The set in use, resolved: up to max ordinals into devices; returns how
   many there are (0 where no device is usable; gt_error_text says why).  */
int gt_get_devices (int *devices, int max);

/* Seconds of one n x n x n product of type c by the caller's own host
   product (the one it would run instead of this library's); negative on
   failure.  */
typedef double (*gt_host_timer) (gt_type c, size_t n, void *arg);

/* The crossover between the host's product and the GPU, for products
   given no tile: measured once per type of C (gt_runs_on_host), at
   GT_CROSSOVER_POINTS square sizes on each side; each side's time is the
   line through its points (the host's against flops, the GPU's against
   bytes).  */
#define GT_CROSSOVER_POINTS 8
/* Vector products of over 16 MiB, by kind: m of 1 (a row times a
   matrix), else n of 1 (a matrix times a column), else k of 1 (an outer
   product).  */
#define GT_VECTOR_KINDS 3
typedef struct
{
  int measured;
  double sizes[GT_CROSSOVER_POINTS];   /* square sizes measured, ascending */
  double host_s[GT_CROSSOVER_POINTS];  /* each side's seconds at them */
  double gpu_s[GT_CROSSOVER_POINTS];   /* (medians) */
  double host_fixed_s, host_flops_per_s;   /* host: at the smallest, and */
  double gpu_fixed_s, gpu_bytes_per_s;     /* the rate beyond the largest */
  double square_n;            /* the first square size the lines do not
                                 send to the host */
  unsigned long long host_products;        /* sent to the host so far,
                                              vector products too */
  /* vector products over 16 MiB, per kind, in the size band of its last
     call: the calls timed on each side (gt_vector_timed) and the bytes
     per second of each side's best */
  unsigned long long vector_gpu_calls[GT_VECTOR_KINDS];
  unsigned long long vector_host_calls[GT_VECTOR_KINDS];
  double vector_gpu_bytes_per_s[GT_VECTOR_KINDS];
  double vector_host_bytes_per_s[GT_VECTOR_KINDS];
} gt_crossover_info;

/* Nonzero where C = A * B (m x k times k x n, types as in
   gt_mtimes_host) is faster by the caller's host product than on the GPU:
   the caller then runs it itself.  The first small product of a type
   measures both sides (timer for the host's).  Products of more than 16
   MiB go to the GPU, but for vector products (GT_VECTOR_KINDS), which
   the host reads once at its memory's rate, often above the link's:
   those are chosen on their own calls, which the caller times
   (gt_vector_timed), per type, kind and size band (a power of two of
   bytes): the first two on the GPU, the
   third on the host, then the side whose best call moved more bytes per
   second, the other side again after 4 calls (the GPU for two), then
   after twice as many each time or, whichever is more, as many as keep
   a retry's extra time within 2% of the faster side's calls (at most
   4096).  The option GPU_TILED_CROSSOVER=off sends every product to the
   GPU.  */
int gt_runs_on_host (gt_type c, gt_type a, gt_type b, size_t m, size_t n,
                     size_t k, gt_host_timer timer, void *arg);

/* A product given no tile took `seconds`, on the host where on_host (the
   caller's product) or on the GPU, timed by the caller around the whole
   call, its result's allocation too.  Vector products of over 16 MiB
   keep it for gt_runs_on_host's choice; other products are ignored.  */
void gt_vector_timed (gt_type c, gt_type a, gt_type b, size_t m, size_t n,
                      size_t k, int on_host, double seconds);

/* What was measured for type c (zeros until measured).  */
void gt_crossover_get (gt_type c, gt_crossover_info *info);

/* Kernel 11: single products emulated on the INT8 tensor cores (Hopper).
   Counts since the last gt_reset.  */
typedef struct
{
  unsigned long long products;  /* emulated */
  unsigned long long declined;  /* the scan found no affordable number of
                                   moduli; kernel 9 ran instead */
  unsigned long long kept_scans;   /* emulated products (panels) that kept
                                      the previous panel's scan of A */
  unsigned long long kept_slices;  /* and its slices of A (the same number
                                      of moduli) */
  unsigned long long pieces;    /* pieces of k run on kernel 11 (a first
                                   panel's, each scanned on its own;
                                   emulated or declined) */
  unsigned long long a_ahead;   /* emulated panels that found A's planes
                                   made during the first panel's pieces */
  int last_moduli;              /* of the last emulated product */
  int mode;                     /* GT_EMULATE_* */
  int usable;                   /* the current device runs kernel 11 */
} gt_emulation_info;
#define GT_EMULATE_COST 0     /* where predicted faster (the default) */
#define GT_EMULATE_OFF 1      /* GPU_TILED_EMULATE=off: never */
#define GT_EMULATE_ALWAYS 2   /* GPU_TILED_EMULATE=always: wherever it can
                                 run (tests) */
void gt_emulation_get (gt_emulation_info *info);

/* Frees every cached buffer, stream, event and helper thread of every
   device, and forgets the crossover and the devices' measured speeds.
   Safe to call at any time; the next call sets up again and reads the
   GPU_TILED_* options anew.  */
void gt_reset (void);

#ifdef __cplusplus
}
#endif

#endif
