## parse_test_blocks (FILE, ...) -- every %!test, %!testif, %!demo and
## %!function block of the files must parse.  Octave's test runner parses
## a block only when it runs it, and a machine without a GPU skips every
## %!testif block that needs one: a syntax error there would show only on
## a GPU.  Each block is defined as a function (never called), as the
## runner defines it.  Prints each block that does not parse and, last,
## "N passed, N failed".
function parse_test_blocks (varargin)
  passed = 0;  failed = 0;
  for f = 1:numel (varargin)
    blocks = test_blocks (varargin{f});
    for b = 1:numel (blocks)
      [ok, msg] = parses (blocks{b}.code);
      if (ok)
        passed += 1;
      else
        failed += 1;
        printf ("  %s:%d: %s block does not parse: %s\n", varargin{f},
                blocks{b}.line, blocks{b}.kind, msg);
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
    msg = strtrim (strrep (strtok (err.message, ">"), "\n", " "));
  end_try_catch
endfunction
