#!/usr/bin/env python3
# graph-rows.py PERF-OUT PS-OUT - report-graph.t's comparison of the
# call graphs perf report --stdio -g prints under its rows with pebs-shim
# report -g's: row by row (keyed by the shares and keys, pebs-shim's
# threads column left out), each row's graph lines to the byte, but for
# the flag perf 6.1 reads uninitialized on its "[...]" branch (it may
# print "[...] (inlined)") and the blank lines that end a graph (perf
# adds more at the table's end; test-report-graph checks them).
# Prints the rows compared and the first lines of each difference; exits
# 1 on any, or when perf printed no row.
import difflib
import re
import sys

ROW = re.compile(r'^ {0,8}[0-9.]+%')


def blocks(path, ps):
    rows, key, lines, on = {}, None, [], not ps
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if ps and line.startswith('# samples by --sort keys'):
            on = True
            continue
        if not on or line.startswith('#') or line.startswith('      ...'):
            continue
        if ROW.match(line):
            if key is not None:
                rows[key] = lines
            f = line.split()
            # Children and Self, or Overhead, then (pebs-shim) the
            # threads column
            n = 2 if len(f) > 1 and f[1].endswith('%') else 1
            key = ' '.join(f[:n] + f[n + 1 if ps else n:])
            lines = []
        elif key is not None:
            lines.append(line.replace('[...] (inlined)', '[...]'))
    if key is not None:
        rows[key] = lines
    for k in rows:
        while rows[k] and rows[k][-1] == '':
            rows[k].pop()
    return rows


perf, ps = blocks(sys.argv[1], False), blocks(sys.argv[2], True)
bad = 0
for key in perf:
    if key not in ps:
        print('# no row %s' % key)
        bad += 1
    elif perf[key] != ps[key]:
        print('# row %s:' % key)
        for d in list(difflib.unified_diff(perf[key], ps[key], 'perf',
                                           'pebs-shim', lineterm=''))[:12]:
            print('#  ' + d)
        bad += 1
for key in ps:
    if key not in perf:
        print('# extra row %s' % key)
        bad += 1
print('%d rows, %d differ' % (len(perf), bad))
sys.exit(1 if bad or not perf else 0)
