"""pebs_api.py - the PEBS_API functions of lib/include/pebsshim.h and the
module headers it includes (pebsshim/<module>.h, followed through their
"pebsshim/..." includes), for the shell tests (abi.t, manpage.t,
deb.t): comments and preprocessor lines stripped, a declaration may span
lines, its name is the identifier before "(".

Run as a program: the names, sorted, one a line."""
import os
import re
import sys


def norm(s):
    """a declaration with whitespace normalized, to compare two"""
    s = ' '.join(s.split())
    return re.sub(r'\s*([*(),;])\s*', r'\1', s)


def sources(path, seen=None):
    """the text of @path and of the "pebsshim/..." headers it includes,
    each once, looked up beside it and one directory up (the include
    root of a module header)"""
    seen = set() if seen is None else seen
    path = os.path.realpath(path)
    if path in seen:
        return ''
    seen.add(path)
    src = open(path).read()
    texts = [src]
    here = os.path.dirname(path)
    for inc in re.findall(r'^\s*#\s*include\s+"(pebsshim/[^"]+)"', src, re.M):
        for d in (here, os.path.dirname(here)):
            if os.path.exists(os.path.join(d, inc)):
                texts.append(sources(os.path.join(d, inc), seen))
                break
        else:
            raise SystemExit('%s: included %s not found' % (path, inc))
    return '\n'.join(texts)


def declarations(path):
    """{name: normalized declaration} of every PEBS_API function"""
    src = sources(path)
    src = re.sub(r'/\*.*?\*/', ' ', src, flags=re.S)
    src = re.sub(r'^\s*#.*$', ' ', src, flags=re.M)
    decl = {}
    for d in re.findall(r'\bPEBS_API\b([^;{]*)', src):
        m = re.search(r'\b([A-Za-z_]\w*)\s*\(', d)
        if m:
            decl[m.group(1)] = norm(d)
    return decl


if __name__ == '__main__':
    print('\n'.join(sorted(declarations(sys.argv[1]))))
