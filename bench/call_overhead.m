## call_overhead (SIZES, FNS) -- what a call of gpu_tiled_mtimes adds to a
## product small enough that the CPU takes it (below the crossover), for
## every class: each function of FNS (by name; default the package's, and
## its A/B copy gpu_tiled_mtimes_old where tools/ab-baseline loaded one)
## against the built-in * on the same operands, calls written out in loops
## of 2000 (no function handle, which would add its own cost), the rounds
## of each alternated, the median of 9 rounds.  Also an empty function of
## an .m file of its own, the interpreter's price for any .m call.
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; call_overhead'
function call_overhead (sizes = [4 8 16], fns = {})
  if (isempty (fns))
    fns = {"gpu_tiled_mtimes"};
    if (exist ("gpu_tiled_mtimes_old"))
      fns{end+1} = "gpu_tiled_mtimes_old";
    endif
  endif
  classes = {"single", "double", "single complex", "double complex"};
  N = 2000;  rounds = 9;
  dir = tempname ();  mkdir (dir);  addpath (dir);
  fid = fopen (fullfile (dir, "empty_m_call.m"), "w");
  fprintf (fid, "function C = empty_m_call (A, B)\n  C = A;\nendfunction\n");
  fclose (fid);
  A = ones (4);  B = A;
  t = zeros (rounds, 2);
  for r = 1:rounds
    t0 = tic;  for i = 1:N, C = A; endfor;  t(r, 1) = toc (t0) / N;
    t0 = tic;  for i = 1:N, C = empty_m_call (A, B); endfor;  t(r, 2) = toc (t0) / N;
  endfor
  printf ("an empty .m function call: %.2f us\n", 1e6 * (median (t(:, 2)) - median (t(:, 1))));
  for c = 1:numel (classes)
    for n = sizes
      real_cls = strtok (classes{c});
      A = randn (n, real_cls);  B = randn (n, real_cls);
      if (! strcmp (classes{c}, real_cls))
        A = complex (A, randn (n, real_cls));  B = complex (B, randn (n, real_cls));
      endif
      for f = 1:numel (fns)
        feval (fns{f}, A, B);   # the crossover measured, the plug-in loaded
      endfor
      t = zeros (rounds, 1 + numel (fns));
      for r = 1:rounds
        t0 = tic;  for i = 1:N, C = A * B; endfor;  t(r, 1) = toc (t0) / N;
        for f = 1:numel (fns)
          t(r, 1 + f) = time_calls (fns{f}, A, B, N);
        endfor
      endfor
      m = median (t);
      printf ("%-15s %3d: built-in %6.2f us", classes{c}, n, 1e6 * m(1));
      for f = 1:numel (fns)
        printf (", %s +%.2f us", fns{f}, 1e6 * (m(1 + f) - m(1)));
      endfor
      printf ("\n");
    endfor
  endfor
  rmpath (dir);  confirm_recursive_rmdir (false, "local");  rmdir (dir, "s");
endfunction

## Seconds a call of the function named fn takes on A and B, the call
## written out in the loop (feval or a handle would add its own cost).
function t = time_calls (fn, A, B, N)
  switch (fn)
    case "gpu_tiled_mtimes"
      t0 = tic;  for i = 1:N, C = gpu_tiled_mtimes (A, B); endfor;  t = toc (t0) / N;
    case "gpu_tiled_mtimes_old"
      t0 = tic;  for i = 1:N, C = gpu_tiled_mtimes_old (A, B); endfor;  t = toc (t0) / N;
    otherwise
      error ("call_overhead: no written-out loop for %s", fn);
  endswitch
endfunction
