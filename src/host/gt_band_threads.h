/* gt_band_threads.h -- threads that run a split product's further bands
   (gt_multi.c), kept from call to call.  */

#ifndef GT_BAND_THREADS_H
#define GT_BAND_THREADS_H

/* Run fn (arg) on kept thread `slot` (1 to GT_MAX_DEVICES - 1), made at
   its first use (or its first in a forked process); after the run the
   thread yields its core for spin_s seconds before it sleeps.  Nonzero
   where no thread could be had (then nothing runs, and the caller runs
   it itself).  */
int gt_band_start (int slot, void (*fn) (void *), void *arg, double spin_s);

/* Wait until slot's run has returned.  */
void gt_band_wait (int slot);

/* Every kept thread that yields its core sleeps now: the host is about
   to multiply on its own cores (gt_ctx_rest_helpers).  */
void gt_band_rest (void);

/* Every kept thread ended (a reset, the plug-in unloaded), none in a run;
   not from a band's own thread.  */
void gt_band_threads_stop (void);

#endif
