## e2e_mid (FNAME, CLASSES) -- mid-sized squares end to end, of each of
## CLASSES (default {"single", "double"}; also "complex single", "complex
## double"): median and best of 51 calls of the function named FNAME (default
## gpu_tiled_mtimes; gpu_tiled_mtimes_old for a build that
## tools/ab-baseline loaded), each result freed before the next call.
## Run each build in a process of its own (their copy helpers would share
## the cores) and alternate the processes.
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; e2e_mid'
function e2e_mid (fname = "gpu_tiled_mtimes", classes = {"single", "double"})
  f = str2func (fname);
  f (randn (64), randn (64));
  for cls = classes(:)'
    for n = [128 192 256 320 384 448 512 768 1024 1536 2048]
      A = random_operand (cls{1}, n, n);  B = random_operand (cls{1}, n, n);
      for r = 1:3
        C = f (A, B);  clear C;
      endfor
      t = zeros (1, 51);
      for r = 1:numel (t)
        t0 = tic;  C = f (A, B);  t(r) = toc (t0);  clear C;
      endfor
      printf ("%s %-14s %5d: median %8.1f us  best %8.1f us\n", fname,
              strrep (cls{1}, " ", "_"), n, 1e6 * median (t), 1e6 * min (t));
    endfor
  endfor
endfunction
