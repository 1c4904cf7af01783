## bench_gpu_tiled_mtimes (CSV, DEVICE, SIZES, PNG, CLASS_SIZES, BUILTIN_CAP)
## -- end-to-end benchmark from Octave: matrices in host memory, result back
## in an Octave variable.
##
## For n in SIZES (square) and the odd shapes of the kernel benchmark, times
## the built-in *, gpu_tiled_mtimes with each tile and with the default
## kernel: a warm-up call, then the median of repeated calls (at least 3,
## up to 20 or about two seconds), each from the call to the result in a
## variable.  Prints a table and writes CSV with columns
## device,date,method,m,n,k,seconds,gflops,speedup_vs_builtin,class,
## floor_seconds,of_floor,gpus.
## Then the other classes (double, complex single, complex double) at
## CLASS_SIZES (square, default 64, 1000, 4096, 8192): the built-in * of
## that class and the default path, with the class in the last column and
## the speed-up over that class's built-in (complex products count 8 mnk
## flops).  The built-in is timed once where one call takes over 2 s.
## The first call in the process (CUDA context creation) is reported apart.
##
## floor_seconds is the least time a call could take: the longest of the
## copy in (A and B as the class stores them), the copy out (C), each at
## 55 GB/s, and the default path's kernel alone on the GPU, measured at the
## start of the run by bench_kernels (--only default, default_d, default_c
## or default_z at this run's shapes, median of 7).  With g GPUs the floor
## is max (in / (g * 55e9), out / (g * 55e9), kernel / g).  of_floor is
## seconds / floor_seconds; gpus is the number of GPUs the call used (0 for
## the built-in, whose row carries the one-GPU floor to compare with).  The
## tile rows carry the default path's floor.  Without bench_kernels (make -C
## bench), or where it fails, a warning, and the floor counts the copies.
##
## SIZES = "suite": the end-to-end suite instead, for each class (single,
## double, complex single, complex double): the squares 64, 128, ..., 16384
## and the shapes (m x k x n) 10000x1000x10000, 2000x20000x2000,
## 100000x256x256, 256x100000x256, 3000x700x5000, 1x1000000x64 and
## 64x1000000x1.  At each: the built-in * where 2 m n k flops (times 4 for
## complex) are at most BUILTIN_CAP (default 2e10: this Octave may use a
## slow reference BLAS; above it no builtin row, speedup NaN), timed after
## the default path (see suite_shape); the default path with each result
## freed after its call (method "default": a warm-up, then the median of at
## least 5 calls, up to 20 or about 2 s) and with every result kept in a
## cell array until the series is done (method "default_kept": no call gets
## memory a previous result of its series gave back, though the first may
## take what "default" left in the heap (see gpu_tiled_info's result_heap);
## right after "default", which warms it up; past the first 5 calls at most
## 16 GiB of results are kept).  The table also prints the best call and
## median/best; the CSV has the median.  Where gpu_tiled_devices reports
## several devices in use, each shape is timed on the first of them alone
## (gpus 1) and on all (gpus = their count), and the list is restored at the
## end.  CLASS_SIZES, a cell array of class names there, runs the suite for
## those classes only.
##
## With PNG (default: CSV with .png), plots GFLOP/s against n on log axes,
## one line per method, through plot_e2e.py (python3 with matplotlib); and
## of_floor per shape and class to CSV with _of_floor.png, through
## plot_of_floor.py.
##
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; bench_gpu_tiled_mtimes ("results/e2e-h100.csv", "h100")'
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; bench_gpu_tiled_mtimes ("results/suite-h100.csv", "h100", "suite")'

function bench_gpu_tiled_mtimes (csv = "e2e.csv", device = "", sizes = 2 .^ (6:13), png = "", class_sizes = [64 1000 4096 8192], builtin_cap = 2e10)

  suite = ischar (sizes) && strcmp (sizes, "suite");
  A = randn (64, "single");  B = randn (64, "single");
  t0 = tic;  gpu_tiled_mtimes (A, B);  first = toc (t0);
  info = gpu_tiled_info ();
  if (isempty (device))
    device = info.name;
  endif
  printf ("%s: first call (CUDA set-up) %.1f ms\n", info.name, 1e3 * first);

  if (suite)
    plan = suite_plan ();
    if (iscell (class_sizes))   # the suite for these classes only
      plan = plan(ismember ({plan.cls}, class_sizes));
    endif
  else
    plan = classic_plan (sizes, class_sizes);
  endif
  ## the kernels before any large call, while this process holds little
  ## GPU memory
  out.kernels = kernel_times (plan);
  out.device = device;
  out.date = datestr (now (), "yyyy-mm-dd");
  out.fid = fopen (csv, "w");
  fprintf (out.fid, ["device,date,method,m,n,k,seconds,gflops," ...
                     "speedup_vs_builtin,class,floor_seconds,of_floor,gpus\n"]);
  if (suite)
    run_suite (out, plan, builtin_cap);
  else
    run_classic (out, plan);
  endif
  fclose (out.fid);
  if (! suite || numel (gpu_sets ()) == 1)
    plot_csv (csv, png);
  else
    ## plot_e2e.py would join the 1-GPU and all-GPU rows into one line
    printf ("no GFLOP/s plot: rows for several GPU counts\n");
  endif
  [d, name] = fileparts (csv);
  run_plot ("plot_of_floor.py", csv, fullfile (d, [name "_of_floor.png"]));

endfunction

## Shapes (m, k, n rows) by class for the classic benchmark: every size
## and the odd shapes in single, CLASS_SIZES squares in the other classes.
function plan = classic_plan (sizes, class_sizes)
  shapes = [sizes(:), sizes(:), sizes(:)];
  shapes = [shapes; 1000 1000 1000; 4097 4097 4097; 3000 700 5000; ...
            65536 64 64; 64 65536 64; 128 65536 128; 1 4096 4096; 4096 4096 1];
  square = class_sizes(:) * [1 1 1];
  plan = struct ("cls", {"single", "double", "complex single", "complex double"},
                 "shapes", {shapes, square, square, square});
endfunction

## The suite's shapes (m, k, n rows), the same for every class.
function plan = suite_plan ()
  sq = 2 .^ (6:14)';
  shapes = [sq, sq, sq; 10000 1000 10000; 2000 20000 2000; 100000 256 256;
            256 100000 256; 3000 700 5000; 1 1000000 64; 64 1000000 1];
  plan = struct ("cls", {"single", "double", "complex single", "complex double"},
                 "shapes", {shapes});
endfunction

## The classic benchmark: single with every method, then the other
## classes' built-in and default path.
function run_classic (out, plan)
  sets = gpu_sets ();
  gpus = max (1, numel (sets{end}));    # [] without gpu_tiled_devices: 1
  methods = {"builtin", "tile8", "tile16", "tile32", "default"};
  printf ("%-8s %6s %6s %6s %12s %10s %9s %8s\n", "method", "m", "n", "k", ...
          "seconds", "GFLOP/s", "speedup", "of_floor");
  shapes = plan(1).shapes;
  for s = 1:rows (shapes)
    m = shapes(s, 1);  k = shapes(s, 2);  n = shapes(s, 3);
    A = randn (m, k, "single");  B = randn (k, n, "single");
    t_builtin = NaN;
    for i = 1:numel (methods)
      sec = median (time_calls (methods{i}, A, B, 3, false));
      g = gpus;
      if (i == 1)
        t_builtin = sec;
        g = 0;
      endif
      fl = write_row (out, methods{i}, m, n, k, sec, t_builtin, "single", g);
      printf ("%-8s %6d %6d %6d %12.6f %10.1f %9.2f %8.2f\n", methods{i},
              m, n, k, sec, flops_of ("single", m, n, k) / sec / 1e9,
              t_builtin / sec, sec / fl);
    endfor
  endfor
  for i = 2:numel (plan)
    for s = 1:rows (plan(i).shapes)
      bench_class (out, plan(i).cls, plan(i).shapes(s, 1), gpus);
    endfor
  endfor
endfunction

## The built-in * and the default path at n x n x n for one class.
function bench_class (out, cls, n, gpus)
  [A, B] = operands (n, n, n, cls);
  t_builtin = NaN;
  for method = {"builtin", "default"}
    sec = median (time_calls (method{1}, A, B, 5, true));
    g = gpus;
    if (strcmp (method{1}, "builtin"))
      t_builtin = sec;
      g = 0;
    endif
    fl = write_row (out, method{1}, n, n, n, sec, t_builtin, cls, g);
    printf ("%-8s %6d %6d %6d %12.6f %10.1f %9.2f %8.2f  %s\n", method{1},
            n, n, n, sec, flops_of (cls, n, n, n) / sec / 1e9,
            t_builtin / sec, sec / fl, cls);
  endfor
endfunction

## The suite, class by class, with the device list restored whatever
## happens (an interrupt, a failed call).
function run_suite (out, plan, cap)
  sets = gpu_sets ();
  if (numel (sets) > 1)
    printf ("GPUs in use: %s; each shape on 1 and on %d\n",
            num2str (sets{end}), numel (sets{end}));
    original = sets{end};
  endif
  printf ("%-12s %7s %7s %7s %-15s %4s %11s %11s %6s %9s %8s %8s\n",
          "method", "m", "n", "k", "class", "gpus", "median s", "best s",
          "spread", "GFLOP/s", "speedup", "of_floor");
  unwind_protect
    for i = 1:numel (plan)
      for s = 1:rows (plan(i).shapes)
        suite_shape (out, plan(i).cls, plan(i).shapes(s, :), sets, cap);
        fflush (stdout);
      endfor
    endfor
  unwind_protect_cleanup
    if (numel (sets) > 1)
      gpu_tiled_devices (original);
    endif
  end_unwind_protect
endfunction

## One shape of one class.  A, B and every result are this function's
## locals, so all are freed on return, before the next shape's are made
## (16384^2 complex double: 4 GiB a matrix).  The GPU's series come first
## and the built-in's last, then a pause: the calls right after the
## built-in's ran up to twice as slow as later ones (its BLAS threads keep
## the cores a while; bench/RESULTS.md, "Panels side by side").  The CSV
## keeps its order, the built-in's row first.
function suite_shape (out, cls, shape, sets, cap)
  m = shape(1);  k = shape(2);  n = shape(3);
  [A, B] = operands (m, k, n, cls);
  t_gpu = cell (numel (sets), 2);
  for j = 1:numel (sets)
    if (numel (sets) > 1)
      gpu_tiled_devices (sets{j});
    endif
    t_gpu{j, 1} = time_calls ("default", A, B, 5, false);
    t_gpu{j, 2} = time_kept (A, B);
  endfor
  t_builtin = NaN;
  if (flops_of (cls, m, n, k) <= cap)
    t = time_calls ("builtin", A, B, 5, true);
    t_builtin = median (t);
    suite_row (out, "builtin", m, n, k, cls, t, t_builtin, 0);
    pause (0.5);
  endif
  for j = 1:numel (sets)
    gpus = max (1, numel (sets{j}));
    suite_row (out, "default", m, n, k, cls, t_gpu{j, 1}, t_builtin, gpus);
    suite_row (out, "default_kept", m, n, k, cls, t_gpu{j, 2}, t_builtin,
               gpus);
  endfor
endfunction

## A suite row: the median to the CSV; the table adds the best call and
## the spread median/best.
function suite_row (out, method, m, n, k, cls, t, t_builtin, gpus)
  sec = median (t);
  fl = write_row (out, method, m, n, k, sec, t_builtin, cls, gpus);
  printf ("%-12s %7d %7d %7d %-15s %4d %11.6f %11.6f %6.2f %9.1f %8.2f %8.2f\n",
          method, m, n, k, cls, gpus, sec, min (t), sec / min (t),
          flops_of (cls, m, n, k) / sec / 1e9, t_builtin / sec, sec / fl);
endfunction

## One CSV row; returns its floor.  The built-in (gpus 0) gets the one-GPU
## floor.
function fl = write_row (out, method, m, n, k, sec, t_builtin, cls, gpus)
  fl = floor_seconds (out.kernels, cls, m, n, k, max (gpus, 1));
  fprintf (out.fid, "%s,%s,%s,%d,%d,%d,%.6g,%.4g,%.4g,%s,%.6g,%.4g,%d\n",
           out.device, out.date, method, m, n, k, sec,
           flops_of (cls, m, n, k) / sec / 1e9, t_builtin / sec, cls, fl,
           sec / fl, gpus);
  fflush (out.fid);   # a run cut short keeps its rows
endfunction

## The least time a call could take on g GPUs: the copy in, the copy out
## and the kernel can all overlap, so the longest of the three.  With g
## GPUs the link rate is g * 55e9 and the kernel time the one-GPU kernel
## time / g: each GPU takes an equal share over its own link.
function fl = floor_seconds (kernels, cls, m, n, k, g)
  es = elem_bytes (cls);
  key = kernel_key (cls, m, n, k);
  kernel = 0;
  if (isKey (kernels, key))
    kernel = kernels(key);
  endif
  fl = max ([(m * k + k * n) * es, m * n * es] / (g * 55e9));
  fl = max (fl, kernel / g);
endfunction

## Bytes per element as the class stores them.
function es = elem_bytes (cls)
  switch (cls)
    case "single"
      es = 4;
    case {"double", "complex single"}
      es = 8;
    case "complex double"
      es = 16;
  endswitch
endfunction

## Flops of one product: 2 m n k, four times that for complex.
function f = flops_of (cls, m, n, k)
  f = 2 * m * n * k * (1 + 3 * ! isempty (strfind (cls, "complex")));
endfunction

## Random m x k and k x n operands of the class.
function [A, B] = operands (m, k, n, cls)
  A = random_operand (cls, m, k);  B = random_operand (cls, k, n);
endfunction

## The GPU lists to time, as a cell: the list in use, or (several in use)
## the first alone, then all.  {[]} without gpu_tiled_devices: one GPU,
## left as it is.
function sets = gpu_sets ()
  sets = {[]};
  if (exist ("gpu_tiled_devices") != 0)
    devs = gpu_tiled_devices ();
    sets = {devs};
    if (numel (devs) > 1)
      sets = {devs(1), devs};
    endif
  endif
endfunction

function key = kernel_key (cls, m, n, k)
  key = sprintf ("%s %d %d %d", cls, m, n, k);
endfunction

## bench_kernels's row of the default path for a class.
function row = kernel_row (cls)
  names = {"single", "double", "complex single", "complex double"};
  row_names = {"default", "default_d", "default_c", "default_z"};
  row = row_names{strcmp (names, cls)};
endfunction

## Kernel seconds of the default path on one GPU, by kernel_key, from
## bench_kernels run once per class on that class's shapes (only the
## default row: the cuBLAS rows would double the time).  Where the binary
## is missing, fails or gives no row for a shape: a warning, and no entry
## (the floor then counts the copies only).
function kernels = kernel_times (plan)
  kernels = containers.Map ();
  exe = fullfile (fileparts (mfilename ("fullpath")), "bench_kernels");
  if (! exist (exe, "file"))
    warning (["bench_gpu_tiled_mtimes: no %s (make -C bench): floor from " ...
              "bytes only"], exe);
    return;
  endif
  for i = 1:numel (plan)
    cls = plan(i).cls;
    shapes = unique (plan(i).shapes, "rows");
    ## bench_kernels takes at most 64 shapes a run
    for first = 1:64:rows (shapes)
      last = min (first + 63, rows (shapes));
      run_kernels (kernels, exe, cls, shapes(first:last, :));
    endfor
    missing = {};
    for s = 1:rows (shapes)
      m = shapes(s, 1);  k = shapes(s, 2);  n = shapes(s, 3);
      if (! isKey (kernels, kernel_key (cls, m, n, k)))
        missing{end+1} = sprintf ("%dx%dx%d", m, k, n);
      endif
    endfor
    if (! isempty (missing))
      warning (["bench_gpu_tiled_mtimes: no kernel time for %s %s: floor " ...
                "from bytes only"], cls, strjoin (missing, ", "));
    endif
  endfor
endfunction

## One bench_kernels run (shapes: m, k, n rows, its --shapes order); its
## CSV's ms into kernels (a handle: filled in place).  A failure is
## reported, and the rows it wrote before failing are still used.
function run_kernels (kernels, exe, cls, shapes)
  row = kernel_row (cls);
  spec = sprintf ("%d,%d,%d;", shapes');
  tmp = [tempname() ".csv"];
  printf ("bench_kernels --only %s: %d shapes\n", row, rows (shapes));
  fflush (stdout);
  cmd = sprintf ("'%s' --only %s --reps 7 --shapes '%s' --csv '%s' 2>&1",
                 exe, row, spec(1:end-1), tmp);
  [status, text] = system (cmd);
  if (status != 0)
    text = text(max (1, numel (text) - 1999):end);   # its last lines
    warning ("bench_gpu_tiled_mtimes: bench_kernels exit status %d:\n%s",
             status, text);
  endif
  fid = fopen (tmp, "r");
  if (fid < 0)
    return;
  endif
  fgetl (fid);                          # the header
  line = fgetl (fid);
  while (ischar (line))
    ## device,date,kernel,m,n,k,ms,tflops,vs_cublas,rel_err: counted
    ## from the end, in case the device name holds a comma
    f = strsplit (line, ",");
    if (numel (f) >= 10 && strcmp (f{end-7}, row))
      mnk = str2double (f(end-6:end-4));
      key = kernel_key (cls, mnk(1), mnk(2), mnk(3));
      kernels(key) = str2double (f{end-3}) / 1e3;     # ms to seconds
    endif
    line = fgetl (fid);
  endwhile
  fclose (fid);
  delete (tmp);
endfunction

function plot_csv (csv, png)
  if (isempty (png))
    [d, name] = fileparts (csv);
    png = fullfile (d, [name ".png"]);
  endif
  run_plot ("plot_e2e.py", csv, png);
endfunction

## A plot script of this directory on CSV; a message, never an error,
## where python3 or matplotlib is missing.
function run_plot (script, csv, png)
  script = fullfile (fileparts (mfilename ("fullpath")), script);
  [status, out] = system (sprintf ("python3 '%s' '%s' '%s'", script, csv, png));
  if (status == 0)
    printf ("plot: %s\n", png);
  else
    printf ("no plot (python3 with matplotlib needed): %s\n", out);
  endif
endfunction

## Times of repeated calls after a warm-up: at least MIN_CALLS, up to 20
## or about two seconds.  ONCE_IF_SLOW: a warm-up over 2 s is the only
## figure (the built-in on a slow BLAS).  The default path warms up for 8
## calls: a product that comes back runs its first 8 with its operands
## locked and staged in turn, timing both ways (gpu_tiled_info's
## operands_lock), and the faster after.
function t = time_calls (method, A, B, min_calls, once_if_slow)
  t = time_call (method, A, B);         # warm-up
  if (once_if_slow && t > 2)
    return;
  endif
  for w = 2:(1 + 7 * strcmp (method, "default"))
    time_call (method, A, B);
  endfor
  t = [];
  t_start = tic;
  while (numel (t) < min_calls || (numel (t) < 20 && toc (t_start) < 2))
    t(end+1) = time_call (method, A, B);
  endwhile
endfunction

## As time_calls ("default", ...) without the warm-up, each result kept in a
## cell array until the series is done: assigning the next result to C frees
## nothing while kept{} holds the last, so no call gets memory a previous
## result of the series gave back.  Past 5 calls, at most 16 GiB kept
## (16384^2 complex double: 4 GiB a result).  All are freed on return,
## untimed.
function t = time_kept (A, B)
  kept = {};
  bytes = 0;
  t = [];
  t_start = tic;
  while (numel (t) < 5
         || (numel (t) < 20 && toc (t_start) < 2 && bytes < 16 * 2^30))
    t0 = tic;  C = gpu_tiled_mtimes (A, B);  t(end+1) = toc (t0);
    kept{end+1} = C;
    bytes += sizeof (C);
  endwhile
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
