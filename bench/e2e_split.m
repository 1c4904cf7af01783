## e2e_split (MODE) -- one GPU against the host's first two, end to end
## from Octave, results freed between calls (median and best of N after
## two warm-ups): what gt_multi.c's split_pays is fitted to.
##   MODE "forced": every product split (GPU_TILED_SPLIT=always), 5 calls;
##   MODE "default": the two devices with split_pays choosing, 7 calls.
##   octave-cli --eval 'cd bench; e2e_split ("forced")'

function e2e_split (mode = "forced")

  forced = strcmp (mode, "forced");
  if (forced)
    S = {"single", [6144 6144 6144]; "single", [8192 8192 8192];
         "double", [4096 4096 4096]; "double", [6144 6144 6144];
         "double", [8192 8192 8192]; "double", [2000 20000 2000];
         "complex", [4096 4096 4096]};
    reps = 5;
  else
    S = {"single", [4096 4096 4096]; "single", [6144 6144 6144];
         "single", [10000 1000 10000]; "double", [4096 4096 4096];
         "double", [2000 20000 2000]; "double", [2048 2048 2048]};
    reps = 7;
  endif
  what = "split";
  if (! forced)
    what = "both (default)";
  endif
  gpu_tiled_mtimes (randn (64), randn (64));
  for i = 1:rows (S)
    [c, s] = S{i, :};
    if (strcmp (c, "complex"))
      A = complex (randn (s(1), s(2)), randn (s(1), s(2)));
      B = complex (randn (s(2), s(3)), randn (s(2), s(3)));
    else
      A = randn (s(1), s(2), c);  B = randn (s(2), s(3), c);
    endif
    t = zeros (2, reps);
    for g = 1:2
      use_devices (g, forced);
      for r = 1:2
        C = gpu_tiled_mtimes (A, B);  clear C;
      endfor
      for r = 1:reps
        t0 = tic;  C = gpu_tiled_mtimes (A, B);  t(g, r) = toc (t0);  clear C;
      endfor
    endfor
    printf ("%s %dx%dx%d: one GPU %.2f (%.2f) ms, %s %.2f (%.2f) ms, ratio %.3f\n",
            c, s, 1e3 * median (t(1,:)), 1e3 * min (t(1,:)),
            what,
            1e3 * median (t(2,:)), 1e3 * min (t(2,:)),
            median (t(2,:)) / median (t(1,:)));
    fflush (stdout);
  endfor
  unsetenv ("GPU_TILED_SPLIT");
  gpu_tiled_reset ();
  gpu_tiled_devices ([]);

endfunction

## g 1: device 0 alone; 2: devices 0 and 1 (split forced where asked;
## GPU_TILED_SPLIT is read when the devices are set up, after a reset)
function use_devices (g, forced)
  if (forced)
    if (g == 1)
      unsetenv ("GPU_TILED_SPLIT");
    else
      setenv ("GPU_TILED_SPLIT", "always");
    endif
    gpu_tiled_reset ();
  endif
  devs = {0, [0 1]};
  gpu_tiled_devices (devs{g});
endfunction
