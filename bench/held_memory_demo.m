## held_memory_demo (N) -- an N^3 single product while another process
## holds most of GPU 0's memory (bench/hold_memory): on GPU 0 alone (it
## goes through in blocks of C), on every GPU, and on the others; median
## of 3 calls, error of 128 sampled rows, what each device keeps cached.
## Then the same on GPU 0 with the trace on, which names the blocks.
##   bench/hold_memory 0 1536 100 &
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; held_memory_demo (16384)'

function held_memory_demo (n = 16384)
  A = randn (n, "single");  B = randn (n, "single");
  i = randperm (n, 128);
  R = double (A(i, :)) * double (B);
  all = gpu_tiled_devices ();
  sets = {all(1), all};
  if (numel (all) > 1)
    sets{end+1} = all(2:end);
  endif
  unwind_protect
    for s = sets
      gpu_tiled_devices (s{1});
      gpu_tiled_reset ();
      C = gpu_tiled_mtimes (A, B);
      t = zeros (1, 3);
      for r = 1:3
        clear C;
        t0 = tic;  C = gpu_tiled_mtimes (A, B);  t(r) = toc (t0);
      endfor
      err = norm (double (C(i, :)) - R, "fro") / norm (R, "fro");
      cached = round ([gpu_tiled_info().devices.cached_device_memory] / 2^20);
      printf ("devices %s: %d^3 single %.1f ms (median of 3), relative error %.2g; cached MiB per device %s\n",
              mat2str (s{1}), n, 1e3 * median (t), err, mat2str (cached));
    endfor
    gpu_tiled_devices (all(1));
    gpu_tiled_reset ();
    setenv ("GPU_TILED_TRACE", "1");
    C = gpu_tiled_mtimes (A, B);
  unwind_protect_cleanup
    unsetenv ("GPU_TILED_TRACE");
    gpu_tiled_devices ([]);
  end_unwind_protect
endfunction
