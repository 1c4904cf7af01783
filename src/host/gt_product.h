/* gt_product.h -- a product of host matrices, or a block of one, as the
   host layer's drivers hand it on (internal to the host layer):
     gt_mtimes.c   the public entry: checks, then one device or several
     gt_multi.c    a product split over several devices, one thread each
     gt_blocks.c   one device; blocks of C where all of it does not fit
     gt_host.c     one block, all of it in device memory: the pipeline
   A block of a larger matrix keeps the larger matrix's leading dimension
   on the host, so blocks need no copies of their own.  */

#ifndef GT_PRODUCT_H
#define GT_PRODUCT_H

#include "gt_context.h"

/* Results from this size up, where new memory, are faulted in by helper
   threads ahead of the copies out (smaller ones: by the copies).  */
#define GT_PREFAULT_MIN_BYTES ((size_t) 4 << 20)
/* Operands from this size up may be locked in place (gt_locked_operand),
   where the timed choice (gt_lock_choice.c) finds it pays: as results'
   locks, from GT_PREFAULT_MIN_BYTES.  Below it, the probe's fixed costs
   (a copy and its wait, the threads' wake-up) outweigh the trips through
   the staging saved.  From 16 MiB before: single 3000x700x5000's
   operands (8 and 14 MB) went through the host's copies of small pieces
   at 25 GB/s (bench/RESULTS.md, "A split band's own pieces of A back to
   back").  */
#define GT_LOCK_OPERAND_MIN_BYTES GT_PREFAULT_MIN_BYTES

/* A handed from one device to the others of a split by columns
   (gt_multi.c).  */
typedef struct gt_shared_a gt_shared_a;

typedef struct
{
  gt_type type;              /* of C */
  gt_operand A, B;           /* A m x k, B k x n, at the block's origin */
  void *C;                   /* m x n */
  size_t m, n, k;
  size_t lda, ldb, ldc;      /* host leading dimensions, in elements */
  int tile;
  int share;                 /* devices working at once (host threads are
                                shared between them) */
  char *fault_from;          /* new output memory to fault in ahead of the */
  size_t fault_bytes;        /* copies out (0: none) */
  int c_locked;              /* C's memory is locked: copies out straight
                                (gt_locked.h) */
  int a_locked, b_locked;    /* the operand's memory is locked and its
                                pages checked: uploads read it straight
                                (gt_locked_operand) */
  gt_shared_a *shared_a;     /* NULL: A comes through the host staging */
  int a_part;                /* the part of A this band's device takes
                                through the host and hands on */
  int *again;                /* a band sharing A: set where its operands'
                                checks (Inf, NaN) call for its C again,
                                which its caller writes once no band
                                copies from its device any more
                                (gt_product_run) */
  int wait;                  /* each panel of Gauss's three waits for its
                                operands' checks (such a band's C again) */
} gt_product;

/* Real flops of an m x n x k product of type c (a complex one counts
   four real products).  */
double gt_flops (gt_type c, size_t m, size_t n, size_t k);

/* The block q of p: rows [i0, i0 + m), columns [j0, j0 + n) of C.  */
gt_product gt_product_block (const gt_product *p, size_t i0, size_t j0,
                             size_t m, size_t n);

/* Runs p on ctx's device with all of it in device memory at once.
   GT_ERR_NO_MEMORY, with the context's buffer freed, where the device
   cannot hold it.  */
gt_status gt_product_run (gt_context *ctx, const gt_product *p,
                          gt_interrupt_fn interrupted);

/* The device bytes gt_product_run needs for p.  */
size_t gt_product_device_bytes (const gt_product *p);

/* Runs p on device (an ordinal or GT_DEVICE_DEFAULT), in blocks of C
   where the device cannot hold all of it.  */
gt_status gt_device_product (int device, const gt_product *p,
                             gt_interrupt_fn interrupted);

/* Runs p over the devices chosen (gt_set_devices), or on one device where
   a split would not pay.  */
gt_status gt_multi_product (const gt_product *p, gt_interrupt_fn interrupted);

/* A shared between the bands of a split (gt_multi.c): cut by columns into
   gt_shared_a_parts parts, part i columns [*k0, *k1).  Offsets below are
   A's bytes on the device (the same layout on every device) from its
   first.  */
int gt_shared_a_parts (const gt_shared_a *s);
void gt_shared_a_columns (const gt_shared_a *s, int i, size_t *k0,
                          size_t *k1);

/* The band of part i, as its part comes in: A's bytes up to `ready` (at
   dA on device) are queued on stream (last: all of the part); one of the
   band's events `done` (GT_MARKS of them, one a mark, gt_marks.h; past
   them the last moves on), recorded there, marks them, and the other
   bands are told.  Calls after the last, or after gt_shared_a_abandon of
   the part, do nothing.  */
cudaError_t gt_shared_a_advance (gt_shared_a *s, int i, int device,
                                 const void *dA, size_t ready, int last,
                                 const cudaEvent_t *done,
                                 cudaStream_t stream);
/* Part i will be handed on no further (its band took another path), or
   (failed) not at all, even where all of it was: its band failed, and no
   band is to copy from that device again.  */
void gt_shared_a_abandon (gt_shared_a *s, int i, int failed);

/* The band of part i takes panel 0 in pieces of kc columns of A (0: no
   pieces), said once its layout is known, before it waits for any
   other band (again: ignored).  gt_shared_a_abandon says 0 for a band
   that had not said.  */
void gt_shared_a_say_kc (gt_shared_a *s, int i, size_t kc);
/* Whether every band that takes pieces takes pieces of kc (the order of
   gt_piece_next needs it), once every band has said (asked only where
   the answer changes the order: gt_piece_orders).  */
int gt_shared_a_kc_agree (gt_shared_a *s, size_t kc);

/* Another band: part i of A up to byte `need` into dA, up to *copied
   already there; waits on the host until the part's band has queued that
   much, then queues on stream a peer copy up to the first mark that
   holds it, after that mark's event (*copied moves
   on).  *fetched 1 where done, 0 where the part is handed on no further:
   the caller takes the rest, from *copied (a whole column), through the
   host.  Or a CUDA error.  */
cudaError_t gt_shared_a_fetch (gt_shared_a *s, int i, int device, void *dA,
                               size_t need, size_t *copied,
                               cudaStream_t stream, int *fetched);

/* Forget what was measured (gt_reset): the crossover of each type
   (gt_crossover.c), the devices' speeds (gt_multi.c).  */
void gt_crossover_forget (void);
void gt_multi_forget (void);

#endif
