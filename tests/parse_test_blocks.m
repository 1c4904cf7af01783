## parse_test_blocks (FILE, ...) -- every %!test, %!testif, %!demo and
## %!function block of the files must parse.  Octave's test runner parses
## a block only when it runs it, and a machine without a GPU skips every
## %!testif block that needs one: a syntax error there would show only on
## a GPU.  Each block is defined as a function (never called), as the
## runner defines it.  A block must also not call assert with a message
## where it takes a tolerance (assert (X, Y, "...")): an invalid call that
## only fails where the block runs.  Prints each block that fails and,
## last, "N passed, N failed".
function parse_test_blocks (varargin)
  passed = 0;  failed = 0;
  for f = 1:numel (varargin)
    blocks = test_blocks (varargin{f});
    for b = 1:numel (blocks)
      [ok, msg] = parses (blocks{b}.code);
      if (ok)
        [ok, msg] = asserts_valid (blocks{b}.code);
      endif
      if (ok)
        passed += 1;
      else
        failed += 1;
        printf ("  %s:%d: %s block: %s\n", varargin{f}, blocks{b}.line,
                blocks{b}.kind, msg);
      endif
    endfor
  endfor
  printf ("%d passed, %d failed\n", passed, failed);
endfunction

## The blocks of FILE: each %! line up to the next line that starts a
## block (a %! line that begins with a keyword), with its kind and line.
function blocks = test_blocks (file)
  text = strsplit (fileread (file), "\n");
  keywords = {"test", "testif", "xtest", "demo", "function", "endfunction", ...
              "shared", "assert", "fail", "error", "warning"};
  blocks = {};
  cur = [];
  for i = 1:numel (text)
    t = text{i};
    if (! strncmp (t, "%!", 2))
      continue;
    endif
    t = t(3:end);
    word = regexp (t, '^[a-z]+', "match", "once");
    if (any (strcmp (word, keywords)))
      blocks = add_block (blocks, cur);
      cur = struct ("kind", word, "line", i, "head", t(numel (word)+1:end),
                    "body", {{}});
    elseif (! isempty (cur))
      cur.body{end+1} = t;
    endif
  endfor
  blocks = add_block (blocks, cur);
endfunction

## Adds block B (if one that this check parses) with the code to define.
function blocks = add_block (blocks, b)
  if (isempty (b))
    return;
  endif
  body = strjoin (b.body, "\n");
  switch (b.kind)
    case {"test", "xtest", "demo"}
      b.code = [b.head "\n" body];
    case "testif"
      b.code = body;     # the head holds the block's conditions
    case "function"
      b.code = ["function" b.head "\n" body "\nendfunction"];
      blocks{end+1} = b;
      return;
    otherwise
      return;
  endswitch
  b.code = ["function __parse_test_block__ ()\n" b.code "\nendfunction"];
  blocks{end+1} = b;
endfunction

## Whether CODE (one function definition) parses; defines it, never calls it.
function [ok, msg] = parses (code)
  ok = true;  msg = "";
  try
    eval (code);
  catch err
    ok = false;
    msg = ["does not parse: " ...
           strtrim(strrep (strtok (err.message, ">"), "\n", " "))];
  end_try_catch
endfunction

## Whether every assert call of CODE with three or more arguments whose
## third is a string literal has a string literal second too (the message
## form, assert (COND, ERRMSG, ...)); otherwise Octave takes the third for
## a tolerance and the call is invalid.
function [ok, msg] = asserts_valid (code)
  ok = true;  msg = "";
  for at = regexp (code, '(?<![A-Za-z0-9_.])assert\s*\(', "end")
    args = call_args (code, at + 1);
    if (numel (args) >= 3 && ! is_string (args{2}) && is_string (args{3}))
      ok = false;
      msg = sprintf (["assert (%s, %s, %s...) takes a tolerance third, " ...
                      "not a message"], args{1}, args{2}, args{3});
      return;
    endif
  endfor
endfunction

## The arguments (trimmed text) of the call whose "(" ends before CODE(I).
function args = call_args (code, i)
  args = {};  depth = 0;  from = i;  n = numel (code);
  after = ["A":"Z" "a":"z" "0":"9" "_.)]}'"];   # a quote there transposes
  while (i <= n)
    c = code(i);
    if (c == '"' || (c == "'" && (i == 1 || ! any (code(i-1) == after))))
      i = string_end (code, i);
    elseif (any (c == "#%"))
      while (i <= n && code(i) != "\n")
        i += 1;
      endwhile
    elseif (any (c == "([{"))
      depth += 1;
    elseif (any (c == ")]}"))
      if (depth == 0)
        args{end+1} = strtrim (code(from:i-1));
        return;
      endif
      depth -= 1;
    elseif (c == "," && depth == 0)
      args{end+1} = strtrim (code(from:i-1));
      from = i + 1;
    endif
    i += 1;
  endwhile
endfunction

## The index of the quote that closes the string opened at CODE(I)
## (doubled quotes inside; backslash escapes in double-quoted strings).
function i = string_end (code, i)
  q = code(i);  n = numel (code);
  i += 1;
  while (i <= n)
    if (q == '"' && code(i) == "\\")
      i += 2;
      continue;
    elseif (code(i) == q)
      if (i < n && code(i+1) == q)
        i += 2;
        continue;
      endif
      return;
    endif
    i += 1;
  endwhile
endfunction

function t = is_string (a)
  t = ! isempty (a) && any (a(1) == "\"'");
endfunction
