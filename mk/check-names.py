#!/usr/bin/env python3
"""Names carry their file: checks abev's library archive and sources.

Usage: check-names.py LIBABEV.a [ROOT]

Refuses, naming both places:
  - a static function (or object) of one file named like a function
    another file exports: a reader who finds the name cannot tell which
    one a call means;
  - two source files of the same name in different folders (the include
    line says the folder, the object file, the debugger and the profile
    say only the name).
nm(1) reads the archive (so run it after the library is built).
"""
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layergraph  # noqa: E402


def main():
    lib = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else '.'
    out = subprocess.run(['nm', '-A', '--defined-only', lib], capture_output=True, text=True,
                         check=True).stdout
    exported = {}
    local = []
    for line in out.splitlines():
        # "libabev.a:plan.o:0000000000000000 t version_release"
        head, _, rest = line.rpartition(':')
        parts = rest.split()
        if len(parts) != 3:
            continue
        obj = head.split(':')[-1]
        kind, name = parts[1], parts[2]
        if '.' in name:            # compiler-made local copies (foo.constprop.0)
            continue
        if kind in 'TDBR':
            exported.setdefault(name, obj)
        elif kind in 'tdbr':
            local.append((obj, name))
    errors = []
    for obj, name in local:
        if name in exported and exported[name] != obj:
            errors.append('%s: static %s is named like the function %s exports'
                          % (obj, name, exported[name]))
    folders = layergraph.read(root)[0]
    seen = collections.defaultdict(list)
    for d in folders:
        for f in sorted(os.listdir(os.path.join(root, d))):
            if f.endswith(('.c', '.h')):
                seen[f].append(d)
    for f, ds in sorted(seen.items()):
        if len(ds) > 1:
            errors.append('%s: a file of this name in %s' % (f, ' and '.join(ds)))
    for e in sorted(set(errors)):
        print(e)
    if errors:
        print('check-names: %d offence(s)' % len(set(errors)))
        return 1
    print('check-names: %d exported names, no static one like them, no file named twice'
          % len(exported))
    return 0


if __name__ == '__main__':
    sys.exit(main())
