## Copyright (C) 2026 The gpu_tiled developers
##
## This program is free software: you can redistribute it and/or modify it
## under the terms of the GNU General Public License as published by the
## Free Software Foundation, either version 3 of the License, or (at your
## option) any later version.  See the file COPYING.

## -*- texinfo -*-
## @deftypefn {} {} gpu_tiled_reset ()
## Release the device buffers, page-locked staging memory, streams and
## events that @code{gpu_tiled_mtimes} keeps between calls, and stop its
## host helper threads (started by the first product with a copy of 64
## KiB or more; they sleep between calls).
##
## The next call sets them up again, reading the @env{GPU_TILED_*}
## environment options again (the way to change one in a running session:
## @code{setenv}, then @code{gpu_tiled_reset}).  @code{pkg unload
## gpu_tiled} does this too.
##
## Example:
## @example
## @group
## C = gpu_tiled_mtimes (A, B);
## gpu_tiled_reset ();     # give the GPU memory back to other programs
## gpu_tiled_info ().cached_device_memory   # 0
## @end group
## @end example
##
## @seealso{gpu_tiled_mtimes, gpu_tiled_info}
## @end deftypefn

function gpu_tiled_reset ()

  __gpu_tiled_reset__ ();

endfunction

%!error <called with too many inputs> gpu_tiled_reset (1)
%!error <called with too many outputs> x = gpu_tiled_reset ()
%!test
%! gpu_tiled_reset ();   # safe with nothing cached, and twice
%! gpu_tiled_reset ();
%! assert (gpu_tiled_info ().cached_device_memory, 0);
%!testif ; gpu_tiled_info ().usable
%! ## the package works again after a reset
%! A = randn (70, 50, "single");  B = randn (50, 90, "single");
%! C1 = gpu_tiled_mtimes (A, B);
%! gpu_tiled_reset ();
%! C2 = gpu_tiled_mtimes (A, B);
%! assert (C2, C1);
%!testif ; gpu_tiled_info ().usable
%! ## no device memory is lost over 10,000 calls that mix classes (every
%! ## call on the GPU: the crossover is off), each pair at its largest
%! ## shape first, so the cached buffers need not grow later
%! setenv ("GPU_TILED_CROSSOVER", "off");
%! unwind_protect
%!   gpu_tiled_reset ();
%!   X = {randn(64, "single"), randn(64), complex(randn(64, "single"), 1), ...
%!        complex(randn(64), 1), randn(64) > 0};
%!   pairs = [1 1; 2 2; 3 3; 4 4; 1 2; 2 1; 2 4; 4 2; 3 4; 1 4; 5 2; 3 5];
%!   for p = pairs'
%!     gpu_tiled_mtimes (X{p(1)}, X{p(2)});
%!     gpu_tiled_mtimes (X{p(1)}, X{p(2)}, 8);
%!   endfor
%!   before = gpu_tiled_info ().free_memory;
%!   for i = 1:10000
%!     p = pairs(mod (i, rows (pairs)) + 1, :);
%!     n = 64 - mod (i, 7);
%!     gpu_tiled_mtimes (X{p(1)}(1:n, :), X{p(2)}(:, 1:n));
%!   endfor
%!   assert (gpu_tiled_info ().free_memory, before);
%! unwind_protect_cleanup
%!   unsetenv ("GPU_TILED_CROSSOVER");
%!   gpu_tiled_reset ();
%! end_unwind_protect
%!testif ; gpu_tiled_info ().usable && isfolder ("/proc/self/task")
%! ## the helper threads of a large product stop on reset (Linux counts the
%! ## process's threads in /proc/self/task)
%! gpu_tiled_mtimes (randn (1500, "single"), randn (1500, "single"));
%! before = numel (dir ("/proc/self/task"));
%! gpu_tiled_reset ();
%! after = numel (dir ("/proc/self/task"));
%! assert (before - after >= 2, sprintf ("%d threads before, %d after", before, after));
%! A = randn (1500, 20, "single");  B = randn (20, 1500, "single");
%! C = gpu_tiled_mtimes (A, B);    # large enough for the threads again
%! R = double (A) * double (B);
%! assert (norm (double (C) - R, "fro")
%!         <= 80 * eps ("single") * norm (double (A), "fro") * norm (double (B), "fro"));
%!test
%! ## texinfo help, rendered where makeinfo is installed
%! [txt, fmt] = get_help_text ("gpu_tiled_reset");
%! assert (fmt, "texinfo");
%! assert (! isempty (strfind (txt, "@deftypefn")));
%! if (! isempty (file_in_path (getenv ("PATH"), "makeinfo")))
%!   assert (! isempty (strfind (evalc ("help gpu_tiled_reset"), "gpu_tiled_reset ()")));
%! endif
