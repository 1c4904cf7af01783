/* gt_band_threads.h -- threads that run a split product's further bands
   (gt_multi.c), kept from call to call.  */

#ifndef GT_BAND_THREADS_H
#define GT_BAND_THREADS_H

/* Run fn (arg) on kept thread `slot` (1 to GT_MAX_DEVICES - 1), made at
   its first use; nonzero where no thread could be had (then nothing
   runs, and the caller runs it itself).  */
int gt_band_start (int slot, void (*fn) (void *), void *arg);

/* Wait until slot's run has returned.  */
void gt_band_wait (int slot);

/* Every kept thread ended (a reset, the plug-in unloaded).  Not from a
   band.  */
void gt_band_threads_stop (void);

#endif
