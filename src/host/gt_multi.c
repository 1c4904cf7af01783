/* gt_multi.c -- a product split over several devices of the host.

   C is cut into one band per device, by columns (B and C go in column
   panels, so each device's band is contiguous on the host) or, where C
   has more rows than columns and the devices cannot share A (not peers,
   too few columns, A too large for each), by rows; each device gets all
   of the other operand.  One host thread per device runs its band
   through that device's own context (streams, staging, helper threads),
   so the devices' copies and kernels overlap.  Bands are sized by each
   device's speed as measured on earlier split calls (flops per second of
   its band, call to return, relative to the call's mean; the median of
   its last five: gt_band_share.c), so a slower or busier device gets
   less.  */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "gt_copy.h"
#include "gt_plan.h"
#include "gt_product.h"
#include "gt_locked.h"
#include "gt_marks.h"
#include "gt_band_share.h"
#include "gt_band_threads.h"
#include "gt_split_rule.h"
#include "gt_stage.h"

/* Bands are cut on multiples of this (the widest kernel tile).  */
#define BAND_STEP 256

static int chosen[GT_MAX_DEVICES], chosen_count;   /* 0: the default set */
/* The default set, found once (every call asks for the set, and finding
   it asks the driver for each device's properties); 0: not yet.  */
static int dflt[GT_MAX_DEVICES], dflt_count;
static int split_always = -1;          /* GPU_TILED_SPLIT; -1: not read */
static long spin_us = -1;              /* GPU_TILED_SPIN_US; -1: not read */
/* Split calls since the last reset: the first sets up every further
   device's context (16 ms on an H200 host) inside its band's time, so its
   times are no measure of speed.  */
static int splits_done;
static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;

static gt_status
device_count (int *count)
{
  cudaError_t err = cudaGetDeviceCount (count);
  if (err != cudaSuccess)
    {
      *count = 0;
      return gt_fail_cuda (err, "CUDA device query");
    }
  return GT_OK;
}

void
gt_multi_forget (void)
{
  gt_share_forget ();
  spin_us = -1;
  dflt_count = 0;
  split_always = -1;
  splits_done = 0;
}

gt_status
gt_set_devices (const int *devices, int count)
{
  int have = 0;
  if (count < 0 || count > GT_MAX_DEVICES)
    return gt_fail (GT_ERR_ARG, "between 0 and %d devices", GT_MAX_DEVICES);
  gt_status st = count ? device_count (&have) : GT_OK;
  if (st != GT_OK)
    return st;
  for (int i = 0; i < count; i++)
    {
      if (devices[i] < 0 || devices[i] >= have)
        return gt_fail (GT_ERR_ARG, "device %d is not one of the %d CUDA "
                        "devices (0 to %d)", devices[i], have, have - 1);
      for (int j = 0; j < i; j++)
        if (devices[j] == devices[i])
          return gt_fail (GT_ERR_ARG, "device %d is named twice",
                          devices[i]);
    }
  pthread_mutex_lock (&set_lock);
  memcpy (chosen, devices, count * sizeof *devices);
  chosen_count = count;
  pthread_mutex_unlock (&set_lock);
  return GT_OK;
}

/* The default set: the default device first, then every other device of
   its compute capability.  */
static int
default_set (int *out, int max)
{
  int first = GT_DEVICE_DEFAULT, count = 0;
  if (gt_resolve_device (&first) != GT_OK || device_count (&count) != GT_OK)
    return 0;
  struct cudaDeviceProp p0, p;
  if (cudaGetDeviceProperties (&p0, first) != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  int n = 0, mode = 0;
  out[n++] = first;
  for (int d = 0; d < count && n < max; d++)
    if (d != first && cudaGetDeviceProperties (&p, d) == cudaSuccess
        && p.major == p0.major && p.minor == p0.minor
        && cudaDeviceGetAttribute (&mode, cudaDevAttrComputeMode, d)
           == cudaSuccess
        && mode != cudaComputeModeProhibited)
      out[n++] = d;
  cudaGetLastError ();
  return n;
}

int
gt_get_devices (int *devices, int max)
{
  pthread_mutex_lock (&set_lock);
  if (!chosen_count && !dflt_count)   /* (none usable: asked again) */
    dflt_count = default_set (dflt, GT_MAX_DEVICES);
  const int have = chosen_count ? chosen_count : dflt_count;
  const int n = have < max ? have : max;
  memcpy (devices, chosen_count ? chosen : dflt, n * sizeof *devices);
  pthread_mutex_unlock (&set_lock);
  return n;
}

/* ---- A handed on between devices ----

   In a split by columns every device needs all of A.  Through the host
   that is a second trip of A through the staging slots for each further
   device, and the host's copies are the slowest part of a large call.  So
   A's columns are cut into one part per band: each band's device takes
   its own part through the host, first, and copies the others' from
   their devices (NVLink or PCIe peer to peer) piece by piece as they
   arrive.  Every band then stages an equal share of A, and a band starts
   on its first panel's pieces of k while the rest of A is on its way.
   (With one band taking all of A and handing it on once complete, the
   other waited 5-7 ms of 19 at 8192^3 single on two H200s, and the first
   staged three times the other's bytes.)  */

typedef struct
{
  int state;               /* 0: under way; 1: all of the part at dA; 2:
                              handed on no further: the rest of it (from
                              what each band has) through the host */
  int device;
  const void *dA;          /* all of A on the part's device */
  /* A's bytes (from A's first) up to marks.ready[j] complete once done[j]
     (the band's events, one a slot) has happened there: each mark with an
     event of its own, so that a band that waits for a piece waits for
     that piece's copy, not for what its band queued after it
     (gt_marks.h) */
  gt_marks marks;
  const cudaEvent_t *done;
} a_part;

struct gt_shared_a
{
  pthread_mutex_t lock;
  pthread_cond_t said;
  int parts;
  size_t k;                /* A's columns */
  a_part part[GT_MAX_DEVICES];
  size_t kc[GT_MAX_DEVICES];   /* each band's pieces of panel 0 */
  uint64_t kc_said;            /* bit i: band i's kc is known */
};

void
gt_shared_a_columns (const gt_shared_a *s, int i, size_t *k0, size_t *k1)
{
  *k0 = s->k * i / s->parts;
  *k1 = s->k * (i + 1) / s->parts;
}

int
gt_shared_a_parts (const gt_shared_a *s)
{
  return s->parts;
}

cudaError_t
gt_shared_a_advance (gt_shared_a *s, int i, int device, const void *dA,
                     size_t ready, int last, const cudaEvent_t *done,
                     cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;
  a_part *q = &s->part[i];
  pthread_mutex_lock (&s->lock);
  if (q->state == 0)
    {
      /* recorded under the lock: a band that reads mark j waits on the
         record made for it (or, for the last mark once they run out, a
         later one, which only waits longer) */
      err = cudaEventRecord (done[gt_marks_next (&q->marks)], stream);
      if (err == cudaSuccess)
        {
          q->device = device;
          q->dA = dA;
          q->done = done;
          gt_marks_add (&q->marks, ready);
          q->state = last ? 1 : 0;
        }
      else
        q->state = 2;
      pthread_cond_broadcast (&s->said);
    }
  pthread_mutex_unlock (&s->lock);
  return err;
}

/* Band i's kc (lock held).  */
static void
say_kc (gt_shared_a *s, int i, size_t kc)
{
  const uint64_t bit = (uint64_t) 1 << i;
  if (!(s->kc_said & bit))
    {
      s->kc[i] = kc;
      s->kc_said |= bit;
      pthread_cond_broadcast (&s->said);
    }
}

void
gt_shared_a_say_kc (gt_shared_a *s, int i, size_t kc)
{
  pthread_mutex_lock (&s->lock);
  say_kc (s, i, kc);
  pthread_mutex_unlock (&s->lock);
}

int
gt_shared_a_kc_agree (gt_shared_a *s, size_t kc)
{
  const uint64_t all = s->parts >= 64 ? ~(uint64_t) 0
                                      : ((uint64_t) 1 << s->parts) - 1;
  pthread_mutex_lock (&s->lock);
  while ((s->kc_said & all) != all)
    pthread_cond_wait (&s->said, &s->lock);
  int same = 1;
  for (int i = 0; i < s->parts; i++)
    same &= s->kc[i] == 0 || s->kc[i] == kc;
  pthread_mutex_unlock (&s->lock);
  return same;
}

void
gt_shared_a_abandon (gt_shared_a *s, int i, int failed)
{
  pthread_mutex_lock (&s->lock);
  say_kc (s, i, 0);
  if (s->part[i].state == 0 || (failed && s->part[i].state == 1))
    {
      s->part[i].state = 2;
      pthread_cond_broadcast (&s->said);
    }
  pthread_mutex_unlock (&s->lock);
}

cudaError_t
gt_shared_a_fetch (gt_shared_a *s, int i, int device, void *dA, size_t need,
                   size_t *copied, cudaStream_t stream, int *fetched)
{
  *fetched = 0;
  if (need <= *copied)
    {
      *fetched = 1;
      return cudaSuccess;
    }
  cudaError_t err = cudaSuccess;
  a_part *q = &s->part[i];
  pthread_mutex_lock (&s->lock);
  while (q->state == 0 && gt_marks_ready (&q->marks) < need)
    pthread_cond_wait (&s->said, &s->lock);
  /* the first mark that holds what is needed, and no more than it */
  const int j = gt_marks_first (&q->marks, need);
  const int go = q->state != 2 && j >= 0;
  const size_t upto = go ? q->marks.ready[j] : 0;
  const void *from = q->dA;
  const int from_device = q->device;
  if (go)   /* under the lock: the record made for mark j */
    err = cudaStreamWaitEvent (stream, q->done[j], 0);
  pthread_mutex_unlock (&s->lock);
  if (go && err == cudaSuccess)
    err = cudaMemcpyPeerAsync ((char *) dA + *copied, device,
                               (const char *) from + *copied, from_device,
                               upto - *copied, stream);
  if (go && err == cudaSuccess)
    {
      *copied = upto;
      *fetched = 1;
    }
  return err;
}

/* Nonzero where device can copy from source directly (peer access, turned
   on here once per pair).  */
static int
peer_ready (int device, int source)
{
  static signed char known[GT_MAX_DEVICES][GT_MAX_DEVICES];   /* 1 yes, -1 no */
  if (!known[device][source])
    {
      int can = 0;
      if (cudaDeviceCanAccessPeer (&can, device, source) == cudaSuccess && can
          && cudaSetDevice (device) == cudaSuccess)
        {
          cudaError_t err = cudaDeviceEnablePeerAccess (source, 0);
          can = err == cudaSuccess || err == cudaErrorPeerAccessAlreadyEnabled;
        }
      cudaGetLastError ();
      known[device][source] = can ? 1 : -1;
    }
  return known[device][source] > 0;
}

/* Whether every device of devs can copy from every other (each band
   copies the others' parts of A).  */
static int
all_peers (const int *devs, int count)
{
  for (int d = 0; d < count; d++)
    for (int e = 0; e < count; e++)
      if (d != e && !peer_ready (devs[d], devs[e]))
        return 0;
  return 1;
}

/* One device's band of a split product.  */
typedef struct
{
  int device;
  gt_product part;
  gt_interrupt_fn interrupted;
  gt_status st;
  double seconds;
  char text[512];   /* the band's error text (its thread's own) */
  int threaded;     /* on a kept thread (gt_band_threads.c) */
  int again;        /* its C to be written again, A not shared
                       (gt_product.again) */
} band;

static void
band_run (void *arg)
{
  band *b = (band *) arg;
  gt_probe_seconds_taken ();
  const double t0 = gt_now ();
  gt_ctx_defer_resets (1);
  b->st = gt_device_product (b->device, &b->part, b->interrupted);
  gt_ctx_defer_resets (0);
  /* the operands' probe, where this band waited for another band's (or
     probed after its GPU's work), is the call's (gt_probe_seconds_taken;
     its own probe beside its last kernels is the band's) */
  b->seconds = gt_now () - t0 - gt_probe_seconds_taken ();
  /* never leave the others waiting; after a failure, copy nothing more
     from this device */
  if (b->part.shared_a)
    gt_shared_a_abandon (b->part.shared_a, b->part.a_part, b->st != GT_OK);
  if (b->st != GT_OK)
    snprintf (b->text, sizeof b->text, "%s", gt_error_text ());
}

/* The bands of p: C's columns (or rows) cut by len; each band faults in
   its own share of C's bytes.  */
static int
make_bands (const gt_product *p, const int *devs, int count, int by_cols,
            gt_interrupt_fn interrupted, band *b)
{
  size_t len[GT_MAX_DEVICES], at = 0, fault_at = 0;
  const size_t total = by_cols ? p->n : p->m;
  gt_share_lengths (devs, count, total, BAND_STEP, len);
  int used = 0;
  for (int d = 0; d < count; d++)
    {
      if (len[d] == 0)
        continue;
      band *x = &b[used++];
      memset (x, 0, sizeof *x);
      x->device = devs[d];
      x->interrupted = interrupted;
      x->part = by_cols ? gt_product_block (p, 0, at, p->m, len[d])
                        : gt_product_block (p, at, 0, len[d], p->n);
      x->part.share = count;
      const size_t fb = p->fault_bytes / total * len[d];
      x->part.fault_from = p->fault_bytes ? p->fault_from + fault_at : NULL;
      x->part.fault_bytes = fb;
      fault_at += fb;
      at += len[d];
    }
  if (used && p->fault_bytes)   /* the last band takes the rest */
    b[used - 1].part.fault_bytes = p->fault_bytes
                                   - (b[used - 1].part.fault_from
                                      - p->fault_from);
  return used;
}

/* After the bands ran: speeds measured, a band that ran out of memory
   done again on a device that did not, and otherwise the first failure,
   with every device's buffers freed.  */
static gt_status
bands_finish (band *b, int used, gt_interrupt_fn interrupted)
{
  int ok = -1, devs[GT_MAX_DEVICES];
  double rate[GT_MAX_DEVICES];
  for (int i = 0; i < used; i++)
    {
      const gt_product *q = &b[i].part;
      devs[i] = b[i].device;
      rate[i] = b[i].st == GT_OK && b[i].seconds > 0
                ? gt_flops (q->type, q->m, q->n, q->k) / b[i].seconds : 0;
      ok = ok < 0 && b[i].st == GT_OK ? i : ok;
    }
  if (splits_done++ > 0)
    gt_share_record (devs, used, rate);
  gt_status st = GT_OK;
  for (int i = 0; st == GT_OK && i < used; i++)
    {
      if (b[i].st == GT_OK && b[i].again)
        {
          /* every band has ended: none copies A from this device now;
             its operands' checks are known to be set: each panel waits
             for them */
          b[i].part.shared_a = NULL;
          b[i].part.again = NULL;
          b[i].part.wait = 1;
          b[i].st = gt_device_product (b[i].device, &b[i].part,
                                       interrupted);
        }
      else if (b[i].st == GT_ERR_NO_MEMORY && ok >= 0)
        {
          b[i].part.shared_a = NULL;
          b[i].st = gt_device_product (b[ok].device, &b[i].part,
                                       interrupted);
        }
      else if (b[i].st != GT_OK)
        gt_fail (b[i].st, "device %d: %s", b[i].device, b[i].text);
      st = b[i].st;
    }
  if (st != GT_OK && st != GT_ERR_INTERRUPTED)
    for (int i = 0; i < used; i++)
      {
        gt_context *ctx;
        if (gt_ctx_get (b[i].device, &ctx) == GT_OK)
          gt_ctx_release_buffers (ctx);
      }
  return st;
}

/* GPU_TILED_SPLIT=always (for the tests), read at the first call and
   after gt_reset.  */
static int
split_forced (void)
{
  if (split_always < 0)
    split_always = gt_option_split_always ();
  return split_always;
}

/* Whether splitting p over count devices pays (gt_split_rule.c; always
   where forced); peers: A is shared in parts, device to device, not
   through the host a second time.  */
static int
split_pays (const gt_product *p, int count, int by_cols, int peers)
{
  if (split_forced ())
    return 1;
  const gt_split_case s = {
    gt_flops (p->type, p->m, p->n, p->k),
    gt_type_real (p->type) == GT_SINGLE,
    by_cols ? (double) p->m * p->k * gt_type_size (p->A.type)
            : (double) p->k * p->n * gt_type_size (p->B.type),
    (double) p->m * p->n * gt_type_size (p->type),
    count, by_cols, peers, p->c_locked };
  return gt_split_pays (&s);
}

/* Whether a band by columns, all of A on its device, fits in three
   quarters of the device's memory (the first device's, the others taken
   alike): where it does not, a band runs out of memory and goes on in
   blocks, each taking A through the host, where a band by rows holds only
   its rows of A.  */
static int
cols_band_fits (const gt_product *p, int device, int count)
{
  size_t free_b = 0, total_b = 0;
  if (cudaSetDevice (device) != cudaSuccess
      || cudaMemGetInfo (&free_b, &total_b) != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  const gt_product band = gt_product_block (p, 0, 0, p->m,
                                            (p->n + count - 1) / count);
  return gt_product_device_bytes (&band) <= total_b / 4 * 3;
}

/* Whether p splits by columns (gt_split_by_cols), each band at least one
   step wide; whether the devices can share A is asked (which turns peer
   access on, each device's context made) only where the rule's answer
   turns on it.  */
static int
split_by_cols (const gt_product *p, const int *devs, int count)
{
  const size_t min_cols = (size_t) count * BAND_STEP;
  const int forced = split_forced ();
  const int alone = gt_split_by_cols (p->m, p->n, min_cols, 0, forced);
  if (alone || !gt_split_by_cols (p->m, p->n, min_cols, 1, forced))
    return alone;
  return all_peers (devs, count) && cols_band_fits (p, devs[0], count);
}

gt_status
gt_multi_product (const gt_product *p, gt_interrupt_fn interrupted)
{
  int devs[GT_MAX_DEVICES];
  const int count = gt_get_devices (devs, GT_MAX_DEVICES);
  if (count == 0)   /* says why there is no device */
    return gt_device_product (GT_DEVICE_DEFAULT, p, interrupted);
  const int by_cols = count > 1 && split_by_cols (p, devs, count);
  const size_t total = by_cols ? p->n : p->m;
  if (count == 1 || total < 2 * BAND_STEP)
    return gt_device_product (devs[0], p, interrupted);
  const int peers = by_cols && all_peers (devs, count);
  if (!split_pays (p, count, by_cols, peers))
    return gt_device_product (devs[0], p, interrupted);
  band b[GT_MAX_DEVICES];
  const int used = make_bands (p, devs, count, by_cols, interrupted, b);
  /* the locked operands' probe after every band's uploads, B's parts
     by each band where bands cut B (gt_probe_later.c) */
  gt_probe_expect (used, by_cols);
  /* once for all of C, before any band faults its share in (see
     prefault_output in gt_host.c) */
  if (p->fault_bytes)
    gt_advise_huge (p->fault_from, p->fault_bytes);
  gt_shared_a shared;
  memset (&shared, 0, sizeof shared);
  pthread_mutex_init (&shared.lock, NULL);
  pthread_cond_init (&shared.said, NULL);
  shared.parts = used;
  shared.k = p->k;
  for (int i = 0; peers && used > 1 && i < used; i++)
    {
      b[i].part.shared_a = &shared;
      b[i].part.a_part = i;
      b[i].part.again = &b[i].again;
    }
  /* the first band on this thread, the others each on a thread of its
     own, kept from call to call (or after it, where a thread cannot be
     had) */
  if (spin_us < 0)
    spin_us = (long) gt_option_spin_us ();
  for (int i = 1; i < used; i++)
    {
      b[i].threaded = gt_band_start (i, band_run, &b[i], 1e-6 * spin_us)
                      == 0;
      /* a band run only after the first ends cannot hand its part on in
         time: the others take that part through the host */
      if (!b[i].threaded && b[i].part.shared_a)
        gt_shared_a_abandon (&shared, i, 0);
    }
  band_run (&b[0]);
  for (int i = 1; i < used; i++)
    {
      if (b[i].threaded)
        gt_band_wait (i);
      else
        band_run (&b[i]);
    }
  gt_ctx_reset_lost ();   /* no band copies from a lost device now */
  const gt_status st = bands_finish (b, used, interrupted);
  pthread_cond_destroy (&shared.said);
  pthread_mutex_destroy (&shared.lock);
  return st;
}
