## Copyright (C) 2026 The gpu_tiled developers
##
## This program is free software: you can redistribute it and/or modify it
## under the terms of the GNU General Public License as published by the
## Free Software Foundation, either version 3 of the License, or (at your
## option) any later version.  See the file COPYING.

## -*- texinfo -*-
## @deftypefn  {} {} gpu_tiled_info ()
## @deftypefnx {} {@var{s} =} gpu_tiled_info ()
## Report the GPUs that @code{gpu_tiled_mtimes} uses.
##
## With no output, print a summary.  Otherwise return a struct with fields:
##
## @table @code
## @item usable
## true when a CUDA device is present and can run this build's kernels.
## @item reason
## why not, when @code{usable} is false (no driver, no device, driver too
## old for the build, no kernel image for the GPU's architecture, ...).
## @item device
## the CUDA ordinal of the device that products not split over several
## GPUs run on (the first of @code{devices_used}).
## @item name
## @itemx compute_capability
## @itemx multiprocessors
## the device, e.g. @qcode{"NVIDIA H100 80GB HBM3"}, @qcode{"9.0"}, 132.
## @item total_memory
## @itemx free_memory
## device memory in bytes.
## @item cached_device_memory
## @itemx cached_pinned_memory
## bytes of device and page-locked host memory that @code{gpu_tiled_mtimes}
## keeps between calls; @code{gpu_tiled_reset} releases them.
## @item memory_retries
## products that ran out of the device's memory in the middle of a call
## and went on, in blocks that fit or (part of a product split over
## several devices) on another device, since the device was set up.
## @item side_products
## products run in column panels side by side, each panel's kernel on a
## stream of its own (streamed products of 4 to 64 MiB that would
## otherwise go in one panel), since the device was set up.
## @item piece_products
## products whose first column panel ran in pieces of k, each piece as
## soon as its columns of A and rows of B were on the device (streamed
## products, see @file{doc/gpu_tiled.md}), since the device was set up;
## a complex product whose operands held Inf or NaN counts too, though
## it then ran again whole.
## @item rows_products
## products whose first column panel alone ran in blocks of A's rows,
## each block as soon as its rows were on the device (complex products
## whose k is too short for pieces, tall products whose C goes out
## straight, real doubles whose C goes out straight and outweighs their
## operands; see @file{doc/gpu_tiled.md}), since the device was set up.
## @item head_products
## products whose first column panels ran as one head in blocks of A's
## rows, each block as soon as its rows were on the device, where the
## later panels' kernels take longer than their copies in (see
## @file{doc/gpu_tiled.md}), since the device was set up.
## @item peers
## the CUDA ordinals of the devices whose memory this device can read
## directly (peer access, over NVLink or PCIe): a product split over
## devices that all reach each other shares A between them (see
## @file{doc/gpu_tiled.md}); empty (1x0) where it reaches none.
## @item eighths_products
## complex products whose first panel took no pieces of k and that went
## in column panels of an eighth of n where the panels would have been a
## third of n or wider (see @file{doc/gpu_tiled.md}), since the device
## was set up.
## @item last_rows_products
## products whose last column panel of C went out in blocks of rows, each
## block as soon as the INT8 tensor cores' products had written it, so
## that its copy out ran beside the rest of the panel (complex singles on
## the INT8 tensor cores whose last panel holds 48 MiB or more, not where
## their operands hold Inf or NaN; see
## @file{doc/gpu_tiled.md}), since the device was set up.
## @item driver_version
## @itemx runtime_version
## CUDA driver and (statically linked) runtime versions, e.g. 13000.
## @item build_archs
## the GPU architectures compiled into this installation.
## @item device_count
## @itemx devices
## @itemx devices_used
## the CUDA devices the driver shows; a struct array with the fields above
## (@code{usable} to @code{last_rows_products}) for each of them; and the
## ordinals that products are split over (@code{gpu_tiled_devices}).
## @item crossover
## one element per class of result (@code{class}: single, double, complex
## single, complex double): products given no @var{tile} that are too small
## to pay for the trip to the GPU run on Octave's own @code{*}.  The first
## such product of a class times both sides at square sizes from 4 to 256
## (@code{sizes}), @code{host_seconds} and @code{gpu_seconds} (medians).
## Each side's time is then the line through its points, the host's
## against the product's flops, the GPU's against its bytes; a product runs
## where its line is lower.  @code{host_fixed_seconds} and
## @code{gpu_fixed_seconds} are the times at 4^3, @code{host_flops_per_second}
## and @code{gpu_bytes_per_second} the rates of the lines beyond 256^3.
## @code{square_n} is where the lines cross for square products,
## @code{host_products} how many were sent to the host (vector products
## too), @code{measured} false until the first.  Products of over 16 MiB
## run on the GPU, but vector products (a row times a matrix, a matrix
## times a column, an outer product), which the CPU's @code{*} reads once
## at its memory's rate, often faster than the link to the GPU: each kind
## of them (in that order, @code{m}, @code{n} or @code{k} of 1) is chosen
## on its own calls, for each size band (bytes within a power of two): the
## first two on the GPU, the third on the CPU, then the side whose best
## call moved more bytes per second, with the other side again after 4
## calls (the GPU for two calls back to back), in case it was timed
## cold; after that, after twice as many calls each time or, whichever
## is more, after as many as keep that retry's extra time within 2% of
## the faster side's calls (50 where @code{*} takes twice as long as the
## GPU, 100 where the GPU takes twice as long as @code{*}), and at most
## every 4096th call.
## @code{vector_gpu_calls}, @code{vector_host_calls},
## @code{vector_gpu_bytes_per_second} and
## @code{vector_host_bytes_per_second} (three elements, one per kind) say
## how many were timed on each side and each side's best rate, in the size
## band of that kind's last call.
## The option @env{GPU_TILED_CROSSOVER}=off, read at the first small
## product (and after @code{gpu_tiled_reset}) and at each vector product,
## sends every product to the GPU.
## @item emulation
## single products on the integer tensor cores (kernel 11: Hopper, built
## for sm_90a; see @file{doc/gpu_tiled.md}).  @code{usable}: the current
## device runs it; @code{mode}: @qcode{"cost"} (where it is predicted
## faster), @qcode{"off"} or @qcode{"always"} (the option
## @env{GPU_TILED_EMULATE}); @code{products}: products emulated since
## @code{gpu_tiled_reset}; @code{declined}: products whose operands'
## scan found that no affordable number of moduli keeps single precision
## (they ran on kernel 9); @code{kept_scans}, @code{kept_slices}:
## emulated products (panels of a streamed product) that used the
## previous panel's scan of A, and also its slices of A; @code{pieces}:
## pieces of k run on kernel 11 (the first panel of a large single
## product, as A arrives, each piece scanned on its own; counted also in
## @code{products} or @code{declined}); @code{a_ahead}: emulated panels
## (each of Gauss's three products of a complex panel apart) that found
## A's planes made as those pieces arrived, or, where the first panel ran
## whole, as A's columns arrived in parts (on scales guessed from the
## first piece or part; the rows guessed wrong are made again);
## @code{last_moduli}: of the last emulated product.
## @item result_heap
## bytes: from Octave 7 and glibc 2.33, results of more than 32 MiB and up
## to this size (at most 2 GiB) come from Octave's heap rather than
## fresh memory, and the heap keeps up to a quarter more than this (at
## most 2 GiB) of freed memory, and after a result of more than 1.5 GiB
## all of it until the next result or @code{gpu_tiled_reset}, so that a
## loop's next result finds the pages of the last one already there (fresh
## memory costs a page fault per 4 KiB page at its first write).  The
## heap grows by results only while it holds less than this; past it,
## results kept rather than freed are fresh memory as before.  0 where
## off.  The option @env{GPU_TILED_RESULT_HEAP} (bytes, in digits; 0, up
## to 32 MiB or anything else such as @qcode{"4G"} turns it off) sets
## it; by default a sixteenth of the host's memory, at most 4 GiB;
## off where malloc was tuned already
## (@env{MALLOC_MMAP_THRESHOLD_} and the like, or @env{GLIBC_TUNABLES}).
## Read at the first product and after @code{gpu_tiled_reset}.
## @item result_heap_reused
## results of 4 MiB or more whose memory was there already (a freed
## result's), since @code{gpu_tiled_reset}.
##
## @item results_locked
## bytes of host memory page-locked now: results, and operands (see
## @code{operands_direct}).  Where such a result's memory
## comes back (it was one of the last four results, or of the last eight
## operands), it is
## locked once and stays so: the GPU then writes the result straight into
## it instead of through the staging buffers, and a word of each page is
## checked afterwards (pages whose memory changed under the lock are copied
## again).  At most @code{lock_budget} bytes;
## @env{GPU_TILED_LOCK_RESULTS}=0 turns it off, for operands too.
## @code{gpu_tiled_reset} unlocks all.
##
## @item lock_budget
## bytes that may be locked at most, results and operands together: by
## default an eighth of the host's memory, at most 32 GiB, and no less
## than @code{result_heap}; @code{result_heap} itself where
## @env{GPU_TILED_RESULT_HEAP} sets it; 0 where locking is off
## (@env{GPU_TILED_LOCK_RESULTS}=0, or the result heap off).  Read at the
## first product and after @code{gpu_tiled_reset}.
##
## @item results_direct
## products whose result was written straight into locked memory, since
## @code{gpu_tiled_reset}.
##
## @item results_stale_pages
## pages of such results that the check found unwritten and copied again,
## since @code{gpu_tiled_reset} (0 unless the memory allocator gave pages
## back to the system while they were locked).
##
## @item operands_direct
## products that read an operand straight from locked memory, since
## @code{gpu_tiled_reset}.  Operands of 4 MiB or more that need no
## conversion may be locked by the results' rule (one of the last four
## results or eight operands again; within the same @code{lock_budget}
## bytes).  Every call then checks each locked operand once the uploads
## have read it: a word of each page is written from the GPU through the
## lock, read, and put back, and where a page is not the lock's the
## product runs again with that operand staged.  That check costs about
## 2-2.5 microseconds per MB: more than the
## straight uploads save on some hosts, less on others (where the host's
## copies, not the link, are slow, or several GPUs copy at once).  So,
## by default, each product that comes back is timed both ways (see
## @code{operands_lock}).
##
## @item operands_lock
## how operands are locked: @qcode{"timed"} (the default, and where
## @env{GPU_TILED_LOCK_OPERANDS} is neither 0 nor 1: a product that comes
## back, with the same classes, shape and devices, runs three timed calls
## with its operands locked and three staged, in pairs, then goes on the
## faster way for its next 256 calls, and is timed again; one whose
## operands cannot be locked goes staged), @qcode{"always"}
## (@env{GPU_TILED_LOCK_OPERANDS}=1) or @qcode{"never"}
## (@env{GPU_TILED_LOCK_OPERANDS}=0).  Read at the first product after
## @code{gpu_tiled_reset}; until then, what the variable says now.
##
## @item operands_chosen_locked
## @itemx operands_chosen_staged
## of the last 32 products timed, those whose operands now go locked, and
## those whose operands now go staged.
##
## @item operands_stale_pages
## pages of locked operands that were no longer the process's (their
## memory freed and made again at the same address), since
## @code{gpu_tiled_reset}.  Such an operand is copied through the staging
## buffers instead, and its memory is not locked again for 16 calls.
## @end table
##
## Example:
## @example
## @group
## if (gpu_tiled_info ().usable)
##   C = gpu_tiled_mtimes (A, B);
## else
##   C = A * B;
## endif
## @end group
## @end example
##
## @seealso{gpu_tiled_mtimes, gpu_tiled_devices, gpu_tiled_reset}
## @end deftypefn

function s = gpu_tiled_info ()

  info = __gpu_tiled_info__ ();
  if (nargout > 0)
    s = info;
    return;
  endif
  if (! info.usable)
    printf ("gpu_tiled: no usable GPU: %s\n", info.reason);
    return;
  endif
  mib = 1024 ^ 2;
  printf ("gpu_tiled: device %d, %s (compute capability %s, %d multiprocessors)\n",
          info.device, info.name, info.compute_capability,
          info.multiprocessors);
  printf ("  memory: %.0f MiB total, %.0f MiB free\n",
          info.total_memory / mib, info.free_memory / mib);
  printf ("  kept between calls: %.1f MiB device, %.1f MiB pinned host\n",
          info.cached_device_memory / mib, info.cached_pinned_memory / mib);
  printf ("  CUDA driver %d, runtime %d; built for %s\n",
          info.driver_version, info.runtime_version, info.build_archs);
  for d = info.devices
    if (d.device != info.device || ! d.usable)
      printf ("  device %d: %s\n", d.device,
              ifelse_text (d.usable, d.name, d.reason));
    endif
  endfor
  printf ("  products split over device(s) %s\n",
          strtrim (sprintf ("%d ", info.devices_used)));
  for x = info.crossover
    if (x.measured)
      printf ("  %s: products below about %.0f^3 run on the CPU\n",
              x.class, x.square_n);
    endif
    if (x.host_products > 0)
      printf ("  %s: %d products on the CPU so far\n", x.class,
              x.host_products);
    endif
    kinds = {"row times matrix", "matrix times column", "outer product"};
    for j = find (x.vector_host_calls > 0)
      printf ("  %s, %s over 16 MiB: CPU %.1f GB/s, GPU %.1f GB/s\n",
              x.class, kinds{j}, 1e-9 * x.vector_host_bytes_per_second(j),
              1e-9 * x.vector_gpu_bytes_per_second(j));
    endfor
  endfor

endfunction

function t = ifelse_text (cond, yes, no)
  if (cond)
    t = yes;
  else
    t = no;
  endif
endfunction

%!error <called with too many inputs> gpu_tiled_info (1)
%!error <called with too many outputs> [a, b] = gpu_tiled_info ()
%!test
%! s = gpu_tiled_info ();
%! assert (isstruct (s));
%! for f = {"usable", "reason", "device", "name", "compute_capability", ...
%!          "multiprocessors", "total_memory", "free_memory", ...
%!          "cached_device_memory", "cached_pinned_memory", "memory_retries", ...
%!          "side_products", "piece_products", "rows_products", ...
%!          "head_products", ...
%!          "eighths_products", "last_rows_products", "peers", ...
%!          "driver_version", ...
%!          "runtime_version", "build_archs", ...
%!          "device_count", "devices", "devices_used", "crossover", ...
%!          "emulation", "result_heap", "result_heap_reused", ...
%!          "results_locked", "lock_budget", "results_direct", ...
%!          "results_stale_pages", "operands_direct", ...
%!          "operands_stale_pages", "operands_lock", ...
%!          "operands_chosen_locked", "operands_chosen_staged"}
%!   assert (isfield (s, f{1}), true, f{1});
%! endfor
%! assert (islogical (s.usable));
%! assert (! isempty (s.build_archs));
%! assert (size (s.crossover), [1, 4]);
%! for f = {"vector_gpu_calls", "vector_host_calls", ...
%!          "vector_gpu_bytes_per_second", "vector_host_bytes_per_second"}
%!   assert (isequal (size (s.crossover(1).(f{1})), [1, 3]), f{1});
%! endfor
%! assert (all (isfield (s.crossover, {"class", "measured", "square_n", ...
%!                                    "sizes", "host_seconds", "gpu_seconds", ...
%!                                    "host_fixed_seconds", ...
%!                                    "host_flops_per_second", ...
%!                                    "gpu_fixed_seconds", ...
%!                                    "gpu_bytes_per_second", "host_products", ...
%!                                    "vector_gpu_calls", "vector_host_calls", ...
%!                                    "vector_gpu_bytes_per_second", ...
%!                                    "vector_host_bytes_per_second"})));
%! ## every device's fields, also where the driver shows none (1x0)
%! assert (all (isfield (s.devices, {"usable", "reason", "device", "name", ...
%!                                  "compute_capability", "multiprocessors", ...
%!                                  "total_memory", "free_memory", ...
%!                                  "cached_device_memory", ...
%!                                  "cached_pinned_memory", "memory_retries", ...
%!                                  "side_products", "piece_products", ...
%!                                  "rows_products", "head_products", ...
%!                                  "eighths_products", ...
%!                                  "last_rows_products", "peers"})));
%! for d = s.devices
%!   assert (rows (d.peers), 1);
%!   assert (! any (d.peers == d.device));
%!   assert (all (d.peers >= 0 & d.peers < s.device_count));
%! endfor
%! assert (isfield (s.emulation, {"usable", "mode", "products", "declined", ...
%!                                "kept_scans", "kept_slices", ...
%!                                "pieces", "a_ahead", "last_moduli"}), ...
%!         true (1, 9));
%! assert (any (strcmp (s.emulation.mode, {"cost", "off", "always"})));
%! assert (isscalar (s.result_heap) && s.result_heap >= 0);
%! assert (isscalar (s.result_heap_reused) && s.result_heap_reused >= 0);
%! assert (isscalar (s.results_locked) && s.results_locked >= 0);
%! assert (isscalar (s.lock_budget) && s.lock_budget >= 0);
%! assert (s.results_locked <= s.lock_budget);
%! assert (isscalar (s.results_direct) && s.results_direct >= 0);
%! assert (isscalar (s.results_stale_pages) && s.results_stale_pages >= 0);
%! assert (isscalar (s.operands_direct) && s.operands_direct >= 0);
%! assert (isscalar (s.operands_stale_pages) && s.operands_stale_pages >= 0);
%! assert (any (strcmp (s.operands_lock, {"timed", "always", "never"})));
%! assert (s.operands_chosen_locked >= 0 && s.operands_chosen_staged >= 0);
%! assert (s.operands_chosen_locked + s.operands_chosen_staged <= 32);
%! assert ({s.crossover.class}, {"single", "double", "complex single", ...
%!                              "complex double"});
%! if (s.usable)
%!   assert (numel (s.devices), s.device_count);
%!   assert ([s.devices.device], 0:s.device_count - 1);
%!   assert (s.devices(s.device + 1).name, s.name);
%!   assert (s.devices_used(1), s.device);
%!   assert (isempty (s.reason));
%!   assert (! isempty (s.name));
%!   assert (s.total_memory >= s.free_memory);
%!   assert (s.free_memory > 0);
%!   assert (s.multiprocessors > 0);
%! else
%!   assert (! isempty (s.reason));
%! endif
%!test
%! ## the locks' budget: by default an eighth of the host's memory, at most
%! ## 32 GiB, no less than the result heap's; the heap's where
%! ## GPU_TILED_RESULT_HEAP sets it; 0 with GPU_TILED_LOCK_RESULTS=0
%! heap0 = getenv ("GPU_TILED_RESULT_HEAP");
%! lock0 = getenv ("GPU_TILED_LOCK_RESULTS");
%! unwind_protect
%!   unsetenv ("GPU_TILED_LOCK_RESULTS");
%!   setenv ("GPU_TILED_RESULT_HEAP", "");
%!   gpu_tiled_reset ();
%!   s = gpu_tiled_info ();
%!   if (s.result_heap > 0)
%!     ## the pages the library sees (sysconf), not /proc/meminfo's, which
%!     ## a container may show otherwise
%!     [~, pages] = system ("getconf _PHYS_PAGES");
%!     [~, page] = system ("getconf PAGESIZE");
%!     eighth = floor (str2double (pages) / 8) * str2double (page);
%!     want = max (min (eighth, 32 * 2^30), s.result_heap);
%!     assert (s.lock_budget, want);
%!   endif
%!   ## a budget the default rule would not give (under an eighth of any
%!   ## host this runs on)
%!   setenv ("GPU_TILED_RESULT_HEAP", "104857600");
%!   gpu_tiled_reset ();
%!   s = gpu_tiled_info ();
%!   if (s.result_heap > 0)
%!     assert (s.lock_budget, 104857600);
%!   endif
%!   setenv ("GPU_TILED_LOCK_RESULTS", "0");
%!   gpu_tiled_reset ();
%!   assert (gpu_tiled_info ().lock_budget, 0);
%! unwind_protect_cleanup
%!   setenv ("GPU_TILED_RESULT_HEAP", heap0);
%!   setenv ("GPU_TILED_LOCK_RESULTS", lock0);
%!   if (isempty (lock0))
%!     unsetenv ("GPU_TILED_LOCK_RESULTS");
%!   endif
%!   if (isempty (heap0))
%!     unsetenv ("GPU_TILED_RESULT_HEAP");
%!   endif
%!   gpu_tiled_reset ();
%! end_unwind_protect
%!testif ; gpu_tiled_info ().usable
%! ## a product leaves its buffers cached, a reset frees them
%! ## (over 16 MiB: never sent to the CPU by the crossover)
%! gpu_tiled_mtimes (randn (1500, "single"), randn (1500, "single"));
%! s = gpu_tiled_info ();
%! assert (s.cached_device_memory > 0);
%! assert (s.cached_pinned_memory > 0);
%! gpu_tiled_reset ();
%! s = gpu_tiled_info ();
%! assert (s.cached_device_memory, 0);
%! assert (s.cached_pinned_memory, 0);
%!test
%! ## texinfo help, rendered where makeinfo is installed
%! [txt, fmt] = get_help_text ("gpu_tiled_info");
%! assert (fmt, "texinfo");
%! assert (! isempty (strfind (txt, "@deftypefn")));
%! if (! isempty (file_in_path (getenv ("PATH"), "makeinfo")))
%!   assert (! isempty (strfind (evalc ("help gpu_tiled_info"), "gpu_tiled_info ()")));
%! endif
%!test
%! ## the summary printed without an output: the device and the devices
%! ## used where a GPU can run, else why not
%! s = gpu_tiled_info ();
%! out = evalc ("gpu_tiled_info ()");
%! if (s.usable)
%!   assert (! isempty (strfind (out, s.name)));
%!   assert (! isempty (strfind (out, "products split over device(s)")));
%! else
%!   assert (strncmp (out, "gpu_tiled: no usable GPU: ", 26));
%!   assert (! isempty (strfind (out, s.reason)));
%! endif
