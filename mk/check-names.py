#!/usr/bin/env python3
"""Names carry their file: checks abev's library archive and sources.

Usage: check-names.py LIBABEV.a [ROOT]

Refuses, naming both places:
  - a static function (or object) of one file named like a function
    another file exports: a reader who finds the name cannot tell which
    one a call means;
  - two source files of the same name in different folders (the include
    line says the folder, the object file, the debugger and the profile
    say only the name);
  - an exported name that does not begin with its file's name, its
    folder's (or that without a final s: guards/ -> guard_), or the name
    of the file its file extends (stats_exact.c beside stats.c -> stats_),
    unless mk/name-prefixes allows it there; and a line of mk/name-prefixes
    that no exported name needs. A reader who meets proc_run() knows
    where to look.
nm(1) reads the archive (so run it after the library is built).
"""
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layergraph  # noqa: E402


def read_prefixes(root):
    """{file or folder/: [names, a trailing * a prefix]} from mk/name-prefixes, if present."""
    path = os.path.join(root, 'mk', 'name-prefixes')
    allowed = {}
    if not os.path.exists(path):
        return allowed
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                where, _, names = line.partition(':')
                allowed[where.strip()] = names.split()
    return allowed


def matches(name, pattern):
    return name.startswith(pattern[:-1]) if pattern.endswith('*') else name == pattern


def prefix_offences(exported, root, folders):
    """The exported names without their file's prefix, and the stale allowances."""
    where = {}
    stems = collections.defaultdict(set)
    for d in folders:
        for f in sorted(os.listdir(os.path.join(root, d))):
            if f.endswith('.c'):
                where[f[:-2] + '.o'] = d + '/' + f
                stems[d].add(f[:-2])
    allowed = read_prefixes(root)
    used = set()
    errors = []
    for name, obj in sorted(exported.items()):
        src = where.get(obj)
        if src is None:
            continue                    # generated (build/gen/)
        d, stem = os.path.dirname(src), os.path.basename(src)[:-2]
        folder = os.path.basename(d)
        own = [stem, folder, folder[:-1] if folder.endswith('s') else folder]
        family = stem.split('_')[0]
        if family != stem and family in stems[d]:
            own.append(family)
        if any(name == p or name.startswith(p + '_') for p in own):
            continue
        hit = [(k, p) for k in (src, d + '/') for p in allowed.get(k, ()) if matches(name, p)]
        if hit:
            used.update(hit)
            continue
        errors.append('%s exports %s: begin it with %s_ (or allow it in mk/name-prefixes)'
                      % (src, name, stem))
    for k, pats in allowed.items():
        for p in pats:
            if (k, p) not in used:
                errors.append('mk/name-prefixes: %s: %s matches no exported name: remove it' % (k, p))
    return errors


def main():
    lib = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else '.'
    out = subprocess.run(['nm', '-A', '--defined-only', lib], capture_output=True, text=True,
                         check=True).stdout
    exported = {}
    local = []
    for line in out.splitlines():
        # "libabev.a:plan.o:0000000000000000 t versions_release"
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
    errors += prefix_offences(exported, root, folders)
    for e in sorted(set(errors)):
        print(e)
    if errors:
        print('check-names: %d offence(s)' % len(set(errors)))
        return 1
    print('check-names: %d exported names, each with its file\'s prefix, no static one like '
          'them, no file named twice' % len(exported))
    return 0


if __name__ == '__main__':
    sys.exit(main())
