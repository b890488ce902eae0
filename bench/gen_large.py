#!/usr/bin/env python3
"""Generate one large, self-contained KD file from the samples.

Usage: gen_large.py OUTPUT [LINES] [--samples DIR]

Concatenates every samples/*.kd (sorted by name) over and over until the
output has at least LINES lines (default 100000).  Each time a sample file is
copied it gets a fresh copy number c (0, 1, 2, ... across the whole output),
and every top-level `const` name and every kernel name defined in that copy
is renamed NAME -> NAME_c<c> (whole-word, outside comments and strings), so
no two copies collide -- also not two different samples that both define,
say, `const N`.  `include "x.kd";` is replaced by the included file's text
(recursively, resolved relative to the including file), renamed with the
same suffix as the including copy and inlined at most once per copy; the
output therefore has no includes.  Python standard library only.
"""

import argparse
import os
import re
import sys

# One token of KD source, as far as renaming is concerned.  Comments and
# strings are kept verbatim; numbers are consumed whole so that `0x2A` or
# `1e5` never yields an identifier; anything else is copied one character
# at a time.
TOKEN = re.compile(
    r'''(?P<comment>//[^\n]*|/\*.*?\*/)'''
    r'''|(?P<string>"(?:[^"\\\n]|\\.)*")'''
    r'''|(?P<number>\.?[0-9][A-Za-z0-9_]*(?:\.[0-9][A-Za-z0-9_]*)?(?:[eE][+-]?[0-9]+)?)'''
    r'''|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)'''
    r'''|(?P<other>.)''',
    re.S,
)


class GenError(Exception):
    pass


def tokens(text):
    return [(m.lastgroup, m.group()) for m in TOKEN.finditer(text)]


def significant(toks):
    """Indices of tokens that are neither comments nor white space."""
    return [i for i, (kind, t) in enumerate(toks)
            if kind != 'comment' and not (kind == 'other' and t.isspace())]


def top_level_names(toks):
    """Names of the top-level `const`s, kernels, functions and type aliases of one file."""
    names = []
    depth = 0
    sig = significant(toks)
    for n, i in enumerate(sig):
        kind, t = toks[i]
        if kind == 'other' and t in '{(':
            depth += 1
        elif kind == 'other' and t in '})':
            depth -= 1
        elif depth == 0 and kind == 'ident' and t in ('const', 'kernel', 'fn', 'type'):
            if n + 1 < len(sig) and toks[sig[n + 1]][0] == 'ident':
                names.append(toks[sig[n + 1]][1])
    return names


def split_includes(text, path):
    """Splits a file into text pieces and include directives.

    Returns a list of ('text', str) and ('include', resolved_path, directive)
    items, in order.
    """
    toks = tokens(text)
    sig = significant(toks)
    pieces = []
    start = 0  # token index where the current text piece starts
    n = 0
    while n < len(sig):
        i = sig[n]
        kind, t = toks[i]
        if (kind == 'ident' and t == 'include' and n + 2 < len(sig)
                and toks[sig[n + 1]][0] == 'string'
                and toks[sig[n + 2]][1] == ';'):
            literal = toks[sig[n + 1]][1]
            target = bytes(literal[1:-1], 'utf-8').decode('unicode_escape')
            resolved = os.path.normpath(
                os.path.join(os.path.dirname(path), target))
            if not os.path.isfile(resolved):
                raise GenError(f'{path}: include "{target}" not found')
            directive = ''.join(t for _, t in toks[i:sig[n + 2] + 1])
            pieces.append(('text', ''.join(t for _, t in toks[start:i])))
            pieces.append(('include', resolved, directive))
            start = sig[n + 2] + 1
            n += 3
            continue
        n += 1
    pieces.append(('text', ''.join(t for _, t in toks[start:])))
    return pieces


class Sources:
    """Reads each file once and remembers its pieces and names."""

    def __init__(self):
        self.cache = {}

    def get(self, path):
        path = os.path.normpath(path)
        if path not in self.cache:
            with open(path, encoding='utf-8') as f:
                text = f.read()
            self.cache[path] = (split_includes(text, path),
                                top_level_names(tokens(text)))
        return self.cache[path]


def expand(path, sources, done, stack, names):
    """Text of `path` with its includes inlined (each file once per copy).

    `done` holds the files already emitted in this copy; the top-level names
    of every emitted file are appended to `names`.
    """
    done.add(path)
    pieces, own = sources.get(path)
    names.extend(own)
    out = []
    for piece in pieces:
        if piece[0] == 'text':
            out.append(piece[1])
            continue
        _, target, directive = piece
        if target in stack or target == path:
            cycle = ' -> '.join(stack + [path, target])
            raise GenError(f'include cycle: {cycle}')
        if target in done:
            out.append(f'/* {directive} -- already inlined in this copy */')
            continue
        rel = os.path.basename(target)
        body = expand(target, sources, done, stack + [path], names)
        if not body.endswith('\n'):
            body += '\n'
        out.append(f'/* begin {directive} */\n{body}/* end {rel} */')
    return ''.join(out)


def rename(text, names, suffix):
    """Whole-word renaming of `names`, outside comments and strings."""
    names = set(names)
    out = []
    for kind, t in tokens(text):
        if kind == 'ident' and t in names:
            out.append(t + suffix)
        else:
            out.append(t)
    return ''.join(out)


def generate(samples, target_lines):
    files = sorted(os.path.join(samples, f) for f in os.listdir(samples)
                   if f.endswith('.kd'))
    if not files:
        raise GenError(f'no .kd files in {samples}')
    sources = Sources()
    header = (
        f'// Generated by bench/gen_large.py from {len(files)} samples; '
        f'target {target_lines} lines.\n'
        '// Each sample copy c has its top-level consts and kernels renamed '
        'NAME -> NAME_c<c>.\n\n')
    parts = [header]
    lines = header.count('\n')
    copy = 0
    while lines < target_lines:
        for path in files:
            if lines >= target_lines:
                break
            names = []
            body = expand(os.path.normpath(path), sources, set(), [], names)
            if not body.endswith('\n'):
                body += '\n'
            suffix = f'_c{copy}'
            chunk = (f'// ---- copy {copy}: samples/{os.path.basename(path)} '
                     f'----\n{rename(body, names, suffix)}\n')
            parts.append(chunk)
            lines += chunk.count('\n')
            copy += 1
    return ''.join(parts), lines, copy


def main(argv):
    ap = argparse.ArgumentParser(
        description='Concatenate renamed copies of samples/*.kd into one '
                    'self-contained KD file.')
    ap.add_argument('output', help='output path (- for standard output)')
    ap.add_argument('lines', nargs='?', type=int, default=100000,
                    help='minimum number of lines (default 100000)')
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--samples', default=os.path.join(here, '..', 'samples'),
                    help='directory of .kd samples (default: ../samples)')
    args = ap.parse_args(argv)
    if args.lines <= 0:
        ap.error('LINES must be positive')
    try:
        text, lines, copies = generate(os.path.normpath(args.samples),
                                       args.lines)
    except (GenError, OSError) as e:
        print(f'gen_large.py: error: {e}', file=sys.stderr)
        return 2
    if args.output == '-':
        sys.stdout.write(text)
    else:
        tmp = args.output + '.tmp'
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(text)
        os.replace(tmp, args.output)
        print(f'{args.output}: {lines} lines, {copies} sample copies',
              file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
