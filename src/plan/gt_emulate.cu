/* The policy of kernel 11 (single products emulated on the INT8 tensor
   cores, kernels/gt_k11_ozaki.cu): where it runs, what it is predicted to
   cost, and what runs instead where the scan of the operands finds that no
   affordable number of moduli promises single precision (kernel 9).  The
   kernel's file holds the mechanism; this file decides.  */

#include <math.h>
#include <pthread.h>
#include <string.h>
#include "gt_costs.h"
#include "gt_facts.h"
#include "gt_k11_ozaki.h"

static int emulation = GT_EMULATE_COST;
static unsigned long long emulated, declined, kept_scans, kept_slices,
  pieces, a_ahead;
static int last_moduli;

/* Measured on an H100 (bench/RESULTS.md, kernel 11): kernel 9's rate at
   8192^3; the INT8 products' rate per SM and what each round of tiles
   loses at short k (the epilogue, which one block per SM cannot hide, up
   to k = 2048, falling with k^2 past it: 8 us a round when the residues
   were stored straight from the accumulators; through shared memory,
   from none at k = 2048 to about 4 us at k = 512, a launch's own cost
   included); the rate of the memory passes (scan, slices, residues,
   combine); the fixed cost of the launches and the wait for the scan's
   choice.  */
#define K9_FLOPS 57e12
#define INT8_OPS 1.3e15
#define ROUND_LOSS_S 2.3e-6
#define PASS_BYTES 2.1e12
#define FIXED_S 45e-6
/* Emulation is chosen where predicted at least this much faster.  */
#define MARGIN 1.15

extern "C" void
gt_plan_set_emulation (int mode)
{
  __atomic_store_n (&emulation, mode, __ATOMIC_RELAXED);
  gt_plans_forget ();   /* after it: a plan of the new generation sees it */
}

extern "C" int
gt_k11_usable (void)
{
  const gt_device_props *d = gt_device_props_current ();
  return d && d->cc_major == 9 && d->cc_minor == 0
         && strstr (gt_build_archs (), "sm_90a") != NULL
         && d->smem_block_optin >= gt_oz_smem_bytes ();
}

/* Seconds of kernel 11 with the usual 8 moduli.  Rounds of one tile per
   SM: whole rounds where there are few, as many as the tiles fill where
   there are many (their times then spread).  */
extern "C" double
gt_k11_seconds (size_t m, size_t n, size_t k)
{
  const int moduli = 8;
  const int sms = gt_facts_current ()->sms;
  gt_oz_work w;
  gt_oz_layout (&w, moduli, m, n, k, NULL);
  const double tiles = (double) (w.mp / GT_OZ_TILE_M) * (w.np / GT_OZ_TILE_N);
  double rounds = tiles * moduli / sms;
  if (rounds < 4)
    rounds = ceil (rounds);
  const double kp = (double) w.kp;
  const double round_s = 2.0 * GT_OZ_TILE_M * GT_OZ_TILE_N * kp
                         / (INT8_OPS / sms)
                         + ROUND_LOSS_S * (kp < 2048 ? 1.0
                                           : (2048 / kp) * (2048 / kp));
  const double bytes = 8.0 * (m * k + k * n)
                       + moduli * (double) (w.mp + w.np) * w.kp
                       + 2.0 * moduli * w.ldr * n + 4.0 * m * n;
  return rounds * round_s + bytes / PASS_BYTES + FIXED_S;
}

/* A piece of k on kernel 11 (gt_k11_piece): its run, and its m x n double
   sums read and written.  */
extern "C" double
gt_k11_piece_seconds (size_t m, size_t n, size_t kc)
{
  return gt_k11_seconds (m, n, kc) + 16.0 * m * n / PASS_BYTES;
}

/* Kernel 9's plan for the shape: what runs where the scan declines, and
   the yardstick of the cost.  */
static double
k9_plan (gt_plan *p9, size_t m, size_t n, size_t k, int repack)
{
  *p9 = gt_plan_make (GT_SINGLE, GT_K9_DMMA);
  if (!gt_k9_usable ())
    return HUGE_VAL;
  return gt_cost_k9 (p9, m, n, k, repack);
}

/* The costs' unit in seconds: kernel 9's cost of 8192^3 against its
   measured time there (its cost model then says how other shapes fare).
   Once per device (and repack): it is a cost model's run of its own.  */
static double unit_seconds[GT_MAX_DEVICES][2];   /* 0: not yet */

extern "C" double
gt_cost_seconds (int repack)
{
  int dev = -1;
  const int cached = gt_current_device (&dev) && dev >= 0
                     && dev < GT_MAX_DEVICES;
  double u = 0;
  if (cached)
    __atomic_load (&unit_seconds[dev][repack != 0], &u, __ATOMIC_RELAXED);
  if (u > 0)
    return u;
  const double n = 8192;
  gt_plan p9;
  u = 2 * n * n * n / K9_FLOPS / k9_plan (&p9, 8192, 8192, 8192, repack);
  if (cached)
    __atomic_store (&unit_seconds[dev][repack != 0], &u, __ATOMIC_RELAXED);
  return u;
}

/* Scratch for the scan's largest choice, or for kernel 9 (p9, the plan it
   runs where the scan declines), whichever is more.  */
static size_t
k11_work (const gt_plan *p9, size_t m, size_t n, size_t k)
{
  gt_oz_work w;
  gt_oz_layout (&w, GT_OZ_MAX_USED, m, n, k, NULL);
  return w.bytes > p9->work_bytes ? w.bytes : p9->work_bytes;
}

extern "C" double
gt_cost_k11 (gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  const int mode = __atomic_load_n (&emulation, __ATOMIC_RELAXED);
  if (mode == GT_EMULATE_OFF || p->type != GT_SINGLE
      || k == 0 || k > GT_OZ_MAX_K || !gt_k11_usable ())
    return HUGE_VAL;
  gt_plan p9;
  const double c9 = k9_plan (&p9, m, n, k, repack);
  if (!(c9 < HUGE_VAL))
    return HUGE_VAL;
  p->work_bytes = k11_work (&p9, m, n, k);
  if (mode == GT_EMULATE_ALWAYS)
    return 0;
  const double unit = gt_cost_seconds (repack);
  const double t9 = c9 * unit;
  const double t11 = gt_k11_seconds (m, n, k);
  return t11 * MARGIN < t9 ? t11 / unit : HUGE_VAL;
}

extern "C" size_t
gt_k11_row_work (const gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  (void) p;
  gt_plan p9;
  k9_plan (&p9, m, n, k, repack);
  return k11_work (&p9, m, n, k);
}

/* What the scratch holds of A after a product emulated on it: A's sums,
   and its planes and exponents for `moduli` moduli (0: nothing).  */
typedef struct
{
  const void *A, *work;
  size_t lda, m, k;
  int moduli;
  int guessed;   /* made ahead, on guessed scales (gt_k11_a_ahead) */
} kept_a;

/* Where the host learns the scans' choices, per device: pinned words the
   choices are stored into (one per product of a launch; to_mailbox) and
   the event that says they are there (made at the first product, kept
   until gpu_tiled_reset), and a lock that keeps two host threads'
   products on one device from reading each other's choice; and what
   the last product emulated on the device left of A in
   its scratch.  */
/* A product's scan tells its choice, a word left free and its ratio
   (gt_oz_work.choice, .ratio: 16 bytes together): a mailbox's pinned
   words hold that for each place of A.  */
#define CHOICE_WORDS 4
static_assert (GT_A_SLOTS * CHOICE_WORDS >= 4, "gt_plan_read_back's words");

typedef struct
{
  int *choice;
  int *choice_dev;        /* the same words as the device sees them (NULL:
                             not mapped; copies then) */
  cudaEvent_t copied;
  kept_a a[GT_A_SLOTS];   /* one per place of A in the scratch */
} choice_mailbox;

static choice_mailbox mailboxes[GT_MAX_DEVICES];
static pthread_mutex_t mailbox_locks[GT_MAX_DEVICES];
static pthread_once_t mailbox_locks_once = PTHREAD_ONCE_INIT;

static void
mailbox_locks_init (void)
{
  for (int d = 0; d < GT_MAX_DEVICES; d++)
    pthread_mutex_init (&mailbox_locks[d], NULL);
}

/* The current device's mailbox, made where it is not there yet, and
   locked: mailbox_done unlocks it.  */
static cudaError_t
mailbox (choice_mailbox **out, int *dev_out)
{
  int dev;
  cudaError_t err = cudaGetDevice (&dev);
  if (err != cudaSuccess)
    return err;
  if (dev < 0 || dev >= GT_MAX_DEVICES)
    return cudaErrorInvalidDevice;
  pthread_once (&mailbox_locks_once, mailbox_locks_init);
  pthread_mutex_lock (&mailbox_locks[dev]);
  *dev_out = dev;
  choice_mailbox *m = &mailboxes[dev];
  if (!m->choice)
    {
      if ((err = cudaEventCreateWithFlags (&m->copied,
                                           cudaEventDisableTiming))
          == cudaSuccess
          && (err = cudaHostAlloc ((void **) &m->choice,
                                   GT_A_SLOTS * CHOICE_WORDS * sizeof (int),
                                   cudaHostAllocMapped)) != cudaSuccess)
        cudaEventDestroy (m->copied);
      if (err != cudaSuccess)
        {
          m->choice = NULL;
          pthread_mutex_unlock (&mailbox_locks[dev]);
          return err;
        }
      if (cudaHostGetDevicePointer ((void **) &m->choice_dev, m->choice, 0)
          != cudaSuccess)
        {
          cudaGetLastError ();
          m->choice_dev = NULL;
        }
    }
  *out = m;
  return cudaSuccess;
}

static void
mailbox_done (int dev)
{
  pthread_mutex_unlock (&mailbox_locks[dev]);
}

/* count words of src (device memory) into the mailbox's from word i on,
   queued on s: stored by a kernel where the device maps the mailbox, as
   a copy to the host may wait behind C's copies out under way on the
   copy engine, and the launch that waits for the choice with it (0.990-
   0.998 of the time with copies at single 4096^3 to 8192^3, one GPU and
   split: bench/RESULTS.md, "The probe's tokens and kernel 11's choice by
   a kernel"), else copied.  */
static cudaError_t
to_mailbox (const choice_mailbox *box, int i, const int *src, int count,
            cudaStream_t s)
{
  if (box->choice_dev)
    return gt_words_to_host (box->choice_dev + i, src, count, s);
  return cudaMemcpyAsync (box->choice + i, src, count * sizeof (int),
                          cudaMemcpyDeviceToHost, s);
}

extern "C" cudaError_t
gt_plan_read_back (const int *const *src, int count, int *out,
                   cudaStream_t s)
{
  if (count < 1 || count > 4)
    return cudaErrorInvalidValue;
  choice_mailbox *box;
  int dev;
  cudaError_t err = mailbox (&box, &dev);
  if (err != cudaSuccess)
    return err;
  for (int i = 0; i < count && err == cudaSuccess; i++)
    err = to_mailbox (box, i, src[i], 1, s);
  if (err == cudaSuccess)
    err = cudaEventRecord (box->copied, s);
  if (err == cudaSuccess)
    err = cudaEventSynchronize (box->copied);
  for (int i = 0; i < count && err == cudaSuccess; i++)
    out[i] = box->choice[i];
  mailbox_done (dev);
  return err;
}

/* Nonzero where the caller says the scratch is as the previous panel
   left it (a->a_kept) and that panel was emulated on the same A: A's
   scan is not run again, nor its slices where the choice is the same.  */
static int
a_still_there (const kept_a *k, const gt_gemm_args *a)
{
  return a->a_kept && k->moduli > 0 && k->A == a->A && k->work == a->work
         && k->lda == a->lda && k->m == a->m && k->k == a->k;
}

/* Every record forgotten (box locked).  */
static void
forget_kept (choice_mailbox *box)
{
  for (int q = 0; q < GT_A_SLOTS; q++)
    box->a[q].moduli = box->a[q].guessed = 0;
}

extern "C" void
gt_k11_drop_kept (void)
{
  int dev;
  if (cudaGetDevice (&dev) != cudaSuccess || dev < 0 || dev >= GT_MAX_DEVICES)
    {
      cudaGetLastError ();
      return;
    }
  pthread_once (&mailbox_locks_once, mailbox_locks_init);
  pthread_mutex_lock (&mailbox_locks[dev]);
  forget_kept (&mailboxes[dev]);
  pthread_mutex_unlock (&mailbox_locks[dev]);
}

extern "C" size_t
gt_k11_place_bytes (size_t m, size_t n, size_t k)
{
  return gt_oz_a_part_bytes (GT_OZ_MAX_USED, m, k)
         + gt_oz_scan_part_bytes (n, k);
}

/* The places of a scratch (gt_gemm_args.a_slots, 0 meaning one).  */
static int
slots_of (const gt_gemm_args *a)
{
  return a->a_slots > 1 ? a->a_slots : 1;
}

/* The layout of a launch: A's part and B's scan part in their places
   (a->a_slot of a->a_slots each), the planes after all of them.  */
static void
launch_layout (gt_oz_work *w, const gt_gemm_args *a)
{
  const int slots = slots_of (a);
  const size_t part = gt_oz_a_part_bytes (GT_OZ_MAX_USED, a->m, a->k);
  const size_t scan = gt_oz_scan_part_bytes (a->n, a->k);
  char *p = (char *) a->work;
  gt_oz_layout_split (w, GT_OZ_MAX_USED, a->m, a->n, a->k,
                      p + a->a_slot * part,
                      p + slots * part + a->a_slot * scan,
                      p + slots * (part + scan));
}

/* One product of a launch: its layout, the moduli its place of A held
   (0: A is scanned and sliced afresh) and the scan's choice.  */
typedef struct
{
  gt_oz_work w;
  int a_have, a_guessed, moduli;
  double ratio;   /* its scan's estimate for 7 moduli over SGEMM's floor */
} k11_product;

/* Product i's scan queued, its choice copied into the mailbox's word i
   (box locked); its record of A cleared until it is known emulated.  */
static cudaError_t
queue_scan (choice_mailbox *box, const gt_gemm_args *a, k11_product *o,
            int i, cudaStream_t s)
{
  kept_a *mine = &box->a[a->a_slot];
  o->a_have = a_still_there (mine, a) ? mine->moduli : 0;
  o->a_guessed = o->a_have && mine->guessed;
  mine->moduli = mine->guessed = 0;
  const float *A = (const float *) a->A, *B = (const float *) a->B;
  cudaError_t err = o->a_have ? gt_oz_scan_kept (&o->w, B, a->ldb, s)
                              : gt_oz_scan (&o->w, A, a->lda, B, a->ldb, s);
  if (err == cudaSuccess)
    err = to_mailbox (box, CHOICE_WORDS * i, o->w.choice, CHOICE_WORDS, s);
  return err;
}

/* The scans of `count` products and their choices, with the first one's
   slices queued before the host waits (the GPU slices while it waits):
   records kept for the emulated, all forgotten where one declined
   (kernel 9 then runs on the scratch).  */
static cudaError_t
scan_all (const gt_gemm_args *g, k11_product *o, int count, cudaStream_t s)
{
  choice_mailbox *box;
  int dev;
  cudaError_t err = mailbox (&box, &dev);
  if (err != cudaSuccess)
    return err;
  /* places past these products', where their planes go, and another
     scratch's (it may be reused) */
  for (int q = 0; q < GT_A_SLOTS; q++)
    if (q >= slots_of (&g[0]) || box->a[q].work != g[0].work)
      box->a[q].moduli = box->a[q].guessed = 0;
  for (int i = 0; i < count && err == cudaSuccess; i++)
    err = queue_scan (box, &g[i], &o[i], i, s);
  if (err == cudaSuccess)
    err = cudaEventRecord (box->copied, s);
  if (err == cudaSuccess)
    err = gt_oz_slice_chosen (&o[0].w, (const float *) g[0].A, g[0].lda,
                              (const float *) g[0].B, g[0].ldb, o[0].a_have,
                              o[0].a_guessed, s);
  /* the caller's host work while the GPU scans (the next panel's copies
     in: bench/RESULTS.md, "The host's work beside kernel 11's wait") */
  if (err == cudaSuccess && g[0].idle)
    g[0].idle (g[0].idle_arg);
  /* (after an error the stores into the pinned words may still be under
     way: harmless, the words are only read here) */
  if (err == cudaSuccess)
    err = cudaEventSynchronize (box->copied);
  int declines = 0;
  for (int i = 0; i < count; i++)
    {
      const int *told = box->choice + CHOICE_WORDS * i;
      o[i].moduli = err == cudaSuccess ? told[0] : 0;
      o[i].ratio = err == cudaSuccess ? *(const double *) (told + 2) : 0;
      declines += o[i].moduli == 0;
      if (o[i].moduli)
        {
          const kept_a now = { g[i].A, g[i].work, g[i].lda, g[i].m, g[i].k,
                               o[i].moduli, 0 };
          box->a[g[i].a_slot] = now;
        }
    }
  if (declines)
    forget_kept (box);
  mailbox_done (dev);
  return err;
}

/* The products and combine of w by C's blocks of rows, each block's done
   after it (gt_rows_out).  */
static cudaError_t
by_rows (const gt_oz_work *w, const gt_gemm_args *a, gt_rows_out *rows,
         cudaStream_t s)
{
  cudaError_t err = cudaSuccess;
  rows->by_rows = 1;
  while (err == cudaSuccess && rows->called < rows->blocks)
    {
      size_t r0, r1;
      gt_rows_block (a->m, rows->blocks, rows->called, &r0, &r1);
      err = gt_oz_products_rows (w, r0, r1, s);
      if (err == cudaSuccess)
        err = gt_oz_combine_rows (w, (float *) a->C, a->ldc, r0, r1, s);
      if (err == cudaSuccess)
        err = gt_rows_out_next (rows, s);
    }
  return err;
}

/* Product i, whose scan chose moduli, queued: its slices (queued already
   where i is 0), products and combine (with a piece's sums: sums_in,
   sums_out, as gt_oz_combine_sums; or by C's blocks of rows: rows);
   counted once queued.  */
static cudaError_t
finish_emulated (const gt_gemm_args *a, k11_product *o, int i,
                 const double *sums_in, double *sums_out, gt_rows_out *rows,
                 cudaStream_t s)
{
  cudaError_t err = cudaSuccess;
  if (i > 0)
    err = gt_oz_slice_chosen (&o->w, (const float *) a->A, a->lda,
                              (const float *) a->B, a->ldb, o->a_have,
                              o->a_guessed, s);
  o->w.moduli = o->moduli;   /* the planes stay where the slices put them */
  if (err == cudaSuccess && rows)
    err = by_rows (&o->w, a, rows, s);
  else if (err == cudaSuccess)
    {
      err = gt_oz_products (&o->w, s);
      if (err == cudaSuccess)
        err = gt_oz_combine_sums (&o->w, sums_in, sums_out, (float *) a->C,
                                  a->ldc, s);
    }
  if (err != cudaSuccess)
    return err;
  __atomic_fetch_add (&emulated, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add (&kept_scans, o->a_have != 0, __ATOMIC_RELAXED);
  __atomic_fetch_add (&kept_slices, o->a_have == o->moduli,
                      __ATOMIC_RELAXED);
  __atomic_fetch_add (&a_ahead, o->a_guessed, __ATOMIC_RELAXED);
  __atomic_store_n (&last_moduli, o->moduli, __ATOMIC_RELAXED);
  return cudaSuccess;
}

/* count products in places of their own, of one scratch's GT_A_SLOTS at
   most (what launch_layout, scan_all's records and its words assume).  */
static int
places_apart (const gt_gemm_args *g, int count)
{
  const int slots = slots_of (&g[0]);
  if (count < 1 || count > slots || slots > GT_A_SLOTS)
    return 0;
  unsigned seen = 0;
  for (int i = 0; i < count; i++)
    {
      if (slots_of (&g[i]) != slots || g[i].a_slot < 0
          || g[i].a_slot >= slots || (seen & 1u << g[i].a_slot))
        return 0;
      seen |= 1u << g[i].a_slot;
    }
  return 1;
}

/* The host waits for a scan's choice before it queues the products (the
   one wait inside a plan's run: what follows depends on it).  Products
   that share a scratch (Gauss's three: a->a_slot of a->a_slots, each
   keeping its A and its scan apart; the planes of B and C shared) are
   scanned first, all of them, so that the host waits once: then each
   one's slices, products and combine in turn, and kernel 9 for any whose
   scan declined after all the others, as it takes the whole scratch.  */
extern "C" cudaError_t
gt_k11_launch_many (const gt_gemm_args *g, int count, cudaStream_t s)
{
  if (!places_apart (g, count))
    return cudaErrorInvalidValue;
  if (g[0].m == 0 || g[0].n == 0)
    return cudaSuccess;
  k11_product o[GT_A_SLOTS];
  for (int i = 0; i < count; i++)
    launch_layout (&o[i].w, &g[i]);
  cudaError_t err = scan_all (g, o, count, s);
  /* by blocks of rows only where none declined: kernel 9 then runs last,
     and blocks done before it would not be done */
  int declines = 0;
  for (int i = 0; i < count; i++)
    declines += !o[i].moduli;
  for (int i = 0; i < count && err == cudaSuccess; i++)
    if (o[i].moduli)
      err = finish_emulated (&g[i], &o[i], i, NULL, NULL,
                             declines ? NULL : g[i].rows_out, s);
  if (err != cudaSuccess)   /* records of slices perhaps never queued */
    gt_k11_drop_kept ();
  for (int i = 0; i < count && err == cudaSuccess; i++)
    if (!o[i].moduli)
      {
        __atomic_fetch_add (&declined, 1, __ATOMIC_RELAXED);
        gt_plan p9;
        k9_plan (&p9, g[i].m, g[i].n, g[i].k,
                 gt_needs_repack (GT_SINGLE, g[i].A, g[i].lda, g[i].B,
                                  g[i].ldb));
        err = gt_gemm_run (&p9, &g[i], s);
      }
  return err;
}

/* A piece's sums (m x n doubles, as kernel 9's pieces carry theirs)
   first in its scratch, then kernel 11's for the piece.  */
static size_t
piece_sums_bytes (size_t m, size_t n)
{
  return gt_bytes_256 (GT_DOUBLE, m * n);
}

extern "C" size_t
gt_k11_piece_work (size_t m, size_t n, size_t kc)
{
  gt_oz_work w;
  gt_oz_layout (&w, GT_OZ_MAX_USED, m, n, kc, NULL);
  return piece_sums_bytes (m, n) + w.bytes;
}

/* The last piece's scan on this thread (its estimate over SGEMM's floor,
   oz_choose's ratio, and its k), and the moduli this thread's pieces make
   A ahead for, each for a place of A in the panels' scratch (Gauss's
   three: one a product): a band's pieces and A made ahead run on its own
   thread (another thread's call on the same device would otherwise change
   them between one call's pieces).  */
static __thread double piece_ratio[GT_A_SLOTS];
static __thread size_t piece_k[GT_A_SLOTS];
static __thread int ahead_moduli[GT_A_SLOTS];

/* which: the product's place of A in the panels (Gauss's three: each
   product's own scan foretells its own moduli) */
static void
note_piece (double ratio, size_t k, int which)
{
  if (which < 0 || which >= GT_A_SLOTS)
    return;
  piece_ratio[which] = ratio;
  piece_k[which] = k;
}

extern "C" size_t
gt_k11_a_ahead_bytes (size_t m, size_t k, size_t kc)
{
  if (kc == 0 || kc % GT_OZ_A_PART || k > GT_OZ_MAX_K)
    return 0;
  return gt_oz_a_part_bytes (GT_OZ_MAX_USED, m, k);
}

/* A's columns [k0, k1) scanned and sliced for `moduli` moduli in A's
   place of panel's scratch (first: its sums cleared, and the rows'
   scales guessed from this part's sums), recorded for the first whole
   panel after the last part.  */
static cudaError_t
a_ahead_part (const gt_gemm_args *panel, size_t k0, size_t k1, int first,
              int last, int moduli, cudaStream_t s)
{
  if (slots_of (panel) > GT_A_SLOTS || panel->a_slot < 0
      || panel->a_slot >= slots_of (panel) || !panel->work || k1 <= k0
      || k1 > panel->k)
    return cudaErrorInvalidValue;
  gt_oz_work w;
  launch_layout (&w, panel);
  const float *A = (const float *) panel->A;
  cudaError_t err = gt_oz_a_scan_part (&w, A, panel->lda, k0, k1, first, s);
  if (err == cudaSuccess && first)
    err = gt_oz_a_guess (&w, moduli, (double) panel->k / (double) (k1 - k0),
                         s);
  if (err == cudaSuccess)
    err = gt_oz_a_slice_part (&w, moduli, A, panel->lda, k0, k1, s);
  /* the record, where the first whole panel finds it, after the last
     piece (whose run dropped the records) */
  choice_mailbox *box;
  int dev;
  const cudaError_t got = last ? mailbox (&box, &dev) : cudaSuccess;
  if (last && got == cudaSuccess)
    {
      const kept_a made = { panel->A, panel->work, panel->lda, panel->m,
                            panel->k, err == cudaSuccess ? moduli : 0, 1 };
      box->a[panel->a_slot] = made;
      mailbox_done (dev);
    }
  return err == cudaSuccess ? got : err;
}

/* A's columns [k0, k1) made ahead (a_ahead_part) for the moduli chosen
   at the first part of its place (`foretold`: 0 for 8) and kept for the
   others, so that every part is sliced for the moduli the record the
   last part leaves names, whatever other threads' products do between
   them.  */
static cudaError_t
ahead_kept_moduli (const gt_gemm_args *panel, size_t k0, size_t k1,
                   int first, int last, int (*foretold) (int q, size_t k),
                   cudaStream_t s)
{
  const int q = panel->a_slot;
  if (q < 0 || q >= GT_A_SLOTS)
    return cudaErrorInvalidValue;
  if (first)
    {
      const int n = foretold (q, panel->k);
      ahead_moduli[q] = n > 0 ? n : 8;
    }
  return a_ahead_part (panel, k0, k1, first, last, ahead_moduli[q], s);
}

/* The panels' likely choice, from the first piece's scan of place q (its
   estimate over SGEMM's floor grows as the square root of k: the error
   as k, the floor as its root).  */
static int
pieces_foretell (int q, size_t k)
{
  return piece_ratio[q] > 0 && piece_k[q] > 0
         ? gt_oz_moduli_for (piece_ratio[q] * sqrt ((double) k / piece_k[q]))
         : 0;
}

/* The moduli the last run chose: no pieces ran to foretell them (a
   split's other bands change them as they go: hence read once).  */
static int
last_run_moduli (int q, size_t k)
{
  (void) q;
  (void) k;
  return __atomic_load_n (&last_moduli, __ATOMIC_RELAXED);
}

extern "C" cudaError_t
gt_k11_a_ahead (const gt_gemm_args *panel, size_t k0, size_t k1, int first,
                int last, cudaStream_t s)
{
  return ahead_kept_moduli (panel, k0, k1, first, last, pieces_foretell, s);
}

/* The rows' scales guessed from the first part; with one part, all of k
   (gt_k11_a_whole), they are the rows' own, so the first whole panel
   slices again only where its scan chooses other moduli.  */
extern "C" cudaError_t
gt_k11_a_as_in (const gt_gemm_args *panel, size_t k0, size_t k1, int first,
                int last, cudaStream_t s)
{
  return ahead_kept_moduli (panel, k0, k1, first, last, last_run_moduli, s);
}

extern "C" cudaError_t
gt_k11_a_whole (const gt_gemm_args *panel, cudaStream_t s)
{
  return gt_k11_a_as_in (panel, 0, panel->k, 1, 1, s);
}

/* Scanned, sliced and multiplied on its own (its own scales over its
   columns of A and rows of B), its sums carried in doubles from piece to
   piece; a piece whose scan declines runs on plain kernel 9 with the
   same sums.  Nothing of the piece's own A is kept for a later run: it
   is not the panels' (the records of the scratch are dropped; the
   panels' A is gt_k11_a_ahead's).  */
extern "C" cudaError_t
gt_k11_piece (int first, int last, const gt_gemm_args *a, cudaStream_t s)
{
  if (!a->work)
    return cudaErrorInvalidValue;
  return gt_k11_piece_sums (first, last, a, (double *) a->work,
                            (char *) a->work + piece_sums_bytes (a->m, a->n),
                            0, s);
}

/* A piece with its sums and kernel 11's scratch apart (each of Gauss's
   three carries sums of its own).  */
extern "C" size_t
gt_k11_piece_scratch (size_t m, size_t n, size_t kc)
{
  return gt_k11_piece_work (m, n, kc) - piece_sums_bytes (m, n);
}

extern "C" cudaError_t
gt_k11_piece_sums (int first, int last, const gt_gemm_args *a, double *sums,
                   void *scratch, int which, cudaStream_t s)
{
  if (a->a_kept || a->a_slots > 1 || a->a_slot != 0 || !sums || !scratch)
    return cudaErrorInvalidValue;
  if (a->m == 0 || a->n == 0)
    return cudaSuccess;
  const double *in = first ? NULL : sums;
  double *out = last ? NULL : sums;
  gt_gemm_args g = *a;
  g.work = scratch;
  k11_product o;   /* a->a_kept is 0: the records cannot skip its scan */
  launch_layout (&o.w, &g);
  cudaError_t err = scan_all (&g, &o, 1, s);
  note_piece (err == cudaSuccess ? o.ratio : 0, a->k, which);
  if (err == cudaSuccess && o.moduli)
    err = finish_emulated (&g, &o, 0, in, out, NULL, s);
  gt_k11_drop_kept ();
  if (err == cudaSuccess && !o.moduli)
    {
      __atomic_fetch_add (&declined, 1, __ATOMIC_RELAXED);
      const gt_plan p9 = gt_plan_make (GT_SINGLE, GT_K9_DMMA);
      err = gt_k9_row_piece (&p9, &g, in, out, s);
    }
  if (err == cudaSuccess)
    __atomic_fetch_add (&pieces, 1, __ATOMIC_RELAXED);
  return err;
}

extern "C" cudaError_t
gt_k11_row_launch (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  (void) p;
  return gt_k11_launch_many (a, 1, s);
}

/* After the current device was reset: what lived in its context (its
   mailbox's pinned word and event) is gone.  */
extern "C" void
gt_k11_forget (void)
{
  gt_oz_forget ();
  int dev;
  if (cudaGetDevice (&dev) == cudaSuccess && dev >= 0 && dev < GT_MAX_DEVICES)
    {
      memset (&mailboxes[dev], 0, sizeof mailboxes[dev]);
      memset (unit_seconds[dev], 0, sizeof unit_seconds[dev]);
    }
  cudaGetLastError ();
}

extern "C" void
gt_emulation_forget (void)
{
  __atomic_store_n (&emulated, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&declined, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&kept_scans, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&kept_slices, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&pieces, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&a_ahead, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&last_moduli, 0, __ATOMIC_RELAXED);
  int current;
  const int have_current = cudaGetDevice (&current) == cudaSuccess;
  for (int d = 0; d < GT_MAX_DEVICES; d++)
    if (mailboxes[d].choice)
      {
        cudaSetDevice (d);
        cudaFreeHost (mailboxes[d].choice);
        cudaEventDestroy (mailboxes[d].copied);
      }
  memset (mailboxes, 0, sizeof mailboxes);
  if (have_current)
    cudaSetDevice (current);
  cudaGetLastError ();
}

extern "C" void
gt_emulation_get (gt_emulation_info *info)
{
  memset (info, 0, sizeof *info);
  info->products = __atomic_load_n (&emulated, __ATOMIC_RELAXED);
  info->declined = __atomic_load_n (&declined, __ATOMIC_RELAXED);
  info->kept_scans = __atomic_load_n (&kept_scans, __ATOMIC_RELAXED);
  info->kept_slices = __atomic_load_n (&kept_slices, __ATOMIC_RELAXED);
  info->pieces = __atomic_load_n (&pieces, __ATOMIC_RELAXED);
  info->a_ahead = __atomic_load_n (&a_ahead, __ATOMIC_RELAXED);
  info->last_moduli = __atomic_load_n (&last_moduli, __ATOMIC_RELAXED);
  info->mode = __atomic_load_n (&emulation, __ATOMIC_RELAXED);
  info->usable = gt_k11_usable ();
}
