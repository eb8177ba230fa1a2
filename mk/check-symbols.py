#!/usr/bin/env python3
"""Holds abev's symbol references to the folder graph of mk/layers.

Usage: check-symbols.py LIBABEV.a [ROOT]

check-layers.py reads include lines; a call needs no include (a local
prototype, an implicit declaration turned off by -Werror but still
possible with a hand-written extern), so this reads what the objects
themselves reference. nm(1) lists each object's undefined symbols and
every object's defined ones; a symbol an object of folder F uses that an
object of folder G defines must have G be F or a folder F's line of
mk/layers declares (mk/layergraph.py reads it). Objects are named by their source file
(check-names.py holds file names unique), found in ROOT's folders; the
generated ones (build/gen/, or gen/ beside the archive: the embedded
report templates, data that references nothing) count as the bottom.
On failure it prints one line per offence, "FOLDER/FILE.c uses SYMBOL,
defined in FOLDER/FILE.c above it" (or "... which mk/layers does not
let FOLDER use" for a sideways edge), and exits 1; else one summary line.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layergraph  # noqa: E402


def nm(lib, *flags):
    """{object: [(kind, name)]} of the archive, with nm's flags."""
    out = subprocess.run(['nm', '-A', *flags, lib], capture_output=True, text=True,
                         check=True).stdout
    objs = {}
    for line in out.splitlines():
        # "lib.a:x.o:0000000000000000 T name" or "lib.a:x.o:                 U name"
        head, _, rest = line.rpartition(':')
        parts = rest.split()
        if len(parts) < 2:
            continue
        objs.setdefault(head.split(':')[-1], []).append((parts[-2], parts[-1]))
    return objs


def main():
    lib = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else '.'
    try:
        order, uses = layergraph.read(root)
    except layergraph.LayersError as e:
        print(e)
        return 1
    rank = {d: i for i, d in enumerate(order)}
    folder = {}
    # build/gen/ (the sanitizer builds under build/asan/ compile the same sources)
    for gen in (os.path.join(os.path.dirname(lib), 'gen'), os.path.join(root, 'build', 'gen')):
        rank[gen] = -1
        for f in os.listdir(gen) if os.path.isdir(gen) else ():
            if f.endswith('.c'):
                folder.setdefault(f[:-2] + '.o', gen)
    for d in order:
        p = os.path.join(root, d)
        for f in os.listdir(p) if os.path.isdir(p) else ():
            if f.endswith('.c'):
                folder[f[:-2] + '.o'] = d
    defined = {}
    for obj, syms in nm(lib, '--defined-only').items():
        for kind, name in syms:
            if kind in 'TDBRGSV':
                defined[name] = obj
    errors = []
    unknown = set()
    refs = 0
    for obj, syms in sorted(nm(lib, '--undefined-only').items()):
        if obj not in folder:
            unknown.add(obj)
            continue
        for _, name in syms:
            where = defined.get(name)
            if where is None:
                continue            # libc, OpenSSL, libxml2, ...
            if where not in folder:
                unknown.add(where)
                continue
            refs += 1
            user, owner = folder[obj], folder[where]
            if owner == user or rank[owner] < 0 or owner in uses.get(user, ()):
                continue
            errors.append('%s/%s uses %s, defined in %s/%s %s'
                          % (user, obj[:-2] + '.c', name, owner, where[:-2] + '.c',
                             'above it' if rank[owner] > rank[user] else
                             'which mk/layers does not let %s use' % user))
    for obj in sorted(unknown):
        errors.append('%s: an object whose source is in no folder of mk/layers' % obj)
    if errors:
        for e in errors:
            print(e)
        print('check-symbols: %d offence(s) against mk/layers' % len(errors))
        return 1
    print('check-symbols: %d references between the library\'s objects, none upward or undeclared' % refs)
    return 0


if __name__ == '__main__':
    sys.exit(main())
