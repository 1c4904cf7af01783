## bench_gpu_tiled_mtimes (CSV, DEVICE, SIZES, PNG) -- end-to-end benchmark from
## Octave: matrices in host memory, result back in an Octave variable.
##
## For n in SIZES (square) and the odd shapes of the kernel benchmark, times
## the built-in *, gpu_tiled_mtimes with each tile and with the default
## kernel: a warm-up call, then the median of repeated calls (at least 3,
## up to 20 or about two seconds), each from the call to the result in a
## variable.  Prints a table and writes CSV with
## columns device,date,method,m,n,k,seconds,gflops,speedup_vs_builtin,class.
## Then the other classes (double, complex single, complex double) at
## CLASS_SIZES (square, default 64, 1000, 4096, 8192): the built-in * of
## that class and the default path, with the class in the last column and
## the speed-up over that class's built-in (complex products count 8 mnk
## flops).  The built-in is timed once where one call takes over 2 s.
## The first call in the process (CUDA context creation) is reported apart.
## With PNG (default: CSV with .png), plots GFLOP/s against n on log axes,
## one line per method, through plot_e2e.py (python3 with matplotlib).
##
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; bench_gpu_tiled_mtimes ("results/e2e-h100.csv", "h100")'

function bench_gpu_tiled_mtimes (csv = "e2e.csv", device = "", sizes = 2 .^ (6:13), png = "", class_sizes = [64 1000 4096 8192])

  A = randn (64, "single");  B = randn (64, "single");
  t0 = tic;  gpu_tiled_mtimes (A, B);  first = toc (t0);
  info = gpu_tiled_info ();
  if (isempty (device))
    device = info.name;
  endif
  printf ("%s: first call (CUDA set-up) %.1f ms\n", info.name, 1e3 * first);

  shapes = [sizes(:), sizes(:), sizes(:)];      # m, k, n
  shapes = [shapes; 1000 1000 1000; 4097 4097 4097; 3000 700 5000; ...
            65536 64 64; 64 65536 64; 128 65536 128; 1 4096 4096; 4096 4096 1];
  methods = {"builtin", "tile8", "tile16", "tile32", "default"};
  date = datestr (now (), "yyyy-mm-dd");
  fid = fopen (csv, "w");
  fprintf (fid, "device,date,method,m,n,k,seconds,gflops,speedup_vs_builtin,class\n");
  printf ("%-8s %6s %6s %6s %12s %10s %9s\n", "method", "m", "n", "k", ...
          "seconds", "GFLOP/s", "speedup");
  for s = 1:rows (shapes)
    m = shapes(s, 1);  k = shapes(s, 2);  n = shapes(s, 3);
    A = randn (m, k, "single");  B = randn (k, n, "single");
    flops = 2 * m * n * k;
    t_builtin = NaN;
    for i = 1:numel (methods)
      time_call (methods{i}, A, B);    # warm-up
      t = [];
      t_start = tic;
      while (numel (t) < 3 || (numel (t) < 20 && toc (t_start) < 2))
        t(end+1) = time_call (methods{i}, A, B);
      endwhile
      sec = median (t);
      if (i == 1)
        t_builtin = sec;
      endif
      printf ("%-8s %6d %6d %6d %12.6f %10.1f %9.2f\n", methods{i}, m, n, k,
              sec, flops / sec / 1e9, t_builtin / sec);
      fprintf (fid, "%s,%s,%s,%d,%d,%d,%.6g,%.4g,%.4g,single\n", device,
               date, methods{i}, m, n, k, sec, flops / sec / 1e9,
               t_builtin / sec);
    endfor
  endfor
  for c = {"double", "complex single", "complex double"}
    for n = class_sizes
      bench_class (fid, device, date, c{1}, n);
    endfor
  endfor
  fclose (fid);
  plot_csv (csv, png);

endfunction

## The built-in * and the default path at n x n x n for one class.
function bench_class (fid, device, date, cls, n)
  real_cls = strrep (cls, "complex ", "");
  A = randn (n, real_cls);  B = randn (n, real_cls);
  flops = 2 * n ^ 3;
  if (! strcmp (cls, real_cls))
    A = complex (A, randn (n, real_cls));  B = complex (B, randn (n, real_cls));
    flops *= 4;
  endif
  t_builtin = NaN;
  for method = {"builtin", "default"}
    t = time_call (method{1}, A, B);         # warm-up, and a first figure
    if (t < 2)
      t = [];
      t_start = tic;
      while (numel (t) < 5 || (numel (t) < 20 && toc (t_start) < 2))
        t(end+1) = time_call (method{1}, A, B);
      endwhile
    endif
    sec = median (t);
    if (strcmp (method{1}, "builtin"))
      t_builtin = sec;
    endif
    printf ("%-8s %6d %6d %6d %12.6f %10.1f %9.2f  %s\n", method{1}, n, n, n,
            sec, flops / sec / 1e9, t_builtin / sec, cls);
    fprintf (fid, "%s,%s,%s,%d,%d,%d,%.6g,%.4g,%.4g,%s\n", device, date,
             method{1}, n, n, n, sec, flops / sec / 1e9, t_builtin / sec, cls);
  endfor
endfunction

function plot_csv (csv, png)
  if (isempty (png))
    [d, name] = fileparts (csv);
    png = fullfile (d, [name ".png"]);
  endif
  script = fullfile (fileparts (mfilename ("fullpath")), "plot_e2e.py");
  [status, out] = system (sprintf ("python3 '%s' '%s' '%s'", script, csv, png));
  if (status == 0)
    printf ("plot: %s\n", png);
  else
    printf ("no plot (python3 with matplotlib needed): %s\n", out);
  endif
endfunction

## Seconds from the call to the result in a variable, the call written
## out (a function handle would add its own call to every figure).  The
## result is freed after the clock stops, as the previous result of a loop
## would be freed by the next assignment: e2e_stages reports that apart.
function t = time_call (method, A, B)
  switch (method)
    case "builtin"
      t0 = tic;  C = A * B;  t = toc (t0);
    case "default"
      t0 = tic;  C = gpu_tiled_mtimes (A, B);  t = toc (t0);
    case "tile8"
      t0 = tic;  C = gpu_tiled_mtimes (A, B, 8);  t = toc (t0);
    case "tile16"
      t0 = tic;  C = gpu_tiled_mtimes (A, B, 16);  t = toc (t0);
    case "tile32"
      t0 = tic;  C = gpu_tiled_mtimes (A, B, 32);  t = toc (t0);
  endswitch
endfunction
