"""pebs_api.py - the PEBS_API functions of lib/include/pebsshim.h, for the
shell tests (abi.t, manpage.t): comments and preprocessor lines stripped,
a declaration may span lines, its name is the identifier before "(".

Run as a program: the names, sorted, one a line."""
import re
import sys


def norm(s):
    """a declaration with whitespace normalized, to compare two"""
    s = ' '.join(s.split())
    return re.sub(r'\s*([*(),;])\s*', r'\1', s)


def declarations(path):
    """{name: normalized declaration} of every PEBS_API function"""
    src = open(path).read()
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
