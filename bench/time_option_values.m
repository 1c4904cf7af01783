## [T, COUNTED] = time_option_values (A, B, OPTION, VALUES, ROUNDS, WARM,
## CALLS, COUNT) -- the benchmarks' A/B of a GPU_TILED_* option
## (e2e_option, e2e_head): ROUNDS rounds in turn, each value of the
## option (a string; "" for unset) after gpu_tiled_reset (the options are
## read at a device's set-up), WARM warm-up calls and CALLS timed calls
## of A * B, each result freed before the next as a script's loop does.
## T{v}: value v's timed calls over all rounds.  COUNT, where given, a
## function handle read before and after each series of timed calls;
## COUNTED(v): what it grew by in value v's last series.

function [t, counted] = time_option_values (A, B, option, values, rounds,
                                            warm, calls, count = [])
  t = repmat ({[]}, 1, numel (values));
  counted = zeros (1, numel (values));
  for r = 1:rounds
    for v = 1:numel (values)
      if (isempty (values{v}))
        unsetenv (option);
      else
        setenv (option, values{v});
      endif
      gpu_tiled_reset ();
      for i = 1:warm
        C = gpu_tiled_mtimes (A, B);
        clear C;
      endfor
      c0 = 0;
      if (! isempty (count))
        c0 = count ();
      endif
      for i = 1:calls
        t0 = tic;
        C = gpu_tiled_mtimes (A, B);
        t{v}(end+1) = toc (t0);
        clear C;
      endfor
      if (! isempty (count))
        counted(v) = count () - c0;
      endif
    endfor
  endfor
endfunction
