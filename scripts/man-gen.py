#!/usr/bin/env python3
"""man-gen.py - the per-object and per-command manual pages, made from the
two pages kept by hand, so that nothing is written twice:

  man-gen.py man3 VERSION OUTDIR   from man/libpebsshim.3: one page per
      object family (each .SS of FUNCTIONS, merged by object, e.g.
      pebs_channel.3) with NAME, SYNOPSIS (the exact prototypes),
      DESCRIPTION, RETURN VALUE (each function's "Returns ..." and the
      -errno values it names), EXAMPLE (man/examples/<page>.c if there is
      one, else the whole program of examples/ whose head comment says
      "Shown in <page>(3)", then the list of the programs of examples/
      that call the family), SEE ALSO;
      and a ".so man3/<page>.3" link page per function, so that
      `man pebs_channel__open` works.
  man-gen.py man1 VERSION OUTDIR   from man/pebs-shim.1: pebs-shim-<cmd>.1
      for each command of its COMMANDS section that has no page of its own
      in man/, in perf's layout (NAME, SYNOPSIS, DESCRIPTION, OPTIONS,
      EXIT STATUS, EXAMPLES, SEE ALSO).

Run from the source tree (the Makefile does). Prints the files written."""
import os
import re
import sys

# FUNCTIONS subsections of libpebsshim.3 that belong to another
# subsection's object; any other subsection is named by the object most
# of its prototypes belong to (pebs_<object>__verb, or the plain name)
MERGE = {
    'Table reader and timeline': 'pebs_map',
    'Event lists and groups': 'pebs_event',
    'Samples and data sources': 'pebs_sample',
    'Shared rings and lost samples': 'pebs_channel',
    'Recording files': 'pebs_perfdata_writer',
    'Record views': 'pebs_threads',
    'Errors': 'pebs_errmsg',
}
# the man1 pages that also carry these sections of pebs-shim.1
EVENT_CMDS = ('record', 'observe')
PERF_PAGES = {'record': 'perf\\-record', 'report': 'perf\\-report',
              'c2c': 'perf\\-c2c', 'map': 'perf\\-sched'}


def sections(lines, macro):
    """[(title, body lines)] of each `macro` (.SH or .SS) heading"""
    out, cur = [], None
    for line in lines:
        if line.startswith(macro + ' ') or line == macro:
            cur = (line[len(macro):].strip().strip('"'), [])
            out.append(cur)
        elif cur is not None:
            cur[1].append(line)
    return out


def sh_section(lines, title):
    """the body of .SH title (up to the next .SH)"""
    for t, body in sections(lines, '.SH'):
        if t == title:
            return body
    return []


def unroff(line):
    """the plain text of one roff line (as tests/cli/manpage.t reads it)"""
    line = re.sub(r'\\f(\[[^]]*\]|\(..|.)', '', line)
    line = line.replace('\\-', '-').replace('\\e', '\\').replace('\\&', '')
    m = re.match(r'\.([A-Z]{1,2})\b\s*(.*)$', line)
    if not m:
        return '' if line.startswith('.') else line
    args = [a[1:-1].replace('""', '"') if a.startswith('"') else a
            for a in re.findall(r'"(?:[^"]|"")*"|\S+', m.group(2))]
    if m.group(1) in ('B', 'I'):
        return ' '.join(args)
    if m.group(1) in ('BI', 'IB', 'BR', 'RB', 'IR', 'RI'):
        return ''.join(args)
    return ''


def entries(body):
    """split a FUNCTIONS subsection into (intro, [(names, proto, text)]):
    each prototype block (.nf/.fi) and the .RS/.RE text that follows"""
    intro, items, i = [], [], 0
    while i < len(body):
        if body[i].startswith('.nf'):
            j = body.index('.fi', i)
            proto = body[i + 1:j]
            names = re.findall(r'\b(pebs_\w+)\s*\(',
                               ' '.join(map(unroff, proto)))
            # only the declared name of each statement
            decl = []
            for stmt in ' '.join(map(unroff, proto)).split(';'):
                m = re.match(r'\s*\S.*?\b(pebs_\w+)\s*\(', stmt)
                if m:
                    decl.append(m.group(1))
            text, k = [], j + 1
            if k < len(body) and body[k].startswith('.RS'):
                end, depth = k + 1, 1
                while end < len(body):
                    depth += body[end].startswith('.RS')
                    depth -= body[end].startswith('.RE')
                    if depth == 0:
                        break
                    end += 1
                text = body[k + 1:end]
                k = end + 1
            items.append((decl or names, proto, text))
            i = k
        else:
            if not items:
                intro.append(body[i])
            i += 1
    while intro and intro[-1] == '.PP':
        intro.pop()
    return intro, items


def family(title, items):
    if title in MERGE:
        return MERGE[title]
    count = {}
    for names, _, _ in items:
        for n in names:
            obj = n.split('__')[0]
            count[obj] = count.get(obj, 0) + 1
    return max(sorted(count), key=lambda o: count[o]) if count else None


def returns(text):
    """the sentences of a description that say what it returns"""
    plain = ' '.join(x for x in map(unroff, text) if x)
    plain = re.sub(r'\s+', ' ', plain).strip()
    sent = re.split(r'(?<=[.)])\s+(?=[A-Z])', plain)
    return [s for s in sent if re.match(r'(Returns?|Return)\b', s)]


def esc(s):
    """plain text back to roff (one line, no leading dot or quote)"""
    s = s.replace('\\', '\\e').replace('-', '\\-')
    return ('\\&' + s) if s[:1] in ('.', "'") else s


def th(name, sec, version, kind):
    return ['.\\" Generated by scripts/man-gen.py: edit the page it is '
            'made from.', f'.TH {name.upper()} {sec} 2026-11-24 '
            f'"pebs-shim {version}" "{kind}"', '.nh', '.ad l']


def module_headers():
    """{function: "pebsshim/<module>.h"} of every PEBS_API function of
    the module headers pebsshim.h includes"""
    mod = {}
    d = 'lib/include/pebsshim'
    for f in sorted(os.listdir(d)):
        if not f.endswith('.h'):
            continue
        text = re.sub(r'/\*.*?\*/', ' ', open(os.path.join(d, f)).read(),
                      flags=re.S)
        for decl in re.findall(r'\bPEBS_API\b([^;{]*)', text):
            m = re.search(r'\b([A-Za-z_]\w*)\s*\(', decl)
            if m:
                mod[m.group(1)] = 'pebsshim/' + f
    return mod


def man3(version, out):
    src = open('man/libpebsshim.3').read().split('\n')
    headers = module_headers()
    funcs = sections(sh_section(src, 'FUNCTIONS'), '.SS')
    pages = {}
    for title, body in funcs:
        intro, items = entries(body)
        name = family(title, items)
        if name is None:
            continue
        pages.setdefault(name, []).append((title, intro, items))
    # the overview's EXAMPLE program, for the families it calls
    ov = sh_section(src, 'EXAMPLE')
    ov_code = ov[ov.index('.EX'):ov.index('.EE') + 1] if '.EX' in ov else []
    examples = {}
    for f in sorted(os.listdir('examples')):
        if f.endswith('.c'):
            examples[f] = open(os.path.join('examples', f)).read()
    written = []
    for name, parts in sorted(pages.items()):
        fns = [n for _, _, items in parts for names, _, _ in items
               for n in names]
        lines = th(name, 3, version, 'Library Functions Manual')
        # the umbrella, and the module header that declares them all
        # (a family spread over modules has only the umbrella)
        mods = sorted(set(headers.get(f, '') for f in fns))
        inc = ['.B #include <pebsshim.h>']
        if len(mods) == 1 and mods[0]:
            inc += ['.RB "(or only " "#include <%s>" )' % mods[0]]
        lines += ['.SH NAME', ', '.join(esc(f) for f in fns) + ' \\- ' +
                  '; '.join(esc(t[0].lower() + t[1:]) for t, _, _ in parts),
                  '.SH SYNOPSIS', '.nf'] + inc + ['.fi']
        for _, _, items in parts:
            for _, proto, _ in items:
                lines += ['.PP', '.nf'] + proto + ['.fi']
        lines += ['.PP', 'Link with', '.B \\-lpebsshim',
                  '(flags:', '.BR "pkg\\-config \\-\\-cflags \\-\\-libs '
                  'libpebsshim" ).', '.SH DESCRIPTION']
        for title, intro, items in parts:
            if len(parts) > 1:
                lines += ['.SS ' + title]
            lines += intro
            for names, _, text in items:
                lines += ['.PP', ',\n'.join(f'.BR {n} ()' for n in names)]
                lines += ['.RS 4'] + text + ['.RE']
        lines += ['.SH RETURN VALUE']
        for _, _, items in parts:
            for names, proto, text in items:
                ret = returns(text)
                errs = sorted(set(re.findall(r'\\-(E[A-Z0-9]+)',
                                             ' '.join(text))))
                void = all(re.match(r'\.BI?\s+"?void\s+pebs', p)
                           for p in proto if re.search(r'pebs_\w+\(', p))
                lines += ['.TP', ', '.join(f'\\fB{esc(n)}\\fR()'
                                           for n in names)]
                if ret:
                    lines += [esc(r) for r in ret]
                elif void:
                    lines += ['Returns nothing.']
                else:
                    lines += ['The value described above; it cannot fail.']
                if errs:
                    lines += ['.br', 'Errors: ' + ', '.join(
                        f'\\-{e}' for e in errs) + '.']
        lines += ['.PP', 'On failure the reason is also in',
                  '.BR pebs_errmsg ();',
                  'see', '.BR libpebsshim (3)', 'for the conventions.',
                  '.SH EXAMPLE']
        snippet = os.path.join('man', 'examples', name + '.c')
        users = [f for f, code in examples.items()
                 if any(re.search(r'\b' + f + r'\s*\(', code)
                        for f in fns)]
        ov_calls = [f for f in fns
                    if re.search(r'\b' + f + r'\s*\(', '\n'.join(ov_code))]
        shown = [f for f, code in examples.items()
                 if re.search(r'Shown in [^.]*\b' + name + r'\(3\)',
                              code.split('*/', 1)[0])]
        if os.path.exists(snippet):
            code = open(snippet).read().rstrip('\n').split('\n')
            code = [c for c in code if not c.startswith('// SPDX')]
            lines += ['.EX'] + [esc(c) if c else '' for c in code] + ['.EE']
        elif shown:
            for f in shown:
                code = examples[f].rstrip('\n').split('\n')
                code = [c for c in code if not c.startswith('// SPDX')]
                lines += ['.PP', '.I examples/' + esc(f),
                          '(built by', '.BR make ;',
                          'or: cc ' + esc(f) + ' $(pkg\-config \-\-cflags '
                          '\-\-libs libpebsshim)):', '.PP', '.EX'] + \
                    [esc(c) if c else '' for c in code] + ['.EE']
        elif ov_calls:
            lines += ['The EXAMPLE of', '.BR libpebsshim (3),',
                      'which calls ' + ', '.join(f'{esc(f)}()'
                                                 for f in ov_calls) + ':',
                      '.PP'] + ov_code
        if users:
            lines += ['.PP', 'The programs of', '.I examples/',
                      'in the source tree that call these functions:']
            for f in users:
                used = sorted(x for x in fns
                              if re.search(r'\b' + x + r'\s*\(', examples[f]))
                lines += ['.TP', '.I ' + esc(f),
                          ', '.join(f'{esc(x)}()' for x in used) + '.']
        tools = [(f, sorted(x for x in fns
                            if re.search(r'\b' + x + r'\s*\(', code)))
                 for f, code in sources('tools')]
        tools = [(f, used) for f, used in tools if used]
        if users or ov_calls or shown or os.path.exists(snippet):
            pass
        elif tools:
            lines += ['The', '.B pebs\\-shim',
                      "commands call them in the source tree's",
                      '.IR tools/ :']
            for f, used in tools:
                lines += ['.TP', '.I ' + esc(f),
                          ', '.join(f'{esc(x)}()' for x in used) + '.']
        else:
            lines += ['See the EXAMPLE of', '.BR libpebsshim (3)',
                      'for the calls every program makes (events, channels,'
                      ' rings and samples).']
        see = ['libpebsshim'] + [p for p in sorted(pages) if p != name]
        lines += ['.SH SEE ALSO', ',\n'.join(f'.BR {esc(p)} (3)'
                                            for p in see)]
        path = os.path.join(out, 'man3', name + '.3')
        write(path, lines)
        written.append(path)
        for f in fns:
            if f != name:
                link = os.path.join(out, 'man3', f + '.3')
                write(link, [f'.so man3/{name}.3'])
                written.append(link)
    return written


def man1(version, out):
    src = open('man/pebs-shim.1').read().split('\n')
    helps = dict(re.findall(r'\{\s*"(\w+)",\s*cmd_\w+,\s*"([^"]*)"',
                            open('tools/pebs-shim.c').read()))
    synopsis = sh_section(src, 'SYNOPSIS')
    examples = sh_section(src, 'EXAMPLES')
    cmds = sections(sh_section(src, 'COMMANDS'), '.SS')
    names = [c for c, _ in cmds] + [
        f[len('pebs-shim-'):-2] for f in os.listdir('man')
        if f.startswith('pebs-shim-') and f.endswith('.1')]
    written = []
    for cmd, body in cmds:
        if os.path.exists(f'man/pebs-shim-{cmd}.1'):
            continue
        page = 'pebs-shim-' + cmd
        lines = th(page, 1, version, 'User Commands')
        lines += ['.SH NAME', f'{esc(page)} \\- {esc(helps.get(cmd, cmd))}',
                  '.SH SYNOPSIS']
        syn, keep = [], False
        for line in synopsis:
            if re.match(r'\.B "?pebs-shim ' + cmd + r'\b', line):
                keep = True
            if keep:
                syn.append(line)
                if line == '.br':
                    keep = False
        if syn and syn[-1] == '.br':
            syn.pop()
        lines += syn or [f'.B pebs\\-shim {cmd}', '.RI [ options ]']
        first = next((i for i, x in enumerate(body) if x == '.TP'),
                     len(body))
        desc = body[:first]
        while desc and desc[-1] in ('.PP', ''):
            desc.pop()
        # a last line that introduces the options ("Events:") stays
        lines += ['.SH DESCRIPTION'] + desc
        if first < len(body):
            lines += ['.SH OPTIONS'] + body[first:]
        if cmd in EVENT_CMDS:
            for t in ('EVENTS', 'EVENT ALIASES'):
                lines += ['.SH ' + t] + sh_section(src, t)
        status = sh_section(src, 'EXIT STATUS')
        if cmd != 'record' and '.PP' in status:
            # the paragraphs after the codes are record's exception
            status = status[:status.index('.PP')]
        lines += ['.SH EXIT STATUS'] + status
        ex = example_blocks(examples, cmd)
        if ex:
            lines += ['.SH EXAMPLES'] + ex
        see = ['pebs\\-shim (1)'] + [
            f'pebs\\-shim\\-{c} (1)' for c in sorted(set(names)) if c != cmd]
        if cmd in PERF_PAGES:
            see.append(PERF_PAGES[cmd] + ' (1)')
        if cmd in ('map', 'observe', 'record'):
            see.append('pebs_map (4)')
        lines += ['.SH SEE ALSO', ',\n'.join('.BR ' + s for s in see)]
        path = os.path.join(out, 'man1', page + '.1')
        write(path, lines)
        written.append(path)
    return written


def example_blocks(body, cmd):
    """the EXAMPLES paragraphs (text and its .RS/.RE code) running cmd"""
    blocks, cur = [], []
    for line in body:
        cur.append(line)
        if line == '.RE':
            blocks.append(cur)
            cur = []
    out = []
    for b in blocks:
        code = [x for x in b if not x.startswith('.')]
        if any(re.match(r'pebs\\-shim ' + cmd + r'\b', x) for x in code):
            while b and b[0] == '.PP':
                b = b[1:]
            out += (['.PP'] if out else []) + b
    return out


def sources(d):
    """[(name, text)] of the .c files of directory d, sorted"""
    return [(f, open(os.path.join(d, f)).read())
            for f in sorted(os.listdir(d)) if f.endswith('.c')]


def write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = '\n'.join(lines) + '\n'
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path + '.tmp', 'w') as f:
        f.write(text)
    os.replace(path + '.tmp', path)


if __name__ == '__main__':
    if len(sys.argv) != 4 or sys.argv[1] not in ('man1', 'man3'):
        sys.exit('usage: man-gen.py man1|man3 VERSION OUTDIR')
    gen = man3 if sys.argv[1] == 'man3' else man1
    print('\n'.join(gen(sys.argv[2], sys.argv[3])))
