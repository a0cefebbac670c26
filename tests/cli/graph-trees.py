#!/usr/bin/env python3
# graph-trees.py PERF-OUT PS-OUT - report-graph.t's comparison of the
# call graphs perf report --stdio -g graph prints under its rows with
# pebs-shim report -g's: each row's graph read back into a tree (the
# column of a frame's name gives its depth, "--V--" starts a branch of
# value V), the trees compared with siblings of equal value in either
# order (perf orders those by the address of its dso objects in memory),
# and pebs-shim's siblings checked to come by value, the largest first
# (fractal's "[...]", what the threshold left out, last).
# Prints the rows compared and each difference; exits 1 on any.
import re
import sys

ROW = re.compile(r'^ {0,11}[0-9.]+%')


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
        elif key is not None and line.strip():
            lines.append(line)
    if key is not None:
        rows[key] = lines
    return rows


def tree(lines):
    root = {'v': None, 'names': [], 'kids': []}
    stack = [(-1, root)]  # (name column, node)
    head = root
    for line in lines:
        if re.fullmatch(r'[ |]*', line) or line.strip() == '|':
            continue
        m = re.match(r'^([ |]*)--([0-9.]+%?)--(.*)$', line)
        if m:
            col = len(m.group(1)) + len(m.group(2)) + 4
            # perf 6.1 reads an uninitialized flag of its "[...]"
            name = re.sub(r'^\[\.\.\.\] \(inlined\)$', '[...]', m.group(3))
            node = {'v': m.group(2), 'names': [name], 'kids': []}
            while stack[-1][0] >= col:
                stack.pop()
            stack[-1][1]['kids'].append(node)
            stack.append((col, node))
            continue
        m = re.match(r'^( *)---(.*)$', line)
        if m:  # the single chain's first frame
            head['names'].append(m.group(2))
            stack = [(len(m.group(1)) + 3, head)]
            continue
        col = len(line) - len(line.lstrip(' |'))
        while len(stack) > 1 and stack[-1][0] > col:
            stack.pop()
        stack[-1][1]['names'].append(line.strip(' |'))
    return root


def canon(n):
    kids = sorted(canon(k) for k in n['kids'])
    return '(%s %s [%s])' % (n['v'], '/'.join(n['names']), ' '.join(kids))


def ordered(n):
    vals = [float(k['v'].rstrip('%')) for k in n['kids']
            if k['names'] != ['[...]']]
    return vals == sorted(vals, reverse=True) and all(map(ordered, n['kids']))


perf, ps = blocks(sys.argv[1], False), blocks(sys.argv[2], True)
bad = 0
for key in perf:
    if key not in ps:
        print('# no row %s' % key)
        bad += 1
        continue
    a, b = tree(perf[key]), tree(ps[key])
    if canon(a) != canon(b) or not ordered(b):
        print('# row %s: %s' % (key, 'order' if canon(a) == canon(b)
                                else 'tree'))
        bad += 1
for key in ps:
    if key not in perf:
        print('# extra row %s' % key)
        bad += 1
print('%d rows, %d exact' % (len(perf), sum(
    perf[k] == ps.get(k) for k in perf)))
sys.exit(1 if bad or not perf else 0)
