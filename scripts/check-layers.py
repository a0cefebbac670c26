#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-layers.py - lib/'s module folders keep the direction of lib/README.md.

The table of lib/README.md (its "| `folder` | concern | may use |" rows) is
the one statement of which folder may use which; a folder may also use what
those may use (the closure). This fails, naming file and line, on

  - an include against the direction: `#include "X/..."` of folder X's
    private header, or `#include "pebsshim/X.h"` / <pebsshim/X.h> of the
    module header of folder X (the table's public-header column says which
    folder a module header belongs to; pebsshim/X.h is X's by default);
  - a call (or any reference to a symbol) against the direction, read from
    the built objects: `nm` of BUILD/lib/<folder>/*.o, each undefined symbol
    resolved to the folder whose objects define it; the line is the first
    use of the symbol in the object's source file.

A cycle in the table itself is an error too. Usage:
  check-layers.py [--src DIR] [--build DIR]   (defaults: . and build)
"""
import argparse
import os
import re
import subprocess
import sys

ROW = re.compile(r'^\|\s*`([a-z0-9_]+)/?`\s*\|([^|]*)\|([^|]*)\|(?:([^|]*)\|)?')
INC = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def read_table(src):
    """{folder: set of folders it names}, {module header: folder}."""
    path = os.path.join(src, 'lib', 'README.md')
    uses, headers = {}, {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = ROW.match(line)
            if not m:
                continue
            folder = m.group(1)
            uses[folder] = set(re.findall(r'`?([a-z0-9_]+)`?',
                                          m.group(3).replace('-', ' ')))
            uses[folder].discard('nothing')
            for h in re.findall(r'pebsshim/[a-z0-9_-]+\.h', m.group(4) or ''):
                headers[h] = folder
    if not uses:
        sys.exit(f'{path}: no "| `folder` | concern | may use |" rows')
    for folder, names in uses.items():
        for n in names:
            if n not in uses:
                sys.exit(f'{path}: {folder} may use "{n}", not a folder '
                         'of the table')
    return uses, headers


def closure(uses, path):
    """{folder: every folder below it}; exits on a cycle."""
    below, state = {}, {}

    def visit(f, chain):
        if state.get(f) == 'done':
            return below[f]
        if state.get(f) == 'open':
            sys.exit(f'{path}: the table has a cycle: '
                     + ' -> '.join(chain + [f]))
        state[f] = 'open'
        acc = set()
        for u in uses[f]:
            acc |= {u} | visit(u, chain + [f])
        state[f] = 'done'
        below[f] = acc
        return acc

    for f in uses:
        visit(f, [])
    return below


def sources(src, folders):
    for folder in sorted(folders):
        d = os.path.join(src, 'lib', folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(('.c', '.h')):
                yield folder, os.path.join('lib', folder, name)


def check_includes(src, folders, below, headers):
    bad = []
    for folder, rel in sources(src, folders):
        with open(os.path.join(src, rel), encoding='utf-8',
                  errors='replace') as f:
            for n, line in enumerate(f, 1):
                m = INC.match(line)
                if not m:
                    continue
                name = m.group(2)
                if name.startswith('pebsshim/'):
                    to = headers.get(name)
                    if to is None:
                        base = name[len('pebsshim/'):-2]
                        to = base if base in folders else None
                    what = 'module header'
                elif m.group(1) == '"' and '/' in name:
                    to = name.split('/', 1)[0]
                    to = to if to in folders else None
                    what = 'private header'
                else:
                    continue
                if to is None or to == folder or to in below[folder]:
                    continue
                bad.append(f'{rel}:{n}: {folder} includes {to}\'s {what} '
                           f'{name}: against the direction of lib/README.md')
    return bad


def nm(obj):
    out = subprocess.run(['nm', '-P', obj], check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            yield parts[0], parts[1]


def first_use(path, sym):
    word = re.compile(r'(?<![A-Za-z0-9_])' + re.escape(sym) +
                      r'(?![A-Za-z0-9_])')
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            for n, line in enumerate(f, 1):
                if word.search(line):
                    return n
    except OSError:
        pass
    return 0


def check_calls(src, build, folders, below):
    objs = []
    for folder in sorted(folders):
        d = os.path.join(build, 'lib', folder)
        if os.path.isdir(d):
            # an object whose source is gone is left over: not read
            objs += [(folder, os.path.join(d, o))
                     for o in sorted(os.listdir(d)) if o.endswith('.o') and
                     os.path.exists(os.path.join(src, 'lib', folder,
                                                 o[:-2] + '.c'))]
    if not objs:
        sys.exit(f'{build}/lib: no objects (build the library first: '
                 'make lib)')
    owner, undef = {}, []
    for folder, obj in objs:
        for sym, kind in nm(obj):
            if kind == 'U':
                undef.append((folder, obj, sym))
            elif kind in 'TDBRVWGSCiu':	# defined, global
                owner.setdefault(sym, folder)
    bad = []
    for folder, obj, sym in undef:
        to = owner.get(sym)
        if to is None or to == folder or to in below[folder]:
            continue
        rel = os.path.join('lib', folder,
                           os.path.basename(obj)[:-2] + '.c')
        n = first_use(os.path.join(src, rel), sym)
        bad.append(f'{rel}:{n}: {folder} calls {sym} of {to}: against the '
                   'direction of lib/README.md')
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--src', default='.')
    ap.add_argument('--build', default='build')
    a = ap.parse_args()
    uses, headers = read_table(a.src)
    below = closure(uses, os.path.join(a.src, 'lib', 'README.md'))
    folders = set(uses)
    on_disk = {d for d in os.listdir(os.path.join(a.src, 'lib'))
               if os.path.isdir(os.path.join(a.src, 'lib', d))} - {'include'}
    bad = [f'lib/{d}/: a folder lib/README.md does not list'
           for d in sorted(on_disk - folders)]
    bad += check_includes(a.src, folders, below, headers)
    bad += check_calls(a.src, a.build, folders, below)
    for b in bad:
        print(b, file=sys.stderr)
    if bad:
        print(f'check-layers: {len(bad)} dependencies against the direction '
              '(lib/README.md)', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
