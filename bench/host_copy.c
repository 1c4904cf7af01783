/* host_copy.c -- what the host side of an end-to-end call can reach on
   this machine: CPU copy bandwidth from ordinary (pageable) memory into
   pinned staging by thread count, alone and while the copy engine
   streams; the upload path by slot size; and the cost of page-locking
   memory in place.
     make -C bench host_copy && bench/host_copy  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "gt_copy.h"
#include "host_bench.h"

/* Copies `bytes` from src to dst in 8 MiB jobs (as the pipeline does);
   returns GB/s, median of 7.  */
static double
copy_rate (gt_workers *w, float *dst, const float *src, size_t bytes,
           int threads)
{
  double t[7];
  for (int r = 0; r < 7; r++)
    {
      const double t0 = now ();
      for (size_t off = 0; off < bytes; off += 8 * MB)
        {
          const size_t n = (bytes - off < 8 * MB ? bytes - off : 8 * MB) / 4;
          copy_job j = { dst + off / 4, src + off / 4, n, n, n, 1,
                         sizeof (float) };
          gt_copy (w, &j, threads);
        }
      t[r] = now () - t0;
    }
  return bytes / median (t, 7) / 1e9;
}

/* One piece of 160 lines: a list of experiments run in order, each a
   few lines printing its table; splitting them would only move the
   list.  */
int
main (void)
{
  const size_t bytes = 64 * MB;
  gt_workers *w = gt_workers_new ();
  if (!w)
    {
      fprintf (stderr, "out of memory\n");
      return 1;
    }
  float *src = malloc (bytes), *pin, *pin2, *dev;
  for (size_t i = 0; i < bytes / 4; i++)
    src[i] = (float) (i % 1000);
  CHECK (cudaHostAlloc ((void **) &pin, bytes, cudaHostAllocPortable));
  CHECK (cudaHostAlloc ((void **) &pin2, bytes, cudaHostAllocPortable));
  CHECK (cudaMalloc ((void **) &dev, 4 * bytes));   /* 256 MiB */
  memset (pin2, 1, bytes);
  cudaStream_t s;
  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));

  printf ("64 MiB pageable -> pinned, 8 MiB jobs, GB/s (median of 7)\n");
  printf ("threads  alone  with DMA\n");
  const int th[] = { 1, 2, 4, 8, 12, 16 };
  for (int i = 0; i < 6; i++)
    {
      double r[2];
      for (int mode = 0; mode < 2; mode++)
        {
          if (mode)   /* the copy engine reads other pinned memory */
            for (int q = 0; q < 40; q++)
              CHECK (cudaMemcpyAsync (dev + (q % 4) * bytes / 4, pin2, bytes,
                                      cudaMemcpyHostToDevice, s));
          gt_copy_hot (w, th[i], 1);
          r[mode] = copy_rate (w, pin, src, bytes, th[i]);
          gt_copy_hot (w, th[i], 0);
          CHECK (cudaStreamSynchronize (s));
        }
      printf ("%7d  %5.1f  %8.1f\n", th[i], r[0], r[1]);
    }

  /* The upload path as the library runs it: host threads fill a ring of
     pinned slots from memory that is not in any cache, the copy engine
     drains each slot to the device as soon as it is full.  Effective GB/s
     for 128 MiB, by slot size (small slots may stay in the L3 cache
     between the CPU's write and the copy engine's read).  */
  {
    const size_t big = 2048 * MB, up = 128 * MB;
    float *cold = malloc (big);
    for (size_t i = 0; i < big / 4; i += 1024)
      cold[i] = 1.0f;
    memset (cold, 0, big);
    cudaEvent_t ev[8];
    for (int i = 0; i < 8; i++)
      CHECK (cudaEventCreateWithFlags (&ev[i], cudaEventDisableTiming));
    printf ("upload 128 MiB through 8 pinned slots, source not cached, "
            "GB/s (median of 5)\n");
    printf ("slot MiB  threads  GB/s\n");
    size_t window = 0;
    const size_t slot_mb[] = { 1, 2, 4, 8 };
    const int uth[] = { 8, 12, 16 };
    for (int si = 0; si < 4; si++)
      for (int ti = 0; ti < 3; ti++)
        {
          double t[5];
          for (int rep = 0; rep < 5; rep++)
            {
              const float *from = cold + (window % (big / up)) * up / 4;
              window++;
              const size_t sb = slot_mb[si] * MB;
              gt_copy_hot (w, uth[ti], 1);
              const double a = now ();
              for (size_t off = 0, q = 0; off < up; off += sb, q++)
                {
                  const int sl = (int) (q % 8);
                  CHECK (cudaEventSynchronize (ev[sl]));
                  float *dst = (float *) ((char *) pin + sl * sb);
                  copy_job j = { dst, from + off / 4, sb / 4, sb / 4, sb / 4,
                                 1, sizeof (float) };
                  gt_copy (w, &j, uth[ti]);
                  CHECK (cudaMemcpyAsync ((char *) dev + off, dst, sb,
                                          cudaMemcpyHostToDevice, s));
                  CHECK (cudaEventRecord (ev[sl], s));
                }
              CHECK (cudaStreamSynchronize (s));
              t[rep] = now () - a;
              gt_copy_hot (w, uth[ti], 0);
            }
          printf ("%8zu  %7d  %4.1f\n", slot_mb[si], uth[ti],
                  up / median (t, 5) / 1e9);
        }
    /* What handing a job to the helpers costs.  */
    for (int hot = 0; hot < 2; hot++)
      {
        double t[21];
        gt_copy_hot (w, 16, hot);
        for (int rep = 0; rep < 21; rep++)
          {
            copy_job j = { pin, src, 256 * 1024, 256 * 1024, 256 * 1024, 1,
                           sizeof (float) };
            const double a = now ();
            gt_copy (w, &j, 16);
            t[rep] = now () - a;
          }
        gt_copy_hot (w, 16, 0);
        printf ("1 MiB job on 16 threads, helpers %s: %.1f us (median of "
                "21)\n", hot ? "spinning" : "sleeping", 1e6 * median (t, 21));
      }
    free (cold);
  }

  /* The copy engine alone.  */
  double t0 = now ();
  for (int q = 0; q < 10; q++)
    CHECK (cudaMemcpyAsync (dev, pin2, bytes, cudaMemcpyHostToDevice, s));
  CHECK (cudaStreamSynchronize (s));
  printf ("DMA pinned -> device: %.1f GB/s\n", 10 * bytes / (now () - t0) / 1e9);
  t0 = now ();
  for (int q = 0; q < 10; q++)
    CHECK (cudaMemcpyAsync (pin2, dev, bytes, cudaMemcpyDeviceToHost, s));
  CHECK (cudaStreamSynchronize (s));
  printf ("DMA device -> pinned: %.1f GB/s\n", 10 * bytes / (now () - t0) / 1e9);

  /* Page-locking in place: a result buffer, new each call.  */
  for (int huge = 0; huge < 2; huge++)
    for (int rep = 0; rep < 3; rep++)
      {
        char *c = aligned_alloc (2 * MB, bytes);
        if (huge)
          madvise (c, bytes, MADV_HUGEPAGE);
        const double a = now ();
        gt_prefault_start (w, c, bytes, 8);
        gt_prefault_wait (w);
        const double b = now ();
        CHECK (cudaHostRegister (c, bytes, cudaHostRegisterDefault));
        const double d = now ();
        CHECK (cudaMemcpyAsync (c, dev, bytes, cudaMemcpyDeviceToHost, s));
        CHECK (cudaStreamSynchronize (s));
        const double e = now ();
        CHECK (cudaHostUnregister (c));
        const double f = now ();
        printf ("new 64 MiB %s pages: prefault %.2f ms, register %.2f ms, "
                "DMA in %.2f ms, unregister %.2f ms\n",
                huge ? "huge" : "4 KiB", 1e3 * (b - a), 1e3 * (d - b),
                1e3 * (e - d), 1e3 * (f - e));
        free (c);
      }
  /* An existing operand, as Octave holds it.  */
  for (int rep = 0; rep < 2; rep++)
    {
      const double a = now ();
      CHECK (cudaHostRegister (src, bytes, cudaHostRegisterReadOnly));
      const double b = now ();
      CHECK (cudaHostUnregister (src));
      printf ("existing 64 MiB (malloc): register %.2f ms, unregister %.2f ms\n",
              1e3 * (b - a), 1e3 * (now () - b));
    }
  gt_workers_free (w);
  return 0;
}
