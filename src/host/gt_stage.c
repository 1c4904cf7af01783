/* gt_stage.c -- the staging slots of a host call (see gt_stage.h).  */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gt_locked.h"
#include "gt_stage.h"

double
gt_now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

void
gt_timeline_begin (gt_stager *st)
{
  st->tl = calloc (1, sizeof *st->tl);
  if (!st->tl)
    return;
  cudaStreamSynchronize (st->ctx->up);
  if (cudaEventCreate (&st->tl->ref) != cudaSuccess)
    {
      free (st->tl);
      st->tl = NULL;
      return;
    }
  if (cudaEventRecord (st->tl->ref, st->ctx->up) != cudaSuccess)
    {
      cudaEventDestroy (st->tl->ref);
      free (st->tl);
      st->tl = NULL;
      cudaGetLastError ();
      return;
    }
  cudaEventSynchronize (st->tl->ref);
  st->tl->t_ref = gt_now ();
}

/* A mark not kept (its events, where made, destroyed): counted, so that
   the timeline says it is short.  */
static int
mark_dropped (gt_timeline *tl, gt_mark *m)
{
  if (m->a)
    cudaEventDestroy (m->a);
  if (m->b)
    cudaEventDestroy (m->b);
  m->a = m->b = NULL;
  tl->dropped++;
  cudaGetLastError ();
  return -1;
}

int
gt_mark_begin (gt_stager *st, char what, size_t bytes, cudaStream_t stream)
{
  gt_timeline *tl = st->tl;
  if (!tl)
    return -1;
  if (tl->n >= GT_TIMELINE_MAX)
    {
      tl->dropped++;
      return -1;
    }
  gt_mark *m = &tl->m[tl->n];
  m->what = what;
  m->bytes = bytes;
  m->a = m->b = NULL;
  /* the events made before the host's clock is read, so that their
     making is not counted as the mark's */
  if (stream && cudaEventCreate (&m->a) != cudaSuccess)
    {
      m->a = NULL;
      return mark_dropped (tl, m);
    }
  if (stream && cudaEventCreate (&m->b) != cudaSuccess)
    {
      m->b = NULL;
      return mark_dropped (tl, m);
    }
  m->t0 = m->t1 = gt_now ();
  if (stream && cudaEventRecord (m->a, stream) != cudaSuccess)
    return mark_dropped (tl, m);
  return tl->n++;
}

void
gt_mark_end (gt_stager *st, int i, cudaStream_t stream)
{
  if (!st->tl || i < 0)
    return;
  st->tl->m[i].t1 = gt_now ();
  if (stream)
    cudaEventRecord (st->tl->m[i].b, stream);
}

/* A host mark ended with its bytes; dropped where it moved none and
   took under GT_MARK_KEEP_S (a probe that found nothing to do).  */
#define GT_MARK_KEEP_S 20e-6

void
gt_mark_end_host (gt_stager *st, int i, size_t bytes)
{
  gt_timeline *tl = st->tl;
  if (!tl || i < 0)
    return;
  gt_mark *m = &tl->m[i];
  m->t1 = gt_now ();
  m->bytes = bytes;
  if (!bytes && m->t1 - m->t0 < GT_MARK_KEEP_S && i == tl->n - 1 && !m->a)
    tl->n--;
}

void
gt_timeline_print (gt_stager *st)
{
  gt_timeline *tl = st->tl;
  if (!tl)
    return;
  cudaDeviceSynchronize ();
  for (int i = 0; i < tl->n; i++)
    {
      const gt_mark *m = &tl->m[i];
      float a = 0, b = 0;
      if (m->a)
        {
          cudaEventElapsedTime (&a, tl->ref, m->a);
          cudaEventElapsedTime (&b, tl->ref, m->b);
          cudaEventDestroy (m->a);
          cudaEventDestroy (m->b);
        }
      fprintf (stderr, "  %c %8zu KiB host %8.1f-%8.1f us", m->what,
               m->bytes >> 10, 1e6 * (m->t0 - tl->t_ref),
               1e6 * (m->t1 - tl->t_ref));
      if (m->a)
        fprintf (stderr, "  gpu %8.1f-%8.1f us (%.1f GB/s)", 1e3 * a,
                 1e3 * b, b > a ? 1e-6 * m->bytes / (b - a) : 0.0);
      fprintf (stderr, "\n");
    }
  if (tl->dropped)
    fprintf (stderr, "  (%d marks dropped: more than %d)\n", tl->dropped,
             GT_TIMELINE_MAX);
  cudaEventDestroy (tl->ref);
  cudaGetLastError ();
  free (tl);
  st->tl = NULL;
}

static char *
slot_ptr (const gt_stager *st, int s)
{
  return (char *) (st->ctx->pinned + (size_t) s * GT_SLOT_BYTES);
}

static gt_status
slot_drain (gt_stager *st, int s)
{
  const double t0 = gt_now ();
  const int mw = gt_mark_begin (st, 'w', 0, NULL);
  cudaError_t err = cudaEventSynchronize (st->ctx->slot_done[s]);
  gt_mark_end (st, mw, NULL);
  const double t1 = gt_now ();
  st->t_wait += t1 - t0;
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "copying between host and device");
  if (st->out[s].dst)
    {
      const copy_job *j = &st->out[s];
      const int mo = gt_mark_begin (st, 'o', j->rows * j->cols * j->elem,
                                    NULL);
      gt_copy (st->ctx->workers, j, st->threads);
      gt_mark_end (st, mo, NULL);
      st->t_out += gt_now () - t1;
      st->bytes_out += j->rows * j->cols * j->elem;
      st->out[s].dst = NULL;
    }
  return GT_OK;
}

static gt_status
slot_acquire (gt_stager *st, int *slot)
{
  const int s = st->next;
  st->next = (st->next + 1) % GT_SLOTS;
  *slot = s;
  return slot_drain (st, s);
}

/* A piece of a column-major matrix: whole columns [c0, c0+nc), or when one
   column exceeds a piece (a slot, or st->piece bytes), rows [r0, r0+nr)
   of column c0.  */
typedef struct
{
  size_t c0, nc, r0, nr;
} piece;

/* Pieces of columns [c_begin, c_end) of a matrix stored on the device with
   leading dimension ld (rows of data each).  Returns 0 when done.  */
static int
next_piece (const gt_stager *st, piece *p, size_t rows, size_t ld,
            size_t c_end, size_t es)
{
  const size_t piece_elems = (st->piece ? st->piece : GT_SLOT_BYTES) / es;
  if (p->nc == 0 && p->nr == 0)       /* first call: p->c0 holds c_begin */
    ;
  else if (p->nc > 0 || p->r0 + p->nr >= rows)
    {
      p->c0 += p->nc > 0 ? p->nc : 1;
      p->r0 = 0;
    }
  else
    p->r0 += p->nr;
  if (p->c0 >= c_end || rows == 0)
    return 0;
  if (ld <= piece_elems)
    {
      size_t nc = piece_elems / ld;
      if (nc > c_end - p->c0)
        nc = c_end - p->c0;
      p->nc = nc;
      p->r0 = 0;
      p->nr = rows;
    }
  else
    {
      p->nc = 0;
      p->nr = rows - p->r0 < piece_elems ? rows - p->r0 : piece_elems;
    }
  return 1;
}

/* Whether height rows of width bytes, spitch apart at the source and
   dpitch at the destination, are one contiguous range at both ends.  */
static int
one_range (size_t width, size_t height, size_t spitch, size_t dpitch)
{
  return height == 1 || (dpitch == width && spitch == width);
}

/* A copy of height rows of width bytes on stream: one plain copy where
   the rows are one range at both ends, else one 2-D copy.  */
static cudaError_t
copy_rows (char *dst, size_t dpitch, const char *src, size_t spitch,
           size_t width, size_t height, enum cudaMemcpyKind kind,
           cudaStream_t stream)
{
  if (one_range (width, height, spitch, dpitch))
    return cudaMemcpyAsync (dst, src, width * height, kind, stream);
  return cudaMemcpy2DAsync (dst, dpitch, src, spitch, width, height, kind,
                            stream);
}

/* One piece of an upload: takes a slot, copies job's block into it on
   the copy threads (job->dst is set here), then queues the DMA from the
   slot to dst on ctx->up, `height` rows of `width` bytes (dst rows
   `dpitch` bytes apart; height 1: one plain copy), and marks the slot.  */
static gt_status
slot_send (gt_stager *st, copy_job *job, char *dst, size_t dpitch,
           size_t width, size_t height)
{
  int s;
  gt_status stt = slot_acquire (st, &s);
  if (stt != GT_OK)
    return stt;
  job->dst = slot_ptr (st, s);
  job->stream = st->stream_in;
  const double t0 = gt_now ();
  const int mh = gt_mark_begin (st, 'h', width * height, NULL);
  gt_copy (st->ctx->workers, job, st->threads);
  gt_mark_end (st, mh, NULL);
  st->t_in += gt_now () - t0;
  st->bytes_in += job->rows * job->cols
                  * (job->selem ? job->selem : job->elem);
  const int mu = gt_mark_begin (st, 'U', width * height, st->ctx->up);
  cudaError_t err = copy_rows (dst, dpitch, (const char *) job->dst, width,
                               width, height, cudaMemcpyHostToDevice,
                               st->ctx->up);
  gt_mark_end (st, mu, st->ctx->up);
  if (err == cudaSuccess)
    err = cudaEventRecord (st->ctx->slot_done[s], st->ctx->up);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "copying to the device");
  return GT_OK;
}

/* Rows narrower than this go through the slots even from a locked
   operand: the copy engine reads narrow rows of a 2-D copy far below its
   rate (a single 2000x20000x2000 product's pieces of k, rows of 8 KB:
   11.5 ms straight against 6.9 staged; bench/RESULTS.md).  */
#define DIRECT_MIN_ROW ((size_t) 32 << 10)
/* Pages of a straight copy from which its marks and checks go on the
   copy threads.  */
#define DIRECT_PARALLEL_PAGES ((size_t) 2048)

int
gt_stage_may_go_straight (size_t width, size_t height, size_t spitch,
                          size_t dpitch)
{
  return one_range (width, height, spitch, dpitch) || width >= DIRECT_MIN_ROW;
}

/* A's blocks of rows go straight from parts this wide, and at most this
   many of them apart: bench/gather_rows moved parts of 4 KiB 32 KiB
   apart at 54.3 GB/s (2 KiB: 49.2), 8 KiB 64 KiB apart at 50.9 (2 KiB:
   35.2), where the host gathered complex double 2048^3's blocks of 256
   rows at 33-45 GB/s (bench/RESULTS.md, "Row blocks at the link's rate";
   "Blocks of A's rows straight").  Not B's rows of a piece of k: there
   single 2000x20000x2000 (parts 80 KB apart) lost.  */
#define BLOCK_MIN_ROW ((size_t) 4 << 10)
#define BLOCK_MOST_APART 8

static int
block_may_go_straight (size_t width, size_t spitch)
{
  return width >= BLOCK_MIN_ROW && spitch <= BLOCK_MOST_APART * width;
}

/* Whether an upload (as gt_stage_may_go_straight's) from host bytes
   [lo, hi) goes straight: they lie in an operand locked and checked, and
   the copy may.  */
static int
goes_straight (const gt_stager *st, const char *lo, const char *hi,
               size_t width, size_t height, size_t spitch, size_t dpitch,
               int block)
{
  if (!gt_stage_may_go_straight (width, height, spitch, dpitch)
      && !(block && block_may_go_straight (width, spitch)))
    return 0;
  for (int i = 0; i < 2; i++)
    if (st->in_lo[i] && st->in_lo[i] <= lo && hi <= st->in_hi[i])
      return 1;
  return 0;
}

/* Rows [r0, r1) of host columns [c_begin, c_end) of src (leading
   dimension hld) to the same rows of device dst (leading dimension ld)
   straight from a locked operand, one copy on ctx->up, where goes_straight
   says so (*done; block: a block of A's rows); else nothing (the caller
   stages them).  */
static gt_status
upload_direct (gt_stager *st, char *dst, size_t ld, size_t es,
               const char *src, size_t src_es, size_t hld, size_t r0,
               size_t r1, size_t c_begin, size_t c_end, int block, int *done)
{
  const char *first = src + (c_begin * hld + r0) * src_es;
  const size_t width = (r1 - r0) * es, height = c_end - c_begin;
  const size_t spitch = hld * es, dpitch = ld * es;
  *done = src_es == es
          && goes_straight (st, first, src + ((c_end - 1) * hld + r1) * es,
                            width, height, spitch, dpitch, block);
  if (!*done)
    return GT_OK;
  dst += (c_begin * ld + r0) * es;
  const int mu = gt_mark_begin (st, 'U', width * height, st->ctx->up);
  cudaError_t err = copy_rows (dst, dpitch, first, spitch, width, height,
                               cudaMemcpyHostToDevice, st->ctx->up);
  gt_mark_end (st, mu, st->ctx->up);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "copying to the device");
  st->bytes_in_direct += width * height;
  gt_locked_went_in ();
  return GT_OK;
}

/* Host columns [c_begin, c_end) of src (rows x *, leading dimension hld)
   to device dst (leading dimension ld), through the slots on ctx->up.  */
gt_status
gt_stage_upload (gt_stager *st, char *dst, size_t ld, size_t es,
                 const char *src, size_t src_es, size_t hld, size_t rows,
                 size_t c_begin, size_t c_end, gt_interrupt_fn interrupted)
{
  if (c_begin >= c_end || rows == 0)
    return GT_OK;
  int done;
  gt_status stt = upload_direct (st, dst, ld, es, src, src_es, hld, 0, rows,
                                 c_begin, c_end, 0, &done);
  if (stt != GT_OK || done)
    return stt;
  piece p = { c_begin, 0, 0, 0 };
  while (next_piece (st, &p, rows, ld, c_end, es))
    {
      if (interrupted && interrupted ())
        return gt_fail (GT_ERR_INTERRUPTED, "interrupted");
      const size_t nc = p.nc ? p.nc : 1;
      copy_job j = { NULL, src + (p.c0 * hld + p.r0) * src_es, ld, hld,
                     p.nc ? rows : p.nr, nc, es, src_es };
      if (!p.nc)
        j.dld = j.sld = j.rows;
      const size_t elems = p.nc ? nc * ld : p.nr;
      stt = slot_send (st, &j, dst + (p.c0 * ld + p.r0) * es, 0,
                       elems * es, 1);
      if (stt != GT_OK)
        return stt;
    }
  return GT_OK;
}

/* Rows [r0, r1) of host columns [c_begin, c_end) of src (leading
   dimension hld) to the same rows of device dst (leading dimension ld)
   (block: a block of A's rows; see gt_stage_upload_a_rows).  Each slot
   takes whole columns of the block; the copy engine spreads them to
   their columns.  */
static gt_status
upload_rows (gt_stager *st, char *dst, size_t ld, size_t es, const char *src,
             size_t src_es, size_t hld, size_t r0, size_t r1, size_t c_begin,
             size_t c_end, int block, gt_interrupt_fn interrupted)
{
  const size_t h = r1 - r0;
  if (c_begin >= c_end || h == 0)
    return GT_OK;
  int done;
  gt_status stt = upload_direct (st, dst, ld, es, src, src_es, hld, r0, r1,
                                 c_begin, c_end, block, &done);
  if (stt != GT_OK || done)
    return stt;
  const size_t per_slot = GT_SLOT_BYTES / es / h;
  for (size_t c = c_begin; c < c_end; c += per_slot)
    {
      if (interrupted && interrupted ())
        return gt_fail (GT_ERR_INTERRUPTED, "interrupted");
      const size_t nc = c_end - c < per_slot ? c_end - c : per_slot;
      copy_job j = { NULL, src + (c * hld + r0) * src_es, h, hld, h, nc, es,
                     src_es };
      stt = slot_send (st, &j, dst + (c * ld + r0) * es, ld * es, h * es,
                       nc);
      if (stt != GT_OK)
        return stt;
    }
  return GT_OK;
}

gt_status
gt_stage_upload_rows (gt_stager *st, char *dst, size_t ld, size_t es,
                      const char *src, size_t src_es, size_t hld, size_t r0,
                      size_t r1, size_t c_begin, size_t c_end,
                      gt_interrupt_fn interrupted)
{
  return upload_rows (st, dst, ld, es, src, src_es, hld, r0, r1, c_begin,
                      c_end, 0, interrupted);
}

gt_status
gt_stage_upload_a_rows (gt_stager *st, char *dst, size_t ld, size_t es,
                        const char *src, size_t src_es, size_t hld,
                        size_t r0, size_t r1, size_t k,
                        gt_interrupt_fn interrupted)
{
  return upload_rows (st, dst, ld, es, src, src_es, hld, r0, r1, 0, k, 1,
                      interrupted);
}

/* A block of a column-major matrix: rows x columns, ld elements between
   columns, from its first element.  */
static const char *
at (const char *p, size_t ld, size_t es, size_t r, size_t c)
{
  return p + (c * ld + r) * es;
}

/* A copy of height rows of width bytes from the device on ctx->down,
   marked for the timeline, then `done` recorded after it.  */
static gt_status
queue_down (gt_stager *st, char *dst, size_t dpitch, const char *src,
            size_t spitch, size_t width, size_t height, cudaEvent_t done)
{
  const int md = gt_mark_begin (st, 'D', width * height, st->ctx->down);
  cudaError_t err = copy_rows (dst, dpitch, src, spitch, width, height,
                               cudaMemcpyDeviceToHost, st->ctx->down);
  gt_mark_end (st, md, st->ctx->down);
  if (err == cudaSuccess)
    err = cudaEventRecord (done, st->ctx->down);
  return err == cudaSuccess ? GT_OK
                            : gt_fail_cuda (err, "copying from the device");
}

/* The staged way of gt_stage_download: a slot a piece (packed: rows
   apart in the slot).  */
static gt_status
download_staged (gt_stager *st, const gt_block_out *o, size_t c_begin,
                 size_t c_end)
{
  const size_t es = o->es, rows = o->rows;
  piece p = { c_begin, 0, 0, 0 };
  while (next_piece (st, &p, rows, rows, c_end, es))
    {
      int s;
      gt_status stt = slot_acquire (st, &s);
      if (stt != GT_OK)
        return stt;
      const size_t nc = p.nc ? p.nc : 1, nr = p.nc ? rows : p.nr;
      stt = queue_down (st, slot_ptr (st, s), nr * es,
                        at (o->src, o->dld, es, p.r0, p.c0), o->dld * es,
                        nr * es, nc, st->ctx->slot_done[s]);
      if (stt != GT_OK)
        return stt;
      copy_job j = { o->dst + (p.c0 * o->hld + p.r0) * es, slot_ptr (st, s),
                     o->hld, nr, nr, nc, es, 0 };
      j.stream = 1;   /* a result: nothing reads it back soon */
      st->out[s] = j;
    }
  return GT_OK;
}

/* Columns [c0, c1) of a host block whose pages are to be marked (mark)
   or counted where left unwritten (n).  */
typedef struct
{
  const gt_block_out *o;
  size_t c0, c1;
  int mark;
  size_t n;
} pages_job;

#define STEP_ALIGN(a) \
  (((a) + GT_LOCKED_STEP - 1) / GT_LOCKED_STEP * GT_LOCKED_STEP)

/* Part `part` of `parts` of a pages_job (pages a part apart where the
   columns are one range, else columns), its count added to j->n.  */
static void
pages_part (void *arg, int part, int parts)
{
  pages_job *j = (pages_job *) arg;
  const gt_block_out *o = j->o;
  const size_t bytes = o->rows * o->es;
  size_t n = 0;
  if (o->hld == o->rows)   /* one range, cut where the marks' steps are */
    {
      const uintptr_t p = (uintptr_t) (o->dst + j->c0 * bytes);
      const uintptr_t end = p + (j->c1 - j->c0) * bytes;
      const uintptr_t per = (end - p + parts - 1) / parts;
      const uintptr_t b = part ? STEP_ALIGN (p + part * per) : p;
      uintptr_t e = part + 1 < parts ? STEP_ALIGN (p + (part + 1) * per)
                                     : end;
      e = e < end ? e : end;
      if (b < e && j->mark)
        gt_locked_mark ((char *) b, e - b);
      else if (b < e)
        n = gt_locked_unwritten ((const char *) b, e - b);
    }
  else
    {
      size_t b, e;
      gt_copy_share (j->c1 - j->c0, part, parts, &b, &e);
      for (size_t c = j->c0 + b; c < j->c0 + e; c++)
        {
          char *q = o->dst + c * o->hld * o->es;
          if (j->mark)
            gt_locked_mark (q, bytes);
          else
            n += gt_locked_unwritten (q, bytes);
        }
    }
  if (n)
    __atomic_fetch_add (&j->n, n, __ATOMIC_RELAXED);
}

/* Marks, or counts the pages left unwritten, of columns [c0, c1) of the
   host block; on the copy threads where there are many pages (each costs
   a TLB walk and a miss, on the band's own thread otherwise).  */
static size_t
direct_pages (const gt_stager *st, const gt_block_out *o, size_t c0,
              size_t c1, int mark)
{
  pages_job j = { o, c0, c1, mark, 0 };
  const size_t pages = (c1 - c0) * o->rows * o->es / GT_LOCKED_STEP;
  if (pages >= DIRECT_PARALLEL_PAGES && st->threads > 1)
    gt_copy_parts (st->ctx->workers, st->threads, pages_part, &j);
  else
    pages_part (&j, 0, 1);
  return j.n;
}

/* The copies straight into locked memory that are done (all of them:
   wait), checked in the order made.  Pages the engine did not reach
   (their memory changed under the lock) are counted, and all of C goes
   again through the slots at gt_stage_drain, when all of it is there on
   the device.  */
static gt_status
check_direct (gt_stager *st, int wait)
{
  while (st->n_checked < st->n_direct)
    {
      const int i = st->n_checked;
      cudaError_t err = wait ? cudaEventSynchronize (st->ctx->direct_done[i])
                             : cudaEventQuery (st->ctx->direct_done[i]);
      if (err == cudaErrorNotReady)   /* not an error: not done yet */
        return GT_OK;
      if (err != cudaSuccess)
        return gt_fail_cuda (err, "copying from the device");
      st->n_checked++;
      const size_t stale = direct_pages (st, &st->direct_out[i].o,
                                         st->direct_out[i].c_begin,
                                         st->direct_out[i].c_end, 0);
      if (stale)
        {
          gt_locked_stale (stale);
          st->stale_pages += stale;
        }
    }
  return GT_OK;
}

/* One copy of the columns straight into the host block (locked), its
   pages marked first.  */
static gt_status
download_direct (gt_stager *st, const gt_block_out *o, size_t c_begin,
                 size_t c_end)
{
  const int i = st->n_direct;
  const size_t es = o->es, width = o->rows * es, cols = c_end - c_begin;
  direct_pages (st, o, c_begin, c_end, 1);
  const gt_status stt = queue_down (st, o->dst + c_begin * o->hld * es,
                                    o->hld * es,
                                    at (o->src, o->dld, es, 0, c_begin),
                                    o->dld * es, width, cols,
                                    st->ctx->direct_done[i]);
  if (stt != GT_OK)
    return stt;
  st->direct_out[i].o = *o;
  st->direct_out[i].c_begin = c_begin;
  st->direct_out[i].c_end = c_end;
  st->n_direct++;
  st->bytes_direct += width * cols;
  gt_locked_went_straight ();
  return check_direct (st, 0);
}

gt_status
gt_stage_download (gt_stager *st, const gt_block_out *o, size_t c_begin,
                   size_t c_end, cudaEvent_t ready)
{
  cudaError_t err = cudaStreamWaitEvent (st->ctx->down, ready, 0);
  if (err != cudaSuccess)
    return gt_fail_cuda (err, "ordering streams");
  if (c_begin >= c_end || o->rows == 0)
    return GT_OK;
  if (st->direct && st->n_direct < GT_MAX_PANELS)
    return download_direct (st, o, c_begin, c_end);
  return download_staged (st, o, c_begin, c_end);
}

gt_status
gt_stage_drain (gt_stager *st)
{
  gt_status c = check_direct (st, 1);
  if (c == GT_OK && st->stale_pages && !st->restaged)
    {
      st->restaged = 1;   /* the rare case: all of C again, staged */
      c = download_staged (st, &st->whole, 0, st->whole_cols);
    }
  if (c != GT_OK)
    return c;
  /* In slot order from the oldest, so results land in issue order.  */
  for (int i = 0; i < GT_SLOTS; i++)
    {
      gt_status s = slot_drain (st, (st->next + i) % GT_SLOTS);
      if (s != GT_OK)
        return s;
    }
  return GT_OK;
}

