## Copyright (C) 2026 The gpu_tiled developers
##
## This program is free software: you can redistribute it and/or modify it
## under the terms of the GNU General Public License as published by the
## Free Software Foundation, either version 3 of the License, or (at your
## option) any later version.  See the file COPYING.

## -*- texinfo -*-
## @deftypefn  {} {@var{list} =} gpu_tiled_devices ()
## @deftypefnx {} {@var{list} =} gpu_tiled_devices (@var{set})
## @deftypefnx {} {@var{list} =} gpu_tiled_devices ([])
## The GPUs that @code{gpu_tiled_mtimes} uses, as CUDA device ordinals.
##
## Large products are split over every device of the list: C is cut into
## one band of columns (or of rows, where C has more rows than columns)
## per device, each device gets all of the other operand, and each band is
## as wide as that device's speed, measured on earlier calls, allows.
## A product is split only where the kernel time saved is more than what
## a further device costs (on two H200s, 4096^3 single runs on the first
## device of the list alone; 8192^3 and 16384^3 split).  In a split by
## columns the first device hands A on to the others device to device
## where they can reach each other (NVLink, PCIe peer to peer).
##
## With @var{set}, a vector of distinct device ordinals, uses those devices
## from the next call on; @code{gpu_tiled_devices (0)} uses device 0 only.
## With @code{[]}, goes back to the default: the CUDA runtime's current
## device and every other device of the same compute capability.  The
## choice lasts until it is changed (@code{gpu_tiled_reset} keeps it, and
## forgets the measured speeds).  Returns the list in use.
##
## @example
## @group
## gpu_tiled_devices ()        # e.g. [0 1] on a host with two alike GPUs
## gpu_tiled_devices (1);      # from now on, device 1 alone
## gpu_tiled_devices ([]);     # the default again
## @end group
## @end example
##
## @seealso{gpu_tiled_mtimes, gpu_tiled_info, gpu_tiled_reset}
## @end deftypefn

function list = gpu_tiled_devices (set)

  if (nargin == 1)
    ## set(:): all () of an empty 3x0 would be empty, and false to &&;
    ## finite and below 2^31, so that every ordinal is an int
    if (! (isnumeric (set) && isreal (set) && (isvector (set) || isempty (set))
           && all (set(:) == fix (set(:))) && all (set(:) >= 0)
           && all (set(:) < 2^31)))
      error ("gpu_tiled_devices: SET must be a vector of device ordinals (integers from 0), or []");
    endif
    list = __gpu_tiled_devices__ (double (set(:).'));
  else
    list = __gpu_tiled_devices__ ();
  endif

endfunction

%!error <called with too many inputs> gpu_tiled_devices (0, 1)
%!error <SET must be a vector of device ordinals> gpu_tiled_devices (-1)
%!error <SET must be a vector of device ordinals> gpu_tiled_devices (0.5)
%!error <SET must be a vector of device ordinals> gpu_tiled_devices ("0")
%!error <SET must be a vector of device ordinals> gpu_tiled_devices (ones (2))
%!error <SET must be a vector of device ordinals> gpu_tiled_devices (Inf)
%!error <SET must be a vector of device ordinals> gpu_tiled_devices (2^31)
%!error <SET must be a vector of device ordinals> gpu_tiled_devices (uint64 (2^63))
%!error <SET must be a vector of device ordinals> gpu_tiled_devices (NaN)
%!error <SET must be a vector of device ordinals> gpu_tiled_devices (true)
%!error <SET must be a vector of device ordinals> gpu_tiled_devices ({0})
%!error <called with too many outputs> [a, b] = gpu_tiled_devices ()
%!test
%! ## an empty set of any shape is the default set
%! assert (gpu_tiled_devices (zeros (3, 0)), gpu_tiled_devices ([]));
%!error <SET must be a vector of device ordinals> gpu_tiled_devices (1i)
%!test
%! ## without a device the list is empty; with one, it starts with device
%! ## the default device
%! list = gpu_tiled_devices ();
%! assert (isrow (list) || isempty (list));
%! if (gpu_tiled_info ().usable)
%!   assert (list(1), gpu_tiled_info ().device);
%!   assert (numel (unique (list)), numel (list));
%! else
%!   assert (isempty (list));
%! endif
%!testif ; gpu_tiled_info ().usable
%! n = gpu_tiled_info ().device_count;
%! fail ("gpu_tiled_devices (n)", sprintf ("device %d is not one of the %d CUDA devices", n, n));
%! fail ("gpu_tiled_devices ([0 0])", "device 0 is named twice");
%!testif ; gpu_tiled_info ().usable
%! ## one device chosen: products run there, and the default comes back
%! unwind_protect
%!   assert (gpu_tiled_devices (0), 0);
%!   A = randn (700, 600, "single");  B = randn (600, 500, "single");
%!   C = gpu_tiled_mtimes (A, B);
%!   R = double (A) * double (B);
%!   assert (norm (double (C) - R, "fro")
%!           <= 4 * 600 * eps ("single") * norm (A, "fro") * norm (B, "fro"));
%! unwind_protect_cleanup
%!   gpu_tiled_devices ([]);
%! end_unwind_protect
%! assert (gpu_tiled_devices ()(1), gpu_tiled_info ().device);
