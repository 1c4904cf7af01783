## e2e_stages -- where the time of gpu_tiled_mtimes goes, per shape: the
## whole call, freeing its result, and the library's own stage times
## (GPU_TILED_TRACE).
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; e2e_stages'
function e2e_stages (shapes = [64 64 64; 1024 1024 1024; 4096 4096 4096; 8192 8192 8192; 3000 700 5000])
  gpu_tiled_mtimes (randn (64, "single"), randn (64, "single"));
  for s = 1:rows (shapes)
    m = shapes(s, 1);  k = shapes(s, 2);  n = shapes(s, 3);
    A = randn (m, k, "single");  B = randn (k, n, "single");
    reps = max (3, min (200, round (2e8 / (m * n + m * k + k * n))));
    gpu_tiled_mtimes (A, B);
    t_call = inf;
    for r = 1:reps
      t0 = tic;  C = gpu_tiled_mtimes (A, B);  t_call = min (t_call, toc (t0));
    endfor
    t_free = inf;
    for r = 1:3
      C = gpu_tiled_mtimes (A, B);
      t0 = tic;  clear C;  t_free = min (t_free, toc (t0));
    endfor
    printf ("%5dx%5dx%5d: call %.3f ms (best of %d); freeing a result %.3f ms\n",
            m, k, n, 1e3 * t_call, reps, 1e3 * t_free);
    setenv ("GPU_TILED_TRACE", "1");   # read when the device is set up
    gpu_tiled_reset ();
    gpu_tiled_mtimes (A(1:64,1:64), B(1:64,1:64));
    for r = 1:3
      C = gpu_tiled_mtimes (A, B);
    endfor
    unsetenv ("GPU_TILED_TRACE");
    gpu_tiled_reset ();
    gpu_tiled_mtimes (A(1:64,1:64), B(1:64,1:64));
    fflush (stdout);
  endfor
endfunction
