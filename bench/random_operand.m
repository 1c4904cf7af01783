## X = random_operand (CLS, R, C) -- an R x C matrix of zero-mean normal
## entries of class CLS: "single", "double", "complex single" or "complex
## double" (real and imaginary parts drawn apart).  The benchmarks'
## operands.

function X = random_operand (cls, r, c)
  real_cls = strrep (cls, "complex ", "");
  X = randn (r, c, real_cls);
  if (! strcmp (real_cls, cls))
    X = complex (X, randn (r, c, real_cls));
  endif
endfunction
