## crossover_sweep (CSV) -- the default path (crossover on) against the
## built-in * at small and mid sizes, for every class: is it ever slower?
## For each class and square n, the median of 31 calls of each (after
## warm-ups), and of an empty .m function call as the interpreter's own
## overhead.  Prints where each product ran (gpu_tiled_info's count) and
## the ratio to the built-in; writes CSV with columns
## class,n,builtin_s,default_s,ratio,on_host.
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; crossover_sweep ("results/crossover-h100.csv")'

function crossover_sweep (csv = "crossover.csv")

  sizes = [2 4 8 16 24 32 40 48 64 96 128 192 256 384 512];
  classes = {"single", "double", "single complex", "double complex"};
  fid = fopen (csv, "w");
  fprintf (fid, "class,n,builtin_s,default_s,ratio,on_host\n");
  t_empty = median_time (@() empty_call (1), 301);
  printf ("an empty .m function call: %.2f us\n", 1e6 * t_empty);
  for c = 1:numel (classes)
    for n = sizes
      [A, B] = operands (classes{c}, n);
      before = host_count (c);
      t_b = median_time (@() A * B, 31);
      t_d = median_time (@() gpu_tiled_mtimes (A, B), 31);
      on_host = host_count (c) > before;
      printf ("%-15s %5d  builtin %10.2f us  default %10.2f us  %.2fx  %s\n",
              classes{c}, n, 1e6 * t_b, 1e6 * t_d, t_d / t_b,
              ifelse_text (on_host, "CPU", "GPU"));
      fprintf (fid, "%s,%d,%.6g,%.6g,%.4f,%d\n", classes{c}, n, t_b, t_d,
               t_d / t_b, on_host);
    endfor
    x = gpu_tiled_info ().crossover(c);
    printf ("%s: crossover n = %.0f; measured at %s: host %s us, GPU %s us\n",
            x.class, x.square_n, mat2str (x.sizes),
            mat2str (round (1e7 * x.host_seconds) / 10),
            mat2str (round (1e7 * x.gpu_seconds) / 10));
  endfor
  fclose (fid);

endfunction

function [A, B] = operands (cls, n)
  real_cls = strtok (cls);
  A = randn (n, real_cls);  B = randn (n, real_cls);
  if (! strcmp (cls, real_cls))
    A = complex (A, randn (n, real_cls));  B = complex (B, randn (n, real_cls));
  endif
endfunction

function n = host_count (c)
  n = gpu_tiled_info ().crossover(c).host_products;
endfunction

## Median seconds of calls of f, after a few not timed.  The handle call
## adds the same to both sides of a comparison.
function t = median_time (f, reps)
  for i = 1:3
    f ();
  endfor
  t = zeros (1, reps);
  for i = 1:reps
    t0 = tic;  f ();  t(i) = toc (t0);
  endfor
  t = median (t);
endfunction

function r = empty_call (x)
  r = x;
endfunction

function t = ifelse_text (c, a, b)
  if (c) t = a; else t = b; endif
endfunction
